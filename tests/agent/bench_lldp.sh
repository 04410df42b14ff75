#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The link partner's cost (make agent-bench, issue 33): decode time per LLDP frame
# (tests/bench/lldp_decode.c), and the agent's wakeups while it listens on a PF: none
# while no frame arrives (no polling: the process sleeps in epoll_wait until a frame,
# a TTL or the --interval timer), about one per frame when a switch sends every second.
# Wakeups are the agent's context switches (every thread, /proc/PID/task/*/status). The agent
# and its PF run in a netns of their own: on a shared machine other tests' links come and go
# in the host netns all the time, and each raises an rtnetlink event the agent reads.
set -u
. "$(dirname "$0")/lib.sh"
why=$(sim_can_run) || { echo "agent-bench (lldp): cannot run: $why"; exit 1; }
command -v lldpd > /dev/null || { echo "agent-bench (lldp): no lldpd"; exit 1; }
make -s --no-print-directory -C "$RQ_SRC" B="$RQ_BUILD" "$RQ_BUILD/bench/lldp_decode" || exit 1
echo "== decode time per frame (best of 5 x 200000)"
"$RQ_BUILD/bench/lldp_decode" 200000

T=$(mktemp -d /tmp/rq-lbench.XXXXXX)
chmod 711 "$T"
ROOT=$T/node
NS=rqlb$$ HOST=rqlh$$
BG="" LL=""
cleanup() {
	[ -n "$BG" ] && kill "$BG" 2> /dev/null && wait "$BG" 2> /dev/null
	ip netns pids "$NS" 2> /dev/null | xargs -r kill -KILL 2> /dev/null
	ip netns del "$NS" 2> /dev/null
	ip netns del "$HOST" 2> /dev/null
	rm -rf "$T"
}
trap cleanup EXIT
"$MKNODE" --root "$ROOT" --pfs 1 --vfs 1 --rdma configfs --ecn yes --dcb yes --pf-prefix lb$$ > /dev/null || exit 1
PF0=$(sim_vfs "$ROOT" | awk '{ print $1; exit }')
mkdir -p "$ROOT/etc/cni/rdma-qos"
echo '{"profiles":{},"node":{"pf":"ensure","baseline":"roce-lossless"}}' > "$ROOT/etc/cni/rdma-qos/profiles.json"
ip netns add "$NS" && ip netns add "$HOST"
ip -n "$HOST" link add "$PF0" type veth peer name swp netns "$NS"
ip netns exec "$HOST" sysctl -qw "net.ipv6.conf.$PF0.disable_ipv6=1"
ip -n "$HOST" link set "$PF0" up && ip -n "$NS" link set swp up
RDMA_QOS_SIM_ROOT=$ROOT ip netns exec "$HOST" "$SIM" agent --interval 600 2> "$T/agent.log" &
BG=$!
for _ in $(seq 50); do grep -q "listening for the link partner's LLDP on $PF0" "$T/agent.log" && break; sleep 0.1; done
csw() { cat /proc/"$BG"/task/*/status 2> /dev/null | awk '/_ctxt_switches/ { n += $2 } END { print n + 0 }'; }
sleep 1
a=$(csw); sleep 10; b=$(csw)
echo "== wakeups of the agent listening on $PF0"
echo "no frame, 10 s: $((b - a)) context switches"
idle=$((b - a))
cat > "$T/sw.conf" << 'EOF'
configure lldp tx-interval 1
configure lldp tx-hold 4
configure lldp custom-tlv add oui 00,80,c2 subtype 11 oui-info 08,08
EOF
chmod 644 "$T/sw.conf"
ip netns exec "$NS" lldpd -d -u "$T/sw.sock" -I swp -O "$T/sw.conf" > "$T/lldpd.log" 2>&1 &
LL=$!
sleep 3
a=$(csw); sleep 10; b=$(csw)
echo "a switch sending every second, 10 s: $((b - a)) context switches"
[ "$idle" -le 2 ] || { echo "agent-bench (lldp): FAIL: the agent woke $idle times with no frame"; exit 1; }
