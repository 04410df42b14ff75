#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The demo (README's first command): a simulated node with 2 PFs x 4 VFs on
# two NUMA nodes, one RDMA device per VF, kubelet state for two pods (one
# aligned, one not); veth "VFs" moved into pod netns by Debian's real
# host-device plugin, then rdma-qos-sim, run as a runtime runs a conflist:
# ADD, CHECK, DEL. `rdma-qos show` before and after. Cleans up after itself.
set -euo pipefail
. "$(dirname "$0")/sim/lib.sh"

if ! why=$(sim_can_run); then echo "demo: cannot run: $why" >&2; exit 1; fi
T=$(mktemp -d /tmp/rq-demo.XXXXXX)
ROOT=$T/node
NSS=()
cleanup() {
	for n in "${NSS[@]}"; do ip netns del "$n" 2>/dev/null || true; done
	sim_del_vfs "$ROOT" 2>/dev/null || true
	rm -rf "$T"
}
trap cleanup EXIT
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
show() { RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show; }

step "simulated node: 2 PFs x 4 VFs, 2 NUMA nodes, configfs RDMA ToS, ECN, DCB"
"$MKNODE" --root "$ROOT" --pfs 2 --vfs 4 --numa-nodes 2 --cpus-per-node 4 --rdma configfs \
	--ecn yes --dcb yes --pf-prefix demo
"$MKNODE" --root "$ROOT" pod --uid 11111111-aaaa --cpus 0-1 >/dev/null   # node 0: aligned with PF demo0
"$MKNODE" --root "$ROOT" pod --uid 22222222-bbbb --cpus 4-5 >/dev/null   # node 1: not
sim_make_vfs "$ROOT"
show

CONF=$(jq -c '.plugins[1]' "$RQ_SRC/examples/conflist-host-device.json")
run_pod() {   # name uid vfidx
	local name=$1 uid=$2 line pf pci dev ns args rq out
	line=$(sim_vfs "$ROOT" | sed -n "$3p"); read -r pf pci dev <<< "$line"
	ns=/run/netns/demo-$name; ip netns add "demo-$name"; NSS+=("demo-$name")
	args="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai-training;K8S_POD_NAME=$name;K8S_POD_UID=$uid"
	rq=$(jq -c --arg d "$pci" '. + {deviceID: $d, numa: "warn"}' <<< "$CONF")
	step "pod $name: ADD [host-device $dev -> net1, rdma-qos deviceID $pci]"
	out=$(chain_add "$ROOT" roce "ctr-$name" "$ns" net1 "$dev" "$rq" "$args")
	echo "result: $(jq -c '{cniVersion, interfaces: [.interfaces[] | {name, sandbox}]}' <<< "$out")"
	ip netns exec "demo-$name" ip -br link show net1
	step "pod $name: CHECK"
	chain_check "$ROOT" roce "ctr-$name" "$ns" net1 "$dev" "$rq" "$args" "$out" && echo "CHECK ok"
	echo "$name $ns $dev $args $rq" >> "$T/pods"
}
run_pod aligned 11111111-aaaa 1
run_pod far 22222222-bbbb 2
step "node after ADD (PF demo0: DSCP trust, PFC 3, ECN 3; VFs: ToS 106)"
show
echo "PF demo0 fake DCB: $(jq -c '{pfc, trust, writes, dscp_entries: ([.app[]? | select(.selector == 5)] | length)}' "$ROOT/dcb/demo0.json")"

while read -r name ns dev args rq; do
	step "pod $name: DEL"
	chain_del "$ROOT" roce "ctr-$name" "$ns" net1 "$dev" "$rq" "$args" && echo "DEL ok"
done < "$T/pods"
step "node after DEL (PF settings stay; VF ToS restored; no attachments)"
show
echo; echo "demo: done"
