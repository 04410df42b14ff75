# SPDX-License-Identifier: Apache-2.0
# Sourced by tests/sim/run.sh (its helpers, counters, $T, newns): pods on the PF's own
# RDMA device (issue 50). Debian's real `macvlan` plugin (static IPAM) makes each pod's
# net1 on a real veth named as the PF in the host netns; rdma-qos-sim chained after it
# takes the shared path: the lower device, the PF, its RDMA device, the pod's GIDs by
# address (one found, one pending), the device's class as a requirement of every lossless
# attachment (kept in the device index, restored by the last DEL), a conflict (102), a
# lossy pod that asks nothing of the device, CHECK, and the errors that leave nothing.

echo "== shared RDMA device: macvlan pods on the PF's own device"
SR=$T/sharednode
SP=sh$$
"$MKNODE" --root "$SR" --pfs 1 --vfs 1 --rdma both --pf-rdma yes --dcb yes --pf-prefix "$SP" \
	--pci-base b0 > "$T/sharednode.txt" || fail "mknode --pf-rdma yes"
SPF=${SP}0
SDEV=$(awk -v p="$SPF" '$1 == p && $3 == "-" {print $5}' "$T/sharednode.txt")
SPCI=$(awk -v p="$SPF" '$1 == p && $3 == "-" {print $2}' "$T/sharednode.txt")
ip link add "$SPF" type veth peer name "${SPF}p" || fail "veth $SPF"
ip link set "$SPF" up
scfs() { echo "$SR/sys/kernel/config/rdma_cm/$SDEV/ports/1/default_roce_tos"; }
smofed() { echo "$SR/sys/class/infiniband/$SDEV/tc/1/traffic_class"; }
srec() { echo "$SR/run/rdma-qos/state/shared_$1_net1.json"; }
sidx() { echo "$SR/run/rdma-qos/state/dev/$SDEV.json"; }
sargs() { echo "IgnoreUnknown=1;K8S_POD_NAMESPACE=${2:-ai};K8S_POD_NAME=p-$1;K8S_POD_UID=uid-$1"; }
srq() { echo "{\"type\":\"rdma-qos\",\"numa\":\"off\"${1:+,$1}}"; }
# shared_add CID NETNS IP RQCONF [MASTER]: macvlan then rdma-qos-sim, as a runtime does
shared_add() { macvlan_add "$SR" shared "$1" "$2" "${5:-$SPF}" "$3" "$4" "$(sargs "$1")"; }
shared_del() { macvlan_del "$SR" shared "$1" "$2" "${5:-$SPF}" "$3" "$4" "$(sargs "$1")"; }
shared_check() {
	conf_for shared 1.0.0 "$3" "$4" | RDMA_QOS_SIM_ROOT=$SR run_plugin "$SIM" CHECK "$1" "$2" net1 "$(sargs "$1")"
}

echo 0 > "$(scfs)"
: > "$(smofed)"
# the kernel adds the GID of pod A's address (asynchronously, in any netns); pod B's never comes
"$MKNODE" --root "$SR" gid "$SDEV" --ip 10.99.0.11 --ndev net1 > /dev/null
NSA=$(newns sha)
outa=$(shared_add a "$NSA" 10.99.0.11 "$(srq)" 2> "$T/sha.log")
check "shared: ADD after macvlan succeeds (no deviceID)" [ $? -eq 0 ]
check "... the record says shared, the device, the chain to the PF, no VF" \
	[ "$(jq -c '[.shared, .rdmaDev, .master, .vf, .pfs[0].pci, .rdmaPci]' "$(srec a)")" = \
	"[true,\"$SDEV\",[\"$SPF\"],\"\",\"$SPCI\",\"$SPCI\"]" ]
check "... pod A's address and its RoCE v2 GID index 3 (v1 at 2), nothing pending" \
	[ "$(jq -c '[.ips, ([.gids[] | select(.type == "RoCE v2") | .index]), .gidsPending]' "$(srec a)")" = '[["10.99.0.11"],[3],[]]' ]
check "... the device's class 106 on both knobs" [ "$(cat "$(scfs)")/$(cat "$(smofed)")" = "106/106" ]
check "... the device index lists pod A, with what was found" \
	[ "$(jq -c '[.class, [.attachments[].key], .found.configfs, .found.mofed]' "$(sidx)")" = '[106,["shared_a_net1"],0,-1]' ]
check "... the PF got PFC on priority 3 (the PF requirements as for a VF)" \
	[ "$(jq -c '.pfc' "$SR/dcb/$SPF.json")" = "[3]" ]
check "... the result is macvlan's, passed on" [ "$(jq -r '.interfaces[0].name' <<< "$outa")" = net1 ]
check "... ADD's line names the shared device" grep -q "shared RDMA device" "$T/sha.log"
shared_check a "$NSA" "$(srq)" "$outa" > "$T/sha.chk"
check "... CHECK passes" [ $? -eq 0 -a ! -s "$T/sha.chk" ]
w=$(dcb_writes "$SR" "$SPF")
outa2=$(conf_for shared 1.0.0 "$(srq)" "$outa" | RDMA_QOS_SIM_ROOT=$SR run_plugin "$SIM" ADD a "$NSA" net1 "$(sargs a)" 2> /dev/null)
check "... a repeated ADD writes nothing (DCB, index, record)" \
	[ $? -eq 0 -a "$(dcb_writes "$SR" "$SPF")" = "$w" -a "$(jq -c '[.attachments[].key]' "$(sidx)")" = '["shared_a_net1"]' ]

# the kernel moved pod A's entry (deleted and added again elsewhere): a repeated ADD finds it
# where it is now, not where its record said (it looks there first)
GD=$SR/sys/class/infiniband/$SDEV/ports/1
cp "$GD/gids/3" "$GD/gids/9" && cp "$GD/gid_attrs/types/3" "$GD/gid_attrs/types/9"
echo 0000:0000:0000:0000:0000:0000:0000:0000 > "$GD/gids/3" && : > "$GD/gid_attrs/types/3"
conf_for shared 1.0.0 "$(srq)" "$outa" | RDMA_QOS_SIM_ROOT=$SR run_plugin "$SIM" ADD a "$NSA" net1 "$(sargs a)" > /dev/null 2>&1
check "shared: a repeated ADD after the kernel moved the pod's entry records where it is now (9)" \
	[ $? -eq 0 -a "$(jq -c '[.gids[] | select(.type == "RoCE v2") | .index]' "$(srec a)")" = '[9]' ]
cp "$GD/gids/9" "$GD/gids/3" && cp "$GD/gid_attrs/types/9" "$GD/gid_attrs/types/3"
echo 0000:0000:0000:0000:0000:0000:0000:0000 > "$GD/gids/9" && : > "$GD/gid_attrs/types/9"
conf_for shared 1.0.0 "$(srq)" "$outa" | RDMA_QOS_SIM_ROOT=$SR run_plugin "$SIM" ADD a "$NSA" net1 "$(sargs a)" > /dev/null 2>&1
check "... and back (3)" [ "$(jq -c '[.gids[] | select(.type == "RoCE v2") | .index]' "$(srec a)")" = '[3]' ]
# LeakSanitizer cannot run under ptrace (the ASan build): leaks are the other runs' to find
strace -f -qq -e trace=openat2,openat,setns -o "$T/shstrace" env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	RDMA_QOS_SIM_ROOT=$SR CNI_COMMAND=ADD CNI_CONTAINERID=a \
	CNI_NETNS="$NSA" CNI_IFNAME=net1 CNI_PATH="$CNI_BIN_DIR" CNI_ARGS="$(sargs a)" "$SIM" \
	<<< "$(conf_for shared 1.0.0 "$(srq)" "$outa")" > /dev/null 2>&1
check "... a steady ADD reads its recorded RoCE v2 slot only, not the GID table (no gids/ listing)" \
	[ "$(grep -c 'ports/1/gids"' "$T/shstrace")" = 0 -a "$(grep -c 'ports/1/gids/' "$T/shstrace")" = 1 ]
# the walk's socket in the pod is made while ADD is there for its link: in and out once
check "... and enters the pod's netns once ($(grep -c 'setns(' "$T/shstrace") setns)" \
	[ "$(grep -c 'setns(' "$T/shstrace")" = 2 ]

NSB=$(newns shb)
t0=$(date +%s%N)
outb=$(shared_add b "$NSB" 10.99.0.12 "$(srq '"deviceID":"0"')" 2> "$T/shb.log")
rc=$?
t1=$(date +%s%N)
check "shared: a second pod (the shared device plugin's deviceID \"0\") succeeds" [ $rc -eq 0 ]
check "... its GID is pending (the kernel has not added it): ADD waited ~500 ms, not failed" \
	[ "$(jq -c '[.gids, .gidsPending]' "$(srec b)")" = '[[],["10.99.0.12"]]' -a $(((t1 - t0) / 1000000)) -ge 450 ]
check "... and said so" grep -q "no RoCE v2 GID yet for 1 of the pod's addresses" "$T/shb.log"
check "... both listed in the device index" \
	[ "$(jq -c '[.attachments[].key]' "$(sidx)")" = '["shared_a_net1","shared_b_net1"]' ]
shared_check b "$NSB" "$(srq '"deviceID":"0"')" "$outb" > "$T/shb.chk"
check "... CHECK passes with a pending GID" [ $? -eq 0 -a ! -s "$T/shb.chk" ]
RDMA_QOS_SIM_ROOT=$SR "$SIM" show --pod ai/p-a --json > "$T/shpa.json" 2> /dev/null
check "show --pod: pod A's shared attachment, its GID index and NCCL_IB_GID_INDEX" \
	[ "$(jq -c '.attachments[0] | [.shared, .rdmaDev, .gids, .ncclIbGidIndex]' "$T/shpa.json")" = \
	"[true,\"$SDEV\",[{\"ip\":\"10.99.0.11\",\"index\":3}],3]" ]
check "... judged lossless by the device's class" \
	[ "$(jq -r '.attachments[0].checks.vf_class.state' "$T/shpa.json")" = ok ]
RDMA_QOS_SIM_ROOT=$SR "$SIM" show --pod ai/p-a > "$T/shpa.txt" 2> /dev/null
check "... (text) names the device and what NCCL_IB_GID_INDEX must say" \
	bash -c "grep -q 'net1: shared RDMA device $SDEV of PF $SPF' '$T/shpa.txt' && grep -q 'NCCL_IB_GID_INDEX=3 in this pod' '$T/shpa.txt'"
RDMA_QOS_SIM_ROOT=$SR "$SIM" show --pod ai/p-b > "$T/shpb.txt" 2> /dev/null
check "show --pod: pod B's pending GID said as pending" grep -q '10.99.0.12: no RoCE v2 GID yet' "$T/shpb.txt"
RDMA_QOS_SIM_ROOT=$SR "$SIM" show > "$T/sh.txt" 2> /dev/null
check "show: the PF lists both shared attachments" [ "$(grep -c "^  SHARED macvlan net1  rdma $SDEV" "$T/sh.txt")" = 2 ]
echo 0 > "$(scfs)"
msg=$(shared_check b "$NSB" "$(srq '"deviceID":"0"')" "$outb")
check "... CHECK names the device class's drift (109)" \
	[ "$(jq -r '(.code | tostring) + " " + (.msg | test("traffic class \\(configfs\\): configured 106, current 0") | tostring)' <<< "$msg")" = "109 true" ]
echo 106 > "$(scfs)"

# a lossless profile with another class on the same device: 102, naming both, nothing left
mkdir -p "$SR/etc/cni/rdma-qos"
echo '{"profiles":{"ll104":{"trust":"dscp","dscp2prio":{"26":3},"pfc":[3],"trafficClass":104},"lossy":{"trafficClass":0}},"namespaces":{"*":{"default":"roce-lossless","allow":["roce-lossless","ll104","lossy"]}}}' \
	> "$SR/etc/cni/rdma-qos/profiles.json"
NSC=$(newns shc)
msg=$(shared_add c "$NSC" 10.99.0.13 "$(srq '"profile":"ll104"')" 2> /dev/null)
check "shared: another lossless class on the device fails with 102 naming both" \
	[ "$(jq -r '(.code | tostring) + " " + (.msg | test("class 104 on shared RDMA device .*p-a.*requires class 106")|tostring)' <<< "$msg")" = "102 true" ]
check "... and leaves no record, no index entry, the class as it was" \
	[ ! -e "$(srec c)" -a "$(jq -c '[.attachments[].key]' "$(sidx)")" = '["shared_a_net1","shared_b_net1"]' -a "$(cat "$(scfs)")" = 106 ]
# a lossy pod asks nothing of the device
outc=$(shared_add c "$NSC" 10.99.0.13 "$(srq '"profile":"lossy"')" 2> /dev/null)
check "shared: a lossy pod on the device: ADD succeeds, asks nothing of it" \
	[ $? -eq 0 -a "$(jq -c '.rdma.tosSet' "$(srec c)")" = -1 -a "$(jq -c '[.attachments[].key] | length' "$(sidx)")" = 2 ]
shared_del c "$NSC" 10.99.0.13 "$(srq '"profile":"lossy"')" > /dev/null 2>&1
check "... its DEL leaves the class alone" [ "$(cat "$(scfs)")" = 106 ]

# DEL: the class stays while a requirer is left, the last one puts back what the first found
shared_del a "$NSA" 10.99.0.11 "$(srq)" > /dev/null 2> "$T/shda.log"
check "shared: DEL of one pod keeps the class for the other" \
	[ "$(cat "$(scfs)")" = 106 -a "$(jq -c '[.attachments[].key]' "$(sidx)")" = '["shared_b_net1"]' -a ! -e "$(srec a)" ]
shared_del b "$NSB" 10.99.0.12 "$(srq '"deviceID":"0"')" > /dev/null 2> "$T/shdb.log"
check "... the last DEL restores what the first ADD found (configfs 0, MOFED unset)" \
	[ "$(cat "$(scfs)") $(cat "$(smofed)")" = "0 -1" ]
check "... and removes the index" [ ! -e "$(sidx)" ]
shared_del b "$NSB" 10.99.0.12 "$(srq '"deviceID":"0"')" > /dev/null 2>&1
check "... DEL again: nothing is gone twice (rc 0)" [ $? -eq 0 ]

# an ADD killed after listing itself: a DEL without a record drops it and restores
outa=$(shared_add a "$NSA" 10.99.0.11 "$(srq)" 2> /dev/null)
rm -f "$(srec a)"
shared_del a "$NSA" 10.99.0.11 "$(srq)" > /dev/null 2>&1
check "shared: DEL without a record drops the index entry and restores the class" \
	[ ! -e "$(sidx)" -a "$(cat "$(scfs)")" = 0 ]

# the same attachment ADDed again under a lossy profile: it leaves the device's index
NSE=$(newns she)
oute=$(shared_add e "$NSE" 10.99.0.15 "$(srq)" 2> /dev/null)
conf_for shared 1.0.0 "$(srq '"profile":"lossy"')" "$oute" |
	RDMA_QOS_SIM_ROOT=$SR run_plugin "$SIM" ADD e "$NSE" net1 "$(sargs e)" > /dev/null 2>&1
check "shared: ADD again under a lossy profile leaves the index, the class restored" \
	[ $? -eq 0 -a ! -e "$(sidx)" -a "$(cat "$(scfs)")" = 0 -a "$(jq -c .rdma.tosSet "$(srec e)")" = -1 ]
shared_del e "$NSE" 10.99.0.15 "$(srq '"profile":"lossy"')" > /dev/null 2>&1

# exclusive RDMA netns mode: no pod sees the PF's device, ADD refuses with the fix
mkdir -p "$SR/sys/module/ib_core/parameters"
echo N > "$SR/sys/module/ib_core/parameters/netns_mode"
msg=$(shared_add e "$NSE" 10.99.0.15 "$(srq)" 2> /dev/null)
check "shared: exclusive RDMA netns mode is refused (7), saying what to do, nothing left" \
	[ "$(jq -r '(.code | tostring) + " " + (.msg | test("RDMA netns mode is exclusive.*rdma system set netns shared")|tostring)' <<< "$msg")" = "7 true" -a ! -e "$(srec e)" -a ! -e "$(sidx)" ]
echo Y > "$SR/sys/module/ib_core/parameters/netns_mode"

# a macvlan on a device with no PCI function under it: a clear error, nothing left
ip link add "${SP}x" type veth peer name "${SP}xp"
NSD=$(newns shd)
msg=$(shared_add d "$NSD" 10.99.0.14 "$(srq)" "${SP}x" 2> /dev/null)
check "shared: a macvlan on a veth (no PCI function) fails with 104 naming it, no state" \
	[ "$(jq -r '(.code | tostring) + " " + (.msg | test("'"${SP}x"' is not a PCI network function")|tostring)' <<< "$msg")" = "104 true" -a ! -e "$(srec d)" ]
msg=$(conf_for shared 1.0.0 "$(srq '"deviceID":"eth0"')" "$outa" | RDMA_QOS_SIM_ROOT=$SR run_plugin "$SIM" ADD e "$NSD" net1 "$(sargs e)")
check "... a deviceID that is neither a PCI address nor a number is refused, naming the field" \
	grep -q 'deviceID: \\"eth0\\" is not a PCI address' <<< "$msg"
ip link del "${SP}x" 2> /dev/null
ip link del "$SPF" 2> /dev/null
