/* SPDX-License-Identifier: Apache-2.0 */
/* Network namespace helpers. "Gone" is -ENOENT so DEL can treat it as success. */
#ifndef RQ_NETNS_H
#define RQ_NETNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Open a CNI_NETNS path and check it is a netns (nsfs or /proc/<pid>/ns/net).
 * -ENOENT: gone; -EINVAL: not a network namespace. */
int netns_open(const char *path, int *ret_fd);
/* setns into @fd; *ret_saved is an fd of the current netns to come back to. */
int netns_enter(int fd, int *ret_saved);
/* setns back to @saved and close it. */
int netns_return(int saved);
/* netns_open(@path) and netns_enter it (the path's fd closed again). */
int netns_enter_path(const char *path, int *ret_saved);

/*
 * A netns as an attachment record has it (resolve.c): the CNI_NETNS path, the
 * PID namespace the plugin ran in ("pid:[N]"; NULL or "": the initial one)
 * and the nsfs file's identity at ADD (ino 0: not recorded, records of 0.2.0);
 * for a /proc/<pid>/... path also the start time of that process (0: none).
 */
struct netns_rec {
	const char *path;
	const char *pidns;
	uint64_t dev, ino;
	uint64_t pid_start;
};
/*
 * Where this process finds @n: the path itself, or a /proc/<pid>/... path of
 * another PID namespace through @host_proc (the host's /proc as mounted here;
 * NULL: none). -EREMOTE: it cannot be told from here (another PID namespace
 * without a usable @host_proc, the directory of a bind-mount target not
 * mounted here, /proc/self/...); -ENOENT: no path.
 */
int netns_locate(const struct netns_rec *n, const char *host_proc, char *buf, size_t len);
/*
 * netns_locate, open, and check the identity: -ESTALE when the netns there is
 * not the recorded one, or the process of a /proc/<pid> path is not (a PID
 * reused after a lost DEL: nsfs inode numbers are reused too), -ENOENT / -EINVAL as
 * netns_open (gone). @ret_path (may be NULL) gets the located path, @ret_fd
 * (may be NULL) the open netns.
 */
int netns_open_rec(const struct netns_rec *n, const char *host_proc, char *ret_path, size_t len,
		   int *ret_fd);
/* The nsfs identity (st_dev, st_ino) of an open netns. */
int netns_identity(int fd, uint64_t *ret_dev, uint64_t *ret_ino);
/*
 * The start time (clock ticks after boot, /proc/<pid>/stat field 22) of the
 * process a /proc/<pid>/... @path names, read under @proc ("/proc", or the
 * host's as mounted here). -EINVAL: not such a path; -ENOENT: no such process.
 */
int netns_pid_start(const char *proc, const char *path, uint64_t *ret);

/*
 * Inside the current netns: the PCI address of the device behind @ifname,
 * from IFLA_PARENT_DEV_NAME (bus "pci"), else ethtool bus-info. Returns
 * the link's ifindex (> 0, from the same RTM_GETLINK reply);
 * -ENODEV: no such link; -ENOENT: no PCI parent. @ret_ifindex (may be
 * NULL): the link's ifindex from that reply whenever it named the link.
 */
int netns_link_pci(const char *ifname, char *buf, size_t len, int *ret_ifindex);
/* ifindex of @ifname in the current netns or -ENODEV */
int netns_link_ifindex(const char *ifname);
/* IFLA_IFALIAS of @ifname in the current netns ("" when it has none); returns its ifindex (> 0). */
int netns_link_alias(const char *ifname, char *buf, size_t len);
/*
 * The link name of one RTM_NEWLINK / RTM_DELLINK message (@len bytes
 * readable at @h): 1 and @buf filled, 0 when it names no link, -EBADMSG when
 * malformed (IFLA_IFNAME without its NUL or over IFNAMSIZ included),
 * -ENAMETOOLONG when @buf is too small.
 */
struct nlmsghdr;
int netns_link_msg_ifname(const struct nlmsghdr *h, size_t len, char *buf, size_t buflen);
/*
 * The PCI parent (IFLA_PARENT_DEV_NAME on bus "pci", kernels >= 5.16) of the
 * link of one RTM_NEWLINK / RTM_DELLINK: 1 and @buf filled, 0 when it names
 * none, -EBADMSG when malformed, -ENAMETOOLONG when @buf is too small.
 */
int netns_link_msg_parent_pci(const struct nlmsghdr *h, size_t len, char *buf, size_t buflen);
/*
 * The MACs the PF @ifname reports for its VFs (IFLA_VFINFO_LIST's IFLA_VF_MAC,
 * all-zero ones skipped), at most @max into @ret: their number, 0 for a link
 * without VFs, -ENODEV without such a link. netns_link_msg_vf_macs does the
 * same for one RTM_NEWLINK message (-EBADMSG when malformed).
 */
int netns_link_vf_macs(const char *ifname, uint8_t (*ret)[6], size_t max);
/*
 * How many of the PF @ifname's VFs have a VST VLAN (IFLA_VF_VLAN's vlan not
 * 0: the eswitch tags their frames on the wire), -ENODEV without such a link.
 * netns_link_msg_vf_vlans does the same for one RTM_NEWLINK (-EBADMSG).
 */
int netns_link_vf_vlans(const char *ifname);
int netns_link_msg_vf_vlans(const struct nlmsghdr *h, size_t len);
/*
 * The current MAC of @ifname in the current netns (SIOCGIFHWADDR on a socket
 * made here, so in this netns): 0 and @ret, -ENODEV without such a link.
 */
int netns_link_mac(const char *ifname, uint8_t ret[6]);
int netns_link_msg_vf_macs(const struct nlmsghdr *h, size_t len, uint8_t (*ret)[6], size_t max);

/*
 * The device under a pod's macvlan / ipvlan (DESIGN.md "Shared RDMA devices",
 * lower.c). The parsing halves work on one message each:
 * netns_link_msg_desc on an RTM_NEWLINK (-EBADMSG when malformed),
 * netns_nsid_msg on an RTM_NEWNSID (NETNSA_NSID; -1 is "not assigned";
 * -EBADMSG when malformed or without it).
 */
struct netns_link_desc {
	int ifindex;
	char ifname[16];
	char kind[16]; /* IFLA_LINKINFO's IFLA_INFO_KIND ("macvlan", "vlan"), "" none */
	int link;      /* IFLA_LINK: the lower device's ifindex, 0 none */
	bool link_netnsid_set;
	int32_t link_netnsid; /* IFLA_LINK_NETNSID: the lower's netns as this link's numbers it */
};
int netns_link_msg_desc(const struct nlmsghdr *h, size_t len, struct netns_link_desc *ret);
int netns_nsid_msg(const struct nlmsghdr *h, size_t len, int32_t *ret);

#define NETNS_LOWER_MAX 8
struct netns_lower {
	char kind[16]; /* the pod interface's kind ("macvlan", "ipvlan", "veth", ...) */
	size_t n;      /* devices in the host netns, from the first lower to the real device */
	struct {
		int ifindex;
		char ifname[16];
		char kind[16];
	} dev[NETNS_LOWER_MAX];
	/* -EXDEV: the netns holding the lower device, as the netns of the link above it numbers
	 * it (IFLA_LINK_NETNSID); -1 otherwise */
	int32_t other_nsid;
};
/*
 * From @ifname in the netns @pod_fd, its lower device in the netns @host_fd:
 * the link's IFLA_LINK, in the netns IFLA_LINK_NETNSID names (RTM_GETNSID of
 * @host_fd asked in the pod's netns must give the same id), then VLAN devices
 * (kind "vlan") down through their IFLA_LINK to the real device, the last of
 * @ret->dev. A VLAN inside the pod over its macvlan or ipvlan is walked
 * through both; any other device in the pod ends the walk there (-ENOENT).
 * Neither caller's netns changes. -ENODEV: no such link in the pod;
 * -ENOENT: it has no lower device in the host netns (lo, a NIC moved in);
 * -EXDEV: the lower device is in another netns (@ret->other_nsid); -ELOOP:
 * more than NETNS_LOWER_MAX devices. @host_fd -1: the caller's own netns
 * (which is not the pod's), asked for by this process's PID: no netns is
 * opened or entered for it.
 */
int netns_link_lower(int pod_fd, const char *ifname, int host_fd, struct netns_lower *ret);
/*
 * The same walk from a socket the caller made inside the pod's netns
 * (netns_rtnl_socket, while it was there: no netns entered again); the host
 * is the caller's own netns. @pod_sk stays the caller's to close.
 */
int netns_link_lower_sk(int pod_sk, const char *ifname, struct netns_lower *ret);
/* An rtnetlink socket in the current netns (for netns_link_lower_sk), or -errno. */
int netns_rtnl_socket(void);
/*
 * The walk itself over a seam: @getlink answers RTM_GETLINK in the pod's
 * (@host false) or the host's netns, by @ifindex or (0) by @ifname
 * (-ENODEV: no such link); @host_nsid the id the pod's netns has for the
 * host's (-1 none). @same: the pod's netns is the host's.
 */
struct netns_lower_ops {
	int (*getlink)(void *ctx, bool host, int ifindex, const char *ifname,
		       struct netns_link_desc *ret);
	int (*host_nsid)(void *ctx, int32_t *ret);
};
int netns_lower_walk(const struct netns_lower_ops *ops, void *ctx, bool same, const char *ifname,
		     struct netns_lower *ret);

#endif
