#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# What the counters mean (issue 30 item 6; DESIGN.md "Congestion telemetry"),
# on the simulated node: requester-side retransmissions apart from the
# responder's out_of_sequence; mlx5's per-TC buffer/congestion discards as
# host drops through the port's prio->TC map, apart from the port's own
# per-priority discards; RoCE on a lossy priority judged from the lossless
# attachments' own tx; 32-bit Q-counter wraps; no rate across a VF's move to
# another pod; a PF renamed by a reload found by its PCI address;
# --vf-counters essential|all; link-level (global) pause series and storm;
# the storm-prevention timeout as mlx5 stores "auto".
# Run by tests/agent/run.sh (its PASS/FAIL lines are counted there).
set -u
. "$(dirname "$0")/lib.sh"

sim_suite_start "telemetry meaning tests" rqtm agent_can_run
AGENT_PID=""
suite_teardown() { [ -n "$AGENT_PID" ] && kill "$AGENT_PID" 2>/dev/null && wait "$AGENT_PID" 2>/dev/null; }
echo '{"namespaces":{"*":{"default":"roce-lossless","allow":["roce-lossless"]}},"node":{"pf":"verify"}}' > "$T/verify.json"

two_pod_node 2 tm sender-0 receiver-0
DEV0=$(rdma_of "$ROOT" "$VF0PCI") DEV1=$(rdma_of "$ROOT" "$VF1PCI")
HW0=$ROOT/sys/class/infiniband/$DEV0/ports/1/hw_counters
HW1=$ROOT/sys/class/infiniband/$DEV1/ports/1/hw_counters
# packets counted by the device itself (as rxe does), there before the agent lists the files
echo 0 > "$HW0/sent_pkts"; echo 0 > "$HW1/sent_pkts"
set_stat() { local f="$ROOT/ethtool/$1.json"; jq -c "$2" "$f" > "$f.new" && mv "$f.new" "$f"; }
L0="namespace=\"ai\",pod=\"sender-0\",interface=\"net1\",vf=\"$VF0PCI\",rdma_dev=\"$DEV0\",pf=\"$PF0\""
L1="namespace=\"ai\",pod=\"receiver-0\",interface=\"net1\",vf=\"$VF1PCI\",rdma_dev=\"$DEV1\",pf=\"$PF0\""
once() { RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --once --catalog-source "$T/verify.json" --metrics-file "$@" 2> /dev/null; }
rates() { RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --counters --json --interval "$@"; }

echo "== retransmissions: requester-side triggers only; out_of_sequence its own family"
echo 4 > "$HW0/packet_seq_err"; echo 2 > "$HW0/local_ack_timeout_err"
echo 9000 > "$HW1/out_of_sequence"
once "$T/a.prom"
check "promtool accepts it" promcheck "$T/a.prom"
check "packet_seq_err is a retransmission trigger" [ "$(metric "$T/a.prom" "rdma_qos_vf_retransmissions_total{$L0,reason=\"packet_seq_err\"}")" = 4 ]
check "the responder's out_of_sequence is rdma_qos_vf_out_of_sequence_total" [ "$(metric "$T/a.prom" "rdma_qos_vf_out_of_sequence_total{$L1}")" = 9000 ]
check "... and no retransmission reason" [ "$(grep -c 'rdma_qos_vf_retransmissions_total{.*reason="out_of_sequence"' "$T/a.prom")" = 0 ]
check "duplicate_request (the responder's) is no retransmission reason" [ "$(grep -c 'reason="duplicate_request"' "$T/a.prom")" = 0 ]
# the receiver sees a loss at line rate (thousands of out-of-sequence packets), the sender
# resends a few times: the sender is the one retransmitting, and ranks first
rates 2 > "$T/r1.json" &
SP=$!
sleep 0.8
echo 29000 > "$HW1/out_of_sequence"; echo 14 > "$HW0/packet_seq_err"
wait "$SP"
R=$(jq '.attachments[] | select(.pod == "receiver-0") | .retransmissions' "$T/r1.json")
check "show --counters: the receiver's retransmissions 0 (got $R)" [ "$R" = 0 ]
R=$(jq '.attachments[] | select(.pod == "receiver-0") | .outOfSequence' "$T/r1.json")
check "show --counters: its out-of-sequence rate ~10000/s (got $R)" awk -v r="$R" 'BEGIN { exit !(r > 7000 && r < 10500) }'
check "ranking by requester-side retransmissions: the sender first" [ "$(jq -r '.attachments[0].pod' "$T/r1.json")" = sender-0 ]

echo "== 32-bit Q-counters: a decrease from above 2^31 is a wrap"
echo 4294967000 > "$HW0/packet_seq_err"
rates 2 > "$T/r2.json" &
SP=$!
sleep 0.8
echo 100 > "$HW0/packet_seq_err" # +396 through 2^32
wait "$SP"
R=$(jq '.attachments[] | select(.pod == "sender-0") | .retransmissions' "$T/r2.json")
check "wrap: ~198 retransmissions/s, not the reset's 50 (got $R)" awk -v r="$R" 'BEGIN { exit !(r > 140 && r < 210) }'
echo 3000000000 > "$HW0/np_cnp_sent" # a 64-bit congestion counter: a decrease is a reset
rates 2 > "$T/r3.json" &
SP=$!
sleep 0.8
echo 100 > "$HW0/np_cnp_sent"
wait "$SP"
R=$(jq '.attachments[] | select(.pod == "sender-0") | .cnpSent' "$T/r3.json")
check "a 64-bit congestion counter's decrease stays a reset (~50/s, got $R)" awk -v r="$R" 'BEGIN { exit !(r > 35 && r < 55) }'

echo "== host drops (per TC) apart from the port's discards (per priority)"
# PFC on priority 3; the port's map sends priority 3 to TC 5 and 5 to TC 3 (mlx5's own default
# swaps only 0 and 1): rx_prio<N>_buf_discard is TC N's
dcb_edit "$ROOT" "$PF0" '.ets = {"tcBw": [0,0,0,0,0,0,0,100], "tsa": [2,2,2,2,2,2,2,2], "prioTc": [1,0,2,5,4,3,6,7]}'
set_stat "$PF0" '.rx_prio3_buf_discard = 0 | .rx_prio5_buf_discard = 0 | .rx_prio3_cong_discard = 0 | .rx_prio5_cong_discard = 0'
PORT=$(free_port)
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --interval 600 --metrics-file "$T/m.prom" --listen "127.0.0.1:$PORT" \
	--catalog-source "$T/verify.json" 2> "$T/bg.log" &
AGENT_PID=$!
get() { curl -sf "http://127.0.0.1:$PORT/metrics" > "$1"; }
for _ in $(seq 50); do get "$T/h0.prom" && break; sleep 0.1; done
check "GET /metrics" [ -s "$T/h0.prom" ]
check "tc discards: a series per TC and reason" [ "$(metric "$T/h0.prom" "rdma_qos_port_tc_discards_total{pf=\"$PF0\",tc=\"5\",reason=\"buffer\"}")" = 0 ]
check "tc discards: congestion" [ "$(metric "$T/h0.prom" "rdma_qos_port_tc_discards_total{pf=\"$PF0\",tc=\"3\",reason=\"congestion\"}")" = 0 ]
check "no per-priority series for a per-TC counter" [ "$(grep -c 'prio_discards_total{.*prio="5"' "$T/h0.prom")" = 1 ]
sleep 1.1
set_stat "$PF0" '.rx_prio3_buf_discard += 40' # TC 3: priority 5's, no PFC there
sleep 1.1
get "$T/h1.prom"
check "TC 3 dropped: host drops on PFC priority 3 stay 0 (3 is on TC 5)" [ "$(metric "$T/h1.prom" "rdma_qos_port_host_drops_on_pfc_prio{pf=\"$PF0\",prio=\"3\"}")" = 0 ]
check "... and the port's discards on PFC priority 3 stay 0 (not the link partner)" [ "$(metric "$T/h1.prom" "rdma_qos_port_discards_on_pfc_prio{pf=\"$PF0\",prio=\"3\"}")" = 0 ]
check "tc discards: TC 3 buffer 40" [ "$(metric "$T/h1.prom" "rdma_qos_port_tc_discards_total{pf=\"$PF0\",tc=\"3\",reason=\"buffer\"}")" = 40 ]
set_stat "$PF0" '.rx_prio5_cong_discard += 7' # TC 5 carries PFC priority 3
sleep 1.1
get "$T/h2.prom"
check "TC 5 dropped: host drops on PFC priority 3 -> 1" [ "$(metric "$T/h2.prom" "rdma_qos_port_host_drops_on_pfc_prio{pf=\"$PF0\",prio=\"3\"}")" = 1 ]
check "... the port's own discards on priority 3 stay 0" [ "$(metric "$T/h2.prom" "rdma_qos_port_discards_on_pfc_prio{pf=\"$PF0\",prio=\"3\"}")" = 0 ]
check "host drops: only PFC priorities have a series" [ "$(grep -c '^rdma_qos_port_host_drops_on_pfc_prio{' "$T/h2.prom")" = 1 ]
set_stat "$PF0" '.rx_prio3_discards += 2'
sleep 1.1
get "$T/h3.prom"
check "rx_prio3_discards: discards on PFC priority 3 -> 1" [ "$(metric "$T/h3.prom" "rdma_qos_port_discards_on_pfc_prio{pf=\"$PF0\",prio=\"3\"}")" = 1 ]
check "... and no host drops this time" [ "$(metric "$T/h3.prom" "rdma_qos_port_host_drops_on_pfc_prio{pf=\"$PF0\",prio=\"3\"}")" = 0 ]
( sleep 0.5; set_stat "$PF0" '.rx_prio5_buf_discard += 9' ) &
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --counters --interval 1.5 > "$T/hd.txt"
wait $!
check "show --counters (text): host drops on pfc prio 3" grep -q "^PF $PF0 .* discards on pfc prio none  host drops on pfc prio 3  partner " "$T/hd.txt"
R=$(RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --counters --json --interval 0.3 | jq -c --arg p "$PF0" '.pfs[] | select(.pf == $p) | .hostDropsOnPfcPrio')
check "show --counters --json: hostDropsOnPfcPrio [] when nothing moved (got $R)" [ "$R" = "[]" ]

echo "== RoCE on a lossy priority: the lossless attachments' own RoCE tx"
# class 106's DSCP 26 now maps to priority 0, which has no PFC
dcb_edit "$ROOT" "$PF0" '.app = [.app[] | if .selector == 5 and .protocol == 26 then .priority = 0 else . end]'
sleep 1.1
echo 100 > "$HW0/sent_pkts"; echo 100 > "$HW1/sent_pkts"
sleep 1.1
get "$T/h4.prom"
set_stat "$PF0" '.tx_prio0_packets += 100000 | .tx_prio0_bytes += 9000000' # TCP on priority 0
sleep 1.1
get "$T/h5.prom"
check "TCP on priority 0 while every lossless pod is idle: 0" [ "$(metric "$T/h5.prom" "rdma_qos_port_roce_on_lossy_prio{pf=\"$PF0\",prio=\"0\"}")" = 0 ]
echo 400 > "$HW0/sent_pkts"
sleep 1.1
get "$T/h6.prom"
check "a lossless pod sends RoCE on priority 0: 1" [ "$(metric "$T/h6.prom" "rdma_qos_port_roce_on_lossy_prio{pf=\"$PF0\",prio=\"0\"}")" = 1 ]

echo "== a VF that moved to another pod starts afresh"
# receiver-0 stops; its VF goes to pod ai/newcomer-0 (the record follows the new pod). The
# counters it carries over are the old pod's: no rate across the move.
SD=$(state_dir "$ROOT")
REC1=$(grep -l '"receiver-0"' "$SD"/*.json | head -1)
set_stat "$PF0" 'del(.tx_prio0_packets, .tx_prio0_bytes)' # no port view of priority 0 at all
sleep 1.1
get "$T/h7.prom"
echo 900 > "$HW1/sent_pkts" # the old pod's last RoCE, before the move
echo 500 > "$HW1/packet_seq_err"
jq -c '.podName = "newcomer-0" | .podUid = "u9"' "$REC1" > "$REC1.new" && mv "$REC1.new" "$REC1"
dcb_edit "$ROOT" "$PF0" '.'  # an event: a pass takes the new record
for _ in $(seq 30); do grep -q 'newcomer-0' "$T/m.prom" 2> /dev/null && break; sleep 0.2; done
check "the textfile has the new pod" grep -q 'pod="newcomer-0"' "$T/m.prom"
check "no RoCE-on-lossy verdict from the old pod's traffic (textfile)" [ "$(metric "$T/m.prom" "rdma_qos_port_roce_on_lossy_prio{pf=\"$PF0\",prio=\"0\"}")" != 1 ]
sleep 1.1
get "$T/h8.prom"
check "... nor on /metrics" [ "$(metric "$T/h8.prom" "rdma_qos_port_roce_on_lossy_prio{pf=\"$PF0\",prio=\"0\"}")" != 1 ]
kill "$AGENT_PID"; wait "$AGENT_PID" 2> /dev/null; AGENT_PID=""

echo "== --vf-counters essential|all"
once "$T/e.prom"
check "essential (default): no rdma_qos_vf_hw_counter_total" [ "$(grep -c '^rdma_qos_vf_hw_counter_total{' "$T/e.prom")" = 0 ]
check "essential: the named families stay" [ -n "$(metric "$T/e.prom" "rdma_qos_vf_cnp_sent_total{$L0}")" ]
once "$T/all.prom" --vf-counters all
check "all: every other hw_counters entry (rx_write_requests)" [ -n "$(metric "$T/all.prom" "rdma_qos_vf_hw_counter_total{$L0,counter=\"rx_write_requests\"}")" ]
check "all: duplicate_request is one of them" [ -n "$(metric "$T/all.prom" "rdma_qos_vf_hw_counter_total{$L0,counter=\"duplicate_request\"}")" ]
check "all: promtool accepts it" promcheck "$T/all.prom"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --once --vf-counters some --metrics-file "$T/x.prom" 2> "$T/x.err"
check "--vf-counters some: refused (exit 2)" [ $? -eq 2 ]
check "... saying what it takes" grep -q "expected essential or all" "$T/x.err"

echo "== link-level pause (a port without PFC): pause series and a storm verdict"
set_stat "$PF0" '.rx_global_pause = 10 | .tx_global_pause = 3 | .rx_global_pause_duration = 2000000 |
	.tx_global_pause_duration = 0 | .rx_global_pause_transition = 5'
once "$T/g.prom"
check "global pause frames rx" [ "$(metric "$T/g.prom" "rdma_qos_port_pause_frames_total{pf=\"$PF0\",prio=\"global\",direction=\"rx\"}")" = 10 ]
check "global pause frames tx" [ "$(metric "$T/g.prom" "rdma_qos_port_pause_frames_total{pf=\"$PF0\",prio=\"global\",direction=\"tx\"}")" = 3 ]
check "global pause seconds" [ "$(metric "$T/g.prom" "rdma_qos_port_pause_seconds_total{pf=\"$PF0\",prio=\"global\",direction=\"rx\"}")" = 2.000000 ]
check "global pause transitions" [ "$(metric "$T/g.prom" "rdma_qos_port_pause_transitions_total{pf=\"$PF0\",prio=\"global\",direction=\"rx\"}")" = 5 ]
check "promtool accepts it" promcheck "$T/g.prom"
rates 1.5 > "$T/g.json" &
SP=$!
sleep 0.5
set_stat "$PF0" '.rx_global_pause += 300 | .rx_global_pause_duration += 1400000'
wait "$SP"
check "paused by link-level pause most of the interval: pauseStorm true" [ "$(jq --arg p "$PF0" '.pfs[] | select(.pf == $p) | .pauseStorm' "$T/g.json")" = true ]
R=$(jq --arg p "$PF0" '.pfs[] | select(.pf == $p) | .globalPauseRx' "$T/g.json")
check "show --counters: link-level pause rx ~200/s (got $R)" awk -v r="$R" 'BEGIN { exit !(r > 140 && r < 210) }'

echo "== storm prevention: mlx5 stores auto as 100 ms"
echo '{"pfcPreventionTout": 100}' > "$ROOT/ethtool/$PF0.tunables.json"
once "$T/t.prom"
check "the metric reads what mlx5 stores (0.1 s)" [ "$(metric "$T/t.prom" "rdma_qos_pf_pfc_storm_prevention_seconds{pf=\"$PF0\"}")" = 0.1 ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show > "$T/show.txt" 2>&1
check "show says 100 ms is what mlx5 stores for auto" grep -q "pfc storm prevention: 100 ms (what mlx5 stores for auto)" "$T/show.txt"

echo "== a PF renamed by a driver reload: found by its PCI address"
PF0PCI=$(basename "$(readlink -f "$ROOT/sys/class/net/$PF0/device")")
NEW=tm$$rn
PCIDIR=$(readlink -f "$ROOT/sys/bus/pci/devices/$PF0PCI")
mv "$PCIDIR/net/$PF0" "$PCIDIR/net/$NEW"
rm "$ROOT/sys/class/net/$PF0"
ln -sfn "../../devices/pci0000:00/$PF0PCI/net/$NEW" "$ROOT/sys/class/net/$NEW"
mv "$ROOT/ethtool/$PF0.json" "$ROOT/ethtool/$NEW.json"
mv "$ROOT/dcb/$PF0.json" "$ROOT/dcb/$NEW.json"
check "the records still name the old PF (the test's premise)" grep -q "\"$PF0\"" "$(grep -l '"sender-0"' "$(state_dir "$ROOT")"/*.json | head -1)"
rates 1 > "$T/rn.json" &
SP=$!
sleep 0.4
set_stat "$NEW" '.rx_prio3_pause += 100'
wait "$SP"
R=$(jq --arg p "$NEW" '.pfs[] | select(.pf == $p) | .prios[] | select(.prio == 3) | .pauseRx' "$T/rn.json")
check "show --counters: the renamed port's pause rate ~100/s (got $R)" awk -v r="$R" 'BEGIN { exit !(r > 60 && r < 105) }'
check "show --counters: the port under its new name" [ "$(jq -r --arg p "$NEW" '[.pfs[] | select(.pf == $p) | .stats] | first' "$T/rn.json")" = true ]
check "show --counters: the attachment's pf is the new name" [ "$(jq -r '.attachments[] | select(.pod == "sender-0") | .pf' "$T/rn.json")" = "$NEW" ]
L0N="namespace=\"ai\",pod=\"sender-0\",interface=\"net1\",vf=\"$VF0PCI\",rdma_dev=\"$DEV0\",pf=\"$NEW\""
once "$T/rn.prom"
check "metrics: the port series under the new name" [ -n "$(metric "$T/rn.prom" "rdma_qos_port_pause_frames_total{pf=\"$NEW\",prio=\"3\",direction=\"rx\"}")" ]
check "metrics: the attachment's pf label is the new name" [ -n "$(metric "$T/rn.prom" "rdma_qos_vf_cnp_sent_total{$L0N}")" ]
check "metrics: nothing under the old name" [ "$(grep -c "pf=\"$PF0\"" "$T/rn.prom")" = 0 ]
summary
