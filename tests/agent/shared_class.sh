#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The agent and pods on a shared RDMA device (issue 50; DESIGN.md "Shared RDMA devices"):
# two pods through Debian's real macvlan plugin on a veth named as the PF, chained with
# rdma-qos-sim. The agent records a GID the kernel added after ADD (pending at ADD), keeps
# the device's class (a drift repaired once, one series per device knob with vf=""), judges
# each pod's vf_class check on the device, and releases the pods whose netns went: the last
# one puts back the class the first ADD found.
set -u
. "$(dirname "$0")/lib.sh"

sim_suite_start "agent: shared RDMA device" rqsc agent_can_run
SP=sc$$
suite_teardown() { ip link del "${SP}0" 2> /dev/null; }

"$MKNODE" --root "$ROOT" --pfs 1 --vfs 1 --rdma configfs --pf-rdma yes --dcb yes \
	--pf-prefix "$SP" > "$T/node.txt" || { echo "FAIL: mknode"; exit 1; }
PF=${SP}0
DEV=$(awk -v p="$PF" '$1 == p && $3 == "-" {print $5}' "$T/node.txt")
ip link add "$PF" type veth peer name "${PF}p" && ip link set "$PF" up
CFS=$(tos_file "$ROOT" "$DEV")
SD=$(state_dir "$ROOT")
rq='{"type":"rdma-qos","numa":"off"}'
args() { echo "IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=$1;K8S_POD_UID=uid-$1"; }
"$MKNODE" --root "$ROOT" gid "$DEV" --ip 10.98.0.11 --ndev net1 > /dev/null
NSA=$(newns a) NSB=$(newns b)
macvlan_add "$ROOT" sh a "$NSA" "$PF" 10.98.0.11 "$rq" "$(args trainer-a)" > /dev/null 2>&1
check "ADD pod a on the shared device (its GID there)" [ $? -eq 0 ]
macvlan_add "$ROOT" sh b "$NSB" "$PF" 10.98.0.12 "$rq" "$(args trainer-b)" > /dev/null 2>&1
check "ADD pod b (its GID not yet: pending)" \
	[ $? -eq 0 -a "$(jq -c .gidsPending "$SD/sh_b_net1.json")" = '["10.98.0.12"]' ]

echo "== a pending GID the kernel adds later: the agent records it"
"$MKNODE" --root "$ROOT" gid "$DEV" --ip 10.98.0.12 --ndev net1 > "$T/gid.txt"
IDX=$(awk '/RoCE v2/ {sub(":", "", $4); print $4}' "$T/gid.txt")
mkdir -p "$T/nfd"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --once --metrics-file "$T/m1.prom" \
	--nfd-features-file "$T/nfd/rdma-qos" 2> "$T/a1.log"
check "agent --once passes" [ $? -eq 0 ]
check "... the node's NFD label counts the shared attachments: lossless=true" \
	grep -q 'rdma-qos.lossless=true$' "$T/nfd/rdma-qos" || { cat "$T/nfd/rdma-qos"; grep -i 'drift' "$T/a1.log"; }
check "... pod b's record has its RoCE v2 GID now (index $IDX), nothing pending" \
	[ "$(jq -c '[([.gids[] | select(.type == "RoCE v2") | .index]), .gidsPending]' "$SD/sh_b_net1.json")" = "[[$IDX],[]]" ]
check "... and said so" grep -q "sh_b_net1: RoCE v2 GIDs of ai/trainer-b found (0 still pending)" "$T/a1.log"
check "... pod a's record untouched" [ "$(jq -c .gidsPending "$SD/sh_a_net1.json")" = '[]' ]
check "... the metrics parse" promcheck "$T/m1.prom"
check "... one class series for the shared device (vf=\"\"), not one per pod" \
	[ "$(grep -c "^rdma_qos_vf_traffic_class{vf=\"\",rdma_dev=\"$DEV\",knob=\"configfs\"} 106" "$T/m1.prom")" = 1 ]
check "... both pods lossless by the device's class" \
	[ "$(grep -c '^rdma_qos_attachment_lossless{namespace="ai",pod="trainer-[ab]".*} 1' "$T/m1.prom")" = 2 ]

echo "== the device's class drifts: repaired once"
echo 0 > "$CFS"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --once --metrics-file "$T/m2.prom" 2> "$T/a2.log"
check "the agent repairs the shared device's class (0 -> 106)" [ "$(cat "$CFS")" = 106 ]
check "... once, not once per pod" [ "$(grep -c "repaired traffic_class" "$T/a2.log")" = 1 ]
check "... and says it is the shared device" grep -q "shared device RDMA $DEV repaired traffic_class (configfs): was 0, now 106" "$T/a2.log"

echo "== the pods go without a DEL: released, the last one restores"
ip netns del "${NS_PREFIX}a"
ip netns del "${NS_PREFIX}b"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --once --stale-grace 0 --metrics-file "$T/m3.prom" 2> "$T/a3.log"
check "both stale attachments released" [ ! -e "$SD/sh_a_net1.json" -a ! -e "$SD/sh_b_net1.json" ]
check "... the device's class back to what the first ADD found (0)" [ "$(cat "$CFS")" = 0 ]
check "... the device index gone" [ ! -e "$SD/dev/$DEV.json" ]

echo "== an ADD killed after listing itself in the device index: the agent drops it"
NSC=$(newns c)
macvlan_add "$ROOT" sh c "$NSC" "$PF" 10.98.0.13 "$rq" "$(args trainer-c)" > /dev/null 2>&1
rm -f "$SD/sh_c_net1.json" # killed before its record: the index lists it, the class is set
check "the index lists the dead ADD, the class is 106" \
	[ "$(jq -c '[.attachments[].key]' "$SD/dev/$DEV.json")" = '["sh_c_net1"]' -a "$(cat "$CFS")" = 106 ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --once --metrics-file "$T/m4.prom" 2> "$T/a4.log"
check "... the agent drops it and puts back the class it found (0)" \
	[ ! -e "$SD/dev/$DEV.json" -a "$(cat "$CFS")" = 0 ]
summary
