# SPDX-License-Identifier: Apache-2.0
# libFuzzer target over pkg/lldp (the link partner's LLDPDU: 802.1AB framing, 802.1Qaz and
# 802.3 TLVs), which decodes whatever arrives on a PF's wire:
#   make fuzz-lldp                      build build/fuzz/fuzz-lldp, run LLDP_FUZZ_SECONDS (60)
# Needs clang with libFuzzer (Debian: clang). Seeds: a switch's full LLDPDU (identity, PFC on 3,
# DSCP 26->3 and 48->6, ETS Configuration and Recommendation, max frame 9216) as a frame and as
# a bare LLDPDU, a minimal one, and a CEE switch's (DCBX v1.01: Control, PFC on 3, an
# Application feature), written into build/fuzz/corpus-lldp.
ifndef RQ_FUZZ_LLDP_MK
RQ_FUZZ_LLDP_MK := 1

LLDP_FUZZ_SECONDS ?= 60
LLDP_FUZZ_FLAGS := -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined \
                   -fno-sanitize-recover=undefined -D_GNU_SOURCE -I.
LLDP_FUZZ_SRC := tests/fuzz/fuzz_lldp.c pkg/lldp/lldp.c

.PHONY: fuzz-lldp
$(B)/fuzz/fuzz-lldp: $(LLDP_FUZZ_SRC) pkg/lldp/lldp.h tests/fuzz/lldp.mk
	@mkdir -p $(dir $@)
	clang $(LLDP_FUZZ_FLAGS) -o $@ $(LLDP_FUZZ_SRC)

# The first byte picks the decoder: odd a whole frame, even a bare LLDPDU.
$(B)/fuzz/corpus-lldp/.seeded: tests/fuzz/lldp.mk
	@mkdir -p $(dir $@)
	printf '\001\001\200\302\000\000\016\002\000\000\000\000\001\210\314\002\007\004\014\102\241\000\000\001\004\005\005\163\167\160\063\006\002\000\170\010\011\105\164\150\145\162\156\145\164\063\012\007\154\145\141\146\055\060\061\376\006\000\200\302\013\010\010\376\013\000\200\302\014\000\145\000\032\305\000\060\376\031\000\200\302\011\010\001\043\105\147\062\062\000\000\000\000\000\000\002\002\000\000\000\000\000\000\376\031\000\200\302\012\000\001\043\105\147\062\062\000\000\000\000\000\000\002\002\000\000\000\000\000\000\376\006\000\022\017\004\044\000\000\000' > $(dir $@)seed-frame
	printf '\000\002\007\004\014\102\241\000\000\001\004\005\005\163\167\160\063\006\002\000\170\010\011\105\164\150\145\162\156\145\164\063\012\007\154\145\141\146\055\060\061\376\006\000\200\302\013\010\010\376\013\000\200\302\014\000\145\000\032\305\000\060\376\031\000\200\302\011\010\001\043\105\147\062\062\000\000\000\000\000\000\002\002\000\000\000\000\000\000\376\031\000\200\302\012\000\001\043\105\147\062\062\000\000\000\000\000\000\002\002\000\000\000\000\000\000\376\006\000\022\017\004\044\000\000\000' > $(dir $@)seed-pdu
	printf '\000\002\007\004\014\102\241\000\000\001\004\005\005\163\167\160\063\006\002\000\000\000\000' > $(dir $@)seed-ttl0
	printf '\001\001\200\302\000\000\016\002\000\000\000\000\001\210\314\002\007\004\014\102\241\000\000\001\004\005\005\163\167\160\063\006\002\000\170\376\044\000\033\041\002\002\012\000\000\000\000\000\007\000\000\000\006\006\006\000\000\300\000\010\010\010\012\000\000\200\000\014\274\000\000\000\020\000\000' > $(dir $@)seed-cee
	@touch $@

fuzz-lldp: $(B)/fuzz/fuzz-lldp $(B)/fuzz/corpus-lldp/.seeded
	$(B)/fuzz/fuzz-lldp -max_total_time=$(LLDP_FUZZ_SECONDS) -max_len=9300 -timeout=5 \
		-artifact_prefix=$(B)/fuzz/lldp- $(B)/fuzz/corpus-lldp

fuzz: fuzz-lldp
endif
