#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# One answer per pod (DESIGN.md): `show --pod NAMESPACE/NAME` on the simulated
# node (lossless: yes / NO (...) first, a line per check, exit 0/1/2), its JSON,
# `show --json`'s attachment naming namespace and pod as the metrics do, the
# agent's rdma_qos_attachment_lossless / _problem{check}, and `rdma-qos resume
# PF ITEM` lifting a suspended repair (the image has no shell to rm the book).
set -u
. "$(dirname "$0")/lib.sh"

sim_suite_start "one answer per pod" rqvd agent_can_run
agent() { RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent "$@"; }
rqs() { RDMA_QOS_SIM_ROOT=$ROOT "$SIM" "$@"; }
M=$T/rdma-qos.prom

"$MKNODE" --root "$ROOT" --pfs 1 --vfs 3 --numa-nodes 2 --cpus-per-node 4 --rdma configfs \
	--ecn yes --dcb yes --pf-prefix vd$$ > /dev/null || { echo "FAIL: mknode"; exit 1; }
"$MKNODE" --root "$ROOT" pod --uid pod-a --cpus 0-1 > /dev/null
sim_make_vfs "$ROOT"
mapfile -t VFS < <(sim_vfs "$ROOT")
read -r PF0 VF0PCI VF0 <<< "${VFS[0]}"
read -r _ VF1PCI VF1 <<< "${VFS[1]}"
CAT=$ROOT/etc/cni/rdma-qos/profiles.json
mkdir -p "${CAT%/*}"
echo '{"profiles":{"lossy":{"trafficClass":0}},"namespaces":{"*":{"default":"roce-lossless","allow":["roce-lossless","lossy"]}}}' > "$CAT"
rq() { echo "{\"type\":\"rdma-qos\",\"deviceID\":\"$1\"$2}"; }
args() { echo "IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=$1;K8S_POD_UID=pod-a"; }
NSA=$(newns a) NSB=$(newns b)
chain_add "$ROOT" roce c1 "$NSA" net1 "$VF0" "$(rq "$VF0PCI" '')" "$(args trainer-0)" > /dev/null
check "ADD ai/trainer-0 (roce-lossless)" [ $? -eq 0 ]
chain_add "$ROOT" roce c2 "$NSB" net1 "$VF1" "$(rq "$VF1PCI" ',"profile":"lossy"')" "$(args web)" > /dev/null
check "ADD ai/web (lossy)" [ $? -eq 0 ]
DEV0=$(rdma_of "$ROOT" "$VF0PCI")
PF0PCI=$(basename "$(readlink "$ROOT/sys/class/net/$PF0/device")")
REC=$(grep -l "\"$VF0PCI\"" "$(state_dir "$ROOT")"/*.json | head -1)
# check NAME: the line of check NAME in show --pod's text ($T/pod.txt)
line() { awk -v c="$1" '$1 == c' "$T/pod.txt"; }
pod() { rqs show --pod "$1" > "$T/pod.txt" 2> "$T/pod.err"; }
# has CHECK REGEX: show --pod's line of CHECK matches; out_has TEXT REGEX (one command for check)
has() { line "$1" | grep -q "$2"; }
out_has() { grep -q "$2" <<< "$1"; }

echo "== in profile"
pod ai/trainer-0
check "show --pod: exit 0" [ $? -eq 0 ]
check "... first line: lossless: yes" [ "$(head -1 "$T/pod.txt")" = "lossless: yes" ]
check "... the attachment: interface, VF, PF, profile" grep -q "^ai/trainer-0 net1: VF $VF0PCI of PF $PF0, profile roce-lossless: lossless: yes$" "$T/pod.txt"
check "... pf_profile ok" [ "$(line pf_profile | awk '{ print $2 }')" = ok ]
check "... vf_class ok: class 106 on every knob" has vf_class "ok *class 106 on every knob"
check "... peer unknown with why (no agent listening)" has peer "unknown *link partner not listening"
check "... qps ok (no QP off PFC)" [ "$(line qps | awk '{ print $2 }')" = ok ]
check "... numa ok: node 0" has numa "ok *the VF is on the pod's NUMA node 0"
check "... gdr unknown: a pod without GPU" has gdr "unknown *GPUDirect no-gpu"
check "... wiring unknown: no node.wiring rule" has wiring "unknown *no node.wiring rule for the PF"
check "... link unknown: no agent ran, so no link health file (show --pod names it)" has link "unknown *no link health from the agent (no .*links.json: is the agent running?)"
rqs show --pod ai/trainer-0 --json > "$T/pod.json"
check "show --pod --json: exit 0" [ $? -eq 0 ]
check "... lossless true, nine checks with state and evidence" [ "$(jq -c '[.attachments[0].lossless, (.attachments[0].checks | keys | length), .attachments[0].checks.pf_profile.state, .attachments[0].interface, .attachments[0].pf]' "$T/pod.json")" = "[true,9,\"ok\",\"net1\",\"$PF0\"]" ]
rqs show --json > "$T/show.json"
check "show --json: the attachment's namespace and pod as the metrics name them" [ "$(jq -r --arg v "$VF0PCI" '.pfs[].vfs[] | select(.pci == $v) | .attachment | "\(.namespace)/\(.pod) \(has("podName"))"' "$T/show.json")" = "ai/trainer-0 false" ]
check "show (text) still names the pod" out_has "$(rqs show)" "$VF0PCI .* ai/trainer-0 profile roce-lossless"

echo "== a lossy profile: lossless not required"
pod ai/web
{ [ $? -eq 0 ] && head -1 "$T/pod.txt" | grep -q "^lossless: not required"; }; check "ai/web: exit 0, lossless: not required" [ $? -eq 0 ]
check "... its JSON has no lossless key" [ "$(rqs show --pod ai/web --json | jq '.attachments[0] | has("lossless")')" = false ]

echo "== no attachment here, a bad argument"
pod ai/nobody
check "no attachment of the pod on this node: exit 2" [ $? -eq 2 ]
check "... says so" grep -q "no attachment of this pod on this node" "$T/pod.txt"
pod trainer-0
check "--pod without a namespace: exit 1" [ $? -eq 1 ]
check "... the error names --pod and the form" grep -q -- '--pod "trainer-0": expected NAMESPACE/NAME' "$T/pod.err"

echo "== the PF's PFC cleared (a writer outside rdma-qos)"
dcb_edit "$ROOT" "$PF0" '.pfc = []'
pod ai/trainer-0
check "exit 1" [ $? -eq 1 ]
check "first line: lossless: NO naming the PF and the item" [ "$(head -1 "$T/pod.txt")" = "lossless: NO (net1: the PF does not meet the profile: pfc: required priority 3, port has none)" ]
check "pf_profile PROBLEM with the evidence" has pf_profile "PROBLEM *pfc: required priority 3, port has none"
check "--json: lossless false, firstProblem pf_profile" [ "$(rqs show --pod ai/trainer-0 --json | jq -c '[.attachments[0].lossless, .attachments[0].firstProblem, .attachments[0].checks.pf_profile.state]')" = '[false,"pf_profile","problem"]' ]
pod ai/web
{ [ $? -eq 0 ] && head -1 "$T/pod.txt" | grep -q "^lossless: not required"; }; check "the lossy pod on that PF: exit 0, lossless: not required (PFC is not its requirement)" [ $? -eq 0 ] || head -1 "$T/pod.txt"

echo "== the VF's class changed"
agent --once --catalog-source "$CAT" > /dev/null 2>&1
echo 0 > "$(tos_file "$ROOT" "$DEV0")"
pod ai/trainer-0
{ [ $? -eq 1 ] && head -1 "$T/pod.txt" | grep -q "^lossless: NO (net1: the VF's traffic class is wrong: configfs 0, required 106)"; }; check "exit 1, lossless: NO (the VF's traffic class)" [ $? -eq 0 ]
{ line vf_class | grep -q PROBLEM && [ "$(line pf_profile | awk '{ print $2 }')" = ok ]; }; check "vf_class PROBLEM, pf_profile ok again (the agent repaired PFC)" [ $? -eq 0 ]

echo "== QPs off PFC"
agent --once --catalog-source "$CAT" > /dev/null 2>&1
mkdir -p "$ROOT/rdma/qps"
echo '[{"qpn": 17, "type": "RC", "state": "RTS", "pid": 42, "comm": "python3", "tclass": 0}]' > "$ROOT/rdma/qps/$DEV0.json"
pod ai/trainer-0
{ [ $? -eq 1 ] && line qps | grep -q "PROBLEM *1 QP(s) in RTS/RTR send on a priority without PFC"; }; check "exit 1, qps PROBLEM: 1 QP off PFC" [ $? -eq 0 ]
check "... lossless: NO names the QPs" out_has "$(head -1 "$T/pod.txt")" "^lossless: NO (net1: QPs send on a priority without PFC"

echo "== the agent's verdict series"
agent --once --catalog-source "$CAT" --metrics-file "$M" 2> "$T/a1.log"
check "promtool accepts the metrics" promcheck "$M"
L="namespace=\"ai\",pod=\"trainer-0\",interface=\"net1\",vf=\"$VF0PCI\",pf=\"$PF0\""
check "rdma_qos_attachment_lossless 0 (its QP off PFC)" [ "$(metric "$M" "rdma_qos_attachment_lossless{$L}")" = 0 ]
check "rdma_qos_attachment_problem{check=qps} 1" [ "$(metric "$M" "rdma_qos_attachment_problem{$L,check=\"qps\"}")" = 1 ]
check "no problem series of a check that holds" [ -z "$(metric "$M" "rdma_qos_attachment_problem{$L,check=\"pf_profile\"}")" ]
check "no lossless series for the lossy profile" [ "$(grep -c '^rdma_qos_attachment_lossless{.*pod="web"' "$M")" = 0 ]
rm "$ROOT/rdma/qps/$DEV0.json"
agent --once --catalog-source "$CAT" --metrics-file "$M" 2> /dev/null
{ [ "$(metric "$M" "rdma_qos_attachment_lossless{$L}")" = 1 ] && [ "$(grep -c "^rdma_qos_attachment_problem{$L" "$M")" = 0 ]; }; check "the QP gone: lossless 1, no problem series" [ $? -eq 0 ]
set_json "$REC" '.numaVerdict = "misaligned"'
agent --once --catalog-source "$CAT" --metrics-file "$M" 2> /dev/null
{ [ "$(metric "$M" "rdma_qos_attachment_problem{$L,check=\"numa\"}")" = 1 ] && [ "$(metric "$M" "rdma_qos_attachment_lossless{$L}")" = 1 ]; }; check "NUMA misaligned: problem{check=numa} 1, still lossless 1" [ $? -eq 0 ]
pod ai/trainer-0
{ [ $? -eq 1 ] && head -1 "$T/pod.txt" | grep -q "^lossless: yes, but net1: the VF is on another NUMA node"; }; check "show --pod: exit 1, lossless: yes, but the NUMA node" [ $? -eq 0 ]
set_json "$REC" '.numaVerdict = "aligned"'
# the gdr row: what ADD recorded (tests/sim/gdr.sh makes real PCIe trees; here the verdict's join)
set_json "$REC" '.gdrVerdict = "far" | .gdrPath = "sys" | .gdrLevel = "pxb" | .gdrGpu = {"pci": "0000:c1:00.0", "id": "0000:c1:00.0", "source": "amd.com/gpu"}'
agent --once --catalog-source "$CAT" --metrics-file "$M" 2> /dev/null
check "GDR far: problem{check=gdr} 1" [ "$(metric "$M" "rdma_qos_attachment_problem{$L,check=\"gdr\"}")" = 1 ]
check "... still lossless 1" [ "$(metric "$M" "rdma_qos_attachment_lossless{$L}")" = 1 ]
pod ai/trainer-0
rc=$?
check "show --pod: exit 1, gdr PROBLEM names the GPU and the level" [ $rc -eq 1 ]
check "... gdr PROBLEM names the GPU and the level" has gdr "PROBLEM *the nearest GPU 0000:c1:00.0 is sys from the VF, beyond pxb"
set_json "$REC" '.gdrVerdict = "near" | .gdrPath = "pix" | .gdrDegraded = ["acs_redirect"]'
agent --once --catalog-source "$CAT" --metrics-file "$M" 2> /dev/null
check "GDR near but degraded: problem{check=gdr} 1" [ "$(metric "$M" "rdma_qos_attachment_problem{$L,check=\"gdr\"}")" = 1 ]
pod ai/trainer-0
check "show --pod: gdr PROBLEM names the degradation" has gdr "PROBLEM *near (pix to GPU 0000:c1:00.0) but degraded: acs_redirect"
set_json "$REC" '.gdrDegraded = []'
agent --once --catalog-source "$CAT" --metrics-file "$M" 2> /dev/null
check "GDR near, nothing degraded: no gdr problem series" [ -z "$(metric "$M" "rdma_qos_attachment_problem{$L,check=\"gdr\"}")" ]
set_json "$REC" 'del(.gdrVerdict, .gdrPath, .gdrLevel, .gdrGpu, .gdrDegraded)'

echo "== a suspended repair, and rdma-qos resume"
for i in 1 2 3 4 5; do
	dcb_edit "$ROOT" "$PF0" '.pfc = []'
	RDMA_QOS_SIM_REPAIR_BACKOFF_MS=0 agent --once --catalog-source "$CAT" --metrics-file "$M" 2> /dev/null
done
check "the fifth repair suspends pfc" [ "$(metric "$M" "rdma_qos_repair_suspended{pf=\"$PF0\",item=\"pfc\"}")" = 1 ]
dcb_edit "$ROOT" "$PF0" '.pfc = []'
agent --once --catalog-source "$CAT" --metrics-file "$M" 2> /dev/null
{ [ "$(metric "$M" "rdma_qos_attachment_lossless{$L}")" = 0 ] && [ "$(metric "$M" "rdma_qos_attachment_problem{$L,check=\"pf_profile\"}")" = 1 ]; }; check "suspended: lossless 0, problem{check=pf_profile} 1" [ $? -eq 0 ]
pod ai/trainer-0
check "show --pod: pf_profile PROBLEM names the suspension and the resume command" has pf_profile "PROBLEM *repair of pfc suspended: another writer keeps undoing it (rdma-qos resume $PF0 ITEM"
rqs resume "$PF0" pfx > "$T/r.out" 2> "$T/r.err"
{ [ $? -eq 1 ] && grep -q 'ITEM "pfx" is not an item' "$T/r.err"; }; check "resume with an unknown item: exit 1, names it" [ $? -eq 0 ]
rqs resume nosuchpf pfc > "$T/r.out" 2> "$T/r.err"
{ [ $? -eq 1 ] && grep -q 'PF "nosuchpf": no such network device' "$T/r.err"; }; check "resume of an unknown PF: exit 1" [ $? -eq 0 ]
rqs resume "$PF0" pfc > "$T/r.out" 2> "$T/r.err"
{ [ $? -eq 0 ] && grep -q "PF $PF0 ($PF0PCI): repair of pfc resumed" "$T/r.out"; }; check "resume $PF0 pfc: exit 0, says it resumed" [ $? -eq 0 ]
check "... the book no longer suspends it" [ "$(jq --arg p "$PF0PCI" '.pfs[$p].items.pfc.suspended // false' "$ROOT/run/rdma-qos/agent/fights.json")" = false ]
agent --once --catalog-source "$CAT" --metrics-file "$M" 2> "$T/a2.log"
{ [ "$(pfc_of "$ROOT" "$PF0")" = "[3]" ] && [ "$(metric "$M" "rdma_qos_attachment_lossless{$L}")" = 1 ] && [ "$(metric "$M" "rdma_qos_repair_suspended{pf=\"$PF0\",item=\"pfc\"}")" = 0 ]; }; check "the next pass repairs PFC: lossless 1, not suspended" [ $? -eq 0 ]
rqs resume "$PF0PCI" pfc > "$T/r.out"
{ [ $? -eq 0 ] && grep -q "was not suspended" "$T/r.out"; }; check "resume by PCI address when nothing is suspended: exit 0, says so" [ $? -eq 0 ]
# show must succeed: a count in nothing (show failed) was 0 too
check "show no longer says REPAIR SUSPENDED" [ "$(rqs show > "$T/show.out" && grep -c "REPAIR SUSPENDED" "$T/show.out")" = 0 ]

echo "== a NAD key ADD ignored (a typo): check config"
read -r _ VF2PCI VF2 <<< "${VFS[2]}"
NSC=$(newns c)
chain_add "$ROOT" roce c3 "$NSC" net1 "$VF2" "$(rq "$VF2PCI" ',"profle":"lossy"')" "$(args typo)" > /dev/null 2> "$T/typo.err"
check "ADD ai/typo with \"profle\": succeeds (the namespace default applies)" [ $? -eq 0 ]
RECT=$(grep -l "\"$VF2PCI\"" "$(state_dir "$ROOT")"/*.json | head -1)
check "... the record keeps ignoredKeys with the nearest known key" \
	[ "$(jq -c .ignoredKeys "$RECT" 2> /dev/null)" = '[{"key":"profle","nearest":"profile"}]' ]
pod ai/typo
check "show --pod: exit 1" [ $? -eq 1 ]
check "... config PROBLEM NAD key \"profle\" ignored (did you mean \"profile\"?)" \
	has config 'PROBLEM *NAD key "profle" ignored (did you mean "profile"?)'
check "... still lossless (the profile that applied is roce-lossless)" \
	grep -q '^lossless: yes, but net1: ' "$T/pod.txt"
agent --once --catalog-source "$CAT" --metrics-file "$M" 2> /dev/null
LT="namespace=\"ai\",pod=\"typo\",interface=\"net1\",vf=\"$VF2PCI\",pf=\"$PF0\""
check "rdma_qos_attachment_problem{check=config} 1" [ "$(metric "$M" "rdma_qos_attachment_problem{$LT,check=\"config\"}")" = 1 ]
check "... and rdma_qos_attachment_lossless still 1" [ "$(metric "$M" "rdma_qos_attachment_lossless{$LT}")" = 1 ]
check "ai/trainer-0 (no typo) has no config problem" [ -z "$(metric "$M" "rdma_qos_attachment_problem{$L,check=\"config\"}")" ]

summary
