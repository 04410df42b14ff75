#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# VFs no chain ran rdma-qos for (issue 38, DESIGN.md "VFs from Dynamic Resource
# Allocation, and VFs no chain ran for"). A VF moved into a pod's netns with
# `ip link set VF netns NS` and no CNI call, as dra-driver-sriov (standalone)
# and dranet do, for a pod kubelet's PodResources (tests/simnode/
# podres_server.py) names by its DRA device (dra-driver-sriov's name), by its
# dranet device, by its device-plugin ID, and for one it does not name:
# - report (the default): rdma_qos_vf_unchained 1 with the pod's labels (empty
#   when unknown), a line in show and show --json, nothing written (no record,
#   no class, no DCB write); a chained VF is never unchained; a PF nobody
#   watches is not looked at; ignore: nothing;
# - adopt: within 1 s of the move (the VF's link event, not the timer) the
#   record marked adopted, the namespace default's class and PF requirements,
#   rdma_qos_adoptions_total, show/top/metrics as any attachment; lossless and
#   lossy namespaces; never a pod PodResources does not name or a namespace
#   without a default; released (class restored) when the netns goes or the VF
#   comes back to the host; a chained ADD of an adopted VF takes it over.
# - one VF, one record (issue 42 item 1): a chained ADD that commits while an
#   adoption of its VF waits for the PF lock, during the adoption's
#   PodResources List, or while the chained ADD waits for the carrier without
#   the PF lock leaves one record, the chained one; later passes repair no
#   class and the VF is one series.
# - a pod-level DRA claim (dranet's examples; issue 42 item 6): PodResources
#   lists it under no container, so the pod is found from a process of the
#   VF's netns (--host-proc): its cgroup's pod UID, kubelet's pod log
#   directory NAMESPACE_NAME_UID; reported and adopted like the others.
set -u
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
unchained_can_run() {
	agent_can_run || return 1
	"$PY" -c 'import grpc, google.protobuf' 2> /dev/null || { echo "no python3-grpcio/python3-protobuf"; return 1; }
	command -v protoc > /dev/null || { echo "no protoc (protobuf-compiler)"; return 1; }
	return 0
}
sim_suite_start "agent unchained VFs" rqun unchained_can_run
AGENT_PID="" PSRV="" SLEEPER=""
suite_teardown() {
	[ -n "$AGENT_PID" ] && kill "$AGENT_PID" 2> /dev/null
	[ -n "$SLEEPER" ] && kill "$SLEEPER" 2> /dev/null
	[ -n "$PSRV" ] && kill "$PSRV" 2> /dev/null
}
M=$T/m.prom
agent() { RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent "$@"; }
show() { RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show "$@"; }

"$MKNODE" --root "$ROOT" --pfs 2 --vfs 6 --numa-nodes 2 --cpus-per-node 4 --rdma configfs \
	--ecn yes --dcb yes --counters yes --pf-prefix un$$ > /dev/null || { echo "FAIL: mknode"; exit 1; }
sim_make_vfs "$ROOT"
mapfile -t VFS < <(sim_vfs "$ROOT")
read -r PF0 VF0PCI VF0 <<< "${VFS[0]}"
for i in 1 2 3 4 5; do read -r _ "VF${i}PCI" "VF$i" <<< "${VFS[$i]}"; done
read -r PF1 VF6PCI VF6 <<< "${VFS[6]}"
dashed() { echo "$1" | tr ':.' '--'; }
SD=$(state_dir "$ROOT")
CAT=$ROOT/etc/cni/rdma-qos/profiles.json
catalog() { # UNCHAINED
	mkdir -p "$(dirname "$CAT")"
	cat > "$CAT" << EOF
{"profiles": {"lossy": {"trafficClass": 0}},
 "namespaces": {"ai": {"default": "roce-lossless", "allow": ["roce-lossless", "lossy"]},
                "batch": {"default": "lossy", "allow": ["lossy"]},
                "nodefault": {"allow": ["lossy"]}},
 "node": {"unchained": "$1"}}
EOF
}
catalog report

# kubelet's PodResources: each VF's pod as its allocator names it
mkdir -p "$T/pb" && protoc --python_out="$T/pb" -I"$RQ_SRC/pkg/podres" "$RQ_SRC/pkg/podres/api.proto" ||
	{ echo "FAIL: protoc"; exit 1; }
"$MKNODE" --root "$ROOT" pod --uid u-dp --cpus 0-1 --device "intel.com/sriov_rdma=$VF1PCI@0" > /dev/null
"$MKNODE" --root "$ROOT" pod --uid u-lossy --cpus 2 --device "intel.com/sriov_rdma=$VF5PCI@0" > /dev/null
"$MKNODE" --root "$ROOT" pod --uid u-nodef --cpus 3 --device "intel.com/sriov_rdma=$VF4PCI@0" > /dev/null
psrv_start() {
	: > "$T/psrv.log"
	"$PY" "$RQ_SRC/tests/simnode/podres_server.py" --root "$ROOT" --pb "$T/pb" --mode 1.34 \
		--pod ai/dp-pod=u-dp --pod ai/dra-pod=u-dra --pod ai/dranet-pod=u-dranet \
		--pod batch/lossy-pod=u-lossy --pod nodefault/nd-pod=u-nodef \
		--pod ai/pl-pod="$PLUID" --dra "${DRA2:-u-dra=sriovnetwork.k8snetworkplumbingwg.io/node-a/$(dashed "$VF2PCI")}" \
		--dra "u-dranet=dra.net/node-a/pci-$(dashed "$VF3PCI")" --gate "$T/gate" --gate-ms 9000 > "$T/psrv.log" 2>&1 &
	PSRV=$!
	for _ in $(seq 100); do grep -q ready "$T/psrv.log" && return 0; sleep 0.1; done
	echo "FAIL: podres server did not start: $(cat "$T/psrv.log")"
	exit 1
}
mkdir -p "$T/gate"
PLUID=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 # a pod whose claim no container names
psrv_start

rq() { echo "{\"type\":\"rdma-qos\",\"deviceID\":\"$1\"}"; }
NSA=$(newns a)
chain_add "$ROOT" roce c0 "$NSA" net1 "$VF0" "$(rq "$VF0PCI")" \
	"IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=chained;K8S_POD_UID=u-ch" > /dev/null
check "chained ADD of VF0 (PF $PF0 watched from now on)" [ $? -eq 0 ]
DEV0=$(rdma_of "$ROOT" "$VF0PCI")
# move VF into the pod netns NS as a DRA driver does: no CNI chain, no rename, no alias
move() { ip link set "$1" netns "$NS_PREFIX$2"; }
NSB=$(newns b) NSC=$(newns c) NSD=$(newns d) NSE=$(newns e)
move "$VF1" b # the device plugin's pod
move "$VF2" c # dra-driver-sriov's
move "$VF3" d # dranet's
move "$VF6" e # a VF of PF1, which nobody watches
NSG=$(newns g)
move "$VF4" g # the pod's namespace has no default
ser() { metric_lit "$M" "rdma_qos_vf_unchained{vf=\"$1\",pf=\"$2\",rdma_dev=\"$3\",namespace=\"$4\",pod=\"$5\"}"; }
tos() { cat "$(tos_file "$ROOT" "$(rdma_of "$ROOT" "$1")")"; }

echo "== report (the default): metric, show, nothing written"
W0=$(dcb_writes "$ROOT" "$PF0")
NREC0=$(ls "$SD"/*.json | wc -l)
agent --once --metrics-file "$M" 2> "$T/log"
check "agent --once exits 0" [ $? -eq 0 ]
check "promtool accepts the metrics" promcheck "$M"
check "family rdma_qos_vf_unchained has HELP and TYPE" grep -q '^# TYPE rdma_qos_vf_unchained gauge' "$M"
check "family rdma_qos_adoptions_total has HELP and TYPE" grep -q '^# TYPE rdma_qos_adoptions_total counter' "$M"
D1=$(rdma_of "$ROOT" "$VF1PCI") D2=$(rdma_of "$ROOT" "$VF2PCI") D3=$(rdma_of "$ROOT" "$VF3PCI") D4=$(rdma_of "$ROOT" "$VF4PCI")
check "VF1 unchained, pod ai/dp-pod (device-plugin ID)" [ "$(ser "$VF1PCI" "$PF0" "$D1" ai dp-pod)" = 1 ]
check "VF2 unchained, pod ai/dra-pod (dra-driver-sriov device)" [ "$(ser "$VF2PCI" "$PF0" "$D2" ai dra-pod)" = 1 ]
check "VF3 unchained, pod ai/dranet-pod (dranet device)" [ "$(ser "$VF3PCI" "$PF0" "$D3" ai dranet-pod)" = 1 ]
check "VF4 unchained, pod nodefault/nd-pod" [ "$(ser "$VF4PCI" "$PF0" "$D4" nodefault nd-pod)" = 1 ]
check "exactly 4 unchained series (not the chained VF0, not PF1's VF6)" [ "$(grep -c '^rdma_qos_vf_unchained{' "$M")" = 4 ]
check "the chained VF0 is never unchained" [ "$(grep -c "^rdma_qos_vf_unchained{vf=\"$VF0PCI\"" "$M")" = 0 ]
check "a VF of an unwatched PF is not looked at" [ "$(grep -c "^rdma_qos_vf_unchained{vf=\"$VF6PCI\"" "$M")" = 0 ]
check "logged at warn, naming the pod" grep -q "VF $VF2PCI of PF $PF0 is in netns /run/netns/${NS_PREFIX}c .*pod ai/dra-pod" "$T/log"
check "no record written" [ "$(ls "$SD"/*.json | wc -l)" = "$NREC0" ]
check "no DCB write" [ "$(dcb_writes "$ROOT" "$PF0")" = "$W0" ]
check "VF1's class untouched (0)" [ "$(tos "$VF1PCI")" = 0 ]
# a pod PodResources does not name: its labels empty
NSF=$(newns f)
move "$VF5" f
"$MKNODE" --root "$ROOT" pod --uid u-other --cpus 3 > /dev/null
agent --once --metrics-file "$M" 2> "$T/log"
D5=$(rdma_of "$ROOT" "$VF5PCI")
check "VF5 (PodResources names it for batch/lossy-pod) labelled" [ "$(ser "$VF5PCI" "$PF0" "$D5" batch lossy-pod)" = 1 ]
show > "$T/show.txt" 2>&1
check "show: a line per unchained VF" [ "$(grep -c '^UNCHAINED VF' "$T/show.txt")" = 5 ]
check "show: VF2's line names its pod and how" grep -q "^UNCHAINED VF $VF2PCI of PF $PF0 in netns /run/netns/${NS_PREFIX}c (interface $VF2, rdma $D2): pod ai/dra-pod (PodResources: dra-driver-sriov)" "$T/show.txt"
show --json > "$T/show.json"
check "show --json: unchained lists VF1 with its pod" [ "$(jq -r --arg v "$VF1PCI" '.unchained[] | select(.vf == $v) | "\(.namespace)/\(.pod) \(.namedBy)"' "$T/show.json")" = "ai/dp-pod device-plugin" ]
check "show --json: the chained VF0 is an attachment, not unchained" [ "$(jq --arg v "$VF0PCI" '[.unchained[] | select(.vf == $v)] | length' "$T/show.json")" = 0 ]
show --pod ai/dp-pod > "$T/pod.txt" 2>&1
{ [ $? -eq 1 ] && head -1 "$T/pod.txt" | grep -q "^lossless: NO (unchained"; }; check "show --pod of an unchained VF's pod: exit 1, lossless: NO (unchained ...)" [ $? -eq 0 ]
check "... the VF's line says UNCHAINED" grep -q "^ai/dp-pod $VF1: UNCHAINED: VF $VF1PCI of PF $PF0 is in the pod" "$T/pod.txt"

echo "== a pod PodResources does not name: reported with empty pod labels"
# u-lossy's device entry removed: nobody names VF5 now
jq -c --arg v "$VF5PCI" '.Data.PodDeviceEntries |= map(select((.DeviceIDs | tostring | contains($v)) | not))' \
	"$ROOT/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint" > "$T/ck" &&
	cp "$T/ck" "$ROOT/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint"
agent --once --metrics-file "$M" 2> "$T/log"
check "VF5 unchained with empty pod labels" [ "$(ser "$VF5PCI" "$PF0" "$D5" "" "")" = 1 ]
show > "$T/show.txt" 2>&1
check "show: VF5's pod unknown, and why" grep -q "^UNCHAINED VF $VF5PCI .*pod unknown (no pod's resources name it)" "$T/show.txt"

echo "== ignore: nothing"
catalog ignore
agent --once --metrics-file "$M" 2> "$T/log"
check "node.unchained ignore: no series" [ "$(grep -c '^rdma_qos_vf_unchained{' "$M")" = 0 ]
show > "$T/show.txt" 2>&1
check "node.unchained ignore: no line in show" [ "$(grep -c '^UNCHAINED' "$T/show.txt")" = 0 ]
catalog report

echo "== a background agent: the move raises a pass (not the timer)"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --interval 3600 --metrics-file "$M" 2> "$T/bg.log" &
AGENT_PID=$!
for _ in $(seq 100); do grep -q 'pass took\|listening for rtnetlink' "$T/bg.log" && [ -s "$M" ] && break; sleep 0.1; done
sleep 0.5
ip -n "$NS_PREFIX"b link set "$VF1" netns 1 # VF1 back in the host
T0=$(date +%s.%N)
ok=""
for _ in $(seq 50); do
	[ "$(grep -c "^rdma_qos_vf_unchained{vf=\"$VF1PCI\"" "$M")" = 0 ] && { ok=1; break; }
	sleep 0.05
done
check "VF1 back in the host: no longer unchained, by its link event (interval 3600 s)" [ -n "$ok" ]
move "$VF1" b
ok=""
for _ in $(seq 50); do
	[ "$(ser "$VF1PCI" "$PF0" "$D1" ai dp-pod)" = 1 ] && { ok=1; break; }
	sleep 0.05
done
T1=$(date +%s.%N)
check "VF1 into the pod again: unchained again within 2.5 s ($(echo "$T1 - $T0" | bc) s for both moves)" [ -n "$ok" ]
kill "$AGENT_PID"; wait "$AGENT_PID" 2> /dev/null; AGENT_PID=""

echo "== adopt: ADD's steps for the pod PodResources names, with its namespace's default"
# VF5's pod named again (batch/lossy-pod: the namespace's default is lossy)
"$MKNODE" --root "$ROOT" pod --uid u-lossy --cpus 2 --device "intel.com/sriov_rdma=$VF5PCI@0" > /dev/null
catalog adopt
W0=$(dcb_writes "$ROOT" "$PF0")
agent --once --metrics-file "$M" 2> "$T/log"
check "agent --once exits 0" [ $? -eq 0 ]
adopted_rec() { jq -r --arg v "$1" 'select(.vf == $v and .adopted == true and (has("pending") | not)) | input_filename' "$SD"/*.json 2> /dev/null | head -1; }
for v in 1 2 3; do
	pci=VF${v}PCI
	R=$(adopted_rec "${!pci}")
	check "VF$v adopted: a record marked adopted" [ -n "$R" ]
	check "VF$v: roce-lossless (ai's default), class 106 set" \
		[ "$(jq -r .profileName "$R" 2> /dev/null)/$(tos "${!pci}")" = "roce-lossless/106" ]
done
R1=$(adopted_rec "$VF1PCI")
check "VF1's record: pod ai/dp-pod, its netns and interface" \
	[ "$(jq -r '"\(.podNamespace)/\(.podName) \(.netns) \(.ifname)"' "$R1")" = "ai/dp-pod $NSB $VF1" ]
check "VF1's record: the NUMA verdict (reported, never refused: $(jq -r '"\(.numaVerdict) \(.numaSource)"' "$R1"))" [ "$(jq -r .numaVerdict "$R1")" = aligned ]
check "VF1's record: listed in PF $PF0's index" grep -q "$(basename "$R1" .json)" "$SD/pf/$(basename "$(readlink -f "$ROOT/sys/class/net/$PF0/device")").json"
R5=$(adopted_rec "$VF5PCI")
check "VF5 adopted in a lossy namespace (batch: profile lossy, class 0)" \
	[ "$(jq -r .profileName "$R5" 2> /dev/null)/$(tos "$VF5PCI")" = "lossy/0" ]
check "VF4 (namespace nodefault has no default) not adopted" [ -z "$(adopted_rec "$VF4PCI")" ]
check "VF4 still reported unchained" [ "$(ser "$VF4PCI" "$PF0" "$D4" nodefault nd-pod)" = 1 ]
check "VF4: the log says why (no default profile)" grep -q "VF $VF4PCI .*not adopted: .*has no default" "$T/log"
check "rdma_qos_adoptions_total{pf=$PF0} 4" [ "$(metric_lit "$M" "rdma_qos_adoptions_total{pf=\"$PF0\"}")" = 4 ]
check "only VF4 unchained now" [ "$(grep -c '^rdma_qos_vf_unchained{' "$M")" = 1 ]
check "metrics: 4 roce-lossless attachments on $PF0 (VF0 chained, 3 adopted)" \
	[ "$(metric "$M" "rdma_qos_attachments{pf=\"$PF0\",profile=\"roce-lossless\"}")" = 4 ]
check "metrics: VF2's class as any attachment's" \
	[ "$(metric "$M" "rdma_qos_vf_traffic_class{vf=\"$VF2PCI\",rdma_dev=\"$D2\",knob=\"configfs\"}")" = 106 ]
check "metrics: VF1 in its pod" [ "$(metric "$M" "rdma_qos_vf_in_pod{namespace=\"ai\",pod=\"dp-pod\",vf=\"$VF1PCI\"}")" = 1 ]
check "metrics: adopted VF1's verdict, lossless 1" [ "$(metric "$M" "rdma_qos_attachment_lossless{namespace=\"ai\",pod=\"dp-pod\",interface=\"$VF1\",vf=\"$VF1PCI\",pf=\"$PF0\"}")" = 1 ]
show --pod ai/dp-pod > "$T/pod.txt" 2>&1
{ [ $? -eq 0 ] && head -1 "$T/pod.txt" | grep -q "^lossless: yes" && grep -q "^ai/dp-pod $VF1: VF $VF1PCI of PF $PF0, profile roce-lossless (adopted): lossless: yes" "$T/pod.txt"; }; check "show --pod ai/dp-pod: exit 0, its adopted attachment lossless" [ $? -eq 0 ]
check "telemetry: VF3's counters labelled with its pod" grep -q "^rdma_qos_vf_.*namespace=\"ai\",pod=\"dranet-pod\"" "$M"
check "the chained VF0 keeps its one record" [ "$(jq -r --arg v "$VF0PCI" 'select(.vf == $v) | .vf' "$SD"/*.json | wc -l)" = 1 ]
W1=$(dcb_writes "$ROOT" "$PF0")
agent --once --metrics-file "$M" 2> "$T/log"
check "a second pass adopts nothing more, writes no DCB" [ "$(metric_lit "$M" "rdma_qos_adoptions_total{pf=\"$PF0\"}")" = "" ]
check "... no DCB write in the second pass" [ "$(dcb_writes "$ROOT" "$PF0")" = "$W1" ]
show --json > "$T/show.json"
check "show --json: VF1's attachment adopted" [ "$(jq -r --arg v "$VF1PCI" '.pfs[].vfs[] | select(.pci == $v) | .attachment.adopted' "$T/show.json")" = true ]
check "show --json: VF0's attachment not adopted" [ "$(jq -r --arg v "$VF0PCI" '.pfs[].vfs[] | select(.pci == $v) | .attachment.adopted // false' "$T/show.json")" = false ]
show > "$T/show.txt" 2>&1
check "show: VF1's line says adopted" grep -q "VF $VF1PCI .*ai/dp-pod profile roce-lossless (adopted)" "$T/show.txt"
check "show --counters (top's frame) lists it as any attachment" bash -c "RDMA_QOS_SIM_ROOT=$ROOT $SIM show --counters --json 2>&1 | grep -q dp-pod"

echo "== release: the VF back in the host, the netns gone (class restored)"
ip -n "$NS_PREFIX"d link set "$VF3" netns 1
agent --once --metrics-file "$M" 2> "$T/log"
check "VF3 back in the host: its adoption released" [ -z "$(adopted_rec "$VF3PCI")" ]
check "VF3's class restored (0)" [ "$(tos "$VF3PCI")" = 0 ]
check "the release is logged" grep -q "adopted VF $VF3PCI left pod ai/dranet-pod" "$T/log"
check "VF3 in the host is not unchained" [ "$(grep -c "^rdma_qos_vf_unchained{vf=\"$VF3PCI\"" "$M")" = 0 ]
R2=$(adopted_rec "$VF2PCI")
pod_netns_gone "$NS_PREFIX"c
agent --once --metrics-file "$M" 2> "$T/log"
check "VF2's netns gone: its adoption released at once (no grace: no DEL will come)" [ ! -e "$R2" ]
check "VF2's class restored (0)" [ "$(tos "$VF2PCI")" = 0 ]
sim_make_vfs "$ROOT"

echo "== a chained ADD of an adopted VF takes it over"
R1=$(adopted_rec "$VF1PCI")
out=$(conf_for roce 1.0.0 "$(rq "$VF1PCI")" '{"cniVersion":"1.0.0","interfaces":[{"name":"'"$VF1"'","sandbox":"'"$NSB"'"}]}' |
	RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD cb "$NSB" "$VF1" \
		"IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=dp-pod;K8S_POD_UID=u-dp" 2> "$T/add.log")
check "the chained ADD succeeds" [ $? -eq 0 ]
check "the adopted record is gone" [ ! -e "$R1" ]
check "the chained record holds VF1, not adopted" [ "$(jq -r .adopted "$SD/roce_cb_$VF1.json" 2> /dev/null)" = null ]
check "the ADD logs the take-over" grep -q "was adopted by the agent for ai/dp-pod: this ADD takes it over" "$T/add.log"
agent --once --metrics-file "$M" 2> "$T/log"
check "the agent does not adopt it again" [ -z "$(adopted_rec "$VF1PCI")" ]
conf_for roce 1.0.0 "$(rq "$VF1PCI")" | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" DEL cb "$NSB" "$VF1" \
	"IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=dp-pod;K8S_POD_UID=u-dp" 2> /dev/null
check "its DEL restores the class the adoption found (0)" [ "$(tos "$VF1PCI")" = 0 ]

echo "== adoption latency: from ip link set to the record (the VF's link event)"
ip -n "$NS_PREFIX"b link set "$VF1" netns 1
agent --once --metrics-file "$M" 2> /dev/null
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --interval 3600 --metrics-file "$M" 2> "$T/bg.log" &
AGENT_PID=$!
for _ in $(seq 100); do [ -s "$M" ] && grep -q 'listening for rtnetlink' "$T/bg.log" && break; sleep 0.1; done
sleep 0.5
LAT=()
for round in 1 2 3; do
	T0=$(date +%s%N)
	move "$VF1" b
	R=""
	for _ in $(seq 400); do R=$(adopted_rec "$VF1PCI"); [ -n "$R" ] && break; sleep 0.005; done
	T1=$(date +%s%N)
	LAT+=("$(((T1 - T0) / 1000000))")
	check "round $round: adopted within 1 s of the move ($(((T1 - T0) / 1000000)) ms)" [ -n "$R" ]
	check "round $round: ... within 1 s" [ $((T1 - T0)) -lt 1000000000 ]
	ip -n "$NS_PREFIX"b link set "$VF1" netns 1
	for _ in $(seq 400); do [ -z "$(adopted_rec "$VF1PCI")" ] && break; sleep 0.005; done
	check "round $round: released when it came back (its link event)" [ -z "$(adopted_rec "$VF1PCI")" ]
done
echo "adoption latency (ms): ${LAT[*]}"
kill "$AGENT_PID"; wait "$AGENT_PID" 2> /dev/null; AGENT_PID=""


echo "== a pod-level DRA claim: the pod from a process of the VF's netns"
kill "$PSRV"; wait "$PSRV" 2> /dev/null
DRA2="$PLUID=dra.net/node-a/pci-$(dashed "$VF2PCI")+pod"
psrv_start
NSP=$(newns p)
move "$VF2" p
ip netns exec "${NS_PREFIX}p" sleep 600 &
SLEEPER=$!
# the host's /proc as --host-proc shows it: the pod's process, its cgroup (systemd driver)
HP=$T/hostproc
mkdir -p "$HP/$SLEEPER/ns" "$HP/2" && echo kthreadd > "$HP/2/comm"
for _ in $(seq 100); do same "$(readlink "/proc/$SLEEPER/ns/net")" "$(ip netns exec "${NS_PREFIX}p" readlink /proc/self/ns/net)" && break; sleep 0.05; done
ln -s "/proc/$SLEEPER/ns/net" "$HP/$SLEEPER/ns/net"
echo "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${PLUID//-/_}.slice/cri-containerd-0a1b.scope" > "$HP/$SLEEPER/cgroup"
mkdir -p "$ROOT/var/log/pods/ai_pl-pod_$PLUID" "$ROOT/var/log/pods/ai_other_11111111-2222-3333-4444-555555555555"
D2=$(rdma_of "$ROOT" "$VF2PCI")
catalog report
agent --once --host-proc "$HP" --metrics-file "$M" 2> "$T/pl.log"
check "report: VF2 unchained, pod ai/pl-pod (no PodResources container names it)" [ "$(ser "$VF2PCI" "$PF0" "$D2" ai pl-pod)" = 1 ]
show --host-proc "$HP" > "$T/show.txt" 2>&1
check "show: VF2's pod and how it was found" grep -q "^UNCHAINED VF $VF2PCI .*pod ai/pl-pod (its netns's processes" "$T/show.txt"
catalog adopt
agent --once --host-proc "$HP" --metrics-file "$M" 2> "$T/pl.log"
R=$(adopted_rec "$VF2PCI")
check "adopt: VF2 adopted for ai/pl-pod, roce-lossless (ai's default), class 106" \
	[ "$(jq -r '"\(.podNamespace)/\(.podName) \(.profileName)"' "$R" 2> /dev/null)/$(tos "$VF2PCI")" = "ai/pl-pod roce-lossless/106" ]
check "adopt: the log says how the pod was found" grep -q "adopted VF $VF2PCI .*pod ai/pl-pod .*named by pod-netns" "$T/pl.log"
# without its pod log directory the UID names no pod: reported, pod unknown, saying why
ip -n "${NS_PREFIX}p" link set "$VF2" netns 1
agent --once --host-proc "$HP" --metrics-file "$M" 2> /dev/null
rmdir "$ROOT/var/log/pods/ai_pl-pod_$PLUID"
move "$VF2" p
agent --once --host-proc "$HP" --metrics-file "$M" 2> "$T/pl.log"
check "no pod log directory: VF2 not adopted" [ -z "$(adopted_rec "$VF2PCI")" ]
check "... reported unchained, pod unknown" [ "$(ser "$VF2PCI" "$PF0" "$D2" "" "")" = 1 ]
check "... the log says why (the UID, no directory)" grep -q "VF $VF2PCI .*pod $PLUID of its netns has no directory in /var/log/pods" "$T/pl.log"
kill "$SLEEPER"; wait "$SLEEPER" 2> /dev/null; SLEEPER=""
ip -n "${NS_PREFIX}p" link set "$VF2" netns 1

echo "== one VF, one record: a chained ADD racing an adoption of its VF"
PAUSE=$T/pause
# wait_file FILE: up to 10 s
wait_file() { for _ in $(seq 200); do [ -e "$1" ] && return 0; sleep 0.05; done; return 1; }
# chained_add CID NS_PATH VF VFPCI POD UID: rdma-qos's ADD after host-device moved the VF
chained_add() {
	conf_for roce 1.0.0 "$(rq "$4")" '{"cniVersion":"1.0.0","interfaces":[{"name":"'"$3"'","sandbox":"'"$2"'"}]}' |
		RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD "$1" "$2" "$3" \
			"IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=$5;K8S_POD_UID=$6"
}
chained_del() {
	conf_for roce 1.0.0 "$(rq "$4")" | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" DEL "$1" "$2" "$3" \
		"IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=$5;K8S_POD_UID=$6" 2> /dev/null
}
# one_record WHAT CID VFPCI: exactly one record of the VF, the chained CID's; two more
# passes repair no class and adopt nothing; the VF is one series
one_record() {
	local what=$1 cid=$2 pci=$3 recs
	recs=$(jq -r --arg v "$pci" 'select(.vf == $v) | "\(.containerID) \(.adopted // false) \(has("pending"))"' "$SD"/*.json 2> /dev/null)
	check "$what: exactly one record of VF $pci, the chained one ($(echo $recs))" [ "$recs" = "$cid false false" ]
	for i in 1 2; do
		agent --once --metrics-file "$M" 2> "$T/one$i.log"
		check "$what: pass $i repairs no class of the VF" [ "$(grep -c "VF $pci .*repaired traffic_class" "$T/one$i.log")" = 0 ]
		check "$what: pass $i adopts nothing" [ "$(grep -c "adopted VF $pci" "$T/one$i.log")" = 0 ]
	done
	check "$what: the VF counts once (rdma_qos_vf_in_pod)" [ "$(grep -c "^rdma_qos_vf_in_pod{.*vf=\"$pci\"" "$M")" = 1 ]
	check "$what: the VF counts once (rdma_qos_vf_traffic_class)" [ "$(grep -c "^rdma_qos_vf_traffic_class{vf=\"$pci\"" "$M")" = 1 ]
	check "$what: class 106, the NAD's profile" [ "$(tos "$pci")" = 106 ]
	check "$what: the VF is not unchained" [ "$(grep -c "^rdma_qos_vf_unchained{vf=\"$pci\"" "$M")" = 0 ]
}

# clean_vf WHAT VF VFPCI NS: the VF back in the host, a pass (which releases an adoption left
# beside), no record of it: each case starts clean, so one's failure does not stage the next
clean_vf() {
	ip -n "$NS_PREFIX$4" link set "$2" netns 1
	agent --once --metrics-file "$M" 2> /dev/null
	check "$1: after DEL and the VF's return to the host, no record of it left" \
		[ -z "$(jq -r --arg v "$3" 'select(.vf == $v) | .vf' "$SD"/*.json 2> /dev/null)" ]
}

# (b) the chained ADD commits during the adoption's PodResources List
move "$VF3" d
mkdir -p "$T/gate" && touch "$T/gate/hold"
RDMA_QOS_SIM_PODRES_MS=10000 agent --once --metrics-file "$M" 2> "$T/b.log" &
AP=$!
wait_file "$T/gate/listing"
check "(b) the agent's scan is in its PodResources List" [ -e "$T/gate/listing" ]
chained_add rb "$NSD" "$VF3" "$VF3PCI" dranet-pod u-dranet > /dev/null 2> "$T/b_add.log"
rc=$?
check "(b) the chained ADD committed (rc $rc)" [ $rc -eq 0 ]
check "(b) ... during the List (the agent still in it)" [ -e "$T/gate/listing" ]
touch "$T/gate/go"
wait "$AP"
check "(b) the adoption found the chained record and rolled back" grep -q "VF $VF3PCI of PF $PF0: VF $VF3PCI has a record now" "$T/b.log"
one_record "(b)" rb "$VF3PCI"
chained_del rb "$NSD" "$VF3" "$VF3PCI" dranet-pod u-dranet
check "(b) its DEL restores class 0" [ "$(tos "$VF3PCI")" = 0 ]
clean_vf "(b)" "$VF3" "$VF3PCI" d

# (a) the chained ADD commits while the adoption waits for the PF lock: the ADD holds it
# (paused after its intent), the adoption's List returns, it waits; then the ADD commits.
move "$VF3" d
rm -rf "$PAUSE" && mkdir -p "$PAUSE" && touch "$T/gate/hold"
RDMA_QOS_SIM_PODRES_MS=10000 agent --once --metrics-file "$M" 2> "$T/a.log" &
AP=$!
wait_file "$T/gate/listing"
RDMA_QOS_SIM_PAUSE=add-pending:$PAUSE chained_add ra "$NSD" "$VF3" "$VF3PCI" dranet-pod u-dranet > /dev/null 2> "$T/a_add.log" &
CP=$!
wait_file "$PAUSE/paused"
check "(a) the chained ADD holds the PF lock (paused after its intent)" [ -e "$PAUSE/paused" ]
check "(a) ... during the List (the agent still in it)" [ -e "$T/gate/listing" ]
touch "$T/gate/go"
sleep 1
check "(a) the adoption waits for the PF lock" kill -0 "$AP"
touch "$PAUSE/go"
wait "$CP"; rc=$?
wait "$AP"
check "(a) the chained ADD succeeds (rc $rc)" [ $rc -eq 0 ]
check "(a) the adoption found the chained record and rolled back" grep -q "VF $VF3PCI of PF $PF0: VF $VF3PCI has a record now" "$T/a.log"
one_record "(a)" ra "$VF3PCI"
chained_del ra "$NSD" "$VF3" "$VF3PCI" dranet-pod u-dranet
clean_vf "(a)" "$VF3" "$VF3PCI" d

# (c) the adoption commits while the chained ADD waits for the carrier without the PF lock:
# taken again, the ADD finds the adopted holder and takes it over
move "$VF1" b
jq '.pfc = [] | .flapMs = 300' "$ROOT/dcb/$PF0.json" > "$T/d" && cp "$T/d" "$ROOT/dcb/$PF0.json"
echo 1 > "$ROOT/sys/class/net/$PF0/carrier"; echo 0 > "$ROOT/sys/class/net/$PF0/carrier_changes"
rm -rf "$PAUSE" && mkdir -p "$PAUSE"
RDMA_QOS_SIM_PAUSE=add-carrier:$PAUSE chained_add rc "$NSB" "$VF1" "$VF1PCI" dp-pod u-dp > /dev/null 2> "$T/c_add.log" &
CP=$!
wait_file "$PAUSE/paused"
check "(c) the chained ADD waits for the carrier without the PF lock" [ -e "$PAUSE/paused" ]
agent --once --metrics-file "$M" 2> "$T/c.log"
check "(c) meanwhile the agent adopts the VF" grep -q "adopted VF $VF1PCI" "$T/c.log"
touch "$PAUSE/go"
wait "$CP"; rc=$?
check "(c) the chained ADD succeeds (rc $rc)" [ $rc -eq 0 ]
check "(c) it takes the adopted holder over" grep -q "VF $VF1PCI was adopted by the agent for ai/dp-pod: this ADD takes it over" "$T/c_add.log"
one_record "(c)" rc "$VF1PCI"
chained_del rc "$NSB" "$VF1" "$VF1PCI" dp-pod u-dp
check "(c) its DEL restores the class the adoption found (0)" [ "$(tos "$VF1PCI")" = 0 ]
clean_vf "(c)" "$VF1" "$VF1PCI" b
rm -f "$ROOT/sys/class/net/$PF0/carrier" "$ROOT/sys/class/net/$PF0/carrier_changes"

summary
