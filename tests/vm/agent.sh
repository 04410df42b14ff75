#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Guest side of the node agent's real-kernel test (run by guest.sh inside
# QEMU, see tests/agent/rules.mk): the production rdma-qos agent in the
# background, real dcbnl through dcbsim. It must repair by event (RTNLGRP_DCB)
# within 2 s `dcb pfc set ... 3:off` and a deleted DSCP APP entry; by event
# (RDMA netlink / uevent) an rxe device re-registered; within one interval a
# ToS reset and a dcbsim unload/reload (the PF's DCB state reset); serve
# /metrics over HTTP that promtool accepts; against a loop of `dcb pfc set
# ... 3:off` back off and suspend the repair (metric, log, show) until
# fights.json is deleted; six resets of the port to the driver's defaults
# (dcbsim's reset, as mlx5e_dcbnl_initialize) and six re-creations of the PF
# netdev (igb unbound and bound: a new ifindex) repaired every time, logged
# as resets, rdma_qos_port_resets_total counting them, never backed off nor
# suspended; the link partner's LLDP heard on the PF's wire (agent_lldp.sh); exit 0
# on SIGTERM; then a second agent on a PF whose PFC change toggles the link as mlx5's
# does (dcbsim mlx5=1): its own toggle is no flap, a drop nobody caused is (agent_flap.sh).
# vm: pfs-wired (guest.sh: both PFs on one QEMU hub, for agent_lldp.sh's switch)
set -u
. "${RQSRC:?}/tests/vm/lib.sh"
INTERVAL=5
pfc3_on() { dcb pfc show dev "$PF" prio-pfc | grep -q '3:on'; }
dscp26() { dcb -j app show dev "$PF" | jq -e '[.dscp_prio[] | select(.[0] == 26 and .[1] == 3)] | length == 1' > /dev/null; }
metric() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }

dcb_rxe_node
mkdir -p /var/lib/kubelet
ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p0;K8S_POD_UID=pod-n0"
ip netns add pod1
prev=$(conf "{\"type\":\"host-device\",\"device\":\"$VF0\"}" | run $HD ADD c1 /run/netns/pod1 net1 "$ARGS")
ip netns exec pod1 rdma link add rxe0 type rxe netdev net1
TOS=/sys/kernel/config/rdma_cm/rxe0/ports/1/default_roce_tos
conf "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF0PCI\"}" "$prev" | run $RQ ADD c1 /run/netns/pod1 net1 "$ARGS" > /dev/null 2> /tmp/add.log
check "ADD succeeds" [ $? -eq 0 ]
check "ADD: PFC prio 3 on" pfc3_on
check "ADD: ToS 106" [ "$(cat $TOS)" = 106 ]

M=/tmp/rdma-qos.prom
"$RQ" agent --interval $INTERVAL --metrics-file $M --listen 127.0.0.1:9309 --repair-backoff 1 2> /tmp/agent.log &
APID=$!
until_ms 10000 test -s $M > /dev/null
check "the agent wrote its metrics" [ -s $M ]
check "in profile at start" [ "$(metric $M "rdma_qos_pf_in_profile{pf=\"$PF\"}")" = 1 ]
sleep 1

echo "== dcb pfc set dev $PF prio-pfc 3:off"
dcb pfc set dev "$PF" prio-pfc 3:off
ms=$(until_ms 2000 pfc3_on); rc=$?
check "PFC 3 repaired by event within 2 s (took $ms ms)" [ $rc -eq 0 ]
sleep 1

echo "== dcb app del dev $PF dscp-prio 26:3"
dcb app del dev "$PF" dscp-prio 26:3
ms=$(until_ms 2000 dscp26); rc=$?
check "DSCP 26 -> 3 repaired by event within 2 s (took $ms ms)" [ $rc -eq 0 ]
sleep 1

echo "== ToS reset"
echo 0 > $TOS
ms=$(until_ms $(( INTERVAL * 1000 + 1500 )) grep -qx 106 $TOS); rc=$?
check "ToS repaired within one interval ($INTERVAL s; took $ms ms)" [ $rc -eq 0 ]

echo "== rxe re-registered (the CM's default_roce_tos is gone with it)"
ip netns exec pod1 rdma link del rxe0
ip netns exec pod1 rdma link add rxe0 type rxe netdev net1
ms=$(until_ms 2000 grep -qx 106 $TOS); rc=$?
check "re-registered rxe0: ToS 106 again by event within 2 s (took $ms ms)" [ $rc -eq 0 ]

echo "== dcbsim unload/reload (the PF's DCB state reset)"
rmmod dcbsim && modprobe dcbsim ifname="$PF"
# dcb must say so (prio-pfc ... 3:off): a count of '3:on' in nothing (dcb failed) was 0 too
check "reload reset the port (no PFC)" grep -q '3:off' <<< "$(dcb pfc show dev "$PF" prio-pfc)" ||
	dcb pfc show dev "$PF" prio-pfc
ms=$(until_ms $(( INTERVAL * 1000 + 3000 )) sh -c "dcb pfc show dev $PF prio-pfc | grep -q 3:on && dcb -j app show dev $PF | jq -e '.dscp_prio | length == 64' > /dev/null"); rc=$?
check "PF state repaired within one interval after the reload (took $ms ms)" [ $rc -eq 0 ]

echo "== six resets of the port to the driver's defaults (dcbsim reset: mlx5e_dcbnl_initialize)"
# a reset, unlike another writer, takes the whole port back at once: trust pcp, no DSCP
# entry, no PFC; repaired every time, never backed off nor suspended
inprof() { pfc3_on && dcb -j app show dev "$PF" | jq -e '.dscp_prio | length == 64' > /dev/null; }
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
L0=$(wc -l < /tmp/agent.log)
R0=$(cat /sys/module/dcbsim/parameters/resets)
for i in 1 2 3 4 5 6; do
	echo 1 > /sys/kernel/debug/dcbsim/reset
	check "reset $i: dcbsim reset the port" [ "$(cat /sys/module/dcbsim/parameters/resets)" = $((R0 + i)) ]
	ms=$(until_ms $(( INTERVAL * 1000 + 3000 )) inprof); rc=$?
	check "reset $i: PFC 3 and the DSCP map repaired within one interval (took $ms ms)" [ $rc -eq 0 ]
	sleep 0.5
done
tail -n +$((L0 + 1)) /tmp/agent.log > /tmp/resets.log
check "the six resets logged as resets" [ "$(grep -c "PF $PF ($PFPCI): the port is back at the driver's defaults.*a reset" /tmp/resets.log)" -ge 6 ]
check "... never backed off" [ "$(grep -c "backing off" /tmp/resets.log)" = 0 ]
check "... never suspended" [ "$(grep -c "times in a row" /tmp/resets.log)" = 0 ]
curl -sf http://127.0.0.1:9309/metrics > /tmp/r.prom
check "rdma_qos_port_resets_total{pf=$PF} >= 6" [ "$(metric /tmp/r.prom "rdma_qos_port_resets_total{pf=\"$PF\"}")" -ge 6 ]
check "no rdma_qos_repair_suspended 1" [ "$(grep -c '^rdma_qos_repair_suspended{.*} 1$' /tmp/r.prom)" = 0 ]

echo "== /metrics over HTTP"
sleep 0.5
curl -sf http://127.0.0.1:9309/metrics > /tmp/http.prom
check "GET /metrics answers" [ $? -eq 0 ]
if command -v promtool > /dev/null; then
	check "promtool accepts /metrics" promcheck /tmp/http.prom
else
	fail "no promtool in the guest (the host's /usr is shared: apt-get install prometheus)"
fi
check "/healthz ok" [ "$(curl -sf http://127.0.0.1:9309/healthz)" = ok ]
check "repairs counted: pfc >= 2" [ "$(metric /tmp/http.prom "rdma_qos_repairs_total{pf=\"$PF\",item=\"pfc\"}")" -ge 2 ]
check "repairs counted: traffic_class >= 1" [ "$(metric /tmp/http.prom "rdma_qos_repairs_total{pf=\"$PF\",item=\"traffic_class\"}")" -ge 1 ]
check "one log line per repair (pfc: was, now)" grep -q "PF $PF repaired pfc: was none, now 3" /tmp/agent.log

echo "== a second writer that keeps clearing PFC (dcb pfc set in a loop)"
( while :; do dcb pfc set dev "$PF" prio-pfc 3:off 2> /dev/null; sleep 0.3; done ) &
FPID=$!
SUSP="rdma_qos_repair_suspended{pf=\"$PF\",item=\"pfc\"}"
ms=$(until_ms 40000 sh -c "curl -sf http://127.0.0.1:9309/metrics | grep -qF '$SUSP 1'"); rc=$?
check "the fight is detected, the repair suspended (took $ms ms, back-off 1 s doubling)" [ $rc -eq 0 ]
check "... said at error level" grep -q "error: agent: PF $PF: pfc repaired 5 times in a row" /tmp/agent.log
curl -sf http://127.0.0.1:9309/metrics > /tmp/f1.prom
sleep 4
curl -sf http://127.0.0.1:9309/metrics > /tmp/f2.prom
n1=$(metric /tmp/f1.prom "rdma_qos_repairs_total{pf=\"$PF\",item=\"pfc\"}")
n2=$(metric /tmp/f2.prom "rdma_qos_repairs_total{pf=\"$PF\",item=\"pfc\"}")
check "... no PFC write while suspended ($n1 -> $n2 repairs)" [ -n "$n1" -a "$n1" = "$n2" ]
kill $FPID; wait $FPID 2> /dev/null
"$RQ" show > /tmp/show.txt
check "show says REPAIR SUSPENDED" grep -q 'REPAIR SUSPENDED \["pfc"\]' /tmp/show.txt
rm /run/rdma-qos/agent/fights.json
ms=$(until_ms $(( INTERVAL * 1000 + 3000 )) pfc3_on); rc=$?
check "fights.json deleted by the operator: PFC repaired within one interval (took $ms ms)" [ $rc -eq 0 ]

echo "== the PF's netdev re-created six times (igb unbound and bound again: a new ifindex)"
# as a driver or devlink reload does; dcbsim follows the new netdev as mlx5e's ops would
L0=$(wc -l < /tmp/agent.log)
for i in 1 2 3 4 5 6; do
	old=$(cat "/sys/class/net/$PF/ifindex")
	echo "$PFPCI" > /sys/bus/pci/drivers/igb/unbind
	echo "$PFPCI" > /sys/bus/pci/drivers/igb/bind
	until_ms 10000 test -d "/sys/bus/pci/devices/$PFPCI/net" > /dev/null
	PF=$(ls "/sys/bus/pci/devices/$PFPCI/net")
	new=$(cat "/sys/class/net/$PF/ifindex")
	rmmod dcbsim && modprobe dcbsim ifname="$PF"
	ms=$(until_ms $(( INTERVAL * 1000 + 3000 )) inprof); rc=$?
	check "re-created $i ($PF, ifindex $new, was $old): repaired within one interval (took $ms ms)" [ $rc -eq 0 ]
	check "... logged as a re-created netdev" grep -q "PF $PF ($PFPCI): its netdev was re-created (ifindex $new, was $old)" /tmp/agent.log
done
tail -n +$((L0 + 1)) /tmp/agent.log > /tmp/recreated.log
check "six re-creations: never backed off nor suspended" [ "$(grep -c -e "backing off" -e "times in a row" /tmp/recreated.log)" = 0 ]

. "$RQSRC/tests/vm/agent_lldp.sh"

kill -TERM $APID; wait $APID
check "SIGTERM: exit 0" [ $? -eq 0 ]

. "$RQSRC/tests/vm/agent_flap.sh"
grep -E "repaired|listening|back|warn" /tmp/agent.log | head -30
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
