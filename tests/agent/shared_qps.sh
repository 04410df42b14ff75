#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The QP census of a shared RDMA device (issue 50 item 3; DESIGN.md "Shared RDMA devices"):
# two pods reach the PF's own device mlx5_0 through macvlans (shared records, written by
# hand with the keys of /work/shared-contract.md, as ADD's shared path writes them), beside
# a VF pod. The device's QP list (<root>/rdma/qps/mlx5_0.json) mixes both pods', a host
# process's and the kernel's; each QP is attributed by its RDMA-CM id
# (<root>/rdma/cm_ids/mlx5_0.json), else its context's source GID index, else its
# process's cgroup (<root>/proc/<pid>/cgroup: the sim root stands in for /proc). Asserts the
# method of each, that none goes to the wrong pod, the host's QPs in
# rdma_qos_dev_qps_unattributed and the kernel's nowhere, the pod at class 0 in
# rdma_qos_vf_qps_off_lossless, rdma_qos_attachment_problem{check="qps"}, show --qps (text and
# JSON) and show --pod; that the device is read once per census whatever its attachments,
# and that a shared attachment has no per-pod counters.
set -u
. "$(dirname "$0")/lib.sh"

sim_suite_start "shared device QP census tests" rqsqp agent_can_run
AGENT_PID=""
suite_teardown() { [ -n "$AGENT_PID" ] && kill "$AGENT_PID" 2>/dev/null && wait "$AGENT_PID" 2>/dev/null; }

"$MKNODE" --root "$ROOT" --pfs 1 --vfs 1 --rdma configfs --ecn yes --dcb yes --counters yes \
	--pf-rdma yes --pf-prefix sq$$ > /dev/null || { echo "FAIL: mknode"; exit 1; }
sim_make_vfs "$ROOT"
mapfile -t VFS < <(sim_vfs "$ROOT")
read -r PF0 VF0PCI VF0 <<< "${VFS[0]}"
DEV=mlx5_0
check "the PF's own RDMA device is $DEV" [ -d "$ROOT/sys/class/infiniband/$DEV" ]
CAT=$ROOT/etc/cni/rdma-qos/profiles.json
mkdir -p "${CAT%/*}"
echo '{"profiles":{"lossy":{"trafficClass":0}},"namespaces":{"*":{"default":"roce-lossless","allow":["roce-lossless","lossy"]}}}' > "$CAT"
NSV=$(newns v) NSA=$(newns a) NSB=$(newns b)
chain_add "$ROOT" roce tv "$NSV" net1 "$VF0" "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF0PCI\"}" \
	"IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=vfpod;K8S_POD_UID=u-vf" > /dev/null
check "ADD ai/vfpod (a VF beside the shared device)" [ $? -eq 0 ]
SD=$(state_dir "$ROOT")
VREC=$SD/roce_tv_net1.json
check "the VF's record is there" [ -f "$VREC" ]

# the pods' GID entries, as the kernel adds them for each macvlan's address
"$MKNODE" --root "$ROOT" gid $DEV --ip 10.99.0.11 --ndev net1 > /dev/null # slots 2 (v1), 3 (v2)
"$MKNODE" --root "$ROOT" gid $DEV --ip 10.99.0.12 --ndev net1 > /dev/null # slots 4 (v1), 5 (v2)
UA=3f2a9c1e-0000-4b7d-8e21-0a1b2c3d4e5f UB=11111111-2222-3333-4444-555555555555
# shared_rec CID POD UID NETNS IP V1 V2: a shared attachment's record (lossless profile)
shared_rec() {
	jq -c --arg cid "$1" --arg pod "$2" --arg uid "$3" --arg ns "$4" --arg ip "$5" \
		--argjson v1 "$6" --argjson v2 "$7" --arg dev $DEV --arg pf "$PF0" \
		--argjson id "$(stat -L -c '[%d, %i]' "$4")" \
		'.vf = "" | .shared = true | .rdmaDev = $dev | .master = [$pf] | .containerID = $cid
		 | .netns = $ns | .netnsDev = $id[0] | .netnsIno = $id[1] | .podName = $pod | .podUID = $uid
		 | .ips = [$ip] | .gidsPending = []
		 | .gids = [{index: $v1, type: "RoCE v1", ip: $ip}, {index: $v2, type: "RoCE v2", ip: $ip}]
		 | .rdma.device = $dev | .rdma.tosSet = 106 | del(.rdma.knobs)' "$VREC" > "$SD/roce_$1_net1.json"
}
shared_rec ta alpha $UA "$NSA" 10.99.0.11 2 3
shared_rec tb beta $UB "$NSB" 10.99.0.12 4 5
check "two shared records on $DEV" [ "$(jq -s '[.[] | select(.shared == true and .rdmaDev == "mlx5_0")] | length' "$SD"/*.json)" = 2 ]
# the class their ADDs set on the shared device (attach/shared.c): 106 on its configfs knob
mkdir -p "$(dirname "$(tos_file "$ROOT" "$DEV")")" && echo 106 > "$(tos_file "$ROOT" "$DEV")"

mkdir -p "$ROOT/rdma/qps" "$ROOT/rdma/cm_ids" "$ROOT/proc/4242" "$ROOT/proc/5151" "$ROOT/proc/7777"
# alpha's process: cgroup v1, the cgroupfs driver (the UID with dashes)
printf '12:memory:/kubepods/burstable/pod%s/0123abcd\n11:cpu,cpuacct:/kubepods/burstable/pod%s/0123abcd\n' $UA $UA > "$ROOT/proc/4242/cgroup"
# beta's: cgroup v2, the systemd driver (the UID's dashes written as underscores)
printf '0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod%s.slice/cri-containerd-9f.scope\n' "${UB//-/_}" > "$ROOT/proc/5151/cgroup"
# a host process
echo '0::/system.slice/sshd.service' > "$ROOT/proc/7777/cgroup"
# 17: alpha's rping, its RDMA-CM id bound to 10.99.0.11 (cm_id)
# 18: beta's, class 0, source GID 5 = beta's RoCE v2 entry, no cm_id (sgid)
# 19: beta's process, source GID 1 (the host's default GID): by its cgroup (cgroup)
# 20: alpha's UD QP, its context's GID 3 ignored (UD: per send): by its cgroup (cgroup)
# 21: a host process's UD QP whose context names beta's GID 5: UD, so nobody's (unattributed)
# 22: a host process's RC QP on the host's GID (unattributed)
# 24: beta's QP whose process the agent cannot see (no pid), GID 4 = beta's RoCE v1 entry (sgid)
# 1, 100: the kernel's GSI and mlx5's UMR QP (never counted)
cat > "$ROOT/rdma/qps/$DEV.json" <<J
[{"qpn": 1, "type": "GSI", "state": "RTS", "comm": "ib_core"},
 {"qpn": 100, "type": "REG_UMR", "state": "RTS", "comm": "mlx5_ib"},
 {"qpn": 17, "type": "RC", "state": "RTS", "pid": 4242, "comm": "rping", "tclass": 106, "sgid_index": 1},
 {"qpn": 18, "type": "RC", "state": "RTS", "pid": 5151, "comm": "python3", "tclass": 0, "sgid_index": 5},
 {"qpn": 19, "type": "RC", "state": "RTS", "pid": 5151, "comm": "python3", "tclass": 106, "sgid_index": 1},
 {"qpn": 20, "type": "UD", "state": "RTS", "pid": 4242, "comm": "rping", "tclass": 0, "sgid_index": 3},
 {"qpn": 21, "type": "UD", "state": "RTS", "pid": 7777, "comm": "ibv_ud_pingpong", "tclass": 0, "sgid_index": 5},
 {"qpn": 22, "type": "RC", "state": "RTS", "pid": 7777, "comm": "ib_write_bw", "tclass": 0, "sgid_index": 1},
 {"qpn": 24, "type": "RC", "state": "RTS", "tclass": 106, "sgid_index": 4}]
J
echo '[{"qpn": 17, "src_addr": "10.99.0.11", "dst_addr": "10.99.0.21", "pid": 4242, "comm": "rping"},
 {"src_addr": "10.99.0.12", "pid": 5151, "comm": "python3"}]' > "$ROOT/rdma/cm_ids/$DEV.json"

PORT=$(free_port)
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --interval 600 --listen "127.0.0.1:$PORT" \
	--catalog-source "$CAT" --qp-census-interval 0 2> "$T/agent.log" &
AGENT_PID=$!
get() { curl -sf "http://127.0.0.1:$PORT/metrics" > "$1"; }
for _ in $(seq 50); do get "$T/m0.prom" && grep -q '^rdma_qos_dev_qps_unattributed' "$T/m0.prom" && break; sleep 0.2; done
check "promtool accepts /metrics" promcheck "$T/m0.prom" || cat "$T/m0.prom.lint"
L() { echo "namespace=\"ai\",pod=\"$1\",interface=\"net1\",vf=\"\",rdma_dev=\"$DEV\",pf=\"$PF0\""; }
LA=$(L alpha) LB=$(L beta)
m() { metric_lit "$T/m0.prom" "$1"; }

echo "== rdma_qos_vf_qps of each shared attachment: vf=\"\", rdma_dev the shared device"
check "alpha: 1 RC (cm_id), 1 UD (cgroup) in RTS" [ "$(m "rdma_qos_vf_qps{$LA,type=\"RC\",state=\"RTS\"}") $(m "rdma_qos_vf_qps{$LA,type=\"UD\",state=\"RTS\"}")" = "1 1" ]
check "alpha: 2 series only (no GSI, no REG_UMR: the kernel's)" [ "$(grep -c "^rdma_qos_vf_qps{$LA" "$T/m0.prom")" = 2 ]
check "beta: 3 RC in RTS (sgid 18 and 24, cgroup 19), 1 series" \
	[ "$(m "rdma_qos_vf_qps{$LB,type=\"RC\",state=\"RTS\"}")/$(grep -c "^rdma_qos_vf_qps{$LB" "$T/m0.prom")" = 3/1 ]
check "the VF pod keeps its own labels (vf=$VF0PCI)" grep -q "^rdma_qos_vf_qps_off_lossless{namespace=\"ai\",pod=\"vfpod\",interface=\"net1\",vf=\"$VF0PCI\"" "$T/m0.prom"

echo "== the pod at class 0 (beta's QP 18) and the one at 106 (alpha)"
check "beta: off_lossless 1 (QP 18 at class 0 -> priority 0, no PFC)" [ "$(m "rdma_qos_vf_qps_off_lossless{$LB}")" = 1 ]
check "alpha: off_lossless 0" [ "$(m "rdma_qos_vf_qps_off_lossless{$LA}")" = 0 ]
check "beta: by_class 0: 1, 106: 2" [ "$(m "rdma_qos_vf_qps_by_class{$LB,class=\"0\"}")/$(m "rdma_qos_vf_qps_by_class{$LB,class=\"106\"}")" = 1/2 ]
check "alpha: by_class 106: 1 only" [ "$(m "rdma_qos_vf_qps_by_class{$LA,class=\"106\"}")/$(grep -c "^rdma_qos_vf_qps_by_class{$LA" "$T/m0.prom")" = 1/1 ]

echo "== rdma_qos_dev_qps_unattributed: the host's QPs, not the kernel's"
U() { echo "rdma_qos_dev_qps_unattributed{rdma_dev=\"$DEV\",pf=\"$PF0\",type=\"$1\",state=\"RTS\"}"; }
check "HELP/TYPE gauge" grep -qx '# TYPE rdma_qos_dev_qps_unattributed gauge' "$T/m0.prom"
check "RC 1 (QP 22), UD 1 (QP 21: its context's GID is beta's, but a UD QP has none of its own)" [ "$(m "$(U RC)") $(m "$(U UD)")" = "1 1" ]
check "2 series: no GSI, no REG_UMR" [ "$(grep -c '^rdma_qos_dev_qps_unattributed{' "$T/m0.prom")" = 2 ]

echo "== the verdict: beta's qps check fails, alpha's holds"
for _ in $(seq 50); do get "$T/m1.prom" && grep -q "^rdma_qos_attachment_problem{namespace=\"ai\",pod=\"beta\".*check=\"qps\"} 1" "$T/m1.prom" && break; sleep 0.2; done
check "rdma_qos_attachment_problem{pod=\"beta\",vf=\"\",check=\"qps\"} 1" \
	grep -q "^rdma_qos_attachment_problem{namespace=\"ai\",pod=\"beta\",interface=\"net1\",vf=\"\",pf=\"$PF0\",check=\"qps\"} 1$" "$T/m1.prom"
check "alpha: no qps problem" [ "$(grep -c "^rdma_qos_attachment_problem{namespace=\"ai\",pod=\"alpha\".*check=\"qps\"}" "$T/m1.prom")" = 0 ]

echo "== no per-pod congestion series from a shared device's counters"
NCTR=$(grep '^rdma_qos_vf_' "$T/m1.prom" | grep -v '^rdma_qos_vf_qps' | grep -c 'pod="alpha"\|pod="beta"')
check "no rdma_qos_vf_* series other than the QP census for the shared pods (got $NCTR)" [ "$NCTR" = 0 ]
check "the VF pod still has its counters" grep -q "^rdma_qos_vf_[a-z_]*{.*pod=\"vfpod\"" <(grep -v '^rdma_qos_vf_qps' "$T/m1.prom")

echo "== show --qps: the method of each QP"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --qps --json > "$T/s.json" 2> "$T/s.err"
check "show --qps --json exits 0" [ $? -eq 0 ]
byof() { jq -c --arg p "$1" '[.attachments[] | select(.pod == $p) | .qps[] | [.qpn, .by]] | sort' "$T/s.json"; }
check "alpha: 17 cm_id, 20 cgroup" [ "$(byof alpha)" = '[[17,"cm_id"],[20,"cgroup"]]' ]
check "beta: 18 sgid, 19 cgroup, 24 sgid" [ "$(byof beta)" = '[[18,"sgid"],[19,"cgroup"],[24,"sgid"]]' ]
check "none misattributed: every QP in one place at most, the kernel's nowhere" \
	[ "$(jq -c '[(.attachments[] | select(.rdmaDev == "mlx5_0") | .qps[].qpn), (.unattributed[] | .qps[].qpn)] | sort' "$T/s.json")" = '[17,18,19,20,21,22,24]' ]
check "shared attachments: shared true, vf \"\", beta offLossless 1" \
	[ "$(jq -c '[.attachments[] | select(.shared) | [.pod, .vf, .offLossless]] | sort' "$T/s.json")" = '[["alpha","",0],["beta","",1]]' ]
check "the VF pod's QPs carry no method" [ "$(jq -c '[.attachments[] | select(.pod == "vfpod") | has("shared")]' "$T/s.json")" = '[false]' ]
check "unattributed: $DEV, QPs 21 and 22" [ "$(jq -c '[.unattributed[] | [.rdmaDev, .pf == "'"$PF0"'", [.qps[].qpn]]]' "$T/s.json")" = "[[\"$DEV\",true,[21,22]]]" ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --qps > "$T/s.txt" 2>&1
check "text: beta's QP 18 OFF LOSSLESS, by sgid" grep -q "qpn 18 .*class 0 (dscp 0) -> prio 0  OFF LOSSLESS: no PFC on prio 0  by sgid$" "$T/s.txt"
check "text: alpha's line names the shared device" grep -q "^ai/alpha net1 shared device $DEV pf $PF0 lossless: census ok, 2 QPs, 0 off lossless$" "$T/s.txt"
check "text: the device's unattributed QPs" grep -q "^shared device $DEV pf $PF0: census ok, 2 QPs of no attachment" "$T/s.txt"
sed 's/^/    /' "$T/s.txt"

echo "== show --pod ai/beta names the class-0 QP"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --pod ai/beta --json > "$T/p.json" 2> "$T/p.err"
check "show --pod ai/beta exits 1 (a check fails)" [ $? -eq 1 ]
check "show --pod ai/beta: one shared attachment on $DEV, vf \"\"" \
	[ "$(jq -c '[.attachments[] | [.shared, .rdmaDev, .vf, .interface]]' "$T/p.json")" = "[[true,\"$DEV\",\"\",\"net1\"]]" ] || cat "$T/p.json"
check "show --pod ai/beta: the qps check is a problem naming its 1 QP" \
	[ "$(jq -r '.attachments[0].checks.qps | .state + ": " + .evidence' "$T/p.json" | grep -c '^problem: 1 ')" = 1 ]
check "show --pod ai/beta: the headline says NO for the QPs" grep -q '"headline":.*lossless: NO (net1: .*1 ' "$T/p.json"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --pod ai/alpha --json > "$T/pa.json" 2> /dev/null
check "show --pod ai/alpha: its qps check holds" [ "$(jq -r '.attachments[0].checks.qps.state' "$T/pa.json")" = ok ]
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --pod ai/beta > "$T/p.txt" 2> /dev/null
check "show --pod (text): the shared device named" grep -q "^ai/beta net1: shared RDMA device $DEV of PF $PF0, profile roce-lossless" "$T/p.txt"
sed 's/^/    /' "$T/p.txt"

echo "== the device is read once per census, whatever its attachments"
# show --qps takes the census as the agent does (tel_collect): two attachments on mlx5_0, one read
# LeakSanitizer cannot run under ptrace: the ASan build leaves it to the runs above
strace -f -qq -e trace=openat,openat2 -o "$T/st" env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	RDMA_QOS_SIM_ROOT="$ROOT" "$SIM" show --qps --json > /dev/null 2>&1
check "show --qps opens rdma/qps/$DEV.json once (got $(grep -c "rdma/qps/$DEV.json" "$T/st"))" [ "$(grep -c "rdma/qps/$DEV.json" "$T/st")" = 1 ]
check "and rdma/cm_ids/$DEV.json once" [ "$(grep -c "rdma/cm_ids/$DEV.json" "$T/st")" = 1 ]
check "and each process's cgroup once (4242, 5151, 7777)" [ "$(grep -o 'proc/[0-9]*/cgroup' "$T/st" | sort | uniq -c | awk '{printf "%s:%s ", $2, $1}')" = "proc/4242/cgroup:1 proc/5151/cgroup:1 proc/7777/cgroup:1 " ]

echo "== the agent reads a process's cgroup again only for a QP it did not hold at the last census"
PORT2=$(free_port)
strace -f -qq -e trace=openat,openat2 -o "$T/ast" env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	RDMA_QOS_SIM_ROOT="$ROOT" "$SIM" agent --interval 600 --listen "127.0.0.1:$PORT2" --qp-census-interval 0 \
	2> "$T/agent2.log" &
SPID=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT2/metrics" > /dev/null && break; sleep 0.2; done
for _ in 1 2 3; do sleep 1.1; curl -sf "http://127.0.0.1:$PORT2/metrics" > "$T/m2.prom"; done
# a new process of beta's, with a QP: its cgroup is read, once
mkdir -p "$ROOT/proc/5152" && cp "$ROOT/proc/5151/cgroup" "$ROOT/proc/5152/cgroup"
jq -c '. + [{"qpn": 30, "type": "RC", "state": "RTS", "pid": 5152, "comm": "python3", "tclass": 106}]' \
	"$ROOT/rdma/qps/$DEV.json" > "$T/q.json" && mv "$T/q.json" "$ROOT/rdma/qps/$DEV.json"
sleep 1.1; curl -sf "http://127.0.0.1:$PORT2/metrics" > "$T/m3.prom"
# the agent, strace's child (env execs it): strace ends with it
kill "$(pgrep -P "$SPID")"; wait "$SPID" 2>/dev/null
ncen=$(grep -c "rdma/qps/$DEV.json" "$T/ast")
cg=$(grep -o 'proc/[0-9]*/cgroup' "$T/ast" | sort | uniq -c | awk '{printf "%s:%s ", $2, $1}')
# the host process's QPs are nobody's: nothing to remember, its cgroup is read at each census
check "$ncen censuses (>= 4): a pod's process's cgroup read once, the new one's too, the host's each time ($cg)" \
	[ "$ncen" -ge 4 ] && [ "$cg" = "proc/4242/cgroup:1 proc/5151/cgroup:1 proc/5152/cgroup:1 proc/7777/cgroup:$ncen " ]
check "the new QP 30 is beta's (by cgroup)" [ "$(metric_lit "$T/m3.prom" "rdma_qos_vf_qps{$LB,type=\"RC\",state=\"RTS\"}")" = 4 ]
jq -c 'map(select(.qpn != 30))' "$ROOT/rdma/qps/$DEV.json" > "$T/q.json" && mv "$T/q.json" "$ROOT/rdma/qps/$DEV.json"

echo "== a malformed cm_id file: the other methods still attribute"
echo '[{"qpn": "x"}]' > "$ROOT/rdma/cm_ids/$DEV.json"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" show --qps --json > "$T/s2.json" 2> /dev/null
check "alpha's QP 17: by cgroup now (its process is alpha's)" [ "$(jq -c '[.attachments[] | select(.pod == "alpha") | .qps[] | select(.qpn == 17) | .by]' "$T/s2.json")" = '["cgroup"]' ]

summary
