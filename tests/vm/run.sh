#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# make vm-test: the production rdma-qos in a QEMU guest with a real kernel.
set -u
cd "$(dirname "$0")/../.."
: "${RQ_BUILD:=$PWD/build}"
skip() {
	if [ -n "${CI:-}" ]; then echo "FAIL: vm test cannot run under CI: $*"; echo "0 passed, 1 failed"; exit 1; fi
	echo "SKIP: vm test: $*"; echo "0 passed, 0 failed, 1 skipped"; exit 0
}
[ "$(id -u)" = 0 ] || skip "needs root (apt, 9p with security_model=none)"
[ -x "$RQ_BUILD/rdma-qos" ] || skip "no $RQ_BUILD/rdma-qos (make)"
if [ "$RQ_BUILD" != "$PWD/build" ]; then skip "the guest runs $PWD/build/rdma-qos; build there"; fi
make -s build/tests/dcb/dcb-encode >/dev/null || skip "cannot build the dcb encoder driver"
bash tests/vm/guest.sh setup || skip "the QEMU guest could not be prepared (see above)"
bash tests/vm/guest.sh tests/vm/e2e.sh
