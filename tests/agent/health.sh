#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The agent's liveness and readiness (docs/operations.md "Monitoring"): /healthz
# goes 503 once no pass has completed for 3 x --interval + the longest pass
# while the HTTP thread still answers, and recovers with the next pass;
# /readyz is 200 only while /healthz is, a pass has completed and the catalog
# source is valid. rdma_qos_build_info is on /metrics and in the textfile.
#
# How passes are stopped: the catalog source is replaced by a FIFO. The pass
# opens it (catalog_sync) and blocks there until a writer comes, as a pass
# stuck on a hung read would; the HTTP server runs on in its own thread. A
# SIGSTOP would stop that thread too and test nothing of the staleness rule.
# Run by tests/agent/run.sh (its PASS/FAIL lines are counted there).
set -u
. "$(dirname "$0")/lib.sh"

sim_suite_start "health tests" rqhl agent_can_run
AGENT_PID="" FEED_PID=""
suite_teardown() {
	[ -n "$FEED_PID" ] && kill "$FEED_PID" 2>/dev/null
	# KILL: an agent blocked in a pass does not get to read its SIGTERM
	[ -n "$AGENT_PID" ] && kill -KILL "$AGENT_PID" 2>/dev/null && wait "$AGENT_PID" 2>/dev/null
}
M=$T/m.prom CAT=$T/catalog.json
"$MKNODE" --root "$ROOT" --pfs 1 --vfs 1 --rdma configfs --ecn yes --dcb yes \
	--pf-prefix hl$$ > /dev/null || { echo "FAIL: mknode"; exit 1; }
echo '{"namespaces":{"*":{"default":"roce-lossless","allow":["roce-lossless"]}}}' > "$CAT"
check "the test catalog is valid" "$SIM" validate "$CAT" > /dev/null

PORT=$(free_port)
code() { curl -s -o "$T/body" -w '%{http_code}' --max-time 2 "http://127.0.0.1:$PORT$1"; }
# wait_code PATH CODE SECONDS: poll until PATH answers CODE
wait_code() {
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		[ "$(code "$1")" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

echo "== a fresh agent, --interval 1"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --interval 1 --catalog-source "$CAT" --metrics-file "$M" \
	--listen "127.0.0.1:$PORT" 2> "$T/log" &
AGENT_PID=$!
check "/readyz becomes 200 after the first pass" wait_code /readyz 200 10
is_code() { [ "$(code "$1")" = "$2" ] && grep -q "$3" "$T/body"; }
check "/healthz is 200 ok" is_code /healthz 200 '^ok$'
curl -sf "http://127.0.0.1:$PORT/metrics" > "$T/http.prom"
# the build's version: VERSION, with +g<commit> unless a release build (CONTRIBUTING.md "Versions")
want="rdma_qos_build_info{version=\"$(make -s -C "$(dirname "$0")/../.." print-version)\",revision=\"$(git -C "$(dirname "$0")" rev-parse HEAD 2>/dev/null)\",arch=\"$(dpkg --print-architecture 2>/dev/null || echo amd64)\"}"
check "/metrics has $want 1" [ "$(metric_lit "$T/http.prom" "$want")" = 1 ]
check "the textfile has it too" [ "$(metric_lit "$M" "$want")" = 1 ]
check "/metrics has rdma_qos_pass_interval_seconds 1" \
	[ "$(metric "$T/http.prom" rdma_qos_pass_interval_seconds)" = 1 ]
check "/metrics with build_info passes promtool" promcheck "$T/http.prom"

echo "== passes stop (the catalog source is a FIFO: the pass blocks opening it)"
rm "$CAT" && mkfifo "$CAT"
t0=$(date +%s)
check "/healthz goes 503 within 3 x interval + longest pass (+ slack)" wait_code /healthz 503 8
el=$(($(date +%s) - t0))
check "... not before 3 s: the bound is 3 x --interval (took ${el} s)" [ "$el" -ge 2 ]
check "... and says it is stale" grep -q '^stale: last pass completed [0-9]* s ago (bound 3 s)$' "$T/body"
check "/readyz is 503 too" [ "$(code /readyz)" = 503 ]
check "/metrics still answers (the last pass's text)" curl -sf -o /dev/null --max-time 2 \
	"http://127.0.0.1:$PORT/metrics"
check "the agent is still running" kill -0 "$AGENT_PID"

echo "== the pass goes on, with a catalog source that is no file: invalid"
# a writer releases the blocked open(); the agent refuses a source that is not a regular file
(exec 3> "$CAT"; sleep 3) &
FEED_PID=$!
check "/healthz recovers with the next completed pass" wait_code /healthz 200 5
check "/readyz is 503: the catalog source is invalid" is_code /readyz 503 '^catalog source invalid'
curl -sf "http://127.0.0.1:$PORT/metrics" > "$T/http.prom"
check "... as rdma_qos_catalog_valid 0 says" [ "$(metric "$T/http.prom" rdma_qos_catalog_valid)" = 0 ]
wait "$FEED_PID" 2>/dev/null
FEED_PID=""
rm -f "$CAT"
echo '{"namespaces":{"*":{"default":"roce-lossless","allow":["roce-lossless"]}}}' > "$CAT.new"
mv "$CAT.new" "$CAT"
check "a valid catalog again: /readyz 200" wait_code /readyz 200 5
kill -TERM "$AGENT_PID"
wait "$AGENT_PID"
check "SIGTERM: exit 0" [ $? -eq 0 ]
AGENT_PID=""

echo "== the bound follows --interval"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --interval 30 --catalog-source "$CAT" \
	--listen "127.0.0.1:$PORT" 2> "$T/log2" &
AGENT_PID=$!
check "--interval 30: /readyz 200 after the first pass" wait_code /readyz 200 10
rm "$CAT" && mkfifo "$CAT"
# the next pass (a DCB event raises one) blocks on the FIFO
dcb_edit "$ROOT" "$(ls "$ROOT/dcb" | head -1 | sed 's/\.json$//')" '.'
sleep 4
blocked() { cat /proc/"$AGENT_PID"/task/*/wchan 2>/dev/null | grep -q wait_for_partner; }
check "... the agent's pass is blocked opening the FIFO (wchan wait_for_partner)" blocked
check "... passes stopped for 4 s: still 200 (bound 3 x 30 s)" is_code /healthz 200 '^ok$'
summary
