# SPDX-License-Identifier: Apache-2.0
# make crash: the crash test at every kill point (minutes); make crash-sample: every 23rd,
# in make test.
.PHONY: crash crash-sample
crash: all
	RQ_BUILD=$(abspath $(B)) CRASH_STEP=1 bash tests/crash/run.sh

crash-sample: all
	RQ_BUILD=$(abspath $(B)) CRASH_STEP=$${CRASH_STEP:-23} bash tests/crash/run.sh

LANE_SIDE += crash-sample
