#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Guest side of the GPUDirect RDMA test (issue 44; run by guest.sh inside QEMU):
# vm: gdr-tree (guest.sh: the first igb PF below an x3130/xio3130 switch, a display
# device (class 0x03, the "GPU") below the switch's other downstream port, a second one on
# a root port of its own). The real kernel's sysfs places them; the production binary's ADD,
# with the GPU's ID from kubelet's PodResources (tests/simnode/podres_server.py) as an
# AMD-style PCI address, must find PIX for the first and PHB for the second, and the agent
# report the same. The CPU's hypervisor flag makes node.gdrTopology auto say unknown.
set -u
. "${RQSRC:?}/tests/vm/lib.sh"

modprobe igb && modprobe igbvf || fail "modprobe igb igbvf"
udevadm settle 2> /dev/null; sleep 1
PFPCI=$(basename "$(readlink -f "$(ls -d /sys/bus/pci/drivers/igb/0000:* | head -1)")")
# the display devices behind a port: q35's own VGA (00:01.0, on the root complex) is not one
# of ours (the guest has no /dev/fd: no process substitution)
GPUS=()
for d in /sys/bus/pci/devices/*; do
	case $(cat "$d/class")/$(basename "$(dirname "$(readlink -f "$d")")") in
	0x03*/pci*) ;;
	0x03*) GPUS+=("$(basename "$(readlink -f "$d")")") ;;
	esac
done
echo "kernel $(uname -r); PF $PFPCI at $(readlink -f /sys/bus/pci/devices/$PFPCI)"
for g in "${GPUS[@]}"; do echo "display $g at $(readlink -f /sys/bus/pci/devices/$g)"; done
check "two display devices (class 0x03)" [ "${#GPUS[@]}" = 2 ]
# which display shares the PF's switch: the one whose grandparent is the PF's grandparent
up2() { basename "$(dirname "$(dirname "$(readlink -f "/sys/bus/pci/devices/$1")")")"; }
if same "$(up2 "${GPUS[0]}")" "$(up2 "$PFPCI")"; then NEAR=${GPUS[0]} FAR=${GPUS[1]}; else NEAR=${GPUS[1]} FAR=${GPUS[0]}; fi
vf_enable "$PFPCI" 1
VFPCI=$(basename "$(readlink -f "/sys/bus/pci/devices/$PFPCI/virtfn0")")
VF=$(ls "/sys/bus/pci/devices/$VFPCI/net")
echo "VF $VF ($VFPCI); the switch's GPU $NEAR, the root port's GPU $FAR"

modprobe overlay; mkdir -p /run/etc-up /run/etc-work
mount -t overlay overlay -o lowerdir=/etc,upperdir=/run/etc-up,workdir=/run/etc-work /etc ||
	fail "overlay over /etc for the node catalog"
mkdir -p /var/lib/kubelet /etc/cni/rdma-qos /tmp/pb
"$RQSRC/tests/simnode/mknode" --root / pod --uid u-near --device "amd.com/gpu=$NEAR@-1" > /dev/null
"$RQSRC/tests/simnode/mknode" --root / pod --uid u-far --device "amd.com/gpu=$FAR@-1" > /dev/null
protoc --python_out=/tmp/pb -I"$RQSRC/pkg/podres" "$RQSRC/pkg/podres/api.proto" || fail "protoc"
python3 "$RQSRC/tests/simnode/podres_server.py" --root / --pb /tmp/pb --pod ml/near=u-near \
	--pod ml/far=u-far > /tmp/psrv.log 2>&1 &
for _ in $(seq 300); do grep -q ready /tmp/psrv.log && break; sleep 0.1; done
check "PodResources server up" grep -q ready /tmp/psrv.log
# a profile that asks nothing of the PF or the VF (igb has no dcbnl, igbvf no RDMA device):
# the verdict is what is looked at
catalog() {
	echo '{"profiles": {"roce-lossless": {}}, "namespaces": {"*": {"default": "roce-lossless",
	"allow": ["roce-lossless"]}}, "node": {"numaSource": "api", "gdrTopology": "'"$1"'"}}' \
		> /etc/cni/rdma-qos/profiles.json
}
ip netns add pod
ARGS() { echo "IgnoreUnknown=1;K8S_POD_NAMESPACE=ml;K8S_POD_NAME=$1;K8S_POD_UID=u-$1"; }
REC() { cat /run/rdma-qos/state/roce_$1_net1.json 2> /dev/null; }
add() { # POD: host-device moves the VF into the pod, then rdma-qos
	local prev
	prev=$(conf "{\"type\":\"host-device\",\"device\":\"$VF\"}" | run $HD ADD "$1" /run/netns/pod net1 "$(ARGS "$1")") ||
		{ fail "host-device ADD $1"; return 1; }
	conf "{\"type\":\"rdma-qos\",\"deviceID\":\"$VFPCI\",\"gdr\":\"${2:-warn}\"}" "$prev" |
		run "$RQ" ADD "$1" /run/netns/pod net1 "$(ARGS "$1")" > /tmp/add.out 2> /tmp/add.err
}
del() {
	conf "{\"type\":\"rdma-qos\",\"deviceID\":\"$VFPCI\"}" | run "$RQ" DEL "$1" /run/netns/pod net1 "$(ARGS "$1")" > /dev/null 2>&1
	conf "{\"type\":\"host-device\",\"device\":\"$VF\"}" | run $HD DEL "$1" /run/netns/pod net1 "$(ARGS "$1")" > /dev/null 2>&1
}
catalog auto
check "the guest's CPU reports a hypervisor" grep -qw hypervisor /proc/cpuinfo
add near
check "gdrTopology auto under a hypervisor: ADD succeeds" [ $? -eq 0 ]
check "... verdict unknown" [ "$(REC near | jq -r .gdrVerdict)" = unknown ]
del near
catalog sysfs
add near
check "ADD of the pod whose GPU shares the VF's switch" [ $? -eq 0 ] || cat /tmp/add.out /tmp/add.err
echo "record: $(REC near | jq -c '{gdrVerdict, gdrPath, gdrGpu, gdrDegraded, gdrEvidence}')"
check "real sysfs: PIX, near" [ "$(REC near | jq -r '.gdrPath + " " + .gdrVerdict')" = "pix near" ]
check "the GPU by its PCI address, as AMD's device plugin names it" [ "$(REC near | jq -r '.gdrGpu.pci + " " + .gdrGpu.source')" = "$NEAR amd.com/gpu" ]
check "no ACS redirect (xio3130 ports have no ACS)" [ -z "$(REC near | jq -r '.gdrDegraded // [] | map(select(. == "acs_redirect")) | .[]')" ]
"$RQ" agent --once --metrics-file /tmp/m > /tmp/agent.log 2>&1
check "agent: rdma_qos_vf_gpu_path pix" grep -q "^rdma_qos_vf_gpu_path{namespace=\"ml\",pod=\"near\",vf=\"$VFPCI\",gpu=\"$NEAR\",path=\"pix\"} 1" /tmp/m
"$RQ" show | grep -E "^GPUDirect|GDR " | sed 's/^/  show: /'
del near
add far
check "ADD of the pod whose GPU is on another root port (gdr warn)" [ $? -eq 0 ]
check "real sysfs: PHB, far at gdrLevel pxb" [ "$(REC far | jq -r '.gdrPath + " " + .gdrVerdict')" = "phb far" ]
"$RQ" agent --once --metrics-file /tmp/m > /tmp/agent.log 2>&1
check "agent: rdma_qos_gdr_far" grep -q "^rdma_qos_gdr_far{namespace=\"ml\",pod=\"far\",vf=\"$VFPCI\"} 1" /tmp/m
del far
add far strict
check "gdr strict: ADD fails with 113" [ "$(jq -r .code /tmp/add.out 2> /dev/null)" = 113 ]
check "... no record left" [ -z "$(REC far)" ]
del far
echo "$PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
