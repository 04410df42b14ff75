#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Congestion telemetry on the simulated node (DESIGN.md "Congestion
# telemetry"): fake ethtool stats per PF (<root>/ethtool/<pf>.json) and
# hw_counters per RDMA device; the agent's textfile and /metrics carry them
# with the pod's labels (odd values escaped), no series where the driver has
# no counter, derived signals over the interval between two samples, a
# decrease taken as a reset; `show --counters` gives rates; `top` under tmux.
# Run by tests/agent/run.sh (its PASS/FAIL lines are counted there).
set -u
. "$(dirname "$0")/lib.sh"

T=$(mktemp -d /tmp/rq-tel.XXXXXX)
ROOT=$T/node
AGENT_PID="" TMUX_S="rqtop$$"
cleanup() {
	[ -n "$AGENT_PID" ] && kill "$AGENT_PID" 2>/dev/null && wait "$AGENT_PID" 2>/dev/null
	tmux kill-session -t "$TMUX_S" 2>/dev/null
	for n in $(ip netns list | awk -v p="rqtl$$_" 'index($1, p) == 1 { print $1 }'); do
		ip netns del "$n" 2>/dev/null
	done
	sim_del_vfs "$ROOT" 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
newns() { local n="rqtl$$_$1"; ip netns add "$n"; echo "/run/netns/$n"; }
M=$T/m.prom

"$MKNODE" --root "$ROOT" --pfs 2 --vfs 2 --rdma configfs --ecn yes --dcb yes --counters yes \
	--pf-prefix tl$$ > /dev/null || { echo "FAIL: mknode"; exit 1; }
sim_make_vfs "$ROOT"
mapfile -t VFS < <(sim_vfs "$ROOT")
read -r PF0 VF0PCI VF0 <<< "${VFS[0]}"
read -r _ VF1PCI VF1 <<< "${VFS[1]}"
read -r PF1 _ _ <<< "${VFS[2]}"
rq() { echo "{\"type\":\"rdma-qos\",\"deviceID\":\"$1\"}"; }
NSA=$(newns a) NSB=$(newns b)
chain_add "$ROOT" roce t1 "$NSA" net1 "$VF0" "$(rq "$VF0PCI")" \
	"IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=trainer-0;K8S_POD_UID=u0" > /dev/null
check "ADD pod ai/trainer-0" [ $? -eq 0 ]
# a label value with a quote and a backslash: the text format escapes both
chain_add "$ROOT" roce t2 "$NSB" net2 "$VF1" "$(rq "$VF1PCI")" \
	'IgnoreUnknown=1;K8S_POD_NAMESPACE=we"ird;K8S_POD_NAME=p\x;K8S_POD_UID=u1' > /dev/null
check "ADD pod with odd names" [ $? -eq 0 ]
DEV0=$(rdma_of "$ROOT" "$VF0PCI") DEV1=$(rdma_of "$ROOT" "$VF1PCI")
HW0=$ROOT/sys/class/infiniband/$DEV0/ports/1/hw_counters
HW1=$ROOT/sys/class/infiniband/$DEV1/ports/1/hw_counters
# set_stat PF 'jq assignment' (renamed over, as the DCB edits)
set_stat() { local f="$ROOT/ethtool/$1.json"; jq -c "$2" "$f" > "$f.new" && mv "$f.new" "$f"; }
L0="namespace=\"ai\",pod=\"trainer-0\",interface=\"net1\",vf=\"$VF0PCI\",rdma_dev=\"$DEV0\",pf=\"$PF0\""
L1="namespace=\"we\\\"ird\",pod=\"p\\\\x\",interface=\"net2\",vf=\"$VF1PCI\",rdma_dev=\"$DEV1\",pf=\"$PF0\""

echo "== the textfile of a pass"
set_stat "$PF0" '.rx_prio3_pause = 10 | .tx_prio3_pause = 20 | .rx_prio3_pause_duration = 1500000 |
	.rx_prio3_pause_transition = 4 | .tx_prio3_bytes = 123456789012 | .tx_prio3_packets = 99 |
	.rx_prio3_discards = 2 | .tx_pause_storm_warning_events = 1 | .rx_discards_phy = 7'
rm "$ROOT/ethtool/$PF1.json"   # PF1's driver has no stats: no port series for it
echo 5 > "$HW0/np_cnp_sent"; echo 6 > "$HW0/rp_cnp_handled"; echo 8 > "$HW0/np_ecn_marked_roce_packets"
echo 1 > "$HW0/out_of_sequence"; echo 2 > "$HW0/local_ack_timeout_err"; echo 3 > "$HW0/rp_cnp_ignored"
rm "$HW1/np_cnp_sent" "$HW1/rp_cnp_handled" # no congestion counters on this VF (cc_query_allowed off)
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --once --metrics-file "$M" 2> "$T/log"
check "agent --once: exit 0" [ $? -eq 0 ]
check "promtool check metrics accepts it" promcheck "$M"
check "pause frames rx prio 3" [ "$(metric "$M" "rdma_qos_port_pause_frames_total{pf=\"$PF0\",prio=\"3\",direction=\"rx\"}")" = 10 ]
check "pause frames tx prio 3" [ "$(metric "$M" "rdma_qos_port_pause_frames_total{pf=\"$PF0\",prio=\"3\",direction=\"tx\"}")" = 20 ]
check "pause duration in seconds (1500000 us)" [ "$(metric "$M" "rdma_qos_port_pause_seconds_total{pf=\"$PF0\",prio=\"3\",direction=\"rx\"}")" = 1.500000 ]
check "pause transitions" [ "$(metric "$M" "rdma_qos_port_pause_transitions_total{pf=\"$PF0\",prio=\"3\",direction=\"rx\"}")" = 4 ]
check "prio bytes (past 32 bits)" [ "$(metric "$M" "rdma_qos_port_prio_bytes_total{pf=\"$PF0\",prio=\"3\",direction=\"tx\"}")" = 123456789012 ]
check "prio packets" [ "$(metric "$M" "rdma_qos_port_prio_packets_total{pf=\"$PF0\",prio=\"3\",direction=\"tx\"}")" = 99 ]
check "prio discards" [ "$(metric "$M" "rdma_qos_port_prio_discards_total{pf=\"$PF0\",prio=\"3\",direction=\"rx\"}")" = 2 ]
check "storm events warning" [ "$(metric "$M" "rdma_qos_port_pause_storm_events_total{pf=\"$PF0\",level=\"warning\"}")" = 1 ]
check "storm events error" [ "$(metric "$M" "rdma_qos_port_pause_storm_events_total{pf=\"$PF0\",level=\"error\"}")" = 0 ]
check "port discards" [ "$(metric "$M" "rdma_qos_port_discards_total{pf=\"$PF0\"}")" = 7 ]
check "a PF whose driver has no stats has no port series" [ "$(grep -c "pf=\"$PF1\"" "$M")" = 0 ]
check "no tx discards per priority (mlx5 has none)" [ "$(grep -c 'prio_discards_total{.*direction="tx"' "$M")" = 0 ]
check "VF CNPs sent, with the pod's labels" [ "$(metric "$M" "rdma_qos_vf_cnp_sent_total{$L0}")" = 5 ]
check "VF CNPs handled" [ "$(metric "$M" "rdma_qos_vf_cnp_handled_total{$L0}")" = 6 ]
check "VF ECN-marked packets" [ "$(metric "$M" "rdma_qos_vf_ecn_marked_packets_total{$L0}")" = 8 ]
check "VF retransmissions by reason" [ "$(metric "$M" "rdma_qos_vf_retransmissions_total{$L0,reason=\"local_ack_timeout_err\"}")" = 2 ]
check "VF other hw counters by name" [ "$(metric "$M" "rdma_qos_vf_hw_counter_total{$L0,counter=\"rp_cnp_ignored\"}")" = 3 ]
check "lifespan is not a counter" [ "$(grep -c lifespan "$M")" = 0 ]
check "odd label values escaped" [ "$(metric_lit "$M" "rdma_qos_vf_ecn_marked_packets_total{$L1}")" = 0 ]
check "a VF without congestion counters has no such series" [ "$(grep -c "rdma_qos_vf_cnp_sent_total{$L1}" "$M")" = 0 ]
check "--once: no interval, no derived series" [ "$(grep -c '^rdma_qos_port_pause_storm{' "$M")" = 0 ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --once --no-counters --metrics-file "$T/nc.prom" 2> /dev/null
check "--no-counters: no telemetry family" [ "$(grep -c '^rdma_qos_\(port\|vf_[a-z_]*_total\)' "$T/nc.prom")" = 0 ]
