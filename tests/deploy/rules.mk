# SPDX-License-Identifier: Apache-2.0
# tests/deploy: the static binaries, rdma-qos install/validate, deploy/ manifests and
# examples/ offline, the image (tests/deploy/run.sh).
.PHONY: deploy-test
deploy-test: all
	RQ_BUILD=$(abspath $(B)) bash tests/deploy/run.sh

test: deploy-test
