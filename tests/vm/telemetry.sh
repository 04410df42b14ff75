#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Guest side of the congestion telemetry test on a real kernel (run by guest.sh
# inside QEMU, a guest of its own: exclusive RDMA netns mode is switched on
# before any netns exists). Attachments made by the production rdma-qos after
# Debian's host-device; the production agent with --listen and --metrics-file:
# - dcbsim stats=1 gives the PF mlx5e's port counters through SIOCETHTOOL; a
#   test sets them in debugfs and /metrics follows, per-priority PFC series
#   appear and disappear with PFC, the derived signals go 1 on their case only;
# - what the counters mean (issue 30 item 6): mlx5e's per-TC buf/cong
#   discards become host drops through the port's prio->TC map (dcbnl
#   IEEE_ETS), not discards on the PFC priority; link-level pause (ethtool -A
#   on dcbsim, mlx5e's global names) gets pause series and a storm verdict;
#   the storm-prevention tunable reads as mlx5 stores "auto" (100 ms);
# - ibsim has mlx5_ib's hw_counters (set in debugfs), in the pod's netns only
#   (exclusive mode), 32-bit: a Q-counter's wrap is a wrap for the CLI, the
#   64-bit congestion counters' decrease a reset; out_of_sequence is the
#   responder's own family, not a retransmission;
# - dcbsim vf_stats=1 gives the igbvf netdevs mlx5e's vport RDMA counters: the
#   pod's net1 (ibsim0, no packets/bytes in hw_counters) is read inside its
#   netns into rdma_qos_vf_{packets,bytes}_total; rxe's own counters win;
# - rxe's own hw_counters, read as they are, moved by real RoCE traffic under
#   netem loss, on the right pod's series; a re-registered rxe starts over.
# It prints one `show --counters` sample, delimited, for the docs.
set -u
. "${RQSRC:?}/tests/vm/lib.sh"
T0=$SECONDS
URL=http://127.0.0.1:9309/metrics
M=/tmp/rdma-qos.prom
DS=/sys/kernel/debug/dcbsim/stats
IS=/sys/kernel/debug/ibsim/hw_counters
PFIP=10.70.0.1 V0IP=10.70.0.10
# scrape NAME: GET /metrics into /tmp/NAME.prom (after the agent's 1 s cache)
scrape() { sleep 1.2; curl -sf "$URL" > "/tmp/$1.prom"; }
# val FILE SERIES: the value of one exact series, "" when absent
val() { awk -v k="$2" 'index($0, k " ") == 1 { print $2 }' "$1"; }
has() { [ -n "$(val "$1" "$2")" ]; }
is() { [ "$(val "$1" "$2")" = "$3" ]; }
ds() { printf '%s\n' "$@" > $DS; }
ib() { printf '%s\n' "$@" > $IS; }

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
echo "kernel $(uname -r); PF $PF ($PFPCI), VFs $VF0 ($VF0PCI) $VF1 ($VF1PCI) $VF2 ($VF2PCI)"
modprobe dcbsim ifname="$PF" stats=1 vf_stats=1 || fail "modprobe dcbsim stats=1 vf_stats=1"
modprobe rdma_rxe && modprobe rdma_cm && modprobe ib_uverbs && modprobe sch_netem ||
	fail "modprobe rdma_rxe rdma_cm ib_uverbs sch_netem"
# the kernel switches the mode only while no other netns exists
for _ in $(seq 50); do rdma system set netns exclusive 2>/dev/null && break; sleep 0.2; done
check "rdma system set netns exclusive" [ "$(cat /sys/module/ib_core/parameters/netns_mode)" = N ]
modprobe ibsim ifname="$VF2" lifespan=0 || fail "modprobe ibsim ifname=$VF2"
for v in "$VF0" "$VF1" "$VF2"; do ip link set "$v" up; done
mkdir -p /var/lib/kubelet
args() { echo "IgnoreUnknown=1;K8S_POD_NAMESPACE=$1;K8S_POD_NAME=$2;K8S_POD_UID=uid-$2"; }

echo "== attachments: train-0 (rxe0 on $VF0) and train-1 (rxe1 on $VF1) host-networked, ib-0 (ibsim0 on $VF2) in its pod"
# hostnet CID VF NS POD: host-device into the host netns (the VF keeps its name), rxe, rdma-qos
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
check "ADD train-0 (rxe0)" hostnet c0 "$VF0" ai train-0
check "ADD train-1 (rxe1)" hostnet c1 "$VF1" ai train-1
ip netns add podc
prev=$(conf "{\"type\":\"host-device\",\"device\":\"$VF2\"}" | run $HD ADD c2 /run/netns/podc net1 "$(args ml ib-0)")
rdma dev set ibsim0 netns podc
conf "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF2PCI\",\"numa\":\"off\"}" "$prev" |
	run "$RQ" ADD c2 /run/netns/podc net1 "$(args ml ib-0)" > /tmp/add-c2.out 2> /tmp/add-c2.log
rc=$?; [ $rc -eq 0 ] || cat /tmp/add-c2.out /tmp/add-c2.log
check "ADD ib-0 (ibsim0 moved into the pod: exclusive mode)" [ $rc -eq 0 ]
check "ibsim0 is not visible from the host" [ ! -e /sys/class/infiniband/ibsim0 ]
check "ibsim0's hw_counters are, from the pod's own sysfs" \
	ip netns exec podc test -e /sys/class/infiniband/ibsim0/ports/1/hw_counters/np_cnp_sent
check "PFC on priority 3 after the ADDs" grep -qw '3:on' <<< "$(dcb pfc show dev "$PF" prio-pfc)"

L0="namespace=\"ai\",pod=\"train-0\",interface=\"$VF0\",vf=\"$VF0PCI\",rdma_dev=\"rxe0\",pf=\"$PF\""
L1="namespace=\"ai\",pod=\"train-1\",interface=\"$VF1\",vf=\"$VF1PCI\",rdma_dev=\"rxe1\",pf=\"$PF\""
L2="namespace=\"ml\",pod=\"ib-0\",interface=\"net1\",vf=\"$VF2PCI\",rdma_dev=\"ibsim0\",pf=\"$PF\""
P="pf=\"$PF\""

ds "rx_prio3_pause 120" "rx_prio3_pause_duration 2500000" "rx_prio3_pause_transition 9" \
	"tx_prio3_pause 7" "tx_prio3_pause_duration 1000" "rx_prio3_bytes 1000000" "tx_prio3_bytes 2000000" \
	"rx_prio3_packets 1500" "tx_prio3_packets 3000" "rx_discards_phy 5" "rx_prio5_pause 33" "rx_prio0_pause 11"
ib "np_cnp_sent 40" "rp_cnp_handled 7" "np_ecn_marked_roce_packets 55" "out_of_sequence 3" \
	"packet_seq_err 2" "local_ack_timeout_err 1" "roce_adp_retrans 4" "rx_write_requests 99"

"$RQ" agent --interval 60 --metrics-file $M --listen 127.0.0.1:9309 --repair-backoff 1 \
	--vf-counters all 2> /tmp/agent.log &
APID=$!
until_ms 20000 test -s $M > /dev/null
check "the agent wrote its textfile" [ -s $M ]
sleep 1
scrape m1
check "GET /metrics answers" [ -s /tmp/m1.prom ]

echo "== port counters (dcbsim's mlx5e names through SIOCETHTOOL)"
check "rx pause frames prio 3: 120" is /tmp/m1.prom "rdma_qos_port_pause_frames_total{$P,prio=\"3\",direction=\"rx\"}" 120
check "tx pause frames prio 3: 7" is /tmp/m1.prom "rdma_qos_port_pause_frames_total{$P,prio=\"3\",direction=\"tx\"}" 7
check "rx paused 2500000 us = 2.5 s" is /tmp/m1.prom "rdma_qos_port_pause_seconds_total{$P,prio=\"3\",direction=\"rx\"}" 2.500000
check "rx pause transitions prio 3: 9" is /tmp/m1.prom "rdma_qos_port_pause_transitions_total{$P,prio=\"3\",direction=\"rx\"}" 9
check "tx bytes prio 3: 2000000" is /tmp/m1.prom "rdma_qos_port_prio_bytes_total{$P,prio=\"3\",direction=\"tx\"}" 2000000
check "tx packets prio 3: 3000" is /tmp/m1.prom "rdma_qos_port_prio_packets_total{$P,prio=\"3\",direction=\"tx\"}" 3000
check "rx discards prio 3: 0" is /tmp/m1.prom "rdma_qos_port_prio_discards_total{$P,prio=\"3\",direction=\"rx\"}" 0
check "rx_discards_phy: 5" is /tmp/m1.prom "rdma_qos_port_discards_total{$P}" 5
check "pause storm events (warning): 0" is /tmp/m1.prom "rdma_qos_port_pause_storm_events_total{$P,level=\"warning\"}" 0
check "prio 0 (PFC off) has bytes but no pause series" \
	bash -c "grep -qF 'rdma_qos_port_prio_bytes_total{$P,prio=\"0\",direction=\"rx\"} 0' /tmp/m1.prom && ! grep -qF 'rdma_qos_port_pause_frames_total{$P,prio=\"0\"' /tmp/m1.prom"
ds "rx_prio3_pause 500"
scrape m2
check "/metrics follows: rx pause frames prio 3 now 500" is /tmp/m2.prom "rdma_qos_port_pause_frames_total{$P,prio=\"3\",direction=\"rx\"}" 500

echo "== PFC on priority 5 on, then off: its pause series appear and go"
check "prio 5 pause absent while PFC 5 is off" bash -c "! grep ^rdma_qos_port_pause /tmp/m2.prom | grep -qF '{$P,prio=\"5\",'"
dcb pfc set dev "$PF" prio-pfc 5:on
sleep 1
scrape m3
check "PFC 5 on: rx pause frames prio 5 appear (33, kept by the port)" is /tmp/m3.prom "rdma_qos_port_pause_frames_total{$P,prio=\"5\",direction=\"rx\"}" 33
check "... with their duration and transitions" bash -c "grep -qF 'rdma_qos_port_pause_seconds_total{$P,prio=\"5\",direction=\"tx\"}' /tmp/m3.prom && grep -qF 'rdma_qos_port_pause_transitions_total{$P,prio=\"5\",direction=\"rx\"}' /tmp/m3.prom"
check "... prio 3 keeps its series" is /tmp/m3.prom "rdma_qos_port_pause_frames_total{$P,prio=\"3\",direction=\"rx\"}" 500
dcb pfc set dev "$PF" prio-pfc 5:off
sleep 1
scrape m4
check "PFC 5 off: its pause series are gone" bash -c "! grep -F 'prio=\"5\"' /tmp/m4.prom | grep -q '^rdma_qos_port_pause'"
check "... prio 3's are still there" has /tmp/m4.prom "rdma_qos_port_pause_frames_total{$P,prio=\"3\",direction=\"rx\"}"

echo "== derived signals: discards on a PFC priority, pause storm (events, then duration)"
sleep 1.5  # the passes the PFC events raised are over: the next samples are ours
scrape d0
check "healthy: discards_on_pfc_prio{prio 3} 0" is /tmp/d0.prom "rdma_qos_port_discards_on_pfc_prio{$P,prio=\"3\"}" 0
check "healthy: pause_storm 0" is /tmp/d0.prom "rdma_qos_port_pause_storm{$P}" 0
check "healthy: roce_on_lossy_prio{prio 3} 0 (PFC on)" is /tmp/d0.prom "rdma_qos_port_roce_on_lossy_prio{$P,prio=\"3\"}" 0
ds "rx_prio3_discards +10" "tx_pause_storm_warning_events +1"
scrape d1
check "rx_prio3_discards +10: discards_on_pfc_prio{prio 3} 1" is /tmp/d1.prom "rdma_qos_port_discards_on_pfc_prio{$P,prio=\"3\"}" 1
check "storm warning event: pause_storm 1" is /tmp/d1.prom "rdma_qos_port_pause_storm{$P}" 1
check "... counted: pause_storm_events_total{warning} 1" is /tmp/d1.prom "rdma_qos_port_pause_storm_events_total{$P,level=\"warning\"}" 1
scrape d2
check "next interval, nothing new: discards_on_pfc_prio 0" is /tmp/d2.prom "rdma_qos_port_discards_on_pfc_prio{$P,prio=\"3\"}" 0
check "next interval: pause_storm 0" is /tmp/d2.prom "rdma_qos_port_pause_storm{$P}" 0
ds "rx_prio3_pause_duration +5000000"
scrape d3
check "paused 5 s within ~1.2 s: pause_storm 1" is /tmp/d3.prom "rdma_qos_port_pause_storm{$P}" 1

echo "== host drops per traffic class (mlx5e's rx_prio<N>_buf/cong_discard) through the prio->TC map"
# dcbsim reports the ETS map the driver keeps (all priorities on TC 0 here): PFC priority 3 is TC 0's
check "the port's ETS prio-tc puts priority 3 on TC 0" grep -qw '3:0' <<< "$(dcb ets show dev "$PF" prio-tc)"
check "tc discards: buffer and congestion series per TC" \
	bash -c "grep -qF 'rdma_qos_port_tc_discards_total{$P,tc=\"3\",reason=\"buffer\"} 0' /tmp/d3.prom && grep -qF 'rdma_qos_port_tc_discards_total{$P,tc=\"0\",reason=\"congestion\"} 0' /tmp/d3.prom"
scrape h0
ds "rx_prio3_buf_discard +40"
scrape h1
check "TC 3 dropped (no PFC priority on it): host_drops_on_pfc_prio{prio 3} 0" is /tmp/h1.prom "rdma_qos_port_host_drops_on_pfc_prio{$P,prio=\"3\"}" 0
check "... and discards_on_pfc_prio{prio 3} 0: the link partner is not blamed" is /tmp/h1.prom "rdma_qos_port_discards_on_pfc_prio{$P,prio=\"3\"}" 0
check "tc discards{tc 3, buffer} 40" is /tmp/h1.prom "rdma_qos_port_tc_discards_total{$P,tc=\"3\",reason=\"buffer\"}" 40
ds "rx_prio0_cong_discard +7"
scrape h2
check "TC 0 (carries PFC priority 3) dropped: host_drops_on_pfc_prio{prio 3} 1" is /tmp/h2.prom "rdma_qos_port_host_drops_on_pfc_prio{$P,prio=\"3\"}" 1
check "... the port's own discards_on_pfc_prio{prio 3} stay 0" is /tmp/h2.prom "rdma_qos_port_discards_on_pfc_prio{$P,prio=\"3\"}" 0

echo "== link-level pause instead of PFC (ethtool -A): mlx5e's global pause counters"
check "no global pause series while pause is off" bash -c "! grep -qF 'prio=\"global\"' /tmp/h2.prom"
ethtool -A "$PF" rx on tx on
check "ethtool -A $PF rx on tx on" [ $? -eq 0 ]
scrape g1
check "rx global pause frames (priority 0's counter: 11)" is /tmp/g1.prom "rdma_qos_port_pause_frames_total{$P,prio=\"global\",direction=\"rx\"}" 11
check "... its duration and transitions" bash -c "grep -qF 'rdma_qos_port_pause_seconds_total{$P,prio=\"global\",direction=\"tx\"}' /tmp/g1.prom && grep -qF 'rdma_qos_port_pause_transitions_total{$P,prio=\"global\",direction=\"rx\"}' /tmp/g1.prom"
check "no storm while the link-level pause is quiet" is /tmp/g1.prom "rdma_qos_port_pause_storm{$P}" 0
ds "rx_prio0_pause_duration +5000000"
scrape g2
check "paused 5 s by link-level pause within ~1.2 s: pause_storm 1" is /tmp/g2.prom "rdma_qos_port_pause_storm{$P}" 1
ethtool -A "$PF" rx off tx off
scrape g3
check "pause off: the global series are gone" bash -c "! grep -qF 'prio=\"global\"' /tmp/g3.prom"

echo "== storm prevention: auto, as mlx5 stores it"
# ethtool 6.1 parses the name as "pfc-precention-tout" (a typo later fixed); auto is
# PFC_STORM_PREVENTION_AUTO, 65535 (the parser takes no word)
tout() { ethtool "$1" "$2" pfc-prevention-tout ${3:-} 2> /dev/null || ethtool "$1" "$2" pfc-precention-tout ${3:-}; }
tout --set-tunable "$PF" 65535
check "ethtool --set-tunable $PF pfc-prevention-tout 65535 (auto)" [ $? -eq 0 ]
got=$(tout --get-tunable "$PF" | tr '\n' ' ')
check "... reads back 100 ms: mlx5 stores auto as 100 ($got)" grep -qw 100 <<< "$got"
dcb pfc set dev "$PF" prio-pfc 3:on # an event: the pass reports the PF's facts
sleep 2
scrape s1
check "rdma_qos_pf_pfc_storm_prevention_seconds 0.1" is /tmp/s1.prom "rdma_qos_pf_pfc_storm_prevention_seconds{$P}" 0.1
"$RQ" show > /tmp/show-facts.txt 2>&1
check "show: 100 ms is what mlx5 stores for auto" grep -q "pfc storm prevention: 100 ms (what mlx5 stores for auto)" /tmp/show-facts.txt

echo "== VF series: ibsim0's mlx5 hw_counters, read in the pod's netns (exclusive mode)"
check "cnp_sent 40 on ib-0's series" is /tmp/d3.prom "rdma_qos_vf_cnp_sent_total{$L2}" 40
check "cnp_handled 7" is /tmp/d3.prom "rdma_qos_vf_cnp_handled_total{$L2}" 7
check "ecn_marked_packets 55" is /tmp/d3.prom "rdma_qos_vf_ecn_marked_packets_total{$L2}" 55
check "out_of_sequence (the responder's) 3: rdma_qos_vf_out_of_sequence_total" is /tmp/d3.prom "rdma_qos_vf_out_of_sequence_total{$L2}" 3
check "... not a retransmission reason" bash -c "! grep -qF 'reason=\"out_of_sequence\"' /tmp/d3.prom"
check "retransmissions reason=packet_seq_err 2" is /tmp/d3.prom "rdma_qos_vf_retransmissions_total{$L2,reason=\"packet_seq_err\"}" 2
check "retransmissions reason=local_ack_timeout_err 1" is /tmp/d3.prom "rdma_qos_vf_retransmissions_total{$L2,reason=\"local_ack_timeout_err\"}" 1
check "retransmissions reason=roce_adp_retrans 4" is /tmp/d3.prom "rdma_qos_vf_retransmissions_total{$L2,reason=\"roce_adp_retrans\"}" 4
check "hw_counter counter=rx_write_requests 99" is /tmp/d3.prom "rdma_qos_vf_hw_counter_total{$L2,counter=\"rx_write_requests\"}" 99
check "hw_counter counter=rp_cnp_ignored 0 (a counter is a series even at 0)" is /tmp/d3.prom "rdma_qos_vf_hw_counter_total{$L2,counter=\"rp_cnp_ignored\"}" 0
check "no ibsim0 series carries another pod's labels" \
	bash -c "! grep -E '^rdma_qos_vf_[a-z_]+_total\\{' /tmp/d3.prom | grep 'rdma_dev=\"ibsim0\"' | grep -v -F '{$L2'"
ib "np_cnp_sent 41"
scrape v1
check "/metrics follows: cnp_sent 41" is /tmp/v1.prom "rdma_qos_vf_cnp_sent_total{$L2}" 41
ib "np_cnp_sent 4294967290" "packet_seq_err 4294967290"
scrape v2
( sleep 2; ib "np_cnp_sent +10" "packet_seq_err +10" ) &
WP=$!
"$RQ" show --counters --json --interval 4 > /tmp/wrap.json 2> /tmp/wrap.err
wait $WP
scrape v3
check "32-bit wrap: 4294967290 + 10 reads 4" is /tmp/v3.prom "rdma_qos_vf_cnp_sent_total{$L2}" 4
r=$(jq -r '.attachments[] | select(.pod == "ib-0") | .cnpSent' /tmp/wrap.json)
check "show --counters treats the decrease as a reset: ib-0 cnpSent $r/s (0 < r < 10, not 2^64)" \
	awk -v r="$r" 'BEGIN { exit !(r > 0 && r < 10) }'
# a Q-counter (mlx5_ib_query_q_counters: 32-bit) that went down from above 2^31 wrapped:
# +10 over ~4 s is ~2.5/s, where a reset would give 4 / 4 s = 1/s
r=$(jq -r '.attachments[] | select(.pod == "ib-0") | .retransmissions' /tmp/wrap.json)
check "show --counters takes packet_seq_err's wrap as +10: ib-0 retransmissions $r/s (~2.5)" \
	awk -v r="$r" 'BEGIN { exit !(r > 1.8 && r < 3.3) }'

echo "== the VF netdev's vport RDMA counters (dcbsim vf_stats: mlx5e's names on igbvf), read in the pod's netns"
# ibsim0 is mlx5_ib: its hw_counters count no packets or bytes, its VF netdev (net1 in podc) does
VS=/sys/kernel/debug/dcbsim/vf_stats
vs() { printf '%s\n' "$@" > $VS; }
vport_of() { grep -F "{$2" "$1" | grep -cE '^rdma_qos_vf_(bytes|packets)_total\{'; }
check "ib-0: no packets/bytes series while its netdev has no such counters" [ "$(vport_of /tmp/v3.prom "$L2")" = 0 ]
vs "$VF2PCI rx_vport_rdma_unicast_packets 80" "$VF2PCI rx_vport_rdma_unicast_bytes 1234" \
	"$VF2PCI tx_vport_rdma_unicast_packets 700" "$VF2PCI tx_vport_rdma_unicast_bytes 6000000000" \
	"$VF0PCI tx_vport_rdma_unicast_packets 999999" "$VF0PCI tx_vport_rdma_unicast_bytes 888888"
check "dcbsim: $VF2PCI's vport counters on" grep -q "^$VF2PCI on " $VS
scrape p1
check "ib-0 tx bytes 6000000000 (past 32 bits)" is /tmp/p1.prom "rdma_qos_vf_bytes_total{$L2,direction=\"tx\"}" 6000000000
check "ib-0 rx bytes 1234" is /tmp/p1.prom "rdma_qos_vf_bytes_total{$L2,direction=\"rx\"}" 1234
check "ib-0 tx packets 700" is /tmp/p1.prom "rdma_qos_vf_packets_total{$L2,direction=\"tx\"}" 700
check "ib-0 rx packets 80" is /tmp/p1.prom "rdma_qos_vf_packets_total{$L2,direction=\"rx\"}" 80
check "the host has no net1: they were read inside podc" [ ! -e /sys/class/net/net1 ]
check "no bytes series but ib-0's two (train-1's netdev has no counters)" [ "$(grep -cE '^rdma_qos_vf_bytes_total\{' /tmp/p1.prom)" = 2 ]
sp0=$(cat /sys/class/infiniband/rxe0/ports/1/hw_counters/sent_pkts)
check "train-0: rxe0's own sent_pkts ($sp0) win over its netdev's vport counters" is /tmp/p1.prom "rdma_qos_vf_packets_total{$L0,direction=\"tx\"}" "$sp0"
check "... and its vport bytes are not mixed in" bash -c "! grep -qF 'rdma_qos_vf_bytes_total{$L0' /tmp/p1.prom"
vs "$VF2PCI tx_vport_rdma_unicast_bytes +1000"
scrape p2
check "/metrics follows: ib-0 tx bytes 6000001000" is /tmp/p2.prom "rdma_qos_vf_bytes_total{$L2,direction=\"tx\"}" 6000001000
( sleep 1.5; vs "$VF2PCI tx_vport_rdma_unicast_packets +300" ) &
WP=$!
"$RQ" show --counters --json --interval 3 > /tmp/vport.json 2> /tmp/vport.err
wait $WP
r=$(jq -r '.attachments[] | select(.pod == "ib-0") | .txPackets' /tmp/vport.json)
check "show --counters rates ib-0's vport tx packets: $r/s (~100)" awk -v r="$r" 'BEGIN { exit !(r > 50 && r < 200) }'
vs "$VF2PCI reset"
scrape p3
check "the counters reset (a re-created netdev): the series starts over at 0" is /tmp/p3.prom "rdma_qos_vf_bytes_total{$L2,direction=\"tx\"}" 0
vs "$VF2PCI off" "$VF0PCI off"
scrape p4
check "the netdev's counters gone: no packets/bytes series for ib-0" [ "$(vport_of /tmp/p4.prom "$L2")" = 0 ]
check "... its hw_counters series stay" has /tmp/p4.prom "rdma_qos_vf_cnp_sent_total{$L2}"
check "promtool accepts /metrics with vport series" promcheck /tmp/p2.prom

echo "== rxe: real hw_counters, read as they are"
n=$(find /sys/class/infiniband/rxe1/ports/1/hw_counters/ -mindepth 1 ! -name lifespan | wc -l)
# the attachment's counter series (its QP census series, rdma_qos_vf_qps*, are not counters)
m=$(grep -F "{$L1" /tmp/v3.prom | grep -vc '^rdma_qos_vf_qps')
check "every one of rxe1's $n hw_counters files has a series on train-1 ($m)" [ "$n" -gt 0 -a "$n" = "$m" ]
rp=$(cat /sys/class/infiniband/rxe1/ports/1/hw_counters/rcvd_pkts)
check "rxe1 rcvd_pkts $rp is rdma_qos_vf_packets_total{train-1,rx}" is /tmp/v3.prom "rdma_qos_vf_packets_total{$L1,direction=\"rx\"}" "$rp"

echo "== rxe: RoCE traffic under netem loss on $VF0 moves train-0's retransmission counters"
ip addr add $PFIP/24 dev "$PF"; ip addr add $V0IP/24 dev "$VF0"
for d in all default "$PF" "$VF0"; do sysctl -qw net.ipv4.conf."$d".accept_local=1 net.ipv4.conf."$d".rp_filter=0; done
# both addresses are local: policy routing sends them through QEMU's igb (as wire.sh)
ip rule add pref 1000 lookup local && ip rule del pref 0
ip route add $PFIP/32 dev "$VF0" src $V0IP table 10; ip rule add pref 10 iif lo from $V0IP to $PFIP lookup 10
ip route add $V0IP/32 dev "$PF" src $PFIP table 11; ip rule add pref 11 iif lo from $PFIP to $V0IP lookup 11
ip neigh replace $PFIP lladdr "$(cat /sys/class/net/"$PF"/address)" dev "$VF0" nud permanent
ip neigh replace $V0IP lladdr "$(cat /sys/class/net/"$VF0"/address)" dev "$PF" nud permanent
rdma link add rxep type rxe netdev "$PF"
gid_v2() {
	local g h
	h=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${2//./ })
	for g in /sys/class/infiniband/"$1"/ports/1/gids/*; do
		[ "$(cat "$g")" = "$h" ] && [ "$(cat /sys/class/infiniband/"$1"/ports/1/gid_attrs/types/"${g##*/}" 2>/dev/null)" = "RoCE v2" ] &&
			{ echo "${g##*/}"; return; }
	done
}
for _ in $(seq 100); do [ -n "$(gid_v2 rxe0 $V0IP)" ] && [ -n "$(gid_v2 rxep $PFIP)" ] && break; sleep 0.1; done
G0=$(gid_v2 rxe0 $V0IP) GP=$(gid_v2 rxep $PFIP)
scrape t0
retx() { awk -v k="rdma_qos_vf_retransmissions_total{$2," 'index($0, k) == 1 { s += $2 } END { print s + 0 }' "$1"; }
tc qdisc add dev "$VF0" root netem loss 10%
timeout 120 ibv_rc_pingpong -d rxep -g "${GP:-1}" -n 200 -s 1024 > /tmp/pp.srv 2>&1 &
sp=$!
tcp_listening 18515
timeout 120 ibv_rc_pingpong -d rxe0 -g "${G0:-1}" -n 200 -s 1024 $PFIP > /tmp/pp.cli 2>&1
rc=$?
wait $sp
tc qdisc del dev "$VF0" root
[ $rc -eq 0 ] || echo "ibv_rc_pingpong rc $rc: $(tail -3 /tmp/pp.cli) / $(tail -3 /tmp/pp.srv)"
check "ibv_rc_pingpong rxe0 -> rxep, 200 iterations under 10% loss (rc $rc)" [ $rc -eq 0 ]
scrape t1
echo "rxe0 retransmission reasons after: $(grep -F "rdma_qos_vf_retransmissions_total{$L0" /tmp/t1.prom | sed 's/.*reason="\([^"]*\)"} /\1=/' | tr '\n' ' ')"
tx0=$(val /tmp/t0.prom "rdma_qos_vf_packets_total{$L0,direction=\"tx\"}") tx1=$(val /tmp/t1.prom "rdma_qos_vf_packets_total{$L0,direction=\"tx\"}")
check "train-0 tx packets moved by the traffic ($tx0 -> $tx1, >= 200 more)" [ "${tx1:-0}" -ge $(( ${tx0:-0} + 200 )) ]
r0=$(retx /tmp/t0.prom "$L0") r1=$(retx /tmp/t1.prom "$L0")
check "train-0 retransmission counters moved ($r0 -> $r1)" [ "$r1" -gt "$r0" ]
u0=$(val /tmp/t0.prom "rdma_qos_vf_packets_total{$L1,direction=\"tx\"}") u1=$(val /tmp/t1.prom "rdma_qos_vf_packets_total{$L1,direction=\"tx\"}")
check "train-1 (no traffic) kept its tx packets ($u0 -> $u1)" [ -n "$u0" -a "$u0" = "$u1" ]

echo "== show --counters (one sample, text and JSON)"
( sleep 1.5; ib "np_cnp_sent +30" "rp_cnp_handled +12" "roce_adp_retrans +3"
  ds "rx_prio3_pause +200" "tx_prio3_pause +40" "tx_prio3_packets +1000" "rx_prio3_pause_duration +400000" ) &
WP=$!
"$RQ" show --counters --interval 3 > /tmp/show.txt 2> /tmp/show.err
wait $WP
echo "==== show --counters sample (guest, text) ===="
cat /tmp/show.txt
echo "==== end of sample ===="
check "show --counters printed the PF and the three pods" \
	bash -c "grep -q '^PF $PF ' /tmp/show.txt && grep -q 'train-0' /tmp/show.txt && grep -q 'train-1' /tmp/show.txt && grep -q 'ib-0' /tmp/show.txt"
check "... ib-0 first (the worst: CNPs, retransmissions)" [ "$(grep -m1 -E 'train-|ib-0' /tmp/show.txt | awk '{print $2}')" = ib-0 ]
"$RQ" show --counters --json --interval 1 > /tmp/show.json 2>> /tmp/show.err
lab() { jq -c --arg p "$1" '[.attachments[] | select(.pod == $p) | [.namespace, .interface, .vf, .rdmaDev, .pf, .prio]] | first' /tmp/show.json; }
check "show --counters --json: train-0's labels" [ "$(lab train-0)" = "[\"ai\",\"$VF0\",\"$VF0PCI\",\"rxe0\",\"$PF\",3]" ]
check "show --counters --json: train-1's labels" [ "$(lab train-1)" = "[\"ai\",\"$VF1\",\"$VF1PCI\",\"rxe1\",\"$PF\",3]" ]
check "show --counters --json: ib-0's labels" [ "$(lab ib-0)" = "[\"ml\",\"net1\",\"$VF2PCI\",\"ibsim0\",\"$PF\",3]" ]

echo "== rxe0 re-registered: its series start over"
scrape r0
b=$(val /tmp/r0.prom "rdma_qos_vf_packets_total{$L0,direction=\"tx\"}")
rdma link del rxe0; rdma link add rxe0 type rxe netdev "$VF0"
ms=$(until_ms 8000 grep -qx 106 /sys/kernel/config/rdma_cm/rxe0/ports/1/default_roce_tos); rc=$?
check "the agent repaired the re-registered rxe0 ($ms ms)" [ $rc -eq 0 ]
scrape r1
a=$(val /tmp/r1.prom "rdma_qos_vf_packets_total{$L0,direction=\"tx\"}")
check "train-0's tx packets series starts over ($b -> $a, same labels)" [ -n "$a" -a "${a:-0}" -lt "${b:-0}" ]

echo "== promtool"
check "promtool accepts /metrics" promcheck /tmp/r1.prom
check "promtool accepts the textfile" promcheck $M

echo "== RoCE on a lossy priority: another writer keeps PFC 3 off, the repair is suspended"
( while :; do dcb pfc set dev "$PF" prio-pfc 3:off 2> /dev/null; sleep 0.3; done ) &
FPID=$!
SUSP="rdma_qos_repair_suspended{$P,item=\"pfc\"}"
ms=$(until_ms 60000 sh -c "curl -sf $URL | grep -qF '$SUSP 1'"); rc=$?
check "repair suspended after the fight ($ms ms)" [ $rc -eq 0 ]
# the writer stops with PFC 3 off: its last write may have come before the agent's last
# repair (the one that counted the fight that suspended it), so it writes once more, as a
# writer that owns the port would. The repair stays suspended, so PFC 3 stays off; after
# that write's event and pass, no more DCB events: no pass takes a sample between the
# scrapes below
kill $FPID; wait $FPID 2> /dev/null
dcb pfc set dev "$PF" prio-pfc 3:off
sleep 1.5
check "PFC 3 stays off (the repair is suspended)" grep -qw '3:off' <<< "$(dcb pfc show dev "$PF" prio-pfc)"
scrape l0
check "PFC 3 off: prio 3's pause series are gone" bash -c "! grep -F 'prio=\"3\"' /tmp/l0.prom | grep -q '^rdma_qos_port_pause'"
# judged from the lossless attachments' own RoCE tx: ib-0's vport counters (mlx5e's VF netdev)
vs "$VF2PCI tx_vport_rdma_unicast_packets 100"
scrape l0b
ds "tx_prio3_packets +500"
scrape l1a
check "the port sends on priority 3 while every pod is idle: roce_on_lossy_prio{prio 3} 0" is /tmp/l1a.prom "rdma_qos_port_roce_on_lossy_prio{$P,prio=\"3\"}" 0
vs "$VF2PCI tx_vport_rdma_unicast_packets +500"
scrape l1
check "ib-0 sends RoCE on priority 3 without PFC: roce_on_lossy_prio{prio 3} 1" is /tmp/l1.prom "rdma_qos_port_roce_on_lossy_prio{$P,prio=\"3\"}" 1
scrape l2
check "no RoCE in the next interval: roce_on_lossy_prio{prio 3} 0" is /tmp/l2.prom "rdma_qos_port_roce_on_lossy_prio{$P,prio=\"3\"}" 0

kill -TERM $APID; wait $APID
check "agent exits 0 on SIGTERM" [ $? -eq 0 ]
grep -E 'warn|error' /tmp/agent.log | grep -v 'repaired\|fight\|in a row' | head -5
echo "== harness"
vs "$VF2PCI tx_vport_rdma_unicast_bytes 5"
check "dcbsim unloads with VF hooks on (one of them in podc)" modprobe -r dcbsim
check "... podc's net1 is still there (its own ethtool ops back)" ip netns exec podc ip link show net1
check "no kernel warning during the run" [ -z "$(dmesg | grep -E 'WARNING:|BUG:|Oops|refcount_t')" ]
echo "telemetry.sh ran $((SECONDS - T0)) s in the guest"
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
