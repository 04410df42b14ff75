# SPDX-License-Identifier: Apache-2.0
# Shared by the agent's simulated-node test and soak: a node with two
# attachments on PF0, and helpers to drift it and read the metrics.
. "$(dirname "${BASH_SOURCE[0]}")/../sim/lib.sh"

agent_can_run() {
	sim_can_run || return 1
	command -v promtool >/dev/null || { echo "no promtool (apt-get install prometheus)"; return 1; }
	command -v curl >/dev/null || { echo "no curl"; return 1; }
	return 0
}

# metric FILE 'name{labels}' -> value ("" when absent)
metric() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
# promtool must parse the text and find nothing to lint, with one exception: its
# linter flags any name containing "counter", and DESIGN.md fixes the name
# rdma_qos_vf_hw_counter_total (a contract). That one finding alone passes;
# any other finding, or a parse error, fails.
promcheck() {
	promtool check metrics < "$1" > "$1.lint" 2>&1 && return 0
	[ -s "$1.lint" ] && ! grep -qv "^rdma_qos_vf_hw_counter_total metric name should not include type 'counter'$" "$1.lint"
}
# the same with a literal key (awk -v would unescape the label values' backslashes)
metric_lit() { K=$2 awk '$1 == ENVIRON["K"] { print $2 }' "$1"; }

tos_file() { echo "$1/sys/kernel/config/rdma_cm/$2/ports/1/default_roce_tos"; }
rdma_of() { ls "$1/sys/bus/pci/devices/$2/infiniband" | head -1; }
# edit the fake DCB file as an admin would (a new file renamed over the old one)
dcb_edit() { local f="$1/dcb/$2.json"; jq -c "$3" "$f" > "$f.new" && mv "$f.new" "$f"; }
pfc_of() { jq -c '.pfc // []' "$1/dcb/$2.json"; }
dscp_prio() { jq --argjson d "$3" '[.app[]? | select(.selector == 5 and .protocol == $d) | .priority] | first // "none"' "$1/dcb/$2.json"; }
# the records' directory under a node root (DESIGN.md: /run/rdma-qos/state; older trees /var/lib/cni/rdma-qos)
state_dir() {
	local d
	for d in run/rdma-qos/state var/lib/cni/rdma-qos; do
		[ -d "$1/$d" ] && { echo "$1/$d"; return 0; }
	done
	echo "$1/run/rdma-qos/state"
}
# bench_records ROOT SD REC0 NSPREFIX FROM TO: the records FROM..TO-1 of a bench, each its
# own pod: record REC0 re-keyed to VF i (lines of sim_vfs in the VFS array) with a netns
# NSPREFIX-i whose net1 is that VF (a veth whose alias is the VF's netdev, as the sim knows
# it). Without the pod the agent rightly reports the VF out of its pod and reads nothing of it.
bench_records() {
	local root=$1 sd=$2 rec0=$3 pre=$4 i pf vpci vdev pfpci
	for ((i = $5; i < $6; i++)); do
		read -r pf vpci vdev <<< "${VFS[$i]}"
		pfpci=$(basename "$(readlink -f "$root/sys/class/net/$pf/device")")
		if [ "$i" -gt 0 ]; then
			ip netns add "$pre-$i" && ip -n "$pre-$i" link add net1 type veth peer name net1p &&
				ip -n "$pre-$i" link set net1 alias "$vdev" || return 1
		fi
		# its own netns's identity (dev, inode), as ADD records it: rec0's names another netns
		jq -c --arg v "$vpci" --arg k "c$i" --arg pf "$pf" --arg pp "$pfpci" \
			--arg ns "$([ "$i" -gt 0 ] && echo "/run/netns/$pre-$i" || echo "")" \
			--argjson id "$([ "$i" -gt 0 ] && stat -L -c '[%d, %i]' "/run/netns/$pre-$i" || echo null)" \
			'.vf = $v | .containerID = $k | .pfs = [{pci: $pp, ifname: $pf}]
			 | if $ns != "" then .netns = $ns else . end
			 | if $id != null and has("netnsDev") then .netnsDev = $id[0] | .netnsIno = $id[1]
			   else . end' "$rec0" > "$sd/roce_c${i}_net1.json"
	done
}
# bench_pods_del NSPREFIX: the netns bench_records made
bench_pods_del() { local n; for n in $(ip netns list | awk -v p="$1-" 'index($1, p) == 1 { print $1 }'); do ip netns del "$n"; done; }

# two_pod_node NPFS PREFIX POD_A POD_B: a node of NPFS PFs with 2 VFs each (configfs, ECN,
# DCB, counters) and pods ai/POD_A and ai/POD_B, each with a lossless attachment in its own
# netns (net1 on the first PF's two VFs). Sets PF0, VF0PCI, VF0, VF1PCI, VF1, NSA, NSB.
two_pod_node() {
	"$MKNODE" --root "$ROOT" --pfs "$1" --vfs 2 --rdma configfs --ecn yes --dcb yes --counters yes \
		--pf-prefix "$2$$" > /dev/null || { echo "FAIL: mknode"; exit 1; }
	sim_make_vfs "$ROOT"
	mapfile -t VFS < <(sim_vfs "$ROOT")
	read -r PF0 VF0PCI VF0 <<< "${VFS[0]}"
	read -r _ VF1PCI VF1 <<< "${VFS[1]}"
	NSA=$(newns a) NSB=$(newns b)
	chain_add "$ROOT" roce t1 "$NSA" net1 "$VF0" "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF0PCI\"}" \
		"IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=$3;K8S_POD_UID=u0" > /dev/null
	check "ADD pod ai/$3" [ $? -eq 0 ]
	chain_add "$ROOT" roce t2 "$NSB" net1 "$VF1" "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF1PCI\"}" \
		"IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=$4;K8S_POD_UID=u1" > /dev/null
	check "ADD pod ai/$4" [ $? -eq 0 ]
}
