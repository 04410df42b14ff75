#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The link partner (DESIGN.md "The link partner"; issue 33): the agent listens
# for LLDP on every PF it watches. Each sim PF here is also a real veth of the
# same name in the host netns; its peer end sits in a netns of its own where
# Debian's lldpd plays the switch port, advertising 802.1Qaz PFC (custom TLV
# 00-80-C2/11), Application Priority (00-80-C2/12) and the 802.3 maximum frame
# size (00-12-0F/4). Cases: a partner that agrees; PFC on 4 instead of 3;
# DSCP 26 mapped to 0; max frame 1522 under a 9000 MTU; a partner that says
# nothing but chassis and port; the partner leaving (TTL 0 at lldpd's
# shutdown, and TTL expiry after a kill -9); two PFs with two partners;
# crafted malformed frames (a raw socket) that must change nothing. Asserted
# on the metrics, `show`, `show --json` and the NFD label; CHECK passes while
# the partner disagrees. Issue 37: a raw-socket LLDP sender (python3,
# AF_PACKET) in the switch netns as a second speaker: frames from a VF's and
# the PF's own MAC, tagged, to another group address, another MSAP's TTL 0
# (none counts); a second MSAP (nothing judged, `N partners: not judged`, the
# label unknown) and its shutdown; the switch's own MSAP from another MAC
# (contested: not judged); CEE and CIN switches (lldpd custom TLVs
# with OUI 00-1B-21); ETS against the Recommendation; an ambiguous DSCP; the
# 802.3 frame allowance; the label agrees only on pfc; the partner's willing
# bit with the NIC's DCBX mode. Issue 42: a pod VF's current MAC (read in its
# netns, no admin MAC) is own; a replay of the switch's MSAP from the switch's
# own MAC, interleaved with it, never makes `agrees` and stays quiet (passes,
# log lines); a single change is judged within a TTL; a VF given the switch's
# MAC does not blind the listener.
set -u
. "$(dirname "$0")/lib.sh"

lldp_can_run() {
	agent_can_run && lldpd_can_run || return 1
	command -v python3 > /dev/null || { echo "no python3"; return 1; }
}
sim_suite_start "agent link partner (LLDP)" rqll lldp_can_run
BG=""
suite_teardown() {
	[ -n "$BG" ] && kill "$BG" 2> /dev/null && wait "$BG" 2> /dev/null
	sw_teardown
}

"$MKNODE" --root "$ROOT" --pfs 2 --vfs 2 --numa-nodes 1 --cpus-per-node 4 --rdma configfs \
	--ecn yes --dcb yes --pf-prefix "ll$$" > /dev/null || { echo "FAIL: mknode"; exit 1; }
"$MKNODE" --root "$ROOT" pod --uid pod-a --cpus 0-1 > /dev/null
sim_make_vfs "$ROOT"
mapfile -t VFS < <(sim_vfs "$ROOT")
read -r PF0 VF0PCI VF0 <<< "${VFS[0]}"
PF1=$(sim_vfs "$ROOT" | awk -v p="$PF0" '$1 != p { print $1; exit }')
echo 9000 > "$ROOT/sys/class/net/$PF0/mtu"
echo 9000 > "$ROOT/sys/class/net/$PF1/mtu"

sw_make "$PF0" 0 && sw_make "$PF1" 1
check "two PFs are real veths in the host netns, each wired to a switch netns" [ $? -eq 0 ]

# like STRING GLOB
like() { [[ $1 == $2 ]]; }
APP_26_0=00,05,00,1a,c5,00,30 # DSCP 26 -> 0
MFS1522=05,f2

M=$T/m.prom
F=$T/features
PORT=$(free_port)
agr() { metric_lit "$M" "rdma_qos_peer_agreement{pf=\"$1\",item=\"$2\"}"; }
# peer_label WORD: 1 once the NFD file says rdma-qos.peer=WORD (written just after the metrics)
peer_label() {
	for _ in $(seq 20); do grep -q "^feature.node.kubernetes.io/rdma-qos.peer=$1$" "$F" 2> /dev/null && break; sleep 0.1; done
	grep -c "^feature.node.kubernetes.io/rdma-qos.peer=$1$" "$F"
}
# wait_peers JQ-EXPR: until the agent's peers.json makes it true ($pf0, $pf1 bound)
wait_peers() {
	for _ in $(seq 100); do
		[ "$(jq --arg pf0 "$PF0" --arg pf1 "$PF1" "$1" "$ROOT/run/rdma-qos/agent/peers.json" 2> /dev/null)" = true ] && return 0
		sleep 0.1
	done
	return 1
}
show_json() { RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --json > "$T/show.json" 2> /dev/null; }
show_verdict() { jq -r --arg pf "$1" --arg it "$2" '.pfs[] | select(.name == $pf) | .peer.items[$it].verdict' "$T/show.json"; }

echo "== a lossless attachment on $PF0; the agent runs"
ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p1;K8S_POD_UID=pod-a"
RQ="{\"type\":\"rdma-qos\",\"deviceID\":\"$VF0PCI\"}"
NSA=$(newns a)
PREV=$(chain_add "$ROOT" roce c1 "$NSA" net1 "$VF0" "$RQ" "$ARGS")
check "ADD (roce-lossless: PFC 3, DSCP 26->3 and 48->6)" [ $? -eq 0 ]
# a lossy pod on the same PF: the partner's PFC is none of its business (#49 item 10)
read -r _ VF1PCI VF1 <<< "${VFS[1]}"
mkdir -p "$ROOT/etc/cni/rdma-qos"
echo '{"profiles":{"lossy":{"trafficClass":0}},"namespaces":{"*":{"default":"roce-lossless","allow":["roce-lossless","lossy"]}}}' > "$ROOT/etc/cni/rdma-qos/profiles.json"
NSW=$(newns w)
chain_add "$ROOT" roce c2 "$NSW" net1 "$VF1" "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF1PCI\",\"profile\":\"lossy\"}" \
	"IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=web;K8S_POD_UID=pod-w" > /dev/null
check "ADD ai/web (lossy) on $PF0" [ $? -eq 0 ]
sw_start 0 leaf-01 swp3 3 "$PFC3" "$APP_OK" "$MFS9216"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --interval 60 --metrics-file "$M" --listen "127.0.0.1:$PORT" \
	--nfd-features-file "$F" --log-level debug 2> "$T/agent.log" &
BG=$!

echo "== a partner that agrees"
wait_metric "rdma_qos_peer_seen{pf=\"$PF0\"}" 1
check "rdma_qos_peer_seen{$PF0} 1 (heard within a pass's coalescing, no polling)" [ $? -eq 0 ]
wait_metric "rdma_qos_peer_agreement{pf=\"$PF0\",item=\"mtu\"}" 1 > /dev/null
check "peer_info names the switch: system leaf-01, port swp3, its description" \
	[ "$(grep -c "^rdma_qos_peer_info{pf=\"$PF0\",chassis_id=\"[^\"]*\",port_id=\"swp3\",system_name=\"leaf-01\",port_description=\"Ethernet to $PF0\"} 1$" "$M")" = 1 ]
check "peer_pfc_enabled: 3 on, 4 off; willing 0" [ "$(metric_lit "$M" "rdma_qos_peer_pfc_enabled{pf=\"$PF0\",prio=\"3\"}")$(metric_lit "$M" "rdma_qos_peer_pfc_enabled{pf=\"$PF0\",prio=\"4\"}")$(metric_lit "$M" "rdma_qos_peer_pfc_willing{pf=\"$PF0\"}")" = 100 ]
check "peer_dscp_priority: 26 -> 3, 48 -> 6, no other DSCP" \
	[ "$(grep -c "^rdma_qos_peer_dscp_priority{pf=\"$PF0\"" "$M"):$(metric_lit "$M" "rdma_qos_peer_dscp_priority{pf=\"$PF0\",dscp=\"26\"}"):$(metric_lit "$M" "rdma_qos_peer_dscp_priority{pf=\"$PF0\",dscp=\"48\"}")" = 2:3:6 ]
check "peer_max_frame_bytes 9216" [ "$(metric_lit "$M" "rdma_qos_peer_max_frame_bytes{pf=\"$PF0\"}")" = 9216 ]
check "agreement pfc, dscp2prio, mtu all 1; no ets series (the target has no ETS)" \
	[ "$(agr "$PF0" pfc)$(agr "$PF0" dscp2prio)$(agr "$PF0" mtu):$(agr "$PF0" ets)" = 111: ]
check "$PF1 has no attachment and no baseline: not watched, no series" \
	[ "$(grep -c "pf=\"$PF1\"" "$M")" = 0 ]
check "the metrics file passes promtool" promcheck "$M"
curl -sf "http://127.0.0.1:$PORT/metrics" > "$T/http.prom"
check "/metrics serves the same agreement" [ "$(metric_lit "$T/http.prom" "rdma_qos_peer_agreement{pf=\"$PF0\",item=\"pfc\"}")" = 1 ]
show_json
check "show --json: heard, pfc/dscp2prio/mtu agree, no ets item" \
	[ "$(jq -r --arg pf "$PF0" '.pfs[] | select(.name == $pf) | [.peer.state, .peer.partner.systemName, .peer.partner.portId, (.peer.items | to_entries | map("\(.key)=\(.value.verdict)") | join(","))] | join(" ")' "$T/show.json")" = \
		"heard leaf-01 swp3 pfc=agrees,dscp2prio=agrees,mtu=agrees" ]
check "show --json: the partner's TLVs as heard" \
	[ "$(jq -c --arg pf "$PF0" '.pfs[] | select(.name == $pf) | .peer.partner | [.pfc.enabled, .dscp2prio["26"], .maxFrameBytes]' "$T/show.json")" = '[[3],[3],9216]' ]
l=$(show_line "$PF0")
check "show: 'partner leaf-01 port swp3 (...): pfc agrees, dscp2prio agrees, mtu agrees'" \
	like "$l" "  partner leaf-01 port swp3 (Ethernet to $PF0, chassis *): pfc agrees, dscp2prio agrees, mtu agrees" || echo "  $l"
check "NFD label rdma-qos.peer=agrees" [ "$(peer_label agrees)" = 1 ]
VL="namespace=\"ai\",pod=\"p1\",interface=\"net1\",vf=\"$VF0PCI\",pf=\"$PF0\""
check "the pod's verdict: rdma_qos_attachment_lossless 1, no problem series" [ "$(metric_lit "$M" "rdma_qos_attachment_lossless{$VL}"):$(grep -c "^rdma_qos_attachment_problem{$VL" "$M")" = 1:0 ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --pod ai/p1 > "$T/pod.txt" 2>&1
{ [ $? -eq 0 ] && grep -q "^  peer  *ok  *the link partner has PFC where the PF needs it" "$T/pod.txt"; }; check "show --pod: exit 0, peer ok" [ $? -eq 0 ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --counters --json --interval 0.2 > "$T/c.json" 2> /dev/null
check "show --counters --json: partner agrees for $PF0 (top's PF header)" \
	[ "$(jq -r --arg pf "$PF0" '.pfs[] | select(.pf == $pf) | .partner' "$T/c.json")" = agrees ]

echo "== PFC on 4 instead of 3"
sw_tlvs 0 "$PFC4" "$APP_OK" "$MFS9216"
wait_metric "rdma_qos_peer_agreement{pf=\"$PF0\",item=\"pfc\"}" 0
check "agreement pfc 0" [ $? -eq 0 ]
check "... dscp2prio and mtu still 1" [ "$(agr "$PF0" dscp2prio)$(agr "$PF0" mtu)" = 11 ]
check "... peer_pfc_enabled prio 4 = 1, prio 3 = 0" [ "$(metric_lit "$M" "rdma_qos_peer_pfc_enabled{pf=\"$PF0\",prio=\"4\"}")$(metric_lit "$M" "rdma_qos_peer_pfc_enabled{pf=\"$PF0\",prio=\"3\"}")" = 10 ]
show_json
check "show --json: pfc disagrees" [ "$(show_verdict "$PF0" pfc)" = disagrees ]
l=$(show_line "$PF0")
check "show: 'pfc DISAGREES (partner PFC on 4, required 3)'" like "$l" "*pfc DISAGREES (partner PFC on 4, required 3), dscp2prio agrees, mtu agrees" || echo "  $l"
check "NFD label rdma-qos.peer=disagrees" [ "$(peer_label disagrees)" = 1 ]
check "the pod's verdict: lossless 0, problem{check=peer} 1" [ "$(metric_lit "$M" "rdma_qos_attachment_lossless{$VL}"):$(metric_lit "$M" "rdma_qos_attachment_problem{$VL,check=\"peer\"}")" = 0:1 ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --pod ai/p1 > "$T/pod.txt" 2>&1
{ [ $? -eq 1 ] && head -1 "$T/pod.txt" | grep -qF "lossless: NO (net1: the link partner disagrees: pfc: partner PFC on 4, required 3)"; }; check "show --pod: exit 1, lossless: NO (the link partner disagrees: pfc: partner PFC on 4, required 3)" [ $? -eq 0 ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --counters --interval 0.2 > "$T/c.txt" 2> /dev/null
check "show --counters / top: the PF header says 'partner DISAGREES'" grep -q "^PF $PF0 .* partner DISAGREES" "$T/c.txt"
WL="namespace=\"ai\",pod=\"web\",interface=\"net1\",vf=\"$VF1PCI\",pf=\"$PF0\""
check "the lossy pod on the same PF: no problem{check=peer} (a PFC it never needed)" [ -z "$(metric_lit "$M" "rdma_qos_attachment_problem{$WL,check=\"peer\"}")" ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --pod ai/web > "$T/podw.txt" 2>&1
{ [ $? -eq 0 ] && head -1 "$T/podw.txt" | grep -q "^lossless: not required"; }; check "show --pod ai/web: exit 0, lossless: not required" [ $? -eq 0 ] || head -3 "$T/podw.txt"
out=$(chain_check "$ROOT" roce c1 "$NSA" net1 "$VF0" "$RQ" "$ARGS" "$PREV" 2>&1)
check "CHECK passes while the switch disagrees (the partner is the fabric team's)" [ $? -eq 0 ] || echo "  $out"
check "... and the agent wrote nothing to the port (pfc still [3])" [ "$(pfc_of "$ROOT" "$PF0")" = "[3]" ]

echo "== DSCP 26 mapped to 0"
sw_tlvs 0 "$PFC3" "$APP_26_0" "$MFS9216"
wait_metric "rdma_qos_peer_agreement{pf=\"$PF0\",item=\"dscp2prio\"}" 0
check "agreement dscp2prio 0" [ $? -eq 0 ]
check "... peer_dscp_priority{dscp=26} 0; pfc 1 again" [ "$(metric_lit "$M" "rdma_qos_peer_dscp_priority{pf=\"$PF0\",dscp=\"26\"}"):$(agr "$PF0" pfc)" = 0:1 ]
show_json
l=$(show_line "$PF0")
check "show: 'dscp2prio DISAGREES (partner maps DSCP 26 to priority 0, required 3)'" \
	like "$l" "*dscp2prio DISAGREES (partner maps DSCP 26 to priority 0, required 3)*" || echo "  $l"
check "show --json: dscp2prio disagrees" [ "$(show_verdict "$PF0" dscp2prio)" = disagrees ]

echo "== max frame 1522 under a 9000 MTU"
sw_tlvs 0 "$PFC3" "$APP_OK" "$MFS1522"
wait_metric "rdma_qos_peer_agreement{pf=\"$PF0\",item=\"mtu\"}" 0
check "agreement mtu 0" [ $? -eq 0 ]
check "... peer_max_frame_bytes 1522; dscp2prio 1 again" [ "$(metric_lit "$M" "rdma_qos_peer_max_frame_bytes{pf=\"$PF0\"}"):$(agr "$PF0" dscp2prio)" = 1522:1 ]
show_json
check "show --json: mtu disagrees, why: 'partner max frame 1522 bytes, MTU 9000 needs 9018' (untagged: DSCP trust)" \
	[ "$(jq -r --arg pf "$PF0" '.pfs[] | select(.name == $pf) | "\(.peer.items.mtu.verdict): \(.peer.items.mtu.why)"' "$T/show.json")" = \
		"disagrees: partner max frame 1522 bytes, MTU 9000 needs 9018" ]
echo 1500 > "$ROOT/sys/class/net/$PF0/mtu"
show_json
check "show judges against the MTU of now: 1522 carries a 1500 MTU (agrees)" [ "$(show_verdict "$PF0" mtu)" = agrees ]
echo 9000 > "$ROOT/sys/class/net/$PF0/mtu"

echo "== a partner that says nothing but who it is"
sw_tlvs 0 "" "" ""
wait_metric "rdma_qos_peer_pfc_willing{pf=\"$PF0\"}" "" > /dev/null
sleep 0.5
check "seen 1, no TLV series, no agreement series (unknown, never a mismatch)" \
	[ "$(metric_lit "$M" "rdma_qos_peer_seen{pf=\"$PF0\"}"):$(grep -c "^rdma_qos_peer_\(agreement\|pfc_enabled\|dscp_priority\|max_frame_bytes\){pf=\"$PF0\"" "$M")" = 1:0 ]
show_json
check "show --json: heard, every item unknown" \
	[ "$(jq -r --arg pf "$PF0" '.pfs[] | select(.name == $pf) | [.peer.state, (.peer.items[] | .verdict)] | unique | join(",")' "$T/show.json")" = "heard,unknown" ]
check "NFD label rdma-qos.peer=unknown" [ "$(peer_label unknown)" = 1 ]

echo "== the partner leaves: TTL 0 at lldpd's shutdown"
sw_stop 0
sw_start 0 leaf-01 swp3 30 "$PFC3" "$APP_OK" "$MFS9216"
# back within its memory (TTL 3) with other content: judged after half the longer TTL (15 s)
wait_metric "rdma_qos_peer_agreement{pf=\"$PF0\",item=\"pfc\"}" 1 20 > /dev/null
check "lldpd back with a 30 s TTL: seen 1, agrees" [ "$(metric_lit "$M" "rdma_qos_peer_seen{pf=\"$PF0\"}")" = 1 ]
t0=$(date +%s%N)
sw_stop 0
wait_metric "rdma_qos_peer_seen{pf=\"$PF0\"}" 0 5
check "SIGTERM: lldpd's shutdown LLDPDU (TTL 0) forgets the partner at once" [ $? -eq 0 ]
check "... within 3 s of 30 ($((($(date +%s%N) - t0) / 1000000)) ms), the log says it is leaving" \
	[ $((($(date +%s%N) - t0) / 1000000000)) -lt 3 ]
check "... the log says the partner is leaving (TTL 0)" grep -q "$PF0: link partner .* is leaving (TTL 0)" "$T/agent.log"
check "... no info or agreement series left for it" [ "$(grep -c "^rdma_qos_peer_\(info\|agreement\){pf=\"$PF0\"" "$M")" = 0 ]
show_json
check "show --json: state silent" [ "$(jq -r --arg pf "$PF0" '.pfs[] | select(.name == $pf) | .peer.state' "$T/show.json")" = silent ]
check "show: 'partner silent: pfc unknown, dscp2prio unknown, mtu unknown'" \
	[ "$(show_line "$PF0")" = "  partner silent: pfc unknown, dscp2prio unknown, mtu unknown" ]

echo "== the partner goes quiet: TTL expiry"
sw_start 0 leaf-01 swp3 3 "$PFC3" "$APP_OK" "$MFS9216"
wait_metric "rdma_qos_peer_seen{pf=\"$PF0\"}" 1
check "lldpd back with a 3 s TTL" [ $? -eq 0 ]
sw_stop 0 KILL # no shutdown frame
t0=$(date +%s%N)
sleep 1.5
check "kill -9: 1.5 s later the partner is still current (its TTL is 3 s)" [ "$(metric_lit "$M" "rdma_qos_peer_seen{pf=\"$PF0\"}")" = 1 ]
wait_metric "rdma_qos_peer_seen{pf=\"$PF0\"}" 0 6
check "... forgotten once the TTL ran out ($((($(date +%s%N) - t0) / 1000000)) ms), with no frame to wake it" [ $? -eq 0 ]
check "... the log says it went silent past its TTL" grep -q "$PF0: link partner .* silent past its TTL: forgotten" "$T/agent.log"

echo "== the port's DCBX mode (dcbnl getdcbx), and what show says of a silent partner under firmware LLDP"
dcb_edit "$ROOT" "$PF0" '.dcbx = 9' # HOST | VER_IEEE: mlx5 in host mode
wait_metric "rdma_qos_port_dcbx_mode{pf=\"$PF0\",mode=\"ieee\"}" 1
check "rdma_qos_port_dcbx_mode: host 1, ieee 1, lld_managed 0, cee 0" \
	[ "$(for m in host ieee lld_managed cee; do metric_lit "$M" "rdma_qos_port_dcbx_mode{pf=\"$PF0\",mode=\"$m\"}"; done | tr -d '\n')" = 1100 ]
dcb_edit "$ROOT" "$PF0" '.dcbx = 10' # LLD_MANAGED | VER_IEEE: the NIC firmware's LLDP agent
wait_metric "rdma_qos_port_dcbx_mode{pf=\"$PF0\",mode=\"lld_managed\"}" 1
check "firmware-managed DCBX: lld_managed 1, host 0" [ "$(metric_lit "$M" "rdma_qos_port_dcbx_mode{pf=\"$PF0\",mode=\"host\"}")" = 0 ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show 2> /dev/null > "$T/show.txt"
check "show: the silent partner comes with the firmware-LLDP hint" \
	grep -q "DCBX is lld_managed: the NIC firmware's own LLDP agent may take the partner's LLDP" "$T/show.txt"
show_json
check "show --json: dcbx [lld_managed, ieee]" [ "$(jq -c --arg pf "$PF0" '.pfs[] | select(.name == $pf) | .dcbx' "$T/show.json")" = '["lld_managed","ieee"]' ]
dcb_edit "$ROOT" "$PF0" '.dcbx = 12' # VER_CEE | VER_IEEE: mlx5 in firmware mode, never LLD_MANAGED
wait_metric "rdma_qos_port_dcbx_mode{pf=\"$PF0\",mode=\"cee\"}" 1
check "mlx5's firmware DCBX: host 0, lld_managed 0, cee 1, ieee 1" \
	[ "$(for m in host lld_managed cee ieee; do metric_lit "$M" "rdma_qos_port_dcbx_mode{pf=\"$PF0\",mode=\"$m\"}"; done | tr -d '\n')" = 0011 ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show 2> /dev/null > "$T/show.txt"
check "show: the same hint without lld_managed (no host bit is firmware DCBX)" \
	grep -q "DCBX is not host-managed (firmware): the NIC firmware's own LLDP agent may take the partner's LLDP" "$T/show.txt"
dcb_edit "$ROOT" "$PF0" '.dcbx = 9'
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show 2> /dev/null > "$T/show.txt"
check "show: no hint while the host manages DCBX" [ "$(grep -c "NIC firmware's own LLDP agent" "$T/show.txt")" = 0 ]

echo "== two PFs, two partners (the node baseline covers $PF1 too)"
CAT=$ROOT/etc/cni/rdma-qos/profiles.json
mkdir -p "${CAT%/*}"
echo '{"profiles":{},"node":{"pf":"ensure","baseline":"roce-lossless"}}' > "$CAT"
# leaf-01 coming back raises a pass, which reads the catalog and starts listening on $PF1
sw_start 0 leaf-01 swp3 3 "$PFC3" "$APP_OK" "$MFS9216"
sw_start 1 leaf-02 swp9 3 "$PFC4" "$APP_OK" "$MFS9216"
wait_metric "rdma_qos_peer_agreement{pf=\"$PF1\",item=\"pfc\"}" 0 15
check "$PF1 (baseline only) is watched: its partner leaf-02 disagrees on pfc" [ $? -eq 0 ]
wait_metric "rdma_qos_peer_agreement{pf=\"$PF0\",item=\"pfc\"}" 1 > /dev/null
check "... while $PF0's leaf-01 agrees" [ "$(agr "$PF0" pfc)" = 1 ]
check "each PF names its own partner" \
	[ "$(grep -o "^rdma_qos_peer_info{pf=\"[^\"]*\",chassis_id=\"[^\"]*\",port_id=\"[^\"]*\",system_name=\"[^\"]*\"" "$M" | sed 's/chassis_id="[^"]*",//' | sort | tr '\n' ' ')" = \
		"rdma_qos_peer_info{pf=\"$PF0\",port_id=\"swp3\",system_name=\"leaf-01\" rdma_qos_peer_info{pf=\"$PF1\",port_id=\"swp9\",system_name=\"leaf-02\" " ]
check "NFD label: one PF disagrees, so the node disagrees" [ "$(peer_label disagrees)" = 1 ]

echo "== ETS, judged only where the target has ETS, against the partner's Recommendation"
# the baseline now has ETS; leaf-01 advertises an ETS TLV: Configuration (00-80-C2/9: willing,
# CBS, max TCs) or Recommendation (00-80-C2/10: a reserved byte), then the TC of each priority
# (two a byte), bandwidths, TSA (2 ets, 0 strict)
ETS_OK=00,00,03,40,60,14,00,00,32,1e,00,00,00,02,00,00,02,02,00,00,00
ETS_BW=00,00,03,40,60,14,00,00,1e,32,00,00,00,02,00,00,02,02,00,00,00
echo '{"profiles":{"gold":{"trust":"dscp","dscp2prio":{"26":3,"48":6},"pfc":[3],"ets":{"tcBw":[20,0,0,50,30,0,0,0],"tsa":["ets","strict","strict","ets","ets","strict","strict","strict"],"prioTc":[0,0,0,3,4,0,6,0]}}},"node":{"pf":"ensure","baseline":"gold"}}' > "$CAT"
# ETS is asymmetric: a switch's Configuration is its own; only its Recommendation asks us
lldpc 0 configure lldp custom-tlv replace oui 00,80,c2 subtype 9 oui-info "$ETS_BW"
wait_peers '.pfs[$pf0].peer.etsConfiguration.tcBw[3] == 30'
check "the agent heard the Configuration TLV (peers.json)" [ $? -eq 0 ]
sleep 1.5 # the pass that frame raised has rendered
check "an ETS Configuration alone (a different one) says nothing of what it asks: no ets series" [ "$(agr "$PF0" ets)" = "" ]
lldpc 0 configure lldp custom-tlv replace oui 00,80,c2 subtype 10 oui-info "$ETS_OK"
wait_metric "rdma_qos_peer_agreement{pf=\"$PF0\",item=\"ets\"}" 1
check "agreement ets 1: the partner's ETS Recommendation is the target's (its Configuration differs)" [ $? -eq 0 ]
check "... $PF1's partner advertises no ETS: no ets series for it (unknown)" [ "$(agr "$PF1" ets)" = "" ]
lldpc 0 configure lldp custom-tlv replace oui 00,80,c2 subtype 10 oui-info "$ETS_BW"
wait_metric "rdma_qos_peer_agreement{pf=\"$PF0\",item=\"ets\"}" 0
check "Recommendation bandwidths 30/50 instead of 50/30: agreement ets 0" [ $? -eq 0 ]
show_json
check "show --json: ets disagrees, in its Recommendation's bandwidth at TC 3" \
	[ "$(jq -r --arg pf "$PF0" '.pfs[] | select(.name == $pf) | "\(.peer.items.ets.verdict): \(.peer.items.ets.why)"' "$T/show.json")" = \
		"disagrees: partner's ETS Recommendation differs in its bandwidth at TC 3" ]
lldpc 0 configure lldp custom-tlv replace oui 00,80,c2 subtype 10 oui-info "$ETS_OK"
wait_metric "rdma_qos_peer_agreement{pf=\"$PF0\",item=\"ets\"}" 1 > /dev/null

echo "== crafted frames: malformed, oversized, junk with the LLDP Ethertype"
cp "$M" "$T/before.prom"
n0=$(grep -c "dropped an LLDP frame" "$T/agent.log")
# craft.py KIND: frames sent from the switch side of PF1 (AF_PACKET, as a switch would)
cat > "$T/craft.py" << 'EOF'
import socket, struct, sys
def tlv(t, v): return struct.pack("!H", t << 9 | len(v)) + v
def org(oui, sub, v): return tlv(127, oui + bytes([sub]) + v)
CH, PT, TTL = tlv(1, b"\x07evil"), tlv(2, b"\x07swp66"), tlv(3, b"\x00\x78")
PFC0 = org(b"\x00\x80\xc2", 11, b"\x00\x00")
def eth(pdu, et=b"\x88\xcc"): return b"\x01\x80\xc2\x00\x00\x0e\x02\x00\x00\x00\x00\x66" + et + pdu
bad = [
    eth(CH + PT),                                    # no TTL
    eth(TTL + CH + PT),                              # out of order
    eth(CH + PT + TTL + b"\x08\xff" + b"x" * 10),    # port description past the frame
    eth(CH + PT + TTL + CH + PFC0),                  # a second chassis ID
    eth(CH[:3]),                                     # truncated in the first TLV
    eth(b"\xde\xad\xbe\xef" * 200),                  # junk with the LLDP Ethertype
    eth(CH + PT + TTL + PFC0 + b"\x00" * 9300),      # longer than any LLDPDU (9216)
    eth(b""),
]
good_minimal = eth(CH + PT + TTL + tlv(0, b""))      # chassis, port, TTL 120: nothing else
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("swp", 0))
frames = bad * 50 if sys.argv[1] == "bad" else [good_minimal]
for f in frames:
    s.send(f)
print(len(frames))
EOF
sent=$(ip netns exec "$(sw_ns 1)" python3 "$T/craft.py" bad)
sleep 1.5
n1=$(grep -c "dropped an LLDP frame" "$T/agent.log")
check "$sent hostile frames sent to $PF1; the agent read and dropped them (log: $((n1 - n0)) lines at debug)" \
	[ "$sent" = 400 ]
check "... the agent logged them at debug (at least one line)" [ $((n1 - n0)) -ge 1 ]
check "the agent is alive and answers /metrics" curl -sf -o /dev/null "http://127.0.0.1:$PORT/metrics"
check "$PF1's partner is still leaf-02 (a dropped frame changes nothing)" \
	[ "$(grep -c "^rdma_qos_peer_info{pf=\"$PF1\",.*system_name=\"leaf-02\"" "$M")" = 1 ]
check "$PF0's partner untouched by $PF1's frames" \
	same "$(grep "pf=\"$PF0\"" "$M" | grep ^rdma_qos_peer | sort)" "$(grep "pf=\"$PF0\"" "$T/before.prom" | grep ^rdma_qos_peer | sort)"
sw_stop 1 KILL
ip netns exec "$(sw_ns 1)" python3 "$T/craft.py" minimal > /dev/null
wait_metric "rdma_qos_peer_info{pf=\"$PF1\",chassis_id=\"evil\",port_id=\"swp66\",system_name=\"\",port_description=\"\"}" 1
check "a crafted partner with chassis, port and TTL only is heard on $PF1 alone" [ $? -eq 0 ]
check "... unknown on every item (no agreement series for $PF1)" [ "$(grep -c "^rdma_qos_peer_agreement{pf=\"$PF1\"" "$M")" = 0 ]
check "... $PF0 still leaf-01, agreeing" [ "$(grep -c "^rdma_qos_peer_info{pf=\"$PF0\",.*system_name=\"leaf-01\"" "$M"):$(agr "$PF0" pfc)" = 1:1 ]
check "nothing was ever sent on a PF (the agent only listens)" \
	[ "$(ip -s -j link show "$PF0" | jq '.[0].stats64.tx.packets')" = 0 ]
check "the metrics file passes promtool" promcheck "$M"
check "no LLDP event was ever backed off as a flapping source (each change was judged)" \
	[ "$(grep -c "LLDP events for .* keep coming" "$T/agent.log")" = 0 ]

echo "== issue 37: who counts as the partner (neighbours by MSAP, frame acceptance)"
# only $PF0 is watched from here (its attachment: roce-lossless, trust dscp, no ETS)
echo '{"profiles":{}}' > "$CAT"
lldpc 0 unconfigure lldp custom-tlv
sw_tlvs 0 "$PFC3" "$APP_OK" "$MFS9216"
wait_metric "rdma_qos_peer_seen{pf=\"$PF1\"}" "" 15 > /dev/null
wait_metric "rdma_qos_peer_agreement{pf=\"$PF0\",item=\"pfc\"}" 1
check "$PF0 with leaf-01 alone: agreement pfc 1" [ $? -eq 0 ]
check "rdma_qos_peer_partners{$PF0} 1" [ "$(metric_lit "$M" "rdma_qos_peer_partners{pf=\"$PF0\"}")" = 1 ]
check "rdma_qos_peer_dcbx{$PF0,version=ieee} 1" [ "$(metric_lit "$M" "rdma_qos_peer_dcbx{pf=\"$PF0\",version=\"ieee\"}")" = 1 ]
# spk.py SRC DST VLAN CHASSIS PORT TTL [PFC-HEX]: one LLDPDU from the switch side of $PF0, as a
# second speaker would send it (VLAN "-": untagged; CHASSIS "mac:aa:bb:..": a MAC chassis ID
# named leaf-01, PORT "local:NAME": a locally assigned port ID, as lldpd's)
cat > "$T/spk.py" << 'EOF'
import os, socket, struct, sys, time
src, dst, vlan, ch, port, ttl = sys.argv[1:7]
def tlv(t, v): return struct.pack("!H", t << 9 | len(v)) + v
cid = b"\x04" + bytes.fromhex(ch[4:].replace(":", "")) if ch.startswith("mac:") else b"\x07" + ch.encode()
pid = b"\x07" + port[6:].encode() if port.startswith("local:") else b"\x05" + port.encode()
pdu = tlv(1, cid) + tlv(2, pid) + tlv(3, struct.pack("!H", int(ttl)))
pdu += tlv(5, b"leaf-01" if ch.startswith("mac:") else ch.encode())
if len(sys.argv) > 7:
    pdu += tlv(127, b"\x00\x80\xc2\x0b" + bytes.fromhex(sys.argv[7]))
mac = lambda m: bytes.fromhex(m.replace(":", ""))
hdr = mac(dst) + mac(src) + (b"" if vlan == "-" else b"\x81\x00" + struct.pack("!H", int(vlan)))
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("swp", 0))
for i in range(int(os.environ.get("SPK_N", "1"))):  # SPK_N frames, SPK_EVERY s apart
    if i:
        time.sleep(float(os.environ.get("SPK_EVERY", "0")))
    s.send(hdr + b"\x88\xcc" + pdu + tlv(0, b""))
EOF
spk() { ip netns exec "$(sw_ns 0)" python3 "$T/spk.py" "$@"; }
NB=01:80:c2:00:00:0e
read -r _ VF1PCI VF1 <<< "${VFS[1]}"
VF1MAC=02:aa:bb:cc:dd:01 PFMAC=02:aa:bb:cc:dd:00
echo "$VF1MAC" > "$ROOT/sys/bus/pci/devices/$VF1PCI/net/$VF1/address"
echo "$PFMAC" > "$ROOT/sys/class/net/$PF0/address"
only_leaf01() { [ "$(grep -c "^rdma_qos_peer_info{pf=\"$PF0\"" "$M"):$(grep -c "^rdma_qos_peer_info{pf=\"$PF0\",.*system_name=\"leaf-01\"" "$M"):$(metric_lit "$M" "rdma_qos_peer_partners{pf=\"$PF0\"}"):$(agr "$PF0" pfc)" = 1:1:1:1 ]; }
n0=$(grep -c "from the node's own MAC" "$T/agent.log")
spk "$VF1MAC" "$NB" - pod-x eth0 120 0010
sleep 1.5
check "a frame from $VF1's MAC (a pod's VF, delivered to the PF by the eswitch) is dropped: leaf-01 alone, agreeing" only_leaf01
check "... the log says a frame from the node's own MAC was dropped" [ "$(grep -c "from the node's own MAC $VF1MAC" "$T/agent.log")" -gt "$n0" ]
spk "$PFMAC" "$NB" - pf-echo eth0 120 0010
sleep 1.5
check "a frame from $PF0's own MAC is dropped" only_leaf01
# issue 42 item 3: $VF0 is pod a's net1 with the MAC its netdev was made with: no admin MAC
# (IFLA_VF_MAC all-zero), not the host sysfs' file; only the pod's netns shows it
VF0MAC=$(ip -n "${NSA##*/}" -j link show net1 | jq -r '.[0].address')
n0=$(grep -c "from the node's own MAC $VF0MAC" "$T/agent.log")
spk "$VF0MAC" "$NB" - pod-a net1 3 0008 # TTL 3: where it counted, it is gone for what follows
sleep 1.5
check "a frame from $VF0's current MAC inside pod a's netns ($VF0MAC, no admin MAC) is dropped as own: leaf-01 alone" \
	only_leaf01
check "... the log says a frame from the node's own MAC $VF0MAC was dropped" \
	[ "$(grep -c "from the node's own MAC $VF0MAC" "$T/agent.log")" -gt "$n0" ]
sleep 2
spk 02:00:00:00:00:71 "$NB" 5 tagged eth0 120 0010
sleep 1.5
check "an 802.1Q-tagged frame (VLAN 5; the kernel untagged it: auxdata) does not count" only_leaf01
spk 02:00:00:00:00:72 01:80:c2:00:00:03 - tpmr eth0 120 0010
spk 02:00:00:00:00:73 01:80:c2:00:00:00 - cust eth0 120 0010
sleep 1.5
check "frames to 01:80:c2:00:00:03 and :00 (past a bridge, not the switch port) do not count" only_leaf01
spk 02:00:00:00:00:74 "$NB" - nobody ethX 0
sleep 1.5
check "a shutdown LLDPDU (TTL 0) of another MSAP does not erase leaf-01" only_leaf01

echo "== a second speaker: nothing is judged, never 'agrees'"
# the agent backs off a port whose partners change more than 20 times in 10 s (a flapping
# source): the sections below change the switch many times, so each starts a new window
settle() { sleep 10; }
settle
sw_tlvs 0 "$PFC4" "$APP_OK" "$MFS9216"
wait_metric "rdma_qos_peer_agreement{pf=\"$PF0\",item=\"pfc\"}" 0
check "leaf-01 now has PFC on 4: pfc disagrees, the node label disagrees" [ "$(peer_label disagrees)" = 1 ]
spk 02:00:00:00:00:77 "$NB" - vm-lldpd eth1 120 0008 # a VM's lldpd, 'PFC on 3'
wait_metric "rdma_qos_peer_partners{pf=\"$PF0\"}" 2
check "a second speaker (PFC on 3, another MAC): rdma_qos_peer_partners 2" [ $? -eq 0 ]
check "... no agreement series at all for $PF0 (not judged), no TLV series, no dcbx series" \
	[ "$(grep -c "^rdma_qos_peer_\(agreement\|pfc_enabled\|pfc_willing\|dscp_priority\|max_frame_bytes\|dcbx\){pf=\"$PF0\"" "$M")" = 0 ]
check "... seen 1, one info series per partner" \
	[ "$(metric_lit "$M" "rdma_qos_peer_seen{pf=\"$PF0\"}"):$(grep -c "^rdma_qos_peer_info{pf=\"$PF0\"" "$M")" = 1:2 ]
check "... the NFD label says unknown (never agrees on a second speaker's word)" [ "$(peer_label unknown)" = 1 ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show 2> /dev/null > "$T/show.txt"
check "show: '2 partners: not judged: ...' naming both" \
	grep -q "^  2 partners: not judged: .*leaf-01 port swp3.*vm-lldpd port eth1\|^  2 partners: not judged: .*vm-lldpd port eth1.*leaf-01 port swp3" "$T/show.txt"
show_json
check "show --json: state partners, count 2, every item unknown" \
	[ "$(jq -r --arg pf "$PF0" '.pfs[] | select(.name == $pf) | [.peer.state, .peer.count, (.peer.partners | length), ([.peer.items[] | .verdict] | unique | join(","))] | join(" ")' "$T/show.json")" = "partners 2 2 unknown" ]
check "the metrics file passes promtool" promcheck "$M"
spk 02:00:00:00:00:77 "$NB" - vm-lldpd eth1 0
wait_metric "rdma_qos_peer_partners{pf=\"$PF0\"}" 1
check "the second speaker's shutdown LLDPDU removes only its MSAP: partners 1" [ $? -eq 0 ]
wait_metric "rdma_qos_peer_agreement{pf=\"$PF0\",item=\"pfc\"}" 0
check "... leaf-01 is judged again: pfc disagrees" [ $? -eq 0 ]
# a speaker that copies leaf-01's chassis and port ID (a pod whose VF has no spoof check)
CH01=$(jq -r --arg pf "$PF0" '.pfs[$pf].peer.chassisId' "$ROOT/run/rdma-qos/agent/peers.json")
spk 02:00:00:00:00:78 "$NB" - "mac:$CH01" local:swp3 3 0008 # 'PFC on 3' as leaf-01
wait_metric "rdma_qos_peer_agreement{pf=\"$PF0\",item=\"pfc\"}" "" 5
rc=$?
check "leaf-01's MSAP from another source MAC saying 'PFC on 3': not judged (no agreement series), never agrees" \
	[ $rc -eq 0 ]
check "... no agreement series: partners 1, peer label unknown" [ "$(metric_lit "$M" "rdma_qos_peer_partners{pf=\"$PF0\"}"):$(peer_label unknown)" = 1:1 ]
check "... the log warns of one partner heard from two source MACs" \
	grep -q "link partner $CH01 port swp3 heard from two source MACs (.*02:00:00:00:00:78" "$T/agent.log"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show 2> /dev/null > "$T/show.txt"
check "show: 'partner leaf-01 port swp3 heard from two source MACs: not judged'" \
	grep -q "^  partner leaf-01 port swp3 heard from two source MACs: not judged$" "$T/show.txt"
wait_metric "rdma_qos_peer_agreement{pf=\"$PF0\",item=\"pfc\"}" 0 15
check "the copy silent past its TTL and the switch's alone again: judged, pfc disagrees" [ $? -eq 0 ]

echo "== issue 42 items 2 and 7: a replay with the switch's MSAP and MAC, interleaved"
# a pod's VF hears leaf-01 through the eswitch and replays it, edited to 'PFC on 3', from
# leaf-01's own MAC: one MSAP, one MAC, content that flips between the switch's (PFC on 4,
# disagrees) and the copy's. Never judged, never 'agrees'; the log and the passes stay quiet.
settle
SWMAC=$(ip -n "$(sw_ns 0)" -j link show swp | jq -r '.[0].address')
wait_metric "rdma_qos_peer_agreement{pf=\"$PF0\",item=\"pfc\"}" 0 > /dev/null
p0=$(grep -c 'pass took' "$T/agent.log")
l0=$(grep -c "link partner $CH01 (leaf-01) port swp3" "$T/agent.log")
SPK_N=32 SPK_EVERY=0.25 spk "$SWMAC" "$NB" - "mac:$CH01" local:swp3 3 0008 &
RP=$!
agrees=0 samples=0
while kill -0 "$RP" 2> /dev/null; do
	[ "$(agr "$PF0" pfc)" = 1 ] && agrees=$((agrees + 1))
	grep -q "^feature.node.kubernetes.io/rdma-qos.peer=agrees$" "$F" 2> /dev/null && agrees=$((agrees + 1))
	samples=$((samples + 1))
	sleep 0.1
done
wait "$RP"
check "two interleaved speakers (same MSAP and MAC, PFC 4 vs 3): never agrees in metrics or the NFD label ($agrees of $samples samples)" \
	[ "$agrees" = 0 ]
check "... over at least 40 samples" [ "$samples" -ge 40 ]
check "... the log says the MSAP changed back within its TTL (two speakers)" \
	grep -q "link partner $CH01 port swp3 changed back to what it said within its TTL" "$T/agent.log"
passes=$(($(grep -c 'pass took' "$T/agent.log") - p0))
lines=$(($(grep -c "link partner $CH01 (leaf-01) port swp3" "$T/agent.log") - l0))
check "item 7: 8 s of flips raised at most 2 passes ($passes; --interval 60)" [ "$passes" -le 2 ]
check "item 7: at most one partner-change line per TTL (3 s): $lines in 8 s" [ "$lines" -le 4 ]
check "item 7: no LLDP back-off was needed" [ "$(grep -c "LLDP events for .* keep coming" "$T/agent.log")" = 0 ]
wait_metric "rdma_qos_peer_agreement{pf=\"$PF0\",item=\"pfc\"}" 0 15
check "the copy stopped: after one TTL of the switch alone, judged again: pfc disagrees" [ $? -eq 0 ]
settle
t0=$(date +%s.%N)
sw_tlvs 0 "$PFC3" "$APP_OK" "$MFS9216"
wait_metric "rdma_qos_peer_agreement{pf=\"$PF0\",item=\"pfc\"}" 1 10
rc=$?
check "one speaker that changes PFC once (4 -> 3) is judged on the new value within one TTL (3 s): $(echo "$(date +%s.%N) - $t0" | bc | cut -c1-4) s" \
	[ $rc -eq 0 ]
check "... judged on the new value within 3.5 s" [ "$(echo "$(date +%s.%N) - $t0 < 3.5" | bc)" = 1 ]
sw_tlvs 0 "$PFC4" "$APP_OK" "$MFS9216"
wait_metric "rdma_qos_peer_agreement{pf=\"$PF0\",item=\"pfc\"}" 0 > /dev/null

echo "== issue 42 item 9: a VF given the switch's MAC does not blind the listener"
echo "$SWMAC" > "$ROOT/sys/bus/pci/devices/$VF1PCI/net/$VF1/address"
sw_tlvs 0 "$PFC3" "$APP_OK" "$MFS9216" # a change, so a pass: the own MACs are read again
wait_metric "rdma_qos_peer_agreement{pf=\"$PF0\",item=\"pfc\"}" 1 > /dev/null
sleep 5 # past leaf-01's TTL (3 s): had its frames been dropped as own, it would be forgotten
check "$VF1 with leaf-01's MAC ($SWMAC): leaf-01 still heard and judged after its TTL: seen 1, pfc agrees" \
	[ "$(metric_lit "$M" "rdma_qos_peer_seen{pf=\"$PF0\"}"):$(jq -r --arg pf "$PF0" '.pfs[$pf].partners | length' "$ROOT/run/rdma-qos/agent/peers.json"):$(agr "$PF0" pfc)" = 1:1:1 ]
check "... the log warns that the partner's MAC is also the node's" \
	grep -q "agent: PF $PF0: $SWMAC is the link partner's MAC and one of the node's own" "$T/agent.log"
echo "$VF1MAC" > "$ROOT/sys/bus/pci/devices/$VF1PCI/net/$VF1/address"
sw_tlvs 0 "$PFC4" "$APP_OK" "$MFS9216"
wait_metric "rdma_qos_peer_agreement{pf=\"$PF0\",item=\"pfc\"}" 0 > /dev/null

echo "== CEE and CIN switches (DCBX OUI 00-1B-21)"
settle
# v1.01 (subtype 2): Control (type 1, 10 bytes: oper 0, max 0, seq 7, ack 6), PFC (type 3,
# 6 bytes: oper 0, max 0, flags enable 0x80 | willing 0x40 | error 0x20, subtype 0, bitmap,
# TCs), Application (type 4: iSCSI to priority 4)
CTRL=02,0a,00,00,00,00,00,07,00,00,00,06
CEE3=$CTRL,06,06,00,00,c0,00,08,08,08,0a,00,00,80,00,0c,bc,00,00,00,10
CEE4=$CTRL,06,06,00,00,80,00,10,08
CEE3_OFF=$CTRL,06,06,00,00,40,00,08,08
CEE3_ERR=$CTRL,06,06,00,00,a0,00,08,08
CIN3=$CTRL,06,05,00,00,80,00,08 # v1.00 (subtype 1): the PFC feature is the bitmap alone
cee() { lldpc 0 unconfigure lldp custom-tlv; lldpc 0 configure lldp custom-tlv add oui 00,1b,21 subtype "$1" oui-info "$2"; lldpc 0 configure lldp custom-tlv add oui 00,12,0f subtype 4 oui-info "$MFS9216"; }
cee 2 "$CEE3"
wait_metric "rdma_qos_peer_dcbx{pf=\"$PF0\",version=\"cee\"}" 1
check "a CEE switch: rdma_qos_peer_dcbx{version=cee} 1" [ $? -eq 0 ]
wait_metric "rdma_qos_peer_agreement{pf=\"$PF0\",item=\"pfc\"}" 1 > /dev/null
check "... its PFC feature (on 3, enabled) judged as pfc: agrees; mtu agrees; no dscp2prio series (CEE has no DSCP entries)" \
	[ "$(agr "$PF0" pfc)$(agr "$PF0" mtu):$(agr "$PF0" dscp2prio)" = 11: ]
check "... peer_pfc_enabled{3} 1, peer_pfc_willing 1" \
	[ "$(metric_lit "$M" "rdma_qos_peer_pfc_enabled{pf=\"$PF0\",prio=\"3\"}")$(metric_lit "$M" "rdma_qos_peer_pfc_willing{pf=\"$PF0\"}")" = 11 ]
check "... NFD label agrees (pfc judged and agrees)" [ "$(peer_label agrees)" = 1 ]
l=$(show_line "$PF0")
check "show names the flavour: 'partner leaf-01 port swp3 (..., DCBX cee): pfc agrees, dscp2prio unknown, mtu agrees'" \
	like "$l" "  partner leaf-01 port swp3 (Ethernet to $PF0, chassis *, DCBX cee): pfc agrees, dscp2prio unknown, mtu agrees" || echo "  $l"
show_json
check "show --json: dcbx cee, the CEE PFC feature kept (enabled [3], enable, willing, no error, 8 TCs)" \
	[ "$(jq -c --arg pf "$PF0" '.pfs[] | select(.name == $pf) | .peer.partner | [.dcbx, .dcbxLegacy.version, .dcbxLegacy.pfc.enabled, .dcbxLegacy.pfc.enable, .dcbxLegacy.pfc.willing, .dcbxLegacy.pfc.error, .dcbxLegacy.pfc.tcs]' "$T/show.json")" = '["cee","cee",[3],true,true,false,8]' ]
check "show --json: dscp2prio unknown, why: 'cee DCBX has no DSCP application entries'" \
	[ "$(jq -r --arg pf "$PF0" '.pfs[] | select(.name == $pf) | "\(.peer.items.dscp2prio.verdict): \(.peer.items.dscp2prio.why)"' "$T/show.json")" = "unknown: cee DCBX has no DSCP application entries" ]
cee 2 "$CEE4"
wait_metric "rdma_qos_peer_agreement{pf=\"$PF0\",item=\"pfc\"}" 0
check "CEE PFC on 4: pfc disagrees" [ $? -eq 0 ]
l=$(show_line "$PF0")
check "show: 'pfc DISAGREES (partner cee PFC on 4, required 3)'" like "$l" "*pfc DISAGREES (partner cee PFC on 4, required 3)*" || echo "  $l"
cee 2 "$CEE3_OFF"
wait_metric "rdma_qos_peer_pfc_enabled{pf=\"$PF0\",prio=\"3\"}" 0
check "CEE PFC feature on 3 but not enabled: nothing has PFC, pfc disagrees" [ "$(agr "$PF0" pfc)" = 0 ]
# PFC on 4 before reads the same in both metrics: the new content is judged once it has stood
# alone for half a TTL (a replay guard), so wait for show to say it
for _ in $(seq 50); do
	l=$(show_line "$PF0")
	like "$l" "*partner's cee PFC feature is not enabled*" && break
	sleep 0.2
done
check "show: 'partner's cee PFC feature is not enabled'" like "$l" "*pfc DISAGREES (partner's cee PFC feature is not enabled, required 3)*" || echo "  $l"
cee 2 "$CEE3_ERR"
wait_metric "rdma_qos_peer_agreement{pf=\"$PF0\",item=\"pfc\"}" 1 > /dev/null
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show 2> /dev/null > "$T/show.txt"
check "CEE error bit: show says the partner's DCBX PFC feature reports an error" grep -q "partner's DCBX PFC feature reports an error" "$T/show.txt"
settle
cee 1 "$CIN3"
wait_metric "rdma_qos_peer_dcbx{pf=\"$PF0\",version=\"cin\"}" 1
check "a CIN switch (DCBX v1.00, subtype 1): version cin" [ $? -eq 0 ]
wait_metric "rdma_qos_peer_agreement{pf=\"$PF0\",item=\"pfc\"}" 1
check "... its PFC bitmap (on 3) judged: pfc agrees" [ $? -eq 0 ]
cee 2 "$CEE3"
lldpc 0 configure lldp custom-tlv add oui 00,80,c2 subtype 11 oui-info "$PFC4"
wait_metric "rdma_qos_peer_dcbx{pf=\"$PF0\",version=\"ieee\"}" 1
check "a partner sending IEEE (PFC on 4) and CEE (PFC on 3): version ieee, the IEEE TLV judged (pfc disagrees)" [ "$(agr "$PF0" pfc)" = 0 ]

echo "== the verdicts mean what they say"
settle
lldpc 0 unconfigure lldp custom-tlv
lldpc 0 configure lldp custom-tlv add oui 00,12,0f subtype 4 oui-info "$MFS9216"
wait_metric "rdma_qos_peer_dcbx{pf=\"$PF0\",version=\"none\"}" 1
check "a partner with only a max frame size: dcbx none, mtu agrees, no pfc series" [ "$(agr "$PF0" mtu):$(agr "$PF0" pfc)" = 1: ]
check "... the NFD label is unknown, not agrees (the MTU alone vouches for nothing lossless)" [ "$(peer_label unknown)" = 1 ]
show_json
check "show --counters word for $PF0 matches: unknown" \
	[ "$(RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --counters --json --interval 0.2 2> /dev/null | jq -r --arg pf "$PF0" '.pfs[] | select(.pf == $pf) | .partner')" = unknown ]
sw_tlvs 0 "$PFC3" 00,65,00,1a,05,00,1a,c5,00,30 23,3a # DSCP 26 -> 3 and 0, 48 -> 6; 9018
wait_metric "rdma_qos_peer_agreement{pf=\"$PF0\",item=\"pfc\"}" 1 > /dev/null
wait_metric "rdma_qos_peer_max_frame_bytes{pf=\"$PF0\"}" 9018
check "DSCP 26 mapped to 3 and 0 (ambiguous: unknown for it), 48 to 6: dscp2prio agrees, not disagrees" [ "$(agr "$PF0" dscp2prio)" = 1 ]
check "max frame 9018 under a 9000 MTU, untagged DSCP traffic (18 bytes: DA, SA, type, FCS): mtu agrees" [ "$(agr "$PF0" mtu)" = 1 ]
sw_tlvs 0 "$PFC3" 00,65,00,1a,05,00,1a 23,39 # only the ambiguous DSCP 26; 9017
wait_metric "rdma_qos_peer_max_frame_bytes{pf=\"$PF0\"}" 9017
check "only the ambiguous DSCP: no dscp2prio series (unknown); 9017: mtu disagrees" [ "$(agr "$PF0" dscp2prio):$(agr "$PF0" mtu)" = :0 ]
show_json
check "show --json: 'partner max frame 9017 bytes, MTU 9000 needs 9018'; dscp2prio why: ambiguous" \
	[ "$(jq -r --arg pf "$PF0" '.pfs[] | select(.name == $pf) | "\(.peer.items.mtu.why); \(.peer.items.dscp2prio.why)"' "$T/show.json")" = \
		"partner max frame 9017 bytes, MTU 9000 needs 9018; partner maps 1 required DSCP to several priorities" ]
settle
sw_tlvs 0 88,08 "$APP_OK" "$MFS9216" # PFC on 3, willing
wait_metric "rdma_qos_peer_pfc_willing{pf=\"$PF0\"}" 1
dcb_edit "$ROOT" "$PF0" '.dcbx = 12' # mlx5 with firmware DCBX
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show 2> /dev/null > "$T/show.txt"
check "show: the partner's willing bit with the NIC's DCBX mode (firmware: a willing NIC takes the partner's PFC)" \
	grep -q "^    partner PFC willing yes; NIC DCBX firmware: the NIC's firmware negotiates PFC with the partner" "$T/show.txt"
dcb_edit "$ROOT" "$PF0" '.dcbx = 9'
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show 2> /dev/null > "$T/show.txt"
check "show: 'partner PFC willing yes; NIC DCBX host' (the host's settings stand)" grep -q "^    partner PFC willing yes; NIC DCBX host$" "$T/show.txt"
check "the metrics file passes promtool" promcheck "$M"

echo "== issue 49 item 1: a shutdown removes the MSAP, not its memory"
# a pod replays leaf-01 (its chassis, port and source MAC) as 'leaving' (TTL 0), then its edited
# copy ('PFC on 3', a TTL of its choosing): neither a new MSAP judged at once nor a settle of the
# copy's short TTL; leaf-01 (PFC on 4) says its own every second with a TTL of 12-21 s
settle
HOLD=$((12 + RANDOM % 10))
sw_stop 0
sw_start 0 leaf-01 swp3 "$HOLD" "$PFC4" "$APP_OK" "$MFS9216"
wait_metric "rdma_qos_peer_agreement{pf=\"$PF0\",item=\"pfc\"}" 0 25
check "leaf-01 with PFC on 4, TTL $HOLD s: pfc disagrees" [ $? -eq 0 ]
CH01=$(jq -r --arg pf "$PF0" '.pfs[$pf].peer.chassisId' "$ROOT/run/rdma-qos/agent/peers.json")
{
	echo 'end=$((SECONDS + 22))'
	echo 'while [ $SECONDS -lt $end ]; do'
	echo "	python3 $T/spk.py $SWMAC $NB - mac:$CH01 local:swp3 0"
	echo "	python3 $T/spk.py $SWMAC $NB - mac:$CH01 local:swp3 \$((1 + RANDOM % 3)) 0008"
	echo '	sleep $((2 + RANDOM % 4))'
	echo 'done'
} > "$T/replay.sh"
ip netns exec "$(sw_ns 0)" bash "$T/replay.sh" &
RP=$!
am=0 al=0 ap=0 samples=0
sleep 0.5
for _ in $(seq 20); do
	[ "$(agr "$PF0" pfc)" = 1 ] && am=$((am + 1))
	grep -q "^feature.node.kubernetes.io/rdma-qos.peer=agrees$" "$F" 2> /dev/null && al=$((al + 1))
	RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --pod ai/p1 > "$T/pod.txt" 2>&1
	grep -q "^  peer  *ok " "$T/pod.txt" && ap=$((ap + 1))
	samples=$((samples + 1))
	sleep 1
done
wait "$RP"
check "shutdown + edited copy every 2-5 s: agreement pfc 1 in $am of $samples samples (want 0)" [ "$am" = 0 ]
check "... NFD label agrees in $al of $samples samples (want 0)" [ "$al" = 0 ]
check "... show --pod's peer row ok in $ap of $samples samples (want 0)" [ "$ap" = 0 ]
check "... the log says the MSAP changed back within its TTL or changes too fast" \
	grep -q "link partner $CH01 port swp3 \(changed back to what it said within its TTL\|changes faster than\)" "$T/agent.log"
wait_metric "rdma_qos_peer_agreement{pf=\"$PF0\",item=\"pfc\"}" 0 90
check "the copy stopped: leaf-01 alone is judged again: pfc disagrees" [ $? -eq 0 ]
sw_stop 0
wait_metric "rdma_qos_peer_seen{pf=\"$PF0\"}" 0 5
check "a real lldpd stop: its shutdown removes the MSAP (seen 0)" [ $? -eq 0 ]
t0=$(date +%s%N)
sw_start 0 leaf-01 swp3 "$HOLD" "$PFC4" "$APP_OK" "$MFS9216"
wait_metric "rdma_qos_peer_agreement{pf=\"$PF0\",item=\"pfc\"}" 0 5
rc=$?
check "... started again with unchanged content: judged as before at once (pfc disagrees in $((($(date +%s%N) - t0) / 1000000)) ms, no settle)" \
	[ $rc -eq 0 ]
check "... partners 1, NFD label disagrees" [ "$(metric_lit "$M" "rdma_qos_peer_partners{pf=\"$PF0\"}"):$(peer_label disagrees)" = 1:1 ]

# the house: show_peer.c calls nothing of show.c (show.c calls it), no cycle between any
# two files: tests/docs/layering.sh (make docs-test), on the objects' symbols

check "no LLDP event was backed off as a flapping source in these sections either" \
	[ "$(grep -c "LLDP events for .* keep coming" "$T/agent.log")" = 0 ]

summary
