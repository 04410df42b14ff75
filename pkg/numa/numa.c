// SPDX-License-Identifier: Apache-2.0
/*
 * NUMA verdict: the VF's numa_node against the nodes of the pod's exclusive
 * CPUs, its topology-aware devices and its pinned memory, from kubelet's
 * checkpoints. Missing or malformed kubelet data is "unknown", never a
 * failure: the verdict's evidence says why.
 */
#include "pkg/numa/numa.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pkg/kubelet/kubelet.h"
#include "pkg/podres/podres.h"

#define RQ_MAX_NODES 64

int numa_pci_node(const struct rq_root *r, const char *pci, int *ret)
{
	char path[256];
	long v;
	int rr;

	(void)snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/numa_node", pci);
	rr = sysfs_read_int(r, path, &v);
	if (rr < 0)
		return rr;
	*ret = (v < 0 || v >= RQ_MAX_NODES) ? -1 : (int)v;
	return 0;
}

/* The CPUs of node @name ("node0") from its cpulist into @bits. */
static int node_cpus(const struct rq_root *r, const char *name, uint64_t *bits)
{
	char path[128], *buf = NULL;
	size_t len = 0;
	int rr;

	(void)snprintf(path, sizeof(path), "/sys/devices/system/node/%s/cpulist", name);
	/* a cpulist of scattered CPUs on a big machine outgrows any small buffer */
	rr = sysfs_read_file(r, path, (size_t)64 * 1024, &buf, &len);
	if (rr == 0)
		rr = kubelet_cpuset_parse(buf, bits);
	free(buf);
	return rr;
}

/*
 * Bitmap of the nodes whose cpulist intersects @cpus. A CPU is on one node:
 * when the cpulist of @hint (the VF's node, -1: none) holds every CPU of the
 * pod, that node alone is the answer, from one read instead of the listing
 * and every node's cpulist (issue 51; the aligned pod is the common case).
 */
static uint64_t nodes_of_cpus(const struct rq_root *r, const uint64_t *cpus, int hint)
{
	uint64_t nodes = 0, bits[RQ_CPU_WORDS] = {0}, any = 0;
	char **names = NULL;
	size_t nn = 0;

	for (int w = 0; w < RQ_CPU_WORDS; w++)
		any |= cpus[w];
	if (any && hint >= 0 && hint < RQ_MAX_NODES) {
		char name[32];
		bool all = true;

		(void)snprintf(name, sizeof(name), "node%d", hint);
		if (node_cpus(r, name, bits) == 0) {
			for (int w = 0; w < RQ_CPU_WORDS; w++)
				all = all && (cpus[w] & ~bits[w]) == 0;
			if (all)
				return 1ULL << hint;
		}
	}
	if (sysfs_list(r, "/sys/devices/system/node", &names, &nn) < 0)
		return 0;
	for (size_t k = 0; k < nn; k++) {
		char *end;
		long n;

		if (strncmp(names[k], "node", 4) != 0)
			continue;
		n = strtol(names[k] + 4, &end, 10);
		if (*end || end == names[k] + 4 || n < 0 || n >= RQ_MAX_NODES)
			continue;
		if (node_cpus(r, names[k], bits) < 0)
			continue;
		for (int w = 0; w < RQ_CPU_WORDS; w++)
			if (bits[w] & cpus[w]) {
				nodes |= 1ULL << n;
				break;
			}
	}
	sysfs_list_free(names, nn);
	return nodes;
}

static void cpus_text(const uint64_t *cpus, char *buf, size_t len)
{
	size_t off = 0;
	int c = 0;

	buf[0] = '\0';
	while (c < RQ_MAX_CPUS && off < len) {
		int start;

		if (!(cpus[c / 64] & (1ULL << (c % 64)))) {
			c++;
			continue;
		}
		start = c;
		while (c + 1 < RQ_MAX_CPUS && (cpus[(c + 1) / 64] & (1ULL << ((c + 1) % 64))))
			c++;
		off += (size_t)snprintf(buf + off, len - off, start == c ? "%s%d" : "%s%d-%d",
					off ? "," : "", start, c);
		c++;
	}
}

static void nodes_text(uint64_t nodes, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int n = 0; n < RQ_MAX_NODES && off < len; n++)
		if (nodes & (1ULL << n))
			off += (size_t)snprintf(buf + off, len - off, "%s%d", off ? "," : "", n);
}

static void ev_add(struct rq_numa_result *res, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void ev_add(struct rq_numa_result *res, const char *fmt, ...)
{
	size_t n = strlen(res->evidence);
	va_list ap;

	if (n + 3 >= sizeof(res->evidence))
		return;
	if (n)
		n += (size_t)snprintf(res->evidence + n, sizeof(res->evidence) - n, "; ");
	va_start(ap, fmt);
	(void)vsnprintf(res->evidence + n, sizeof(res->evidence) - n, fmt, ap);
	va_end(ap);
}

/* Stream one kubelet file through @parse (its _src form); -ENOENT when there is no file. */
static int kubelet_file(const struct rq_root *r, const char *dir, const char *file,
			int (*parse)(struct rq_jsrc src, void *arg), void *arg)
{
	char path[512];
	struct stat st;
	int fd, rr;

	(void)snprintf(path, sizeof(path), "%s/%s", dir, file);
	/* O_NONBLOCK: a FIFO planted there must not hang ADD */
	fd = root_openat(r, path, O_RDONLY | O_NONBLOCK, 0);
	if (fd < 0)
		return fd;
	/* the size sizes the scanner's buffer: a small file gets a small one */
	rr = fstat(fd, &st) < 0
		 ? -errno
		 : parse((struct rq_jsrc){.read = jfd_read,
					  .ctx = &fd,
					  .size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0},
			 arg);
	close(fd);
	return rr;
}

/* Why a kubelet file told us nothing, for the evidence; NULL when that is unremarkable. */
static const char *unreadable(int rr, struct rq_numa_result *res)
{
	switch (rr) {
	case -EFBIG:
		/* a bound far above real sizes: the placement cannot be verified, say so */
		res->over_bound = true;
		return "over the memory-safety bound (" RQ_KUBELET_BOUND_TEXT
		       "): placement not verified";
	case -EBADMSG:
		return "not valid JSON or not in kubelet's format";
	case -ENOENT:
		return NULL; /* no file, or nothing for this pod: no evidence either way */
	default:
		return strerror(-rr);
	}
}

struct cpu_arg {
	const char *uid;
	uint64_t *cpus;
};

static int parse_cpus(struct rq_jsrc src, void *arg)
{
	struct cpu_arg *a = arg;

	return kubelet_cpu_manager_src(src, a->uid, a->cpus);
}

/* Exclusive CPUs as evidence; false when they are on no known node. */
static bool judge_cpus(const struct rq_root *r, const uint64_t *cpus, struct rq_numa_result *res)
{
	char text[256], ntext[128];
	uint64_t nodes = nodes_of_cpus(r, cpus, res->vf_node);

	cpus_text(cpus, text, sizeof(text));
	if (!nodes) {
		ev_add(res, "pod CPUs %s are on no known NUMA node", text);
		return false;
	}
	nodes_text(nodes, ntext, sizeof(ntext));
	ev_add(res, "pod CPUs %s are on node %s", text, ntext);
	res->pod_nodes |= nodes;
	return true;
}

static bool pod_cpus(const struct rq_root *r, const char *dir, const char *uid,
		     struct rq_numa_result *res)
{
	uint64_t cpus[RQ_CPU_WORDS] = {0};
	struct cpu_arg a = {uid, cpus};
	int rr = kubelet_file(r, dir, "cpu_manager_state", parse_cpus, &a);

	if (rr < 0 && unreadable(rr, res))
		ev_add(res, "cpu_manager_state is unreadable: %s", unreadable(rr, res));
	if (rr < 0)
		return false;
	return judge_cpus(r, cpus, res);
}

struct dev_arg {
	const char *uid;
	const char *const *skip;
	struct rq_kubelet_dev *devs;
	size_t n;
	uint64_t nodes;
};

static int parse_devs(struct rq_jsrc src, void *arg)
{
	struct dev_arg *a = arg;

	return kubelet_devices_src(src, a->uid, a->skip, a->devs, RQ_KUBELET_MAX_DEVS, &a->n,
				   &a->nodes);
}

/* Devices with topology as evidence: @n listed, @nodes of all of them. */
static bool judge_devices(const struct rq_kubelet_dev *devs, size_t n, uint64_t nodes,
			  struct rq_numa_result *res)
{
	char ntext[128];
	uint64_t shown = 0;

	if (!nodes)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (devs[i].node < 0)
			continue; /* no topology: says nothing about placement */
		ev_add(res, "%s %s is on node %d", devs[i].resource, devs[i].id, devs[i].node);
		shown |= 1ULL << devs[i].node;
	}
	/* devices past the ones listed still count */
	if (nodes & ~shown) {
		nodes_text(nodes, ntext, sizeof(ntext));
		ev_add(res, "the pod's devices are on node %s", ntext);
	}
	res->pod_nodes |= nodes;
	return true;
}

static bool pod_devices(const struct rq_root *r, const char *dir, const char *uid,
			const char *const *self, struct rq_numa_devices *out,
			struct rq_numa_result *res)
{
	struct rq_kubelet_dev devs[RQ_KUBELET_MAX_DEVS];
	struct dev_arg a = {.uid = uid, .skip = self, .devs = devs};
	int rr = kubelet_file(r, dir, "device-plugins/kubelet_internal_checkpoint", parse_devs, &a);

	if (rr < 0 && unreadable(rr, res))
		ev_add(res, "kubelet_internal_checkpoint is unreadable: %s", unreadable(rr, res));
	/* no checkpoint, or the pod not in it: kubelet allocated it no device */
	if (out && rr == -ENOENT)
		out->answered = true;
	if (rr < 0)
		return false;
	if (out) {
		out->answered = true;
		memcpy(out->devs, devs, a.n * sizeof(devs[0]));
		out->n_devs = a.n;
	}
	return judge_devices(devs, a.n, a.nodes, res);
}

struct mem_arg {
	const char *uid;
	uint64_t nodes;
};

static int parse_mem(struct rq_jsrc src, void *arg)
{
	struct mem_arg *a = arg;

	return kubelet_memory_src(src, a->uid, &a->nodes);
}

static bool judge_memory(uint64_t nodes, struct rq_numa_result *res)
{
	char ntext[128];

	if (!nodes)
		return false;
	nodes_text(nodes, ntext, sizeof(ntext));
	ev_add(res, "pod memory is on node %s", ntext);
	res->pod_nodes |= nodes;
	return true;
}

static bool pod_memory(const struct rq_root *r, const char *dir, const char *uid,
		       struct rq_numa_result *res)
{
	struct mem_arg a = {.uid = uid};
	int rr = kubelet_file(r, dir, "memory_manager_state", parse_mem, &a);

	if (rr < 0 && unreadable(rr, res))
		ev_add(res, "memory_manager_state is unreadable: %s", unreadable(rr, res));
	if (rr < 0)
		return false;
	return judge_memory(a.nodes, res);
}

/* The VF and the attachment's other names for it, NULL-terminated in @own. */
static void self_ids(const struct rq_numa_query *q, const char **own)
{
	size_t n = 0;

	own[n++] = q->vf_pci;
	for (size_t i = 0; i < RQ_NUMA_MAX_SELF && q->self[i]; i++)
		own[n++] = q->self[i];
	own[n] = NULL;
}

/*
 * DRA devices (PodResources dynamic_resources) carry no topology, and Topology Manager does
 * not align them: never evidence. The VF's own claim is named as the VF; the others are
 * named as not placed, so a verdict that rests on the CPUs alone says what it could not see.
 */
static void dra_self(const struct rq_numa_query *q, const struct rq_podres_placement *p,
		     struct rq_numa_result *res)
{
	if (p->has_self)
		ev_add(res, "VF %s is the pod's DRA claim %s (%s/%s)", q->vf_pci, p->self_claim,
		       p->self.driver, p->self.device);
}

static void dra_unplaced(const struct rq_podres_placement *p, struct rq_numa_result *res)
{
	char list[512];
	size_t off = 0;

	if (!p->n_dra_all)
		return;
	list[0] = '\0';
	for (size_t i = 0; i < p->n_dra && off < sizeof(list); i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s/%s", i ? ", " : "",
					p->dra[i].driver, p->dra[i].device);
	if (p->n_dra_all > p->n_dra && off < sizeof(list))
		(void)snprintf(list + off, sizeof(list) - off, " and %zu more",
			       p->n_dra_all - p->n_dra);
	ev_add(res, "DRA device%s not placed (PodResources gives DRA devices no NUMA node): %s",
	       p->n_dra_all > 1 ? "s" : "", list);
}

/*
 * The evidence from kubelet's PodResources API, in the same words as from its files.
 * false: use the files (source files, or auto and the API gave no answer); in @res->source
 * which, and why.
 */
static bool from_api(const struct rq_root *r, const struct rq_numa_query *q, const char **own,
		     struct rq_numa_result *res, bool *known)
{
	struct rq_podres_placement *p;
	struct rq_podres_status st;
	bool any = false;
	int rr;

	if (q->source == RQ_NUMA_SRC_FILES) {
		(void)snprintf(res->source, sizeof(res->source),
			       "kubelet files (node.numaSource files)");
		return false;
	}
	/* 14 KiB for the worst case: on the heap, not a stack page per 4 KiB of it (issue 51) */
	p = malloc(sizeof(*p));
	if (!p) {
		(void)snprintf(st.detail, sizeof(st.detail), "out of memory");
		rr = -ENOMEM;
	} else
		rr = podres_get_pod(
		    r, q->kubelet_dir, q->pod_ns, q->pod_name, own,
		    q->api_timeout_ms > 0 ? q->api_timeout_ms : RQ_PODRES_TIMEOUT_MS, p, &st);
	if (rr == 0 || rr == -ESRCH) {
		(void)snprintf(res->source, sizeof(res->source), "PodResources API (%s)",
			       st.used_list ? "List" : "Get");
		*known = false;
		if (rr == -ESRCH) /* its "not found" on Get, or absent from List */
			ev_add(res, "kubelet's PodResources API knows no pod %s/%s", q->pod_ns,
			       q->pod_name);
		if (q->devices)
			q->devices->answered = true;
		if (rr == 0 && q->devices) {
			memcpy(q->devices->devs, p->devs, p->n_devs * sizeof(p->devs[0]));
			q->devices->n_devs = p->n_devs;
			memcpy(q->devices->dra, p->dra, p->n_dra * sizeof(p->dra[0]));
			q->devices->n_dra = p->n_dra;
		}
		if (rr == 0) {
			for (int w = 0; w < RQ_CPU_WORDS; w++)
				any |= p->cpus[w] != 0;
			dra_self(q, p, res);
			*known = any && judge_cpus(r, p->cpus, res);
			*known |= judge_devices(p->devs, p->n_devs, p->dev_nodes, res);
			*known |= judge_memory(p->mem_nodes, res);
			dra_unplaced(p, res);
		}
		free(p);
		return true;
	}
	free(p);
	if (q->source == RQ_NUMA_SRC_API) {
		(void)snprintf(res->source, sizeof(res->source),
			       "PodResources API (node.numaSource api)");
		ev_add(res, "kubelet's PodResources API gave no answer: %s", st.detail);
		*known = false;
		return true;
	}
	(void)snprintf(res->source, sizeof(res->source), "kubelet files (PodResources API: %s)",
		       st.detail);
	return false;
}

int numa_evaluate(const struct rq_root *r, const struct rq_numa_query *q,
		  struct rq_numa_result *ret)
{
	const char *own[RQ_NUMA_MAX_SELF + 2];
	const char *pod_uid = q->pod_uid, *vf_pci = q->vf_pci;
	struct rq_numa_result res;
	bool known;

	memset(&res, 0, sizeof(res));
	res.verdict = RQ_NUMA_UNKNOWN;
	if (q->has_vf_node)
		res.vf_node = q->vf_node;
	else if (numa_pci_node(r, vf_pci, &res.vf_node) < 0)
		res.vf_node = -1;
	if (res.vf_node < 0)
		ev_add(&res, "VF %s has no NUMA node (numa_node -1)", vf_pci);
	else
		ev_add(&res, "VF %s is on NUMA node %d", vf_pci, res.vf_node);
	/* an adopted VF's pod is known by name only (PodResources has no UID): the API only */
	if ((!pod_uid || !pod_uid[0]) && (!q->pod_ns || !q->pod_ns[0])) {
		ev_add(&res, "no K8S_POD_UID in CNI_ARGS");
		*ret = res;
		return 0;
	}
	self_ids(q, own);
	if (!from_api(r, q, own, &res, &known)) {
		if (!pod_uid || !pod_uid[0]) {
			ev_add(&res, "no pod UID for kubelet's files (they are keyed by it)");
			*ret = res;
			return 0;
		}
		known = pod_cpus(r, q->kubelet_dir, pod_uid, &res);
		known |= pod_devices(r, q->kubelet_dir, pod_uid, own, q->devices, &res);
		known |= pod_memory(r, q->kubelet_dir, pod_uid, &res);
	}
	if (!known)
		ev_add(&res, "kubelet has no CPU, device or memory placement for pod %s",
		       pod_uid && pod_uid[0] ? pod_uid : q->pod_name);
	else if (res.vf_node >= 0)
		/*
		 * Aligned when the VF is on one of the pod's nodes: an 8-GPU, 8-rail pod spread
		 * over both sockets has a rail on each, so either socket's VF is local to part of
		 * it.
		 */
		res.verdict =
		    (res.pod_nodes & (1ULL << res.vf_node)) ? RQ_NUMA_ALIGNED : RQ_NUMA_MISALIGNED;
	/* evidence was refused, not absent: only a misalignment already shown stands */
	if (res.over_bound && res.verdict != RQ_NUMA_MISALIGNED)
		res.verdict = RQ_NUMA_UNVERIFIABLE;
	*ret = res;
	return 0;
}
