// SPDX-License-Identifier: Apache-2.0
/*
 * rdma-qos-sim: the same command code on a simulated node. Host paths
 * resolve under RDMA_QOS_SIM_ROOT and DCB is the file-backed fake. Tests and
 * the demo only; never installed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "plugin/seams/env.h"

#include "netconf/netconf.h"
#include "pkg/netns/netns.h"

static int sim_dcb_open(const struct rq_env *env, const struct dcb_ops **ret_ops, void **ret_ctx)
{
	return dcb_fake_new(&env->root, ret_ops, ret_ctx);
}

static int sim_link_open(const struct rq_env *env, const struct ethtool_link_ops **ret_ops,
			 void **ret_ctx)
{
	return ethtool_link_fake_new(&env->root, ret_ops, ret_ctx);
}

static int sim_devlink_open(const struct rq_env *env, const struct devlink_ops **ret_ops,
			    void **ret_ctx)
{
	return devlink_fake_new(&env->root, ret_ops, ret_ctx);
}

static int sim_ethtool_open(const struct rq_env *env, const struct ethtool_ops **ret_ops,
			    void **ret_ctx)
{
	return ethtool_fake_new(&env->root, ret_ops, ret_ctx);
}

static int sim_link_pci(const struct rq_env *env, const char *ifname, char *buf, size_t len,
			int *ret_ifindex)
{
	char alias[64], path[128], dev[RQ_PCI_ADDR_MAX];
	int ifindex = netns_link_alias(ifname, alias, sizeof(alias)), r;

	if (ifindex < 0)
		return ifindex;
	if (ret_ifindex)
		*ret_ifindex = ifindex;
	/* a VF moved with `ip link set VF netns NS` (no host-device: dranet, a DRA driver's
	 * own CNI call) keeps the name the simulated sysfs knows it by, and has no alias */
	if (!alias[0])
		(void)snprintf(alias, sizeof(alias), "%s", ifname);
	if (strchr(alias, '/') || !strcmp(alias, ".") || !strcmp(alias, ".."))
		return -ENODEV;
	(void)snprintf(path, sizeof(path), "/sys/class/net/%s/device", alias);
	r = sysfs_readlink_base(&env->root, path, dev, sizeof(dev));
	if (r < 0)
		return r;
	if (!sysfs_pci_valid(dev))
		return -ENODEV;
	if (strlen(dev) >= len)
		return -ENAMETOOLONG;
	(void)snprintf(buf, len, "%s", dev);
	return ifindex;
}

/* The fake DCB files change without a dcbnl notification: inotify stands in for RTNLGRP_DCB. */
static int sim_watch_open(const struct rq_env *env, int *ret_fd)
{
	char path[4200];
	int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);

	if (fd < 0)
		return -errno;
	(void)snprintf(path, sizeof(path), "%s/dcb", env->root.path);
	if (inotify_add_watch(fd, path, IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE | IN_CREATE) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

/* RDMA_QOS_SIM_PAUSE=<point>:<dir>: hold the command at @point until <dir>/go exists. */
static void sim_pause_point(const struct rq_env *env, const char *point)
{
	const char *v = getenv("RDMA_QOS_SIM_PAUSE"), *colon;
	char path[4200];
	size_t n = strlen(point);
	int fd;

	(void)env;
	if (!v || !(colon = strchr(v, ':')) || (size_t)(colon - v) != n || strncmp(v, point, n))
		return;
	(void)snprintf(path, sizeof(path), "%s/paused", colon + 1);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	(void)snprintf(path, sizeof(path), "%s/go", colon + 1);
	for (int i = 0; i < 6000 && access(path, F_OK) != 0; i++)
		usleep(10000);
}

static int sim_pfc_storm_tout(const struct rq_env *env, const char *ifname, int *ret_ms)
{
	char path[128], *buf = NULL;
	size_t len = 0;
	const cJSON *v;
	cJSON *o;
	int r;

	if (strchr(ifname, '/'))
		return -EINVAL;
	(void)snprintf(path, sizeof(path), "/ethtool/%s.tunables.json", ifname);
	r = sysfs_read_file(&env->root, path, 65536, &buf, &len);
	if (r < 0)
		return r;
	o = cJSON_ParseWithLength(buf, len);
	free(buf);
	v = cJSON_GetObjectItemCaseSensitive(o, "pfcPreventionTout");
	if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 65535)
		r = o && !v ? -EOPNOTSUPP : -EBADMSG;
	else
		*ret_ms = v->valueint == 65535 ? -1 : v->valueint;
	cJSON_Delete(o);
	return r;
}

/* <root>/rdma/qps/<dev>.json (DESIGN.md "Who"): no file, no QPs */
static int sim_qps_read(const struct rq_env *env, const char *netns, const char *dev,
			struct rq_qp_list *ret)
{
	char path[128], *buf = NULL;
	size_t len = 0;
	int r;

	(void)netns; /* the simulated node has one sysfs: no device is only in a pod */
	if (!dev[0] || strchr(dev, '/') || strlen(dev) > 64)
		return -EINVAL;
	(void)snprintf(path, sizeof(path), "/rdma/qps/%s.json", dev);
	r = sysfs_read_file(&env->root, path, 16 << 20, &buf, &len);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	r = rdma_qps_parse_json(buf, len, ret);
	free(buf);
	return r;
}

/* <root>/rdma/cm_ids/<dev>.json (DESIGN.md "Shared RDMA devices"): no file, no ids */
static int sim_cm_ids_read(const struct rq_env *env, const char *netns, const char *dev,
			   struct rq_cm_id_list *ret)
{
	char path[128], *buf = NULL;
	size_t len = 0;
	int r;

	(void)netns;
	if (!dev[0] || strchr(dev, '/') || strlen(dev) > 64)
		return -EINVAL;
	(void)snprintf(path, sizeof(path), "/rdma/cm_ids/%s.json", dev);
	r = sysfs_read_file(&env->root, path, 16 << 20, &buf, &len);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	r = rdma_cm_ids_parse_json(buf, len, ret);
	free(buf);
	return r;
}

static void sim_counter_read(const struct rq_env *env)
{
	const char *v = getenv("RDMA_QOS_SIM_COUNTER_DELAY_MS");
	long ms = v ? strtol(v, NULL, 10) : 0;
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

	(void)env;
	if (ms > 0)
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
}

int env_init(struct rq_env *env, struct rq_error *e)
{
	const char *root = getenv("RDMA_QOS_SIM_ROOT");
	int r;

	memset(env, 0, sizeof(*env));
	env->root.fd = -1;
	if (!root || root[0] != '/')
		return rq_err(e, RQ_ERR_ENV, -EINVAL,
			      "RDMA_QOS_SIM_ROOT must name the simulated node's root directory "
			      "(an absolute path)");
	r = root_open(root, &env->root);
	if (r < 0)
		return rq_err(e, RQ_ERR_ENV, r, "RDMA_QOS_SIM_ROOT %s: %s", root, strerror(-r));
	/* only openat2 keeps the simulated node's paths inside it (pkg/sysfs) */
	r = root_openat(&env->root, "/", O_PATH | O_DIRECTORY, 0);
	if (r == -ENOSYS)
		return rq_err(e, RQ_ERR_ENV, r,
			      "RDMA_QOS_SIM_ROOT needs openat2(2): Linux " RQ_OPENAT2_MIN_KERNEL
			      " or later");
	if (r >= 0)
		close(r);
	env->sim = true;
	env->root.attr_replace = true;
	/* tests shorten the lock wait to see error 11 quickly */
	env->lock_timeout_ms = 10000;
	if (getenv("RDMA_QOS_SIM_LOCK_TIMEOUT_MS"))
		env->lock_timeout_ms = atoi(getenv("RDMA_QOS_SIM_LOCK_TIMEOUT_MS"));
	/* a test that acts during the agent's List holds it longer than the production bound */
	if (getenv("RDMA_QOS_SIM_PODRES_MS"))
		env->podres_list_ms = atoi(getenv("RDMA_QOS_SIM_PODRES_MS"));
	/* tests shorten the agent's repair back-off to see a fight suspended in seconds */
	env->repair_backoff_ms = RQ_REPAIR_BACKOFF_MS;
	if (getenv("RDMA_QOS_SIM_REPAIR_BACKOFF_MS"))
		env->repair_backoff_ms = atoi(getenv("RDMA_QOS_SIM_REPAIR_BACKOFF_MS"));
	env->binary = "rdma-qos-sim";
	env->dcb_open = sim_dcb_open;
	env->ethtool_open = sim_ethtool_open;
	env->link_open = sim_link_open;
	env->devlink_open = sim_devlink_open;
	env->link_pci = sim_link_pci;
	env->watch_open = sim_watch_open;
	env->pause_point = sim_pause_point;
	env->pfc_storm_tout = sim_pfc_storm_tout;
	env->counter_read = sim_counter_read;
	env->qps_read = sim_qps_read;
	env->cm_ids_read = sim_cm_ids_read;
	return 0;
}

void env_fini(struct rq_env *env)
{
	if (env->root.fd >= 0)
		root_close(&env->root);
	env->root.fd = -1;
}
