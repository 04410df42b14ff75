# SPDX-License-Identifier: Apache-2.0
# The node agent on the simulated node (part of make test), and its soak (not).
.PHONY: agent-sim-test agent-soak
agent-sim-test: all
	RQ_BUILD=$(abspath $(B)) bash tests/agent/run.sh

test: agent-sim-test

# 10 minutes of injected drifts against a running agent: RSS flat, every drift repaired
AGENT_SOAK_S ?= 600
agent-soak: all
	RQ_BUILD=$(abspath $(B)) SOAK_S=$(AGENT_SOAK_S) bash tests/agent/soak.sh
