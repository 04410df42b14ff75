# SPDX-License-Identifier: Apache-2.0
# Sourced by tests/sim/run.sh (its helpers, counters, $T): what ADD logs (issue 49 item 8).
# A steady ADD logs one line, whose fields carry what DESIGN asks every ADD to log (the
# NUMA verdict, unknown here and why; the class scope, configfs only here); a PF's missing
# controls (no ECN, no CNP control) are warned of where the PF's state changes, its first
# attachment, never by the ADDs that follow.

echo "== ADD's log: one line when steady; a PF's missing controls said where the PF changes"
RL=$T/lognode
"$MKNODE" --root "$RL" --pfs 1 --vfs 2 --numa-nodes 1 --rdma configfs --ecn no --dcb yes \
	--pf-prefix lg$$ --pci-base a0 > /dev/null || fail "mknode (log node)"
LVF1=$(sim_vfs "$RL" | awk 'NR == 1 { print $2 }') LVF2=$(sim_vfs "$RL" | awk 'NR == 2 { print $2 }')
LARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p-log;K8S_POD_UID=pod-nowhere"
ladd() {   # cid vf -> stderr in $T/log.<cid>.<n>; rc
	conf_for roce 1.0.0 "$(rq "$2")" '{"cniVersion":"1.0.0","interfaces":[]}' |
		RDMA_QOS_SIM_ROOT=$RL run_plugin "$SIM" ADD "$1" /proc/self/ns/net net1 "$LARGS" \
		> /dev/null 2> "$T/log.$1.$3"
}
ladd l1 "$LVF1" 1
check "first ADD on the PF succeeds" [ $? -eq 0 ]
check "... warns that the PF has no ECN control (the PF's state change)" \
	grep -q 'warn: PF lg.*has no ECN control' "$T/log.l1.1"
check "... and no CNP control" grep -q 'warn: PF lg.*has no CNP control' "$T/log.l1.1"
ladd l1 "$LVF1" 2
check "steady ADD succeeds" [ $? -eq 0 ]
check "steady ADD logs exactly one line ($(wc -l < "$T/log.l1.2"))" [ "$(wc -l < "$T/log.l1.2")" = 1 ]
check "... ADD's line, at info" grep -q 'info: roce_l1_net1: ADD done: VF ' "$T/log.l1.2"
check "... whose fields say the class scope is configfs only" \
	grep -q 'class scope rdma-cm (configfs only' "$T/log.l1.2"
check "... that NUMA is unknown, and why" \
	grep -Eq ', numa unknown.*; NUMA placement unknown: VF [^;]+ is on NUMA node 0; .*pod-nowhere' \
	"$T/log.l1.2"
check "... and the GPUDirect verdict (kubelet's checkpoint lists no accelerator)" \
	grep -q ', gdr no-gpu' "$T/log.l1.2"
check "... and no warning about the PF" bash -c "! grep -q 'no ECN control\|no CNP control' '$T/log.l1.2'"
ladd l2 "$LVF2" 1
check "second VF on the PF (the PF unchanged): succeeds" [ $? -eq 0 ]
check "... no warning about the PF (its first ADD: the class written, ADD's line)" \
	[ "$(grep -c 'no ECN control\|no CNP control' "$T/log.l2.1"):$(grep -c 'ADD done' "$T/log.l2.1")" = 0:1 ]
ladd l2 "$LVF2" 2
check "... again, steady: one line" [ "$(wc -l < "$T/log.l2.2")" = 1 ]
for c in l1:"$LVF1" l2:"$LVF2"; do
	conf_for roce 1.0.0 "$(rq "${c#*:}")" | RDMA_QOS_SIM_ROOT=$RL run_plugin "$SIM" DEL "${c%%:*}" "" net1 "$LARGS" 2>/dev/null
done
ladd l3 "$LVF1" 1
check "the PF's first attachment again, after both DELs: the warnings again" \
	[ "$(grep -c 'warn: PF lg.*has no \(ECN\|CNP\) control' "$T/log.l3.1")" = 2 ]
conf_for roce 1.0.0 "$(rq "$LVF1")" | RDMA_QOS_SIM_ROOT=$RL run_plugin "$SIM" DEL l3 "" net1 "$LARGS" 2>/dev/null
check "no records left on the log node" [ "$(ls "$RL/run/rdma-qos/state/" | grep -c '\.json$')" = 0 ]
