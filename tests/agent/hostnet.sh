#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Host-network pods on a shared RDMA device (issue 50 item 4, DESIGN.md "Shared
# RDMA devices"): no CNI runs for them; the catalog's node.sharedResources maps
# the shared device plugin's resource (rdma/hca_shared_devices_a, device IDs
# "0", "1" that name no device) to the PF, and kubelet's PodResources List
# (tests/simnode/podres_server.py, as kubelet 1.34, 1.27-1.33 and 1.26 answer
# it) names the pods that hold it. The agent:
# - finds such a pod with no attachment record (not one that has a record,
#   not one holding another resource), under every kubelet version's List;
# - judges it under its namespace's default profile with the attachments'
#   families (rdma_qos_attachment_lossless/_problem, interface="", vf="",
#   pf the PF), the PF verified against the profile and never written;
#   show --pod names the shared device and the checks;
# - with hostPID (the test's own PID namespace, the initial one) and without
#   (the agent and show in a PID namespace of their own, unshare --pid, as a
#   pod without hostPID): show --pod says, without it, that the pod's QPs
#   cannot be told from the host's; with it the pod's QPs are its device's census's,
#   attributed by cgroup (show --qps, the qps check);
# - a namespace without a default: listed by show --pod, no verdict, no series;
# - the pod gone from List: no series, show --pod exit 2.
set -u
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
hostnet_can_run() {
	agent_can_run || return 1
	"$PY" -c 'import grpc, google.protobuf' 2> /dev/null || { echo "no python3-grpcio/python3-protobuf"; return 1; }
	command -v protoc > /dev/null || { echo "no protoc (protobuf-compiler)"; return 1; }
	command -v unshare > /dev/null || { echo "no unshare (util-linux)"; return 1; }
	return 0
}
sim_suite_start "agent host-network pods" rqhn hostnet_can_run
PSRV=""
suite_teardown() { [ -n "$PSRV" ] && kill "$PSRV" 2> /dev/null; }
M=$T/m.prom
agent() { RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent "$@"; }
rqs() { RDMA_QOS_SIM_ROOT=$ROOT "$SIM" "$@"; }
# the same, in a PID namespace of its own: a pod without hostPID
nopid() { unshare --pid --fork --mount-proc env RDMA_QOS_SIM_ROOT="$ROOT" "$SIM" "$@"; }

"$MKNODE" --root "$ROOT" --pfs 1 --vfs 2 --numa-nodes 2 --cpus-per-node 4 --rdma configfs \
	--ecn yes --dcb yes --pf-rdma yes --pf-prefix hn$$ > /dev/null || { echo "FAIL: mknode"; exit 1; }
sim_make_vfs "$ROOT"
mapfile -t VFS < <(sim_vfs "$ROOT")
read -r PF0 VF0PCI VF0 <<< "${VFS[0]}"
PF0PCI=$(basename "$(readlink "$ROOT/sys/class/net/$PF0/device")")
SDEV=$(rdma_of "$ROOT" "$PF0PCI")
CAT=$ROOT/etc/cni/rdma-qos/profiles.json
mkdir -p "${CAT%/*}"
catalog() { # BASELINE-JSON-FRAGMENT
	cat > "$CAT" << EOF
{"profiles": {"lossy": {"trafficClass": 0}},
 "namespaces": {"ai": {"default": "roce-lossless", "allow": ["roce-lossless", "lossy"]},
                "nodef": {"allow": ["lossy"]}},
 "node": {"sharedResources": {"rdma/hca_shared_devices_a": ["$PF0"]}$1}}
EOF
}
catalog ""
check "validate accepts node.sharedResources" rqs validate "$CAT"
echo '{"node": {"sharedResources": {"rdma/a": ["ens1f0", 3]}}}' > "$T/bad.json"
rqs validate "$T/bad.json" > "$T/v.out" 2>&1
{ [ $? -ne 0 ] && grep -q 'node.sharedResources\["rdma/a"\]\[1\]: expected a netdev name' "$T/v.out"; }
check "validate refuses a bad entry, naming its JSON path" [ $? -eq 0 ]

# kubelet: the host-network pod holds shared device "0", a second one in a namespace without
# a default "1", a VF pod holds "2" and has a record, a fourth holds another resource only
HNUID=6f0c1e2a-3b4c-4d5e-8f70-0123456789ab
"$MKNODE" --root "$ROOT" pod --uid "$HNUID" --cpus 0-1 --device "rdma/hca_shared_devices_a=0" > /dev/null
"$MKNODE" --root "$ROOT" pod --uid u-nd --cpus 2 --device "rdma/hca_shared_devices_a=1" > /dev/null
"$MKNODE" --root "$ROOT" pod --uid u-vf --cpus 3 --device "rdma/hca_shared_devices_a=2" > /dev/null
"$MKNODE" --root "$ROOT" pod --uid u-gpu --cpus 4 --device "nvidia.com/gpu=GPU-1" > /dev/null
# kubelet's pod log directories NAMESPACE_NAME_UID: the pod's UID
mkdir -p "$ROOT/var/log/pods/ai_hn-pod_$HNUID" "$ROOT/var/log/pods/ai_vf-pod_u-vf"
mkdir -p "$T/pb" && protoc --python_out="$T/pb" -I"$RQ_SRC/pkg/podres" "$RQ_SRC/pkg/podres/api.proto" ||
	{ echo "FAIL: protoc"; exit 1; }
psrv_start() { # MODE
	[ -n "$PSRV" ] && { kill "$PSRV"; wait "$PSRV" 2> /dev/null; }
	: > "$T/psrv.log"
	"$PY" "$RQ_SRC/tests/simnode/podres_server.py" --root "$ROOT" --pb "$T/pb" --mode "$1" \
		--pod ai/hn-pod="$HNUID" --pod nodef/nd-pod=u-nd --pod ai/vf-pod=u-vf \
		--pod ai/gpu-pod=u-gpu > "$T/psrv.log" 2>&1 &
	PSRV=$!
	for _ in $(seq 100); do grep -q ready "$T/psrv.log" && return 0; sleep 0.1; done
	echo "FAIL: podres server did not start: $(cat "$T/psrv.log")"
	exit 1
}
NSV=$(newns v)
chain_add "$ROOT" roce cv "$NSV" net1 "$VF0" "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF0PCI\",\"profile\":\"lossy\"}" \
	"IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=vf-pod;K8S_POD_UID=u-vf" > /dev/null
check "chained ADD of ai/vf-pod's VF (a pod with a record)" [ $? -eq 0 ]

L='namespace="ai",pod="hn-pod",interface="",vf="",pf="'$PF0'"'
lossless() { metric_lit "$M" "rdma_qos_attachment_lossless{$L}"; }
problem() { metric_lit "$M" "rdma_qos_attachment_problem{$L,check=\"$1\"}"; }
line() { awk -v c="$1" '$1 == c' "$T/pod.txt"; }
has() { line "$1" | grep -q "$2"; } # has CHECK REGEX: show --pod's line of CHECK matches

for mode in 1.34 1.27-1.33 1.26; do
	echo "== kubelet $mode: List names the pod"
	psrv_start "$mode"
	W0=$(dcb_writes "$ROOT" "$PF0")
	agent --once --metrics-file "$M" 2> "$T/log"
	check "[$mode] agent --once exits 1: the PF is not as the pod's profile needs (drift left)" [ $? -eq 1 ]
	check "[$mode] promtool accepts the metrics" promcheck "$M"
	check "[$mode] ai/hn-pod judged: rdma_qos_attachment_lossless{interface=\"\",vf=\"\",pf=$PF0} 0" [ "$(lossless)" = 0 ]
	check "[$mode] ... the PF does not meet roce-lossless: problem{check=pf_profile}" [ "$(problem pf_profile)" = 1 ]
	check "[$mode] ... the agent wrote nothing to the PF for it (verified, not ensured)" [ "$(dcb_writes "$ROOT" "$PF0")" = "$W0" ]
	check "[$mode] the pod with a record is not a host-network pod" [ "$(grep -c '^rdma_qos_attachment_lossless{namespace="ai",pod="vf-pod",interface="",' "$M")" = 0 ]
	check "[$mode] no series for a pod of another resource, nor one without a default" [ "$(grep -c 'pod="\(gpu-pod\|nd-pod\)"' "$M")" = 0 ]
	check "[$mode] logged once, naming the device and the default profile" grep -q "host-network pod ai/hn-pod holds rdma/hca_shared_devices_a: shared RDMA device $SDEV on PF $PF0, profile roce-lossless" "$T/log"
done

echo "== the PF meets the default profile: lossless"
catalog ', "baseline": "roce-lossless"'
agent --once --metrics-file "$M" 2> "$T/log"
check "node.baseline ensures the PF: lossless 1" [ "$(lossless)" = 1 ]
check "... no problem series of the pod" [ "$(grep -c "^rdma_qos_attachment_problem{$L" "$M")" = 0 ]
catalog ""

echo "== show --pod with hostPID (the initial PID namespace)"
rqs show --pod ai/hn-pod > "$T/pod.txt" 2> "$T/pod.err"
check "show --pod: exit 0" [ $? -eq 0 ]
check "... first line lossless: yes" [ "$(head -1 "$T/pod.txt")" = "lossless: yes" ]
check "... names the shared device, the PF, the resource and the default" grep -q "^ai/hn-pod host network: shared RDMA device $SDEV of PF $PF0 (rdma/hca_shared_devices_a), profile roce-lossless (the namespace's default): lossless: yes$" "$T/pod.txt"
check "... pf_profile ok" [ "$(line pf_profile | awk '{ print $2 }')" = ok ]
check "... vf_class unknown: no VF, nothing asked of the device" has vf_class "unknown *a host-network pod has no VF"
check "... qps ok: its device's census holds none of its QPs (none off lossless)" has qps "ok"
check "... numa ok against the PF's node" has numa "ok *the shared device's PF is on the pod's NUMA node 0"
check "... no 'cannot tell' line with hostPID" [ "$(grep -c 'cannot tell' "$T/pod.txt")" = 0 ]
rqs show --pod ai/hn-pod --json > "$T/pod.json"
check "show --pod --json: hostNetwork, vf \"\", the shared device, pidsVisible" [ "$(jq -c '.attachments[0] | [.hostNetwork, .vf, .rdmaDev, .pf, .pidsVisible, .lossless]' "$T/pod.json")" = "[true,\"\",\"$SDEV\",\"$PF0\",true,true]" ]

echo "== without hostPID (a PID namespace of its own)"
nopid show --pod ai/hn-pod > "$T/pod.txt" 2> "$T/pod.err"
check "show --pod: exit 0 (unknown fails nothing)" [ $? -eq 0 ]
check "... says what it cannot tell and why" grep -q "^  cannot tell which QPs of the shared device are the pod's: the agent sees no host PIDs (agent.hostPID: false), so the pod's QPs cannot be told from the host's$" "$T/pod.txt"
check "... qps unknown: cannot tell without hostPID" has qps "unknown *cannot tell: a host-network pod's QPs on the shared device $SDEV cannot be told from the host's without their processes' PIDs"
agent --once --metrics-file "$M" 2> "$T/log"
# the verdict's families; with hostPID the pod is also a target of its device's QP census
verdict_series() { grep -E '^rdma_qos_attachment_(lossless|problem)\{.*pod="hn-pod"' "$M"; }
verdict_series > "$T/with.txt"
nopid agent --once --metrics-file "$M" 2> "$T/log"
{ [ $? -eq 0 ] && [ "$(lossless)" = 1 ] && verdict_series | cmp -s - "$T/with.txt"; }
check "agent without hostPID: exit 0, the same verdict series as with it (lossless 1)" [ $? -eq 0 ]
check "... no qps problem series (unknown)" [ -z "$(problem qps)" ]

echo "== with hostPID its QPs are its device's census's, attributed by cgroup"
# hn-pod's process 6161 (cgroup v2, systemd driver) sends at class 0 on an RC QP; a host
# process's QP on the same device is nobody's
mkdir -p "$ROOT/rdma/qps" "$ROOT/proc/6161" "$ROOT/proc/7171"
printf '0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod%s.slice/cri-containerd-1a.scope\n' \
	"${HNUID//-/_}" > "$ROOT/proc/6161/cgroup"
echo '0::/system.slice/sshd.service' > "$ROOT/proc/7171/cgroup"
cat > "$ROOT/rdma/qps/$SDEV.json" << J
[{"qpn": 31, "type": "RC", "state": "RTS", "pid": 6161, "comm": "all_reduce_perf", "tclass": 0, "sgid_index": 1},
 {"qpn": 32, "type": "RC", "state": "RTS", "pid": 7171, "comm": "ib_write_bw", "tclass": 106, "sgid_index": 1}]
J
rqs show --qps --json > "$T/q.json" 2> /dev/null
check "show --qps: QP 31 is hn-pod's, by cgroup; QP 32 nobody's" \
	[ "$(jq -c '[.attachments[] | select(.pod == "hn-pod") | .qps[] | [.qpn, .by]]' "$T/q.json")" = '[[31,"cgroup"]]' ]
# an RDMA-CM id on the host's address: no attachment of the device has an address (a
# host-network pod's object has none), so the ids can give no QP: the census does not read them
mkdir -p "$ROOT/rdma/cm_ids"
echo '[{"qpn": 31, "src_addr": "10.0.0.5", "dst_addr": "10.0.0.6", "pid": 6161, "comm": "all_reduce_perf"}]' \
	> "$ROOT/rdma/cm_ids/$SDEV.json"
strace -f -qq -e trace=openat,openat2 -o "$T/st" env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	RDMA_QOS_SIM_ROOT="$ROOT" "$SIM" show --qps --json > "$T/q2.json" 2> /dev/null
check "show --qps: the device's QPs read, its RDMA-CM ids not (no address to give a QP to: $(grep -c "rdma/qps/$SDEV.json" "$T/st") $(grep -c "rdma/cm_ids/$SDEV.json" "$T/st"))" \
	[ "$(grep -c "rdma/qps/$SDEV.json" "$T/st") $(grep -c "rdma/cm_ids/$SDEV.json" "$T/st")" = "1 0" ]
check "... QP 31 still hn-pod's by cgroup" \
	[ "$(jq -c '[.attachments[] | select(.pod == "hn-pod") | .qps[] | [.qpn, .by]]' "$T/q2.json")" = '[[31,"cgroup"]]' ]
rm -f "$ROOT/rdma/cm_ids/$SDEV.json"
rqs show --pod ai/hn-pod > "$T/pod.txt" 2> /dev/null; rc=$?
check "show --pod: its qps check names the QP at class 0 (exit $rc)" \
	eval '[ $rc -eq 1 ] && has qps "PROBLEM"'
nopid show --pod ai/hn-pod > "$T/pod.txt" 2> /dev/null; rc=$?
check "... without hostPID: still cannot tell (exit $rc)" eval '[ $rc -eq 0 ] && has qps "unknown *cannot tell"'
rm -f "$ROOT/rdma/qps/$SDEV.json"

echo "== a namespace without a default: listed, not judged"
rqs show --pod nodef/nd-pod > "$T/pod.txt" 2> "$T/pod.err"
{ [ $? -eq 2 ] && grep -q "^nodef/nd-pod host network: shared RDMA device $SDEV of PF $PF0 (rdma/hca_shared_devices_a): no verdict: profile: none named and namespace \"nodef\" has no default" "$T/pod.txt"; }
check "show --pod: exit 2, why" [ $? -eq 0 ]

echo "== the pod leaves List"
jq -c --arg u "$HNUID" '.Data.PodDeviceEntries |= map(select(.PodUID != $u))' \
	"$ROOT/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint" > "$T/ck" &&
	cp "$T/ck" "$ROOT/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint"
jq -c --arg u "$HNUID" 'del(.entries[$u])' "$ROOT/var/lib/kubelet/cpu_manager_state" > "$T/cm" &&
	cp "$T/cm" "$ROOT/var/lib/kubelet/cpu_manager_state"
psrv_start 1.34
agent --once --metrics-file "$M" 2> "$T/log"
check "agent: no series of ai/hn-pod" [ "$(grep -c 'pod="hn-pod"' "$M")" = 0 ]
rqs show --pod ai/hn-pod > "$T/pod.txt" 2> "$T/pod.err"
check "show --pod: exit 2 (no attachment of the pod here)" [ $? -eq 2 ]

summary
