#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# rdma-qos preflight on simulated nodes (issue 45 item 3): what each node lacks against
# what its catalog needs, with what to do, and the exit status. It only reads the node, so
# no network namespace is needed: a node per case from tests/simnode/mknode, the sim
# binary under RDMA_QOS_SIM_ROOT.
set -u
. "$(dirname "$0")/lib.sh"
[ -x "$SIM" ] || { echo "FAIL: no $SIM (make)"; exit 1; }
T=$(mktemp -d /tmp/rq-preflight.XXXXXX)
trap 'rm -rf "$T"' EXIT
# node NAME MKNODE-ARGS...: a node under $T/NAME; pf() its first PF's name
node() { local n=$1; shift; "$MKNODE" --root "$T/$n" --pfs 2 --vfs 2 --pf-prefix "pf$$" "$@" > /dev/null; }
pf0=pf$$0
pre() { local n=$1; shift; RDMA_QOS_SIM_ROOT="$T/$n" "$SIM" preflight "$@" 2>&1; }
cat_install() { mkdir -p "$T/$1/etc/cni/rdma-qos" && printf '%s\n' "$2" > "$T/$1/etc/cni/rdma-qos/profiles.json"; }

echo "== inbox driver (configfs only), host DCBX"
node inbox --rdma configfs --dcb yes
o=$(pre inbox)
check "exit 0: nothing the built-in roce-lossless needs is missing" [ $? -eq 0 ] || echo "$o"
check "rdma_cm and configfs ok" [ "$(grep -cE '^ok +(rdma_cm|configfs):' <<< "$o")" = 2 ]
check "per PF: DCBX ok (host)" grep -qE "^ok +dcbx $pf0:" <<< "$o"
check "per PF: inbox, the class reaches RDMA-CM only, and what NCCL needs" [ "$(grep -A1 \
	"class knob $pf0: inbox driver" <<< "$o" | grep -c 'NCCL_IB_TC=106')" = 1 ]
check "ib_core netns mode: shared" grep -qE '^info +ib_core netns: shared' <<< "$o"
check "no catalog: said, with what to do" grep -q 'no catalog installed' <<< "$o"
check "the agent not running here: LLDP unknown, with where to run it" grep -qE \
	'^unknown +lldp: the agent is not running here' <<< "$o"

echo "== DOCA-OFED (MOFED's tc knob), exclusive RDMA netns, PodResources, LLDP heard"
node ofed --rdma mofed --dcb yes --rdma-netns exclusive
mkdir -p "$T/ofed/var/lib/kubelet/pod-resources" "$T/ofed/run/rdma-qos/agent"
: > "$T/ofed/var/lib/kubelet/pod-resources/kubelet.sock"
printf '{"pfs": {"%s": {"peer": {"chassisId": "x"}}}, "listening": []}\n' "$pf0" \
	> "$T/ofed/run/rdma-qos/agent/peers.json"
o=$(pre ofed)
check "exit 0" [ $? -eq 0 ] || echo "$o"
check "the class reaches every QP (DOCA-OFED)" grep -qE "^ok +class knob $pf0: DOCA-OFED" <<< "$o"
check "ib_core exclusive: chain the rdma CNI first" [ "$(grep -A1 'ib_core netns: exclusive' <<< "$o" |
	grep -c 'rdma CNI')" = 1 ]
check "PodResources socket found" grep -qE '^ok +podresources:' <<< "$o"
check "LLDP heard on the first PF, not on the second" [ "$(grep -cE "^ok +lldp $pf0:" <<< "$o")\
$(grep -cE "^unknown +lldp pf$$1:" <<< "$o")" = 11 ]
j=$(RDMA_QOS_SIM_ROOT="$T/ofed" "$SIM" preflight --json)
check "--json: ready true, one object per check" [ "$(jq -c '[.ready, (.checks | length > 8),
	([.checks[].verdict] | unique | . - ["ok", "info", "unknown"] | length)]' <<< "$j")" = '[true,true,0]' ]

echo "== what the catalog requires decides the exit"
node bare --rdma none --dcb yes
o=$(pre bare)
check "no RDMA-CM, no knob, a profile with a class: exit 1" [ $? -eq 1 ] || echo "$o"
check "... configfs PROBLEM with what to do" [ "$(grep -A1 '^PROBLEM  configfs' <<< "$o" |
	grep -c 'mount -t configfs')" = 1 ]
check "... the last line says something required is missing" [ "$(tail -1 <<< "$o")" = \
	'preflight: something the catalog requires is missing' ]
node locked --rdma configfs --dcb yes
echo '{"dcbxLocked": true}' > "$T/locked/dcb/$pf0.json"
o=$(pre locked)
rc=$?
check "firmware-owned DCBX and node.pf ensure (the default): exit 1" [ $rc -eq 1 ]
check "... a PROBLEM line for DCBX, error 106 named" grep -qE "^PROBLEM +dcbx $pf0: firmware or an LLDP agent owns DCBX.*106" <<< "$o"
check "... with what to do (host mode, or node.pf verify)" [ "$(grep -A1 "dcbx $pf0:" <<< "$o" |
	grep -c 'node.pf verify')" = 1 ]
cat_install locked '{"profiles": {"v": {"pfc": [3], "trafficClass": 106}},
	"namespaces": {"*": {"default": "v", "allow": ["v"]}}, "node": {"pf": "verify"}}'
o=$(pre locked)
rc=$?
check "... the same port under a catalog with node.pf verify: only information, exit 0" [ $rc -eq 0 ] || echo "$o"
check "... an info line for firmware-owned DCBX" grep -qE "^info +dcbx $pf0: firmware" <<< "$o" || echo "$o"
check "... and the installed catalog is named" grep -qE '^ok +catalog: /etc/cni/rdma-qos/profiles.json' <<< "$o"
cat_install inbox '{"profiles": {"a": {"trafficClass": 106, "tosScope": "all-qps"}},
	"namespaces": {"*": {"default": "a", "allow": ["a"]}}}'
o=$(pre inbox)
rc=$?
check "tosScope all-qps on an inbox driver (only RDMA-CM reachable): exit 1" [ $rc -eq 1 ]
check "... a PROBLEM line for the inbox class knob" grep -qE "^PROBLEM +class knob $pf0: inbox" <<< "$o"
o=$(RDMA_QOS_SIM_ROOT="$T/inbox" "$SIM" preflight --help)
rc=$?
check "preflight --help: exit 0" [ $rc -eq 0 ]
check "... preflight --help prints its own usage" grep -q '^usage: rdma-qos-sim preflight' <<< "$o"
echo "== node.wiring against the node's ports: a pf glob that matches the management NIC (issue 49 item 14)"
node wired --rdma configfs --dcb yes
# eno1: the node's management NIC, a PCI function that is no SR-IOV PF (the layout of a PF's link)
ln -s ../../devices/pci0000:00/0000:00:1f.6/net/eno1 "$T/wired/sys/class/net/eno1"
mkdir -p "$T/wired/sys/devices/pci0000:00/0000:00:1f.6/net/eno1"
cat_install wired '{"node": {"wiring": [{"pf": "*", "partner": "leaf-*", "rail": "r0"}]}}'
o=$(pre wired)
rc=$?
check "a pf glob \"*\" that matches eno1: exit 0 (a warning, nothing required is missing)" [ $rc -eq 0 ] || echo "$o"
check "... a warning naming eno1, the rule and the rail" grep -qE \
	'^warning +wiring eno1: node.wiring\[0\].pf "\*" matches eno1, which is not an SR-IOV PF \(a management NIC\?\).*rail r0' \
	<<< "$o" || echo "$o"
check "... with what to do" [ "$(grep -EA1 '^warning +wiring eno1' <<< "$o" | grep -c 'name the rails only')" = 1 ]
check "... and none for the PFs" [ "$(grep -c "wiring $pf0" <<< "$o")" = 0 ]
mkdir -p "$T/wired/proc/net"
printf 'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n%s\t00000000\t0101A8C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n' \
	"$pf0" > "$T/wired/proc/net/route"
o=$(pre wired)
check "a PF that carries the default route: a warning too" grep -qE \
	"^warning +wiring $pf0: .*which carries the default route" <<< "$o" || echo "$o"
cat_install wired '{"node": {"wiring": [{"pf": "'"pf$$"'*", "partner": "leaf-*", "rail": "r0"}]}}'
: > "$T/wired/proc/net/route"
o=$(pre wired)
check "rules that name the rails only: no wiring warning" [ "$(grep -c '^warning' <<< "$o")" = 0 ] || echo "$o"
check "... --json: no wiring check either" [ "$(RDMA_QOS_SIM_ROOT="$T/wired" "$SIM" preflight --json |
	jq -r '[.checks[] | select(.check == "wiring")] | length')" = 0 ]
cat_install wired '{"node": {"wiring": [{"pf": "e*", "partner": "leaf-*", "rail": "r0"}]}}'
check "... and with eno1 named again, --json says warning, ready stays true" same "$(RDMA_QOS_SIM_ROOT="$T/wired" \
	"$SIM" preflight --json | jq -c '[.ready, [.checks[] | select(.check == "wiring") | .verdict]]')" \
	'[true,["warning"]]'
summary
