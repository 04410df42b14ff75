#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Bonds and VF LAG on the simulated node (issue 30 item 5; docs/operations.md
# "Bonds and VF LAG"). A Linux bond over PFs in legacy SR-IOV mode (mknode
# --bond) is software only: the VF sends on its own port, so only its own PF
# is written, conflict-checked and counted, by ADD and by the agent. A
# hardware VF LAG (mknode --vf-lag: switchdev, the LAG active, mlx5_bond_0)
# sends the VF's RoCE out of either port: both PFs are targets and the
# telemetry covers both (port series, derived signals, the pod's pause rates).
# Run by tests/agent/run.sh (its PASS/FAIL lines are counted there).
set -u
. "$(dirname "$0")/lib.sh"

sim_suite_start "bond and VF LAG tests" rqbd agent_can_run
RL=$ROOT/legacy RG=$ROOT/lag
# the two nodes' veth VFs (sim_suite_cleanup removes $ROOT's only)
suite_teardown() { sim_del_vfs "$RL"; sim_del_vfs "$RG"; }
M=$T/m.prom
rq() { echo "{\"type\":\"rdma-qos\",\"deviceID\":\"$1\"${2:+,$2}}"; }
ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p0;K8S_POD_UID=u0"
# a profile that contradicts roce-lossless (DSCP 26 on priority 4): 102 if both share a PF
CAT='{"profiles":{"alt":{"trust":"dscp","dscp2prio":{"26":4},"pfc":[4],"trafficClass":106}},
 "namespaces":{"*":{"default":"roce-lossless","allow":["roce-lossless","alt"]}}}'

echo "== legacy SR-IOV + Linux bond: only the VF's own PF"
"$MKNODE" --root "$RL" --pfs 2 --vfs 2 --numa-nodes 1 --rdma configfs --ecn yes --dcb yes \
	--counters yes --bond --pf-prefix bl$$ > "$T/legacy.txt" || { echo "FAIL: mknode"; exit 1; }
check "mknode --bond: a software bond, no RDMA bond device" \
	[ ! -e "$RL/sys/class/infiniband/mlx5_bond_0" ]
check "... and the legacy node is in legacy SR-IOV mode" grep -q 'legacy SR-IOV' "$T/legacy.txt"
echo "$CAT" > "$RL/etc/cni/rdma-qos/profiles.json"
sim_make_vfs "$RL"
mapfile -t VFS < <(sim_vfs "$RL")
read -r LP0 LVF0PCI LVF0 <<< "${VFS[0]}"
read -r LP1 LVF2PCI LVF2 <<< "${VFS[2]}"
NSA=$(newns a) NSB=$(newns b)
chain_add "$RL" roce l1 "$NSA" net1 "$LVF2" "$(rq "$LVF2PCI" '"profile":"alt"')" \
	"IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p1;K8S_POD_UID=u1" > /dev/null 2> "$T/l1.log"
check "ADD on PF1's VF with profile alt (DSCP 26 -> 4)" [ $? -eq 0 ]
check "PF1 has pfc [4]" [ "$(pfc_of "$RL" "$LP1")" = "[4]" ]
check "PF0 untouched by PF1's VF (0 writes)" [ "$(dcb_writes "$RL" "$LP0")" = 0 ]
W1=$(dcb_writes "$RL" "$LP1")
chain_add "$RL" roce l2 "$NSB" net1 "$LVF0" "$(rq "$LVF0PCI")" "$ARGS" > "$T/l2.out" 2> "$T/l2.log"
check "ADD on PF0's VF with roce-lossless: no 102 from the other slave" [ $? -eq 0 ]
check "  the log says only its own PF is a target" \
	grep -q "slave of bond bond0 with no hardware LAG.*only $LP0 is a target" "$T/l2.log"
check "PF0 has pfc [3], DSCP 26 -> 3" \
	[ "$(pfc_of "$RL" "$LP0")" = "[3]" ]
check "... and PF0 maps DSCP 26 -> 3" [ "$(dscp_prio "$RL" "$LP0" 26)" = 3 ]
check "PF1 not written by PF0's VF (writes $W1, pfc [4], DSCP 26 -> 4)" \
	[ "$(dcb_writes "$RL" "$LP1")" = "$W1" ]
check "... PF1 keeps pfc [4]" [ "$(pfc_of "$RL" "$LP1")" = "[4]" ]
check "... PF1 keeps DSCP 26 -> 4" [ "$(dscp_prio "$RL" "$LP1" 26)" = 4 ]
SD=$(state_dir "$RL")
check "the record names PF0 alone" [ "$(jq -c '[.pfs[].ifname]' "$SD/roce_l2_net1.json")" = "[\"$LP0\"]" ]
RDMA_QOS_SIM_ROOT=$RL "$SIM" agent --once --metrics-file "$M" 2> "$T/la.log"
rc=$?
check "agent --once: exit 0" [ $rc -eq 0 ]
c=$(grep -i -m1 conflict "$T/la.log")
check "... no conflict in the agent's log${c:+: $c}" [ -z "$c" ]
check "agent: PF0 counts roce-lossless once" \
	[ "$(metric "$M" "rdma_qos_attachments{pf=\"$LP0\",profile=\"roce-lossless\"}")" = 1 ]
check "agent: PF1 counts alt only (no roce-lossless series)" \
	[ "$(metric "$M" "rdma_qos_attachments{pf=\"$LP1\",profile=\"alt\"}")" = 1 ]
check "... and no roce-lossless series for PF1" [ -z "$(metric "$M" "rdma_qos_attachments{pf=\"$LP1\",profile=\"roce-lossless\"}")" ]
check "agent: PF1 still as alt wants it (writes $W1)" \
	[ "$(dcb_writes "$RL" "$LP1")" = "$W1" ]
check "... PF1 keeps DSCP 26 -> 4 (alt)" [ "$(dscp_prio "$RL" "$LP1" 26)" = 4 ]
chain_del "$RL" roce l2 "$NSB" net1 "$LVF0" "$(rq "$LVF0PCI")" "$ARGS"
chain_del "$RL" roce l1 "$NSA" net1 "$LVF2" "$(rq "$LVF2PCI" '"profile":"alt"')" \
	"IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p1;K8S_POD_UID=u1"

echo "== hardware VF LAG: both ports targeted, telemetry covers both"
"$MKNODE" --root "$RG" --pfs 2 --vfs 2 --numa-nodes 1 --rdma configfs --ecn yes --dcb yes \
	--counters yes --vf-lag --pf-prefix bg$$ > "$T/lag.txt" || { echo "FAIL: mknode"; exit 1; }
sim_make_vfs "$RG"
# switchdev: the representors (a<pf>r<j>) share the PFs' PCI devices: take the uplinks by name
GP0=bg$$""0 GP1=bg$$""1
read -r _ GVF0PCI GVF0 < <(sim_vfs "$RG" | awk -v p="$GP0" '$1 == p' | head -1)
NSC=$(newns c)
chain_add "$RG" roce g1 "$NSC" net1 "$GVF0" "$(rq "$GVF0PCI")" "$ARGS" > /dev/null 2> "$T/g1.log"
check "ADD on a VF LAG's VF" [ $? -eq 0 ]
check "  the log names the VF LAG" grep -q "port of VF LAG bond0 (RDMA device mlx5_bond_0)" "$T/g1.log"
check "both ports have pfc [3] and DSCP 26 -> 3" \
	[ "$(pfc_of "$RG" "$GP0")" = "[3]" ]
check "... PF1 has pfc [3] too" [ "$(pfc_of "$RG" "$GP1")" = "[3]" ]
check "... PF1 maps DSCP 26 -> 3" [ "$(dscp_prio "$RG" "$GP1" 26)" = 3 ]
SD=$(state_dir "$RG")
check "the record names both ports, its own first" \
	[ "$(jq -c '[.pfs[].ifname]' "$SD/roce_g1_net1.json")" = "[\"$GP0\",\"$GP1\"]" ]
set_stat() { local f="$RG/ethtool/$1.json"; jq -c "$2" "$f" > "$f.new" && mv "$f.new" "$f"; }
set_stat "$GP1" '.rx_prio3_pause = 7 | .tx_prio3_pause = 9 | .tx_pause_storm_warning_events = 2 |
	.rx_prio3_discards = 5'
RDMA_QOS_SIM_ROOT=$RG "$SIM" agent --once --metrics-file "$M" 2> "$T/ga.log"
check "agent --once: exit 0" [ $? -eq 0 ]
check "promtool accepts it" promcheck "$M"
check "port 2: pause frames rx prio 3 = 7" \
	[ "$(metric "$M" "rdma_qos_port_pause_frames_total{pf=\"$GP1\",prio=\"3\",direction=\"rx\"}")" = 7 ]
check "port 2: pause storm warnings = 2" \
	[ "$(metric "$M" "rdma_qos_port_pause_storm_events_total{pf=\"$GP1\",level=\"warning\"}")" = 2 ]
check "port 1 still reported (pause rx prio 3 = 0)" \
	[ "$(metric "$M" "rdma_qos_port_pause_frames_total{pf=\"$GP0\",prio=\"3\",direction=\"rx\"}")" = 0 ]
check "both ports count the attachment" \
	[ "$(metric "$M" "rdma_qos_attachments{pf=\"$GP0\",profile=\"roce-lossless\"}")" = 1 ]
check "... the second port counts it too" [ "$(metric "$M" "rdma_qos_attachments{pf=\"$GP1\",profile=\"roce-lossless\"}")" = 1 ]
# derived signals and the pod's rates over an interval in which only port 2 pauses and drops
RDMA_QOS_SIM_ROOT=$RG "$SIM" show --counters --json --interval 2 > "$T/c.json" 2> "$T/c.log" &
CPID=$!
sleep 0.8
set_stat "$GP1" '.rx_prio3_pause += 100 | .rx_prio3_pause_duration += 1900000 | .rx_prio3_discards += 3'
wait "$CPID"
check "show --counters: exit 0" [ $? -eq 0 ]
pf2() { jq -c --arg p "$GP1" ".pfs[] | select(.pf == \$p) | $1" "$T/c.json"; }
check "show --counters: port 2 is there" [ -n "$(pf2 .pf)" ]
check "port 2: paused most of the interval -> pauseStorm" [ "$(pf2 .pauseStorm)" = true ]
check "port 2: discards on PFC priority 3" [ "$(pf2 '.discardsOnPfcPrio | index(3) != null')" = true ]
check "the pod's pause rx rate counts port 2 (> 0)" \
	[ "$(jq '.attachments[0].pauseRx > 0' "$T/c.json")" = true ]
chain_del "$RG" roce g1 "$NSC" net1 "$GVF0" "$(rq "$GVF0PCI")" "$ARGS"

summary
