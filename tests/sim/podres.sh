# SPDX-License-Identifier: Apache-2.0
# Sourced by tests/sim/run.sh (its helpers, counters, $T): NUMA evidence from
# kubelet's PodResources API (issue 24). A grpcio server (tests/simnode/
# podres_server.py) serves on <sim root>/var/lib/kubelet/pod-resources/
# kubelet.sock the placements the node's kubelet files hold; every NUMA case
# runs with node.numaSource files and api and must give the same verdict and
# the same evidence. Then each kubelet version as it answers Get (issue 30:
# 1.26 UNIMPLEMENTED, 1.27-1.33 "Get method disabled", the gate on and 1.34
# "not found" for an unknown pod) under numa strict, kubelets without Get
# (List), no socket, and servers that hang, reset or answer garbage: the files
# or "unknown" within the bound, never a hang or a crash.

echo "== NUMA evidence: kubelet's PodResources API against its files"
PY=/usr/bin/python3
if ! "$PY" -c 'import grpc, google.protobuf' 2>/dev/null || ! command -v protoc > /dev/null; then
	if [ -n "${CI:-}" ]; then fail "podres: needs python3-grpcio, python3-protobuf, protobuf-compiler"
	else echo "SKIP: podres: no python3-grpcio/python3-protobuf/protoc (tests/sim/packages.txt)"; fi
	return 0 2>/dev/null || exit 0
fi
RP=$T/prnode
"$MKNODE" --root "$RP" --pfs 2 --vfs 2 --numa-nodes 2 --cpus-per-node 4 --rdma configfs \
	--ecn yes --dcb yes --pf-prefix pr$$ --pci-base a0 > /dev/null || fail "mknode prnode"
sim_make_vfs "$RP"
mapfile -t PV < <(sim_vfs "$RP")
read -r _ PVF0PCI _ <<< "${PV[0]}" # PF0's VFs: node 0
read -r _ PVF1PCI _ <<< "${PV[1]}"
read -r _ PVF2PCI _ <<< "${PV[2]}" # PF1's VFs: node 1
mkdir -p "$T/pb" && protoc --python_out="$T/pb" -I"$RQ_SRC/pkg/podres" \
	"$RQ_SRC/pkg/podres/api.proto" || fail "protoc api.proto"
PSOCK=$RP/var/lib/kubelet/pod-resources/kubelet.sock
# pods as kubelet placed them; each VF listed under its own pod, as the SR-IOV device plugin does
pmk() { "$MKNODE" --root "$RP" pod "$@" > /dev/null; }
pmk --uid u-al --cpus 0-1 --device "intel.com/sriov_rdma=$PVF0PCI@0"
pmk --uid u-far --cpus 4-5 --device "intel.com/sriov_rdma=$PVF1PCI@0"
pmk --uid u-gpu --cpus 4-7 --device nvidia.com/gpu=GPU-1@0 --device "intel.com/sriov_rdma=$PVF0PCI@0"
pmk --uid u-mem --mem-node 1
pmk --uid u-flat --device x/y=dev0 --device x/y=dev1@-1
pmk --uid u-rails --cpus 4 --device "intel.com/sriov_rdma=$PVF0PCI@0" --device "intel.com/sriov_rdma=$PVF1PCI@0"
# its CPUs and GPU on the other socket from its VF (issue 30)
pmk --uid u-xgpu --cpus 4-7 --device nvidia.com/gpu=GPU-2@1 --device "intel.com/sriov_rdma=$PVF0PCI@0"
PODS=(u-al u-far u-gpu u-mem u-flat u-rails u-none u-xgpu)
# the pod -> the VF its attachment gets
declare -A PVF=([u-al]=$PVF0PCI [u-far]=$PVF1PCI [u-gpu]=$PVF0PCI [u-mem]=$PVF0PCI [u-flat]=$PVF2PCI
	[u-rails]=$PVF0PCI [u-none]=$PVF2PCI [u-xgpu]=$PVF0PCI [u-ghost]=$PVF2PCI)
pargs() { echo "IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p-$1;K8S_POD_UID=$1"; }
podargs=()
for p in "${PODS[@]}"; do podargs+=(--pod "ai/p-$p=$p"); done
PSRV=""
psrv_start() { # MODE
	psrv_stop
	rm -f "$PSOCK"
	# emptied here, not by the background job's own redirection: that one runs in the child,
	# maybe after the wait below has read the previous server's "ready"
	: > "$T/psrv.log"
	"$PY" "$RQ_SRC/tests/simnode/podres_server.py" --root "$RP" --pb "$T/pb" --mode "$1" \
		"${podargs[@]}" > "$T/psrv.log" 2>&1 &
	PSRV=$!
	local i
	for i in $(seq 100); do grep -q ready "$T/psrv.log" && return 0; sleep 0.1; done
	fail "podres server ($1) did not start: $(cat "$T/psrv.log")"
}
psrv_stop() { [ -z "$PSRV" ] || { kill "$PSRV" 2>/dev/null; wait "$PSRV" 2>/dev/null; PSRV=""; }; }
psource() { # auto|api|files
	mkdir -p "$RP/etc/cni/rdma-qos"
	echo "{\"namespaces\":{\"*\":{\"default\":\"roce-lossless\",\"allow\":[\"roce-lossless\"]}},\"node\":{\"numaSource\":\"$1\"}}" \
		> "$RP/etc/cni/rdma-qos/profiles.json"
}
prq() { echo "{\"type\":\"rdma-qos\",\"deviceID\":\"$1\",\"numa\":\"warn\",\"logLevel\":\"debug\"}"; }
# pnuma POD CID -> "verdict|evidence|source" of an ADD (numa warn), then DEL; the ADD's log in $T/pn.log
pnuma() {
	local pod=$1 cid=$2 rec ev
	conf_for pr 1.0.0 "$(prq "${PVF[$pod]}")" '{"cniVersion":"1.0.0","interfaces":[]}' | \
		RDMA_QOS_SIM_ROOT=$RP run_plugin "$SIM" ADD "$cid" /proc/self/ns/net net1 "$(pargs "$pod")" \
		> /dev/null 2> "$T/pn.log"
	rec=$RP/run/rdma-qos/state/pr_${cid}_net1.json
	ev=$(sed -n 's/.*NUMA \(aligned\|misaligned (numa: warn, continuing)\|placement unknown\): //p' "$T/pn.log" | head -1)
	echo "$(jq -r .numaVerdict "$rec" 2>/dev/null)|$ev|$(jq -r .numaSource "$rec" 2>/dev/null)"
	conf_for pr 1.0.0 "$(prq "${PVF[$pod]}")" | RDMA_QOS_SIM_ROOT=$RP run_plugin "$SIM" DEL "$cid" "" net1 "$(pargs "$pod")" 2>/dev/null
}
declare -A WANT=([u-al]=aligned [u-far]=misaligned [u-gpu]=aligned [u-mem]=misaligned [u-flat]=unknown
	[u-rails]=aligned [u-none]=unknown [u-xgpu]=misaligned)

psrv_start 1.34
declare -A FILES API
for p in "${PODS[@]}"; do
	psource files
	FILES[$p]=$(pnuma "$p" "f$p"); [ -n "${PRDEBUG:-}" ] && cat "$T/pn.log" >&2
	psource api
	API[$p]=$(pnuma "$p" "a$p")
	check "$p: files say ${WANT[$p]}" [ "${FILES[$p]%%|*}" = "${WANT[$p]}" ]
	check "$p: the API gives the same verdict and evidence (${API[$p]%|*})" \
		[ "${API[$p]%|*}" = "${FILES[$p]%|*}" ]
	check "$p: sources recorded" [ "${FILES[$p]##*|}|${API[$p]##*|}" = "kubelet files (node.numaSource files)|PodResources API (Get)" ]
done
check "the VF never vouches for itself, over the API too" \
	grep -q "^misaligned|VF $PVF1PCI is on NUMA node 0; pod CPUs 4-5 are on node 1|" <<< "${API[u-far]}"
check "another rail of the pod is evidence" grep -q "intel.com/sriov_rdma $PVF1PCI is on node 0" <<< "${API[u-rails]}"

echo "-- strict over the API: the misaligned pod fails with the files' message"
psource api
msg=$(conf_for pr 1.0.0 "{\"type\":\"rdma-qos\",\"deviceID\":\"$PVF1PCI\",\"numa\":\"strict\"}" '{"cniVersion":"1.0.0","interfaces":[]}' | \
	RDMA_QOS_SIM_ROOT=$RP run_plugin "$SIM" ADD sfar /proc/self/ns/net net1 "$(pargs u-far)" 2>/dev/null)
check "numa strict over the API: code 103, the files' evidence" \
	[ "$(jq -r '"\(.code) \(.msg)"' <<< "$msg")" = "103 NUMA misaligned (numa: strict): VF $PVF1PCI is on NUMA node 0; pod CPUs 4-5 are on node 1" ]

echo "-- each kubelet version, node.numaSource api and numa strict (issue 30)"
# kubelet 1.26 has no Get (UNIMPLEMENTED); 1.27-1.33 answer a Get behind the gate, off by
# default, with code 2 "PodResources API Get method disabled"; with the gate on, and on 1.34,
# a pod kubelet does not know is code 2 "pod NAME in namespace NS not found"
psource api
# pstrict POD CID [NAME] -> "ok VERDICT|SOURCE" of an ADD with numa strict, or "CODE MSG" of its
# refusal; then DEL. Its log in $T/ps.log
pstrict() {
	local pod=$1 cid=$2 name=${3:-p-$1} out rec
	local conf="{\"type\":\"rdma-qos\",\"deviceID\":\"${PVF[$pod]}\",\"numa\":\"strict\",\"logLevel\":\"debug\"}"
	local a="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=$name;K8S_POD_UID=$pod"
	out=$(conf_for pr 1.0.0 "$conf" '{"cniVersion":"1.0.0","interfaces":[]}' |
		RDMA_QOS_SIM_ROOT=$RP run_plugin "$SIM" ADD "$cid" /proc/self/ns/net net1 "$a" 2> "$T/ps.log")
	rec=$RP/run/rdma-qos/state/pr_${cid}_net1.json
	if [ -e "$rec" ]; then echo "ok $(jq -r '"\(.numaVerdict)|\(.numaSource)"' "$rec")"
	else jq -r '"\(.code) \(.msg)"' <<< "$out" 2>/dev/null || echo "?? $out"; fi
	conf_for pr 1.0.0 "$conf" | RDMA_QOS_SIM_ROOT=$RP run_plugin "$SIM" DEL "$cid" "" net1 "$a" 2>/dev/null
}
XEV=${FILES[u-xgpu]%|*}; XEV=${XEV#*|}
check "files: the pod's CPUs and GPU are on node 1, its VF on node 0" \
	grep -q "^VF $PVF0PCI is on NUMA node 0; pod CPUs 4-7 are on node 1; nvidia.com/gpu GPU-2 is on node 1" <<< "$XEV"
i=0
for v in 1.26 1.27-1.33 1.27-1.33-gate 1.34; do
	i=$((i + 1))
	psrv_start "$v"
	case $v in 1.26 | 1.27-1.33) via=List ;; *) via=Get ;; esac
	r=$(pstrict u-xgpu "kx$i")
	check "kubelet $v: CPUs and GPU on the other socket: refused, the files' evidence ($r)" \
		[ "$r" = "103 NUMA misaligned (numa: strict): $XEV" ]
	r=$(pstrict u-al "ka$i")
	check "kubelet $v: an aligned pod is accepted, by $via ($r)" [ "$r" = "ok aligned|PodResources API ($via)" ]
	r=$(pstrict u-ghost "kg$i")
	check "kubelet $v: a pod kubelet does not know: unknown, by $via ($r)" \
		[ "$r" = "ok unknown|PodResources API ($via)" ]
	check "... the log says kubelet knows no such pod" grep -q "NUMA placement unknown: VF $PVF2PCI is on NUMA node 1; kubelet's PodResources API knows no pod ai/p-u-ghost; kubelet has no CPU, device or memory placement for pod u-ghost$" "$T/ps.log"
	# Get, then List after a refused Get: one connection to kubelet's socket, two streams.
	# LeakSanitizer cannot run under ptrace (the suite's ASan run): no leak check in this ADD
	if command -v strace > /dev/null; then
		conf_for pr 1.0.0 "$(prq "$PVF0PCI")" '{"cniVersion":"1.0.0","interfaces":[]}' |
			RDMA_QOS_SIM_ROOT=$RP strace -f -qq -e trace=connect -o "$T/ps.strace" \
			env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" CNI_COMMAND=ADD CNI_CONTAINERID="kc$i" CNI_NETNS=/proc/self/ns/net \
			CNI_IFNAME=net1 CNI_PATH="$CNI_BIN_DIR" CNI_ARGS="$(pargs u-al)" "$SIM" > /dev/null 2>&1
		conf_for pr 1.0.0 "$(prq "$PVF0PCI")" | RDMA_QOS_SIM_ROOT=$RP run_plugin "$SIM" DEL "kc$i" "" net1 "$(pargs u-al)" 2>/dev/null
		check "kubelet $v: one connection to kubelet's socket for the ADD" \
			[ "$(grep -c 'connect(.*kubelet\.sock' "$T/ps.strace")" = 1 ]
	elif [ -n "${CI:-}" ]; then fail "podres: needs strace (tests/sim/packages.txt)"
	else echo "SKIP: kubelet $v: one connection (no strace)"; fi
done
# grpc-message is percent-encoded on the wire ("%" as %25): the "not found" of a pod whose
# name holds one is only kubelet's words once decoded (a name kubelet would refuse; the
# decoding is what is tested)
r=$(pstrict u-ghost kp1 'p-100%41')
check "kubelet 1.34: \"not found\" percent-decoded: unknown, by Get ($r)" \
	[ "$r" = "ok unknown|PodResources API (Get)" ]
check "... the log names the pod as asked" grep -q "knows no pod ai/p-100%41; " "$T/ps.log"

echo "-- auto: the API where kubelet serves it, List where it has no Get, the files otherwise"
psource auto
r=$(pnuma u-gpu x1)
check "auto, Get served: the API" [ "$r" = "${API[u-gpu]}" ]
for v in 1.26 1.27-1.33; do
	psrv_start "$v"
	r=$(pnuma u-gpu x2)
	check "auto, kubelet $v (Get unimplemented or disabled): List, same verdict and evidence ($r)" \
		[ "$r" = "${API[u-gpu]%|*}|PodResources API (List)" ]
	r=$(pnuma u-none x3)
	check "... a pod with nothing placed: unknown, as from the files" [ "${r%|*}" = "${FILES[u-none]%|*}" ]
done
psrv_stop
rm -f "$PSOCK"
r=$(pnuma u-far x4)
check "auto, no socket: the files, and why" \
	[ "$r" = "${FILES[u-far]%|*}|kubelet files (PodResources API: no socket or nobody on it)" ]
check "... said in the log" grep -q "NUMA evidence from kubelet files (PodResources API: no socket" "$T/pn.log"
# show tells which source the attachment's verdict came from
conf_for pr 1.0.0 "$(prq "$PVF1PCI")" '{"cniVersion":"1.0.0","interfaces":[]}' | \
	RDMA_QOS_SIM_ROOT=$RP run_plugin "$SIM" ADD show1 /proc/self/ns/net net1 "$(pargs u-far)" > /dev/null 2>&1
RDMA_QOS_SIM_ROOT=$RP "$SIM" show > "$T/prshow.txt" 2>&1
check "show: the verdict and where its evidence came from" \
	grep -q "NUMA misaligned, evidence from kubelet files (PodResources API: no socket or nobody on it)" "$T/prshow.txt"
RDMA_QOS_SIM_ROOT=$RP "$SIM" show --json > "$T/prshow.json" 2>&1
check "show --json: attachment.numaSource" \
	[ "$(jq -r --arg v "$PVF1PCI" '.pfs[].vfs[] | select(.pci == $v) | .attachment.numaSource' "$T/prshow.json")" = "kubelet files (PodResources API: no socket or nobody on it)" ]
conf_for pr 1.0.0 "$(prq "$PVF1PCI")" | RDMA_QOS_SIM_ROOT=$RP run_plugin "$SIM" DEL show1 "" net1 "$(pargs u-far)" 2>/dev/null
: > "$PSOCK" # a stale socket path, nobody listening
r=$(pnuma u-far x5)
check "auto, a stale socket file: the files" [ "$r" = "${FILES[u-far]%|*}|kubelet files (PodResources API: no socket or nobody on it)" ]

echo "-- DRA (issue 38): kubelet 1.34-1.36 answer with dynamic_resources; never placement evidence"
# A claim gives DRA devices no topology and Topology Manager does not align them: the VF's own
# claim (dra-driver-sriov names it by its PCI address, ':' and '.' as '-'; dranet "pci-" and
# the same) is the VF; the pod's other DRA devices are named as not placed; the CPUs decide.
dash() { tr ':.' '--' <<< "$1"; }
SRIOV=sriovnetwork.k8snetworkplumbingwg.io
# its CPUs on node 1, its VF (a DRA claim, no device plugin) on node 0, a shared GPU claim
pmk --uid u-dvf --cpus 4-7
# u-donly: nothing in the files (no exclusive CPUs, no memory), only DRA devices: its VF, a
# GPU, a dranet NIC. u-dnet: its CPUs on node 0 with its VF, a claim of dranet's
pmk --uid u-dnet --cpus 0-1
PVF[u-dvf]=$PVF0PCI PVF[u-donly]=$PVF2PCI PVF[u-dnet]=$PVF0PCI PVF[u-dmany]=$PVF2PCI
for p in u-dvf u-donly u-dnet u-dmany; do podargs+=(--pod "ai/p-$p=$p"); done
# u-dmany: ten GPU claims, more than the evidence names
for g in 0 1 2 3 4 5 6 7 8 9; do podargs+=(--dra "u-dmany=gpu.nvidia.com/node-1/gpu-$g@gpus"); done
podargs+=(--dra "u-dvf=$SRIOV/node-1/$(dash "$PVF0PCI")@vf-u-dvf"
	--dra "u-dvf=gpu.nvidia.com/node-1/gpu-0@gpus+share"
	--dra "u-donly=$SRIOV/node-1/$(dash "$PVF2PCI")@vf-u-donly"
	--dra "u-donly=gpu.nvidia.com/node-1/gpu-1@gpus"
	--dra "u-donly=dra.net/node-1/pci-$(dash "$PVF1PCI")@rail"
	--dra "u-dnet=dra.net/node-1/pci-$(dash "$PVF0PCI")@nic")
psource api
DVF_EV="VF $PVF0PCI is on NUMA node 0; VF $PVF0PCI is the pod's DRA claim ai/vf-u-dvf ($SRIOV/$(dash "$PVF0PCI")); pod CPUs 4-7 are on node 1; DRA device not placed (PodResources gives DRA devices no NUMA node): gpu.nvidia.com/gpu-0"
DONLY_EV="VF $PVF2PCI is on NUMA node 1; VF $PVF2PCI is the pod's DRA claim ai/vf-u-donly ($SRIOV/$(dash "$PVF2PCI")); DRA devices not placed (PodResources gives DRA devices no NUMA node): gpu.nvidia.com/gpu-1, dra.net/pci-$(dash "$PVF1PCI"); kubelet has no CPU, device or memory placement for pod u-donly"
DNET_EV="VF $PVF0PCI is on NUMA node 0; VF $PVF0PCI is the pod's DRA claim ai/nic (dra.net/pci-$(dash "$PVF0PCI")); pod CPUs 0-1 are on node 0"
i=0
for v in 1.34 1.35 1.36 1.34-getoff; do
	i=$((i + 1))
	psrv_start "$v"
	case $v in 1.34-getoff) via=List ;; *) via=Get ;; esac
	r=$(pstrict u-dvf "dv$i")
	check "kubelet $v: VF from a DRA claim, CPUs on the other node: refused by the CPUs, the claim named ($r)" \
		[ "$r" = "103 NUMA misaligned (numa: strict): $DVF_EV" ]
	r=$(pstrict u-donly "do$i")
	check "kubelet $v: only DRA devices: unknown, not refused by them, by $via ($r)" \
		[ "$r" = "ok unknown|PodResources API ($via)" ]
	check "... the evidence names the DRA devices it could not place, the VF's own claim as the VF" \
		grep -qF "NUMA placement unknown: $DONLY_EV" "$T/ps.log"
	r=$(pstrict u-dnet "dn$i")
	check "kubelet $v: dranet's claim of the VF recognised, the CPUs aligned, by $via ($r)" \
		[ "$r" = "ok aligned|PodResources API ($via)" ]
	check "... its evidence" grep -qF "NUMA aligned: $DNET_EV" "$T/ps.log"
done
r=$(pstrict u-dmany "dm")
# RQ_PODRES_MAX_DRA is 32 since issue 44 (an 8-GPU, 8-rail pod): all ten kept and named; past
# the cap the rest are counted (tests/unit/test_podres.c)
check "kubelet 1.34-getoff: ten DRA devices: all named ($r)" \
	grep -qF "NUMA placement unknown: VF $PVF2PCI is on NUMA node 1; DRA devices not placed (PodResources gives DRA devices no NUMA node): gpu.nvidia.com/gpu-0, gpu.nvidia.com/gpu-1, gpu.nvidia.com/gpu-2, gpu.nvidia.com/gpu-3, gpu.nvidia.com/gpu-4, gpu.nvidia.com/gpu-5, gpu.nvidia.com/gpu-6, gpu.nvidia.com/gpu-7, gpu.nvidia.com/gpu-8, gpu.nvidia.com/gpu-9; kubelet has no CPU" "$T/ps.log"
# kubelets before 1.34 (the DRA gate off, its default): no dynamic_resources, nothing named
psrv_start 1.27-1.33
r=$(pstrict u-donly "do0")
check "kubelet 1.27-1.33: no dynamic_resources: unknown, by List, no DRA device named ($r)" \
	[ "$r" = "ok unknown|PodResources API (List)" ]
check "... the evidence as before DRA" grep -qF "NUMA placement unknown: VF $PVF2PCI is on NUMA node 1; kubelet has no CPU, device or memory placement for pod u-donly" "$T/ps.log"

echo "-- servers that hang, reset or answer garbage: the files (auto) or unknown (api), within the bound"
for m in hang reset garbage badproto; do
	psrv_start "$m"
	psource auto
	t0=$(date +%s%N)
	r=$(pnuma u-far "h$m")
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	check "$m, auto: the files' verdict and evidence ($ms ms)" [ "${r%|*}" = "${FILES[u-far]%|*}" ]
	check "$m, auto: the source says why (${r##*|})" grep -q "^kubelet files (PodResources API: ." <<< "${r##*|}"
	# the bound is 1 s; the rest is ADD, DEL and jq on a loaded machine. A hang would never end.
	check "$m, auto: within the 1 s bound and ADD's own time" [ "$ms" -lt 6000 ]
	psource api
	r=$(pnuma u-far "i$m")
	check "$m, api: unknown, saying the API gave no answer" \
		grep -q "^unknown|VF $PVF1PCI is on NUMA node 0; kubelet's PodResources API gave no answer: .*; kubelet has no CPU, device or memory placement for pod u-far|PodResources API (node.numaSource api)$" <<< "$r"
done
psrv_stop
check "no ADD crashed or hung (all records gone)" [ "$(ls "$RP/run/rdma-qos/state/" 2>/dev/null | grep -c '\.json$')" = 0 ]
sim_del_vfs "$RP"
