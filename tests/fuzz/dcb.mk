# SPDX-License-Identifier: Apache-2.0
# libFuzzer target over pkg/dcb's dcbnl reply decoders:
#   make fuzz-dcb                 build build/fuzz/fuzz-dcb and run it FUZZ_SECONDS seconds
#   make fuzz-dcb FUZZ_SECONDS=600
# Needs clang with libFuzzer (Debian: clang). The corpus grows in build/fuzz/corpus-dcb.
ifndef RQ_FUZZ_DCB_MK
RQ_FUZZ_DCB_MK := 1

FUZZ_CC   ?= clang
FUZZ_SECONDS ?= 20
FUZZ_FLAGS := -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
              -D_GNU_SOURCE -I. $(PKG_CFLAGS)

.PHONY: fuzz-dcb
$(B)/fuzz/fuzz-dcb: tests/fuzz/fuzz_dcb.c pkg/dcb/dcb_msg.c pkg/dcb/dcb_msg.h pkg/dcb/dcb.h \
                  pkg/nlparse/nlparse.c pkg/nlparse/nlparse.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ tests/fuzz/fuzz_dcb.c pkg/dcb/dcb_msg.c pkg/nlparse/nlparse.c \
		$(PKG_LIBS)

fuzz-dcb: $(B)/fuzz/fuzz-dcb
	@mkdir -p $(B)/fuzz/corpus-dcb
	$(B)/fuzz/fuzz-dcb -max_total_time=$(FUZZ_SECONDS) -max_len=4096 $(B)/fuzz/corpus-dcb

fuzz: fuzz-dcb
endif
