# shellcheck shell=bash
# SPDX-License-Identifier: Apache-2.0
# Sourced by bond.sh in its guest, after its ADD/agent checks (issue 37 item 1, DESIGN.md
# "The link partner", "Bonds and bridges"): the production agent hears the link partner's
# LLDP on a PF that is a bond slave, an OVS port or a Linux bridge port. bond.sh's boot puts
# both igb PFs on one QEMU hub ("# vm: pfs-wired"): $PFB moves into netns "sw" as the
# switch port swp, where Debian's lldpd (the host's, from the shared /usr) plays the
# switch; $PFA, with pod pa's lossless attachment (dcbsim back on it), is the node's port:
#   1. a slave of bond0 in active-backup mode, the active one (a bond hands the frame to
#      bond0: a socket for ETH_P_LLDP on the slave gets it from bond0's ifindex), then
#      the backup one (the kernel passes link-local frames up on an inactive slave);
#   2. a slave of bond0 in 802.3ad mode, LACP negotiated with a bond in netns sw;
#   3. a port of a Linux bridge (br_handle_frame passes 01:80:c2:00:00:0e up on the port);
#   4. a port of an Open vSwitch bridge (ovsdb-server and ovs-vswitchd from the host's
#      /usr, the kernel datapath: netdev_frame_hook consumes every frame).
# (3 and 4 after the PF's VFs are removed: QEMU's igb ignores multicast promiscuous mode on
# a PF with VFs, and both make their ports promiscuous.)
# Asserted each time: rdma_qos_peer_seen{pf=$PFA} 1 and the partner's system name in the
# metrics and in `show`. Then, with the partner gone, on the OVS port (promiscuous):
# frames that are not untagged LLDP to 01:80:c2:00:00:0e (broadcast 0x88b6, another
# Ethertype to the LLDP group, LLDP to 01:80:c2:00:00:03, to the PF's own MAC, with an
# 802.1Q tag) arrive on the port (tcpdump)
# and neither wake the agent (its context switches) nor are heard, nor are the node's own
# LLDP frames sent out of $PFA; the agent has one packet socket for the PF, an ETH_P_ALL
# tap. The agent started here is killed at the end; bond.sh's DEL of pa follows.
SWD=/tmp/sw
BM=/tmp/bl.prom
BLOG=/tmp/agent-bl.log
OVSD=/tmp/ovs
mkdir -p "$SWD" && chmod 711 "$SWD" # lldpcli is setuid _lldpd
# verify DESC CMD...: check, returning 1 when it failed (lib.sh's check always returns 0), so
# that "verify ... || diagnostics" prints them
verify() {
	local f=$FAIL
	check "$@"
	[ "$FAIL" -eq "$f" ]
}
lldpc() { ip netns exec sw lldpcli -u "$SWD/lldpd.sock" "$@" > /dev/null; }
# sw_start NAME: lldpd in netns sw on swp as switch NAME, every second, TTL 4 s
sw_start() {
	{
		echo "configure system hostname $1"
		echo "configure ports swp lldp portidsubtype local swp9 description \"Ethernet to $PFA\""
		echo "configure lldp tx-hold 4"
		echo "configure lldp tx-interval 1"
	} > "$SWD/lldpd.conf"
	chmod 644 "$SWD/lldpd.conf"
	ip netns exec sw lldpd -d -u "$SWD/lldpd.sock" -p "$SWD/lldpd.pid" -I swp \
		-O "$SWD/lldpd.conf" > "$SWD/lldpd.log" 2>&1 &
	SWPID=$!
}
# sw_stop: SIGTERM (lldpd's shutdown LLDPDU, TTL 0) and wait until it is gone
sw_stop() {
	[ -n "${SWPID:-}" ] || return 0
	kill -TERM "$SWPID" 2> /dev/null
	wait "$SWPID" 2> /dev/null
	SWPID=""
}
bval() { awk -v k="$1" '$1 == k { print $2 }' "$BM"; }
# heard NAME [MS]: until the metrics say $PFA's partner is current and is NAME
heard() {
	until_ms "${2:-15000}" sh -c "grep -q '^rdma_qos_peer_seen{pf=\"$PFA\"} 1\$' $BM &&
		grep -q '^rdma_qos_peer_info{pf=\"$PFA\",.*system_name=\"$1\"' $BM"
}
# silent: until the metrics say $PFA has no current partner
silent() { until_ms 8000 sh -c "grep -q '^rdma_qos_peer_seen{pf=\"$PFA\"} 0\$' $BM"; }
# pline: $PFA's partner line in `show`
pline() { "$RQ" show 2> /dev/null | awk -v pf="PF $PFA " 'index($0, pf) == 1 { on = 1; next } /^PF / { on = 0 } on && /^  partner/'; }
# partner_is NAME WHERE: both checks of one case
partner_is() {
	local ms rc l
	ms=$(heard "$1"); rc=$?
	verify "$2: rdma_qos_peer_seen{pf=$PFA} 1, system_name $1 (took $ms ms)" [ $rc -eq 0 ] ||
		{ grep "^rdma_qos_peer_\(seen\|info\){pf=\"$PFA\"" "$BM"; tail -5 "$BLOG"; }
	l=$(pline)
	verify "$2: show says 'partner $1 port swp9'" [ "${l#  partner "$1" port swp9 }" != "$l" ] || echo "  $l"
}
csw() { cat /proc/"$BPID"/task/*/status 2> /dev/null | awk '/_ctxt_switches/ { n += $2 } END { print n + 0 }'; }

# the frames of the last part, raw: send.py IFACE KIND COUNT (each KIND as below)
cat > /tmp/send.py << 'EOF'
import socket, struct, sys, time
ifname, kind, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((ifname, 0))
mac = bytes.fromhex(open(f"/sys/class/net/{ifname}/address").read().strip().replace(":", ""))
def tlv(t, v):
    return struct.pack("!H", (t << 9) | len(v)) + v
def lldpdu(name):
    return (tlv(1, b"\x04" + mac) + tlv(2, b"\x07" + name.encode()) + tlv(3, struct.pack("!H", 120))
            + tlv(5, name.encode()) + tlv(0, b""))
GROUP, NONTPMR = bytes.fromhex("0180c200000e"), bytes.fromhex("0180c2000003")
dst = {"self": GROUP, "bcast": b"\xff" * 6, "group-other": GROUP, "lldp-03": NONTPMR,
       "lldp-tagged": GROUP, "lldp-ucast": bytes.fromhex(sys.argv[4]) if len(sys.argv) > 4 else GROUP}[kind]
if kind == "bcast":
    body = struct.pack("!H", 0x88B6) + bytes(46)
elif kind == "group-other":
    body = struct.pack("!H", 0x88B5) + bytes(46)
elif kind == "lldp-tagged":
    body = struct.pack("!HHH", 0x8100, 5, 0x88CC) + lldpdu("junk-vlan")
elif kind == "self":
    body = struct.pack("!H", 0x88CC) + lldpdu("node-self")
else:
    body = struct.pack("!H", 0x88CC) + lldpdu("junk-" + kind)
frame = dst + mac + body
for _ in range(count):
    s.send(frame)
    time.sleep(0.01)
EOF

echo "== the link partner on a bonded and a bridged PF (issue 37 item 1): $PFB becomes the switch's port"
ip link del bond0
rmmod dcbsim && modprobe dcbsim ifname="$PFA" || fail "dcbsim back onto $PFA"
modprobe dummy numdummies=0 || fail "modprobe dummy"
echo 0 > "/sys/bus/pci/devices/$BPCI/sriov_numvfs" # (QEMU's igb: see case 4)
ip netns add sw && ip link set "$PFB" netns sw && ip -n sw link set "$PFB" name swp &&
	ip netns exec sw sysctl -qw net.ipv6.conf.swp.disable_ipv6=1 && ip -n sw link set swp up && ip -n sw link set lo up && ip link set "$PFA" up
check "$PFB is swp in netns sw, on $PFA's wire (one QEMU hub)" [ $? -eq 0 ]
# --interval 2: every enslaving raises link events for the PF, and the agent's flap
# back-off then defers the passes those and the partner's changes ask for; the metrics come
# from passes, so the interval timer renders them. The wakeup check restarts it with 600.
agent_start() {
	"$RQ" agent --interval "$1" --metrics-file "$BM" --log-level debug 2>> "$BLOG" &
	BPID=$!
}
agent_start 2
until_ms 10000 grep -q "listening for the link partner's LLDP on $PFA" "$BLOG" > /dev/null
check "the agent listens on $PFA" grep -q "listening for the link partner's LLDP on $PFA" "$BLOG"
# /proc/net/packet: sk RefCnt Type Proto Iface R Rmem User Inode (Proto in hex)
inodes=$(for f in /proc/"$BPID"/fd/*; do readlink "$f"; done | sed -n 's/^socket:\[\([0-9]*\)\]$/\1/p' | xargs)
socks=$(awk -v ino=" $inodes " 'NR > 1 && index(ino, " " $9 " ") { print $4 "@" $5 "/" $6 }' /proc/net/packet | xargs)
check "one packet socket: an ETH_P_ALL tap on $PFA's ifindex, running ($socks)" \
	[ "$socks" = "0003@$(cat /sys/class/net/"$PFA"/ifindex)/1" ]

echo "== 1. bond0 in active-backup mode over $PFA and a dummy; $PFA active"
ip link add rqdum0 type dummy
ip link add bond0 type bond mode active-backup miimon 100
ip link set "$PFA" down && ip link set "$PFA" master bond0 && ip link set rqdum0 master bond0 &&
	ip link set bond0 type bond primary "$PFA" && ip link set bond0 up
abs() { cat /sys/class/net/bond0/bonding/active_slave; }
ms=$(until_ms 15000 sh -c "[ \"\$(cat /sys/class/net/bond0/bonding/active_slave)\" = $PFA ]"); rc=$?
verify "bond0 active-backup: $PFA is the active slave (took $ms ms)" [ $rc -eq 0 ] || abs
sw_start tor-ab
partner_is tor-ab "$PFA the active slave of an active-backup bond"
ip link set bond0 type bond primary rqdum0
ms=$(until_ms 5000 sh -c "[ \"\$(cat /sys/class/net/bond0/bonding/active_slave)\" = rqdum0 ]"); rc=$?
check "the dummy is active now, $PFA the backup ($(cat /sys/class/net/"$PFA"/bonding_slave/state))" [ $rc -eq 0 ]
lldpc configure system hostname tor-ab-backup
partner_is tor-ab-backup "$PFA the backup slave"
ip link set bond0 type bond primary "$PFA"
until_ms 5000 sh -c "[ \"\$(cat /sys/class/net/bond0/bonding/active_slave)\" = $PFA ]" > /dev/null
lldpc configure system hostname tor-ab
partner_is tor-ab "$PFA active again"

echo "== 2. bond0 in 802.3ad mode over $PFA, LACP with swbond in netns sw"
sw_stop
silent > /dev/null
ip link del bond0 && ip link del rqdum0
ip link add bond0 type bond mode 802.3ad lacp_rate fast miimon 100
ip link set "$PFA" down && ip link set "$PFA" master bond0 && ip link set bond0 up
ip -n sw link add swbond type bond mode 802.3ad lacp_rate fast miimon 100
ip -n sw link set swp down && ip -n sw link set swp master swbond && ip -n sw link set swbond up
SWBMAC=$(ip netns exec sw cat /sys/class/net/swbond/address)
# collecting and distributing (LACP port state bits 0x10, 0x20) on both ends: until then
# bond_handle_frame treats the port as inactive and passes link-local frames up on it
lacp_up() {
	local a p
	a=$(cat "/sys/class/net/$PFA/bonding_slave/ad_actor_oper_port_state")
	p=$(cat "/sys/class/net/$PFA/bonding_slave/ad_partner_oper_port_state")
	grep -qi "Partner Mac Address: $SWBMAC" /proc/net/bonding/bond0 &&
		[ "$(cat "/sys/class/net/$PFA/bonding_slave/state")" = active ] &&
		[ $((a & 0x30)) = 48 ] && [ $((p & 0x30)) = 48 ]
}
ms=$(until_ms 30000 lacp_up); rc=$?
verify "LACP: bond0's partner is swbond ($SWBMAC), $PFA active, collecting and distributing (took $ms ms)" \
	[ $rc -eq 0 ] || cat /proc/net/bonding/bond0
sw_start tor-lacp
partner_is tor-lacp "$PFA a slave of an 802.3ad bond"

# A bridge or OVS makes its ports promiscuous, and QEMU's igb ignores multicast promiscuous
# mode (VMOLR.MPME) on a PF with VFs (SR-IOV pools): multicast would never reach $PFA. The
# VFs go first (pod pa's VF with them: its record still names $PFA, so the agent watches it)
sw_stop
silent > /dev/null
ip link del bond0
ip -n sw link del swbond && ip -n sw link set swp up
echo 0 > "/sys/bus/pci/devices/$APCI/sriov_numvfs"
check "$PFA has no VFs now (QEMU's igb and promiscuous ports)" [ "$(cat "/sys/bus/pci/devices/$APCI/sriov_numvfs")" = 0 ]

echo "== 3. $PFA a port of a Linux bridge"
ip link add rqbr0 type bridge && ip link set "$PFA" master rqbr0 && ip link set rqbr0 up &&
	ip link set "$PFA" up
check "$PFA's master is rqbr0" [ "$(basename "$(readlink "/sys/class/net/$PFA/master")")" = rqbr0 ]
sw_start tor-br
partner_is tor-br "$PFA a port of a Linux bridge"
sw_stop
silent > /dev/null
ip link set "$PFA" nomaster && ip link del rqbr0

echo "== 4. $PFA a port of an Open vSwitch bridge (kernel datapath)"
OVSPIDS=""
ovs_up() {
	[ -x /usr/sbin/ovs-vswitchd ] && [ -x /usr/sbin/ovsdb-server ] ||
		{ echo "no ovs-vswitchd/ovsdb-server in /usr/sbin (tests/vm/packages.txt: openvswitch-switch)"; return 1; }
	modprobe openvswitch || return 1
	mkdir -p "$OVSD"
	export OVS_RUNDIR=$OVSD OVS_LOGDIR=$OVSD OVS_DBDIR=$OVSD OVS_SYSCONFDIR=$OVSD
	ovsdb-tool create "$OVSD/conf.db" /usr/share/openvswitch/vswitch.ovsschema || return 1
	ovsdb-server "$OVSD/conf.db" --remote="punix:$OVSD/db.sock" --pidfile="$OVSD/ovsdb-server.pid" \
		--detach --log-file="$OVSD/ovsdb-server.log" || return 1
	OVSPIDS="$(cat "$OVSD/ovsdb-server.pid")"
	ovs-vsctl --no-wait init || return 1
	ovs-vswitchd "unix:$OVSD/db.sock" --pidfile="$OVSD/ovs-vswitchd.pid" --detach \
		--log-file="$OVSD/ovs-vswitchd.log" || return 1
	OVSPIDS="$OVSPIDS $(cat "$OVSD/ovs-vswitchd.pid")"
	ovs-vsctl --timeout=30 add-br rqovs -- add-port rqovs "$PFA" && ip link set "$PFA" up && ip link set rqovs up
}
ovs_up > /tmp/ovs-up.log 2>&1
rc=$?
ovs_port() { [ $rc -eq 0 ] && [ "$(basename "$(readlink "/sys/class/net/$PFA/master")")" = ovs-system ]; }
verify "ovsdb-server and ovs-vswitchd run; $PFA is a port of bridge rqovs, its master ovs-system" ovs_port ||
	{ cat /tmp/ovs-up.log; tail -20 "$OVSD"/*.log 2> /dev/null; }
ovs-vsctl show 2> /dev/null | sed 's/^/  /'
sw_start tor-ovs
partner_is tor-ovs "$PFA a port of an OVS bridge"

echo "== no partner, on the promiscuous OVS port: nothing but untagged LLDP to 01:80:c2:00:00:0e wakes or is heard"
sw_stop
ms=$(silent); rc=$?
check "lldpd's shutdown LLDPDU: peer_seen 0 (took $ms ms)" [ $rc -eq 0 ]
ip link set "$PFA" promisc on # OVS did it already; without OVS, the same worst case
check "$PFA is promiscuous (an OVS port: its NIC filters nothing)" [ $(($(cat /sys/class/net/"$PFA"/flags) & 0x100)) -ne 0 ]
kill -TERM "$BPID"; wait "$BPID"
agent_start 600
until_ms 10000 sh -c "[ \"\$(grep -c \"listening for the link partner's LLDP on $PFA\" $BLOG)\" = 2 ]" > /dev/null
sleep 2 # its first pass
PFAMAC=$(cat /sys/class/net/"$PFA"/address)
SWMAC=$(ip netns exec sw cat /sys/class/net/swp/address)
ip netns exec sw timeout 60 tcpdump -i swp -nn -e -c 20 ether src "$PFAMAC" and ether proto 0x88cc > "$SWD/self.txt" 2> "$SWD/self.err" &
CAPSW=$!
timeout -s INT 60 tcpdump -i "$PFA" -Q in -nn -e ether src "$SWMAC" > "$SWD/junk.txt" 2> "$SWD/junk.err" &
CAP=$!
# both capture from "listening on" (seconds under TCG); from here the agent must sleep
until_ms 20000 grep -q "listening on" "$SWD/junk.err" > /dev/null
until_ms 20000 grep -q "listening on" "$SWD/self.err" > /dev/null
# the agent idle first: its first pass can outlast a fixed sleep on a loaded TCG host (CI
# run 13: 6 switches in the window, the pass's), so wait until a second passes without one
for _ in $(seq 30); do
	c1=$(csw)
	sleep 1
	[ "$(csw)" = "$c1" ] && break
done
a=$(csw)
for k in bcast group-other lldp-03 lldp-tagged; do ip netns exec sw /usr/bin/python3 /tmp/send.py swp "$k" 100; done
ip netns exec sw /usr/bin/python3 /tmp/send.py swp lldp-ucast 100 "${PFAMAC//:/}"
/usr/bin/python3 /tmp/send.py "$PFA" self 20
sleep 1
b=$(csw)
kill -INT "$CAP"; wait "$CAP" "$CAPSW"
kinds() {
	grep -c "> ff:ff:ff:ff:ff:ff, ethertype .*(0x88b6)" "$SWD/junk.txt"
	grep -c "> 01:80:c2:00:00:0e, ethertype .*(0x88b5)" "$SWD/junk.txt"
	grep -c "> 01:80:c2:00:00:03, ethertype LLDP" "$SWD/junk.txt"
	grep -c "> $PFAMAC, ethertype LLDP" "$SWD/junk.txt"
	grep -c "vlan 5, .*LLDP" "$SWD/junk.txt"
}
got=$(kinds | xargs)
verify "each kind arrived on $PFA, 100 each (tcpdump: broadcast, 0x88b5 to the group, LLDP to :03, to the PF, tagged: $got)" \
	[ "$got" = "100 100 100 100 100" ] || head -5 "$SWD/junk.txt"
check "the node's own 20 LLDP frames left $PFA (tcpdump on swp: $(grep -c . "$SWD/self.txt"))" \
	[ "$(grep -c . "$SWD/self.txt")" = 20 ]
check "the agent woke at most twice meanwhile (context switches: $((b - a)))" [ $((b - a)) -le 2 ]
unheard() { ! grep -q "junk-\|node-self" "$BLOG"; }
check "none of them was heard (no junk-* nor node-self partner in the log)" unheard
check "peer_seen still 0" [ "$(bval "rdma_qos_peer_seen{pf=\"$PFA\"}")" = 0 ]
sw_start tor-ovs2
partner_is tor-ovs2 "then the switch again"
sw_stop

kill -TERM "$BPID"; wait "$BPID"
ip link set "$PFA" promisc off
ovs-vsctl --timeout=30 del-br rqovs 2> /dev/null
# shellcheck disable=SC2086 # the pids of the two daemons started above
[ -n "$OVSPIDS" ] && kill $OVSPIDS 2> /dev/null
