// SPDX-License-Identifier: Apache-2.0
/* The VF's RDMA device (sysfs, else RDMA netlink) and its ToS interface. */
#include "pkg/rdma/rdma.h"

#include <errno.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

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

/*
 * One RDMA_NLDEV_CMD_PORT_GET reply message: 1 and *ret filled when its
 * netdev index is @ifindex, 0 when it is another port, -EBADMSG when
 * malformed. Pure, so tests feed it hand-built buffers.
 */
int rdma_nl_parse_port(const struct nlmsghdr *nlh, size_t len, int ifindex, struct rq_rdma_dev *ret)
{
	const struct nlattr *a;
	size_t off = NLMSG_HDRLEN;
	const char *name = NULL;
	size_t name_len = 0;
	int port = -1, ndev = -1;

	if (len < NLMSG_HDRLEN || nlh->nlmsg_len > len || nlh->nlmsg_len < NLMSG_HDRLEN)
		return -EBADMSG;
	while (off + NLA_HDRLEN <= nlh->nlmsg_len) {
		size_t alen, plen;
		const char *payload;

		a = (const struct nlattr *)((const char *)nlh + off);
		alen = a->nla_len;
		if (alen < NLA_HDRLEN || off + alen > nlh->nlmsg_len)
			return -EBADMSG;
		payload = (const char *)a + NLA_HDRLEN;
		plen = alen - NLA_HDRLEN;
		switch (a->nla_type & NLA_TYPE_MASK) {
		case RDMA_NLDEV_ATTR_DEV_NAME:
			/* a NUL-terminated, non-empty name (found by fuzz-kubelet: "" matched) */
			if (plen == 0 || memchr(payload, '\0', plen) == NULL || payload[0] == '\0')
				return -EBADMSG;
			name = payload;
			name_len = strlen(payload);
			break;
		case RDMA_NLDEV_ATTR_PORT_INDEX:
			if (plen < 4)
				return -EBADMSG;
			memcpy(&port, payload, 4);
			break;
		case RDMA_NLDEV_ATTR_NDEV_INDEX:
			if (plen < 4)
				return -EBADMSG;
			memcpy(&ndev, payload, 4);
			break;
		default:
			break;
		}
		off += NLA_ALIGN(alen);
	}
	if (ndev != ifindex || !name || port < 1)
		return 0;
	if (name_len >= sizeof(ret->name))
		return -EBADMSG;
	memset(ret, 0, sizeof(*ret));
	memcpy(ret->name, name, name_len + 1);
	ret->port = port;
	return 1;
}

/* Device indices from one RDMA_NLDEV_CMD_GET reply message. */
static void collect_dev_index(const struct nlmsghdr *h, uint32_t *idx, size_t max, size_t *n)
{
	size_t off = NLMSG_HDRLEN;

	while (off + NLA_HDRLEN <= h->nlmsg_len) {
		const struct nlattr *a = (const struct nlattr *)((const char *)h + off);

		if (a->nla_len < NLA_HDRLEN || off + a->nla_len > h->nlmsg_len)
			return;
		if ((a->nla_type & NLA_TYPE_MASK) == RDMA_NLDEV_ATTR_DEV_INDEX &&
		    a->nla_len >= NLA_HDRLEN + 4 && *n < max) {
			memcpy(&idx[*n], (const char *)a + NLA_HDRLEN, 4);
			(*n)++;
			return;
		}
		off += NLA_ALIGN(a->nla_len);
	}
}

struct dump_ctx {
	int ifindex;
	struct rq_rdma_dev *dev; /* port dump: the match */
	uint32_t *idx;		 /* device dump: indices */
	size_t max, n;
	int found;
};

static int nl_dump(int fd, uint16_t cmd, int dev_index, struct dump_ctx *d)
{
	struct {
		struct nlmsghdr h;
		struct nlattr a;
		uint32_t v;
	} req;
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
	char buf[16384];

	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = NLMSG_LENGTH(0);
	req.h.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.h.nlmsg_seq = (uint32_t)cmd;
	if (dev_index >= 0) {
		/* the kernel's port dump wants the device it is about */
		req.a.nla_type = RDMA_NLDEV_ATTR_DEV_INDEX;
		req.a.nla_len = NLA_HDRLEN + 4;
		req.v = (uint32_t)dev_index;
		req.h.nlmsg_len = NLMSG_LENGTH(NLA_HDRLEN + 4);
	}
	if (sendto(fd, &req, req.h.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h;
		size_t left;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : 0;
		left = (size_t)n;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *err = NLMSG_DATA(h);

				return h->nlmsg_len >= NLMSG_LENGTH(sizeof(*err)) ? err->error
										  : -EIO;
			}
			if (d->idx)
				collect_dev_index(h, d->idx, d->max, &d->n);
			else if (!d->found &&
				 rdma_nl_parse_port(h, h->nlmsg_len, d->ifindex, d->dev) == 1)
				d->found = 1;
		}
	}
}

int rdma_find_by_ifindex(int ifindex, struct rq_rdma_dev *ret)
{
	uint32_t idx[64];
	struct rq_rdma_dev dev;
	struct dump_ctx devs = {.idx = idx, .max = 64};
	struct timeval tmo = {.tv_sec = 5};
	int fd, rr;

	if (ifindex <= 0)
		return -EINVAL;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	if (fd < 0)
		return -errno;
	/* a CNI ADD must not hang on a kernel that never finishes a dump: bound every recv */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo)) < 0) {
		rr = -errno;
		close(fd);
		return rr;
	}
	rr = nl_dump(fd, RDMA_NLDEV_CMD_GET, -1, &devs);
	for (size_t i = 0; rr == 0 && i < devs.n; i++) {
		struct dump_ctx ports = {.ifindex = ifindex, .dev = &dev};

		/* a device that vanished or cannot dump its ports says nothing about ours */
		if (nl_dump(fd, RDMA_NLDEV_CMD_PORT_GET, (int)idx[i], &ports) == 0 && ports.found) {
			close(fd);
			*ret = dev;
			return 0;
		}
	}
	close(fd);
	return rr < 0 ? rr : -ENOENT;
}

int rdma_tos_locate(const struct rq_root *r, struct rq_rdma_dev *dev, struct rq_error *e)
{
	char path[512];
	int rr;

	(void)snprintf(path, sizeof(path), "/sys/class/infiniband/%s/tc/%d/traffic_class",
		       dev->name, dev->port);
	if (sysfs_exists(r, path)) {
		dev->tos_kind = RQ_TOS_MOFED;
		(void)snprintf(dev->tos_path, sizeof(dev->tos_path), "%s", path);
		return 0;
	}
	if (!sysfs_exists(r, "/sys/kernel/config/rdma_cm")) {
		char **names = NULL;
		size_t n = 0;
		bool mounted = sysfs_list(r, "/sys/kernel/config", &names, &n) == 0 && n > 0;

		sysfs_list_free(names, n);
		return rq_err(e, RQ_ERR_NO_TOS, -ENOENT,
			      "RDMA device %s has no traffic-class interface: %s", dev->name,
			      mounted ? "rdma_cm is not loaded (modprobe rdma_cm)"
				      : "configfs is not mounted at /sys/kernel/config");
	}
	(void)snprintf(path, sizeof(path), "/sys/kernel/config/rdma_cm/%s", dev->name);
	/* configfs creates ports/<n>/default_roce_tos when the directory is made */
	rr = sysfs_exists(r, path) ? 0 : sysfs_mkdir(r, path, 0755);
	if (rr < 0 && rr != -EEXIST)
		return rq_err(e, RQ_ERR_NO_TOS, rr, "mkdir %s: %s", path, strerror(-rr));
	(void)snprintf(path, sizeof(path),
		       "/sys/kernel/config/rdma_cm/%s/ports/%d/default_roce_tos", dev->name,
		       dev->port);
	if (!sysfs_exists(r, path))
		return rq_err(e, RQ_ERR_NO_TOS, -ENOENT, "%s does not exist (port %d of %s)", path,
			      dev->port, dev->name);
	dev->tos_kind = RQ_TOS_CONFIGFS;
	(void)snprintf(dev->tos_path, sizeof(dev->tos_path), "%s", path);
	return 0;
}

/* MOFED's file reads "Global tclass=<n>", or nothing while unset (-1). */
int rdma_tos_parse(const char *s, int *ret)
{
	const char *p = strstr(s, "tclass=");
	char *end;
	long v;

	p = p ? p + 7 : s;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '\n') {
		*ret = -1;
		return 0;
	}
	v = strtol(p, &end, 10);
	if (end == p || v < -1 || v > 255 || (*end && *end != '\n' && *end != ' '))
		return -EINVAL;
	*ret = (int)v;
	return 0;
}

int rdma_tos_read(const struct rq_root *r, const struct rq_rdma_dev *dev, int *ret)
{
	char buf[128];
	int rr = sysfs_read_str(r, dev->tos_path, buf, sizeof(buf));

	if (rr < 0)
		return rr;
	return rdma_tos_parse(buf, ret);
}

int rdma_tos_write(const struct rq_root *r, const struct rq_rdma_dev *dev, int val)
{
	char buf[16];

	if (val < 0 || val > 255)
		return -ERANGE;
	(void)snprintf(buf, sizeof(buf), "%d", val);
	return sysfs_write_str(r, dev->tos_path, buf);
}
