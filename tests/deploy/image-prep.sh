#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# make image-prep (make test's early lane): the local Debian 12 base and the two images of
# deploy/Containerfile (rdma-qos, rdma-qos-sim) built once, ahead of tests/deploy/image.sh
# and tests/vm/confine-prep.sh, which then reuse them (tests/deploy/lib.sh image_build: one
# build per build context). Nothing is checked here: those suites check what they use, and
# build it themselves when this could not.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
image_vars "$(cd "$HERE/../.." && pwd)"
if ! why=$(image_prereqs); then echo "image-prep: nothing prepared: $why"; exit 0; fi
T=$(mktemp -d /tmp/rq-imgprep.XXXXXX)
trap 'rm -rf "$T"' EXIT
image_podman "$T"
s0=$(date +%s)
image_base || { echo "image-prep: no base image"; exit 0; }
echo "image-prep: base $BASE_IMG ($(($(date +%s) - s0)) s)"
for t in rdma-qos rdma-qos-sim; do
	s0=$(date +%s)
	if image_build "$t" prep "$T/$t.log"; then
		echo "image-prep: localhost/$t:src-$(image_key "$t") ($(($(date +%s) - s0)) s): $(head -1 "$T/$t.log")"
	else
		echo "image-prep: $t did not build (tests/deploy/image.sh will say why)"
	fi
done
exit 0
