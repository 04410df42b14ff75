/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The VF's RDMA device and its traffic-class knobs. A device may have two:
 * MOFED/DOCA's tc/<port>/traffic_class (every QP of the device) and the
 * kernel's configfs rdma_cm default_roce_tos (RDMA-CM connections only).
 * Both are written where both exist.
 */
#ifndef RQ_RDMA_H
#define RQ_RDMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pkg/cni/error.h"
#include "pkg/sysfs/sysfs.h"

enum rq_tos_knob { RQ_KNOB_MOFED = 0, RQ_KNOB_CONFIGFS, RQ_KNOB_N };

#define RQ_NETNS_PATH_MAX 256

struct rq_rdma_dev {
	char name[64]; /* "" when not found */
	int port;      /* 1-based */
	int n_ports;   /* entries of /sys/class/infiniband/<dev>/ports; 0 unknown */
	/*
	 * Exclusive RDMA netns mode, device moved into the pod: the pod netns
	 * path whose own sysfs shows the device (and MOFED's tc/). "" = the
	 * host's sysfs shows it.
	 */
	char netns[RQ_NETNS_PATH_MAX];
	bool has[RQ_KNOB_N];
	char path[RQ_KNOB_N][512]; /* absolute path (under the root, or in the pod's sysfs) */
};

/* "mofed" / "configfs": the names records, logs and `show` use. */
const char *rdma_knob_name(enum rq_tos_knob k);
/* The knob named @s, or -1. */
int rdma_knob_parse(const char *s);

/* /sys/bus/pci/devices/<pci>/infiniband/<dev>; -ENOENT when the VF has none. */
int rdma_find_by_pci(const struct rq_root *r, const char *pci, struct rq_rdma_dev *ret);
/*
 * The parent device of the RDMA device named @name in the host's sysfs (the
 * basename of /sys/class/infiniband/<name>/device: a PCI address for mlx5).
 * A name is not an identity: after a driver reload it may be another VF's
 * device. A device without a parent (rxe) answers through the netdev of its
 * first GID. -ENOENT: no such device here, or nothing tells.
 */
int rdma_dev_pci(const struct rq_root *r, const char *name, char *buf, size_t len);
/*
 * RDMA netlink port dump in the current netns, matching RDMA_NLDEV_ATTR_NDEV_INDEX.
 * The kernel reports a port's netdev index only to a socket in the netdev's
 * own netns, so @ifindex must come from the netns this is called in.
 */
int rdma_find_by_ifindex(int ifindex, struct rq_rdma_dev *ret);
/*
 * The kernel's RDMA netns mode: ib_core's netns_mode parameter ("N" =
 * exclusive; `rdma system set netns` changes it at run time). *ret false when
 * ib_core is not loaded.
 */
int rdma_netns_exclusive(const struct rq_root *r, bool *ret);

/*
 * Which knobs the device has: MOFED tc/<port>/traffic_class (read through the
 * pod's sysfs when dev->netns is set), configfs rdma_cm/<dev> (mkdir <dev>
 * first when @create; `show` passes false and creates nothing). Errors with
 * @e (RQ_ERR_NO_TOS) when neither exists, saying configfs is not mounted or
 * rdma_cm is not loaded.
 */
int rdma_tos_locate(const struct rq_root *r, struct rq_rdma_dev *dev, bool create,
		    struct rq_error *e);
/*
 * Parse a knob's text: a number 0..255, or MOFED's format, where only a
 * "Global tclass=<n>" line is the device-wide value (other lines are
 * per-destination rules, "dst_ip=.../24,tclass=<n>") and no such line means
 * unset. Unset (and "-1") gives *ret = -1. Anything else is -EINVAL.
 */
int rdma_tos_parse(const char *s, int *ret);
struct nlmsghdr;
/* One PORT_GET reply: 1 (match, *ret filled), 0 (other port), -EBADMSG. */
int rdma_nl_parse_port(const struct nlmsghdr *nlh, size_t len, int ifindex,
		       struct rq_rdma_dev *ret);
/*
 * One message of RDMA netlink's notify group (RDMA_NLDEV_CMD_MONITOR: a
 * device registered or went, a netdev attached or detached): 1 and @buf the
 * device it is about (its name, else "rdma dev <index>", else "rdma"); 0 for
 * netlink's own control messages; -EBADMSG when malformed.
 */
int rdma_nl_parse_event(const struct nlmsghdr *nlh, size_t len, char *buf, size_t buflen);
/*
 * One kobject uevent ("add@/devices/...\0ACTION=add\0...SUBSYSTEM=infiniband\0",
 * @len bytes): 1 and @ret the device (DEVPATH's last component, else
 * "infiniband") when it is of the infiniband class, 0 otherwise.
 */
int rdma_uevent_dev(const char *buf, size_t len, char *ret, size_t retlen);
/* Read / write one knob. -1 is written only to MOFED's (it unsets the global class). */
int rdma_tos_read(const struct rq_root *r, const struct rq_rdma_dev *dev, enum rq_tos_knob k,
		  int *ret);
int rdma_tos_write(const struct rq_root *r, const struct rq_rdma_dev *dev, enum rq_tos_knob k,
		   int val);

/*
 * sysfs as seen from inside the network namespace at @netns: a short-lived
 * child unshares its mount namespace (mounts private), enters @netns, mounts
 * a sysfs there (sysfs shows the netns it was mounted in; setns alone does
 * not change what the host's /sys shows) and does one read or write. The
 * caller's mount namespace and netns are untouched. -ENOENT: no such file.
 */
int podsys_read(const char *netns, const char *path, char *buf, size_t len);
int podsys_write(const char *netns, const char *path, const char *val);
int podsys_exists(const char *netns, const char *path);
/* Every entry of directory @path as "name value\n" lines (first line of each file). */
int podsys_read_dir(const char *netns, const char *path, char *buf, size_t len);

/*
 * The device port's hw_counters (/sys/class/infiniband/<dev>/ports/<port>/
 * hw_counters), read through the pod's sysfs when @netns is not NULL or ""
 * (exclusive RDMA netns mode: only the pod's netns shows the device).
 * "lifespan" is the kernel's cache setting, not a counter: left out; so is
 * any entry that is not a number. -ENOENT: no such directory (a driver
 * without hw_counters, or the device is gone).
 */
#define RQ_RDMA_CTR_NAME 48
struct rdma_counters {
	size_t n;
	char (*names)[RQ_RDMA_CTR_NAME];
	uint64_t *vals;
};
int rdma_counters_read(const struct rq_root *r, const char *netns, const char *dev, int port,
		       struct rdma_counters *ret);
void rdma_counters_fini(struct rdma_counters *c);
/*
 * The same for a reader that comes back (the agent): each device port's
 * counter files stay open in @c and are read again with pread at offset 0
 * (sysfs makes the text afresh at every read from 0), one syscall per
 * counter instead of three and no directory walk. A failed read (the device
 * went away: kernfs answers -ENODEV) drops the entry and reads afresh; the
 * directory is listed again every RQ_CTR_RELIST_S. Entries not read since
 * the last rdma_ctr_cache_sweep are closed by it. Past @max_fds cached files
 * it reads as rdma_counters_read does. Not for @netns reads (pod sysfs).
 */
#define RQ_CTR_RELIST_S 60
struct rdma_ctr_cache;
int rdma_ctr_cache_new(size_t max_fds, struct rdma_ctr_cache **ret);
void rdma_ctr_cache_free(struct rdma_ctr_cache *c);
/*
 * @on: keep open (and read) only the files rdma_counter_classify knows (not
 * RC_OTHER); the others are never opened. Takes effect at each device's next
 * listing (set it before the first read).
 */
void rdma_ctr_cache_known_only(struct rdma_ctr_cache *c, bool on);
void rdma_ctr_cache_sweep(struct rdma_ctr_cache *c);
int rdma_counters_read_cached(struct rdma_ctr_cache *c, const struct rq_root *r, const char *dev,
			      int port, struct rdma_counters *ret);
/* Parse "name value\n" lines into @ret (what podsys_read_dir answers). */
int rdma_counters_parse(const char *text, struct rdma_counters *ret);

/*
 * What a hw_counters entry means (DESIGN.md "Congestion telemetry"): mlx5's
 * congestion counters; RC_RETRANS the requester-side retransmission triggers
 * of mlx5 and rxe (this device as a sender had to resend); RC_OUT_OF_SEQ the
 * responder's PSN gaps (counted per packet: one loss at line rate counts
 * thousands, so it is not a retransmission count); rxe's packets;
 * RC_OTHER: any other counter of the device. *ret_dir: 0 rx, 1 tx
 * (RC_PACKETS, RC_BYTES).
 */
enum rdma_ctr {
	RC_CNP_SENT = 0,
	RC_CNP_HANDLED,
	RC_ECN_MARKED,
	RC_RETRANS,
	RC_PACKETS,
	RC_BYTES,
	RC_OUT_OF_SEQ,
	RC_OTHER,
};
enum rdma_ctr rdma_counter_classify(const char *name, int *ret_dir);
/*
 * The width of counter @name: 32 for mlx5's Q-counters (mlx5_ib_query_q_counters
 * reads 32-bit fields), 64 for its congestion counters, rxe's (atomic64) and
 * the vport ones.
 */
int rdma_counter_bits(const char *name);
/*
 * A counter's increase from @prev to @cur. A @bits = 32 counter that went
 * down from above 2^31 wrapped; any other decrease is a reset (the device
 * re-registered): the increase is then @cur.
 */
uint64_t rdma_counter_delta(uint64_t prev, uint64_t cur, int bits);

#endif
