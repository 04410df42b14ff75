#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Simulated-node tests: real netns, veth "VFs", Debian's host-device plugin,
# then rdma-qos-sim, run as a runtime runs a conflist. Every scenario of the
# attach flow; one PASS/FAIL line per assertion and a closing summary.
set -u
. "$(dirname "$0")/lib.sh"

sim_suite_start "simulated-node tests" rqsim sim_can_run
suite_teardown() { ip link del "rqpn$$" 2>/dev/null; ip link del "sh$$0" 2>/dev/null; ip link del "sh$$x" 2>/dev/null; }

"$MKNODE" --root "$ROOT" --pfs 2 --vfs 4 --numa-nodes 2 --cpus-per-node 4 --rdma configfs \
	--ecn yes --dcb yes --pf-prefix sp$$ > "$T/node.txt" || { echo "FAIL: mknode"; exit 1; }
"$MKNODE" --root "$ROOT" pod --uid pod-aligned --cpus 0-1 > /dev/null
"$MKNODE" --root "$ROOT" pod --uid pod-far --cpus 4-5 > /dev/null
sim_make_vfs "$ROOT"
mapfile -t VFS < <(sim_vfs "$ROOT")
# VFS[i] = "pf vfpci vfdev"; PF0's VFs first
read -r PF0 VF0PCI VF0 <<< "${VFS[0]}"
read -r _ VF1PCI VF1 <<< "${VFS[1]}"
read -r _ VF2PCI VF2 <<< "${VFS[2]}"
read -r _ VF3PCI VF3 <<< "${VFS[3]}"
read -r PF1 VF4PCI VF4 <<< "${VFS[4]}"
PF0PCI=$(basename "$(readlink -f "$ROOT/sys/class/net/$PF0/device")")
# kubelet's checkpoint as the SR-IOV device plugin writes it: each VF under its
# own pod, by PCI address, with its NUMA node (PF0's VFs are on node 0)
"$MKNODE" --root "$ROOT" pod --uid pod-aligned --device "intel.com/sriov_rdma=$VF0PCI@0" \
	--device "intel.com/sriov_rdma=$VF1PCI@0" > /dev/null
"$MKNODE" --root "$ROOT" pod --uid pod-far --device "intel.com/sriov_rdma=$VF2PCI@0" > /dev/null
tos_of() { local dev; dev=$(ls "$ROOT/sys/bus/pci/devices/$1/infiniband" | head -1); cat "$ROOT/sys/kernel/config/rdma_cm/$dev/ports/1/default_roce_tos"; }
rdma_of() { ls "$ROOT/sys/bus/pci/devices/$1/infiniband" | head -1; }
recs() { ls "$ROOT/run/rdma-qos/state/" 2>/dev/null | grep -c '\.json$'; }
ARGS_OK="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p-ok;K8S_POD_UID=pod-aligned"
ARGS_FAR="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p-far;K8S_POD_UID=pod-far"
rq() { echo "{\"type\":\"rdma-qos\",\"deviceID\":\"$1\"${2:+,$2}}"; }

echo "== ADD / CHECK / DEL on a fresh PF"
NS=$(newns a)
out=$(chain_add "$ROOT" roce c1 "$NS" net1 "$VF0" "$(rq "$VF0PCI")" "$ARGS_OK")
check "ADD succeeds" [ $? -eq 0 ]
check "ADD prints prevResult with net1" [ "$(jq -r '.interfaces[] | select(.sandbox != null) | .name' <<< "$out")" = net1 ]
check "result cniVersion is the config's" [ "$(jq -r .cniVersion <<< "$out")" = 1.0.0 ]
check "PF pfc is [3]" [ "$(jq -c .pfc "$ROOT/dcb/$PF0.json")" = "[3]" ]
check "PF has 64 DSCP app entries" [ "$(jq '[.app[] | select(.selector == 5)] | length' "$ROOT/dcb/$PF0.json")" = 64 ]
check "DSCP 26 -> prio 3" [ "$(jq '.app[] | select(.selector == 5 and .protocol == 26) | .priority' "$ROOT/dcb/$PF0.json")" = 3 ]
check "DSCP 48 -> prio 6" [ "$(jq '.app[] | select(.selector == 5 and .protocol == 48) | .priority' "$ROOT/dcb/$PF0.json")" = 6 ]
check "DSCP 10 -> prio 1 (dscp>>3)" [ "$(jq '.app[] | select(.selector == 5 and .protocol == 10) | .priority' "$ROOT/dcb/$PF0.json")" = 1 ]
check "ECN NP prio 3 on" [ "$(cat "$ROOT/sys/class/net/$PF0/ecn/roce_np/enable/3")" = 1 ]
check "ECN RP prio 3 on" [ "$(cat "$ROOT/sys/class/net/$PF0/ecn/roce_rp/enable/3")" = 1 ]
check "VF ToS is 106" [ "$(tos_of "$VF0PCI")" = 106 ]
check "one record" [ "$(recs)" = 1 ]
W1=$(dcb_writes "$ROOT" "$PF0")
check "PF writes counted ($W1)" [ "$W1" -gt 0 ]
chain_check "$ROOT" roce c1 "$NS" net1 "$VF0" "$(rq "$VF0PCI")" "$ARGS_OK" "$out" > "$T/check.out"
check "CHECK succeeds and prints nothing" [ $? -eq 0 -a ! -s "$T/check.out" ]

echo "== a repeated ADD writes nothing"
conf_for roce 1.0.0 "$(rq "$VF0PCI")" "$out" | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD c1 "$NS" net1 "$ARGS_OK" > /dev/null
check "repeated ADD succeeds" [ $? -eq 0 ]
check "writes unchanged ($W1)" [ "$(dcb_writes "$ROOT" "$PF0")" = "$W1" ]
NSB=$(newns b)
outb=$(chain_add "$ROOT" roce c2 "$NSB" net1 "$VF1" "$(rq "$VF1PCI")" "$ARGS_OK")
check "ADD of a second VF on the same PF succeeds" [ $? -eq 0 ]
check "second VF on a right PF: zero PF writes" [ "$(dcb_writes "$ROOT" "$PF0")" = "$W1" ]

echo "== a repeated ADD streams its PF index, and reads it whole when anything else concerns it"
IDX=$ROOT/run/rdma-qos/state/pf/$PF0PCI.json
readd_c1() { conf_for roce 1.0.0 "$(rq "$VF0PCI")" "$out" | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD c1 "$NS" net1 "$ARGS_OK" 2> "$T/readd.err" > /dev/null; }
ino=$(stat -c %i "$IDX")
readd_c1
check "repeated ADD: the PF index is not rewritten" [ $? -eq 0 -a "$(stat -c %i "$IDX")" = "$ino" ]
# an entry that contradicts c1: the full check judges it (live: 102; no record: a lost DEL, ignored)
jq '.attachments += [{key: "roce_ghost_net1", pod: "ai/ghost", vf: "0000:99:00.1", profileName: "af31p5",
	req: {trust: "dscp", dscp2prio: {"26": 5}, pfc: [5]}}]' "$IDX" > "$T/i" && cp "$T/i" "$IDX"
cp "$ROOT/run/rdma-qos/state/roce_c1_net1.json" "$ROOT/run/rdma-qos/state/roce_ghost_net1.json"
msg=$(conf_for roce 1.0.0 "$(rq "$VF0PCI")" "$out" | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD c1 "$NS" net1 "$ARGS_OK" 2> /dev/null)
check "repeated ADD beside a live contradicting entry: conflict code 102" [ "$(jq .code <<< "$msg")" = 102 ]
rm -f "$ROOT/run/rdma-qos/state/roce_ghost_net1.json"
readd_c1
check "... without its record (a lost DEL) the repeated ADD succeeds" [ $? -eq 0 ]
jq 'del(.attachments[] | select(.key == "roce_ghost_net1"))' "$IDX" > "$T/i" && cp "$T/i" "$IDX"
# a live attachment's entry on the same VF: the owner check runs (a lost DEL: taken over)
cp "$ROOT/run/rdma-qos/state/roce_c1_net1.json" "$ROOT/run/rdma-qos/state/roce_ghost2_net1.json"
jq --arg vf "$VF0PCI" '.attachments += [{key: "roce_ghost2_net1", pod: "ai/ghost2", vf: $vf,
	profileName: "roce-lossless", req: .attachments[0].req}]' "$IDX" > "$T/i" && cp "$T/i" "$IDX"
readd_c1
check "repeated ADD with another entry on its VF runs the owner check" grep -q 'was held by .* taking it over' "$T/readd.err"
rm -f "$ROOT/run/rdma-qos/state/roce_ghost2_net1.json"
jq 'del(.attachments[] | select(.key == "roce_ghost2_net1"))' "$IDX" > "$T/i" && cp "$T/i" "$IDX"
# an index in the old format (one shared "profile"): upgraded as before
jq '. + {profile: .attachments[0].req, profileName: "roce-lossless"}' "$IDX" > "$T/i" && cp "$T/i" "$IDX"
readd_c1
check "repeated ADD on an old-format index upgrades it" [ $? -eq 0 -a "$(jq 'has("profile")' "$IDX")" = false ]
check "... keeping both attachments" [ "$(jq '.attachments | length' "$IDX")" = 2 ]
ino=$(stat -c %i "$IDX")
readd_c1
check "... after which a repeated ADD streams it again" [ $? -eq 0 -a "$(stat -c %i "$IDX")" = "$ino" ]

echo "== CHECK catches drift"
jq '.pfc = [3,4]' "$ROOT/dcb/$PF0.json" > "$T/d" && cp "$T/d" "$ROOT/dcb/$PF0.json"
chain_check "$ROOT" roce c1 "$NS" net1 "$VF0" "$(rq "$VF0PCI")" "$ARGS_OK" "$out" > /dev/null
check "CHECK: PFC on more priorities than required is no drift" [ $? -eq 0 ]
jq '.pfc = [4]' "$ROOT/dcb/$PF0.json" > "$T/d" && cp "$T/d" "$ROOT/dcb/$PF0.json"
msg=$(chain_check "$ROOT" roce c1 "$NS" net1 "$VF0" "$(rq "$VF0PCI")" "$ARGS_OK" "$out")
check "CHECK fails on drifted PFC" [ $? -ne 0 ]
check "CHECK error code 109" [ "$(jq .code <<< "$msg")" = 109 ]
check "CHECK speaks in requirements" grep -q 'pfc: required priority 3, port has 4' <<< "$(jq -r .msg <<< "$msg")"
jq '.pfc = [3]' "$ROOT/dcb/$PF0.json" > "$T/d" && cp "$T/d" "$ROOT/dcb/$PF0.json"
echo 64 > "$ROOT/sys/kernel/config/rdma_cm/$(rdma_of "$VF0PCI")/ports/1/default_roce_tos"
msg=$(chain_check "$ROOT" roce c1 "$NS" net1 "$VF0" "$(rq "$VF0PCI")" "$ARGS_OK" "$out")
check "CHECK fails on drifted traffic class" grep -q 'traffic class (configfs): configured 106, current 64' <<< "$(jq -r .msg <<< "$msg")"
echo 106 > "$ROOT/sys/kernel/config/rdma_cm/$(rdma_of "$VF0PCI")/ports/1/default_roce_tos"

echo "== DEL"
echo 0 > "$T/prev"
chain_del "$ROOT" roce c2 "$NSB" net1 "$VF1" "$(rq "$VF1PCI")" "$ARGS_OK"
check "DEL succeeds" [ $? -eq 0 ]
check "DEL restores the ToS (0)" [ "$(tos_of "$VF1PCI")" = 0 ]
check "DEL keeps PF settings" [ "$(jq -c .pfc "$ROOT/dcb/$PF0.json")" = "[3]" ]
conf_for roce 1.0.0 "$(rq "$VF1PCI")" | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" DEL c2 "$NSB" net1 "$ARGS_OK"
check "DEL twice succeeds" [ $? -eq 0 ]
conf_for roce 1.0.0 "$(rq "$VF1PCI")" | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" DEL never "" net1 ""
check "DEL without ADD and with empty CNI_NETNS succeeds" [ $? -eq 0 ]
pod_netns_gone "${NS##*/}"   # destroys the veth "VF" inside it; a real VF would return to the host
sim_make_vfs "$ROOT"
conf_for roce 1.0.0 "$(rq "$VF0PCI")" | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" DEL c1 "" net1 "$ARGS_OK"
check "DEL after the netns is gone (empty CNI_NETNS)" [ $? -eq 0 ]
check "records all gone" [ "$(recs)" = 0 ]
check "ToS restored after DEL without netns" [ "$(tos_of "$VF0PCI")" = 0 ]

echo "== DEL when the VF and its RDMA device are gone"
conf_for roce 1.0.0 "$(rq "$VF3PCI")" '{"cniVersion":"1.0.0","interfaces":[]}' | \
	RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD gone /proc/self/ns/net net1 "$ARGS_OK" > /dev/null 2>&1
check "ADD for the VF that will vanish" [ "$(recs)" = 1 ]
GDEV=$(rdma_of "$VF3PCI")
mv "$ROOT/sys/kernel/config/rdma_cm/$GDEV" "$T/gone-cfs"
mv "$ROOT/sys/devices/pci0000:00/$VF3PCI" "$T/gone-vf"
conf_for roce 1.0.0 "$(rq "$VF3PCI")" | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" DEL gone "" net1 "$ARGS_OK" 2> "$T/gone.log"
check "DEL succeeds with the VF and RDMA device gone" [ $? -eq 0 ]
check "DEL says the RDMA device is gone" grep -q 'is gone' "$T/gone.log"
check "record removed" [ "$(recs)" = 0 ]
mv "$T/gone-vf" "$ROOT/sys/devices/pci0000:00/$VF3PCI"
mv "$T/gone-cfs" "$ROOT/sys/kernel/config/rdma_cm/$GDEV"
echo 0 > "$ROOT/sys/kernel/config/rdma_cm/$GDEV/ports/1/default_roce_tos"

echo "== DEL with a record that does not parse (issue 42 item 10)"
# the VF is known from deviceID: its class goes back to the driver's default, not left at 106
SDIR=$ROOT/run/rdma-qos/state
add_vf3() { conf_for roce 1.0.0 "$(rq "$VF3PCI")" '{"cniVersion":"1.0.0","interfaces":[]}' | \
	RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD "$1" /proc/self/ns/net net1 "$ARGS_OK" > /dev/null 2>&1; }
del_vf3() { conf_for roce 1.0.0 "$(rq "$VF3PCI")" | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" DEL "$1" "" net1 "$ARGS_OK"; }
add_vf3 bad
check "ADD sets class 106" [ "$(tos_of "$VF3PCI")" = 106 ]
echo '{"version": 1, "vf": "' > "$SDIR/roce_bad_net1.json"
del_vf3 bad 2> "$T/bad.log"
check "DEL of a record that does not parse succeeds" [ $? -eq 0 ]
check "... the record is removed" [ "$(recs)" = 0 ]
check "... the VF's class is the driver's default (0), not 106" [ "$(tos_of "$VF3PCI")" = 0 ]
check "... a warning says so, naming the VF" grep -q "warn.*VF $VF3PCI: .* traffic class set to the driver's default" "$T/bad.log"
check "... no PF index lists it" [ "$(cat "$SDIR"/pf/*.json 2> /dev/null | grep -c roce_bad_net1)" = 0 ]
# the VF another live attachment holds now (a lost DEL's VF handed on): its class is the holder's
add_vf3 hold
echo 'not json' > "$SDIR/roce_bad2_net1.json"
del_vf3 bad2 2> "$T/bad2.log"
check "DEL of an unparsable record whose VF another attachment holds: succeeds" [ $? -eq 0 ]
check "... the holder's class stays (106)" [ "$(tos_of "$VF3PCI")" = 106 ]
check "... the warning names the holder" grep -q "is held by attachment ai/p-ok now" "$T/bad2.log"
del_vf3 hold 2> /dev/null
check "... the holder's DEL restores 0, no record left" [ "$(tos_of "$VF3PCI")/$(recs)" = 0/0 ]

echo "== NUMA policies on the misaligned pod (VF on node 0, pod CPUs on node 1)"
NSN=$(newns n)
msg=$(chain_add "$ROOT" roce c3 "$NSN" net1 "$VF2" "$(rq "$VF2PCI" '"numa":"strict"')" "$ARGS_FAR")
check "numa strict: ADD fails" [ $? -ne 0 ]
check "numa strict: code 103" [ "$(jq .code <<< "$msg")" = 103 ]
check "numa strict: evidence names the VF node" grep -q "NUMA node 0" <<< "$(jq -r .msg <<< "$msg")"
check "numa strict: the VF's own device-plugin entry is no evidence" \
	[ "$(jq -r .msg <<< "$msg")" = "NUMA misaligned (numa: strict): VF $VF2PCI is on NUMA node 0; pod CPUs 4-5 are on node 1" ]
check "numa strict: no record left" [ "$(recs)" = 0 ]
check "numa strict: VF ToS untouched" [ "$(tos_of "$VF2PCI")" = 0 ]
out=$(chain_add "$ROOT" roce c3 "$NSN" net1 "$VF2" "$(rq "$VF2PCI" '"numa":"warn","logLevel":"info"')" "$ARGS_FAR" 2> "$T/warn.log")
check "numa warn: ADD succeeds" [ $? -eq 0 ]
check "numa warn: logs the misalignment" grep -q "NUMA misaligned" "$T/warn.log"
chain_del "$ROOT" roce c3 "$NSN" net1 "$VF2" "$(rq "$VF2PCI")" "$ARGS_FAR"
out=$(chain_add "$ROOT" roce c3 "$NSN" net1 "$VF2" "$(rq "$VF2PCI" '"numa":"off"')" "$ARGS_FAR" 2> "$T/off.log")
check "numa off: ADD succeeds" [ $? -eq 0 ]
check "numa off: no NUMA log" bash -c "! grep -q NUMA '$T/off.log'"
chain_del "$ROOT" roce c3 "$NSN" net1 "$VF2" "$(rq "$VF2PCI")" "$ARGS_FAR"

echo "== sharing one PF: requirements, not exact state"
mkdir -p "$ROOT/etc/cni/rdma-qos"
cat > "$ROOT/etc/cni/rdma-qos/profiles.json" <<'JSON'
{"profiles": {"lossy": {"trafficClass": 0},
              "pfc4": {"pfc": [4], "ecn": [4], "dscp2prio": {"34": 4}, "trafficClass": 138},
              "af31p5": {"dscp2prio": {"26": 5}, "pfc": [5]}},
 "namespaces": {"ai": {"default": "roce-lossless", "allow": ["roce-lossless", "pfc4", "lossy", "af31p5"]},
                "*": {"default": "roce-lossless", "allow": ["roce-lossless"]}}}
JSON
NSC=$(newns c); NSD=$(newns d)
pfstate() { jq -S -c '{pfc, trust, app: (.app // [] | sort_by(.selector, .protocol, .priority))}' "$ROOT/dcb/$PF0.json"; }
writes() { jq .writes "$ROOT/dcb/$PF0.json"; }
fresh_pf() { echo "{\"writes\": 0${1:+,$1}}" > "$ROOT/dcb/$PF0.json"; }
lossy() { rq "$1" '"profile":"lossy"'; }
# lossy first, then lossless
fresh_pf
out=$(chain_add "$ROOT" roce c4 "$NSC" net1 "$VF0" "$(lossy "$VF0PCI")" "$ARGS_OK")
check "lossy first: ADD succeeds" [ $? -eq 0 ]
check "lossy first: no SET on the PF" [ "$(writes)" = 0 ]
check "lossy first: its ToS is 0" [ "$(tos_of "$VF0PCI")" = 0 ]
out=$(chain_add "$ROOT" roce c5 "$NSD" net1 "$VF1" "$(rq "$VF1PCI")" "$ARGS_OK")
check "then lossless: ADD succeeds" [ $? -eq 0 ]
check "then lossless: ToS 106" [ "$(tos_of "$VF1PCI")" = 106 ]
A=$(pfstate)
chain_del "$ROOT" roce c5 "$NSD" net1 "$VF1" "$(rq "$VF1PCI")" "$ARGS_OK"
check "DEL of the last lossless attachment leaves the PF as it is" [ "$(pfstate)" = "$A" ]
chain_del "$ROOT" roce c4 "$NSC" net1 "$VF0" "$(lossy "$VF0PCI")" "$ARGS_OK"
# lossless first, then lossy: the same PF
fresh_pf
out=$(chain_add "$ROOT" roce c5 "$NSD" net1 "$VF1" "$(rq "$VF1PCI")" "$ARGS_OK")
check "lossless first: ADD succeeds" [ $? -eq 0 ]
W=$(writes)
out=$(chain_add "$ROOT" roce c4 "$NSC" net1 "$VF0" "$(lossy "$VF0PCI")" "$ARGS_OK")
check "then lossy: ADD succeeds (no 102)" [ $? -eq 0 ]
check "then lossy: no SET on the PF" [ "$(writes)" = "$W" ]
check "both orders end in the same PF state" [ "$(pfstate)" = "$A" ]
check "the PF index lists both, the lossy one without requirements" \
	[ "$(jq -c '[.attachments[] | .profileName + ":" + (.req | keys | join("+"))] | sort' "$ROOT/run/rdma-qos/state/pf/$PF0PCI.json")" = '["lossy:","roce-lossless:cnp+dscp2prio+ecn+pfc+trust"]' ]
# a contradiction: DSCP 26 to priority 5 against the live lossless attachment
NSE=$(newns e)
msg=$(chain_add "$ROOT" roce c6 "$NSE" net1 "$VF2" "$(rq "$VF2PCI" '"profile":"af31p5"')" "$ARGS_OK")
check "contradicting profile fails" [ $? -ne 0 ]
check "conflict code 102" [ "$(jq .code <<< "$msg")" = 102 ]
check "conflict message names both sides" grep -q 'profile "af31p5" of this attachment requires DSCP 26 -> priority 5, profile "roce-lossless" of live attachment ai/p-ok .* requires DSCP 26 -> priority 3' <<< "$(jq -r .msg <<< "$msg")"
check "PF untouched by the refused ADD" [ "$(writes)" = "$W" ]
# more lossless priorities coexist: storage on 4 beside RDMA on 3
msg=$(chain_add "$ROOT" roce c6 "$NSE" net1 "$VF2" "$(rq "$VF2PCI" '"profile":"pfc4"')" "$ARGS_OK")
check "a second lossless class (PFC 4) coexists" [ $? -eq 0 ]
check "... PFC is 3,4" [ "$(jq -c .pfc "$ROOT/dcb/$PF0.json")" = "[3,4]" ]
check "... DSCP 34 -> 4 beside 26 -> 3" [ "$(jq -c '[.app[] | select(.selector == 5 and (.protocol == 26 or .protocol == 34)) | .priority] | sort' "$ROOT/dcb/$PF0.json")" = "[3,4]" ]
chain_del "$ROOT" roce c6 "$NSE" net1 "$VF2" "$(rq "$VF2PCI" '"profile":"pfc4"')" "$ARGS_OK"
chain_del "$ROOT" roce c5 "$NSD" net1 "$VF1" "$(rq "$VF1PCI")" "$ARGS_OK"
chain_del "$ROOT" roce c4 "$NSC" net1 "$VF0" "$(lossy "$VF0PCI")" "$ARGS_OK"
# an admin's lossless iSCSI on priority 4 is kept
fresh_pf '"pfc": [4]'
out=$(chain_add "$ROOT" roce c5 "$NSD" net1 "$VF1" "$(rq "$VF1PCI")" "$ARGS_OK")
check "admin PFC 4: lossless ADD succeeds" [ $? -eq 0 ]
check "admin PFC 4: kept beside 3" [ "$(jq -c .pfc "$ROOT/dcb/$PF0.json")" = "[3,4]" ]
chain_del "$ROOT" roce c5 "$NSD" net1 "$VF1" "$(rq "$VF1PCI")" "$ARGS_OK"
# a lossy attachment needs no DCB on its PF at all
mv "$ROOT/dcb/$PF0.json" "$T/pf0.dcb"
out=$(chain_add "$ROOT" roce c4 "$NSC" net1 "$VF0" "$(lossy "$VF0PCI")" "$ARGS_OK")
check "lossy on a PF without DCB succeeds (no 100)" [ $? -eq 0 ]
chain_del "$ROOT" roce c4 "$NSC" net1 "$VF0" "$(lossy "$VF0PCI")" "$ARGS_OK"
mv "$T/pf0.dcb" "$ROOT/dcb/$PF0.json"
# the node baseline is ensured by attachments that require anything, and conflicts like one
jq '.node = {"baseline": "pfc4"}' "$ROOT/etc/cni/rdma-qos/profiles.json" > "$T/c" && cp "$T/c" "$ROOT/etc/cni/rdma-qos/profiles.json"
fresh_pf
out=$(chain_add "$ROOT" roce c4 "$NSC" net1 "$VF0" "$(lossy "$VF0PCI")" "$ARGS_OK")
check "baseline: a lossy ADD still writes nothing" [ "$(writes)" = 0 ]
out=$(chain_add "$ROOT" roce c5 "$NSD" net1 "$VF1" "$(rq "$VF1PCI")" "$ARGS_OK")
check "baseline: a lossless ADD ensures its requirements and the baseline's" [ "$(jq -c .pfc "$ROOT/dcb/$PF0.json")" = "[3,4]" ]
jq '.node = {"baseline": "af31p5"}' "$ROOT/etc/cni/rdma-qos/profiles.json" > "$T/c" && cp "$T/c" "$ROOT/etc/cni/rdma-qos/profiles.json"
msg=$(chain_add "$ROOT" roce c6 "$NSE" net1 "$VF2" "$(rq "$VF2PCI")" "$ARGS_OK")
check "baseline contradiction: 102 naming the baseline" grep -q 'node baseline profile "af31p5" requires DSCP 26 -> priority 5' <<< "$(jq -r .msg <<< "$msg")"
chain_del "$ROOT" roce c5 "$NSD" net1 "$VF1" "$(rq "$VF1PCI")" "$ARGS_OK"
chain_del "$ROOT" roce c4 "$NSC" net1 "$VF0" "$(lossy "$VF0PCI")" "$ARGS_OK"
chain_del "$ROOT" roce c6 "$NSE" net1 "$VF2" "$(rq "$VF2PCI")" "$ARGS_OK"
fresh_pf
out=$(chain_add "$ROOT" roce c4 "$NSC" net1 "$VF0" "$(rq "$VF0PCI")" "$ARGS_OK")
msg=$(chain_add "$ROOT" roce c5 "$NSD" net1 "$VF1" "$(rq "$VF1PCI" '"profile":"pfc4"')" "IgnoreUnknown=1;K8S_POD_NAMESPACE=other")
check "profile not allowed in namespace: code 101" [ "$(jq .code <<< "$msg")" = 101 ]
chain_del "$ROOT" roce c4 "$NSC" net1 "$VF0" "$(rq "$VF0PCI")" "$ARGS_OK"
rm -f "$ROOT/etc/cni/rdma-qos/profiles.json"

echo "== ADD failing half-way leaves nothing behind"
TOSF="$ROOT/sys/kernel/config/rdma_cm/$(rdma_of "$VF3PCI")/ports/1/default_roce_tos"
# A fresh PF state so the failed ADD is the one that would configure it.
echo '{"writes": 0}' > "$ROOT/dcb/$PF0.json"
for f in "$ROOT"/sys/class/net/"$PF0"/ecn/roce_*/enable/*; do echo 0 > "$f"; done
chmod 0444 "$TOSF"
mv "$TOSF" "$TOSF.real"; mkdir "$TOSF"   # a directory: the write fails on every kernel
# NSE: the pod netns of the conflict above, still there
msg=$(chain_add "$ROOT" roce c6 "$NSE" net1 "$VF3" "$(rq "$VF3PCI")" "$ARGS_OK")
check "ADD fails when the ToS cannot be written" [ $? -ne 0 ]
check "error names the traffic class" grep -qi 'traffic class' <<< "$(jq -r .msg <<< "$msg")"
check "no record left" [ "$(recs)" = 0 ]
check "PF rolled back: pfc empty again" [ "$(jq -c '.pfc // []' "$ROOT/dcb/$PF0.json")" = "[]" ]
check "PF rolled back: no DSCP entries" [ "$(jq '[(.app // [])[] | select(.selector == 5)] | length' "$ROOT/dcb/$PF0.json")" = 0 ]
check "ECN rolled back" [ "$(cat "$ROOT/sys/class/net/$PF0/ecn/roce_np/enable/3")" = 0 ]
rmdir "$TOSF"; mv "$TOSF.real" "$TOSF"; chmod 0644 "$TOSF"

echo "== 32 parallel ADDs for 32 VFs of one PF"
ROOT2=$T/node32
"$MKNODE" --root "$ROOT2" --pfs 1 --vfs 32 --numa-nodes 1 --rdma configfs --ecn yes --dcb yes \
	--pf-prefix pp$$ > /dev/null
mapfile -t PVFS < <(sim_vfs "$ROOT2" | awk '{print $2}')
PPF=$(sim_vfs "$ROOT2" | awk 'NR==1 {print $1}')
PPFPCI=$(basename "$(readlink -f "$ROOT2/sys/class/net/$PPF/device")")
mkdir -p "$T/par"
for i in $(seq 0 31); do
	(conf_for roce 1.0.0 "$(rq "${PVFS[$i]}")" '{"cniVersion":"1.0.0","interfaces":[{"name":"net1","sandbox":"/x"}]}' | \
		RDMA_QOS_SIM_ROOT=$ROOT2 run_plugin "$SIM" ADD "par$i" /proc/self/ns/net net1 "$ARGS_OK" > "$T/par/$i.out" 2>&1; echo $? > "$T/par/$i.rc") &
done
wait
okc=$(cat "$T"/par/*.rc | grep -c '^0$')
check "32 parallel ADDs all succeed ($okc/32)" [ "$okc" = 32 ]
check "PF configured: pfc [3]" [ "$(jq -c .pfc "$ROOT2/dcb/$PPF.json")" = "[3]" ]
W=$(dcb_writes "$ROOT2" "$PPF")
check "PF configured once: writes $W = one ADD's worth (<= 5 SETs)" [ "$W" -ge 1 -a "$W" -le 5 ]
check "32 records" [ "$(ls "$ROOT2/run/rdma-qos/state/" | grep -c '\.json$')" = 32 ]
check "PF index lists 32 attachments" [ "$(jq '.attachments | length' "$ROOT2/run/rdma-qos/state/pf/$PPFPCI.json")" = 32 ]
for i in $(seq 0 31); do
	conf_for roce 1.0.0 "$(rq "${PVFS[$i]}")" | RDMA_QOS_SIM_ROOT=$ROOT2 run_plugin "$SIM" DEL "par$i" "" net1 "$ARGS_OK" || true
done
check "all parallel attachments deleted" [ "$(ls "$ROOT2/run/rdma-qos/state/" | grep -c '\.json$')" = 0 ]
check "PF index removed with the last attachment" [ ! -e "$ROOT2/run/rdma-qos/state/pf/$PPFPCI.json" ]

echo "== lock timeout gives error 11"
mkdir -p "$ROOT/run/rdma-qos/locks"
exec 9> "$ROOT/run/rdma-qos/locks/$PF0PCI.lock"
flock 9
msg=$(conf_for roce 1.0.0 "$(rq "$VF0PCI")" '{"cniVersion":"1.0.0","interfaces":[]}' | \
	RDMA_QOS_SIM_ROOT=$ROOT RDMA_QOS_SIM_LOCK_TIMEOUT_MS=300 run_plugin "$SIM" ADD lk /proc/self/ns/net net1 "$ARGS_OK")
check "locked PF: code 11" [ "$(jq .code <<< "$msg")" = 11 ]
exec 9>&-

echo "== error codes"
err_code() { jq -r .code 2>/dev/null <<< "$1"; }
msg=$(echo '{"cniVersion":"1.0.0","name":"x","type":"rdma-qos",' | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD e1 /proc/self/ns/net net1 "")
check "malformed JSON: code 6" [ "$(err_code "$msg")" = 6 ]
msg=$(echo '{"cniVersion":"9.9.9","name":"x","type":"rdma-qos"}' | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD e1 /proc/self/ns/net net1 "")
check "unsupported version: code 1" [ "$(err_code "$msg")" = 1 ]
msg=$(conf_for x 1.0.0 '{"type":"rdma-qos","qos":{"pfc":[9]}}' '{}' | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD e1 /proc/self/ns/net net1 "")
check "out-of-range priority: code 7 naming qos.pfc[0]" [ "$(err_code "$msg")" = 7 ]
check "... the message names qos.pfc[0]" grep -q 'qos.pfc\[0\]' <<< "$msg"
msg=$(conf_for x 1.0.0 '{"type":"rdma-qos","numa":7}' '{}' | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD e1 /proc/self/ns/net net1 "")
check "wrong type: code 7 naming numa" [ "$(err_code "$msg")" = 7 ]
check "... the message names numa" grep -q '"msg".*numa' <<< "$msg"
msg=$(conf_for x 1.0.0 "$(rq "$VF0PCI")" | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD e1 /proc/self/ns/net net1 "")
check "ADD without prevResult: code 7 naming prevResult" [ "$(err_code "$msg")" = 7 ]
check "... the message names prevResult" grep -q prevResult <<< "$msg"
msg=$(conf_for x 1.0.0 "$(rq "$VF0PCI" '"profile":"nope"')" '{}' | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD e1 /proc/self/ns/net net1 "")
check "unknown profile: code 7 naming profile" [ "$(err_code "$msg")" = 7 ]
check "... the message names the profile" grep -q 'nope' <<< "$msg"
msg=$(conf_for x 1.0.0 "$(rq 0000:ee:00.1)" '{}' | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD e1 /proc/self/ns/net net1 "")
check "VF not found: code 104" [ "$(err_code "$msg")" = 104 ]
msg=$(conf_for x 1.0.0 "$(rq "$VF0PCI")" '{}' | CNI_COMMAND=ADD CNI_CONTAINERID=e1 CNI_IFNAME=net1 CNI_PATH=/x RDMA_QOS_SIM_ROOT=$ROOT "$SIM")
check "missing CNI_NETNS: code 4" [ "$(err_code "$msg")" = 4 ]
rm "$ROOT/dcb/$PF1.json"
msg=$(conf_for x 1.0.0 "$(rq "$VF4PCI")" '{}' | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD e1 /proc/self/ns/net net1 "")
check "no DCB on PF: code 100 naming the PF" [ "$(err_code "$msg")" = 100 ]
check "... the message names the PF" grep -q "no DCB on PF $PF1" <<< "$msg"
echo '{"writes":0}' > "$ROOT/dcb/$PF1.json"
msg=$(conf_for x 1.0.0 "$(rq "$VF4PCI" '"pf":"verify"')" '{}' | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD e1 /proc/self/ns/net net1 "")
check "pf verify on an unconfigured PF: code 105" [ "$(err_code "$msg")" = 105 ]
check "pf verify wrote nothing" [ "$(dcb_writes "$ROOT" "$PF1")" = 0 ]
mkdir -p "$ROOT/etc/cni/rdma-qos"
echo '{"profiles":{},"namespaces":{"*":{"default":"roce-lossless","allow":["roce-lossless"]}},"node":{"pf":"verify"}}' > "$ROOT/etc/cni/rdma-qos/profiles.json"
msg=$(conf_for x 1.0.0 "$(rq "$VF4PCI" '"pf":"ensure"')" '{}' | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD e1 /proc/self/ns/net net1 "")
check "pf ensure beyond node policy: code 101" [ "$(err_code "$msg")" = 101 ]
msg=$(conf_for x 1.0.0 "$(rq "$VF4PCI" '"qos":{"pfc":[3]}')" '{}' | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD e1 /proc/self/ns/net net1 "")
check "inline qos not allowed: code 101" [ "$(err_code "$msg")" = 101 ]
rm -f "$ROOT/etc/cni/rdma-qos/profiles.json"
check "no records left by failed ADDs" [ "$(recs)" = 0 ]

echo "== a hardware VF LAG: both ports get the PF settings (legacy bonds: tests/agent/bond.sh)"
RB=$T/bond
"$MKNODE" --root "$RB" --pfs 2 --vfs 2 --numa-nodes 1 --rdma mofed --ecn no --dcb yes --vf-lag --pf-prefix bd$$ > /dev/null
BVF=$(sim_vfs "$RB" | awk 'NR == 1 { print $2 }')
out=$(conf_for roce 1.0.0 "$(rq "$BVF" '"numa":"off"')" '{"cniVersion":"1.0.0","interfaces":[]}' | \
	RDMA_QOS_SIM_ROOT=$RB run_plugin "$SIM" ADD b1 /proc/self/ns/net net1 "$ARGS_OK" 2> "$T/bond.log")
check "ADD on a VF LAG's VF succeeds" [ $? -eq 0 ]
check "bond slave 1 has pfc [3]" [ "$(jq -c .pfc "$RB/dcb/bd$$""0.json")" = "[3]" ]
check "bond slave 2 has pfc [3]" [ "$(jq -c .pfc "$RB/dcb/bd$$""1.json")" = "[3]" ]
check "record lists both PFs" [ "$(jq '.pfs | length' "$RB/run/rdma-qos/state/roce_b1_net1.json")" = 2 ]
check "MOFED traffic_class written" [ "$(cat "$RB/sys/class/infiniband/$(ls "$RB/sys/bus/pci/devices/$BVF/infiniband")/tc/1/traffic_class")" = 106 ]
check "ECN absent and not required: warned" grep -q 'has no ECN control' "$T/bond.log"
msg=$(conf_for roce 1.0.0 "$(rq "$BVF" '"numa":"off","qos":{"ecnRequired":true}')" '{"cniVersion":"1.0.0","interfaces":[]}' | \
	RDMA_QOS_SIM_ROOT=$RB run_plugin "$SIM" ADD b2 /proc/self/ns/net net1 "$ARGS_OK" 2>/dev/null)
check "inline qos without a catalog is refused (101)" [ "$(jq .code <<< "$msg")" = 101 ]
mkdir -p "$RB/etc/cni/rdma-qos"
echo '{"profiles":{"strict-ecn":{"ecn":[3],"ecnRequired":true}},"namespaces":{"*":{"default":"strict-ecn","allow":["strict-ecn","roce-lossless"]}}}' > "$RB/etc/cni/rdma-qos/profiles.json"
msg=$(conf_for roce 1.0.0 "$(rq "$(sim_vfs "$RB" | awk 'NR == 2 { print $2 }')" '"numa":"off"')" '{"cniVersion":"1.0.0","interfaces":[]}' | \
	RDMA_QOS_SIM_ROOT=$RB run_plugin "$SIM" ADD b3 /proc/self/ns/net net1 "$ARGS_OK" 2>/dev/null)
check "ecnRequired without ECN control: code 107" [ "$(jq .code <<< "$msg")" = 107 ]

echo "== a plain NIC (no physfn): the PF part is skipped with a warning"
PN=0000:e0:00.0
mkdir -p "$RB/sys/devices/pci0000:00/$PN/infiniband/mlx5_99" "$RB/sys/class/infiniband"
ln -s "../../../devices/pci0000:00/$PN" "$RB/sys/bus/pci/devices/$PN"
ln -s "../../devices/pci0000:00/$PN/infiniband/mlx5_99" "$RB/sys/class/infiniband/mlx5_99"
mkdir -p "$RB/sys/class/infiniband/mlx5_99/tc/1" && : > "$RB/sys/class/infiniband/mlx5_99/tc/1/traffic_class"
echo -1 > "$RB/sys/devices/pci0000:00/$PN/numa_node"
rm -f "$RB/etc/cni/rdma-qos/profiles.json"
# its netdev: a veth host-device moves into the pod (the sim maps it back by alias)
PNDEV=rqpn$$
ip link add "$PNDEV" type veth peer name "${PNDEV}p"
mkdir -p "$RB/sys/devices/pci0000:00/$PN/net/$PNDEV"
ln -s "../../../$PN" "$RB/sys/devices/pci0000:00/$PN/net/$PNDEV/device"
ln -s "../../devices/pci0000:00/$PN/net/$PNDEV" "$RB/sys/class/net/$PNDEV"
msg=$(conf_for roce 1.0.0 "$(rq "$PN")" '{"cniVersion":"1.0.0","interfaces":[]}' | \
	RDMA_QOS_SIM_ROOT=$RB run_plugin "$SIM" ADD p0 /proc/self/ns/net net1 "$ARGS_OK" 2>/dev/null)
check "plain NIC named by deviceID alone (not the pod's interface): code 110" \
	[ "$(jq .code <<< "$msg")" = 110 ]
check "... and its ToS untouched" [ -z "$(cat "$RB/sys/class/infiniband/mlx5_99/tc/1/traffic_class")" ]
NSP=$(newns plain)
chain_add "$RB" roce p1 "$NSP" net1 "$PNDEV" "$(rq "$PN")" "$ARGS_OK" > /dev/null 2> "$T/plain.log"
check "plain NIC: ADD succeeds" [ $? -eq 0 ]
check "plain NIC: PF part skipped with a warning" grep -q 'has no physfn' "$T/plain.log"
check "plain NIC: ToS still set" [ "$(cat "$RB/sys/class/infiniband/mlx5_99/tc/1/traffic_class")" = 106 ]
check "plain NIC: unknown NUMA logged, not failed" grep -q 'NUMA placement unknown' "$T/plain.log"

echo "== the remaining documented error codes"
msg=$(conf_for roce 1.0.0 "$(rq "$VF0PCI")" '{"cniVersion":"1.0.0","interfaces":[]}' | \
	RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" CHECK nobody /proc/self/ns/net net1 "$ARGS_OK" 2>/dev/null)
check "CHECK without a record: code 3" [ "$(jq .code <<< "$msg")" = 3 ]
msg=$(head -c 1100000 /dev/zero | tr '\0' ' ' | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD big /proc/self/ns/net net1 "" 2>/dev/null)
check "stdin over 1 MiB: code 5" [ "$(jq .code <<< "$msg")" = 5 ]
echo '{"writes": 0, "dcbxLocked": true}' > "$ROOT/dcb/$PF1.json"
msg=$(conf_for roce 1.0.0 "$(rq "$VF4PCI" '"numa":"off"')" '{"cniVersion":"1.0.0","interfaces":[]}' | \
	RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD lk1 /proc/self/ns/net net1 "$ARGS_OK" 2>/dev/null)
check "DCBX owned by firmware: code 106" [ "$(jq .code <<< "$msg")" = 106 ]
check "DCBX locked message suggests pf: verify" grep -q 'pf: verify' <<< "$(jq -r .msg <<< "$msg")"
check "DCBX locked: nothing written" [ "$(dcb_writes "$ROOT" "$PF1")" = 0 ]
# mlx5 in firmware DCBX mode: getdcbx says VER_CEE|VER_IEEE without HOST, and its setters do not refuse
add_pf1() {   # CID [RQCONF-EXTRA] -> the plugin's output; its rc
	conf_for roce 1.0.0 "$(rq "$VF4PCI" "\"numa\":\"off\"${2:+,$2}")" '{"cniVersion":"1.0.0","interfaces":[]}' | \
		RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD "$1" /proc/self/ns/net net1 "$ARGS_OK"
}
del_pf1() { conf_for roce 1.0.0 "$(rq "$VF4PCI")" | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" DEL "$1" /proc/self/ns/net net1 "$ARGS_OK"; }
echo '{"writes": 0, "dcbx": 12}' > "$ROOT/dcb/$PF1.json"
msg=$(add_pf1 fw1 2>/dev/null)
check "firmware DCBX (no HOST bit), pf ensure, port lacks: code 106" [ "$(jq .code <<< "$msg")" = 106 ]
check "firmware DCBX: nothing written" [ "$(dcb_writes "$ROOT" "$PF1")" = 0 ]
msg=$(add_pf1 fw1 '"pf":"verify"' 2>/dev/null)
check "firmware DCBX, pf verify, port lacks: code 105" [ "$(jq .code <<< "$msg")" = 105 ]
check "... naming what is required" grep -q 'pfc: required priority 3, port has none' <<< "$(jq -r .msg <<< "$msg")"
echo '{"writes": 0}' > "$ROOT/dcb/$PF1.json"
add_pf1 fw1 > /dev/null 2>&1 && del_pf1 fw1 2> /dev/null
jq '.dcbx = 12 | .writes = 0' "$ROOT/dcb/$PF1.json" > "$T/d" && cp "$T/d" "$ROOT/dcb/$PF1.json"
add_pf1 fw2 '"pf":"verify"' > /dev/null 2>&1
check "firmware DCBX, pf verify, port already right: ADD succeeds" [ $? -eq 0 ]
del_pf1 fw2 2> /dev/null
add_pf1 fw3 > /dev/null 2>&1
rc=$?
check "firmware DCBX, pf ensure, port already right: ADD succeeds, nothing written" \
	[ $rc -eq 0 ]
check "... nothing written (0 DCB writes)" [ "$(dcb_writes "$ROOT" "$PF1")" = 0 ]
del_pf1 fw3 2> /dev/null
# mlx5 toggles the port link on a PFC change: ADD returns once the carrier is back
echo '{"writes": 0, "flapMs": 700}' > "$ROOT/dcb/$PF1.json"
echo 1 > "$ROOT/sys/class/net/$PF1/carrier"; echo 0 > "$ROOT/sys/class/net/$PF1/carrier_changes"
t0=$(date +%s%N)
add_pf1 cw1 > /dev/null 2> "$T/cw.log"
rc=$? ms=$((($(date +%s%N) - t0) / 1000000))
check "PFC change with a link flap: ADD succeeds" [ $rc -eq 0 ]
check "... after the carrier came back (${ms} ms >= 700)" [ "$ms" -ge 700 ]
check "... the carrier is up when ADD returns" [ "$(cat "$ROOT/sys/class/net/$PF1/carrier")" = 1 ]
check "... the wait is logged in ms" grep -Eq "PF $PF1 carrier up [0-9]+ ms after the PFC change" "$T/cw.log"
del_pf1 cw1 2> /dev/null
mkdir -p "$ROOT/etc/cni/rdma-qos"
echo '{"namespaces": {"*": {"default": "roce-lossless", "allow": ["roce-lossless"]}}, "node": {"carrierWaitSeconds": 1}}' > "$ROOT/etc/cni/rdma-qos/profiles.json"
echo '{"writes": 0, "flapMs": 2500}' > "$ROOT/dcb/$PF1.json"
msg=$(add_pf1 cw2 2>/dev/null)
check "carrier not back within node.carrierWaitSeconds: code 112" [ "$(jq .code <<< "$msg")" = 112 ]
check "... the message says the carrier did not come back" grep -q 'carrier did not come back within 1 s' <<< "$(jq -r .msg <<< "$msg")"
check "... the PF is put back as found (PFC off)" [ "$(jq -c '.pfc // []' "$ROOT/dcb/$PF1.json")" = "[]" ]
rm -f "$ROOT/etc/cni/rdma-qos/profiles.json" "$ROOT/sys/class/net/$PF1/carrier" "$ROOT/sys/class/net/$PF1/carrier_changes"
# two ADDs on one PF at once, the first changes PFC and the carrier comes back late (2.5 s):
# the first waits for it without the PF lock, so the second (lock wait bounded to 1 s) is not
# held out with error 11
read -r _ VF5PCI _ <<< "${VFS[5]}"
rm -f "$ROOT/etc/cni/rdma-qos/profiles.json"
echo '{"writes": 0, "flapMs": 2500}' > "$ROOT/dcb/$PF1.json"
echo 1 > "$ROOT/sys/class/net/$PF1/carrier"; echo 0 > "$ROOT/sys/class/net/$PF1/carrier_changes"
t0=$(date +%s%N)
add_pf1 cw3 > "$T/cw3.out" 2> "$T/cw3.log" &
CW3=$!
for _ in $(seq 100); do [ "$(cat "$ROOT/sys/class/net/$PF1/carrier")" = 0 ] && break; sleep 0.02; done
msg=$(conf_for roce 1.0.0 "$(rq "$VF5PCI" '"numa":"off"')" '{"cniVersion":"1.0.0","interfaces":[]}' | \
	RDMA_QOS_SIM_LOCK_TIMEOUT_MS=1000 RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD cw4 /proc/self/ns/net net1 "$ARGS_OK" 2> "$T/cw4.log")
rc4=$?
wait "$CW3"; rc3=$? ms=$((($(date +%s%N) - t0) / 1000000))
check "concurrent ADDs, the first flapping the port: the second is not held out (rc $rc4, $(jq -c .code <<< "$msg" 2>/dev/null))" [ $rc4 -eq 0 ]
check "... the first succeeds after the carrier came back (${ms} ms >= 2500)" [ $rc3 -eq 0 ]
check "... after at least 2500 ms (${ms} ms)" [ "$ms" -ge 2500 ]
check "... PFC written once" [ "$(jq -c '.pfc' "$ROOT/dcb/$PF1.json")" = "[3]" ]
# one first ADD's SETs (trust, PFC, APP: $W1 on PF0 above); the second ADD writes nothing
check "... the PF written as by one ADD: at most $W1 DCB writes (got $(dcb_writes "$ROOT" "$PF1"))" [ "$(dcb_writes "$ROOT" "$PF1")" -le "$W1" ]
check "... both listed in the PF index" [ "$(cat "$ROOT"/run/rdma-qos/state/pf/*.json | grep -o '"key"' | wc -l)" -ge 2 ]
check "... cw3 in the PF index" grep -q cw3 "$ROOT"/run/rdma-qos/state/pf/*.json
check "... cw4 in the PF index" grep -q cw4 "$ROOT"/run/rdma-qos/state/pf/*.json
del_pf1 cw3 2> /dev/null
conf_for roce 1.0.0 "$(rq "$VF5PCI")" | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" DEL cw4 /proc/self/ns/net net1 "$ARGS_OK" 2> /dev/null
echo '{"writes": 0}' > "$ROOT/dcb/$PF1.json"
mv "$ROOT/sys/kernel/config/rdma_cm" "$ROOT/sys/kernel/config/rdma_cm.off"
msg=$(conf_for roce 1.0.0 "$(rq "$VF4PCI" '"numa":"off"')" '{"cniVersion":"1.0.0","interfaces":[]}' | \
	RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD nt1 /proc/self/ns/net net1 "$ARGS_OK" 2>/dev/null)
check "rdma_cm not loaded: code 108" [ "$(jq .code <<< "$msg")" = 108 ] || echo "ADD said: $msg"
check "no ToS message says rdma_cm is not loaded" grep -q 'rdma_cm is not loaded' <<< "$(jq -r .msg <<< "$msg")"
check "no ToS: found before the PF was touched (0 writes)" [ "$(dcb_writes "$ROOT" "$PF1")" = 0 ]
mv "$ROOT/sys/kernel/config/rdma_cm.off" "$ROOT/sys/kernel/config/rdma_cm"
check "no records left by these failures" [ "$(recs)" = 0 ]

echo "== node scale: kubelet state past its bound, a catalog with a bad entry elsewhere"
# a device checkpoint past the 64 MiB bound (sparse): refused evidence, not absent evidence
KCK=$ROOT/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint
cp "$KCK" "$T/kck.saved"
printf '{"Data":{"PodDeviceEntries":["' > "$KCK" && truncate -s 65M "$KCK"
msg=$(conf_for roce 1.0.0 "$(rq "$VF0PCI" '"numa":"strict"')" '{"cniVersion":"1.0.0","interfaces":[]}' | \
	RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD u1 /proc/self/ns/net net1 "$ARGS_OK")
check "kubelet file past its bound, numa strict: code 103" [ "$(err_code "$msg")" = 103 ]
check "... the message says the placement cannot be verified and why" \
	grep -q 'cannot be verified.*kubelet_internal_checkpoint is unreadable: over the memory-safety bound' <<< "$(jq -r .msg <<< "$msg")"
check "... no record left" [ "$(recs)" = 0 ]
conf_for roce 1.0.0 "$(rq "$VF0PCI" '"numa":"warn"')" '{"cniVersion":"1.0.0","interfaces":[]}' | \
	RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD u1 /proc/self/ns/net net1 "$ARGS_OK" > /dev/null 2> "$T/u1.log"
check "... numa warn: ADD succeeds and logs it" grep -q 'NUMA placement not verified' "$T/u1.log"
check "... the record says unverifiable" [ "$(jq -r .numaVerdict "$ROOT/run/rdma-qos/state/roce_u1_net1.json")" = unverifiable ]
conf_for roce 1.0.0 "$(rq "$VF0PCI")" | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" DEL u1 "" net1 "$ARGS_OK"
cp "$T/kck.saved" "$KCK"
# ADD validates what it uses: another namespace's broken profile does not stop this pod
mkdir -p "$ROOT/etc/cni/rdma-qos"
echo '{"profiles":{"broken":{"pfc":[9]}},"namespaces":{"ai":{"default":"roce-lossless","allow":["roce-lossless"]},"lab":{"default":"broken","allow":["broken"]}}}' \
	> "$ROOT/etc/cni/rdma-qos/profiles.json"
conf_for roce 1.0.0 "$(rq "$VF0PCI" '"numa":"off"')" '{"cniVersion":"1.0.0","interfaces":[]}' | \
	RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD k1 /proc/self/ns/net net1 "$ARGS_OK" > /dev/null 2>&1
check "catalog with a bad entry of another namespace: this namespace's ADD succeeds" [ $? -eq 0 ]
msg=$(conf_for roce 1.0.0 "$(rq "$VF1PCI" '"numa":"off"')" '{"cniVersion":"1.0.0","interfaces":[]}' | \
	RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD k2 /proc/self/ns/net net1 "IgnoreUnknown=1;K8S_POD_NAMESPACE=lab")
check "... the namespace using it fails: code 7 naming the JSON path" \
	grep -q 'profiles.broken.pfc\[0\]' <<< "$(jq -r 'select(.code == 7) | .msg' <<< "$msg")"
msg=$(printf '{"cniVersion":"1.1.0","name":"roce","type":"rdma-qos"}' | CNI_COMMAND=STATUS RDMA_QOS_SIM_ROOT=$ROOT "$SIM")
check "... and STATUS (the whole catalog): code 50" [ "$(err_code "$msg")" = 50 ]
conf_for roce 1.0.0 "$(rq "$VF0PCI")" | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" DEL k1 "" net1 "$ARGS_OK"
rm -f "$ROOT/etc/cni/rdma-qos/profiles.json"
# an observability section (node.wiring) in error never fails an ADD (issue 49 item 13)
echo '{"profiles":{},"namespaces":{"ai":{"default":"roce-lossless","allow":["roce-lossless"]}},"node":{"wiring":[{"pf":"*","partner":"leaf-r1-[","rail":"r1"}]}}' \
	> "$ROOT/etc/cni/rdma-qos/profiles.json"
msg=$(conf_for roce 1.0.0 "$(rq "$VF0PCI" '"numa":"off"')" '{"cniVersion":"1.0.0","interfaces":[]}' | \
	RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD w1 /proc/self/ns/net net1 "$ARGS_OK" 2> "$T/w1.log")
check "a bad node.wiring glob: ADD succeeds (no error 7)" [ "$(err_code "$msg")" = null ]
check "... the record is written" [ -f "$ROOT/run/rdma-qos/state/roce_w1_net1.json" ]
check "... and ADD logs the section it ignored" grep -q 'node.wiring\[0\].partner.*ignored' "$T/w1.log"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" validate "$ROOT/etc/cni/rdma-qos/profiles.json" > /dev/null 2>&1
check "... validate still exits 1 on it" [ $? -eq 1 ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --once --metrics-file "$T/w.prom" 2> "$T/w.log"
check "... the agent runs its pass and reads rdma_qos_catalog_valid 0" \
	[ "$(awk '$1 == "rdma_qos_catalog_valid" { print $2 }' "$T/w.prom")" = 0 ]
check "... and keeps the rest of the catalog (the record is not orphaned)" [ -f "$ROOT/run/rdma-qos/state/roce_w1_net1.json" ]
conf_for roce 1.0.0 "$(rq "$VF0PCI")" | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" DEL w1 "" net1 "$ARGS_OK"
rm -f "$ROOT/etc/cni/rdma-qos/profiles.json"

echo "== STATUS, GC, VERSION"
printf '{"cniVersion":"1.1.0","name":"roce","type":"rdma-qos"}' | CNI_COMMAND=STATUS RDMA_QOS_SIM_ROOT=$ROOT "$SIM"
check "STATUS ready" [ $? -eq 0 ]
mkdir -p "$ROOT/etc/cni/rdma-qos"; echo '{broken' > "$ROOT/etc/cni/rdma-qos/profiles.json"
msg=$(printf '{"cniVersion":"1.1.0","name":"roce","type":"rdma-qos"}' | CNI_COMMAND=STATUS RDMA_QOS_SIM_ROOT=$ROOT "$SIM")
check "STATUS with a broken catalog: code 50" [ "$(err_code "$msg")" = 50 ]
rm -f "$ROOT/etc/cni/rdma-qos/profiles.json"
# Debian's host-device (1.1.1) speaks up to 1.0.0: drive ours alone at 1.1.0
conf_for roce 1.1.0 "$(rq "$VF0PCI")" '{"cniVersion":"1.1.0","interfaces":[{"name":"net1","sandbox":"/run/netns/x"}]}' | \
	RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD g1 /proc/self/ns/net net1 "$ARGS_OK" > "$T/g1.out"
check "1.1.0 ADD fills interfaces[].pciID" [ "$(jq -r '.interfaces[] | select(.name == "net1") | .pciID' "$T/g1.out")" = "$VF0PCI" ]
conf_for roce 1.1.0 "$(rq "$VF1PCI")" '{"cniVersion":"1.1.0","interfaces":[]}' | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD g2 /proc/self/ns/net net1 "$ARGS_OK" > /dev/null
check "two records before GC" [ "$(recs)" = 2 ]
printf '{"cniVersion":"1.1.0","name":"roce","type":"rdma-qos","cni.dev/valid-attachments":[{"containerID":"g1","ifname":"net1"}]}' | \
	CNI_COMMAND=GC CNI_PATH=/x RDMA_QOS_SIM_ROOT=$ROOT "$SIM"
check "GC succeeds" [ $? -eq 0 ]
check "GC kept one record" [ "$(recs)" = 1 ]
check "... the valid attachment's" [ -f "$ROOT/run/rdma-qos/state/roce_g1_net1.json" ]
conf_for roce 1.1.0 "$(rq "$VF0PCI")" | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" DEL g1 "" net1 "$ARGS_OK"
check "records empty after GC + DEL" [ "$(recs)" = 0 ]
v=$(echo '{"cniVersion":"1.0.0"}' | CNI_COMMAND=VERSION "$SIM")
check "VERSION lists five versions" [ "$(jq -c .supportedVersions <<< "$v")" = '["0.3.0","0.3.1","0.4.0","1.0.0","1.1.0"]' ]

echo "== deviceID must be the pod's own device"
NSX=$(newns x)
msg=$(chain_add "$ROOT" roce x1 "$NSX" net1 "$VF2" "$(rq "$VF3PCI")" "$ARGS_OK")
check "deviceID of another VF than the pod's interface: code 110" [ "$(jq .code <<< "$msg")" = 110 ]
check "... the message names both devices" grep -q "$VF3PCI.*$VF2PCI" <<< "$(jq -r .msg <<< "$msg")"
check "... the named VF's ToS untouched" [ "$(tos_of "$VF3PCI")" = 0 ]
check "... no record" [ "$(recs)" = 0 ]

echo "== a VF a live attachment holds is not another's; after a lost DEL it is taken over"
NSH=$(newns h); NSI=$(newns i)
out=$(chain_add "$ROOT" roce h1 "$NSH" net1 "$VF2" "$(rq "$VF2PCI")" "$ARGS_OK")
check "holder ADD" [ $? -eq 0 ]
msg=$(conf_for evil 1.0.0 "$(rq "$VF2PCI")" '{"cniVersion":"1.0.0","interfaces":[]}' | \
	RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD e1 "$NSI" net1 "$ARGS_OK" 2>/dev/null)
check "another network's NAD naming the held VF: code 110" [ "$(jq .code <<< "$msg")" = 110 ]
check "... the message names the holder" grep -q 'ai/p-ok' <<< "$(jq -r .msg <<< "$msg")"
check "... one record (the holder's)" [ "$(recs)" = 1 ]
pod_netns_gone "${NSH#/run/netns/}"   # the pod went away without a DEL (its veth VF with it)
sim_make_vfs "$ROOT"
NSJ=$(newns j)
out=$(chain_add "$ROOT" roce h2 "$NSJ" net1 "$VF2" "$(rq "$VF2PCI")" "$ARGS_OK" 2> "$T/over.log")
check "after a lost DEL the next pod takes the VF over" [ $? -eq 0 ]
check "... saying so" grep -q "taking it over" "$T/over.log"
conf_for roce 1.0.0 "$(rq "$VF2PCI")" | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" DEL h1 "" net1 "$ARGS_OK" 2> "$T/late.log"
check "the late DEL of the old attachment succeeds" [ $? -eq 0 ]
check "... and leaves the new holder's ToS (106)" [ "$(tos_of "$VF2PCI")" = 106 ]
chain_check "$ROOT" roce h2 "$NSJ" net1 "$VF2" "$(rq "$VF2PCI")" "$ARGS_OK" "$out" > /dev/null 2>&1
check "the new holder's CHECK passes" [ $? -eq 0 ]
chain_del "$ROOT" roce h2 "$NSJ" net1 "$VF2" "$(rq "$VF2PCI")" "$ARGS_OK"
check "its DEL puts back the ToS from before the lost attachment (0)" [ "$(tos_of "$VF2PCI")" = 0 ]
check "no records left" [ "$(recs)" = 0 ]
# the holder's pod is still there, but only host-device's DEL reached it: the VF left it
NSK=$(newns k); NSL=$(newns l)
out=$(chain_add "$ROOT" roce k1 "$NSK" net1 "$VF2" "$(rq "$VF2PCI")" "$ARGS_OK")
conf_for roce 1.0.0 '{"type":"host-device","device":"'"$VF2"'"}' | \
	run_plugin "$HOSTDEV" DEL k1 "$NSK" net1 "$ARGS_OK" > /dev/null
out=$(chain_add "$ROOT" roce l1 "$NSL" net1 "$VF2" "$(rq "$VF2PCI")" "$ARGS_OK" 2> "$T/over2.log")
check "a VF the pod's interface shows is taken over from a live pod that no longer has it" \
	[ $? -eq 0 ]
check "... saying so" grep -q "taking it over" "$T/over2.log"
conf_for roce 1.0.0 "$(rq "$VF2PCI")" | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" DEL k1 "$NSK" net1 "$ARGS_OK"
chain_del "$ROOT" roce l1 "$NSL" net1 "$VF2" "$(rq "$VF2PCI")" "$ARGS_OK"
check "... both DELs leave the ToS as before the first ADD (0)" [ "$(tos_of "$VF2PCI")" = 0 ]
check "... and no record" [ "$(recs)" = 0 ]

echo "== a failed ADD whose own PF index entry is already written rolls the PF back"
echo '{"writes": 0}' > "$ROOT/dcb/$PF0.json"
mkdir "$ROOT/run/rdma-qos/state/roce_r1_net1.json"   # the record cannot be written
NSR=$(newns r)
msg=$(chain_add "$ROOT" roce r1 "$NSR" net1 "$VF2" "$(rq "$VF2PCI")" "$ARGS_OK")
check "record write fails: code 5" [ "$(jq .code <<< "$msg")" = 5 ]
check "... PF rolled back (pfc empty)" [ "$(jq -c '.pfc // []' "$ROOT/dcb/$PF0.json")" = "[]" ]
check "... no PF index left" [ ! -e "$ROOT/run/rdma-qos/state/pf/$PF0PCI.json" ]
check "... VF ToS back to 0" [ "$(tos_of "$VF2PCI")" = 0 ]
rmdir "$ROOT/run/rdma-qos/state/roce_r1_net1.json"
out=$(chain_add "$ROOT" roce r1 "$NSR" net1 "$VF2" "$(rq "$VF2PCI")" "$ARGS_OK")
check "... and the same ADD succeeds once the record can be written" [ $? -eq 0 ]
chain_del "$ROOT" roce r1 "$NSR" net1 "$VF2" "$(rq "$VF2PCI")" "$ARGS_OK"

echo "== a failed repeated ADD leaves the attachment listed on its PF"
mkdir -p "$ROOT/etc/cni/rdma-qos"
cat > "$ROOT/etc/cni/rdma-qos/profiles.json" <<'JSON'
{"profiles": {"x": {"trafficClass": 106}, "y": {"trafficClass": 96}},
 "namespaces": {"ai": {"default": "x", "allow": ["x", "y"]}}}
JSON
NSQ=$(newns q)
out=$(chain_add "$ROOT" roce q1 "$NSQ" net1 "$VF2" "$(rq "$VF2PCI")" "$ARGS_OK")
check "attachment with profile x" [ $? -eq 0 ]
REC="$ROOT/run/rdma-qos/state/roce_q1_net1.json"
IDX="$ROOT/run/rdma-qos/state/pf/$PF0PCI.json"
mv "$REC" "$T/q1.rec"; mkdir "$REC"; : > "$REC/busy"   # the record cannot be replaced
msg=$(conf_for roce 1.0.0 "$(rq "$VF2PCI" '"profile":"y"')" "$out" | \
	RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD q1 "$NSQ" net1 "$ARGS_OK" 2>/dev/null)
check "repeated ADD with profile y fails writing the record: code 5" [ "$(jq .code <<< "$msg")" = 5 ]
check "... the PF index still lists the attachment, with profile x" \
	[ "$(jq -r '[.attachments[] | .profileName + " " + .key] | join(",")' "$IDX")" = "x roce_q1_net1" ]
check "... the ToS is back at 106" [ "$(tos_of "$VF2PCI")" = 106 ]
rm -rf "$REC"; mv "$T/q1.rec" "$REC"
chain_del "$ROOT" roce q1 "$NSQ" net1 "$VF2" "$(rq "$VF2PCI")" "$ARGS_OK"
check "... and its DEL restores the ToS (0)" [ "$(tos_of "$VF2PCI")" = 0 ]
rm -f "$ROOT/etc/cni/rdma-qos/profiles.json"

echo "== mlx5 DSCP APP semantics (an add replaces the DSCP's entry; deleting it then is ENOENT)"
jq -n '{writes: 0, appReplace: true,
	app: [range(64) | {selector: 5, protocol: ., priority: ((. / 8) | floor)}]}' > "$ROOT/dcb/$PF1.json"
mkdir -p "$ROOT/etc/cni/rdma-qos"
cat > "$ROOT/etc/cni/rdma-qos/profiles.json" <<'JSON'
{"profiles": {"af31p5": {"dscp2prio": {"26": 5}, "pfc": [5], "ecn": [5]}},
 "namespaces": {"ai": {"default": "af31p5", "allow": ["af31p5"]}}}
JSON
NSM=$(newns m)
out=$(chain_add "$ROOT" roce m1 "$NSM" net1 "$VF4" "$(rq "$VF4PCI" '"numa":"off"')" "$ARGS_OK")
check "mlx5 semantics: ADD moving DSCP 26 from prio 3 to 5 succeeds" [ $? -eq 0 ]
check "... DSCP 26 has one entry, prio 5" \
	[ "$(jq -c '[.app[] | select(.selector == 5 and .protocol == 26) | .priority]' "$ROOT/dcb/$PF1.json")" = "[5]" ]
check "... 64 DSCP entries" [ "$(jq '[.app[] | select(.selector == 5)] | length' "$ROOT/dcb/$PF1.json")" = 64 ]
check "... PFC on prio 5" [ "$(jq -c .pfc "$ROOT/dcb/$PF1.json")" = "[5]" ]
w=$(dcb_writes "$ROOT" "$PF1")
conf_for roce 1.0.0 "$(rq "$VF4PCI" '"numa":"off"')" "$out" | \
	RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" ADD m1 "$NSM" net1 "$ARGS_OK" > /dev/null 2>&1
check "... a repeated ADD writes nothing ($w writes)" [ "$(dcb_writes "$ROOT" "$PF1")" = "$w" ]
chain_del "$ROOT" roce m1 "$NSM" net1 "$VF4" "$(rq "$VF4PCI")" "$ARGS_OK"
rm -f "$ROOT/etc/cni/rdma-qos/profiles.json"

echo "== CNI versions and commands"
msg=$(conf_for roce 0.3.1 "$(rq "$VF0PCI")" | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" CHECK v1 /proc/self/ns/net net1 "$ARGS_OK")
check "CHECK at cniVersion 0.3.1: code 1" [ "$(jq .code <<< "$msg")" = 1 ]
msg=$(printf '{"cniVersion":"1.0.0","name":"roce","type":"rdma-qos"}' | CNI_COMMAND=STATUS RDMA_QOS_SIM_ROOT=$ROOT "$SIM")
check "STATUS at cniVersion 1.0.0: code 1" [ "$(jq .code <<< "$msg")" = 1 ]
msg=$(printf '{"cniVersion":"1.1.0","name":"roce","type":"rdma-qos"}' | CNI_COMMAND=GC CNI_PATH=/x RDMA_QOS_SIM_ROOT=$ROOT "$SIM")
check "GC without cni.dev/valid-attachments: code 7 naming it" \
	grep -q 'valid-attachments' <<< "$(jq -r 'select(.code == 7) | .msg' <<< "$msg")"
v=$(echo '{"cniVersion":"1.0.0"}' | CNI_ARGS='garbage' CNI_COMMAND=VERSION "$SIM")
check "VERSION ignores CNI_ARGS" [ "$(jq -r .cniVersion <<< "$v")" = 1.0.0 ]
long=$(printf 'n%.0s' $(seq 300))
conf_for "$long" 1.0.0 "$(rq "$VF0PCI")" | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" DEL c1 "" net1 "$ARGS_OK" 2>/dev/null
check "DEL with a name too long for any record succeeds" [ $? -eq 0 ]
echo '{"cniVersion":"1.0.0","type":"rdma-qos"}' | RDMA_QOS_SIM_ROOT=$ROOT run_plugin "$SIM" DEL c1 "" net1 "$ARGS_OK" 2>/dev/null
check "DEL without a network name succeeds" [ $? -eq 0 ]

echo "== switchdev: the PF netdev is the uplink, never a representor"
RS=$T/swnode
"$MKNODE" --root "$RS" --pfs 1 --vfs 2 --numa-nodes 1 --rdma configfs --ecn yes --dcb yes --switchdev --pf-prefix sw$$ > /dev/null
SWVF=$(basename "$(readlink -f "$RS/sys/class/net/sw$$""0/device/virtfn1")")
msg=$(conf_for roce 1.0.0 "$(rq "$SWVF" '"numa":"off"')" '{"cniVersion":"1.0.0","interfaces":[]}' | \
	RDMA_QOS_SIM_ROOT=$RS run_plugin "$SIM" ADD sw1 /proc/self/ns/net net1 "$ARGS_OK" 2> "$T/sw.log")
check "switchdev: ADD succeeds" [ $? -eq 0 ]
check "switchdev: DCB went to the uplink" [ "$(jq .writes "$RS/dcb/sw$$""0.json")" -gt 0 ]
check "switchdev: no representor was taken for the PF" bash -c "! grep -q 'asw$$' '$T/sw.log'"
RDMA_QOS_SIM_ROOT=$RS "$SIM" show --json > "$T/swshow.json"
check "switchdev: show lists the uplink only" [ "$(jq -c '[.pfs[].name]' "$T/swshow.json")" = "[\"sw$$""0\"]" ]

echo "== show"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --json > "$T/show.json"
check "show --json lists 2 PFs" [ "$(jq '.pfs | length' "$T/show.json")" = 2 ]
check "show reports PF0 pfc [3]" [ "$(jq -c --arg p "$PF0" '.pfs[] | select(.name == $p) | .pfc' "$T/show.json")" = "[3]" ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show | grep -q "PF $PF0"
check "show (text) names the PF" [ $? -eq 0 ]
NSS=$(newns s)
out=$(chain_add "$ROOT" roce s1 "$NSS" net1 "$VF0" "$(rq "$VF0PCI")" "$ARGS_OK")
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --json > "$T/show.json"
check "show: PF0 required is the live attachment's" [ "$(jq -c --arg p "$PF0" '.pfs[] | select(.name == $p) | .required.pfc' "$T/show.json")" = "[3]" ]
check "show: nothing unmet" [ "$(jq -c --arg p "$PF0" '.pfs[] | select(.name == $p) | .unmet' "$T/show.json")" = "[]" ]
jq '.pfc = [4]' "$ROOT/dcb/$PF0.json" > "$T/d" && cp "$T/d" "$ROOT/dcb/$PF0.json"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --json > "$T/show.json"
check "show: a drifted PFC is unmet, in requirements" [ "$(jq -r --arg p "$PF0" '.pfs[] | select(.name == $p) | .unmet[0]' "$T/show.json")" = "pfc: required priority 3, port has 4" ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show | grep -q "required.*NOT MET"
check "show (text): NOT MET" [ $? -eq 0 ]
check "show: the other PF requires nothing" [ "$(jq -c --arg p "$PF1" '.pfs[] | select(.name == $p) | [.required, .unmet]' "$T/show.json")" = "[{},[]]" ]
chain_del "$ROOT" roce s1 "$NSS" net1 "$VF0" "$(rq "$VF0PCI")" "$ARGS_OK"


# the VF's traffic class on its own node (issue 12)
. "$(dirname "$0")/tos.sh"

# NUMA evidence from kubelet's PodResources API (issue 24)
. "$(dirname "$0")/podres.sh"

# what ADD logs: one line when steady, the PF's missing controls where it changes
. "$(dirname "$0")/add_log.sh"

# pods on the PF's own RDMA device through Debian's macvlan plugin (issue 50)
. "$(dirname "$0")/shared.sh"

summary
