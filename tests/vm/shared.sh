# SPDX-License-Identifier: Apache-2.0
# Sourced by wire.sh at its end, in the same guest (tests/vm/README.md "What shared.sh
# asserts"): the PF's own RDMA device shared by pods (issue 50 item 7), RDMA netns mode
# shared. Debian's real macvlan and ipvlan CNI plugins give pods sa, sb (macvlan on $PF),
# sc (macvlan on the VLAN device $PF.100) and sd (ipvlan on the other PF) their net1,
# each chained with the production rdma-qos (the conflist [macvlan, rdma-qos]);
# shared-probe (tests/vm/shared_probe.c) runs the project's netns_link_lower and
# rdma_gid_find on this kernel; the device's class set, kept, restored, checked and
# repaired, on the wire from the host netns (wire.sh's helpers); ibsim on $PF as a shared
# mlx5-like device: the core's GID table with the pods' entries, QPs whose raw context's
# src_addr_index names a pod, an RDMA-CM id bound to a pod's address in the cm_id dump.
# Uses wire.sh's PF, PF2's igb, rxep (rxe on $PF, deleted for ibsim), rxe1 on $VF1
# ($V1IP), the /etc overlay, check, wire, only_tos, tos_of; leaves no pod, link, record
# or module of its own behind.
SH_T0=$SECONDS
SP=$BUILD/tests/vm/shared-probe
SRDMA=$RQCACHE/iproute2-bpo/usr/bin/rdma # `rdma -r` (raw dumps) needs iproute2 >= 6.x
[ -x "$SRDMA" ] || SRDMA=rdma
QPF=/sys/kernel/debug/ibsim/qp
PF2PCI=0000:01:00.0
PF2=$(ls /sys/bus/pci/devices/$PF2PCI/net)
IPA=10.99.0.11 IPB=10.99.0.12 IPC=10.99.1.13 IPD=10.99.2.14 IP6A=fd00:99::11

echo "== [$((SECONDS - SH_T0)) s] shared RDMA device: pods through Debian's macvlan and ipvlan plugins ($PF, $PF.100, $PF2), rdma-qos chained"
check "RDMA netns mode is shared ($(rdma system show | head -1))" grep -q 'netns shared' <<< "$(rdma system show)"
modprobe 8021q && modprobe macvlan && modprobe ipvlan || fail "modprobe 8021q macvlan ipvlan"
ip link add link "$PF" name "$PF.100" type vlan id 100 && ip link set "$PF.100" up
ip link set "$PF2" up
rdma link add rxeq type rxe netdev "$PF2"
# the node catalog (wire.sh's overlay over /etc): every namespace lossless by default
cat > /etc/cni/rdma-qos/profiles.json <<'JSON'
{ "namespaces": { "*": { "default": "roce-lossless", "allow": ["roce-lossless"] } } }
JSON
# an admin's class on the shared device before the pods: the last DEL must put it back
mkdir -p /sys/kernel/config/rdma_cm/rxep
echo 32 > /sys/kernel/config/rdma_cm/rxep/ports/1/default_roce_tos
SHARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME"
# rqc NS: rdma-qos's config; sd's PF (the second igb) has no dcbnl: pf ignore there
rqc() { [ "$1" = sd ] && echo '{"type":"rdma-qos","numa":"off","pf":"ignore"}' || echo '{"type":"rdma-qos","numa":"off"}'; }
srec() { echo "/run/rdma-qos/state/shared_c-$1_net1.json"; }
sidx=/run/rdma-qos/state/dev/rxep.json
# plug NS: Debian's plugin's config for pod NS (static IPAM: the addresses of its line)
plug() {
	local ns=$1 plugin=macvlan master=$PF mode=bridge a addrs=""
	case $ns in sc) master=$PF.100 ;; sd) plugin=ipvlan master=$PF2 mode=l2 ;; esac
	for a in $(sed -n "s/^$ns //p" <<< "$SHADDRS"); do addrs="$addrs${addrs:+,}{\"address\":\"$a\"}"; done
	echo "{\"type\":\"$plugin\",\"master\":\"$master\",\"mode\":\"$mode\",\"ipam\":{\"type\":\"static\",\"addresses\":[$addrs]}}"
}
SHADDRS="sa $IPA/24 $IP6A/64
sb $IPB/24
sc $IPC/24
sd $IPD/24"
# pod NS [rq]: netns NS and the plugin's ADD of its net1 (result in /tmp/cni-NS.json); with
# rq, the conflist [plugin, rdma-qos]: rdma-qos's ADD with that result as prevResult
pod() {
	local plugin
	plugin=$(plug "$1" | jq -r .type)
	ip netns add "$1"
	CONF_NAME=shared conf "$(plug "$1")" | run "/usr/lib/cni/$plugin" ADD "c-$1" "/run/netns/$1" net1 "$SHARGS=$1" \
		> "/tmp/cni-$1.json" 2>&1 || return 1
	[ -z "${2:-}" ] && return 0
	CONF_NAME=shared conf "$(rqc "$1")" "$(cat "/tmp/cni-$1.json")" |
		run "$RQ" ADD "c-$1" "/run/netns/$1" net1 "$SHARGS=$1" > "/tmp/rq-$1.json" 2> "/tmp/rq-$1.log"
}
# rq CMD NS: rdma-qos's CHECK or DEL of pod NS (prevResult the plugin's result)
rq() { CONF_NAME=shared conf "$(rqc "$2")" "$(cat "/tmp/cni-$2.json")" | run "$RQ" "$1" "c-$2" "/run/netns/$2" net1 "$SHARGS=$2"; }
pod sa rq; rca=$?
pod sb rq; rcb=$?
pod sc rq; rcc=$?
pod sd rq; rcd=$?
[ "$rca$rcb$rcc$rcd" = 0000 ] || cat /tmp/rq-s?.log
check "conflist [macvlan, rdma-qos] ADD for sa, sb (on $PF), sc (on $PF.100); [ipvlan, rdma-qos] for sd (on $PF2) (rc $rca $rcb $rcc $rcd)" \
	[ "$rca$rcb$rcc$rcd" = 0000 ]
check "the plugins' results name net1 with the pods' addresses; rdma-qos passes them on" \
	[ "$(jq -r '[.interfaces[] | select(.sandbox != null) | .name] + [.ips[].address] | join(" ")' /tmp/rq-sa.json /tmp/rq-sc.json /tmp/rq-sd.json | tr '\n' ' ')" = \
		"net1 $IPA/24 $IP6A/64 net1 $IPC/24 net1 $IPD/24 " ] || cat /tmp/cni-s?.json

echo "== [$((SECONDS - SH_T0)) s] netns_link_lower (pkg/netns/lower.c) from each pod's net1 to the host"
for x in "sa macvlan $PF:" "sb macvlan $PF:" "sc macvlan $PF.100:vlan $PF:" "sd ipvlan $PF2:"; do
	set -- $x
	got=$("$SP" lower "/run/netns/$1" net1)
	check "$1's net1 -> '$got' (want '${x#* }')" [ "$got" = "${x#* }" ]
done
got=$("$SP" lower /run/netns/sa lo)
check "sa's lo has no lower device in the host: '$got' (-ENOENT)" [ "$got" = "error -2" ]

echo "== [$((SECONDS - SH_T0)) s] rdma_gid_find (pkg/rdma/gid.c): each pod's RoCE v2 GID by address, polled up to 500 ms as ADD"
# probe DEV IP: shared-probe's answer within ADD's 500 ms in R, the RoCE v2 index in V2
probe() { R=$("$SP" gid "$1" "$2" 500); V2=$(awk '$1 == "v2" { print $2 }' <<< "$R"); }
probe rxep $IPA; ga=$R GA=$V2
probe rxep $IPB; gb=$R GB=$V2
probe rxep $IPC; gc=$R GC=$V2
probe rxeq $IPD; gd=$R GD=$V2
probe rxep $IP6A; g6=$R G6=$V2
check "rxep: sa's $IPA '$ga', sb's $IPB '$gb', sc's $IPC (on $PF.100) '$gc'; rxeq: sd's $IPD '$gd'" \
	eval '[ -n "$GA" ] && [ -n "$GB" ] && [ -n "$GC" ] && [ -n "$GD" ]'
# slot DEV N: what sysfs shows in slot N, "GID TYPE" (gid_v2 would read rxe's 1024 slots)
slot() { echo "$(cat /sys/class/infiniband/$1/ports/1/gids/$2 2> /dev/null) $(cat /sys/class/infiniband/$1/ports/1/gid_attrs/types/$2 2> /dev/null)"; }
# v4gid IP: the IPv4-mapped GID as sysfs prints it
v4gid() { printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${1//./ }; }
check "... each the slot where sysfs shows the address's RoCE v2 GID (::ffff:a.b.c.d)" \
	eval '[ "$(slot rxep $GA)|$(slot rxep $GB)|$(slot rxep $GC)|$(slot rxeq $GD)" = \
		"$(v4gid $IPA) RoCE v2|$(v4gid $IPB) RoCE v2|$(v4gid $IPC) RoCE v2|$(v4gid $IPD) RoCE v2" ]'
check "... and distinct per pod on the shared rxep ($GA $GB $GC)" [ "$(printf '%s\n' $GA $GB $GC | sort -u | wc -l)" = 3 ]
check "sa's global IPv6 $IP6A: '$g6', sysfs: $(slot rxep ${G6:-x})" \
	[ "$(slot rxep ${G6:-x})" = "fd00:0099:0000:0000:0000:0000:0000:0011 RoCE v2" ]
LLA=$(ip -n sa -6 addr show dev net1 scope link | sed -n 's|.*inet6 \(fe80::[^/]*\)/.*|\1|p' | head -1)
LLG=$(python3 -c 'import ipaddress, sys; print(ipaddress.ip_address(sys.argv[1]).exploded)' "${LLA:-::}")
ms=$(until_ms 2000 grep -qlx "$LLG" /sys/class/infiniband/rxep/ports/1/gids/*)
r=$("$SP" gid rxep "$LLA" 0)
check "sa's link-local $LLA has an entry on rxep (after $ms ms), yet rdma_gid_find refuses it: '$r' (-EADDRNOTAVAIL)" \
	eval 'grep -qlx "$LLG" /sys/class/infiniband/rxep/ports/1/gids/* && [ "${r% after*}" = "error -99" ]'
check "every pod's entry has the netdev net1 (the pods' names are alike: the address tells them apart)" \
	[ "$(cat /sys/class/infiniband/rxep/ports/1/gid_attrs/ndevs/{$GA,$GB,$GC} 2>/dev/null | sort -u)" = net1 ]

echo "== [$((SECONDS - SH_T0)) s] rdma-qos's records: shared, the device, the chain, the GIDs by address"
# recgids NS: the record's RoCE v2 entries, "IP=INDEX ..."
recgids() { jq -r '[.gids[] | select(.type == "RoCE v2") | "\(.ip)=\(.index)"] | join(" ")' "$(srec $1)" 2> /dev/null; }
check "sa's record: shared, rxep, master [$PF], rdmaPci $PFPCI, no VF" \
	[ "$(jq -c '[.shared, .rdmaDev, .master, .rdmaPci, .vf]' "$(srec sa)" 2> /dev/null)" = "[true,\"rxep\",[\"$PF\"],\"$PFPCI\",\"\"]" ]
check "sc's record: master [$PF.100, $PF] (the VLAN device walked through)" \
	[ "$(jq -c '[.rdmaDev, .master]' "$(srec sc)" 2> /dev/null)" = "[\"rxep\",[\"$PF.100\",\"$PF\"]]" ]
check "sd's record (ipvlan): rxeq, master [$PF2], $IPD=$GD; default_roce_tos 106 on rxeq ($(tos_of rxeq))" \
	[ "$(jq -c '[.rdmaDev, .master]' "$(srec sd)" 2> /dev/null) $(recgids sd) $(tos_of rxeq)" = "[\"rxeq\",[\"$PF2\"]] $IPD=$GD 106" ]
check "the records' GIDs by address are shared-probe's, none pending: sa '$(recgids sa)', sb '$(recgids sb)', sc '$(recgids sc)'" \
	eval '[ "$(recgids sa)|$(recgids sb)|$(recgids sc)" = "$IPA=$GA $IP6A=$G6|$IPB=$GB|$IPC=$GC" ] &&
		[ "$(jq -s -c "[.[].gidsPending // [] | length] | add" "$(srec sa)" "$(srec sb)" "$(srec sc)")" = 0 ]'
check "the device class: default_roce_tos 106 on rxep ($(tos_of rxep)), the index lists sa, sb, sc and found 32" \
	[ "$(tos_of rxep) $(jq -c '[.class, [.attachments[].key], .found.configfs]' $sidx 2> /dev/null)" = \
		'106 [106,["shared_c-sa_net1","shared_c-sb_net1","shared_c-sc_net1"],32]' ]
grep -h "ADD done" /tmp/rq-sa.log | head -1

echo "== [$((SECONDS - SH_T0)) s] the shared device's class on the wire from the host netns (RDMA-CM over rxep)"
wire "shared rxep" "$PF" $PFIP $V1IP
check "rping over rxep ($PFIP -> $V1IP) connects and completes" [ $RPRC -eq 0 ]
check "every RoCEv2 packet rxep sent carries TOS 0x6a (class 106): $SEEN" only_tos $PFIP 0x6a

echo "== [$((SECONDS - SH_T0)) s] CHECK, drift, the agent's repair, DEL"
rq CHECK sa > /tmp/chk-sa.out 2>&1
check "CHECK sa passes" [ $? -eq 0 -a ! -s /tmp/chk-sa.out ] || cat /tmp/chk-sa.out
echo 0 > /sys/kernel/config/rdma_cm/rxep/ports/1/default_roce_tos
rq CHECK sb > /tmp/chk-sb.out 2>&1; rc=$?
check "CHECK sb fails on the device's class set to 0 (rc $rc): $(grep -o 'configured 106, current 0' /tmp/chk-sb.out | head -1)" \
	eval '[ $rc -ne 0 ] && grep -q "configured 106, current 0" /tmp/chk-sb.out' || cat /tmp/chk-sb.out
"$RQ" agent --interval 2 --metrics-file /tmp/sh.prom 2> /tmp/sh-agent.log &
SHAPID=$!
ms=$(until_ms 10000 grep -qx 106 /sys/kernel/config/rdma_cm/rxep/ports/1/default_roce_tos); rc=$?
check "the agent repairs the shared device's class: 106 again ($ms ms)" [ $rc -eq 0 ]
kill -TERM $SHAPID; wait $SHAPID
check "agent exits 0 on SIGTERM" [ $? -eq 0 ]
grep -E 'repaired' /tmp/sh-agent.log | head -2
rq DEL sa 2> /tmp/del-sa.log && rq DEL sc 2> /tmp/del-sc.log; rc=$?
check "DEL sa, sc (rc $rc): sb still requires the class, 106 kept ($(tos_of rxep)); the index lists sb" \
	[ "$rc $(tos_of rxep) $(jq -c '[.attachments[].key]' $sidx 2> /dev/null)" = '0 106 ["shared_c-sb_net1"]' ]
rq DEL sb 2> /tmp/del-sb.log; rc=$?
check "DEL sb, the last (rc $rc): the admin's 32 restored ($(tos_of rxep)), no record, no index" \
	eval '[ "$rc $(tos_of rxep)" = "0 32" ] && ! ls /run/rdma-qos/state/shared_* $sidx 2> /dev/null'
rq DEL sd 2> /tmp/del-sd.log; rc=$?
check "DEL sd (rc $rc): rxeq's class back to 0 as found ($(tos_of rxeq))" [ "$rc $(tos_of rxeq)" = "0 0" ]
wire "shared rxep after DEL" "$PF" $PFIP $V1IP
check "after DEL rxep's RoCEv2 packets carry TOS 0x20 (class 32) again: $SEEN" only_tos $PFIP 0x20

echo "== [$((SECONDS - SH_T0)) s] ibsim on $PF as a shared mlx5-like device: GID table, src_addr_index, RDMA-CM ids"
# rxep gone: the pods' addresses are then ibsim0's alone (RDMA-CM binds to the device that
# has the address's entry)
t=$SECONDS; rdma link del rxep; echo "rxep deleted in $((SECONDS - t)) s"
t=$SECONDS; modprobe ibsim ifname="$PF" gids=32 lifespan=0 || fail "modprobe ibsim ifname=$PF gids=32"; echo "ibsim loaded in $((SECONDS - t)) s"
mount -t debugfs none /sys/kernel/debug 2> /dev/null
probe ibsim0 $IPA; ia=$R IA=$V2
probe ibsim0 $IPB; ib=$R IB=$V2
check "ibsim0 (gids=32: $(ls /sys/class/infiniband/ibsim0/ports/1/gids | wc -l) slots): sa's entry '$ia', sb's '$ib'" \
	eval '[ -n "$IA" ] && [ -n "$IB" ] && [ "$IA" != "$IB" ]'
# each pod's process makes its QP and lives on (a user QP is listed while its task lives)
nsenter --net=/run/netns/sa sh -c "echo 'rc 106 src=$IPA cm user' > $QPF || exit 1; exec sleep 600" &
OWN_A=$!
nsenter --net=/run/netns/sb sh -c "echo 'rc 0 src=$IPB user' > $QPF || exit 1; exec sleep 600" &
OWN_B=$!
for _ in $(seq 50); do [ "$(wc -l < $QPF)" = 2 ] && break; sleep 0.1; done
kill -0 $OWN_A 2> /dev/null; r1=$?
kill -0 $OWN_B 2> /dev/null; r2=$?
cat $QPF
QA=$(awk '$4 == 106 { print $1 }' $QPF) QB=$(awk '$4 == 0 { print $1 }' $QPF)
check "debugfs: sa's RDMA-CM QP (rc $r1) and sb's QP by source address (rc $r2) in RTS with sgid $IA and $IB" \
	[ "$(awk '{ print $2, $7 }' $QPF | sort | tr '\n' ' ')" = "$(printf 'RTS %s\nRTS %s\n' $IA $IB | sort | tr '\n' ' ')" ]
nsenter --net=/run/netns/sb sh -c "echo 'rc 106 src=$IPA cm' > $QPF" 2> /dev/null; r1=$?
echo "rc 0 src=10.99.0.99" > $QPF 2> /dev/null; r2=$?
check "refused: an RDMA-CM id in sb bound to sa's address (rc $r1), an address without an entry (rc $r2)" \
	eval '[ $r1 -ne 0 ] && [ $r2 -ne 0 ] && [ "$(wc -l < $QPF)" = 2 ]'
"$SRDMA" -j -r res show qp link ibsim0 > /tmp/shraw.json
raw_decode sgid < /tmp/shraw.json | sort -n > /tmp/shraw.txt
echo "raw dump decoded (qpn state tclass src_addr_index): $(tr '\n' ';' < /tmp/shraw.txt)"
check "rdma -r res show qp: QP $QA src_addr_index $IA (sa's entry), QP $QB src_addr_index $IB (sb's)" \
	eval 'grep -qx "$QA 3 106 $IA" /tmp/shraw.txt && grep -qx "$QB 3 0 $IB" /tmp/shraw.txt'
"$SRDMA" -j res show cm_id link ibsim0 > /tmp/shcm.json 2>&1
echo "cm_id dump: $(cat /tmp/shcm.json)"
check "rdma res show cm_id (host netns): one id on ibsim0, src-addr $IPA, lqpn $QA" \
	[ "$(jq -r '[.[] | "\(.["src-addr"] | sub(":[0-9]+$"; "")) \(.lqpn)"] | join(";")' /tmp/shcm.json)" = "$IPA $QA" ]
# the QP census of the shared device on this kernel: sa and sb ADD again, now on ibsim0 (the
# PF's device: rxep is gone), and each QP goes to its pod, sa's by its RDMA-CM id, sb's by
# its context's source GID index; sb's QP at class 0 is named in show --pod and the metrics
rq ADD sa > /tmp/rq-sa2.json 2> /tmp/rq-sa2.log && rq ADD sb > /tmp/rq-sb2.json 2> /tmp/rq-sb2.log; rc=$?
check "ADD sa, sb again (rc $rc): their records on ibsim0, with sa's GID $IA and sb's $IB" \
	[ "$rc $(jq -r '.rdmaDev + " " + ([.gids[] | select(.type == "RoCE v2" and (.ip | contains(":") | not)) | .index] | map(tostring) | join(","))' \
		/run/rdma-qos/state/shared_c-sa_net1.json /run/rdma-qos/state/shared_c-sb_net1.json | tr '\n' ' ')" = \
	"0 ibsim0 $IA ibsim0 $IB " ] ||
	jq -c '[.rdmaDev, .ips, .gids, .gidsPending]' /run/rdma-qos/state/shared_c-sa_net1.json \
		/run/rdma-qos/state/shared_c-sb_net1.json
"$RQ" show --qps --json > /tmp/shq.json 2> /tmp/shq.err || cat /tmp/shq.err
byof() { jq -c --arg p "$1" '[.attachments[] | select(.pod == $p) | .qps[] | [.qpn, .by]]' /tmp/shq.json; }
check "show --qps: QP $QA is sa's by cm_id, QP $QB sb's by sgid, none elsewhere" \
	[ "$(byof sa) $(byof sb)" = "[[$QA,\"cm_id\"]] [[$QB,\"sgid\"]]" ] || jq -c . /tmp/shq.json
"$RQ" show --pod ai/sb --json > /tmp/shpod.json 2> /dev/null
check "show --pod ai/sb: the qps check names its QP at class 0 (exit 1)" \
	[ "$?:$(jq -r '.attachments[0].checks.qps.state' /tmp/shpod.json)" = "1:problem" ]
URL=http://127.0.0.1:9312/metrics
"$RQ" agent --interval 3 --qp-census-interval 2 --listen 127.0.0.1:9312 --metrics-file /tmp/sh2.prom \
	2> /tmp/sh-agent2.log &
SHAG=$!
t0=$SECONDS
until curl -sf "$URL" > /tmp/shm.prom && grep -q 'rdma_qos_attachment_problem{namespace="ai",pod="sb",.*check="qps"} 1' /tmp/shm.prom; do
	[ $((SECONDS - t0)) -ge 30 ] && break
	sleep 1
done
check "the agent: sb's qps problem within one census interval ($((SECONDS - t0)) s)" \
	grep -q 'rdma_qos_attachment_problem{namespace="ai",pod="sb",.*check="qps"} 1' /tmp/shm.prom
check "... sb: rdma_qos_vf_qps_off_lossless 1 with vf=\"\" and the shared device; sa: 0" \
	eval 'grep -q "^rdma_qos_vf_qps_off_lossless{namespace=\"ai\",pod=\"sb\",.*vf=\"\".*rdma_dev=\"ibsim0\".*} 1" /tmp/shm.prom &&
	      grep -q "^rdma_qos_vf_qps_off_lossless{namespace=\"ai\",pod=\"sa\",.*} 0" /tmp/shm.prom'
grep -E '^rdma_qos_(vf_qps_off_lossless|dev_qps_unattributed|attachment_problem)\{.*(ibsim0|check="qps")' /tmp/shm.prom | head -6
kill $SHAG && wait $SHAG
rq DEL sa 2> /dev/null && rq DEL sb 2> /dev/null
echo clear > $QPF
kill $OWN_A $OWN_B 2> /dev/null; wait $OWN_A $OWN_B 2> /dev/null
"$SRDMA" -j res show cm_id link ibsim0 > /tmp/shcm.json 2>&1
check "cleared: no QP and no cm_id left on ibsim0" [ "$(wc -l < $QPF) $(jq length /tmp/shcm.json)" = "0 0" ]
# a full GID table (gids=4: $PF's own entries and the pods' link-local ones fill it first):
# rdma_gid_find says -ENOSPC (the kernel cannot add the entry), not -ENOENT (pending)
rmmod ibsim && modprobe ibsim ifname="$PF" gids=4 lifespan=0 || fail "modprobe ibsim gids=4"
full=""
for ip in $IPA $IPB $IPC; do full="$full$("$SP" gid ibsim0 $ip 500 | sed 's/ after.*//');"; done
check "ibsim0 with 4 slots: the pods' addresses without an entry are -ENOSPC: $full" \
	eval 'grep -q "error -28" <<< "$full" && [ -z "$(tr ";" "\n" <<< "$full" | grep -v "^v2 \|^error -28$\|^$")" ]'
rmmod ibsim
check "ibsim unloads" [ ! -d /sys/class/infiniband/ibsim0 ]

echo "== [$((SECONDS - SH_T0)) s] an address removed, the pods go: Debian's plugins' DEL"
ip -n sd addr del $IPD/24 dev net1
r=$("$SP" nogid rxeq $IPD 2000)
check "sd's address removed: its entry goes ($r)" [ "${r%% after*}" = gone ]
for ns in sa sb sc sd; do
	CONF_NAME=shared conf "$(plug $ns)" | run "/usr/lib/cni/$(plug $ns | jq -r .type)" DEL "c-$ns" "/run/netns/$ns" net1 "$SHARGS=$ns" ||
		echo "$(plug $ns | jq -r .type) DEL $ns failed"
	ip netns del $ns
done
rdma link del rxeq
ip link del "$PF.100"
echo "shared.sh ran $((SECONDS - SH_T0)) s"
