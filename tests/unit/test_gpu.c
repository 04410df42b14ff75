// SPDX-License-Identifier: Apache-2.0
/* pkg/gpu: a pod's accelerators to PCI addresses; pkg/numa hands over the devices it saw. */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "pkg/gpu/gpu.h"
#include "pkg/numa/numa.h"
#include "tests/simnode/simnode.h"

static struct simnode node;

/* nv-procfs.c's format: "Name: \t value", tabs as the driver writes them */
#define NV_INFO(uuid, minor)                                                                       \
	"Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 233\nGPU UUID: \t " uuid                   \
	"\nVideo BIOS: \t 96.00.99.00.01\nBus Type: \t PCIe\nDMA Size: \t 52 bits\nDMA Mask: \t "  \
	"0xfffffffffffff\nBus Location: \t 0000:1b:00.0\nDevice Minor: \t " minor                  \
	"\nGPU Excluded:\t No\n"

static void setup(void)
{
	sim_build(&node, "--pfs 1 --vfs 1");
	ck_assert_int_eq(
	    sim_sh(
		&node,
		"g=\"$R/proc/driver/nvidia/gpus\"; mkdir -p $g/0000:1b:00.0 $g/0000:9a:00.0; "
		"printf '" NV_INFO(
		    "GPU-5d1e4a2b-0000-1111-2222-333344445555",
		    "0") "' > "
			 "$g/0000:1b:00.0/information; printf '" NV_INFO(
			     "GPU-77777777-0000-1111-2222-333344445555",
			     "3") "' > $g/0000:9a:00.0/information; touch "
				  "$g/0000:9a:00.0/numa_status; "
				  "for p in 0000:c1:00.0 0000:c2:00.0; do mkdir -p "
				  "\"$R/sys/devices/pci0000:c0/$p\"; ln -s "
				  "../../../devices/pci0000:c0/$p "
				  "\"$R/sys/bus/pci/devices/$p\"; done; echo 0x038000 > "
				  "\"$R/sys/bus/pci/devices/0000:c1:00.0/class\"; echo 0x020000 > "
				  "\"$R/sys/bus/pci/devices/0000:c2:00.0/class\"; mkdir -p "
				  "\"$R/sys/class/drm/card1\"; ln -s "
				  "../../../devices/pci0000:c0/0000:c1:00.0 "
				  "\"$R/sys/class/drm/card1/device\""),
	    0);
}

static void teardown(void)
{
	sim_destroy(&node);
}

START_TEST(info_parse)
{
	char uuid[96];
	int minor;

	ck_assert_int_eq(gpu_nvidia_info_parse(NV_INFO("GPU-abc", "7"), uuid, sizeof(uuid), &minor),
			 0);
	ck_assert_str_eq(uuid, "GPU-abc");
	ck_assert_int_eq(minor, 7);
	ck_assert_int_eq(gpu_nvidia_info_parse("Model: x\n", uuid, sizeof(uuid), &minor), -EBADMSG);
	ck_assert_int_eq(gpu_nvidia_info_parse("Device Minor: \t x7\n", uuid, sizeof(uuid), &minor),
			 -EBADMSG);
}
END_TEST

START_TEST(device_plugins)
{
	struct rq_kubelet_dev d[] = {
	    {"nvidia.com/gpu", "GPU-5d1e4a2b-0000-1111-2222-333344445555", 0},
	    {"nvidia.com/gpu", "GPU-5d1e4a2b-0000-1111-2222-333344445555::1", 0}, /* replica */
	    {"nvidia.com/mig-1g.10gb", "MIG-aaaa", 0},
	    {"amd.com/gpu", "0000:c1:00.0", 0},
	    {"intel.com/sriov", "0000:c2:00.0", 0}, /* a VF by its address: not a GPU */
	    {"habana.ai/gaudi", "AM12345678", 0},
	    {"example.com/fpga", "fpga-0", 0},
	};
	struct rq_gpu_set s;

	ck_assert_int_eq(gpu_map_pod(&node.root, d, 7, NULL, 0, &s), 0);
	ck_assert_uint_eq(s.n, 2);
	ck_assert_str_eq(s.gpu[0].pci, "0000:1b:00.0");
	ck_assert_str_eq(s.gpu[0].source, "nvidia.com/gpu");
	ck_assert(!s.gpu[0].c2c);
	ck_assert_str_eq(s.gpu[1].pci, "0000:c1:00.0");
	ck_assert_uint_eq(s.n_unmapped, 2);
	ck_assert_ptr_nonnull(strstr(s.unmapped, "MIG-aaaa"));
	ck_assert_ptr_nonnull(strstr(s.unmapped, "AM12345678"));
	ck_assert(!gpu_devplugin_candidate("example.com/fpga", "fpga-0"));
}
END_TEST

START_TEST(dra)
{
	struct rq_podres_dra_dev d[] = {
	    {"gpu.nvidia.com", "gpu-3"},
	    {"gpu.nvidia.com", "gpu-0-mig-1g.10gb-0-0"},
	    {"gpu.nvidia.com", "gpu-9"},
	    {"gpu.amd.com", "gpu-1-128"},
	    {"gaudi.intel.com", "0000-4d-00-0-0x1020"},
	    {"gpu.intel.com", "0000-4d-00-0"},
	    {"sriovnetwork.k8snetworkplumbingwg.io", "0000-3b-00-2"},
	};
	struct rq_gpu_set s;

	ck_assert_int_eq(gpu_map_pod(&node.root, NULL, 0, d, 7, &s), 0);
	ck_assert_uint_eq(s.n, 4);
	ck_assert_str_eq(s.gpu[0].pci, "0000:9a:00.0");
	ck_assert(s.gpu[0].c2c);
	ck_assert_str_eq(s.gpu[1].pci, "0000:1b:00.0"); /* the MIG device's parent */
	ck_assert_str_eq(s.gpu[2].pci, "0000:c1:00.0");
	ck_assert_str_eq(s.gpu[3].pci, "0000:4d:00.0");
	ck_assert_uint_eq(s.n_unmapped, 2);
	ck_assert_ptr_nonnull(strstr(s.unmapped, "gpu-9"));
	ck_assert_ptr_nonnull(strstr(s.unmapped, "gpu.intel.com/0000-4d-00-0 "));
}
END_TEST

/* numa_evaluate of @uid (the files) with its device list asked for */
static struct rq_numa_devices devices_of(const char *uid)
{
	struct rq_numa_devices devs;
	struct rq_numa_result res;

	memset(&devs, 0, sizeof(devs));
	ck_assert_int_eq(numa_evaluate(&node.root,
				       &(struct rq_numa_query){.kubelet_dir = "/var/lib/kubelet",
							       .pod_uid = uid,
							       .source = RQ_NUMA_SRC_FILES,
							       .vf_pci = "0000:81:00.1",
							       .devices = &devs},
				       &res),
			 0);
	return devs;
}

/* the NUMA evidence hands its device list over: no second look at kubelet */
START_TEST(numa_hands_devices)
{
	struct rq_numa_devices devs;

	ck_assert_int_eq(sim_sh(&node, "\"$MKNODE\" --root \"$R\" pod --uid pod-g --device "
				       "nvidia.com/gpu=GPU-77777777-0000-1111-2222-333344445555@0 "
				       "> /dev/null"),
			 0);
	devs = devices_of("pod-g");
	ck_assert(devs.answered);
	ck_assert_uint_eq(devs.n_devs, 1);
	ck_assert_str_eq(devs.devs[0].id, "GPU-77777777-0000-1111-2222-333344445555");
	/* a pod kubelet allocated nothing: answered, no devices */
	devs = devices_of("pod-none");
	ck_assert(devs.answered);
	ck_assert_uint_eq(devs.n_devs, 0);
}
END_TEST

Suite *suite_gpu(void)
{
	Suite *s = suite_create("gpu");
	TCase *tc = tcase_create("gpu");

	/* each test builds a node with mknode: slow on a loaded machine */
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, info_parse);
	tcase_add_test(tc, device_plugins);
	tcase_add_test(tc, dra);
	tcase_add_test(tc, numa_hands_devices);
	suite_add_tcase(s, tc);
	return s;
}
