#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The fabric under the pod (DESIGN.md "The fabric under the pod"; issue 43):
# node.wiring judged per PF against its one link partner, with Debian's lldpd
# as each switch port (tests/agent/lib.sh's sw_*: each sim PF is a real veth
# wired to a switch netns). Cases: both PFs on their rail's leaf (ok); a wrong
# system name (PF0 miswired, PF1 still ok); a wrong port against a port glob;
# the two cables swapped (both PFs fail their own rule); a PF without a rule
# (no series); `validate` refusing a bad glob by its JSON path. Asserted on
# rdma_qos_peer_wiring, the NFD label rdma-qos.wiring and show's partner line.
# Link health from the sim's ethtool/devlink files: the metrics, the pod's link
# problem, and the agent's link file as `show --pod` and `show --counters`
# (top's frame) say it.
set -u
. "$(dirname "$0")/lib.sh"

fabric_can_run() { agent_can_run && lldpd_can_run; }
sim_suite_start "agent: the fabric under the pod" rqfb fabric_can_run
BG=""
suite_teardown() {
	[ -n "$BG" ] && kill "$BG" 2> /dev/null && wait "$BG" 2> /dev/null
	sw_teardown
}

"$MKNODE" --root "$ROOT" --pfs 3 --vfs 2 --numa-nodes 1 --cpus-per-node 4 --rdma configfs \
	--ecn yes --dcb yes --pf-prefix "fb$$" > /dev/null || { echo "FAIL: mknode"; exit 1; }
sim_make_vfs "$ROOT"
mapfile -t PFS < <(sim_vfs "$ROOT" | awk '!s[$1]++ { print $1 }')
PF0=${PFS[0]} PF1=${PFS[1]} PF2=${PFS[2]}
sw_make "$PF0" 0 && sw_make "$PF1" 1 && sw_make "$PF2" 2
check "three PFs are real veths, each wired to a switch netns" [ $? -eq 0 ]

M=$T/m.prom
F=$T/features
CAT=$ROOT/etc/cni/rdma-qos/profiles.json
mkdir -p "${CAT%/*}"
wir() { metric_lit "$M" "rdma_qos_peer_wiring{pf=\"$1\",rail=\"$2\"}"; }
label() {
	for _ in $(seq 30); do grep -q "^feature.node.kubernetes.io/rdma-qos.wiring=$1$" "$F" 2> /dev/null && break; sleep 0.1; done
	grep -c "^feature.node.kubernetes.io/rdma-qos.wiring=$1$" "$F"
}

echo "== validate: a bad glob is an error naming its JSON path"
echo '{"node":{"wiring":[{"pf":"'"$PF0"'","partner":"leaf-r1-[","rail":"r1"}]}}' > "$T/bad.json"
out=$("$SIM" validate "$T/bad.json" 2>&1)
check "validate exits 1 on an unclosed class" [ $? -eq 1 ]
check "... naming node.wiring[0].partner" grep -q "node.wiring\[0\].partner: expected a glob" <<< "$out"
echo '{"node":{"wiring":[{"pf":"x","partner":"y","rail":"r1","leaf":"z"}]}}' > "$T/bad.json"
check "validate: an unknown key of a rule names node.wiring[0].leaf" \
	grep -q "node.wiring\[0\].leaf: unknown key" <<< "$("$SIM" validate "$T/bad.json" 2>&1)"

# rail r1: PF0 to leaf-r1-*, port swp1-swp9; rail r2: PF1 (by PCI address) to leaf-r2-*; PF2 none
PF1PCI=$(basename "$(readlink -f "$ROOT/sys/class/net/$PF1/device")")
cat > "$CAT" << J
{"profiles":{},"namespaces":{"ai":{"default":"roce-lossless","allow":["roce-lossless"]}},
 "node":{"pf":"ensure","baseline":"roce-lossless","wiring":[
 {"pf":"$PF0","partner":"leaf-r1-*","port":"swp[1-9]","rail":"r1"},
 {"pf":"$PF1PCI","partner":"leaf-r2-*","rail":"r2"}]}}
J
check "validate accepts the catalog with node.wiring" "$SIM" validate "$CAT"
sw_start 0 leaf-r1-03 swp3 3
sw_start 1 leaf-r2-07 swp9 3
sw_start 2 leaf-r3-01 swp1 3
PORT=$(free_port)
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --interval 60 --metrics-file "$M" --listen "127.0.0.1:$PORT" \
	--nfd-features-file "$F" > "$T/agent.log" 2>&1 &
BG=$!

echo "== wired as planned"
wait_metric "rdma_qos_peer_wiring{pf=\"$PF0\",rail=\"r1\"}" 1 15
check "rdma_qos_peer_wiring{$PF0,r1} 1 (leaf-r1-03 swp3)" [ $? -eq 0 ]
wait_metric "rdma_qos_peer_wiring{pf=\"$PF1\",rail=\"r2\"}" 1 > /dev/null
check "rdma_qos_peer_wiring{$PF1,r2} 1 (rule by PCI address, leaf-r2-07)" [ "$(wir "$PF1" r2)" = 1 ]
wait_metric "rdma_qos_peer_seen{pf=\"$PF2\"}" 1 > /dev/null
check "$PF2 has a partner but no rule: no wiring series" [ "$(grep -c "^rdma_qos_peer_wiring{pf=\"$PF2\"" "$M")" = 0 ]
check "NFD: rdma-qos.wiring=ok" [ "$(label ok)" = 1 ]
check "the metrics file passes promtool" promcheck "$M"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show > "$T/show.txt" 2> /dev/null
check "show: $PF0's partner line ends '; wiring: rail r1 ok'" \
	grep -q "^  partner leaf-r1-03 port swp3 .*; wiring: rail r1 ok$" "$T/show.txt"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --json > "$T/show.json" 2> /dev/null
check "show --json: $PF1's peer.wiring {rail r2, verdict ok}" \
	[ "$(jq -r --arg pf "$PF1" '.pfs[] | select(.name == $pf) | .peer.wiring | "\(.rail) \(.verdict) \(.expects)"' "$T/show.json")" = "r2 ok leaf-r2-*" ]
check "show --json: $PF2 (no rule) has no wiring item" \
	[ "$(jq -r --arg pf "$PF2" '.pfs[] | select(.name == $pf) | .peer | has("wiring")' "$T/show.json")" = false ]

echo "== the wrong system name on $PF0's cable"
lldpc 0 configure system hostname leaf-r4-02
wait_metric "rdma_qos_peer_wiring{pf=\"$PF0\",rail=\"r1\"}" 0
check "rdma_qos_peer_wiring{$PF0,r1} 0 (leaf-r4-02)" [ $? -eq 0 ]
check "... $PF1 still 1" [ "$(wir "$PF1" r2)" = 1 ]
check "NFD: rdma-qos.wiring=miswired" [ "$(label miswired)" = 1 ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show > "$T/show.txt" 2> /dev/null
check "show: 'wiring: MISWIRED (rail r1 expects leaf-r1-* swp[1-9], partner leaf-r4-02 swp3)'" \
	grep -qF "; wiring: MISWIRED (rail r1 expects leaf-r1-* swp[1-9], partner leaf-r4-02 swp3)" "$T/show.txt"

echo "== the right leaf, the wrong port (port glob)"
lldpc 0 configure system hostname leaf-r1-03
wait_metric "rdma_qos_peer_wiring{pf=\"$PF0\",rail=\"r1\"}" 1 > /dev/null
lldpc 0 configure ports swp lldp portidsubtype local swp12 description "Ethernet to nowhere"
wait_metric "rdma_qos_peer_wiring{pf=\"$PF0\",rail=\"r1\"}" 0
check "leaf-r1-03 port swp12 fails port swp[1-9]: 0" [ $? -eq 0 ]
lldpc 0 configure ports swp lldp portidsubtype local swp12 description "swp7"
wait_metric "rdma_qos_peer_wiring{pf=\"$PF0\",rail=\"r1\"}" 1
check "... the port description swp7 matches: 1 (port ID or description)" [ $? -eq 0 ]
lldpc 0 configure ports swp lldp portidsubtype local swp3 description "Ethernet to $PF0"

echo "== the two cables swapped: $PF0 reaches rail 2's leaf, $PF1 rail 1's"
lldpc 0 configure system hostname leaf-r2-07
lldpc 1 configure system hostname leaf-r1-03
wait_metric "rdma_qos_peer_wiring{pf=\"$PF0\",rail=\"r1\"}" 0 > /dev/null
wait_metric "rdma_qos_peer_wiring{pf=\"$PF1\",rail=\"r2\"}" 0
check "both fail their own rule: r1 0 and r2 0" [ "$(wir "$PF0" r1)$(wir "$PF1" r2)" = 00 ]
check "NFD: miswired" [ "$(label miswired)" = 1 ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show > "$T/show.txt" 2> /dev/null
check "show: two MISWIRED lines, each naming the other rail's leaf" \
	[ "$(grep -c "wiring: MISWIRED (rail r1 expects leaf-r1-\* swp\[1-9\], partner leaf-r2-07 swp3)\|wiring: MISWIRED (rail r2 expects leaf-r2-\*, partner leaf-r1-03 swp9)" "$T/show.txt")" = 2 ]

echo "== put right again; a partner gone leaves no wiring series"
lldpc 0 configure system hostname leaf-r1-03
lldpc 1 configure system hostname leaf-r2-07
wait_metric "rdma_qos_peer_wiring{pf=\"$PF1\",rail=\"r2\"}" 1 > /dev/null
wait_metric "rdma_qos_peer_wiring{pf=\"$PF0\",rail=\"r1\"}" 1
check "both 1 again, NFD ok" [ "$(wir "$PF0" r1)$(wir "$PF1" r2)$(label ok)" = 111 ]
sw_stop 1
wait_metric "rdma_qos_peer_seen{pf=\"$PF1\"}" 0 > /dev/null
check "$PF1's switch gone (TTL 0): no wiring series for it" [ "$(grep -c "^rdma_qos_peer_wiring{pf=\"$PF1\"" "$M")" = 0 ]
check "NFD: unknown while a PF with a rule has no partner" [ "$(label unknown)" = 1 ]

echo "== no pod and no baseline: the ports a rule names are watched all the same"
kill "$BG" 2> /dev/null && wait "$BG" 2> /dev/null
cp "$CAT" "$T/cat.baseline"
jq -c 'del(.node.baseline)' "$T/cat.baseline" > "$CAT"
sw_start 1 leaf-r2-07 swp9 3
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --interval 60 --metrics-file "$M" --listen "127.0.0.1:$PORT" \
	--nfd-features-file "$F" > "$T/agent2.log" 2>&1 &
BG=$!
wait_metric "rdma_qos_peer_wiring{pf=\"$PF1\",rail=\"r2\"}" 1 15 > /dev/null
wait_metric "rdma_qos_peer_wiring{pf=\"$PF0\",rail=\"r1\"}" 1 15
check "rdma_qos_peer_wiring{$PF0,r1} and {$PF1,r2} 1 with no attachment and no baseline" \
	[ "$(wir "$PF0" r1)$(wir "$PF1" r2)" = 11 ]
check "... $PF2, named by no rule, is not watched (no rdma_qos_peer_seen)" \
	[ "$(grep -c "^rdma_qos_peer_seen{pf=\"$PF2\"" "$M")" = 0 ]
check "... NFD: rdma-qos.wiring=ok" [ "$(label ok)" = 1 ]
check "... the baseline's lossless verdict is not claimed for them (rdma-qos.lossless=false)" \
	grep -qx "feature.node.kubernetes.io/rdma-qos.lossless=false" "$F"
kill "$BG" 2> /dev/null && wait "$BG" 2> /dev/null
cp "$T/cat.baseline" "$CAT"
sw_stop 1

echo "== link health from the simulated node's files (DESIGN.md), an attachment on $PF0"
BG=""
"$MKNODE" --root "$ROOT" pod --uid pod-a --cpus 0-1 > /dev/null
read -r _ VF0PCI VF0 <<< "$(sim_vfs "$ROOT" | awk -v p="$PF0" '$1 == p { print; exit }')"
NSA=$(newns a)
ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p1;K8S_POD_UID=pod-a"
chain_add "$ROOT" roce c1 "$NSA" net1 "$VF0" "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF0PCI\"}" "$ARGS" > /dev/null 2>&1
check "ADD on $PF0 (pod ai/p1, net1)" [ $? -eq 0 ]
PF0PCI=$(basename "$(readlink -f "$ROOT/sys/class/net/$PF0/device")")
mkdir -p "$ROOT/ethtool" "$ROOT/devlink"
echo 5 > "$ROOT/sys/class/net/$PF0/carrier_down_count"
echo '{"corrected": 100, "uncorrectable": 0}' > "$ROOT/ethtool/$PF0.fec.json"
echo '{"SymbolErrorDuringCarrier": 0}' > "$ROOT/ethtool/$PF0.phy.json"
echo '{"speed": 200000, "localMax": 200000, "partnerMax": 400000}' > "$ROOT/ethtool/$PF0.link.json"
echo '{"fw": {"errors": 0, "state": "healthy"}, "fw_fatal": {"errors": 1, "state": "healthy"}}' > "$ROOT/devlink/$PF0PCI.health.json"
rm -f "$M"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --interval 2 --metrics-file "$M" --listen "127.0.0.1:$PORT" \
	--nfd-features-file "$F" > "$T/agent2.log" 2>&1 &
BG=$!
deg() { metric_lit "$M" "rdma_qos_port_link_degraded{pf=\"$PF0\",reason=\"$1\"}"; }
# show --pod ai/p1 until its link line matches $1 (10 s): its text in $T/pod.txt, exit in $T/pod.rc
pod_link() {
	local i
	for ((i = 0; i < 50; i++)); do
		RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --pod ai/p1 > "$T/pod.txt" 2> /dev/null
		echo $? > "$T/pod.rc"
		grep -q "^  link  *$1" "$T/pod.txt" && return 0
		sleep 0.2
	done
	grep "^  link" "$T/pod.txt"
	return 1
}
# show --counters (top's frame, show_counters.c print_text): ai/p1's row matches $1
counters_row() {
	RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --counters --interval 0.2 2> /dev/null |
		grep -q "^ai  *p1  *net1 .*$1"
}
prob() { grep -c "^rdma_qos_attachment_problem{namespace=\"ai\",pod=\"p1\",interface=\"net1\",vf=\"$VF0PCI\",pf=\"$PF0\",check=\"$1\"} 1$" "$M"; }
wait_metric "rdma_qos_port_link_flaps_total{pf=\"$PF0\"}" 5 15
check "rdma_qos_port_link_flaps_total 5 (carrier_down_count)" [ $? -eq 0 ]
check "fec_blocks_total corrected 100, uncorrectable 0; symbol_errors_total 0" \
	[ "$(metric_lit "$M" "rdma_qos_port_fec_blocks_total{pf=\"$PF0\",kind=\"corrected\"}"):$(metric_lit "$M" "rdma_qos_port_fec_blocks_total{pf=\"$PF0\",kind=\"uncorrectable\"}"):$(metric_lit "$M" "rdma_qos_port_symbol_errors_total{pf=\"$PF0\"}")" = 100:0:0 ]
check "health_errors_total per reporter: fw 0, fw_fatal 1" \
	[ "$(metric_lit "$M" "rdma_qos_port_health_errors_total{pf=\"$PF0\",reporter=\"fw\"}"):$(metric_lit "$M" "rdma_qos_port_health_errors_total{pf=\"$PF0\",reporter=\"fw_fatal\"}")" = 0:1 ]
check "speed_bytes 25000000000 (200 Gb/s)" [ "$(metric_lit "$M" "rdma_qos_port_speed_bytes{pf=\"$PF0\"}")" = 25000000000 ]
check "a quiet port: every reason 0 (a count that was already there is no news)" \
	[ "$(deg flap)$(deg fec_uncorrectable)$(deg symbol_errors)$(deg health)$(deg speed)" = 00000 ]
check "no link problem for the pod" [ "$(prob link)" = 0 ]
check "$PF1 and $PF2 (no files, veths without carrier_down_count in the sim): no link health series" \
	[ "$(grep -c "^rdma_qos_port_[a-z_]*{pf=\"$PF2\"" "$M")" = 0 ]
check "the metrics file passes promtool" promcheck "$M"

echo 6 > "$ROOT/sys/class/net/$PF0/carrier_down_count"
wait_metric "rdma_qos_port_link_degraded{pf=\"$PF0\",reason=\"flap\"}" 1
check "a flap: degraded{flap} 1" [ $? -eq 0 ]
check "... the pod ai/p1 net1 gets the link problem" [ "$(prob link)" = 1 ]
wait_metric "rdma_qos_port_link_degraded{pf=\"$PF0\",reason=\"flap\"}" 0 8
check "... and it clears once the port is quiet for an interval" [ $? -eq 0 ]
check "... the link problem too" [ "$(prob link)" = 0 ]
pod_link "ok  *no flap"
check "show --pod on a quiet port: 'link ok'" [ $? -eq 0 ]
echo 7 > "$ROOT/sys/class/net/$PF0/carrier_down_count"
pod_link "PROBLEM  *the PF's link is degraded: flap$"
check "a flap: show --pod's link line 'PROBLEM the PF's link is degraded: flap'" [ $? -eq 0 ]
check "... show --pod exits 1" [ "$(cat "$T/pod.rc")" = 1 ]
pod_link "ok "
check "... 'link ok' again once the port is quiet" [ $? -eq 0 ]
# issue 49 item 5: 802.3 allows a few uncorrectable codewords at 200/400G; the floor
# node.linkHealth.fecUncorrectablePerMinute (default 1) over a window of at least a minute
check "rdma_qos_port_fec_uncorrectable_limit_per_minute{$PF0} 1 (the default floor)" \
	[ "$(metric_lit "$M" "rdma_qos_port_fec_uncorrectable_limit_per_minute{pf=\"$PF0\"}")" = 1 ]
set_json "$ROOT/ethtool/$PF0.fec.json" '.uncorrectable = 1'
wait_metric "rdma_qos_port_fec_blocks_total{pf=\"$PF0\",kind=\"uncorrectable\"}" 1 > /dev/null
nf=0
for _ in $(seq 10); do # two readings and more (--interval 2)
	sleep 0.5
	[ "$(deg fec_uncorrectable)" = 0 ] || nf=$((nf + 1))
done
check "one uncorrectable block within the floor: degraded{fec_uncorrectable} other than 0 in $nf of 10 (want 0)" [ "$nf" = 0 ]
check "... no link problem for the pod" [ "$(prob link)" = 0 ]
set_json "$ROOT/ethtool/$PF0.fec.json" '.uncorrectable = 4'
pod_link "PROBLEM  *the PF's link is degraded: fec_uncorrectable$"
check "three more within the minute (above the floor): show --pod's link line names fec_uncorrectable" [ $? -eq 0 ]
pod_link "ok "
set_json "$ROOT/ethtool/$PF0.fec.json" '.uncorrectable = 7 | .corrected = 150'
wait_metric "rdma_qos_port_link_degraded{pf=\"$PF0\",reason=\"fec_uncorrectable\"}" 1
check "uncorrectable FEC blocks: degraded{fec_uncorrectable} 1" [ $? -eq 0 ]
jq -c '.node.linkHealth.fecUncorrectablePerMinute = 30' "$CAT" > "$T/cat.fec" && cp "$CAT" "$T/cat.nofec" && cp "$T/cat.fec" "$CAT"
wait_metric "rdma_qos_port_fec_uncorrectable_limit_per_minute{pf=\"$PF0\"}" 30
check "catalog node.linkHealth.fecUncorrectablePerMinute 30: the limit series says 30" [ $? -eq 0 ]
set_json "$ROOT/ethtool/$PF0.fec.json" '.uncorrectable = 27'
nf=0
for _ in $(seq 10); do
	sleep 0.5
	[ "$(deg fec_uncorrectable)" = 1 ] && nf=$((nf + 1))
done
# the reason held at 7 lasts one interval: only the readings after it count
check "... 20 more blocks within a minute under a floor of 30: degraded{fec_uncorrectable} 1 in $nf of 10 (want at most 4: the reason of 7 fading)" [ "$nf" -le 4 ]
check "... and 0 now" [ "$(deg fec_uncorrectable)" = 0 ]
cp "$T/cat.nofec" "$CAT"
echo '{"node":{"linkHealth":{"fecUncorrectablePerMinute":-1}}}' > "$T/bad.json"
check "validate: a negative floor names node.linkHealth.fecUncorrectablePerMinute" \
	grep -q "node.linkHealth.fecUncorrectablePerMinute: expected a number" <<< "$("$SIM" validate "$T/bad.json" 2>&1)"
set_json "$ROOT/ethtool/$PF0.phy.json" '.SymbolErrorDuringCarrier = 9'
wait_metric "rdma_qos_port_link_degraded{pf=\"$PF0\",reason=\"symbol_errors\"}" 1
check "symbol errors: degraded{symbol_errors} 1" [ $? -eq 0 ]
set_json "$ROOT/devlink/$PF0PCI.health.json" '.fw.errors = 2'
wait_metric "rdma_qos_port_link_degraded{pf=\"$PF0\",reason=\"health\"}" 1
check "a health reporter's error: degraded{health} 1" [ $? -eq 0 ]
set_json "$ROOT/ethtool/$PF0.link.json" '.speed = 100000'
wait_metric "rdma_qos_port_link_degraded{pf=\"$PF0\",reason=\"speed\"}" 1
check "100G where both ends advertise 200G: degraded{speed} 1" [ $? -eq 0 ]
check "... speed_bytes 12500000000" [ "$(metric_lit "$M" "rdma_qos_port_speed_bytes{pf=\"$PF0\"}")" = 12500000000 ]
check "show --counters (top's rows): ai/p1 ends 'link degraded: ...speed'" counters_row "link degraded: [a-z_,]*speed$"
set_json "$ROOT/ethtool/$PF0.link.json" '.speed = 200000'
wait_metric "rdma_qos_port_link_degraded{pf=\"$PF0\",reason=\"speed\"}" 0 8
check "back at 200G: speed clears" [ $? -eq 0 ]
echo "== issue 49 item 4: speed against the fastest mode both ends advertise in common"
# the NIC: 200G over 4 PAM4 lanes and 100G over 4 NRZ lanes; the port: 400G over 4 lanes and
# 100G over 4 NRZ lanes. Each side's best is 200G and 400G, yet they share only 100G.
cp "$ROOT/ethtool/$PF0.link.json" "$T/link.max"
echo '{"speed": 100000, "localModes": ["200000baseCR4/Full", "100000baseCR4/Full"], "partnerModes": ["400000baseCR4/Full", "100000baseCR4/Full"]}' > "$ROOT/ethtool/$PF0.link.json"
wait_metric "rdma_qos_port_link_degraded{pf=\"$PF0\",reason=\"speed\"}" 0 8
check "100G where the only common mode is 100G (a lane/media mismatch): degraded{speed} 0" [ $? -eq 0 ]
sleep 2.5
check "... still 0 a reading later, speed_bytes 12500000000" \
	[ "$(deg speed):$(metric_lit "$M" "rdma_qos_port_speed_bytes{pf=\"$PF0\"}")" = 0:12500000000 ]
set_json "$ROOT/ethtool/$PF0.link.json" '.partnerModes += ["200000baseCR4/Full"]'
wait_metric "rdma_qos_port_link_degraded{pf=\"$PF0\",reason=\"speed\"}" 1
check "the port offers 200baseCR4 too: 100G is below the common 200G, degraded{speed} 1" [ $? -eq 0 ]
cp "$T/link.max" "$ROOT/ethtool/$PF0.link.json"
wait_metric "rdma_qos_port_link_degraded{pf=\"$PF0\",reason=\"speed\"}" 0 8
wait_metric "rdma_qos_port_link_degraded{pf=\"$PF0\",reason=\"health\"}" 0 8
check "every reason clears on a quiet port" [ "$(deg flap)$(deg fec_uncorrectable)$(deg symbol_errors)$(deg health)$(deg speed)" = 00000 ]
rm "$ROOT/ethtool/$PF0.phy.json"
wait_metric "rdma_qos_port_symbol_errors_total{pf=\"$PF0\"}" "" > /dev/null
check "a driver that stops reporting symbol errors: no symbol series, no symbol_errors reason" \
	[ "$(grep -c "pf=\"$PF0\",reason=\"symbol_errors\"\|^rdma_qos_port_symbol_errors_total{pf=\"$PF0\"" "$M")" = 0 ]
echo '{"corrected": 200}' > "$ROOT/ethtool/$PF0.fec.json"
wait_metric "rdma_qos_port_fec_blocks_total{pf=\"$PF0\",kind=\"corrected\"}" 200 > /dev/null
check "a driver that counts only corrected blocks: corrected 200, no uncorrectable series (issue 49 item 5)" \
	[ "$(grep -c "^rdma_qos_port_fec_blocks_total{pf=\"$PF0\",kind=\"uncorrectable\"}" "$M")" = 0 ]
check "... no fec_uncorrectable reason, no limit series" \
	[ "$(grep -c "pf=\"$PF0\",reason=\"fec_uncorrectable\"\|^rdma_qos_port_fec_uncorrectable_limit_per_minute{pf=\"$PF0\"" "$M")" = 0 ]
check "the metrics file passes promtool" promcheck "$M"

echo "== issue 49 item 2: our own PFC write is no flap (mlx5 toggles the link on it)"
# $PF1 watched from boot by its wiring rule alone (no baseline, so the agent writes nothing to
# it), carrierWaitSeconds 0; the fake DCB adds 1 to carrier_down_count on a PFC change, as mlx5
kill "$BG" 2> /dev/null && wait "$BG" 2> /dev/null
jq -c 'del(.node.baseline) | .node.carrierWaitSeconds = 0' "$T/cat.baseline" > "$CAT"
dcb_edit "$ROOT" "$PF1" 'del(.pfc)'
echo 3 > "$ROOT/sys/class/net/$PF1/carrier_down_count"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --interval 2 --metrics-file "$M" --listen "127.0.0.1:$PORT" \
	--nfd-features-file "$F" > "$T/agent3.log" 2>&1 &
BG=$!
deg1() { metric_lit "$M" "rdma_qos_port_link_degraded{pf=\"$PF1\",reason=\"$1\"}"; }
wait_metric "rdma_qos_port_link_flaps_total{pf=\"$PF1\"}" 3 15
check "$PF1 watched (wiring rule) before any attachment: flaps_total 3" [ $? -eq 0 ]
sleep 2.5 # a reading after the first: the ADD's toggle falls between two of them
"$MKNODE" --root "$ROOT" pod --uid pod-b --cpus 2 > /dev/null
read -r _ VF1PCI VF1 <<< "$(sim_vfs "$ROOT" | awk -v p="$PF1" '$1 == p { print; exit }')"
NSB=$(newns b)
chain_add "$ROOT" roce c2 "$NSB" net1 "$VF1" "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF1PCI\"}" \
	"IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p2;K8S_POD_UID=pod-b" > /dev/null 2>&1
check "a lossless ADD on $PF1 (ai/p2) wrote PFC: the fake toggled the link (carrier_down_count 4)" \
	[ "$?:$(cat "$ROOT/sys/class/net/$PF1/carrier_down_count")" = 0:4 ]
prob2() { grep -c "^rdma_qos_attachment_problem{namespace=\"ai\",pod=\"p2\",interface=\"net1\",vf=\"$VF1PCI\",pf=\"$PF1\",check=\"$1\"} 1$" "$M"; }
nf=0 np=0 nc=0 ns=0
for _ in $(seq 12); do # three passes and more (--interval 2)
	sleep 0.5
	[ "$(deg1 flap)" = 1 ] && nf=$((nf + 1))
	[ "$(prob2 link)" = 1 ] && np=$((np + 1))
	[ "$(metric_lit "$M" "rdma_qos_port_link_flaps_total{pf=\"$PF1\"}")" = 3 ] || nc=$((nc + 1))
	RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --pod ai/p2 > "$T/pod2.txt" 2>&1 || ns=$((ns + 1))
done
check "6 s after the ADD: degraded{flap} 1 in $nf of 12 readings (want 0)" [ "$nf" = 0 ]
check "... ai/p2's link problem in $np of 12 (want 0)" [ "$np" = 0 ]
check "... flaps_total other than 3 in $nc of 12 (want 0)" [ "$nc" = 0 ]
check "... show --pod ai/p2 exited non-zero in $ns of 12 (want 0)" [ "$ns" = 0 ]
check "... degraded{$PF1,flap} 0" [ "$(deg1 flap)" = 0 ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --pod ai/p2 > "$T/pod2.txt" 2>&1
rc=$?
{ [ "$rc" = 0 ] && grep -q "^  link  *ok" "$T/pod2.txt"; }
check "show --pod ai/p2: exit 0 ($rc), its link line ok" [ $? -eq 0 ] || cat "$T/pod2.txt"
echo 5 > "$ROOT/sys/class/net/$PF1/carrier_down_count"
wait_metric "rdma_qos_port_link_degraded{pf=\"$PF1\",reason=\"flap\"}" 1
check "a drop nobody caused (carrier_down_count 4 -> 5): degraded{flap} 1" [ $? -eq 0 ]
check "... flaps_total 4 (5 less our own toggle)" [ "$(metric_lit "$M" "rdma_qos_port_link_flaps_total{pf=\"$PF1\"}")" = 4 ]
check "... ai/p2 gets the link problem" [ "$(prob2 link)" = 1 ]
kill "$BG" 2> /dev/null && wait "$BG" 2> /dev/null
rm -f "$M"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --interval 2 --metrics-file "$M" --listen "127.0.0.1:$PORT" \
	--nfd-features-file "$F" > "$T/agent3b.log" 2>&1 &
BG=$!
wait_metric "rdma_qos_port_link_flaps_total{pf=\"$PF1\"}" 4 15
check "a restarted agent goes on from the drops it discounted (links.json ownDrops): flaps_total still 4, not 5" [ $? -eq 0 ]
chain_del "$ROOT" roce c2 "$NSB" net1 "$VF1" "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF1PCI\"}" \
	"IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p2;K8S_POD_UID=pod-b" > /dev/null 2>&1
kill "$BG" 2> /dev/null && wait "$BG" 2> /dev/null
cp "$T/cat.baseline" "$CAT"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --interval 2 --metrics-file "$M" --listen "127.0.0.1:$PORT" \
	--nfd-features-file "$F" > "$T/agent4.log" 2>&1 &
BG=$!

echo "== the pod on a miswired PF gets the wiring problem"
lldpc 0 configure system hostname leaf-r4-02
wait_metric "rdma_qos_peer_wiring{pf=\"$PF0\",rail=\"r1\"}" 0
for _ in $(seq 30); do [ "$(prob wiring)" = 1 ] && break; sleep 0.1; done
check "rdma_qos_attachment_problem{ai/p1,net1,check=wiring} 1" [ "$(prob wiring)" = 1 ]
check "the metrics file passes promtool" promcheck "$M"
check "show --counters: no link suffix once the link is quiet" counters_row " -$"

echo "== without the agent: the link check is unknown, saying why"
kill "$BG" 2> /dev/null && wait "$BG" 2> /dev/null
BG=""
set_json "$ROOT/run/rdma-qos/agent/links.json" '.written -= 1000'
pod_link "unknown  *the agent's link health is [0-9]* s old"
check "a link file older than 3 intervals: 'link unknown' (... s old)" [ $? -eq 0 ]
rm -f "$ROOT/run/rdma-qos/agent/links.json"
pod_link "unknown  *no link health from the agent"
check "no link file: 'link unknown' (no link health from the agent)" [ $? -eq 0 ]

summary
