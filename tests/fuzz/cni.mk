# SPDX-License-Identifier: Apache-2.0
# libFuzzer target for pkg/cni (clang): make fuzz-cni [FUZZ_SECONDS=30]
FUZZ_SECONDS ?= 20
FUZZ_CFLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -std=gnu11 -D_GNU_SOURCE -I. $(PKG_CFLAGS)

$(B)/fuzz/fuzz-cni: tests/fuzz/fuzz_cni.c pkg/cni/cni.c pkg/cni/error.c
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -o $@ $^ $(PKG_LIBS)

.PHONY: fuzz-cni
fuzz-cni: $(B)/fuzz/fuzz-cni
	@mkdir -p $(B)/fuzz/corpus-cni
	$(B)/fuzz/fuzz-cni -max_total_time=$(FUZZ_SECONDS) $(B)/fuzz/corpus-cni
