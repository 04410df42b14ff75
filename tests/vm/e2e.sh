#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Guest side of the real-kernel end-to-end test (run by guest.sh inside QEMU).
# The production rdma-qos runs after Debian's host-device on real igbvf VFs;
# PF DCB goes through the kernel's dcbnl to the dcbsim module, the VF's ToS
# to configfs for an rxe device, NUMA from real sysfs.
set -u
. "${RQSRC:?}/tests/vm/lib.sh"
sets() { cat /sys/module/dcbsim/parameters/sets; }

modprobe igb && modprobe igbvf || fail "modprobe igb igbvf"
udevadm settle 2>/dev/null; sleep 1
PFPCI=0000:81:00.0
PF=$(ls /sys/bus/pci/devices/$PFPCI/net)
OTHERPCI=$(for d in /sys/bus/pci/devices/*; do [ -e "$d/sriov_totalvfs" ] && [ "${d##*/}" != $PFPCI ] && echo "${d##*/}"; done | head -1)
OTHER=$(ls /sys/bus/pci/devices/$OTHERPCI/net)
ip link set "$PF" up; ip link set "$OTHER" up
echo 2 > /sys/bus/pci/devices/$PFPCI/sriov_numvfs
echo 1 > /sys/bus/pci/devices/$OTHERPCI/sriov_numvfs
for _ in $(seq 100); do [ -d /sys/bus/pci/devices/$PFPCI/virtfn1/net ] && [ -d /sys/bus/pci/devices/$OTHERPCI/virtfn0/net ] && break; sleep 0.2; done
VF0PCI=$(basename "$(readlink -f /sys/bus/pci/devices/$PFPCI/virtfn0)"); VF0=$(ls /sys/bus/pci/devices/$VF0PCI/net)
VF1PCI=$(basename "$(readlink -f /sys/bus/pci/devices/$PFPCI/virtfn1)"); VF1=$(ls /sys/bus/pci/devices/$VF1PCI/net)
VF2PCI=$(basename "$(readlink -f /sys/bus/pci/devices/$OTHERPCI/virtfn0)"); VF2=$(ls /sys/bus/pci/devices/$VF2PCI/net)
echo "kernel $(uname -r); PF $PF ($PFPCI, numa $(cat /sys/bus/pci/devices/$PFPCI/numa_node)) VFs $VF0 $VF0PCI, $VF1 $VF1PCI; other PF $OTHER ($OTHERPCI) VF $VF2"
modprobe dcbsim ifname="$PF" || fail "modprobe dcbsim"
modprobe rdma_rxe && modprobe rdma_cm || fail "modprobe rdma_rxe rdma_cm"
for v in "$VF0" "$VF1" "$VF2"; do ip link set "$v" up; done
# rxe follows its netdev's registration: a move to another netns unregisters
# it, so each rxe is made inside the pod after host-device moved the VF there
# (an mlx5 VF's RDMA device instead hangs off the PCI function).
mkdir -p /var/lib/kubelet
echo '{"policyName":"static","defaultCpuSet":"1","entries":{"pod-n0":{"app":"0"}},"checksum":1}' > /var/lib/kubelet/cpu_manager_state
ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p0;K8S_POD_UID=pod-n0"
ip netns add pod1; ip netns add pod2; ip netns add pod3

echo "== ADD: host-device then rdma-qos (production binary)"
prev=$(conf "{\"type\":\"host-device\",\"device\":\"$VF0\"}" | run $HD ADD c1 /run/netns/pod1 net1 "$ARGS")
check "host-device moved $VF0 into pod1" ip netns exec pod1 ip link show net1
ip netns exec pod1 rdma link add rxe0 type rxe netdev net1
# a ToS an admin set before the pod: DEL must put back this value, not a default
TOS=/sys/kernel/config/rdma_cm/rxe0/ports/1/default_roce_tos
mkdir -p /sys/kernel/config/rdma_cm/rxe0 && echo 32 > $TOS
check "rxe0's default_roce_tos preset to 32" [ "$(cat $TOS)" = 32 ]
BPO=$RQCACHE/iproute2-bpo/sbin
S0=$(sets)
out=$(conf "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF0PCI\",\"numa\":\"strict\"}" "$prev" | run $RQ ADD c1 /run/netns/pod1 net1 "$ARGS" 2>/dev/null)
echo "strict ADD said: $(jq -c . <<< "$out" 2>/dev/null || echo "$out")"
check "numa strict: VF on node 1 vs pod CPUs on node 0 fails with 103" [ "$(jq .code <<< "$out")" = 103 ]
check "numa strict: evidence names node 1 and node 0" grep -q 'NUMA node 1.*node 0' <<< "$(jq -r .msg <<< "$out")"
check "numa strict failure wrote no DCB" [ "$(sets)" = "$S0" ]
check "numa strict failure left the ToS at 32" [ "$(cat $TOS)" = 32 ]
out=$(conf "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF0PCI\",\"numa\":\"warn\"}" "$prev" | run $RQ ADD c1 /run/netns/pod1 net1 "$ARGS" 2> /tmp/add1.log)
rc=$?
[ $rc -eq 0 ] || { echo "warn ADD said: $out"; cat /tmp/add1.log; }
check "numa warn: ADD succeeds" [ $rc -eq 0 ]
check "numa warn: misalignment logged" grep -q 'NUMA misaligned' /tmp/add1.log
check "ADD passes prevResult through" [ "$(jq -r '.interfaces[0].name' <<< "$out")" = net1 ]
check "PFC prio 3 on, read back by iproute2 dcb" grep -q '3:on' <<< "$(dcb pfc show dev "$PF" prio-pfc)"
check "DSCP 26 -> prio 3 read back by dcb" grep -q '\[26,3\]' <<< "$(dcb -j app show dev "$PF")"
check "64 DSCP APP entries on the PF" [ "$(dcb -j app show dev "$PF" | jq '.dscp_prio | length')" = 64 ]
if [ -x "$BPO/dcb" ]; then
	check "apptrust order dscp pcp, read back by iproute2 6.x dcb" \
		[ "$("$BPO/dcb" -j apptrust show dev "$PF" | jq -c .order)" = '["dscp","pcp"]' ]
fi
S1=$(sets)
check "DCB SETs went through the kernel ($S0 -> $S1)" [ "$S1" -gt "$S0" ]
check "default_roce_tos 106 for rxe0 (found over RDMA netlink)" [ "$(cat $TOS)" = 106 ]

echo "== second VF on the same PF: no SET"
prev2=$(conf "{\"type\":\"host-device\",\"device\":\"$VF1\"}" | run $HD ADD c2 /run/netns/pod2 net1 "$ARGS")
ip netns exec pod2 rdma link add rxe1 type rxe netdev net1
# no deviceID: the VF is found from net1 inside the pod (IFLA_PARENT_DEV_NAME / ethtool bus-info)
conf '{"type":"rdma-qos","numa":"off"}' "$prev2" | run $RQ ADD c2 /run/netns/pod2 net1 "$ARGS" > /dev/null 2>&1
check "second ADD (no deviceID) succeeds" [ $? -eq 0 ]
check "VF identified from the pod's net1 as $VF1PCI" [ "$(jq -r .vf /run/rdma-qos/state/roce_c2_net1.json)" = "$VF1PCI" ]
check "second ADD sent no SET (sets stays $S1)" [ "$(sets)" = "$S1" ]
check "default_roce_tos 106 for rxe1 (configfs group made by the plugin)" \
	[ "$(cat /sys/kernel/config/rdma_cm/rxe1/ports/1/default_roce_tos 2>/dev/null)" = 106 ]

echo "== CHECK"
conf "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF0PCI\",\"numa\":\"warn\"}" "$out" | run $RQ CHECK c1 /run/netns/pod1 net1 "$ARGS" > /tmp/chk 2>/dev/null
check "CHECK passes on an untouched port" [ $? -eq 0 -a ! -s /tmp/chk ]
dcb pfc set dev "$PF" prio-pfc 3:off
msg=$(conf "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF0PCI\",\"numa\":\"warn\"}" "$out" | run $RQ CHECK c1 /run/netns/pod1 net1 "$ARGS" 2>/dev/null)
rc=$?
echo "CHECK said: $(jq -c . <<< "$msg" 2>/dev/null || echo "$msg")"
check "CHECK exits non-zero on drift (rc $rc)" [ $rc -ne 0 ]
check "CHECK catches dcb pfc set behind its back" grep -q 'pfc: required priority 3, port has none' <<< "$(jq -r .msg <<< "$msg")"
dcb pfc set dev "$PF" prio-pfc 3:on

echo "== DEL"
conf '{"type":"rdma-qos"}' | run $RQ DEL c1 /run/netns/pod1 net1 "$ARGS" 2>/dev/null
check "DEL succeeds" [ $? -eq 0 ]
check "DEL restored rxe0's previous default_roce_tos 32" [ "$(cat $TOS)" = 32 ]
check "DEL kept the PF's PFC" grep -q '3:on' <<< "$(dcb pfc show dev "$PF" prio-pfc)"
conf '{"type":"rdma-qos"}' | run $RQ DEL c1 "" net1 "$ARGS" 2>/dev/null
check "DEL again with empty CNI_NETNS succeeds" [ $? -eq 0 ]
conf "{\"type\":\"host-device\",\"device\":\"$VF0\"}" | run $HD DEL c1 /run/netns/pod1 net1 "$ARGS" >/dev/null 2>&1

echo "== PF without dcbnl ops"
prev3=$(conf "{\"type\":\"host-device\",\"device\":\"$VF2\"}" | run $HD ADD c3 /run/netns/pod3 net1 "$ARGS")
ip netns exec pod3 rdma link add rxe2 type rxe netdev net1
# a NAD naming another pod's VF: the pod's own net1 (IFLA_PARENT_DEV_NAME) says otherwise
msg=$(conf "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF1PCI\",\"numa\":\"off\"}" "$prev3" | run $RQ ADD c3 /run/netns/pod3 net1 "$ARGS" 2>/dev/null)
check "deviceID $VF1PCI (pod2's VF) from pod3, whose net1 is $VF2PCI: code 110" [ "$(jq .code <<< "$msg")" = 110 ]
check "... rxe1's ToS untouched (106)" [ "$(cat /sys/kernel/config/rdma_cm/rxe1/ports/1/default_roce_tos)" = 106 ]
msg=$(conf "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF2PCI\",\"numa\":\"off\"}" "$prev3" | run $RQ ADD c3 /run/netns/pod3 net1 "$ARGS" 2>/dev/null)
check "no DCB: code 100" [ "$(jq .code <<< "$msg")" = 100 ]
check "no DCB: message names the PF and driver" grep -q "no DCB on PF $OTHER (driver igb)" <<< "$(jq -r .msg <<< "$msg")"
check "no DCB: ToS of rxe2 untouched" [ "$(cat /sys/kernel/config/rdma_cm/rxe2/ports/1/default_roce_tos 2>/dev/null || echo 0)" = 0 ]

echo "== byte-exact PFC/ETS requests against iproute2's dcb on a real dcbnl port"
if [ -x "$BUILD/tests/dcb/dcb-encode" ]; then
	RQ_DCB_DEV=$PF RQ_BUILD=$BUILD bash "$SRC/tests/dcb/run.sh" > /tmp/dcbbytes.log 2>&1
	grep -E '^(PASS|FAIL|SKIP)' /tmp/dcbbytes.log
	# its PASS and FAIL lines counted here, pfc set and ets set aside: the check after counts
	# those, and fails when they were skipped too (tests/dcb/run.sh's host run skips them,
	# naming this check as their coverage)
	p=$(grep '^PASS' /tmp/dcbbytes.log | grep -vcE '^PASS: (pfc|ets) set')
	f=$(grep '^FAIL' /tmp/dcbbytes.log | grep -vcE '^FAIL: (pfc|ets) set')
	PASS=$((PASS + p)); FAIL=$((FAIL + f))
	check "pfc set and ets set: the same bytes as iproute2 dcb, on the dcbsim PF" \
		[ "$(grep -cE '^PASS: (pfc|ets) set' /tmp/dcbbytes.log)" = 2 ]
	# apptrust needs iproute2 >= 6.2: the bookworm-backports dcb (extracted by guest.sh)
	if [ -x "$BPO/dcb" ]; then
		echo "-- with $("$BPO/dcb" -V 2>&1 | head -1)"
		PATH=$BPO:$PATH RQ_DCB_DEV=$PF RQ_BUILD=$BUILD bash "$SRC/tests/dcb/run.sh" > /tmp/dcbbpo.log 2>&1
		grep -E '^(PASS|FAIL|SKIP)' /tmp/dcbbpo.log | grep -i apptrust
	fi
	# counted by this check alone (a FAIL line, a skip or no backports dcb fail it): the host's
	# tests/dcb/run.sh skips apptrust (bookworm's dcb has none), naming this check
	check "apptrust order dscp pcp: the same bytes as the backports dcb" \
		grep -q '^PASS: apptrust order dscp pcp' /tmp/dcbbpo.log
else
	fail "no $BUILD/tests/dcb/dcb-encode (vm/run.sh builds it)"
fi

echo "== PF requirements shared by lossy and lossless pods, carrier wait, firmware DCBX"
# pod2's attachment goes first: those checks start from a PF nobody requires anything of
conf '{"type":"rdma-qos"}' | run $RQ DEL c2 /run/netns/pod2 net1 "$ARGS" >/dev/null 2>&1
conf "{\"type\":\"host-device\",\"device\":\"$VF1\"}" | run $HD DEL c2 /run/netns/pod2 net1 "$ARGS" >/dev/null 2>&1
bash "$SRC/tests/vm/e2e_sharing.sh" "$PFPCI" > /tmp/sharing.log 2>&1
rc=$?
grep -v '^[0-9]* passed, [0-9]* failed$' /tmp/sharing.log
p=$(grep -c '^PASS' /tmp/sharing.log); f=$(grep -c '^FAIL' /tmp/sharing.log)
PASS=$((PASS + p)); FAIL=$((FAIL + f))
[ $rc -eq 0 ] || [ "$f" -gt 0 ] || fail "e2e_sharing.sh exited $rc without a FAIL line"

echo "== harness"
check "dcbsim unloads (the PF is left without DCB ops)" rmmod dcbsim
check "no kernel warning during the run" [ -z "$(dmesg | grep -E 'WARNING:|BUG:|Oops|refcount_t')" ]

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
