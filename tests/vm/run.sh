#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# make vm-test: the production rdma-qos in a QEMU guest with a real kernel.
# Skips (exit 0, saying why) only without root or when QEMU or the kernel
# cannot be installed; under CI (CI set) those are failures.
set -u
cd "$(dirname "$0")/../.." || exit 1
: "${RQ_BUILD:=$PWD/build}"
skip() {
	if [ -n "${CI:-}" ]; then echo "FAIL: vm test cannot run under CI: $*"; echo "0 passed, 1 failed"; exit 1; fi
	echo "SKIP: vm test: $*"; echo "0 passed, 0 failed, 1 skipped"; exit 0
}
fail() { echo "FAIL: vm test: $*"; echo "0 passed, 1 failed"; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root (apt, 9p with security_model=none)"
[ -x "$RQ_BUILD/rdma-qos" ] || fail "no $RQ_BUILD/rdma-qos (make)"
RQ_BUILD=$(cd "$RQ_BUILD" && pwd)
make -s B="$RQ_BUILD" "$RQ_BUILD/tests/dcb/dcb-encode" >/dev/null || fail "cannot build the dcb encoder driver"
bash tests/vm/guest.sh setup || skip "the QEMU guest could not be prepared (see above)"
# the confinement guest (tests/vm/confine.sh) needs the production image and the
# DaemonSet's settings as podman arguments, prepared on the host first
confine() {
	local why prc
	why=$(bash tests/vm/confine-prep.sh); prc=$?
	case $prc in
	0) RQ_BUILD=$RQ_BUILD bash tests/vm/guest.sh tests/vm/confine.sh ;;
	2) if [ -n "${CI:-}" ]; then echo "FAIL: confine.sh cannot run under CI: $why"; return 1; fi
	   echo "SKIP: confine.sh: $why" ;;
	*) echo "FAIL: confine.sh: the image or the podman arguments: $why"; return 1 ;;
	esac
}
# an argument names another guest script (tests/vm/agent.sh: make vm-agent-test;
# tests/vm/wire.sh: make vm-wire-test)
if [ "${1:-}" = tests/vm/confine.sh ]; then
	confine
	exit $?
fi
if [ -n "${1:-}" ]; then
	RQ_BUILD=$RQ_BUILD bash tests/vm/guest.sh "$1"
	exit $?
fi
# no argument: every suite of VM_SUITES (tests/vm/rules.mk says what each proves), a guest each
suites=$(sed -n 's/^VM_SUITES := //p' tests/vm/rules.mk)
[ -n "$suites" ] || fail "no 'VM_SUITES := ...' line in tests/vm/rules.mk"
rc=0
for s in $suites; do
	if [ "$s" = confine ]; then
		confine || rc=1
	else
		RQ_BUILD=$RQ_BUILD bash tests/vm/guest.sh "tests/vm/$s.sh" || rc=1
	fi
done
exit $rc
