// SPDX-License-Identifier: Apache-2.0
/*
 * Host-network pods on a shared RDMA device (hostnet.h). A pod with
 * hostNetwork has no netns of its own and no CNI call: the only trace of its
 * use of the shared device is the shared device plugin's resource kubelet
 * allocated to it, whose device IDs ("0", "1", ...) name no device. So the
 * catalog's node.sharedResources says which PFs a resource shares, and
 * kubelet's PodResources List which pods hold it. The pod UID, which the
 * census's cgroup attribution keys on and List does not carry, comes from
 * kubelet's pod log directory NAMESPACE_NAME_UID (as for an unchained VF's pod).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/kubelet/kubelet.h"
#include "pkg/log/log.h"
#include "pkg/numa/numa.h"
#include "pkg/podres/podres.h"
#include "pkg/rdma/qps.h"
#include "plugin/attach/hostnet.h"

bool hostnet_pids_visible(void)
{
	return rdma_qps_host_pidns();
}

static bool pod_key(const cJSON *rec, char *buf, size_t len)
{
	(void)snprintf(buf, len, "%s/%s", json_str(rec, "podNamespace") ?: "",
		       json_str(rec, "podName") ?: "");
	return true;
}

cJSON *hostnet_recorded_pods(const struct rq_env *env)
{
	return attach_records_set(env, pod_key);
}

/*
 * The pod's UID from kubelet's log directory NAMESPACE_NAME_UID: neither a
 * namespace nor a pod name holds '_', so the prefix "NS_NAME_" is the pod's.
 * Two entries (the pod deleted and made again under its name, the old logs
 * not yet removed) cannot be told apart: "" then.
 */
static void pod_uid(const struct rq_env *env, const char *ns, const char *name, char *ret,
		    size_t len)
{
	char **names = NULL, prefix[520];
	size_t n = 0, pl;
	int found = 0;

	ret[0] = '\0';
	pl = (size_t)snprintf(prefix, sizeof(prefix), "%s_%s_", ns, name);
	if (pl >= sizeof(prefix) || sysfs_list(&env->root, RQ_POD_LOG_DIR, &names, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		const char *uid = names[i] + pl;

		if (strncmp(names[i], prefix, pl) != 0 || !uid[0] || strchr(uid, '_'))
			continue;
		if (found++ == 0)
			(void)snprintf(ret, len, "%s", uid);
	}
	if (found > 1)
		ret[0] = '\0';
	sysfs_list_free(names, n);
}

/* NUMA: the shared device's PF against where kubelet placed the pod (ADD's evaluation) */
static void numa_of(const struct rq_env *env, const struct rq_catalog *cat, cJSON *o,
		    const char *pf_pci, const char *rdma_dev)
{
	static const char *const verdicts[] = {"unknown", "aligned", "misaligned", "unverifiable"};
	struct rq_numa_query q = {.kubelet_dir = cat->kubelet_dir,
				  .pod_uid = json_str(o, "podUID"),
				  .pod_ns = json_str(o, "podNamespace"),
				  .pod_name = json_str(o, "podName"),
				  .source = cat->numa_source,
				  .vf_pci = pf_pci};
	struct rq_numa_result n;

	memset(&n, 0, sizeof(n));
	n.vf_node = -1;
	/* the shared device is no placement evidence of the pod's: every pod holds it */
	q.self[0] = rdma_dev[0] ? rdma_dev : NULL;
	if (numa_evaluate(&env->root, &q, &n) < 0)
		n.verdict = RQ_NUMA_UNKNOWN;
	cJSON_AddStringToObject(o, "numa", "warn");
	cJSON_AddStringToObject(o, "numaVerdict", verdicts[n.verdict & 3]);
	cJSON_AddNumberToObject(o, "numaNode", n.vf_node);
	if (n.source[0])
		cJSON_AddStringToObject(o, "numaSource", n.source);
}

/* One object for pod @h on PF @ifname of its resource. */
static cJSON *one(const struct rq_env *env, const struct rq_catalog *cat,
		  const struct rq_podres_res_holder *h, const char *ifname)
{
	cJSON *o = cJSON_CreateObject(), *pfs, *p, *rd;
	struct rq_netconf nc;
	struct rq_profile prof;
	enum rq_pf_mode pfm = RQ_PF_VERIFY;
	struct rq_rdma_dev d;
	struct rq_error e;
	char path[96], pci[RQ_PCI_ADDR_MAX] = "", uid[RQ_KUBELET_KEY_MAX];

	if (!o)
		return NULL;
	memset(&d, 0, sizeof(d));
	(void)snprintf(path, sizeof(path), "/sys/class/net/%s/device", ifname);
	if (sysfs_readlink_base(&env->root, path, pci, sizeof(pci)) < 0 || !sysfs_pci_valid(pci))
		pci[0] = '\0';
	if (pci[0] && rdma_find_by_pci(&env->root, pci, &d) < 0)
		d.name[0] = '\0';
	pod_uid(env, h->ns, h->name, uid, sizeof(uid));
	cJSON_AddTrueToObject(o, "shared");
	cJSON_AddTrueToObject(o, "hostNetwork");
	cJSON_AddStringToObject(o, "vf", "");
	cJSON_AddStringToObject(o, "rdmaDev", d.name);
	pfs = cJSON_AddArrayToObject(o, "pfs");
	p = cJSON_CreateObject();
	if (p) {
		cJSON_AddStringToObject(p, "pci", pci);
		cJSON_AddStringToObject(p, "ifname", ifname);
		cJSON_AddItemToArray(pfs, p);
	}
	cJSON_AddStringToObject(o, "podNamespace", h->ns);
	cJSON_AddStringToObject(o, "podName", h->name);
	cJSON_AddStringToObject(o, "podUID", uid);
	cJSON_AddStringToObject(o, "ifname", "");
	cJSON_AddArrayToObject(o, "ips");
	cJSON_AddStringToObject(o, "resource", h->resource);
	rd = cJSON_AddObjectToObject(o, "rdma");
	if (rd) {
		cJSON_AddStringToObject(rd, "device", d.name);
		cJSON_AddNumberToObject(rd, "port", d.port > 0 ? d.port : 1);
		/* the pod asks nothing of the device: no CNI ran for it */
		cJSON_AddNumberToObject(rd, "tosSet", -1);
	}
	/* the namespace's default, as for an adopted VF: no NAD names one */
	memset(&nc, 0, sizeof(nc));
	rq_err_clear(&e);
	if (netconf_resolve_profile(&nc, cat, h->ns, &prof, &pfm, &e) < 0) {
		cJSON_AddStringToObject(o, "profileName", "");
		cJSON_AddStringToObject(o, "noVerdict", e.msg);
	} else {
		cJSON_AddStringToObject(o, "profileName", prof.name);
		cJSON_AddItemToObject(o, "profile", profile_to_json(&prof));
	}
	/* verified, never ensured: nothing is written for a pod no chain asked for */
	cJSON_AddStringToObject(o, "pf", pf_mode_name(pfm < RQ_PF_VERIFY ? pfm : RQ_PF_VERIFY));
	if (!pci[0])
		cJSON_AddStringToObject(o, "noDevice",
					"the PF netdev is not on this node (node.sharedResources)");
	numa_of(env, cat, o, pci, d.name);
	return o;
}

int hostnet_scan(const struct rq_env *env, const struct rq_catalog *cat, const cJSON *recorded,
		 cJSON **ret, char *why, size_t len)
{
	const char **res;
	struct rq_podres_res_holder *h = NULL;
	struct rq_podres_status st;
	cJSON *own = NULL, *out;
	uint8_t *body = NULL;
	size_t blen = 0, n = 0;
	int r;

	why[0] = '\0';
	*ret = out = cJSON_CreateArray();
	if (!out)
		return -ENOMEM;
	if (!cat || !cat->n_shared)
		return 0;
	res = calloc(cat->n_shared, sizeof(*res));
	if (!res)
		return -ENOMEM;
	for (size_t i = 0; i < cat->n_shared; i++)
		res[i] = cat->shared[i].resource;
	memset(&st, 0, sizeof(st));
	r = podres_list(&env->root, cat->kubelet_dir,
			env->podres_list_ms > 0 ? env->podres_list_ms : RQ_HOSTNET_PODRES_MS, &body,
			&blen, &st);
	if (r == 0)
		r = podres_find_resources(body, blen, res, cat->n_shared, &h, &n);
	free(body);
	free(res);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		(void)snprintf(why, len, "PodResources List: %s",
			       st.detail[0] ? st.detail : strerror(-r));
		return 0;
	}
	if (n && !recorded && !(recorded = own = hostnet_recorded_pods(env))) {
		free(h);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const struct rq_shared_res *s = catalog_shared_res(cat, h[i].resource);
		char pod[520];

		(void)snprintf(pod, sizeof(pod), "%s/%s", h[i].ns, h[i].name);
		/* a pod with an attachment (macvlan, a VF) is judged by its records */
		if (!s || cJSON_GetObjectItemCaseSensitive(recorded, pod))
			continue;
		for (size_t k = 0; k < s->n_pfs; k++) {
			cJSON *o = one(env, cat, &h[i], s->pfs[k]);

			if (!o) {
				r = -ENOMEM;
				break;
			}
			cJSON_AddItemToArray(out, o);
		}
	}
	free(h);
	cJSON_Delete(own);
	return r;
}

int hostnet_qps_fact(const cJSON *obj, bool pids_visible, char *why, size_t len)
{
	const char *dev = json_str(obj, "rdmaDev") ?: "";

	if (!pids_visible)
		(void)snprintf(why, len,
			       "cannot tell: a host-network pod's QPs on the shared device %s "
			       "cannot be told from the host's without their processes' PIDs "
			       "(the agent runs without hostPID: agent.hostPID)",
			       dev[0] ? dev : "?");
	else
		(void)snprintf(why, len,
			       "not judged: this build attributes no QP of the shared device %s "
			       "to a pod (by cgroup: issue 50 item 3)",
			       dev[0] ? dev : "?");
	return -1;
}
