#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Guest side of the fabric test (issue 43 item 4; DESIGN.md "The fabric under the pod"),
# run by guest.sh: the production agent on a real kernel, every link-health source read
# through the kernel's own interfaces, none faked.
# - netdevsim (built by guest.sh from the kernel's source package) as a rail port
#   "rail0", cabled by netdevsim's link_device to a second netdevsim port "swp" in netns
#   sw, where Debian's lldpd is the leaf switch. No pod and no baseline on it: the
#   node.wiring rule that names it makes the agent watch it. Right system name: wiring
#   ok; wrong: MISWIRED (metric, NFD, show's partner line). Its FEC statistics come
#   over ethtool netlink (netdevsim's fixed 123 corrected / 4 uncorrectable: a count
#   that does not grow is no news); its devlink health reporters ("dummy", "empty")
#   over devlink netlink, an error injected through debugfs (break_health) turns
#   degraded{health} on for an interval; the switch port down and up drops rail0's
#   carrier for real (carrier_down_count): degraded{flap}; netdevsim reports no link
#   modes and no PHY statistics, so neither speed nor symbol-error series exists.
# - igb with an igbvf VF in pod ai/p0 (host-device + rdma-qos ADD): `ip link set PF
#   down/up` flaps the PF's carrier; the attachment gets the `link` problem
#   (rdma_qos_attachment_problem, show --pod's link line) until the port is quiet.
set -u
. "${RQSRC:?}/tests/vm/lib.sh"
INTERVAL=2
M=/tmp/rdma-qos.prom
NFD=/tmp/nfd/rdma-qos
SWD=/tmp/sw
metric() { awk -v k="$1" '$1 == k { print $2 }' "$M"; }
# mok 'series' VALUE [MS]: until the agent's metrics file has it ("" = no such series)
mok() { until_ms "${3:-10000}" sh -c "[ \"\$(awk -v k='$1' '\$1 == k { print \$2 }' $M)\" = '$2' ]"; }
lldpc() { ip netns exec sw lldpcli -u "$SWD/lldpd.sock" "$@" > /dev/null; }
label() { until_ms 5000 grep -qx "feature.node.kubernetes.io/rdma-qos.wiring=$1" "$NFD" > /dev/null; }
deg() { metric "rdma_qos_port_link_degraded{pf=\"$1\",reason=\"$2\"}"; }

# the node catalog (a tmpfs overlay over the guest's read-only /etc, as adopt.sh does)
modprobe overlay; mkdir -p /run/etc-up /run/etc-work
mount -t overlay overlay -o lowerdir=/etc,upperdir=/run/etc-up,workdir=/run/etc-work /etc ||
	fail "overlay over /etc for the node catalog"
mount -t debugfs none /sys/kernel/debug 2> /dev/null
mkdir -p /etc/cni/rdma-qos /var/lib/kubelet "${NFD%/*}" "$SWD" && chmod 711 "$SWD"
cat > /etc/cni/rdma-qos/profiles.json << 'EOF'
{"namespaces": {"*": {"default": "roce-lossless", "allow": ["roce-lossless"]}},
 "node": {"wiring": [{"pf": "rail*", "partner": "leaf-r1-*", "port": "swp[1-9]", "rail": "r1"}]}}
EOF
check "validate accepts the catalog" "$RQ" validate /etc/cni/rdma-qos/profiles.json

echo "== netdevsim: rail0 and the switch's swp on one virtual cable"
modprobe netdevsim
check "modprobe netdevsim (built from linux-source-$(uname -r | cut -d. -f1,2))" [ -d /sys/bus/netdevsim ]
echo "11 1" > /sys/bus/netdevsim/new_device && echo "12 1" > /sys/bus/netdevsim/new_device
for _ in $(seq 100); do
	[ -d /sys/bus/netdevsim/devices/netdevsim11/net ] && [ -d /sys/bus/netdevsim/devices/netdevsim12/net ] && break
	sleep 0.1
done
ip link set "$(ls /sys/bus/netdevsim/devices/netdevsim11/net)" name rail0
S=$(ls /sys/bus/netdevsim/devices/netdevsim12/net)
ip netns add sw && ip link set "$S" netns sw && ip -n sw link set "$S" name swp && ip -n sw link set lo up
exec {fa}< /proc/self/ns/net {fb}< /run/netns/sw
linked=no
echo "$fa:$(cat /sys/class/net/rail0/ifindex) $fb:$(ip netns exec sw cat /sys/class/net/swp/ifindex)" \
	> /sys/bus/netdevsim/link_device && linked=yes
check "netdevsim11's port is rail0, netdevsim12's is swp in netns sw, the two linked" [ $linked = yes ]
ip link set rail0 up && ip -n sw link set swp up
ms=$(until_ms 5000 sh -c '[ "$(cat /sys/class/net/rail0/carrier)$(ip netns exec sw cat /sys/class/net/swp/carrier)" = 11 ]'); rc=$?
check "carrier on both ends (took $ms ms)" [ $rc -eq 0 ]
{
	echo "configure system hostname leaf-r1-01"
	echo "configure ports swp lldp portidsubtype local swp5 description \"Ethernet to rail0\""
	echo "configure lldp tx-hold 4"
	echo "configure lldp tx-interval 1"
} > "$SWD/lldpd.conf"
chmod 644 "$SWD/lldpd.conf"
ip netns exec sw lldpd -d -u "$SWD/lldpd.sock" -p "$SWD/lldpd.pid" -I swp -O "$SWD/lldpd.conf" \
	> "$SWD/lldpd.log" 2>&1 &
SWPID=$!
timeout 10 tcpdump -i rail0 -c 1 -nn -e ether proto 0x88cc > "$SWD/cap.txt" 2> /dev/null
check "lldpd's LLDPDU crosses the netdevsim cable (tcpdump on rail0)" grep -q 0x88cc "$SWD/cap.txt"

echo "== igb with a VF in pod ai/p0"
dcb_rxe_node
ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p0;K8S_POD_UID=pod-n0"
ip netns add pod1
prev=$(conf "{\"type\":\"host-device\",\"device\":\"$VF0\"}" | run $HD ADD c1 /run/netns/pod1 net1 "$ARGS")
ip netns exec pod1 rdma link add rxe0 type rxe netdev net1
conf "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF0PCI\"}" "$prev" | run $RQ ADD c1 /run/netns/pod1 net1 "$ARGS" > /dev/null 2> /tmp/add.log
rc=$?
check "ADD on $PF succeeds" [ $rc -eq 0 ]
[ $rc -eq 0 ] || cat /tmp/add.log

"$RQ" agent --interval $INTERVAL --metrics-file $M --listen 127.0.0.1:9309 \
	--nfd-features-file "$NFD" 2> /tmp/agent.log &
APID=$!

echo "== wiring of a port no pod uses yet"
ms=$(mok 'rdma_qos_peer_wiring{pf="rail0",rail="r1"}' 1 15000); rc=$?
check "rdma_qos_peer_wiring{rail0,r1} 1: leaf-r1-01 swp5 (took $ms ms)" [ $rc -eq 0 ]
check "... NFD rdma-qos.wiring=ok" label ok
check "... $PF (no rule) has no wiring series" [ "$(grep -c "^rdma_qos_peer_wiring{pf=\"$PF\"" $M)" = 0 ]
check "show: rail0's partner line says 'wiring: rail r1 ok'" \
	sh -c "'$RQ' show 2> /dev/null | grep -q '^  partner leaf-r1-01 port swp5 .*; wiring: rail r1 ok$'"
lldpc configure system hostname leaf-r2-07
ms=$(mok 'rdma_qos_peer_wiring{pf="rail0",rail="r1"}' 0 15000); rc=$?
check "lldpd says leaf-r2-07: rdma_qos_peer_wiring 0 (took $ms ms)" [ $rc -eq 0 ]
check "... NFD rdma-qos.wiring=miswired" label miswired
check "... show: 'wiring: MISWIRED (rail r1 expects leaf-r1-* swp[1-9], partner leaf-r2-07 swp5)'" \
	sh -c "'$RQ' show 2> /dev/null | grep -qF '; wiring: MISWIRED (rail r1 expects leaf-r1-* swp[1-9], partner leaf-r2-07 swp5)'"
lldpc configure system hostname leaf-r1-01
ms=$(mok 'rdma_qos_peer_wiring{pf="rail0",rail="r1"}' 1 15000); rc=$?
check "leaf-r1-01 again: 1 (took $ms ms)" [ $rc -eq 0 ]

echo "== rail0's link health through ethtool and devlink netlink"
check "FEC blocks over ethtool netlink: netdevsim's corrected 123, uncorrectable 4" \
	[ "$(metric 'rdma_qos_port_fec_blocks_total{pf="rail0",kind="corrected"}'):$(metric 'rdma_qos_port_fec_blocks_total{pf="rail0",kind="uncorrectable"}')" = 123:4 ]
check "... a count that does not grow is no news: degraded{fec_uncorrectable} 0" [ "$(deg rail0 fec_uncorrectable)" = 0 ]
check "devlink health reporters of netdevsim/netdevsim11: dummy 0, empty 0" \
	[ "$(metric 'rdma_qos_port_health_errors_total{pf="rail0",reporter="dummy"}'):$(metric 'rdma_qos_port_health_errors_total{pf="rail0",reporter="empty"}')" = 0:0 ]
check "no link modes, no PHY statistics in netdevsim: no speed or symbol-error series" \
	[ "$(grep -c '^rdma_qos_port_\(speed_bytes\|symbol_errors_total\){pf="rail0"' $M)" = 0 ]
check "... and no speed or symbol_errors reason" [ "$(grep -c '^rdma_qos_port_link_degraded{pf="rail0",reason="\(speed\|symbol_errors\)"}' $M)" = 0 ]
check "the metrics file passes promtool" promcheck $M
echo "rq-test firmware hiccup" > /sys/kernel/debug/netdevsim/netdevsim11/health/break_health
check "break_health: devlink counts the error (devlink health show)" \
	sh -c "devlink -j health show netdevsim/netdevsim11 reporter dummy | jq -e '.. | objects | select(has(\"error\")) | .error == 1' > /dev/null"
ms=$(mok 'rdma_qos_port_health_errors_total{pf="rail0",reporter="dummy"}' 1 8000); rc=$?
check "rdma_qos_port_health_errors_total{rail0,dummy} 1 (took $ms ms)" [ $rc -eq 0 ]
check "... degraded{health} 1" [ "$(deg rail0 health)" = 1 ]
ms=$(mok 'rdma_qos_port_link_degraded{pf="rail0",reason="health"}' 0 $((INTERVAL * 3000 + 2000))); rc=$?
check "... clears once no error came for an interval (took $ms ms)" [ $rc -eq 0 ]
f0=$(cat /sys/class/net/rail0/carrier_down_count)
ip -n sw link set swp down; sleep 0.3; ip -n sw link set swp up
check "the switch port down and up: rail0's carrier_down_count $f0 -> $((f0 + 1))" \
	[ "$(cat /sys/class/net/rail0/carrier_down_count)" = $((f0 + 1)) ]
ms=$(mok "rdma_qos_port_link_flaps_total{pf=\"rail0\"}" $((f0 + 1)) 8000); rc=$?
check "rdma_qos_port_link_flaps_total{rail0} $((f0 + 1)) (took $ms ms)" [ $rc -eq 0 ]
check "... degraded{flap} 1" [ "$(deg rail0 flap)" = 1 ]
ms=$(mok 'rdma_qos_port_link_degraded{pf="rail0",reason="flap"}' 0 $((INTERVAL * 3000 + 2000))); rc=$?
check "... clears on a quiet port (took $ms ms)" [ $rc -eq 0 ]

echo "== a flap of the pod's PF"
# 1 while ai/p0 net1 has the link problem (the family has a series only for a problem)
prob() { grep -c "^rdma_qos_attachment_problem{namespace=\"ai\",pod=\"p0\",interface=\"net1\",vf=\"$VF0PCI\",pf=\"$PF\",check=\"link\"} 1$" $M; }
ms=$(mok "rdma_qos_port_link_degraded{pf=\"$PF\",reason=\"flap\"}" 0 10000); rc=$?
check "$PF quiet at first: degraded{flap} 0, no link problem for ai/p0" [ "$rc:$(prob)" = 0:0 ]
f0=$(cat "/sys/class/net/$PF/carrier_down_count")
ip link set "$PF" down; ip link set "$PF" up
until_ms 10000 grep -qx 1 "/sys/class/net/$PF/carrier" > /dev/null
f1=$(cat "/sys/class/net/$PF/carrier_down_count")
check "ip link set $PF down/up: carrier_down_count $f0 -> $f1, carrier back" \
	[ "$((f1 > f0)):$(cat "/sys/class/net/$PF/carrier")" = 1:1 ]
ms=$(mok "rdma_qos_port_link_degraded{pf=\"$PF\",reason=\"flap\"}" 1 8000); rc=$?
check "degraded{$PF,flap} 1 (took $ms ms)" [ $rc -eq 0 ]
check "... ai/p0 net1 has the link problem" [ "$(prob)" = 1 ]
out=$("$RQ" show --pod ai/p0 2>&1); rc=$?
check "... show --pod ai/p0: 'PROBLEM the PF's link is degraded: flap'" \
	grep -q "^  link  *PROBLEM  *the PF's link is degraded: flap$" <<< "$out"
check "... show --pod exits 1 ($rc)" [ $rc = 1 ]
ms=$(mok "rdma_qos_port_link_degraded{pf=\"$PF\",reason=\"flap\"}" 0 $((INTERVAL * 3000 + 2000))); rc=$?
check "... clears on a quiet port, the link problem too (took $ms ms)" [ "$rc:$(prob)" = 0:0 ]

kill "$SWPID" 2> /dev/null; wait "$SWPID" 2> /dev/null
kill -TERM $APID; wait $APID
check "the agent exits 0 on SIGTERM" [ $? -eq 0 ]
grep -i "error" /tmp/agent.log | head -5
echo "$PASS passed, $FAIL failed"
[ $FAIL -eq 0 ]
