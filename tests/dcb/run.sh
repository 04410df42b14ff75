#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Byte-exact comparison of pkg/dcb's dcbnl requests with iproute2's dcb.
#
# iproute2's dcb runs under strace (-e write=all dumps every byte it sends);
# the RTM_SETDCB message it sends is compared, after its nlmsghdr (seq and
# pid differ), with what build/tests/dcb/dcb-encode prints for the same
# change. The device is a veth (or dummy) in a private netns: it has no dcbnl
# ops, so the kernel refuses every request with EOPNOTSUPP, but the request
# bytes are on the wire before that. That works for every dcb command that
# sends its SET without reading the port first: app add/del, dcbx set.
# "dcb pfc set" and "dcb ets set" read the port first (read-modify-write)
# and stop when the read fails, so they are compared only when RQ_DCB_DEV
# names a netdev with dcbnl ops in this netns (a real NIC, or the VM
# harness's dcbsim module). "dcb apptrust" needs iproute2 >= 6.2.
#
# Run as root: bash tests/dcb/run.sh   (or make dcb-test)
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${RQ_BUILD:-$PWD/build}
ENC=$B/tests/dcb/dcb-encode
PASS=0 FAIL=0 SKIP=0
pass() { PASS=$((PASS + 1)); echo "PASS: $*"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL: $*"; }
skip() { SKIP=$((SKIP + 1)); echo "SKIP: $*"; }
# skip_covered MESSAGE [COVERAGE]: tests/sim/lib.sh's rule, counted here: COVERAGE,
# '(covered: FILE "DESC")', names the check that runs the case elsewhere (verified by
# tests/docs/covered.sh); under CI a skip that names none is a FAIL
skip_covered() {
	local re='^[(]covered: [^ "]+ "[^"]+"[)]$'
	if [ $# -ge 2 ] && ! [[ $2 =~ $re ]]; then
		fail "$1: a malformed coverage: $2"
	elif [ $# -ge 2 ]; then
		skip "$1 $2"
	elif [ -n "${CI:-}" ]; then
		fail "$1 (a skip under CI, and no other test covers the case)"
	else
		skip "$1"
	fi
}
summary() { echo "$PASS passed, $FAIL failed, $SKIP skipped"; [ "$FAIL" -eq 0 ]; }

whole_skip() {
	if [ -n "${CI:-}" ]; then echo "FAIL: dcb comparison cannot run under CI: $*"; exit 1; fi
	echo "SKIP: $*"; echo "0 passed, 0 failed, 1 skipped"; exit 0
}
[ "$(id -u)" = 0 ] || whole_skip "needs root (network namespaces)"
command -v dcb >/dev/null || whole_skip "iproute2's dcb not installed"
command -v strace >/dev/null || whole_skip "strace not installed"
command -v ip >/dev/null || whole_skip "ip not installed"
[ -x "$ENC" ] || make -s "B=$B" "$ENC" >/dev/null || whole_skip "cannot build $ENC"

NS=rqdcb$$
T=$(mktemp -d /tmp/rq-dcbtest.XXXXXX)
cleanup() { ip netns del "$NS" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
ip netns add "$NS" || whole_skip "cannot create a network namespace"
DEV=d0
if ! ip -n "$NS" link add "$DEV" type dummy 2>/dev/null; then
	ip -n "$NS" link add "$DEV" type veth peer name d1 || whole_skip "cannot create a test netdev"
fi

# strace's hex dump -> one line of hex bytes per message sent
hexdump_msgs() {
	awk '/^ \| [0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]  / {
		if ($2 == "00000" && cur != "") { print cur; cur = "" }
		line = substr($0, 11, 49); gsub(/  +/, " ", line); gsub(/^ | $/, "", line)
		cur = (cur == "" ? line : cur " " line)
	}
	END { if (cur != "") print cur }' "$1"
}

# The payload after nlmsghdr of the last RTM_SETDCB (type 0x004f) message of a dcb run.
dcb_setdcb() { # ns-or-"" args...
	local ns=$1; shift
	local run=()
	[ -n "$ns" ] && run=(ip netns exec "$ns")
	"${run[@]}" strace -f -qq -e trace=sendto,sendmsg -e write=all -xx -o "$T/trace" \
		dcb "$@" >/dev/null 2>"$T/dcb.err"
	hexdump_msgs "$T/trace" | awk '$5 == "4f" && $6 == "00"' | tail -1 | cut -d' ' -f17-
}

compare() { # name ns dev "dcb args" encoder-args...
	local name=$1 ns=$2 dev=$3 dargs=$4; shift 4
	local run=() theirs ours
	[ -n "$ns" ] && run=(ip netns exec "$ns")
	# shellcheck disable=SC2086
	theirs=$(dcb_setdcb "$ns" $dargs)
	ours=$("${run[@]}" "$ENC" "$@" 2>"$T/enc.err")
	if [ -z "$theirs" ]; then
		skip_covered "$name: dcb sent no RTM_SETDCB ($(head -1 "$T/dcb.err"))"
	elif [ "$theirs" = "$ours" ]; then
		pass "$name ($(wc -w <<< "$ours") bytes identical)"
	else
		fail "$name"
		echo "  dcb:  $theirs"
		echo "  ours: $ours $(head -1 "$T/enc.err")"
	fi
}

echo "== requests dcb sends without reading the port ($DEV in netns $NS)"
compare "app add dscp 26:3" "$NS" "$DEV" "app add dev $DEV dscp-prio 26:3" app-add "$DEV" 5:26:3
compare "app del dscp 26:1 10:1" "$NS" "$DEV" "app del dev $DEV dscp-prio 26:1 10:1" \
	app-del "$DEV" 5:26:1 5:10:1
# the full map rdma-qos installs for trust dscp (dscp>>3, 26->3, 48->6), in one message
dargs="app add dev $DEV dscp-prio" eargs=()
for d in $(seq 0 63); do
	p=$((d >> 3)); [ $d = 26 ] && p=3; [ $d = 48 ] && p=6
	dargs+=" $d:$p"; eargs+=("5:$d:$p")
done
compare "app add, 64-entry DSCP map" "$NS" "$DEV" "$dargs" app-add "$DEV" "${eargs[@]}"
compare "dcbx set host ieee" "$NS" "$DEV" "dcbx set dev $DEV host ieee" sdcbx "$DEV" 9
if dcb help 2>&1 | grep -q apptrust; then
	compare "apptrust order dscp pcp" "$NS" "$DEV" "apptrust set dev $DEV order dscp pcp" \
		trust "$DEV" 5 255
else
	skip_covered "apptrust order dscp pcp: this dcb ($(dcb -V 2>&1 | head -1)) has no apptrust (iproute2 >= 6.2)" \
		'(covered: tests/vm/e2e.sh "apptrust order dscp pcp: the same bytes as the backports dcb")'
fi

echo "== requests dcb sends after reading the port"
if [ -n "${RQ_DCB_DEV:-}" ]; then
	compare "pfc set prio-pfc 3:on (others off)" "" "$RQ_DCB_DEV" \
		"pfc set dev $RQ_DCB_DEV prio-pfc all:off 3:on" pfc "$RQ_DCB_DEV" 0x08
	compare "ets set" "" "$RQ_DCB_DEV" \
		"ets set dev $RQ_DCB_DEV tc-tsa all:ets tc-bw 0:50 1:50 2:0 3:0 4:0 5:0 6:0 7:0 prio-tc all:0 3:1" \
		ets "$RQ_DCB_DEV" 50,50,0,0,0,0,0,0 2,2,2,2,2,2,2,2 0,0,0,1,0,0,0,0
else
	skip_covered "pfc set / ets set: dcb reads the port first and $DEV has no dcbnl ops; set RQ_DCB_DEV to a dcbnl-capable netdev (VM harness: dcbsim) to compare them" \
		'(covered: tests/vm/e2e.sh "pfc set and ets set: the same bytes as iproute2 dcb, on the dcbsim PF")'
fi
summary
