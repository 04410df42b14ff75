#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# What the QP census of a shared RDMA device costs (make agent-bench, run by make bench; issue
# 50: the census of a shared device with 4 pods and 256 QPs within 1.2x of the same QPs on 4
# VFs). Two simulated nodes side by side: on one, 4 pods each on its own VF whose
# <root>/rdma/qps/<dev>.json lists BENCH_QPS (64) QPs; on the other, the same 4 pods on the PF's
# own device mlx5_0 (shared records), whose one file lists the same 4 x 64 QPs, a third of each
# pod's attributed by its RDMA-CM id (<root>/rdma/cm_ids/mlx5_0.json), a third by its source GID
# index, the rest by its process's cgroup (<root>/proc/<pid>/cgroup, one process per pod). An
# agent on each (--qp-census-interval 0), their collections interleaved (GET /metrics to one,
# then the other, 1.1 s apart); each agent's debug line says what its census took: the median
# of BENCH_RUNS (15) each, and their ratio. The bench fails unless each /metrics counts every QP
# for its pod.
set -u
. "$(dirname "$0")/lib.sh"
why=$(sim_can_run) || { echo "agent-bench (shared QP census): cannot run: $why"; exit 1; }
RUNS=${BENCH_RUNS:-15} NQ=${BENCH_QPS:-64} NP=4
T=$(mktemp -d /tmp/rq-sbench.XXXXXX)
RV=$T/vf RS=$T/shared
AV="" AS=""
cleanup() {
	[ -n "$AV" ] && kill "$AV" 2>/dev/null && wait "$AV" 2>/dev/null
	[ -n "$AS" ] && kill "$AS" 2>/dev/null && wait "$AS" 2>/dev/null
	ip netns del "rqsb$$" 2>/dev/null; bench_pods_del "rqsb$$"; ip link del "$VF0" 2>/dev/null; rm -rf "$T"
}
trap cleanup EXIT
"$MKNODE" --root "$RV" --pfs 1 --vfs "$NP" --rdma configfs --ecn yes --dcb yes --counters yes \
	--pf-prefix sv$$ > /dev/null || exit 1
"$MKNODE" --root "$RS" --pfs 1 --vfs 1 --rdma configfs --ecn yes --dcb yes --counters yes \
	--pf-rdma yes --pf-prefix ss$$ > /dev/null || exit 1
mapfile -t VFS < <(sim_vfs "$RV")
read -r PF0 VF0PCI VF0 <<< "${VFS[0]}"
PFS=$(sim_vfs "$RS" | awk 'NR == 1 { print $1 }')
ip netns add "rqsb$$"
ip link add "$VF0" type veth peer name "${VF0}p"
chain_add "$RV" roce c0 "/run/netns/rqsb$$" net1 "$VF0" "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF0PCI\"}" \
	"IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p;K8S_POD_UID=u" > /dev/null 2>&1 ||
	{ echo "agent-bench: ADD failed"; exit 1; }
SV=$(state_dir "$RV")
REC=$(ls "$SV"/*.json | head -1)
jq -c . "$REC" > "$T/rec0.json"
rm -f "$REC"
# the VF node: pod i on VF i, its own device and QP file
bench_records "$RV" "$SV" "$T/rec0.json" "rqsb$$" 0 "$NP" || { echo "agent-bench: cannot make the pods"; exit 1; }
mkdir -p "$RV/rdma/qps" "$RS/rdma/qps" "$RS/rdma/cm_ids" "$RS/run/rdma-qos/state"
SS=$RS/run/rdma-qos/state
python3 - "$NQ" "$NP" "$T" <<'PY'
import json, sys
nq, np_, t = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
allq, cms = [], []
for p in range(np_):
    qps = []
    for k in range(nq):
        q = {"qpn": 100 + p * nq + k, "type": "RC", "state": "RTS", "pid": 5000 + p,
             "comm": "python3", "tclass": 106 if k % 4 != 2 else 0,
             "sgid_index": 3 + 2 * p if k % 3 == 1 else 1}
        if k % 8 == 7:
            q.update(type="UD", sgid_index=1)
        qps.append(q)
        if k % 3 == 0:
            cms.append({"qpn": q["qpn"], "src_addr": "10.99.0.%d" % (11 + p),
                        "dst_addr": "10.99.0.99", "pid": 5000 + p, "comm": "python3"})
    json.dump(qps, open("%s/qps%d.json" % (t, p), "w"))
    allq += qps
json.dump(allq, open(t + "/shared.json", "w"))
json.dump(cms, open(t + "/cm_ids.json", "w"))
PY
for ((i = 0; i < NP; i++)); do
	read -r _ vpci _ <<< "${VFS[$i]}"
	dev=$(rdma_of "$RV" "$vpci")
	f="$SV/roce_c${i}_net1.json"
	jq -c --arg d "$dev" --arg u "0000000$i-1111-2222-3333-444455556666" --arg n "pu$i" \
		'.rdma.device = $d | .podName = $n | .podUID = $u' "$f" > "$f.new" && mv "$f.new" "$f"
	cp "$T/qps$i.json" "$RV/rdma/qps/$dev.json"
	# the same pod on the shared device: its macvlan's address and GID entries (2+2i v1, 3+2i v2)
	"$MKNODE" --root "$RS" gid mlx5_0 --ip "10.99.0.$((11 + i))" --ndev net1 > /dev/null
	jq -c --arg ip "10.99.0.$((11 + i))" --argjson v1 $((2 + 2 * i)) --arg pf "$PFS" \
		'.vf = "" | .shared = true | .rdmaDev = "mlx5_0" | .master = [$pf] | .pfs[0].ifname = $pf
		 | .ips = [$ip] | .gids = [{index: $v1, type: "RoCE v1", ip: $ip}, {index: ($v1 + 1), type: "RoCE v2", ip: $ip}]
		 | .rdma.device = "mlx5_0" | del(.rdma.knobs)' "$f" > "$SS/roce_c${i}_net1.json"
	mkdir -p "$RS/proc/$((5000 + i))"
	echo "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod0000000${i}_1111_2222_3333_444455556666.slice/cri-containerd-$i.scope" > "$RS/proc/$((5000 + i))/cgroup"
done
cp "$T/shared.json" "$RS/rdma/qps/mlx5_0.json"
cp "$T/cm_ids.json" "$RS/rdma/cm_ids/mlx5_0.json"
pv=$((30000 + $$ % 20000)) ps=$((30001 + $$ % 20000))
RDMA_QOS_SIM_ROOT=$RV "$SIM" agent --interval 600 --listen "127.0.0.1:$pv" --log-level debug \
	--qp-census-interval 0 2> "$T/v.log" &
AV=$!
RDMA_QOS_SIM_ROOT=$RS "$SIM" agent --interval 600 --listen "127.0.0.1:$ps" --log-level debug \
	--qp-census-interval 0 2> "$T/s.log" &
AS=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$pv/metrics" > /dev/null && curl -sf "http://127.0.0.1:$ps/metrics" > /dev/null && break; sleep 0.1; done
for _ in $(seq "$RUNS"); do
	sleep 1.1; curl -sf -o "$T/v.prom" "http://127.0.0.1:$pv/metrics"
	sleep 0.05; curl -sf -o "$T/s.prom" "http://127.0.0.1:$ps/metrics"
done
kill "$AV" "$AS"; wait "$AV" "$AS" 2>/dev/null; AV="" AS=""
for side in v s; do
	for ((i = 0; i < NP; i++)); do
		got=$(awk -v p="pod=\"pu$i\"" '/^rdma_qos_vf_qps\{/ && index($0, p) { s += $2 } END { print s + 0 }' "$T/$side.prom")
		[ "$got" = "$NQ" ] || { echo "agent-bench: $side: /metrics counts $got QPs of pod pu$i, not $NQ"; exit 1; }
	done
done
MED() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
cen() { sed -n 's/.*QP census of [0-9]* attachments ([0-9]* QPs) took \([0-9.]*\) ms.*/\1/p' "$1" |
	tail -n "$RUNS" | awk '{ printf "%d\n", $1 * 1000 }' | MED; }
cv=$(cen "$T/v.log") cs=$(cen "$T/s.log")
printf '%-34s %-8s %s\n' "census of 4 pods" QPs "ms (median of $RUNS)"
printf '%-34s %-8s %s\n' "4 VFs, a device each" $((NP * NQ)) "$(awk -v a="$cv" 'BEGIN { printf "%.3f", a / 1000 }')"
printf '%-34s %-8s %s\n' "1 shared device (cm_id/sgid/cgroup)" $((NP * NQ)) "$(awk -v a="$cs" 'BEGIN { printf "%.3f", a / 1000 }')"
awk -v v="$cv" -v s="$cs" 'BEGIN { r = (v > 0) ? s / v : 0; printf "ratio shared / VFs: %.2f (goal <= 1.2)%s\n", r, (r > 1.2) ? "  NOT MET" : "" }'
