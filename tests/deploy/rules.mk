# SPDX-License-Identifier: Apache-2.0
# tests/deploy: the static binaries, rdma-qos install/validate, deploy/ manifests and
# examples/ offline, the image (tests/deploy/run.sh).
.PHONY: deploy-test
deploy-test: all
	RQ_BUILD=$(abspath $(B)) bash tests/deploy/run.sh


# every place that carries the version agrees with VERSION (CONTRIBUTING.md, "Cutting a release")
.PHONY: release-check
release-check: all
	bash tests/deploy/release-check.sh $(CURDIR) $(abspath $(B))

# make test runs the parts as targets of their own: what is quick beside the deadline suites,
# the image builds and the arm64 unit suite (qemu-user) beside the guests; image-prep builds
# the images early, once (tests/deploy/image-prep.sh)
DEPLOY_EARLY := static install validate manifests overlays schema helm release
DEPLOY_SIDE  := image arm64 multiarch
.PHONY: image-prep
image-prep:
	bash tests/deploy/image-prep.sh
deploy-part-%: all
	RQ_BUILD=$(abspath $(B)) RQ_DEPLOY_TESTS=$* bash tests/deploy/run.sh
LANE_EARLY += image-prep $(DEPLOY_EARLY:%=deploy-part-%)
LANE_SIDE  += $(DEPLOY_SIDE:%=deploy-part-%)
