#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# ECN that never fires (issue 33 item 4; DESIGN.md "Congestion telemetry"):
# rdma_qos_port_ecn_ineffective{pf,prio} is 1 when, over the interval since
# the same /metrics client's previous request, the link partner paused a PFC
# priority of the PF (rx_prio<N>_pause went up) while no attachment on the PF
# counted an ECN-marked packet or a CNP; 0 when the partner did not pause or
# the attachments' congestion counters moved, and when the pauses were not
# ECN's to prevent (issue 37 item 4: the host paused the partner on the same
# priority, a pause storm, the pods sent nothing on the priority); no series where those counters
# or the priority's pause counter do not exist. Fake ethtool stats and
# hw_counters on the simulated node, the agent's /metrics read as Prometheus
# would.
set -u
. "$(dirname "$0")/lib.sh"

sim_suite_start "agent ECN ineffective" rqec agent_can_run
BG=""
suite_teardown() { [ -n "$BG" ] && kill "$BG" 2> /dev/null && wait "$BG" 2> /dev/null; }

"$MKNODE" --root "$ROOT" --pfs 2 --vfs 1 --rdma configfs --ecn yes --dcb yes --counters yes \
	--pf-prefix ec$$ > /dev/null || { echo "FAIL: mknode"; exit 1; }
sim_make_vfs "$ROOT"
mapfile -t VFS < <(sim_vfs "$ROOT")
read -r PF0 VF0PCI VF0 <<< "${VFS[0]}"
read -r PF1 VF1PCI VF1 <<< "${VFS[1]}"
NSA=$(newns a) NSB=$(newns b)
rq() { echo "{\"type\":\"rdma-qos\",\"deviceID\":\"$1\"}"; }
chain_add "$ROOT" roce t1 "$NSA" net1 "$VF0" "$(rq "$VF0PCI")" \
	"IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=trainer-0;K8S_POD_UID=u0" > /dev/null
check "ADD a lossless pod on $PF0 (PFC 3)" [ $? -eq 0 ]
chain_add "$ROOT" roce t2 "$NSB" net1 "$VF1" "$(rq "$VF1PCI")" \
	"IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=trainer-1;K8S_POD_UID=u1" > /dev/null
check "ADD a lossless pod on $PF1" [ $? -eq 0 ]
HW0=$ROOT/sys/class/infiniband/$(rdma_of "$ROOT" "$VF0PCI")/ports/1/hw_counters
HW1=$ROOT/sys/class/infiniband/$(rdma_of "$ROOT" "$VF1PCI")/ports/1/hw_counters
set_stat() { local f="$ROOT/ethtool/$1.json"; jq -c "$2" "$f" > "$f.new" && mv "$f.new" "$f"; }
set_stat "$PF0" '.rx_prio3_pause = 10'
set_stat "$PF1" '.rx_prio3_pause = 10'
echo 5 > "$HW0/np_cnp_sent"; echo 6 > "$HW0/rp_cnp_handled"; echo 8 > "$HW0/np_ecn_marked_roce_packets"
# PF1's VF has no congestion counters (firmware without cc_query_allowed): nothing to judge by
rm -f "$HW1/np_cnp_sent" "$HW1/rp_cnp_handled" "$HW1/np_ecn_marked_roce_packets" "$HW1/rp_cnp_ignored"

PORT=$(free_port)
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --interval 600 --listen "127.0.0.1:$PORT" 2> "$T/agent.log" &
BG=$!
get() { curl -sf "http://127.0.0.1:$PORT/metrics" > "$1"; }
E3() { metric_lit "$1" "rdma_qos_port_ecn_ineffective{pf=\"$2\",prio=\"$3\"}"; }
for _ in $(seq 50); do get "$T/h0.prom" && break; sleep 0.1; done
check "GET /metrics (the first sample of this client: no interval yet, no series)" \
	[ -s "$T/h0.prom" ]
check "... no ECN series for the first sample" [ -z "$(E3 "$T/h0.prom" "$PF0" 3)" ]

echo "== the switch pauses priority 3, the pod counts no ECN mark and no CNP"
set_stat "$PF0" '.rx_prio3_pause += 500'
set_stat "$PF1" '.rx_prio3_pause += 500'
sleep 1.1
get "$T/h1.prom"
check "rdma_qos_port_ecn_ineffective{$PF0,3} 1" [ "$(E3 "$T/h1.prom" "$PF0" 3)" = 1 ]
check "... a priority without PFC has no series (prio 0)" [ -z "$(E3 "$T/h1.prom" "$PF0" 0)" ]
check "... $PF1, whose VF has no congestion counters, has no series (cannot be judged)" \
	[ -z "$(E3 "$T/h1.prom" "$PF1" 3)" ]
check "promtool accepts /metrics" promcheck "$T/h1.prom"

echo "== the switch pauses, and ECN works: the pod's senders were told to slow down"
set_stat "$PF0" '.rx_prio3_pause += 500'
echo 9 > "$HW0/rp_cnp_handled"
sleep 1.1
get "$T/h2.prom"
check "CNPs handled moved: 0" [ "$(E3 "$T/h2.prom" "$PF0" 3)" = 0 ]

echo "== the switch pauses, the pod's ECN-marked packets moved"
set_stat "$PF0" '.rx_prio3_pause += 500'
echo 20 > "$HW0/np_ecn_marked_roce_packets"
sleep 1.1
get "$T/h3.prom"
check "ECN marks moved: 0" [ "$(E3 "$T/h3.prom" "$PF0" 3)" = 0 ]

echo "== no pause at all"
sleep 1.1
get "$T/h4.prom"
check "a quiet port: 0" [ "$(E3 "$T/h4.prom" "$PF0" 3)" = 0 ]

# issue 37 item 4: pauses ECN could not have prevented, or not the pods' to prevent, are 0
echo "== the switch pauses, and the host paused it on priority 3 too (its own receive side)"
set_stat "$PF0" '.rx_prio3_pause += 500 | .tx_prio3_pause += 40'
sleep 1.1
get "$T/h7.prom"
check "the host sent pause frames on the priority: caused by the host, 0" [ "$(E3 "$T/h7.prom" "$PF0" 3)" = 0 ]

echo "== the switch pauses during a pause storm the driver reports"
set_stat "$PF0" '.rx_prio3_pause += 500 | .tx_pause_storm_warning_events += 1'
sleep 1.1
get "$T/h8.prom"
check "tx_pause_storm_warning_events moved: a storm, 0" [ "$(E3 "$T/h8.prom" "$PF0" 3)" = 0 ]
set_stat "$PF0" '.rx_prio3_pause += 500 | .rx_prio3_pause_duration += 5000000'
sleep 1.1
get "$T/h9.prom"
check "paused for more than half the interval (rdma_qos_port_pause_storm 1): 0" \
	[ "$(E3 "$T/h9.prom" "$PF0" 3)" = 0 ]
check "... rdma_qos_port_pause_storm 1" [ "$(metric_lit "$T/h9.prom" "rdma_qos_port_pause_storm{pf=\"$PF0\"}")" = 1 ]

echo "== the pod's VF counts its RoCE tx (vport counters): did it send while paused?"
VPA=$ROOT/ethtool/netns/$(basename "$NSA")/net1.json
mkdir -p "${VPA%/*}"
echo '{"rx_vport_rdma_unicast_packets": 0, "tx_vport_rdma_unicast_packets": 0,
	"rx_vport_rdma_unicast_bytes": 0, "tx_vport_rdma_unicast_bytes": 0}' > "$VPA"
set_vp() { jq -c "$1" "$VPA" > "$VPA.new" && mv "$VPA.new" "$VPA"; }
sleep 1.1
get "$T/h10.prom"
set_stat "$PF0" '.rx_prio3_pause += 500'
set_vp '.tx_vport_rdma_unicast_packets += 1000 | .tx_vport_rdma_unicast_bytes += 4096000'
sleep 1.1
get "$T/h11.prom"
check "the pod sent on priority 3 and the switch paused, no CNP: still 1" [ "$(E3 "$T/h11.prom" "$PF0" 3)" = 1 ]
set_stat "$PF0" '.rx_prio3_pause += 500'
sleep 1.1
get "$T/h12.prom"
check "the pod sent nothing: the pauses held the PF's own RoCE, 0" [ "$(E3 "$T/h12.prom" "$PF0" 3)" = 0 ]

echo "== a PF without the pause counter of that priority"
set_stat "$PF0" 'del(.rx_prio3_pause)'
sleep 1.1
get "$T/h5.prom"
sleep 1.1
get "$T/h6.prom"
check "no rx_prio3_pause: no series" [ -z "$(E3 "$T/h6.prom" "$PF0" 3)" ]

summary
