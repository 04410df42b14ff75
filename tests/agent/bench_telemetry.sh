#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# What congestion telemetry costs (make agent-bench, run by make bench): for
# 1, 64 and 256 attachments on a simulated node of 2 PFs x 128 VFs whose
# drivers have mlx5's counters (mknode --counters yes), the wall time of
# `agent --once` (a cold pass and its textfile: every counter file opened)
# with telemetry and with --no-counters; in a running agent, a pass raised
# by an event (--no-counters) and what reading and rendering the counters
# adds to it (the agent keeps the counter files open between reads), an
# uncached /metrics request with counters and without, and one answered from
# memory (the collector's text, within the second). Medians of BENCH_RUNS
# (5). Goal (issue 22): telemetry adds <= 20 ms to a
# 256-attachment pass; a /metrics request stays under 25 ms.
# Then, at the largest count, every counter read slowed by BENCH_SLOW_MS (50)
# ms (RDMA_QOS_SIM_COUNTER_DELAY_MS, as mlx5 firmware queries may be): how long
# a collection takes, and during one the slowest of 10 /healthz answers and a
# /metrics request past the cache (issue 30: /healthz within 100 ms, /metrics
# from memory after at most AGENT_TEL_SCRAPE_WAIT_S).
# BENCH_VPORT=1: every pod's net1 also has mlx5's vport RDMA counters
# (<root>/ethtool/netns/<pod netns>/net1.json), read in the pod's netns since
# the hw_counters count no packets/bytes. BENCH_NS: the attachment counts
# ("1 64 256"). The series columns: every rdma_qos_port_*_total and
# rdma_qos_vf_*_total sample of one /metrics body with --vf-counters
# essential (the default) and of a textfile with --vf-counters all (every
# other hw_counters entry as rdma_qos_vf_hw_counter_total).
set -u
. "$(dirname "$0")/lib.sh"
why=$(sim_can_run) || { echo "agent-bench (telemetry): cannot run: $why"; exit 1; }
RUNS=${BENCH_RUNS:-5}
T=$(mktemp -d /tmp/rq-tbench.XXXXXX)
ROOT=$T/node
AP=""
cleanup() {
	[ -n "$AP" ] && kill "$AP" 2>/dev/null && wait "$AP" 2>/dev/null
	ip netns del "rqtb$$" 2>/dev/null; bench_pods_del "rqtb$$"; ip link del "rqtb$$" 2>/dev/null; rm -rf "$T"
}
trap cleanup EXIT
"$MKNODE" --root "$ROOT" --pfs 2 --vfs 128 --rdma configfs --ecn yes --dcb yes --counters yes \
	--pf-prefix tb$$ > /dev/null || exit 1
mapfile -t VFS < <(sim_vfs "$ROOT")
read -r PF0 VF0PCI VF0 <<< "${VFS[0]}"
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
# A running agent (flags...): the median us of an uncached GET /metrics (requests 1.1 s apart,
# past the cache) -> $T/scrape, of one right after it (from memory) -> $T/mem; then passes
# raised by DCB events, whose debug lines say what reading and rendering the counters took -> $T/tel (us) and $T/pass (us).
running() {
	local port=$((30000 + $$ % 20000)) f="$ROOT/dcb/$PF0.json"
	RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --interval 600 --listen "127.0.0.1:$port" \
		--metrics-file "$T/bg.prom" --log-level debug "$@" 2> "$T/bg.log" &
	AP=$!
	for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/metrics" > /dev/null && break; sleep 0.1; done
	: > "$T/s"
	: > "$T/c"
	for _ in $(seq "$RUNS"); do
		sleep 1.1
		curl -sf -o "$T/h.prom" -w '%{time_total}\n' "http://127.0.0.1:$port/metrics" |
			awk '{ printf "%d\n", $1 * 1e6 }' >> "$T/s"
		curl -sf -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$port/metrics" |
			awk '{ printf "%d\n", $1 * 1e6 }' >> "$T/c"
	done
	MED < "$T/s" > "$T/scrape"
	MED < "$T/c" > "$T/mem"
	: > "$T/bg.log"
	for _ in $(seq "$RUNS"); do jq -c . "$f" > "$f.new" && mv "$f.new" "$f"; sleep 1.2; done
	kill "$AP"; wait "$AP" 2>/dev/null; AP=""
	sed -n 's/.*counters of .* read in \([0-9.]*\) ms, rendered in \([0-9.]*\) ms.*/\1 \2/p' "$T/bg.log" |
		awk '{ printf "%d\n", ($1 + $2) * 1000 }' | MED > "$T/tel"
	sed -n 's/.*pass took \([0-9.]*\) s.*/\1/p' "$T/bg.log" | awk '{ printf "%d\n", $1 * 1e6 }' | MED > "$T/pass"
}
# A running agent (flags...) after one collection: its open files (the counter files it keeps
# open between reads are most of them)
fds_after_scrape() {
	local port=$((30000 + ($$ + 2) % 20000)) pid n
	RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --interval 600 --listen "127.0.0.1:$port" \
		--log-level error "$@" 2> /dev/null &
	pid=$!
	for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$port/metrics" && break; sleep 0.1; done
	n=$(ls "/proc/$pid/fd" | wc -l)
	kill "$pid"; wait "$pid" 2> /dev/null
	echo "$n"
}
printf '%-5s %-27s %-27s %-30s %-21s %s\n' N "--once ms: counters/none" "pass ms / its counters ms" \
	"GET /metrics ms: c/memory/none" "series essential/all" "open files ess/all"
prev=0
for n in ${BENCH_NS:-1 64 256}; do
	bench_records "$ROOT" "$SD" "$T/rec0.json" "rqtb$$" "$prev" "$n" || { echo "agent-bench: cannot make the pods"; exit 1; }
	for ((i = prev; i < n && ${BENCH_VPORT:-0}; i++)); do
		d="$ROOT/ethtool/netns/rqtb$$$([ "$i" -gt 0 ] && echo "-$i")"
		mkdir -p "$d"
		echo '{"rx_vport_rdma_unicast_packets": 1, "rx_vport_rdma_unicast_bytes": 2,
			"tx_vport_rdma_unicast_packets": 3, "tx_vport_rdma_unicast_bytes": 4}' > "$d/net1.json"
	done
	prev=$n
	ow=$(once); on=$(once --no-counters)
	running; sw=$(cat "$T/scrape") sm=$(cat "$T/mem") tel=$(cat "$T/tel") pass=$(cat "$T/pass")
	series=$(grep -c '^rdma_qos_\(port\|vf\)_.*_total{' "$T/h.prom")
	vfs=$(grep -c '^rdma_qos_vf_cnp_sent_total{' "$T/h.prom")
	[ "$vfs" = "$n" ] || { echo "agent-bench: /metrics has the counters of $vfs VFs, not $n"; exit 1; }
	[ "$(grep -c '^rdma_qos_vf_hw_counter_total{' "$T/h.prom")" = 0 ] ||
		{ echo "agent-bench: --vf-counters essential has rdma_qos_vf_hw_counter_total"; exit 1; }
	RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --once --vf-counters all --metrics-file "$T/all.prom" \
		--log-level error 2> /dev/null
	sall=$(grep -c '^rdma_qos_\(port\|vf\)_.*_total{' "$T/all.prom")
	[ "$sall" -gt "$series" ] || { echo "agent-bench: --vf-counters all has $sall series, essential $series"; exit 1; }
	vp=$(grep -c '^rdma_qos_vf_bytes_total{' "$T/h.prom")
	[ "$vp" = $((${BENCH_VPORT:-0} ? 2 * n : 0)) ] || { echo "agent-bench: /metrics has $vp vport bytes series at $n"; exit 1; }
	running --no-counters; sn=$(cat "$T/scrape") passn=$(cat "$T/pass")
	fe=$(fds_after_scrape) fa=$(fds_after_scrape --vf-counters all)
	[ "$fa" -gt "$fe" ] || [ "$n" -lt 64 ] ||
		{ echo "agent-bench: --vf-counters all keeps $fa files open, essential $fe"; exit 1; }
	printf '%-5s %-27s %-27s %-30s %-21s %s\n' "$n" "$(ms "$ow") / $(ms "$on")" \
		"$(ms "$passn") + $(ms "$tel")" "$(ms "$sw") / $(ms "$sm") / $(ms "$sn")" "$series / $sall" "$fe / $fa"
done
# slow firmware: a collection under way while /healthz and /metrics are asked
SLOW=${BENCH_SLOW_MS:-50}
port=$((30000 + ($$ + 1) % 20000))
URL="http://127.0.0.1:$port"
RDMA_QOS_SIM_ROOT=$ROOT RDMA_QOS_SIM_COUNTER_DELAY_MS=$SLOW "$SIM" agent --interval 600 \
	--listen "127.0.0.1:$port" --log-level debug 2> "$T/slow.log" &
AP=$!
ncol() { grep -c 'counters of .* read in' "$T/slow.log"; }
for _ in $(seq 100); do curl -sf "$URL/readyz" > /dev/null && break; sleep 0.1; done
curl -sf -o /dev/null --max-time 60 "$URL/metrics" # the first collection (waited for: 1 s)
for _ in $(seq 600); do [ "$(ncol)" -ge 1 ] && break; sleep 0.1; done
sleep 1.1
curl -s -o "$T/slow.prom" -w '%{time_total}\n' --max-time 60 "$URL/metrics" > "$T/slow.scrape" &
SP=$!
sleep 0.2
: > "$T/hz"
for _ in $(seq 10); do
	curl -s -o /dev/null -w '%{http_code} %{time_total}\n' --max-time 5 "$URL/healthz" >> "$T/hz"
	sleep 0.2
done
wait "$SP"
[ "$(ncol)" -lt 2 ] || { echo "agent-bench: the collection ended before the probes did"; exit 1; }
for _ in $(seq 600); do [ "$(ncol)" -ge 2 ] && break; sleep 0.1; done
kill -KILL "$AP"; wait "$AP" 2>/dev/null; AP=""
[ "$(grep -c '^200 ' "$T/hz")" = 10 ] || { echo "agent-bench: /healthz failed during a collection"; exit 1; }
coll=$(sed -n 's/.*counters of .* read in \([0-9.]*\) ms.*/\1/p' "$T/slow.log" | tail -1)
printf '%s attachments, %s ms per counter read: a collection %s ms; during it /healthz <= %s ms (10 of 10 answered), GET /metrics %s ms (%s VFs, from memory)\n' \
	"$n" "$SLOW" "$coll" "$(awk '{ if ($2 > m) m = $2 } END { printf "%.1f", m * 1000 }' "$T/hz")" \
	"$(awk '{ printf "%.1f", $1 * 1000 }' "$T/slow.scrape")" "$(grep -c '^rdma_qos_vf_cnp_sent_total{' "$T/slow.prom")"
