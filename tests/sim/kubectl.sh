#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The kubectl plugin deploy/kubectl-rdma_qos against a stub kubectl: the stub
# answers `get` from fixture files (pods, their nodes and owners, one agent pod
# per node) and runs `exec` as the real rdma-qos-sim on that node's simulated
# root, so `kubectl rdma-qos pod|job|node` ask the node the pod is on, never
# an arbitrary agent. Two nodes: node-a with trainer-0 (in profile) and
# trainer-1 (its VF's class changed), node-b without an attachment (trainer-2).
set -u
. "$(dirname "$0")/lib.sh"

sim_suite_start "kubectl plugin" rqkp sim_can_run
PLUGIN=$RQ_SRC/deploy/kubectl-rdma_qos
FIX=$T/fix
mkdir -p "$FIX/roots" "$T/bin"
if command -v shellcheck > /dev/null; then
	check "shellcheck: the plugin is clean" shellcheck -s sh "$PLUGIN"
fi
check "dash -n: POSIX sh parses it" dash -n "$PLUGIN"

RA=$T/node-a RB=$T/node-b
"$MKNODE" --root "$RA" --pfs 1 --vfs 2 --rdma configfs --ecn yes --dcb yes --pf-prefix ka$$ > /dev/null || { echo "FAIL: mknode"; exit 1; }
"$MKNODE" --root "$RB" --pfs 1 --vfs 1 --rdma configfs --ecn yes --dcb yes --pf-prefix kb$$ > /dev/null || { echo "FAIL: mknode"; exit 1; }
ROOT=$RA
sim_make_vfs "$RA"
mapfile -t VFS < <(sim_vfs "$RA")
read -r _ VF0PCI VF0 <<< "${VFS[0]}"
read -r _ VF1PCI VF1 <<< "${VFS[1]}"
rq() { echo "{\"type\":\"rdma-qos\",\"deviceID\":\"$1\"}"; }
args() { echo "IgnoreUnknown=1;K8S_POD_NAMESPACE=ml;K8S_POD_NAME=$1;K8S_POD_UID=u-$1"; }
NSA=$(newns a) NSB=$(newns b)
chain_add "$RA" roce k0 "$NSA" net1 "$VF0" "$(rq "$VF0PCI")" "$(args trainer-0)" > /dev/null 2>&1
check "ADD ml/trainer-0 on node-a" [ $? -eq 0 ]
chain_add "$RA" roce k1 "$NSB" net1 "$VF1" "$(rq "$VF1PCI")" "$(args trainer-1)" > /dev/null 2>&1
check "ADD ml/trainer-1 on node-a" [ $? -eq 0 ]
DEV1=$(ls "$RA/sys/bus/pci/devices/$VF1PCI/infiniband" | head -1)
echo 0 > "$RA/sys/kernel/config/rdma_cm/$DEV1/ports/1/default_roce_tos"

# fixtures: "namespace pod node owner" per pod; the controllers in between; the agent pods
cat > "$FIX/pods" <<P
ml trainer-0 node-a trainer-workers-0
ml trainer-1 node-a trainer-workers-0
ml trainer-2 node-b trainer-workers-1
ml other-0 node-a other
ml pending-0 - lone
P
printf 'trainer-workers-0 trainer\ntrainer-workers-1 trainer\n' > "$FIX/mids"
echo "$RA" > "$FIX/roots/node-a"
echo "$RB" > "$FIX/roots/node-b"
mkdir -p "$FIX/agents"
echo "rdma-qos-node-a Running" > "$FIX/agents/node-a"
echo "rdma-qos-node-b Running" > "$FIX/agents/node-b"
# the stub: every call logged; get answers from the fixtures as real kubectl does (errors
# on stderr with exit 1, an empty list as nothing, jsonpath's index error on an empty
# list), exec runs the sim binary on the agent pod's node. Faults by file: $FIX/forbid-get,
# $FIX/forbid-exec, $FIX/no-container, $FIX/garbage (an answer without a verdict),
# $FIX/answer/NS_NAME and .rc (a canned answer for that pod).
# Agents: $FIX/agents/NODE, "POD PHASE" per line.
cat > "$T/bin/kubectl" <<'K'
#!/bin/bash
echo "$*" >> "$FIX/calls"
while :; do
	case $1 in
	--context | --kubeconfig | --as) shift 2 ;;
	--context=* | --kubeconfig=* | --as=*) shift ;;
	*) break ;;
	esac
done
ns="" sel="" fsel="" out="" pos=()
cmd=$1; shift
if [ "$cmd" = exec ]; then
	while [ "$1" != -- ]; do case $1 in -n) ns=$2; shift ;; -c) [ "$2" = agent ] || exit 9; shift ;; *) pos+=("$1") ;; esac; shift; done
	shift
	[ "$ns" = rdma-qos ] && [ "$1" = /rdma-qos ] || exit 9
	shift
	if [ -f "$FIX/forbid-exec" ]; then
		echo "Error from server (Forbidden): pods \"${pos[0]}\" is forbidden: User \"alice\" cannot create resource \"pods/exec\" in API group \"\" in the namespace \"rdma-qos\"" >&2
		exit 1
	fi
	if [ -f "$FIX/no-container" ]; then
		echo "error: unable to upgrade connection: container not found (\"agent\")" >&2
		exit 1
	fi
	[ -f "$FIX/garbage" ] && { echo "exec /rdma-qos: no such file or directory"; exit 0; }
	node=$(grep -l "^${pos[0]} " "$FIX"/agents/* | head -1)
	export RDMA_QOS_SIM_ROOT=$(cat "$FIX/roots/${node##*/}")
	# canned answers, as show --pod words them (plugin/tools/show_pod.c: several --pod, a
	# "pod NS/NAME" line before each, exit the worst), for $FIX/answer/NS_NAME; the others
	# the sim binary's own
	if [ "$1 $2" = "show --pod" ] && compgen -G "$FIX/answer/*" > /dev/null; then
		a=("$@") pods=() worst=0 k=0
		for ((i = 0; i < ${#a[@]}; i++)); do [ "${a[i]}" = --pod ] && pods+=("${a[i + 1]}"); done
		for p in "${pods[@]}"; do
			[ ${#pods[@]} -gt 1 ] && { [ $k -gt 0 ] && echo; echo "pod $p"; }
			c=$FIX/answer/${p//\//_}
			if [ -f "$c" ]; then cat "$c"; rc=$(cat "$c.rc"); else "$SIM" show --pod "$p" 2> /dev/null; rc=$?; fi
			if [ $rc = 1 ] || [ $worst = 1 ]; then worst=1; elif [ $rc = 2 ] || [ $worst = 2 ]; then worst=2; fi
			k=$((k + 1))
		done
		exit $worst
	fi
	exec "$SIM" "$@" 2> /dev/null
fi
[ "$cmd" = config ] && { cat "$FIX/context-ns" 2> /dev/null; exit 0; }
[ "$cmd" = get ] || exit 9
what=$1; shift
while [ $# -gt 0 ]; do
	case $1 in -n) ns=$2; shift ;; -l) sel=$2; shift ;; --field-selector) fsel=$2; shift ;; -o) out=$2; shift ;; *) pos+=("$1") ;; esac
	shift
done
if [ -f "$FIX/forbid-get" ]; then
	echo "Error from server (Forbidden): $what is forbidden: User \"alice\" cannot list resource \"$what\" in API group \"\" in the namespace \"$ns\"" >&2
	exit 1
fi
case $what in
pod)
	line=$(awk -v n="$ns" -v p="${pos[0]}" '$1 == n && $2 == p' "$FIX/pods")
	[ -n "$line" ] || { echo "Error from server (NotFound): pods \"${pos[0]}\" not found" >&2; exit 1; }
	read -r _ _ node _ <<< "$line"
	[ "$node" = - ] || printf '%s' "$node" ;;
pods)
	if [ "$ns" = rdma-qos ]; then
		[ "$sel" = app.kubernetes.io/name=rdma-qos ] || exit 9
		node=${fsel#spec.nodeName=}
		agents=$(cat "$FIX/agents/$node" 2> /dev/null)
		case $out in
		*'.items[0]'*)
			if [ -z "$agents" ]; then
				echo "error: error executing jsonpath \"${out#jsonpath=}\": Error executing template: array index out of bounds: index 0, length 0. Printing more information for debugging the template:" >&2
				exit 1
			fi
			printf '%s' "${agents%% *}" ;;
		*phase*) [ -z "$agents" ] || printf '%s\n' "$agents" ;;
		*) exit 9 ;;
		esac
		exit 0
	fi
	awk -v n="$ns" '$1 == n { print $2, ($3 == "-" ? "" : $3), $4 }' "$FIX/pods" ;;
jobs,replicasets) cat "$FIX/mids" ;;
*) exit 9 ;;
esac
K
chmod +x "$T/bin/kubectl"
export FIX SIM PATH="$T/bin:$PATH"
kp() { "$PLUGIN" "$@" > "$T/out" 2> "$T/err"; }

echo "== the binary: show with several --pod (one verdict each, the node read once, exit the worst)"
sa() { RDMA_QOS_SIM_ROOT=$RA "$SIM" show "$@" > "$T/out" 2> "$T/err"; }
sa --pod ml/trainer-0 --pod ml/trainer-2
check "trainer-0 (yes) and trainer-2 (not here): exit 2" [ $? -eq 2 ]
check "... a 'pod NS/NAME' line, then its headline, for each" [ "$(grep -A1 '^pod ml/' "$T/out" | grep -v '^--' | tr '\n' '|')" = "pod ml/trainer-0|lossless: yes|pod ml/trainer-2|lossless: unknown (no attachment of this pod on this node)|" ]
sa --pod ml/trainer-2 --pod ml/trainer-1 --pod ml/trainer-0
check "with trainer-1 (NO) among them: exit 1" [ $? -eq 1 ]
check "... three verdicts, in the order asked" [ "$(grep '^pod ml/' "$T/out" | tr '\n' ' ')" = "pod ml/trainer-2 pod ml/trainer-1 pod ml/trainer-0 " ]
sa --pod ml/trainer-0 --pod ml/trainer-1 --json
check "--json: an array, one object per pod" [ "$(jq -r '.[] | .pod + "=" + (.headline | split(" ")[1])' "$T/out" | tr '\n' ' ')" = "trainer-0=yes trainer-1=NO " ]
sa --pod ml/trainer-0 --json
check "one --pod --json: the object as before" [ "$(jq -r '.pod' "$T/out")" = trainer-0 ]
sa --pod ml/trainer-0 --pod bad
check "a bad --pod among several: exit 1, names it" grep -q -- '--pod "bad": expected NAMESPACE/NAME' "$T/err"

echo "== pod"
kp pod trainer-0 -n ml
check "pod trainer-0: exit 0" [ $? -eq 0 ]
check "... names the pod and its node, then lossless: yes" [ "$(sed -n 1,2p "$T/out" | tr '\n' '|')" = "pod ml/trainer-0 on node node-a:|lossless: yes|" ]
check "... asked node-a's agent by field selector" grep -q -- "get pods -n rdma-qos -l app.kubernetes.io/name=rdma-qos --field-selector spec.nodeName=node-a" "$FIX/calls"
check "... and exec'd show --pod there" grep -q -- "exec -n rdma-qos rdma-qos-node-a -c agent -- /rdma-qos show --pod ml/trainer-0" "$FIX/calls"
kp pod trainer-1 -n ml
{ [ $? -eq 1 ] && grep -q "^lossless: NO (net1: the VF's traffic class is wrong" "$T/out"; }; check "pod trainer-1 (class changed): exit 1, lossless: NO" [ $? -eq 0 ]
kp pod trainer-2 --namespace=ml
check "pod trainer-2 (node-b, no attachment): exit 2" [ $? -eq 2 ]
kp pod trainer-0 -n ml --json
{ [ $? -eq 0 ] && [ "$(jq -r '.attachments[0].lossless' "$T/out")" = true ]; }; check "pod --json: the JSON only" [ $? -eq 0 ]
echo ml > "$FIX/context-ns"
kp pod trainer-0
check "pod without -n: the context's namespace" [ $? -eq 0 ]
rm "$FIX/context-ns"
kp pod nosuch -n ml
{ [ $? -eq 3 ] && grep -q "NotFound" "$T/err"; }; check "no such pod: exit 3, kubectl's error shown" [ $? -eq 0 ]
kp pod pending-0 -n ml
{ [ $? -eq 3 ] && grep -q "not scheduled" "$T/err"; }; check "a pod not scheduled: exit 3, says so" [ $? -eq 0 ]
kp pod
check "pod without a name: exit 3" [ $? -eq 3 ]

echo "== job"
kp job trainer -n ml
check "job trainer (a JobSet's two Jobs): exit 1, one is not lossless" [ $? -eq 1 ]
check "... one line per pod, each from its own node" [ "$(grep -c "^ml/trainer-[012] on node-[ab]: lossless" "$T/out")" = 3 ]
{ grep -q "^ml/trainer-0 on node-a: lossless: yes$" "$T/out" && grep -q "^ml/trainer-1 on node-a: lossless: NO" "$T/out"; }; check "... trainer-0 yes, trainer-1 NO" [ $? -eq 0 ]
check "... the summary, each pod counted once" grep -q "^3 pods of ml/trainer: 1 lossless, 0 lossless with a performance problem, 1 not lossless, 0 not required (lossy), 1 not attached here, 0 not asked$" "$T/out"
check "... other-0 is not the job's" [ "$(grep -c other-0 "$T/out")" = 0 ]
kp job trainer-workers-0 -n ml
{ [ $? -eq 1 ] && grep -q "^2 pods of ml/trainer-workers-0" "$T/out"; }; check "job trainer-workers-0 (the Job itself): its two pods" [ $? -eq 0 ]
echo "$VF1PCI" > /dev/null
echo 106 > "$RA/sys/kernel/config/rdma_cm/$DEV1/ports/1/default_roce_tos"
kp job trainer-workers-0 -n ml
{ [ $? -eq 0 ] && grep -q "^2 pods of ml/trainer-workers-0: 2 lossless, 0 lossless with a performance problem, 0 not lossless" "$T/out"; }; check "the class back: the Job's pods all lossless, exit 0" [ $? -eq 0 ]
kp job nosuch -n ml
{ [ $? -eq 3 ] && grep -q "no pod of ml/nosuch" "$T/err"; }; check "job with no pod: exit 3" [ $? -eq 0 ]

echo "== node"
kp node node-a
{ [ $? -eq 0 ] && grep -q "^PF ka$$" "$T/out"; }; check "node node-a: show there" [ $? -eq 0 ]
kp node node-a --json
check "node node-a --json: show's JSON" [ "$(jq '.attachments' "$T/out")" = 2 ]
kp node node-a resume "ka$$""0" pfc
{ [ $? -eq 0 ] && grep -q "was not suspended" "$T/out"; }; check "node node-a resume PF ITEM: the binary's resume" [ $? -eq 0 ]
kp node node-c
{ [ $? -eq 3 ] && grep -q "no rdma-qos agent pod on node node-c" "$T/err"; }; check "a node without an agent pod: exit 3, says so" [ $? -eq 0 ]
check "never an arbitrary agent: no exec of ds/rdma-qos" [ "$(grep -c "ds/rdma-qos" "$FIX/calls")" = 0 ]
echo "== could not ask: exit 3 and why, never NO"
echo 0 > "$RA/sys/kernel/config/rdma_cm/$DEV1/ports/1/default_roce_tos"
kp job trainer -n ml --as=alice
check "(baseline) job trainer as alice: exit 1, trainer-1 not lossless" [ $? -eq 1 ]
touch "$FIX/forbid-exec"
kp pod trainer-0 -n ml
{ [ $? -eq 3 ] && grep -q "Forbidden" "$T/err" && grep -q "could not ask" "$T/err"; }; check "pod, exec forbidden (RBAC): exit 3, kubectl's error and why" [ $? -eq 0 ]
kp job trainer-workers-0 -n ml
rc=$?
check "job, exec forbidden: exit 3" [ $rc -eq 3 ]
check "... each pod's line says it was not asked, none empty" [ "$(grep -c "^ml/trainer-[01] on node-a: not asked (" "$T/out")" = 2 ]
check "... the summary counts them not asked, not 'not lossless'" grep -q "^2 pods of ml/trainer-workers-0: 0 lossless, 0 lossless with a performance problem, 0 not lossless, 0 not required (lossy), 0 not attached here, 2 not asked$" "$T/out"
kp node node-a
{ [ $? -eq 3 ] && grep -q "Forbidden" "$T/err" && grep -q "could not ask" "$T/err"; }; check "node, exec forbidden: exit 3 and why, not show's exit 1" [ $? -eq 0 ]
rm "$FIX/forbid-exec"
touch "$FIX/no-container"
kp pod trainer-0 -n ml
{ [ $? -eq 3 ] && grep -q "container not found" "$T/err"; }; check "pod, agent container not found (CrashLoop): exit 3" [ $? -eq 0 ]
rm "$FIX/no-container"
touch "$FIX/garbage"
kp pod trainer-0 -n ml
{ [ $? -eq 3 ] && grep -q "no verdict" "$T/err"; }; check "pod, the agent's answer has no verdict: exit 3, says so" [ $? -eq 0 ]
kp pod trainer-0 -n ml --json
check "pod --json, an answer without a verdict: exit 3" [ $? -eq 3 ]
rm "$FIX/garbage"
touch "$FIX/forbid-get"
kp pod trainer-0 -n ml
{ [ $? -eq 3 ] && grep -q "Forbidden" "$T/err"; }; check "pod, get pods forbidden: exit 3, kubectl's error" [ $? -eq 0 ]
kp job trainer -n ml
{ [ $? -eq 3 ] && grep -q "Forbidden" "$T/err"; }; check "job, list pods forbidden: exit 3" [ $? -eq 0 ]
rm "$FIX/forbid-get"
: > "$FIX/agents/node-b"
kp job trainer -n ml
check "job, node-b's agent gone, trainer-1 NO: still exit 1" [ $? -eq 1 ]
check "... trainer-2 not asked: no agent on node-b" grep -q "^ml/trainer-2 on node-b: not asked (no rdma-qos agent pod on node node-b" "$T/out"
echo 106 > "$RA/sys/kernel/config/rdma_cm/$DEV1/ports/1/default_roce_tos"
kp job trainer -n ml
check "job, trainer-0/1 lossless, trainer-2 not asked: exit 3" [ $? -eq 3 ]
echo "rdma-qos-node-b Running" > "$FIX/agents/node-b"
printf 'rdma-qos-node-a-new Pending\nrdma-qos-node-a Running\n' > "$FIX/agents/node-a"
: > "$FIX/calls"
kp pod trainer-0 -n ml --context=prod --kubeconfig /tmp/kc --as alice
check "rolling update, two agent pods: the Running one is asked" [ $? -eq 0 ]
check "... exec'd rdma-qos-node-a" grep -q -- "exec -n rdma-qos rdma-qos-node-a -c agent" "$FIX/calls"
check "--context, --kubeconfig, --as on every kubectl call" [ "$(grep -c -- "--context=prod --kubeconfig=/tmp/kc --as=alice" "$FIX/calls")" = "$(wc -l < "$FIX/calls")" ]
: > "$FIX/calls"
kp job trainer -n ml --context prod
check "job: one exec per node (two nodes, three pods)" [ "$(grep -c " exec " "$FIX/calls")" = 2 ]
check "... node-a's asks for both its pods at once" grep -q -- "exec -n rdma-qos rdma-qos-node-a -c agent -- /rdma-qos show --pod ml/trainer-0 --pod ml/trainer-1$" "$FIX/calls"
check "... --context on every call" [ "$(grep -c -- "--context=prod" "$FIX/calls")" = "$(wc -l < "$FIX/calls")" ]
mkdir -p "$FIX/answer"
printf 'lossless: yes, but net1: numa: the VF is on NUMA node 1, the pod on 0\n' > "$FIX/answer/ml_trainer-0"
echo 1 > "$FIX/answer/ml_trainer-0.rc"
printf 'lossless: not required (no profile of the pod has pfc)\n' > "$FIX/answer/ml_trainer-1"
echo 0 > "$FIX/answer/ml_trainer-1.rc"
kp job trainer -n ml
check "job: a performance problem, a lossy pod, one not attached: exit 0" [ $? -eq 0 ]
check "... each counted once in its own column" grep -q "^3 pods of ml/trainer: 0 lossless, 1 lossless with a performance problem, 0 not lossless, 1 not required (lossy), 1 not attached here, 0 not asked$" "$T/out"
kp pod trainer-0 -n ml
check "pod with a performance problem: show's exit 1" [ $? -eq 1 ]
rm -r "$FIX/answer"
"$PLUGIN" --help > "$T/out"
{ [ $? -eq 0 ] && grep -q "kubectl rdma-qos pod NAME" "$T/out"; }; check "--help: exit 0, the usage" [ $? -eq 0 ]

sim_del_vfs "$RA" 2> /dev/null
summary
