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
