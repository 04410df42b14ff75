#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The QP census (issue 31 item 1; DESIGN.md "Who") on the simulated node, whose QP lists are
# <root>/rdma/qps/<dev>.json: a lossless pod whose QPs send with classes 106 and 0 (and one
# still connecting, one UD, the MAD layer's GSI), a lossy pod with a class-0 QP, a lossless
# pod without a QP file, and a lossless pod on a driver without a context dump (no "tclass");
# then responders (RC in RTR, XRC_TGT) that are judged and mlx5's DC QPs that are not (#37);
# a UD-only pod that is not judged and a UC QP that sends only in RTS (#42 item 4).
# Asserts rdma_qos_vf_qps{type,state}, rdma_qos_vf_qps_by_class{class},
# rdma_qos_vf_qps_off_lossless against the PF's DSCP map and PFC (and as they change), and
# `show --qps [--json]`; then that the verdict (rdma_qos_attachment_problem{check="qps"},
# show --pod) follows a changed census within a census interval, not a pass later (#49 item 7).
# Run by tests/agent/run.sh (its PASS/FAIL lines are counted there).
set -u
. "$(dirname "$0")/lib.sh"

sim_suite_start "QP census tests" rqqps agent_can_run
AGENT_PID=""
suite_teardown() { [ -n "$AGENT_PID" ] && kill "$AGENT_PID" 2>/dev/null && wait "$AGENT_PID" 2>/dev/null; }

"$MKNODE" --root "$ROOT" --pfs 1 --vfs 4 --rdma configfs --ecn yes --dcb yes --counters yes \
	--pf-prefix qp$$ > /dev/null || { echo "FAIL: mknode"; exit 1; }
sim_make_vfs "$ROOT"
mapfile -t VFS < <(sim_vfs "$ROOT")
read -r PF0 VF0PCI VF0 <<< "${VFS[0]}"
read -r _ VF1PCI VF1 <<< "${VFS[1]}"
read -r _ VF2PCI VF2 <<< "${VFS[2]}"
read -r _ VF3PCI VF3 <<< "${VFS[3]}"
CAT=$ROOT/etc/cni/rdma-qos/profiles.json
mkdir -p "${CAT%/*}"
echo '{"profiles":{"lossy":{"trafficClass":0}},"namespaces":{"*":{"default":"roce-lossless","allow":["roce-lossless","lossy"]}}}' > "$CAT"
rq() { echo "{\"type\":\"rdma-qos\",\"deviceID\":\"$1\"$2}"; }
args() { echo "IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=$1;K8S_POD_UID=u$1"; }
NSA=$(newns a) NSB=$(newns b) NSC=$(newns c) NSD=$(newns d)
chain_add "$ROOT" roce t1 "$NSA" net1 "$VF0" "$(rq "$VF0PCI" '')" "$(args trainer)" > /dev/null
check "ADD ai/trainer (lossless)" [ $? -eq 0 ]
chain_add "$ROOT" roce t2 "$NSB" net1 "$VF1" "$(rq "$VF1PCI" ',"profile":"lossy"')" "$(args web)" > /dev/null
check "ADD ai/web (lossy)" [ $? -eq 0 ]
chain_add "$ROOT" roce t3 "$NSC" net1 "$VF2" "$(rq "$VF2PCI" '')" "$(args idle)" > /dev/null
check "ADD ai/idle (lossless, no QP file)" [ $? -eq 0 ]
chain_add "$ROOT" roce t4 "$NSD" net1 "$VF3" "$(rq "$VF3PCI" '')" "$(args rxe)" > /dev/null
check "ADD ai/rxe (lossless, no context dump)" [ $? -eq 0 ]
DA=$(rdma_of "$ROOT" "$VF0PCI") DB=$(rdma_of "$ROOT" "$VF1PCI") DC=$(rdma_of "$ROOT" "$VF2PCI") DD=$(rdma_of "$ROOT" "$VF3PCI")
check "PF $PF0: PFC on 3 only, DSCP 26 -> 3" [ "$(pfc_of "$ROOT" "$PF0") $(dscp_prio "$ROOT" "$PF0" 26)" = "[3] 3" ]

mkdir -p "$ROOT/rdma/qps"
# trainer: NCCL's class set for one QP (NCCL_IB_TC=106), left at 0 for another; one RC
# still in INIT; a UD QP (class per send); the MAD layer's GSI QP (a kernel QP)
cat > "$ROOT/rdma/qps/$DA.json" <<J
[{"qpn": 1, "type": "GSI", "state": "RTS", "comm": "ib_core"},
 {"qpn": 17, "type": "RC", "state": "RTS", "pid": 4242, "comm": "python3", "tclass": 106},
 {"qpn": 18, "type": "RC", "state": "RTS", "pid": 4242, "comm": "python3", "tclass": 0},
 {"qpn": 19, "type": "RC", "state": "INIT", "pid": 4242, "comm": "python3", "tclass": 0},
 {"qpn": 20, "type": "UD", "state": "RTS", "pid": 4242, "comm": "python3", "tclass": 0}]
J
echo '[{"qpn": 33, "type": "RC", "state": "RTS", "pid": 77, "comm": "nginx", "tclass": 0}]' > "$ROOT/rdma/qps/$DB.json"
echo '[{"qpn": 40, "type": "RC", "state": "RTS", "pid": 88, "comm": "ib_write_bw"},
 {"qpn": 41, "type": "RC", "state": "RTS", "pid": 88, "comm": "ib_write_bw"}]' > "$ROOT/rdma/qps/$DD.json"

PORT=$(free_port)
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --interval 600 --listen "127.0.0.1:$PORT" \
	--catalog-source "$CAT" --qp-census-interval 0 2> "$T/agent.log" &
AGENT_PID=$!
get() { curl -sf "http://127.0.0.1:$PORT/metrics" > "$1"; }
for _ in $(seq 50); do get "$T/m0.prom" && grep -q '^rdma_qos_vf_qps' "$T/m0.prom" && break; sleep 0.2; done
check "promtool accepts /metrics" promcheck "$T/m0.prom"
L() { echo "namespace=\"ai\",pod=\"$1\",interface=\"net1\",vf=\"$2\",rdma_dev=\"$3\",pf=\"$PF0\""; }
LA=$(L trainer "$VF0PCI" "$DA") LB=$(L web "$VF1PCI" "$DB") LC=$(L idle "$VF2PCI" "$DC") LD=$(L rxe "$VF3PCI" "$DD")
m() { metric_lit "$T/m0.prom" "$1"; }

echo "== rdma_qos_vf_qps by type and state"
check "HELP/TYPE gauge" grep -qx '# TYPE rdma_qos_vf_qps gauge' "$T/m0.prom"
check "trainer: 2 RC in RTS (got $(m "rdma_qos_vf_qps{$LA,type=\"RC\",state=\"RTS\"}"))" [ "$(m "rdma_qos_vf_qps{$LA,type=\"RC\",state=\"RTS\"}")" = 2 ]
check "trainer: 1 RC in INIT" [ "$(m "rdma_qos_vf_qps{$LA,type=\"RC\",state=\"INIT\"}")" = 1 ]
check "trainer: 1 UD, 1 GSI in RTS" [ "$(m "rdma_qos_vf_qps{$LA,type=\"UD\",state=\"RTS\"}") $(m "rdma_qos_vf_qps{$LA,type=\"GSI\",state=\"RTS\"}")" = "1 1" ]
check "trainer: 4 series, 5 QPs in all" [ "$(grep -c "^rdma_qos_vf_qps{$LA" "$T/m0.prom")" = 4 ]
check "web (lossy): 1 RC in RTS" [ "$(m "rdma_qos_vf_qps{$LB,type=\"RC\",state=\"RTS\"}")" = 1 ]
check "idle (no QP file): no rdma_qos_vf_qps series" [ "$(grep -c "^rdma_qos_vf_qps{$LC" "$T/m0.prom")" = 0 ]
check "rxe: 2 RC in RTS" [ "$(m "rdma_qos_vf_qps{$LD,type=\"RC\",state=\"RTS\"}")" = 2 ]

echo "== rdma_qos_vf_qps_by_class: connected QPs in RTS, where the driver dumps the context"
check "trainer: class 106: 1, class 0: 1 (the INIT and UD QPs not counted)" \
	[ "$(m "rdma_qos_vf_qps_by_class{$LA,class=\"106\"}") $(m "rdma_qos_vf_qps_by_class{$LA,class=\"0\"}")" = "1 1" ]
check "trainer: 2 class series only" [ "$(grep -c "^rdma_qos_vf_qps_by_class{$LA" "$T/m0.prom")" = 2 ]
check "web: class 0: 1" [ "$(m "rdma_qos_vf_qps_by_class{$LB,class=\"0\"}")" = 1 ]
check "rxe (no context dump): no class series" [ "$(grep -c "^rdma_qos_vf_qps_by_class{$LD" "$T/m0.prom")" = 0 ]

echo "== rdma_qos_vf_qps_off_lossless against the PF's DSCP map (26 -> 3, PFC on 3)"
check "trainer: 1 (class 0 -> DSCP 0 -> priority 0, no PFC)" [ "$(m "rdma_qos_vf_qps_off_lossless{$LA}")" = 1 ]
check "web is lossy: no series" [ "$(grep -c "^rdma_qos_vf_qps_off_lossless{$LB" "$T/m0.prom")" = 0 ]
check "idle: 0 (no QP is off)" [ "$(m "rdma_qos_vf_qps_off_lossless{$LC}")" = 0 ]
check "rxe: classes unknown, no series" [ "$(grep -c "^rdma_qos_vf_qps_off_lossless{$LD" "$T/m0.prom")" = 0 ]

echo "== the application fixes its class (NCCL_IB_TC=106): off_lossless 0"
jq -c 'map(if .qpn == 18 then .tclass = 106 else . end)' "$ROOT/rdma/qps/$DA.json" > "$T/a.json" && mv "$T/a.json" "$ROOT/rdma/qps/$DA.json"
sleep 1.2
get "$T/m1.prom"
check "trainer: 0 off lossless" [ "$(metric_lit "$T/m1.prom" "rdma_qos_vf_qps_off_lossless{$LA}")" = 0 ]
check "trainer: class 106: 2, no class 0" [ "$(metric_lit "$T/m1.prom" "rdma_qos_vf_qps_by_class{$LA,class=\"106\"}")/$(metric_lit "$T/m1.prom" "rdma_qos_vf_qps_by_class{$LA,class=\"0\"}")" = "2/" ]

echo "== a class whose DSCP the PF maps to a priority without PFC (DSCP 34 -> 4)"
jq -c 'map(if .qpn == 17 then .tclass = 138 else . end)' "$ROOT/rdma/qps/$DA.json" > "$T/a.json" && mv "$T/a.json" "$ROOT/rdma/qps/$DA.json"
sleep 1.2
get "$T/m2.prom"
check "class 138 (DSCP 34; mlx5's default map 34 >> 3 = 4, no PFC): off 1" [ "$(metric_lit "$T/m2.prom" "rdma_qos_vf_qps_off_lossless{$LA}")" = 1 ]
dcb_edit "$ROOT" "$PF0" '.app += [{"selector": 5, "protocol": 34, "priority": 3}]'
sleep 1.2
get "$T/m3.prom"
check "the PF maps DSCP 34 to priority 3 now: off 0" [ "$(metric_lit "$T/m3.prom" "rdma_qos_vf_qps_off_lossless{$LA}")" = 0 ]

echo "== responders send too (#37 item 5): an RC QP in RTR and an XRC_TGT QP are judged"
cp "$ROOT/rdma/qps/$DA.json" "$T/a.keep"
jq -c '. + [{"qpn": 21, "type": "RC", "state": "RTR", "pid": 4242, "comm": "python3", "tclass": 0},
	{"qpn": 22, "type": "XRC_TGT", "state": "RTR", "comm": "ib_uverbs", "tclass": 0},
	{"qpn": 23, "type": "RC", "state": "SQD", "pid": 4242, "comm": "python3", "tclass": 0}]' "$T/a.keep" > "$ROOT/rdma/qps/$DA.json"
sleep 1.2
get "$T/m5.prom"
check "trainer: off_lossless 2 (the RTR RC and the XRC_TGT QP of class 0; not the SQD one)" [ "$(metric_lit "$T/m5.prom" "rdma_qos_vf_qps_off_lossless{$LA}")" = 2 ]
check "trainer: by_class{class=\"0\"} 2, {class=\"106\"} 1, {class=\"138\"} 1" \
	[ "$(metric_lit "$T/m5.prom" "rdma_qos_vf_qps_by_class{$LA,class=\"0\"}")/$(metric_lit "$T/m5.prom" "rdma_qos_vf_qps_by_class{$LA,class=\"106\"}")/$(metric_lit "$T/m5.prom" "rdma_qos_vf_qps_by_class{$LA,class=\"138\"}")" = 2/1/1 ]
check "trainer: rdma_qos_vf_qps{type=\"XRC_TGT\",state=\"RTR\"} 1, {type=\"RC\",state=\"RTR\"} 1" \
	[ "$(metric_lit "$T/m5.prom" "rdma_qos_vf_qps{$LA,type=\"XRC_TGT\",state=\"RTR\"}") $(metric_lit "$T/m5.prom" "rdma_qos_vf_qps{$LA,type=\"RC\",state=\"RTR\"}")" = "1 1" ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --qps --json > "$T/s5.json" 2> /dev/null
check "show --qps --json: the RTR and XRC_TGT QPs off lossless (prio 0)" \
	[ "$(jq -c '.attachments[] | select(.pod == "trainer") | [.offLossless, [.qps[] | select(.qpn >= 21) | [.qpn, .tclass, .prio, .offLossless]]]' "$T/s5.json")" = '[2,[[21,0,0,true],[22,0,0,true],[23,0,0,false]]]' ]
mv "$T/a.keep" "$ROOT/rdma/qps/$DA.json"

echo "== mlx5's DC transport (DCI, DCT): counted, never judged by a class"
# a UCX pod on DC: its data path is a DCI (each send's class in the WQE's address vector)
# and a DCT (its context not dumped); a class in the file for them is not taken either
echo '[{"qpn": 50, "type": "DCI", "state": "RTS", "pid": 99, "comm": "ucx_perftest", "tclass": 0},
 {"qpn": 51, "type": "DCT", "state": "RTR", "pid": 99, "comm": "ucx_perftest"},
 {"qpn": 52, "type": "REG_UMR", "state": "RTS", "comm": "mlx5_ib"}]' > "$ROOT/rdma/qps/$DC.json"
sleep 1.2
get "$T/m6.prom"
check "idle: rdma_qos_vf_qps{type=\"DCI\",state=\"RTS\"} 1, {type=\"DCT\",state=\"RTR\"} 1, {type=\"REG_UMR\",state=\"RTS\"} 1" \
	[ "$(metric_lit "$T/m6.prom" "rdma_qos_vf_qps{$LC,type=\"DCI\",state=\"RTS\"}") $(metric_lit "$T/m6.prom" "rdma_qos_vf_qps{$LC,type=\"DCT\",state=\"RTR\"}") $(metric_lit "$T/m6.prom" "rdma_qos_vf_qps{$LC,type=\"REG_UMR\",state=\"RTS\"}")" = "1 1 1" ]
check "idle: no off_lossless series (a DC pod does not read 0), no class series" \
	[ "$(grep -c "^rdma_qos_vf_qps_off_lossless{$LC}\|^rdma_qos_vf_qps_by_class{$LC" "$T/m6.prom")" = 0 ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --qps --json > "$T/s6.json" 2> /dev/null
check "show --qps --json: idle's DCI and DCT without a class, no offLossless" \
	[ "$(jq -c '.attachments[] | select(.pod == "idle") | [has("offLossless"), [.qps[] | [.type, has("tclass"), .offLossless]]]' "$T/s6.json")" = '[false,[["DCI",false,false],["DCT",false,false],["REG_UMR",false,false]]]' ]
check "show --qps (text): the DC QPs say their class is not dumped" \
	grep -q "^  qpn 50 *DCI *RTS *pid 99 ucx_perftest  class not dumped (DC: not judged)$" <(RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --qps 2>/dev/null)
echo '[{"qpn": 52, "type": "REG_UMR", "state": "RTS", "comm": "mlx5_ib"}]' > "$ROOT/rdma/qps/$DC.json"
sleep 1.2
get "$T/m7.prom"
check "idle: only the UMR QP (it puts nothing on the wire): judged again, off_lossless 0" [ "$(metric_lit "$T/m7.prom" "rdma_qos_vf_qps_off_lossless{$LC}")" = 0 ]

echo "== UD and UC (issue 42 item 4): a UD data path is not judged, a UC responder sends nothing"
# a UCX pod on the ud transport: its data QPs are UD, each send's class its address handle's
echo '[{"qpn": 60, "type": "UD", "state": "RTS", "pid": 99, "comm": "ucx_perftest", "tclass": 0},
 {"qpn": 61, "type": "UD", "state": "RTS", "pid": 99, "comm": "ucx_perftest", "tclass": 0}]' > "$ROOT/rdma/qps/$DC.json"
sleep 1.2
get "$T/m8.prom"
check "idle on UD only: 2 UD in RTS counted" [ "$(metric_lit "$T/m8.prom" "rdma_qos_vf_qps{$LC,type=\"UD\",state=\"RTS\"}")" = 2 ]
check "idle on UD only: no off_lossless series (not \"0 off\"), no class series" \
	[ "$(grep -c "^rdma_qos_vf_qps_off_lossless{$LC}\|^rdma_qos_vf_qps_by_class{$LC" "$T/m8.prom")" = 0 ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --qps --json > "$T/s8.json" 2> /dev/null
check "show --qps --json: idle not judged, says why" \
	[ "$(jq -c '.attachments[] | select(.pod == "idle") | [has("offLossless"), .notJudged]' "$T/s8.json")" = '[false,"UD QPs only: each send'"'"'s class is its address handle'"'"'s"]' ]
check "show --qps (text): the attachment line says why" \
	grep -q "^ai/idle .*, 2 QPs, not judged: UD QPs only" <(RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --qps 2>/dev/null)
check "trainer (RC beside its UD QP): still judged, no notJudged" \
	[ "$(jq -c '.attachments[] | select(.pod == "trainer") | [has("offLossless"), has("notJudged")]' "$T/s8.json")" = '[true,false]' ]
# a UC QP in RTR: no ACKs, no READ responses, so nothing on the wire; in RTS it sends
echo '[{"qpn": 62, "type": "UC", "state": "RTR", "pid": 99, "comm": "ib_send_bw", "tclass": 0}]' > "$ROOT/rdma/qps/$DC.json"
sleep 1.2
get "$T/m9.prom"
check "idle: a class-0 UC QP in RTR is not sending: off_lossless 0, no class series" \
	[ "$(metric_lit "$T/m9.prom" "rdma_qos_vf_qps_off_lossless{$LC}")/$(grep -c "^rdma_qos_vf_qps_by_class{$LC" "$T/m9.prom")" = 0/0 ]
echo '[{"qpn": 62, "type": "UC", "state": "RTS", "pid": 99, "comm": "ib_send_bw", "tclass": 0}]' > "$ROOT/rdma/qps/$DC.json"
sleep 1.2
get "$T/m10.prom"
check "idle: the UC QP in RTS sends with class 0: off_lossless 1, class 0: 1" \
	[ "$(metric_lit "$T/m10.prom" "rdma_qos_vf_qps_off_lossless{$LC}")/$(metric_lit "$T/m10.prom" "rdma_qos_vf_qps_by_class{$LC,class=\"0\"}")" = 1/1 ]
rm -f "$ROOT/rdma/qps/$DC.json"

echo "== show --qps"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --qps --json > "$T/s.json" 2> "$T/s.err"
check "show --qps --json exits 0, JSON" jq -e . "$T/s.json" > /dev/null
att() { jq -c --arg p "$1" '.attachments[] | select(.pod == $p)' "$T/s.json"; }
check "4 attachments" [ "$(jq '.attachments | length' "$T/s.json")" = 4 ]
check "trainer: lossless, census ok, context dump, 5 QPs, 0 off" [ "$(att trainer | jq -c '[.lossless, .census, .contextDump, (.qps | length), .offLossless]')" = '[true,"ok",true,5,0]' ]
check "trainer qpn 17: class 138 -> prio 3, pid 4242 python3" [ "$(att trainer | jq -c '.qps[] | select(.qpn == 17) | [.type, .state, .tclass, .prio, .pid, .comm, .offLossless]')" = '["RC","RTS",138,3,4242,"python3",false]' ]
check "trainer: no class for the UD QP (per send) or the INIT RC one keeps its" [ "$(att trainer | jq -c '[.qps[] | select(.qpn == 19 or .qpn == 20) | [.qpn, .type, has("tclass")]]')" = '[[19,"RC",true],[20,"UD",false]]' ]
check "text: the UD QP's line has no class" grep -q "^  qpn 20 *UD *RTS *pid 4242 python3$" <(RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --qps 2>/dev/null)
check "web: lossy, class 0 -> prio 0, not judged" [ "$(att web | jq -c '[.lossless, .qps[0].tclass, .qps[0].prio, .qps[0].offLossless, has("offLossless")]')" = '[false,0,0,false,false]' ]
check "idle: census ok, no QPs" [ "$(att idle | jq -c '[.census, (.qps | length), .offLossless]')" = '["ok",0,0]' ]
check "rxe: no context dump, no class" [ "$(att rxe | jq -c '[.contextDump, (.qps[0] | has("tclass")), has("offLossless")]')" = '[false,false,false]' ]
dcb_edit "$ROOT" "$PF0" '.app |= map(select(.protocol != 34))'
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --qps > "$T/s.txt" 2>&1
check "show --qps (text) exits 0" [ $? -eq 0 ]
check "text: trainer's QP 17 OFF LOSSLESS on prio 4" grep -q "qpn 17 .*class 138 (dscp 34) -> prio 4  OFF LOSSLESS: no PFC on prio 4" "$T/s.txt"
check "text: rxe says classes unknown" grep -q "ai/rxe .*no QP context dump" "$T/s.txt"
sed 's/^/    /' "$T/s.txt"

echo "== a malformed QP file is an error for that attachment only"
echo '[{"qpn": "x"}]' > "$ROOT/rdma/qps/$DB.json"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --qps --json > "$T/s2.json" 2> /dev/null
check "web: census error, trainer still ok" [ "$(jq -r '.attachments[] | select(.pod == "web") | .census' "$T/s2.json" | cut -c1-6) $(jq -r '.attachments[] | select(.pod == "trainer") | .census' "$T/s2.json")" = "error: ok" ]
sleep 1.2
get "$T/m4.prom"
check "web: no series while its list is unreadable" [ "$(grep -c "^rdma_qos_vf_qps[a-z_]*{$LB" "$T/m4.prom")" = 0 ]

echo "== the census cadence (--qp-census-interval 4): between censuses the last QPs, judged anew"
suite_teardown
# verify: the agent leaves the PF's map as the test edits it
jq -c '.node = {"pf": "verify"}' "$CAT" > "$T/verify.json"
echo '[{"qpn": 33, "type": "RC", "state": "RTS", "pid": 77, "comm": "nginx", "tclass": 0}]' > "$ROOT/rdma/qps/$DB.json"
jq -c 'map(if .qpn == 17 or .qpn == 18 then .tclass = 106 else . end)' "$ROOT/rdma/qps/$DA.json" > "$T/a.json" && mv "$T/a.json" "$ROOT/rdma/qps/$DA.json"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --interval 600 --listen "127.0.0.1:$PORT" \
	--catalog-source "$T/verify.json" --qp-census-interval 4 --log-level debug 2> "$T/agent2.log" &
AGENT_PID=$!
for _ in $(seq 50); do get "$T/c0.prom" && grep -q '^rdma_qos_vf_qps' "$T/c0.prom" && break; sleep 0.2; done
check "trainer: 0 off lossless at the census" [ "$(metric_lit "$T/c0.prom" "rdma_qos_vf_qps_off_lossless{$LA}")" = 0 ]
jq -c 'map(if .qpn == 18 then .tclass = 0 else . end)' "$ROOT/rdma/qps/$DA.json" > "$T/a.json" && mv "$T/a.json" "$ROOT/rdma/qps/$DA.json"
sleep 1.2
get "$T/c1.prom"
check "a QP's new class is not read before the next census (off still 0), its series kept" \
	[ "$(metric_lit "$T/c1.prom" "rdma_qos_vf_qps_off_lossless{$LA}")/$(metric_lit "$T/c1.prom" "rdma_qos_vf_qps{$LA,type=\"RC\",state=\"RTS\"}")" = 0/2 ]
dcb_edit "$ROOT" "$PF0" '.app |= map(if .protocol == 26 then .priority = 4 else . end)'
sleep 1.2
get "$T/c2.prom"
check "... but a DSCP map changed meanwhile judges the carried QPs anew (26 -> 4, no PFC: off 2)" \
	[ "$(metric_lit "$T/c2.prom" "rdma_qos_vf_qps_off_lossless{$LA}")" = 2 ]
dcb_edit "$ROOT" "$PF0" '.app |= map(if .protocol == 26 then .priority = 3 else . end)'
sleep 3
get "$T/c3.prom"
check "the next census (4 s) reads the class-0 QP: off 1" [ "$(metric_lit "$T/c3.prom" "rdma_qos_vf_qps_off_lossless{$LA}")" = 1 ]
check "censuses logged: $(grep -c 'QP census of' "$T/agent2.log") (at most one per 4 s over ~6 s)" \
	[ "$(grep -c 'QP census of' "$T/agent2.log")" -le 2 ]

echo "== the verdict follows the census (#49 item 7): a changed census raises a pass, none waits"
# Prometheus scrapes (every 0.25 s here) drive the collector; the pass timer is 600 s. A QP
# turning class 0 must read as problem{check="qps"} 1 within one census interval (2 s) and a
# margin, in the same scrape as off_lossless 1 and with show --pod agreeing
suite_teardown
jq -c 'map(if .qpn == 18 then .tclass = 106 else . end)' "$ROOT/rdma/qps/$DA.json" > "$T/a.json" && mv "$T/a.json" "$ROOT/rdma/qps/$DA.json"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --interval 600 --listen "127.0.0.1:$PORT" \
	--catalog-source "$T/verify.json" --qp-census-interval 2 --log-level debug 2> "$T/agent3.log" &
AGENT_PID=$!
LV="namespace=\"ai\",pod=\"trainer\",interface=\"net1\",vf=\"$VF0PCI\",pf=\"$PF0\""
PQ="rdma_qos_attachment_problem{$LV,check=\"qps\"}"
# settled F: off_lossless 0, lossless 1 and no qps problem in one scrape
settled() { get "$1" && [ "$(metric_lit "$1" "rdma_qos_vf_qps_off_lossless{$LA}")/$(metric_lit "$1" "rdma_qos_attachment_lossless{$LV}")/$(metric_lit "$1" "$PQ")" = 0/1/ ]; }
for _ in $(seq 40); do settled "$T/v0.prom" && break; sleep 0.25; done
check "trainer: off_lossless 0, lossless 1, no qps problem" settled "$T/v0.prom"
sleep 2.2 # the first censuses are over
passes0=$(grep -c 'pass took' "$T/agent3.log")
jq -c 'map(if .qpn == 18 then .tclass = 0 else . end)' "$ROOT/rdma/qps/$DA.json" > "$T/a.json" && mv "$T/a.json" "$ROOT/rdma/qps/$DA.json"
t0=$(date +%s%N)
# judged F: problem{check="qps"} 1 in the scrape F
judged() { get "$1" && [ "$(metric_lit "$1" "$PQ")" = 1 ]; }
for _ in $(seq 16); do judged "$T/v1.prom" && break; sleep 0.25; done
ms=$((($(date +%s%N) - t0) / 1000000))
check "problem{check=\"qps\"} 1 within 4 s of the QP turning class 0 (census every 2 s, passes every 600 s): ${ms} ms" judged "$T/v1.prom"
check "... the same scrape: off_lossless 1, attachment_lossless 0" \
	[ "$(metric_lit "$T/v1.prom" "rdma_qos_vf_qps_off_lossless{$LA}")/$(metric_lit "$T/v1.prom" "rdma_qos_attachment_lossless{$LV}")" = 1/0 ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --pod ai/trainer > "$T/pod.txt" 2>&1
rc=$?
check "... show --pod agrees: exit 1, qps PROBLEM 1 QP" [ "$rc/$(awk '$1 == "qps" { print $2, $3 }' "$T/pod.txt")" = "1/PROBLEM 1" ]
check "... by a pass the census raised (the log says so), not the timer" \
	grep -q "the QP census changed since the last verdict: pass in" "$T/agent3.log"
check "... one pass or two (got $(($(grep -c 'pass took' "$T/agent3.log") - passes0)))" \
	[ "$(($(grep -c 'pass took' "$T/agent3.log") - passes0))" -ge 1 -a "$(($(grep -c 'pass took' "$T/agent3.log") - passes0))" -le 2 ]
jq -c 'map(if .qpn == 18 then .tclass = 106 else . end)' "$ROOT/rdma/qps/$DA.json" > "$T/a.json" && mv "$T/a.json" "$ROOT/rdma/qps/$DA.json"
t0=$(date +%s%N)
for _ in $(seq 16); do settled "$T/v2.prom" && break; sleep 0.25; done
ms=$((($(date +%s%N) - t0) / 1000000))
check "the QP fixed: no qps problem, lossless 1 within 4 s as well: ${ms} ms" settled "$T/v2.prom"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --pod ai/trainer > "$T/pod.txt" 2>&1
check "... show --pod agrees: exit 0" [ $? -eq 0 ]
for _ in $(seq 12); do get "$T/v3.prom"; sleep 0.25; done
n=$(grep -c 'pass took' "$T/agent3.log")
for _ in $(seq 16); do get "$T/v3.prom"; sleep 0.25; done
check "an unchanged census raises no pass (passes over 4 s of scrapes: $(($(grep -c 'pass took' "$T/agent3.log") - n)))" \
	[ "$(grep -c 'pass took' "$T/agent3.log")" = "$n" ]

summary
