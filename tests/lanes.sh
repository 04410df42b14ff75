#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# make test's scheduler (CONTRIBUTING.md "Testing"): every test target of the Makefile and
# tests/*/rules.mk once, in lanes that fit a 2-core machine, each target's wall time in a
# table at the end.
#   lanes.sh run        the lanes (make test calls it with the lists below in the environment)
#   lanes.sh table FILE print FILE's rows (name, lane, start, end, status) as the table
#   lanes.sh row NAME LANE CMD...  run CMD, append its row to $RQ_TIMES (.ci/run's apt rows)
# The lists (make variables, filled by the rules.mk of each area):
#   LANE_BUILD  built first, one at a time (both builds: no lane races on a build stamp)
#   LANE_QUIET  suites with deadlines ("within N s"): never beside a TCG guest; side by side
#               among themselves (they wait, they do not compute), QUIET_JOBS at a time
#   LANE_EARLY  what computes and has no deadline: beside LANE_QUIET, one at a time
#   LANE_GUEST  the QEMU guest suites: GUEST_JOBS (2) guests at a time, once LANE_QUIET is done
#   LANE_SIDE   the rest: after LANE_EARLY, beside the guests, SIDE_JOBS (2) at a time
#   LANE_ALONE  suites that need the host to themselves (tests/agent/netns.sh waits for the
#               kernel to hand a freed netns inode to its next netns): after LANE_QUIET and
#               LANE_SIDE, beside the guests only (a guest makes nothing on the host)
#   LANE_LAST   after everything (the leak check)
# A target's output is printed whole when it ends (as make -O does), prefixed by its name.
# Every target runs even when an earlier one failed; the exit status is 1 when any failed.
set -u
cd "$(dirname "$0")/.." || exit 1
: "${RQ_TIMES:=${B:-build}/times.tsv}"
LOGS=${RQ_LANE_LOGS:-${B:-build}/lane-logs}
WARN_S=$((25 * 60))

now() { date +%s.%N; }

# row NAME LANE CMD...: run CMD, record its row; CMD's status is row's
row() {
	local name=$1 lane=$2 t0 t1 rc
	shift 2
	t0=$(now)
	"$@"
	rc=$?
	t1=$(now)
	mkdir -p "$(dirname "$RQ_TIMES")"
	printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$lane" "$t0" "$t1" "$rc" >> "$RQ_TIMES"
	return $rc
}

# one TARGET LANE: make TARGET, its output into a log printed when it ends
one() {
	local t=$1 lane=$2 log="$LOGS/$1.log" rc
	row "$t" "$lane" make --no-print-directory RQ_LANES=1 "$t" > "$log" 2>&1
	rc=$?
	{
		echo "=== [$lane] $t ($(awk -F'\t' -v t="$t" '$1 == t { d = $4 - $3 } END { printf "%.0f s", d }' "$RQ_TIMES"), exit $rc)"
		cat "$log"
		[ $rc -eq 0 ] || echo "=== FAILED: $t (exit $rc)"
	} | flock "$LOGS/.print" cat
	return $rc
}

# pool JOBS LANE TARGETS...: the targets, JOBS at a time, in the order given; 1 when any failed
pool() {
	local jobs=$1 lane=$2 t n=0 bad=0
	shift 2
	for t in "$@"; do
		if [ "$n" -ge "$jobs" ]; then
			wait -n || bad=1
			n=$((n - 1))
		fi
		one "$t" "$lane" &
		n=$((n + 1))
	done
	while [ "$n" -gt 0 ]; do
		wait -n || bad=1
		n=$((n - 1))
	done
	return $bad
}

table() {
	awk -F'\t' -v warn="$WARN_S" '
		NR == 1 || $3 < t0 { t0 = $3 }
		{ n[NR] = $1; l[NR] = $2; s[NR] = $3; e[NR] = $4; r[NR] = $5; if ($4 > t1) t1 = $4 }
		END {
			printf "\n%-28s %-6s %8s %8s %8s  %s\n", "target", "lane", "start", "end", "wall", "status"
			for (i = 1; i <= NR; i++)
				printf "%-28s %-6s %7.0fs %7.0fs %7.0fs  %s\n", n[i], l[i], s[i] - t0, e[i] - t0, e[i] - s[i], r[i] == 0 ? "ok" : "FAILED (" r[i] ")"
			tot = t1 - t0
			printf "%-28s %-6s %8s %8s %7.0fs  (%d min %02d s)\n", "total", "", "", "", tot, tot / 60, tot % 60
			if (tot > warn) printf "WARNING: the run took %.1f minutes, more than %d (CONTRIBUTING.md \"CI\")\n", tot / 60, warn / 60
		}' "$1"
}

# chain LANE JOBS LIST [LANE JOBS LIST ...]: the pools one after the other (each in a shell of
# its own: wait -n there sees only its own targets); 1 when any target failed
chain() {
	local bad=0
	while [ $# -ge 3 ]; do
		# shellcheck disable=SC2086 # the lists are word lists
		(pool "$2" "$1" $3) || bad=1
		shift 3
	done
	return $bad
}

run() {
	local bad=0 a b
	mkdir -p "$LOGS"
	: > "$LOGS/.print"
	chain build 1 "$LANE_BUILD" || bad=1
	# two chains side by side: the deadline suites, then the guests (a guest never runs beside
	# a deadline suite); what computes, then the rest, beside them
	rm -f "$LOGS/.quiet-done"
	{
		chain quiet "${QUIET_JOBS:-4}" "$LANE_QUIET"
		q=$?
		touch "$LOGS/.quiet-done"
		chain guest "${GUEST_JOBS:-2}" "$LANE_GUEST" && [ $q -eq 0 ]
	} &
	a=$!
	# LANE_ALONE once nothing but the guests runs: they make nothing on the host
	{
		chain early 1 "$LANE_EARLY" side "${SIDE_JOBS:-2}" "$LANE_SIDE"
		q=$?
		while [ ! -e "$LOGS/.quiet-done" ]; do sleep 1; done
		chain alone 1 "$LANE_ALONE" && [ $q -eq 0 ]
	} &
	b=$!
	wait $a || bad=1
	wait $b || bad=1
	chain last 1 "$LANE_LAST" || bad=1
	table "$RQ_TIMES"
	if [ $bad -eq 0 ]; then
		echo "make test: every target passed"
	else
		echo "make test: FAILED: $(awk -F'\t' '$5 != 0 { printf "%s ", $1 }' "$RQ_TIMES")"
	fi
	return $bad
}

case "${1:-}" in
run) run ;;
table) table "$2" ;;
row) shift; row "$@" ;;
*) echo "usage: lanes.sh run | table FILE | row NAME LANE CMD..." >&2; exit 2 ;;
esac
