# SPDX-License-Identifier: Apache-2.0
# make fuzz-smoke: every libFuzzer target for FUZZ_SMOKE_SECONDS (10) from its seeds, so that
# the harnesses build and the parsers survive a short run; part of make test. make fuzz runs
# them longer.
FUZZ_SMOKE_SECONDS ?= 10

.PHONY: fuzz-smoke
fuzz-smoke:
	$(MAKE) fuzz-cni fuzz-dcb FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS)
	$(MAKE) fuzz-kubelet KUBELET_FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS)
	$(MAKE) fuzz-netconf NETCONF_FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS)

test: fuzz-smoke
