#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# make sim-node: a simulated node to try things on, left running after make returns (#49
# item 15). The demo's node (tests/demo.sh: 2 PFs x 4 VFs on 2 NUMA nodes, veth "VFs",
# Debian's host-device then rdma-qos-sim), its three pods attached in namespace ai-training
# (trainer-0 lossless and NUMA-aligned, trainer-1 lossless on the other NUMA node, web
# lossy), each with a QP on its VF, and the node agent serving /metrics on loopback.
#   tests/simnode/sim-node.sh up          build it; print RDMA_QOS_SIM_ROOT=, metrics: URL,
#                                         teardown: COMMAND (then a few things to try)
#   tests/simnode/sim-node.sh down DIR    DEL the pods, stop the agent, remove the netns,
#                                         the veths and DIR: nothing of the node is left
# Everything it makes carries tests/leaks.sh's names (netns rqsn<pid>_*, links ens<N>f*,
# the directory ${TMPDIR:-/tmp}/rq-rqsn.*): make leak-check finds a node not torn down.
# tests/sim/simnode_check.sh (make sim-test) brings one up, asks it and tears it down.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../agent/lib.sh"

# what it needs: the simulated node's (root, netns, host-device, jq) and curl
simnode_can_run() {
	sim_can_run || return 1
	command -v curl > /dev/null || { echo "no curl"; return 1; }
}
usage() { echo "usage: $0 up | down DIR" >&2; exit 2; }

# down DIR: what up made for DIR (its sim-node.env says), removed; idempotent
down() {
	local dir=$1 pid name ns dev args rq
	[ -f "$dir/sim-node.env" ] || { echo "sim-node: $dir is not a sim-node directory (no sim-node.env)" >&2; return 1; }
	# shellcheck disable=SC1091
	. "$dir/sim-node.env" # T ROOT NS_PREFIX AGENT_PID AGENT_START PORT
	# the agent: only the process up started (the same pid and start time)
	if [ -n "${AGENT_PID:-}" ] && [ "$(sed 's/.*) //' "/proc/$AGENT_PID/stat" 2> /dev/null | awk '{ print $20 }')" = "$AGENT_START" ]; then
		kill -TERM "$AGENT_PID" 2> /dev/null
		for _ in $(seq 50); do kill -0 "$AGENT_PID" 2> /dev/null || break; sleep 0.1; done
		kill -KILL "$AGENT_PID" 2> /dev/null
	fi
	# the pods leave as a runtime would remove them: DEL through the chain
	if [ -f "$T/pods" ]; then
		while read -r name ns dev args rq; do
			chain_del "$ROOT" roce "ctr-$name" "$ns" net1 "$dev" "$rq" "$args" > /dev/null 2>&1
		done < "$T/pods"
	fi
	sim_suite_cleanup # the netns $NS_PREFIX*, the veth VFs, $T
	echo "sim-node: $dir torn down"
}

up() {
	local n pf0 port conf cat agent_start why
	if ! why=$(simnode_can_run); then echo "sim-node: cannot run: $why" >&2; exit 1; fi
	sim_suite_start sim-node rqsn simnode_can_run # $T, $ROOT, newns; removed on a failure
	chmod 755 "$T"
	# PF names like a real NIC's (ens<N>f0), N free on this host
	n=$(($$ % 900 + 100))
	while ip -o link show 2> /dev/null | grep -q ": ens${n}f"; do n=$((n + 1)); done
	"$MKNODE" --root "$ROOT" --pfs 2 --vfs 4 --numa-nodes 2 --cpus-per-node 4 --rdma configfs \
		--ecn yes --dcb yes --counters yes --pf-prefix "ens${n}f" > /dev/null || return 1
	"$MKNODE" --root "$ROOT" pod --uid 11111111-aaaa --cpus 0-1 > /dev/null # node 0: with the PF
	"$MKNODE" --root "$ROOT" pod --uid 22222222-bbbb --cpus 4-5 > /dev/null # node 1: not
	"$MKNODE" --root "$ROOT" pod --uid 33333333-cccc --cpus 2-3 > /dev/null
	sim_make_vfs "$ROOT"
	mapfile -t VFS < <(sim_vfs "$ROOT")
	pf0=${VFS[0]%% *}
	cat=$ROOT/etc/cni/rdma-qos/profiles.json
	jq '{profiles: (.profiles | {"roce-lossless", lossy}), namespaces: {"ai-training": .namespaces["ai-training"]},
		node: {pf: "ensure"}}' "$RQ_SRC/examples/profiles.json" > "$cat"
	conf=$(jq -c '.plugins[1]' "$RQ_SRC/examples/conflist-host-device.json")
	# attach NAME UID VF-INDEX [PROFILE] CLASS: the conflist's ADD, as a runtime runs it, and
	# one RC QP of the pod's process on the VF's RDMA device sending at CLASS
	attach() {
		local name=$1 pci dev ns args rq
		read -r _ pci dev <<< "${VFS[$3]}"
		ns=$(newns "$name")
		args="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai-training;K8S_POD_NAME=$name;K8S_POD_UID=$2"
		rq=$(jq -c --arg d "$pci" --arg p "$4" '. + {deviceID: $d} + if $p == "" then {} else {args: {cni: {profile: $p}}} end' <<< "$conf")
		chain_add "$ROOT" roce "ctr-$name" "$ns" net1 "$dev" "$rq" "$args" > "$T/$name.result" 2> "$T/$name.log" ||
			{ echo "sim-node: ADD of ai-training/$name failed:" >&2; cat "$T/$name.log" "$T/$name.result" >&2; return 1; }
		echo "$name $ns $dev $args $rq" >> "$T/pods"
		mkdir -p "$ROOT/rdma/qps" "$ROOT/ethtool/netns/$NS_PREFIX$name"
		echo "[{\"qpn\": $((17 + $3)), \"type\": \"RC\", \"state\": \"RTS\", \"pid\": $((4242 + $3)), \"comm\": \"python3\", \"tclass\": $5}]" \
			> "$ROOT/rdma/qps/$(rdma_of "$ROOT" "$pci").json"
		echo '{"rx_vport_rdma_unicast_bytes": 0, "tx_vport_rdma_unicast_bytes": 0}' > "$ROOT/ethtool/netns/$NS_PREFIX$name/net1.json"
	}
	attach trainer-0 11111111-aaaa 0 "" 106 || return 1
	attach trainer-1 22222222-bbbb 1 "" 106 || return 1
	attach web 33333333-cccc 2 lossy 0 || return 1
	port=$(free_port)
	# the agent outlives make: its own session, its output in a file, nothing of make's held
	RDMA_QOS_SIM_ROOT=$ROOT setsid "$SIM" agent --interval 5 --qp-census-interval 5 \
		--listen "127.0.0.1:$port" --metrics-file "$T/metrics.prom" < /dev/null > "$T/agent.log" 2>&1 &
	AGENT_PID=$!
	agent_start=$(sed 's/.*) //' "/proc/$AGENT_PID/stat" | awk '{ print $20 }')
	printf 'T=%q\nROOT=%q\nNS_PREFIX=%q\nAGENT_PID=%s\nAGENT_START=%s\nPORT=%s\n' \
		"$T" "$ROOT" "$NS_PREFIX" "$AGENT_PID" "$agent_start" "$port" > "$T/sim-node.env"
	trap - EXIT # from here on, down removes it
	# answering once the first census judged the QPs: every check of a pod has its answer
	judged() { curl -sf "http://127.0.0.1:$port/metrics" 2> /dev/null | grep -q '^rdma_qos_attachment_lossless{.*pod="trainer-0".*} 1$'; }
	if ! wait_until 30 judged; then
		echo "sim-node: the agent does not answer on 127.0.0.1:$port within 30 s:" >&2
		tail -20 "$T/agent.log" >&2
		down "$T" > /dev/null
		return 1
	fi
	echo "sim-node: up: $pf0 and ${pf0%0}1, pods ai-training/trainer-0, trainer-1 (lossless), web (lossy), agent pid $AGENT_PID"
	echo "RDMA_QOS_SIM_ROOT=$ROOT"
	echo "metrics: http://127.0.0.1:$port/metrics"
	echo "teardown: bash $HERE/sim-node.sh down $T"
	cat << EOF

Try (as root; the agent log is $T/agent.log):
  export RDMA_QOS_SIM_ROOT=$ROOT
  $SIM show --pod ai-training/trainer-0
  $SIM show --qps
  curl -s http://127.0.0.1:$port/metrics | grep rdma_qos_attachment_lossless
  # an outside writer moves PFC off priority 3: the agent repairs it within its interval
  jq -c '.pfc = [4]' $ROOT/dcb/$pf0.json > $T/pfc.json && mv $T/pfc.json $ROOT/dcb/$pf0.json
  # a QP of trainer-0 at class 0: show --pod says lossless: NO (qps) after the next census
  jq -c '.[0].tclass = 0' $ROOT/rdma/qps/$(rdma_of "$ROOT" "$(cut -d' ' -f2 <<< "${VFS[0]}")").json > $T/qp.json && mv $T/qp.json $ROOT/rdma/qps/$(rdma_of "$ROOT" "$(cut -d' ' -f2 <<< "${VFS[0]}")").json
Its files are laid out as tests/simnode/LAYOUT.md says.
EOF
}

case "${1:-}" in
up) up ;;
down) [ $# -eq 2 ] || usage; down "$2" ;;
*) usage ;;
esac
