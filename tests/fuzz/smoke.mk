# SPDX-License-Identifier: Apache-2.0
# make fuzz-smoke: every libFuzzer target for FUZZ_SMOKE_SECONDS (10) from its seeds, so that
# the harnesses build and the parsers survive a short run; part of make test. make fuzz runs
# them longer. libFuzzer's progress goes to $(B)/fuzz/smoke-<target>.log; a failure prints
# the log's end (the crash report and the reproducer's file name).
FUZZ_SMOKE_SECONDS ?= 10

# fuzz_smoke TARGETS,SECONDS-VARIABLE
define fuzz_smoke
	@log=$(B)/fuzz/smoke-$(firstword $(1)).log; \
	if $(MAKE) --no-print-directory $(1) $(2)=$(FUZZ_SMOKE_SECONDS) > $$log 2>&1; then \
		echo "fuzz-smoke $(1): $$(grep -h '^Done' $$log | tr '\n' ' ')"; \
	else tail -40 $$log; echo "FAIL: fuzz-smoke $(1) (log: $$log)"; exit 1; fi
endef

.PHONY: fuzz-smoke
fuzz-smoke:
	@mkdir -p $(B)/fuzz
	$(call fuzz_smoke,fuzz-cni fuzz-dcb,FUZZ_SECONDS)
	$(call fuzz_smoke,fuzz-kubelet,KUBELET_FUZZ_SECONDS)
	$(call fuzz_smoke,fuzz-netconf,NETCONF_FUZZ_SECONDS)
	$(call fuzz_smoke,fuzz-podres,PODRES_FUZZ_SECONDS)
	$(call fuzz_smoke,fuzz-lldp,LLDP_FUZZ_SECONDS)
	$(call fuzz_smoke,fuzz-qps,QPS_FUZZ_SECONDS)

LANE_EARLY += fuzz-smoke
