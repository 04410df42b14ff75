#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# deploy/helm/rdma-qos offline, with the real Helm (4.1, tests/deploy/tools.sh): every value
# set below through `helm template` and `helm lint --strict`; every rendered document through
# k8s-check.mjs and the ConfigMap through rdma-qos validate; the DaemonSet's pod spec against
# the kustomize base's (kubectl kustomize), field by field, except the documented value-driven
# differences (docs/operations.md "Installing with Helm"); what each value does; what
# values.schema.json refuses; .Capabilities (--kube-version, --api-versions); names unique per
# release and namespace; verified TLS for the ServiceMonitor; the uninstall path.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
B=${RQ_BUILD:?}
SRC=$(cd "$HERE/../.." && pwd)
CHART=$SRC/deploy/helm/rdma-qos
T=$(mktemp -d /tmp/rq-helm.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$HERE/npm.sh"

. "$HERE/tools.sh"
LINTED=0
# render NAME [VALUES_JSON [RELEASE [NAMESPACE [HELM_ARGS...]]]]: helm template's output in
# $T/NAME.yaml, its objects as a JSON list in $T/NAME.json; the same values through helm lint
# --strict (its failure is a check's failure)
render() {
	local n=$1 rel=${3:-rdma-qos} ns=${4:-rdma-qos} v=()
	[ -z "${2:-}" ] || { printf '%s\n' "$2" > "$T/$n.values.json"; v=(-f "$T/$n.values.json"); }
	shift $(($# < 4 ? $# : 4))
	"${HELM[@]}" template "$rel" "$CHART" -n "$ns" "${v[@]}" "$@" > "$T/$n.yaml" 2> "$T/$n.err" ||
		{ fail "helm template $n: $(cat "$T/$n.err")"; : > "$T/$n.yaml"; }
	yaml_list "$T/$n.yaml" > "$T/$n.json"
	if ! "${HELM[@]}" lint --strict "$CHART" -n "$ns" "${v[@]}" > "$T/$n.lint" 2>&1; then
		fail "helm lint --strict with the values of '$n'"; cat "$T/$n.lint"
	else LINTED=$((LINTED + 1)); fi
}
obj() { jq --arg k "$2" '.[] | select(.kind == $k)' "$T/$1.json"; }
spec() { obj "$1" DaemonSet | jq -S .spec.template.spec; }
ctr() { obj "$1" DaemonSet | jq -c --arg c "$2" '.spec.template.spec | (.initContainers +
	.containers)[] | select(.name == $c)'; }
# the documented differences at the defaults: the catalog ConfigMap's name (kustomize:
# rdma-qos-catalog-<hash>; Helm: <fullname>-catalog, the pod template carrying its checksum);
# AppArmor by field alone (Kubernetes >= 1.30, Helm's default; the base has field and annotation)
NOCM='del(.volumes[] | select(.name == "config") | .configMap.name)'

echo "== the chart at its defaults"
render default
check "renders the base's kinds ($(jq -c '[.[].kind]' "$T/default.json"))" \
	same "$(jq -c '[.[].kind] | sort' "$T/default.json")" "$(kustomize "$SRC/deploy" |
	jq -c '[.[].kind | select(. != "Namespace")] | sort')"
check "Chart.yaml's version and appVersion are VERSION" [ "$(node -e 'const Y = require(
	process.argv[1]); const c = Y.parse(require("fs").readFileSync(process.argv[2], "utf8"));
	console.log(c.version + " " + c.appVersion + " " + c.apiVersion)' "$NM/yaml" \
	"$CHART/Chart.yaml")" = "$(cat "$SRC/VERSION") $(cat "$SRC/VERSION") v2" ]
out=$(node "$HERE/k8s-check.mjs" "$NM" "$T/default-json" "$T/default.yaml" 2>&1)
check "every rendered document passes k8s-check (${out##*$'\n'})" [ $? -eq 0 ] || echo "$out"
o=$("$B/rdma-qos" validate <(obj default ConfigMap) 2>&1)
check "the rendered ConfigMap passes rdma-qos validate" status_is 0 $? grep -q 'valid ConfigMap' \
	<<< "$o" || echo "   $o"
# what docs/operations.md "Installing with Helm" tells: the whole release through validate, as
# helm writes it (flow mappings over two lines in the DaemonSet, lists of mappings), the kinds it
# does not read named and skipped
o=$("${HELM[@]}" template rdma-qos "$CHART" -n rdma-qos | "$B/rdma-qos" validate /dev/stdin 2>&1)
check "helm template ... | rdma-qos validate /dev/stdin: valid, its ConfigMap read, the rest skipped by kind" \
	status_is 0 $? grep -qE '^/dev/stdin: valid .*ConfigMap, data\["profiles.json"\]: catalog.*\(skipped DaemonSet\)' \
	<<< "$o" || echo "   $o"
check "its catalog is deploy/base/profiles.json (values.yaml catalog, a map, as JSON)" same "$(obj \
	default ConfigMap | jq -r '.data["profiles.json"]' | jq -cS .)" \
	"$(jq -cS . "$SRC/deploy/base/profiles.json")"
check "the DaemonSet's config volume names it" same "$(obj default DaemonSet | jq -r '.spec.template
	.spec.volumes[] | select(.name == "config") | .configMap.name')" "$(obj default ConfigMap |
	jq -r .metadata.name)"

# the kustomize renders (k-*.json: render() writes NAME.json)
kustomize "$SRC/deploy" > "$T/k-base.json"
kustomize "$SRC/deploy/overlays/live-sync" > "$T/k-live.json"
kustomize "$SRC/deploy/overlays/nfd" > "$T/k-nfd.json"
kustomize "$SRC/deploy/overlays/cri-dockerd" > "$T/k-cri-dockerd.json"
kspec() { jq -S '.[] | select(.kind == "DaemonSet") | .spec.template.spec' "$T/k-$1.json"; }
kctr() { jq -c --arg c "$2" '.[] | select(.kind == "DaemonSet") | .spec.template.spec |
	(.initContainers + .containers)[] | select(.name == $c)' "$T/k-$1.json"; }
echo "== the DaemonSet against the kustomize base (deploy/), field by field"
for c in $(kspec base | jq -r '(.initContainers + .containers)[].name'); do
	for f in image command args securityContext volumeMounts ports resources livenessProbe \
		readinessProbe startupProbe env terminationMessagePolicy; do
		h=$(ctr default "$c" | jq -S ".$f") k=$(kctr base "$c" | jq -S ".$f")
		check "container $c: $f agrees ($(jq -c 'if type == "array" then "\(length) items"
			elif . == null then "none" else "set" end' <<< "$k"))" [ "$h" = "$k" ] ||
			diff <(echo "$k") <(echo "$h")
	done
done
check "the same containers, in the same order" same "$(spec default | jq -c '[(.initContainers +
	.containers)[].name]')" "$(kspec base | jq -c '[(.initContainers + .containers)[].name]')"
check "the same volumes (the config ConfigMap's name aside)" same "$(spec default | jq -S \
	".volumes | {volumes: .} | $NOCM")" "$(kspec base | jq -S ".volumes | {volumes: .} | $NOCM")"
check "the whole pod spec agrees (the config ConfigMap's name aside)" same "$(spec default |
	jq -S "$NOCM")" "$(kspec base | jq -S "$NOCM")" ||
	diff <(kspec base | jq -S "$NOCM") <(spec default | jq -S "$NOCM")
check "the same update strategy" same "$(obj default DaemonSet | jq -S .spec.updateStrategy)" \
	"$(jq -S '.[] | select(.kind == "DaemonSet") | .spec.updateStrategy' "$T/k-base.json")"
for k in ServiceAccount ClusterRole ClusterRoleBinding; do
	check "$k: as the base's but for names and labels" same "$(obj default $k | jq -S 'del(.metadata) |
		walk(if type == "object" and has("name") then del(.name) else . end)')" "$(jq -S --arg k $k \
		'.[] | select(.kind == $k) | del(.metadata) | walk(if type == "object" and has("name") then
		del(.name) else . end)' "$T/k-base.json")"
done
check "the pod template's annotations are the base's but AppArmor's (by field), plus the catalog checksum" \
	same "$(obj default DaemonSet | jq -S '.spec.template.metadata.annotations | del(.["rdma-qos/catalog-sha256"])')" \
	"$(jq -S '.[] | select(.kind == "DaemonSet") | .spec.template.metadata.annotations // {} |
	del(.["container.apparmor.security.beta.kubernetes.io/agent"])' "$T/k-base.json")"
check "the selector holds the base's and the release (documented)" same "$(obj default DaemonSet |
	jq -c .spec.selector.matchLabels)" "$(jq -c '.[] | select(.kind == "DaemonSet") |
	.spec.selector.matchLabels + {"app.kubernetes.io/instance": "rdma-qos"}' "$T/k-base.json")"

echo "== liveSync against the live-sync overlay"
render live '{"liveSync": true}'
check "liveSync: the pod spec is the live-sync overlay's (the config ConfigMap's name aside)" \
	same "$(spec live | jq -S "$NOCM")" "$(kspec live | jq -S "$NOCM")" ||
	diff <(kspec live | jq -S "$NOCM") <(spec live | jq -S "$NOCM")
check "... the agent takes --catalog-source" [ "$(ctr live agent | jq -r '.command |
	index("--catalog-source=/config/profiles.json") != null')" = true ]
check "... and the pod template carries no catalog checksum" [ "$(obj live DaemonSet | jq -c \
	'.spec.template.metadata.annotations // {} | has("rdma-qos/catalog-sha256")')" = false ]

echo "== criDockerd against the cri-dockerd overlay"
render cridockerd '{"criDockerd": true}'
check "criDockerd: the pod spec is the cri-dockerd overlay's (the config ConfigMap's name aside)" \
	same "$(spec cridockerd | jq -S "$NOCM")" "$(kspec cri-dockerd | jq -S "$NOCM")" ||
	diff <(kspec cri-dockerd | jq -S "$NOCM") <(spec cridockerd | jq -S "$NOCM")
check "... SYS_PTRACE for the agent only with criDockerd (off by default)" [ "$(ctr cridockerd agent |
	jq -c '.securityContext.capabilities.add')/$(ctr default agent | jq -c '.securityContext.capabilities.add')" = \
	'["NET_ADMIN","NET_RAW","SYS_ADMIN","SYS_PTRACE"]/["NET_ADMIN","NET_RAW","SYS_ADMIN"]' ]

echo "== nfd.enabled against the nfd overlay"
render nfd '{"nfd": {"enabled": true}}'
check "nfd.enabled: the pod spec is the nfd overlay's (the config ConfigMap's name aside)" \
	same "$(spec nfd | jq -S "$NOCM")" "$(kspec nfd | jq -S "$NOCM")" ||
	diff <(kspec nfd | jq -S "$NOCM") <(spec nfd | jq -S "$NOCM")
check "... the agent writes NFD's features.d/rdma-qos, mounted from the host" [ "$(ctr nfd agent | jq -c '[
	(.command | index("--nfd-features-file=/etc/kubernetes/node-feature-discovery/features.d/rdma-qos") != null),
	[.volumeMounts[] | select(.name == "nfd-features") | .mountPath]]')" = \
	'[true,["/etc/kubernetes/node-feature-discovery/features.d"]]' ]
check "... off by default: no flag, no mount" [ "$(ctr default agent | jq -c '[(.command | any(startswith(
	"--nfd-features-file"))), ([.volumeMounts[] | select(.name == "nfd-features")] | length)]')" = '[false,0]' ]
render nfddir '{"nfd": {"enabled": true, "featuresDir": "/etc/nfd/features.d"}}'
check "... nfd.featuresDir moves both" [ "$(ctr nfddir agent | jq -c '[(.command | index(
	"--nfd-features-file=/etc/nfd/features.d/rdma-qos") != null), [.volumeMounts[] |
	select(.name == "nfd-features") | .mountPath]]')" = '[true,["/etc/nfd/features.d"]]' ]

echo "== agent.hostPID against the host-pid overlay (host-network pods on a shared RDMA device)"
kustomize "$SRC/deploy/overlays/host-pid" > "$T/k-host-pid.json"
render hostpid '{"agent": {"hostPID": true}}'
check "agent.hostPID: the pod spec is the host-pid overlay's (the config ConfigMap's name aside)" \
	same "$(spec hostpid | jq -S "$NOCM")" "$(kspec host-pid | jq -S "$NOCM")" ||
	diff <(kspec host-pid | jq -S "$NOCM") <(spec hostpid | jq -S "$NOCM")
check "... hostPID on the DaemonSet's pod only with it (off by default, as in the base)" \
	[ "$(spec hostpid | jq -c .hostPID)/$(spec default | jq -c .hostPID)/$(kspec base | jq -c .hostPID)" = \
	"true/null/null" ]
check "... and nothing else in the pod spec" same "$(spec hostpid | jq -S 'del(.hostPID)')" "$(spec default)"
out=$(node "$HERE/k8s-check.mjs" "$NM" "$T/hostpid-json" "$T/hostpid.yaml" 2>&1)
check "... the render passes k8s-check (${out##*$'\n'})" [ $? -eq 0 ] || echo "$out"
render hostpidocp '{"agent": {"hostPID": true}, "openshift": {"scc": true}}'
render ocpscc '{"openshift": {"scc": true}}'
out=$(scc_admit "$T/hostpidocp.json")
check "... with openshift.scc its SCC admits the hostPID pod (scc.jq)" [ -z "$out" ] || echo "   $out"
check "... the SCC allows hostPID only with agent.hostPID" [ "$(obj hostpidocp SecurityContextConstraints |
	jq -c .allowHostPID)/$(obj ocpscc SecurityContextConstraints | jq -c .allowHostPID)" = "true/false" ]
jq '[.[] | if .kind == "DaemonSet" then .spec.template.spec.hostPID = true else . end]' "$T/ocpscc.json" \
	> "$T/ocpscc-forced.json"
check "... (scc.jq refuses hostPID under the default SCC: the check can fail)" \
	grep -q 'hostPID' <<< "$(scc_admit "$T/ocpscc-forced.json")"
echo "== sharedResources: the catalog's node.sharedResources"
render shres '{"sharedResources": {"rdma/hca_shared_devices_a": ["ens1f0np0"]}}'
check "sharedResources: the catalog's node.sharedResources, the rest of node kept" [ "$(obj shres ConfigMap |
	jq -c '.data["profiles.json"] | fromjson | .node')" = \
	'{"pf":"ensure","sharedResources":{"rdma/hca_shared_devices_a":["ens1f0np0"]},"unchained":"report"}' ]
o=$("$B/rdma-qos" validate <(obj shres ConfigMap) 2>&1)
check "... which rdma-qos validate accepts" status_is 0 $? grep -q 'valid ConfigMap' <<< "$o" || echo "   $o"
check "... absent by default" [ "$(obj default ConfigMap | jq -c '.data["profiles.json"] | fromjson |
	.node | has("sharedResources")')" = false ]

echo "== a catalog edit"
cat2=$(jq '.node.pf = "verify"' "$SRC/deploy/base/profiles.json")
render edit "$(jq -n --argjson c "$cat2" '{catalog: $c}')"
sum() { obj "$1" DaemonSet | jq -r '.spec.template.metadata.annotations["rdma-qos/catalog-sha256"]'; }
check "the pod template's checksum is the catalog's sha256" same "$(sum default)" "$(jq -j \
	'.data["profiles.json"] | rtrimstr("\n")' <<< "$(obj default ConfigMap)" | sha256sum | cut -d' ' -f1)"
check "an edit changes it to the new catalog's (the DaemonSet rolls at maxUnavailable)" \
	same "$(sum edit)" "$(jq -cjS . <<< "$cat2" | sha256sum | cut -d' ' -f1)"
check "... which differs from the old" [ "$(sum edit)" != "$(sum default)" ]
check "... and nothing else in the pod template" same "$(obj edit DaemonSet | jq -S \
	'del(.spec.template.metadata.annotations)')" "$(obj default DaemonSet | jq -S \
	'del(.spec.template.metadata.annotations)')"
render editlive "$(jq -n --argjson c "$cat2" '{catalog: $c, liveSync: true}')"
check "with liveSync an edit leaves the pod template alone (every node at once)" \
	same "$(obj editlive DaemonSet | jq -S .spec.template)" "$(obj live DaemonSet | jq -S .spec.template)"
render bad '{"catalog": {"node": {"pf": "always"}}}'
o=$("$B/rdma-qos" validate <(obj bad ConfigMap) 2>&1)
check "a bad catalog value renders a ConfigMap that rdma-qos validate refuses (as the init container would)" \
	status_is 1 $? grep -qF 'data["profiles.json"].node.pf' <<< "$o" || echo "   $o"
o=$("${HELM[@]}" template rdma-qos "$CHART" -n rdma-qos -f "$T/bad.values.json" --set-json \
	'catalog.node.wirring=[]' | "$B/rdma-qos" validate /dev/stdin 2>&1)
check "... through the pipe: both errors, by document and path, in one run" status_is 1 $? same \
	"$(grep -cE '^/dev/stdin: document 2: data\["profiles.json"\]\.node\.(pf: expected one of|wirring: unknown key \(did you mean "wiring"\?\))' \
	<<< "$o")" 2 || echo "   $o"

echo "== values"
render ocp '{"cniBinDir": "/var/lib/cni/bin"}'
check "cniBinDir /var/lib/cni/bin (OpenShift): the cni-bin host path" [ "$(spec ocp | jq -r \
	'.volumes[] | select(.name == "cni-bin") | .hostPath.path')" = /var/lib/cni/bin ]
check "... and nothing else in the pod spec" same "$(spec ocp | jq -S 'del(.volumes[] |
	select(.name == "cni-bin"))')" "$(spec default | jq -S 'del(.volumes[] | select(.name ==
	"cni-bin"))')"
render scc '{"openshift": {"scc": true}, "cniBinDir": "/var/lib/cni/bin"}'
check "openshift.scc: a SecurityContextConstraints for the release's service account" [ "$(obj scc \
	SecurityContextConstraints | jq -c '[.users, .allowedCapabilities, .allowHostNetwork]')" = \
	'[["system:serviceaccount:rdma-qos:rdma-qos"],["NET_ADMIN","NET_RAW","SYS_ADMIN"],true]' ]
check "... admitting every volume type the pod uses" [ "$(spec scc | jq -c --argjson t "$(obj scc \
	SecurityContextConstraints | jq -c .volumes)" '[.volumes[] | keys_unsorted[] | select(. != "name")]
	| unique | map(select(. as $v | $t | index($v) | not))')" = '[]' ]
check "... and the install container spc_t" [ "$(ctr scc install | jq -r \
	.securityContext.seLinuxOptions.type)" = spc_t ]
kustomize "$SRC/deploy/overlays/openshift" > "$T/k-ocp.json"
check "... the same SCC as deploy/overlays/openshift's (metadata aside; secret only with verified TLS)" same "$(obj \
	scc SecurityContextConstraints | jq -S -c 'del(.metadata)')" "$(jq -S -c '.[] | select(.kind ==
	"SecurityContextConstraints") | del(.metadata) | .volumes -= ["secret"]' "$T/k-ocp.json")"
check "... under another name, cluster-scoped: <namespace>-<fullname> ($(obj scc SecurityContextConstraints |
	jq -r .metadata.name))" [ "$(obj scc SecurityContextConstraints | jq -r .metadata.name)" = rdma-qos-rdma-qos ]
check "... and the same pod spec as that overlay (the config ConfigMap's name aside)" same "$(spec scc |
	jq -S "$NOCM")" "$(jq -S '.[] | select(.kind == "DaemonSet") | .spec.template.spec' "$T/k-ocp.json" |
	jq -S "$NOCM")"
if jq -e '.kinds["security.openshift.io/v1/SecurityContextConstraints"]' "$HERE/crd-keys.json" > /dev/null; then
	out=$(node "$HERE/k8s-check.mjs" "$NM" "$T/scc-json" "$T/scc.yaml" 2>&1)
	check "... which passes k8s-check (${out##*$'\n'})" [ $? -eq 0 ] || echo "$out"
fi
render ns '{"namespace": {"create": true}}' rq net-qos
check "namespace.create: a Namespace named for the release's, Pod Security privileged" [ "$(obj ns \
	Namespace | jq -c '[.metadata.name, .metadata.labels["pod-security.kubernetes.io/enforce"]]')" = \
	'["net-qos","privileged"]' ]
check "... every namespaced object in it, named for the release" [ "$(jq -c '[.[] |
	select(.metadata.namespace != null) | [.kind, .metadata.namespace, .metadata.name]] | sort' \
	"$T/ns.json")" = '[["ConfigMap","net-qos","rq-rdma-qos-catalog"],["DaemonSet","net-qos","rq-rdma-qos"],["ServiceAccount","net-qos","rq-rdma-qos"]]' ]
check "... the DaemonSet runs as that ServiceAccount, the ClusterRoleBinding names it" [ "$(spec ns |
	jq -r .serviceAccountName) $(obj ns ClusterRoleBinding | jq -r '.subjects[0] | .namespace + "/" +
	.name')" = "rq-rdma-qos net-qos/rq-rdma-qos" ]
check "... the config volume follows the ConfigMap's name" [ "$(spec ns | jq -r '.volumes[] |
	select(.name == "config") | .configMap.name')" = rq-rdma-qos-catalog ]
render sched '{"nodeSelector": {"rdma-qos/pool": "gpu-a"}, "tolerations": [],
	"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
	{"nodeSelectorTerms": [{"matchExpressions": [{"key": "gpu", "operator": "Exists"}]}]}}},
	"updateStrategy": {"maxUnavailable": 1}, "image": {"pullPolicy": "Always"}}'
check "nodeSelector replaced (helm -f merges maps: the os key stays)" [ "$(spec sched | jq -c \
	.nodeSelector)" = '{"kubernetes.io/os":"linux","rdma-qos/pool":"gpu-a"}' ]
check "tolerations: [] renders none" [ "$(spec sched | jq -c '.tolerations // "none"')" = '"none"' ]
check "affinity rendered" [ "$(spec sched | jq -r '.affinity.nodeAffinity
	.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key')" = gpu ]
check "updateStrategy.maxUnavailable 1" [ "$(obj sched DaemonSet | jq -c \
	.spec.updateStrategy.rollingUpdate.maxUnavailable)" = 1 ]
check "image.tag empty: the chart's appVersion (VERSION)" [ "$(spec default | jq -c '[(.initContainers +
	.containers)[] | select(.name != "kube-rbac-proxy").image] | unique')" = \
	"[\"registry.example.com/rdma-qos:$(cat "$SRC/VERSION")\"]" ]
render tag '{"image": {"tag": "9.9.9"}}'
check "image.tag set: that tag on both containers" [ "$(spec tag | jq -c '[(.initContainers +
	.containers)[] | select(.name != "kube-rbac-proxy").image] | unique')" = \
	'["registry.example.com/rdma-qos:9.9.9"]' ]
check "image.pullPolicy on both containers" [ "$(spec sched | jq -c '[(.initContainers +
	.containers)[] | select(.name != "kube-rbac-proxy").imagePullPolicy] | unique')" = '["Always"]' ]
out=$(node "$HERE/k8s-check.mjs" "$NM" "$T/sched-json" "$T/sched.yaml" "$T/ns.yaml" 2>&1)
check "... those renders pass k8s-check (${out##*$'\n'})" [ $? -eq 0 ] || echo "$out"
SM=(-a monitoring.coreos.com/v1/ServiceMonitor) # a cluster that serves ServiceMonitor
render mon '{"metrics": {"textfile": {"enabled": false}, "serviceMonitor": {"enabled": true},
	"tls": {"certManager": {"enabled": true}}}}' rdma-qos rdma-qos "${SM[@]}"
check "metrics.textfile.enabled false: no --metrics-file, no textfile mount or volume" [ "$(spec mon |
	jq -c '[(.containers[0].command[] | select(startswith("--metrics-file"))),
	(.containers[0].volumeMounts[], .volumes[] | select(.name == "textfile"))]')" = '[]' ]
check "metrics.serviceMonitor: a headless Service and a ServiceMonitor, https through the proxy, honorLabels" \
	[ "$(obj mon ServiceMonitor | jq -c '[.spec.endpoints[0] | .port, .scheme, .honorLabels]') $(obj mon \
	Service | jq -r .spec.clusterIP)" = '["metrics","https",true] None' ]
check "... the Service selects the DaemonSet's pods" same "$(obj mon Service | jq -S .spec.selector)" \
	"$(obj mon DaemonSet | jq -S .spec.selector.matchLabels)"
check "... the ServiceMonitor selects the Service" [ "$(obj mon ServiceMonitor | jq -r --argjson l \
	"$(obj mon Service | jq -c .metadata.labels)" '.spec.selector.matchLabels | to_entries |
	all(.value == $l[.key])')" = true ]
render noproxy '{"metrics": {"kubeRbacProxy": {"enabled": false}, "listen": {"address": "10.0.0.1"},
	"serviceMonitor": {"enabled": true}}}' rdma-qos rdma-qos "${SM[@]}"
check "kubeRbacProxy off: no sidecar, no token volume, the agent's own port named metrics" [ "$(spec noproxy |
	jq -c '[[.containers[].name], [.volumes[].name | select(startswith("kube-rbac"))],
	(.containers[0].ports[0] | .name, .containerPort)]')" = '[["agent"],[],"metrics",9474]' ]
check "... --listen on the address given, probes there" [ "$(ctr noproxy agent | jq -c '[(.command[] |
	select(startswith("--listen"))), .livenessProbe.httpGet.host]')" = '["--listen=10.0.0.1:9474","10.0.0.1"]' ]
check "... the ServiceMonitor scrapes plain http" [ "$(obj noproxy ServiceMonitor | jq -r \
	'.spec.endpoints[0].scheme')" = http ]
check "... and no ClusterRole for it" [ -z "$(obj noproxy ClusterRole)" ]
render nolisten '{"metrics": {"kubeRbacProxy": {"enabled": false}, "listen": {"address": ""}}}'
check "listen.address empty: no --listen, no probes" [ "$(ctr nolisten agent | jq -c '[(.command[] |
	select(startswith("--listen"))), .livenessProbe, .readinessProbe] | map(select(. != null))')" = '[]' ]
out=$(node "$HERE/k8s-check.mjs" "$NM" "$T/mon-json" "$T/mon.yaml" "$T/noproxy.yaml" 2>&1)
check "... those renders pass k8s-check (${out##*$'\n'})" [ $? -eq 0 ] || echo "$out"
check "the default render has no ServiceMonitor" [ -z "$(obj default ServiceMonitor)" ]
PR=(-a monitoring.coreos.com/v1/PrometheusRule "${SM[@]}")
render kps '{"metrics": {"serviceMonitor": {"enabled": true}, "prometheusRule": {"enabled": true},
	"release": "kube-prometheus-stack", "tls": {"certManager": {"enabled": true}}}}' rdma-qos rdma-qos \
	"${PR[@]}"
check "metrics.release: label release on the ServiceMonitor and the PrometheusRule (kube-prometheus-stack)" \
	[ "$(jq -c '[.[] | select(.kind == "ServiceMonitor" or .kind == "PrometheusRule") |
	.metadata.labels.release]' "$T/kps.json")" = '["kube-prometheus-stack","kube-prometheus-stack"]' ]
render kpsoff '{"metrics": {"serviceMonitor": {"enabled": true}, "prometheusRule": {"enabled": true},
	"tls": {"certManager": {"enabled": true}}}}' rdma-qos rdma-qos "${PR[@]}"
check "... unset: neither carries a release label" [ "$(jq -c '[.[] | select(.kind == "ServiceMonitor" or
	.kind == "PrometheusRule") | .metadata.labels.release]' "$T/kpsoff.json")" = '[null,null]' ]

echo "== README.md's install lines"
# step 2's SR-IOV nodeSelector, verbatim: the DaemonSet's pods stay off nodes without SR-IOV
sel=$(sed -n "s/.*--set-string '\([^']*network-sriov[^']*\)'.*/\1/p" "$SRC/README.md" | head -1)
render readmesel '' rdma-qos rdma-qos --set-string "$sel"
check "README's nodeSelector ($sel): the pods select SR-IOV Linux nodes" same "$(spec readmesel |
	jq -c .nodeSelector)" '{"feature.node.kubernetes.io/network-sriov.capable":"true","kubernetes.io/os":"linux"}'
o=$("${HELM[@]}" install rdma-qos "$CHART" -n rdma-qos --dry-run=client 2>&1)
check "NOTES.txt: the installer's log of every node by the release's pods, not logs ds/ (one arbitrary pod)" \
	[ "$(grep -c 'logs -l app.kubernetes.io/instance=rdma-qos -c install --prefix' <<< "$o"):$(grep -c 'logs ds/' <<< "$o")" = 1:0 ]
check "... and one node's, by spec.nodeName" grep -q 'get pod -o name -l app.kubernetes.io/instance=rdma-qos --field-selector spec.nodeName=NODE' <<< "$o"

echo "== one release per node pool"
render poolbase '{"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
	{"nodeSelectorTerms": [{"matchExpressions": [{"key": "rdma-qos/pool",
	"operator": "DoesNotExist"}]}]}}}}'
render poola '{"nodeSelector": {"rdma-qos/pool": "gpu-a"}}' rdma-qos-gpu-a rdma-qos
lands() { [ "$(obj "$1" DaemonSet | jq --argjson labels "$2" -f "$HERE/nodes.jq")" = true ]; }
pools() { # LABELS: the releases whose pods land on such a node
	local r out=()
	for r in poolbase poola; do lands "$r" "$1" && out+=("$r"); done
	echo "${out[*]}"
}
OS='"kubernetes.io/os": "linux"'
check "a node in no pool: the base release only" [ "$(pools "{$OS}")" = poolbase ]
check "a gpu-a node: the gpu-a release only" [ "$(pools "{$OS, \"rdma-qos/pool\": \"gpu-a\"}")" = poola ]
check "no object of one release has the name of the other's ($(jq length "$T/poola.json") each)" \
	same "$(jq -s -c '[.[][] | [.kind, .metadata.name]] | unique | length' "$T/poolbase.json" \
	"$T/poola.json")" "$(jq -s '[.[][]] | length' "$T/poolbase.json" "$T/poola.json")"
check "... and selectors" [ "$(obj poolbase DaemonSet | jq -c .spec.selector)" != \
	"$(obj poola DaemonSet | jq -c .spec.selector)" ]

. "$HERE/helm-chart.sh"
finish
