#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Congestion telemetry on the simulated node (DESIGN.md "Congestion
# telemetry"): fake ethtool stats per PF (<root>/ethtool/<pf>.json) and
# hw_counters per RDMA device; the agent's textfile and /metrics carry them
# with the pod's labels (odd values escaped), no series where the driver has
# no counter, derived signals over the interval between two samples, a
# decrease taken as a reset; `show --counters` gives rates; `top` under tmux.
# The VF netdev's vport RDMA counters (mlx5) in the pod's netns:
# <root>/ethtool/netns/<netns basename>/<ifname>.json.
# Run by tests/agent/run.sh (its PASS/FAIL lines are counted there).
set -u
. "$(dirname "$0")/lib.sh"

sim_suite_start "telemetry tests" rqtl agent_can_run
AGENT_PID="" TMUX_S="rqtop$$"
suite_teardown() {
	[ -n "$AGENT_PID" ] && kill "$AGENT_PID" 2>/dev/null && wait "$AGENT_PID" 2>/dev/null
	tmux kill-session -t "$TMUX_S" 2>/dev/null
}
M=$T/m.prom
echo '{"namespaces":{"*":{"default":"roce-lossless","allow":["roce-lossless"]}},"node":{"pf":"verify"}}' > "$T/verify.json"

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
check "--vf-counters essential (default): no other hw counters" [ "$(grep -c '^rdma_qos_vf_hw_counter_total{' "$M")" = 0 ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --once --vf-counters all --metrics-file "$T/all.prom" 2> /dev/null
check "--vf-counters all: other hw counters by name" [ "$(metric "$T/all.prom" "rdma_qos_vf_hw_counter_total{$L0,counter=\"rp_cnp_ignored\"}")" = 3 ]
check "lifespan is not a counter" [ "$(grep -c lifespan "$M")" = 0 ]
check "odd label values escaped" [ "$(metric_lit "$M" "rdma_qos_vf_ecn_marked_packets_total{$L1}")" = 0 ]
check "a VF without congestion counters has no such series" [ "$(grep -c "rdma_qos_vf_cnp_sent_total{$L1}" "$M")" = 0 ]
check "--once: no interval, no derived series" [ "$(grep -c '^rdma_qos_port_pause_storm{' "$M")" = 0 ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --once --no-counters --metrics-file "$T/nc.prom" 2> /dev/null
check "--no-counters: no telemetry family" [ "$(grep -c '^rdma_qos_\(port\|vf_[a-z_]*_total\)' "$T/nc.prom")" = 0 ]

echo "== the VF netdev's vport RDMA counters (mlx5: hw_counters count no packets/bytes)"
# <root>/ethtool/netns/<basename of the pod's netns>/<ifname>.json, the driver's names
VP0=$ROOT/ethtool/netns/$(basename "$NSA")/net1.json
VP1=$ROOT/ethtool/netns/$(basename "$NSB")/net2.json
mkdir -p "$(dirname "$VP0")" "$(dirname "$VP1")"
# set_vport FILE 'jq assignment' (renamed over)
set_vport() { jq -c "$2" "$1" > "$1.new" && mv "$1.new" "$1"; }
echo '{"rx_vport_rdma_unicast_packets": 20, "rx_vport_rdma_unicast_bytes": 1000,
	"tx_vport_rdma_unicast_packets": 300, "tx_vport_rdma_unicast_bytes": 5000000000,
	"rx_vport_unicast_bytes": 77}' > "$VP0"
# the host netns has a net1 too (not the pod's): its stats must not land on the pod
echo '{"tx_vport_rdma_unicast_bytes": 999}' > "$ROOT/ethtool/net1.json"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --once --metrics-file "$T/vp.prom" 2> /dev/null
check "vport: agent --once exit 0" [ $? -eq 0 ]
check "vport: promtool accepts it" promcheck "$T/vp.prom"
check "vport: tx bytes of the pod's VF netdev (past 32 bits)" [ "$(metric "$T/vp.prom" "rdma_qos_vf_bytes_total{$L0,direction=\"tx\"}")" = 5000000000 ]
check "vport: rx bytes" [ "$(metric "$T/vp.prom" "rdma_qos_vf_bytes_total{$L0,direction=\"rx\"}")" = 1000 ]
check "vport: tx packets" [ "$(metric "$T/vp.prom" "rdma_qos_vf_packets_total{$L0,direction=\"tx\"}")" = 300 ]
check "vport: rx packets" [ "$(metric "$T/vp.prom" "rdma_qos_vf_packets_total{$L0,direction=\"rx\"}")" = 20 ]
check "vport: exactly four series, all on the right pod" [ "$(grep -c '^rdma_qos_vf_\(bytes\|packets\)_total{' "$T/vp.prom")" = 4 ]
check "vport: the netdev's own unicast bytes are not RDMA (no series)" [ "$(grep -c rx_vport_unicast_bytes "$T/vp.prom")" = 0 ]
check "vport: the pod without a file has no series" [ "$(grep -cF "rdma_qos_vf_bytes_total{$L1" "$T/vp.prom")" = 0 ]
check "vport: the hw_counters series stay (CNPs 5)" [ "$(metric "$T/vp.prom" "rdma_qos_vf_cnp_sent_total{$L0}")" = 5 ]
# hw_counters that count packets (rxe) win: the vport file of that pod is not read
echo '{"tx_vport_rdma_unicast_packets": 4444, "tx_vport_rdma_unicast_bytes": 8888}' > "$VP1"
echo 9 > "$HW1/sent_pkts"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --once --metrics-file "$T/vp2.prom" 2> /dev/null
check "vport: hw_counters' packets win (sent_pkts 9)" [ "$(metric_lit "$T/vp2.prom" "rdma_qos_vf_packets_total{$L1,direction=\"tx\"}")" = 9 ]
check "vport: ... and the vport counters are not mixed in" [ "$(grep -cF -e 4444 -e 8888 "$T/vp2.prom")" = 0 ]
rm "$HW1/sent_pkts" "$VP1"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --counters --json --interval 2 > "$T/vp.json" &
SP=$!
sleep 0.8
set_vport "$VP0" '.tx_vport_rdma_unicast_packets += 200 | .rx_vport_rdma_unicast_packets += 100'
wait "$SP"
R=$(jq '.attachments[] | select(.pod == "trainer-0") | .txPackets' "$T/vp.json")
check "show --counters rates the vport tx packets ~100/s (got $R)" awk -v r="$R" 'BEGIN { exit !(r > 70 && r < 105) }'
R=$(jq '.attachments[] | select(.pod == "trainer-0") | .rxPackets' "$T/vp.json")
check "show --counters rates the vport rx packets ~50/s (got $R)" awk -v r="$R" 'BEGIN { exit !(r > 35 && r < 53) }'
check "show --counters: no packets for the pod without a file (null)" [ "$(jq '.attachments[] | select(.pod == "p\\x") | .txPackets' "$T/vp.json")" = null ]

echo "== show --counters: rates over the interval, worst pod first"
snap() { (cd "$ROOT" && find . -printf '%p %y %m %s %l\n' | sort && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
# the writes land well inside the 2 s interval, also on a loaded machine (sanitizer builds)
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --counters --json --interval 2 > "$T/c.json" &
SP=$!
sleep 0.8
echo 205 > "$HW0/np_cnp_sent"           # +200 over ~2 s
echo 51 > "$HW1/packet_seq_err"          # pod p\x retransmits (a requester-side trigger): +51
set_stat "$PF0" '.rx_prio3_pause += 50'
wait "$SP"
check "show --counters --json: exit 0" [ $? -eq 0 ]
R=$(jq '.attachments[] | select(.pod == "trainer-0") | .cnpSent' "$T/c.json")
check "CNPs sent per second ~100 (got $R)" awk -v r="$R" 'BEGIN { exit !(r > 70 && r < 105) }'
R=$(jq '.attachments[] | select(.pod == "trainer-0") | .pauseRx' "$T/c.json")
check "the port's pause rate on the pod's priority ~25/s (got $R)" awk -v r="$R" 'BEGIN { exit !(r > 17 && r < 26) }'
check "a counter the VF lacks is null, not 0" [ "$(jq '.attachments[] | select(.pod == "p\\x") | .cnpSent' "$T/c.json")" = null ]
check "worst pod first (retransmissions weigh most)" [ "$(jq -r '.attachments[0].pod' "$T/c.json")" = 'p\x' ]
check "the pod's priority is the DSCP map's for class 106 (3)" [ "$(jq '.attachments[0].prio' "$T/c.json")" = 3 ]
check "PF0 pfc [3]" [ "$(jq -c '.pfs[0].pfc' "$T/c.json")" = "[3]" ]
( sleep 0.5; set_stat "$PF0" '.rx_prio3_pause += 500' ) &
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --counters --interval 1.5 > "$T/c.txt"
wait $!
check "show --counters (text): each column its own counter (pause rx > 0, discards 0.0)" grep -Eq "^  prio 3  pause rx [1-9][0-9.]*/s tx 0.0/s .* discards 0.0/s" "$T/c.txt"
check "show --counters (text) lists both pods" [ "$(grep -c -e 'trainer-0' -e 'p\\x' "$T/c.txt")" = 2 ]
snap > "$T/before"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --counters --interval 0.2 > /dev/null
snap > "$T/after"
check "show --counters leaves the node tree byte-identical" cmp -s "$T/before" "$T/after"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --counters --interval 0 > /dev/null 2>&1
check "--interval 0 refused (exit 2)" [ $? -eq 2 ]

echo "== /metrics: read at request time, cached ~1 s, derived signals, resets"
PORT=$(free_port)
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --interval 600 --metrics-file "$M" --listen "127.0.0.1:$PORT" \
	--catalog-source "$T/verify.json" 2> "$T/bg.log" &
AGENT_PID=$!
get() { curl -sf "http://127.0.0.1:$PORT/metrics" > "$1"; }
for _ in $(seq 50); do get "$T/h0.prom" && break; sleep 0.1; done
check "GET /metrics" [ -s "$T/h0.prom" ]
check "promtool accepts /metrics" promcheck "$T/h0.prom"
check "/metrics has the pod's CNPs" [ "$(metric "$T/h0.prom" "rdma_qos_vf_cnp_sent_total{$L0}")" = 205 ]
# a fresh read, a counter change, a second request: within the second it is the cached text.
# A loaded machine (sanitizer builds) may take longer than the cache lasts: try again then.
cached="" el=0
for try in 1 2 3 4 5; do
	sleep 1.1
	t0=$(date +%s%N)
	get "$T/ha.prom"
	a=$(metric "$T/ha.prom" "rdma_qos_vf_cnp_sent_total{$L0}")
	V=$((300 + try))
	echo "$V" > "$HW0/np_cnp_sent"
	get "$T/h1.prom"
	el=$(( ($(date +%s%N) - t0) / 1000000 ))
	[ "$el" -lt 800 ] || continue
	cached=$(metric "$T/h1.prom" "rdma_qos_vf_cnp_sent_total{$L0}")
	break
done
check "within a second: the cached value ($a; both requests in $el ms)" [ -n "$cached" ]
check "... the second request got the same value ($cached vs $a)" [ "$cached" = "$a" ]
sleep 1.1
get "$T/h2.prom"
check "after a second: read again ($V)" [ "$(metric "$T/h2.prom" "rdma_qos_vf_cnp_sent_total{$L0}")" = "$V" ]
check "derived: no storm on a quiet port" [ "$(metric "$T/h2.prom" "rdma_qos_port_pause_storm{pf=\"$PF0\"}")" = 0 ]
check "derived: no discards on the PFC priority" [ "$(metric "$T/h2.prom" "rdma_qos_port_discards_on_pfc_prio{pf=\"$PF0\",prio=\"3\"}")" = 0 ]
check "derived: RoCE leaves on a lossless priority" [ "$(metric "$T/h2.prom" "rdma_qos_port_roce_on_lossy_prio{pf=\"$PF0\",prio=\"3\"}")" = 0 ]
check "derived: only priorities with PFC have a discards series" [ -z "$(metric "$T/h2.prom" "rdma_qos_port_discards_on_pfc_prio{pf=\"$PF0\",prio=\"0\"}")" ]
# the switch ignores PFC: priority 3 drops; a storm: the port paused 0.9 s of each second
set_stat "$PF0" '.rx_prio3_discards += 3 | .rx_prio3_pause_duration += 5000000'
sleep 1.1
get "$T/h3.prom"
check "derived: discards on PFC priority 3 -> 1" [ "$(metric "$T/h3.prom" "rdma_qos_port_discards_on_pfc_prio{pf=\"$PF0\",prio=\"3\"}")" = 1 ]
check "derived: paused most of the interval -> storm 1" [ "$(metric "$T/h3.prom" "rdma_qos_port_pause_storm{pf=\"$PF0\"}")" = 1 ]
sleep 1.1
get "$T/h4.prom"
check "derived: quiet again -> storm 0" [ "$(metric "$T/h4.prom" "rdma_qos_port_pause_storm{pf=\"$PF0\"}")" = 0 ]
check "derived: quiet again -> discards 0" [ "$(metric "$T/h4.prom" "rdma_qos_port_discards_on_pfc_prio{pf=\"$PF0\",prio=\"3\"}")" = 0 ]
set_stat "$PF0" '.tx_pause_storm_error_events += 1'
sleep 1.1
get "$T/h5.prom"
check "derived: a storm event of the driver -> 1" [ "$(metric "$T/h5.prom" "rdma_qos_port_pause_storm{pf=\"$PF0\"}")" = 1 ]
# the wrong queue: DSCP 26 now maps to priority 0, which has no PFC (pf: verify, so the
# agent leaves the map as it is), and priority 0 sends
dcb_edit "$ROOT" "$PF0" '.app = [.app[] | if .selector == 5 and .protocol == 26 then .priority = 0 else . end]'
sleep 1.1 # the DCB event's pass reads the counters for the textfile: the interval starts there
set_vport "$VP0" '.tx_vport_rdma_unicast_packets += 1000' # trainer-0's own RoCE tx
sleep 1.1
get "$T/h6.prom"
check "derived: RoCE on lossy priority 0 -> 1" [ "$(metric "$T/h6.prom" "rdma_qos_port_roce_on_lossy_prio{pf=\"$PF0\",prio=\"0\"}")" = 1 ]
check "derived: priority 3 is no longer RoCE's (no series)" [ -z "$(metric "$T/h6.prom" "rdma_qos_port_roce_on_lossy_prio{pf=\"$PF0\",prio=\"3\"}")" ]
# the device re-registered: its Q-counters start again from 0
echo 4 > "$HW0/np_cnp_sent"
sleep 1.1
get "$T/h7.prom"
check "a decrease is a reset: the series starts over (4)" [ "$(metric "$T/h7.prom" "rdma_qos_vf_cnp_sent_total{$L0}")" = 4 ]
check "promtool accepts /metrics with derived series" promcheck "$T/h7.prom"
# the VF netdev's vport counters at request time: they follow the file, a decrease
# (the netdev re-created, the driver reloaded) restarts the series, no file: no series
check "/metrics: vport tx bytes of the pod" [ "$(metric "$T/h7.prom" "rdma_qos_vf_bytes_total{$L0,direction=\"tx\"}")" = 5000000000 ]
set_vport "$VP0" '.tx_vport_rdma_unicast_bytes = 5000123456'
sleep 1.1
get "$T/h8.prom"
check "/metrics: vport bytes follow the file" [ "$(metric "$T/h8.prom" "rdma_qos_vf_bytes_total{$L0,direction=\"tx\"}")" = 5000123456 ]
set_vport "$VP0" '.tx_vport_rdma_unicast_bytes = 64'
sleep 1.1
get "$T/h9.prom"
check "/metrics: vport reset: the series starts over (64)" [ "$(metric "$T/h9.prom" "rdma_qos_vf_bytes_total{$L0,direction=\"tx\"}")" = 64 ]
mv "$VP0" "$VP0.gone"
sleep 1.1
get "$T/h10.prom"
check "/metrics: the VF netdev gone: no vport series" [ "$(grep -c '^rdma_qos_vf_\(bytes\|packets\)_total{' "$T/h10.prom")" = 0 ]
check "/metrics: ... the pod's hw_counters series stay" [ -n "$(metric "$T/h10.prom" "rdma_qos_vf_cnp_sent_total{$L0}")" ]
mv "$VP0.gone" "$VP0"
# a driver without per-priority traffic counters: whether RoCE leaves on lossy priority 0 is
# judged from the lossless VFs' own tx packets (trainer-0's are its vport counters)
set_stat "$PF0" 'del(.tx_prio0_packets, .tx_prio0_bytes)'
sleep 1.1
get "$T/h11.prom"
set_vport "$VP0" '.tx_vport_rdma_unicast_packets += 500'
sleep 1.1
get "$T/h12.prom"
check "derived, no port traffic counters: trainer-0's vport tx packets -> RoCE on lossy priority 0" \
	[ "$(metric "$T/h12.prom" "rdma_qos_port_roce_on_lossy_prio{pf=\"$PF0\",prio=\"0\"}")" = 1 ]
sleep 1.1
get "$T/h13.prom"
check "derived, no port traffic counters: the VFs quiet -> 0" \
	[ "$(metric "$T/h13.prom" "rdma_qos_port_roce_on_lossy_prio{pf=\"$PF0\",prio=\"0\"}")" = 0 ]
check "the textfile of the first pass has the counters too" [ -n "$(metric "$M" "rdma_qos_vf_cnp_sent_total{$L0}")" ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --counters --json --interval 0.5 > "$T/c2.json" &
SP=$!
sleep 0.2
echo 2 > "$HW0/np_cnp_sent"
wait "$SP"
R=$(jq '.attachments[] | select(.pod == "trainer-0") | .cnpSent' "$T/c2.json")
check "show --counters after a reset: the new count as the rate, never negative (got $R)" awk -v r="$R" 'BEGIN { exit !(r >= 0 && r < 10) }'
check "no pass of its own for counters: one pass in the log" [ "$(grep -c 'pass took' "$T/bg.log")" -le 1 ]

echo "== top under tmux: the worst pod first, refreshed"
if command -v tmux > /dev/null; then
	tmux new-session -d -s "$TMUX_S" -x 150 -y 30 \
		"RDMA_QOS_SIM_ROOT=$ROOT $SIM top --interval 0.5; sleep 30"
	sleep 0.8
	for _ in $(seq 5); do echo $(( $(cat "$HW0/rp_cnp_handled") + 500 )) > "$HW0/rp_cnp_handled"; sleep 0.3; done
	tmux capture-pane -p -t "$TMUX_S" > "$T/top1.txt"
	check "top: a title line" grep -q "top: every 0.5 s, worst pod first" "$T/top1.txt"
	check "top: the column header" grep -q "NAMESPACE.*POD.*CNP-TX/s.*CNP-RX/s.*RETX/s" "$T/top1.txt"
	first=$(awk '/^NAMESPACE/ { getline; print $2; exit }' "$T/top1.txt")
	check "top: the pod being throttled by CNPs is first (got $first)" [ "$first" = trainer-0 ]
	check "top: the PF line" grep -q "PF $PF0  pfc 3" "$T/top1.txt"
	cnprx() { awk '$2 == "trainer-0" { print $7 }' "$1"; }
	check "top: trainer-0 handles CNPs (CNP-RX/s $(cnprx "$T/top1.txt"))" awk -v r="$(cnprx "$T/top1.txt")" 'BEGIN { exit !(r > 500) }'
	sleep 1.2
	tmux capture-pane -p -t "$TMUX_S" > "$T/top2.txt"
	check "top refreshes: quiet again, CNP-RX/s 0.0 (got $(cnprx "$T/top2.txt"))" [ "$(cnprx "$T/top2.txt")" = 0.0 ]
	check "top: one screen (cleared, not scrolled)" [ "$(grep -c '^NAMESPACE' "$T/top2.txt")" = 1 ]
	tmux kill-session -t "$TMUX_S"
else
	fail "top: no tmux (apt-get install tmux)"
fi

kill -TERM "$AGENT_PID"; wait "$AGENT_PID"; AGENT_PID=""
summary
