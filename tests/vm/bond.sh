#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Guest side of the bond test (its own guest boot; make vm-bond-test): a real
# Linux bond (bonding.ko, active-backup) over the guest's two igb PFs in
# legacy SR-IOV mode. That bond is software only: a VF sends on its own PF,
# so ADD and the agent write only the VF's own PF, never the other slave.
# dcbsim gives one netdev DCB ops at a time: first on the VF's PF (the ADD,
# which before issue 30 item 5 also required DCB on the other slave and
# failed with 100), then on the other slave (the agent's pass must leave it
# unwritten: dcbsim's `sets` stays 0; a pod on that PF's own VF then writes
# it, proving the counter counts). A hardware VF LAG needs mlx5 switchdev
# and cannot be built here: tests/agent/bond.sh covers it on the sim.
# Then the link partner's LLDP heard on a PF that is a bond slave (active-backup, 802.3ad),
# an OVS port and a Linux bridge port, with lldpd on the other PF as the switch
# (bond_lldp.sh, issue 37 item 1).
# vm: pfs-wired (guest.sh: both PFs on one QEMU hub, for bond_lldp.sh's switch)
set -u
. "${RQSRC:?}/tests/vm/lib.sh"
sets() { cat /sys/module/dcbsim/parameters/sets; }
pfc3_on() { dcb pfc show dev "$1" prio-pfc | grep -q '3:on'; }
pfc3_off() { ! pfc3_on "$1"; }

modprobe igb && modprobe igbvf || fail "modprobe igb igbvf"
modprobe bonding max_bonds=0 || fail "modprobe bonding"
modprobe rdma_rxe && modprobe rdma_cm || fail "modprobe rdma_rxe rdma_cm"
udevadm settle 2>/dev/null; sleep 1
APCI=0000:81:00.0
BPCI=$(for d in /sys/bus/pci/devices/*; do [ -e "$d/sriov_totalvfs" ] && [ "${d##*/}" != $APCI ] && echo "${d##*/}"; done | head -1)
vf_enable "$BPCI" 1; PFB=$PF
vf_enable "$APCI" 1; PFA=$PF
VFAPCI=$(basename "$(readlink -f "/sys/bus/pci/devices/$APCI/virtfn0")"); VFA=$(ls "/sys/bus/pci/devices/$VFAPCI/net")
VFBPCI=$(basename "$(readlink -f "/sys/bus/pci/devices/$BPCI/virtfn0")"); VFB=$(ls "/sys/bus/pci/devices/$VFBPCI/net")
echo "kernel $(uname -r); PF $PFA ($APCI) VF $VFA ($VFAPCI); PF $PFB ($BPCI) VF $VFB ($VFBPCI)"

echo "== bond0 (active-backup) over $PFA and $PFB, legacy SR-IOV"
ip link add bond0 type bond mode active-backup miimon 100
for p in "$PFA" "$PFB"; do ip link set "$p" down && ip link set "$p" master bond0; done
ip link set bond0 up
check "bond0's slaves are both PFs" same "$(tr ' ' '\n' < /sys/class/net/bond0/bonding/slaves | sort | xargs)" "$(printf '%s\n' "$PFA" "$PFB" | sort | xargs)"
check "$PFA's master is bond0" [ "$(basename "$(readlink "/sys/class/net/$PFA/master")")" = bond0 ]
no_rdma_bond() { ! compgen -G '/sys/class/infiniband/mlx5_bond_*' > /dev/null; }
check "no RDMA bond device (no hardware LAG)" no_rdma_bond
check "the PFs keep their VFs" [ "$(cat /sys/bus/pci/devices/$APCI/sriov_numvfs):$(cat /sys/bus/pci/devices/$BPCI/sriov_numvfs)" = 1:1 ]
ip link set "$VFA" up; ip link set "$VFB" up

echo "== ADD on $PFA's VF: only $PFA is written"
modprobe dcbsim ifname="$PFA" || fail "modprobe dcbsim ifname=$PFA"
mkdir -p /var/lib/kubelet
ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=pa;K8S_POD_UID=pod-a"
ip netns add pa
prev=$(conf "{\"type\":\"host-device\",\"device\":\"$VFA\"}" | run $HD ADD ca /run/netns/pa net1 "$ARGS")
ip netns exec pa rdma link add rxea type rxe netdev net1
conf "{\"type\":\"rdma-qos\",\"deviceID\":\"$VFAPCI\",\"numa\":\"off\"}" "$prev" |
	run $RQ ADD ca /run/netns/pa net1 "$ARGS" > /tmp/adda.out 2> /tmp/adda.log
rc=$?
check "ADD succeeds (rc $rc$(jq -r 'select(.code != null) | " (\(.code): \(.msg))"' /tmp/adda.out 2>/dev/null))" [ $rc -eq 0 ]
check "the log says only $PFA is a target" grep -q "slave of bond bond0 with no hardware LAG.*only $PFA is a target" /tmp/adda.log
check "$PFA: PFC prio 3 on" pfc3_on "$PFA"
check "$PFA: written (dcbsim sets $(sets) > 0)" [ "$(sets)" -gt 0 ]
REC=$(ls /run/rdma-qos/state/*.json | head -1)
check "the record names $PFA alone" [ "$(jq -c '[.pfs[].ifname]' "$REC")" = "[\"$PFA\"]" ]

echo "== dcbsim moved to the other slave $PFB: the agent leaves it alone"
rmmod dcbsim && modprobe dcbsim ifname="$PFB" || fail "dcbsim onto $PFB"
check "$PFB fresh: 0 sets" [ "$(sets)" = 0 ]
"$RQ" agent --once --metrics-file /tmp/m.prom 2> /tmp/agent.log
echo "agent --once exit $? (its own PF has no DCB ops now: drift is expected)"
check "agent: $PFB not written (sets $(sets))" [ "$(sets)" = 0 ]
check "agent: $PFB has no PFC on prio 3" pfc3_off "$PFB"
check "agent: the attachment is counted on $PFA only" \
	[ "$(grep -c "^rdma_qos_attachments{pf=\"$PFA\"" /tmp/m.prom)" -gt 0 -a "$(grep -c "^rdma_qos_attachments{pf=\"$PFB\"" /tmp/m.prom)" = 0 ]

echo "== a pod on $PFB's own VF writes $PFB (the counter counts)"
ARGSB="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=pb;K8S_POD_UID=pod-b"
ip netns add pb
prevb=$(conf "{\"type\":\"host-device\",\"device\":\"$VFB\"}" | run $HD ADD cb /run/netns/pb net1 "$ARGSB")
ip netns exec pb rdma link add rxeb type rxe netdev net1
conf "{\"type\":\"rdma-qos\",\"deviceID\":\"$VFBPCI\",\"numa\":\"off\"}" "$prevb" |
	run $RQ ADD cb /run/netns/pb net1 "$ARGSB" > /dev/null 2> /tmp/addb.log
check "ADD on $PFB's VF succeeds" [ $? -eq 0 ]
check "$PFB: written now (sets $(sets) > 0)" [ "$(sets)" -gt 0 ]
check "... PFC prio 3 on" pfc3_on "$PFB"

conf "{\"type\":\"rdma-qos\",\"deviceID\":\"$VFBPCI\",\"numa\":\"off\"}" "$prevb" | run $RQ DEL cb /run/netns/pb net1 "$ARGSB"
check "DEL pb" [ $? -eq 0 ]
. "$RQSRC/tests/vm/bond_lldp.sh"
conf "{\"type\":\"rdma-qos\",\"deviceID\":\"$VFAPCI\",\"numa\":\"off\"}" "$prev" | run $RQ DEL ca /run/netns/pa net1 "$ARGS"
check "DEL pa" [ $? -eq 0 ]
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
