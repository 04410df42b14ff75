// SPDX-License-Identifier: Apache-2.0
/* pkg/numa: the VF's node against kubelet's placement, on mknode-built nodes. */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "pkg/numa/numa.h"
#include "tests/simnode/simnode.h"

#define KUBELET "/var/lib/kubelet"
#define DEV	"$R/sys/devices/pci0000:00"
#define CPUMGR	"$R/var/lib/kubelet/cpu_manager_state"

static struct simnode node;

static void setup(void)
{
	/* PF0 (0000:81:00.0) on node 0 with CPUs 0-3, PF1 (0000:82:00.0) on node 1 with 4-7 */
	sim_build(&node, "--pfs 2 --vfs 2 --numa-nodes 2 --cpus-per-node 4");
}

static void teardown(void)
{
	sim_destroy(&node);
}

static void pod(const char *args)
{
	ck_assert_msg(sim_sh(&node, "\"$MKNODE\" --root \"$R\" pod %s > /dev/null", args) == 0,
		      "mknode pod %s", args);
}

static struct rq_numa_result eval(const char *uid, const char *vf)
{
	struct rq_numa_result res;

	memset(&res, 0x5a, sizeof(res));
	ck_assert_int_eq(numa_evaluate(&node.root,
				       &(struct rq_numa_query){
					   .kubelet_dir = KUBELET, .pod_uid = uid, .vf_pci = vf},
				       &res),
			 0);
	return res;
}

START_TEST(pci_node)
{
	int n = 5;

	ck_assert_int_eq(numa_pci_node(&node.root, "0000:81:00.1", &n), 0);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(numa_pci_node(&node.root, "0000:82:00.2", &n), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(sim_sh(&node,
				"echo -1 > " DEV "/0000:81:00.1/numa_node; echo 64 > " DEV
				"/0000:81:00.2/numa_node; echo x > " DEV
				"/0000:82:00.1/numa_node; rm " DEV "/0000:82:00.2/numa_node"),
			 0);
	ck_assert_int_eq(numa_pci_node(&node.root, "0000:81:00.1", &n), 0);
	ck_assert_int_eq(n, -1);
	n = 5;
	ck_assert_int_eq(numa_pci_node(&node.root, "0000:81:00.2", &n), 0);
	ck_assert_int_eq(n, -1);
	n = 5;
	ck_assert_int_eq(numa_pci_node(&node.root, "0000:82:00.1", &n), -EINVAL);
	ck_assert_int_eq(numa_pci_node(&node.root, "0000:82:00.2", &n), -ENOENT);
	ck_assert_int_eq(numa_pci_node(&node.root, "0000:99:00.0", &n), -ENOENT);
	ck_assert_int_eq(n, 5);
}
END_TEST

START_TEST(aligned_cpus)
{
	struct rq_numa_result r;

	pod("--uid pod-a --cpus 0-1");
	r = eval("pod-a", "0000:81:00.1");
	ck_assert_int_eq(r.verdict, RQ_NUMA_ALIGNED);
	ck_assert_int_eq(r.vf_node, 0);
	ck_assert_uint_eq(r.pod_nodes, 0x1);
	ck_assert_str_eq(r.evidence,
			 "VF 0000:81:00.1 is on NUMA node 0; pod CPUs 0-1 are on node 0");
}
END_TEST

START_TEST(misaligned_cpus)
{
	struct rq_numa_result r;

	pod("--uid pod-far --cpus 4-5,7");
	r = eval("pod-far", "0000:81:00.2");
	ck_assert_int_eq(r.verdict, RQ_NUMA_MISALIGNED);
	ck_assert_int_eq(r.vf_node, 0);
	ck_assert_uint_eq(r.pod_nodes, 0x2);
	ck_assert_str_eq(r.evidence,
			 "VF 0000:81:00.2 is on NUMA node 0; pod CPUs 4-5,7 are on node 1");
	/* the same pod is aligned with a VF of PF1 */
	r = eval("pod-far", "0000:82:00.1");
	ck_assert_int_eq(r.verdict, RQ_NUMA_ALIGNED);
}
END_TEST

/*
 * A pod spread over both nodes (8 GPUs, 8 rails over two sockets) is aligned
 * with a VF on either node: the VF is local to part of the pod.
 */
START_TEST(spanning_cpus)
{
	struct rq_numa_result r;

	pod("--uid pod-wide --cpus 2-5");
	r = eval("pod-wide", "0000:82:00.1");
	ck_assert_int_eq(r.verdict, RQ_NUMA_ALIGNED);
	ck_assert_uint_eq(r.pod_nodes, 0x3);
	ck_assert_str_eq(r.evidence,
			 "VF 0000:82:00.1 is on NUMA node 1; pod CPUs 2-5 are on node 0,1");
	r = eval("pod-wide", "0000:81:00.1");
	ck_assert_int_eq(r.verdict, RQ_NUMA_ALIGNED);
}
END_TEST

START_TEST(devices_and_memory)
{
	struct rq_numa_result r;

	pod("--uid pod-g --cpus 4-7 --device nvidia.com/gpu=GPU-1@0");
	r = eval("pod-g", "0000:82:00.1");
	ck_assert_int_eq(r.verdict, RQ_NUMA_ALIGNED);
	ck_assert_uint_eq(r.pod_nodes, 0x3);
	ck_assert_str_eq(r.evidence,
			 "VF 0000:82:00.1 is on NUMA node 1; pod CPUs 4-7 are on node 1; "
			 "nvidia.com/gpu GPU-1 is on node 0");
	/* devices alone, without topology: no evidence either way */
	pod("--uid pod-flat --device x/y=dev0 --device x/y=dev1@-1");
	r = eval("pod-flat", "0000:82:00.1");
	ck_assert_int_eq(r.verdict, RQ_NUMA_UNKNOWN);
	ck_assert_str_eq(r.evidence,
			 "VF 0000:82:00.1 is on NUMA node 1; kubelet has no CPU, device "
			 "or memory placement for pod pod-flat");
	/* memory alone */
	pod("--uid pod-m --mem-node 1");
	r = eval("pod-m", "0000:82:00.2");
	ck_assert_int_eq(r.verdict, RQ_NUMA_ALIGNED);
	ck_assert_uint_eq(r.pod_nodes, 0x2);
	ck_assert_str_eq(r.evidence, "VF 0000:82:00.2 is on NUMA node 1; pod memory is on node 1");
	r = eval("pod-m", "0000:81:00.2");
	ck_assert_int_eq(r.verdict, RQ_NUMA_MISALIGNED);
}
END_TEST

/*
 * The SR-IOV device plugin lists the VF under its own pod, by PCI address,
 * with the VF's NUMA node (topology is on by default): that entry must not
 * vouch for the VF, nor must the attachment's other names for it.
 */
START_TEST(vf_never_vouches_for_itself)
{
	struct rq_numa_result r;
	struct rq_numa_query q = {.kubelet_dir = KUBELET, .pod_uid = "pod-far"};

	/* pod CPUs on node 1, the VF 0000:81:00.1 on node 0, listed as the plugin writes it */
	pod("--uid pod-far --cpus 4-5 --device intel.com/sriov_rdma=0000:81:00.1@0");
	r = eval("pod-far", "0000:81:00.1");
	ck_assert_int_eq(r.verdict, RQ_NUMA_MISALIGNED);
	ck_assert_uint_eq(r.pod_nodes, 0x2);
	ck_assert_str_eq(r.evidence,
			 "VF 0000:81:00.1 is on NUMA node 0; pod CPUs 4-5 are on node 1");
	/* a second rail of the same pod on node 0 is evidence: it is another attachment's */
	pod("--uid pod-far --device intel.com/sriov_rdma=0000:81:00.2@0");
	r = eval("pod-far", "0000:81:00.1");
	ck_assert_int_eq(r.verdict, RQ_NUMA_ALIGNED);
	ck_assert_str_eq(r.evidence, "VF 0000:81:00.1 is on NUMA node 0; pod CPUs 4-5 are on "
				     "node 1; intel.com/sriov_rdma 0000:81:00.2 is on node 0");
	/* only its own entries (by PCI address, RDMA device, netdev): no evidence, unknown */
	pod("--uid pod-self --device intel.com/sriov_rdma=0000:81:00.1@0");
	pod("--uid pod-self --device rdma/hca=mlx5_7@0 --device x/netdev=simpf0v0@0");
	r = eval("pod-self", "0000:81:00.1");
	ck_assert_int_eq(r.verdict, RQ_NUMA_ALIGNED); /* mlx5_7, simpf0v0 unknown as its own */
	q.pod_uid = "pod-self";
	q.vf_pci = "0000:81:00.1";
	q.self[0] = "MLX5_7";
	q.self[1] = "simpf0v0";
	memset(&r, 0x5a, sizeof(r));
	ck_assert_int_eq(numa_evaluate(&node.root, &q, &r), 0);
	ck_assert_int_eq(r.verdict, RQ_NUMA_UNKNOWN);
	ck_assert_uint_eq(r.pod_nodes, 0);
	ck_assert_str_eq(r.evidence,
			 "VF 0000:81:00.1 is on NUMA node 0; kubelet has no CPU, device "
			 "or memory placement for pod pod-self");
}
END_TEST

START_TEST(unknown_no_uid_or_no_data)
{
	struct rq_numa_result r;

	pod("--uid pod-a --cpus 0-1");
	r = eval(NULL, "0000:81:00.1");
	ck_assert_int_eq(r.verdict, RQ_NUMA_UNKNOWN);
	ck_assert_int_eq(r.vf_node, 0);
	ck_assert_uint_eq(r.pod_nodes, 0);
	ck_assert_str_eq(r.evidence,
			 "VF 0000:81:00.1 is on NUMA node 0; no K8S_POD_UID in CNI_ARGS");
	r = eval("", "0000:81:00.1");
	ck_assert_str_eq(r.evidence,
			 "VF 0000:81:00.1 is on NUMA node 0; no K8S_POD_UID in CNI_ARGS");
	r = eval("pod-other", "0000:81:00.1");
	ck_assert_int_eq(r.verdict, RQ_NUMA_UNKNOWN);
	ck_assert_str_eq(r.evidence,
			 "VF 0000:81:00.1 is on NUMA node 0; kubelet has no CPU, device "
			 "or memory placement for pod pod-other");
	/* no kubelet files at all */
	ck_assert_int_eq(sim_sh(&node, "rm -r $R/var/lib/kubelet"), 0);
	r = eval("pod-a", "0000:81:00.1");
	ck_assert_int_eq(r.verdict, RQ_NUMA_UNKNOWN);
	ck_assert_str_eq(r.evidence,
			 "VF 0000:81:00.1 is on NUMA node 0; kubelet has no CPU, device "
			 "or memory placement for pod pod-a");
}
END_TEST

START_TEST(unknown_vf_node)
{
	struct rq_numa_result r;

	pod("--uid pod-a --cpus 0-1");
	ck_assert_int_eq(sim_sh(&node, "echo -1 > " DEV "/0000:81:00.1/numa_node"), 0);
	r = eval("pod-a", "0000:81:00.1");
	ck_assert_int_eq(r.verdict, RQ_NUMA_UNKNOWN);
	ck_assert_int_eq(r.vf_node, -1);
	ck_assert_uint_eq(r.pod_nodes, 0x1);
	ck_assert_str_eq(r.evidence,
			 "VF 0000:81:00.1 has no NUMA node (numa_node -1); pod CPUs 0-1 "
			 "are on node 0");
	r = eval("pod-a", "0000:99:00.1"); /* no such device: unknown as well */
	ck_assert_int_eq(r.verdict, RQ_NUMA_UNKNOWN);
	ck_assert_int_eq(r.vf_node, -1);
}
END_TEST

START_TEST(malformed_files)
{
	struct rq_numa_result r;

	pod("--uid pod-a --cpus 0-1 --mem-node 0");
	/* truncated cpu_manager_state: memory still speaks */
	ck_assert_int_eq(sim_sh(&node, "printf '{\"entries\":{\"pod-a\":{\"app\":\"0-' > " CPUMGR),
			 0);
	r = eval("pod-a", "0000:81:00.1");
	ck_assert_int_eq(r.verdict, RQ_NUMA_ALIGNED);
	ck_assert_str_eq(r.evidence, "VF 0000:81:00.1 is on NUMA node 0; cpu_manager_state is "
				     "unreadable: not valid JSON or not in kubelet's format; pod "
				     "memory is on node 0");
	/* wrong types, empty files */
	ck_assert_int_eq(sim_sh(&node,
				"echo '{\"entries\":{\"pod-a\":[1]}}' > " CPUMGR
				"; : > $R/var/lib/kubelet/memory_manager_state; echo '[]' > "
				"$R/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint"),
			 0);
	r = eval("pod-a", "0000:81:00.1");
	ck_assert_int_eq(r.verdict, RQ_NUMA_UNKNOWN);
	ck_assert_str_eq(r.evidence,
			 "VF 0000:81:00.1 is on NUMA node 0; memory_manager_state is "
			 "unreadable: not valid JSON or not in kubelet's format; kubelet "
			 "has no CPU, device or memory placement for pod pod-a");
	/* a cpuset with a syntax error */
	ck_assert_int_eq(
	    sim_sh(&node, "echo '{\"entries\":{\"pod-a\":{\"c\":\"0-3,,4\"}}}' > " CPUMGR), 0);
	r = eval("pod-a", "0000:81:00.1");
	ck_assert_int_eq(r.verdict, RQ_NUMA_UNKNOWN);
	ck_assert_ptr_nonnull(
	    strstr(r.evidence, "cpu_manager_state is unreadable: not valid JSON"));
}
END_TEST

START_TEST(huge_and_looping_files)
{
	struct rq_numa_result r;

	pod("--uid pod-a --cpus 0-1");
	/* 5 MiB of valid JSON (a 250-pod node's size) is read: the parser streams it */
	ck_assert_int_eq(
	    sim_sh(&node, "{ printf '{\"entries\":{\"pod-a\":{\"app\":\"0-1\"}},\"pad\":\"'; "
			  "head -c 5242880 /dev/zero | tr '\\0' a; printf '\"}'; } > " CPUMGR),
	    0);
	r = eval("pod-a", "0000:81:00.1");
	ck_assert_int_eq(r.verdict, RQ_NUMA_ALIGNED);
	/* past the bound (a sparse 65 MiB file): refused, and the verdict says so */
	ck_assert_int_eq(
	    sim_sh(&node, "printf '{\"entries\":{\"pod-a\":{\"app\":\"0-1\"}},\"pad\":\"' > " CPUMGR
			  " && truncate -s 65M " CPUMGR),
	    0);
	r = eval("pod-a", "0000:81:00.1");
	ck_assert_int_eq(r.verdict, RQ_NUMA_UNVERIFIABLE);
	ck_assert(r.over_bound);
	ck_assert_str_eq(r.evidence,
			 "VF 0000:81:00.1 is on NUMA node 0; cpu_manager_state is "
			 "unreadable: over the memory-safety bound (64 MiB a file, 1 MiB a pod's "
			 "entries): placement not verified; kubelet has no CPU, device "
			 "or memory placement for pod pod-a");
	/* aligned CPUs do not make up for a device checkpoint past the bound */
	ck_assert_int_eq(sim_sh(&node, "rm " CPUMGR), 0);
	pod("--uid pod-a --cpus 0-1");
	ck_assert_int_eq(sim_sh(&node, "printf '{\"Data\":{\"PodDeviceEntries\":[\"' > $R"
				       "/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint"
				       " && truncate -s 65M $R/var/lib/kubelet/device-plugins/"
				       "kubelet_internal_checkpoint"),
			 0);
	r = eval("pod-a", "0000:81:00.1");
	ck_assert_int_eq(r.verdict, RQ_NUMA_UNVERIFIABLE);
	ck_assert_ptr_nonnull(strstr(r.evidence, "pod CPUs 0-1 are on node 0; "
						 "kubelet_internal_checkpoint is unreadable: over"));
	ck_assert_int_eq(sim_sh(&node, "rm $R/var/lib/kubelet/device-plugins/"
				       "kubelet_internal_checkpoint"),
			 0);
	/* a symlink loop is an error, not a hang */
	ck_assert_int_eq(sim_sh(&node, "rm " CPUMGR "; ln -s cpu_manager_state " CPUMGR), 0);
	r = eval("pod-a", "0000:81:00.1");
	ck_assert_int_eq(r.verdict, RQ_NUMA_UNKNOWN);
	ck_assert_str_eq(r.evidence,
			 "VF 0000:81:00.1 is on NUMA node 0; cpu_manager_state is "
			 "unreadable: Too many levels of symbolic links; kubelet has no "
			 "CPU, device or memory placement for pod pod-a");
	/* a link to a host file resolves inside the root, where there is none */
	ck_assert_int_eq(sim_sh(&node, "rm " CPUMGR "; ln -s /etc/hostname " CPUMGR), 0);
	r = eval("pod-a", "0000:81:00.1");
	ck_assert_str_eq(r.evidence,
			 "VF 0000:81:00.1 is on NUMA node 0; kubelet has no CPU, device "
			 "or memory placement for pod pod-a");
}
END_TEST

/* Node cpulists that are broken or absent: those nodes are skipped. */
START_TEST(broken_node_cpulists)
{
	struct rq_numa_result r;

	pod("--uid pod-a --cpus 0-1");
	pod("--uid pod-b --cpus 4");
	ck_assert_int_eq(sim_sh(&node, "echo '0-3,,' > $R/sys/devices/system/node/node0/cpulist; "
				       "mkdir $R/sys/devices/system/node/nodex "
				       "$R/sys/devices/system/node/node99"),
			 0);
	r = eval("pod-a", "0000:81:00.1");
	ck_assert_int_eq(r.verdict, RQ_NUMA_UNKNOWN);
	ck_assert_str_eq(r.evidence,
			 "VF 0000:81:00.1 is on NUMA node 0; pod CPUs 0-1 are on no known "
			 "NUMA node; kubelet has no CPU, device or memory placement for "
			 "pod pod-a");
	r = eval("pod-b", "0000:82:00.1");
	ck_assert_int_eq(r.verdict, RQ_NUMA_ALIGNED);
	ck_assert_str_eq(r.evidence, "VF 0000:82:00.1 is on NUMA node 1; pod CPUs 4 are on node 1");
}
END_TEST

/*
 * A CPU is on one node: when the VF's node lists every CPU of the pod, that
 * node is the answer and no other cpulist is read (one read on the pod's
 * path, issue 51). Shown with a node1 that (wrongly) repeats CPU 0: not read
 * for a pod on node 0's CPUs; read, with the others, for one that is not.
 */
START_TEST(vf_node_read_first)
{
	struct rq_numa_result r;

	pod("--uid pod-a --cpus 0-1");
	pod("--uid pod-far --cpus 0,4");
	ck_assert_int_eq(sim_sh(&node, "echo 0,4-7 > $R/sys/devices/system/node/node1/cpulist"), 0);
	r = eval("pod-a", "0000:81:00.1");
	ck_assert_int_eq(r.verdict, RQ_NUMA_ALIGNED);
	ck_assert_uint_eq(r.pod_nodes, 0x1);
	ck_assert_str_eq(r.evidence,
			 "VF 0000:81:00.1 is on NUMA node 0; pod CPUs 0-1 are on node 0");
	r = eval("pod-far", "0000:81:00.1");
	ck_assert_uint_eq(r.pod_nodes, 0x3);
	ck_assert_str_eq(r.evidence,
			 "VF 0000:81:00.1 is on NUMA node 0; pod CPUs 0,4 are on node 0,1");
}
END_TEST

/* Every other CPU of 4096 on node 0: a cpulist of about 9 KiB. */
START_TEST(long_node_cpulist)
{
	struct rq_numa_result r;

	pod("--uid pod-a --cpus 4094");
	ck_assert_int_eq(
	    sim_sh(&node, "seq -s, 0 2 4094 > $R/sys/devices/system/node/node0/cpulist && "
			  "test $(wc -c < $R/sys/devices/system/node/node0/cpulist) -gt 9000"),
	    0);
	r = eval("pod-a", "0000:81:00.1");
	ck_assert_int_eq(r.verdict, RQ_NUMA_ALIGNED);
	ck_assert_str_eq(r.evidence,
			 "VF 0000:81:00.1 is on NUMA node 0; pod CPUs 4094 are on node 0");
}
END_TEST

Suite *suite_numa(void);
Suite *suite_numa(void)
{
	Suite *s = suite_create("numa");
	TCase *tc = tcase_create("evaluate");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, pci_node);
	tcase_add_test(tc, aligned_cpus);
	tcase_add_test(tc, misaligned_cpus);
	tcase_add_test(tc, spanning_cpus);
	tcase_add_test(tc, devices_and_memory);
	tcase_add_test(tc, vf_never_vouches_for_itself);
	tcase_add_test(tc, unknown_no_uid_or_no_data);
	tcase_add_test(tc, unknown_vf_node);
	tcase_add_test(tc, malformed_files);
	tcase_add_test(tc, huge_and_looping_files);
	tcase_add_test(tc, broken_node_cpulists);
	tcase_add_test(tc, long_node_cpulist);
	tcase_add_test(tc, vf_node_read_first);
	suite_add_tcase(s, tc);
	return s;
}
