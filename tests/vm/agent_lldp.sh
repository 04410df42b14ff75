# shellcheck shell=bash
# SPDX-License-Identifier: Apache-2.0
# Sourced by agent.sh in its guest (the running production agent APID, its metrics file
# M, the dcbsim PF $PF with the lossless attachment): the link partner (issue 33) on a
# real wire. agent.sh's boot puts both igb PFs on one QEMU hub ("# vm: pfs-wired",
# guest.sh), so 0000:01:00.0, moved into netns "sw", is the other end of $PF's cable;
# Debian's lldpd (the host's, from the shared /usr) runs there as the switch port and
# advertises 802.1Qaz PFC, Application Priority and the 802.3 maximum frame size as
# custom TLVs (as tests/agent/lldp.sh does on a veth). Asserted on the metrics (file and
# /metrics), `show` and `show --json`: a partner that agrees; PFC on 4 instead of 3
# disagrees; lldpd's shutdown (TTL 0) forgets it; rdma_qos_port_dcbx_mode as dcbsim
# reports it, host-managed and in mlx5's firmware mode (fw_dcbx=1 mlx5=1), where show
# says the firmware's LLDP agent may hide the partner.
SWPCI=0000:01:00.0
SWD=/tmp/sw
lldpc() { ip netns exec sw lldpcli -u "$SWD/lldpd.sock" "$@" > /dev/null; }
# sw_start NAME PORT PFC-INFO APP-INFO MFS-INFO: lldpd as switch NAME, port PORT, every
# second, TTL 4 s; the TLVs come from its configuration file, read before its first frame
sw_start() {
	{
		echo "configure system hostname $1"
		echo "configure ports swp lldp portidsubtype local $2 description \"Ethernet to $PF\""
		echo "configure lldp tx-hold 4"
		echo "configure lldp tx-interval 1"
		echo "configure lldp custom-tlv add oui 00,80,c2 subtype 11 oui-info $3"
		echo "configure lldp custom-tlv add oui 00,80,c2 subtype 12 oui-info $4"
		echo "configure lldp custom-tlv add oui 00,12,0f subtype 4 oui-info $5"
	} > "$SWD/lldpd.conf"
	chmod 644 "$SWD/lldpd.conf"
	ip netns exec sw lldpd -d -u "$SWD/lldpd.sock" -p "$SWD/lldpd.pid" -I swp \
		-O "$SWD/lldpd.conf" > "$SWD/lldpd.log" 2>&1 &
	SWPID=$!
}
PFC3=08,08 PFC4=08,10
APP_OK=00,65,00,1a,c5,00,30 # DSCP 26 -> 3, 48 -> 6
MFS9216=24,00
# mok 'series' VALUE [MS]: until the agent's metrics file has it ("" = no such series)
mok() { until_ms "${3:-8000}" sh -c "[ \"\$(awk -v k='$1' '\$1 == k { print \$2 }' $M)\" = '$2' ]"; }
agr() { metric $M "rdma_qos_peer_agreement{pf=\"$PF\",item=\"$1\"}"; }
pj() { "$RQ" show --json 2> /dev/null | jq -r --arg pf "$PF" ".pfs[] | select(.name == \$pf) | $1"; }
# like STRING GLOB
# shellcheck disable=SC2053 # $2 is the glob
like() { [[ $1 == $2 ]]; }
pline() { "$RQ" show 2> /dev/null | awk -v pf="PF $PF " 'index($0, pf) == 1 { on = 1; next } /^PF / { on = 0 } on && /^  partner/'; }

echo "== the link partner: lldpd on $SWPCI, on $PF's wire (one QEMU hub)"
SWP=$(ls "/sys/bus/pci/devices/$SWPCI/net")
mkdir -p "$SWD" && chmod 711 "$SWD" # lldpcli is setuid _lldpd
ip netns add sw && ip link set "$SWP" netns sw && ip -n sw link set "$SWP" name swp &&
	ip -n sw link set swp up && ip -n sw link set lo up && ip link set "$PF" up
check "$SWPCI ($SWP) is swp in netns sw, up" [ $? -eq 0 ]
ms=$(until_ms 15000 sh -c "[ \"\$(cat /sys/class/net/$PF/carrier)\$(ip netns exec sw cat /sys/class/net/swp/carrier)\" = 11 ]"); rc=$?
check "carrier on both ends of the wire (took $ms ms)" [ $rc -eq 0 ]
sw_start leaf-vm swp7 "$PFC3" "$APP_OK" "$MFS9216"
timeout 15 tcpdump -i "$PF" -c 1 -nn -e ether proto 0x88cc > "$SWD/cap.txt" 2> /dev/null
check "an LLDP frame from swp's MAC arrives on $PF (tcpdump on the PF)" \
	grep -q "$(ip netns exec sw cat /sys/class/net/swp/address).*0x88cc" "$SWD/cap.txt" ||
	{ cat "$SWD/cap.txt" "$SWD/lldpd.log"; }

echo "== a partner that agrees (PFC 3, DSCP 26 -> 3, max frame 9216)"
ms=$(mok "rdma_qos_peer_agreement{pf=\"$PF\",item=\"mtu\"}" 1 15000); rc=$?
check "the agent heard it: agreement mtu 1 (took $ms ms)" [ $rc -eq 0 ] || grep -i lldp /tmp/agent.log
check "log: listening for the partner's LLDP on $PF" grep -q "listening for the link partner's LLDP on $PF" /tmp/agent.log
check "rdma_qos_peer_seen{$PF} 1" [ "$(metric $M "rdma_qos_peer_seen{pf=\"$PF\"}")" = 1 ]
check "peer_info: system leaf-vm, port swp7, its description" \
	grep -q "^rdma_qos_peer_info{pf=\"$PF\",chassis_id=\"[^\"]*\",port_id=\"swp7\",system_name=\"leaf-vm\",port_description=\"Ethernet to $PF\"} 1$" $M
check "peer_pfc_enabled 3 on, 4 off; dscp_priority 26 -> 3; max_frame 9216" \
	[ "$(metric $M "rdma_qos_peer_pfc_enabled{pf=\"$PF\",prio=\"3\"}"):$(metric $M "rdma_qos_peer_pfc_enabled{pf=\"$PF\",prio=\"4\"}"):$(metric $M "rdma_qos_peer_dscp_priority{pf=\"$PF\",dscp=\"26\"}"):$(metric $M "rdma_qos_peer_max_frame_bytes{pf=\"$PF\"}")" = 1:0:3:9216 ]
check "agreement pfc, dscp2prio, mtu 1 (9216 >= MTU $(cat /sys/class/net/$PF/mtu) + 18); no ets" \
	[ "$(agr pfc)$(agr dscp2prio)$(agr mtu):$(agr ets)" = 111: ]
curl -sf http://127.0.0.1:9309/metrics > /tmp/p.prom
check "/metrics: the same agreement" [ "$(metric /tmp/p.prom "rdma_qos_peer_agreement{pf=\"$PF\",item=\"pfc\"}")" = 1 ]
check "... and promtool accepts it" promcheck /tmp/p.prom
check "show --json: heard leaf-vm swp7, pfc/dscp2prio/mtu agree" \
	[ "$(pj '[.peer.state, .peer.partner.systemName, .peer.partner.portId, (.peer.items | to_entries | map("\(.key)=\(.value.verdict)") | join(","))] | join(" ")')" = \
		"heard leaf-vm swp7 pfc=agrees,dscp2prio=agrees,mtu=agrees" ]
l=$(pline)
check "show: 'partner leaf-vm port swp7 (...): pfc agrees, dscp2prio agrees, mtu agrees'" \
	like "$l" "  partner leaf-vm port swp7 (Ethernet to $PF, chassis *): pfc agrees, dscp2prio agrees, mtu agrees" || echo "  $l"

echo "== PFC on 4 instead of 3"
lldpc configure lldp custom-tlv replace oui 00,80,c2 subtype 11 oui-info "$PFC4"
ms=$(mok "rdma_qos_peer_agreement{pf=\"$PF\",item=\"pfc\"}" 0); rc=$?
check "agreement pfc 0 (took $ms ms); dscp2prio and mtu still 1" [ "$rc:$(agr dscp2prio)$(agr mtu)" = 0:11 ]
check "peer_pfc_enabled 4 on, 3 off" \
	[ "$(metric $M "rdma_qos_peer_pfc_enabled{pf=\"$PF\",prio=\"4\"}")$(metric $M "rdma_qos_peer_pfc_enabled{pf=\"$PF\",prio=\"3\"}")" = 10 ]
check "show --json: pfc disagrees" [ "$(pj .peer.items.pfc.verdict)" = disagrees ]
l=$(pline)
check "show: 'pfc DISAGREES (partner PFC on 4, required 3)'" \
	like "$l" "*pfc DISAGREES (partner PFC on 4, required 3), dscp2prio agrees, mtu agrees" || echo "  $l"
check "the agent left the port's PFC alone (3 on)" pfc3_on

echo "== the partner leaves: lldpd's shutdown LLDPDU (TTL 0)"
lldpc configure lldp custom-tlv replace oui 00,80,c2 subtype 11 oui-info "$PFC3"
mok "rdma_qos_peer_agreement{pf=\"$PF\",item=\"pfc\"}" 1 > /dev/null
check "PFC 3 again: agrees" [ "$(agr pfc)" = 1 ]

echo "== a VST VLAN on the VF: the eswitch's tag makes each frame 4 bytes longer (issue 42 item 9)"
mtu=$(cat "/sys/class/net/$PF/mtu")
lldpc configure lldp custom-tlv replace oui 00,12,0f subtype 4 oui-info "$(printf '%02x,%02x' $(((mtu + 18) >> 8)) $(((mtu + 18) & 255)))"
ms=$(mok "rdma_qos_peer_max_frame_bytes{pf=\"$PF\"}" $((mtu + 18))); rc=$?
check "the switch's max frame is MTU $mtu + 18 = $((mtu + 18)) (took $ms ms): mtu agrees" [ "$rc:$(agr mtu)" = 0:1 ]
# agent.sh's re-creations (igb unbound and bound) left the PF without VFs: one again
[ "$(cat "/sys/class/net/$PF/device/sriov_numvfs")" -gt 0 ] || echo 1 > "/sys/class/net/$PF/device/sriov_numvfs"
ip link set "$PF" vf 0 vlan 100
check "ip link set $PF vf 0 vlan 100 (igb's IFLA_VF_VLAN)" sh -c "ip -d link show $PF | grep -q 'vf 0 .*vlan 100'"
ms=$(mok "rdma_qos_peer_agreement{pf=\"$PF\",item=\"mtu\"}" 0 $((INTERVAL * 1000 + 3000))); rc=$?
check "... mtu disagrees: $((mtu + 18)) < $mtu + 22 with the tag (took $ms ms)" [ $rc -eq 0 ]
check "... show --json says why (802.1Q-tagged: a VF's VST VLAN)" \
	like "$(pj .peer.items.mtu.why)" "partner max frame $((mtu + 18)) bytes, MTU $mtu needs $((mtu + 22)) (802.1Q-tagged: a VF's VST VLAN)"
ip link set "$PF" vf 0 vlan 0
ms=$(mok "rdma_qos_peer_agreement{pf=\"$PF\",item=\"mtu\"}" 1 $((INTERVAL * 1000 + 3000))); rc=$?
check "the VLAN removed: mtu agrees again (took $ms ms)" [ $rc -eq 0 ]
lldpc configure lldp custom-tlv replace oui 00,12,0f subtype 4 oui-info "$MFS9216"
mok "rdma_qos_peer_max_frame_bytes{pf=\"$PF\"}" 9216 > /dev/null
t0=$(now_ms)
kill -TERM "$SWPID"; wait "$SWPID"
ms=$(mok "rdma_qos_peer_seen{pf=\"$PF\"}" 0 3500); rc=$?
check "peer_seen 0 within 3.5 s of SIGTERM, before its 4 s TTL ($(($(now_ms) - t0)) ms)" [ $rc -eq 0 ]
check "log: the partner is leaving (TTL 0)" grep -q "PF $PF: link partner .* is leaving (TTL 0)" /tmp/agent.log
check "no info, TLV or agreement series left" \
	[ "$(grep -c "^rdma_qos_peer_\(info\|agreement\|pfc_enabled\|dscp_priority\|max_frame_bytes\){pf=\"$PF\"" $M)" = 0 ]
check "show --json: silent" [ "$(pj .peer.state)" = silent ]
check "show: 'partner silent: pfc unknown, dscp2prio unknown, mtu unknown'" \
	[ "$(pline)" = "  partner silent: pfc unknown, dscp2prio unknown, mtu unknown" ]

echo "== the port's DCBX mode, as dcbsim reports it (dcbnl getdcbx)"
modes() { for m in host lld_managed cee ieee; do metric $M "rdma_qos_port_dcbx_mode{pf=\"$PF\",mode=\"$m\"}"; done | tr -d '\n'; }
dcb dcbx show dev "$PF"
check "host-managed IEEE (dcbsim's default): host 1, lld_managed 0, cee 0, ieee 1" [ "$(modes)" = 1001 ]
check "show --json: dcbx [host, ieee]" [ "$(pj '.dcbx | join(",")')" = host,ieee ]
# show must succeed: a count in nothing (show failed) was 0 too
check "show: no firmware-LLDP hint while the host manages DCBX" \
	[ "$("$RQ" show > /tmp/showhost.txt && grep -c 'NIC firmware.s own LLDP agent' /tmp/showhost.txt)" = 0 ]
rmmod dcbsim && modprobe dcbsim ifname="$PF" mlx5=1 fw_dcbx=1
dcb dcbx show dev "$PF"
ms=$(until_ms 8000 sh -c "[ \"\$(awk -v k='rdma_qos_port_dcbx_mode{pf=\"$PF\",mode=\"host\"}' '\$1 == k { print \$2 }' $M)\" = 0 ]"); rc=$?
check "mlx5 firmware DCBX (fw_dcbx=1 mlx5=1): host 0, lld_managed 0, cee 1, ieee 1 (took $ms ms)" \
	[ "$rc:$(modes)" = 0:0011 ]
check "show --json: dcbx [cee, ieee]" [ "$(pj '.dcbx | join(",")')" = cee,ieee ]
"$RQ" show > /tmp/showfw.txt 2>&1
check "show: the silent partner comes with the firmware-LLDP hint (mlx5 reports no lld_managed)" \
	grep -q "DCBX is not host-managed.*the NIC firmware's own LLDP agent may take the partner's LLDP" /tmp/showfw.txt ||
	cat /tmp/showfw.txt
