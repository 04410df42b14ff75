# SPDX-License-Identifier: Apache-2.0
# The node agent on the simulated node (part of make test), and its soak (not).
# Each suite runs once in make test: on the ASan+UBSan build (asan-agent-NAME: the agent's
# code runs only in these suites; any sanitizer report, LeakSanitizer's at exit included,
# fails it) or, where its checks are timed to the millisecond, on the -O2 build (agent-NAME).
# make agent-sim-test runs every one on -O2, make asan-agent-sim-test the ASan ones on ASan.
AGENT_ASAN_QUIET := run lldp unchained
AGENT_ASAN_SIDE  := fabric ecn verdict reload resets shared_class hostnet shared_qps
# run.sh's sub-suites with no deadline: make test runs them apart, beside the guests (run.sh
# has a deadline of its own); run.sh alone still runs them all
AGENT_APART      := telemetry telemetry_meaning who qps bond health
AGENT_ASAN_SIDE  += $(AGENT_APART)
asan-agent-run: export RQ_AGENT_APART = $(if $(RQ_LANES),$(AGENT_APART))
AGENT_O2_QUIET   := slow
AGENT_O2_SIDE    := mounts nfd
LANE_QUIET += $(AGENT_ASAN_QUIET:%=asan-agent-%) $(AGENT_O2_QUIET:%=agent-%)
LANE_SIDE  += $(AGENT_ASAN_SIDE:%=asan-agent-%) $(AGENT_O2_SIDE:%=agent-%)
# netns.sh waits for the kernel to give a freed netns inode to the next netns: no other suite
# may make one meanwhile
AGENT_ASAN_ALONE := netns
LANE_ALONE += $(AGENT_ASAN_ALONE:%=asan-agent-%)

.PHONY: agent-sim-test asan-agent-sim-test agent-soak
agent-%: all
	RQ_BUILD=$(abspath $(B)) bash tests/agent/$*.sh
asan-agent-%: $(ASAN_ALL)
	$(call san_suite,$(abspath build-asan)/san-logs-agent-$*,tests/agent/$*.sh)
agent-sim-test: $(addprefix agent-,$(AGENT_ASAN_QUIET) $(AGENT_ASAN_SIDE) $(AGENT_ASAN_ALONE) \
                $(AGENT_O2_QUIET) $(AGENT_O2_SIDE))
asan-agent-sim-test: $(addprefix asan-agent-,$(AGENT_ASAN_QUIET) $(AGENT_ASAN_SIDE) $(AGENT_ASAN_ALONE))

# 10 minutes of injected drifts against a running agent: RSS flat, every drift repaired
AGENT_SOAK_S ?= 600
agent-soak: all
	RQ_BUILD=$(abspath $(B)) SOAK_S=$(AGENT_SOAK_S) bash tests/agent/soak.sh

# The agent in the QEMU guest: vm-agent-test and vm-reload-test (tests/vm/rules.mk).

# Agent pass time for 1..256 attachments, what congestion telemetry adds to a pass and
# to a /metrics request, a collection with slow counter reads, and the link partner's
# cost: decode time per LLDP frame, wakeups with and without frames (points of make bench)
.PHONY: agent-bench
agent-bench: all
	RQ_BUILD=$(abspath $(B)) bash tests/agent/bench.sh
	RQ_BUILD=$(abspath $(B)) bash tests/agent/bench_telemetry.sh
	RQ_BUILD=$(abspath $(B)) bash tests/agent/bench_lldp.sh
	RQ_BUILD=$(abspath $(B)) bash tests/agent/bench_qps.sh
	RQ_BUILD=$(abspath $(B)) bash tests/agent/bench_shared_qps.sh
	RQ_BUILD=$(abspath $(B)) bash tests/agent/bench_unchained.sh
	RQ_BUILD=$(abspath $(B)) bash tests/agent/bench_link.sh

bench: agent-bench
