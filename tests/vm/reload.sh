#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Guest side of the driver-reload test (issue 20 item 4; make vm-reload-test, its
# own guest boot): the production agent runs while the test modules are unloaded
# and loaded again as a driver reload or firmware reset does it. igbvf's reload
# makes the VF netdevs again in the host netns (the pod loses its rail), dcbsim's
# resets the PF's DCB state, ibsim comes back under a new name and the old name
# goes to another VF's RDMA device (rxe). The agent must repair the PF, report the
# attachment out of its pod (log, rdma_qos_vf_in_pod 0, show) and write no knob of
# any device; DEL afterwards must leave the knob of the device now carrying the
# recorded name alone.
set -u
. "${RQSRC:?}/tests/vm/lib.sh"
INTERVAL=3
ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p0;K8S_POD_UID=pod-r0"
CFG=/sys/kernel/config/rdma_cm
metric() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
pfc3_on() { dcb pfc show dev "$PF" prio-pfc | grep -q '3:on'; }
writes() { cat /sys/module/ibsim/parameters/tc_writes; }

modprobe igb && modprobe igbvf || fail "modprobe igb igbvf"
udevadm settle 2>/dev/null; sleep 1
PFPCI=0000:81:00.0
vf_enable "$PFPCI" 2
VF0PCI=$(basename "$(readlink -f /sys/bus/pci/devices/$PFPCI/virtfn0)")
VF1PCI=$(basename "$(readlink -f /sys/bus/pci/devices/$PFPCI/virtfn1)")
for _ in $(seq 50); do [ -d /sys/bus/pci/devices/$VF1PCI/net ] && break; sleep 0.2; done
VF0=$(ls /sys/bus/pci/devices/$VF0PCI/net)
modprobe dcbsim ifname="$PF" || fail "modprobe dcbsim"
modprobe rdma_cm && modprobe rdma_rxe || fail "modprobe rdma_cm rdma_rxe"
ip link set "$VF0" up
modprobe ibsim ifname="$VF0" || fail "modprobe ibsim ifname=$VF0"
check "ibsim0 hangs off VF0's PCI function" [ -e /sys/bus/pci/devices/$VF0PCI/infiniband/ibsim0 ]
mkdir -p /var/lib/kubelet
ip netns add pod1
prev=$(conf "{\"type\":\"host-device\",\"device\":\"$VF0\"}" | run $HD ADD c1 /run/netns/pod1 net1 "$ARGS")
RQCONF="{\"type\":\"rdma-qos\",\"deviceID\":\"$VF0PCI\",\"numa\":\"off\"}"
conf "$RQCONF" "$prev" | run "$RQ" ADD c1 /run/netns/pod1 net1 "$ARGS" > /dev/null 2> /tmp/add.log
check "ADD succeeds" [ $? -eq 0 ] || cat /tmp/add.log
check "ADD: PFC prio 3 on" pfc3_on
check "ADD: ibsim0's MOFED knob 106" [ "$(cat /sys/class/infiniband/ibsim0/tc/1/traffic_class)" = "Global tclass=106" ]

M=/tmp/rdma-qos.prom
"$RQ" agent --interval $INTERVAL --metrics-file $M 2> /tmp/agent.log &
APID=$!
until_ms 10000 test -s $M > /dev/null
check "in profile before the reload" [ "$(metric $M "rdma_qos_pf_in_profile{pf=\"$PF\"}")" = 1 ]
check "rdma_qos_vf_in_pod 1 before the reload" [ "$(metric $M "rdma_qos_vf_in_pod{namespace=\"ai\",pod=\"p0\",vf=\"$VF0PCI\"}")" = 1 ]

echo "== driver reload: ibsim, igbvf and dcbsim unloaded and loaded again"
rmmod ibsim && rmmod igbvf && rmmod dcbsim || fail "rmmod"
modprobe igbvf && modprobe dcbsim ifname="$PF" || fail "modprobe igbvf dcbsim"
udevadm settle 2>/dev/null
for _ in $(seq 50); do [ -d /sys/bus/pci/devices/$VF1PCI/net ] && [ -d /sys/bus/pci/devices/$VF0PCI/net ] && break; sleep 0.2; done
VF0=$(ls /sys/bus/pci/devices/$VF0PCI/net); VF1=$(ls /sys/bus/pci/devices/$VF1PCI/net)
check "VF0's netdev is back in the host netns ($VF0)" ip link show "$VF0"
check "the pod has lost net1" [ -z "$(ip netns exec pod1 ip -br link show net1 2>/dev/null)" ]
ip link set "$VF0" up; ip link set "$VF1" up
modprobe ibsim ifname="$VF0" name=ibsimr%d || fail "modprobe ibsim name=ibsimr%d"
check "VF0's RDMA device re-registered as ibsimr0" [ -e /sys/bus/pci/devices/$VF0PCI/infiniband/ibsimr0 ]
# the recorded name now belongs to another VF's device, with the class a lossless pod set
rdma link add ibsim0 type rxe netdev "$VF1" || fail "rdma link add ibsim0 (rxe on $VF1)"
mkdir -p $CFG/ibsim0 2>/dev/null
echo 106 > $CFG/ibsim0/ports/1/default_roce_tos
check "ibsim0 is rxe on VF1 now, configfs 106" [ "$(cat $CFG/ibsim0/ports/1/default_roce_tos)" = 106 ]
W0=$(writes)
ms=$(until_ms $(( INTERVAL * 1000 * 3 )) pfc3_on); rc=$?
check "the PF (reset with the reload) is repaired although the VF left its pod (took $ms ms)" [ $rc -eq 0 ]
sleep $(( INTERVAL + 1 ))
check "rdma_qos_vf_in_pod 0 after the reload" [ "$(metric $M "rdma_qos_vf_in_pod{namespace=\"ai\",pod=\"p0\",vf=\"$VF0PCI\"}")" = 0 ]
check "the PF is not reported in profile" [ "$(metric $M "rdma_qos_pf_in_profile{pf=\"$PF\"}")" = 0 ]
check "the log says the VF left its pod" grep -q "VF $VF0PCI left pod ai/p0" /tmp/agent.log
check "no write to ibsimr0's knob (tc_writes $W0 -> $(writes))" [ "$(writes)" = "$W0" ]
check "ibsimr0's class is untouched (unset)" [ -z "$(cat /sys/class/infiniband/ibsimr0/tc/1/traffic_class)" ]
check "rxe ibsim0 (VF1's) untouched: 106" [ "$(cat $CFG/ibsim0/ports/1/default_roce_tos)" = 106 ]
"$RQ" show --json > /tmp/show.json
check "show: the attachment is not in its pod" [ "$(jq --arg v "$VF0PCI" -r '.pfs[].vfs[] | select(.pci == $v) | .attachment.inPod' /tmp/show.json)" = false ]

echo "== DEL after the reload"
conf "$RQCONF" | run "$RQ" DEL c1 /run/netns/pod1 net1 "$ARGS" 2> /tmp/del.log
check "DEL succeeds" [ $? -eq 0 ]
check "DEL leaves rxe ibsim0 (VF1's device, recorded name) at 106" [ "$(cat $CFG/ibsim0/ports/1/default_roce_tos)" = 106 ]
check "DEL writes no ibsim knob" [ "$(writes)" = "$W0" ]
grep -E "RDMA|left alone|traffic class" /tmp/del.log

kill -TERM $APID; wait $APID
check "SIGTERM: exit 0" [ $? -eq 0 ]
grep -E "repaired|left pod|gone|warn" /tmp/agent.log | head -20
rdma link del ibsim0 2>/dev/null; rmmod ibsim 2>/dev/null
check "the kernel logged no warning" [ -z "$(dmesg | grep -E 'WARNING|BUG|Oops')" ]
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
