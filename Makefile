# SPDX-License-Identifier: Apache-2.0
# Non-recursive build. Objects under $(B)/ (build/ by default; the sanitizer
# build uses build-asan/).
#   make            build/rdma-qos and build/rdma-qos-sim
#   make test       every test level this machine can run (see README.md)
#   make unit       Check unit suites only
#   make asan-test  unit suites under ASan+UBSan
#   make bench      benchmark (not part of test)

B        ?= build
CC       ?= gcc
PREFIX   ?= /opt/cni/bin
DESTDIR  ?=
VERSION  := $(shell cat VERSION 2>/dev/null || echo 0.0.0)
# VERSION: a release's X.Y.Z at its tag; on main the next release's X.Y.Z-dev (CONTRIBUTING.md
# "Versions"). What --version, the build_info metric and the CNI log report: VERSION alone
# for a release build (RELEASE=1, or HEAD is the tag vVERSION), else VERSION+g<12 hex of the
# commit> (VERSION+unknown when neither git nor REVISION names it), semver build metadata: a
# build of main is never mistaken for a release. The image build passes REVISION (its
# context has no .git) and RELEASE. IMAGE_TAG is that with '+' as '-' (an OCI tag has no
# '+'): a release's image X.Y.Z, any other X.Y.Z-dev-g<commit>, never a release's tag.
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null)
RELEASE  ?= $(if $(shell git describe --exact-match --match 'v$(VERSION)' HEAD 2>/dev/null),1,0)
ifeq ($(RELEASE),1)
ifneq ($(findstring -,$(VERSION)),)
$(error RELEASE=1: VERSION is $(VERSION), not a release's X.Y.Z (CONTRIBUTING.md "Cutting a release"))
endif
endif
FULL_VERSION := $(if $(filter 1,$(RELEASE)),$(VERSION),$(VERSION)+$(if $(REVISION),g$(shell printf %.12s '$(REVISION)'),unknown))
IMAGE_TAG    := $(subst +,-,$(FULL_VERSION))

# Netlink (rtnetlink, dcbnl, RDMA netlink) through libnl-3's socket, message and
# attribute API; RDMA netlink's constants are the kernel's UAPI (rdma/rdma_netlink.h,
# linux-libc-dev), so no rdma-core library is linked. libnl-route-3 is not used:
# its rtnl_link parser would add 42 KiB to a static binary whose RSS follows its
# size, for one attribute (docs/design.md "Libraries"). libnl is linked
# statically where Debian ships the archive: one shared object less to map at
# every pod start (see make bench).
# kubelet's PodResources API (pkg/podres): protobuf-c for the messages (protoc-c generates them
# from pkg/podres/api.proto into $(B)/gen), nghttp2 for HTTP/2; Debian ships both archives.
PKGS     := libnl-3.0 libcjson libprotobuf-c libnghttp2
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
NL_STATIC  := $(wildcard /usr/lib/$(shell gcc -print-multiarch)/libnl-3.a)
PODRES_LIBS := -lprotobuf-c -lnghttp2
ifneq ($(NL_STATIC),)
PKG_LIBS   := -Wl,-Bstatic -lnl-3 -Wl,-Bdynamic $(shell pkg-config --libs libcjson) $(PODRES_LIBS) -lpthread -lm
else
PKG_LIBS   := $(shell pkg-config --libs $(PKGS)) -lm
endif
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null)

# The two binaries are static-pie (docs/operations.md "Static binaries"): static glibc, libnl's archive
# and cJSON built as an archive from Debian's cjson source package (tools/cjson.sh), so
# they run on any node's libc or none. Objects compile against the installed libcjson-dev
# header, which the script checks is the archive's. STATIC=0 links them dynamically, as the
# sanitizer builds must.
STATIC   ?= $(if $(SAN),0,1)
ifeq ($(STATIC),1)
CJSON_A  := $(B)/cjson/libcjson.a
# Peak RSS (docs/operations.md "Static binaries"): a kernel that maps a binary's page cache
# in large folios makes a run's RSS close to its loaded size, so what is never
# called is dropped (--gc-sections over per-function sections) and the
# relocations are packed (DT_RELR: 1900 RELA entries of 24 bytes -> 0.4 KiB).
BIN_LDFLAGS := -static-pie -Wl,--gc-sections -Wl,-z,pack-relative-relocs
# No unwind tables in what we compile (C, no exceptions, no thread cancellation;
# perf and gdb read .debug_frame): 33 KiB of .eh_frame beside .rodata that a run
# would otherwise map with it. The sanitizer builds keep theirs.
NOUNWIND := -fno-asynchronous-unwind-tables -fno-unwind-tables
# plugin/seams/static_nonss.c: no NSS from libc.a (see there)
BIN_LIBS := $(B)/plugin/seams/static_nonss.o -lnl-3 $(CJSON_A) $(PODRES_LIBS) -lm
else
CJSON_A  :=
BIN_LDFLAGS :=
BIN_LIBS := $(PKG_LIBS)
endif

WARN     := -Wall -Wextra -Wshadow -Wformat=2 -Wvla -Wstrict-prototypes -Wmissing-prototypes \
            -Wpointer-arith -Wundef -Wno-unused-parameter
# gcc's truncation warning fires on every bounded message buffer: truncation is intended there
ifneq ($(findstring clang,$(CC)),clang)
WARN     += -Wno-format-truncation
endif
ifeq ($(WERROR),1)
WARN     += -Werror
endif
OPT      ?= -O2 -g
SAN      ?=
CFLAGS   += -std=gnu11 $(OPT) $(WARN) $(SAN) -fno-strict-aliasing -D_GNU_SOURCE \
            -ffunction-sections -fdata-sections $(NOUNWIND) \
            -DRQ_VERSION=\"$(FULL_VERSION)\" -I. -I$(B)/gen $(PKG_CFLAGS)
LDFLAGS  += $(SAN) -Wl,--as-needed -Wl,-O1

CORE_SRC := $(sort $(wildcard pkg/*/*.c netconf/*.c))
# plugin/ by role (plugin/README.md): dispatch, cni/, attach/, judge/, telemetry/, agent/,
# pass/, lldp/, tools/; the build
# seams in plugin/seams/ are linked per binary
PLUG_SRC := $(sort $(wildcard plugin/*.c plugin/cni/*.c plugin/attach/*.c plugin/judge/*.c plugin/telemetry/*.c plugin/agent/*.c plugin/pass/*.c plugin/lldp/*.c plugin/tools/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/*.c))

CORE_OBJ := $(CORE_SRC:%.c=$(B)/%.o) $(B)/gen/pkg/podres/api.pb-c.o
PLUG_OBJ := $(PLUG_SRC:%.c=$(B)/%.o)
UNIT_OBJ := $(UNIT_SRC:%.c=$(B)/%.o)
DEPS     := $(CORE_OBJ:.o=.d) $(PLUG_OBJ:.o=.d) $(UNIT_OBJ:.o=.d) $(B)/plugin/seams/env_prod.d \
            $(B)/plugin/seams/env_sim.d $(B)/plugin/seams/static_nonss.d \
            $(B)/plugin/seams/static_origin.d

.PHONY: demo all test leak-check unit sim-test asan-sim-test clients-test asan-test install clean format format-check bench tidy fuzz
all: $(B)/rdma-qos $(B)/rdma-qos-sim

# libmicrohttpd (static, no HTTPS) for the agent's HTTP endpoint
include mk/microhttpd.mk

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# the commit the build came from, for rdma_qos_build_info{revision}: git's, or what the
# image build passes (REVISION=, from --build-arg REVISION; its context has no .git); empty
# when neither. A stamp file rebuilds metrics.o only when it changes.
$(B)/gen/revision: FORCE
	@mkdir -p $(dir $@)
	@echo '$(REVISION)' | cmp -s - $@ || echo '$(REVISION)' > $@
$(B)/plugin/agent/metrics.o: $(B)/gen/revision
$(B)/plugin/agent/metrics.o: CFLAGS += -DRQ_REVISION=\"$(REVISION)\"
.PHONY: FORCE
FORCE:

# a VERSION bump or a new commit rebuilds what prints it (-DRQ_VERSION), so --version cannot
# lag behind
$(B)/gen/version: FORCE
	@mkdir -p $(dir $@)
	@echo '$(FULL_VERSION)' | cmp -s - $@ || echo '$(FULL_VERSION)' > $@
$(patsubst %.c,$(B)/%.o,$(shell grep -l RQ_VERSION plugin/*.c plugin/*/*.c pkg/*/*.c netconf/*.c 2>/dev/null)): VERSION $(B)/gen/version
.PHONY: print-version
print-version:
	@echo '$(FULL_VERSION)'
# the tag an image of this tree gets (README.md "Images"): podman build -t REGISTRY/rdma-qos:$$(make -s print-image-tag)
.PHONY: print-image-tag
print-image-tag:
	@echo '$(IMAGE_TAG)'

# The PodResources messages, generated from our api.proto (no generated file is kept in git).
$(B)/gen/pkg/podres/api.pb-c.c $(B)/gen/pkg/podres/api.pb-c.h: pkg/podres/api.proto
	@mkdir -p $(B)/gen
	protoc-c --c_out=$(B)/gen $<
$(B)/gen/pkg/podres/api.pb-c.o: $(B)/gen/pkg/podres/api.pb-c.c
	$(CC) $(filter-out -Wmissing-prototypes,$(CFLAGS)) -MMD -MP -c $< -o $@
$(filter $(B)/pkg/podres/%,$(CORE_OBJ)): $(B)/gen/pkg/podres/api.pb-c.h

$(B)/librq.a: $(CORE_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

# The link order is the text's layout (docs/benchmarks.md "ADD's cost"): what a CNI command
# runs first (dispatch, cni/, attach/, the seam, the pkg/ members, cJSON and libnl they pull), then
# what only the agent and the tools run (librq.a again for the members only they need). A
# static binary's pages are mapped 64 KiB around each first touch, so a CNI exec that stays
# in the front of the text maps less of it.
CNI_PLUG_OBJ  := $(filter $(B)/plugin/main.o $(B)/plugin/cni/% $(B)/plugin/attach/%,$(PLUG_OBJ))
REST_PLUG_OBJ := $(filter-out $(CNI_PLUG_OBJ),$(PLUG_OBJ))
CNI_LIBS      := $(if $(filter 1,$(STATIC)),-lnl-3)
# plugin/seams/static_origin.c: no /proc lookup in glibc's static start; every exec runs it,
# so it sits with the CNI path, not at the text's far end
START_OBJ     := $(if $(filter 1,$(STATIC)),$(B)/plugin/seams/static_origin.o)
# ... and the libc.a members a CNI command runs (mk/cni_libc.txt, extracted by mk/cni_libc.sh):
# taken from the archive where they are listed, they sit beside the code that calls them
CNI_LIBC      := $(if $(filter 1,$(STATIC)),$(B)/cnilibc/.stamp)
CNI_LIBC_OBJ   = $(if $(CNI_LIBC),$(wildcard $(B)/cnilibc/*.o))
BIN_LINK = $(CC) $(LDFLAGS) $(BIN_LDFLAGS) -o $@ $(CNI_PLUG_OBJ) $(1) $(START_OBJ) $(B)/librq.a \
	$(CJSON_A) $(CNI_LIBS) $(CNI_LIBC_OBJ) \
	$(REST_PLUG_OBJ) $(B)/librq.a \
	$(filter-out $(BIN_LIBS) $(PLUG_OBJ) $(1) $(START_OBJ) $(B)/librq.a $(CNI_LIBC),$^) \
	$(BIN_LIBS)

$(B)/cnilibc/.stamp: mk/cni_libc.sh mk/cni_libc.txt
	bash mk/cni_libc.sh "$(CC)" mk/cni_libc.txt $(B)/cnilibc
	@touch $@

$(B)/rdma-qos: $(PLUG_OBJ) $(B)/plugin/seams/env_prod.o $(B)/librq.a $(filter %.a %.o,$(BIN_LIBS)) \
		$(CNI_LIBC) $(START_OBJ)
	$(call BIN_LINK,$(B)/plugin/seams/env_prod.o)

$(B)/rdma-qos-sim: $(PLUG_OBJ) $(B)/plugin/seams/env_sim.o $(B)/librq.a $(filter %.a %.o,$(BIN_LIBS)) \
		$(CNI_LIBC) $(START_OBJ)
	$(call BIN_LINK,$(B)/plugin/seams/env_sim.o)

$(B)/cjson/libcjson.a: tools/cjson.sh tools/deb-src.sh
	tools/cjson.sh $(B)/cjson $(CC) $(AR) $(OPT) -fPIE -ffunction-sections -fdata-sections $(NOUNWIND)

# Suites are discovered: every "Suite *suite_xxx(void)" definition in tests/unit.
$(B)/tests/unit/suites.h: $(UNIT_SRC)
	@mkdir -p $(dir $@)
	@grep -ho '^Suite \*suite_[a-z0-9_]*(void)$$' $(filter-out tests/unit/main.c,$(UNIT_SRC)) | \
		sed 's/^Suite \*\(suite_[a-z0-9_]*\)(void)$$/X(\1)/' > $@.tmp && mv $@.tmp $@

$(UNIT_OBJ): $(B)/tests/unit/suites.h $(B)/gen/pkg/podres/api.pb-c.h
$(UNIT_OBJ): CFLAGS += -I$(B)/tests/unit -include tests/unit/suites_proto.h

$(B)/unit-tests: $(UNIT_OBJ) $(B)/librq.a
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(CHECK_LIBS)

unit: $(B)/unit-tests all
	RQ_BUILD=$(abspath $(B)) RQ_SRC=$(CURDIR) $(B)/unit-tests

# tests/sim/run.sh runs on the sanitizer build (asan-sim-test), the rest on this one
sim-test: all
	RQ_BUILD=$(abspath $(B)) bash tests/sim/preflight.sh
	RQ_BUILD=$(abspath $(B)) bash tests/sim/gdr.sh
	RQ_BUILD=$(abspath $(B)) bash tests/sim/steady_syscalls.sh
	RQ_BUILD=$(abspath $(B)) bash tests/sim/demo_check.sh
	RQ_BUILD=$(abspath $(B)) bash tests/sim/simnode_check.sh
	RQ_BUILD=$(abspath $(B)) bash tests/sim/kubectl.sh

# vm-test: every guest suite (tests/vm/rules.mk lists them in LANE_GUEST)
vm-test: $(LANE_GUEST)

clients-test: all
	RQ_BUILD=$(abspath $(B)) bash tests/clients/run.sh

# make test: every test target once, in the lanes of tests/lanes.sh (which prints each
# target's wall time at the end). Each area's rules.mk puts its targets in a lane:
#   LANE_BUILD  built first, one at a time     LANE_QUIET  deadline suites, never beside a guest
#   LANE_EARLY  computing, beside LANE_QUIET   LANE_GUEST  QEMU guests, after LANE_QUIET
#   LANE_SIDE   the rest, beside the guests    LANE_ALONE  the host to itself, beside guests
#   LANE_LAST   the leak check
LANE_BUILD += all asan-all
LANE_EARLY += unit asan-test
LANE_QUIET += asan-sim-test sim-test
LANE_SIDE  += clients-test
LANE_LAST  += leaks-after
test:
	@[ -n "$$RQ_TIMES" ] || : > $(abspath $(B))/times.tsv
	LANE_BUILD="$(LANE_BUILD)" LANE_QUIET="$(LANE_QUIET)" LANE_EARLY="$(LANE_EARLY)" \
	LANE_GUEST="$(LANE_GUEST)" LANE_SIDE="$(LANE_SIDE)" LANE_ALONE="$(LANE_ALONE)" \
	LANE_LAST="$(LANE_LAST)" \
	RQ_TIMES=$${RQ_TIMES:-$(abspath $(B))/times.tsv} B=$(B) bash tests/lanes.sh run

# The leak check (issue 42 item 12): what the tests make on the host and must
# remove (tests/leaks.sh: namespaces, links, processes, temporary directories,
# by the names the tests give them) is inventoried when make reads this file,
# before any goal runs, and compared after them: by `test`'s recipe (it runs
# once every prerequisite, from every tests/*/rules.mk, is done), or by
# `leak-check` after the goals named with it (`make unit sim-test leak-check`).
LEAKS_BEFORE := $(abspath $(B))/.leaks-before
ifneq ($(filter test leak-check,$(MAKECMDGOALS)),)
$(shell mkdir -p $(B) && bash tests/leaks.sh snapshot $(LEAKS_BEFORE))
endif
leak-check: $(filter-out leak-check,$(MAKECMDGOALS))
	bash tests/leaks.sh check $(LEAKS_BEFORE)
# make test's last lane: what the lanes left, against the inventory make test took
.PHONY: leaks-after
leaks-after:
	bash tests/leaks.sh check $(LEAKS_BEFORE)

demo: all
	RQ_BUILD=$(abspath $(B)) bash tests/demo.sh

# a simulated node left running to try things on: prints RDMA_QOS_SIM_ROOT=, the metrics
# address and the command that tears it down (tests/simnode/sim-node.sh)
.PHONY: sim-node
sim-node: all
	@RQ_BUILD=$(abspath $(B)) bash tests/simnode/sim-node.sh up

ASAN_MAKE = $(MAKE) B=build-asan OPT="-O1 -g -fno-omit-frame-pointer" \
	SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
asan-test:
	$(ASAN_MAKE) unit

# the binaries on ASan+UBSan (build-asan/), once: make test builds them before any lane starts
# (RQ_LANES set), so suites running side by side never race on that build
.PHONY: asan-all
asan-all:
	$(ASAN_MAKE) all
ASAN_ALL := $(if $(RQ_LANES),,asan-all)

# $(call san_suite,LOGDIR,SCRIPT): the suite SCRIPT on ASan+UBSan builds of the binaries
# (the command code in plugin/ runs only in those suites). Any sanitizer report fails
# the target, also one from a run whose exit status the suite does not look at.
define san_suite
	$(if $(RQ_LANES),,$(ASAN_MAKE) all)
	rm -rf $(1) && mkdir -p $(1)
	ASAN_OPTIONS=log_path=$(1)/asan UBSAN_OPTIONS=log_path=$(1)/ubsan:print_stacktrace=1 \
		RQ_BUILD=$(abspath build-asan) bash $(2)
	@if [ -n "$$(ls $(1))" ]; then cat $(1)/*; \
		echo "FAIL: sanitizer reports in $(1)"; exit 1; fi
endef

# The simulated-node suite again, on the sanitizer build.
asan-sim-test:
	$(call san_suite,$(abspath build-asan)/san-logs,tests/sim/run.sh)

bench: all
	RQ_BUILD=$(abspath $(B)) bash tests/bench/run.sh

install: all
	install -d $(DESTDIR)$(PREFIX)
	install -m 0755 $(B)/rdma-qos $(DESTDIR)$(PREFIX)/rdma-qos

format:
	clang-format -i $(CORE_SRC) $(PLUG_SRC) plugin/seams/*.c $(wildcard pkg/*/*.h netconf/*.h plugin/*/*.h)

format-check:
	clang-format --dry-run --Werror $(CORE_SRC) $(PLUG_SRC) plugin/seams/*.c $(wildcard pkg/*/*.h netconf/*.h plugin/*/*.h)

tidy:
	clang-tidy --quiet $(CORE_SRC) $(PLUG_SRC) -- $(CFLAGS)

clean:
	rm -rf build build-asan

-include $(DEPS)

# Test areas may add their own build rules (helpers, fixtures) here.
-include $(sort $(wildcard tests/*/*.mk))

# Within a lane, the longest first (tests/lanes.sh starts them in this order): the guests'
# preparation and the images early, the image builds first beside the guests.
LANE_EARLY := $(filter vm-prep,$(LANE_EARLY)) $(filter image-prep,$(LANE_EARLY)) \
              $(filter-out vm-prep image-prep,$(LANE_EARLY))
LANE_SIDE  := $(filter deploy-part-image deploy-part-multiarch deploy-part-arm64,$(LANE_SIDE)) \
              $(filter-out deploy-part-%,$(LANE_SIDE))
