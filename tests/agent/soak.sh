#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Soak (make agent-soak, not part of make test): a background rdma-qos-sim
# agent for SOAK_S seconds (default 600) while drifts are injected one after
# another (PFC off, a DSCP entry deleted, ECN off, the VF ToS reset). Every
# drift must be repaired (DCB by event, ToS within the 2 s interval) and the
# agent's RSS must stay flat: its growth from the first to the last minute
# is at most RSS_SLACK_KB (default 256).
set -u
. "$(dirname "$0")/lib.sh"
SOAK_S=${SOAK_S:-600}
RSS_SLACK_KB=${RSS_SLACK_KB:-256}
if ! why=$(agent_can_run); then echo "FAIL: soak cannot run: $why"; exit 1; fi

T=$(mktemp -d /tmp/rq-soak.XXXXXX)
ROOT=$T/node
APID=""
cleanup() {
	[ -n "$APID" ] && kill "$APID" 2>/dev/null
	for n in $(ip netns list | awk -v p="rqsk$$_" 'index($1, p) == 1 { print $1 }'); do ip netns del "$n"; done
	sim_del_vfs "$ROOT" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
"$MKNODE" --root "$ROOT" --pfs 1 --vfs 2 --rdma configfs --ecn yes --dcb yes --pf-prefix sk$$ > /dev/null
"$MKNODE" --root "$ROOT" pod --uid pod-a --cpus 0-1 > /dev/null
sim_make_vfs "$ROOT"
mapfile -t VFS < <(sim_vfs "$ROOT")
read -r PF VF0PCI VF0 <<< "${VFS[0]}"
read -r _ VF1PCI VF1 <<< "${VFS[1]}"
ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p1;K8S_POD_UID=pod-a"
ip netns add "rqsk$$_a"; ip netns add "rqsk$$_b"
chain_add "$ROOT" roce c1 "/run/netns/rqsk$$_a" net1 "$VF0" "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF0PCI\"}" "$ARGS" > /dev/null 2>&1 || { echo "FAIL: ADD"; exit 1; }
chain_add "$ROOT" roce c2 "/run/netns/rqsk$$_b" net1 "$VF1" "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF1PCI\"}" "$ARGS" > /dev/null 2>&1 || { echo "FAIL: ADD"; exit 1; }
DEV0=$(rdma_of "$ROOT" "$VF0PCI")
TOS=$(tos_file "$ROOT" "$DEV0")
ECN=$ROOT/sys/class/net/$PF/ecn/roce_np/enable/3

RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --interval 2 --metrics-file "$T/m.prom" --log-level warn 2> "$T/agent.log" &
APID=$!
sleep 1
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$APID/status"; }
inject() {
	case $1 in
	0) dcb_edit "$ROOT" "$PF" '.pfc = []' ;;
	1) dcb_edit "$ROOT" "$PF" '.app = [.app[] | select(.protocol != 26)]' ;;
	2) echo 0 > "$ECN"; dcb_edit "$ROOT" "$PF" '.' ;;   # ECN files raise nothing: the rewrite is the nudge
	3) echo 0 > "$TOS" ;;
	esac
}
repaired() {
	[ "$(pfc_of "$ROOT" "$PF")" = "[3]" ] && [ "$(dscp_prio "$ROOT" "$PF" 26)" = 3 ] &&
		[ "$(cat "$ECN")" = 1 ] && [ "$(cat "$TOS")" = 106 ]
}
n=0 ok=0 worst=0 first_rss=() last_rss=() t_end=$(( $(date +%s) + SOAK_S )) t_start=$(date +%s)
while [ "$(date +%s)" -lt "$t_end" ]; do
	kind=$((n % 4)); n=$((n + 1))
	inject $kind
	t0=$(date +%s%N) done=""
	for _ in $(seq 100); do repaired && { done=1; break; }; sleep 0.05; done
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	[ -n "$done" ] && ok=$((ok + 1)) || echo "drift $n (kind $kind) not repaired in 5 s"
	[ "$ms" -gt "$worst" ] && worst=$ms
	el=$(( $(date +%s) - t_start ))
	r=$(rss)
	if [ "$el" -lt 60 ]; then first_rss+=("$r"); elif [ "$el" -ge $((SOAK_S - 60)) ]; then last_rss+=("$r"); fi
done
avg() { local s=0; for v in "$@"; do s=$((s + v)); done; echo $((s / $#)); }
a1=$(avg "${first_rss[@]}") a2=$(avg "${last_rss[@]:-${first_rss[@]}}")
repairs=$(awk '/^rdma_qos_repairs_total/ { s += $2 } END { print s + 0 }' "$T/m.prom")
echo "soak: ${SOAK_S} s, $n drifts injected, $ok repaired (worst $worst ms), repairs_total $repairs"
echo "soak: RSS first minute avg ${a1} kB, last minute avg ${a2} kB (growth $((a2 - a1)) kB, slack ${RSS_SLACK_KB} kB)"
rc=0
[ "$ok" -eq "$n" ] || { echo "FAIL: $((n - ok)) drifts not repaired"; rc=1; }
[ $((a2 - a1)) -le "$RSS_SLACK_KB" ] || { echo "FAIL: RSS grew"; rc=1; }
kill -TERM "$APID"; wait "$APID" || { echo "FAIL: agent exit status"; rc=1; }
APID=""
[ $rc -eq 0 ] && echo "PASS: soak"
exit $rc
