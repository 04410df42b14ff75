# SPDX-License-Identifier: Apache-2.0
# Sourced by tests/sim/run.sh (its helpers, counters, $T, newns): the VF's
# traffic class on its own node. Both knobs (MOFED's tc/1/traffic_class in
# its own format, configfs default_roce_tos), MOFED's unset (-1), the scope
# where only configfs exists (tosScope all-qps: 111), a VF bound to vfio-pci
# (no RDMA device), the chain-order error of exclusive RDMA netns mode, an
# mlx5 sub-function deviceID, and a record from before both knobs were kept.

echo "== traffic class: both knobs, scope, vfio, chain order"
RT=$T/tosnode
"$MKNODE" --root "$RT" --pfs 1 --vfs 4 --rdma both --vfio 1 --pf-prefix st$$ --pci-base 90 \
	> "$T/tosnode.txt" || fail "mknode --rdma both --vfio 1"
sim_make_vfs "$RT"
mapfile -t TV < <(sim_vfs "$RT")
read -r TPF TVF0PCI _ <<< "${TV[0]}" # bound to vfio-pci: no netdev, no RDMA device
read -r _ TVF1PCI TVF1 <<< "${TV[1]}"
read -r _ TVF2PCI TVF2 <<< "${TV[2]}"
read -r _ TVF3PCI TVF3 <<< "${TV[3]}"
trdma() { ls "$RT/sys/bus/pci/devices/$1/infiniband" | head -1; }
mofed_f() { echo "$RT/sys/class/infiniband/$(trdma "$1")/tc/1/traffic_class"; }
cfs_f() { echo "$RT/sys/kernel/config/rdma_cm/$(trdma "$1")/ports/1/default_roce_tos"; }
trec() { echo "$RT/run/rdma-qos/state/tos_$1_net1.json"; }
TARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p-tos;K8S_POD_UID=pod-tos"
trq() { echo "{\"type\":\"rdma-qos\",\"deviceID\":\"$1\",\"numa\":\"off\"${2:+,$2}}"; }
tcheck_msg() { chain_check "$RT" tos "$1" "$2" net1 "$3" "$(trq "$4")" "$TARGS" "$5" 2>/dev/null; }

NST1=$(newns t1)
# with a typo ("profle"): ADD goes on (the namespace default), warning with the nearest key
out=$(chain_add "$RT" tos t1 "$NST1" net1 "$TVF1" "$(trq "$TVF1PCI" '"profle":"lossy"')" "$TARGS" \
	2> "$T/t1.log")
check "both knobs: ADD succeeds" [ $? -eq 0 ]
check "... an unknown NAD key: ADD warns, naming it and the nearest known key" grep -qF \
	'profle: unknown key (did you mean "profile"?): ignored' "$T/t1.log"
check "... MOFED tc/1/traffic_class 106" [ "$(cat "$(mofed_f "$TVF1PCI")")" = 106 ]
check "... configfs default_roce_tos 106" [ "$(cat "$(cfs_f "$TVF1PCI")")" = 106 ]
check "... record: MOFED previous -1 (unset), configfs previous 0" \
	[ "$(jq -c '[.rdma.knobs.mofed.previous, .rdma.knobs.configfs.previous]' "$(trec t1)")" = "[-1,0]" ]
check "... record: scope all-qps, both changed" \
	[ "$(jq -r '.rdma.tosScope + " " + ([.rdma.knobs[].changed] | tostring)' "$(trec t1)")" = "all-qps [true,true]" ]
check "... no RDMA-CM-only warning" bash -c "! grep -q 'RDMA-CM connections only' '$T/t1.log'"
tcheck_msg t1 "$NST1" "$TVF1" "$TVF1PCI" "$out" > "$T/t1.chk"
check "... CHECK passes" [ $? -eq 0 -a ! -s "$T/t1.chk" ]
printf 'Global tclass=106\ndst_ip=10.0.0.0/8,tclass=24\n' > "$(mofed_f "$TVF1PCI")"
tcheck_msg t1 "$NST1" "$TVF1" "$TVF1PCI" "$out" > /dev/null
check "MOFED's per-destination rule lines are not the global class (CHECK passes)" [ $? -eq 0 ]
printf 'dst_ip=10.0.0.0/8,tclass=106\n' > "$(mofed_f "$TVF1PCI")"
msg=$(tcheck_msg t1 "$NST1" "$TVF1" "$TVF1PCI" "$out")
check "a rule's tclass=106 without a Global line reads as unset: CHECK drift" \
	grep -q 'traffic class (mofed): configured 106, current unset' <<< "$(jq -r .msg <<< "$msg")"
echo 'Global tclass=64' > "$(mofed_f "$TVF1PCI")"
echo 32 > "$(cfs_f "$TVF1PCI")"
msg=$(tcheck_msg t1 "$NST1" "$TVF1" "$TVF1PCI" "$out")
check "CHECK names each knob's drift (mofed 64)" \
	grep -q 'traffic class (mofed): configured 106, current 64' <<< "$(jq -r .msg <<< "$msg")"
check "... (configfs 32), code 109" \
	[ "$(jq -r '(.code | tostring) + " " + (.msg | test("traffic class \\(configfs\\): configured 106, current 32") | tostring)' <<< "$msg")" = "109 true" ]
echo 'Global tclass=106' > "$(mofed_f "$TVF1PCI")"
echo 106 > "$(cfs_f "$TVF1PCI")"
RDMA_QOS_SIM_ROOT=$RT "$SIM" show --json > "$T/tshow.json"
check "show: both knobs and the scope of VF1" \
	[ "$(jq -c --arg v "$TVF1PCI" '.pfs[].vfs[] | select(.pci == $v) | [.tos.mofed, .tos.configfs, .tosScope]' "$T/tshow.json")" = '[106,106,"all-qps"]' ]
RDMA_QOS_SIM_ROOT=$RT "$SIM" show > "$T/tshow.txt"
check "show (text): mofed 106 configfs 106 (all-qps)" grep -q "$TVF1PCI.*mofed 106 configfs 106 (all-qps)" "$T/tshow.txt"
chain_del "$RT" tos t1 "$NST1" net1 "$TVF1" "$(trq "$TVF1PCI")" "$TARGS" 2> "$T/t1del.log"
check "DEL succeeds" [ $? -eq 0 ]
check "... MOFED's unset restored as -1 (not 0, which would override the next pod's NCCL_IB_TC)" \
	[ "$(cat "$(mofed_f "$TVF1PCI")")" = -1 ]
check "... configfs restored to 0" [ "$(cat "$(cfs_f "$TVF1PCI")")" = 0 ]

echo 'Global tclass=32' > "$(mofed_f "$TVF1PCI")"
NST1B=$(newns t1b)
chain_add "$RT" tos t1b "$NST1B" net1 "$TVF1" "$(trq "$TVF1PCI")" "$TARGS" > /dev/null 2>&1
check "an admin's global class 32: ADD sets 106" [ "$(cat "$(mofed_f "$TVF1PCI")")" = 106 ]
chain_del "$RT" tos t1b "$NST1B" net1 "$TVF1" "$(trq "$TVF1PCI")" "$TARGS" 2> /dev/null
check "... DEL puts 32 back" [ "$(cat "$(mofed_f "$TVF1PCI")")" = 32 ]
echo 'Global tclass=32' > "$(mofed_f "$TVF1PCI")"

echo "-- both knobs: repeated ADD, a failed ADD's rollback, a lost DEL's takeover"
: > "$(mofed_f "$TVF1PCI")"
NSR1=$(newns r1)
out=$(chain_add "$RT" tos r1 "$NSR1" net1 "$TVF1" "$(trq "$TVF1PCI")" "$TARGS" 2> /dev/null)
conf_for tos 1.0.0 "$(trq "$TVF1PCI")" "$out" | RDMA_QOS_SIM_ROOT=$RT run_plugin "$SIM" ADD r1 "$NSR1" net1 "$TARGS" > /dev/null 2>&1
check "a repeated ADD keeps both knobs' first previous values (-1, 0), changed" \
	[ "$(jq -c '[.rdma.knobs.mofed.previous, .rdma.knobs.configfs.previous, .rdma.knobs.mofed.changed, .rdma.knobs.configfs.changed]' "$(trec r1)")" = "[-1,0,true,true]" ]
pod_netns_gone "${NSR1#/run/netns/}"   # the pod went away without a DEL (its veth VF with it)
sim_make_vfs "$RT"
NSR2=$(newns r2)
chain_add "$RT" tos r2 "$NSR2" net1 "$TVF1" "$(trq "$TVF1PCI")" "$TARGS" > /dev/null 2> "$T/r2.log"
check "after a lost DEL the next pod takes the VF over" grep -q 'taking it over' "$T/r2.log"
check "... and inherits both knobs' previous values (-1, 0)" \
	[ "$(jq -c '[.rdma.knobs.mofed.previous, .rdma.knobs.configfs.previous]' "$(trec r2)")" = "[-1,0]" ]
conf_for tos 1.0.0 "$(trq "$TVF1PCI")" | RDMA_QOS_SIM_ROOT=$RT run_plugin "$SIM" DEL r1 "" net1 "$TARGS" 2> /dev/null
check "... the late DEL of the lost attachment leaves both at 106" \
	[ "$(cat "$(mofed_f "$TVF1PCI")") $(cat "$(cfs_f "$TVF1PCI")")" = "106 106" ]
chain_del "$RT" tos r2 "$NSR2" net1 "$TVF1" "$(trq "$TVF1PCI")" "$TARGS" 2> /dev/null
check "... the new holder's DEL puts back -1 and 0" [ "$(cat "$(mofed_f "$TVF1PCI")") $(cat "$(cfs_f "$TVF1PCI")")" = "-1 0" ]
mkdir "$(trec r3)"   # the record cannot be written: the ADD fails after both knobs were written
NSR3=$(newns r3)
msg=$(chain_add "$RT" tos r3 "$NSR3" net1 "$TVF1" "$(trq "$TVF1PCI")" "$TARGS" 2> /dev/null)
check "record write fails: code 5" [ "$(jq .code <<< "$msg")" = 5 ]
check "... rollback puts both knobs back (MOFED -1, configfs 0)" \
	[ "$(cat "$(mofed_f "$TVF1PCI")") $(cat "$(cfs_f "$TVF1PCI")")" = "-1 0" ]
rmdir "$(trec r3)"
echo 'Global tclass=32' > "$(mofed_f "$TVF1PCI")"

echo "-- configfs only: the class reaches RDMA-CM connections only"
D2=$(trdma "$TVF2PCI")
mv "$RT/sys/class/infiniband/$D2/tc" "$T/tc-off"
NST2=$(newns t2)
out=$(chain_add "$RT" tos t2 "$NST2" net1 "$TVF2" "$(trq "$TVF2PCI")" "$TARGS" 2> "$T/t2.log")
check "configfs only: ADD succeeds" [ $? -eq 0 ]
check "... logs that the class reaches RDMA-CM connections only (NCCL_IB_TC)" \
	grep -q 'RDMA-CM connections only.*NCCL_IB_TC=106' "$T/t2.log"
check "... record scope rdma-cm, configfs knob only" \
	[ "$(jq -c '[.rdma.tosScope, (.rdma.knobs | keys)]' "$(trec t2)")" = '["rdma-cm",["configfs"]]' ]
conf_for tos 1.0.0 "$(trq "$TVF2PCI")" "$out" | RDMA_QOS_SIM_ROOT=$RT run_plugin "$SIM" ADD t2 "$NST2" net1 "$TARGS" > /dev/null 2> "$T/t2b.log"
check "... a repeated ADD does not log it again (once per attachment)" \
	bash -c "! grep -q 'RDMA-CM connections only' '$T/t2b.log'"
RDMA_QOS_SIM_ROOT=$RT "$SIM" show --json > "$T/tshow2.json"
check "... show: scope rdma-cm" \
	[ "$(jq -r --arg v "$TVF2PCI" '.pfs[].vfs[] | select(.pci == $v) | .tosScope' "$T/tshow2.json")" = rdma-cm ]
chain_del "$RT" tos t2 "$NST2" net1 "$TVF2" "$(trq "$TVF2PCI")" "$TARGS" 2> /dev/null
mkdir -p "$RT/etc/cni/rdma-qos"
cat > "$RT/etc/cni/rdma-qos/profiles.json" <<'JSON'
{"profiles": {"every-qp": {"trafficClass": 106, "tosScope": "all-qps", "pfc": [3]}},
 "namespaces": {"*": {"default": "every-qp", "allow": ["every-qp", "roce-lossless"]}}}
JSON
W=$(dcb_writes "$RT" "$TPF")
NST2B=$(newns t2b)
msg=$(chain_add "$RT" tos t2b "$NST2B" net1 "$TVF2" "$(trq "$TVF2PCI")" "$TARGS" 2> /dev/null)
check "tosScope all-qps on a configfs-only device: code 111" [ "$(jq .code <<< "$msg")" = 111 ]
check "... the message says what to do (NCCL_IB_TC=106)" grep -q 'NCCL_IB_TC=106' <<< "$(jq -r .msg <<< "$msg")"
check "... nothing written: PF ($W writes) and configfs 0" \
	[ "$(dcb_writes "$RT" "$TPF") $(cat "$(cfs_f "$TVF2PCI")")" = "$W 0" ]
NST3=$(newns t3)
out=$(chain_add "$RT" tos t3 "$NST3" net1 "$TVF3" "$(trq "$TVF3PCI")" "$TARGS" 2> /dev/null)
check "tosScope all-qps where MOFED's knob exists: ADD succeeds" [ $? -eq 0 ]
chain_del "$RT" tos t3 "$NST3" net1 "$TVF3" "$(trq "$TVF3PCI")" "$TARGS" > /dev/null 2>&1
rm -f "$RT/etc/cni/rdma-qos/profiles.json"
mv "$T/tc-off" "$RT/sys/class/infiniband/$D2/tc"

echo "-- a VF bound to vfio-pci (DPDK): PF part and a warning, no 104"
echo '{"writes": 0}' > "$RT/dcb/$TPF.json"
NSV=$(newns tv)
conf_for tos 1.0.0 "$(trq "$TVF0PCI")" '{"cniVersion":"1.0.0","interfaces":[]}' | \
	RDMA_QOS_SIM_ROOT=$RT run_plugin "$SIM" ADD tv "$NSV" net1 "$TARGS" > "$T/tv.out" 2> "$T/tv.log"
check "vfio VF: ADD succeeds" [ $? -eq 0 ]
check "... warns: no RDMA device (driver vfio-pci)" grep -q 'has no RDMA device' "$T/tv.log"
check "... names the driver" grep -q 'driver vfio-pci' "$T/tv.log"
check "... the PF part applied (pfc [3])" [ "$(jq -c .pfc "$RT/dcb/$TPF.json")" = "[3]" ]
check "... record: no device, scope none" [ "$(jq -r '.rdma.device + "/" + .rdma.tosScope' "$(trec tv)")" = "/none" ]
conf_for tos 1.0.0 "$(trq "$TVF0PCI")" "$(cat "$T/tv.out")" | \
	RDMA_QOS_SIM_ROOT=$RT run_plugin "$SIM" CHECK tv "$NSV" net1 "$TARGS" > /dev/null 2>&1
check "... CHECK passes" [ $? -eq 0 ]
conf_for tos 1.0.0 "$(trq "$TVF0PCI")" | RDMA_QOS_SIM_ROOT=$RT run_plugin "$SIM" DEL tv "$NSV" net1 "$TARGS" 2> /dev/null
check "... DEL succeeds, record gone" [ $? -eq 0 -a ! -e "$(trec tv)" ]

echo "-- exclusive RDMA netns mode with the device still in the host: chain order"
echo N > "$RT/sys/module/ib_core/parameters/netns_mode"
W=$(dcb_writes "$RT" "$TPF")
msg=$(chain_add "$RT" tos t4 "$(newns t4)" net1 "$TVF3" "$(trq "$TVF3PCI")" "$TARGS" 2> /dev/null)
check "exclusive mode, device in the host netns: code 7" [ "$(jq .code <<< "$msg")" = 7 ]
check "... the message says rdma-qos must come after the rdma plugin" \
	grep -q 'must come after the "rdma" plugin' <<< "$(jq -r .msg <<< "$msg")"
check "... nothing written" [ "$(dcb_writes "$RT" "$TPF") $(cat "$(cfs_f "$TVF3PCI")")" = "$W 0" ]
echo Y > "$RT/sys/module/ib_core/parameters/netns_mode"

echo "-- an mlx5 sub-function deviceID"
msg=$(conf_for tos 1.0.0 "$(trq mlx5_core.sf.3)" '{"cniVersion":"1.0.0","interfaces":[]}' | \
	RDMA_QOS_SIM_ROOT=$RT run_plugin "$SIM" ADD sf1 /proc/self/ns/net net1 "$TARGS" 2> /dev/null)
check "SF deviceID: code 104 saying it is a sub-function" \
	[ "$(jq -r '(.code | tostring) + " " + (.msg | test("sub-function") | tostring)' <<< "$msg")" = "104 true" ]
conf_for tos 1.0.0 "$(trq mlx5_core.sf.3)" | RDMA_QOS_SIM_ROOT=$RT run_plugin "$SIM" DEL sf1 "" net1 "$TARGS" 2> /dev/null
check "... its DEL succeeds" [ $? -eq 0 ]

echo "-- show: a VF's RDMA device without a PCI link (rxe on its netdev), as its record names it"
# rxe sits on the VF's netdev, not on its PCI function: show takes the record's device
# while the host has it (VF0 here: no infiniband/ under its PCI function)
mkdir -p "$RT/run/rdma-qos/state" "$RT/sys/class/infiniband/rxe7" "$RT/sys/kernel/config/rdma_cm/rxe7/ports/1"
echo 106 > "$RT/sys/kernel/config/rdma_cm/rxe7/ports/1/default_roce_tos"
jq -n --arg vf "$TVF0PCI" --arg p "/sys/kernel/config/rdma_cm/rxe7/ports/1/default_roce_tos" \
	'{version: 1, network: "tos", containerID: "rxe", ifname: "net1", netns: "/proc/1/ns/net", vf: $vf, pfs: [],
	  rdma: {device: "rxe7", tosScope: "rdma-cm", port: 1, inPod: false, tosSet: 106,
		 knobs: {configfs: {path: $p, previous: 32, changed: true}}}}' > "$(trec rxe)"
rxe_show() { RDMA_QOS_SIM_ROOT=$RT "$SIM" show --json | jq -c --arg v "$TVF0PCI" '.pfs[].vfs[] | select(.pci == $v) | [.rdma, .tos.configfs, .tosScope]'; }
check "show: the record's rxe7 on VF0 with configfs 106 (rdma-cm)" [ "$(rxe_show)" = '["rxe7",106,"rdma-cm"]' ]
rmdir "$RT/sys/class/infiniband/rxe7"
check "... and nothing once the host has no rxe7" [ "$(rxe_show)" = '[null,null,null]' ]
rm -f "$(trec rxe)"; rm -rf "$RT/sys/kernel/config/rdma_cm/rxe7"

echo "-- a record from before both knobs were kept"
mkdir -p "$RT/run/rdma-qos/state"
jq -n --arg vf "$TVF3PCI" --arg d "$(trdma "$TVF3PCI")" --arg p "/sys/kernel/config/rdma_cm/$(trdma "$TVF3PCI")/ports/1/default_roce_tos" \
	'{version: 1, network: "tos", containerID: "old", ifname: "net1", netns: "", vf: $vf, pfs: [],
	  rdma: {device: $d, port: 1, tosKind: "configfs", tosPath: $p, tosPrevious: 5, tosSet: 106, tosChanged: true}}' > "$(trec old)"
echo 106 > "$(cfs_f "$TVF3PCI")"
conf_for tos 1.0.0 "$(trq "$TVF3PCI")" | RDMA_QOS_SIM_ROOT=$RT run_plugin "$SIM" DEL old "" net1 "$TARGS" 2> /dev/null
check "DEL of an old single-knob record restores its ToS (5)" [ "$(cat "$(cfs_f "$TVF3PCI")")" = 5 ]
check "no records left on the traffic-class node" [ -z "$(ls "$RT/run/rdma-qos/state/" 2> /dev/null | grep '\.json$')" ]
sim_del_vfs "$RT" 2> /dev/null
