#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The README's newcomer path and the reference tables against the code (issue 45): each
# command of README.md "From a cluster with ConnectX NICs ... to pod X is lossless" that can
# run here runs (validate on the shipped files, preflight on a simulated node, the names
# the kubectl lines rely on against deploy/); the README's NAD and catalog validate and the
# catalog keeps the built-in CNP class; the agent's flag table is `agent --help`'s; every
# subcommand's --help exits 0 with its own usage; one metrics port.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
B=$(cd "${RQ_BUILD:-$SRC/build}" && pwd)
PASS=0 FAIL=0
pass() { PASS=$((PASS + 1)); echo "PASS: $*"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL: $*"; }
# check DESC CMD...: CMD counted as a PASS or a FAIL; returns CMD's status, so that
# `check ... || diagnostic` shows the evidence of a failure (a suite calling check runs
# without set -e: a failing check is counted and the suite goes on to its summary)
# (no local but d: the condition runs in check's scope and may read the caller's variables)
check() { local d="$1"; shift; if "$@"; then pass "$d"; else set -- $?; fail "$d"; return "$1"; fi; }
# same A B: A and B are the same text and not empty. [ "$(X)" = "$(Y)" ] passed when X and Y
# both printed nothing (both failed, or found nothing); same "$(X)" "$(Y)" does not. One
# definition a lib (tests/sim, tests/vm, tests/deploy, tests/docs/readme_path.sh), all alike.
same() { [ -n "$1" ] && [ "$1" = "$2" ]; }
[ -x "$B/rdma-qos" ] && [ -x "$B/rdma-qos-sim" ] || { echo "FAIL: no $B/rdma-qos (make)"; exit 1; }
T=$(mktemp -d /tmp/rq-readme.XXXXXX)
trap 'rm -rf "$T"' EXIT
R=$SRC/README.md
mkdir -p "$T/bin" && ln -s "$B/rdma-qos" "$T/bin/rdma-qos"
# the section, and its indented command lines joined (a trailing \ continues)
sed -n '/^## From "a cluster with ConnectX NICs/,/^## Images/p' "$R" > "$T/path.md"
cmds() { sed -n 's/^       \{0,1\}\(.*\)$/\1/p' "$T/path.md" | grep -E '^ *(rdma-qos|kubectl) ' ; }
joined=$(awk '/^       / {l = $0; sub(/^ +/, "", l); if (c != "") l = c " " l; if (l ~ /\\$/) {
	sub(/ *\\$/, "", l); c = l; next } c = ""; print l }' "$T/path.md")

echo "== the path, step by step"
check "the section exists, steps 1-8" [ "$(grep -cE '^[1-8]\. \*\*' "$T/path.md")" = 8 ]
v=$(grep -E '^rdma-qos validate examples/sriovnetwork.yaml' <<< "$joined")
o=$(cd "$SRC" && export PATH=$T/bin:$PATH && eval "$v" 2>&1)
rc=$?
check "step 5, verbatim ($v): exit 0" [ $rc -eq 0 -a -n "$v" ] || echo "   $o"
check "... step 5 names the namespace's profile" grep -q 'namespace ai-training gets profile roce-lossless' <<< "$o" || echo "   $o"
v=$(grep -oE '`rdma-qos validate deploy/base/profiles.json`' "$T/path.md" | tr -d '`' | head -1)
o=$(cd "$SRC" && export PATH=$T/bin:$PATH && eval "$v" 2>&1)
rc=$?
check "step 4 ($v): exit 0" [ $rc -eq 0 -a -n "$v" ]
check "... step 4 says 'valid catalog'" grep -q 'valid catalog' <<< "$o"
pf=$(grep -E 'kubectl -n rdma-qos exec' <<< "$joined")
check "step 3 runs /rdma-qos preflight in the agent container of the node's pod" grep -qE \
	'field-selector spec.nodeName=NODE -l app.kubernetes.io/name=rdma-qos\)" -c agent -- /rdma-qos preflight$' <<< "$pf"
ds=$(python3 -c 'import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))' \
	"$SRC/deploy/base/daemonset.yaml")
check "... the label selects deploy/'s DaemonSet pods, which have a container agent" [ "$(jq -r \
	'[.spec.template.metadata.labels["app.kubernetes.io/name"], (.spec.template.spec.containers[] |
	select(.name == "agent") | .name)] | join(" ")' <<< "$ds")" = "rdma-qos agent" ]
"$SRC/tests/simnode/mknode" --root "$T/node" --pfs 1 --vfs 2 --rdma configfs --dcb yes \
	--pf-prefix rd$$ > /dev/null
o=$(RDMA_QOS_SIM_ROOT=$T/node "$B/rdma-qos-sim" preflight 2>&1)
rc=$?
check "... preflight on a simulated node with the inbox driver: exit 0, the RDMA-CM-only line" \
	[ $rc -eq 0 ] || echo "$o"
check "... the RDMA-CM-only line" grep -q 'reaches RDMA-CM only' <<< "$o" || echo "$o"
check "step 7: kubectl rdma-qos pod NAME -n NS, the plugin's pod subcommand (DESIGN.md)" grep -qx \
	'kubectl rdma-qos pod trainer-0 -n ai-training' <<< "$joined"
if [ -f "$SRC/deploy/kubectl-rdma_qos" ]; then
	check "... deploy/kubectl-rdma_qos ships it (pod, job)" grep -q 'pod)' "$SRC/deploy/kubectl-rdma_qos"
fi
check "steps 1-2: the image's one place and the kustomize entry exist" [ -f \
	"$SRC/deploy/components/image/kustomization.yaml" -a -f "$SRC/deploy/kustomization.yaml" -a \
	-f "$SRC/deploy/overlays/openshift/kustomization.yaml" ]
check "Images: the build command's Containerfile exists and takes RELEASE" grep -q '^ARG RELEASE=' \
	"$SRC/deploy/Containerfile"

lbl=$(grep -n -x 'kubectl label namespace rdma-qos pod-security.kubernetes.io/enforce=privileged' <<< "$joined" | cut -d: -f1)
hi=$(grep -n -x 'helm install rdma-qos deploy/helm/rdma-qos -n rdma-qos' <<< "$joined" | head -1 | cut -d: -f1)
before_helm() { [ -n "$lbl" ] && [ -n "$hi" ] && [ "$lbl" -lt "$hi" ]; }
check "step 2: Helm installs into a namespace labelled privileged first (lines ${lbl:-none} < ${hi:-none})" before_helm
check "... the level deploy/'s own namespace has" grep -q 'pod-security.kubernetes.io/enforce: privileged' \
	"$SRC/deploy/base/namespace.yaml"
check "step 2: the DaemonSet's every-Linux-node default is said, as deploy/ has it" [ "$(grep -c \
	'every Linux node' "$T/path.md")" -ge 1 -a "$(jq -c .spec.template.spec.nodeSelector <<< "$ds")" = \
	'{"kubernetes.io/os":"linux"}' ]
check "step 8: the monitoring path, metrics-tls overlay then deploy/monitoring" [ "$(grep -cx \
	-e 'kubectl apply -k deploy/overlays/metrics-tls' -e 'kubectl apply -k deploy/monitoring' <<< "$joined")" = 2 -a \
	-f "$SRC/deploy/overlays/metrics-tls/kustomization.yaml" -a -f "$SRC/deploy/monitoring/servicemonitor.yaml" ]
check "... the overlay is the one with the TLS proxy's component" grep -q 'components/metrics-tls' \
	"$SRC/deploy/overlays/metrics-tls/kustomization.yaml"
tag=$(make -s -C "$SRC" print-image-tag)
image_tag() { [ -n "$tag" ] && [[ $tag != *+* ]] && grep -q 'rdma-qos:$(make -s print-image-tag)' "$R"; }
check "Images: the build tags with make print-image-tag, which exists and has no '+' ($tag)" image_tag

before=$(sed -n '1,/^## From "a cluster with ConnectX NICs/p' "$R")
check "before the path: what the class reaches (inbox: RDMA-CM only, NCCL_IB_TC=106)" [ "$(grep -c \
	-e 'RDMA-CM connections only' -e 'NCCL_IB_TC=106' <<< "$before")" -ge 2 ]

echo "== the README's NAD and catalog"
awk '/^```yaml/ {f = 1; next} /^```/ {f = 0} f' "$R" | head -40 > "$T/nad.yaml"
o=$("$B/rdma-qos" validate "$T/nad.yaml" 2>&1)
check "the README's NAD validates" [ $? -eq 0 ] || echo "   $o"
awk '/^```json/ {f = 1; next} /^```/ {f = 0} f' "$R" > "$T/cat.json"
o=$("$B/rdma-qos" validate "$T/cat.json" 2>&1)
check "the README's catalog validates" [ $? -eq 0 ] || echo "   $o"
check "... its roce-lossless keeps the built-in cnp (examples/profiles.json's, the built-in's)" [ \
	"$(jq -c '.profiles["roce-lossless"].cnp' "$T/cat.json")" = "$(jq -c \
	'.profiles["roce-lossless"].cnp' "$SRC/examples/profiles.json")" -a \
	"$(jq -c '.profiles["roce-lossless"].cnp' "$T/cat.json")" = '{"dscp":48,"prio":6}' ]
check "docs/configuration.md's profile table has the cnp row with the built-in's value" grep -qF \
	'| `cnp` | `{"dscp": 0-63, "prio": 0-7}`' "$SRC/docs/configuration.md"

echo "== reference tables against the code"
"$B/rdma-qos" agent --help > "$T/agent.help" 2>&1
code=$(grep -oE -- '--[a-z][a-z-]+' "$T/agent.help" | grep -vx -- --help | sort -u)
docs=$(sed -n 's/^| `\(--[a-z-]*\)[ `].*/\1/p' "$SRC/docs/operations.md" | sort -u)
check "docs/operations.md's agent flag table is agent --help's ($(wc -w <<< "$code") flags)" \
	[ "$code" = "$docs" ] || diff <(echo "$code") <(echo "$docs")
subs=$("$B/rdma-qos" --help | sed -n 's/^ *\(usage:\)\{0,1\} *rdma-qos \([a-z]\+\).*/\2/p' | sort -u)
check "rdma-qos --help exits 0 and lists the subcommands ($(echo $subs))" [ -n "$subs" ]
for s in $subs; do
	o=$("$B/rdma-qos" "$s" --help 2>&1)
	rc=$?
	check "rdma-qos $s --help: exit 0" [ $rc -eq 0 ]
	check "rdma-qos $s --help: its own usage" grep -q "usage: rdma-qos $s" <<< "$o"
done
ports=$(grep -rlE '\b(9309|9101)\b' "$R" "$SRC/docs" "$SRC/deploy" "$T/agent.help")
check "one metrics port: no 9309 or 9101 in README, docs/, deploy/ or agent --help ($ports)" [ -z "$ports" ]
check "... and 9474 is deploy/'s --listen port" grep -q -- '--listen=127.0.0.1:9474' "$SRC/deploy/base/daemonset.yaml"
rules=$(grep -oE 'alert: [A-Za-z]+' "$SRC/deploy/monitoring/prometheusrule.yaml" | cut -d' ' -f2 | sort -u)
table=$(sed -n '/^### Alerts/,/^### /p' "$SRC/docs/operations.md" | grep -oE '^\| RdmaQos[A-Za-z]+ ' |
	tr -d '| ' | sort -u)
check "docs/operations.md's alert table is prometheusrule.yaml's alerts ($(wc -w <<< "$rules"))" \
	[ -n "$rules" -a "$rules" = "$table" ] || diff <(echo "$rules") <(echo "$table")
# every value of the chart (maps that are values themselves aside) named in the values table
missing=$(python3 - "$SRC/deploy/helm/rdma-qos/values.yaml" "$SRC/docs/operations.md" <<'PY'
import re, sys, yaml
MAPS = {"catalog", "resources", "annotations", "ca", "nodeSelector", "affinity"}
def leaves(d, p=""):
    for k, x in d.items():
        q = p + "." + k if p else k
        if isinstance(x, dict) and x and k not in MAPS:
            yield from leaves(x, q)
        else:
            yield q
named = set()
sec = open(sys.argv[2]).read().split("## Installing with Helm", 1)[1]
for row in (l for l in sec.split("\n") if l.startswith("| `")):
    prev = None
    for m in re.findall(r"`([^`]+)`", row.split("|")[1]):
        named.add(prev.rsplit(".", 1)[0] + m if m.startswith(".") and prev else m)
        prev = m if not m.startswith(".") else prev
print(" ".join(k for k in leaves(yaml.safe_load(open(sys.argv[1]))) if k not in named))
PY
)
check "docs/operations.md's Helm values table names every value of values.yaml${missing:+ (missing: $missing)}" \
	[ -z "$missing" ]
# the agent's item names (plugin/agent/report.c) in the repair and drift rows
items=$(sed -n '/agent_item_names\[ITEM_N\] = {/,/};/p' "$SRC/plugin/agent/report.c" | grep -oE '"[a-z_0-9]+"' |
	tr -d '"' | sort)
row() { grep -F "| \`$1{pf,item}\`" "$SRC/docs/operations.md" | grep -oE '`[a-z_0-9]+`' | tr -d '`' | sort -u; }
check "rdma_qos_repairs_total's item list is the code's, dcb aside ($(echo $items))" same "$(grep -vx dcb <<< \
	"$items")" "$(row rdma_qos_repairs_total | grep -vxE 'rdma_qos_repairs_total|item|pf')"
check "... rdma_qos_drift's row names dcb, the one item only drift has" grep -q '`dcb`' <<< "$(grep -F \
	'| `rdma_qos_drift{pf,item}`' "$SRC/docs/operations.md")"
cites=$(grep -rln 'DESIGN\.md' "$R" "$SRC/docs" "$SRC/deploy" "$SRC/examples" --include='*.md' 2>/dev/null)
check "no doc cites a DESIGN.md the repository does not hold (docs/design.md is ours)${cites:+: $cites}" \
	[ -z "$cites" -o -f "$SRC/DESIGN.md" ]
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
