#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# make bench: what rdma-qos adds to a pod start, side by side with Debian's
# Go tuning plugin and a C floor, in one interleaved run; how ADD grows with
# the node; 64 parallel ADDs on one PF; PF writes and writing syscalls of a
# steady-state ADD. Table on stdout, build/bench/results.json, scale.png.
set -euo pipefail
. "$(dirname "$0")/../sim/lib.sh"
N=${BENCH_N:-200}
NS_N=${BENCH_SCALE_N:-150}
OUT=$RQ_BUILD/bench
BENCH=$OUT/bench FLOOR=$OUT/floor TUNING=${TUNING:-/usr/lib/cni/tuning}
why=$(sim_can_run) || { echo "bench: cannot run: $why" >&2; exit 1; }
[ -x "$TUNING" ] || { echo "bench: no $TUNING (containernetworking-plugins)" >&2; exit 1; }
T=$(mktemp -d /tmp/rq-bench.XXXXXX)
NS=rqbench$$
cleanup() { ip netns del "$NS" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
mkdir -p "$OUT"

# the pod: a veth end as net1 in its own netns, the same for every peer
ip netns add "$NS"
ip link add "rqb$$" type veth peer name "rqb$$p"
ip link set "rqb$$" netns "$NS" name net1 && ip -n "$NS" link set net1 up
PREV="{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"net1\",\"sandbox\":\"/run/netns/$NS\"}]}"

envfile() {   # file cmd root [containerid]
	cat > "$1" <<ENV
CNI_COMMAND=$2
CNI_CONTAINERID=${4:-bench}
CNI_NETNS=/run/netns/$NS
CNI_IFNAME=net1
CNI_PATH=/usr/lib/cni
CNI_ARGS=IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=bench;K8S_POD_UID=pod-bench
PATH=/usr/sbin:/usr/bin:/sbin:/bin
RDMA_QOS_SIM_ROOT=$3
ENV
}
node() {   # dir vfs -> first VF's PCI on stdout
	"$MKNODE" --root "$1" --pfs 1 --vfs "$2" --numa-nodes 1 --rdma configfs --ecn yes --dcb yes --pf-prefix bp >/dev/null
	"$MKNODE" --root "$1" pod --uid pod-bench --cpus 0-1 >/dev/null
	sim_vfs "$1" | awk 'NR == 1 { print $2 }'
}
ours_conf() { conf_for bench 1.0.0 "{\"type\":\"rdma-qos\",\"deviceID\":\"$1\",\"numa\":\"warn\"}" "$PREV"; }
run_once() {  # envfile stdin bin
	env -i $(cat "$1") "$3" < "$2" > /dev/null 2>&1
}

echo "== setting up (N=$N per command, interleaved)"
# separate nodes, so that no peer disturbs another's steady state:
# R for steady ADD, CHECK, VERSION; RF for "first on a PF"; RD for DEL
R=$T/node; VF=$(node "$R" 4)
RF=$T/first; VFF=$(node "$RF" 4)
RD=$T/del; VFD=$(node "$RD" 4)
ours_conf "$VF" > "$T/ours.json"
ours_conf "$VFF" > "$T/ours-first.json"
ours_conf "$VFD" > "$T/ours-del.json"
conf_for bench 1.0.0 '{"type":"tuning","mtu":1400}' "$PREV" > "$T/tuning.json"
echo '{"cniVersion":"1.0.0"}' > "$T/version.json"
for c in ADD CHECK DEL VERSION; do envfile "$T/env.$c" "$c" "$R"; done
envfile "$T/env.ADD.first" ADD "$RF" first
envfile "$T/env.ADD.del" ADD "$RD" del
envfile "$T/env.DEL.del" DEL "$RD" del
envfile "$T/env.ADD.tdel" ADD "$R" tdel
envfile "$T/env.DEL.tdel" DEL "$R" tdel
run_once "$T/env.ADD" "$T/ours.json" "$RQ_BUILD/rdma-qos-sim"     # PF now right: steady state
run_once "$T/env.ADD" "$T/tuning.json" "$TUNING"
PF=$(sim_vfs "$R" | awk 'NR == 1 { print $1 }')
cat > "$T/reset-pf.sh" <<SH
#!/bin/sh
# a fresh PF for "ADD first on a PF" (outside the timing)
echo '{"writes": 0}' > $RF/dcb/$PF.json
rm -f $RF/var/lib/cni/rdma-qos/bench_first_net1.json $RF/var/lib/cni/rdma-qos/pf/*.json
for f in $RF/sys/class/net/$PF/ecn/roce_*/enable/*; do echo 0 > \$f; done
for f in $RF/sys/kernel/config/rdma_cm/*/ports/1/default_roce_tos; do echo 0 > \$f; done
SH
cat > "$T/prep-del.sh" <<SH
#!/bin/sh
env -i \$(cat $T/env.ADD.del) $RQ_BUILD/rdma-qos-sim < $T/ours-del.json > /dev/null 2>&1
env -i \$(cat $T/env.ADD.tdel) $TUNING < $T/tuning.json > /dev/null 2>&1
exit 0
SH
chmod +x "$T/reset-pf.sh" "$T/prep-del.sh"
P=$'\t'
cat > "$T/plan.main" <<PLAN
floor ADD${P}-${P}$T/ours.json${P}$T/env.ADD${P}$FLOOR
tuning ADD${P}-${P}$T/tuning.json${P}$T/env.ADD${P}$TUNING
rdma-qos ADD steady${P}-${P}$T/ours.json${P}$T/env.ADD${P}$RQ_BUILD/rdma-qos-sim
rdma-qos ADD first on PF${P}$T/reset-pf.sh${P}$T/ours-first.json${P}$T/env.ADD.first${P}$RQ_BUILD/rdma-qos-sim
tuning CHECK${P}-${P}$T/tuning.json${P}$T/env.CHECK${P}$TUNING
rdma-qos CHECK${P}-${P}$T/ours.json${P}$T/env.CHECK${P}$RQ_BUILD/rdma-qos-sim
tuning DEL${P}$T/prep-del.sh${P}$T/tuning.json${P}$T/env.DEL.tdel${P}$TUNING
rdma-qos DEL${P}$T/prep-del.sh${P}$T/ours-del.json${P}$T/env.DEL.del${P}$RQ_BUILD/rdma-qos-sim
rdma-qos VERSION${P}-${P}$T/version.json${P}$T/env.VERSION${P}$RQ_BUILD/rdma-qos-sim
PLAN
echo "== latency and peak RSS, peers interleaved"
"$BENCH" -n "$N" -j "$OUT/main.json" "$T/plan.main"

echo "== writes on a steady-state ADD"
W0=$(dcb_writes "$R" "$PF")
strace -f -o "$T/strace" -e trace=write,pwrite64,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat,fsync,fdatasync,ftruncate \
	env -i $(cat "$T/env.ADD") "$RQ_BUILD/rdma-qos-sim" < "$T/ours.json" > /dev/null 2>&1
W1=$(dcb_writes "$R" "$PF")
WSYS=$(grep -v -E '^[0-9]+ +(write\((1|2),|\+\+\+|---)' "$T/strace" | grep -c -E '^[0-9]+ +[a-z]' || true)
echo "PF writes (fake DCB counter): $((W1 - W0)); writing syscalls other than stdout/stderr: $WSYS"
grep -v -E '^[0-9]+ +(write\((1|2),|\+\+\+|---)' "$T/strace" | grep -E '^[0-9]+ +[a-z]' | head -5 || true

echo "== scale: steady ADD as the node grows (interleaved)"
: > "$T/plan.scale"
for v in 1 16 64 256; do
	d=$T/vf$v; vf=$(node "$d" "$v")
	ours_conf "$vf" > "$d.json"; envfile "$d.env" ADD "$d"
	run_once "$d.env" "$d.json" "$RQ_BUILD/rdma-qos-sim"
	printf 'vfs=%s%s-%s%s%s%s%s%s\n' "$v" "$P" "$P" "$d.json" "$P" "$d.env" "$P" "$RQ_BUILD/rdma-qos-sim" >> "$T/plan.scale"
done
for n in 1 100 1000; do
	d=$T/rec$n; vf=$(node "$d" 4)
	ours_conf "$vf" > "$d.json"; envfile "$d.env" ADD "$d"
	run_once "$d.env" "$d.json" "$RQ_BUILD/rdma-qos-sim"
	# n-1 more attachment records of the real format, for other containers
	for i in $(seq 2 "$n"); do
		jq --arg c "other$i" '.containerID = $c' "$d/var/lib/cni/rdma-qos/bench_bench_net1.json" \
			> "$d/var/lib/cni/rdma-qos/bench_other${i}_net1.json"
	done
	printf 'records=%s%s-%s%s%s%s%s%s\n' "$n" "$P" "$P" "$d.json" "$P" "$d.env" "$P" "$RQ_BUILD/rdma-qos-sim" >> "$T/plan.scale"
done
"$BENCH" -n "$NS_N" -j "$OUT/scale.json" "$T/plan.scale"

echo "== 64 parallel ADDs on one PF (64 VFs, PF fresh)"
d=$T/par; node "$d" 64 > /dev/null
i=0
for vf in $(sim_vfs "$d" | awk '{ print $2 }'); do
	ours_conf "$vf" > "$d.$i.json"; envfile "$d.env.$i" ADD "$d" "par$i"; i=$((i + 1))
done
printf 'parallel ADD x64%s-%s%s%s%s%s%s\n' "$P" "$P" "$d.{i}.json" "$P" "$d.env.{i}" "$P" "$RQ_BUILD/rdma-qos-sim" > "$T/plan.par"
"$BENCH" -p 64 -j "$OUT/parallel.json" "$T/plan.par"
PARREC=$(ls "$d/var/lib/cni/rdma-qos/" | grep -c '\.json$')
echo "records after the parallel ADDs: $PARREC/64; PF writes: $(dcb_writes "$d" bp0)"

# results.json with the targets
jq -n --slurpfile m "$OUT/main.json" --slurpfile s "$OUT/scale.json" --slurpfile p "$OUT/parallel.json" \
	--argjson pfw $((W1 - W0)) --argjson wsys "$WSYS" --argjson parrec "$PARREC" '
	($m[0]) as $m | ($s[0]) as $s | ($p[0]) as $p |
	($m["rdma-qos ADD steady"].p50_us) as $ours |
	([$s[] | .p50_us] | max) as $smax | ([$s[] | .p50_us] | min) as $smin |
	{main: $m, scale: $s, parallel: $p,
	 steady_add: {pf_writes: $pfw, writing_syscalls: $wsys},
	 ratios: {ours_over_floor: ($ours / $m["floor ADD"].p50_us),
		  ours_over_tuning: ($ours / $m["tuning ADD"].p50_us),
		  scale_spread: (($smax - $smin) / $smin)},
	 targets: {
	  "steady ADD <= 1.5x C floor": (($ours / $m["floor ADD"].p50_us) <= 1.5),
	  "steady ADD <= 0.25x Go tuning ADD": (($ours / $m["tuning ADD"].p50_us) <= 0.25),
	  "peak RSS < 1.5 MiB": ($m["rdma-qos ADD steady"].max_rss_kib < 1536),
	  "ADD flat within 20% across scale points": ((($smax - $smin) / $smin) <= 0.20),
	  "zero PF writes on steady ADD": ($pfw == 0),
	  "no failures among 64 parallel ADDs": ($p["parallel ADD x64"].fails == 0 and $parrec == 64)}}' \
	> "$OUT/results.json"
echo "== ratios and targets (medians; full numbers in $OUT/results.json)"
jq -r '.ratios | to_entries[] | "\(.key): \(.value * 100 | round / 100)"' "$OUT/results.json"
jq -r '.targets | to_entries[] | "\(if .value then "met    " else "NOT MET" end)  \(.key)"' "$OUT/results.json"

if command -v gnuplot >/dev/null; then
	jq -r '.scale | to_entries[] | select(.key | startswith("vfs=")) | "\(.key | ltrimstr("vfs=")) \(.value.p50_us) \(.value.p10_us) \(.value.p90_us)"' "$OUT/results.json" > "$T/vfs.dat"
	jq -r '.scale | to_entries[] | select(.key | startswith("records=")) | "\(.key | ltrimstr("records=")) \(.value.p50_us) \(.value.p10_us) \(.value.p90_us)"' "$OUT/results.json" > "$T/rec.dat"
	gnuplot <<GP
set terminal png size 1000,420
set output "$OUT/scale.png"
set multiplot layout 1,2 title "rdma-qos steady-state ADD (median, p10-p90) as the node grows"
set logscale x 2
set xlabel "VFs on the node"; set ylabel "microseconds"; set yrange [0:*]; set xrange [0.7:370]
plot "$T/vfs.dat" using 1:2:3:4 with yerrorlines title "ADD"
set logscale x 10
set xrange [0.7:1500]
set xlabel "attachment records on the node"
plot "$T/rec.dat" using 1:2:3:4 with yerrorlines title "ADD"
unset multiplot
GP
	echo "scale curves: $OUT/scale.png"
fi
