// SPDX-License-Identifier: Apache-2.0
/*
 * PodResources replies into a placement: the same facts the kubelet files
 * give (exclusive CPUs, devices by NUMA node, memory's NUMA affinity), so
 * pkg/numa judges them with the same words.
 */
#include "pkg/podres/podres.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "pkg/podres/api.pb-c.h"

/* The gRPC length-prefixed message: flag 0 (uncompressed), 4-byte length, exactly the rest. */
static int unframe(const uint8_t *body, size_t len, const uint8_t **msg, size_t *mlen)
{
	uint32_t n;

	if (!body || len < 5 || body[0] != 0)
		return -EBADMSG;
	n = (uint32_t)body[1] << 24 | (uint32_t)body[2] << 16 | (uint32_t)body[3] << 8 | body[4];
	if (n != len - 5)
		return -EBADMSG;
	*msg = body + 5;
	*mlen = n;
	return 0;
}

static void dev_add(struct rq_podres_placement *p, const char *res, const char *id, int node)
{
	if (node >= 0)
		p->dev_nodes |= 1ULL << node;
	if (p->n_devs >= RQ_KUBELET_MAX_DEVS)
		return;
	(void)snprintf(p->devs[p->n_devs].resource, sizeof(p->devs[0].resource), "%s", res);
	(void)snprintf(p->devs[p->n_devs].id, sizeof(p->devs[0].id), "%s", id);
	p->devs[p->n_devs].node = node;
	p->n_devs++;
}

/* A node ID kubelet would key the checkpoint by: 0..63, else the device is not placed there. */
static bool node_ok(const V1__NUMANode *n)
{
	return n && n->id >= 0 && n->id < 64;
}

static void container_devices(struct rq_podres_placement *p, const V1__ContainerDevices *d,
			      const char *const *skip)
{
	const V1__TopologyInfo *t = d->topology;
	const char *res = d->resource_name ? d->resource_name : "?";

	for (size_t i = 0; i < d->n_device_ids; i++) {
		const char *id = d->device_ids[i] ? d->device_ids[i] : "";
		bool placed = false;

		if (kubelet_dev_skipped(skip, id))
			continue;
		/* one line a node, as the checkpoint lists a device under each of its nodes */
		for (size_t k = 0; t && k < t->n_nodes; k++) {
			if (!node_ok(t->nodes[k]))
				continue;
			dev_add(p, res, id, (int)t->nodes[k]->id);
			placed = true;
		}
		if (!placed)
			dev_add(p, res, id, -1);
	}
}

const char *podres_vf_by_name(enum rq_podres_vf_by by)
{
	switch (by) {
	case RQ_PODRES_VF_BY_DRA_SRIOV:
		return "dra-driver-sriov";
	case RQ_PODRES_VF_BY_DRANET:
		return "dranet";
	case RQ_PODRES_VF_BY_DEVICE_ID:
		return "device-plugin";
	default:
		return "";
	}
}

/* "DDDD:BB:DD.F" in hex, any case: what sysfs and the SR-IOV device plugin write. */
static bool is_pci(const char *s)
{
	static const char form[] = "xxxx:xx:xx.x";

	if (!s || strlen(s) != sizeof(form) - 1)
		return false;
	for (size_t i = 0; form[i]; i++)
		if (form[i] == 'x' ? !isxdigit((unsigned char)s[i]) : s[i] != form[i])
			return false;
	return true;
}

/* @dev is @prefix then PCI address @pci with ':' and '.' as '-', without case. */
static bool dashed_is(const char *dev, const char *prefix, const char *pci)
{
	size_t n = strlen(prefix);

	if (strncmp(dev, prefix, n) != 0)
		return false;
	dev += n;
	for (; *pci; pci++, dev++) {
		char want = (*pci == ':' || *pci == '.') ? '-' : (char)tolower((unsigned char)*pci);

		if (tolower((unsigned char)*dev) != want)
			return false;
	}
	return !*dev;
}

enum rq_podres_vf_by podres_dra_names_vf(const char *driver, const char *device, const char *pci,
					 const char *netdev)
{
	bool addr = is_pci(pci);

	if (!driver || !device || !device[0])
		return RQ_PODRES_VF_BY_NONE;
	if (!strcmp(driver, RQ_DRA_DRIVER_SRIOV))
		return addr && dashed_is(device, "", pci) ? RQ_PODRES_VF_BY_DRA_SRIOV
							  : RQ_PODRES_VF_BY_NONE;
	if (!strcmp(driver, RQ_DRA_DRIVER_DRANET)) {
		if (addr && dashed_is(device, "pci-", pci))
			return RQ_PODRES_VF_BY_DRANET;
		if (netdev && netdev[0] && !strcmp(device, netdev))
			return RQ_PODRES_VF_BY_DRANET;
	}
	return RQ_PODRES_VF_BY_NONE;
}

/* Whether DRA device @driver/@device is one of the attachment's names in @skip. */
static bool dra_is_self(const char *driver, const char *device, const char *const *skip)
{
	for (size_t i = 0; skip && skip[i]; i++)
		if (podres_dra_names_vf(driver, device, skip[i], skip[i]) != RQ_PODRES_VF_BY_NONE)
			return true;
	return false;
}

static void dra_set(struct rq_podres_dra_dev *d, const char *driver, const char *device)
{
	(void)snprintf(d->driver, sizeof(d->driver), "%s", driver);
	(void)snprintf(d->device, sizeof(d->device), "%s", device);
}

static bool dra_kept(const struct rq_podres_placement *p, const char *driver, const char *device)
{
	struct rq_podres_dra_dev d;

	dra_set(&d, driver, device);
	for (size_t i = 0; i < p->n_dra; i++)
		if (!strcmp(p->dra[i].driver, d.driver) && !strcmp(p->dra[i].device, d.device))
			return true;
	return false;
}

/* A container's DRA devices: the VF's own claim, or one that places nothing. */
static void container_dra(struct rq_podres_placement *p, const V1__DynamicResource *dr,
			  const char *const *skip)
{
	for (size_t i = 0; i < dr->n_claim_resources; i++) {
		const V1__ClaimResource *c = dr->claim_resources[i];
		const char *driver, *device;

		if (!c)
			continue;
		driver = c->driver_name ? c->driver_name : "";
		device = c->device_name ? c->device_name : "";
		if (!p->has_self && dra_is_self(driver, device, skip)) {
			p->has_self = true;
			dra_set(&p->self, driver, device);
			(void)snprintf(p->self_claim, sizeof(p->self_claim), "%s/%s",
				       dr->claim_namespace ? dr->claim_namespace : "",
				       dr->claim_name ? dr->claim_name : "");
			continue;
		}
		if (dra_is_self(driver, device, skip))
			continue; /* the same VF under a second container */
		if (dra_kept(p, driver[0] ? driver : "?", device[0] ? device : "?"))
			continue; /* one claim shared by two containers */
		p->n_dra_all++;
		if (p->n_dra < RQ_PODRES_MAX_DRA)
			dra_set(&p->dra[p->n_dra++], driver[0] ? driver : "?",
				device[0] ? device : "?");
	}
}

static int pod_placement(const V1__PodResources *pod, const char *const *skip,
			 struct rq_podres_placement *p)
{
	memset(p, 0, sizeof(*p));
	for (size_t c = 0; pod && c < pod->n_containers; c++) {
		const V1__ContainerResources *ctr = pod->containers[c];

		if (!ctr)
			continue;
		for (size_t i = 0; i < ctr->n_cpu_ids; i++) {
			int64_t cpu = ctr->cpu_ids[i];

			if (cpu < 0 || cpu >= RQ_MAX_CPUS)
				return -EBADMSG;
			p->cpus[cpu / 64] |= 1ULL << (cpu % 64);
		}
		for (size_t i = 0; i < ctr->n_devices; i++)
			if (ctr->devices[i])
				container_devices(p, ctr->devices[i], skip);
		for (size_t i = 0; i < ctr->n_dynamic_resources; i++)
			if (ctr->dynamic_resources[i])
				container_dra(p, ctr->dynamic_resources[i], skip);
		for (size_t i = 0; i < ctr->n_memory; i++) {
			const V1__TopologyInfo *t =
			    ctr->memory[i] ? ctr->memory[i]->topology : NULL;

			for (size_t k = 0; t && k < t->n_nodes; k++)
				if (node_ok(t->nodes[k]))
					p->mem_nodes |= 1ULL << t->nodes[k]->id;
		}
	}
	return 0;
}

int podres_decode_get(const uint8_t *body, size_t len, const char *const *skip,
		      struct rq_podres_placement *ret)
{
	V1__GetPodResourcesResponse *m;
	const uint8_t *msg;
	size_t mlen;
	int r = unframe(body, len, &msg, &mlen);

	if (r < 0)
		return r;
	m = v1__get_pod_resources_response__unpack(NULL, mlen, msg);
	if (!m)
		return -EBADMSG;
	r = pod_placement(m->pod_resources, skip, ret);
	v1__get_pod_resources_response__free_unpacked(m, NULL);
	return r;
}

/* A protobuf varint at *@p before @end; *@p past it. */
static int pb_varint(const uint8_t **p, const uint8_t *end, uint64_t *ret)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 64 && *p < end; shift += 7) {
		uint8_t b = *(*p)++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*ret = v;
			return 0;
		}
	}
	return -EBADMSG;
}

/*
 * One protobuf field at *@p before @end: its number, and for a length-delimited one its
 * bytes in @ret_val/@ret_len (else NULL); *@p past it. Groups (wire types 3, 4) are not in
 * this API: malformed.
 */
static int pb_field(const uint8_t **p, const uint8_t *end, uint64_t *ret_num,
		    const uint8_t **ret_val, size_t *ret_len)
{
	uint64_t key, n;

	if (pb_varint(p, end, &key) < 0) /* field 0 passes, as protobuf-c lets it */
		return -EBADMSG;
	*ret_num = key >> 3;
	*ret_val = NULL;
	*ret_len = 0;
	switch (key & 7) {
	case 0:
		return pb_varint(p, end, &n);
	case 1:
	case 5:
		n = (key & 7) == 1 ? 8 : 4;
		break;
	case 2:
		if (pb_varint(p, end, &n) < 0)
			return -EBADMSG;
		*ret_val = *p;
		*ret_len = (size_t)n;
		break;
	default:
		return -EBADMSG;
	}
	if (n > (uint64_t)(end - *p))
		return -EBADMSG;
	*p += n;
	return 0;
}

/* As protobuf-c hands a string to C: up to its first NUL; an absent one is "". */
static bool pb_str_eq(const uint8_t *v, size_t len, const char *s)
{
	if (!v)
		return !s[0];
	len = strnlen((const char *)v, len);
	return strlen(s) == len && !memcmp(v, s, len);
}

/*
 * Whether the PodResources message @v is pod @ns/@name, by its name (1) and namespace (2)
 * alone, the last of each as protobuf merges them; -EBADMSG when its fields do not parse.
 */
static int pod_is(const uint8_t *v, size_t len, const char *ns, const char *name, bool *ret)
{
	const uint8_t *p = v, *end = v + len, *val, *nv = NULL, *sv = NULL;
	size_t vlen, nlen = 0, slen = 0;
	uint64_t num;

	while (p < end) {
		if (pb_field(&p, end, &num, &val, &vlen) < 0)
			return -EBADMSG;
		if ((num == 1 || num == 2) && !val)
			return -EBADMSG; /* a string field that is not length-delimited */
		if (num == 1)
			nv = val, nlen = vlen;
		else if (num == 2)
			sv = val, slen = vlen;
	}
	*ret = pb_str_eq(nv, nlen, name) && pb_str_eq(sv, slen, ns);
	return 0;
}

/*
 * List is every pod of the node (230 KB at 250 GPU pods): the reply is walked field by
 * field and only the pod asked about is unpacked, where unpacking it all cost 1.4 ms and
 * 1.5 MiB of heap. The walk checks the framing of every pod; the first match decides, as
 * a full unpack would.
 */
int podres_decode_list(const uint8_t *body, size_t len, const char *ns, const char *name,
		       const char *const *skip, struct rq_podres_placement *ret)
{
	const uint8_t *msg, *p, *end, *val, *found = NULL;
	V1__PodResources *pod;
	uint64_t num;
	size_t mlen, vlen, flen = 0;
	bool match;
	int r = unframe(body, len, &msg, &mlen);

	if (r < 0)
		return r;
	if (!ns || !name)
		return -EINVAL;
	for (p = msg, end = msg + mlen; p < end;) {
		if (pb_field(&p, end, &num, &val, &vlen) < 0)
			return -EBADMSG;
		if (num != 1)
			continue; /* a field this client does not know */
		if (!val || pod_is(val, vlen, ns, name, &match) < 0)
			return -EBADMSG;
		if (match && !found)
			found = val, flen = vlen;
	}
	if (!found)
		return -ESRCH;
	pod = v1__pod_resources__unpack(NULL, flen, found);
	if (!pod)
		return -EBADMSG;
	r = pod_placement(pod, skip, ret);
	v1__pod_resources__free_unpacked(pod, NULL);
	return r;
}

/* A string field's bytes as protobuf-c gives them to C (up to the first NUL), into @ret. */
static void pb_str(const uint8_t *v, size_t len, char *ret, size_t cap)
{
	len = v ? strnlen((const char *)v, len) : 0;
	if (len >= cap)
		len = cap - 1;
	if (len)
		memcpy(ret, v, len);
	ret[len] = '\0';
}

/* A raw string field: its bytes (NULL: absent, which protobuf-c gives as ""). */
struct pb_s {
	const uint8_t *v;
	size_t len;
};

static bool pb_s_eq(struct pb_s a, struct pb_s b)
{
	size_t la = a.v ? strnlen((const char *)a.v, a.len) : 0;
	size_t lb = b.v ? strnlen((const char *)b.v, b.len) : 0;

	return la == lb && (!la || !memcmp(a.v, b.v, la));
}

/*
 * Walk message @v/@len: each field to @fn with @arg; fields numbered in @strs (a bitmap of
 * field numbers below 64) must be length-delimited, as protobuf-c refuses them otherwise.
 */
static int pb_walk(const uint8_t *v, size_t len, uint64_t strs,
		   int (*fn)(uint64_t num, const uint8_t *val, size_t vlen, void *arg), void *arg)
{
	const uint8_t *p = v, *end = v + len, *val;
	size_t vlen;
	uint64_t num;
	int r;

	while (p < end) {
		if (pb_field(&p, end, &num, &val, &vlen) < 0)
			return -EBADMSG;
		if (num < 64 && (strs & (1ULL << num)) && !val)
			return -EBADMSG;
		r = fn ? fn(num, val, vlen, arg) : 0;
		if (r < 0)
			return r;
	}
	return 0;
}

#define F(n) (1ULL << (n))

/* What one container's walk found. */
struct vf_walk {
	const char *pci, *netdev;
	/* ClaimResource / ContainerDevices / DynamicResource / container being read */
	struct pb_s driver, device, res, claim_name, claim_ns, ctr_name;
	bool hit; /* the message being read names the VF */
	enum rq_podres_vf_by by;
	/* the container's first hit: by DRA, by device plugin */
	bool dra_hit, dp_hit;
	struct rq_podres_vf_owner dra, dp;
};

static int claim_field(uint64_t num, const uint8_t *val, size_t vlen, void *arg)
{
	struct vf_walk *w = arg;

	if (num == 2)
		w->driver = (struct pb_s){val, vlen};
	else if (num == 4)
		w->device = (struct pb_s){val, vlen};
	return 0;
}

static int dra_field(uint64_t num, const uint8_t *val, size_t vlen, void *arg)
{
	struct vf_walk *w = arg;
	char driver[254], device[254];
	enum rq_podres_vf_by by;
	int r;

	if (num == 2)
		w->claim_name = (struct pb_s){val, vlen};
	else if (num == 3)
		w->claim_ns = (struct pb_s){val, vlen};
	if (num != 4)
		return 0;
	w->driver = w->device = (struct pb_s){0};
	r = pb_walk(val, vlen, F(1) | F(2) | F(3) | F(4), claim_field, w);
	if (r < 0)
		return r;
	pb_str(w->driver.v, w->driver.len, driver, sizeof(driver));
	pb_str(w->device.v, w->device.len, device, sizeof(device));
	by = podres_dra_names_vf(driver, device, w->pci, w->netdev);
	if (by != RQ_PODRES_VF_BY_NONE && !w->hit && !w->dra_hit) {
		w->hit = true;
		w->by = by;
		(void)snprintf(w->dra.source, sizeof(w->dra.source), "%s", driver);
		(void)snprintf(w->dra.device, sizeof(w->dra.device), "%s", device);
	}
	return 0;
}

static int devices_field(uint64_t num, const uint8_t *val, size_t vlen, void *arg)
{
	struct vf_walk *w = arg;
	char id[254];

	if (num == 1)
		w->res = (struct pb_s){val, vlen};
	if (num != 2 || w->hit || w->dp_hit)
		return 0;
	pb_str(val, vlen, id, sizeof(id));
	if (strcasecmp(id, w->pci) == 0) {
		w->hit = true;
		(void)snprintf(w->dp.device, sizeof(w->dp.device), "%s", id);
	}
	return 0;
}

static int container_field(uint64_t num, const uint8_t *val, size_t vlen, void *arg)
{
	struct vf_walk *w = arg;
	int r = 0;

	if (num == 1) {
		w->ctr_name = (struct pb_s){val, vlen};
	} else if (num == 2) {
		w->hit = false;
		w->res = (struct pb_s){0};
		r = pb_walk(val, vlen, F(1) | F(2) | F(3), devices_field, w);
		if (r == 0 && w->hit && !w->dp_hit) {
			w->dp_hit = true;
			pb_str(w->res.v, w->res.len, w->dp.source, sizeof(w->dp.source));
		}
	} else if (num == 5) {
		w->hit = false;
		w->claim_name = w->claim_ns = (struct pb_s){0};
		r = pb_walk(val, vlen, F(2) | F(3) | F(4), dra_field, w);
		if (r == 0 && w->hit && !w->dra_hit) {
			char ns[254], name[254];

			w->dra_hit = true;
			w->dra.by = w->by;
			pb_str(w->claim_ns.v, w->claim_ns.len, ns, sizeof(ns));
			pb_str(w->claim_name.v, w->claim_name.len, name, sizeof(name));
			(void)snprintf(w->dra.claim, sizeof(w->dra.claim), "%s/%s", ns, name);
		}
	}
	return r;
}

/* One pod's walk: its name, namespace, and the first of its containers naming the VF. */
struct pod_walk {
	const char *pci, *netdev;
	struct pb_s name, ns;
	bool found;
	struct rq_podres_vf_owner owner;
};

static int pod_field(uint64_t num, const uint8_t *val, size_t vlen, void *arg)
{
	struct pod_walk *pw = arg;
	struct vf_walk w = {.pci = pw->pci, .netdev = pw->netdev};
	int r;

	if (num == 1)
		pw->name = (struct pb_s){val, vlen};
	else if (num == 2)
		pw->ns = (struct pb_s){val, vlen};
	if (num != 3)
		return 0;
	r = pb_walk(val, vlen, F(1) | F(2) | F(5), container_field, &w);
	if (r < 0 || pw->found || (!w.dra_hit && !w.dp_hit))
		return r;
	/* a claim before a device plugin's ID, though no pod has both for one VF */
	pw->found = true;
	pw->owner = w.dra_hit ? w.dra : w.dp;
	pw->owner.by = w.dra_hit ? w.dra.by : RQ_PODRES_VF_BY_DEVICE_ID;
	pb_str(w.ctr_name.v, w.ctr_name.len, pw->owner.container, sizeof(pw->owner.container));
	return 0;
}

/* The top level: each pod read whole; the first naming the VF, and whether another does. */
struct list_walk {
	const char *pci, *netdev;
	bool found, again;
	struct pb_s name, ns;
	struct rq_podres_vf_owner *ret;
};

static int list_field(uint64_t num, const uint8_t *val, size_t vlen, void *arg)
{
	struct list_walk *lw = arg;
	struct pod_walk pw = {.pci = lw->pci, .netdev = lw->netdev};
	int r;

	if (num != 1)
		return 0; /* a field this client does not know */
	r = pb_walk(val, vlen, F(1) | F(2) | F(3), pod_field, &pw);
	if (r < 0 || !pw.found)
		return r;
	if (!lw->found) {
		lw->found = true;
		lw->name = pw.name;
		lw->ns = pw.ns;
		*lw->ret = pw.owner;
		pb_str(pw.ns.v, pw.ns.len, lw->ret->ns, sizeof(lw->ret->ns));
		pb_str(pw.name.v, pw.name.len, lw->ret->name, sizeof(lw->ret->name));
	} else if (!pb_s_eq(lw->name, pw.name) || !pb_s_eq(lw->ns, pw.ns)) {
		lw->again = true;
	}
	return 0;
}

int podres_find_vf(const uint8_t *body, size_t len, const char *pci, const char *netdev,
		   struct rq_podres_vf_owner *ret)
{
	struct list_walk lw = {.pci = pci, .netdev = netdev, .ret = ret};
	const uint8_t *msg;
	size_t mlen;
	int r;

	memset(ret, 0, sizeof(*ret));
	if (!is_pci(pci))
		return -EINVAL;
	r = unframe(body, len, &msg, &mlen);
	if (r == 0)
		r = pb_walk(msg, mlen, F(1), list_field, &lw);
	if (r < 0) {
		memset(ret, 0, sizeof(*ret));
		return r;
	}
	if (!lw.found)
		return -ESRCH;
	return lw.again ? -ENOTUNIQ : 0;
}

static int hexval(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int podres_grpc_msg_decode(const uint8_t *v, size_t len, char *ret, size_t cap)
{
	size_t o = 0;

	if (!ret || !cap)
		return -ENOSPC;
	for (size_t i = 0; v && i < len; i++) {
		uint8_t b = v[i];
		int hi = i + 2 < len ? hexval(v[i + 1]) : -1;
		int lo = i + 2 < len ? hexval(v[i + 2]) : -1;

		if (b == '%' && hi >= 0 && lo >= 0) {
			b = (uint8_t)(hi << 4 | lo);
			i += 2;
		}
		if (o + 1 >= cap) {
			ret[o] = '\0';
			return -ENOSPC;
		}
		ret[o++] = (char)(b ? b : (uint8_t)'?');
	}
	ret[o] = '\0';
	return 0;
}

/* @s is @word followed by the rest: the rest, else NULL. */
static const char *skip_word(const char *s, const char *word)
{
	size_t n = strlen(word);

	return s && !strncmp(s, word, n) ? s + n : NULL;
}

enum rq_podres_get_answer podres_get_answer(int grpc_status, const char *msg, const char *ns,
					    const char *name)
{
	const char *s;

	if (grpc_status == RQ_GRPC_UNIMPLEMENTED)
		return RQ_PODRES_GET_NO_METHOD;
	if (grpc_status == RQ_GRPC_NOT_FOUND)
		return RQ_PODRES_GET_NO_POD;
	if (grpc_status != RQ_GRPC_UNKNOWN || !msg)
		return RQ_PODRES_GET_FAILED;
	if (!strcmp(msg, "PodResources API Get method disabled"))
		return RQ_PODRES_GET_NO_METHOD;
	/* exactly "pod NAME in namespace NS not found" for the pod asked about */
	if (!ns || !name || !name[0] || !ns[0])
		return RQ_PODRES_GET_FAILED;
	s = skip_word(skip_word(skip_word(skip_word(msg, "pod "), name), " in namespace "), ns);
	s = skip_word(s, " not found");
	return s && !*s ? RQ_PODRES_GET_NO_POD : RQ_PODRES_GET_FAILED;
}
