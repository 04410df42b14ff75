#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# make monitoring-test: deploy/monitoring/ and the DaemonSet's monitoring wiring, offline.
# - the PrometheusRule's rules pass `promtool check rules`; `promtool test rules` on synthetic
#   series (alert_cases.py): each alert fires on its case with the expected labels and
#   annotations while every other alert stays quiet, nothing fires on a healthy node, the
#   SR-IOV exporter join gives the pod on (node, pciAddr); a rule broken on purpose fails it;
# - every runbook_url points at a section of docs/troubleshooting.md;
# - every dashboard query (panels and variables) parses, as recording rules through promtool;
#   the dashboard has queries, node -> pf -> pod variables, and selects only metric names the
#   agent emits (plugin/agent/metrics.c, documented in docs/) or the rules record; a
#   dashboard with a misspelt metric or a syntax error is refused;
# - manifests against kubernetes-models and crd-keys.json (tests/deploy/k8s-check.mjs);
# - wiring: Service -> DaemonSet pods and the proxy's port, ServiceMonitor -> Service, the
#   agent on loopback behind the proxy, probes on /healthz and /readyz, RBAC for the proxy.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
. "$SRC/tests/deploy/lib.sh"
M=$SRC/deploy/monitoring
T=$(mktemp -d /tmp/rq-monitoring.XXXXXX)
trap 'rm -rf "$T"' EXIT
for c in promtool python3 jq; do
	command -v $c > /dev/null || { skip monitoring "no $c (tests/monitoring/packages.txt)"; finish; }
done
python3 -c 'import yaml' 2>/dev/null || { skip monitoring "no python3-yaml"; finish; }
not() { ! "$@"; }
# yq-less YAML: FILE [DOC] -> JSON
y2j() { python3 -c 'import json, sys, yaml
d = list(yaml.safe_load_all(open(sys.argv[1])))
print(json.dumps(d[int(sys.argv[2])] if len(sys.argv) > 2 else d))' "$@"; }

echo "== the PrometheusRule"
y2j "$M/prometheusrule.yaml" 0 | jq .spec > "$T/rules.json"
python3 -c 'import json, sys, yaml; yaml.safe_dump(json.load(open(sys.argv[1])), open(sys.argv[2], "w"))' \
	"$T/rules.json" "$T/rules.yaml"
out=$(promtool check rules "$T/rules.yaml" 2>&1)
check "promtool check rules: $(grep -o 'SUCCESS.*' <<< "$out")" [ $? -eq 0 ] || echo "$out"
mapfile -t ALERTS < <(jq -r '.groups[].rules[] | .alert // empty' "$T/rules.json")
want="RdmaQosAgentNotPassing RdmaQosCatalogInvalid RdmaQosCnpStorm RdmaQosDiscardsDespitePfc RdmaQosDriftNotRepaired RdmaQosEcnIneffective RdmaQosGdrDegraded RdmaQosGdrFar RdmaQosHostDropsOnPfcPriority RdmaQosLinkDegraded RdmaQosLosslessPodOnLossyClass RdmaQosMiswired RdmaQosNumaMisaligned RdmaQosPauseStorm RdmaQosPeerDisagrees RdmaQosPeerMultiplePartners RdmaQosPeerSilent RdmaQosPfNotInProfile RdmaQosPodNotLossless RdmaQosPodRailShared RdmaQosRepairSuspended RdmaQosRoceOnLossyPriority RdmaQosVfUnchained"
check "the alerts issues 22, 30, 31, 33, 37, 38, 43, 44 and 45 list are there (${#ALERTS[@]})" \
	[ "$(printf '%s\n' "${ALERTS[@]}" | sort | tr '\n' ' ')" = "$want " ]
check "every alert has severity, summary, description and runbook_url" [ "$(jq '[.groups[].rules[] |
	select(.alert) | select((.labels.severity | IN("critical", "warning", "info")) and
	.annotations.summary and .annotations.description and .annotations.runbook_url | not)] |
	length' "$T/rules.json")" = 0 ]
python3 "$HERE/alert_cases.py" "$T/rules.yaml" > "$T/tests.json"
# its status taken first: the description's $(jq ...) would reset $?
rc=$?
check "a case for every alert, every annotation rendered (alert_cases.py: $(jq '.tests | length' \
	"$T/tests.json" 2>/dev/null) groups)" [ $rc -eq 0 ]
out=$(cd "$T" && promtool test rules tests.json 2>&1)
check "promtool test rules: each alert fires on its case only, quiet on a healthy node, the join" \
	[ $? -eq 0 ] || echo "$out"
# the unit tests can fail: one threshold changed, one alert's expression made always true
sed 's/> 5000$/> 50000/' "$T/rules.yaml" > "$T/broken1.yaml"
sed 's/expr: rdma_qos_drift == 1/expr: rdma_qos_drift >= 0/' "$T/rules.yaml" > "$T/broken2.yaml"
sed "s/expr: rdma_qos_peer_agreement == 0/expr: rdma_qos_peer_agreement <= 1/" "$T/rules.yaml" > "$T/broken3.yaml"
# the fabric view joined on the node alone (a node's PFs all counted at each of its switches)
sed "s/on (node, pf) group_left (chassis_id, system_name, port_id)/on (node) group_left (chassis_id, system_name, port_id)/" \
	"$T/rules.yaml" > "$T/broken4.yaml"
# the owner roll-up: an HA pair of kube-state-metrics counted twice, bare pods "<none>"'s
sed 's/max by (namespace, pod, owner_kind, owner_name) (kube_pod_owner/sum by (namespace, pod, owner_kind, owner_name) (kube_pod_owner/' \
	"$T/rules.yaml" > "$T/broken5.yaml"
sed 's/(kube_pod_owner{owner_kind!="<none>"})/(kube_pod_owner)/' "$T/rules.yaml" > "$T/broken6.yaml"
# the miswired ports listed on every PF of the node (joined on the node alone)
sed 's/\* on (node, pf) group_left (rail) (rdma_qos_peer_wiring == bool 0)/* on (node) group_left (rail) (rdma_qos_peer_wiring == bool 0)/' \
	"$T/rules.yaml" > "$T/broken9.yaml"
# the pod's verdict: a performance check (numa) paging as not lossless; the roll-up by max
python3 -c 'import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
for r in (r for g in d["groups"] for r in g["rules"] if r.get("alert") == "RdmaQosPodNotLossless"):
    r["expr"] = r["expr"].replace("{check=~\"pf_profile|vf_class|peer|qps\"}", "")
yaml.safe_dump(d, open(sys.argv[2], "w"))' "$T/rules.yaml" "$T/broken7.yaml"
sed 's/min by (namespace, owner_kind, owner_name) (/max by (namespace, owner_kind, owner_name) (/' \
	"$T/rules.yaml" > "$T/broken8.yaml"
for b in broken1 broken2 broken3 broken4 broken5 broken6 broken7 broken8 broken9; do
	check "(the $b copy differs)" not cmp -s "$T/rules.yaml" "$T/$b.yaml"
	python3 "$HERE/alert_cases.py" "$T/$b.yaml" > "$T/$b.json"
	(cd "$T" && promtool test rules "$b.json" > /dev/null 2>&1)
	check "... and its unit tests fail" [ $? -ne 0 ]
done

echo "== runbooks"
# GitHub's anchor of a heading: lower case, spaces to -, punctuation dropped
anchors=$(grep '^## ' "$SRC/docs/troubleshooting.md" | sed 's/^## //' | tr 'A-Z' 'a-z' |
	sed 's/[^a-z0-9 _-]//g; s/ /-/g')
for a in "${ALERTS[@]}"; do
	url=$(jq -r --arg a "$a" '.groups[].rules[] | select(.alert == $a) | .annotations.runbook_url' \
		"$T/rules.json")
	check "$a: runbook ${url##*/} is a section of docs/troubleshooting.md" \
		grep -qx "${url##*#}" <<< "$anchors"
done

echo "== the dashboard"
D=$M/dashboard.json
check "dashboard.json is JSON" jq -e . "$D" > /dev/null
n=$(python3 "$HERE/promql_names.py" dashboard "$D" "$T/dash.yaml" 2> "$T/dash.map")
check "the dashboard has queries ($n)" [ "${n:-0}" -gt 0 ]
check "every panel has at least one query" [ "$(jq '[.. | objects | select(.type? and .gridPos? and
	.type != "row") | select((.targets // []) | map(.expr // "") | map(select(. != "")) |
	length == 0)] | length' "$D")" = 0 ]
out=$(promtool check rules "$T/dash.yaml" 2>&1)
check "every query parses (promtool check rules on $n recording rules)" [ $? -eq 0 ] ||
	{ echo "$out"; cat "$T/dash.map"; }
check "variables node -> pf -> pod, each filtered by the ones before" [ "$(jq -c '[.templating.list[] |
	select(.type == "query") | [.name, (.query.query | test("\\$node")),
	(.query.query | test("\\$pf"))]]' "$D")" = \
	'[["node",false,false],["pf",true,false],["pod",true,true]]' ]
# the pod variable lists every pod with an attachment, a shared one (vf="", no per-pod counters:
# DESIGN.md "Shared RDMA devices") as well as a VF's: its selector, $node and $pf at .*,
# evaluated by promtool over a VF pod with counters, a macvlan pod with a verdict and QP census
# only, and a VF pod of another PF
psel=$(jq -r '.templating.list[] | select(.name == "pod") | .query.query' "$D" |
	sed -E 's/^label_values\((.*), *pod\)$/\1/; s/\$node|\$pf/.*/g')
PSEL=$psel python3 - "$T/podvar.json" <<'PYEOF'
import json, os, sys
psel = os.environ["PSEL"]
def series(name, **labels):
    return name + "{" + ",".join(f'{k}="{v}"' for k, v in labels.items()) + "}"
vf0 = dict(node="n1", namespace="ai", pod="vf-0", interface="net1", vf="0000:3b:00.2", pf="ens1f0")
sh0 = dict(node="n1", namespace="ai", pod="shared-0", interface="net1", vf="", pf="ens1f0")
vf1 = dict(node="n1", namespace="ai", pod="vf-1", interface="net1", vf="0000:3b:08.2", pf="ens1f1")
inp = [(series("rdma_qos_vf_cnp_sent_total", **vf0), "0+1x10"),
       (series("rdma_qos_attachment_lossless", **vf0), "1x10"),
       (series("rdma_qos_attachment_lossless", **sh0), "1x10"),
       (series("rdma_qos_vf_qps", **sh0, rdma_dev="mlx5_0"), "4x10"),
       (series("rdma_qos_attachment_lossless", **vf1), "1x10")]
one = lambda *pods: [{"labels": '{pod="%s"}' % p, "value": 1} for p in pods]
json.dump({"rule_files": [], "evaluation_interval": "1m", "tests": [{
    "interval": "1m", "input_series": [{"series": k, "values": v} for k, v in inp],
    "promql_expr_test": [
        {"expr": f"count by (pod) ({psel})", "eval_time": "5m", "exp_samples": one("shared-0", "vf-0", "vf-1")},
        {"expr": "count by (pod) (%s)" % psel.replace('pf=~".*"', 'pf=~"ens1f1"'), "eval_time": "5m",
         "exp_samples": one("vf-1")}]}]}, open(sys.argv[1], "w"))
PYEOF
out=$(cd "$T" && promtool test rules podvar.json 2>&1)
check "the pod variable lists a pod on a shared RDMA device (vf=\"\", no counters) beside VF pods, by PF" \
	[ $? -eq 0 ] || echo "$psel: $out"
# the names the agent emits (its format strings) and the rules record
grep -ho '"rdma_qos_[a-z_]*' "$SRC"/plugin/agent/metrics.c "$SRC"/plugin/agent/tel_metrics.c "$SRC"/plugin/agent/peer_metrics.c "$SRC"/plugin/agent/who_metrics.c "$SRC"/plugin/agent/qps_metrics.c "$SRC"/plugin/agent/verdict_metrics.c "$SRC"/plugin/agent/gdr_metrics.c "$SRC"/plugin/agent/wiring_metrics.c "$SRC"/plugin/agent/link_metrics.c | tr -d '"' | sort -u > "$T/agent.names"
jq -r '.groups[].rules[] | .record // empty' "$T/rules.json" | sort -u > "$T/recorded.names"
check "(the agent's names: $(wc -l < "$T/agent.names"))" [ "$(wc -l < "$T/agent.names")" -gt 20 ]
names_ok() { # RULES_FILE: every name selected is the agent's or recorded; regexes match one
	local bad=0 nm
	while read -r nm; do
		case $nm in
		re:*) grep -qE "^(${nm#re:})$" "$T/agent.names" || { echo "   no agent metric matches $nm"; bad=1; } ;;
		*) grep -qx "$nm" "$T/agent.names" "$T/recorded.names" ||
			{ echo "   not a metric of the agent: $nm"; bad=1; } ;;
		esac
	done < <(python3 "$HERE/promql_names.py" names "$1")
	return $bad
}
check "the dashboard selects only the agent's metrics and the rules' records" names_ok "$T/dash.yaml"
undoc=""
for nm in $(python3 "$HERE/promql_names.py" names "$T/dash.yaml" "$T/rules.yaml" | grep '^rdma_qos_'); do
	grep -q "\`$nm[{\`]" "$SRC/docs/operations.md" || undoc+=" $nm"
done
check "every rdma_qos_ name the rules and the dashboard use is in docs/operations.md${undoc:+ (not:$undoc)}" \
	[ -z "$undoc" ]
# the rules: the agent's names, up, and the SR-IOV exporter's (its README's list)
jq -r '.groups[].rules[] | select(.alert) | .expr' "$T/rules.json" > /dev/null
python3 "$HERE/promql_names.py" names "$T/rules.yaml" | grep -vxE 'up|kube_pod_owner|sriov_vf_(rx|tx)_(bytes|packets|dropped)|sriov_vf_tx_errors' \
	> "$T/rules.names"
cat "$T/agent.names" "$T/recorded.names" > "$T/known.names"
check "the rules select only the agent's metrics, their own records, up and the SR-IOV exporter's" \
	[ -z "$(grep -vxFf "$T/known.names" "$T/rules.names")" ]
# the check can fail: a misspelt metric, a query that does not parse
jq '(.panels[] | select(.targets) | .targets[0].expr) |= sub("rdma_qos_vf_cnp_sent_total";
	"rdma_qos_vf_cnp_sendt_total")' "$D" > "$T/bad1.json"
python3 "$HERE/promql_names.py" dashboard "$T/bad1.json" "$T/bad1.yaml" 2> /dev/null > /dev/null
check "a dashboard with a misspelt metric is refused" not names_ok "$T/bad1.yaml" > /dev/null
jq '.panels[1].targets[0].expr |= . + " by ("' "$D" > "$T/bad2.json"
python3 "$HERE/promql_names.py" dashboard "$T/bad2.json" "$T/bad2.yaml" 2> /dev/null > /dev/null
check "a dashboard with a query that does not parse is refused" \
	not promtool check rules "$T/bad2.yaml" > /dev/null 2>&1

echo "== manifests (kubernetes-models, crd-keys.json)"
. "$SRC/tests/deploy/npm.sh"
out=$(node "$SRC/tests/deploy/k8s-check.mjs" "$NM" "$T/json" "$M"/*.yaml 2>&1)
check "every document in deploy/monitoring/ passes (${out##*$'\n'})" [ $? -eq 0 ] || echo "$out"
sed 's/      honorLabels: true/      honorLabel: true/' "$M/servicemonitor.yaml" > "$T/bad-sm.yaml"
o=$(node "$SRC/tests/deploy/k8s-check.mjs" "$NM" "$T/bjson" "$T/bad-sm.yaml" 2>&1)
check "a ServiceMonitor with a misspelt key is refused" grep -q 'endpoints\[0\].honorLabel: unknown key' <<< "$o"
check "the kustomization lists every YAML file here" same "$(y2j "$M/kustomization.yaml" 0 |
	jq -r '.resources[]' | sort | tr '\n' ' ')" "$(cd "$M" && ls *.yaml | grep -v kustomization |
	sort | tr '\n' ' ')"
check "... and the dashboard as a grafana_dashboard ConfigMap" [ "$(y2j "$M/kustomization.yaml" 0 |
	jq -c '.configMapGenerator[0] | [.files, .options.labels.grafana_dashboard]')" = '[["dashboard.json"],"1"]' ]

. "$SRC/tests/deploy/tools.sh"
kustomize "$M" > "$T/rendered.json"
rc=$?
check "deploy/monitoring renders with kubectl kustomize ($(jq length "$T/rendered.json") objects)" [ $rc -eq 0 ]
check "... the dashboard ConfigMap holds dashboard.json as it is" same "$(jq -r '.[] |
	select(.kind == "ConfigMap") | .data["dashboard.json"]' "$T/rendered.json" | jq -cS .)" \
	"$(jq -cS . "$D")"
check "... the reader's binding names the scrape's ServiceAccount in rdma-qos" [ "$(jq -r '.[] |
	select(.kind == "ClusterRoleBinding") | .subjects[0] | .namespace + "/" + .name' "$T/rendered.json")" = \
	rdma-qos/rdma-qos-prometheus ]

echo "== wiring"
y2j "$SRC/deploy/base/daemonset.yaml" 0 > "$T/ds.json"
y2j "$SRC/deploy/base/rbac.yaml" > "$T/rbac.json"
y2j "$M/service.yaml" 0 > "$T/svc.json"
y2j "$M/servicemonitor.yaml" 0 > "$T/sm.json"
P='.spec.template.spec'
agent() { jq "$P.containers[] | select(.name == \"agent\")" "$T/ds.json"; }
proxy() { jq "$P.containers[] | select(.name == \"kube-rbac-proxy\")" "$T/ds.json"; }
port=$(agent | jq -r '.command[] | select(startswith("--listen=")) | sub("--listen=127.0.0.1:"; "")')
# has FUNC JQ [ARGS]: FUNC's JSON makes the jq filter true
has() { "$1" | jq -e "${@:2}" > /dev/null; }
check "the agent listens on loopback only (127.0.0.1:$port)" has agent --arg l \
	"--listen=127.0.0.1:${port:-none}" '.command | index($l)'
check "kube-rbac-proxy passes on to it" has proxy --arg u "--upstream=http://127.0.0.1:$port/" \
	'.args | index($u)'
check "... serves https on the node's address" has proxy --arg l \
	"--secure-listen-address=[\$(NODE_IP)]:$port" '(.args | index($l)) and (.env[] |
	select(.name == "NODE_IP") | .valueFrom.fieldRef.fieldPath == "status.podIP")'
check "... /metrics only" has proxy '.args | index("--allow-paths=/metrics")'
check "... as nobody, every capability dropped" has proxy '.securityContext | .runAsNonRoot and
	.runAsUser == 65534 and .capabilities.drop == ["ALL"] and .readOnlyRootFilesystem'
check "the agent stays container 0 (overlays patch containers/0)" \
	[ "$(jq -r "$P.containers[0].name" "$T/ds.json")" = agent ]
check "liveness /healthz and readiness /readyz on the agent's loopback port" [ "$(agent | jq -c \
	'[.livenessProbe.httpGet, .readinessProbe.httpGet] | map([.host, .port, .path])')" = \
	"[[\"127.0.0.1\",$port,\"/healthz\"],[\"127.0.0.1\",$port,\"/readyz\"]]" ]
check "no token for the agent, the projected one for the proxy only" [ "$(jq -c "[$P.automountServiceAccountToken,
	[$P.containers[] | select(.volumeMounts[]?.mountPath ==
	\"/var/run/secrets/kubernetes.io/serviceaccount\") | .name]]" "$T/ds.json")" = \
	'[false,["kube-rbac-proxy"]]' ]
sa=$(jq -r "$P.serviceAccountName" "$T/ds.json")
check "ServiceAccount $sa is in base/rbac.yaml" jq -e --arg s "$sa" \
	'.[] | select(.kind == "ServiceAccount" and .metadata.name == $s)' "$T/rbac.json" > /dev/null
check "... bound to a ClusterRole that creates tokenreviews and subjectaccessreviews" [ "$(jq -c --arg s "$sa" '
	(.[] | select(.kind == "ClusterRoleBinding" and any(.subjects[]; .name == $s)) | .roleRef.name)
	as $r | [.[] | select(.kind == "ClusterRole" and .metadata.name == $r) | .rules[] |
	select(.verbs == ["create"]) | .resources[]] | sort' "$T/rbac.json")" = \
	'["subjectaccessreviews","tokenreviews"]' ]
check "the Service selects the DaemonSet's pods" same "$(jq -c .spec.selector "$T/svc.json")" \
	"$(jq -c "$P | input.spec.template.metadata.labels | with_entries(select(.key ==
	\"app.kubernetes.io/name\"))" "$T/ds.json" "$T/ds.json")"
check "... its port is the proxy's (named $(jq -r '.spec.ports[0].targetPort' "$T/svc.json"), $port)" \
	same "$(proxy | jq -c '.ports[0] | [.name, .containerPort]')" \
	"$(jq -c '.spec.ports[0] | [.targetPort, .port]' "$T/svc.json")"
check "the ServiceMonitor selects the Service, its port, https, honorLabels" [ "$(jq -c --slurpfile s \
	"$T/svc.json" '[(.spec.selector.matchLabels | to_entries | all(. as $e |
	$s[0].metadata.labels[$e.key] == $e.value)), .spec.endpoints[0].port == $s[0].spec.ports[0].name,
	.spec.endpoints[0].scheme, .spec.endpoints[0].honorLabels]' "$T/sm.json")" = '[true,true,"https",true]' ]
check "... the node's name as label node" [ "$(jq -c '.spec.endpoints[0].relabelings[] |
	select(.targetLabel == "node") | .sourceLabels' "$T/sm.json")" = '["__meta_kubernetes_pod_node_name"]' ]
check "RdmaQosAgentNotPassing watches up{job=<the Service's name>}" grep -qF \
	"up{job=\"$(jq -r .metadata.name "$T/svc.json")\"}" <<< "$(jq -r '.groups[].rules[] |
	select(.alert == "RdmaQosAgentNotPassing") | .expr' "$T/rules.json")"
finish
