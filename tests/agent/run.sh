#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The node agent on the simulated node (rdma-qos-sim agent): --once repairs
# drift in the fake DCB file and the ToS files with one log line per repair,
# metrics change and pass promtool; pf: verify writes nothing and exits 1;
# stale records are released after the grace; an invalid catalog source
# keeps the last good catalog; a renamed RDMA device is found again; show
# leaves the node tree byte-identical; a background agent repairs a drift
# within ~1 s of its event and answers /metrics and /healthz over HTTP.
#
# How the sim triggers: its DCB is files, which raise no dcbnl notification,
# so rdma-qos-sim's environment adds an inotify watch on <root>/dcb as one
# more event source of the same loop (plugin/seams/env_sim.c, watch_open). ToS
# files raise nothing, in the sim as on a real node: the timer covers them.
set -u
. "$(dirname "$0")/lib.sh"

sim_suite_start "agent tests" rqag agent_can_run
AGENT_PID=""
suite_teardown() { [ -n "$AGENT_PID" ] && kill "$AGENT_PID" 2>/dev/null; }
agent() { RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent "$@"; }
M=$T/rdma-qos.prom

"$MKNODE" --root "$ROOT" --pfs 2 --vfs 4 --numa-nodes 2 --cpus-per-node 4 --rdma configfs \
	--ecn yes --dcb yes --pf-prefix ag$$ > /dev/null || { echo "FAIL: mknode"; exit 1; }
"$MKNODE" --root "$ROOT" pod --uid pod-a --cpus 0-1 > /dev/null
sim_make_vfs "$ROOT"
mapfile -t VFS < <(sim_vfs "$ROOT")
read -r PF0 VF0PCI VF0 <<< "${VFS[0]}"
read -r _ VF1PCI VF1 <<< "${VFS[1]}"
read -r _ VF2PCI VF2 <<< "${VFS[2]}"
read -r _ VF3PCI _ <<< "${VFS[3]}"
ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p1;K8S_POD_UID=pod-a"
rq() { echo "{\"type\":\"rdma-qos\",\"deviceID\":\"$1\"}"; }
NSA=$(newns a) NSB=$(newns b)
chain_add "$ROOT" roce c1 "$NSA" net1 "$VF0" "$(rq "$VF0PCI")" "$ARGS" > /dev/null
check "ADD VF0" [ $? -eq 0 ]
chain_add "$ROOT" roce c2 "$NSB" net1 "$VF1" "$(rq "$VF1PCI")" "$ARGS" > /dev/null
check "ADD VF1" [ $? -eq 0 ]
DEV0=$(rdma_of "$ROOT" "$VF0PCI")

echo "== --once on a node in profile"
agent --once --metrics-file "$M" 2> "$T/log"
check "exit 0 when all is in profile" [ $? -eq 0 ]
check "promtool accepts the metrics" promcheck "$M"
check "2 roce-lossless attachments on $PF0" [ "$(metric "$M" "rdma_qos_attachments{pf=\"$PF0\",profile=\"roce-lossless\"}")" = 2 ]
check "$PF0 in profile" [ "$(metric "$M" "rdma_qos_pf_in_profile{pf=\"$PF0\"}")" = 1 ]
check "VF0 traffic class 106 (configfs)" [ "$(metric "$M" "rdma_qos_vf_traffic_class{vf=\"$VF0PCI\",rdma_dev=\"$DEV0\",knob=\"configfs\"}")" = 106 ]
check "catalog valid (none: built-in)" [ "$(metric "$M" rdma_qos_catalog_valid)" = 1 ]
check "no repair logged" [ "$(grep -c repaired "$T/log")" = 0 ]
for f in rdma_qos_repairs_total rdma_qos_drift rdma_qos_numa_misaligned rdma_qos_stale_records \
	rdma_qos_last_pass_timestamp_seconds rdma_qos_pass_duration_seconds; do
	check "family $f has HELP and TYPE" grep -q "^# TYPE $f " "$M"
done

echo "== --once repairs drift: PFC off, a DSCP entry deleted, ECN off, ToS reset"
W0=$(dcb_writes "$ROOT" "$PF0")
dcb_edit "$ROOT" "$PF0" '.pfc = [] | .app = [.app[] | select(.protocol != 26)]'
echo 0 > "$ROOT/sys/class/net/$PF0/ecn/roce_np/enable/3"
echo 0 > "$(tos_file "$ROOT" "$DEV0")"
agent --once --metrics-file "$M" 2> "$T/log"
check "exit 0 after repairing" [ $? -eq 0 ]
check "pfc back to [3]" [ "$(pfc_of "$ROOT" "$PF0")" = "[3]" ]
check "DSCP 26 -> 3 back" [ "$(dscp_prio "$ROOT" "$PF0" 26)" = 3 ]
check "ECN NP prio 3 back on" [ "$(cat "$ROOT/sys/class/net/$PF0/ecn/roce_np/enable/3")" = 1 ]
check "VF0 ToS back to 106" [ "$(cat "$(tos_file "$ROOT" "$DEV0")")" = 106 ]
check "one log line per repair: pfc (was, now)" grep -q "PF $PF0 repaired pfc: was none, now 3" "$T/log"
check "one log line per repair: dscp2prio" [ "$(grep -c "PF $PF0 repaired dscp2prio: was 63 DSCP entries" "$T/log")" = 1 ]
check "one log line per repair: ecn" [ "$(grep -c "PF $PF0 repaired ecn: was none, now 3" "$T/log")" = 1 ]
check "one log line per repair: traffic_class" grep -q "RDMA $DEV0 repaired traffic_class (configfs): was 0, now 106" "$T/log"
check "exactly 4 repair lines" [ "$(grep -c repaired "$T/log")" = 4 ]
check "repairs_total pfc 1" [ "$(metric "$M" "rdma_qos_repairs_total{pf=\"$PF0\",item=\"pfc\"}")" = 1 ]
check "repairs_total traffic_class 1" [ "$(metric "$M" "rdma_qos_repairs_total{pf=\"$PF0\",item=\"traffic_class\"}")" = 1 ]
check "no drift left" [ "$(metric "$M" "rdma_qos_drift{pf=\"$PF0\",item=\"pfc\"}")" = 0 ]
check "promtool accepts the metrics after repairs" promcheck "$M"
W1=$(dcb_writes "$ROOT" "$PF0")
check "the repair wrote the PF ($W0 -> $W1)" [ "$W1" -gt "$W0" ]
agent --once --metrics-file "$M" 2> "$T/log"
check "a second pass: exit 0" [ $? -eq 0 ]
check "a second pass writes nothing to a right PF" [ "$(dcb_writes "$ROOT" "$PF0")" = "$W1" ]

echo "== catalog sync, pf: verify (through the synced catalog)"
CAT=$ROOT/etc/cni/rdma-qos/profiles.json
echo '{"namespaces":{"*":{"default":"roce-lossless","allow":["roce-lossless"]}},"node":{"pf":"verify"}}' > "$T/src.json"
dcb_edit "$ROOT" "$PF0" '.pfc = [4]'
W2=$(dcb_writes "$ROOT" "$PF0")
S2=$(sha256sum < "$ROOT/dcb/$PF0.json")
agent --once --metrics-file "$M" --catalog-source "$T/src.json" 2> "$T/log"
check "verify: drift left -> exit 1" [ $? -eq 1 ]
check "the catalog source was installed" cmp -s "$T/src.json" "$CAT"
check "verify writes nothing (writes $W2)" [ "$(dcb_writes "$ROOT" "$PF0")" = "$W2" ]
check "verify leaves the DCB file byte-identical" [ "$(sha256sum < "$ROOT/dcb/$PF0.json")" = "$S2" ]
check "verify reports pfc drift" [ "$(metric "$M" "rdma_qos_drift{pf=\"$PF0\",item=\"pfc\"}")" = 1 ]
check "verify: PF not in profile" [ "$(metric "$M" "rdma_qos_pf_in_profile{pf=\"$PF0\"}")" = 0 ]
check "verify: no repair line" [ "$(grep -c repaired "$T/log")" = 0 ]
echo '{"namespaces":{"*":{"default":"roce-lossless","allow":["roce-lossless"]}},"node":{"pf":"verify","bogus":1}}' > "$T/src.json"
S3=$(sha256sum < "$CAT")
agent --once --metrics-file "$M" --catalog-source "$T/src.json" 2> "$T/log"
check "invalid source: the last good catalog stays" [ "$(sha256sum < "$CAT")" = "$S3" ]
check "invalid source: rdma_qos_catalog_valid 0" [ "$(metric "$M" rdma_qos_catalog_valid)" = 0 ]
check "invalid source: the log says why (JSON path)" grep -q "node.bogus" "$T/log"
check "invalid source: still verify (last good catalog in effect)" [ "$(dcb_writes "$ROOT" "$PF0")" = "$W2" ]
echo '{"namespaces":{"*":{"default":"roce-lossless","allow":["roce-lossless"]}},"node":{"pf":"ensure"}}' > "$T/src.json"
agent --once --metrics-file "$M" --catalog-source "$T/src.json" 2> "$T/log"
check "a valid source again: installed, ensure repairs, exit 0" [ $? -eq 0 ]
check "catalog valid again" [ "$(metric "$M" rdma_qos_catalog_valid)" = 1 ]
check "pfc has 3 again (4 kept: nobody contradicts it)" [ "$(pfc_of "$ROOT" "$PF0")" = "[3,4]" ]

echo "== without --catalog-source (deploy/base): the catalog installed at pod start, not the source"
# the ConfigMap is edited to verify while the agent runs: the installed catalog (ensure) stays
cp "$CAT" "$T/installed.json"
echo '{"namespaces":{"*":{"default":"roce-lossless","allow":["roce-lossless"]}},"node":{"pf":"verify"}}' > "$T/src.json"
dcb_edit "$ROOT" "$PF0" '.pfc = [4]'
agent --once --metrics-file "$M" 2> "$T/log"
rc=$?
check "no source: exit 0, the installed catalog's ensure repairs pfc" \
	[ "$rc $(pfc_of "$ROOT" "$PF0")" = "0 [3,4]" ]
check "... the installed catalog is untouched by the edited source" cmp -s "$T/installed.json" "$CAT"
check "... catalog valid (the installed one)" [ "$(metric "$M" rdma_qos_catalog_valid)" = 1 ]
check "... and no install logged" [ "$(grep -c 'installed from' "$T/log")" = 0 ]
# the pod is replaced (the rollout reaches this node): the init container installs the edit
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" install --cni-bin-dir /opt/cni/bin --catalog-source "$T/src.json" \
	> "$T/install.log" 2>&1
rc=$?
check "the init container's install puts the edited catalog in place" \
	[ "$rc $(cmp -s "$T/src.json" "$CAT" && echo same)" = "0 same" ]
dcb_edit "$ROOT" "$PF0" '.pfc = [4]'
W3=$(dcb_writes "$ROOT" "$PF0")
agent --once --metrics-file "$M" 2> "$T/log"
rc=$?
check "the next agent runs it: verify, drift left (exit 1), nothing written" \
	[ "$rc $(dcb_writes "$ROOT" "$PF0")" = "1 $W3" ]
# back to ensure for what follows
cp "$T/installed.json" "$CAT"
agent --once --metrics-file "$M" 2> "$T/log"
rc=$?
check "the ensure catalog back: repaired, exit 0" [ "$rc $(pfc_of "$ROOT" "$PF0")" = "0 [3,4]" ]

echo "== a PF whose DCB is gone: the pass survives and reports it"
mv "$ROOT/dcb/$PF0.json" "$T/dcb.saved"
agent --once --metrics-file "$M" 2> "$T/log"
check "no DCB on the PF: exit 1" [ $? -eq 1 ]
check "drift item dcb 1" [ "$(metric "$M" "rdma_qos_drift{pf=\"$PF0\",item=\"dcb\"}")" = 1 ]
check "VF ToS still reconciled in that pass" [ -n "$(metric "$M" "rdma_qos_vf_traffic_class{vf=\"$VF0PCI\",rdma_dev=\"$DEV0\",knob=\"configfs\"}")" ]
mv "$T/dcb.saved" "$ROOT/dcb/$PF0.json"

echo "== an RDMA device that came back under another name"
VFDIR=$(readlink -f "$ROOT/sys/bus/pci/devices/$VF0PCI")
mv "$VFDIR/infiniband/$DEV0" "$VFDIR/infiniband/mlx5_90"
rm "$ROOT/sys/class/infiniband/$DEV0"
ln -s "../../devices/pci0000:00/$VF0PCI/infiniband/mlx5_90" "$ROOT/sys/class/infiniband/mlx5_90"
rm -rf "$ROOT/sys/kernel/config/rdma_cm/$DEV0"
mkdir -p "$ROOT/sys/kernel/config/rdma_cm/mlx5_90/ports/1" && echo 0 > "$(tos_file "$ROOT" mlx5_90)"
agent --once --metrics-file "$M" 2> "$T/log"
check "renamed device: exit 0" [ $? -eq 0 ]
check "renamed device: ToS 106 on mlx5_90" [ "$(cat "$(tos_file "$ROOT" mlx5_90)")" = 106 ]
REC0=$(grep -l "\"$VF0PCI\"" "$(state_dir "$ROOT")"/*.json | head -1)
check "the record follows the device" [ "$(jq -r .rdma.device "$REC0")" = mlx5_90 ]
check "the log names old and new" grep -q "RDMA device is mlx5_90 now (was $DEV0)" "$T/log"

echo "== stale records"
NSC=$(newns c)
chain_add "$ROOT" roce c3 "$NSC" net1 "$VF2" "$(rq "$VF2PCI")" "$ARGS" > /dev/null
check "ADD VF2" [ $? -eq 0 ]
DEV2=$(rdma_of "$ROOT" "$VF2PCI")
ip netns exec "rqag$$_c" ip link set net1 netns 1 2>/dev/null  # hand the veth back before the netns goes
ip netns del "rqag$$_c"
agent --once --metrics-file "$M" --stale-grace 3600 2> "$T/log"
check "within the grace: kept and counted" [ "$(metric "$M" rdma_qos_stale_records)" = 1 ]
check "within the grace: record still there" [ -n "$(grep -l "\"$VF2PCI\"" "$(state_dir "$ROOT")"/*.json)" ]
sleep 2
agent --once --metrics-file "$M" --stale-grace 1 2> "$T/log"
check "past the grace (remembered across --once runs): released" [ -z "$(grep -l "\"$VF2PCI\"" "$(state_dir "$ROOT")"/*.json)" ]
check "released: the PF index no longer lists it" [ -z "$(grep -l "c3" "$(state_dir "$ROOT")"/pf/*.json 2>/dev/null)" ]
check "released: VF2 ToS restored to 0 (as DEL)" [ "$(cat "$(tos_file "$ROOT" "$DEV2")")" = 0 ]
check "released: stale_records 0" [ "$(metric "$M" rdma_qos_stale_records)" = 0 ]
check "released: the log says so" grep -q "a lost DEL.*releasing" "$T/log"

echo "== show is strictly read-only"
DEV3=$(rdma_of "$ROOT" "$VF3PCI")
rm -rf "$ROOT/sys/kernel/config/rdma_cm/$DEV3" # real configfs: no directory until someone makes it
snap() { (cd "$ROOT" && find . -printf '%p %y %m %s %l\n' | sort && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
snap > "$T/before"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show > "$T/show.txt"
check "show succeeds" [ $? -eq 0 ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --json > "$T/show.json"
snap > "$T/after"
check "show leaves the node tree byte-identical" cmp -s "$T/before" "$T/after"
check "show did not create rdma_cm/$DEV3" [ ! -e "$ROOT/sys/kernel/config/rdma_cm/$DEV3" ]
check "show: required vs current ToS per VF" [ "$(jq --arg v "$VF1PCI" '.pfs[].vfs[] | select(.pci == $v) | [.trafficClassRequired, .trafficClass] | tostring' -r "$T/show.json")" = "[106,106]" ]
check "show (text) says required" grep -Eq "tc .*106.* \(required 106\)" "$T/show.txt"

echo "== a background agent: events, HTTP, SIGTERM"
PORT=$(free_port)
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --interval 30 --metrics-file "$M" --listen "127.0.0.1:$PORT" 2> "$T/bg.log" &
AGENT_PID=$!
for _ in $(seq 50); do [ -s "$M" ] && break; sleep 0.1; done
check "background agent wrote its metrics" [ -s "$M" ]
# the listener comes up beside the first pass: give a slow (sanitizer) build a few seconds
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$PORT/metrics" > "$T/http.prom" && break; sleep 0.1; done
check "GET /metrics answers" [ -s "$T/http.prom" ]
check "/metrics passes promtool" promcheck "$T/http.prom"
check "/healthz answers ok" [ "$(curl -sf "http://127.0.0.1:$PORT/healthz")" = ok ]
check "unknown path: 404" [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/x")" = 404 ]
sleep 0.5
t0=$(date +%s%N)
dcb_edit "$ROOT" "$PF0" '.pfc = [4]'
ok=""
for _ in $(seq 40); do
	[ "$(pfc_of "$ROOT" "$PF0")" = "[3,4]" ] && { ok=1; break; }
	sleep 0.05
done
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "a DCB drift is repaired by event within 1 s (took ${ms} ms, interval 30 s)" [ -n "$ok" ]
check "... within 1 s (took ${ms} ms)" [ "$ms" -lt 1000 ]
sleep 0.5
curl -sf "http://127.0.0.1:$PORT/metrics" > "$T/http.prom"
check "/metrics counts the repair" [ "$(metric "$T/http.prom" "rdma_qos_repairs_total{pf=\"$PF0\",item=\"pfc\"}")" = 1 ]
for _ in $(seq 30); do dcb_edit "$ROOT" "$PF0" '.'; done
sleep 0.5
check "a source that keeps firing is backed off, and the log says so" grep -q "events for sim-dcb keep coming" "$T/bg.log"
kill -TERM "$AGENT_PID"
wait "$AGENT_PID"
check "SIGTERM: exit 0" [ $? -eq 0 ]
AGENT_PID=""
check "SIGTERM: logged" grep -q "signal 15: exiting" "$T/bg.log"

echo "== flags"
agent --interval 0 2> /dev/null
check "--interval 0 refused (exit 2)" [ $? -eq 2 ]
agent --bogus 2> /dev/null
check "an unknown flag is refused (exit 2)" [ $? -eq 2 ]

# sub_suite SCRIPT [may-skip]: a script with its own node, its PASS/FAIL lines counted
# here, and a check that it ran to its summary and exit 0 (a crash after its last PASS
# line, or a FAIL line and exit 1 before any summary, is a failure). may-skip: its own
# gate may skip it here ("SKIP: ..." and "0 passed, 0 failed, 1 skipped", exit 0; under
# CI sim_suite_start makes that a FAIL and exit 1)
sub_suite() {
	local rc
	# make test runs each as a target of its own (tests/agent/rules.mk: RQ_AGENT_APART)
	if [[ " ${RQ_AGENT_APART:-} " == *" $1 "* ]]; then echo "== $1.sh: its own target"; return; fi
	bash "$(dirname "$0")/$1.sh" > "$T/$1.out" 2>&1
	rc=$?
	grep -E '^(==|PASS|FAIL|SKIP)' "$T/$1.out"
	PASS=$((PASS + $(grep -c '^PASS:' "$T/$1.out")))
	FAIL=$((FAIL + $(grep -c '^FAIL:' "$T/$1.out")))
	{ grep -q ' passed, 0 failed$' "$T/$1.out" ||
		{ [ "${2:-}" = may-skip ] && grep -qx '0 passed, 0 failed, 1 skipped' "$T/$1.out"; }; } &&
		[ $rc -eq 0 ] || { fail "$1.sh ran to its summary and exit 0 (rc $rc)"; tail -20 "$T/$1.out"; }
}

# the agent in the DaemonSet's namespaces (its own PID and mount namespace): its own node;
# its gate (unshare --pid --mount-proc) is its own
echo "== the agent as deployed (tests/agent/deployed.sh)"
sub_suite deployed may-skip

echo "== congestion telemetry (tests/agent/telemetry.sh, its own node)"
sub_suite telemetry

echo "== what the counters mean (tests/agent/telemetry_meaning.sh, its own node)"
sub_suite telemetry_meaning

echo "== who is behind a port's traffic (tests/agent/who.sh, its own node)"
sub_suite who

echo "== the QP census (tests/agent/qps.sh, its own node)"
sub_suite qps

echo "== bonds and VF LAG (tests/agent/bond.sh, its own nodes)"
sub_suite bond

echo "== liveness, readiness and build info (tests/agent/health.sh, its own node)"
sub_suite health

summary
