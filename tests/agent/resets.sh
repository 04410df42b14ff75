#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A reset is not a fight (issue 30 item 4). Any mlx5e (re)initialisation
# (devlink reload, firmware reset, health recovery, AER) puts the port's DCB
# back to the driver's defaults (mlx5e_dcbnl_initialize: trust pcp, no DSCP APP
# entries, no PFC, ETS as mlx5e_ets_init leaves it); in the sim that is the fake
# DCB file rewritten to {"writes": N}. Here:
# - six such resets within the fight window: repaired every time (with the
#   default back-off), logged as resets, counted in rdma_qos_port_resets_total,
#   never backed off nor suspended; a reset clears the counts of a fight;
# - a writer that clears only PFC while trust and the DSCP map stay: backed off
#   from the third repair and suspended at the fifth, as before;
# - the PF renamed (same PCI address): it keeps its book (still suspended);
# - a re-created netdev (a new ifindex) is a reset even when only PFC is off;
# - a book of 0.2.0 (keyed by PF name) is taken over under the PF's PCI address;
# - a port the agent leaves at the defaults (its repair fails) is one reset, not
#   one per pass.
set -u
. "$(dirname "$0")/lib.sh"

sim_suite_start "agent: resets are not fights" rqrs agent_can_run
agent() { RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent "$@"; }
M=$T/rdma-qos.prom
FIGHTS=$ROOT/run/rdma-qos/agent/fights.json

"$MKNODE" --root "$ROOT" --pfs 2 --vfs 2 --numa-nodes 2 --cpus-per-node 4 --rdma configfs \
	--ecn yes --dcb yes --pf-prefix rs$$ > /dev/null || { echo "FAIL: mknode"; exit 1; }
"$MKNODE" --root "$ROOT" pod --uid pod-a --cpus 0-1 > /dev/null
sim_make_vfs "$ROOT"
mapfile -t VFS < <(sim_vfs "$ROOT")
read -r PF0 VF0PCI VF0 <<< "${VFS[0]}"
PF0PCI=$(basename "$(readlink "$ROOT/sys/class/net/$PF0/device")")
ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p1;K8S_POD_UID=pod-a"
rq() { echo "{\"type\":\"rdma-qos\",\"deviceID\":\"$1\"}"; }
NSA=$(newns a)
chain_add "$ROOT" roce c1 "$NSA" net1 "$VF0" "$(rq "$VF0PCI")" "$ARGS" > /dev/null
check "ADD VF0 (roce-lossless on $PF0)" [ $? -eq 0 ]
# the port as mlx5e_dcbnl_initialize leaves it: every DCB key gone, the SET count kept
dcb_reset() { dcb_edit "$ROOT" "$1" '{writes: .writes}'; }
in_profile() { [ "$(pfc_of "$ROOT" "$1")" = "[3]" ] && [ "$(dscp_prio "$ROOT" "$1" 26)" = 3 ]; }
susp() { metric "$M" "rdma_qos_repair_suspended{pf=\"$1\",item=\"pfc\"}"; }
resets() { metric "$M" "rdma_qos_port_resets_total{pf=\"$1\"}"; }
# the PF's netdev renamed, as udev or `ip link set name` would: same PCI function
pf_rename() { # OLD NEW
	local d
	d=$(readlink -f "$ROOT/sys/class/net/$1")
	mv "$d" "${d%/*}/$2"
	rm "$ROOT/sys/class/net/$1"
	ln -s "../../devices/pci0000:00/$PF0PCI/net/$2" "$ROOT/sys/class/net/$2"
	mv "$ROOT/dcb/$1.json" "$ROOT/dcb/$2.json"
}

agent --once --metrics-file "$M" 2> "$T/a0.log"
check "in profile at start (exit 0)" [ $? -eq 0 ]

# six resets twice: with the default back-off (30 s: the third repair of a fight would wait) and
# with none (a running agent gets there after its waits: the fifth would suspend)
n=0
for BO in 30000 0; do
	echo "== six resets of $PF0 within the fight window, back-off $BO ms"
	for i in 1 2 3 4 5 6; do
		n=$((n + 1))
		dcb_reset "$PF0"
		RDMA_QOS_SIM_REPAIR_BACKOFF_MS=$BO agent --once --metrics-file "$M" 2> "$T/r$n.log"
		rc=$?
		check "reset $i: repaired (exit 0, PFC 3, DSCP 26 -> 3)" [ $rc -eq 0 ]
		check "reset $i: in profile again (PFC 3, DSCP 26 -> 3)" in_profile "$PF0"
		check "reset $i: logged as a reset, not a fight" grep -q "PF $PF0 ($PF0PCI): the port is back at the driver's defaults.*a reset" "$T/r$n.log"
		check "reset $i: no back-off, no suspension" [ "$(grep -c -e "backing off" -e "times in a row" "$T/r$n.log")" = 0 ]
		# --once: a new process each time, and the counter is the process's (as repairs_total)
		check "reset $i: rdma_qos_port_resets_total 1" [ "$(resets "$PF0")" = 1 ]
	done
done
check "after six resets: never suspended (no suspended item in the book)" \
	[ "$(jq '[.. | objects | select(.suspended == true)] | length' "$FIGHTS")" = 0 ]
check "... and no series rdma_qos_repair_suspended 1" [ "$(grep -c '^rdma_qos_repair_suspended{.*} 1$' "$M")" = 0 ]
check "the book is keyed by the PF's PCI address, with its name" [ "$(jq -r --arg p "$PF0PCI" '.pfs[$p].name' "$FIGHTS")" = "$PF0" ]
check "promtool accepts the metrics" promcheck "$M"

echo "== a reset clears the count of a fight in progress"
for i in 1 2; do dcb_edit "$ROOT" "$PF0" '.pfc = []'; agent --once 2> /dev/null; done
check "two PFC-only repairs counted" [ "$(jq --arg p "$PF0PCI" '.pfs[$p].items.pfc.n' "$FIGHTS")" = 2 ]
dcb_reset "$PF0"
agent --once --metrics-file "$M" 2> "$T/c1.log"
check "a reset: repaired" in_profile "$PF0"
check "... and the count cleared" [ "$(jq --arg p "$PF0PCI" '.pfs[$p].items.pfc.n // 0' "$FIGHTS")" = 0 ]
check "... said in the log" grep -q "repair counts of $PF0 cleared" "$T/c1.log"

echo "== a writer that clears only PFC (trust and the DSCP map stay as written)"
for i in 1 2; do
	dcb_edit "$ROOT" "$PF0" '.pfc = []'
	agent --once --metrics-file "$M" 2> "$T/f$i.log"
	check "PFC-only drift $i: repaired" [ "$(pfc_of "$ROOT" "$PF0")" = "[3]" ]
done
dcb_edit "$ROOT" "$PF0" '.pfc = []'
agent --once --metrics-file "$M" 2> "$T/f3.log"
rc=$?
check "the third in a row backs off (PFC left off, exit 1)" [ $rc -eq 1 ]
check "... PFC left off ([]) on the third reset" [ "$(pfc_of "$ROOT" "$PF0")" = "[]" ]
check "... logged as backing off" grep -q "PF $PF0: pfc drifted again .* backing off" "$T/f3.log"
check "... not as a reset" [ "$(grep -c "a reset" "$T/f3.log")" = 0 ]
for i in 3 4 5; do
	dcb_edit "$ROOT" "$PF0" '.pfc = []'
	RDMA_QOS_SIM_REPAIR_BACKOFF_MS=0 agent --once --metrics-file "$M" 2> "$T/g$i.log"
done
check "the fifth suspends: rdma_qos_repair_suspended 1" [ "$(susp "$PF0")" = 1 ]
check "... said at error level" grep -q "error: agent: PF $PF0: pfc repaired 5 times in a row" "$T/g5.log"
dcb_edit "$ROOT" "$PF0" '.pfc = []'
W=$(dcb_writes "$ROOT" "$PF0")
agent --once --metrics-file "$M" 2> "$T/g6.log"
check "suspended: PFC left off, nothing written" [ "$(pfc_of "$ROOT" "$PF0")" = "[]" ]
check "... no DCB write while suspended" [ "$(dcb_writes "$ROOT" "$PF0")" = "$W" ]

echo "== $PF0 renamed (same PCI address $PF0PCI)"
NEW=${PF0}n
pf_rename "$PF0" "$NEW"
agent --once --metrics-file "$M" 2> "$T/n1.log"
check "renamed: still suspended (PFC left off, nothing written)" [ "$(pfc_of "$ROOT" "$NEW")" = "[]" ]
check "... no DCB write on the renamed port" [ "$(dcb_writes "$ROOT" "$NEW")" = "$W" ]
check "renamed: rdma_qos_repair_suspended{pf=$NEW} 1" [ "$(susp "$NEW")" = 1 ]
check "renamed: the book names it $NEW" [ "$(jq -r --arg p "$PF0PCI" '.pfs[$p].name' "$FIGHTS")" = "$NEW" ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --json > "$T/show.json"
check "renamed: show lists the suspension under $NEW" [ "$(jq -c --arg p "$NEW" '.pfs[] | select(.name == $p) | .repairSuspended' "$T/show.json")" = '["pfc"]' ]

echo "== a book of 0.2.0, keyed by PF name"
jq -c --arg p "$PF0PCI" --arg n "$NEW" '{catalog: .catalog, pfs: {($n): .pfs[$p].items}}' "$FIGHTS" > "$FIGHTS.old"
mv "$FIGHTS.old" "$FIGHTS"
agent --once --metrics-file "$M" 2> "$T/o1.log"
check "0.2.0 book: its suspension holds (PFC left off)" [ "$(pfc_of "$ROOT" "$NEW")" = "[]" ]
check "... the 0.2.0 book marks the port suspended" [ "$(susp "$NEW")" = 1 ]
check "0.2.0 book: now keyed by PCI address" [ "$(jq -r --arg p "$PF0PCI" '.pfs[$p].items.pfc.suspended' "$FIGHTS")" = true ]
check "... no entry left under the netdev name" [ "$(jq --arg n "$NEW" '.pfs | has($n)' "$FIGHTS")" = false ]
check "0.2.0 book: the log says so" grep -q "fights.json of 0.2.0" "$T/o1.log"

echo "== a reset of the suspended port (whole port back at defaults)"
dcb_reset "$NEW"
agent --once --metrics-file "$M" 2> "$T/s1.log"
rc=$?
check "reset of a suspended port: repaired (exit 0)" [ $rc -eq 0 ]
check "... the suspended port is in profile after the reset" in_profile "$NEW"
check "... the suspension cleared: rdma_qos_repair_suspended 0" [ "$(susp "$NEW")" = 0 ]
check "... logged as a reset" grep -q "PF $NEW ($PF0PCI): the port is back at the driver's defaults" "$T/s1.log"

echo "== a re-created netdev (new ifindex): only PFC off, six times"
IFX=$ROOT/sys/class/net/$NEW/ifindex
echo 40 > "$IFX"
agent --once 2> /dev/null
for i in 1 2 3 4 5 6; do
	echo $((40 + i)) > "$IFX"
	dcb_edit "$ROOT" "$NEW" '.pfc = []'
	agent --once --metrics-file "$M" 2> "$T/x$i.log"
	rc=$?
	check "new ifindex $((40 + i)), PFC off: repaired (exit 0)" [ $rc -eq 0 ]
	check "new ifindex $((40 + i)): PFC [3] again" [ "$(pfc_of "$ROOT" "$NEW")" = "[3]" ]
	check "... logged as a re-created netdev" grep -q "PF $NEW ($PF0PCI): its netdev was re-created (ifindex $((40 + i)), was $((39 + i)))" "$T/x$i.log"
done
check "re-created six times: never suspended" [ "$(susp "$NEW")" = 0 ]
for i in 1 2 3; do dcb_edit "$ROOT" "$NEW" '.pfc = []'; agent --once 2> "$T/y$i.log"; done
check "the same ifindex again: PFC-only drift is a fight (the third backs off)" grep -q "backing off" "$T/y3.log"

echo "== a port the agent cannot repair stays at the defaults: one reset, not one per pass"
dcb_edit "$ROOT" "$NEW" '{writes: .writes, fail: {set_pfc: 5}}'
agent --once --metrics-file "$M" 2> "$T/z1.log"
check "a reset, its repair failing (set_pfc EIO): logged as a reset" grep -q "PF $NEW ($PF0PCI): the port is back at the driver's defaults" "$T/z1.log"
check "... the repair failed and was undone: the port still at the defaults" [ "$(pfc_of "$ROOT" "$NEW")" = "[]" ]
check "... DSCP 26 unmapped (the defaults)" [ "$(dscp_prio "$ROOT" "$NEW" 26)" = none ]
agent --once --metrics-file "$M" 2> "$T/z2.log"
check "the next pass: no second reset (the agent left it at the defaults)" [ "$(grep -c "a reset" "$T/z2.log")" = 0 ]
check "... no reset recorded for the port" [ -z "$(resets "$NEW")" ]
dcb_edit "$ROOT" "$NEW" 'del(.fail)'
agent --once --metrics-file "$M" 2> "$T/z3.log"
rc=$?
check "once the port takes writes again: repaired" [ $rc -eq 0 ]
check "... the port in profile once it takes writes" in_profile "$NEW"

summary
