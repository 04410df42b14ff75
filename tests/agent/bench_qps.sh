#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# What the QP census costs (make agent-bench, run by make bench; issue 31: at most 10 ms per
# pass at 256 attachments with 64 QPs each on the simulated node). A node of 2 PFs x 128 VFs,
# BENCH_NS attachments ("1 64 256"), each its own pod and its own RDMA device whose
# <root>/rdma/qps/<dev>.json lists BENCH_QPS (64) QPs: RC in RTS, half at class 106, a
# quarter at 0, the rest UD/INIT. A running agent takes the census at each collection (GET
# /metrics 1.1 s apart, past the cache); its debug line says what the census took: the
# median of BENCH_RUNS (5) collections, against the whole collection (counters, census,
# rendering). The bench fails unless /metrics counts every QP.
set -u
. "$(dirname "$0")/lib.sh"
why=$(sim_can_run) || { echo "agent-bench (QP census): cannot run: $why"; exit 1; }
RUNS=${BENCH_RUNS:-5} NQ=${BENCH_QPS:-64}
T=$(mktemp -d /tmp/rq-qbench.XXXXXX)
ROOT=$T/node
AP=""
cleanup() {
	[ -n "$AP" ] && kill "$AP" 2>/dev/null && wait "$AP" 2>/dev/null
	ip netns del "rqqb$$" 2>/dev/null; bench_pods_del "rqqb$$"; ip link del "rqqb$$" 2>/dev/null; rm -rf "$T"
}
trap cleanup EXIT
"$MKNODE" --root "$ROOT" --pfs 2 --vfs 128 --rdma configfs --ecn yes --dcb yes --counters yes \
	--pf-prefix qb$$ > /dev/null || exit 1
mapfile -t VFS < <(sim_vfs "$ROOT")
read -r PF0 VF0PCI VF0 <<< "${VFS[0]}"
ip netns add "rqqb$$"
ip link add "$VF0" type veth peer name "${VF0}p"
ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p;K8S_POD_UID=u"
chain_add "$ROOT" roce c0 "/run/netns/rqqb$$" net1 "$VF0" "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF0PCI\"}" "$ARGS" > /dev/null 2>&1 || { echo "agent-bench: ADD failed"; exit 1; }
SD=$(state_dir "$ROOT")
REC=$(ls "$SD"/*.json | head -1)
jq -c . "$REC" > "$T/rec0.json"
rm -f "$REC"
mkdir -p "$ROOT/rdma/qps"
# one device's QP list: NQ QPs of one process
python3 - "$NQ" > "$T/qps.json" <<'PY'
import json, sys
n = int(sys.argv[1])
qps = []
for i in range(n):
    q = {"qpn": 100 + i, "type": "RC", "state": "RTS", "pid": 4242, "comm": "python3"}
    if i % 4 in (0, 1):
        q["tclass"] = 106
    elif i % 4 == 2:
        q["tclass"] = 0
    else:
        q.update(type="UD" if i % 8 == 3 else "RC", state="RTS" if i % 8 == 3 else "INIT", tclass=0)
    qps.append(q)
print(json.dumps(qps))
PY
MED() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
printf '%-5s %-8s %-22s %-22s %s\n' N QPs "census ms (median)" "collection ms" "goal"
prev=0
for n in ${BENCH_NS:-1 64 256}; do
	bench_records "$ROOT" "$SD" "$T/rec0.json" "rqqb$$" "$prev" "$n" || { echo "agent-bench: cannot make the pods"; exit 1; }
	for ((i = prev; i < n; i++)); do
		read -r _ vpci _ <<< "${VFS[$i]}"
		dev=$(rdma_of "$ROOT" "$vpci")
		f="$SD/roce_c${i}_net1.json"
		jq -c --arg d "$dev" '.rdma.device = $d' "$f" > "$f.new" && mv "$f.new" "$f"
		cp "$T/qps.json" "$ROOT/rdma/qps/$dev.json"
	done
	prev=$n
	port=$((30000 + ($$ + n) % 20000))
	RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --interval 600 --listen "127.0.0.1:$port" \
		--log-level debug --qp-census-interval 0 2> "$T/a.log" &
	AP=$!
	for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/metrics" > /dev/null && break; sleep 0.1; done
	for _ in $(seq "$RUNS"); do sleep 1.1; curl -sf -o "$T/m.prom" "http://127.0.0.1:$port/metrics"; done
	kill "$AP"; wait "$AP" 2>/dev/null; AP=""
	got=$(awk '/^rdma_qos_vf_qps\{/ { s += $2 } END { print s + 0 }' "$T/m.prom")
	[ "$got" = $((n * NQ)) ] || { echo "agent-bench: /metrics counts $got QPs, not $((n * NQ))"; exit 1; }
	cen=$(sed -n 's/.*QP census of [0-9]* attachments ([0-9]* QPs) took \([0-9.]*\) ms.*/\1/p' "$T/a.log" |
		tail -n "$RUNS" | awk '{ printf "%d\n", $1 * 1000 }' | MED)
	col=$(sed -n 's/.*counters of .* read in \([0-9.]*\) ms, rendered in \([0-9.]*\) ms.*/\1 \2/p' "$T/a.log" |
		tail -n "$RUNS" | awk '{ printf "%d\n", ($1 + $2) * 1000 }' | MED)
	printf '%-5s %-8s %-22s %-22s %s\n' "$n" "$((n * NQ))" "$(awk -v a="$cen" 'BEGIN { printf "%.2f", a / 1000 }')" \
		"$(awk -v a="$col" 'BEGIN { printf "%.1f", a / 1000 }')" "$([ "$n" -ge 256 ] && echo "<= 10 ms" || echo "")"
done
