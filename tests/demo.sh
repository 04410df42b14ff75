#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The demo (README's first command): what rdma-qos does at ADD and after it, on a simulated
# node (2 PFs x 4 VFs on two NUMA nodes, one RDMA device per VF, the drivers' counters; veth
# "VFs" moved into pod netns by Debian's real host-device plugin):
#   1. three pods attach through the conflist [host-device, rdma-qos-sim]: two lossless (one
#      NUMA-aligned, one not), one lossy, as the node catalog lets namespace ai-training;
#   2. the agent runs; an outside writer (as mlnx_qos would) rewrites the PF's PFC and the
#      agent's log line shows the repair, within a second; `show` before and after;
#   3. lldpd plays the switch on the far end of the PF (a real veth): the partner line of
#      `show` agrees, then the switch's PFC moves to priority 4 and it DISAGREES;
#   4. congestion: the port pauses, `top` ranks the pods by their share of what it received,
#      `show --qps` flags the lossless pod whose QP sends at class 0, `show --pod` gives
#      that pod's verdict, one line per check;
#   5. the series an operator alerts on (deploy/monitoring/prometheusrule.yaml), from /metrics,
#      rdma_qos_attachment_lossless (the pod's verdict over time) first;
# then DEL. Everything it makes (netns, veths, lldpd, the agent, its temp dir) goes when it
# ends, also on Ctrl-C, SIGTERM or a reader that stops reading (make demo | head). tests/sim/demo_check.sh runs it and checks its key lines.
set -euo pipefail
. "$(dirname "$0")/agent/lib.sh"

if ! why=$(demo_can_run); then echo "demo: cannot run: $why" >&2; exit 1; fi
AGENT="" TOP=""
suite_teardown() {
	trap '' INT TERM PIPE
	set +e
	# stdout may be a pipe its reader closed (make demo | head): nothing more to it
	exec > /dev/null 2>&1
	[ -n "$TOP" ] && kill "$TOP" 2> /dev/null && wait "$TOP" 2> /dev/null
	[ -n "$AGENT" ] && kill "$AGENT" 2> /dev/null && wait "$AGENT" 2> /dev/null
	sw_teardown
}
sim_suite_start demo "dm" demo_can_run # $T, $ROOT, newns; the cleanup on EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 141' PIPE
# headings in bold only on a terminal
if [ -t 1 ]; then B=$'\033[1m' N=$'\033[0m'; else B="" N=""; fi
step() { printf '\n%s== %s%s\n' "$B" "$*" "$N"; }
sub() { printf '\n%s-- %s%s\n' "$B" "$*" "$N"; }
show() { RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show "$@"; }
# show_pf PF: the PF's header and required lines of `show`
show_pf() { show 2> /dev/null | awk -v pf="PF $1 " 'index($0, pf) == 1 { on = 1; print; next } /^[^ ]/ { on = 0 } on && /^  (required|partner)/'; }
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }

# PF names like a real NIC's (ens<N>f0), N free on this host: PF0 is a real veth too (3.)
n=$(($$ % 900 + 100))
while ip -o link show 2> /dev/null | grep -q ": ens${n}f"; do n=$((n + 1)); done
step "a simulated node: 2 PFs x 4 VFs on 2 NUMA nodes, RDMA ToS by configfs, ECN, DCB, counters"
"$MKNODE" --root "$ROOT" --pfs 2 --vfs 4 --numa-nodes 2 --cpus-per-node 4 --rdma configfs \
	--ecn yes --dcb yes --counters yes --pf-prefix "ens${n}f" | awk -v pf="ens${n}f0" 'NR == 1 || $1 == pf'
"$MKNODE" --root "$ROOT" pod --uid 11111111-aaaa --cpus 0-1 > /dev/null # node 0: with the PF
"$MKNODE" --root "$ROOT" pod --uid 22222222-bbbb --cpus 4-5 > /dev/null # node 1: not
"$MKNODE" --root "$ROOT" pod --uid 33333333-cccc --cpus 2-3 > /dev/null
sim_make_vfs "$ROOT"
mapfile -t VFS < <(sim_vfs "$ROOT")
PF0=${VFS[0]%% *}
echo 9000 > "$ROOT/sys/class/net/$PF0/mtu"
sw_make "$PF0" 0 # the PF's netdev: a veth whose far end is the switch's port (3.)
# the node catalog: examples/profiles.json's two profiles and its namespace ai-training
CAT=$ROOT/etc/cni/rdma-qos/profiles.json
jq '{profiles: (.profiles | {"roce-lossless", lossy}), namespaces: {"ai-training": .namespaces["ai-training"]},
	node: {pf: "ensure"}}' "$RQ_SRC/examples/profiles.json" > "$CAT"
echo "catalog: ai-training $(jq -c '.namespaces["ai-training"] | {default, allow}' "$CAT"); lossless = $(jq -c '.profiles["roce-lossless"] | {dscp2prio, pfc, trafficClass}' "$CAT")"

step "1. three pods attach: ADD and CHECK through [host-device, rdma-qos-sim]"
CONF=$(jq -c '.plugins[1]' "$RQ_SRC/examples/conflist-host-device.json")
# attach NAME UID VF-INDEX [PROFILE]: the conflist's ADD then CHECK, as a runtime runs it;
# PROFILE as a pod asks for one (Multus's cni-args: examples/pod-cni-args.yaml)
attach() {
	local name=$1 pci dev ns args rq
	read -r _ pci dev <<< "${VFS[$3]}"
	ns=$(newns "$name")
	args="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai-training;K8S_POD_NAME=$name;K8S_POD_UID=$2"
	rq=$(jq -c --arg d "$pci" --arg p "${4:-}" '. + {deviceID: $d} + if $p == "" then {} else {args: {cni: {profile: $p}}} end' <<< "$CONF")
	sub "ai-training/$name${4:+ (cni-args profile $4)}: ADD [host-device $dev -> net1, rdma-qos deviceID $pci]"
	chain_add "$ROOT" roce "ctr-$name" "$ns" net1 "$dev" "$rq" "$args" > "$T/$name.result" 2> "$T/$name.log" ||
		{ cat "$T/$name.log" "$T/$name.result"; exit 1; }
	sed 's/^[^ ]* [^ ]* //' "$T/$name.log" # the plugin's log, without time and pid
	echo "result: $(jq -c '{cniVersion, interfaces: [.interfaces[] | {name, sandbox}]}' "$T/$name.result")"
	chain_check "$ROOT" roce "ctr-$name" "$ns" net1 "$dev" "$rq" "$args" "$(cat "$T/$name.result")" && echo "CHECK ok"
	echo "$name $ns $dev $args $rq" >> "$T/pods"
}
# recheck NAME: CHECK of a pod's attachment again, as a runtime would
recheck() {
	local name ns dev args rq
	read -r name ns dev args rq < <(grep "^$1 " "$T/pods")
	chain_check "$ROOT" roce "ctr-$name" "$ns" net1 "$dev" "$rq" "$args" "$(cat "$T/$name.result")" 2>&1 &&
		echo "CHECK ai-training/$name: ok"
}
attach trainer-0 11111111-aaaa 0
attach trainer-1 22222222-bbbb 1
attach web 33333333-cccc 2 lossy
# each pod's VF netdev counts its RoCE bytes (mlx5's vport counters, read in the pod netns;
# 4. moves them): there from the start, as on a node, so the agent's first read has them
vport() { echo "$ROOT/ethtool/netns/${NS_PREFIX}$1/net1.json"; }
for p in trainer-0 trainer-1 web; do
	mkdir -p "$(dirname "$(vport "$p")")"
	echo '{"rx_vport_rdma_unicast_bytes": 0, "tx_vport_rdma_unicast_bytes": 0}' > "$(vport "$p")"
done
sub "rdma-qos show: $PF0 in profile, the VFs' classes, NUMA, the pods"
show 2> /dev/null | awk -v pf="PF $PF0 " 'index($0, pf) == 1 { on = 1 } /^PF / && index($0, pf) != 1 { on = 0 } on || /record/'

step "2. the agent keeps it so: an outside writer rewrites $PF0's PFC (as mlnx_qos would)"
PORT=$(free_port)
M=$T/metrics.prom
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --interval 60 --listen "127.0.0.1:$PORT" --metrics-file "$M" \
	--qp-census-interval 0 2> "$T/agent.log" &
AGENT=$!
metrics() { curl -sf "http://127.0.0.1:$PORT/metrics" > "$1"; }
wait_until 10 metrics "$T/m0.prom" || { echo "demo: the agent does not answer on 127.0.0.1:$PORT" >&2; cat "$T/agent.log" >&2; exit 1; }
echo "\$ rdma-qos-sim agent --interval 60 --listen 127.0.0.1:$PORT --metrics-file ... &   (pid $AGENT)"
echo "\$ rdma-qos show   (before)"
show_pf "$PF0"
echo "\$ mlnx_qos -i $PF0 --pfc 0,0,0,0,1,0,0,0   (here: the fake DCB file rewritten, pfc [3] -> [4])"
t0=$(date +%s%N)
dcb_edit "$ROOT" "$PF0" '.pfc = [4]'
repaired() { grep -q "PF $PF0 repaired pfc" "$T/agent.log"; }
if wait_until 10 repaired; then
	echo "agent log, $(ms_since "$t0") ms after the write:"
else
	echo "agent log: no repair 10 s after the write"
fi
grep "repaired" "$T/agent.log" | sed 's/^/  /'
echo "\$ rdma-qos show   (after: priority 3 back, as the profile requires; 4 stays, which it does not forbid)"
show_pf "$PF0"

step "3. the switch: lldpd on the far end of $PF0 says what the port does"
sw_start 0 leaf-01 swp3 30 "$PFC3" "$APP_OK" "$MFS9216"
echo "lldpd as leaf-01 port swp3: PFC on 3, DSCP 26 -> 3 and 48 -> 6, max frame 9216 (802.1Qaz/802.3 TLVs)"
says() { show_line "$PF0" > "$T/partner" && grep -q "$1" "$T/partner"; }
wait_until 20 says "pfc agrees" || echo "(no partner heard within 20 s)"
echo "agent log:"
grep "link partner" "$T/agent.log" | sed 's/^/  /'
echo "\$ rdma-qos show   (the partner line of $PF0)"
cat "$T/partner"
sub "the fabric team moves the switch's PFC to priority 4 (lldpcli configure lldp custom-tlv replace ...)"
sw_tlvs 0 "$PFC4" "$APP_OK" "$MFS9216"
wait_until 20 says "pfc DISAGREES" || echo "(the partner's change not heard within 20 s)"
cat "$T/partner"
echo "(the fabric team's to fix: the agent writes nothing to follow the switch, the port keeps pfc $(pfc_of "$ROOT" "$PF0"))"
recheck trainer-0

step "4. congestion: $PF0 pauses its link partner; who is behind it, and who sends on the wrong class"
# the QPs each pod's process made: trainer-0's NCCL left one QP at class 0 (no NCCL_IB_TC)
qps() { echo "$ROOT/rdma/qps/$(rdma_of "$ROOT" "$(echo "${VFS[$1]}" | cut -d' ' -f2)").json"; }
mkdir -p "$ROOT/rdma/qps"
cat > "$(qps 0)" << 'J'
[{"qpn": 17, "type": "RC", "state": "RTS", "pid": 4242, "comm": "python3", "tclass": 106},
 {"qpn": 18, "type": "RC", "state": "RTS", "pid": 4242, "comm": "python3", "tclass": 0}]
J
echo '[{"qpn": 21, "type": "RC", "state": "RTS", "pid": 5151, "comm": "python3", "tclass": 106}]' > "$(qps 1)"
echo '[{"qpn": 33, "type": "RC", "state": "RTS", "pid": 77, "comm": "nginx", "tclass": 0}]' > "$(qps 2)"
# the port sends pause frames on priority 3 (its host cannot drain) while trainer-1 receives
# 3 MiB of RoCE for every 1 MiB trainer-0 receives, web 2 MiB (lossy): all of it inside top's
# window (its first read at its start, its second 3 s later), on a loaded machine too
congestion() {
	set_json "$ROOT/ethtool/$PF0.json" '.tx_prio3_pause += 240 | .rx_prio3_bytes += 25165824'
	set_json "$(vport trainer-0)" '.rx_vport_rdma_unicast_bytes += 6291456'
	set_json "$(vport trainer-1)" '.rx_vport_rdma_unicast_bytes += 18874368'
	set_json "$(vport web)" '.rx_vport_rdma_unicast_bytes += 12582912'
}
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" top --interval 3 > "$T/top.out" 2>&1 &
TOP=$!
echo "\$ rdma-qos top   (one frame: the pods ranked by their share of what the paused port received)"
sleep 1
congestion
# the agent answers /metrics from a collection at most 1 s old (AGENT_TEL_CACHE_S): one a
# pass asked for just before the write (the QP files above raise one) would not have it
sleep 1.1
metrics "$T/m2.prom" # the agent's signals over the window since its last read (5.)
framed() { grep -q "^NAMESPACE" "$T/top.out"; }
wait_until 10 framed || echo "(no frame from top within 10 s)"
sleep 0.2
kill "$TOP" 2> /dev/null
wait "$TOP" 2> /dev/null || true # SIGTERM: 143
TOP=""
sed 's/\x1b\[[0-9;]*[A-Za-z]//g' "$T/top.out" | sed '/^$/N;/^\n$/D'
sub "rdma-qos show --qps: the class each QP sends with, against $PF0's DSCP map and PFC"
show --qps 2>&1
sub "rdma-qos show --pod ai-training/trainer-0: one verdict for the pod, one line per check"
show --pod ai-training/trainer-0 2>&1 || echo "(exit $?: not lossless)"

step "5. what an operator alerts on: the agent's /metrics"
# the families this story moved, each under the alerts of deploy/monitoring/prometheusrule.yaml
# that read it; counters and per-pod series only where not 0
FAMS="attachment_lossless pf_in_profile repairs_total peer_agreement numa_misaligned vf_qps_off_lossless port_pause_frames_total vf_paused_traffic_share"
echo "\$ curl -s 127.0.0.1:$PORT/metrics   (8 families; a series at 0 left out where 0 is not the alarm)"
awk -v fams="$FAMS" '
	FNR == NR { if ($0 ~ /^ *- alert:/) a = $3; else if ($0 ~ /^ *- record:/) a = ""
		while (a != "" && match($0, /rdma_qos_[a-z_]+/)) {
			f = substr($0, RSTART, RLENGTH); $0 = substr($0, RSTART + RLENGTH)
			if (index(" " al[f] ",", " " a ",") == 0) al[f] = al[f] (al[f] == "" ? "" : ", ") a
		}
		next }
	BEGIN { n = split(fams, fl, " "); for (i = 1; i <= n; i++) want["rdma_qos_" fl[i]] = 1 }
	{ f = $1; sub(/\{.*/, "", f) }
	!(f in want) || ($2 == 0 && f !~ /_in_profile$|_agreement$|_lossless$/) { next }
	f != last { print "# " (f in al ? "alert " al[f] : "(no alert)"); last = f }
	{ print }' "$RQ_SRC/deploy/monitoring/prometheusrule.yaml" "$T/m2.prom"

step "the pods leave: DEL (each VF's class restored; the PF keeps its settings)"
while read -r name ns dev args rq; do
	chain_del "$ROOT" roce "ctr-$name" "$ns" net1 "$dev" "$rq" "$args" 2> /dev/null && echo "ai-training/$name: DEL ok"
done < "$T/pods"
show 2> /dev/null | tail -1
kill "$AGENT" && wait "$AGENT" && echo "agent: SIGTERM, exit 0"
AGENT=""
sw_stop 0 # lldpd's own way out (SIGTERM: its shutdown LLDPDU)
echo
echo "demo: done"
