// SPDX-License-Identifier: Apache-2.0
/*
 * pkg/ethtool (port statistics: the ioctl on a real veth, the simulated
 * node's file, what mlx5's names mean) and pkg/rdma's hw_counters reader.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pkg/dcb/dcb.h"
#include "pkg/ethtool/ethtool.h"
#include "pkg/rdma/rdma.h"
#include "tests/simnode/simnode.h"

static struct simnode node;

static void teardown(void)
{
	sim_destroy(&node);
}

START_TEST(port_classify)
{
	struct port_stat_id id;

	ck_assert_int_eq(ethtool_port_classify("rx_prio3_pause", &id), 0);
	ck_assert(id.kind == PS_PAUSE_FRAMES && id.prio == 3 && id.dir == 0);
	ck_assert_int_eq(ethtool_port_classify("tx_prio7_pause_duration", &id), 0);
	ck_assert(id.kind == PS_PAUSE_USEC && id.prio == 7 && id.dir == 1);
	ck_assert_int_eq(ethtool_port_classify("rx_prio0_pause_transition", &id), 0);
	ck_assert(id.kind == PS_PAUSE_TRANSITIONS && id.prio == 0);
	ck_assert_int_eq(ethtool_port_classify("tx_prio3_bytes", &id), 0);
	ck_assert(id.kind == PS_PRIO_BYTES && id.dir == 1);
	ck_assert_int_eq(ethtool_port_classify("rx_prio5_packets", &id), 0);
	ck_assert(id.kind == PS_PRIO_PACKETS && id.prio == 5 && id.dir == 0);
	ck_assert_int_eq(ethtool_port_classify("rx_prio3_discards", &id), 0);
	ck_assert(id.kind == PS_PRIO_DISCARDS && id.prio == 3);
	/* per traffic class of the host despite the name (PPCNT pnat 2) */
	ck_assert_int_eq(ethtool_port_classify("rx_prio2_cong_discard", &id), 0);
	ck_assert(id.kind == PS_TC_CONG_DISCARDS && id.prio == 2);
	ck_assert_int_eq(ethtool_port_classify("rx_prio6_buf_discard", &id), 0);
	ck_assert(id.kind == PS_TC_BUF_DISCARDS && id.prio == 6);
	ck_assert_int_eq(ethtool_port_classify("tx_prio6_buf_discard", &id), -ENOENT);
	/* link-level pause: en_stats.c's "global" names, no tx transition */
	ck_assert_int_eq(ethtool_port_classify("rx_global_pause", &id), 0);
	ck_assert(id.kind == PS_GPAUSE_FRAMES && id.dir == 0);
	ck_assert_int_eq(ethtool_port_classify("tx_global_pause_duration", &id), 0);
	ck_assert(id.kind == PS_GPAUSE_USEC && id.dir == 1);
	ck_assert_int_eq(ethtool_port_classify("rx_global_pause_transition", &id), 0);
	ck_assert(id.kind == PS_GPAUSE_TRANSITIONS && id.dir == 0);
	ck_assert_int_eq(ethtool_port_classify("tx_global_pause_transition", &id), -ENOENT);
	ck_assert_int_eq(ethtool_port_classify("rx_pause_ctrl_phy", &id), -ENOENT);
	ck_assert_int_eq(ethtool_port_classify("tx_pause_storm_warning_events", &id), 0);
	ck_assert(id.kind == PS_STORM_EVENTS && id.dir == 0);
	ck_assert_int_eq(ethtool_port_classify("tx_pause_storm_error_events", &id), 0);
	ck_assert(id.kind == PS_STORM_EVENTS && id.dir == 1);
	ck_assert_int_eq(ethtool_port_classify("rx_discards_phy", &id), 0);
	ck_assert(id.kind == PS_PORT_DISCARDS);
	/* not ours: other names, priority out of range, tx discards per prio (mlx5 has none) */
	ck_assert_int_eq(ethtool_port_classify("rx_bytes", &id), -ENOENT);
	ck_assert_int_eq(ethtool_port_classify("rx_prio8_pause", &id), -ENOENT);
	ck_assert_int_eq(ethtool_port_classify("rx_prio3_pausex", &id), -ENOENT);
	ck_assert_int_eq(ethtool_port_classify("rx_prio33_pause", &id), -ENOENT);
	ck_assert_int_eq(ethtool_port_classify("tx_prio3_discards", &id), -ENOENT);
	ck_assert_int_eq(ethtool_port_classify("rx_prio", &id), -ENOENT);
}
END_TEST

START_TEST(port_sample_has_only_what_exists)
{
	char names[4][RQ_ETH_NAME_LEN] = {"rx_prio3_buf_discard", "rx_prio3_cong_discard",
					  "tx_prio3_pause", "rx_bytes"};
	uint64_t vals[4] = {5, 7, 11, 99};
	struct eth_stats s = {.n = 4, .names = names, .vals = vals};
	struct port_sample ps;
	uint64_t v;

	ethtool_port_sample(&s, &ps);
	/* buffer and congestion discards of TC 3 each their own, not summed */
	ck_assert(ps.has[PS_TC_BUF_DISCARDS][3][0] && ps.has[PS_TC_CONG_DISCARDS][3][0]);
	ck_assert_uint_eq(ps.v[PS_TC_BUF_DISCARDS][3][0], 5);
	ck_assert_uint_eq(ps.v[PS_TC_CONG_DISCARDS][3][0], 7);
	ck_assert(ps.has[PS_PAUSE_FRAMES][3][1] && ps.v[PS_PAUSE_FRAMES][3][1] == 11);
	ck_assert(!ps.has[PS_PAUSE_FRAMES][3][0]);
	ck_assert(!ps.has[PS_PRIO_DISCARDS][3][0]);
	ck_assert_int_eq(eth_stats_get(&s, "rx_bytes", &v), 0);
	ck_assert_uint_eq(v, 99);
	ck_assert_int_eq(eth_stats_get(&s, "tx_bytes", &v), -ENOENT);
}
END_TEST

START_TEST(fake_reads_the_file)
{
	const struct ethtool_ops *ops;
	struct eth_stats s;
	void *ctx;
	uint64_t v;

	sim_build(&node, "--pfs 1 --vfs 1");
	ck_assert_int_eq(ethtool_fake_new(&node.root, &ops, &ctx), 0);
	ck_assert_int_eq(ops->stats(ctx, "ens1f0", &s), -EOPNOTSUPP);
	ck_assert_int_eq(sim_sh(&node, "mkdir -p $R/ethtool && echo '{\"rx_prio3_pause\": 12, "
				       "\"tx_prio3_bytes\": 4294967296000}' > $R/ethtool/ens1f0.json"),
			 0);
	ck_assert_int_eq(ops->stats(ctx, "ens1f0", &s), 0);
	ck_assert_uint_eq(s.n, 2);
	ck_assert_int_eq(eth_stats_get(&s, "tx_prio3_bytes", &v), 0);
	ck_assert_uint_eq(v, 4294967296000ULL);
	eth_stats_fini(&s);
	ck_assert_int_eq(sim_sh(&node, "echo '{\"rx_prio3_pause\": -1}' > $R/ethtool/ens1f0.json"), 0);
	ck_assert_int_eq(ops->stats(ctx, "ens1f0", &s), -EBADMSG);
	ck_assert_int_eq(sim_sh(&node, "echo '[1]' > $R/ethtool/ens1f0.json"), 0);
	ck_assert_int_eq(ops->stats(ctx, "ens1f0", &s), -EBADMSG);
	ck_assert_int_eq(ops->stats(ctx, "../x", &s), -ENODEV);
	ops->free(ctx);
}
END_TEST

/* A VF netdev in its pod: <root>/ethtool/netns/<netns basename>/<ifname>.json, while the netns is.
 */
START_TEST(fake_reads_the_netns_file)
{
	const struct ethtool_ops *ops;
	char ns[128];
	struct eth_stats s;
	void *ctx;
	uint64_t v;

	sim_build(&node, "--pfs 1 --vfs 1");
	ck_assert_int_eq(ethtool_fake_new(&node.root, &ops, &ctx), 0);
	snprintf(ns, sizeof(ns), "%s/podns-a", node.dir); /* stands for /run/netns/podns-a */
	ck_assert_int_eq(ops->stats_netns(ctx, ns, "net1", &s), -ENOENT); /* no netns */
	ck_assert_int_eq(sim_sh(&node, "touch $R/podns-a $R/podns-b"), 0);
	ck_assert_int_eq(ops->stats_netns(ctx, ns, "net1", &s), -EOPNOTSUPP); /* no file */
	ck_assert_int_eq(
	    sim_sh(
		&node,
		"mkdir -p $R/ethtool/netns/podns-a && echo '{\"tx_vport_rdma_unicast_bytes\": "
		"5000000000, \"rx_vport_rdma_unicast_packets\": 7}' > "
		"$R/ethtool/netns/podns-a/net1.json && echo '{\"x\": 1}' > $R/ethtool/net1.json"),
	    0);
	ck_assert_int_eq(ops->stats_netns(ctx, ns, "net1", &s), 0);
	ck_assert_uint_eq(s.n, 2);
	ck_assert_int_eq(eth_stats_get(&s, "tx_vport_rdma_unicast_bytes", &v), 0);
	ck_assert_uint_eq(v, 5000000000ULL);
	eth_stats_fini(&s);
	/* another pod's net1 is another netdev; the host's net1 is the host's file */
	snprintf(ns, sizeof(ns), "%s/podns-b", node.dir);
	ck_assert_int_eq(ops->stats_netns(ctx, ns, "net1", &s), -EOPNOTSUPP);
	ck_assert_int_eq(ops->stats_netns(ctx, "", "net1", &s), 0);
	ck_assert_int_eq(eth_stats_get(&s, "x", &v), 0);
	eth_stats_fini(&s);
	ck_assert_int_eq(ops->stats_netns(ctx, NULL, "net1", &s), 0);
	eth_stats_fini(&s);
	/* the pod is deleted: its netns goes, the file may stay */
	snprintf(ns, sizeof(ns), "%s/podns-a", node.dir);
	ck_assert_int_eq(sim_sh(&node, "rm $R/podns-a"), 0);
	ck_assert_int_eq(ops->stats_netns(ctx, ns, "net1", &s), -ENOENT);
	ck_assert_int_eq(ops->stats_netns(ctx, ns, "../x", &s), -ENOENT);
	snprintf(ns, sizeof(ns), "%s/podns-b", node.dir);
	ck_assert_int_eq(ops->stats_netns(ctx, ns, "../x", &s), -ENODEV);
	ops->free(ctx);
}
END_TEST

/* The vport names and what they count (mlx5 en_stats.c: octets are bytes). */
START_TEST(vport_rdma_names)
{
	static const struct {
		const char *name;
		enum rdma_ctr kind;
		int dir;
	} want[] = {
	    {"rx_vport_rdma_unicast_packets", RC_PACKETS, 0},
	    {"rx_vport_rdma_unicast_bytes", RC_BYTES, 0},
	    {"tx_vport_rdma_unicast_packets", RC_PACKETS, 1},
	    {"tx_vport_rdma_unicast_bytes", RC_BYTES, 1},
	};
	int dir;

	for (int i = 0; i < RQ_VPORT_RDMA_N; i++) {
		ck_assert_str_eq(ethtool_vport_rdma_names[i], want[i].name);
		ck_assert_int_eq(rdma_counter_classify(want[i].name, &dir), want[i].kind);
		ck_assert_int_eq(dir, want[i].dir);
		ck_assert_uint_lt(strlen(want[i].name), RQ_ETH_NAME_LEN);
	}
	ck_assert_int_eq(RQ_VPORT_RDMA_TX_PACKETS, 2);
	/* the other vport counters are the netdev's, not RDMA traffic */
	ck_assert_int_eq(rdma_counter_classify("rx_vport_unicast_bytes", &dir), RC_OTHER);
	ck_assert_int_eq(rdma_counter_classify("rx_vport_rdma_multicast_packets", &dir), RC_OTHER);
}
END_TEST

/* The real ioctl inside another netns: a veth there, none of that name on the host. */
START_TEST(ioctl_in_netns)
{
	const struct ethtool_ops *ops;
	char ns[64], path[128], cmd[256];
	struct eth_stats s;
	void *ctx;
	uint64_t v = 0;

	if (geteuid() != 0) {
		fprintf(stderr, "ethtool: SKIP ioctl_in_netns: not root\n");
		return;
	}
	unit_host_name(ns, sizeof(ns), "rqeth"); /* the runner removes it if this child dies */
	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	snprintf(cmd, sizeof(cmd),
		 "ip netns del %s 2>/dev/null; ip netns add %s && ip -n %s link add rqva type veth "
		 "peer name rqvb",
		 ns, ns, ns);
	if (system(cmd) != 0) {
		fprintf(stderr, "ethtool: SKIP ioctl_in_netns: cannot make a netns with a veth\n");
		snprintf(cmd, sizeof(cmd), "ip netns del %s 2>/dev/null", ns);
		(void)!system(cmd);
		return;
	}
	ck_assert_int_eq(ethtool_ioctl_new(&ops, &ctx), 0);
	ck_assert_int_eq(ops->stats(ctx, "rqva", &s), -ENODEV); /* not on the host */
	ck_assert_int_eq(ops->stats_netns(ctx, path, "rqva", &s), 0);
	ck_assert_int_eq(eth_stats_get(&s, "peer_ifindex", &v), 0);
	ck_assert_uint_gt(v, 0);
	eth_stats_fini(&s);
	/* back in the host netns afterwards: its own netdevs still answer */
	ck_assert_int_eq(ops->stats(ctx, "rqva", &s), -ENODEV);
	ck_assert_int_eq(ops->stats_netns(ctx, path, "nosuch0", &s), -ENODEV);
	ck_assert_int_eq(ops->stats_netns(ctx, "/run/netns/rq-no-such-ns", "rqva", &s), -ENOENT);
	ck_assert_int_eq(ops->stats_netns(ctx, "/etc/hostname", "rqva", &s), -EINVAL);
	ck_assert_int_eq(ops->stats_netns(ctx, "", "lo", &s), -EOPNOTSUPP);
	ops->free(ctx);
	snprintf(cmd, sizeof(cmd), "ip netns del %s", ns);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* The real ioctl: a veth's driver stats name its peer (peer_ifindex). */
START_TEST(ioctl_on_veth)
{
	const struct ethtool_ops *ops;
	char a[IF_NAMESIZE], b[IF_NAMESIZE], cmd[128];
	struct eth_stats s;
	void *ctx;
	uint64_t v = 0;
	int r;

	if (geteuid() != 0) {
		fprintf(stderr, "ethtool: SKIP ioctl_on_veth: not root\n");
		return;
	}
	unit_host_name(a, sizeof(a), "rqet"); /* the runner removes it if this child dies */
	unit_host_name(b, sizeof(b), "rqeu");
	snprintf(cmd, sizeof(cmd), "ip link del %s 2>/dev/null; ip link add %s type veth peer name %s",
		 a, a, b);
	if (system(cmd) != 0) {
		fprintf(stderr, "ethtool: SKIP ioctl_on_veth: cannot make a veth\n");
		return;
	}
	ck_assert_int_eq(ethtool_ioctl_new(&ops, &ctx), 0);
	r = ops->stats(ctx, a, &s);
	ck_assert_int_eq(r, 0);
	ck_assert_uint_gt(s.n, 0);
	ck_assert_int_eq(eth_stats_get(&s, "peer_ifindex", &v), 0);
	ck_assert_uint_eq(v, if_nametoindex(b));
	eth_stats_fini(&s);
	/* the names are cached: a second read gives the same */
	ck_assert_int_eq(ops->stats(ctx, a, &s), 0);
	ck_assert_int_eq(eth_stats_get(&s, "peer_ifindex", &v), 0);
	eth_stats_fini(&s);
	ck_assert_int_eq(ops->stats(ctx, "lo", &s), -EOPNOTSUPP);
	ck_assert_int_eq(ops->stats(ctx, "rq-nosuch0", &s), -ENODEV);
	ops->free(ctx);
	snprintf(cmd, sizeof(cmd), "ip link del %s", a);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(counters_host)
{
	struct rdma_counters c;
	int dir;

	sim_build(&node, "--pfs 1 --vfs 1");
	ck_assert_int_eq(rdma_counters_read(&node.root, NULL, "mlx5_0", 1, &c), -ENOENT);
	ck_assert_int_eq(sim_sh(&node, "d=$R/sys/class/infiniband/mlx5_0/ports/1/hw_counters; "
				       "mkdir -p $d && echo 7 > $d/np_cnp_sent && "
				       "echo 1000 > $d/lifespan && echo x > $d/bogus && "
				       "echo 4294967295 > $d/out_of_sequence"),
			 0);
	ck_assert_int_eq(rdma_counters_read(&node.root, "", "mlx5_0", 1, &c), 0);
	ck_assert_uint_eq(c.n, 2);
	for (size_t i = 0; i < c.n; i++) {
		if (!strcmp(c.names[i], "np_cnp_sent"))
			ck_assert_uint_eq(c.vals[i], 7);
		else
			ck_assert(!strcmp(c.names[i], "out_of_sequence") &&
				  c.vals[i] == 4294967295ULL);
	}
	rdma_counters_fini(&c);
	ck_assert_int_eq(rdma_counters_read(&node.root, NULL, "../x", 1, &c), -EINVAL);
	ck_assert_int_eq(rdma_counter_classify("np_cnp_sent", &dir), RC_CNP_SENT);
	ck_assert_int_eq(rdma_counter_classify("rp_cnp_handled", &dir), RC_CNP_HANDLED);
	ck_assert_int_eq(rdma_counter_classify("np_ecn_marked_roce_packets", &dir), RC_ECN_MARKED);
	ck_assert_int_eq(rdma_counter_classify("local_ack_timeout_err", &dir), RC_RETRANS);
	ck_assert_int_eq(rdma_counter_classify("rcvd_seq_err", &dir), RC_RETRANS);
	ck_assert_int_eq(rdma_counter_classify("sent_pkts", &dir), RC_PACKETS);
	ck_assert_int_eq(dir, 1);
	ck_assert_int_eq(rdma_counter_classify("rcvd_pkts", &dir), RC_PACKETS);
	ck_assert_int_eq(dir, 0);
	ck_assert_int_eq(rdma_counter_classify("rp_cnp_ignored", &dir), RC_OTHER);
}
END_TEST

START_TEST(counters_parse)
{
	struct rdma_counters c;

	ck_assert_int_eq(rdma_counters_parse("a 1\nlifespan 10\nb x\nc 18446744073709551615\n"
					     "noval\n-neg -1\nd 2",
					     &c),
			 0);
	ck_assert_uint_eq(c.n, 3);
	ck_assert_str_eq(c.names[0], "a");
	ck_assert_str_eq(c.names[1], "c");
	ck_assert_uint_eq(c.vals[1], 18446744073709551615ULL);
	ck_assert_str_eq(c.names[2], "d");
	ck_assert_uint_eq(c.vals[2], 2);
	rdma_counters_fini(&c);
}
END_TEST

/* podsys_read_dir: a netdev's statistics directory as the pod's netns shows it. */
START_TEST(counters_in_pod)
{
	char ns[64], path[128], cmd[256], buf[8192];
	struct rdma_counters c;
	bool found = false;

	if (geteuid() != 0) {
		fprintf(stderr, "ethtool: SKIP counters_in_pod: not root\n");
		return;
	}
	unit_host_name(ns, sizeof(ns), "rqctr"); /* the runner removes it if this child dies */
	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	snprintf(cmd, sizeof(cmd),
		 "ip netns del %s 2>/dev/null; ip netns add %s && ip -n %s link add rqca type veth "
		 "peer name rqcb",
		 ns, ns, ns);
	if (system(cmd) != 0) {
		fprintf(stderr, "ethtool: SKIP counters_in_pod: cannot make a netns with a veth\n");
		snprintf(cmd, sizeof(cmd), "ip netns del %s 2>/dev/null", ns);
		(void)!system(cmd);
		return;
	}
	ck_assert_int_eq(podsys_read_dir(path, "/sys/class/net/rqca/statistics", buf, sizeof(buf)),
			 0);
	ck_assert_int_eq(rdma_counters_parse(buf, &c), 0);
	for (size_t i = 0; i < c.n; i++)
		found |= !strcmp(c.names[i], "rx_bytes") && c.vals[i] == 0;
	ck_assert_msg(found, "no rx_bytes 0 in %s", buf);
	ck_assert_uint_gt(c.n, 10);
	rdma_counters_fini(&c);
	ck_assert_int_eq(podsys_read_dir(path, "/sys/class/net/nosuch/statistics", buf, sizeof(buf)),
			 -ENOENT);
	snprintf(cmd, sizeof(cmd), "ip netns del %s", ns);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

static int open_fds(void)
{
	/*
	 * Only descriptors on counter files: a count of every descriptor also saw
	 * unrelated ones come and go (9 against 8 once in CI).
	 */
	char path[PATH_MAX], target[PATH_MAX];
	struct dirent *e;
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		ssize_t len;

		if (e->d_name[0] == '.')
			continue;
		(void)snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		if (strstr(target, "/hw_counters/"))
			n++;
	}
	closedir(d);
	return n;
}

static uint64_t ctr_val(const struct rdma_counters *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->names[i], name))
			return c->vals[i];
	return (uint64_t)-1;
}

/* Kept files read again with pread: an in-place rewrite (as sysfs regenerates) is seen. */
START_TEST(counters_cached)
{
	struct rdma_ctr_cache *cache, *none;
	struct rdma_counters c;
	int fds0;

	sim_build(&node, "--pfs 1 --vfs 2 --counters yes");
	ck_assert_int_eq(rdma_ctr_cache_new(1000, &cache), 0);
	ck_assert_int_eq(rdma_ctr_cache_new(0, &none), 0);
	fds0 = open_fds();
	ck_assert_int_eq(sim_sh(&node, "echo 7 > $R/sys/class/infiniband/mlx5_0/ports/1/hw_counters/"
				       "np_cnp_sent"),
			 0);
	ck_assert_int_eq(rdma_counters_read_cached(cache, &node.root, "mlx5_0", 1, &c), 0);
	ck_assert_uint_eq(ctr_val(&c, "np_cnp_sent"), 7);
	ck_assert_uint_eq(ctr_val(&c, "lifespan"), (uint64_t)-1);
	rdma_counters_fini(&c);
	ck_assert_int_gt(open_fds(), fds0 + 5); /* the counter files stay open */
	ck_assert_int_eq(sim_sh(&node, "echo 1234 > $R/sys/class/infiniband/mlx5_0/ports/1/"
				       "hw_counters/np_cnp_sent"),
			 0);
	ck_assert_int_eq(rdma_counters_read_cached(cache, &node.root, "mlx5_0", 1, &c), 0);
	ck_assert_uint_eq(ctr_val(&c, "np_cnp_sent"), 1234);
	rdma_counters_fini(&c);
	/* no budget: read as rdma_counters_read does, nothing kept */
	ck_assert_int_eq(rdma_counters_read_cached(none, &node.root, "mlx5_1", 1, &c), 0);
	ck_assert_uint_eq(ctr_val(&c, "np_cnp_sent"), 0);
	rdma_counters_fini(&c);
	ck_assert_int_eq(rdma_counters_read_cached(cache, &node.root, "nosuch", 1, &c), -ENOENT);
	/* a sweep after a round that read mlx5_0 keeps it; the next one (unread) closes it */
	rdma_ctr_cache_sweep(cache);
	ck_assert_int_gt(open_fds(), fds0 + 5);
	rdma_ctr_cache_sweep(cache);
	ck_assert_int_eq(open_fds(), fds0);
	rdma_ctr_cache_free(cache);
	rdma_ctr_cache_free(none);
}
END_TEST

/* --vf-counters essential: a known-only cache never opens the counters it does not export */
START_TEST(counters_cached_known_only)
{
	struct rdma_ctr_cache *all, *known;
	struct rdma_counters c;
	size_t n_all;
	int fds0, fds_all, dir;

	sim_build(&node, "--pfs 1 --vfs 1 --counters yes");
	ck_assert_int_eq(rdma_ctr_cache_new(1000, &all), 0);
	ck_assert_int_eq(rdma_ctr_cache_new(1000, &known), 0);
	rdma_ctr_cache_known_only(known, true);
	fds0 = open_fds();
	ck_assert_int_eq(rdma_counters_read_cached(all, &node.root, "mlx5_0", 1, &c), 0);
	n_all = c.n;
	ck_assert_uint_ne(ctr_val(&c, "rp_cnp_ignored"), (uint64_t)-1); /* RC_OTHER, there */
	rdma_counters_fini(&c);
	fds_all = open_fds() - fds0;
	ck_assert_int_eq(sim_sh(&node, "echo 9 > $R/sys/class/infiniband/mlx5_0/ports/1/hw_counters/"
				       "np_cnp_sent"),
			 0);
	ck_assert_int_eq(rdma_counters_read_cached(known, &node.root, "mlx5_0", 1, &c), 0);
	ck_assert_uint_eq(ctr_val(&c, "np_cnp_sent"), 9);
	ck_assert_uint_eq(ctr_val(&c, "rp_cnp_ignored"), (uint64_t)-1);
	for (size_t i = 0; i < c.n; i++)
		ck_assert_int_ne(rdma_counter_classify(c.names[i], &dir), RC_OTHER);
	ck_assert_uint_gt(n_all, c.n);
	/* only the known files stay open */
	ck_assert_int_eq(open_fds() - fds0 - fds_all, (int)c.n);
	rdma_counters_fini(&c);
	rdma_ctr_cache_free(all);
	rdma_ctr_cache_free(known);
	ck_assert_int_eq(open_fds(), fds0);
}
END_TEST

/* issue 30 item 6: requester-side retransmissions, the responder's out_of_sequence apart */
START_TEST(counter_meaning)
{
	int dir;

	ck_assert_int_eq(rdma_counter_classify("packet_seq_err", &dir), RC_RETRANS);
	ck_assert_int_eq(rdma_counter_classify("local_ack_timeout_err", &dir), RC_RETRANS);
	ck_assert_int_eq(rdma_counter_classify("implied_nak_seq_err", &dir), RC_RETRANS);
	ck_assert_int_eq(rdma_counter_classify("roce_adp_retrans", &dir), RC_RETRANS);
	ck_assert_int_eq(rdma_counter_classify("roce_adp_retrans_to", &dir), RC_RETRANS);
	ck_assert_int_eq(rdma_counter_classify("rcvd_seq_err", &dir), RC_RETRANS);
	ck_assert_int_eq(rdma_counter_classify("completer_retry_err", &dir), RC_RETRANS);
	ck_assert_int_eq(rdma_counter_classify("out_of_sequence", &dir), RC_OUT_OF_SEQ);
	ck_assert_int_eq(rdma_counter_classify("out_of_seq_request", &dir), RC_OUT_OF_SEQ);
	/* the responder's duplicates and mlx5's slow restart are no retransmission */
	ck_assert_int_eq(rdma_counter_classify("duplicate_request", &dir), RC_OTHER);
	ck_assert_int_eq(rdma_counter_classify("roce_slow_restart", &dir), RC_OTHER);
}
END_TEST

START_TEST(counter_wrap)
{
	/* mlx5 Q-counters are 32-bit: down from above 2^31 is a wrap */
	ck_assert_int_eq(rdma_counter_bits("out_of_sequence"), 32);
	ck_assert_int_eq(rdma_counter_bits("packet_seq_err"), 32);
	ck_assert_uint_eq(rdma_counter_delta(4294967000ULL, 100, 32), 396);
	ck_assert_uint_eq(rdma_counter_delta(UINT32_MAX, 0, 32), 1);
	/* from below 2^31: a reset (the device re-registered), the new count */
	ck_assert_uint_eq(rdma_counter_delta(1000, 10, 32), 10);
	ck_assert_uint_eq(rdma_counter_delta(1ULL << 31, 10, 32), 10);
	/* past 32 bits it cannot be a Q-counter: a reset */
	ck_assert_uint_eq(rdma_counter_delta(1ULL << 33, 10, 32), 10);
	/* the congestion counters (and rxe's) are 64-bit: any decrease is a reset */
	ck_assert_int_eq(rdma_counter_bits("np_cnp_sent"), 64);
	ck_assert_int_eq(rdma_counter_bits("rp_cnp_ignored"), 64);
	ck_assert_int_eq(rdma_counter_bits("out_of_seq_request"), 64);
	ck_assert_int_eq(rdma_counter_bits("tx_vport_rdma_unicast_bytes"), 64);
	ck_assert_uint_eq(rdma_counter_delta(4294967000ULL, 100, 64), 100);
	ck_assert_uint_eq(rdma_counter_delta(5, 9, 32), 4);
}
END_TEST

START_TEST(prio_to_tc)
{
	struct dcb_port_state st;

	/* no map reported: mlx5's default swaps priorities 0 and 1 */
	memset(&st, 0, sizeof(st));
	ck_assert_int_eq(dcb_tc_of_prio(&st, 0), 1);
	ck_assert_int_eq(dcb_tc_of_prio(&st, 1), 0);
	ck_assert_int_eq(dcb_tc_of_prio(&st, 3), 3);
	ck_assert_int_eq(dcb_tc_of_prio(NULL, 7), 7);
	ck_assert_int_eq(dcb_tc_of_prio(&st, 8), -EINVAL);
	ck_assert_int_eq(dcb_tc_of_prio(&st, -1), -EINVAL);
	/* the port's IEEE_ETS prio_tc */
	st.has_ets = true;
	memcpy(st.prio_tc, (uint8_t[8]){1, 0, 2, 5, 4, 3, 6, 7}, 8);
	ck_assert_int_eq(dcb_tc_of_prio(&st, 3), 5);
	ck_assert_int_eq(dcb_tc_of_prio(&st, 5), 3);
	ck_assert_int_eq(dcb_tc_of_prio(&st, 0), 1);
	st.prio_tc[2] = 9;
	ck_assert_int_eq(dcb_tc_of_prio(&st, 2), -EINVAL);
}
END_TEST

Suite *suite_telemetry_pkg(void);
Suite *suite_telemetry_pkg(void)
{
	Suite *s = suite_create("telemetry_pkg");
	TCase *tc = tcase_create("ethtool");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, port_classify);
	tcase_add_test(tc, port_sample_has_only_what_exists);
	tcase_add_test(tc, fake_reads_the_file);
	tcase_add_test(tc, ioctl_on_veth);
	tcase_add_test(tc, fake_reads_the_netns_file);
	tcase_add_test(tc, vport_rdma_names);
	tcase_add_test(tc, ioctl_in_netns);
	tcase_add_test(tc, counters_host);
	tcase_add_test(tc, counters_parse);
	tcase_add_test(tc, counters_in_pod);
	tcase_add_test(tc, counters_cached);
	tcase_add_test(tc, counters_cached_known_only);
	tcase_add_test(tc, counter_meaning);
	tcase_add_test(tc, counter_wrap);
	tcase_add_test(tc, prio_to_tc);
	suite_add_tcase(s, tc);
	return s;
}
