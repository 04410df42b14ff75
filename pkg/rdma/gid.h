/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A RoCE device port's GID table as sysfs shows it (DESIGN.md "Shared RDMA
 * devices"), and which entry belongs to an IP address. The kernel
 * (drivers/infiniband/core/sysfs.c) keeps one file per slot under
 * /sys/class/infiniband/<dev>/ports/<port>/: gids/<n> reads the zero GID
 * for an empty slot, gid_attrs/types/<n> ("RoCE v2", "IB/RoCE v1") and
 * gid_attrs/ndevs/<n> fail their read (ENODATA; ndevs EINVAL for an entry
 * without a netdev) for one. The kernel adds an entry for each address of
 * every upper device of the port's netdev, in any netns (a macvlan's in a
 * pod), asynchronously; every pod's netdev is "net1", so an entry is matched
 * by its address, never by its ndev.
 */
#ifndef RQ_GID_H
#define RQ_GID_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pkg/sysfs/sysfs.h"

enum rdma_gid_type {
	RDMA_GID_NONE = 0, /* no type readable: the slot emptied under the read */
	RDMA_GID_ROCE_V1,  /* "IB/RoCE v1" (also every GID of an InfiniBand port) */
	RDMA_GID_ROCE_V2,  /* "RoCE v2" */
	RDMA_GID_OTHER,	   /* a type this build does not know */
};

struct rdma_gid {
	int index;
	uint8_t gid[16];
	enum rdma_gid_type type;
	char ndev[IF_NAMESIZE]; /* "" when the entry has none (or it went) */
};

struct rdma_gid_table {
	size_t size;	    /* slots of the table (entries of gids/) */
	size_t n;	    /* valid (non-zero) entries, in @e by index */
	struct rdma_gid *e; /* malloc'd */
};

/* "RoCE v2" -> RDMA_GID_ROCE_V2 ...; "" -> RDMA_GID_NONE. */
enum rdma_gid_type rdma_gid_type_parse(const char *s);
/* "v1" / "v2" / "" / "other": the names records and `show` use. */
const char *rdma_gid_type_name(enum rdma_gid_type t);
/* A GID as gids/<n> prints it (%pI6: 8 groups of 4 hex digits) or any IPv6 spelling. -EINVAL. */
int rdma_gid_parse(const char *s, uint8_t ret[16]);
/* The %pI6 spelling sysfs uses (40 bytes with the NUL). */
void rdma_gid_format(const uint8_t gid[16], char buf[40]);
bool rdma_gid_is_zero(const uint8_t gid[16]);
/*
 * The GID the kernel makes for an address of @ip (prevResult's "10.0.0.5/24"
 * or "fd00::5/64", the prefix ignored): IPv4 as the IPv4-mapped
 * ::ffff:a.b.c.d, IPv6 as itself. -EINVAL: not an address;
 * -EADDRNOTAVAIL: one rdma-qos does not match (IPv6 not of global scope:
 * link-local, loopback, multicast, unspecified; IPv4 unspecified, loopback,
 * multicast, broadcast).
 */
int rdma_gid_from_ip(const char *ip, uint8_t ret[16]);

/*
 * Read the GID table of @dev's @port under @r. Empty slots (the zero GID)
 * are counted in size only; an entry whose type or ndev read fails with
 * ENODATA, EINVAL or ENOENT (it emptied under the read; an empty attribute
 * file in a simulated node) keeps RDMA_GID_NONE / "". -ENOENT: no such
 * device or port (or no gids/ directory: not a RoCE/IB port).
 */
int rdma_gid_table_read(const struct rq_root *r, const char *dev, int port,
			struct rdma_gid_table *ret);
void rdma_gid_table_fini(struct rdma_gid_table *t);

/*
 * One slot: its GID (the zero GID: empty) and type, no ndev. What a caller that knows
 * where an entry was (a repeated ADD, from its record) reads instead of the table.
 * -ENOENT: no such slot, device or port.
 */
int rdma_gid_slot_read(const struct rq_root *r, const char *dev, int port, int idx,
		       struct rdma_gid *ret);

struct rdma_gid_match {
	int v2, v1; /* the index of each entry for the address, -1 none */
};
/*
 * The entries of @t for the address @ip (rdma_gid_from_ip). 0: the RoCE v2
 * entry is there; -ENOENT: not (yet: the kernel adds them asynchronously);
 * -ENOSPC: not, and the table has no empty slot left (the kernel cannot add
 * it); @ret->v1 is filled either way. -EINVAL / -EADDRNOTAVAIL as
 * rdma_gid_from_ip.
 */
int rdma_gid_find(const struct rdma_gid_table *t, const char *ip, struct rdma_gid_match *ret);

#endif
