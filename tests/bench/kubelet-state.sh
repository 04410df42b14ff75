#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# kubelet-state.sh DIR PODS UID: kubelet's three checkpoints under DIR/var/lib/kubelet as a GPU
# node with PODS pods writes them (the pod UID last, the worst place for a reader). Each pod:
# two containers with exclusive CPUs, 8 GPUs (one nvidia.com/gpu entry) and 8 rail VFs (one
# entry per rail resource, as sriov-network-device-plugin pools them), pinned memory. The
# AllocResp blobs are base64 of kubelet's size for such responses (GPU: env, 8 device specs,
# mounts, CDI annotations ~6 KB; rail VF: env with PCIDEVICE_*_INFO, uverbs/umad/issm/rdma_cm
# specs ~1.9 KB), so 110 pods are ~2.5 MB and 250 pods ~5.7 MB, as measured on real nodes.
# UID's devices and CPUs are on NUMA node 0 (the simulated VF's node).
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: kubelet-state.sh DIR PODS UID" >&2; exit 2; }
K=$1/var/lib/kubelet
mkdir -p "$K/device-plugins"
awk -v pods="$2" -v uid="$3" -v k="$K" '
function puid(p) { return p == pods - 1 ? uid : sprintf("%08x-5c1e-4a3b-9d2f-%012x", p * 2654435761 % 4294967296, p) }
# a deterministic base64 text of n characters, different for every (p, r)
function blob(n, p, r,   o) { o = (p * 131 + r * 17) % (length(B64) - n); return substr(B64, o + 1, n) }
BEGIN {
	srand(15)
	al = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for (i = 0; i < 16384; i++) B64 = B64 substr(al, int(rand() * 64) + 1, 1)
	dev = k "/device-plugins/kubelet_internal_checkpoint"
	printf "{\"Data\":{\"PodDeviceEntries\":[" > dev
	for (p = 0; p < pods; p++) {
		u = puid(p); node = p == pods - 1 ? 0 : p % 2
		ids = ""
		for (g = 0; g < 8; g++)
			ids = ids sprintf("%s\"GPU-%08x-1c2d-3e4f-5a6b-%012x\"", g ? "," : "", p, g)
		printf "%s{\"PodUID\":\"%s\",\"ContainerName\":\"trainer\",\"ResourceName\":\"nvidia.com/gpu\",\"DeviceIDs\":{\"%d\":[%s]},\"AllocResp\":\"%s\"}", p ? "," : "", u, node, ids, blob(6144, p, 0) > dev
		for (r = 0; r < 8; r++)
			printf ",{\"PodUID\":\"%s\",\"ContainerName\":\"trainer\",\"ResourceName\":\"nvidia.com/rail%d\",\"DeviceIDs\":{\"%d\":[\"0000:%02x:%02x.%d\"]},\"AllocResp\":\"%s\"}", u, r, node, 0x17 + r * 16, 2 + int(p / 8) % 32, p % 8, blob(1896, p, r + 1) > dev
	}
	printf "],\"RegisteredDevices\":{\"nvidia.com/gpu\":[" > dev
	for (g = 0; g < 8; g++) printf "%s\"GPU-%08x-1c2d-3e4f-5a6b-%012x\"", g ? "," : "", 0, g > dev
	printf "]}},\"Checksum\":2881410522}\n" > dev
	cpu = k "/cpu_manager_state"
	printf "{\"policyName\":\"static\",\"defaultCpuSet\":\"0-1,56-57\",\"entries\":{" > cpu
	for (p = 0; p < pods; p++) {
		c = p == pods - 1 ? 0 : 2 + p % 100
		printf "%s\"%s\":{\"trainer\":\"%d-%d\",\"sidecar\":\"%d\"}", p ? "," : "", puid(p), c, c + 1, c + 2 > cpu
	}
	printf "},\"checksum\":1234567890}\n" > cpu
	mem = k "/memory_manager_state"
	printf "{\"policyName\":\"Static\",\"machineState\":{\"0\":{\"numberOfAssignments\":%d,\"memoryMap\":{\"memory\":{\"total\":540000000000,\"systemReserved\":1073741824,\"allocatable\":538926258176,\"reserved\":%d,\"free\":1000000}},\"cells\":[0]},\"1\":{\"numberOfAssignments\":0,\"memoryMap\":{\"memory\":{\"total\":540000000000,\"systemReserved\":0,\"allocatable\":540000000000,\"reserved\":0,\"free\":540000000000}},\"cells\":[1]}},\"entries\":{", pods, pods * 1073741824 > mem
	for (p = 0; p < pods; p++)
		printf "%s\"%s\":{\"trainer\":[{\"numaAffinity\":[%d],\"type\":\"memory\",\"size\":1073741824}]}", p ? "," : "", puid(p), p == pods - 1 ? 0 : p % 2 > mem
	printf "},\"checksum\":987654321}\n" > mem
}'
