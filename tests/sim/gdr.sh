#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# GPUDirect RDMA verdict on a simulated node with a nested PCIe tree (issue 44):
# each path level as NCCL computes it (pix, pxb, phb, sys), gdr strict failing
# ADD and CHECK with 113 and leaving nothing behind, MIG -> unknown, AMD by PCI
# address, ACS redirect and a NIC link trained down, peer memory, a hypervisor,
# and a pod without a GPU costing no extra syscall (strace).
set -u
. "$(dirname "$0")/lib.sh"

sim_suite_start "GPUDirect RDMA sim tests" rqgdr sim_can_run

"$MKNODE" --root "$ROOT" --pfs 2 --vfs 2 --numa-nodes 2 --cpus-per-node 4 --rdma configfs \
	--ecn yes --dcb yes --pf-prefix gd$$ > /dev/null || { echo "FAIL: mknode"; exit 1; }
mk() { "$MKNODE" --root "$ROOT" "$@" || fail "mknode $*"; }
RP=pci0000:00/0000:00:01.0
SW=$RP/0000:10:00.0 # a switch: upstream port 10:00.0, downstream ports 11:0x.0
# PF0 (node 0) below the switch's port 11:00.0; PF1 (node 1) on another host bridge
mk move 0000:81:00.0 --under "$SW/0000:11:00.0"
mk move 0000:82:00.0 --under pci0000:80/0000:80:01.0
mk gpu 0000:12:00.0 --under "$SW/0000:11:01.0" --uuid GPU-aaaaaaaa-0000-0000-0000-000000000001 --minor 0
mk gpu 0000:1b:00.0 --under pci0000:00/0000:00:02.0 --uuid GPU-bbbbbbbb-0000-0000-0000-000000000002 --minor 1
mk gpu 0000:c1:00.0 --under pci0000:c0/0000:c0:01.0 --numa 1 --uuid GPU-cccccccc-0000-0000-0000-000000000003 --minor 2
# behind a second switch (13:00.0) on the first one's port 11:02.0: two switches, no host bridge
mk gpu 0000:15:00.0 --under "$SW/0000:11:02.0/0000:13:00.0/0000:14:00.0" --uuid GPU-dddddddd-0000-0000-0000-000000000004 --minor 3
mk gpu 0000:16:00.0 --under "$SW/0000:11:03.0" --vendor amd --minor 5
# a Grace-style C2C GPU (its memory a NUMA node) on a root port of PF0's host bridge: p2c
mk gpu 0000:1c:00.0 --under pci0000:00/0000:00:04.0 --c2c --uuid GPU-eeeeeeee-0000-0000-0000-000000000005 --minor 4
mk peermem registered
sim_make_vfs "$ROOT"
mapfile -t VFS < <(sim_vfs "$ROOT")
read -r _ VFPCI VF <<< "${VFS[0]}" # PF0's first VF
pod() { "$MKNODE" --root "$ROOT" pod --uid "$1" "${@:2}" > /dev/null; }
pod pod-pix --device nvidia.com/gpu=GPU-aaaaaaaa-0000-0000-0000-000000000001@0
pod pod-phb --device nvidia.com/gpu=GPU-bbbbbbbb-0000-0000-0000-000000000002@0
pod pod-sys --device nvidia.com/gpu=GPU-cccccccc-0000-0000-0000-000000000003@1
pod pod-pxb --device nvidia.com/gpu=GPU-dddddddd-0000-0000-0000-000000000004@0
pod pod-mig --device nvidia.com/mig-1g.10gb=MIG-0e4b7f10-0000-0000-0000-000000000000@0
pod pod-amd --device amd.com/gpu=0000:16:00.0@0
# nearest of several: the SYS one, the PHB one and the PIX one; the PIX one wins
pod pod-multi --device nvidia.com/gpu=GPU-cccccccc-0000-0000-0000-000000000003@1 \
	--device nvidia.com/gpu=GPU-bbbbbbbb-0000-0000-0000-000000000002@0 \
	--device nvidia.com/gpu=GPU-aaaaaaaa-0000-0000-0000-000000000001@0
pod pod-none --cpus 0-1
pod pod-c2c --device nvidia.com/gpu=GPU-eeeeeeee-0000-0000-0000-000000000005@0
STATE=$ROOT/run/rdma-qos/state
args() { echo "IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p-$1;K8S_POD_UID=$1"; }
rq() { echo "{\"type\":\"rdma-qos\",\"deviceID\":\"$VFPCI\"${1:+,$1}}"; }
rec() { cat "$STATE/gdr_$1_net1.json" 2>/dev/null; }
NS=$(newns p)
# add POD [EXTRA-KEYS]: ADD as a runtime runs the chain; the output in $T/out, rc returned
add() { chain_add "$ROOT" gdr "$1" "$NS" net1 "$VF" "$(rq "${2:-}")" "$(args "$1")" > "$T/out"; }
del() { chain_del "$ROOT" gdr "$1" "$NS" net1 "$VF" "$(rq "${2:-}")" "$(args "$1")" > /dev/null 2>&1; }
field() { jq -r "$2" <<< "$(rec "$1")"; }

echo "== path levels as NCCL computes them"
for c in pix:pix:near phb:phb:far sys:sys:far pxb:pxb:near multi:pix:near amd:pix:near; do
	IFS=: read -r p lvl verdict <<< "$c"
	add "pod-$p"
	check "pod-$p: ADD succeeds (gdr warn)" [ $? -eq 0 ]
	check "pod-$p: gdrPath $lvl" [ "$(field "pod-$p" .gdrPath)" = "$lvl" ]
	check "pod-$p: gdrVerdict $verdict" [ "$(field "pod-$p" .gdrVerdict)" = "$verdict" ]
	check "pod-$p: gdr warn, gdrLevel pxb recorded" [ "$(field "pod-$p" '.gdr + " " + .gdrLevel')" = "warn pxb" ]
	del "pod-$p"
done
add pod-pix
check "the GPU recorded: pci, UUID, resource" [ "$(field pod-pix '.gdrGpu | .pci + " " + .id + " " + .source')" = "0000:12:00.0 GPU-aaaaaaaa-0000-0000-0000-000000000001 nvidia.com/gpu" ]
check "evidence names the switch" grep -q "PIX to GPU 0000:12:00.0 .* via switch 0000:10:00.0" <<< "$(field pod-pix .gdrEvidence)"
check "no degradation with peer memory registered, no ACS, no IOMMU" [ "$(field pod-pix '.gdrDegraded // [] | length')" = 0 ]
del pod-pix
add pod-amd
check "AMD device-plugin ID is the PCI address" [ "$(field pod-amd '.gdrGpu | .pci + " " + .source')" = "0000:16:00.0 amd.com/gpu" ]
del pod-amd
add pod-phb '"gdrLevel":"phb"'
check "gdrLevel phb: PHB is near" [ "$(field pod-phb .gdrVerdict)" = near ]
del pod-phb '"gdrLevel":"phb"'

echo "== issue 49 item 6: PCIe switches, C2C and levels as NCCL reads them"
# NCCL masks Broadcom PEX ids with 0xfffffffffffff000: a Gen4 pair of levels whose
# subsystem_device is any 0xaxxx is one switch (pod-pxb's GPU D sits below both)
bcm() { for f in vendor:0x1000 device:$2 subsystem_vendor:0x1000 subsystem_device:$3; do echo "${f#*:}" > "$ROOT/sys/bus/pci/devices/$1/${f%%:*}"; done; }
bcm 0000:10:00.0 0xc010 0xa123
bcm 0000:13:00.0 0xc010 0xa456
add pod-pxb
check "Broadcom Gen4 two-level switch (subsystem 0xa123 over 0xa456): one switch, gdrPath pix" [ "$(field pod-pxb .gdrPath)" = pix ]
del pod-pxb
bcm 0000:10:00.0 0xc030 0x1000
bcm 0000:13:00.0 0xc030 0x1000
add pod-pxb
check "Broadcom Gen5 with both levels' subsystem 0x1000 (children): two switches, pxb" [ "$(field pod-pxb .gdrPath)" = pxb ]
del pod-pxb
echo 0x8086 > "$ROOT/sys/bus/pci/devices/0000:10:00.0/vendor"
echo 0x8086 > "$ROOT/sys/bus/pci/devices/0000:13:00.0/vendor"
add pod-c2c
check "a C2C GPU on PF0's host bridge, no gdrLevel (NCCL's default P2C): p2c near, gdrLevel pxb recorded" \
	[ "$(field pod-c2c '.gdrPath + " " + .gdrVerdict + " " + .gdrLevel')" = "p2c near pxb" ]
del pod-c2c
add pod-c2c '"gdrLevel":"pxb"'
check "... an explicit gdrLevel pxb (NCCL_NET_GDR_LEVEL=PXB): far" [ "$(field pod-c2c '.gdrPath + " " + .gdrVerdict')" = "p2c far" ]
del pod-c2c '"gdrLevel":"pxb"'
add pod-c2c '"gdrLevel":"P2C"'
check "... gdrLevel P2C (a level name, NCCL's case): near, recorded p2c" [ "$?:$(field pod-c2c '.gdrVerdict + " " + .gdrLevel')" = "0:near p2c" ]
del pod-c2c '"gdrLevel":"P2C"'
echo '{"profiles":{},"namespaces":{"*":{"default":"roce-lossless","allow":["roce-lossless"]}},"node":{"gdrLevel":"pxb"}}' > "$ROOT/etc/cni/rdma-qos/profiles.json"
add pod-c2c
check "... node.gdrLevel pxb is explicit too: far" [ "$(field pod-c2c .gdrVerdict)" = far ]
del pod-c2c
rm -f "$ROOT/etc/cni/rdma-qos/profiles.json"
# without CAP_SYS_ADMIN the kernel serves 64 bytes of config space: no port types, no ACS
mk config 0000:11:00.0 --cap gen4x16 --sta gen4x8 --type down --acs 1d
mk config 0000:10:00.0 --cap gen5x16 --type up --acs 1d
mk config 0000:81:00.0 --cap gen4x8
for b in 0000:11:00.0 0000:10:00.0 0000:81:00.0; do truncate -s 64 "$ROOT/sys/bus/pci/devices/$b/config"; done
add pod-phb '"gdrLevel":"phb"'
check "64-byte config space: the downstream port's x8 link (to the x8 PF) is not judged against the switch's upstream x16" \
	[ "$(field pod-phb '.gdrDegraded // [] | join(",")')" = "" ] || field pod-phb .gdrEvidence
del pod-phb '"gdrLevel":"phb"'
add pod-pix
check "... ACS not read: no acs_redirect, the evidence says so" \
	[ "$(field pod-pix '.gdrDegraded // [] | join(",")')" = "" ]
check "... 'ACS not read on bridge 0000:11:00.0'" grep -q "ACS not read on bridge 0000:11:00.0 (the config space past 64 bytes needs CAP_SYS_ADMIN)" <<< "$(field pod-pix .gdrEvidence)"
del pod-pix
rm -f "$ROOT"/sys/bus/pci/devices/0000:1[01]:00.0/{config,max_link_speed,max_link_width,current_link_speed,current_link_width} \
	"$ROOT"/sys/bus/pci/devices/0000:81:00.0/{config,max_link_speed,max_link_width,current_link_speed,current_link_width}

echo "== gdr strict: far fails ADD with 113, nothing left"
before=$(find "$ROOT/run" "$ROOT/dcb" -type f -exec md5sum {} + 2>/dev/null | sort)
add pod-sys '"gdr":"strict"'
rc=$?
check "strict + SYS: ADD fails" [ $rc -ne 0 ]
check "code 113" [ "$(jq -r .code "$T/out")" = 113 ]
check "message names VF, nearest GPU and level" grep -q "VF $VFPCI (PF 0000:81:00.0) is SYS from every GPU of the pod: nearest GPU 0000:c1:00.0 (GPU-cccccccc-0000-0000-0000-000000000003); gdrLevel pxb" <<< "$(jq -r .msg "$T/out")"
check "no record left" [ -z "$(ls "$STATE" 2>/dev/null | grep pod-sys)" ]
after=$(find "$ROOT/run" "$ROOT/dcb" -type f -exec md5sum {} + 2>/dev/null | grep -v '\.lock' | sort)
check "run/ and dcb/ as before (locks aside)" [ "$(grep -v '\.lock' <<< "$before")" = "$after" ]
add pod-pix '"gdr":"strict"'
check "strict + PIX: ADD succeeds" [ $? -eq 0 ]
del pod-pix '"gdr":"strict"'

echo "== CHECK recomputes under strict"
add pod-phb
prev=$(cat "$T/out")
chain_check "$ROOT" gdr pod-phb "$NS" net1 "$VF" "$(rq '"gdr":"strict"')" "$(args pod-phb)" "$prev" > "$T/chk"
check "CHECK strict on a PHB pair fails" [ $? -ne 0 ]
check "... with 113" [ "$(jq -r .code "$T/chk")" = 113 ]
chain_check "$ROOT" gdr pod-phb "$NS" net1 "$VF" "$(rq)" "$(args pod-phb)" "$prev" > "$T/chk"
check "CHECK warn passes" [ $? -eq 0 ]
del pod-phb

echo "== unknown, no-gpu, off"
add pod-mig '"gdr":"strict"'
check "MIG: ADD succeeds under strict (unknown never fails)" [ $? -eq 0 ]
check "MIG: unknown" [ "$(field pod-mig .gdrVerdict)" = unknown ]
check "MIG: named in the evidence" grep -q "MIG-0e4b7f10" <<< "$(field pod-mig .gdrEvidence)"
del pod-mig '"gdr":"strict"'
add pod-none
check "no GPU: no-gpu" [ "$(field pod-none .gdrVerdict)" = no-gpu ]
check "no GPU: no gdrGpu, no evidence" [ "$(field pod-none '(.gdrGpu // "") + (.gdrEvidence // "")')" = "" ]
del pod-none
add pod-sys '"gdr":"off"'
check "gdr off: no verdict recorded" [ "$(field pod-sys '.gdr + " " + (.gdrVerdict // "none")')" = "off none" ]
del pod-sys '"gdr":"off"'
echo '{"profiles":{},"namespaces":{"*":{"default":"roce-lossless","allow":["roce-lossless"]}},"node":{"gdrLevel":"sys"}}' > "$ROOT/etc/cni/rdma-qos/profiles.json"
add pod-sys
check "node.gdrLevel sys: SYS is near" [ "$(field pod-sys '.gdrLevel + " " + .gdrVerdict')" = "sys near" ]
del pod-sys
echo '{"profiles":{},"node":{"gdrLevel":"node"}}' > "$ROOT/etc/cni/rdma-qos/profiles.json"
add pod-sys
check "node.gdrLevel node (a path, not a level): code 7" [ "$(jq -r .code "$T/out")" = 7 ]
check "... naming the field and the five levels" grep -q 'node.gdrLevel: expected one of \\"pix\\", \\"pxb\\", \\"p2c\\", \\"phb\\", \\"sys\\"' "$T/out"
rm -f "$ROOT/etc/cni/rdma-qos/profiles.json"
add pod-sys '"gdr":"sometimes"'
check "NAD gdr: a bad value is code 7" [ "$(jq -r .code "$T/out")" = 7 ]
check "... naming gdr" grep -q '"gdr: expected one of' "$T/out"
add pod-sys '"gdrLevel":"node"'
check "NAD gdrLevel node: code 7" [ "$(jq -r .code "$T/out")" = 7 ]
check "... naming gdrLevel" grep -q 'gdrLevel: expected' "$T/out"
check "no record after refused configurations" [ -z "$(ls "$STATE" 2>/dev/null | grep pod-sys)" ]
mkdir -p "$ROOT/sys/hypervisor" && echo kvm > "$ROOT/sys/hypervisor/type"
add pod-pix
check "hypervisor, gdrTopology auto: unknown" [ "$(field pod-pix .gdrVerdict)" = unknown ]
del pod-pix
echo '{"profiles":{},"namespaces":{"*":{"default":"roce-lossless","allow":["roce-lossless"]}},"node":{"gdrTopology":"sysfs"}}' > "$ROOT/etc/cni/rdma-qos/profiles.json"
add pod-pix
check "hypervisor, gdrTopology sysfs: judged" [ "$(field pod-pix .gdrVerdict)" = near ]
del pod-pix
rm -rf "$ROOT/sys/hypervisor" "$ROOT/etc/cni/rdma-qos/profiles.json"

echo "== degradations of a near pair"
mk config 0000:11:00.0 --cap gen4x16 --type down --acs 1d
mk config 0000:10:00.0 --cap gen4x16 --type up --acs 1d
add pod-pix
check "ACS RR CR on the downstream port: acs_redirect" [ "$(field pod-pix '.gdrDegraded | join(",")')" = acs_redirect ]
check "... the bridge named" grep -q "ACS redirect (RR CR) on bridge 0000:11:00.0" <<< "$(field pod-pix .gdrEvidence)"
check "... not the shared switch's own port" [ -z "$(grep "bridge 0000:10:00.0" <<< "$(field pod-pix .gdrEvidence)")" ]
del pod-pix
mk config 0000:11:00.0 --cap gen4x16 --type down --acs 11
mk config 0000:81:00.0 --cap gen4x16 --sta gen4x8
add pod-pix '"gdr":"strict"'
check "strict: a degraded near pair is not refused" [ $? -eq 0 ]
check "ACS capable but RR/CR/EC off, PF at x8 of x16: link_downgraded only" [ "$(field pod-pix '.gdrDegraded | join(",")')" = link_downgraded ]
del pod-pix '"gdr":"strict"'
mk config 0000:81:00.0 --cap gen4x16
mk config 0000:12:00.0 --cap gen5x16 --sta gen1x1
add pod-pix
check "an idle GPU at Gen1 x1 is not judged" [ "$(field pod-pix '.gdrDegraded // [] | length')" = 0 ]
del pod-pix
rm -rf "$ROOT/sys/kernel/mm/memory_peers"
add pod-pix
check "nvidia_peermem loaded, not registered: no_peer_memory" [ "$(field pod-pix '.gdrDegraded | join(",")')" = no_peer_memory ]
check "... named" grep -q "nvidia_peermem is loaded but registered no" <<< "$(field pod-pix .gdrEvidence)"
del pod-pix
mk peermem dmabuf --kernel 6.8.0
add pod-pix
check "DMA-BUF (kernel 6.8, open module): no degradation" [ "$(field pod-pix '.gdrDegraded // [] | length')" = 0 ]
del pod-pix
mk iommu 0000:81:00.0 --group 12 --type DMA-FQ
add pod-pix
check "PF in a DMA-FQ IOMMU group: iommu_translated" [ "$(field pod-pix '.gdrDegraded | join(",")')" = iommu_translated ]
del pod-pix

echo "== show, the agent's families, NFD, a multi-rail pod"
rm -f "$ROOT/sys/bus/pci/devices/0000:81:00.0/iommu_group"
read -r _ VF2PCI VF2 <<< "${VFS[1]}" # PF0's second VF
pod pod-rails --device nvidia.com/gpu=GPU-aaaaaaaa-0000-0000-0000-000000000001@0 \
	--device nvidia.com/gpu=GPU-cccccccc-0000-0000-0000-000000000003@1
add pod-rails
chain_add "$ROOT" gdr pod-rails "$NS" net2 "$VF2" "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF2PCI\"}" "$(args pod-rails)" > /dev/null
check "a second rail of the pod on the same PF" [ $? -eq 0 ]
read -r _ VF3PCI VF3 <<< "${VFS[2]}" # PF1's first VF: node 1, another host bridge than GPU C
NS2=$(newns q)
rq3="{\"type\":\"rdma-qos\",\"deviceID\":\"$VF3PCI\"}"
chain_add "$ROOT" gdr pod-sys "$NS2" net1 "$VF3" "$rq3" "$(args pod-sys)" > /dev/null
check "pod-sys on PF1's VF" [ "$(field pod-sys '.gdrPath + " " + .gdrVerdict')" = "node far" ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show > "$T/show" 2> /dev/null
check "show: the node GPUDirect line" grep -q "^GPUDirect: peer memory dma_buf; IOMMU " "$T/show"
check "show: GDR near line under the NUMA line" grep -q "^    GDR near: PIX to GPU 0000:12:00.0 (GPU-aaaaaaaa-0000-0000-0000-000000000001)" "$T/show"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --json > "$T/show.json" 2> /dev/null
check "show --json: per attachment gdrVerdict, gdrPath, gdrGpu" [ "$(jq -r '[.pfs[].vfs[].attachment | select(. != null) | select(.gdrGpu.pci == "0000:12:00.0") | .gdrVerdict + "/" + .gdrPath] | unique | join(",")' "$T/show.json")" = near/pix ]
check "show --json: the node's gdr" [ "$(jq -r '.gdr.peerMemory | join(",")' "$T/show.json")" = dma_buf ]
mk config 0000:11:00.0 --cap gen4x16 --type down --acs 1d
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --once --metrics-file "$T/m" --nfd-features-file "$T/nfd" > /dev/null 2>&1
M=$T/m
check "agent: rdma_qos_vf_gpu_path" grep -q "^rdma_qos_vf_gpu_path{namespace=\"ai\",pod=\"p-pod-rails\",vf=\"$VFPCI\",gpu=\"0000:12:00.0\",path=\"pix\"} 1" "$M"
check "agent: ACS set after ADD is seen by the pass (registers read again)" grep -q "^rdma_qos_gdr_degraded{namespace=\"ai\",pod=\"p-pod-rails\",vf=\"$VFPCI\",reason=\"acs_redirect\"} 1" "$M"
check "agent: two rails of the pod on one PF" grep -q "^rdma_qos_pod_shared_pf{namespace=\"ai\",pod=\"p-pod-rails\",pf=\"0000:81:00.0\"} 2" "$M"
check "agent: one of its GPUs (SYS) without a rail" grep -q "^rdma_qos_pod_gpus_without_rail{namespace=\"ai\",pod=\"p-pod-rails\"} 1" "$M"
check "agent: rdma_qos_gdr_far for the NODE pair" grep -q "^rdma_qos_gdr_far{namespace=\"ai\",pod=\"p-pod-sys\",vf=\"$VF3PCI\"} 1" "$M"
check "agent: rdma_qos_gdr_peer_memory" grep -q '^rdma_qos_gdr_peer_memory{method="dma_buf"} 1' "$M"
check "NFD: rdma-qos.gdr degraded" grep -qx "feature.node.kubernetes.io/rdma-qos.gdr=degraded" "$T/nfd"
mk config 0000:11:00.0 --cap gen4x16 --type down --acs 01
chain_del "$ROOT" gdr pod-sys "$NS2" net1 "$VF3" "$rq3" "$(args pod-sys)" > /dev/null 2>&1
chain_del "$ROOT" gdr pod-rails "$NS" net2 "$VF2" "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF2PCI\"}" "$(args pod-rails)" > /dev/null 2>&1
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --once --metrics-file "$T/m" --nfd-features-file "$T/nfd" > /dev/null 2>&1
check "agent: ACS off again, no degradation" [ -z "$(grep '^rdma_qos_gdr_degraded{' "$M")" ]
check "NFD: rdma-qos.gdr ok" grep -qx "feature.node.kubernetes.io/rdma-qos.gdr=ok" "$T/nfd"
del pod-rails
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --once --metrics-file "$T/m" --nfd-features-file "$T/nfd" > /dev/null 2>&1
check "no GPU attachment: no pair series" [ -z "$(grep -E '^rdma_qos_(vf_gpu_path|gdr_far|gdr_degraded|pod_gpus_without_rail|pod_shared_pf)\{' "$M")" ]
check "NFD: rdma-qos.gdr unknown" grep -qx "feature.node.kubernetes.io/rdma-qos.gdr=unknown" "$T/nfd"

echo "== an adopted multi-rail pod: one series per pod, not per VF (issue 49 item 3)"
# adoption (plugin/agent/unchained.c adopt_one) keys each VF's record by the VF's address as
# its containerID: two rails of one pod are two containerIDs, as these two ADDs make them (CNI
# forbids ':' in a containerID, so the address is dashed here)
pod pod-adopt --device nvidia.com/gpu=GPU-aaaaaaaa-0000-0000-0000-000000000001@0
NS3=$(newns r)
chain_add "$ROOT" gdr "$(echo "$VFPCI" | tr ':.' '--')" "$NS3" net1 "$VF" "$(rq)" "$(args pod-adopt)" > "$T/out" 2>&1 &&
	chain_add "$ROOT" gdr "$(echo "$VF3PCI" | tr ':.' '--')" "$NS3" net2 "$VF3" "$rq3" "$(args pod-adopt)" > "$T/out" 2>&1
check "two rails of p-pod-adopt (PF0's VF near GPU A, PF1's far), containerID = each VF" [ $? -eq 0 ] || cat "$T/out"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --once --metrics-file "$T/m" --nfd-features-file "$T/nfd" > /dev/null 2>&1
check "agent: exactly one rdma_qos_pod_gpus_without_rail series for the pod, 0 (GPU A has PF0's rail): $(grep -c '^rdma_qos_pod_gpus_without_rail{namespace="ai",pod="p-pod-adopt"}' "$M") series" \
	[ "$(grep '^rdma_qos_pod_gpus_without_rail{namespace="ai",pod="p-pod-adopt"}' "$M")" = 'rdma_qos_pod_gpus_without_rail{namespace="ai",pod="p-pod-adopt"} 0' ]
promtool check metrics < "$M" > "$T/lint" 2>&1
check "agent: the metrics file passes promtool" [ $? -eq 0 ] || cat "$T/lint"
chain_del "$ROOT" gdr "$(echo "$VF3PCI" | tr ':.' '--')" "$NS3" net2 "$VF3" "$rq3" "$(args pod-adopt)" > /dev/null 2>&1
chain_del "$ROOT" gdr "$(echo "$VFPCI" | tr ':.' '--')" "$NS3" net1 "$VF" "$(rq)" "$(args pod-adopt)" > /dev/null 2>&1

echo "== a pod without a GPU costs no extra syscall"
if command -v strace > /dev/null; then
	count() { # GDR-KEYS: syscalls of one rdma-qos-sim ADD of pod-none
		conf_for gdr 1.0.0 '{"type":"host-device","device":"'"$VF"'"}' | run_plugin "$HOSTDEV" ADD pod-none "$NS" net1 "$(args pod-none)" > "$T/hd"
		conf_for gdr 1.0.0 "$(rq "$1")" "$(cat "$T/hd")" | RDMA_QOS_SIM_ROOT=$ROOT strace -f -c -o "$T/st" \
			env CNI_COMMAND=ADD CNI_CONTAINERID=pod-none CNI_NETNS=$NS CNI_IFNAME=net1 CNI_PATH=$CNI_BIN_DIR \
			CNI_ARGS="$(args pod-none)" "$SIM" > /dev/null
		del pod-none "$1"
		awk '$NF == "total" { print $(NF-2) }' "$T/st"
	}
	count '"gdr":"warn"' > /dev/null # warm up
	a=$(count '"gdr":"off"'); b=$(count '"gdr":"warn"')
	check "no GPU: the same syscalls with gdr warn as off ($b vs $a)" [ -n "$a" ]
	check "no GPU: the syscalls with gdr warn are those with off" [ "$a" = "$b" ]
else
	fail "strace missing (tests/sim/packages.txt)"
fi
summary
