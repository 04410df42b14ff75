// SPDX-License-Identifier: Apache-2.0
/* The VF's RDMA device (sysfs, else RDMA netlink) and its ToS interface. */
#include "pkg/rdma/rdma.h"

#include <errno.h>
#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <rdma/rdma_netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "pkg/nlparse/nlparse.h"
#include "pkg/rdma/rdma_nl.h"

static const char *const knob_names[RQ_KNOB_N] = {"mofed", "configfs"};

const char *rdma_knob_name(enum rq_tos_knob k)
{
	return k >= 0 && k < RQ_KNOB_N ? knob_names[k] : "none";
}

int rdma_knob_parse(const char *s)
{
	for (int k = 0; s && k < RQ_KNOB_N; k++)
		if (!strcmp(s, knob_names[k]))
			return k;
	return -1;
}

int rdma_find_by_pci(const struct rq_root *r, const char *pci, struct rq_rdma_dev *ret)
{
	char path[256];
	char **names = NULL;
	size_t n = 0;
	int rr;

	(void)snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/infiniband", pci);
	rr = sysfs_list(r, path, &names, &n);
	if (rr < 0)
		return rr;
	if (n == 0 || strlen(names[0]) >= sizeof(ret->name)) {
		sysfs_list_free(names, n);
		return -ENOENT;
	}
	memset(ret, 0, sizeof(*ret));
	(void)snprintf(ret->name, sizeof(ret->name), "%s", names[0]);
	ret->port = 1; /* a VF's RDMA device has one port */
	sysfs_list_free(names, n);
	(void)snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports", ret->name);
	if (sysfs_list(r, path, &names, &n) == 0) {
		ret->n_ports = (int)n;
		sysfs_list_free(names, n);
	}
	return 0;
}

int rdma_dev_pci(const struct rq_root *r, const char *name, char *buf, size_t len)
{
	char path[320];

	if (!name || !name[0] || strchr(name, '/'))
		return -EINVAL;
	char ndev[64];
	int rr;

	(void)snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device", name);
	rr = sysfs_readlink_base(r, path, buf, len);
	if (rr != -ENOENT)
		return rr;
	/* no parent (rxe): the netdev of its first GID, where the host's sysfs shows it */
	(void)snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/gid_attrs/ndevs/0",
		       name);
	if (sysfs_read_str(r, path, ndev, sizeof(ndev)) < 0 || !ndev[0] || strchr(ndev, '/'))
		return -ENOENT;
	(void)snprintf(path, sizeof(path), "/sys/class/net/%s/device", ndev);
	return sysfs_readlink_base(r, path, buf, len);
}

/*
 * One RDMA_NLDEV_CMD_PORT_GET reply message: 1 and *ret filled when its
 * netdev index is @ifindex, 0 when it is another port, -EBADMSG when
 * malformed. Pure, so tests feed it hand-built buffers.
 */
int rdma_nl_parse_port(const struct nlmsghdr *nlh, size_t len, int ifindex, struct rq_rdma_dev *ret)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_NDEV_INDEX + 1];
	const char *name;
	int port, r = nlparse_msg(nlh, len, 0, tb, RDMA_NLDEV_ATTR_NDEV_INDEX, rdma_nl_dev_policy);

	if (r < 0)
		return r;
	/* a non-empty name (found by fuzz-kubelet: "" matched); the policy saw its NUL */
	name = tb[RDMA_NLDEV_ATTR_DEV_NAME] ? nla_get_string(tb[RDMA_NLDEV_ATTR_DEV_NAME]) : NULL;
	if (name && !name[0])
		return -EBADMSG;
	if (!tb[RDMA_NLDEV_ATTR_NDEV_INDEX] || !name || !tb[RDMA_NLDEV_ATTR_PORT_INDEX] ||
	    (int)nla_get_u32(tb[RDMA_NLDEV_ATTR_NDEV_INDEX]) != ifindex)
		return 0;
	port = (int)nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	if (port < 1)
		return 0;
	if (strlen(name) >= sizeof(ret->name))
		return -EBADMSG;
	memset(ret, 0, sizeof(*ret));
	(void)snprintf(ret->name, sizeof(ret->name), "%s", name);
	ret->port = port;
	return 1;
}

int rdma_nl_parse_event(const struct nlmsghdr *nlh, size_t len, char *buf, size_t buflen)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_NDEV_INDEX + 1];
	int r;

	if (len >= NLMSG_HDRLEN && nlh->nlmsg_type < NLMSG_MIN_TYPE)
		return 0; /* NOOP, ERROR, DONE, OVERRUN: no event */
	r = nlparse_msg(nlh, len, 0, tb, RDMA_NLDEV_ATTR_NDEV_INDEX, rdma_nl_dev_policy);
	if (r < 0)
		return r;
	if (tb[RDMA_NLDEV_ATTR_DEV_NAME] && nla_get_string(tb[RDMA_NLDEV_ATTR_DEV_NAME])[0])
		(void)snprintf(buf, buflen, "%s", nla_get_string(tb[RDMA_NLDEV_ATTR_DEV_NAME]));
	else if (tb[RDMA_NLDEV_ATTR_DEV_INDEX])
		(void)snprintf(buf, buflen, "rdma dev %u",
			       nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]));
	else
		(void)snprintf(buf, buflen, "rdma");
	return 1;
}

/* The value of "KEY=value" @kv (@n bytes, its NUL not counted) when it has @key. */
static const char *uevent_val(const char *kv, size_t n, const char *key, size_t *ret_n)
{
	size_t k = strlen(key);

	if (n < k || memcmp(kv, key, k) != 0)
		return NULL;
	*ret_n = n - k;
	return kv + k;
}

int rdma_uevent_dev(const char *buf, size_t len, char *ret, size_t retlen)
{
	const char *dev = NULL, *v;
	size_t dev_n = 0, n, vn;
	bool ib = false;

	/* no byte past @len is read: the last string may lack its NUL */
	for (size_t off = 0; off < len; off += n + 1) {
		const char *kv = buf + off;

		n = strnlen(kv, len - off);
		if ((v = uevent_val(kv, n, "SUBSYSTEM=", &vn)) != NULL) {
			ib = vn == 10 && memcmp(v, "infiniband", 10) == 0;
		} else if ((v = uevent_val(kv, n, "DEVPATH=", &vn)) != NULL) {
			const char *slash = memrchr(v, '/', vn);

			dev = slash ? slash + 1 : v;
			dev_n = vn - (size_t)(dev - v);
		}
	}
	if (!ib)
		return 0;
	if (!dev || dev_n == 0)
		(void)snprintf(ret, retlen, "infiniband");
	else
		(void)snprintf(ret, retlen, "%.*s", (int)dev_n, dev);
	return 1;
}

struct dump_ctx {
	int ifindex;
	struct rq_rdma_dev *dev; /* port dump: the match */
	uint32_t *idx;		 /* device dump: indices */
	size_t max, n;
	int found;
};

static int dump_msg(const struct nlmsghdr *h, size_t len, void *arg)
{
	struct dump_ctx *d = arg;
	struct nlattr *tb[RDMA_NLDEV_ATTR_NDEV_INDEX + 1];

	if (d->idx) {
		/* a device whose message is broken says nothing about ours */
		if (nlparse_msg(h, len, 0, tb, RDMA_NLDEV_ATTR_NDEV_INDEX, rdma_nl_dev_policy) ==
			0 &&
		    tb[RDMA_NLDEV_ATTR_DEV_INDEX] && d->n < d->max)
			d->idx[d->n++] = nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	} else if (!d->found && rdma_nl_parse_port(h, len, d->ifindex, d->dev) == 1) {
		d->found = 1;
	}
	return 0;
}

int rdma_find_by_ifindex(int ifindex, struct rq_rdma_dev *ret)
{
	uint32_t idx[64];
	struct rq_rdma_dev dev;
	struct dump_ctx devs = {.idx = idx, .max = 64};
	struct nl_sock *sk = NULL;
	int rr;

	if (ifindex <= 0)
		return -EINVAL;
	rr = rdma_nl_open(&sk);
	if (rr < 0)
		return rr;
	rr = rdma_nl_dump(sk, RDMA_NLDEV_CMD_GET, -1, dump_msg, &devs);
	for (size_t i = 0; rr == 0 && i < devs.n; i++) {
		struct dump_ctx ports = {.ifindex = ifindex, .dev = &dev};

		/* a device that vanished or cannot dump its ports says nothing about ours */
		if (rdma_nl_dump(sk, RDMA_NLDEV_CMD_PORT_GET, (int)idx[i], dump_msg, &ports) == 0 &&
		    ports.found) {
			nl_socket_free(sk);
			*ret = dev;
			return 0;
		}
	}
	nl_socket_free(sk);
	return rr < 0 ? rr : -ENOENT;
}

int rdma_netns_exclusive(const struct rq_root *r, bool *ret)
{
	char buf[16];
	int rr = sysfs_read_str(r, "/sys/module/ib_core/parameters/netns_mode", buf, sizeof(buf));

	*ret = false;
	if (rr == -ENOENT)
		return 0; /* no ib_core: no RDMA device is in any netns */
	if (rr < 0)
		return rr;
	/* a bool module parameter reads Y or N; 0 is accepted as written by hand */
	*ret = buf[0] == 'N' || buf[0] == 'n' || buf[0] == '0';
	return 0;
}
