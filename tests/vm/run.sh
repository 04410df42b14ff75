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
RQ_BUILD=$RQ_BUILD bash tests/vm/guest.sh tests/vm/e2e.sh; rc=$?
# the VF's traffic class in exclusive RDMA netns mode: a guest of its own, since the
# kernel switches the mode only while no other netns exists
RQ_BUILD=$RQ_BUILD bash tests/vm/guest.sh tests/vm/tos.sh || rc=1
# RoCEv2 packets on the wire (rxe on VFs in the host netns, tcpdump): a guest of its own
RQ_BUILD=$RQ_BUILD bash tests/vm/guest.sh tests/vm/wire.sh || rc=1
# the agent from the image, confined as deploy/base/daemonset.yaml says: a guest of its own
confine || rc=1
# congestion telemetry (dcbsim's port stats, ibsim's hw_counters in exclusive RDMA netns
# mode, rxe under netem loss): a guest of its own, exclusive mode from the start
RQ_BUILD=$RQ_BUILD bash tests/vm/guest.sh tests/vm/telemetry.sh || rc=1
# a Linux bond over both PFs in legacy SR-IOV mode (bonding.ko), then the link partner on a
# bond slave, a bridge and an OVS port (bond_lldp.sh): a guest of its own
RQ_BUILD=$RQ_BUILD bash tests/vm/guest.sh tests/vm/bond.sh || rc=1
# the QP census (rxe under perftest and rping, ibsim's kernel QPs with a raw context dump
# in exclusive RDMA netns mode): a guest of its own, exclusive mode from the start
RQ_BUILD=$RQ_BUILD bash tests/vm/guest.sh tests/vm/qps.sh || rc=1
# the production agent adopts a VF moved as dranet moves it (exclusive RDMA netns mode, no
# CNI call): a guest of its own, exclusive mode from the start
RQ_BUILD=$RQ_BUILD bash tests/vm/guest.sh tests/vm/adopt.sh || rc=1
# GPUDirect RDMA on a real PCIe tree (x3130 switch, display devices as GPUs): a guest of its
# own, its topology differs (guest.sh "# vm: gdr-tree")
RQ_BUILD=$RQ_BUILD bash tests/vm/guest.sh tests/vm/gdr.sh || rc=1
RQ_BUILD=$RQ_BUILD bash tests/vm/guest.sh tests/vm/fabric.sh || rc=1
exit $rc
