# SPDX-License-Identifier: Apache-2.0
# libFuzzer target over the PodResources reply decoder (pkg/podres/podres*.c: gRPC framing,
# protobuf-c unpacking of our api.proto's messages, the placement it yields; the same bytes as
# a percent-encoded grpc-message and Get's refusal):
#   make fuzz-podres                      build build/fuzz/fuzz-podres, run PODRES_FUZZ_SECONDS (60)
# Needs clang with libFuzzer (Debian: clang) and protoc-c. Seeds: a Get and a List reply (a pod
# with CPUs, a device on two nodes, one without topology, memory), and a List whose pods name
# VF 0000:81:00.1 by a device-plugin ID and by a DRA claim (dynamic_resources), written into
# build/fuzz/corpus-podres.
ifndef RQ_FUZZ_PODRES_MK
RQ_FUZZ_PODRES_MK := 1

PODRES_FUZZ_SECONDS ?= 60
PODRES_FUZZ_FLAGS := -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined \
                     -fno-sanitize-recover=undefined -D_GNU_SOURCE -I. -I$(B)/gen $(PKG_CFLAGS)
PODRES_FUZZ_SRC := tests/fuzz/fuzz_podres.c pkg/podres/podres.c pkg/podres/podres_place.c \
                   pkg/podres/podres_find.c $(B)/gen/pkg/podres/api.pb-c.c \
                   pkg/kubelet/kubelet.c pkg/json/jscan.c

.PHONY: fuzz-podres
$(B)/fuzz/fuzz-podres: $(PODRES_FUZZ_SRC) pkg/podres/podres.h pkg/podres/podres_int.h $(B)/gen/pkg/podres/api.pb-c.h \
                       tests/fuzz/podres.mk
	@mkdir -p $(dir $@)
	clang $(PODRES_FUZZ_FLAGS) -o $@ $(PODRES_FUZZ_SRC) $(PKG_LIBS)

# The first byte picks the decoder: 0 Get, 1 List for ns/p, 3 List for an empty name; bit 2
# (5, 7) also searches the List for VF 0000:81:00.1's pod (podres_find_vf).
$(B)/fuzz/corpus-podres/.seeded: tests/fuzz/podres.mk
	@mkdir -p $(dir $@)
	printf '\000\000\000\000\000\160\012\156\012\001\160\022\002\156\163\032\145\012\003\141\160\160\022\065\012\017\151\156\164\145\154\056\143\157\155\057\163\162\151\157\166\022\014\060\060\060\060\072\070\061\072\060\060\056\061\022\014\060\060\060\060\072\070\061\072\060\060\056\062\032\006\012\000\012\002\010\001\022\013\012\003\170\057\171\022\004\144\145\166\060\032\004\000\001\377\037\042\024\012\006\155\145\155\157\162\171\020\200\200\200\200\004\032\004\012\002\010\001' > $(dir $@)seed-get
	printf '\001\000\000\000\000\171\012\007\012\001\161\022\002\156\163\012\156\012\001\160\022\002\156\163\032\145\012\003\141\160\160\022\065\012\017\151\156\164\145\154\056\143\157\155\057\163\162\151\157\166\022\014\060\060\060\060\072\070\061\072\060\060\056\061\022\014\060\060\060\060\072\070\061\072\060\060\056\062\032\006\012\000\012\002\010\001\022\013\012\003\170\057\171\022\004\144\145\166\060\032\004\000\001\377\037\042\024\012\006\155\145\155\157\162\171\020\200\200\200\200\004\032\004\012\002\010\001' > $(dir $@)seed-list
	printf '\005\000\000\000\000\254\012\041\012\001\161\022\002\156\163\032\030\012\001\143\022\023\012\003\162\057\163\022\014\060\060\060\060\072\070\061\072\060\060\056\061\012\206\001\012\001\160\022\002\156\163\032\175\012\003\141\160\160\032\001\001\052\112\022\002\166\146\032\002\156\163\042\100\012\007\012\005\170\057\171\075\172\022\044\163\162\151\157\166\156\145\164\167\157\162\153\056\153\070\163\156\145\164\167\157\162\153\160\154\165\155\142\151\156\147\167\147\056\151\157\032\001\156\042\014\060\060\060\060\055\070\061\055\060\060\055\061\052\047\022\001\147\032\002\156\163\042\036\022\007\144\162\141\056\156\145\164\032\001\156\042\020\160\143\151\055\060\060\060\060\055\070\061\055\060\060\055\062' > $(dir $@)seed-list-dra
	printf '\000\000\000\000\000\000' > $(dir $@)seed-get-empty
	printf '\000pod p in namespace ns not found' > $(dir $@)seed-msg-not-found
	printf '\000PodResources%%20API Get%%20method disabled%%C3%%A9%%' > $(dir $@)seed-msg-encoded
	@touch $@

fuzz-podres: $(B)/fuzz/fuzz-podres $(B)/fuzz/corpus-podres/.seeded
	$(B)/fuzz/fuzz-podres -max_total_time=$(PODRES_FUZZ_SECONDS) -max_len=4096 -timeout=5 \
		-artifact_prefix=$(B)/fuzz/podres- $(B)/fuzz/corpus-podres

fuzz: fuzz-podres
endif
