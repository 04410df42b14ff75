// SPDX-License-Identifier: Apache-2.0
/*
 * rdma-qos preflight [--json]: before the first pod, what this node offers
 * against what the catalog asks for, each check with what to do. Exit 0 when
 * nothing the catalog requires is missing, 1 when something is. Read-only:
 * it uses the probes ADD and the agent use (pkg/sysfs, pkg/rdma, the DCB
 * backend of the seams, the agent's peers.json), so the sim binary answers
 * for a simulated node under RDMA_QOS_SIM_ROOT as production does for the
 * host.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/podres/podres.h"
#include "pkg/rdma/rdma.h"
#include "pkg/sysfs/device.h"
#include "plugin/judge/peer.h"
#include "plugin/tools/tools.h"

/* a warning: as the catalog means it, something is wrong, yet nothing it requires is missing */
enum pf_verdict { PF_OK = 0, PF_INFO, PF_UNKNOWN, PF_WARN, PF_PROBLEM };
static const char *const verdict_word[] = {"ok", "info", "unknown", "warning", "PROBLEM"};

struct need {
	bool pf_write; /* some profile writes the PF (node pf ensure, PF requirements) */
	bool lossless; /* some profile needs PFC */
	bool tos;      /* some profile sets the VF's class */
	bool all_qps;  /* some profile asks tosScope all-qps (a MOFED knob) */
	bool have_cat; /* an installed catalog (else the built-in roce-lossless) */
	bool numa_api; /* node.numaSource podresources: the API is required */
	char kubelet_dir[256];
};

static void add(cJSON *checks, const char *name, const char *pf, enum pf_verdict v,
		const char *what, const char *todo, bool *bad)
{
	cJSON *c = cJSON_CreateObject();

	if (!c)
		return;
	cJSON_AddStringToObject(c, "check", name);
	if (pf)
		cJSON_AddStringToObject(c, "pf", pf);
	cJSON_AddStringToObject(c, "verdict", verdict_word[v]);
	cJSON_AddStringToObject(c, "found", what);
	if (todo)
		cJSON_AddStringToObject(c, "do", todo);
	cJSON_AddItemToArray(checks, c);
	if (v == PF_PROBLEM)
		*bad = true;
}

static void profile_needs(const struct rq_profile *p, struct need *n)
{
	n->lossless |= p->pfc != 0;
	n->pf_write |= p->pfc || p->ecn || p->has_trust || p->dscp_override || p->ets.present;
	n->tos |= p->traffic_class >= 0;
	n->all_qps |= p->traffic_class >= 0 && p->tos_scope == RQ_TOS_SCOPE_ALL_QPS;
}

static void catalog_needs(const struct rq_catalog *cat, struct need *n)
{
	struct rq_profile p;

	memset(n, 0, sizeof(*n));
	(void)snprintf(n->kubelet_dir, sizeof(n->kubelet_dir), "%s", RQ_KUBELET_DIR_DEFAULT);
	if (!cat) {
		profile_builtin(&p); /* no catalog: ADD offers roce-lossless only */
		profile_needs(&p, n);
		return;
	}
	n->have_cat = true;
	for (size_t i = 0; i < cat->n_profiles; i++)
		profile_needs(&cat->profiles[i], n);
	if (cat->pf_max != RQ_PF_ENSURE)
		n->pf_write = false; /* verify/ignore: the PF is someone else's to write */
	n->numa_api = cat->numa_source == RQ_NUMA_SRC_API;
	(void)snprintf(n->kubelet_dir, sizeof(n->kubelet_dir), "%s", cat->kubelet_dir);
}

/*
 * @mofed: a PF's RDMA device has MOFED's knob, which needs neither rdma_cm nor configfs; then
 * their absence only means RDMA-CM connections keep the kernel's default class.
 */
static void check_kernel(const struct rq_env *env, const struct need *n, bool mofed, cJSON *c,
			 bool *bad)
{
	enum pf_verdict miss = n->tos && !mofed ? PF_PROBLEM : PF_INFO;
	bool excl = false, cfs = sysfs_exists(&env->root, "/sys/kernel/config/rdma_cm");
	/* configfs' rdma_cm directory exists only while the module is loaded */
	bool cm = cfs || sysfs_exists(&env->root, "/sys/module/rdma_cm");

	add(c, "rdma_cm", NULL, cm ? PF_OK : miss,
	    cm ? "module rdma_cm loaded" : "module rdma_cm not loaded",
	    cm ? NULL : "modprobe rdma_cm (and list it in /etc/modules-load.d/)", bad);
	add(c, "configfs", NULL, cfs ? PF_OK : miss,
	    cfs ? "/sys/kernel/config/rdma_cm present"
		: "/sys/kernel/config/rdma_cm absent: no RDMA-CM traffic-class knob",
	    cfs ? NULL : "mount -t configfs none /sys/kernel/config; modprobe rdma_cm", bad);
	if (rdma_netns_exclusive(&env->root, &excl) < 0 ||
	    !sysfs_exists(&env->root, "/sys/module/ib_core"))
		add(c, "ib_core netns", NULL, PF_UNKNOWN, "ib_core not loaded",
		    "load the NIC's RDMA driver (mlx5_ib)", bad);
	else
		add(c, "ib_core netns", NULL, PF_INFO,
		    excl ? "exclusive: each RDMA device moves into its pod"
			 : "shared: every RDMA device is visible in every netns",
		    excl ? "chain the rdma CNI before rdma-qos (it moves the RDMA device)" : NULL,
		    bad);
}

static void check_podres(const struct rq_env *env, const struct need *n, cJSON *c, bool *bad)
{
	char path[512];
	bool there;

	(void)snprintf(path, sizeof(path), "%s/" RQ_PODRES_SOCKET, n->kubelet_dir);
	there = sysfs_exists(&env->root, path);
	add(c, "podresources", NULL,
	    there	  ? PF_OK
	    : n->numa_api ? PF_PROBLEM
			  : PF_INFO,
	    there ? path : "kubelet's PodResources socket not found",
	    there ? NULL
		  : "mount the kubelet's pod-resources dir into the agent (deploy/ does), or "
		    "set node.kubeletDir; without it NUMA falls back to the checkpoint files",
	    bad);
}

/* The traffic-class knobs of the PF's first VF with an RDMA device (else of the PF's own). */
static int pf_knobs(const struct rq_env *env, const struct rq_pf *pf, struct rq_rdma_dev *ret)
{
	char path[256], base[64];
	char **names = NULL;
	size_t n = 0;
	struct rq_error e;
	int r = -ENOENT;

	(void)snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", pf->pci);
	if (sysfs_list(&env->root, path, &names, &n) == 0)
		for (size_t i = 0; r < 0 && i < n; i++) {
			char link[300];

			if (strncmp(names[i], "virtfn", 6) != 0)
				continue;
			(void)snprintf(link, sizeof(link), "%s/%s", path, names[i]);
			if (sysfs_readlink_base(&env->root, link, base, sizeof(base)) == 0 &&
			    rdma_find_by_pci(&env->root, base, ret) == 0)
				r = 0;
		}
	sysfs_list_free(names, n);
	if (r < 0)
		r = rdma_find_by_pci(&env->root, pf->pci, ret);
	rq_err_clear(&e);
	if (r == 0)
		(void)rdma_tos_locate(&env->root, ret, false, &e);
	return r;
}

static void check_pf(const struct rq_env *env, const struct need *n, const struct rq_pf *pf,
		     cJSON *c, bool *bad)
{
	const struct dcb_ops *ops = NULL;
	struct dcb_port_state st;
	struct rq_rdma_dev dev;
	void *ctx = NULL;
	int r = env->dcb_open(env, &ops, &ctx);

	memset(&st, 0, sizeof(st));
	if (r == 0)
		r = ops->get(ctx, pf->ifname, &st);
	if (ops && ctx)
		ops->free(ctx);
	if (r < 0)
		add(c, "dcb", pf->ifname, n->pf_write ? PF_PROBLEM : PF_INFO,
		    "no dcbnl on this port (ADD error 100)",
		    "a driver with DCB (mlx5_core); or node.pf verify if another tool owns QoS",
		    bad);
	else if (dcb_dcbx_not_host(&st))
		add(c, "dcbx", pf->ifname, n->pf_write ? PF_PROBLEM : PF_INFO,
		    "firmware or an LLDP agent owns DCBX: writes fail (ADD error 106)",
		    "host mode: mlxconfig -d <dev> set LLDP_NB_DCBX_P1=0 (reboot), or stop the "
		    "LLDP agent's DCBX; or node.pf verify",
		    bad);
	else
		add(c, "dcbx", pf->ifname, PF_OK,
		    st.has_dcbx ? "host mode: rdma-qos may write the port" : "dcbnl answers", NULL,
		    bad);
	if (pf_knobs(env, pf, &dev) < 0)
		add(c, "class knob", pf->ifname, n->tos ? PF_UNKNOWN : PF_INFO,
		    "no RDMA device on the PF or its VFs yet", "create VFs (sriov_numvfs)", bad);
	else if (dev.has[RQ_KNOB_MOFED])
		add(c, "class knob", pf->ifname, PF_OK,
		    "DOCA-OFED/MOFED tc/<port>/traffic_class: the class reaches every QP", NULL,
		    bad);
	else if (dev.has[RQ_KNOB_CONFIGFS])
		add(c, "class knob", pf->ifname, n->all_qps ? PF_PROBLEM : PF_INFO,
		    "inbox driver, configfs default_roce_tos: the class reaches RDMA-CM only",
		    "NCCL (no RDMA-CM) stays at class 0 unless each pod sets NCCL_IB_TC=106; "
		    "or install DOCA-OFED",
		    bad);
	else
		add(c, "class knob", pf->ifname, n->tos ? PF_PROBLEM : PF_INFO,
		    "no traffic-class knob (ADD error 108)",
		    "modprobe rdma_cm and mount configfs, or install DOCA-OFED", bad);
}

/* The agent's peers.json: what each PF's partner sent, if the agent runs here. */
static void check_lldp(const struct rq_env *env, const struct rq_pf *pfs, size_t n_pfs, cJSON *c,
		       bool *bad)
{
	char *buf = NULL;
	size_t len = 0;
	cJSON *o;

	if (sysfs_read_file(&env->root, RQ_PEER_FILE, 1 << 20, &buf, &len) < 0) {
		add(c, "lldp", NULL, PF_UNKNOWN,
		    "the agent is not running here (no " RQ_PEER_FILE ")",
		    "run preflight where the agent runs: kubectl exec -n rdma-qos <agent pod on "
		    "the node> -c agent -- /rdma-qos preflight",
		    bad);
		return;
	}
	o = cJSON_ParseWithLength(buf, len);
	free(buf);
	for (size_t i = 0; i < n_pfs; i++) {
		/* {"pfs": {"<pf>": {...}}}: a PF is there once a partner was heard (peer_listen.c)
		 */
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(o, "pfs"), pfs[i].ifname);
		add(c, "lldp", pfs[i].ifname, p ? PF_OK : PF_UNKNOWN,
		    p ? "the link partner's LLDP is heard" : "no LLDP heard from the link partner",
		    p ? NULL
		      : "enable LLDP (with DCBX TLVs) on the switch port; rdma-qos judges the "
			"partner against the profile",
		    bad);
	}
	cJSON_Delete(o);
}

/* Whether @ifname carries a default route (IPv4 /proc/net/route, IPv6 /proc/net/ipv6_route). */
static bool default_route(const struct rq_env *env, const char *ifname)
{
	static const char *const files[] = {"/proc/net/route", "/proc/net/ipv6_route"};
	bool found = false;

	for (int f = 0; f < 2 && !found; f++) {
		char *buf = NULL, *line, *save = NULL;
		size_t len = 0;

		if (sysfs_read_file(&env->root, files[f], 1 << 20, &buf, &len) < 0)
			continue;
		for (line = strtok_r(buf, "\n", &save); line && !found;
		     line = strtok_r(NULL, "\n", &save)) {
			char w[10][64];
			int n = sscanf(line, "%63s %63s %63s %63s %63s %63s %63s %63s %63s %63s",
				       w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8], w[9]);

			/* v4: Iface Destination Gateway Flags RefCnt Use Metric Mask ...; v6: dst
			 * dst_len src src_len next_hop metric refcnt use flags iface */
			if (f == 0 && n >= 8)
				found = !strcmp(w[0], ifname) && !strcmp(w[1], "00000000") &&
					!strcmp(w[7], "00000000");
			else if (f == 1 && n == 10)
				found = !strcmp(w[9], ifname) && !strcmp(w[1], "00") &&
					strspn(w[0], "0") == strlen(w[0]);
		}
		free(buf);
	}
	return found;
}

/*
 * node.wiring against this node's ports (issue 49 item 14): a rule's `pf`
 * glob that also matches the management NIC makes the agent judge the
 * front-end switch against a rail. What a port is, only the node tells:
 * not an SR-IOV PF, or carrying the default route. validate checks the
 * globs against each other; this, against the node.
 */
static void check_wiring(const struct rq_env *env, const struct rq_catalog *cat,
			 const struct rq_pf *pfs, size_t n_pfs, cJSON *c, bool *bad)
{
	char **names = NULL, bus[32], dev[64], what[512];
	size_t nn = 0, hits = 0;

	if (!cat || !cat->n_wiring || sysfs_list(&env->root, "/sys/class/net", &names, &nn) < 0)
		return;
	for (size_t i = 0; i < nn; i++) {
		const struct rq_wiring_rule *r;
		bool pf = false, route;

		if (device_port_parent(&env->root, names[i], bus, sizeof(bus), dev, sizeof(dev)) <
		    0)
			continue;
		r = wiring_rule_for(cat->wiring, cat->n_wiring, names[i],
				    !strcmp(bus, "pci") ? dev : NULL);
		if (!r)
			continue;
		hits++;
		for (size_t k = 0; k < n_pfs && !pf; k++)
			pf = !strcmp(pfs[k].ifname, names[i]);
		route = default_route(env, names[i]);
		if (pf && !route)
			continue;
		(void)snprintf(what, sizeof(what),
			       "node.wiring[%td].pf \"%s\" matches %s, %s (a management NIC?): "
			       "the agent judges its link partner against rail %s",
			       r - cat->wiring, r->pf, names[i],
			       route ? "which carries the default route"
				     : "which is not an SR-IOV PF",
			       r->rail);
		add(c, "wiring", names[i], PF_WARN, what,
		    "make the rule's pf name the rails only (their names or PCI addresses)", bad);
	}
	sysfs_list_free(names, nn);
	if (hits == 0)
		add(c, "wiring", NULL, PF_INFO, "node.wiring: no rule matches a port of this node",
		    "check the rules' pf globs against ip link (names) or the PCI addresses", bad);
}

static void print_text(const cJSON *checks, bool bad)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, checks)
	{
		const char *pf = json_str(c, "pf"), *todo = json_str(c, "do");

		printf("%-8s %s%s%s: %s\n", json_str(c, "verdict"), json_str(c, "check"),
		       pf ? " " : "", pf ? pf : "", json_str(c, "found"));
		if (todo)
			printf("         do: %s\n", todo);
	}
	printf("preflight: %s\n", bad ? "something the catalog requires is missing"
				      : "nothing the catalog requires is missing");
}

int cmd_preflight(struct rq_env *env, bool json)
{
	cJSON *out = cJSON_CreateObject(), *checks;
	struct rq_catalog *cat;
	struct rq_pf *pfs = NULL;
	size_t n_pfs = 0;
	struct need n;
	bool bad = false, mofed = false;

	if (!out || !(checks = cJSON_AddArrayToObject(out, "checks"))) {
		cJSON_Delete(out);
		return -ENOMEM;
	}
	cat = show_catalog(env);
	catalog_needs(cat, &n);
	add(checks, "catalog", NULL, n.have_cat ? PF_OK : PF_INFO,
	    n.have_cat ? RQ_CATALOG_PATH : "no catalog installed: the built-in roce-lossless only",
	    n.have_cat ? NULL : "install the DaemonSet (deploy/), which installs the catalog",
	    &bad);
	if (device_list_pfs(&env->root, &pfs, &n_pfs) < 0)
		n_pfs = 0;
	for (size_t i = 0; i < n_pfs; i++) {
		struct rq_rdma_dev dev;

		mofed |= pf_knobs(env, &pfs[i], &dev) == 0 && dev.has[RQ_KNOB_MOFED];
	}
	check_kernel(env, &n, mofed, checks, &bad);
	check_podres(env, &n, checks, &bad);
	if (n_pfs == 0)
		add(checks, "pfs", NULL, PF_PROBLEM, "no SR-IOV PF on this node",
		    "enable SR-IOV in the NIC's firmware and BIOS", &bad);
	for (size_t i = 0; i < n_pfs; i++)
		check_pf(env, &n, &pfs[i], checks, &bad);
	check_lldp(env, pfs, n_pfs, checks, &bad);
	check_wiring(env, cat, pfs, n_pfs, checks, &bad);
	catalog_free(cat);
	free(pfs);
	cJSON_AddBoolToObject(out, "ready", !bad);
	if (json) {
		char *s = cJSON_Print(out);

		if (s)
			puts(s);
		free(s);
	} else
		print_text(checks, bad);
	cJSON_Delete(out);
	return bad ? 1 : 0;
}
