#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The agent as the DaemonSet runs it: in a PID and mount namespace of its own
# (no hostPID: `unshare --pid --fork --mount-proc`), so it sees no plugin
# process and its /proc is not the host's.
# - an ADD held between its pending and final records (rdma-qos-sim's pause
#   seam, RDMA_QOS_SIM_PAUSE) is not rolled back; a killed one is;
# - a record whose netns is /proc/<pid>/ns/net is not released as stale
#   without a way to judge it, is kept while alive through --host-proc, and
#   released once its process is gone;
# - a second writer that keeps clearing PFC is fought a bounded number of
#   times, then the PF item is suspended (log, metric, show) until the
#   suspension file is deleted.
set -u
. "$(dirname "$0")/lib.sh"

deployed_can_run() {
	agent_can_run || return 1
	unshare --pid --fork --mount-proc true 2>/dev/null || { echo "unshare --pid --mount-proc refused"; return 1; }
	return 0
}
sim_suite_start "agent as deployed" rqdp deployed_can_run
HOSTPROC=$T/hostproc
suite_teardown() {
	[ -n "${SLEEPER:-}" ] && kill "$SLEEPER" 2>/dev/null
	[ -n "${BG:-}" ] && pkill -KILL -P "$BG" 2>/dev/null
	[ -n "${FIGHTER:-}" ] && kill "$FIGHTER" 2>/dev/null
	mountpoint -q "$HOSTPROC" && umount -l "$HOSTPROC"
}
# the agent in its own PID and mount namespaces, as in the pod
agent_ns() { RDMA_QOS_SIM_ROOT=$ROOT unshare --pid --fork --mount-proc "$SIM" agent "$@"; }
M=$T/rdma-qos.prom

"$MKNODE" --root "$ROOT" --pfs 2 --vfs 4 --numa-nodes 2 --cpus-per-node 4 --rdma configfs \
	--ecn yes --dcb yes --pf-prefix dp$$ > /dev/null || { echo "FAIL: mknode"; exit 1; }
"$MKNODE" --root "$ROOT" pod --uid pod-a --cpus 0-1 > /dev/null
sim_make_vfs "$ROOT"
mapfile -t VFS < <(sim_vfs "$ROOT")
read -r PF0 VF0PCI VF0 <<< "${VFS[0]}"
read -r _ VF1PCI VF1 <<< "${VFS[1]}"
read -r _ VF2PCI VF2 <<< "${VFS[2]}"
ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p1;K8S_POD_UID=pod-a"
rq() { echo "{\"type\":\"rdma-qos\",\"deviceID\":\"$1\"}"; }
SD=$(state_dir "$ROOT")
# host-device then rdma-qos-sim, without the runtime's DEL after a failure (a killed ADD leaves its state)
add_nodel() { # NAME CID NETNS IFNAME VFDEV RQCONF
	local out
	out=$(conf_for "$1" 1.0.0 "{\"type\":\"host-device\",\"device\":\"$5\"}" | run_plugin "$HOSTDEV" ADD "$2" "$3" "$4" "$ARGS") || return 1
	conf_for "$1" 1.0.0 "$6" "$out" | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD "$2" "$3" "$4" "$ARGS"
}
rec_of() { grep -l "\"$1\"" "$SD"/*.json 2>/dev/null | head -1; }

echo "== an ADD held between its pending and final records, the agent in its own PID namespace"
P=$T/pause; mkdir -p "$P"
NSA=$(newns a)
RDMA_QOS_SIM_PAUSE="add-pending:$P" chain_add "$ROOT" roce c1 "$NSA" net1 "$VF0" "$(rq "$VF0PCI")" "$ARGS" > "$T/add1.out" 2> "$T/add1.log" &
ADD1=$!
for _ in $(seq 200); do [ -e "$P/paused" ] && break; sleep 0.05; done
check "the ADD is held after its pending write" [ -e "$P/paused" ]
REC=$(rec_of "$VF0PCI")
check "its record is pending" jq -e '.pending.pid > 0' "$REC" > /dev/null
agent_ns --once --metrics-file "$M" 2> "$T/a1.log" &
AG=$!
sleep 1.5 # the agent has judged the pending record while the ADD is held
touch "$P/go"
wait "$ADD1"
check "the held ADD succeeds" [ $? -eq 0 ]
wait "$AG"
REC=$(rec_of "$VF0PCI")
check "the record survived the agent's pass" [ -n "$REC" ]
check "... and is final (no pending)" [ "$(jq -r '.pending // "none"' "$REC" 2>/dev/null)" = none ]
DEV0=$(rdma_of "$ROOT" "$VF0PCI")
check "the VF keeps its class 106" [ "$(cat "$(tos_file "$ROOT" "$DEV0")")" = 106 ]
check "the PF index still lists it" grep -q "c1" "$SD"/pf/*.json
check "the agent did not roll it back" [ "$(grep -c "rolling back" "$T/a1.log")" = 0 ]

echo "== a killed ADD's pending record is rolled back by the agent in its own PID namespace"
rm -f "$P/paused" "$P/go"
NSB=$(newns b)
RDMA_QOS_SIM_PAUSE="add-pending:$P" add_nodel roce c2 "$NSB" net1 "$VF1" "$(rq "$VF1PCI")" > /dev/null 2>&1 &
ADD2=$!
for _ in $(seq 200); do [ -e "$P/paused" ] && break; sleep 0.05; done
REC=$(rec_of "$VF1PCI")
PID2=$(jq -r '.pending.pid' "$REC")
kill -9 "$PID2"; wait "$ADD2" 2>/dev/null
DEV1=$(rdma_of "$ROOT" "$VF1PCI")
echo 106 > "$(tos_file "$ROOT" "$DEV1")" # what the killed ADD may have written
agent_ns --once --metrics-file "$M" 2> "$T/a2.log"
check "the killed ADD's record is gone" [ -z "$(rec_of "$VF1PCI")" ]
check "... its class put back (0)" [ "$(cat "$(tos_file "$ROOT" "$DEV1")")" = 0 ]
check "... the log says so" grep -q "pending record (pid $PID2) is gone: rolling back" "$T/a2.log"
ATT=$ROOT/run/rdma-qos/locks/att
check "... and its attachment lock file is removed" [ -z "$(ls "$ATT" | grep _c2_)" ]
check "a live attachment keeps its lock file" [ -n "$(ls "$ATT" | grep _c1_)" ]
touch "$P/go"

echo "== a record whose netns is /proc/<pid>/ns/net"
NSC=$(newns c)
ip netns exec "${NS_PREFIX}c" sleep 1000 &
SLEEPER=$!
sleep 0.2
PNS=/proc/$SLEEPER/ns/net
chain_add "$ROOT" roce c3 "$PNS" net1 "$VF2" "$(rq "$VF2PCI")" "$ARGS" > /dev/null
check "ADD with CNI_NETNS $PNS" [ $? -eq 0 ]
ip netns del "${NS_PREFIX}c" # only the process holds the netns now
check "its record names $PNS" [ "$(jq -r .netns "$(rec_of "$VF2PCI")")" = "$PNS" ]
# a /proc/<pid> path means something only in the PID namespace ADD ran in: recorded
check "... and the PID namespace ADD ran in ($(readlink /proc/self/ns/pid))" \
	[ "$(jq -r .pidns "$(rec_of "$VF2PCI")")" = "$(readlink /proc/self/ns/pid)" ]
agent_ns --once --metrics-file "$M" --stale-grace 0 2> "$T/a3.log"
check "without --host-proc: not released (cannot be judged from the agent's PID namespace)" [ -n "$(rec_of "$VF2PCI")" ]
check "... and the log says it cannot judge it" grep -q "cannot judge" "$T/a3.log"
mkdir -p "$HOSTPROC" && mount --bind /proc "$HOSTPROC"
agent_ns --once --metrics-file "$M" --stale-grace 0 --host-proc "$HOSTPROC" 2> "$T/a4.log"
check "with --host-proc, process alive: kept" [ -n "$(rec_of "$VF2PCI")" ]
check "... judged (no cannot-judge warning)" [ "$(grep -c "cannot judge" "$T/a4.log")" = 0 ]
check "... not counted stale" [ "$(metric "$M" rdma_qos_stale_records)" = 0 ]
kill "$SLEEPER"; wait "$SLEEPER" 2>/dev/null; SLEEPER=""
agent_ns --once --metrics-file "$M" --stale-grace 0 --host-proc "$HOSTPROC" 2> "$T/a5.log"
check "with --host-proc, process gone: released" [ -z "$(rec_of "$VF2PCI")" ]
check "... the log says so" grep -q "a lost DEL.*releasing" "$T/a5.log"

echo "== a second writer that keeps clearing PFC"
FIGHTS=$ROOT/run/rdma-qos/agent/fights.json
rm -f "$FIGHTS"
( while :; do dcb_edit "$ROOT" "$PF0" '.pfc = []'; sleep 0.1; done ) 2>/dev/null &
FIGHTER=$!
RDMA_QOS_SIM_REPAIR_BACKOFF_MS=200 RDMA_QOS_SIM_ROOT=$ROOT unshare --pid --fork --mount-proc --kill-child=TERM \
	"$SIM" agent --interval 1 --metrics-file "$M" 2> "$T/fight.log" &
BG=$!
SUSP="rdma_qos_repair_suspended{pf=\"$PF0\",item=\"pfc\"}"
for _ in $(seq 200); do [ "$(metric "$M" "$SUSP" 2>/dev/null)" = 1 ] && break; sleep 0.1; done
check "the fight is detected: $SUSP 1" [ "$(metric "$M" "$SUSP")" = 1 ]
check "... said loudly (error line naming the other writer)" grep -q "error: agent: PF $PF0: pfc repaired 5 times in a row.*another writer" "$T/fight.log"
check "... after backing off (log)" grep -q "PF $PF0: pfc drifted again .* backing off" "$T/fight.log"
N1=$(metric "$M" "rdma_qos_repairs_total{pf=\"$PF0\",item=\"pfc\"}")
W1=$(dcb_writes "$ROOT" "$PF0")
check "... repairs bounded (pfc repaired $N1 times)" [ "${N1:-99}" -le 5 ]
sleep 3 # the other writer goes on; the agent stays out
N2=$(metric "$M" "rdma_qos_repairs_total{pf=\"$PF0\",item=\"pfc\"}")
check "... no repair while suspended ($N1 -> $N2)" [ -n "$N1" ]
check "... the repair count unchanged while suspended" [ "$N1" = "$N2" ]
check "... no DCB write while suspended" [ "$(dcb_writes "$ROOT" "$PF0")" = "$W1" ]
kill "$FIGHTER"; wait "$FIGHTER" 2>/dev/null
pkill -TERM -P "$BG" # the agent itself: PID 1 of its namespace, as in the pod
wait "$BG"
rc=$?
check "SIGTERM to the agent as PID 1 of its namespace: exit 0" [ $rc -eq 0 ]
check "... the agent logged 'signal 15: exiting'" grep -q "signal 15: exiting" "$T/fight.log"
BG=""
dcb_edit "$ROOT" "$PF0" '.pfc = []'
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --json > "$T/show.json"
check "show --json lists the suspended item" [ "$(jq -c --arg p "$PF0" '.pfs[] | select(.name == $p) | .repairSuspended' "$T/show.json")" = '["pfc"]' ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show > "$T/show.txt"
check "show says REPAIR SUSPENDED" grep -q 'REPAIR SUSPENDED \["pfc"\]' "$T/show.txt"
agent_ns --once --metrics-file "$M" 2> "$T/f2.log"
rc=$?
check "still suspended in the next pass: drift left, exit 1, PFC left alone" [ $rc -eq 1 ]
check "... PFC left alone ([]) while suspended" [ "$(pfc_of "$ROOT" "$PF0")" = "[]" ]
rm "$FIGHTS" # the operator clears it
agent_ns --once --metrics-file "$M" 2> "$T/f3.log"
rc=$?
check "cleared by deleting fights.json: repaired, exit 0" [ $rc -eq 0 ]
check "... PFC repaired ([3]) once fights.json is gone" [ "$(pfc_of "$ROOT" "$PF0")" = "[3]" ]
check "... metric back to 0" [ "$(metric "$M" "$SUSP")" = 0 ]
for _ in 1 2 3 4 5; do dcb_edit "$ROOT" "$PF0" '.pfc = []'; RDMA_QOS_SIM_REPAIR_BACKOFF_MS=0 agent_ns --once 2>/dev/null; done
PF0PCI=$(basename "$(readlink "$ROOT/sys/class/net/$PF0/device")")
check "suspended again by five repairs in a row (the book keyed by PCI address)" [ "$(jq --arg p "$PF0PCI" '.pfs[$p].items.pfc.suspended' "$FIGHTS")" = true ]
mkdir -p "$ROOT/etc/cni/rdma-qos"
echo '{"namespaces":{"*":{"default":"roce-lossless","allow":["roce-lossless"]}}}' > "$ROOT/etc/cni/rdma-qos/profiles.json"
dcb_edit "$ROOT" "$PF0" '.pfc = []'
agent_ns --once --metrics-file "$M" 2> "$T/f4.log"
check "a catalog change clears the suspension: repaired" [ "$(pfc_of "$ROOT" "$PF0")" = "[3]" ]
check "... the log says the catalog change cleared back-offs and suspensions" grep -q "catalog changed: repair back-offs and suspensions cleared" "$T/f4.log"

echo "== lock files of DELeted attachments are swept"
chain_del "$ROOT" roce c1 "$NSA" net1 "$VF0" "$(rq "$VF0PCI")" "$ARGS" 2> /dev/null
check "DEL leaves its lock file (an ADD of the key may be about to take it)" [ -n "$(ls "$ATT" | grep _c1_)" ]
agent_ns --once 2> /dev/null
check "the agent's pass removes it" [ -z "$(ls "$ATT" | grep _c1_)" ]

summary
