// SPDX-License-Identifier: Apache-2.0
/*
 * The VF finder: a List reply walked field by field for the pod and container
 * that own a VF (podres_find_vf; podres.h), without unpacking it.
 */
#include "pkg/podres/podres.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pkg/podres/podres_int.h"

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
		if (podres_pb_field(&p, end, &num, &val, &vlen) < 0)
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
	if (!podres_is_pci(pci))
		return -EINVAL;
	r = podres_unframe(body, len, &msg, &mlen);
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

/* The resource finder: which pods hold a device of one of a set of device plugin resources. */
struct res_walk {
	const char *const *resources;
	size_t n;
	int hit;	 /* index into resources of the pod's first, -1 none */
	struct pb_s res; /* the ContainerDevices being read */
};

static int res_devices_field(uint64_t num, const uint8_t *val, size_t vlen, void *arg)
{
	struct res_walk *w = arg;

	if (num == 1)
		w->res = (struct pb_s){val, vlen};
	return 0;
}

static int res_container_field(uint64_t num, const uint8_t *val, size_t vlen, void *arg)
{
	struct res_walk *w = arg;
	char res[254];
	int r;

	if (num != 2)
		return 0;
	w->res = (struct pb_s){0};
	r = pb_walk(val, vlen, F(1) | F(2) | F(3), res_devices_field, w);
	if (r < 0 || w->hit >= 0)
		return r;
	pb_str(w->res.v, w->res.len, res, sizeof(res));
	for (size_t i = 0; res[0] && i < w->n; i++)
		if (!strcmp(res, w->resources[i])) {
			w->hit = (int)i;
			break;
		}
	return 0;
}

struct res_pod {
	struct res_walk w;
	struct pb_s name, ns;
};

static int res_pod_field(uint64_t num, const uint8_t *val, size_t vlen, void *arg)
{
	struct res_pod *p = arg;

	if (num == 1)
		p->name = (struct pb_s){val, vlen};
	else if (num == 2)
		p->ns = (struct pb_s){val, vlen};
	else if (num == 3)
		return pb_walk(val, vlen, F(1) | F(2) | F(5), res_container_field, &p->w);
	return 0;
}

struct res_list {
	const char *const *resources;
	size_t n;
	struct rq_podres_res_holder *out;
	size_t n_out, cap;
};

static int res_list_field(uint64_t num, const uint8_t *val, size_t vlen, void *arg)
{
	struct res_list *l = arg;
	struct res_pod p = {.w = {.resources = l->resources, .n = l->n, .hit = -1}};
	struct rq_podres_res_holder *h;
	int r;

	if (num != 1)
		return 0;
	r = pb_walk(val, vlen, F(1) | F(2) | F(3), res_pod_field, &p);
	if (r < 0 || p.w.hit < 0)
		return r;
	if (l->n_out == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;

		h = realloc(l->out, cap * sizeof(*h));
		if (!h)
			return -ENOMEM;
		l->out = h;
		l->cap = cap;
	}
	h = &l->out[l->n_out++];
	memset(h, 0, sizeof(*h));
	pb_str(p.ns.v, p.ns.len, h->ns, sizeof(h->ns));
	pb_str(p.name.v, p.name.len, h->name, sizeof(h->name));
	(void)snprintf(h->resource, sizeof(h->resource), "%s", l->resources[p.w.hit]);
	return 0;
}

int podres_find_resources(const uint8_t *body, size_t len, const char *const *resources, size_t n,
			  struct rq_podres_res_holder **ret, size_t *ret_n)
{
	struct res_list l = {.resources = resources, .n = n};
	const uint8_t *msg;
	size_t mlen;
	int r;

	*ret = NULL;
	*ret_n = 0;
	r = podres_unframe(body, len, &msg, &mlen);
	if (r == 0)
		r = pb_walk(msg, mlen, F(1), res_list_field, &l);
	if (r < 0) {
		free(l.out);
		return r;
	}
	*ret = l.out;
	*ret_n = l.n_out;
	return 0;
}
