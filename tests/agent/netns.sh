#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# One way to a record's netns, and the netns's identity (issue 30, item 3).
# The agent runs as the DaemonSet runs it: its own PID and mount namespace
# (no hostPID) and --host-proc, a mount of the host's /proc.
# - ADD records the identity (nsfs device and inode) of the pod's netns;
# - a cri-dockerd record (/proc/<pid>/ns/net of a process holding the pod's
#   netns) gets its telemetry series (the VF netdev's vport counters, read in
#   the pod's netns), is judged in its pod (rdma_qos_vf_in_pod 1), keeps its
#   class without drift: every reader maps the path through --host-proc;
# - the same while a process of the agent's own PID namespace has that PID
#   (in the agent's netns, the host's): no false "left its pod";
# - an agent without CAP_SYS_PTRACE cannot open a holder's netns that has capabilities it
#   lacks: it says it cannot judge it, and keeps the record;
# - a record of 0.2.0 (no identity) is read as before;
# - after a lost DEL, the PID reused by a process in another netns: that
#   netns is not the pod's (never entered, no series labelled with the old
#   pod, counted stale) and the record is released after the grace.
set -u
. "$(dirname "$0")/lib.sh"

netns_can_run() {
	agent_can_run || return 1
	unshare --pid --fork --mount-proc true 2> /dev/null || { echo "unshare --pid --mount-proc refused"; return 1; }
	[ -w /proc/sys/kernel/ns_last_pid ] || { echo "no /proc/sys/kernel/ns_last_pid (CONFIG_CHECKPOINT_RESTORE)"; return 1; }
	return 0
}
sim_suite_start "agent netns" rqnn netns_can_run
HOSTPROC=$T/hostproc
SLEEPERS=()
suite_teardown() {
	local p
	for p in "${SLEEPERS[@]}"; do kill "$p" 2> /dev/null; done
	mountpoint -q "$HOSTPROC" && umount -l "$HOSTPROC"
}
M=$T/m.prom
mkdir -p "$HOSTPROC" && mount --bind /proc "$HOSTPROC"
# the agent in its own PID and mount namespaces, as in the pod, with the host's /proc
agent_ns() { RDMA_QOS_SIM_ROOT=$ROOT unshare --pid --fork --mount-proc "$SIM" agent --host-proc "$HOSTPROC" "$@"; }

"$MKNODE" --root "$ROOT" --pfs 2 --vfs 4 --rdma configfs --ecn yes --dcb yes --counters yes \
	--pf-prefix nn$$ > /dev/null || { echo "FAIL: mknode"; exit 1; }
sim_make_vfs "$ROOT"
mapfile -t VFS < <(sim_vfs "$ROOT")
read -r PF0 VF0PCI VF0 <<< "${VFS[0]}"
read -r _ VF1PCI VF1 <<< "${VFS[1]}"
rq() { echo "{\"type\":\"rdma-qos\",\"deviceID\":\"$1\"}"; }
args() { echo "IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=$1;K8S_POD_UID=u-$1"; }
SD=$(state_dir "$ROOT")
rec_of() { grep -l "\"$1\"" "$SD"/*.json 2> /dev/null | head -1; }
# holder NAME: a process holding pod netns NAME (made here), which is then unmounted: only the
# process keeps it, as with cri-dockerd. Prints the pid.
holder() {
	local ns p
	ns=$(newns "$1")
	ip netns exec "$NS_PREFIX$1" sleep 1000 > /dev/null 2>&1 &
	p=$!
	for _ in $(seq 100); do
		same "$(stat -L -c %i "/proc/$p/ns/net")" "$(stat -L -c %i "$ns")" && break
		sleep 0.05
	done
	echo $p
}
# spawn_as PID CMD...: run CMD in the background as PID of this PID namespace (ns_last_pid,
# retried: other processes of the machine may take the PID first); prints the pid it got
spawn_as() {
	local want=$1 got i
	shift
	for i in $(seq 50); do
		echo $((want - 1)) > /proc/sys/kernel/ns_last_pid
		"$@" > /dev/null 2>&1 &
		got=$!
		[ "$got" = "$want" ] && break
		kill "$got" 2> /dev/null; wait "$got" 2> /dev/null
	done
	echo "$got"
}
# vport counters of any /proc/<pid>/ns/net pod's net1: the fake keys them by the path's
# basename (<root>/ethtool/netns/net/net1.json)
mkdir -p "$ROOT/ethtool/netns/net"
echo '{"rx_vport_rdma_unicast_packets": 20, "rx_vport_rdma_unicast_bytes": 1000,
	"tx_vport_rdma_unicast_packets": 300, "tx_vport_rdma_unicast_bytes": 5000}' > "$ROOT/ethtool/netns/net/net1.json"

echo "== a cri-dockerd record: /proc/<pid>/ns/net of the process holding the pod's netns"
P1=$(holder a)
SLEEPERS+=("$P1")
PNS=/proc/$P1/ns/net
chain_add "$ROOT" roce c1 "$PNS" net1 "$VF0" "$(rq "$VF0PCI")" "$(args p1)" > /dev/null
check "ADD with CNI_NETNS $PNS" [ $? -eq 0 ]
ip netns del "${NS_PREFIX}a"
REC=$(rec_of "$VF0PCI")
read -r DEV INO <<< "$(stat -L -c '%d %i' "$PNS")"
check "the record has the netns's identity: netnsDev $DEV, netnsIno $INO" \
	[ "$(jq -r '"\(.netnsDev) \(.netnsIno)"' "$REC")" = "$DEV $INO" ]
check "... and the start time of process $P1 (netnsPidStart)" \
	same "$(jq -r .netnsPidStart "$REC")" "$(awk '{ print $22 }' "/proc/$P1/stat")"
RDEV=$(rdma_of "$ROOT" "$VF0PCI")
L="namespace=\"ai\",pod=\"p1\",interface=\"net1\",vf=\"$VF0PCI\",rdma_dev=\"$RDEV\",pf=\"$PF0\""
agent_ns --once --metrics-file "$M" 2> "$T/a1.log"
check "agent in its own PID namespace: exit 0 (in profile)" [ $? -eq 0 ]
check "... its telemetry series: the VF netdev's vport tx packets (300)" \
	[ "$(metric "$M" "rdma_qos_vf_packets_total{$L,direction=\"tx\"}")" = 300 ]
check "... rx bytes (1000)" [ "$(metric "$M" "rdma_qos_vf_bytes_total{$L,direction=\"rx\"}")" = 1000 ]
check "... judged in its pod: rdma_qos_vf_in_pod 1" \
	[ "$(metric "$M" "rdma_qos_vf_in_pod{namespace=\"ai\",pod=\"p1\",vf=\"$VF0PCI\"}")" = 1 ]
check "... no traffic-class drift" [ "$(metric "$M" "rdma_qos_drift{pf=\"$PF0\",item=\"traffic_class\"}")" = 0 ]
check "... no \"left pod\" in the log" [ "$(grep -c "left pod" "$T/a1.log")" = 0 ]
check "... no cannot-judge warning" [ "$(grep -c "cannot judge" "$T/a1.log")" = 0 ]
echo 0 > "$(tos_file "$ROOT" "$RDEV")" # another writer clears the class
agent_ns --once --metrics-file "$M" 2> "$T/a1b.log"
check "a class undone: repaired (106) through the record's pod" [ "$(cat "$(tos_file "$ROOT" "$RDEV")")" = 106 ]

echo "== the agent with the shipped capabilities only (NET_ADMIN, SYS_ADMIN: no SYS_PTRACE)"
# the kernel opens another process's /proc/<pid>/ns/net only for one that may ptrace it: a
# holder with capabilities the agent lacks (here: all of them) is out of its reach
RDMA_QOS_SIM_ROOT=$ROOT unshare --pid --fork --mount-proc \
	setpriv --inh-caps=-all --bounding-set=-all,+sys_admin,+net_admin -- \
	"$SIM" agent --once --host-proc "$HOSTPROC" --stale-grace 0 --metrics-file "$M" 2> "$T/cap.log"
check "the record is kept: not judged gone" [ -n "$(rec_of "$VF0PCI")" ]
check "... the log says it cannot judge it, naming CAP_SYS_PTRACE" grep -q "cannot judge.*CAP_SYS_PTRACE" "$T/cap.log"
check "... no \"left pod\" in the log" [ "$(grep -c "left pod" "$T/cap.log")" = 0 ]

echo "== the same PID in the agent's own PID namespace, a process in the agent's netns"
# the agent's namespace is fresh: its PIDs are the test's to give
RDMA_QOS_SIM_ROOT=$ROOT unshare --pid --fork --mount-proc bash -c '
	echo $(('"$P1"' - 1)) > /proc/sys/kernel/ns_last_pid
	sleep 1000 &
	S=$!
	[ $S = '"$P1"' ] && echo "same pid" > '"$T"'/collide
	'"$SIM"' agent --once --host-proc '"$HOSTPROC"' --metrics-file '"$M"' 2> '"$T"'/a2.log
	echo $? > '"$T"'/a2.rc
	kill $S'
check "a process of the agent's namespace had PID $P1" grep -q "same pid" "$T/collide"
check "agent: exit 0" [ "$(cat "$T/a2.rc")" = 0 ]
check "... still in its pod (no false \"left its pod\"): rdma_qos_vf_in_pod 1" \
	[ "$(metric "$M" "rdma_qos_vf_in_pod{namespace=\"ai\",pod=\"p1\",vf=\"$VF0PCI\"}")" = 1 ]
check "... no \"left pod\" in the log" [ "$(grep -c "left pod" "$T/a2.log")" = 0 ]
check "... its series, from the pod's netns" \
	[ "$(metric "$M" "rdma_qos_vf_packets_total{$L,direction=\"tx\"}")" = 300 ]

echo "== a record of 0.2.0 (no identity): read as before"
jq 'del(.netnsDev, .netnsIno, .netnsPidStart)' "$REC" > "$REC.new" && mv "$REC.new" "$REC"
agent_ns --once --metrics-file "$M" 2> "$T/a3.log"
check "agent: exit 0" [ $? -eq 0 ]
check "... in its pod" [ "$(metric "$M" "rdma_qos_vf_in_pod{namespace=\"ai\",pod=\"p1\",vf=\"$VF0PCI\"}")" = 1 ]
check "... its series" [ "$(metric "$M" "rdma_qos_vf_packets_total{$L,direction=\"tx\"}")" = 300 ]
check "... kept" [ -n "$(rec_of "$VF0PCI")" ]

echo "== a lost DEL, then the PID reused by a process in another netns"
P2=$(holder b)
SLEEPERS+=("$P2")
PNS2=/proc/$P2/ns/net
chain_add "$ROOT" roce c2 "$PNS2" net1 "$VF1" "$(rq "$VF1PCI")" "$(args p2)" > /dev/null
check "ADD with CNI_NETNS $PNS2" [ $? -eq 0 ]
ip netns del "${NS_PREFIX}b"
RDEV2=$(rdma_of "$ROOT" "$VF1PCI")
L2="namespace=\"ai\",pod=\"p2\",interface=\"net1\",vf=\"$VF1PCI\",rdma_dev=\"$RDEV2\",pf=\"$PF0\""
agent_ns --once --metrics-file "$M" 2> /dev/null
check "while the pod lives: its series" [ "$(metric "$M" "rdma_qos_vf_packets_total{$L2,direction=\"tx\"}")" = 300 ]
kill "$P2" # the pod is gone; its DEL never comes
for _ in $(seq 100); do [ -e "/proc/$P2" ] || break; sleep 0.05; done
# another pod's netns, with an interface net1 that shows the same VF (as the sim knows it)
NSE=$(newns e)
ip -n "${NS_PREFIX}e" link add net1 type veth peer name net1p && ip -n "${NS_PREFIX}e" link set net1 alias "$VF1"
P3=$(spawn_as "$P2" ip netns exec "${NS_PREFIX}e" sleep 1000)
SLEEPERS+=("$P3")
for _ in $(seq 100); do same "$(stat -L -c %i "$PNS2")" "$(stat -L -c %i "$NSE")" && break; sleep 0.05; done
check "a process in another netns got PID $P2 (got $P3)" [ "$P3" = "$P2" ]
check "... $PNS2 is another netns now" [ "$(stat -L -c %i "$PNS2")" != "$(jq -r .netnsIno "$(rec_of "$VF1PCI")")" ]
agent_ns --once --metrics-file "$M" --stale-grace 3 2> "$T/a4.log"
check "within the grace: the record is kept" [ -n "$(rec_of "$VF1PCI")" ]
check "... counted stale (rdma_qos_stale_records 1)" [ "$(metric "$M" rdma_qos_stale_records)" = 1 ]
check "... no series labelled with the old pod p2" [ "$(grep -c 'pod="p2"' "$M")" = 0 ]
check "... the other netns is not entered: no \"left pod\" for p2" [ "$(grep -c "left pod ai/p2" "$T/a4.log")" = 0 ]
check "... the live cri-dockerd record keeps its series" [ "$(metric "$M" "rdma_qos_vf_packets_total{$L,direction=\"tx\"}")" = 300 ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --counters > "$T/show.txt" 2>&1
check "show --counters (the host's PID namespace): no counters for the old pod p2 (CNP-TX -)" \
	[ "$(awk '$2 == "p2" { print $6 }' "$T/show.txt")" = - ]
check "... p1's counters are there (CNP-TX 0.0)" [ "$(awk '$2 == "p1" { print $6 }' "$T/show.txt")" = 0.0 ]
sleep 3.2
agent_ns --once --metrics-file "$M" --stale-grace 3 2> "$T/a5.log"
check "past the grace: released" [ -z "$(rec_of "$VF1PCI")" ]
check "... the log says so" grep -q "a lost DEL.*releasing" "$T/a5.log"
check "... the cri-dockerd record stays" [ -n "$(rec_of "$VF0PCI")" ]

echo "== a lost DEL, the PID reused by a process in a netns that has the old one's inode"
# nsfs inode numbers are the lowest free ones: the next netns made after a pod's died often
# has its number. Only the holder's start time (netnsPidStart) tells the two apart.
read -r _ VF2PCI VF2 <<< "${VFS[2]}"
P4=$(holder d)
SLEEPERS+=("$P4")
PNS4=/proc/$P4/ns/net
chain_add "$ROOT" roce c3 "$PNS4" net1 "$VF2" "$(rq "$VF2PCI")" "$(args p3)" > /dev/null
check "ADD with CNI_NETNS $PNS4" [ $? -eq 0 ]
read -r DEV4 INO4 <<< "$(stat -L -c '%d %i' "$PNS4")"
ip netns del "${NS_PREFIX}d"
# a dying netns hands a real VF back to the host (the sim's veth would be destroyed): as the
# kernel does, so the netns is freed at once
nsenter --net="$PNS4" ip link set dev net1 netns $$ name "$VF2"
kill "$P4"
for _ in $(seq 100); do [ -e "/proc/$P4" ] || break; sleep 0.05; done
# take netns until one has the freed number (freed asynchronously; lower free ones are held)
F="" HELD=()
for i in $(seq 100); do
	ip netns add "${NS_PREFIX}f$i" || break
	ino=$(stat -L -c %i "/run/netns/${NS_PREFIX}f$i")
	echo "netns f$i: $ino (want $INO4)" >> "$T/inos"
	if [ "$ino" = "$INO4" ]; then F=${NS_PREFIX}f$i; break; fi
	if [ "$ino" -lt "$INO4" ]; then HELD+=("${NS_PREFIX}f$i"); else ip netns del "${NS_PREFIX}f$i"; sleep 0.2; fi
done
for n in "${HELD[@]}"; do ip netns del "$n"; done
check "a new netns has the old one's inode $INO4" [ -n "$F" ]
[ -n "$F" ] || { head -5 "$T/inos"; tail -3 "$T/inos"; }
# in it another pod's net1 showing the same VF (as the sim knows it): entered, it would pass
ip -n "$F" link add net1 type veth peer name net1p && ip -n "$F" link set net1 alias "$VF2"
P5=$(spawn_as "$P4" ip netns exec "$F" sleep 1000)
SLEEPERS+=("$P5")
for _ in $(seq 100); do [ "$(stat -L -c %i "$PNS4")" = "$INO4" ] && break; sleep 0.05; done
check "a process in it got PID $P4 (got $P5)" [ "$P5" = "$P4" ]
check "... $PNS4 has the old netns's device and inode ($DEV4 $INO4)" [ "$(stat -L -c '%d %i' "$PNS4")" = "$DEV4 $INO4" ]
agent_ns --once --metrics-file "$M" --stale-grace 3 2> "$T/a6.log"
check "within the grace: kept" [ -n "$(rec_of "$VF2PCI")" ]
check "... judged gone (agent/stale.json has roce_c3_net1)" \
	[ "$(jq 'has("roce_c3_net1")' "$ROOT/run/rdma-qos/agent/stale.json" 2> /dev/null)" = true ]
check "... no series labelled with the old pod p3" [ "$(grep -c 'pod="p3"' "$M")" = 0 ]
check "... no in-pod verdict for p3 (its netns is not entered)" [ "$(grep -c 'rdma_qos_vf_in_pod{.*pod="p3"' "$M")" = 0 ]
sleep 3.2
agent_ns --once --metrics-file "$M" --stale-grace 3 2> "$T/a7.log"
check "past the grace: released" [ -z "$(rec_of "$VF2PCI")" ]

summary
