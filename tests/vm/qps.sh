#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Guest side of the QP census test (issue #31 item 1; run by guest.sh inside QEMU, a
# guest of its own: exclusive RDMA netns mode is switched on before any netns exists).
# The production rdma-qos (host-device, then rdma-qos ADD) makes three attachments on
# VFs of the dcbsim PF, all roce-lossless (PFC 3, DSCP 26 -> 3, the rest -> 0):
# - qp-a and qp-b: rxe0 and rxe1 on VF0 and VF1, host-networked (on 6.12 rxe's UDP
#   sockets live in the initial netns only), each pod a PID namespace of its own
#   (unshare --pid --fork --mount-proc) running perftest's ib_write_bw (verbs, server
#   in qp-a, client in qp-b) and rping (RDMA-CM); policy routing sends VF0 <-> VF1
#   through QEMU's igb. rxe has no QP context dump: counts, no classes.
# - ib-0: ibsim0 on VF2 moved into its pod's netns (exclusive mode, as rdma-cni does),
#   with kernel RC QPs from ibsim's debugfs carrying classes 106 and 0 in their AV,
#   dumped raw in mlx5's layout: counts by class and the class-0 QP off the lossless
#   priorities; then an RC QP in RTR (judged), mlx5-like DCI and DCT (driver QPs the
#   kernel lists only on request: counted, never judged) and a DCT left in INIT (the
#   detailed dump fails: the QPs without the driver's, not judged).
# The agent runs with hostNetwork in the guest's initial PID namespace, its census at the
# default --qp-census-interval (10 s); one more run in a PID namespace of its own (a pod
# without hostPID) sees the same QPs, without their pids.
set -u
. "${RQSRC:?}/tests/vm/lib.sh"
T0=$SECONDS
URL=http://127.0.0.1:9309/metrics
M=/tmp/qps-agent.prom
QPF=/sys/kernel/debug/ibsim/qp
V0IP=10.70.0.10 V1IP=10.70.0.11
# iproute2 6.15 (bookworm-backports, extracted by guest.sh) for `rdma -r`'s raw dump
RDMA=$RQCACHE/iproute2-bpo/usr/bin/rdma
[ -x "$RDMA" ] || RDMA=rdma
# scrape NAME: GET /metrics into /tmp/NAME.prom (after the agent's 1 s cache)
scrape() { sleep 1.2; curl -sf "$URL" > "/tmp/$1.prom"; }
# val FILE SERIES: the value of one exact series, "" when absent
val() { awk -v k="$2" 'index($0, k " ") == 1 { print $2 }' "$1"; }
# until_val SECONDS SERIES VALUE: scrape until SERIES has VALUE ("" = absent; "0|" = 0 or
# absent); prints the seconds it took; rc 1 on timeout (the last scrape is /tmp/last.prom)
until_val() {
	local t0=$SECONDS v
	while :; do
		curl -sf "$URL" > /tmp/last.prom
		v=$(val /tmp/last.prom "$2")
		case "|$3|" in *"|$v|"*) echo $((SECONDS - t0)); return 0 ;; esac
		[ $((SECONDS - t0)) -ge "$1" ] && { echo "$((SECONDS - t0)) (last: '$v')"; return 1; }
		sleep 1
	done
}
args() { echo "IgnoreUnknown=1;K8S_POD_NAMESPACE=$1;K8S_POD_NAME=$2;K8S_POD_UID=uid-$2"; }
# gid_v2 RXE IP: the index of the RoCEv2 GID of IP (::ffff:a.b.c.d)
gid_v2() {
	local g h
	h=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${2//./ })
	for g in /sys/class/infiniband/"$1"/ports/1/gids/*; do
		[ "$(cat "$g")" = "$h" ] && [ "$(cat /sys/class/infiniband/"$1"/ports/1/gid_attrs/types/"${g##*/}" 2>/dev/null)" = "RoCE v2" ] &&
			{ echo "${g##*/}"; return; }
	done
}
# rc_in DEV STATE: how many RC QPs of DEV iproute2 lists in STATE
rc_in() {
	"$RDMA" -j res show qp link "$1" 2>/dev/null |
		jq --arg s "$2" '[.[] | select(.type == "RC" and .state == $s)] | length'
}
# raw_decode (lib.sh): mlx5 resource dumps decoded from the spec, not by the agent's parser

modprobe igb && modprobe igbvf || fail "modprobe igb igbvf"
udevadm settle 2>/dev/null; sleep 1
mount -t debugfs none /sys/kernel/debug 2>/dev/null
PFPCI=0000:81:00.0
vf_enable "$PFPCI" 3
for _ in $(seq 100); do [ -d /sys/bus/pci/devices/$PFPCI/virtfn2/net ] && break; sleep 0.2; done
for i in 0 1 2; do
	eval "VF${i}PCI=\$(basename \"\$(readlink -f /sys/bus/pci/devices/$PFPCI/virtfn$i)\")"
	eval "VF$i=\$(ls /sys/bus/pci/devices/\$VF${i}PCI/net)"
done
echo "kernel $(uname -r); PF $PF ($PFPCI), VFs $VF0 ($VF0PCI) $VF1 ($VF1PCI) $VF2 ($VF2PCI); $("$RDMA" -V)"
# stats=1 vf_stats=1: the port's pause counters and the VFs' vport RDMA bytes (mlx5e's
# names), set in debugfs for the paused-port section
modprobe dcbsim ifname="$PF" stats=1 vf_stats=1 || fail "modprobe dcbsim stats=1 vf_stats=1"
modprobe rdma_rxe && modprobe rdma_cm && modprobe rdma_ucm && modprobe ib_uverbs ||
	fail "modprobe rdma_rxe rdma_cm rdma_ucm ib_uverbs"
# the kernel switches the mode only while no other netns exists
for _ in $(seq 50); do rdma system set netns exclusive 2>/dev/null && break; sleep 0.2; done
check "rdma system set netns exclusive" [ "$(cat /sys/module/ib_core/parameters/netns_mode)" = N ]
modprobe ibsim ifname="$VF2" || fail "modprobe ibsim ifname=$VF2"
for v in "$VF0" "$VF1" "$VF2"; do ip link set "$v" up; done
mkdir -p /var/lib/kubelet

echo "== attachments: qp-a (rxe0 on $VF0) and qp-b (rxe1 on $VF1) host-networked, ib-0 (ibsim0 on $VF2) in its pod"
# hostnet CID VF NS POD: host-device into the host netns (the VF keeps its name), rdma-qos
hostnet() {
	local prev rc
	prev=$(conf "{\"type\":\"host-device\",\"device\":\"$2\"}" | run $HD ADD "$1" /proc/1/ns/net "$2" "$(args "$3" "$4")")
	ip link set "$2" up
	conf "{\"type\":\"rdma-qos\",\"deviceID\":\"$(basename "$(readlink -f /sys/class/net/"$2"/device)")\",\"numa\":\"off\"}" "$prev" |
		run "$RQ" ADD "$1" /proc/1/ns/net "$2" "$(args "$3" "$4")" > "/tmp/add-$1.out" 2> "/tmp/add-$1.log"
	rc=$?
	[ $rc -eq 0 ] || cat "/tmp/add-$1.out" "/tmp/add-$1.log"
	return $rc
}
rdma link add rxe0 type rxe netdev "$VF0"; rdma link add rxe1 type rxe netdev "$VF1"
check "ADD qp-a (rxe0)" hostnet c0 "$VF0" ai qp-a
check "ADD qp-b (rxe1)" hostnet c1 "$VF1" ai qp-b
ip netns add podc
prev=$(conf "{\"type\":\"host-device\",\"device\":\"$VF2\"}" | run $HD ADD c2 /run/netns/podc net1 "$(args ml ib-0)")
rdma dev set ibsim0 netns podc
conf "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF2PCI\",\"numa\":\"off\"}" "$prev" |
	run "$RQ" ADD c2 /run/netns/podc net1 "$(args ml ib-0)" > /tmp/add-c2.out 2> /tmp/add-c2.log
rc=$?; [ $rc -eq 0 ] || cat /tmp/add-c2.out /tmp/add-c2.log
check "ADD ib-0 (ibsim0 moved into the pod: exclusive mode)" [ $rc -eq 0 ]
check "PFC on priority 3 and DSCP 26 -> 3 after the ADDs" \
	bash -c "dcb pfc show dev $PF prio-pfc | grep -qw 3:on && dcb -j app show dev $PF | jq -e '[.dscp_prio[] | select(.[0] == 26 and .[1] == 3)] | length == 1' > /dev/null"
LA="namespace=\"ai\",pod=\"qp-a\",interface=\"$VF0\",vf=\"$VF0PCI\",rdma_dev=\"rxe0\",pf=\"$PF\""
LB="namespace=\"ai\",pod=\"qp-b\",interface=\"$VF1\",vf=\"$VF1PCI\",rdma_dev=\"rxe1\",pf=\"$PF\""
LC="namespace=\"ml\",pod=\"ib-0\",interface=\"net1\",vf=\"$VF2PCI\",rdma_dev=\"ibsim0\",pf=\"$PF\""

echo "== ibsim's QPs (the fixture, read with iproute2 $("$RDMA" -V | grep -o '[0-9.]*$'))"
# qp_add CLASS: the write's status is the module's answer (ib_create_qp, ib_modify_qp)
qp_add() { echo "rc $1" > $QPF; }
qp_add 106; r1=$?
qp_add 0; r2=$?
check "debugfs: two kernel RC QPs made and connected through ib_modify_qp (classes 106, 0)" [ $r1 = 0 -a $r2 = 0 ]
cat $QPF
Q106=$(awk '$4 == 106 { print $1 }' $QPF); Q0=$(awk '$4 == 0 { print $1 }' $QPF)
check "debugfs lists both in RTS (QPN $Q106 class 106, QPN $Q0 class 0)" \
	[ "$(awk '$2 == "RTS"' $QPF | wc -l)" = 2 -a -n "$Q106" -a -n "$Q0" ]
ip netns exec podc "$RDMA" res show qp link ibsim0
check "rdma res show qp (in the pod's netns): 2 RC QPs in RTS, owned by ibsim (kernel)" \
	[ "$(ip netns exec podc "$RDMA" -j res show qp link ibsim0 | jq '[.[] | select(.type == "RC" and .state == "RTS" and .comm == "ibsim")] | length')" = 2 ]
check "... not from the host's netns (the device is the pod's)" [ -z "$("$RDMA" -j res show qp link ibsim0 2>/dev/null | jq '.[]' 2>/dev/null)" ]
ip netns exec podc "$RDMA" -j -r res show qp link ibsim0 > /tmp/raw.json
echo "raw dump: $(jq -c '[.[] | {ifname, len: (.data | length)}]' /tmp/raw.json)"
raw_decode < /tmp/raw.json | sort -n > /tmp/raw.txt
echo "decoded (qpn state tclass): $(tr '\n' ';' < /tmp/raw.txt)"
check "rdma -r res show qp: mlx5 layout, QPN $Q106 in RTS (3) with tclass 106" grep -qx "$Q106 3 106" /tmp/raw.txt
check "... QPN $Q0 in RTS with tclass 0" grep -qx "$Q0 3 0" /tmp/raw.txt

echo "== the agent (hostNetwork, the initial PID namespace)"
"$RQ" agent --interval 3 --metrics-file $M --listen 127.0.0.1:9309 2> /tmp/agent.log &
APID=$!
until_ms 20000 test -s $M > /dev/null
check "the agent wrote its textfile" [ -s $M ]
s=$(until_val 30 "rdma_qos_vf_qps_by_class{$LC,class=\"106\"}" 1)
check "ib-0: rdma_qos_vf_qps_by_class{class=\"106\"} 1 (after $s s)" [ $? -eq 0 ]
cp /tmp/last.prom /tmp/c1.prom
grep '^rdma_qos_vf_qps' /tmp/c1.prom
check "ib-0: rdma_qos_vf_qps_by_class{class=\"0\"} 1 (the GSI QP is not counted)" \
	[ "$(val /tmp/c1.prom "rdma_qos_vf_qps_by_class{$LC,class=\"0\"}")" = 1 ]
check "ib-0: rdma_qos_vf_qps{type=\"RC\",state=\"RTS\"} 2" \
	[ "$(val /tmp/c1.prom "rdma_qos_vf_qps{$LC,type=\"RC\",state=\"RTS\"}")" = 2 ]
check "ib-0: rdma_qos_vf_qps_off_lossless 1 (class 0 -> DSCP 0 -> priority 0, no PFC)" \
	[ "$(val /tmp/c1.prom "rdma_qos_vf_qps_off_lossless{$LC}")" = 1 ]
"$RQ" show --qps --json > /tmp/show1.json 2> /tmp/show1.err || cat /tmp/show1.err
jq -c '.attachments[]? | select(.pod == "ib-0")' /tmp/show1.json
check "show --qps --json: ib-0 lossless, census ok, context dump" \
	[ "$(jq -c '[.attachments[] | select(.pod == "ib-0") | .namespace, .interface, .vf, .rdmaDev, .pf, .lossless, .census, .contextDump]' /tmp/show1.json 2>/dev/null)" = \
	"[\"ml\",\"net1\",\"$VF2PCI\",\"ibsim0\",\"$PF\",true,\"ok\",true]" ]
check "... its two RC QPs in RTS with tclass 106 (on) and 0 (off lossless)" \
	same "$(jq -c "[.attachments[] | select(.pod == \"ib-0\") | .qps[] | select(.type == \"RC\") | [.qpn, .state, .tclass, .offLossless]] | sort" /tmp/show1.json 2>/dev/null)" \
	"$(jq -cn "[[$Q106, \"RTS\", 106, false], [$Q0, \"RTS\", 0, true]] | sort")"
echo "del $Q0" > $QPF
s=$(until_val 30 "rdma_qos_vf_qps_off_lossless{$LC}" 0)
check "class-0 QP $Q0 deleted: off_lossless 0 (after $s s)" [ $? -eq 0 ]
check "... by_class{class=\"0\"} gone or 0, {class=\"106\"} still 1" \
	[ "$(val /tmp/last.prom "rdma_qos_vf_qps_by_class{$LC,class=\"0\"}")|$(val /tmp/last.prom "rdma_qos_vf_qps_by_class{$LC,class=\"106\"}")" = "|1" -o \
	"$(val /tmp/last.prom "rdma_qos_vf_qps_by_class{$LC,class=\"0\"}")|$(val /tmp/last.prom "rdma_qos_vf_qps_by_class{$LC,class=\"106\"}")" = "0|1" ]
"$RQ" show --qps --json > /tmp/show2.json 2>/dev/null
check "show --qps --json: ib-0 lists only QP $Q106 now" \
	[ "$(jq -c '[.attachments[] | select(.pod == "ib-0") | .qps[] | select(.type == "RC") | .qpn]' /tmp/show2.json 2>/dev/null)" = "[$Q106]" ]

echo "== responders and the DC transport (#37 item 5): an RC QP in RTR, mlx5's DCI and DCT"
# a responder sends too (ACKs, NAKs, READ responses): an RC QP in RTR is judged by its class
echo "rc 0 rtr" > $QPF; r1=$?
QR=$(awk '$2 == "RTR" && $5 == "RC" { print $1 }' $QPF)
check "debugfs: an RC QP of class 0 connected up to RTR only (QPN $QR)" [ $r1 = 0 -a -n "$QR" ]
s=$(until_val 30 "rdma_qos_vf_qps_off_lossless{$LC}" 1)
check "ib-0: the RTR QP is judged: off_lossless 1 (class 0 -> priority 0, no PFC; after $s s)" [ $? -eq 0 ]
check "... rdma_qos_vf_qps_by_class{class=\"0\"} 1 (a QP in RTR counted)" \
	[ "$(val /tmp/last.prom "rdma_qos_vf_qps_by_class{$LC,class=\"0\"}")" = 1 ]
# mlx5's DC QPs are of ib_qp_type IB_QPT_DRIVER: the core lists them only to a dump that
# carries RDMA_NLDEV_ATTR_DRIVER_DETAILS (iproute2's -dd)
echo "dci 106" > $QPF; r1=$?
echo "dct 106" > $QPF; r2=$?
cat $QPF
QI=$(awk '$5 == "DCI" { print $1 }' $QPF); QT=$(awk '$5 == "DCT" { print $1 }' $QPF)
check "debugfs: a DCI in RTS (QPN $QI) and a DCT in RTR (QPN $QT)" \
	[ $r1 = 0 -a $r2 = 0 -a "$(awk '$5 == "DCI" || $5 == "DCT" { print $2 }' $QPF | tr '\n' ' ')" = "RTS RTR " ]
ip netns exec podc "$RDMA" -j res show qp link ibsim0 > /tmp/plain.json
ip netns exec podc "$RDMA" -dd -j res show qp link ibsim0 > /tmp/dd.json 2>&1
echo "rdma -dd res show qp: $(jq -c "[.[] | select(.lqpn == $QI or .lqpn == $QT)]" /tmp/dd.json 2>/dev/null || cat /tmp/dd.json)"
check "rdma res show qp (no driver details): the kernel lists neither the DCI nor the DCT" \
	[ "$(jq "[.[] | select(.lqpn == $QI or .lqpn == $QT)] | length" /tmp/plain.json)" = 0 ]
check "rdma -dd res show qp: both, type DRIVER" \
	same "$(jq -c "[.[] | select(.lqpn == $QI or .lqpn == $QT) | [.lqpn, .type, .state]] | sort" /tmp/dd.json 2>/dev/null)" \
	"$(jq -cn "[[$QI, \"DRIVER\", \"RTS\"], [$QT, \"DRIVER\", \"RTR\"]] | sort")"
s=$(until_val 30 "rdma_qos_vf_qps{$LC,type=\"DCI\",state=\"RTS\"}" 1)
check "ib-0: rdma_qos_vf_qps{type=\"DCI\",state=\"RTS\"} 1 (after $s s)" [ $? -eq 0 ]
check "... {type=\"DCT\",state=\"RTR\"} 1" [ "$(val /tmp/last.prom "rdma_qos_vf_qps{$LC,type=\"DCT\",state=\"RTR\"}")" = 1 ]
check "... no off_lossless series: no dump gives a DC QP's class, so ib-0 is not judged" \
	[ -z "$(val /tmp/last.prom "rdma_qos_vf_qps_off_lossless{$LC}")" ]
check "... by_class unchanged (106: 1, 0: 1): neither DC QP counted by a class" \
	[ "$(val /tmp/last.prom "rdma_qos_vf_qps_by_class{$LC,class=\"106\"}") $(val /tmp/last.prom "rdma_qos_vf_qps_by_class{$LC,class=\"0\"}")" = "1 1" ]
"$RQ" show --qps --json > /tmp/show-dc.json 2>/dev/null
check "show --qps --json: the DCI and the DCT, without a class; no offLossless" \
	[ "$(jq -c "[.attachments[] | select(.pod == \"ib-0\") | has(\"offLossless\"), ([.qps[] | select(.qpn == $QI or .qpn == $QT) | [.type, .state, has(\"tclass\")]] | sort)]" /tmp/show-dc.json 2>/dev/null)" = \
	'[false,[["DCI","RTS",false],["DCT","RTR",false]]]' ]
echo "del $QI" > $QPF; echo "del $QT" > $QPF
s=$(until_val 30 "rdma_qos_vf_qps_off_lossless{$LC}" 1)
check "DCI and DCT deleted: ib-0 judged again, off_lossless 1 (after $s s)" [ $? -eq 0 ]
# mlx5's DCT has no number and no query outside RTR: one left in INIT fails the kernel's
# whole QP dump with the driver's QPs (mlx5_ib_dct_query_qp -EINVAL)
echo "dct 106 init" > $QPF; r1=$?
ip netns exec podc "$RDMA" -dd -j res show qp link ibsim0 > /tmp/dd2.json 2>&1; r2=$?
echo "rdma -dd res show qp with a DCT in INIT: rc $r2, $(head -c 200 /tmp/dd2.json)"
check "a DCT left in INIT: rdma -dd res show qp fails, the plain dump does not" \
	[ $r1 = 0 -a $r2 != 0 -a "$(ip netns exec podc "$RDMA" -j res show qp link ibsim0 | jq "[.[] | select(.type == \"RC\")] | length")" = 2 ]
s=$(until_val 30 "rdma_qos_vf_qps_off_lossless{$LC}" "")
check "ib-0: the census lists its QPs without the driver's, and is not judged (after $s s)" \
	[ $? -eq 0 -a "$(val /tmp/last.prom "rdma_qos_vf_qps{$LC,type=\"RC\",state=\"RTR\"}")" = 1 ]
"$RQ" show --qps --json > /tmp/show-dct.json 2>/dev/null
check "show --qps --json: ib-0 driverQpsHidden, census ok, 2 RC QPs" \
	[ "$(jq -c '[.attachments[] | select(.pod == "ib-0") | .census, .driverQpsHidden, ([.qps[] | select(.type == "RC")] | length)]' /tmp/show-dct.json 2>/dev/null)" = '["ok",true,2]' ]
"$RQ" show --qps | grep ib-0
echo "del 0" > $QPF; echo "del $QR" > $QPF
s=$(until_val 30 "rdma_qos_vf_qps_off_lossless{$LC}" 0)
check "the DCT and the RTR QP deleted: off_lossless 0 again (after $s s)" [ $? -eq 0 ]

echo "== rxe: ib_write_bw and rping in the pods' PID namespaces, VF0 <-> VF1 through igb"
ip addr add $V0IP/24 dev "$VF0"; ip addr add $V1IP/24 dev "$VF1"
for d in all default "$VF0" "$VF1"; do
	sysctl -qw net.ipv4.conf."$d".accept_local=1 net.ipv4.conf."$d".rp_filter=0
done
# both addresses are local: locally sent packets between them take the wire (policy
# routing ahead of the local table), received ones are delivered locally
ip rule add pref 1000 lookup local && ip rule del pref 0
ip route add $V1IP/32 dev "$VF0" src $V0IP table 10; ip rule add pref 10 iif lo from $V0IP to $V1IP lookup 10
ip route add $V0IP/32 dev "$VF1" src $V1IP table 11; ip rule add pref 11 iif lo from $V1IP to $V0IP lookup 11
ip neigh replace $V1IP lladdr "$(cat /sys/class/net/"$VF1"/address)" dev "$VF0" nud permanent
ip neigh replace $V0IP lladdr "$(cat /sys/class/net/"$VF0"/address)" dev "$VF1" nud permanent
gids_ready() { [ -n "$(gid_v2 rxe0 $V0IP)" ] && [ -n "$(gid_v2 rxe1 $V1IP)" ]; }
ms=$(until_ms 10000 gids_ready); rc=$?
check "rxe0 and rxe1 have their RoCEv2 IPv4 GIDs (after $ms ms)" [ $rc -eq 0 ]
G0=$(gid_v2 rxe0 $V0IP); G1=$(gid_v2 rxe1 $V1IP)
# pod PROGRAM...: PROGRAM as PID 1's child in a PID namespace of its own (a pod without
# hostPID); --kill-child ends it with unshare
pod() { unshare --pid --fork --kill-child --mount-proc "$@"; }
pod ib_write_bw -F -d rxe0 -x "$G0" -s 4096 --run_infinitely -D 5 > /tmp/bw.srv 2>&1 &
BWS=$!
tcp_listening 18515
pod ib_write_bw -F -d rxe1 -x "$G1" -s 4096 --run_infinitely -D 5 $V0IP > /tmp/bw.cli 2>&1 &
BWC=$!
pod rping -s -a $V0IP -C 1000000 > /tmp/rping.srv 2>&1 &
RPS=$!
sleep 2
pod rping -c -a $V0IP -I $V1IP -C 1000000 > /tmp/rping.cli 2>&1 &
RPC=$!
# ib_write_bw's server only receives RDMA WRITEs: perftest leaves its QP in RTR (a
# unidirectional BW test moves the client's alone to RTS); rping's QPs both reach RTS
all_up() { [ "$(rc_in rxe0 RTS) $(rc_in rxe0 RTR) $(rc_in rxe1 RTS)" = "1 1 2" ]; }
ms=$(until_ms 60000 all_up); rc=$?
"$RDMA" res show qp
[ $rc -eq 0 ] || { echo "ib_write_bw: $(tail -3 /tmp/bw.srv) / $(tail -3 /tmp/bw.cli); rping: $(tail -2 /tmp/rping.srv) / $(tail -2 /tmp/rping.cli)"; }
check "rdma res show qp: rxe0 has RC QPs in RTS (rping) and RTR (ib_write_bw's server), rxe1 2 in RTS (after $ms ms)" [ $rc -eq 0 ]
s=$(until_val 30 "rdma_qos_vf_qps{$LB,type=\"RC\",state=\"RTS\"}" 2)
check "qp-b: rdma_qos_vf_qps{type=\"RC\",state=\"RTS\"} 2 (after $s s)" [ $? -eq 0 ]
cp /tmp/last.prom /tmp/c3.prom
grep '^rdma_qos_vf_qps' /tmp/c3.prom
check "qp-a: rdma_qos_vf_qps{type=\"RC\",state=\"RTS\"} 1 and {state=\"RTR\"} 1" \
	[ "$(val /tmp/c3.prom "rdma_qos_vf_qps{$LA,type=\"RC\",state=\"RTS\"}") $(val /tmp/c3.prom "rdma_qos_vf_qps{$LA,type=\"RC\",state=\"RTR\"}")" = "1 1" ]
check "rxe (no context dump): their census ran, yet no rdma_qos_vf_qps_by_class series for qp-a or qp-b" \
	[ -n "$(val /tmp/c3.prom "rdma_qos_vf_qps{$LA,type=\"GSI\",state=\"RTS\"}")" -a \
	"$(grep -cE "^rdma_qos_vf_qps_by_class\{namespace=\"ai\"" /tmp/c3.prom)" = 0 ]
"$RQ" show --qps --json > /tmp/show3.json 2>/dev/null
check "show --qps --json: qp-a census ok, no context dump, ib_write_bw's RC QP in RTR and rping's in RTS, no tclass" \
	[ "$(jq -c '[.attachments[] | select(.pod == "qp-a") | .census, .contextDump, ([.qps[] | select(.type == "RC") | [.comm, .state]] | sort), ([.qps[] | select(has("tclass"))] | length)]' /tmp/show3.json 2>/dev/null)" = \
	'["ok",false,[["ib_write_bw","RTR"],["rping","RTS"]],0]' ]
check "... qp-b the same, with its own labels" \
	[ "$(jq -c "[.attachments[] | select(.pod == \"qp-b\") | .interface, .vf, .rdmaDev, .census, ([.qps[] | select(.type == \"RC\" and .state == \"RTS\") | .comm] | sort)]" /tmp/show3.json 2>/dev/null)" = \
	"[\"$VF1\",\"$VF1PCI\",\"rxe1\",\"ok\",[\"ib_write_bw\",\"rping\"]]" ]
PIDS=$(pgrep -x 'ib_write_bw|rping' | sort -n | jq -sc .)
check "... the RC QPs' pids are the four programs' as the host sees them ($PIDS)" \
	[ "$(jq -c '[.attachments[] | select(.pod == "qp-a" or .pod == "qp-b") | .qps[] | select(.type == "RC") | .pid] | sort' /tmp/show3.json 2>/dev/null)" = "$PIDS" ]

echo "== without hostPID (a PID namespace of its own): the same QPs, without their pids"
# since Linux 5.5 the resource tracker lists every QP to any caller that reaches the device;
# the caller's PID namespace decides only whether a QP's pid is reported
"$RDMA" -j res show qp link rxe0 > /tmp/host-qps.json
unshare --pid --fork --mount-proc "$RDMA" -j res show qp link rxe0 > /tmp/nopid-qps.json
check "rdma res show qp in a PID namespace of its own: rxe0's RC QPs all listed, none with a pid" \
	[ "$(jq -c '[.[] | select(.type == "RC") | [.lqpn, .state, has("pid")]] | sort' /tmp/nopid-qps.json)" = \
	"$(jq -c '[.[] | select(.type == "RC") | [.lqpn, .state, false]] | sort' /tmp/host-qps.json)" -a \
	"$(jq '[.[] | select(.type == "RC")] | length' /tmp/host-qps.json)" = 2 ]
mkdir -p /tmp/hostproc && mount --bind /proc /tmp/hostproc
unshare --pid --fork --mount-proc "$RQ" agent --once --host-proc /tmp/hostproc \
	--metrics-file /tmp/nopid.prom 2> /tmp/nopid.log
grep -i census /tmp/nopid.log
check "agent --once without hostPID wrote its textfile" [ -s /tmp/nopid.prom ]
grep '^rdma_qos_vf_qps' /tmp/c3.prom | sort > /tmp/qps-hostpid.txt
grep '^rdma_qos_vf_qps' /tmp/nopid.prom | sort > /tmp/qps-nopid.txt
same_qps() { [ -s /tmp/qps-hostpid.txt ] && cmp -s /tmp/qps-hostpid.txt /tmp/qps-nopid.txt; }
check "... with the same rdma_qos_vf_qps* series as the other agent ($(wc -l < /tmp/qps-hostpid.txt) lines, ibsim's kernel QPs' classes included)" same_qps
same_qps || diff /tmp/qps-hostpid.txt /tmp/qps-nopid.txt
# from a PID namespace of its own show reaches a pod's netns by a bind mount (ib-0's
# /run/netns/podc) and, with --host-proc as the agent, by the /proc/1/ns/net of qp-a's and
# qp-b's host-networked records; without it those are not reachable
unshare --pid --fork --mount-proc "$RQ" show --qps --json > /tmp/show-nopid.json 2>/dev/null
unshare --pid --fork --mount-proc "$RQ" show --qps --json --host-proc /tmp/hostproc > /tmp/show-hp.json 2>/dev/null
echo "show --qps --json in a PID namespace of its own: $(jq -c '[.attachments[] | [.pod, .census]]' /tmp/show-nopid.json 2>/dev/null); with --host-proc: $(jq -c '[.attachments[] | [.pod, .census]]' /tmp/show-hp.json 2>/dev/null)"
check "show --qps --json without hostPID: ib-0's census ok, its RC QP $Q106 with class 106" \
	[ "$(jq -c '[.attachments[] | select(.pod == "ib-0") | .census, [.qps[] | select(.type == "RC") | [.qpn, .tclass]]]' /tmp/show-nopid.json 2>/dev/null)" = "[\"ok\",[[$Q106,106]]]" ]
check "... with --host-proc every attachment's census ok, qp-a's and qp-b's 4 RC QPs listed, without pids" \
	[ "$(jq -c '[.attachments[] | .census] | unique' /tmp/show-hp.json 2>/dev/null)/$(jq -c '[.attachments[] | select(.pod == "qp-a" or .pod == "qp-b") | .qps[] | select(.type == "RC") | has("pid")]' /tmp/show-hp.json 2>/dev/null)" = '["ok"]/[false,false,false,false]' ]
umount /tmp/hostproc

echo "== the port sends pause frames while the programs run: who is behind it"
# ib-0 receives RoCE (its VF's vport rx bytes move: ibsim counts no packets, so the vport
# counters are its traffic) while the port pauses priority 3 (tx pause: its host cannot
# drain); rxe counts no bytes, so qp-a and qp-b have no share
DS=/sys/kernel/debug/dcbsim/stats VS=/sys/kernel/debug/dcbsim/vf_stats
pump() {
	while :; do
		printf '%s\n' "tx_prio3_pause +40" "tx_prio3_pause_duration +200000" > $DS
		printf '%s\n' "$VF2PCI rx_vport_rdma_unicast_bytes +4000000" "$VF2PCI rx_vport_rdma_unicast_packets +1000" > $VS
		sleep 0.5
	done
}
pump &
PUMP=$!
"$RQ" show --counters --json --interval 2 > /tmp/paused.json 2> /tmp/paused.err
check "show --counters while paused: ib-0 ranked first, pausedShare.host_rx 1, cause host_rx" \
	[ "$(jq -c '.attachments[0] | [.pod, .pausedShare.host_rx, .pauseCause]' /tmp/paused.json 2>/dev/null)" = '["ib-0",1,"host_rx"]' ] ||
	jq -c '.attachments[] | [.pod, .pausedShare, .pauseCause]' /tmp/paused.json
echo "==== show --qps while the programs run (guest, text) ===="
"$RQ" show --qps
echo "==== top while the port is paused (one frame) ===="
timeout 5 "$RQ" top --interval 3 2>&1 | sed 's/\x1b\[[0-9;]*[A-Za-z]//g' | head -40
echo "==== end of sample ===="
kill $PUMP; wait $PUMP 2>/dev/null

echo "== the programs exit: the counts drop"
# unshare --fork ignores SIGTERM while it waits, and a PID namespace's init gets from outside
# only the signals it handles (and SIGKILL): SIGKILL the programs (PID 1 of each pod's PID
# namespace, unshare's only child); unshare exits with them
for p in $BWS $BWC $RPS $RPC; do kill -KILL $(pgrep -P $p) 2>/dev/null; done
wait $BWS $BWC $RPS $RPC 2>/dev/null
s=$(until_val 30 "rdma_qos_vf_qps{$LA,type=\"RC\",state=\"RTS\"}" "0|"); rc=$?
check "qp-a: its RC QP in RTS counted before ('$(val /tmp/c3.prom "rdma_qos_vf_qps{$LA,type=\"RC\",state=\"RTS\"}")'), none now (after $s s)" \
	[ $rc -eq 0 -a "$(val /tmp/c3.prom "rdma_qos_vf_qps{$LA,type=\"RC\",state=\"RTS\"}")" = 1 ]
va=$(val /tmp/last.prom "rdma_qos_vf_qps{$LA,type=\"RC\",state=\"RTR\"}")
va0=$(val /tmp/c3.prom "rdma_qos_vf_qps{$LA,type=\"RC\",state=\"RTR\"}")
check "qp-a: its RC QP in RTR counted before ('$va0'), none now ('$va')" [ "$va0" = 1 -a \( "$va" = 0 -o -z "$va" \) ]
vb=$(val /tmp/last.prom "rdma_qos_vf_qps{$LB,type=\"RC\",state=\"RTS\"}")
vb0=$(val /tmp/c3.prom "rdma_qos_vf_qps{$LB,type=\"RC\",state=\"RTS\"}")
check "qp-b: its 2 RC QPs in RTS counted before ('$vb0'), none now ('$vb')" [ "$vb0" = 2 -a \( "$vb" = 0 -o -z "$vb" \) ]

echo "==== show --qps (guest, text) ===="
"$RQ" show --qps
echo "==== top (one frame) ===="
timeout 5 "$RQ" top --interval 3 2>&1 | sed 's/\x1b\[[0-9;]*[A-Za-z]//g' | head -40
echo "==== end of sample ===="

echo "== harness"
kill -TERM $APID; wait $APID; rc=$?
check "SIGTERM: the agent exits 0" [ $rc -eq 0 ]
echo clear > $QPF
check "ibsim's QPs destroyed, ibsim unloads" rmmod ibsim
check "no kernel warning during the run" [ -z "$(dmesg | grep -E 'WARNING:|BUG:|Oops|refcount_t')" ]
[ -z "$(dmesg | grep -E 'WARNING:|BUG:|Oops|refcount_t')" ] || dmesg | grep -B5 -A30 -E 'WARNING:|BUG:|Oops' | head -80
echo "guest script: $((SECONDS - T0)) s"
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
