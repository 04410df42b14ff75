# SPDX-License-Identifier: Apache-2.0
# Shared helpers for the simulated-node tests and the demo: build a node,
# make veth "VFs", and run a conflist [host-device, rdma-qos-sim] exactly as
# a runtime does (ADD in order with prevResult, DEL in reverse).
: "${RQ_BUILD:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build}"
RQ_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
MKNODE="$RQ_SRC/tests/simnode/mknode"
SIM="$RQ_BUILD/rdma-qos-sim"
HOSTDEV=${HOSTDEV:-/usr/lib/cni/host-device}
CNI_BIN_DIR=${CNI_BIN_DIR:-/usr/lib/cni}
# free_port: a port for a test's listener that no suite running beside this one gets too
. "$RQ_SRC/tests/sim/free_port.sh"

PASS=0 FAIL=0
pass() { PASS=$((PASS + 1)); echo "PASS: $*"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL: $*"; }
# check DESC CMD...: CMD counted as a PASS or a FAIL; returns CMD's status, so that
# `check ... || diagnostic` shows the evidence of a failure (a suite calling check runs
# without set -e: a failing check is counted and the suite goes on to its summary)
# (no local but d: the condition runs in check's scope and may read the caller's variables)
check() { local d="$1"; shift; if "$@"; then pass "$d"; else set -- $?; fail "$d"; return "$1"; fi; }
# same A B: A and B are the same text and not empty. [ "$(X)" = "$(Y)" ] passed when X and Y
# both printed nothing (both failed, or found nothing); same "$(X)" "$(Y)" does not. One
# definition a lib (tests/sim, tests/vm, tests/deploy, tests/docs/readme_path.sh), all alike.
same() { [ -n "$1" ] && [ "$1" = "$2" ]; }
# skip_covered MESSAGE [COVERAGE]: a case this run cannot do. COVERAGE, written
# '(covered: FILE "DESC")', names the check (check "DESC" in FILE, a path from the source
# tree's root) that runs the case elsewhere; tests/docs/covered.sh verifies that FILE has
# it. Printed "SKIP: MESSAGE COVERAGE"; under CI a skip that names no coverage is a FAIL
# (and a malformed COVERAGE always is). tests/dcb/run.sh has the same rule.
skip_covered() {
	local re='^[(]covered: [^ "]+ "[^"]+"[)]$'
	if [ $# -ge 2 ] && ! [[ $2 =~ $re ]]; then
		fail "$1: a malformed coverage: $2"
	elif [ $# -ge 2 ]; then
		echo "SKIP: $1 $2"
	elif [ -n "${CI:-}" ]; then
		fail "$1 (a skip under CI, and no other test covers the case)"
	else
		echo "SKIP: $1"
	fi
}
summary() { echo "$PASS passed, $FAIL failed"; [ "$FAIL" -eq 0 ]; }

# sim_need_root: print a reason and return 1 when this machine cannot run these tests
sim_can_run() {
	if [ "$(id -u)" != 0 ]; then echo "needs root (network namespaces)"; return 1; fi
	if ! ip netns add rqprobe$$ 2>/dev/null; then echo "cannot create network namespaces"; return 1; fi
	ip netns del rqprobe$$
	[ -x "$HOSTDEV" ] || { echo "no $HOSTDEV (apt-get install containernetworking-plugins)"; return 1; }
	command -v jq >/dev/null || { echo "no jq"; return 1; }
	[ -x "$SIM" ] || { echo "no $SIM (make)"; return 1; }
	return 0
}

# Veth "VFs": for every VF netdev the sim node names, a veth pair in the host
# netns (<vf> and <vf>p), as host-device expects to find a real link.
sim_make_vfs() {
	local root=$1 vf
	for vf in $(sim_vf_names "$root"); do
		ip link add "$vf" type veth peer name "${vf}p" 2>/dev/null || true
	done
}

# pod_netns_gone NAME: a pod that went away with its netns (no DEL): delete it and
# wait (up to 10 s) until the kernel has destroyed the veth VFs that were in it. It
# does so later, from a workqueue (cleanup_net): until then their host ends are
# still there, a pair of the same names cannot be made again (EEXIST), and when the
# cleanup runs it takes the VF for the rest of the suite.
pod_netns_gone() {
	local n=$1 idx peers="" i p left
	for idx in $(ip -n "$n" -o link show type veth 2>/dev/null | sed -n 's/^[0-9]*: [^@]*@if\([0-9]*\):.*/\1/p'); do
		peers="$peers $(ip -o link show 2>/dev/null | awk -F': ' -v i="$idx" '$1 == i { sub(/@.*/, "", $2); print $2 }')"
	done
	ip netns del "$n"
	for ((i = 0; i < 100; i++)); do
		left=""
		for p in $peers; do ip link show "$p" > /dev/null 2>&1 && left="$left $p"; done
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	fail "pod netns $n deleted 10 s ago: its veth VFs are still there ($left)"
}

# wait_until SECONDS CMD...: run CMD every 0.1 s until it succeeds (0) or SECONDS pass (1)
wait_until() {
	local i n=$(($1 * 10))
	shift
	for ((i = 0; i < n; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

sim_del_vfs() {
	local root=$1 vf
	for vf in $(sim_vf_names "$root"); do ip link del "$vf" 2>/dev/null || ip link del "${vf}p" 2>/dev/null || true; done
}

# The node as "pf vf-pci vf-ifname" lines, read from the simulated sysfs.
sim_vfs() {
	local root=$1 pf l
	for pf in "$root"/sys/class/net/*; do
		[ -e "$pf/device/sriov_numvfs" ] || continue
		for l in "$pf"/device/virtfn*; do
			[ -e "$l" ] || continue
			echo "${pf##*/} $(basename "$(readlink -f "$l")") $(ls "$l/net" 2>/dev/null | head -1)"
		done
	done
}
sim_vf_names() { sim_vfs "$1" | awk '$3 != "" {print $3}'; }
sim_vf_pci() { sim_vfs "$1" | awk -v n="$2" '$3 == n {print $2}'; }
sim_pf_of() { sim_vfs "$1" | awk -v n="$2" '$3 == n {print $1}'; }

# run_plugin BIN CMD CONTAINERID NETNS IFNAME ARGS < conf  -> stdout; rc
run_plugin() {
	local bin=$1 cmd=$2 cid=$3 ns=$4 ifn=$5 args=$6
	CNI_COMMAND=$cmd CNI_CONTAINERID=$cid CNI_NETNS=$ns CNI_IFNAME=$ifn \
		CNI_PATH=$CNI_BIN_DIR CNI_ARGS=$args "$bin"
}

# conf_for NAME VERSION PLUGIN_JSON PREV_RESULT_JSON -> the plugin's stdin
conf_for() {
	jq -c --arg name "$1" --arg v "$2" --argjson prev "${4:-null}" \
		'. + {name: $name, cniVersion: $v} + (if $prev == null then {} else {prevResult: $prev} end)' <<< "$3"
}

# chain_add ROOT NAME CID NETNS IFNAME VFDEV RQCONF ARGS [VERSION]
#   host-device then rdma-qos-sim; prints the final result; rc of the failing step
chain_add() {
	local root=$1 name=$2 cid=$3 ns=$4 ifn=$5 dev=$6 rq=$7 args=$8 v=${9:-1.0.0} out rc
	out=$(conf_for "$name" "$v" "{\"type\":\"host-device\",\"device\":\"$dev\"}" | \
		run_plugin "$HOSTDEV" ADD "$cid" "$ns" "$ifn" "$args") || { echo "$out"; return 1; }
	out=$(conf_for "$name" "$v" "$rq" "$out" | RDMA_QOS_SIM_ROOT=$root run_plugin "$SIM" ADD "$cid" "$ns" "$ifn" "$args")
	rc=$?
	echo "$out"
	if [ $rc -ne 0 ]; then
		# a runtime DELs the whole chain after a failed ADD
		chain_del "$root" "$name" "$cid" "$ns" "$ifn" "$dev" "$rq" "$args" "$v" >/dev/null 2>&1
	fi
	return $rc
}

chain_check() {
	local root=$1 name=$2 cid=$3 ns=$4 ifn=$5 dev=$6 rq=$7 args=$8 prev=$9 v=${10:-1.0.0}
	conf_for "$name" "$v" "$rq" "$prev" | RDMA_QOS_SIM_ROOT=$root run_plugin "$SIM" CHECK "$cid" "$ns" "$ifn" "$args"
}

chain_del() {
	local root=$1 name=$2 cid=$3 ns=$4 ifn=$5 dev=$6 rq=$7 args=$8 v=${9:-1.0.0} rc=0
	conf_for "$name" "$v" "$rq" | RDMA_QOS_SIM_ROOT=$root run_plugin "$SIM" DEL "$cid" "$ns" "$ifn" "$args" || rc=1
	conf_for "$name" "$v" "{\"type\":\"host-device\",\"device\":\"$dev\"}" | \
		run_plugin "$HOSTDEV" DEL "$cid" "$ns" "$ifn" "$args" || rc=1
	return $rc
}

# macvlan_add ROOT NAME CID NETNS MASTER IP RQCONF ARGS: a conflist [macvlan, rdma-qos-sim]
# as a runtime runs it (Debian's macvlan plugin on MASTER, static IPAM with IP/24, net1):
# pods on a shared RDMA device (issue 50); prints the result; a failed ADD is DELed whole
macvlan_conf() { echo "{\"type\":\"macvlan\",\"master\":\"$1\",\"mode\":\"bridge\",\"ipam\":{\"type\":\"static\",\"addresses\":[{\"address\":\"$2/24\"}]}}"; }
macvlan_add() {
	local root=$1 name=$2 cid=$3 ns=$4 master=$5 ip=$6 rq=$7 args=$8 out rc
	out=$(conf_for "$name" 1.0.0 "$(macvlan_conf "$master" "$ip")" |
		run_plugin "$CNI_BIN_DIR/macvlan" ADD "$cid" "$ns" net1 "$args") || { echo "$out"; return 1; }
	out=$(conf_for "$name" 1.0.0 "$rq" "$out" | RDMA_QOS_SIM_ROOT=$root run_plugin "$SIM" ADD "$cid" "$ns" net1 "$args")
	rc=$?
	echo "$out"
	[ $rc -eq 0 ] || macvlan_del "$@" > /dev/null 2>&1
	return $rc
}
# macvlan_del ROOT NAME CID NETNS MASTER IP RQCONF ARGS: the conflist's DEL, in reverse
macvlan_del() {
	local root=$1 name=$2 cid=$3 ns=$4 master=$5 ip=$6 rq=$7 args=$8 rc=0
	conf_for "$name" 1.0.0 "$rq" | RDMA_QOS_SIM_ROOT=$root run_plugin "$SIM" DEL "$cid" "$ns" net1 "$args" || rc=1
	conf_for "$name" 1.0.0 "$(macvlan_conf "$master" "$ip")" |
		run_plugin "$CNI_BIN_DIR/macvlan" DEL "$cid" "$ns" net1 "$args" || rc=1
	return $rc
}

dcb_json() { cat "$1/dcb/$2.json"; }
dcb_writes() { jq -r '.writes // 0' "$1/dcb/$2.json"; }

# The start of a simulated-node suite: skip when this machine cannot run it (fail under
# CI), then a scratch dir $T with the node root $ROOT, newns NAME (a pod netns, prefix
# $2) and a cleanup on exit that removes both and the veth "VFs"; a suite adds its own
# teardown as a function named suite_teardown.
#   sim_suite_start LABEL PREFIX GATE   (GATE: sim_can_run, agent_can_run, ...)
sim_suite_start() {
	local why
	if ! why=$($3); then
		if [ -n "${CI:-}" ]; then echo "FAIL: $1 cannot run under CI: $why"; exit 1; fi
		echo "SKIP: $1: $why"
		echo "0 passed, 0 failed, 1 skipped"
		exit 0
	fi
	T=$(mktemp -d "${TMPDIR:-/tmp}/rq-$2.XXXXXX")
	ROOT=$T/node
	NS_PREFIX="$2$$_"
	trap sim_suite_cleanup EXIT
}
sim_suite_cleanup() {
	declare -F suite_teardown > /dev/null && suite_teardown
	# newns runs in $(...), so the names are matched, not remembered
	for n in $(ip netns list | awk -v p="$NS_PREFIX" 'index($1, p) == 1 { print $1 }'); do
		ip netns del "$n" 2>/dev/null
	done
	sim_del_vfs "$ROOT" 2>/dev/null
	rm -rf "$T"
}
newns() { local n="$NS_PREFIX$1"; ip netns add "$n"; echo "/run/netns/$n"; }
