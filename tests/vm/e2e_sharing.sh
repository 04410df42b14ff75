#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Guest side, run by e2e.sh in the same boot after its own checks:
#   1. dcbsim's mlx5 and firmware-DCBX modes, proven with iproute2's dcb
#      (APP replace, -ENOENT, no apptrust, the link toggle after a PFC change);
#   2. the production rdma-qos after host-device on them: a PF shared by lossy
#      and lossless attachments (requirements, not exact state), the wait for
#      the carrier after a PFC change, firmware-managed DCBX.
# Usage: e2e_sharing.sh PF-PCI (its VFs exist, are free and up; nobody has an
# attachment on it). Leaves dcbsim loaded in its default mode.
set -u
. "${RQSRC:?}/tests/vm/lib.sh"
BPO=$RQCACHE/iproute2-bpo/sbin
PFPCI=${1:?PF PCI address}
PF=$(ls /sys/bus/pci/devices/"$PFPCI"/net)
CARRIER=/sys/class/net/$PF/carrier
CAT=/etc/cni/rdma-qos/profiles.json
ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=s;K8S_POD_UID=pod-s"
now() { echo $(($(date +%s%N) / 1000000)); }
sets() { cat /sys/module/dcbsim/parameters/sets; }
flaps() { cat /sys/module/dcbsim/parameters/flaps; }
carrier() { cat "$CARRIER" 2>/dev/null || echo 0; }
# ms from $1 (a now() value) until the carrier reads 1, or -1 after $2 ms
carrier_back() {
	local t
	while :; do
		t=$(($(now) - $1))
		[ "$(carrier)" = 1 ] && { echo "$t"; return; }
		[ "$t" -gt "$2" ] && { echo -1; return; }
		sleep 0.05
	done
}
wait_carrier() { [ "$(carrier_back "$(now)" 10000)" -ge 0 ]; }
dcbsim() {   # reload with these parameters (default mode without any)
	rmmod dcbsim 2>/dev/null
	modprobe dcbsim ifname="$PF" "$@" || { fail "modprobe dcbsim $*"; return 1; }
	wait_carrier
}
pfc_on() { dcb -j pfc show dev "$PF" | jq -c '[.prio_pfc | to_entries[] | select(.value == true) | .key | tonumber]'; }
dscp_of() { dcb -j app show dev "$PF" | jq -c --argjson d "$1" '[.dscp_prio[]? | select(.[0] == $d) | .[1]]'; }
pf_state() { echo "pfc $(pfc_on) app $(dcb -j app show dev "$PF" | jq -c '.dscp_prio // [] | sort')"; }

# a VF of the PF free in the host namespace, by index
VFPCI=() VFN=()
for i in 0 1; do
	VFPCI[i]=$(basename "$(readlink -f /sys/bus/pci/devices/"$PFPCI"/virtfn$i)")
	VFN[i]=$(ls /sys/bus/pci/devices/"${VFPCI[i]}"/net 2>/dev/null)
done
[ -n "${VFN[0]}" ] && [ -n "${VFN[1]}" ] || { fail "two free VFs on $PFPCI"; echo "$PASS passed, $FAIL failed"; exit 1; }
echo "PF $PF ($PFPCI), VFs ${VFN[0]} ${VFPCI[0]}, ${VFN[1]} ${VFPCI[1]}"

echo "== dcbsim mlx5=1: APP as mlx5e_dcbnl_ieee_{set,del}app, read back by iproute2's dcb"
dcbsim mlx5=1 flap_ms=1500
check "mlx5 mode: getdcbx says host ieee cee" \
	[ "$(dcb -j dcbx show dev "$PF" | jq -c '[.host, .ieee, .cee, .lld_managed // false]')" = '[true,true,true,false]' ]
S=$(sets)
dcb app add dev "$PF" dscp-prio 26:5
dcb app add dev "$PF" dscp-prio 26:3
check "mlx5 mode: adding 26:3 replaced 26:5 (DSCP 26 has one entry)" [ "$(dscp_of 26)" = '[3]' ]
check "mlx5 mode: delete of 26:5, no longer current, fails (-ENOENT)" \
	bash -c "! dcb app del dev $PF dscp-prio 26:5 2>/dev/null"
check "mlx5 mode: adding the current 26:3 again succeeds" dcb app add dev "$PF" dscp-prio 26:3
check "mlx5 mode: a non-DSCP APP entry is refused (-EINVAL)" \
	bash -c "! dcb app add dev $PF ethtype-prio 0x8906:3 2>/dev/null"
check "mlx5 mode: deleting the current 26:3 empties DSCP 26" \
	bash -c "dcb app del dev $PF dscp-prio 26:3 && [ \"\$(dcb -j app show dev $PF | jq -c '.dscp_prio // []')\" = '[]' ]"
check "mlx5 mode: 4 SETs counted (refused ones not)" [ "$(sets)" = $((S + 4)) ]
if [ -x "$BPO/dcb" ]; then
	check "mlx5 mode: no apptrust ops (dcb apptrust set fails)" \
		bash -c "! $BPO/dcb apptrust set dev $PF order dscp pcp 2>/dev/null"
fi

echo "== dcbsim mlx5=1: a PFC change toggles the link (mlx5e_dcbnl_ieee_setpfc -> mlx5_toggle_port_link)"
check "carrier is up before" [ "$(carrier)" = 1 ]
F=$(flaps); t0=$(now)
dcb pfc set dev "$PF" prio-pfc 3:on
c0=$(carrier)
ms=$(carrier_back "$t0" 8000)
echo "carrier right after the SET: $c0; back after ${ms} ms (flap_ms=1500)"
check "PFC change: carrier off at once" [ "$c0" = 0 ]
check "PFC change: carrier back after 1500 ms, not earlier, within 4 s ($ms ms)" [ "$ms" -ge 1450 -a "$ms" -le 4000 ]
check "PFC change: one toggle counted" [ "$(flaps)" = $((F + 1)) ]
dcb pfc set dev "$PF" prio-pfc 3:on
check "the same PFC again: no toggle, carrier stays up" [ "$(flaps)" = $((F + 1)) -a "$(carrier)" = 1 ]
# igb's watchdog (every 2 s) would bring the carrier back by itself: held down past it
dcbsim mlx5=1 flap_ms=4000
t0=$(now)
dcb pfc set dev "$PF" prio-pfc 3:on
ms=$(carrier_back "$t0" 9000)
check "flap_ms=4000: carrier first seen up after 4000 ms, igb's watchdog ran meanwhile ($ms ms)" \
	[ "$ms" -ge 3950 -a "$ms" -le 6500 ]

# without the hold igb's watchdog (every 2 s) ends the toggle on its own: shown, not judged
dcbsim mlx5=1 flap_ms=5000 link_fn=
t0=$(now)
dcb pfc set dev "$PF" prio-pfc 3:on
echo "for comparison, link_fn= (no hold), flap_ms=5000: carrier back after $(carrier_back "$t0" 9000) ms"

echo "== dcbsim fw_dcbx=1: firmware-managed DCBX, setters still accept (as mlx5)"
dcbsim mlx5=1 fw_dcbx=1 flap_ms=0
check "mlx5 fw mode: getdcbx says ieee cee without host" \
	[ "$(dcb -j dcbx show dev "$PF" | jq -c '[.host // false, .ieee, .cee]')" = '[false,true,true]' ]
S=$(sets)
check "mlx5 fw mode: a PFC SET is accepted" dcb pfc set dev "$PF" prio-pfc 3:on
check "mlx5 fw mode: ... and applied" [ "$(pfc_on)" = '[3]' -a "$(sets)" = $((S + 1)) ]
check "mlx5 fw mode: setdcbx lld-managed is refused" bash -c "! dcb dcbx set dev $PF lld-managed ieee 2>/dev/null"
check "mlx5 fw mode: setdcbx host ieee takes DCBX back (mlx5e_dcbnl_setdcbx)" \
	bash -c "dcb dcbx set dev $PF host ieee && [ \"\$(dcb -j dcbx show dev $PF | jq -c '[.host, .ieee]')\" = '[true,true]' ]"
dcbsim fw_dcbx=1
check "generic fw mode: getdcbx says ieee only" \
	[ "$(dcb -j dcbx show dev "$PF" | jq -c '[.host // false, .ieee, .cee // false]')" = '[false,true,false]' ]
dcbsim
check "default mode: getdcbx says host ieee, as before" \
	[ "$(dcb -j dcbx show dev "$PF" | jq -c '[.host, .ieee, .cee // false]')" = '[true,true,false]' ]
dcb app add dev "$PF" dscp-prio 26:5
dcb app add dev "$PF" dscp-prio 26:3
check "default mode: the kernel's APP list keeps 26:5 beside 26:3" [ "$(dscp_of 26)" = '[3,5]' ]

echo "== the production plugin on a shared PF (catalog in an overlay over /etc)"
modprobe overlay
mkdir -p /run/etc-up /run/etc-work
if ! mount -t overlay overlay -o lowerdir=/etc,upperdir=/run/etc-up,workdir=/run/etc-work /etc; then
	fail "overlay over /etc for the node catalog"
	echo "$PASS passed, $FAIL failed"; exit 1
fi
catalog() {   # carrierWaitSeconds
	mkdir -p /etc/cni/rdma-qos
	cat > "$CAT" <<EOF
{
  "profiles": {
    "lossy": { "trafficClass": 0 },
    "conflict": { "dscp2prio": { "26": 5 } }
  },
  "namespaces": { "*": { "default": "roce-lossless", "allow": ["roce-lossless", "lossy", "conflict"] } },
  "node": { "pf": "ensure", "carrierWaitSeconds": $1 }
}
EOF
}
catalog 10
conf() {  # plugin-json [prevResult]
	jq -c --argjson p "${2:-null}" '{cniVersion: "1.0.0", name: "share"} + . + (if $p == null then {} else {prevResult: $p} end)' <<< "$1"
}
run() {   # plugin cmd cid netns args
	CNI_COMMAND=$2 CNI_CONTAINERID=$3 CNI_NETNS=$4 CNI_IFNAME=net1 CNI_PATH=/usr/lib/cni CNI_ARGS=$ARGS "$1"
}
declare -A VFOF
# att CID VF# PROFILE [PFMODE]: host-device then rdma-qos ADD; sets OUT, RC, MS, LOG (stderr file)
att() {
	local cid=$1 v=$2 prof=$3 mode=${4:-ensure} prev t0
	ip netns add "$cid"
	VFOF[$cid]=${VFN[v]}
	prev=$(conf "{\"type\":\"host-device\",\"device\":\"${VFN[v]}\"}" | run $HD ADD "$cid" /run/netns/"$cid")
	ip netns exec "$cid" ip link set net1 up
	ip netns exec "$cid" rdma link add "rxe_$cid" type rxe netdev net1
	LOG=/tmp/sharing.$cid.log
	t0=$(now)
	OUT=$(conf "{\"type\":\"rdma-qos\",\"profile\":\"$prof\",\"pf\":\"$mode\",\"numa\":\"off\",\"deviceID\":\"${VFPCI[v]}\"}" "$prev" |
		run "$RQ" ADD "$cid" /run/netns/"$cid" 2> "$LOG")
	RC=$?
	MS=$(($(now) - t0)) CAR=$(carrier)
	echo "ADD $cid (${VFN[v]}, $prof, pf $mode): rc $RC in $MS ms $(jq -c '{code, msg}' <<< "$OUT" 2>/dev/null | grep -v '"code":null')"
	[ $RC -eq 0 ] || sed 's/^/  log: /' "$LOG"
}
# det CID: rdma-qos DEL, host-device DEL (the VF goes back under its name)
det() {
	conf '{"type":"rdma-qos"}' | run "$RQ" DEL "$1" /run/netns/"$1" 2> /tmp/sharing.del.log
	DRC=$?
	conf "{\"type\":\"host-device\",\"device\":\"${VFOF[$1]}\"}" | run $HD DEL "$1" /run/netns/"$1" > /dev/null ||
		echo "host-device DEL $1 failed"
	ip netns del "$1"
	[ $DRC -eq 0 ] || cat /tmp/sharing.del.log
	return $DRC
}
code() { jq -r .code <<< "$OUT" 2>/dev/null; }
msg() { jq -r .msg <<< "$OUT" 2>/dev/null; }
logged_ms() { grep -i carrier "$LOG" | grep -oE '[0-9]+ ?ms' | head -1 | tr -dc 0-9; }

echo "-- order 1: lossy, then lossless; the admin runs lossless storage on priority 4"
dcbsim mlx5=1 flap_ms=1500
dcb pfc set dev "$PF" prio-pfc 4:on; wait_carrier
S=$(sets)
att l1 0 lossy
check "lossy ADD succeeds" [ $RC -eq 0 ]
check "lossy ADD wrote nothing on the PF (sets $S -> $(sets))" [ "$(sets)" = "$S" ]
check "lossy ADD: ToS 0 for its rxe" [ "$(cat /sys/kernel/config/rdma_cm/rxe_l1/ports/1/default_roce_tos 2>/dev/null)" = 0 ]
att r1 1 roce-lossless
check "lossless ADD beside the lossy one succeeds" [ $RC -eq 0 ]
check "lossless ADD returned with the carrier up" [ "$CAR" = 1 ]
check "lossless ADD waited for the toggled link ($MS ms >= 1400)" [ "$MS" -ge 1400 ]
lm=$(logged_ms)
check "lossless ADD logged the carrier wait in ms (${lm:-none} ms)" [ "${lm:-0}" -ge 1000 ]
check "the admin's PFC 4 stays on: PFC 3,4" [ "$(pfc_on)" = '[3,4]' ]
check "DSCP 26 -> 3 only" [ "$(dscp_of 26)" = '[3]' ]
check "64 DSCP entries (mlx5 trusts DSCP while it has any)" [ "$(dcb -j app show dev "$PF" | jq '.dscp_prio | length')" = 64 ]
ST1=$(pf_state)
S=$(sets)
det r1
check "DEL of the last lossless attachment succeeds" [ $DRC -eq 0 ]
check "... and leaves the PF as it is (no SET, same PFC and APP)" [ "$(sets)" = "$S" -a "$(pf_state)" = "$ST1" ]
det l1

echo "-- order 2: lossless, then lossy"
dcbsim mlx5=1 flap_ms=1500
dcb pfc set dev "$PF" prio-pfc 4:on; wait_carrier
att r2 0 roce-lossless
check "lossless ADD on the fresh port succeeds" [ $RC -eq 0 ]
S=$(sets)
att l2 1 lossy
check "lossy ADD beside a live lossless one succeeds (no conflict)" [ $RC -eq 0 ]
check "lossy ADD wrote nothing on the PF" [ "$(sets)" = "$S" ]
ST2=$(pf_state)
echo "order 1: $ST1"
echo "order 2: $ST2"
check "both orders end in the same PF state" [ "$ST1" = "$ST2" ]
det l2

echo "-- a real contradiction: DSCP 26 -> 5 against the live roce-lossless"
S=$(sets)
att x2 1 conflict
check "contradicting profile fails with 102" [ "$(code)" = 102 ]
check "102 names both sides (profiles conflict and roce-lossless)" \
	bash -c 'grep -q "\"conflict\"" <<< "$1" && grep -q "\"roce-lossless\"" <<< "$1"' _ "$(msg)"
check "102 wrote nothing on the PF" [ "$(sets)" = "$S" ]
det x2
det r2

echo "-- mlx5 APP mode: the ADD converges on a port whose DSCP 26 an admin moved to 5"
dcb app add dev "$PF" dscp-prio 26:5
check "setup: DSCP 26 -> 5 only" [ "$(dscp_of 26)" = '[5]' ]
att r3 0 roce-lossless
check "lossless ADD over DSCP 26 -> 5 succeeds (delete of the replaced entry is -ENOENT on mlx5)" [ $RC -eq 0 ]
check "DSCP 26 -> 3 only afterwards" [ "$(dscp_of 26)" = '[3]' ]
check "still 64 DSCP entries" [ "$(dcb -j app show dev "$PF" | jq '.dscp_prio | length')" = 64 ]
det r3
S=$(sets)
att r4 0 roce-lossless
check "a repeated lossless ADD succeeds" [ $RC -eq 0 ]
check "a repeated lossless ADD sends no SET" [ "$(sets)" = "$S" ]
det r4

echo "-- the carrier does not come back within node.carrierWaitSeconds"
catalog 1
dcbsim mlx5=1 flap_ms=4000
ST0=$(pf_state)
att r5 0 roce-lossless
check "ADD past the carrier bound fails with 112" [ "$(code)" = 112 ]
check "112 says the carrier did not come back" grep -qi "carrier" <<< "$(msg)"
check "112 after about the bound (1 s), not the flap (4 s): $MS ms" [ "$MS" -ge 1000 -a "$MS" -lt 3900 ]
check "the failed ADD put the PF back as it found it" [ "$(pf_state)" = "$ST0" ]
det r5
# putting PFC back toggled the link again
wait_carrier

echo "-- a port whose carrier is already down before the ADD: nothing to wait for"
# the flap must outlast host-device's and our ADD up to the carrier check: 4 s did not on a
# loaded CI host (TCG), where the link was back up before the ADD looked
dcbsim mlx5=1 flap_ms=8000
dcb pfc set dev "$PF" prio-pfc 4:on
att r6 0 roce-lossless
check "ADD on a port already down succeeds under carrierWaitSeconds 1" [ $RC -eq 0 ]
check "... and returned without waiting for the carrier (still down)" [ "$CAR" = 0 ]
check "... PFC 3,4 applied" [ "$(pfc_on)" = '[3,4]' ]
det r6
wait_carrier
catalog 10

echo "-- firmware-managed DCBX (mlx5 without the HOST bit)"
dcbsim mlx5=1 fw_dcbx=1 flap_ms=1500
S=$(sets)
att f1 0 roce-lossless ensure
check "pf: ensure on a port that needs writes fails with 106" [ "$(code)" = 106 ]
check "106 wrote nothing (sets $S -> $(sets))" [ "$(sets)" = "$S" ]
det f1
att f2 0 roce-lossless verify
check "pf: verify on a port that lacks the requirements fails with 105" [ "$(code)" = 105 ]
det f2
# the operator configures the port (the 64-entry dscp >> 3 map holds 26:3 and 48:6)
map=(); for d in $(seq 0 63); do map+=("$d:$((d >> 3))"); done
dcb app add dev "$PF" dscp-prio "${map[@]}"
dcb pfc set dev "$PF" prio-pfc 3:on; wait_carrier
S=$(sets)
att f3 0 roce-lossless verify
check "pf: verify on a port that satisfies the requirements succeeds" [ $RC -eq 0 ]
att f4 1 roce-lossless ensure
check "pf: ensure on a port that satisfies them succeeds (nothing to write)" [ $RC -eq 0 ]
check "... no SET" [ "$(sets)" = "$S" ]
det f4
det f3

rm -f "$CAT"
umount /etc || echo "note: /etc overlay stays mounted"
dcbsim
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
