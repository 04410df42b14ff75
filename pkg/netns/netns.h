/* SPDX-License-Identifier: Apache-2.0 */
/* Network namespace helpers. "Gone" is -ENOENT so DEL can treat it as success. */
#ifndef RQ_NETNS_H
#define RQ_NETNS_H

#include <stddef.h>

/* Open a CNI_NETNS path and check it is a netns (nsfs or /proc/<pid>/ns/net).
 * -ENOENT: gone; -EINVAL: not a network namespace. */
int netns_open(const char *path, int *ret_fd);
/* setns into @fd; *ret_saved is an fd of the current netns to come back to. */
int netns_enter(int fd, int *ret_saved);
/* setns back to @saved and close it. */
int netns_return(int saved);

/*
 * Inside the current netns: the PCI address of the device behind @ifname,
 * from IFLA_PARENT_DEV_NAME (bus "pci"), else ethtool bus-info.
 * -ENODEV: no such link; -ENOENT: no PCI parent.
 */
int netns_link_pci(const char *ifname, char *buf, size_t len);
/* ifindex of @ifname in the current netns or -ENODEV */
int netns_link_ifindex(const char *ifname);
/* IFLA_IFALIAS of @ifname in the current netns ("" when it has none). */
int netns_link_alias(const char *ifname, char *buf, size_t len);
/*
 * The link name of one RTM_NEWLINK / RTM_DELLINK message (@len bytes
 * readable at @h): 1 and @buf filled, 0 when it names no link, -EBADMSG when
 * malformed (IFLA_IFNAME without its NUL or over IFNAMSIZ included),
 * -ENAMETOOLONG when @buf is too small.
 */
struct nlmsghdr;
int netns_link_msg_ifname(const struct nlmsghdr *h, size_t len, char *buf, size_t buflen);

#endif
