#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# make deploy-test: what ships. Each part is its own script with its own
# summary; this fails when any of them fails.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
: "${RQ_BUILD:?RQ_BUILD: the build directory}"
export RQ_BUILD
rc=0 failed=()
for t in ${RQ_DEPLOY_TESTS:-static install validate manifests overlays schema helm release arm64 image multiarch}; do
	[ -f "$HERE/$t.sh" ] || continue
	echo "=== tests/deploy/$t.sh"
	bash "$HERE/$t.sh" || { rc=1; failed+=("$t"); }
done
[ $rc -eq 0 ] && echo "deploy-test: all parts passed" || echo "deploy-test: FAILED: ${failed[*]}"
exit $rc
