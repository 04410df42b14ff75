#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# What congestion telemetry costs (make agent-bench, run by make bench): for
# 1, 64 and 256 attachments on a simulated node of 2 PFs x 128 VFs whose
# drivers have mlx5's counters (mknode --counters yes), the wall time of
# `agent --once` (a pass and its textfile) with telemetry and with
# --no-counters, and the time of a /metrics request that reads the counters
# (requests 1.1 s apart, past the cache) against the same without. Medians of
# BENCH_RUNS (5). Goal (issue 22): telemetry adds <= 20 ms to a
# 256-attachment pass; a /metrics request stays under 25 ms.
set -u
. "$(dirname "$0")/lib.sh"
why=$(sim_can_run) || { echo "agent-bench (telemetry): cannot run: $why"; exit 1; }
RUNS=${BENCH_RUNS:-5}
T=$(mktemp -d /tmp/rq-tbench.XXXXXX)
ROOT=$T/node
AP=""
cleanup() {
	[ -n "$AP" ] && kill "$AP" 2>/dev/null && wait "$AP" 2>/dev/null
	ip netns del "rqtb$$" 2>/dev/null; ip link del "rqtb$$" 2>/dev/null; rm -rf "$T"
}
trap cleanup EXIT
"$MKNODE" --root "$ROOT" --pfs 2 --vfs 128 --rdma configfs --ecn yes --dcb yes --counters yes \
	--pf-prefix tb$$ > /dev/null || exit 1
mapfile -t VFS < <(sim_vfs "$ROOT")
read -r _ VF0PCI VF0 <<< "${VFS[0]}"
ip netns add "rqtb$$"
ip link add "$VF0" type veth peer name "${VF0}p"
ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p;K8S_POD_UID=u"
chain_add "$ROOT" roce c0 "/run/netns/rqtb$$" net1 "$VF0" "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF0PCI\"}" "$ARGS" > /dev/null 2>&1 || { echo "agent-bench: ADD failed"; exit 1; }
SD=$(state_dir "$ROOT")
REC=$(ls "$SD"/*.json | head -1)
jq -c . "$REC" > "$T/rec0.json"
rm -f "$REC"
MED() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
ms() { awk -v a="$1" 'BEGIN { printf "%.1f", a / 1000 }'; }
once() { # flags... -> median wall us of agent --once
	: > "$T/w"
	for _ in $(seq "$RUNS"); do
		t0=$(date +%s%N)
		RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --once --metrics-file "$T/m" --log-level error "$@" 2>/dev/null
		echo $(( ($(date +%s%N) - t0) / 1000 )) >> "$T/w"
	done
	MED < "$T/w"
}
scrape() { # flags... -> median us of an uncached GET /metrics
	local port=$((30000 + $$ % 20000))
	RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --interval 600 --listen "127.0.0.1:$port" --log-level error "$@" 2>/dev/null &
	AP=$!
	for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/metrics" > /dev/null && break; sleep 0.1; done
	: > "$T/s"
	for _ in $(seq "$RUNS"); do
		sleep 1.1
		curl -sf -o "$T/h.prom" -w '%{time_total}\n' "http://127.0.0.1:$port/metrics" |
			awk '{ printf "%d\n", $1 * 1e6 }' >> "$T/s"
	done
	kill "$AP"; wait "$AP" 2>/dev/null; AP=""
	MED < "$T/s"
}
printf '%-5s %-34s %-34s %s\n' N "agent --once ms: counters / none" "GET /metrics ms: counters / none" "series"
prev=0
for n in 1 64 256; do
	for i in $(seq "$prev" $((n - 1))); do
		read -r pf vpci _ <<< "${VFS[$i]}"
		pfpci=$(basename "$(readlink -f "$ROOT/sys/class/net/$pf/device")")
		jq -c --arg v "$vpci" --arg k "c$i" --arg pf "$pf" --arg pp "$pfpci" \
			'.vf = $v | .containerID = $k | .pfs = [{pci: $pp, ifname: $pf}]' "$T/rec0.json" > "$SD/roce_c${i}_net1.json"
	done
	prev=$n
	ow=$(once); on=$(once --no-counters)
	sw=$(scrape); series=$(grep -c '^rdma_qos_\(port\|vf\)_.*_total{' "$T/h.prom"); sn=$(scrape --no-counters)
	printf '%-5s %-34s %-34s %s\n' "$n" "$(ms "$ow") / $(ms "$on") (+$(ms $((ow - on))))" \
		"$(ms "$sw") / $(ms "$sn")" "$series"
done
