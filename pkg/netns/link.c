// SPDX-License-Identifier: Apache-2.0
/*
 * Inside a pod netns, the PCI device behind an interface: /sys of the host
 * does not show the moved netdev, so ask the kernel: rtnetlink's
 * IFLA_PARENT_DEV_NAME (kernels >= 5.16), else ethtool's bus-info.
 */
#include "pkg/netns/netns.h"
#include "pkg/netns/rtnl.h"
#include "pkg/nlparse/nlparse.h"
#include "pkg/sysfs/sysfs.h"

#include <errno.h>
#include <stdbool.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef IFLA_PARENT_DEV_NAME
#define IFLA_PARENT_DEV_NAME	 56
#define IFLA_PARENT_DEV_BUS_NAME 57
#endif
/* parse up to the parent-device attributes even where the headers predate them */
#define LINK_ATTR_MAX (IFLA_MAX > IFLA_PARENT_DEV_BUS_NAME ? IFLA_MAX : IFLA_PARENT_DEV_BUS_NAME)

int netns_link_ifindex(const char *ifname)
{
	unsigned idx = if_nametoindex(ifname);

	return idx ? (int)idx : -ENODEV;
}

struct parent_ctx {
	int ifindex; /* the reply's ifi_index: no ifindex lookup of its own (a socket, an ioctl) */
	char name[64];
	char bus[16];
	char alias[64];
};

/* the strings read from an RTM_NEWLINK: NUL-terminated, or the message is refused */
static const struct nla_policy link_policy[LINK_ATTR_MAX + 1] = {
    [IFLA_IFNAME] = {.type = NLA_STRING, .maxlen = IFNAMSIZ},
    [IFLA_IFALIAS] = {.type = NLA_STRING},
    [IFLA_PARENT_DEV_NAME] = {.type = NLA_STRING},
    [IFLA_PARENT_DEV_BUS_NAME] = {.type = NLA_STRING},
};

int netns_link_msg_ifname(const struct nlmsghdr *h, size_t len, char *buf, size_t buflen)
{
	struct nlattr *tb[LINK_ATTR_MAX + 1];
	int r = nlparse_msg(h, len, sizeof(struct ifinfomsg), tb, LINK_ATTR_MAX, link_policy);

	if (r < 0)
		return r;
	if (!tb[IFLA_IFNAME] || !nla_get_string(tb[IFLA_IFNAME])[0])
		return 0;
	if (strlen(nla_get_string(tb[IFLA_IFNAME])) >= buflen)
		return -ENAMETOOLONG;
	(void)snprintf(buf, buflen, "%s", nla_get_string(tb[IFLA_IFNAME]));
	return 1;
}

int netns_link_msg_parent_pci(const struct nlmsghdr *h, size_t len, char *buf, size_t buflen)
{
	struct nlattr *tb[LINK_ATTR_MAX + 1];
	int r = nlparse_msg(h, len, sizeof(struct ifinfomsg), tb, LINK_ATTR_MAX, link_policy);
	const char *name;

	if (r < 0)
		return r;
	if (!tb[IFLA_PARENT_DEV_NAME] || !tb[IFLA_PARENT_DEV_BUS_NAME] ||
	    strcmp(nla_get_string(tb[IFLA_PARENT_DEV_BUS_NAME]), "pci") != 0)
		return 0;
	name = nla_get_string(tb[IFLA_PARENT_DEV_NAME]);
	if (!sysfs_pci_valid(name))
		return 0;
	if (strlen(name) >= buflen)
		return -ENAMETOOLONG;
	(void)snprintf(buf, buflen, "%s", name);
	return 1;
}

static int parent_parse(const struct nlmsghdr *h, size_t len, void *arg)
{
	struct parent_ctx *p = arg;
	struct nlattr *tb[LINK_ATTR_MAX + 1];

	if (h->nlmsg_type != RTM_NEWLINK ||
	    nlparse_msg(h, len, sizeof(struct ifinfomsg), tb, LINK_ATTR_MAX, link_policy) < 0)
		return -EBADMSG;
	p->ifindex = ((const struct ifinfomsg *)nlmsg_data(h))->ifi_index;
	if (tb[IFLA_IFALIAS])
		nla_strlcpy(p->alias, tb[IFLA_IFALIAS], sizeof(p->alias));
	if (tb[IFLA_PARENT_DEV_NAME])
		nla_strlcpy(p->name, tb[IFLA_PARENT_DEV_NAME], sizeof(p->name));
	if (tb[IFLA_PARENT_DEV_BUS_NAME])
		nla_strlcpy(p->bus, tb[IFLA_PARENT_DEV_BUS_NAME], sizeof(p->bus));
	return 0;
}

/*
 * One link's RTM_GETLINK by name in the current netns on a bare socket
 * (pkg/netns/rtnl.c: socket, send, receive, close; libnl's nl_connect added
 * setsockopt twice, getpid, bind and getsockname to every ADD), its reply to
 * @parse. -ENODEV: no such link.
 */
static int getlink_by_name(const char *ifname, uint32_t ext_mask,
			   int (*parse)(const struct nlmsghdr *, size_t, void *), void *arg)
{
	int sk = rtnl_socket_in(-1), r;

	if (sk < 0)
		return sk;
	r = rtnl_ask_link(sk, 0, ifname, ext_mask, parse, arg);
	close(sk);
	return r;
}

static int parent_rtnl(const char *ifname, struct parent_ctx *p)
{
	int r = getlink_by_name(ifname, RTNL_LINK_MASK, parent_parse, p);

	if (r == 0 && p->ifindex <= 0)
		r = -EBADMSG; /* an answer without the link */
	return r;
}

static int bus_info_ethtool(const char *ifname, char *buf, size_t len)
{
	struct ethtool_drvinfo info = {.cmd = ETHTOOL_GDRVINFO};
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), r = 0;

	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	(void)snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&info;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		r = -errno;
	close(fd);
	/* a link without ethtool ops (lo, some virtual ones) has no PCI parent either */
	if (r == -EOPNOTSUPP || r == -EINVAL)
		return -ENOENT;
	if (r < 0)
		return r;
	/* bus_info is a fixed array the driver may fill to the end */
	info.bus_info[sizeof(info.bus_info) - 1] = '\0';
	if (!sysfs_pci_valid(info.bus_info))
		return -ENOENT;
	if (strlen(info.bus_info) >= len)
		return -ENAMETOOLONG;
	(void)snprintf(buf, len, "%s", info.bus_info);
	return 0;
}

int netns_link_alias(const char *ifname, char *buf, size_t len)
{
	struct parent_ctx p;
	int r;

	memset(&p, 0, sizeof(p));
	r = parent_rtnl(ifname, &p);
	if (r < 0)
		return r;
	if (strlen(p.alias) >= len)
		return -ENAMETOOLONG;
	(void)snprintf(buf, len, "%s", p.alias);
	return p.ifindex;
}

int netns_link_pci(const char *ifname, char *buf, size_t len, int *ret_ifindex)
{
	struct parent_ctx p;
	int r;

	memset(&p, 0, sizeof(p));
	r = parent_rtnl(ifname, &p);
	if (r == -ENODEV)
		return r;
	if (r == 0 && ret_ifindex && p.ifindex > 0)
		*ret_ifindex = p.ifindex;
	if (r == 0 && !strcmp(p.bus, "pci") && sysfs_pci_valid(p.name)) {
		if (strlen(p.name) >= len)
			return -ENAMETOOLONG;
		(void)snprintf(buf, len, "%s", p.name);
		return p.ifindex;
	}
	r = bus_info_ethtool(ifname, buf, len);
	/* an old kernel (no parent attributes, or no answer by name): the index asked apart */
	return r < 0 ? r : p.ifindex > 0 ? p.ifindex : netns_link_ifindex(ifname);
}

/*
 * The VFs' MACs as the PF reports them (IFLA_VFINFO_LIST, asked for with
 * RTEXT_FILTER_VF): the MAC the PF set for each VF (`ip link set PF vf N mac`,
 * what sriov-cni sets and what the eswitch's spoof check enforces). A VF in a
 * pod's netns has no netdev in the host's sysfs; this is how the host knows
 * its MAC. An all-zero MAC (none set) is skipped.
 */

static const struct nla_policy vf_policy[IFLA_VF_MAX + 1] = {
    [IFLA_VF_MAC] = {.minlen = sizeof(struct ifla_vf_mac)},
    [IFLA_VF_VLAN] = {.minlen = sizeof(struct ifla_vf_vlan)},
};

/* @fn on each IFLA_VF_INFO of one RTM_NEWLINK's IFLA_VFINFO_LIST; -EBADMSG when malformed */
static int vf_each(const struct nlmsghdr *h, size_t len, void (*fn)(struct nlattr **vt, void *arg),
		   void *arg)
{
	struct nlattr *tb[LINK_ATTR_MAX + 1], *vf;
	int rem, r = nlparse_msg(h, len, sizeof(struct ifinfomsg), tb, LINK_ATTR_MAX, link_policy);

	if (r < 0)
		return r;
	if (!tb[IFLA_VFINFO_LIST])
		return 0;
	if (nlparse_nested(tb[IFLA_VFINFO_LIST], NULL, 0, NULL) < 0)
		return -EBADMSG;
	nla_for_each_nested(vf, tb[IFLA_VFINFO_LIST], rem)
	{
		struct nlattr *vt[IFLA_VF_MAX + 1];

		if (nla_type(vf) != IFLA_VF_INFO)
			continue;
		if (nlparse_nested(vf, vt, IFLA_VF_MAX, vf_policy) < 0)
			return -EBADMSG;
		fn(vt, arg);
	}
	return 0;
}

struct vfmac_ctx {
	uint8_t (*macs)[6];
	size_t max;
	int n;
};

static void vf_mac_one(struct nlattr **vt, void *arg)
{
	static const uint8_t zero[6];
	struct vfmac_ctx *c = arg;
	struct ifla_vf_mac m;

	if (!vt[IFLA_VF_MAC])
		return;
	memcpy(&m, nla_data(vt[IFLA_VF_MAC]), sizeof(m));
	if (!memcmp(m.mac, zero, sizeof(zero)) || (size_t)c->n >= c->max)
		return;
	memcpy(c->macs[c->n++], m.mac, 6);
}

int netns_link_msg_vf_macs(const struct nlmsghdr *h, size_t len, uint8_t (*ret)[6], size_t max)
{
	struct vfmac_ctx c = {.macs = ret, .max = max};
	int r = vf_each(h, len, vf_mac_one, &c);

	return r < 0 ? r : c.n;
}

/* a VST VLAN (IFLA_VF_VLAN's vlan, 802.1Q only; a QinQ IFLA_VF_VLAN_LIST counts by its first) */
static void vf_vlan_one(struct nlattr **vt, void *arg)
{
	struct ifla_vf_vlan v;

	if (!vt[IFLA_VF_VLAN])
		return;
	memcpy(&v, nla_data(vt[IFLA_VF_VLAN]), sizeof(v));
	*(int *)arg += v.vlan != 0;
}

int netns_link_msg_vf_vlans(const struct nlmsghdr *h, size_t len)
{
	int n = 0, r = vf_each(h, len, vf_vlan_one, &n);

	return r < 0 ? r : n;
}

static int vfmac_parse(const struct nlmsghdr *h, size_t len, void *arg)
{
	struct vfmac_ctx *c = arg;

	return netns_link_msg_vf_macs(h, len, c->macs, c->max);
}

static int vfvlan_parse(const struct nlmsghdr *h, size_t len, void *arg)
{
	(void)arg;
	return netns_link_msg_vf_vlans(h, len);
}

int netns_link_vf_vlans(const char *ifname)
{
	return getlink_by_name(ifname, RTNL_LINK_MASK | RTEXT_FILTER_VF, vfvlan_parse, NULL);
}

int netns_link_vf_macs(const char *ifname, uint8_t (*ret)[6], size_t max)
{
	struct vfmac_ctx c = {.macs = ret, .max = max};

	return getlink_by_name(ifname, RTNL_LINK_MASK | RTEXT_FILTER_VF, vfmac_parse, &c);
}

int netns_link_mac(const char *ifname, uint8_t ret[6])
{
	struct ifreq ifr = {0};
	int fd, r = 0;

	if (strlen(ifname) >= sizeof(ifr.ifr_name))
		return -ENODEV;
	(void)snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0)
		r = -errno;
	close(fd);
	if (r == 0)
		memcpy(ret, ifr.ifr_hwaddr.sa_data, 6);
	return r;
}
