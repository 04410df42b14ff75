// SPDX-License-Identifier: Apache-2.0
/* Steps shared by ADD, CHECK, DEL and GC: profile, devices, locks, release. */
#include "plugin/attach/core.h"
#include "plugin/attach/shared.h"
#include "plugin/attach/vf_class.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pkg/lock/lock.h"
#include "pkg/log/log.h"
#include "pkg/netns/netns.h"

const char *pf_mode_name(enum rq_pf_mode m)
{
	return m == RQ_PF_ENSURE ? "ensure" : m == RQ_PF_VERIFY ? "verify" : "ignore";
}

const char *numa_mode_name(enum rq_numa_mode m)
{
	return m == RQ_NUMA_STRICT ? "strict" : m == RQ_NUMA_WARN ? "warn" : "off";
}

struct rq_numa_query attach_numa_query(const struct rq_ctx *c, const struct rq_target *t)
{
	struct rq_numa_query q = {.kubelet_dir = RQ_KUBELET_DIR(c),
				  .pod_uid = c->args.pod_uid,
				  .pod_ns = c->args.pod_namespace,
				  .pod_name = c->args.pod_name,
				  /* a shared device: the function it sits on */
				  .vf_pci = t->shared ? t->fn_pci : t->vf.pci,
				  .source = c->cat ? c->cat->numa_source : RQ_NUMA_SRC_AUTO};
	size_t n = 0;

	/* names a device plugin may list the VF by, besides its PCI address */
	if (t->vf.ifname[0])
		q.self[n++] = t->vf.ifname;
	if (t->have_rdma && t->rdma.name[0])
		q.self[n++] = t->rdma.name;
	return q;
}

int attach_load_profile(struct rq_ctx *c)
{
	char *buf = NULL;
	size_t len = 0;
	int r;

	r = sysfs_read_file(&c->env.root, RQ_CATALOG_PATH, 4 * 1024 * 1024, &buf, &len);
	if (r == -ENOENT) {
		log_debug("no catalog at %s: built-in profiles only", RQ_CATALOG_PATH);
	} else if (r < 0) {
		return rq_err(&c->err, RQ_ERR_IO, r, "catalog %s: %s", RQ_CATALOG_PATH,
			      strerror(-r));
	} else {
		/* only what this attachment uses is validated in full (netconf.h,
		 * docs/configuration.md) */
		r = catalog_parse_for(buf, len, c->args.pod_namespace,
				      c->nc->args_profile ? c->nc->args_profile : c->nc->profile,
				      &c->cat, &c->err);
		free(buf);
		if (r < 0) {
			/* the message names the JSON path; say which file it is in */
			char msg[RQ_ERR_MSG_MAX + 64];

			snprintf(msg, sizeof(msg), "catalog %s: %s", RQ_CATALOG_PATH, c->err.msg);
			msg[sizeof(c->err.msg) - 1] = '\0';
			memcpy(c->err.msg, msg, sizeof(c->err.msg));
			return r;
		}
		if (c->cat->obs_err[0])
			log_warn("catalog %s: %s: section ignored (observability only; `rdma-qos "
				 "validate` says more)",
				 RQ_CATALOG_PATH, c->cat->obs_err);
	}
	return netconf_resolve_profile(c->nc, c->cat, c->args.pod_namespace, &c->profile,
				       &c->pf_mode, &c->err);
}

/*
 * The VF's PCI address from the pod netns interface, and its ifindex there. @ret_pod_sk (may
 * be NULL): when the interface shows no PCI device, an rtnetlink socket made in the pod's
 * netns while ADD is there, for the shared path's walk (no second entry; -1 if none made).
 */
static int vf_from_netns_fd(struct rq_ctx *c, char *pci, size_t len, int *ret_ifindex,
			    int *ret_pod_sk)
{
	int nsfd = -1, saved = -1, r, lr, ifindex, seen = -1;

	r = netns_open(c->args.netns, &nsfd);
	if (r < 0)
		return rq_err(&c->err, RQ_ERR_ENV, r, "CNI_NETNS %s: %s", c->args.netns,
			      strerror(-r));
	r = netns_enter(nsfd, &saved);
	/* the netns entered is the one the record names (podns_record_identity) */
	if (r == 0 && netns_identity(nsfd, &c->netns_dev, &c->netns_ino) < 0)
		c->netns_dev = c->netns_ino = 0;
	close(nsfd);
	if (r < 0)
		return rq_err(&c->err, RQ_ERR_ENV, r, "cannot enter %s: %s", c->args.netns,
			      strerror(-r));
	/*
	 * The index from link_pci's own RTM_GETLINK, also for a link that shows no
	 * device; asked apart only when that could not name the link.
	 */
	lr = pci ? c->env.link_pci(&c->env, c->args.ifname, pci, len, &seen) : -ENOENT;
	/* the shared path's caller (@ret_pod_sk) needs no index of a link without a device */
	ifindex = lr > 0       ? lr
		  : ret_pod_sk ? -1
		  : seen > 0   ? seen
			       : netns_link_ifindex(c->args.ifname);
	r = !pci || lr > 0 ? 0 : lr;
	if (ret_pod_sk && r < 0)
		*ret_pod_sk = netns_rtnl_socket();
	netns_return(saved);
	if (ifindex >= 0 && ret_ifindex)
		*ret_ifindex = ifindex;
	return r;
}

static int vf_from_netns(struct rq_ctx *c, char *pci, size_t len, int *ret_ifindex)
{
	return vf_from_netns_fd(c, pci, len, ret_ifindex, NULL);
}

/*
 * The RDMA device of the pod's interface, over RDMA netlink inside the pod
 * netns: an ifindex means something only in its own netns, and the kernel
 * reports a port's netdev index only to a socket in that netns. In shared
 * mode the pod sees every device; in exclusive mode only its own.
 */
static int rdma_from_netlink(struct rq_ctx *c, int ifindex, struct rq_rdma_dev *ret)
{
	int nsfd = -1, saved = -1, r;

	if (ifindex <= 0 || !c->args.netns)
		return -ENOENT;
	r = netns_open(c->args.netns, &nsfd);
	if (r < 0)
		return r;
	r = netns_enter(nsfd, &saved);
	close(nsfd);
	if (r < 0)
		return r;
	r = rdma_find_by_ifindex(ifindex, ret);
	netns_return(saved);
	return r;
}

/*
 * deviceID comes from the NAD (or from Multus, which overwrites it only when
 * the attachment has a device-plugin resource), and a NAD is written by
 * namespace users: it must be the device the pod's interface sits on. Where
 * the interface shows its PCI device, the two must agree. Where it shows none
 * (no netdev in the pod, a virtual link), only an SR-IOV VF is taken on the
 * NAD's word, and ADD refuses one a live attachment holds (cmd_add.c).
 */
static int device_id_verify(struct rq_ctx *c, const char *pci, int *ret_ifindex, bool *ret_seen)
{
	char seen[RQ_PCI_ADDR_MAX] = "";
	int r;

	*ret_seen = false;
	if (!c->args.netns)
		return 0;
	r = vf_from_netns(c, seen, sizeof(seen), ret_ifindex);
	if (r < 0 && rq_err_isset(&c->err))
		return r; /* the netns itself is unusable */
	if (r < 0) {
		log_debug("%s: interface %s shows no PCI device (%s): deviceID %s unconfirmed",
			  c->key, c->args.ifname, strerror(-r), pci);
		return 0;
	}
	if (strcmp(seen, pci) != 0)
		return rq_err(&c->err, RQ_ERR_NOT_OWNER, -EPERM,
			      "deviceID: %s is not the device of the pod's interface %s (%s)", pci,
			      c->args.ifname, seen);
	*ret_seen = true;
	return 0;
}

/* A VF without an RDMA device (bound to vfio-pci for DPDK) gets the PF part only. */
static int rdma_none(struct rq_ctx *c, struct rq_target *t, bool excl)
{
	char path[128], drv[64] = "none";

	(void)snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", t->vf.pci);
	(void)sysfs_readlink_base(&c->env.root, path, drv, sizeof(drv));
	log_warn("%s: VF %s (driver %s) has no RDMA device%s: no traffic class is set, the "
		 "profile's PF part still applies",
		 c->key, t->vf.pci, drv,
		 excl ? " in the pod's netns (exclusive RDMA netns mode)" : "");
	t->have_rdma = false;
	return 0;
}

/*
 * The VF's RDMA device: its PCI function's infiniband/ in the host's sysfs,
 * else over RDMA netlink in the pod. In exclusive RDMA netns mode the host
 * shows a device only while it is still in the host netns: then the `rdma`
 * plugin has not moved it yet, and its move would reset configfs's ToS.
 */
static int rdma_resolve(struct rq_ctx *c, struct rq_target *t, int ifindex)
{
	bool excl = false;
	int r;

	r = rdma_netns_exclusive(&c->env.root, &excl);
	if (r < 0)
		log_debug("%s: RDMA netns mode unknown (%s): taken as shared", c->key,
			  strerror(-r));
	r = rdma_find_by_pci(&c->env.root, t->vf.pci, &t->rdma);
	if (r == 0 && excl && c->args.netns)
		return rq_err(&c->err, RQ_ERR_CONFIG, -EINVAL,
			      "plugins: RDMA device %s of VF %s is still in the host network "
			      "namespace while the kernel is in exclusive RDMA netns mode: "
			      "rdma-qos must come after the \"rdma\" plugin in the chain (moving "
			      "the device into the pod resets its RDMA-CM ToS)",
			      t->rdma.name, t->vf.pci);
	if (r == 0) {
		t->have_rdma = true;
		return 0;
	}
	if (ifindex < 0 && c->args.netns)
		(void)vf_from_netns(c, NULL, 0, &ifindex); /* only now: entering a netns costs */
	r = rdma_from_netlink(c, ifindex, &t->rdma);
	if (r < 0)
		return rdma_none(c, t, excl);
	if (excl)
		(void)snprintf(t->rdma.netns, sizeof(t->rdma.netns), "%s", c->args.netns);
	t->have_rdma = true;
	return 0;
}

/* Which ports of a bonded PF are the VF's (docs/operations.md, "Bonds and VF LAG"). */
static void bond_note(const struct rq_ctx *c, const struct rq_vf_info *vf)
{
	if (vf->lag)
		log_info("%s: PF %s is a port of VF LAG %s (RDMA device %s): the VF's RoCE may "
			 "leave by any of its %zu ports, each is a target",
			 c->key, vf->pf[0].ifname, vf->bond, vf->rdma_bond, vf->n_pf);
	else if (vf->bond[0])
		log_info(
		    "%s: PF %s is a slave of bond %s with no hardware LAG (no mlx5_bond "
		    "device: legacy SR-IOV): the VF sends on its own port, only %s is a target",
		    c->key, vf->pf[0].ifname, vf->bond, vf->pf[0].ifname);
}

int attach_resolve_target(struct rq_ctx *c, struct rq_target *t)
{
	char pci[RQ_PCI_ADDR_MAX] = "";
	bool confirmed = false;
	int ifindex = -1, r;

	memset(t, 0, sizeof(*t));
	if (c->nc->device_sf[0])
		return rq_err(
		    &c->err, RQ_ERR_NO_DEVICE, -ENODEV,
		    "deviceID: %s is a sub-function (auxiliary device), not an SR-IOV VF: "
		    "rdma-qos configures VFs (PCI functions) and their PF; leave it out of "
		    "the chain of SF networks",
		    c->nc->device_sf);
	if (c->nc->device_id[0]) {
		snprintf(pci, sizeof(pci), "%s", c->nc->device_id);
		r = device_id_verify(c, pci, &ifindex, &confirmed);
		if (r < 0)
			return r;
	} else {
		int pod_sk = -1;

		if (!c->args.netns)
			return rq_err(&c->err, RQ_ERR_NO_DEVICE, -ENODEV,
				      "deviceID: not set and no CNI_NETNS to find the VF in");
		r = vf_from_netns_fd(c, pci, sizeof(pci), &ifindex, &pod_sk);
		if (r < 0 && rq_err_isset(&c->err)) {
			if (pod_sk >= 0)
				close(pod_sk);
			return r; /* the netns itself is unusable */
		}
		/* no PCI device in the pod: a macvlan or ipvlan on a shared RDMA device */
		if (r < 0)
			r = shared_resolve(c, pod_sk, t);
		if (pod_sk >= 0)
			close(pod_sk);
		if (r != -ENOENT && (r < 0 || t->shared))
			return r;
		if (r < 0)
			return rq_err(&c->err, RQ_ERR_NO_DEVICE, r,
				      "deviceID: %s%s%s, and interface %s in %s has no PCI device "
				      "and no lower device in the host network namespace (not a "
				      "VF, macvlan or ipvlan); set deviceID or "
				      "runtimeConfig.deviceID",
				      c->nc->device_shared[0] ? "\"" : "not set",
				      c->nc->device_shared,
				      c->nc->device_shared[0] ? "\" names no device" : "",
				      c->args.ifname, c->args.netns);
		confirmed = true;
	}
	r = device_resolve_vf(&c->env.root, pci, &t->vf, &c->err);
	if (r < 0)
		return rq_err(&c->err, RQ_ERR_NO_DEVICE, r, "VF %s: %s", pci, strerror(-r));
	bond_note(c, &t->vf);
	/* a whole NIC (a host PF, say) is never taken on the NAD's word alone */
	if (!t->vf.has_pf && !confirmed)
		return rq_err(
		    &c->err, RQ_ERR_NOT_OWNER, -EPERM,
		    "deviceID: %s is not an SR-IOV VF and the pod's interface %s does not "
		    "show it as its device",
		    pci, c->args.ifname);
	t->confirmed = confirmed;
	return rdma_resolve(c, t, ifindex);
}

/* Lock every PF of the VF in PCI order (sorted: no lock-order inversion). */
int attach_lock_pfs(struct rq_ctx *c, const struct rq_vf_info *vf, int *fds)
{
	size_t order[RQ_MAX_PFS];

	for (size_t i = 0; i < RQ_MAX_PFS; i++)
		fds[i] = -1;
	for (size_t i = 0; i < vf->n_pf; i++)
		order[i] = i;
	for (size_t i = 1; i < vf->n_pf; i++)
		for (size_t j = i;
		     j > 0 && strcmp(vf->pf[order[j - 1]].pci, vf->pf[order[j]].pci) > 0; j--) {
			size_t tmp = order[j];

			order[j] = order[j - 1];
			order[j - 1] = tmp;
		}
	for (size_t i = 0; i < vf->n_pf; i++) {
		size_t k = order[i];
		int fd = lock_pf(&c->env.root, vf->pf[k].pci, c->env.lock_timeout_ms);

		if (fd < 0) {
			attach_unlock_pfs(vf, fds);
			if (fd == -EAGAIN)
				return rq_err(&c->err, RQ_ERR_TRY_AGAIN, fd,
					      "PF %s is locked by another attachment for more than "
					      "%d ms; try again later",
					      vf->pf[k].pci, c->env.lock_timeout_ms);
			return rq_err(&c->err, RQ_ERR_IO, fd, "lock for PF %s: %s", vf->pf[k].pci,
				      strerror(-fd));
		}
		fds[k] = fd;
	}
	return 0;
}

void attach_unlock_pfs(const struct rq_vf_info *vf, int *fds)
{
	for (size_t i = 0; i < RQ_MAX_PFS; i++) {
		lock_release(fds[i]);
		fds[i] = -1;
	}
}

/* The record of another attachment in @idx that still has one and holds @vf (any VF when NULL). */
cJSON *attach_vf_holder(struct rq_ctx *c, const cJSON *idx, const char *vf)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(idx, "attachments"))
	{
		const char *key = json_str(it, "key"), *ivf = json_str(it, "vf");
		cJSON *rec = NULL;

		if (!key || !strcmp(key, c->key) || (vf && ivf && strcmp(ivf, vf) != 0))
			continue;
		if (state_record_read(&c->env.root, key, &rec) < 0)
			continue;
		if (!vf || !strcmp(json_str(rec, "vf") ?: "", vf))
			return rec;
		cJSON_Delete(rec);
	}
	return NULL;
}

/*
 * After a lost DEL the device plugin hands the VF to another pod, whose ADD
 * found the ToS already set and so recorded no change of its own: a late DEL
 * (or GC) of the old attachment must leave that ToS alone.
 */
static bool vf_handed_on(struct rq_ctx *c, const cJSON *rec, const struct rq_vf_info *vf)
{
	const char *pci = json_str(rec, "vf");

	for (size_t i = 0; pci && i < vf->n_pf; i++) {
		cJSON *idx = NULL, *holder;

		if (state_pf_read(&c->env.root, vf->pf[i].pci, &idx) < 0)
			continue;
		holder = attach_vf_holder(c, idx, pci);
		cJSON_Delete(idx);
		if (holder) {
			log_info("%s: VF %s now belongs to %s/%s: its traffic class is left alone",
				 c->key, pci, json_str(holder, "podNamespace") ?: "?",
				 json_str(holder, "podName") ?: "?");
			cJSON_Delete(holder);
			return true;
		}
	}
	return false;
}

/*
 * Undo what belongs to one attachment record: its ToS (when asked) and its
 * place in the PF indexes. PF-wide settings are never reverted: other
 * attachments, or the operator, rely on them. @checked (the agent, acting on
 * a copy read without a lock): under the PF locks the record is read again
 * and released only when it still says what @rec says; 0 then means it was
 * left alone (gone, made final by its ADD, or re-added), 1 released.
 */
static int release(struct rq_ctx *c, const cJSON *rec, bool restore_tos, bool checked)
{
	const cJSON *pfs = cJSON_GetObjectItemCaseSensitive(rec, "pfs"), *pf;
	struct rq_vf_info vf;
	int fds[RQ_MAX_PFS], r;

	memset(&vf, 0, sizeof(vf));
	cJSON_ArrayForEach(pf, pfs)
	{
		const char *pci = json_str(pf, "pci");

		if (pci && vf.n_pf < RQ_MAX_PFS && netconf_pci_addr_valid(pci))
			snprintf(vf.pf[vf.n_pf++].pci, sizeof(vf.pf[0].pci), "%s", pci);
	}
	r = attach_lock_pfs(c, &vf, fds);
	if (r < 0)
		return r;
	if (checked) {
		cJSON *now = NULL;
		bool same =
		    state_record_read(&c->env.root, c->key, &now) == 0 && json_equal(now, rec);

		cJSON_Delete(now);
		if (!same) {
			attach_unlock_pfs(&vf, fds);
			log_info("%s: the record changed since it was read: left alone", c->key);
			return 0;
		}
	}
	/* a shared device's class is the index's to put back, when its last requirer goes */
	if (shared_record(rec))
		dev_class_leave(&c->env, json_str(rec, "rdmaDev"), c->key, c->key);
	else if (restore_tos && !vf_handed_on(c, rec, &vf))
		tos_release(c, rec);
	for (size_t i = 0; i < vf.n_pf; i++) {
		int rr = state_pf_detach(&c->env.root, vf.pf[i].pci, c->key);

		if (rr < 0)
			log_warn("%s: PF %s index: %s", c->key, vf.pf[i].pci, strerror(-rr));
	}
	r = state_record_remove(&c->env.root, c->key);
	attach_unlock_pfs(&vf, fds);
	if (r < 0)
		return rq_err(&c->err, RQ_ERR_IO, r, "removing record %s: %s", c->key,
			      strerror(-r));
	return 1;
}

int attach_release(struct rq_ctx *c, const cJSON *rec, bool restore_tos)
{
	int r = release(c, rec, restore_tos, false);

	return r < 0 ? r : 0;
}

int attach_release_checked(struct rq_ctx *c, const cJSON *rec, bool restore_tos)
{
	return release(c, rec, restore_tos, true);
}

/*
 * DEL without a record: an ADD killed before its record, or whose record was
 * lost, may still be listed in a PF index, where it would count for the
 * requirements union for ever. Drop @c->key from every index that lists it
 * (under that PF's lock), and the record's leftover temporary.
 */
void attach_drop_orphans(struct rq_ctx *c)
{
	(void)state_record_remove(&c->env.root, c->key);
	attach_orphans_drop(&c->env, c->key, c->key);
	dev_class_orphans(&c->env, c->key, c->key);
}

cJSON *attach_records_set(const struct rq_env *env,
			  bool (*key)(const cJSON *rec, char *buf, size_t len))
{
	cJSON *set = cJSON_CreateObject();
	char **keys = NULL, k[520];
	size_t n = 0;

	if (!set)
		return NULL;
	if (state_record_list(&env->root, &keys, &n) < 0)
		return set;
	for (size_t i = 0; i < n; i++) {
		cJSON *rec = NULL;

		if (state_record_read(&env->root, keys[i], &rec) == 0 && key(rec, k, sizeof(k)) &&
		    !cJSON_GetObjectItemCaseSensitive(set, k))
			cJSON_AddTrueToObject(set, k);
		cJSON_Delete(rec);
		free(keys[i]);
	}
	free(keys);
	return set;
}
