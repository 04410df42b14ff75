#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Who is behind a port's traffic (issue 31; DESIGN.md "Who"), on the simulated node, with
# counter scenarios of known answers read from /metrics over the interval between two
# fresh reads: rdma_qos_port_roce_off_pfc_ratio (the lossless attachments' RoCE tx bytes,
# from the VF netdev's vport counters, against the port's tx_prio<N>_bytes on its PFC
# priorities; RoCE switched between two VFs inside the NIC and CNPs are not what left the
# port lossy, issue 37 item 6); rdma_qos_vf_paused_traffic_share (each lossless attachment's share of a paused
# port's RoCE: rx bytes while the port sent pause frames, cause host_rx; tx bytes while it
# received them, cause fabric); `show --counters` and `top` rank by it while the port is paused.
# Run by tests/agent/run.sh (its PASS/FAIL lines are counted there).
set -u
. "$(dirname "$0")/lib.sh"

sim_suite_start "who tests" rqwho agent_can_run
AGENT_PID=""
suite_teardown() { [ -n "$AGENT_PID" ] && kill "$AGENT_PID" 2>/dev/null && wait "$AGENT_PID" 2>/dev/null; }
echo '{"namespaces":{"*":{"default":"roce-lossless","allow":["roce-lossless"]}},"node":{"pf":"verify"}}' > "$T/verify.json"

two_pod_node 1 wh pod-a pod-b
check "PF $PF0 has PFC on priority 3 only" [ "$(jq -c .pfc "$ROOT/dcb/$PF0.json")" = "[3]" ]
# the VF netdevs' vport RDMA counters (mlx5), in each pod's netns
VPA=$ROOT/ethtool/netns/$(basename "$NSA")/net1.json
VPB=$ROOT/ethtool/netns/$(basename "$NSB")/net1.json
mkdir -p "$(dirname "$VPA")" "$(dirname "$VPB")"
for f in "$VPA" "$VPB"; do
	echo '{"rx_vport_rdma_unicast_bytes": 0, "tx_vport_rdma_unicast_bytes": 0,
		"rx_vport_rdma_unicast_packets": 0, "tx_vport_rdma_unicast_packets": 0}' > "$f"
done
set_stat() { set_json "$ROOT/ethtool/$PF0.json" "$1"; }
set_stat '.tx_prio3_bytes = 0 | .tx_prio0_bytes = 0 | .rx_prio3_bytes = 0'
MiB=1048576
# pod-b's VF has no congestion counters (firmware without cc_query_allowed; issue 37 item 6)
HWB0=$ROOT/sys/class/infiniband/$(rdma_of "$ROOT" "$VF1PCI")/ports/1/hw_counters
rm -f "$HWB0/np_cnp_sent" "$HWB0/np_ecn_marked_roce_packets" "$HWB0/rp_cnp_handled" "$HWB0/rp_cnp_ignored"

PORT=$(free_port)
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --interval 600 --metrics-file "$T/m.prom" \
	--listen "127.0.0.1:$PORT" --catalog-source "$T/verify.json" 2> "$T/agent.log" &
AGENT_PID=$!
get() { curl -sf "http://127.0.0.1:$PORT/metrics" > "$1"; }
for _ in $(seq 50); do get "$T/h0.prom" && break; sleep 0.1; done
check "GET /metrics" [ -s "$T/h0.prom" ]
# interval NAME CHANGES...: a fresh read (past the ~1 s cache) opens the interval, the
# changes land in it, a second fresh read closes it: $T/NAME.prom
interval() {
	local name=$1
	shift
	sleep 1.1
	get "$T/$name.open.prom"
	"$@"
	sleep 1.1
	get "$T/$name.prom"
}
RATIO="rdma_qos_port_roce_off_pfc_ratio{pf=\"$PF0\"}"

echo "== rdma_qos_port_roce_off_pfc_ratio"
all_on_pfc() {
	set_json "$VPA" ".tx_vport_rdma_unicast_bytes += $((2 * MiB))"
	set_stat ".tx_prio3_bytes += $((2 * MiB))"
}
interval all all_on_pfc
check "promtool accepts /metrics" promcheck "$T/all.prom"
check "HELP and TYPE gauge" grep -qx '# TYPE rdma_qos_port_roce_off_pfc_ratio gauge' "$T/all.prom"
check "2 MiB sent, 2 MiB on PFC priority 3: ratio 0 (got $(metric "$T/all.prom" "$RATIO"))" \
	[ "$(metric "$T/all.prom" "$RATIO")" = 0.0000 ]
half_off() {
	set_json "$VPA" ".tx_vport_rdma_unicast_bytes += $((2 * MiB))"
	set_stat ".tx_prio3_bytes += $MiB | .tx_prio0_bytes += $MiB"
}
interval half half_off
check "2 MiB sent, 1 MiB on priority 3, 1 MiB on lossy 0: ratio 0.5 (got $(metric "$T/half.prom" "$RATIO"))" \
	[ "$(metric "$T/half.prom" "$RATIO")" = 0.5000 ]
two_pods() {
	set_json "$VPA" ".tx_vport_rdma_unicast_bytes += $((3 * MiB))"
	set_json "$VPB" ".tx_vport_rdma_unicast_bytes += $MiB"
	set_stat ".tx_prio3_bytes += $MiB | .tx_prio0_bytes += $((3 * MiB))"
}
interval two two_pods
check "two pods, 3 + 1 MiB sent, 1 MiB on priority 3: ratio 0.75 (got $(metric "$T/two.prom" "$RATIO"))" \
	[ "$(metric "$T/two.prom" "$RATIO")" = 0.7500 ]
under() {
	set_json "$VPA" ".tx_vport_rdma_unicast_bytes += $((MiB / 2))"
	set_json "$VPB" ".tx_vport_rdma_unicast_bytes += $((MiB / 2 - 1))"
}
interval under under
check "under 1 MiB sent (1 MiB - 1 byte, none of it on PFC): no series" \
	[ "$(grep -c '^rdma_qos_port_roce_off_pfc_ratio' "$T/under.prom")" = 0 ]
more_carried() {
	set_json "$VPA" ".tx_vport_rdma_unicast_bytes += $((2 * MiB))"
	set_stat ".tx_prio3_bytes += $((5 * MiB))"
}
interval more more_carried
check "the PFC priority carried more than the pods sent (the PF's own): clamped to 0" \
	[ "$(metric "$T/more.prom" "$RATIO")" = 0.0000 ]
reset_port() {
	set_json "$VPA" ".tx_vport_rdma_unicast_bytes += $((4 * MiB))"
	set_stat ".tx_prio3_bytes = $MiB | .tx_prio0_bytes += $((3 * MiB))"
}
interval reset reset_port
check "a port counter reset (a decrease): counted from 0, 4 MiB sent, 1 MiB carried (3 on lossy 0): 0.75" \
	[ "$(metric "$T/reset.prom" "$RATIO")" = 0.7500 ]
# issue 37 item 6: what left the port lossy; RoCE the eswitch switched between two VFs of
# the PF (counted by the sender's tx and the receiver's rx vport counters, never by the
# port's tx_prio<N>_bytes) and CNPs (on the CNP priority 6, lossy by design) are not
NONE="no series"
ratio_of() { local v; v=$(metric "$1" "$RATIO"); echo "${v:-$NONE}"; }
local_pair() {
	set_json "$VPA" ".tx_vport_rdma_unicast_bytes += $((2 * MiB))"
	set_json "$VPB" ".rx_vport_rdma_unicast_bytes += $((2 * MiB))"
}
interval loc local_pair
check "pod-a sends 2 MiB to pod-b on the same PF (inside the NIC, the port carried none): not lossy ($(ratio_of "$T/loc.prom"))" \
	[ "$(ratio_of "$T/loc.prom")" = "$NONE" ]
both_ways() {
	set_json "$VPA" ".tx_vport_rdma_unicast_bytes += $((3 * MiB)) | .rx_vport_rdma_unicast_bytes += $((3 * MiB))"
	set_json "$VPB" ".tx_vport_rdma_unicast_bytes += $((3 * MiB)) | .rx_vport_rdma_unicast_bytes += $((3 * MiB))"
}
interval both both_ways
check "the two pods exchange 3 MiB each way inside the NIC: not lossy ($(ratio_of "$T/both.prom"))" \
	[ "$(ratio_of "$T/both.prom")" = "$NONE" ]
local_and_out() {
	set_json "$VPA" ".tx_vport_rdma_unicast_bytes += $((4 * MiB))"
	set_json "$VPB" ".rx_vport_rdma_unicast_bytes += $((2 * MiB))"
	set_stat ".tx_prio3_bytes += $((2 * MiB))"
}
interval lout local_and_out
check "4 MiB sent, 2 MiB of it to pod-b inside the NIC, 2 MiB left on PFC priority 3: 0 ($(ratio_of "$T/lout.prom"))" \
	[ "$(ratio_of "$T/lout.prom")" = 0.0000 ]
local_and_lossy() {
	set_json "$VPA" ".tx_vport_rdma_unicast_bytes += $((4 * MiB))"
	set_json "$VPB" ".rx_vport_rdma_unicast_bytes += $((2 * MiB))"
	set_stat ".tx_prio3_bytes += $MiB | .tx_prio0_bytes += $MiB"
}
interval llos local_and_lossy
check "... 2 MiB inside the NIC, of the 2 MiB that left 1 MiB on lossy priority 0: 0.5 ($(ratio_of "$T/llos.prom"))" \
	[ "$(ratio_of "$T/llos.prom")" = 0.5000 ]
# issue 42 item 5: RoCE to a function the agent does not count (the PF's own RDMA device, a
# VM's VF) stays in the NIC too: what left on the priorities without PFC bounds the off share
to_pf() { set_json "$VPA" ".tx_vport_rdma_unicast_bytes += $((2 * MiB))"; }
interval topf to_pf
check "pod-a sends 2 MiB to the PF's own RDMA device (no port counter moved): no series ($(ratio_of "$T/topf.prom"))" \
	[ "$(ratio_of "$T/topf.prom")" = "$NONE" ]
to_pf_and_out() {
	set_json "$VPA" ".tx_vport_rdma_unicast_bytes += $((4 * MiB))"
	set_stat ".tx_prio3_bytes += $((2 * MiB))"
}
interval topfo to_pf_and_out
check "4 MiB sent, 2 MiB of it to the PF's device, 2 MiB left on PFC priority 3, nothing lossy: 0 ($(ratio_of "$T/topfo.prom"))" \
	[ "$(ratio_of "$T/topfo.prom")" = 0.0000 ]
to_pf_and_lossy() {
	set_json "$VPA" ".tx_vport_rdma_unicast_bytes += $((4 * MiB))"
	set_stat ".tx_prio3_bytes += $MiB | .tx_prio0_bytes += $MiB"
}
interval topfl to_pf_and_lossy
check "4 MiB sent, 1 MiB on priority 3, 1 MiB on lossy 0 (2 MiB to the PF's device): 0.25 ($(ratio_of "$T/topfl.prom"))" \
	[ "$(ratio_of "$T/topfl.prom")" = 0.2500 ]
HWA0=$ROOT/sys/class/infiniband/$(rdma_of "$ROOT" "$VF0PCI")/ports/1/hw_counters
# an incast receiver: 64 MiB in from the fabric, out 20000 packets of 1.5 MiB: 19000
# CNPs (78 bytes each on the wire, priority 6) and 1000 ACKs (priority 3)
incast() {
	set_json "$VPA" ".rx_vport_rdma_unicast_bytes += $((64 * MiB)) |
		.tx_vport_rdma_unicast_bytes += $((3 * MiB / 2)) | .tx_vport_rdma_unicast_packets += 20000"
	set_stat ".rx_prio3_bytes += $((64 * MiB)) | .tx_prio6_bytes += $((19000 * 78)) |
		.tx_prio3_bytes += $((3 * MiB / 2 - 19000 * 78))"
	echo $(( $(cat "$HWA0/np_cnp_sent") + 19000 )) > "$HWA0/np_cnp_sent"
}
interval inc incast
check "an incast receiver whose tx is CNPs (np_cnp_sent) and ACKs: not lossy ($(ratio_of "$T/inc.prom"))" \
	[ "$(ratio_of "$T/inc.prom")" = "$NONE" ]
# the same on pod-b, whose firmware gives it no congestion counters (no cc_query_allowed,
# removed before the agent started): every tx packet could be a CNP
incast_b() {
	set_json "$VPB" ".rx_vport_rdma_unicast_bytes += $((64 * MiB)) |
		.tx_vport_rdma_unicast_bytes += $((3 * MiB / 2)) | .tx_vport_rdma_unicast_packets += 20000"
	set_stat ".rx_prio3_bytes += $((64 * MiB)) | .tx_prio6_bytes += $((19000 * 78)) |
		.tx_prio3_bytes += $((3 * MiB / 2 - 19000 * 78))"
}
interval incb incast_b
check "... without a CNP counter, 1.5 MiB in 20000 packets: not lossy ($(ratio_of "$T/incb.prom"))" \
	[ "$(ratio_of "$T/incb.prom")" = "$NONE" ]
bulk_b() {
	set_json "$VPB" ".tx_vport_rdma_unicast_bytes += $((8 * MiB)) | .tx_vport_rdma_unicast_packets += 2048"
	set_stat ".tx_prio0_bytes += $((8 * MiB))"
}
interval bulk bulk_b
check "... but 8 MiB in 2048 packets of 4 KiB all on lossy priority 0: still 1 ($(ratio_of "$T/bulk.prom"))" \
	[ "$(ratio_of "$T/bulk.prom")" = 1.0000 ]
no_bytes() {
	set_json "$VPA" ".tx_vport_rdma_unicast_bytes += $((2 * MiB))"
	set_stat "del(.tx_prio3_bytes)"
}
interval nob no_bytes
check "no tx_prio3_bytes counter on the port: no series" \
	[ "$(grep -c '^rdma_qos_port_roce_off_pfc_ratio' "$T/nob.prom")" = 0 ]
check "... and no series on the first read (no interval)" \
	[ "$(grep -c '^rdma_qos_port_roce_off_pfc_ratio' "$T/h0.prom")" = 0 ]

echo "== rdma_qos_vf_paused_traffic_share"
DEVA=$(rdma_of "$ROOT" "$VF0PCI") DEVB=$(rdma_of "$ROOT" "$VF1PCI")
LA="namespace=\"ai\",pod=\"pod-a\",interface=\"net1\",vf=\"$VF0PCI\",rdma_dev=\"$DEVA\",pf=\"$PF0\""
LB="namespace=\"ai\",pod=\"pod-b\",interface=\"net1\",vf=\"$VF1PCI\",rdma_dev=\"$DEVB\",pf=\"$PF0\""
SH=rdma_qos_vf_paused_traffic_share
set_stat '.tx_prio3_bytes = 0 | .tx_prio3_pause = 0 | .rx_prio3_pause = 0'
# the files must be there: a count in nothing (no file) was 0 too
check "no pause during the intervals so far: no share series" \
	[ "$(cat "$T"/*.prom > "$T/prom.cat" && grep -c "^$SH" "$T/prom.cat")" = 0 ]
one_causing() {
	set_stat '.tx_prio3_pause += 40'
	set_json "$VPA" ".rx_vport_rdma_unicast_bytes += $((8 * MiB))"
}
interval one one_causing
check "promtool accepts /metrics with shares" promcheck "$T/one.prom"
check "HELP and TYPE gauge" grep -qx "# TYPE $SH gauge" "$T/one.prom"
check "the port sent pause frames, pod-a received all the RoCE: host_rx share 1 (got $(metric "$T/one.prom" "$SH{$LA,cause=\"host_rx\"}"))" \
	[ "$(metric "$T/one.prom" "$SH{$LA,cause=\"host_rx\"}")" = 1.0000 ]
check "... pod-b, idle: 0" [ "$(metric "$T/one.prom" "$SH{$LB,cause=\"host_rx\"}")" = 0.0000 ]
check "... no fabric series (no pause received)" [ "$(grep -c "^$SH{.*cause=\"fabric\"" "$T/one.prom")" = 0 ]
two_sharing() {
	set_stat '.rx_prio3_pause += 40'
	set_json "$VPA" ".tx_vport_rdma_unicast_bytes += $((3 * MiB))"
	set_json "$VPB" ".tx_vport_rdma_unicast_bytes += $MiB"
}
interval two2 two_sharing
check "the port received pause frames, two pods sent 3:1: fabric 0.75 (got $(metric "$T/two2.prom" "$SH{$LA,cause=\"fabric\"}"))" \
	[ "$(metric "$T/two2.prom" "$SH{$LA,cause=\"fabric\"}")" = 0.7500 ]
check "... and 0.25 (got $(metric "$T/two2.prom" "$SH{$LB,cause=\"fabric\"}"))" \
	[ "$(metric "$T/two2.prom" "$SH{$LB,cause=\"fabric\"}")" = 0.2500 ]
check "... no host_rx series (no pause sent)" [ "$(grep -c "^$SH{.*cause=\"host_rx\"" "$T/two2.prom")" = 0 ]
idle() { set_stat '.tx_prio3_pause += 40'; }
interval idle idle
check "a paused port with idle pods: 0 each, not the pods (got $(grep "^$SH{" "$T/idle.prom" | awk '{ print $2 }' | tr '\n' ' '))" \
	[ "$(grep "^$SH{.*cause=\"host_rx\"" "$T/idle.prom" | awk '{ print $2 }' | sort -u)" = 0.0000 ]
check "... one series per pod" [ "$(grep -c "^$SH{" "$T/idle.prom")" = 2 ]
set_stat '.tx_global_pause = 0 | .rx_global_pause = 0'
interval quiet true
check "the port not paused: no share series" [ "$(grep -c "^$SH{" "$T/quiet.prom")" = 0 ]
global_tx() {
	set_stat '.tx_global_pause += 7'
	set_json "$VPB" ".rx_vport_rdma_unicast_bytes += $((2 * MiB))"
}
interval glob global_tx
check "link-level pause sent (tx_global_pause, no PFC pause): host_rx, pod-b 1 (got $(metric "$T/glob.prom" "$SH{$LB,cause=\"host_rx\"}"))" \
	[ "$(metric "$T/glob.prom" "$SH{$LB,cause=\"host_rx\"}")" = 1.0000 ]

echo "== show --counters and top rank by the share while the port is paused"
HWA=$ROOT/sys/class/infiniband/$DEVA/ports/1/hw_counters
rates() { RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --counters "$@"; }
paused_rx() {
	set_stat '.tx_prio3_pause += 40'
	set_json "$VPA" ".rx_vport_rdma_unicast_bytes += $MiB"
	set_json "$VPB" ".rx_vport_rdma_unicast_bytes += $((3 * MiB))"
	# pod-a looks worse on its own counters (retransmissions weigh most)
	echo $(( $(cat "$HWA/packet_seq_err" 2> /dev/null || echo 0) + 200 )) > "$HWA/packet_seq_err"
}
rates --json --interval 2 > "$T/r.json" &
SP=$!
sleep 0.8
paused_rx
wait "$SP"
check "show --counters --json: pod-b (0.75 of what the paused port received) first, before pod-a's retransmissions" \
	[ "$(jq -r '.attachments[0].pod' "$T/r.json")" = pod-b ]
check "... pausedShare.host_rx 0.75 and pauseCause host_rx" [ "$(jq -c '.attachments[0] | [.pausedShare.host_rx, .pausedShare.fabric, .pauseCause]' "$T/r.json")" = '[0.75,null,"host_rx"]' ]
check "... pod-a 0.25" [ "$(jq -c '.attachments[] | select(.pod == "pod-a") | [.pausedShare.host_rx, .pauseCause]' "$T/r.json")" = '[0.25,"host_rx"]' ]
# the same traffic and retransmissions, no pause: no share, pod-a's counters rank it first
unpaused_rx() {
	set_json "$VPB" ".rx_vport_rdma_unicast_bytes += $((3 * MiB))"
	echo $(( $(cat "$HWA/packet_seq_err") + 200 )) > "$HWA/packet_seq_err"
}
rates --json --interval 2 > "$T/q.json" &
SP=$!
sleep 0.8
unpaused_rx
wait "$SP"
check "not paused: pod-a first again (retransmissions), no cause" [ "$(jq -c '[.attachments[0].pod, .attachments[0].pauseCause, .attachments[0].pausedShare.host_rx]' "$T/q.json")" = '["pod-a",null,null]' ] ||
	jq -c '.attachments[] | [.pod, .retransmissions, .pausedShare]' "$T/q.json"
( sleep 0.6; paused_rx ) &
rates --interval 1.5 > "$T/r.txt"
wait $!
check "show --counters (text): the PAUSED-SHARE column says the share and the cause" \
	grep -Eq '^ai +pod-b .* 0\.75 host_rx$' "$T/r.txt" || cat "$T/r.txt"
if command -v tmux > /dev/null; then
	TS=rqwho$$
	tmux new-session -d -s "$TS" -x 160 -y 30 "RDMA_QOS_SIM_ROOT=$ROOT $SIM top --interval 0.5; sleep 30"
	sleep 0.8
	# the port keeps pausing while top redraws (every 0.5 s, rates since its last frame); a
	# frame drawn while the machine is busy may cover a gap between two bursts: look at the
	# frames for up to 10 s until one ranks the pause (the checks below judge the last one)
	for _ in $(seq 40); do
		paused_rx
		sleep 0.25
		tmux capture-pane -p -t "$TS" > "$T/top.txt"
		first=$(awk '/^NAMESPACE/ { getline; print $2; exit }' "$T/top.txt")
		[ "$first" = pod-b ] && grep -Eq '^ai +pod-b .* 0\.[0-9]+ host_rx$' "$T/top.txt" && break
	done
	tmux kill-session -t "$TS"
	check "top: the pod behind most of the paused port's traffic first (got $first)" [ "$first" = pod-b ]
	check "top: its PAUSED-SHARE names the cause host_rx" grep -Eq '^ai +pod-b .* 0\.[0-9]+ host_rx$' "$T/top.txt" ||
		cat "$T/top.txt"
else
	fail "top: no tmux (apt-get install tmux)"
fi
summary
