#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# make sim-node (#49 item 15): it comes up and stays up after make returns (make's stdout a
# pipe, as `make sim-node | tee` has it), prints RDMA_QOS_SIM_ROOT=, the metrics address and
# the teardown command; the agent answers (/metrics: rdma_qos_attachment_lossless), `show
# --pod` answers on that root; the teardown command leaves nothing of it (tests/leaks.sh's
# inventory: netns, links, processes, temp dir) and a second one harms nothing. Run by make
# sim-test.
set -u
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" != 0 ] || ! command -v curl > /dev/null; then
	skip_covered "sim-node: needs root and curl"
	summary
	exit
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/rq-snc.XXXXXX")
DOWN=""
cleanup() { [ -n "$DOWN" ] && bash -c "$DOWN" > /dev/null 2>&1; rm -rf "$T"; }
trap cleanup EXIT
LEAKS=$RQ_SRC/tests/leaks.sh
bash "$LEAKS" list > "$T/before"
# mine LIST-FILE: the inventory lines of this node (its netns prefix, its PFs' links, its
# agent, its directory) that were not there before
mine() { bash "$LEAKS" list | comm -13 "$T/before" - | grep -E "$PAT" || true; }

echo "== make sim-node"
t0=$(date +%s%N)
timeout 120 make --no-print-directory -s -C "$RQ_SRC" B="$RQ_BUILD" sim-node > "$T/out" 2>&1
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
check "make sim-node returns, exit 0, its stdout a pipe the agent does not hold ($ms ms)" [ "$rc" = 0 ] ||
	cat "$T/out"
ROOT=$(sed -n 's/^RDMA_QOS_SIM_ROOT=//p' "$T/out")
URL=$(sed -n 's/^metrics: //p' "$T/out")
DOWN=$(sed -n 's/^teardown: //p' "$T/out")
check "it prints RDMA_QOS_SIM_ROOT= (a node's root: $ROOT)" [ -n "$ROOT" -a -d "$ROOT/sys/class/net" ]
matches() { [[ $1 =~ $2 ]]; }
check "it prints the metrics address ($URL)" matches "$URL" '^http://127\.0\.0\.1:[0-9]+/metrics$'
check "it prints the command that tears it down ($DOWN)" matches "$DOWN" '^bash .*/tests/simnode/sim-node\.sh down /.+'

DIR=${DOWN##* }
# its netns prefix and agent (its sim-node.env, read in a subshell: it sets T too)
NS_PREFIX=$(. "$DIR/sim-node.env" 2> /dev/null && echo "$NS_PREFIX")
AGENT_PID=$(. "$DIR/sim-node.env" 2> /dev/null && echo "$AGENT_PID")
PF=$(sed -n 's/^sim-node: up: \([a-z0-9]*\)0 and .*/\1/p' "$T/out")
PAT="^(netns ${NS_PREFIX:-none}|link ${PF:-none}|process ${AGENT_PID:-none} |tmpdir ${DIR:-none}$)"

echo "== it answers, make gone"
curl -sf "$URL" > "$T/m.prom"
check "the agent answers: rdma_qos_attachment_lossless of trainer-0 and trainer-1 1" \
	[ "$(grep -c '^rdma_qos_attachment_lossless{namespace="ai-training",pod="trainer-[01]".*} 1$' "$T/m.prom")" = 2 ]
check "... web (lossy) has none" [ "$(grep -c '^rdma_qos_attachment_lossless{.*pod="web"' "$T/m.prom")" = 0 ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --pod ai-training/trainer-0 > "$T/pod" 2>&1
rc=$?
check "show --pod ai-training/trainer-0 on that root: lossless: yes, exit 0 (rc $rc)" \
	[ "$rc:$(head -1 "$T/pod")" = "0:lossless: yes" ] || cat "$T/pod"
check "... one line per check, nine of them" [ "$(grep -cE '^  (pf_profile|vf_class|peer|qps|numa|gdr|wiring|link|config) ' "$T/pod")" = 9 ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --pod ai-training/trainer-1 > "$T/pod1" 2>&1
check "show --pod ai-training/trainer-1: lossless: yes, but (NUMA)" grep -q '^lossless: yes, but net1: the VF is on another NUMA node' "$T/pod1"
mine > "$T/up"
check "the inventory sees it: 3 netns, 13 links (8 veth pairs, 3 VFs in pods), the agent, its directory" \
	[ "$(grep -c '^netns' "$T/up"):$(grep -c '^link' "$T/up"):$(grep -c '^process' "$T/up"):$(grep -c '^tmpdir' "$T/up")" = 3:13:1:1 ] ||
	sed 's/^/  /' "$T/up"

echo "== its teardown command"
bash -c "$DOWN" > "$T/down" 2>&1
rc=$?
check "the teardown command exits 0 ($(cat "$T/down"))" [ "$rc" = 0 ]
left() { mine > "$T/left"; [ ! -s "$T/left" ]; }
check "nothing of it is left (netns, links, the agent, its directory)" wait_until 10 left || sed 's/^/  left: /' "$T/left"
not_answering() { ! curl -sf "$URL" > /dev/null; }
check "the metrics address no longer answers" not_answering
bash -c "$DOWN" > "$T/down2" 2>&1
rc=$?
check "a second teardown: exit 1, saying so, harming nothing ($(cat "$T/down2"))" \
	[ "$rc" = 1 ] && grep -q 'not a sim-node directory' "$T/down2"
DOWN=""
summary
