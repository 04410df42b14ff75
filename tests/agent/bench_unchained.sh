#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# What looking for VFs no chain ran rdma-qos for costs (make agent-bench; issue 38): a
# simulated node of 2 PFs x 129 VFs, 256 of them attached (each its own pod netns, as
# tests/agent/bench.sh builds them), the agent's pass with node.unchained ignore (no scan),
# report with every other VF in the host (the scan is a sysfs walk), and report with one VF
# unaccounted for on each PF (the scan enters every netns on the node: 256 pods); median of 5
# `agent --once`. Then the adoption latency on that node (node.unchained adopt, the agent
# running with --interval 3600): from `ip link set VF netns NS` to the adopted record on
# disk, 5 moves (each released by moving it back), median and max; the goal is under 1 s.
set -u
. "$(dirname "$0")/lib.sh"
why=$(sim_can_run) || { echo "agent-bench unchained: cannot run: $why"; exit 1; }
PY=/usr/bin/python3
T=$(mktemp -d /tmp/rq-ubench.XXXXXX)
ROOT=$T/node
AGENT_PID="" PSRV=""
cleanup() {
	[ -n "$AGENT_PID" ] && kill "$AGENT_PID" 2> /dev/null
	[ -n "$PSRV" ] && kill "$PSRV" 2> /dev/null
	ip netns del "rqub$$" 2> /dev/null
	ip netns del "rqubx$$" 2> /dev/null
	bench_pods_del "rqub$$"
	for v in "${EXTRA[@]}"; do ip link del "$v" 2> /dev/null; done
	ip link del "$VF0" 2> /dev/null
	rm -rf "$T"
}
EXTRA=()
trap cleanup EXIT
"$MKNODE" --root "$ROOT" --pfs 2 --vfs 129 --rdma configfs --ecn yes --dcb yes --pf-prefix ub$$ > /dev/null || exit 1
mapfile -t ALL < <(sim_vfs "$ROOT")
# the first 128 VFs of each PF are attached; the 129th of each is the extra one
VFS=() EXTRA=() EXTRAPCI=()
for l in "${ALL[@]}"; do
	read -r _ pci name <<< "$l"
	case $name in *v128) EXTRA+=("$name") EXTRAPCI+=("$pci") ;; *) VFS+=("$l") ;; esac
done
read -r _ VF0PCI VF0 <<< "${VFS[0]}"
ip netns add "rqub$$"
ip link add "$VF0" type veth peer name "${VF0}p"
ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p;K8S_POD_UID=u"
chain_add "$ROOT" roce c0 "/run/netns/rqub$$" net1 "$VF0" "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF0PCI\"}" "$ARGS" > /dev/null 2>&1 ||
	{ echo "agent-bench unchained: ADD failed"; exit 1; }
SD=$(state_dir "$ROOT")
REC=$(ls "$SD"/*.json | head -1)
jq -c . "$REC" > "$T/rec0.json"
rm -f "$REC"
bench_records "$ROOT" "$SD" "$T/rec0.json" "rqub$$" 0 256 || { echo "agent-bench unchained: cannot make the pods"; exit 1; }
CAT=$ROOT/etc/cni/rdma-qos/profiles.json
mkdir -p "$(dirname "$CAT")"
catalog() { printf '{"namespaces":{"ai":{"default":"roce-lossless","allow":["roce-lossless"]}},"node":{"unchained":"%s"}}' "$1" > "$CAT"; }
MED() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
pass_ms() { # median pass time (ms) of 5 agent --once
	: > "$T/p"
	for _ in 1 2 3 4 5; do
		RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --once --metrics-file "$T/m" --log-level error 2> /dev/null
		awk '$1 == "rdma_qos_pass_duration_seconds" { printf "%d\n", $2 * 1e6 }' "$T/m" >> "$T/p"
	done
	awk -v a="$(MED < "$T/p")" 'BEGIN { printf "%.1f", a / 1000 }'
}
home=$(RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --once --metrics-file "$T/m" --log-level error 2> /dev/null; grep -c '^rdma_qos_vf_in_pod{.*} 1$' "$T/m")
[ "$home" = 256 ] || { echo "agent-bench unchained: $home of 256 VFs in their pods"; exit 1; }
echo "unchained scan, 256 attachments (2 PFs x 129 VFs, 256 pod netns): pass ms (median of 5)"
catalog ignore
printf '  %-58s %s\n' "node.unchained ignore (no scan)" "$(pass_ms)"
for v in "${EXTRA[@]}"; do ip link add "$v" type veth peer name "${v}p"; done
catalog report
printf '  %-58s %s\n' "report, every other VF in the host (a sysfs walk)" "$(pass_ms)"
for v in "${EXTRA[@]}"; do ip link del "$v"; done
printf '  %-58s %s\n' "report, 2 VFs unaccounted for (every netns entered)" "$(pass_ms)"
n=$(grep -c '^rdma_qos_vf_unchained{' "$T/m")
[ "$n" = 0 ] || { echo "agent-bench unchained: $n VFs reported, none is in a pod"; exit 1; }

# adoption latency: the extra VF of PF0 into a pod that PodResources names
if ! "$PY" -c 'import grpc, google.protobuf' 2> /dev/null || ! command -v protoc > /dev/null; then
	echo "adoption latency: skipped (no python3-grpcio/protoc)"
	exit 0
fi
mkdir -p "$T/pb" && protoc --python_out="$T/pb" -I"$RQ_SRC/pkg/podres" "$RQ_SRC/pkg/podres/api.proto" || exit 1
"$MKNODE" --root "$ROOT" pod --uid u-x --device "intel.com/sriov_rdma=${EXTRAPCI[0]}@0" > /dev/null
"$PY" "$RQ_SRC/tests/simnode/podres_server.py" --root "$ROOT" --pb "$T/pb" --pod ai/x=u-x > "$T/psrv.log" 2>&1 &
PSRV=$!
for _ in $(seq 100); do grep -q ready "$T/psrv.log" && break; sleep 0.1; done
ip link add "${EXTRA[0]}" type veth peer name "${EXTRA[0]}p"
ip link add "${EXTRA[1]}" type veth peer name "${EXTRA[1]}p"
ip netns add "rqubx$$"
catalog adopt
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --interval 3600 --metrics-file "$T/bg.prom" --log-level warn 2> "$T/bg.log" &
AGENT_PID=$!
for _ in $(seq 300); do [ -s "$T/bg.prom" ] && break; sleep 0.1; done
sleep 1
adopted() { # the adopted record, once final (not the pending one before the class is written)
	local f
	for f in "$SD"/rdma-qos-adopted_*.json; do
		jq -e '.adopted == true and (has("pending") | not)' "$f" > /dev/null 2>&1 && { echo "$f"; return; }
	done
}
: > "$T/lat"
for _ in 1 2 3 4 5; do
	t0=$(date +%s%N)
	ip link set "${EXTRA[0]}" netns "rqubx$$"
	for _ in $(seq 1000); do [ -n "$(adopted)" ] && break; sleep 0.002; done
	t1=$(date +%s%N)
	[ -n "$(adopted)" ] || { echo "agent-bench unchained: not adopted within 2 s"; tail -20 "$T/bg.log"; exit 1; }
	echo $(((t1 - t0) / 1000000)) >> "$T/lat"
	ip -n "rqubx$$" link set "${EXTRA[0]}" netns 1
	for _ in $(seq 1000); do [ -z "$(adopted)" ] && break; sleep 0.002; done
done
printf 'adoption latency (ip link set -> adopted record), 256 attachments: median %s ms, max %s ms (%s)\n' \
	"$(MED < "$T/lat")" "$(sort -n "$T/lat" | tail -1)" "$(tr '\n' ' ' < "$T/lat" | sed 's/ $//')"
