#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Crash test: rdma-qos-sim killed (SIGKILL, strace fault injection) before each
# syscall of an operation (first ADD on a fresh PF, the second VF of a configured
# PF, a repeated ADD, DEL, an agent repair pass, an agent pass that adopts a VF no
# chain ran rdma-qos for), then a retry (and DEL or the adoption's release), DEL (or
# the release) alone, or the agent's next pass (and DEL or release); invariants on
# the PF, the VF's knobs, records, PF indexes, temporaries and locks.
#
#   CRASH_STEP=N   every Nth kill point (1 = all: make crash; make crash-sample uses 23)
#   CRASH_OPS      scenarios (default: first second repeat del agent)
# Prints one line per scenario and "N passed, M failed"; failures show the kill point.
set -u
cd "$(dirname "$0")/../.." || exit 1
: "${RQ_BUILD:=$PWD/build}"
SIM=$RQ_BUILD/rdma-qos-sim
MKNODE=$PWD/tests/simnode/mknode
STEP=${CRASH_STEP:-1}
OPS=${CRASH_OPS:-first second repeat del agent adopt}
PASS=0 FAIL=0 POINTS=0

skip() {
	if [ -n "${CI:-}" ]; then echo "FAIL: crash test cannot run under CI: $*"; echo "0 passed, 1 failed"; exit 1; fi
	echo "SKIP: crash test: $*"; echo "0 passed, 0 failed, 1 skipped"; exit 0
}
command -v strace > /dev/null || skip "needs strace"
command -v jq > /dev/null || skip "needs jq"
[ -x "$SIM" ] || { echo "FAIL: no $SIM (make)"; exit 1; }
(strace -qq -o /dev/null -e inject=close:signal=KILL:when=1 /bin/true; exit $?) 2> /dev/null
[ $? -eq 137 ] || skip "this strace cannot kill a tracee by fault injection (strace -e inject=...:signal=KILL)"

T=$(mktemp -d /tmp/rq-crash.XXXXXX)
NSA=rqcra$$ NSB=rqcrb$$ PSRV=""
unbind() { mountpoint -q "$1/var/lib/kubelet/pod-resources" 2> /dev/null && umount "$1/var/lib/kubelet/pod-resources"; }
trap 'unbind "$T/w"; unbind "$T/setup"; [ -n "$PSRV" ] && kill "$PSRV"; ip netns del "$NSA" 2>/dev/null; ip netns del "$NSB" 2>/dev/null; rm -rf "$T"' EXIT
BASE=$T/base
"$MKNODE" --root "$BASE" --pfs 1 --vfs 3 --numa-nodes 1 --rdma both --ecn yes --dcb yes \
	--pf-prefix cr > /dev/null || { echo "FAIL: mknode"; exit 1; }
vf_of() { basename "$(readlink -f "$1/sys/class/net/cr0/device/virtfn$2")"; }
VFA=$(vf_of "$BASE" 0) VFB=$(vf_of "$BASE" 1)
PFPCI=$(basename "$(readlink -f "$BASE/sys/class/net/cr0/device")")
# Each attachment's pod: a netns whose net1 is its VF, as after host-device (the sim knows a
# link's VF by its alias, the VF's netdev name); the agent reports a VF that is not its pod's
# interface any more and leaves it alone, so the pod must really have it.
pod_ns() {   # NAME VF
	ip netns add "$1" && ip -n "$1" link add net1 type veth peer name net1p &&
		ip -n "$1" link set net1 alias "$(ls "$BASE/sys/bus/pci/devices/$2/net" | head -1)"
}
pod_ns "$NSA" "$VFA" && pod_ns "$NSB" "$VFB" || skip "cannot make the pods' network namespaces"
knobs() {   # ROOT VF -> "<mofed>|<configfs>", MOFED's unset (empty, or -1 as written) as -1
	local dev m
	dev=$(ls "$1/sys/bus/pci/devices/$2/infiniband" | head -1)
	m=$(sed -n 's/^Global tclass=//p; /^-\?[0-9]*$/p' "$1/sys/bus/pci/devices/$2/infiniband/$dev/tc/1/traffic_class" | head -1)
	printf '%s|%s' "${m:--1}" "$(cat "$1/sys/kernel/config/rdma_cm/$dev/ports/1/default_roce_tos")"
}
ORIG_A=$(knobs "$BASE" "$VFA") ORIG_B=$(knobs "$BASE" "$VFB")

conf() {   # VF
	printf '{"cniVersion":"1.0.0","name":"crash","type":"rdma-qos","deviceID":"%s","numa":"off","prevResult":{"cniVersion":"1.0.0","interfaces":[]}}' "$1"
}
# op ROOT CMD KEY VF [strace args...]: the plugin as a runtime runs it; its exit status
op() {
	local root=$1 cmd=$2 key=$3 vf=$4 ns=/run/netns/$NSA
	shift 4
	[ "$vf" = "$VFB" ] && ns=/run/netns/$NSB
	[ "$cmd" = DEL ] && ns=""
	conf "$vf" > "$T/conf"
	RDMA_QOS_SIM_ROOT=$root RDMA_QOS_SIM_LOCK_TIMEOUT_MS=3000 CNI_COMMAND=$cmd \
		CNI_CONTAINERID=$key CNI_NETNS=$ns CNI_IFNAME=net1 CNI_PATH=/nonexistent \
		CNI_ARGS="K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p-$key;K8S_POD_UID=u-$key" \
		"$@" "$SIM" < "$T/conf" > /dev/null 2>> "$T/plugin.log"
}
agent() {   # ROOT [strace args...]
	local root=$1
	shift
	RDMA_QOS_SIM_ROOT=$root "$@" "$SIM" agent --once > /dev/null 2>> "$T/plugin.log"
}
# after an agent pass that was not killed: no temporary left in its own directory
inv_no_agent_tmp() {
	local t
	t=$(find "$1/run/rdma-qos/agent" -name '.*.tmp' 2> /dev/null | head -3)
	[ -z "$t" ] || bad "agent temporaries left after an agent pass: $t"
}

REASON=""
bad() { REASON="$REASON; $*"; }
# The port never has PFC on while DSCP is not trusted (no DSCP APP entry).
inv_pf() {
	local f=$1/dcb/cr0.json
	if [ "$(jq '(.pfc // []) | length' "$f")" -gt 0 ] &&
		[ "$(jq '[(.app // [])[] | select(.selector == 5)] | length' "$f")" = 0 ]; then
		bad "PFC on while DSCP untrusted"
	fi
}
# The plugin's own files: the state and PF index directories. (The simulated node's DCB
# file and attributes are replaced whole through a fixed-name temporary, which the next
# write replaces: the fake's, standing for kernel state that has none.)
inv_no_tmp() {
	local t
	# the agent's own books (run/rdma-qos/agent) have one writer, the agent, whose next pass
	# removes what a killed pass left: checked after every agent pass (inv_no_agent_tmp)
	t=$(find "$1/run/rdma-qos" -path "$1/run/rdma-qos/agent" -prune -o -name '.*.tmp' -print \
		2> /dev/null | head -3)
	[ -z "$t" ] || bad "temporaries left: $t"
}
# After the attachment's last DEL: knobs as before, no record, not listed, nothing left.
inv_gone() {   # ROOT KEY VF ORIG
	local root=$1 key=crash_$2_net1 idx
	[ "$(knobs "$root" "$3")" = "$4" ] || bad "knobs $(knobs "$root" "$3") after DEL, expected $4"
	[ ! -e "$root/run/rdma-qos/state/$key.json" ] || bad "record left after DEL"
	idx=$root/run/rdma-qos/state/pf/$PFPCI.json
	if [ -e "$idx" ] && jq -e --arg k "$key" '.attachments[] | select(.key == $k)' "$idx" > /dev/null; then
		bad "index still lists $key"
	fi
	inv_no_tmp "$root"
	inv_pf "$root"
}
# After a successful ADD: class 106 on both knobs, recorded with the original values.
inv_added() {   # ROOT KEY VF ORIG
	local root=$1 rec=$1/run/rdma-qos/state/crash_$2_net1.json orig
	[ "$(knobs "$root" "$3")" = "106|106" ] || bad "knobs $(knobs "$root" "$3") after ADD"
	[ -e "$rec" ] || { bad "no record after ADD"; return; }
	orig=$(jq -r '(.rdma.knobs.mofed.previous | tostring) + "|" + (.rdma.knobs.configfs.previous | tostring)' "$rec")
	[ "$orig" = "$4" ] || bad "record says the knobs were $orig, they were $4"
	! jq -e .pending "$rec" > /dev/null || bad "record still pending after ADD"
	inv_pf "$root"
}

# adopt: VFB in pod NSB with no record (no chain ran rdma-qos for it), named by kubelet's
# PodResources (tests/simnode/podres_server.py, one server for every run: its socket's
# directory bind-mounted into each copy of the node), its namespace ai with a default
ADOPT_KEY=rdma-qos-adopted_$(printf %s "$VFB" | sed 's/:/%3a/g')_net1
adopt_start() {
	local py=/usr/bin/python3
	"$py" -c 'import grpc, google.protobuf' 2> /dev/null && command -v protoc > /dev/null || return 1
	mkdir -p "$T/pb" && protoc --python_out="$T/pb" -Ipkg/podres pkg/podres/api.proto || return 1
	"$MKNODE" --root "$T/pr" pod --uid u-b --device "intel.com/sriov_rdma=$VFB@0" > /dev/null || return 1
	"$py" tests/simnode/podres_server.py --root "$T/pr" --pb "$T/pb" --pod ai/p-b=u-b > "$T/psrv.log" 2>&1 &
	PSRV=$!
	for _ in $(seq 100); do grep -q ready "$T/psrv.log" && return 0; sleep 0.1; done
	return 1
}
# a fresh copy of the prepared node at $T/w (the adopt scenario's with kubelet's socket)
fresh_w() {
	unbind "$T/w"
	rm -rf "$T/w"; cp -a "$T/setup" "$T/w"
	if [ "$1" = adopt ]; then
		mkdir -p "$T/w/var/lib/kubelet/pod-resources"
		mount --bind "$T/pr/var/lib/kubelet/pod-resources" "$T/w/var/lib/kubelet/pod-resources"
	fi
}
# the adopted VF leaves its pod (the pod's net1 shows another device: a VF back in the host,
# as far as the pod is concerned) and the agent's pass releases it; then the pod as it was
adopt_release() {   # ROOT
	ip -n "$NSB" link set net1 alias "$(ls "$BASE/sys/bus/pci/devices/$VFA/net" | head -1)"
	agent "$1" || true
	ip -n "$NSB" link set net1 alias "$(ls "$BASE/sys/bus/pci/devices/$VFB/net" | head -1)"
}
# after an adoption: class 106 on both knobs, an adopted record with the original values
inv_adopted() {   # ROOT
	local rec=$1/run/rdma-qos/state/$ADOPT_KEY.json orig
	[ "$(knobs "$1" "$VFB")" = "106|106" ] || bad "knobs $(knobs "$1" "$VFB") after the adoption"
	[ -e "$rec" ] || { bad "no adopted record"; return; }
	[ "$(jq -r .adopted "$rec")" = true ] || bad "the record is not marked adopted"
	orig=$(jq -r '(.rdma.knobs.mofed.previous | tostring) + "|" + (.rdma.knobs.configfs.previous | tostring)' "$rec")
	[ "$orig" = "$ORIG_B" ] || bad "adopted record says the knobs were $orig, they were $ORIG_B"
	! jq -e .pending "$rec" > /dev/null || bad "adopted record still pending"
	inv_pf "$1"
}
# after the release: VFB's knobs as before, no record or index entry of it, VFA's untouched
inv_released() {   # ROOT
	local idx=$1/run/rdma-qos/state/pf/$PFPCI.json r
	[ "$(knobs "$1" "$VFB")" = "$ORIG_B" ] || bad "knobs $(knobs "$1" "$VFB") after the release, expected $ORIG_B"
	r=$(grep -l "\"$VFB\"" "$1"/run/rdma-qos/state/*.json 2> /dev/null | head -1)
	[ -z "$r" ] || bad "a record of the released VF is left: $r"
	if [ -e "$idx" ] && jq -e --arg v "$VFB" '.attachments[] | select(.vf == $v)' "$idx" > /dev/null; then
		bad "the index still lists the released VF"
	fi
	inv_no_tmp "$1"
	inv_pf "$1"
	inv_added "$1" a "$VFA" "$ORIG_A"
}

# scenario NAME: sets SETUP (a prepared root), KILLOP (the killed command), and how to
# retry and release
prepare() {
	rm -rf "$T/setup"
	cp -a "$BASE" "$T/setup"
	case $1 in
	adopt)
		op "$T/setup" ADD a "$VFA" || echo "setup ADD failed"
		printf '{"namespaces":{"ai":{"default":"roce-lossless","allow":["roce-lossless"]}},"node":{"unchained":"adopt"}}' \
			> "$T/setup/etc/cni/rdma-qos/profiles.json"
		;;
	first) ;;
	second|repeat|del) op "$T/setup" ADD a "$VFA" || echo "setup ADD failed" ;;
	agent)
		op "$T/setup" ADD a "$VFA" || echo "setup ADD failed"
		# drift: PFC off, one DSCP entry gone, the class reset (a driver reload)
		jq '.pfc = [] | .app = [(.app // [])[] | select(.protocol != 26)]' "$T/setup/dcb/cr0.json" > "$T/d" &&
			cp "$T/d" "$T/setup/dcb/cr0.json"
		local dev
		dev=$(ls "$T/setup/sys/bus/pci/devices/$VFA/infiniband" | head -1)
		echo 0 > "$T/setup/sys/kernel/config/rdma_cm/$dev/ports/1/default_roce_tos"
		;;
	esac
}
run_killed() {   # NAME ROOT STRACE-ARGS...
	local name=$1 root=$2
	shift 2
	case $name in
	first|repeat) op "$root" ADD a "$VFA" "$@" ;;
	second) op "$root" ADD b "$VFB" "$@" ;;
	del) op "$root" DEL a "$VFA" "$@" ;;
	agent|adopt) agent "$root" "$@" ;;
	esac
}
# after the kill: the retry, the invariants, then the release and its invariants
after_retry() {   # NAME ROOT
	local name=$1 root=$2
	case $name in
	first|repeat)
		op "$root" ADD a "$VFA" || bad "retried ADD failed"
		inv_added "$root" a "$VFA" "$ORIG_A"
		op "$root" DEL a "$VFA" || bad "DEL failed"
		inv_gone "$root" a "$VFA" "$ORIG_A" ;;
	second)
		op "$root" ADD b "$VFB" || bad "retried ADD failed"
		inv_added "$root" b "$VFB" "$ORIG_B"
		op "$root" DEL b "$VFB" || bad "DEL failed"
		inv_gone "$root" b "$VFB" "$ORIG_B"
		inv_added "$root" a "$VFA" "$ORIG_A" ;;   # the neighbour is undisturbed
	del)
		op "$root" DEL a "$VFA" || bad "retried DEL failed"
		inv_gone "$root" a "$VFA" "$ORIG_A" ;;
	agent)
		agent "$root" || bad "the next agent pass did not leave all in profile"
		inv_no_agent_tmp "$root"
		inv_added "$root" a "$VFA" "$ORIG_A"
		[ "$(jq -c '.pfc' "$root/dcb/cr0.json")" = "[3]" ] || bad "PFC not repaired"
		op "$root" DEL a "$VFA" || bad "DEL failed"
		inv_gone "$root" a "$VFA" "$ORIG_A" ;;
	adopt)
		agent "$root" || true
		inv_no_agent_tmp "$root"
		inv_adopted "$root"
		adopt_release "$root"
		inv_released "$root" ;;
	esac
}
# the agent's next pass after the kill (it rolls back a pending record of a dead ADD, drops
# index entries without a record, keeps the rest in profile), then the release
after_agent() {   # NAME ROOT
	local name=$1 root=$2 p
	agent "$root"
	p=$(grep -l '"pending"' "$root"/run/rdma-qos/state/*.json 2> /dev/null | head -1)
	[ -z "$p" ] || bad "a pending record survived the agent's pass: $p"
	inv_no_agent_tmp "$root"
	[ "$name" != adopt ] || inv_adopted "$root"
	after_del "$name" "$root"
}
after_del() {   # NAME ROOT: DEL alone after the kill
	local name=$1 root=$2
	case $name in
	first|repeat|del|agent)
		op "$root" DEL a "$VFA" || bad "DEL failed"
		inv_gone "$root" a "$VFA" "$ORIG_A" ;;
	second)
		op "$root" DEL b "$VFB" || bad "DEL failed"
		inv_gone "$root" b "$VFB" "$ORIG_B"
		inv_added "$root" a "$VFA" "$ORIG_A" ;;
	adopt)   # no DEL will ever come: the release is the agent's
		adopt_release "$root"
		inv_released "$root" ;;
	esac
}

for name in $OPS; do
	if [ "$name" = agent ] && ! "$SIM" agent --help > /dev/null 2>&1; then
		echo "FAIL: $name: this build has no agent"; FAIL=$((FAIL + 1)); continue
	fi
	if [ "$name" = adopt ] && [ -z "$PSRV" ] && ! adopt_start; then
		if [ -n "${CI:-}" ]; then echo "FAIL: adopt: no PodResources server (python3-grpcio, protoc)"; FAIL=$((FAIL + 1))
		else echo "SKIP: adopt: no PodResources server (python3-grpcio, protoc)"; fi
		continue
	fi
	prepare "$name"
	# the syscalls of one unkilled run, each as (name, its count so far)
	fresh_w "$name"
	run_killed "$name" "$T/w" strace -qq -o "$T/trace"
	mapfile -t POINTS_OF < <(awk -F'(' '/^[a-z_0-9]+\(/ { n[$1]++; print $1 ":" n[$1] }' "$T/trace")
	total=${#POINTS_OF[@]} failed=0 tried=0 killed=0
	for ((i = 0; i < total; i += STEP)); do
		sc=${POINTS_OF[$i]%%:*} k=${POINTS_OF[$i]##*:}
		for variant in retry del agent; do
			REASON=""
			fresh_w "$name"
			# in a subshell: the shell's own "Killed" notice goes nowhere
			(run_killed "$name" "$T/w" strace -qq -o /dev/null -e "inject=$sc:signal=KILL:when=$k") 2> /dev/null
			[ $? -eq 137 ] && killed=$((killed + 1))
			inv_pf "$T/w"
			case $variant in
			retry) after_retry "$name" "$T/w" ;;
			del) after_del "$name" "$T/w" ;;
			agent) after_agent "$name" "$T/w" ;;
			esac
			tried=$((tried + 1))
			if [ -n "$REASON" ]; then
				failed=$((failed + 1))
				[ $failed -le 5 ] && echo "FAIL: $name killed before syscall $((i + 1))/$total ($sc #$k), then $variant: ${REASON#; }"
			fi
		done
	done
	POINTS=$((POINTS + tried))
	echo "crash $name: $total syscalls, $tried kill runs ($killed killed), $failed invariant failures"
	if [ $failed -eq 0 ] && [ $killed -gt 0 ]; then PASS=$((PASS + 1)); else FAIL=$((FAIL + 1)); fi
done
echo "$POINTS kill runs"
echo "$PASS passed, $FAIL failed"
[ $FAIL -eq 0 ]
