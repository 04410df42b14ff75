# SPDX-License-Identifier: Apache-2.0
# libFuzzer target over the node layer's parsers (kubelet checkpoints, cpusets, ToS text,
# RDMA netlink port replies and notify-group events, infiniband uevents):
#   make fuzz-kubelet                      build build/fuzz/fuzz-kubelet, run KUBELET_FUZZ_SECONDS (60)
#   make fuzz-kubelet KUBELET_FUZZ_SECONDS=600
# Needs clang with libFuzzer (Debian: clang). Seeds are written into build/fuzz/corpus-kubelet.
ifndef RQ_FUZZ_KUBELET_MK
RQ_FUZZ_KUBELET_MK := 1

KUBELET_FUZZ_SECONDS ?= 60
KUBELET_FUZZ_FLAGS := -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined \
                      -fno-sanitize-recover=undefined -D_GNU_SOURCE -I. $(PKG_CFLAGS)
# a scanner buffer and a pod-entries bound that fuzz inputs cross (-max_len is 16384)
KUBELET_FUZZ_FLAGS += -DRQ_JSCAN_BUF=61 -DRQ_KUBELET_VALUE_MAX=300
KUBELET_FUZZ_SRC := tests/fuzz/fuzz_kubelet.c tests/fuzz/kubelet_ref.c pkg/kubelet/kubelet.c \
                    pkg/json/jscan.c pkg/rdma/rdma.c pkg/rdma/rdma_nl.c pkg/rdma/tos.c pkg/rdma/podsys.c pkg/rdma/counters.c \
                    pkg/netns/netns.c pkg/nlparse/nlparse.c \
                    pkg/sysfs/sysfs.c pkg/mem/mem.c pkg/cni/error.c

.PHONY: fuzz-kubelet
$(B)/fuzz/fuzz-kubelet: $(KUBELET_FUZZ_SRC) pkg/kubelet/kubelet.h pkg/json/jscan.h \
                        tests/fuzz/kubelet_ref.h pkg/rdma/rdma.h pkg/sysfs/sysfs.h pkg/nlparse/nlparse.h \
                        tests/fuzz/kubelet.mk
	@mkdir -p $(dir $@)
	clang $(KUBELET_FUZZ_FLAGS) -o $@ $(KUBELET_FUZZ_SRC) $(PKG_LIBS)

# One seed per parser: the first byte selects it, for the checkpoints the second sets the read
# size (see fuzz_kubelet.c).
$(B)/fuzz/corpus-kubelet/.seeded: tests/fuzz/kubelet.mk
	@mkdir -p $(dir $@)
	printf '\000%s' '0-3,8,10-11' > $(dir $@)seed-cpuset
	printf '\001\007%s' '{"policyName":"static","defaultCpuSet":"0,9","entries":{"pod-a":{"app":"1-2"}},"checksum":1}' > $(dir $@)seed-cpu
	printf '\002\000%s' '{"Data":{"PodDeviceEntries":[{"PodUID":"pod-a","ContainerName":"c","ResourceName":"nvidia.com/gpu","DeviceIDs":{"0":["GPU-1"],"-1":["x"]}},{"PodUID":"pod-a","ResourceName":"r","DeviceIDs":["y"]}],"RegisteredDevices":{}},"Checksum":2}' > $(dir $@)seed-dev
	printf '\003\015%s' '{"policyName":"Static","entries":{"pod-a":{"app":[{"numaAffinity":[0,1],"type":"memory","size":1}]}},"checksum":3}' > $(dir $@)seed-mem
	{ printf '\002\000{"Data":{"PodDeviceEntries":['; for p in pod-b pod-a pod-c; do \
		printf '{"PodUID":"%s","ContainerName":"m","ResourceName":"rdma/rail1","DeviceIDs":{"1":["0000:17:00.2"]},"AllocResp":"' $$p; \
		head -c 700 /dev/zero | tr '\0' Q; printf '"},'; done; \
		printf '{"PodUID":"pod-a","DeviceIDs":[]}],"RegisteredDevices":{}},"Checksum":9}'; } > $(dir $@)seed-dev-blobs
	printf '\004%s' 'Global tclass=106' > $(dir $@)seed-tos
	printf '\006%s' 'np_cnp_sent 5\nlifespan 10\nout_of_sequence 18446744073709551615\nx -1\n' > $(dir $@)seed-counters
	printf '\004%s' 'Global tclass=96\ndst_ip=10.0.0.0/8,tclass=24\n' > $(dir $@)seed-tos-rules
	printf '\005\054\000\000\000\000\000\002\000\000\000\000\000\000\000\000\000\011\000\002\000rxe0\000\000\000\000\010\000\003\000\001\000\000\000\010\000\062\000\007\000\000\000' > $(dir $@)seed-nl
	printf '\005\054\000\000\000\034\024\000\000\000\000\000\000\000\000\000\000\010\000\001\000\004\000\000\000\011\000\002\000rxe0\000\000\000\000\005\000\146\000\000\000\000\000' > $(dir $@)seed-nl-event
	printf '\005%s\000%s\000%s\000%s' 'add@/devices/ib/mlx5_2' 'ACTION=add' 'DEVPATH=/devices/ib/mlx5_2' 'SUBSYSTEM=infiniband' > $(dir $@)seed-uevent
	@touch $@

fuzz-kubelet: $(B)/fuzz/fuzz-kubelet $(B)/fuzz/corpus-kubelet/.seeded
	$(B)/fuzz/fuzz-kubelet -max_total_time=$(KUBELET_FUZZ_SECONDS) -max_len=16384 -timeout=5 \
		-artifact_prefix=$(B)/fuzz/kubelet- $(B)/fuzz/corpus-kubelet

fuzz: fuzz-kubelet
endif
