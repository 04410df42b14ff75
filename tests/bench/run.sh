#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# make bench: what rdma-qos adds to a pod start, side by side with Debian's
# Go tuning plugin and a C floor, in one interleaved run; how ADD grows with
# the node; 64 parallel ADDs on one PF; PF writes and writing syscalls of a
# steady-state ADD; ADD against kubelet's state (1/110/250 pods; over the PodResources API by Get
# on 1 and 250 pods, by List on 250), the catalog's size, and the
# whole chain (host-device + rdma-qos) against host-device alone. Table on stdout,
# build/bench/results.json, scale.png, node.png.
# Exits non-zero when a run failed (a benchmark of failing commands is void);
# targets not met are reported, not fatal.
set -euo pipefail
. "$(dirname "$0")/../sim/lib.sh"
N=${BENCH_N:-200}
NS_N=${BENCH_SCALE_N:-150}
OUT=$RQ_BUILD/bench
TUNING=${TUNING:-/usr/lib/cni/tuning}
die() { echo "bench: $*" >&2; exit 1; }
why=$(sim_can_run) || die "cannot run: $why"
[ -x "$TUNING" ] || die "no $TUNING (containernetworking-plugins)"
for t in bench floor noop cstart chain; do [ -x "$OUT/$t" ] || die "no $OUT/$t (make bench builds it)"; done
HOSTDEV=${HOSTDEV:-/usr/lib/cni/host-device}
[ -x "$HOSTDEV" ] || die "no $HOSTDEV (containernetworking-plugins)"
command -v strace >/dev/null || die "no strace"
T=$(mktemp -d /tmp/rq-bench.XXXXXX) TB=$(mktemp -d /tmp/rq-bench-bin.XXXXXX)
NS=rqbench$$ NS2=rqbenchc$$ HDEV= PSRVS=
cleanup() {
	local p
	# the PodResources servers hold sockets on the tmpfs: gone before it is unmounted
	for p in $PSRVS; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	# BENCH_KEEP=1: leave the nodes, the pod and the plans for profiling one point by hand
	if [ -n "${BENCH_KEEP:-}" ]; then echo "bench: kept $T, $TB (netns $NS $NS2)" >&2; return; fi
	ip netns del "$NS" 2>/dev/null || true
	ip netns del "$NS2" 2>/dev/null || true
	ip netns del "$NS-sh" 2>/dev/null || true
	ip link del "bs$$"0 2>/dev/null || true
	[ -z "$HDEV" ] || ip link del "$HDEV" 2>/dev/null || true
	umount "$T" 2>/dev/null || true
	rm -rf "$T" "$TB"
}
trap cleanup EXIT
# The simulated nodes live in memory, as what they stand for does on a real node:
# the state under /run/rdma-qos is on tmpfs and sysfs/configfs attributes are the
# kernel's. On a disk file system each replace-by-rename of a state file costs
# ext4's flush of the new data (auto_da_alloc), ~0.2 ms here, which no node pays.
mount -t tmpfs -o mode=0700,size=1g rqbench "$T" || die "cannot mount a tmpfs on $T"
# run copies on disk, as /opt/cni/bin is (a concurrent make relinking build/ must not
# fail or change runs; a tmpfs copy would also map differently and skew peak RSS)
mkdir "$TB/bin"
cp "$OUT/bench" "$OUT/floor" "$OUT/noop" "$OUT/cstart" "$OUT/chain" "$RQ_BUILD/rdma-qos-sim" "$TB/bin/"
BENCH=$TB/bin/bench FLOOR=$TB/bin/floor NOOP=$TB/bin/noop SIMB=$TB/bin/rdma-qos-sim CHAIN=$TB/bin/chain
CSTART=$TB/bin/cstart
trap "exit 130" INT TERM   # so that the EXIT trap cleans up
mkdir -p "$OUT"
rm -f "$OUT"/*.json "$OUT/scale.png" "$OUT/node.png"
# The baselines (issue 51): rdma-qos-sim built from git at each commit of BENCH_BASELINES
# (default: 8e5c460, before the wave that grew ADD, and the release 0.2.0), from a copy of
# the commit's tree (git archive), once: kept in $OUT/base-<commit>. Their steady ADD runs
# in the same rounds as ours, on a node of its own (each keeps its own record format).
BASELINES=${BENCH_BASELINES-8e5c460 d6c2391}
BASES=
for c in $BASELINES; do
	full=$(git -C "$RQ_SRC" rev-parse --verify -q "$c^{commit}") || die "baseline $c: no such commit"
	c=${full:0:7} d=$OUT/base-${full:0:7}
	if [ ! -x "$d/build/rdma-qos-sim" ]; then
		echo "== building the baseline $c from git (once; log $d.log)"
		rm -rf "$d" && mkdir -p "$d"
		git -C "$RQ_SRC" archive "$full" | tar -x -C "$d"
		# a make of its own: not this make's flags, jobs or B=
		env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$d" -j2 REVISION="$full" \
			build/rdma-qos-sim > "$d.log" 2>&1 ||
			{ tail -5 "$d.log" >&2; die "building baseline $c failed (log: $d.log)"; }
	fi
	cp "$d/build/rdma-qos-sim" "$TB/bin/rdma-qos-sim-$c"
	BASES="$BASES $c"
done

# the pod: a veth end as net1 in its own netns, the same for every peer
ip netns add "$NS"
ip link add "rqb$$" type veth peer name "rqb$$p"
ip link set "rqb$$" netns "$NS" name net1 && ip -n "$NS" link set net1 up
PREV=$(jq -nc --arg ns "/run/netns/$NS" \
	'{cniVersion: "1.0.0", interfaces: [{name: "net1", sandbox: $ns}]}')
P=$'\t'
# the peers that enter the pod need it intact; say so when something else on
# the machine removed it rather than report their failures as slowness
pod_ok() {
	ip -n "$NS" link show net1 > /dev/null 2>&1 ||
		die "the pod netns $NS or its net1 vanished ($1); something else removed it"
}

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
node() {   # dir vfs-per-pf [pfs]: a simulated node, fails loudly
	"$MKNODE" --root "$1" --pfs "${3:-1}" --vfs "$2" --numa-nodes 1 --rdma configfs --ecn yes \
		--dcb yes --pf-prefix bp >/dev/null
	"$MKNODE" --root "$1" pod --uid pod-bench --cpus 0-1 >/dev/null
}
vf_pci() { sim_vfs "$1" | awk -v n="$2" 'NR == n { print $2 }'; }   # dir n -> n-th VF of PF 0
ours_conf() {   # vf-pci -> the plugin's stdin
	conf_for bench 1.0.0 "{\"type\":\"rdma-qos\",\"deviceID\":\"$1\",\"numa\":\"warn\"}" "$PREV"
}
# run_once envfile stdin bin: untimed, must succeed; an ADD must print the
# result with the pod's net1 (the floor prints its stdin, the prevResult inside)
run_once() {
	env -i $(cat "$1") "$3" < "$2" > "$T/once.out" 2> "$T/once.err" &&
		{ ! grep -q '^CNI_COMMAND=ADD$' "$1" ||
		  jq -e '(.interfaces // .prevResult.interfaces)[0].name == "net1"' \
			"$T/once.out" > /dev/null; } ||
		{ echo "bench: $3 failed on $2:" >&2; cat "$T/once.out" "$T/once.err" >&2; return 1; }
}
plan_line() { printf '%s\t%s\t%s\t%s\t%s\n' "$@"; }   # name prepare stdin envfile argv
prep_script() {   # file envfile stdin bin: a prepare step run outside the timing
	printf '#!/bin/sh\nenv -i $(cat %s) %s < %s > /dev/null 2>&1\n' "$2" "$4" "$3" > "$1"
	chmod +x "$1"
}

echo "== setting up (N=$N per command, interleaved)"
# separate nodes, so that no peer disturbs another's steady state: R for the
# repeated ADD, CHECK and VERSION; R2 for a second VF of a configured PF;
# RF for "first on a PF"; RD for DEL
R=$T/node; node "$R" 4; VF=$(vf_pci "$R" 1)
R2=$T/second; node "$R2" 4; VF2A=$(vf_pci "$R2" 1) VF2=$(vf_pci "$R2" 2)
RF=$T/first; node "$RF" 4; VFF=$(vf_pci "$RF" 1)
RD=$T/del; node "$RD" 4; VFD=$(vf_pci "$RD" 1)
PF=$(sim_vfs "$R" | awk 'NR == 1 { print $1 }')
ours_conf "$VF" > "$T/ours.json"
ours_conf "$VF2A" > "$T/ours-2a.json"
ours_conf "$VF2" > "$T/ours-2.json"
ours_conf "$VFF" > "$T/ours-first.json"
ours_conf "$VFD" > "$T/ours-del.json"
conf_for bench 1.0.0 '{"type":"tuning","mtu":1400}' "$PREV" > "$T/tuning.json"
echo '{"cniVersion":"1.0.0"}' > "$T/version.json"
for c in ADD CHECK DEL VERSION; do envfile "$T/env.$c" "$c" "$R"; done
envfile "$T/env.ADD.2a" ADD "$R2" pod-a
envfile "$T/env.ADD.2" ADD "$R2" second
envfile "$T/env.DEL.2" DEL "$R2" second
envfile "$T/env.ADD.first" ADD "$RF" first
envfile "$T/env.ADD.del" ADD "$RD" del
envfile "$T/env.DEL.del" DEL "$RD" del
envfile "$T/env.ADD.tdel" ADD "$R" tdel
envfile "$T/env.DEL.tdel" DEL "$R" tdel
run_once "$T/env.ADD" "$T/ours.json" "$SIMB"      # PF now right: steady state
for c in $BASES; do   # each baseline's steady state on its own node, by its own first ADD
	RB=$T/base-$c; node "$RB" 4
	ours_conf "$(vf_pci "$RB" 1)" > "$T/ours-$c.json"; envfile "$T/env.ADD.$c" ADD "$RB"
	run_once "$T/env.ADD.$c" "$T/ours-$c.json" "$TB/bin/rdma-qos-sim-$c"
	run_once "$T/env.ADD.$c" "$T/ours-$c.json" "$TB/bin/rdma-qos-sim-$c"
done
run_once "$T/env.ADD.2a" "$T/ours-2a.json" "$SIMB" # R2's PF configured by VF 1
run_once "$T/env.ADD" "$T/tuning.json" "$TUNING"
run_once "$T/env.ADD" "$T/ours.json" "$FLOOR"
# issue 50: a pod on the PF's own RDMA device, its net1 a macvlan on a veth named as the PF
# (the simulated node's shared device, DESIGN.md), its address's GID in the device's table
RS=$T/shared
"$MKNODE" --root "$RS" --pfs 1 --vfs 1 --numa-nodes 1 --rdma configfs --ecn yes --dcb yes \
	--pf-rdma yes --pf-prefix bs$$ > "$T/shared.txt"
"$MKNODE" --root "$RS" pod --uid pod-bench --cpus 0-1 >/dev/null
SDEV=$(awk -v p="bs$$"0 '$1 == p && $3 == "-" { print $5 }' "$T/shared.txt")
"$MKNODE" --root "$RS" gid "$SDEV" --ip 10.97.0.5 --ndev net1 > /dev/null
ip link add "bs$$"0 type veth peer name "bs$$"0p && ip link set "bs$$"0 up
ip netns add "$NS-sh"
ip link add link "bs$$"0 name "rqs$$" type macvlan mode bridge
ip link set "rqs$$" netns "$NS-sh" name net1 && ip -n "$NS-sh" link set net1 up
ip -n "$NS-sh" addr add 10.97.0.5/24 dev net1
conf_for bench 1.0.0 '{"type":"rdma-qos","numa":"warn"}' "$(jq -nc --arg ns "/run/netns/$NS-sh" \
	'{cniVersion: "1.0.0", interfaces: [{name: "net1", sandbox: $ns}],
	  ips: [{address: "10.97.0.5/24", interface: 0}]}')" > "$T/ours-shared.json"
envfile "$T/env.ADD.shared" ADD "$RS" shared
sed -i "s|^CNI_NETNS=.*|CNI_NETNS=/run/netns/$NS-sh|" "$T/env.ADD.shared"
run_once "$T/env.ADD.shared" "$T/ours-shared.json" "$SIMB"   # the device now right: steady
jq -e '.shared and (.gids | length) == 2 and .gidsPending == []' \
	"$RS/run/rdma-qos/state/bench_shared_net1.json" > /dev/null ||
	die "the shared pod's ADD did not take the shared path with its GID"
cp -a "$RF" "$RF.pristine"   # before any ADD touched it
cat > "$T/reset-pf.sh" <<SH
#!/bin/sh
# a fresh node for "ADD first on a PF": a copy of the untouched one (outside the timing)
rm -rf $RF && cp -a $RF.pristine $RF
SH
chmod +x "$T/reset-pf.sh"
prep_script "$T/prep-2.sh" "$T/env.DEL.2" "$T/ours-2.json" "$SIMB"
prep_script "$T/prep-del.sh" "$T/env.ADD.del" "$T/ours-del.json" "$SIMB"
prep_script "$T/prep-tdel.sh" "$T/env.ADD.tdel" "$T/tuning.json" "$TUNING"
{
	plan_line "exec no-op (static)" - "$T/version.json" "$T/env.VERSION" "$NOOP"
	plan_line "empty main (static-pie)" - "$T/version.json" "$T/env.VERSION" "$CSTART"
	plan_line "floor ADD" - "$T/ours.json" "$T/env.ADD" "$FLOOR"
	plan_line "tuning ADD" - "$T/tuning.json" "$T/env.ADD" "$TUNING"
	plan_line "rdma-qos ADD steady" - "$T/ours.json" "$T/env.ADD" "$SIMB"
	plan_line "rdma-qos ADD steady shared" - "$T/ours-shared.json" "$T/env.ADD.shared" "$SIMB"
	plan_line "rdma-qos ADD 2nd VF" "$T/prep-2.sh" "$T/ours-2.json" "$T/env.ADD.2" "$SIMB"
	plan_line "rdma-qos ADD first on PF" "$T/reset-pf.sh" "$T/ours-first.json" "$T/env.ADD.first" \
		"$SIMB"
	plan_line "tuning CHECK" - "$T/tuning.json" "$T/env.CHECK" "$TUNING"
	plan_line "rdma-qos CHECK" - "$T/ours.json" "$T/env.CHECK" "$SIMB"
	plan_line "tuning DEL" "$T/prep-tdel.sh" "$T/tuning.json" "$T/env.DEL.tdel" "$TUNING"
	plan_line "rdma-qos DEL" "$T/prep-del.sh" "$T/ours-del.json" "$T/env.DEL.del" "$SIMB"
	plan_line "rdma-qos VERSION" - "$T/version.json" "$T/env.VERSION" "$SIMB"
	for c in $BASES; do
		plan_line "baseline $c ADD steady" - "$T/ours-$c.json" "$T/env.ADD.$c" \
			"$TB/bin/rdma-qos-sim-$c"
	done
} > "$T/plan.main"

echo "== latency and peak RSS, peers interleaved (wall time per exec, microseconds)"
W0=$(dcb_writes "$R" "$PF") W20=$(dcb_writes "$R2" "$PF")
"$BENCH" -n "$N" -j "$OUT/main.json" "$T/plan.main"
RUNPFW=$(($(dcb_writes "$R" "$PF") - W0 + $(dcb_writes "$R2" "$PF") - W20))
pod_ok "after the interleaved runs"
FIRSTW=$(dcb_writes "$RF" "$PF")
[ "$FIRSTW" -gt 0 ] || die "the last 'first on PF' ADD wrote nothing to its PF"
echo "PF writes of one 'ADD first on PF' (fake DCB counter, last run): $FIRSTW"
echo "PF writes (fake DCB counter) during the $((2 * N)) steady and 2nd-VF ADDs above: $RUNPFW"

echo "== writes on a steady-state ADD (strace -f, fake DCB counter)"
WRITING=execve,write,pwrite64,writev,pwritev,pwritev2,rename,renameat,renameat2,unlink,unlinkat
WRITING=$WRITING,rmdir,mkdir,mkdirat,ftruncate,truncate,fsync,fdatasync,link,linkat,symlink
WRITING=$WRITING,symlinkat,open,openat,creat
# traced: one ADD under strace -f; prints the -c summary and the calls that
# change a file (writes other than to stdout/stderr, renames, unlinks, mkdirs,
# truncating or exclusive-create opens; failed calls excluded); sets WSYS to
# their number and WPF to the fake DCB counter's delta
traced() {   # label root envfile stdin
	local w0
	w0=$(dcb_writes "$2" "$PF")
	# strace inside env -i: it traces the plugin alone, with the plugin's environment
	env -i $(cat "$3") "$(command -v strace)" -f -C -o "$T/strace" -e trace="$WRITING" \
		"$SIMB" < "$4" > /dev/null 2>&1
	WPF=$(($(dcb_writes "$2" "$PF") - w0))
	awk '
		/execve\("[^"]*rdma-qos-sim"/ { on = 1; next }
		on && /^[0-9]+ +[a-z]/ {
			sub(/^[0-9]+ +/, ""); name = $0; sub(/\(.*/, "", name)
			if (name ~ /^(write|pwrite64|writev|pwritev2?)$/) {
				if ($0 ~ /^[a-z0-9]+\((1|2),/) next; change = 1
			} else if (name ~ /^(open|openat|creat)$/) {
				if ($0 !~ /O_TRUNC|O_EXCL|O_WRONLY|O_RDWR|O_CREAT/) next
				change = ($0 ~ /O_TRUNC|O_EXCL/)
			} else change = (name !~ /^(fsync|fdatasync)$/)
			if ($0 ~ /= -1 /) change = 0
			n += change
			print (change ? "     changes: " : "     no change: ") $0
		}
		END { print "TOTAL " n + 0 }' "$T/strace" > "$T/wsys"
	WSYS=$(awk '/^TOTAL/ { print $2 }' "$T/wsys")
	echo "-- $1: PF writes $WPF; file-changing syscalls $WSYS (stdout/stderr excluded)"
	sed -n '/^% time/,$p' "$T/strace" | sed 's/^/   /'
	grep -v '^TOTAL' "$T/wsys" | head -16 || true
}
traced "same attachment ADDed again" "$R" "$T/env.ADD" "$T/ours.json"
PFW=$WPF WSYS1=$WSYS
"$T/prep-2.sh"
traced "second VF of a configured PF (first ADD of that VF)" "$R2" "$T/env.ADD.2" "$T/ours-2.json"
PFW2=$WPF WSYS2=$WSYS

echo "== scale: steady ADD as the node grows (interleaved, with the floor as a noise reference)"
plan_line "floor ADD" - "$T/ours.json" "$T/env.ADD" "$FLOOR" > "$T/plan.scale"
for v in 1 16 64 256; do
	d=$T/vf$v
	if [ "$v" -gt 128 ]; then node "$d" $((v / 2)) 2; else node "$d" "$v"; fi
	[ "$(sim_vfs "$d" | wc -l)" -eq "$v" ] || die "node $d has not $v VFs"
	ours_conf "$(vf_pci "$d" 1)" > "$d.json"; envfile "$d.env" ADD "$d"
	run_once "$d.env" "$d.json" "$SIMB"
	plan_line "vfs=$v" - "$d.json" "$d.env" "$SIMB" >> "$T/plan.scale"
done
# other_attachments DIR COUNT SAME: COUNT more attachments as real ADDs leave
# them (the record in the real format, other container IDs, and an entry in its
# PF's attachment index); SAME of them on the ADDing PF, the rest 16 per other
# PF, as on a node whose pods are spread over its ports (an SR-IOV PF holds at
# most 255 VFs, so no real PF index grows to 1000)
other_attachments() {
	local st=$1/run/rdma-qos/state count=$2 same=$3 own i pf tmpl
	own=$(basename "$(ls "$st"/pf/*.json)" .json)
	tmpl=$(jq -c '.attachments[0]' "$st/pf/$own.json")
	: > "$T/att"
	for i in $(seq 1 "$count"); do
		pf=$own
		[ "$i" -le "$same" ] || pf=$(printf '0000:%02x:00.0' $((0xc0 + (i - same - 1) / 16)))
		# each attachment holds a VF of its own (the plugin refuses a VF a live one holds)
		vfx=$(printf '0000:%02x:%02x.%x' $((0xd0 + i / 256)) $(((i / 8) % 32)) $((i % 8)))
		sed -e "s/\"containerID\":[[:space:]]*\"bench\"/\"containerID\":\t\"other$i\"/" \
			-e "s/\"vf\":[[:space:]]*\"[^\"]*\"/\"vf\":\t\"$vfx\"/" \
			-e "s/\"$own\"/\"$pf\"/" "$st/bench_bench_net1.json" > "$st/bench_other${i}_net1.json"
		echo "$pf other$i $vfx" >> "$T/att"
	done
	for pf in $(awk '{ print $1 }' "$T/att" | sort -u); do
		[ -e "$st/pf/$pf.json" ] || jq '.attachments = []' "$st/pf/$own.json" > "$st/pf/$pf.json"
		awk -v p="$pf" '$1 == p { print $2, $3 }' "$T/att" > "$T/cids"
		jq --rawfile cids "$T/cids" --argjson t "$tmpl" '.attachments += [$cids | split("\n")[]
			| select(. != "") | split(" ") as [$c, $v] | $t | .key = "bench_\($c)_net1"
			| .vf = $v | .pod |= sub("container bench"; "container \($c)")]' \
			"$st/pf/$pf.json" > "$T/idx"
		cp "$T/idx" "$st/pf/$pf.json"
	done
	[ "$(ls "$st" | grep -c '\.json$')" -eq $((count + 1)) ] || die "$st: records"
	[ "$(jq '.attachments | length' "$st/pf/$own.json")" -eq $((same + 1)) ] || die "$st: PF index"
}
for n in 1 100 1000 pf64 pf255; do
	d=$T/rec$n; node "$d" 4
	ours_conf "$(vf_pci "$d" 1)" > "$d.json"; envfile "$d.env" ADD "$d"
	run_once "$d.env" "$d.json" "$SIMB"
	case $n in
	pf*) other_attachments "$d" $((${n#pf} - 1)) $((${n#pf} - 1)); name=pf-index=${n#pf} ;;
	*) other_attachments "$d" $((n - 1)) 0; name=records=$n ;;
	esac
	run_once "$d.env" "$d.json" "$SIMB"   # the plugin accepts that state
	plan_line "$name" - "$d.json" "$d.env" "$SIMB" >> "$T/plan.scale"
done
pod_ok "before the scale runs"
"$BENCH" -n "$NS_N" -j "$OUT/scale.json" "$T/plan.scale"
pod_ok "after the scale runs"

echo "== node scale: kubelet state, catalog size, the whole chain (interleaved, with the floor)"
# gen_catalog FILE NS PROFILES: an admin's catalog of that size (pretty-printed, as written by
# hand); the bench pod's namespace "ai" is one entry among them and resolves to roce-lossless,
# so that the ADD stays steady
gen_catalog() {
	mkdir -p "$(dirname "$1")"
	jq -n --argjson nns "$2" --argjson np "$3" '
	def prof(i): {trust: "dscp", dscp2prio: {"26": 3, "48": 6, "\(10 + (i % 20))": (i % 8)},
		pfc: [3], ecn: [3], ecnRequired: false, trafficClass: (96 + (i % 32)),
		ets: {tcBw: [10, 10, 10, 40, 10, 10, 10, 0], prioTc: [0, 1, 2, 3, 4, 5, 6, 7],
			tsa: ["ets", "ets", "ets", "ets", "ets", "ets", "ets", "strict"]}};
	{profiles: ([range($np) | {key: "team-\(.)-rdma", value: prof(.)}] | from_entries),
	 namespaces: (([range($nns) | (if . == ($nns / 2 | floor) then {key: "ai",
		value: {default: "roce-lossless", allow: ["roce-lossless"], inline: false}}
		else {key: "ns-\(.)", value: {default: "team-\(. % $np)-rdma",
		allow: ["team-\(. % $np)-rdma", "team-\((. + 1) % $np)-rdma", "roce-lossless"],
		inline: false}} end)] | from_entries) + {"*": {default: "roce-lossless",
		allow: ["roce-lossless"]}}),
	 node: {pf: "ensure"}}' > "$1"
}
verdict() { jq -r .numaVerdict "$1/run/rdma-qos/state/bench_bench_net1.json"; }
plan_line "floor ADD" - "$T/ours.json" "$T/env.ADD" "$FLOOR" > "$T/plan.node"
for k in 1 110 250; do
	d=$T/kube$k; node "$d" 4
	"$(dirname "$0")/kubelet-state.sh" "$d" "$k" pod-bench
	ours_conf "$(vf_pci "$d" 1)" > "$d.json"; envfile "$d.env" ADD "$d"
	run_once "$d.env" "$d.json" "$SIMB"
	# the point measures reading kubelet's evidence: it must be there and agree
	[ "$(verdict "$d")" = aligned ] || die "kubelet=$k: NUMA verdict $(verdict "$d"), not aligned"
	echo "kubelet=$k: device checkpoint $(stat -c %s \
		"$d/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint") bytes"
	plan_line "kubelet pods=$k" - "$d.json" "$d.env" "$SIMB" >> "$T/plan.node"
done
# the same evidence over kubelet's PodResources API: a grpcio server (tests/simnode/
# podres_server.py) serves the files' placements from memory, as kubelet does, on the node's
# socket; node.numaSource api, so a point that fell back to the files would fail its check.
# Get as kubelet 1.34 answers it; on 250 pods also List, as most clusters answer (kubelet
# 1.26, and 1.27-1.33 with KubeletPodResourcesGet off: Get refused, List on the same connection)
mkdir -p "$T/pb"
protoc --python_out="$T/pb" -I"$RQ_SRC/pkg/podres" "$RQ_SRC/pkg/podres/api.proto" ||
	die "protoc api.proto (protobuf-compiler)"
for k in 1 250 list250; do
	case $k in
	list*) pods=${k#list} mode=1.27-1.33 via=List name="kubelet API List pods=${k#list}" ;;
	*) pods=$k mode=1.34 via=Get name="kubelet API pods=$k" ;;
	esac
	d=$T/kapi$k; node "$d" 4
	"$(dirname "$0")/kubelet-state.sh" "$d" "$pods" pod-bench
	mkdir -p "$d/etc/cni/rdma-qos"
	echo '{"namespaces":{"*":{"default":"roce-lossless","allow":["roce-lossless"]}},"node":{"numaSource":"api"}}' \
		> "$d/etc/cni/rdma-qos/profiles.json"
	/usr/bin/python3 "$RQ_SRC/tests/simnode/podres_server.py" --root "$d" --pb "$T/pb" \
		--mode "$mode" --pod ai/bench=pod-bench > "$T/psrv$k.log" 2>&1 &
	PSRVS="$PSRVS $!"
	for i in $(seq 100); do grep -q ready "$T/psrv$k.log" && break; sleep 0.1; done
	grep -q ready "$T/psrv$k.log" || die "podres server: $(cat "$T/psrv$k.log")"
	ours_conf "$(vf_pci "$d" 1)" > "$d.json"; envfile "$d.env" ADD "$d"
	run_once "$d.env" "$d.json" "$SIMB"
	[ "$(verdict "$d")" = aligned ] || die "$name: NUMA verdict $(verdict "$d"), not aligned"
	src=$(jq -r .numaSource "$d/run/rdma-qos/state/bench_bench_net1.json")
	[ "$src" = "PodResources API ($via)" ] || die "$name: evidence from $src"
	plan_line "$name" - "$d.json" "$d.env" "$SIMB" >> "$T/plan.node"
done
for c in none 3x2 200x50; do
	d=$T/cat$c; node "$d" 4
	[ "$c" = none ] || gen_catalog "$d/etc/cni/rdma-qos/profiles.json" "${c%x*}" "${c#*x}"
	ours_conf "$(vf_pci "$d" 1)" > "$d.json"; envfile "$d.env" ADD "$d"
	run_once "$d.env" "$d.json" "$SIMB"
	plan_line "catalog=$c" - "$d.json" "$d.env" "$SIMB" >> "$T/plan.node"
done
[ "$c" = none ] || echo "catalog 200x50: $(stat -c %s "$d/etc/cni/rdma-qos/profiles.json") bytes"
# GPUDirect RDMA (issue 44): an 8-GPU pod on a node whose PF and GPUs sit below PCIe switches,
# its VF judged against all eight (every /proc/driver/nvidia information file read, the config
# spaces of the chosen pair's bridges), against the same ADD with gdr off
d=$T/gdr8; node "$d" 4
"$MKNODE" --root "$d" move 0000:81:00.0 --under pci0000:00/0000:00:01.0/0000:10:00.0/0000:11:00.0
for g in 0 1 2 3 4 5 6 7; do
	# GPU 0 below the PF's switch (PIX), the others below switches of their own
	sw="0000:00:0$((g / 2 + 1)).0/0000:4$g:00.0"
	[ "$g" = 0 ] && sw=0000:00:01.0/0000:10:00.0
	"$MKNODE" --root "$d" gpu "0000:2$g:00.0" --under "pci0000:00/$sw/0000:3$g:00.0" \
		--uuid "GPU-0000000$g-0000-0000-0000-000000000000" --minor "$g" || die "mknode gpu"
	"$MKNODE" --root "$d" config "0000:3$g:00.0" --cap gen5x16 --type down --acs 11 || die "mknode config"
done
"$MKNODE" --root "$d" peermem registered
"$MKNODE" --root "$d" pod --uid pod-bench $(for g in 0 1 2 3 4 5 6 7; do
	echo --device "nvidia.com/gpu=GPU-0000000$g-0000-0000-0000-000000000000@0"; done) > /dev/null
for m in warn off; do
	conf_for bench 1.0.0 "{\"type\":\"rdma-qos\",\"deviceID\":\"$(vf_pci "$d" 1)\",\"gdr\":\"$m\"}" "$PREV" > "$d.$m.json"
done
envfile "$d.env" ADD "$d"
run_once "$d.env" "$d.warn.json" "$SIMB"
[ "$(jq -r .gdrVerdict "$d/run/rdma-qos/state/bench_bench_net1.json")" != "" ] ||
	die "gdr 8 GPUs: no verdict recorded"
run_once "$d.env" "$d.off.json" "$SIMB"
plan_line "gdr 8-GPU pod" - "$d.warn.json" "$d.env" "$SIMB" >> "$T/plan.node"
plan_line "gdr off, same pod" - "$d.off.json" "$d.env" "$SIMB" >> "$T/plan.node"
# the chain as a runtime runs it: host-device moves a veth "VF" into a pod of its own, then
# rdma-qos ADDs with host-device's result; each run starts from the chain's DEL (untimed)
# (a veth named as the simulated VF's netdev, as the sim suite makes them)
d=$T/chain; node "$d" 4; VFC=$(vf_pci "$d" 1)
ip netns add "$NS2"
HDEV=$(sim_vfs "$d" | awk 'NR == 1 { print $3 }')
[ -n "$HDEV" ] && ! ip link show "$HDEV" > /dev/null 2>&1 || die "no free name for the chain's VF"
ip link add "$HDEV" type veth peer name "${HDEV}p"
conf_for bench 1.0.0 "{\"type\":\"host-device\",\"device\":\"$HDEV\"}" > "$T/hd.json"
jq -c '. + {prevResult: "__PREV__"}' <<< "$(ours_conf "$VFC")" |
	sed 's/"__PREV__"/__PREV__/' > "$T/chain-rq.json"
ours_conf "$VFC" > "$T/chain-rq-del.json"
sed -e "s#^CNI_NETNS=.*#CNI_NETNS=/run/netns/$NS2#" -e "s#^CNI_CONTAINERID=.*#CNI_CONTAINERID=chain#" \
	-e "s#^RDMA_QOS_SIM_ROOT=.*#RDMA_QOS_SIM_ROOT=$d#" "$T/env.ADD" > "$T/env.chain.ADD"
sed 's/^CNI_COMMAND=ADD/CNI_COMMAND=DEL/' "$T/env.chain.ADD" > "$T/env.chain.DEL"
cat > "$T/chain-del.sh" <<SH
#!/bin/sh
# the chain's DEL, in a runtime's order (untimed): rdma-qos, then host-device
env -i \$(cat $T/env.chain.DEL) $SIMB < $T/chain-rq-del.json > /dev/null 2>&1
env -i \$(cat $T/env.chain.DEL) $HOSTDEV < $T/hd.json > /dev/null 2>&1
exit 0
SH
chmod +x "$T/chain-del.sh"
env -i $(cat "$T/env.chain.ADD") "$CHAIN" "$HOSTDEV" "$T/hd.json" "$SIMB" "$T/chain-rq.json" \
	> "$T/chain.out" 2> "$T/chain.err" || { cat "$T/chain.out" "$T/chain.err" >&2; die "the chain failed"; }
jq -e '.interfaces | any(.name == "net1")' "$T/chain.out" > /dev/null ||
	die "the chain's result has no net1: $(cat "$T/chain.out")"
"$T/chain-del.sh"
plan_line "host-device ADD alone" "$T/chain-del.sh" "$T/hd.json" "$T/env.chain.ADD" \
	"$CHAIN $HOSTDEV $T/hd.json" >> "$T/plan.node"
plan_line "chain host-device + rdma-qos ADD" "$T/chain-del.sh" "$T/hd.json" "$T/env.chain.ADD" \
	"$CHAIN $HOSTDEV $T/hd.json $SIMB $T/chain-rq.json" >> "$T/plan.node"
pod_ok "before the node-scale runs"
"$BENCH" -n "$NS_N" -j "$OUT/node.json" "$T/plan.node"
pod_ok "after the node-scale runs"

echo "== 64 parallel ADDs on one PF (64 VFs, 64 pods): PF fresh, then the same again"
d=$T/par; node "$d" 64
i=0
for vf in $(sim_vfs "$d" | awk '{ print $2 }'); do
	ours_conf "$vf" > "$d.$i.json"; envfile "$d.env.$i" ADD "$d" "par$i"; i=$((i + 1))
done
[ "$i" -eq 64 ] || die "$i VFs, not 64"
plan_line "parallel ADD x64 fresh PF" - "$d.{i}.json" "$d.env.{i}" "$SIMB" > "$T/plan.par"
plan_line "parallel ADD x64 again" - "$d.{i}.json" "$d.env.{i}" "$SIMB" >> "$T/plan.par"
"$BENCH" -p 64 -j "$OUT/parallel.json" "$T/plan.par"
PARREC=$(ls "$d/run/rdma-qos/state/" | grep -c '\.json$' || true)
PARIDX=$(jq '.attachments | length' "$d"/run/rdma-qos/state/pf/*.json)
PARPFW=$(dcb_writes "$d" "$PF")
echo "after both bursts: $PARREC/64 records, $PARIDX/64 in the PF index," \
	"PF writes $PARPFW (all by the first burst's winner)"

RES=$OUT/results.json
jq -n --slurpfile m "$OUT/main.json" --slurpfile s "$OUT/scale.json" --slurpfile k "$OUT/node.json" \
	--slurpfile p "$OUT/parallel.json" --argjson n "$N" \
	--argjson pfw "$PFW" --argjson pfw2 "$PFW2" --argjson runpfw "$RUNPFW" \
	--argjson wsys "$WSYS1" --argjson wsys2 "$WSYS2" --argjson parrec "$PARREC" \
	--argjson paridx "$PARIDX" --argjson parpfw "$PARPFW" --argjson firstw "$FIRSTW" \
	--argjson bases "$(printf '%s\n' $BASES | jq -R 'select(. != "")' | jq -sc .)" \
	-f "$(dirname "$0")/results.jq" > "$RES"

echo
echo "== summary (medians of interleaved runs; ratios against peers measured in the same rounds)"
jq -r '.table[] | [.name, .p50_ms, .p10_ms, .p90_ms, .vs_floor, .vs_tuning, .rss_kib, .ok] | @tsv' \
	"$RES" | awk -F'\t' '
	BEGIN { printf "%-26s %9s %9s %9s %9s %10s %9s %9s\n", "command", "median", "p10", "p90",
		"vs floor", "vs tuning", "peak RSS", "ok" }
	{ printf "%-26s %6.2f ms %6.2f ms %6.2f ms %9s %10s %5s KiB %9s\n",
		$1, $2, $3, $4, $5, $6, $7, $8 }'
echo
jq -r '.ratios | "RATIOS  steady ADD / C floor ADD    = \(.ours_over_floor)x",
	"        steady ADD / Go tuning ADD  = \(.ours_over_tuning)x",
	"        2nd-VF ADD / C floor ADD    = \(.second_vf_over_floor)x",
	"        2nd-VF ADD / Go tuning ADD  = \(.second_vf_over_tuning)x",
	"        steady ADD peak RSS / C floor   = \(.ours_rss_over_floor)x" +
	" (medians of the peaks per run: \(.ours_rss_kib) / \(.floor_rss_kib) KiB)",
	(.baselines[] | "        steady ADD / baseline \(.commit)  = \(.time)x, peak RSS \(.rss)x" +
	" (\(.commit) / C floor: \(.over_floor)x)"),
	"        C floor / Go tuning         = \(.floor_over_tuning)x" +
	" (the lowest ratio any exec-based plugin can reach here)",
	"        steady ADD / C floor ADD    = \(.scale_ours_over_floor)x in the scale rounds" +
	" (records=1; no writing peers between runs)",
	"        CHECK / C floor ADD         = \(.check_over_floor)x",
	"        DEL / C floor ADD           = \(.del_over_floor)x",
	"        kubelet 250 pods / 1 pod    = \(.kubelet250_over_kubelet1)x" +
	" (110 pods: \(.kubelet110_over_kubelet1)x; 1 pod / C floor: \(.kubelet1_over_floor)x)",
	"        API 250 pods / API 1 pod    = \(.api250_over_api1)x" +
	" (API 1 pod / C floor: \(.api1_over_floor)x; API 250 pods / C floor: \(.api250_over_floor)x)",
	"        API List 250 / API Get 250  = \(.apilist250_over_api250)x" +
	" (List 250 pods / API 1 pod: \(.apilist250_over_api1)x; / C floor: \(.apilist250_over_floor)x)",
	"        catalog 200x50 / none       = \(.catalog200_over_none)x" +
	" (3x2: \(.catalog3_over_none)x)",
	"        host-device + rdma-qos / host-device alone = \(.chain_over_hostdevice)x",
	"        gdr 8-GPU pod / gdr off      = \(.gdr8_over_off)x"' "$RES"
echo
jq -r '.node_table[] | "node    \(.name | (. + "                                  ")[:34])" +
	" median \(.p50_ms) ms (p10 \(.p10_ms), p90 \(.p90_ms)), peak RSS \(.rss_kib) KiB"' "$RES"
echo
jq -r '.scale_table[] | "scale   \(.name | (. + "            ")[:12]) median \(.p50_ms) ms" +
	" (p10 \(.p10_ms), p90 \(.p90_ms))"' "$RES"
jq -r '.parallel_table[] | "burst   \(.name): \(.ok) ok, p50 \(.p50_ms) ms," +
	" p99 \(.p99_ms) ms, wall \(.wall_ms) ms"' "$RES"
echo
echo "TARGETS"
jq -r '.targets[] | "  \(if .met then "met    " else "NOT MET" end)  \(.target):" +
	" \(.measured)"' "$RES"
echo "(full numbers: $RES)"

curve() {   # prefix: "x median p10 p90" lines (ms) of the scale points named prefix=x
	jq -r --arg p "$1" '.scale | to_entries[] | select(.key | startswith($p)) | .value as $v |
		"\(.key | ltrimstr($p)) \($v.p50_us / 1000) \($v.p10_us / 1000) \($v.p90_us / 1000)"' "$RES"
}
if command -v gnuplot >/dev/null; then
	curve vfs= > "$T/vfs.dat"
	curve records= > "$T/rec.dat"
	{ head -1 "$T/rec.dat"; curve pf-index=; } > "$T/pfi.dat"   # 1 record = 1 in the index
	FLOORMS=$(jq '.scale["floor ADD"].p50_us / 1000' "$RES")
	gnuplot <<GP
set terminal png size 1100,440
set output "$OUT/scale.png"
set multiplot layout 1,2 title \
  "rdma-qos-sim steady-state ADD as the node grows (median, p10-p90; flat line: C floor median)"
set ylabel "ms per ADD (fork+exec to exit)"; set yrange [0:*]; set key bottom right
set logscale x 2; set xrange [0.7:370]; set xlabel "VFs on the node"
plot "$T/vfs.dat" using 1:2:3:4 with yerrorlines lw 2 title "ADD", \
	$FLOORMS with lines lw 2 title "C floor median"
set logscale x 10; set xrange [0.7:1500]
set xlabel "attachments on the node / in the ADDing PF's index"
plot "$T/rec.dat" using 1:2:3:4 with yerrorlines lw 2 title "ADD, records (16 per other PF)", \
	"$T/pfi.dat" using 1:2:3:4 with yerrorlines lw 2 title "ADD, attachments on the same PF", \
	$FLOORMS with lines lw 2 title "C floor median"
unset multiplot
GP
	echo "scale curves: $OUT/scale.png"
	# node scale: ADD against kubelet's state and the catalog, each with its reference
	jq -r '.node | to_entries[] | select(.key | startswith("kubelet pods=")) |
		"\(.key | ltrimstr("kubelet pods=")) \(.value.p50_us / 1000) \(.value.p10_us / 1000)" +
		" \(.value.p90_us / 1000)"' "$RES" > "$T/kube.dat"
	jq -r '.node | to_entries[] | select(.key | startswith("catalog=")) |
		"\(.key | ltrimstr("catalog=")) \(.value.p50_us / 1000) \(.value.p10_us / 1000)" +
		" \(.value.p90_us / 1000)"' "$RES" | awk '{ print NR - 1, $0 }' > "$T/cat.dat"
	jq -r '.node | to_entries[] | select(.key | test("host-device")) |
		"\(.key) \(.value.p50_us / 1000)"' "$RES" > "$T/chain.dat"
	NFLOOR=$(jq '.node["floor ADD"].p50_us / 1000' "$RES")
	HD=$(jq '.node["host-device ADD alone"].p50_us / 1000' "$RES")
	CH=$(jq '.node["chain host-device + rdma-qos ADD"].p50_us / 1000' "$RES")
	gnuplot <<GP
set terminal png size 1100,440
set output "$OUT/node.png"
set multiplot layout 1,2 title sprintf("rdma-qos-sim ADD at node scale (median, p10-p90). Pod start: host-device %.2f ms, host-device + rdma-qos %.2f ms", $HD, $CH)
set ylabel "ms per ADD (fork+exec to exit)"; set yrange [0:*]; set key bottom right
set xlabel "pods in kubelet's checkpoints (8 GPUs + 8 rail VFs each; 250 pods = 5.7 MB)"
set xrange [-10:270]
plot "$T/kube.dat" using 1:2:3:4 with yerrorlines lw 2 title "ADD", \
	$NFLOOR with lines lw 2 title "C floor median"
set xlabel "node catalog: namespaces x profiles"; set xrange [-0.5:2.5]
plot "$T/cat.dat" using 1:3:4:5:xticlabels(2) with yerrorlines lw 2 title "ADD", \
	$NFLOOR with lines lw 2 title "C floor median"
unset multiplot
GP
	echo "node-scale curves: $OUT/node.png"
fi
FAILED=$(jq -r '[.main, .scale, .parallel, .node | to_entries[] | select(.value.fails > 0)
	| "\(.key) (\(.value.fails) failed; last: \(.value.last_fail))"] | join(", ")' "$RES")
[ -z "$FAILED" ] || die "FAILED runs: $FAILED"
