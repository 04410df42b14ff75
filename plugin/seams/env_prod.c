// SPDX-License-Identifier: Apache-2.0
/* rdma-qos: the real host root and the netlink DCB backend. No switches. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/seams/env.h"

#include "pkg/netns/netns.h"

static int prod_dcb_open(const struct rq_env *env, const struct dcb_ops **ret_ops, void **ret_ctx)
{
	return dcb_nl_new(ret_ops, ret_ctx);
}

static int prod_link_open(const struct rq_env *env, const struct ethtool_link_ops **ret_ops,
			  void **ret_ctx)
{
	return ethtool_link_nl_new(ret_ops, ret_ctx);
}

static int prod_devlink_open(const struct rq_env *env, const struct devlink_ops **ret_ops,
			     void **ret_ctx)
{
	return devlink_nl_new(ret_ops, ret_ctx);
}

static int prod_ethtool_open(const struct rq_env *env, const struct ethtool_ops **ret_ops,
			     void **ret_ctx)
{
	return ethtool_ioctl_new(ret_ops, ret_ctx);
}

static int prod_link_pci(const struct rq_env *env, const char *ifname, char *buf, size_t len,
			 int *ret_ifindex)
{
	return netns_link_pci(ifname, buf, len, ret_ifindex);
}

/*
 * A socket made inside @netns keeps it (exclusive mode: only the pod's netns
 * shows the device); this thread returns to its netns before the dump.
 */
static int prod_qps_read(const struct rq_env *env, const char *netns, const char *dev,
			 struct rq_qp_list *ret)
{
	int saved, r;

	(void)env;
	if (!netns || !netns[0])
		return rdma_qps_dump(dev, ret);
	r = netns_enter_path(netns, &saved);
	if (r < 0)
		return r;
	r = rdma_qps_dump(dev, ret);
	if (netns_return(saved) < 0)
		abort(); /* a thread left in a pod's netns would act there: never go on */
	return r;
}

static int prod_cm_ids_read(const struct rq_env *env, const char *netns, const char *dev,
			    struct rq_cm_id_list *ret)
{
	int saved, r;

	(void)env;
	if (!netns || !netns[0])
		return rdma_cm_ids_dump(dev, ret);
	r = netns_enter_path(netns, &saved);
	if (r < 0)
		return r;
	r = rdma_cm_ids_dump(dev, ret);
	if (netns_return(saved) < 0)
		abort(); /* as prod_qps_read */
	return r;
}

static int prod_pfc_storm_tout(const struct rq_env *env, const char *ifname, int *ret_ms)
{
	return pfc_storm_tout_get(ifname, ret_ms);
}

int env_init(struct rq_env *env, struct rq_error *e)
{
	int r;

	memset(env, 0, sizeof(*env));
	env->root.fd = -1;
	r = root_open("/", &env->root);
	if (r < 0)
		return rq_err(e, RQ_ERR_IO, r, "opening /: %s", strerror(-r));
	env->binary = "rdma-qos";
	env->lock_timeout_ms = 10000;
	env->repair_backoff_ms = RQ_REPAIR_BACKOFF_MS;
	env->dcb_open = prod_dcb_open;
	env->ethtool_open = prod_ethtool_open;
	env->link_open = prod_link_open;
	env->devlink_open = prod_devlink_open;
	env->link_pci = prod_link_pci;
	env->pfc_storm_tout = prod_pfc_storm_tout;
	env->qps_read = prod_qps_read;
	env->cm_ids_read = prod_cm_ids_read;
	return 0;
}

void env_fini(struct rq_env *env)
{
	if (env->root.fd >= 0)
		root_close(&env->root);
	env->root.fd = -1;
}
