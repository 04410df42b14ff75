// SPDX-License-Identifier: Apache-2.0
/*
 * The agent's part of DESIGN.md "VFs no chain ran for": each pass, the
 * watched PFs' VFs (an attachment's PF; every SR-IOV PF under node.baseline)
 * that sit in a pod's netns with no record (attach/unchained.c finds them) are,
 * by the catalog's node.unchained:
 * - report (default): rdma_qos_vf_unchained 1, logged once; nothing written;
 * - adopt: what ADD does, with ADD's code and locks (attach/add.c), for the pod
 *   PodResources names and the namespace's default profile; the record says
 *   "adopted": true and is passed like any other from then on. A VF whose pod
 *   PodResources does not name, or whose namespace has no default, is reported;
 * - ignore: nothing.
 * A VF that moves raises a pass through its link event in the host
 * (RTM_DELLINK when it leaves, RTM_NEWLINK when it comes back), so an
 * adoption follows the move by one coalescing delay and a pass.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/lock/lock.h"
#include "pkg/log/log.h"
#include "plugin/pass/pass_int.h"
#include "plugin/attach/add.h"
#include "plugin/attach/unchained.h"
#include "plugin/pass/pass.h"

/* the network name of adopted records: no NAD's GC names it (and GC skips them anyway) */
#define ADOPT_NETWORK "rdma-qos-adopted"

bool agent_vf_link(const struct agent *a, const char *name, const char *pci)
{
	for (size_t i = 0; name && name[0] && i < a->n_vf_names; i++)
		if (!strcmp(a->vf_names[i], name))
			return true;
	for (size_t i = 0; pci && pci[0] && i < a->n_vf_pcis; i++)
		if (!strcmp(a->vf_pcis[i], pci))
			return true;
	return false;
}

/* The watched PFs' VFs, for the link events that raise the next pass. */
static void watch_vfs(struct agent *a, char (*pfs)[RQ_PCI_ADDR_MAX], size_t n)
{
	char(*names)[IF_NAMESIZE] = NULL, (*pcis)[16] = NULL;
	size_t nn = 0, np = 0;

	for (size_t i = 0; i < n; i++) {
		char(*vfs)[RQ_PCI_ADDR_MAX] = NULL;
		size_t nv = 0;
		void *m1, *m2;

		if (unchained_pf_vfs(&a->env, pfs[i], &vfs, &nv) < 0)
			continue;
		m1 = realloc(names, (nn + nv + 1) * sizeof(*names));
		if (m1)
			names = m1;
		m2 = realloc(pcis, (np + nv + 1) * sizeof(*pcis));
		if (m2)
			pcis = m2;
		for (size_t j = 0; m1 && m2 && j < nv; j++) {
			char path[128], **ls = NULL;
			size_t nl = 0;

			(void)snprintf(pcis[np++], sizeof(*pcis), "%s", vfs[j]);
			(void)snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/net", vfs[j]);
			if (sysfs_list(&a->env.root, path, &ls, &nl) == 0 && nl > 0)
				(void)snprintf(names[nn++], sizeof(*names), "%s", ls[0]);
			sysfs_list_free(ls, nl);
		}
		free(vfs);
	}
	free(a->vf_names);
	free(a->vf_pcis);
	a->vf_names = names;
	a->n_vf_names = names ? nn : 0;
	a->vf_pcis = pcis;
	a->n_vf_pcis = pcis ? np : 0;
}

static void report_one(struct pass *p, const struct rq_unchained *u, cJSON *seen, const char *why)
{
	cJSON *o = cJSON_CreateObject();
	char pod[520];
	const cJSON *before;

	if (o) {
		cJSON_AddStringToObject(o, "vf", u->vf);
		cJSON_AddStringToObject(o, "pf", u->pf);
		cJSON_AddStringToObject(o, "rdmaDev", u->rdma_dev);
		cJSON_AddStringToObject(o, "namespace", u->pod_ns);
		cJSON_AddStringToObject(o, "pod", u->pod_name);
		cJSON_AddItemToArray(p->rep->unchained, o);
	}
	(void)snprintf(pod, sizeof(pod), "%s/%s", u->pod_ns, u->pod_name);
	before = cJSON_GetObjectItemCaseSensitive(p->a->unchained_seen, u->vf);
	if (before && !strcmp(before->valuestring ?: "", pod))
		log_debug("agent: VF %s still unchained in netns %s", u->vf, u->netns);
	else
		log_warn("agent: VF %s of PF %s is in netns %s (interface %s, RDMA %s) with no "
			 "record: no chain ran rdma-qos for it (%s%s%s); %s",
			 u->vf, u->pf, u->netns, u->ifname, u->rdma_dev[0] ? u->rdma_dev : "none",
			 u->pod_known ? "pod " : "pod unknown: ", u->pod_known ? pod : u->pod_why,
			 u->pod_known ? "" : "", why);
	if (seen)
		cJSON_AddStringToObject(seen, u->vf, pod);
}

/*
 * ADD for @u, as the runtime would have run it: the pod's netns and interface,
 * deviceID the VF (checked against the interface, as ADD checks it), the pod
 * PodResources names, no profile named (the namespace's default), numa warn
 * (the pod is running: a verdict is reported, never refused). 1 adopted (its
 * key in @ret_key), 2 a record of the VF appeared meanwhile (rolled back, not
 * unchained any more), 0 not (@why says why), <0 error.
 */
static int adopt_one(struct pass *p, const struct rq_unchained *u, char *ret_key, char *why,
		     size_t len)
{
	char conf[256];
	struct rq_ctx c;
	int r;

	if (!u->pod_known) {
		(void)snprintf(why, len, "not adopted: %s", u->pod_why);
		return 0;
	}
	if (u->rdma_in_host) {
		/* dranet moves the netdev and the RDMA device one after the other: the
		 * device's move (a uevent) raises the next pass */
		(void)snprintf(why, len,
			       "not adopted yet: its RDMA device %s is still in the host's netns "
			       "(exclusive RDMA netns mode)",
			       u->rdma_dev);
		return 0;
	}
	memset(&c, 0, sizeof(c));
	c.env = p->a->env;
	rq_err_clear(&c.err);
	(void)snprintf(conf, sizeof(conf),
		       "{\"cniVersion\":\"1.0.0\",\"name\":\"" ADOPT_NETWORK
		       "\",\"type\":\"rdma-qos\",\"numa\":\"warn\",\"deviceID\":\"%s\"}",
		       u->vf);
	r = netconf_parse(conf, strlen(conf), &c.nc, &c.err);
	if (r < 0) {
		(void)snprintf(why, len, "not adopted: %s", c.err.msg);
		return r;
	}
	c.args.cmd = RQ_CMD_ADD;
	c.args.command = "ADD";
	c.args.containerid = u->vf;
	c.args.netns = u->netns;
	c.args.ifname = u->ifname;
	(void)snprintf(c.args.pod_namespace, sizeof(c.args.pod_namespace), "%s", u->pod_ns);
	(void)snprintf(c.args.pod_name, sizeof(c.args.pod_name), "%s", u->pod_name);
	r = state_key(ADOPT_NETWORK, u->vf, u->ifname, c.key, sizeof(c.key));
	if (r == 0)
		r = attach_add(&c, true, NULL);
	if (r < 0)
		(void)snprintf(why, len, "not adopted: %s",
			       c.err.msg[0] ? c.err.msg : strerror(-r));
	catalog_free(c.cat);
	netconf_free(c.nc);
	/* a chained ADD recorded the VF since the scan: not unchained now, nothing to report */
	if (r == -EEXIST) {
		log_info("agent: VF %s of PF %s: %s; the adoption is rolled back", u->vf, u->pf,
			 why + strlen("not adopted: "));
		return 2;
	}
	if (r < 0)
		return 0;
	agent_count_adoption(p->a, u->pf);
	log_info(
	    "agent: adopted VF %s of PF %s in pod %s/%s (netns %s, interface %s; named by %s): "
	    "profile \"%s\"",
	    u->vf, u->pf, u->pod_ns, u->pod_name, u->netns, u->ifname, u->by, c.profile.name);
	(void)snprintf(ret_key, RQ_STATE_KEY_MAX, "%s", c.key);
	return 1;
}

/*
 * The temporaries of adoption records an agent killed mid-write left: the
 * agent is the only writer of those keys, so one whose record does not exist
 * and whose lock is free is garbage now, not after AGENT_TMP_AGE_S (a VF that
 * left its pod before the next pass would never clean it: no record, no
 * release). ".<key>.json.<pid>.tmp"
 */
static void adopted_tmp_sweep(const struct rq_env *env)
{
	static const char pre[] = "." ADOPT_NETWORK "_";
	char **names = NULL;
	size_t n = 0;

	if (sysfs_list(&env->root, RQ_STATE_DIR, &names, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		char key[RQ_STATE_KEY_MAX], *end;
		cJSON *rec = NULL;
		size_t len = strlen(names[i]);
		int fd;

		if (strncmp(names[i], pre, sizeof(pre) - 1) != 0 || len < 5 ||
		    strcmp(names[i] + len - 4, ".tmp") != 0 || !(end = strstr(names[i], ".json.")))
			continue;
		(void)snprintf(key, sizeof(key), "%.*s", (int)(end - names[i] - 1), names[i] + 1);
		fd = lock_attachment(&env->root, key, 0);
		if (fd < 0)
			continue;
		if (state_record_read(&env->root, key, &rec) == -ENOENT) {
			(void)state_record_remove(&env->root, key);
			log_info(
			    "agent: removed the temporary of adoption record %s (a killed agent's)",
			    key);
		}
		cJSON_Delete(rec);
		lock_release(fd);
	}
	sysfs_list_free(names, n);
}

void pass_unchained(struct pass *p, char ***ret_keys, size_t *ret_n)
{
	enum rq_unchained_mode mode = p->cat ? p->cat->unchained : RQ_UNCHAINED_REPORT;
	char(*pfs)[RQ_PCI_ADDR_MAX] = calloc(p->n_pfs + 1, sizeof(*pfs));
	struct rq_unchained *u = NULL;
	char **keys = NULL;
	size_t n = 0, nk = 0;
	cJSON *seen;
	int r;

	*ret_keys = NULL;
	*ret_n = 0;
	if (!pfs)
		return;
	for (size_t i = 0; i < p->n_pfs; i++)
		(void)snprintf(pfs[i], sizeof(*pfs), "%s", p->pfs[i].pf.pci);
	watch_vfs(p->a, pfs, p->n_pfs);
	adopted_tmp_sweep(&p->a->env);
	if (mode == RQ_UNCHAINED_IGNORE) {
		free(pfs);
		cJSON_Delete(p->a->unchained_seen);
		p->a->unchained_seen = NULL;
		return;
	}
	r = unchained_scan(&p->a->env, p->cat ? p->cat->kubelet_dir : RQ_KUBELET_DIR_DEFAULT, pfs,
			   p->n_pfs, NULL, &u, &n);
	free(pfs);
	if (r < 0) {
		log_warn("agent: looking for VFs no chain ran rdma-qos for: %s", strerror(-r));
		return;
	}
	seen = cJSON_CreateObject();
	keys = calloc(n + 1, sizeof(*keys));
	for (size_t i = 0; i < n; i++) {
		char why[RQ_ERR_MSG_MAX + 32], key[RQ_STATE_KEY_MAX];

		r = mode == RQ_UNCHAINED_ADOPT ? adopt_one(p, &u[i], key, why, sizeof(why)) : 0;
		if (r == 1 && keys && (keys[nk] = strdup(key)))
			nk++;
		if (r >= 1)
			continue;
		report_one(p, &u[i], seen,
			   mode == RQ_UNCHAINED_ADOPT
			       ? why
			       : "reported only (node.unchained: report; \"adopt\" would give it "
				 "its namespace's default profile)");
	}
	cJSON_Delete(p->a->unchained_seen);
	p->a->unchained_seen = seen;
	free(u);
	*ret_keys = keys;
	*ret_n = keys ? nk : 0;
}
