# SPDX-License-Identifier: Apache-2.0
# The node agent on the simulated node (part of make test), and its soak (not).
.PHONY: agent-sim-test agent-soak
agent-sim-test: all
	RQ_BUILD=$(abspath $(B)) bash tests/agent/run.sh
	RQ_BUILD=$(abspath $(B)) bash tests/agent/reload.sh
	RQ_BUILD=$(abspath $(B)) bash tests/agent/mounts.sh
	RQ_BUILD=$(abspath $(B)) bash tests/agent/netns.sh
	RQ_BUILD=$(abspath $(B)) bash tests/agent/nfd.sh
	RQ_BUILD=$(abspath $(B)) bash tests/agent/resets.sh
	RQ_BUILD=$(abspath $(B)) bash tests/agent/lldp.sh
	RQ_BUILD=$(abspath $(B)) bash tests/agent/fabric.sh
	RQ_BUILD=$(abspath $(B)) bash tests/agent/ecn.sh
	RQ_BUILD=$(abspath $(B)) bash tests/agent/slow.sh
	RQ_BUILD=$(abspath $(B)) bash tests/agent/unchained.sh
	RQ_BUILD=$(abspath $(B)) bash tests/agent/verdict.sh

test: agent-sim-test asan-agent-sim-test

# The same on ASan+UBSan builds: the agent's code runs only in these tests. Any sanitizer
# report (LeakSanitizer's at exit included) fails it.
.PHONY: asan-agent-sim-test
asan-agent-sim-test:
	$(call san_suite,$(abspath build-asan)/san-logs-agent,tests/agent/run.sh)
	$(call san_suite,$(abspath build-asan)/san-logs-agent-reload,tests/agent/reload.sh)
	$(call san_suite,$(abspath build-asan)/san-logs-agent-resets,tests/agent/resets.sh)
	$(call san_suite,$(abspath build-asan)/san-logs-agent-netns,tests/agent/netns.sh)
	$(call san_suite,$(abspath build-asan)/san-logs-agent-lldp,tests/agent/lldp.sh)
	$(call san_suite,$(abspath build-asan)/san-logs-agent-fabric,tests/agent/fabric.sh)
	$(call san_suite,$(abspath build-asan)/san-logs-agent-ecn,tests/agent/ecn.sh)
	$(call san_suite,$(abspath build-asan)/san-logs-agent-unchained,tests/agent/unchained.sh)
	$(call san_suite,$(abspath build-asan)/san-logs-agent-verdict,tests/agent/verdict.sh)

# 10 minutes of injected drifts against a running agent: RSS flat, every drift repaired
AGENT_SOAK_S ?= 600
agent-soak: all
	RQ_BUILD=$(abspath $(B)) SOAK_S=$(AGENT_SOAK_S) bash tests/agent/soak.sh

# The production agent in the QEMU guest (tests/vm/agent.sh), run by make vm-test:
# real dcbnl through dcbsim. Its own guest boot, so tests/vm/e2e.sh stays untouched.
.PHONY: vm-agent-test
vm-agent-test: all
	RQ_BUILD=$(abspath $(B)) bash tests/vm/run.sh tests/vm/agent.sh

vm-test: vm-agent-test

# A driver reload under the running agent (tests/vm/reload.sh): its own guest boot
.PHONY: vm-reload-test
vm-reload-test: all
	RQ_BUILD=$(abspath $(B)) bash tests/vm/run.sh tests/vm/reload.sh

vm-test: vm-reload-test

# Agent pass time for 1..256 attachments, what congestion telemetry adds to a pass and
# to a /metrics request, a collection with slow counter reads, and the link partner's
# cost: decode time per LLDP frame, wakeups with and without frames (points of make bench)
.PHONY: agent-bench
agent-bench: all
	RQ_BUILD=$(abspath $(B)) bash tests/agent/bench.sh
	RQ_BUILD=$(abspath $(B)) bash tests/agent/bench_telemetry.sh
	RQ_BUILD=$(abspath $(B)) bash tests/agent/bench_lldp.sh
	RQ_BUILD=$(abspath $(B)) bash tests/agent/bench_qps.sh
	RQ_BUILD=$(abspath $(B)) bash tests/agent/bench_unchained.sh
	RQ_BUILD=$(abspath $(B)) bash tests/agent/bench_link.sh

bench: agent-bench
