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
# set_json FILE 'jq filter': rewrite a JSON file of the sim as a writer would (a new file
# renamed over the old one): fake DCB, ethtool stats, vport counters
set_json() { jq -c "$2" "$1" > "$1.new" && mv "$1.new" "$1"; }
# edit the fake DCB file as an admin would
dcb_edit() { set_json "$1/dcb/$2.json" "$3"; }
pfc_of() { jq -c '.pfc // []' "$1/dcb/$2.json"; }
dscp_prio() { jq -r --argjson d "$3" '[.app[]? | select(.selector == 5 and .protocol == $d) | .priority] | first // "none"' "$1/dcb/$2.json"; }
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

# The link partner on the simulated node (DESIGN.md "The link partner"), for lldp.sh and
# the demo: a sim PF is also a real veth of the same name in the host netns, its peer "swp"
# in a switch netns of its own where Debian's lldpd plays the switch port, advertising
# 802.1Qaz PFC (custom TLV 00-80-C2/11), Application Priority (00-80-C2/12) and the 802.3
# maximum frame size (00-12-0F/4): untagged LLDPDUs to 01:80:c2:00:00:0e from swp's MAC.
lldpd_can_run() {
	command -v lldpd > /dev/null && command -v lldpcli > /dev/null ||
		{ echo "no lldpd (apt-get install lldpd)"; return 1; }
}
# demo_can_run: what tests/demo.sh needs (its check, tests/sim/demo_check.sh, too)
demo_can_run() {
	sim_can_run || return 1
	command -v curl > /dev/null || { echo "no curl"; return 1; }
	lldpd_can_run
}
# the switch side of switch ID: a netns $NS_PREFIX-swID holding the veth peer "swp"
sw_ns() { echo "${NS_PREFIX}sw$1"; }
# sw_make PF ID: the PF's netdev, wired to switch ID (sw_teardown removes both)
sw_make() {
	local ns
	ns=$(sw_ns "$2")
	echo "$1" > "$T/sw$2.pf"
	ip netns add "$ns" && ip link add "$1" mtu 9500 type veth peer name swp mtu 9500 netns "$ns" &&
		sysctl -qw "net.ipv6.conf.$1.disable_ipv6=1" && ip link set "$1" up && ip -n "$ns" link set swp up && ip -n "$ns" link set lo up
}
# lldpd as switch $1: system name $2, port $3, TTL $4 s (tx-interval 1, tx-hold $4), and
# TLVs ($5 $6 $7 as sw_tlvs takes them), all from its configuration file: lldpd waits for
# it before its first frame, so the partner appears once, as configured
lldpc() { ip netns exec "$(sw_ns "$1")" lldpcli -u "$T/lldpd$1.sock" "${@:2}" > /dev/null; }
sw_start() {
	local s=$1 c="$T/lldpd$1.conf"
	# lldpcli is setuid _lldpd: the control sockets' directory must let it through
	chmod 711 "$T"
	{
		echo "configure system hostname $2"
		echo "configure ports swp lldp portidsubtype local $3 description \"Ethernet to $(cat "$T/sw$s.pf")\""
		echo "configure lldp tx-hold $4"
		echo "configure lldp tx-interval 1"
		[ -n "${5:-}" ] && echo "configure lldp custom-tlv add oui 00,80,c2 subtype 11 oui-info $5"
		[ -n "${6:-}" ] && echo "configure lldp custom-tlv add oui 00,80,c2 subtype 12 oui-info $6"
		[ -n "${7:-}" ] && echo "configure lldp custom-tlv add oui 00,12,0f subtype 4 oui-info $7"
	} > "$c"
	chmod 644 "$c"
	ip netns exec "$(sw_ns "$s")" lldpd -d -u "$T/lldpd$s.sock" -I swp -O "$c" \
		> "$T/lldpd$s.log" 2>&1 &
	echo $! > "$T/lldpd$s.pid"
}
# stop switch $1 (SIGTERM: lldpd sends its shutdown LLDPDU, TTL 0; KILL: every process of
# the switch netns, silently) and wait until it is gone
sw_stop() {
	local p=""
	[ -s "$T/lldpd$1.pid" ] && p=$(cat "$T/lldpd$1.pid")
	rm -f "$T/lldpd$1.pid"
	if [ "${2:-TERM}" = KILL ]; then
		# lldpd's worker outlives its monitor long enough to say goodbye (TTL 0): stop
		# every process of the switch netns first, so that none runs again, then kill
		# them: nothing is sent, as from a switch that died
		ip netns pids "$(sw_ns "$1")" > "$T/sw.pids" 2> /dev/null
		xargs -r kill -STOP < "$T/sw.pids" 2> /dev/null
		xargs -r kill -KILL < "$T/sw.pids" 2> /dev/null
	elif [ -n "$p" ]; then
		kill -TERM "$p" 2> /dev/null
	fi
	[ -n "$p" ] || return 0
	for _ in $(seq 50); do kill -0 "$p" 2> /dev/null || break; sleep 0.1; done
	wait "$p" 2> /dev/null
	return 0
}
# sw_tlvs SWITCH PFC-INFO APP-INFO MFS-INFO: what the switch advertises now ("" = not that
# TLV; all three "": none). Each TLV is replaced in place, one frame per real change, as a
# switch's own reconfiguration would.
sw_tlvs() {
	[ -z "$2$3$4" ] && { lldpc "$1" unconfigure lldp custom-tlv; return 0; }
	[ -n "$2" ] && lldpc "$1" configure lldp custom-tlv replace oui 00,80,c2 subtype 11 oui-info "$2"
	[ -n "$3" ] && lldpc "$1" configure lldp custom-tlv replace oui 00,80,c2 subtype 12 oui-info "$3"
	[ -n "$4" ] && lldpc "$1" configure lldp custom-tlv replace oui 00,12,0f subtype 4 oui-info "$4"
	return 0
}
# every switch sw_make wired: its processes killed, the PF's veth (and so swp) deleted; the
# switch netns goes with the suite's ($NS_PREFIX)
sw_teardown() {
	local f id
	for f in "$T"/sw*.pf; do
		[ -e "$f" ] || continue
		id=${f##*/sw}
		id=${id%.pf}
		sw_stop "$id" KILL
		ip link del "$(cat "$f")" 2> /dev/null
	done
	return 0
}
# what the switch advertises (sw_tlvs): PFC on 3 or on 4 (willing 0), DSCP 26 -> 3 and
# 48 -> 6 (roce-lossless's map), maximum frame 9216 bytes
PFC3=08,08 PFC4=08,10
APP_OK=00,65,00,1a,c5,00,30
MFS9216=24,00
# show_line PF: the partner line of PF in `show` (node $ROOT)
show_line() { RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show 2> /dev/null | awk -v pf="PF $1 " 'index($0, pf) == 1 { on = 1; next } /^PF / { on = 0 } on && /^  partner/'; }

# wait_metric 'series' VALUE [SECONDS]: until the agent's metrics file $M says so
wait_metric() {
	local i
	for ((i = 0; i < ${3:-10} * 10; i++)); do
		[ -s "$M" ] && [ "$(metric_lit "$M" "$1")" = "$2" ] && return 0
		sleep 0.1
	done
	echo "  $1 = '$(metric_lit "$M" "$1")' (wanted '$2')"
	return 1
}
