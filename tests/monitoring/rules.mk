# SPDX-License-Identifier: Apache-2.0
# tests/monitoring: deploy/monitoring/ (alerts, dashboard, ServiceMonitor) and the DaemonSet's
# monitoring wiring, offline with promtool (tests/monitoring/run.sh).
.PHONY: monitoring-test
monitoring-test:
	bash tests/monitoring/run.sh

LANE_EARLY += monitoring-test
