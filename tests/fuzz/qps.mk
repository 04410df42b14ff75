# SPDX-License-Identifier: Apache-2.0
# libFuzzer target over the QP census parsers (pkg/rdma/qps.c, qps_json.c, cm_id.c): RDMA netlink's
# restrack QP and RDMA-CM id dump messages, the sim's cm_ids/<dev>.json, its raw QP dump messages, mlx5's resource dump of a QP context, the sim's
# qps/<dev>.json:
#   make fuzz-qps                       build build/fuzz/fuzz-qps, run QPS_FUZZ_SECONDS (60)
# Needs clang with libFuzzer (Debian: clang). Seeds (tests/fuzz/seeds-qps, made by the unit
# tests' builders): a QP dump message (RC with a pid, GSI with a kernel name, mlx5's DCI), a
# raw message with two QPs' resource dumps (tclass 106 and 0), one resource dump alone, a
# qps JSON file; copied into build/fuzz/corpus-qps.
ifndef RQ_FUZZ_QPS_MK
RQ_FUZZ_QPS_MK := 1

QPS_FUZZ_SECONDS ?= 60
QPS_FUZZ_FLAGS := -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined \
                  -fno-sanitize-recover=undefined -D_GNU_SOURCE -I. $(PKG_CFLAGS)
QPS_FUZZ_SRC := tests/fuzz/fuzz_qps.c pkg/rdma/qps.c pkg/rdma/qps_json.c pkg/rdma/cm_id.c pkg/rdma/json_flat.c pkg/rdma/rdma_nl.c \
                pkg/nlparse/nlparse.c

.PHONY: fuzz-qps
$(B)/fuzz/fuzz-qps: $(QPS_FUZZ_SRC) pkg/rdma/qps.h pkg/rdma/cm_id.h pkg/rdma/json_flat.h pkg/rdma/rdma_nl.h pkg/nlparse/nlparse.h \
                    tests/fuzz/qps.mk
	@mkdir -p $(dir $@)
	clang $(QPS_FUZZ_FLAGS) -o $@ $(QPS_FUZZ_SRC) $(PKG_LIBS)

$(B)/fuzz/corpus-qps/.seeded: $(wildcard tests/fuzz/seeds-qps/*)
	@mkdir -p $(dir $@)
	cp $^ $(dir $@)
	@touch $@

fuzz-qps: $(B)/fuzz/fuzz-qps $(B)/fuzz/corpus-qps/.seeded
	$(B)/fuzz/fuzz-qps -max_total_time=$(QPS_FUZZ_SECONDS) -max_len=4096 -timeout=5 \
		-artifact_prefix=$(B)/fuzz/qps- $(B)/fuzz/corpus-qps

fuzz: fuzz-qps
endif
