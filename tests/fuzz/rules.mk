# SPDX-License-Identifier: Apache-2.0
# libFuzzer target over netconf/ (plugin entry, catalog, resolution, profile round trip):
#   make fuzz-netconf                    build build/fuzz/fuzz-netconf, run NETCONF_FUZZ_SECONDS (60)
#   make fuzz-netconf-smoke              the same for 10 s, for CI
# Needs clang with libFuzzer (Debian: clang). Seeds: examples/*.json; the corpus grows in
# build/fuzz/corpus-netconf.
ifndef RQ_FUZZ_NETCONF_MK
RQ_FUZZ_NETCONF_MK := 1

NETCONF_FUZZ_SECONDS ?= 60
NETCONF_FUZZ_FLAGS := -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined \
                      -fno-sanitize-recover=undefined -D_GNU_SOURCE -I. $(PKG_CFLAGS)
# the catalog's streaming pass through a scanner buffer that inputs cross (-max_len is 8192)
NETCONF_FUZZ_FLAGS += -DRQ_JSCAN_BUF=61
NETCONF_FUZZ_SRC := tests/fuzz/fuzz_netconf.c $(sort $(wildcard netconf/*.c)) pkg/cni/error.c \
                    pkg/json/jscan.c pkg/dcb/plan.c pkg/pci/tree.c pkg/sysfs/sysfs.c \
                    pkg/mem/mem.c

.PHONY: fuzz-netconf fuzz-netconf-smoke
$(B)/fuzz/fuzz-netconf: $(NETCONF_FUZZ_SRC) $(wildcard netconf/*.h) pkg/cni/error.h pkg/json/jscan.h \
                        tests/fuzz/rules.mk
	@mkdir -p $(dir $@)
	clang $(NETCONF_FUZZ_FLAGS) -o $@ $(NETCONF_FUZZ_SRC) $(PKG_LIBS)

$(B)/fuzz/corpus-netconf/.seeded: $(wildcard examples/*.json)
	@mkdir -p $(dir $@)
	cp $^ $(dir $@)
	@touch $@

fuzz-netconf: $(B)/fuzz/fuzz-netconf $(B)/fuzz/corpus-netconf/.seeded
	$(B)/fuzz/fuzz-netconf -max_total_time=$(NETCONF_FUZZ_SECONDS) -max_len=8192 \
		-timeout=5 $(B)/fuzz/corpus-netconf

fuzz-netconf-smoke:
	$(MAKE) fuzz-netconf NETCONF_FUZZ_SECONDS=10

fuzz: fuzz-netconf
endif
