# SPDX-License-Identifier: Apache-2.0
# tests/deploy: the static binaries, rdma-qos install/validate, deploy/ manifests and
# examples/ offline, the image (tests/deploy/run.sh).
.PHONY: deploy-test
deploy-test: all
	RQ_BUILD=$(abspath $(B)) bash tests/deploy/run.sh

test: deploy-test

# every place that carries the version agrees with VERSION (CONTRIBUTING.md, "Cutting a release")
.PHONY: release-check
release-check: all
	bash tests/deploy/release-check.sh $(CURDIR) $(abspath $(B))
