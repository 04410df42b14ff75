#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The link health's cost (issue 43, make agent-bench): 256 attachments on a
# simulated node of 8 PFs x 32 VFs, `agent --once` with every PF reporting
# carrier flaps, FEC, PHY symbol errors, link modes and two devlink health
# reporters, against the same node with none of those files (nothing
# reported: each read is one failed open). Median of 5 runs each, wall time:
# the link health is read after the pass, so rdma_qos_pass_duration_seconds
# does not include it; the pass is printed beside it.
set -u
. "$(dirname "$0")/lib.sh"
why=$(sim_can_run) || { echo "agent-bench (link): cannot run: $why"; exit 1; }
T=$(mktemp -d /tmp/rq-lbench.XXXXXX)
ROOT=$T/node
cleanup() { ip netns del "rqlb$$" 2>/dev/null; bench_pods_del "rqlb$$"; ip link del "rqlb$$" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
"$MKNODE" --root "$ROOT" --pfs 8 --vfs 32 --rdma configfs --ecn yes --dcb yes --pf-prefix lb$$ > /dev/null || exit 1
mapfile -t VFS < <(sim_vfs "$ROOT")
read -r _ VF0PCI VF0 <<< "${VFS[0]}"
ip netns add "rqlb$$"
ip link add "$VF0" type veth peer name "${VF0}p"
ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p;K8S_POD_UID=u"
chain_add "$ROOT" roce c0 "/run/netns/rqlb$$" net1 "$VF0" "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF0PCI\"}" "$ARGS" > /dev/null 2>&1 || { echo "agent-bench (link): ADD failed"; exit 1; }
SD=$(state_dir "$ROOT")
REC=$(ls "$SD"/*.json | head -1)
jq -c . "$REC" > "$T/rec0.json"
rm -f "$REC"
bench_records "$ROOT" "$SD" "$T/rec0.json" "rqlb$$" 0 256 || { echo "agent-bench (link): cannot make the pods"; exit 1; }
MED() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
files() { # on|off
	local pf pci
	mkdir -p "$ROOT/ethtool" "$ROOT/devlink"
	for pf in $(sim_vfs "$ROOT" | awk '!s[$1]++ { print $1 }'); do
		pci=$(basename "$(readlink -f "$ROOT/sys/class/net/$pf/device")")
		if [ "$1" = on ]; then
			echo 3 > "$ROOT/sys/class/net/$pf/carrier_down_count"
			echo '{"corrected": 10, "uncorrectable": 0}' > "$ROOT/ethtool/$pf.fec.json"
			echo '{"SymbolErrorDuringCarrier": 0}' > "$ROOT/ethtool/$pf.phy.json"
			echo '{"speed": 400000, "localMax": 400000, "partnerMax": 400000}' > "$ROOT/ethtool/$pf.link.json"
			echo '{"fw": {"errors": 0}, "fw_fatal": {"errors": 0}}' > "$ROOT/devlink/$pci.health.json"
		else
			rm -f "$ROOT/sys/class/net/$pf/carrier_down_count" "$ROOT/ethtool/$pf".{fec,phy,link}.json "$ROOT/devlink/$pci.health.json"
		fi
	done
}
printf '%-8s %-26s\n' "link" "256 attachments, 8 PFs: pass / wall ms"
for mode in off on off on; do
	files $mode
	: > "$T/p"; : > "$T/w"
	for _ in 1 2 3 4 5; do
		t0=$(date +%s%N)
		RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --once --metrics-file "$T/m" --log-level error 2>/dev/null
		echo $(( ($(date +%s%N) - t0) / 1000 )) >> "$T/w"
		awk '$1 == "rdma_qos_pass_duration_seconds" { printf "%d\n", $2 * 1e6 }' "$T/m" >> "$T/p"
	done
	n=$(grep -c '^rdma_qos_port_link_degraded{' "$T/m")
	[ $mode = on ] && [ "$n" != 40 ] && { echo "agent-bench (link): $n degraded series, wanted 8 PFs x 5"; exit 1; }
	printf '%-8s %s\n' "$mode" "$(awk -v a="$(MED < "$T/p")" -v b="$(MED < "$T/w")" 'BEGIN { printf "%.1f / %.1f", a / 1000, b / 1000 }')"
done
