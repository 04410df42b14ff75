#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Guest side of the on-the-wire test (run by guest.sh inside QEMU, see
# tests/vm/README.md "What wire.sh asserts"): real RoCEv2 packets from rxe on
# igbvf VFs, captured with tcpdump on the sending VF, after the production
# rdma-qos ran after Debian's host-device as for a hostNetwork pod
# (CNI_NETNS=/proc/1/ns/net: on 6.12 rxe's UDP sockets live in the initial
# netns only). The peer is the VFs' PF (dcbsim), with rxe on it; policy routing
# sends VF <-> PF traffic through QEMU's igb instead of the local loopback. Last, adoption
# (issue 38): the production agent adopts the VF no CNI call was made for, and RDMA-CM
# connections made after it carry the class (control: node.unchained report).
set -u
. "${RQSRC:?}/tests/vm/lib.sh"
T0=$SECONDS
PFIP=10.70.0.1 V0IP=10.70.0.10 V1IP=10.70.0.11
CAP=/tmp/wire.pcap

modprobe igb && modprobe igbvf || fail "modprobe igb igbvf"
udevadm settle 2>/dev/null; sleep 1
PFPCI=0000:81:00.0
vf_enable "$PFPCI" 2
for _ in $(seq 100); do [ -d /sys/bus/pci/devices/$PFPCI/virtfn1/net ] && break; sleep 0.2; done
VF0PCI=$(basename "$(readlink -f /sys/bus/pci/devices/$PFPCI/virtfn0)"); VF0=$(ls /sys/bus/pci/devices/$VF0PCI/net)
VF1PCI=$(basename "$(readlink -f /sys/bus/pci/devices/$PFPCI/virtfn1)"); VF1=$(ls /sys/bus/pci/devices/$VF1PCI/net)
echo "kernel $(uname -r); PF $PF ($PFPCI) VFs $VF0 ($VF0PCI) $VF1 ($VF1PCI)"
modprobe dcbsim ifname="$PF" || fail "modprobe dcbsim"
modprobe rdma_rxe && modprobe rdma_cm && modprobe rdma_ucm && modprobe ib_uverbs || fail "modprobe rxe, rdma_cm, rdma_ucm, ib_uverbs"
ip link set "$VF0" up; ip link set "$VF1" up
mkdir -p /var/lib/kubelet
ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p0;K8S_POD_UID=pod-n0"

# the node catalog (a tmpfs overlay over the guest's read-only /etc): lossy = class 0
modprobe overlay; mkdir -p /run/etc-up /run/etc-work
mount -t overlay overlay -o lowerdir=/etc,upperdir=/run/etc-up,workdir=/run/etc-work /etc ||
	fail "overlay over /etc for the node catalog"
mkdir -p /etc/cni/rdma-qos
cat > /etc/cni/rdma-qos/profiles.json <<'EOF'
{
  "profiles": { "lossy": { "trafficClass": 0 } },
  "namespaces": { "*": { "default": "roce-lossless", "allow": ["roce-lossless", "lossy"] } }
}
EOF

# hostnet CID VF PROFILE: host-device ADD with the host's netns as the pod's (the VF keeps
# its name), then the VF's address and its rxe; prints host-device's result
hostnet() {
	conf "{\"type\":\"host-device\",\"device\":\"$2\"}" | run $HD ADD "$1" /proc/1/ns/net "$2" "$ARGS"
}
# rxe_up RXE NETDEV: (re)make the rxe device on NETDEV
rxe_up() { rdma link add "$1" type rxe netdev "$2"; }
# gid_v2 RXE IP: the index of the RoCEv2 GID of IP (::ffff:a.b.c.d)
gid_v2() {
	local g h
	h=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${2//./ })
	for g in /sys/class/infiniband/"$1"/ports/1/gids/*; do
		[ "$(cat "$g")" = "$h" ] && [ "$(cat /sys/class/infiniband/"$1"/ports/1/gid_attrs/types/"${g##*/}" 2>/dev/null)" = "RoCE v2" ] &&
			{ echo "${g##*/}"; return; }
	done
}
tos_of() { cat "/sys/kernel/config/rdma_cm/$1/ports/1/default_roce_tos" 2>/dev/null; }

echo "== layout: the VFs in the host netns (as a hostNetwork pod's), rxe on each VF and on the PF"
P0=$(hostnet c0 "$VF0"); P1=$(hostnet c1 "$VF1")
check "host-device ADD into the host netns keeps $VF0" [ "$(jq -r '.interfaces[0].name' <<< "$P0")" = "$VF0" ]
check "host-device ADD into the host netns keeps $VF1" [ "$(jq -r '.interfaces[0].name' <<< "$P1")" = "$VF1" ]
ip link set "$VF0" up; ip link set "$VF1" up
ip addr add $PFIP/24 dev "$PF"; ip addr add $V0IP/24 dev "$VF0"; ip addr add $V1IP/24 dev "$VF1"
for d in all default "$PF" "$VF0" "$VF1"; do
	sysctl -qw net.ipv4.conf."$d".accept_local=1 net.ipv4.conf."$d".rp_filter=0
done
# all three addresses are local: without this the kernel would loop them back. Locally
# sent packets between them take the wire (policy routing ahead of the local table);
# received ones are delivered locally as usual
ip rule add pref 1000 lookup local && ip rule del pref 0
n=10
for pair in "$VF0 $V0IP $PF $PFIP" "$VF1 $V1IP $PF $PFIP" "$PF $PFIP $VF0 $V0IP" "$PF $PFIP $VF1 $V1IP"; do
	set -- $pair
	ip route add "$4/32" dev "$1" src "$2" table $n
	ip rule add pref $n iif lo from "$2" to "$4" lookup $n
	ip neigh replace "$4" lladdr "$(cat /sys/class/net/"$3"/address)" dev "$1" nud permanent
	n=$((n + 1))
done
rxe_up rxe0 "$VF0"; rxe_up rxe1 "$VF1"; rxe_up rxep "$PF"
# the RoCEv2 GIDs come from the addresses a moment after the rxe devices
gids_ready() { [ -n "$(gid_v2 rxe0 $V0IP)" ] && [ -n "$(gid_v2 rxe1 $V1IP)" ] && [ -n "$(gid_v2 rxep $PFIP)" ]; }
ms=$(until_ms 10000 gids_ready); rc=$?
check "rxe0, rxe1, rxep have their RoCEv2 IPv4 GIDs (after $ms ms)" [ $rc -eq 0 ]
r0=$(ip route get $PFIP from $V0IP); r1=$(ip route get $PFIP from $V1IP)
echo "routes: $(head -1 <<< "$r0"); $(head -1 <<< "$r1")"
check "$V0IP -> $PFIP leaves through $VF0, $V1IP -> $PFIP through $VF1 (not the loopback)" \
	grep -q "dev $VF0 .*dev $VF1 " <<< "$(head -1 <<< "$r0") $(head -1 <<< "$r1") "

# a class an admin set before the pods: DEL must put it back
for r in rxe0 rxe1; do mkdir -p /sys/kernel/config/rdma_cm/$r; echo 32 > /sys/kernel/config/rdma_cm/$r/ports/1/default_roce_tos; done
check "default_roce_tos preset to 32 on rxe0 and rxe1" [ "$(tos_of rxe0) $(tos_of rxe1)" = "32 32" ]

# cap_start IF / cap_stop: tcpdump on IF writes $CAP, and on the PF $CAP.pf (what
# arrived through QEMU's igb); traffic in between. --immediate-mode: no packet is
# left in a half-filled TPACKET_V3 block when tcpdump is stopped
cap_start() {
	local f
	rm -f $CAP $CAP.pf; : > /tmp/tcpdump.err; : > /tmp/tcpdump.pf.err
	tcpdump -i "$1" --immediate-mode -nn -U -Z root -w $CAP udp port 4791 2> /tmp/tcpdump.err &
	CAPPID=$!
	tcpdump -i "$PF" -Q in --immediate-mode -nn -U -Z root -w $CAP.pf udp port 4791 2> /tmp/tcpdump.pf.err &
	CAPPID="$CAPPID $!"
	for f in /tmp/tcpdump.err /tmp/tcpdump.pf.err; do
		until_ms 10000 grep -q 'listening on' $f > /dev/null || echo "tcpdump did not start: $(cat $f)"
	done
}
cap_stop() { sleep 1; kill -INT $CAPPID; wait $CAPPID 2>/dev/null; }
# tos_seen SRCIP [PCAP]: the TOS bytes of the captured RoCEv2 packets sent from SRCIP, "TOS xCOUNT"
tos_seen() {
	tcpdump -nn -v -r "${2:-$CAP}" "udp dst port 4791 and src host $1" 2>/dev/null |
		grep -oE '^[0-9:.]+ IP \(tos 0x[0-9a-f]+' | grep -oE '0x[0-9a-f]+$' | sort | uniq -c |
		awk '{ printf "%s%s x%s", (NR > 1 ? ", " : ""), $2, $1 }'
}
# only_tos SRCIP TOS [PCAP]: every captured RoCEv2 packet from SRCIP carries TOS (and there are some)
only_tos() { local s; s=$(tos_seen "$1" "${3:-$CAP}"); [ -n "$s" ] && [ "$(grep -o '0x[0-9a-f]*' <<< "$s" | sort -u)" = "$2" ]; }
# rping_once SRCIP [DSTIP]: an RDMA-CM connection (rping, 3 ping-pongs of RDMA READ/WRITE/SEND) to
# the PF (to DSTIP when given: shared.sh's from the PF's own rxe to a VF's).
# It completed when the client printed its 3 pings (-v) and saw the server's DISCONNECT. rping
# itself can then hang: its CM thread may get RDMA_CM_EVENT_TIMEWAIT_EXIT after the client's
# DISCONNECT and print "unhandled event" while the main thread waits on (seen once in CI under
# two TCG guests); that run completed on the wire, so it is reported, and counted as completed.
# stdbuf -oL: the pings printed before a hang must reach the file before timeout kills rping.
rping_once() {
	local dst=${2:-$PFIP}
	timeout 40 stdbuf -oL rping -s -v -a "$dst" -C 3 > /tmp/rping.srv 2>&1 &
	local sp=$!
	sleep 1
	timeout 40 stdbuf -oL rping -c -v -a "$dst" -I "$1" -C 3 -S 64 > /tmp/rping.cli 2>&1
	local rc=$?
	wait $sp
	local pings; pings=$(grep -c '^ping data: rdma-ping-' /tmp/rping.cli)
	if [ $rc -eq 124 ] && [ "$pings" -eq 3 ] && grep -q 'DISCONNECT EVENT' /tmp/rping.cli; then
		echo "rping client completed its 3 pings and disconnected, then hung (rping's TIMEWAIT_EXIT race): $(tail -1 /tmp/rping.cli)"
		rc=0
	fi
	[ $rc -eq 0 ] || { echo "rping client rc $rc after $pings pings: $(tail -3 /tmp/rping.cli)"; echo "server: $(tail -3 /tmp/rping.srv)"; }
	return $rc
}
# wire NAME SRCDEV SRCIP [DSTIP]: capture on SRCDEV around an rping from SRCIP (to the PF, or
# DSTIP); sets SEEN, SEENPF (what the PF received) and RPRC
wire() {
	cap_start "$2"
	rping_once "$3" "${4:-}"; RPRC=$?
	cap_stop
	SEEN=$(tos_seen "$3") SEENPF=$(tos_seen "$3" $CAP.pf)
	echo "$1: rping rc $RPRC, RoCEv2 packets from $3 sent on $2: ${SEEN:-none}, received on $PF: ${SEENPF:-none} ($(tcpdump -nn -r $CAP 2>/dev/null | wc -l) captured in all on $2)"
	if [ -n "$SEEN" ]; then
		echo "  e.g.: $(tcpdump -nn -v -r $CAP "src host $3" 2>/dev/null | head -2 | tr -s ' \n' ' ')"
	else
		tcpdump -nn -v -r $CAP 2>/dev/null | head -6; tail -4 /tmp/rping.cli
	fi
}

echo "== before ADD: the admin's class 32 on the wire"
wire "preset" "$VF0" $V0IP
check "rxe0's RoCEv2 packets before ADD carry TOS 0x20 (class 32): $SEEN" only_tos $V0IP 0x20

echo "== lossless ADD on $VF0, lossy ADD on $VF1 (CNI_NETNS=/proc/1/ns/net)"
conf "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF0PCI\",\"numa\":\"off\"}" "$P0" |
	run "$RQ" ADD c0 /proc/1/ns/net "$VF0" "$ARGS" > /tmp/add0.out 2> /tmp/add0.log
rc=$?
[ $rc -eq 0 ] || { cat /tmp/add0.out /tmp/add0.log; }
check "lossless ADD succeeds (rc $rc)" [ $rc -eq 0 ]
check "lossless ADD: default_roce_tos 106 on rxe0 (record: previous $(jq -r '.rdma.knobs.configfs.previous' /run/rdma-qos/state/roce_c0_"$VF0".json 2>/dev/null))" [ "$(tos_of rxe0)" = 106 ]
conf "{\"type\":\"rdma-qos\",\"profile\":\"lossy\",\"deviceID\":\"$VF1PCI\",\"numa\":\"off\"}" "$P1" |
	run "$RQ" ADD c1 /proc/1/ns/net "$VF1" "$ARGS" > /tmp/add1.out 2> /tmp/add1.log
rc=$?
[ $rc -eq 0 ] || { cat /tmp/add1.out /tmp/add1.log; }
check "lossy ADD succeeds (rc $rc)" [ $rc -eq 0 ]
check "lossy ADD: default_roce_tos 0 on rxe1" [ "$(tos_of rxe1)" = 0 ]
grep -i 'scope\|rdma-cm' /tmp/add0.log | head -3

echo "== RDMA-CM traffic (rping) of each attachment"
wire "lossless" "$VF0" $V0IP
LOSSLESSPF=$SEENPF
check "lossless: rping connects and completes" [ $RPRC -eq 0 ]
check "lossless: every RoCEv2 packet from $VF0 carries TOS 0x6a (DSCP 26, ECT(0)): $SEEN" only_tos $V0IP 0x6a
check "lossless: the PF received them through igb with TOS 0x6a: $SEENPF" only_tos $V0IP 0x6a $CAP.pf
wire "lossy" "$VF1" $V1IP
check "lossy: rping connects and completes" [ $RPRC -eq 0 ]
check "lossy: every RoCEv2 packet from $VF1 carries TOS 0x00: $SEEN" only_tos $V1IP 0x0
check "lossy: the PF received them with TOS 0x00: $SEENPF" only_tos $V1IP 0x0 $CAP.pf

echo "== PF side: the DSCP of the lossless packets the PF received, in its dcbnl APP map and PFC"
tos=$(grep -o '0x[0-9a-f]*' <<< "$LOSSLESSPF" | head -1)
dscp=$(( ${tos:-0} >> 2 ))
prio=$(dcb -j app show dev "$PF" | jq -r --argjson d $dscp '[.dscp_prio[] | select(.[0] == $d) | .[1]] | first // "none"')
pfc=$(dcb pfc show dev "$PF" prio-pfc)
echo "captured TOS ${tos:-none} -> DSCP $dscp -> dcb app: priority $prio; dcb pfc: $pfc"
check "captured DSCP $dscp maps to priority $prio in $PF's APP table, and PFC is on for it" \
	grep -qw "$prio:on" <<< "$pfc"

echo "== a QP without RDMA-CM (ibv_rc_pingpong, RoCEv2 GID) on the lossless VF"
G0=$(gid_v2 rxe0 $V0IP) GP=$(gid_v2 rxep $PFIP)
echo "RoCEv2 GIDs: rxe0 $V0IP index ${G0:-none}, rxep $PFIP index ${GP:-none}"
cap_start "$VF0"
timeout 60 ibv_rc_pingpong -d rxep -g "${GP:-1}" -n 5 > /tmp/pp.srv 2>&1 &
sp=$!
tcp_listening 18515
timeout 60 ibv_rc_pingpong -d rxe0 -g "${G0:-1}" -n 5 $PFIP > /tmp/pp.cli 2>&1
rc=$?
wait $sp
cap_stop
[ $rc -eq 0 ] || { echo "ibv_rc_pingpong rc $rc: $(tail -3 /tmp/pp.cli) / $(tail -3 /tmp/pp.srv)"; }
SEEN=$(tos_seen $V0IP) SEENPF=$(tos_seen $V0IP $CAP.pf)
echo "verbs QP: RoCEv2 packets from $V0IP sent on $VF0: ${SEEN:-none}, received on $PF: ${SEENPF:-none}"
check "ibv_rc_pingpong completes (rc $rc)" [ $rc -eq 0 ]
check "verbs QP: every RoCEv2 packet carries TOS 0x00 (not 106): $SEEN" only_tos $V0IP 0x0
"$RQ" show --json > /tmp/show.json 2> /tmp/show.err
scope=$(jq -r --arg v "$VF0PCI" '[.. | objects | select(.pci? == $v) | .tosScope] | first // "none"' /tmp/show.json)
echo "show: VF $VF0PCI: $("$RQ" show 2>/dev/null | grep "$VF0PCI")"
check "show reports scope rdma-cm for $VF0PCI ($scope), which the packets confirm (RDMA-CM 0x6a, verbs 0x00)" \
	[ "$scope" = rdma-cm ]
check "show's text says (rdma-cm) for it too" grep -q "$VF0PCI .*rdma rxe0 .*(rdma-cm)" <<< "$("$RQ" show 2>/dev/null)"
check "the ADD logged the rdma-cm scope for rxe0" grep -q 'rxe0 has configfs default_roce_tos only: class 106 reaches RDMA-CM connections only' /tmp/add0.log
check "the ADD's record says rdma-cm too" \
	[ "$(jq -r .rdma.tosScope /run/rdma-qos/state/roce_c0_"$VF0".json 2>/dev/null)" = rdma-cm ]

echo "== drift on the wire: the agent repairs a re-registered rxe0"
"$RQ" agent --interval 5 --metrics-file /tmp/rdma-qos.prom 2> /tmp/agent.log &
APID=$!
until_ms 10000 test -s /tmp/rdma-qos.prom > /dev/null
check "the agent started (metrics written)" [ -s /tmp/rdma-qos.prom ]
sleep 1
rdma link del rxe0
t0=$(now_ms)
rxe_up rxe0 "$VF0"
echo "re-registered rxe0: default_roce_tos now $(tos_of rxe0 || echo '(no configfs group)')"
ms=$(until_ms 8000 grep -qx 106 /sys/kernel/config/rdma_cm/rxe0/ports/1/default_roce_tos); rc=$?
check "the agent wrote 106 back to the re-registered rxe0 (took $ms ms)" [ $rc -eq 0 ]
wire "after repair" "$VF0" $V0IP
total=$(( $(now_ms) - t0 ))
check "after the repair a new connection carries TOS 0x6a again ($SEEN; re-add to repaired $ms ms, to captured $total ms)" \
	only_tos $V0IP 0x6a
kill -TERM $APID; wait $APID
check "agent exits 0 on SIGTERM" [ $? -eq 0 ]
grep -E 'repaired|rxe0' /tmp/agent.log | head -5

echo "== DEL: the admin's class is back on the wire"
conf '{"type":"rdma-qos"}' | run "$RQ" DEL c0 /proc/1/ns/net "$VF0" "$ARGS" 2> /tmp/del0.log
check "DEL succeeds" [ $? -eq 0 ]
check "DEL restored default_roce_tos 32 on rxe0 ($(tos_of rxe0))" [ "$(tos_of rxe0)" = 32 ]
wire "after DEL" "$VF0" $V0IP
check "after DEL: every RoCEv2 packet from $VF0 carries TOS 0x20 (class 32): $SEEN" only_tos $V0IP 0x20

echo "== adoption on the wire (issue 38): $VF0 unchained, no CNI call; the agent adopts it"
# rxe cannot leave the initial netns on 6.12 (README), so the VF stays there and the initial
# netns plays the pod's: bound at /run/netns/pod (ip netns attach), while the agent runs in
# a netns of its own standing for the host's (nsenter: sysfs stays the node's)
mkdir -p /tmp/pb
"$RQSRC/tests/simnode/mknode" --root / pod --uid u-w --cpus 0 --device "intel.com/sriov_rdma=$VF0PCI@1" > /dev/null
protoc --python_out=/tmp/pb -I"$RQSRC/pkg/podres" "$RQSRC/pkg/podres/api.proto" || fail "protoc"
python3 "$RQSRC/tests/simnode/podres_server.py" --root / --pb /tmp/pb --pod ml/w-0=u-w > /tmp/psrv.log 2>&1 &
until_ms 30000 grep -q ready /tmp/psrv.log > /dev/null
ip netns add rqhost && ip netns attach pod 1
check "PodResources server up (ml/w-0: $VF0PCI); /run/netns/pod is $VF0's netns" \
	[ "$(grep -c ready /tmp/psrv.log) $(stat -L -c %i /run/netns/pod)" = "1 $(stat -L -c %i /proc/1/ns/net)" ]
# unchained MODE: the catalog with namespace ml's default class 106, and the agent
unchained() {
	jq --arg m "$1" '.profiles.cm106 = {trafficClass: 106} | .namespaces.ml = {default: "cm106", allow: ["cm106"]} | .node.unchained = $m' \
		<<< '{"profiles":{"lossy":{"trafficClass":0}},"namespaces":{"*":{"default":"roce-lossless","allow":["roce-lossless","lossy"]}}}' \
		> /etc/cni/rdma-qos/profiles.json
	rm -f /tmp/u.prom
	nsenter --net=/run/netns/rqhost "$RQ" agent --interval 2 --metrics-file /tmp/u.prom 2> /tmp/agent-$1.log &
	APID=$!
}
adopted() { ls /run/rdma-qos/state/rdma-qos-adopted_*.json 2> /dev/null | head -1; }
has_adopted() { [ -n "$(adopted)" ]; }
none_adopted() { [ -z "$(adopted)" ]; }
unch() { grep -q "^rdma_qos_vf_unchained{vf=\"$VF0PCI\".*namespace=\"ml\",pod=\"w-0\"} 1" /tmp/u.prom; }
unchained report
ms=$(until_ms 20000 unch); rc=$?
check "control, node.unchained report: rdma_qos_vf_unchained 1 for $VF0PCI (ml/w-0, $ms ms), no record" [ "$rc$(adopted)" = 0 ]
wire "control (report)" "$VF0" $V0IP
check "control: nothing adopted, the admin's class stays on the wire (TOS 0x20, not 0x6a): $SEEN" only_tos $V0IP 0x20
kill -TERM $APID; wait $APID
# the race (docs/operations.md): a connection made before the adoption keeps its class.
# rping with no count runs until killed; its packets are captured once the class is 106
captured() { [ "$(tcpdump -nn -r $CAP "src host $V0IP" 2> /dev/null | wc -l)" -gt 0 ]; }
cap_start "$VF0"
timeout 300 rping -s -a $PFIP > /tmp/rping.srv 2>&1 &
RSP=$!
sleep 1
timeout 300 rping -c -a $PFIP -I $V0IP -S 64 > /tmp/rping.cli 2>&1 &
RCP=$!
until_ms 20000 captured > /dev/null
unchained adopt
ms=$(until_ms 20000 has_adopted); rc=$?
cap_stop
cap_start "$VF0"
sleep 2
cap_stop
kill -TERM $RCP $RSP 2> /dev/null; wait $RCP $RSP 2> /dev/null
SEEN=$(tos_seen $V0IP) NOW=$(tos_of rxe0)
check "the race: a connection made before the adoption keeps TOS 0x20 after it ($SEEN, the class now $NOW)" \
	eval '[ "$NOW" = 106 ] && only_tos $V0IP 0x20'
check "node.unchained adopt: adopted ($ms ms), configfs default_roce_tos 106 on rxe0 ($(tos_of rxe0))" [ "$rc $(tos_of rxe0)" = "0 106" ]
R=$(adopted)
check "the record: adopted, ml/w-0, profile cm106, previous 32" \
	[ "$(jq -r '"\(.adopted) \(.podNamespace)/\(.podName) \(.profileName) \(.rdma.knobs.configfs.previous)"' "$R" 2> /dev/null)" = "true ml/w-0 cm106 32" ]
until_ms 10000 grep -q "^rdma_qos_adoptions_total{pf=\"$PF\"} 1" /tmp/u.prom > /dev/null
check "rdma_qos_adoptions_total{pf=$PF} 1" grep -q "^rdma_qos_adoptions_total{pf=\"$PF\"} 1" /tmp/u.prom
wire "adopted" "$VF0" $V0IP
check "adopted: an RDMA-CM connection made after adoption carries TOS 0x6a on $VF0: $SEEN" only_tos $V0IP 0x6a
check "adopted: the PF received them with TOS 0x6a: $SEENPF" only_tos $V0IP 0x6a $CAP.pf
ip netns del pod
ms=$(until_ms 20000 none_adopted); rc=$?
check "the pod's netns gone: the adoption released ($ms ms), default_roce_tos 32 again ($(tos_of rxe0))" [ "$rc $(tos_of rxe0)" = "0 32" ]
wire "released" "$VF0" $V0IP
check "released: the next connection carries TOS 0x20 again: $SEEN" only_tos $V0IP 0x20
kill -TERM $APID; wait $APID
check "agent exits 0 on SIGTERM" [ $? -eq 0 ]
grep -E "adopt|releas" /tmp/agent-adopt.log | head -4

# the PF's own RDMA device shared by pods through macvlan and ipvlan (issue 50): shared.sh
. "$RQSRC/tests/vm/shared.sh"

echo "== harness"
check "no kernel warning during the run" [ -z "$(dmesg | grep -E 'WARNING:|BUG:|Oops|refcount_t')" ]
echo "wire.sh ran $((SECONDS - T0)) s in the guest"
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
