# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Sourced by tests/deploy/helm.sh (its render, obj, spec, ctr, kustomize): the chart's
# conventions (#32): values.schema.json, labels and names, .Capabilities, the monitoring
# objects from deploy/monitoring's files, verified TLS for the scrape, the uninstall path.

echo "== values.schema.json refuses what the chart would misread"
refused() { # DESC WANT HELM_ARGS...: helm template and helm lint --strict both refuse, naming WANT
	local d=$1 want=$2 o1 r1 r2
	shift 2
	o1=$("${HELM[@]}" template rdma-qos "$CHART" "$@" 2>&1); r1=$?
	"${HELM[@]}" lint --strict "$CHART" "$@" > /dev/null 2>&1; r2=$?
	check "$d: refused by helm template and helm lint --strict" status_is 1 "$([ $r1 -ne 0 ] && [ $r2 -ne 0 ] &&
		echo 1)" grep -qF -- "$want" <<< "$o1" || echo "   template rc $r1, lint rc $r2: $o1"
}
refused 'liveSync: "false" (a string that would turn live sync on)' "at '/liveSync': got string, want boolean" \
	--set-string liveSync=false
refused 'criDockerd: "false" (a string that would grant SYS_PTRACE)' "at '/criDockerd': got string, want boolean" \
	--set-string criDockerd=false
refused 'agent.hostPID: "false" (a string that would put the agent in the host PID namespace)' \
	"at '/agent/hostPID': got string, want boolean" --set-string agent.hostPID=false
refused 'sharedResources: a resource without its prefix' "invalid propertyName 'hca_shared_devices_a'" \
	--set-json 'sharedResources={"hca_shared_devices_a":["ens1f0np0"]}'
refused 'sharedResources: a PF name, not a list' "/sharedResources" \
	--set-json 'sharedResources={"rdma/hca_shared_devices_a":"ens1f0np0"}'
refused 'unchained: "Adopt" (node.unchained is lower case)' "/unchained" --set unchained=Adopt
refused 'wiring: a glob with an unclosed class' "/wiring/0/partner" --set 'wiring[0].pf=ens1f0' \
	--set 'wiring[0].partner=leaf-r1-[' --set 'wiring[0].rail=r1'
refused 'wiring: a rule without rail' "/wiring/0" --set 'wiring[0].pf=ens1f0' --set 'wiring[0].partner=x'
refused "a misspelt key (liveSnc)" "additional properties 'liveSnc' not allowed" --set liveSnc=true
refused "a misspelt nested key (metrics.serviceMonitor.enable)" "'enable' not allowed" \
	--set metrics.serviceMonitor.enable=true
refused "the catalog as a string (the old format)" "at '/catalog': got string, want object" \
	--set-string catalog=x
refused "updateStrategy.maxUnavailable 10 % (not a count or a percentage)" "/updateStrategy/maxUnavailable" \
	--set-string updateStrategy.maxUnavailable='10 %'

echo "== the catalog as a map"
render nullkey '{"catalog": {"namespaces": {"ai-training": null}}}'
check "a catalog key set to null is removed, as Helm merges values (the ai-training namespace)" [ "$(obj nullkey \
	ConfigMap | jq -r '.data["profiles.json"] | fromjson | .namespaces | keys | join(" ")')" = '*' ]
render kdir '{"kubeletDir": "/var/lib/k0s/kubelet", "imagePullSecrets": [{"name": "regcred"}]}'
check "kubeletDir: the catalog's node.kubeletDir (the plugin's), the rest of node kept" [ "$(obj kdir ConfigMap |
	jq -c '.data["profiles.json"] | fromjson | .node')" = '{"kubeletDir":"/var/lib/k0s/kubelet","pf":"ensure","unchained":"report"}' ]
o=$("$B/rdma-qos" validate <(obj kdir ConfigMap) 2>&1)
check "... which rdma-qos validate accepts" status_is 0 $? grep -q 'valid ConfigMap' <<< "$o" || echo "   $o"
check "... and of kubelet's directory only its pod-resources/ is mounted, read-only, where kubeletDir says" \
	[ "$(spec kdir | jq -c '[.volumes[] | select(.hostPath.path // "" | test("kubelet")) | .hostPath.path]')/$(
	spec kdir | jq -c '[.containers[] | select(.name == "agent") | .volumeMounts[] |
	select(.name == "pod-resources") | [.mountPath, .readOnly]]')" = \
	'["/var/lib/k0s/kubelet/pod-resources"]/[["/var/lib/k0s/kubelet/pod-resources",true]]' ]
render unch '{"unchained": "adopt"}'
check "unchained: the catalog's node.unchained, the rest of node kept" [ "$(obj unch ConfigMap |
	jq -c '.data["profiles.json"] | fromjson | .node')" = '{"pf":"ensure","unchained":"adopt"}' ]
o=$("$B/rdma-qos" validate <(obj unch ConfigMap) 2>&1)
check "... which rdma-qos validate accepts" status_is 0 $? grep -q 'valid ConfigMap' <<< "$o" || echo "   $o"
check "... the default mounts /var/lib/kubelet/pod-resources" [ "$(spec unch | jq -r '.volumes[] |
	select(.name == "pod-resources") | .hostPath.path')" = /var/lib/kubelet/pod-resources ]
render unchcat '{"catalog": {"node": {"unchained": "ignore"}}}'
check "catalog.node.unchained set directly is rendered as it is" [ "$(obj unchcat ConfigMap |
	jq -r '.data["profiles.json"] | fromjson | .node.unchained')" = ignore ]
render wir '{"wiring": [{"pf": "ens1f0", "partner": "leaf-r1-*", "port": "swp[1-9]", "rail": "r1"}]}'
check "wiring: the catalog's node.wiring, the rest of node kept" [ "$(obj wir ConfigMap |
	jq -c '.data["profiles.json"] | fromjson | .node')" = \
	'{"pf":"ensure","unchained":"report","wiring":[{"partner":"leaf-r1-*","pf":"ens1f0","port":"swp[1-9]","rail":"r1"}]}' ]
o=$("$B/rdma-qos" validate <(obj wir ConfigMap) 2>&1)
check "... which rdma-qos validate accepts" status_is 0 $? grep -q 'valid ConfigMap' <<< "$o" || echo "   $o"
check "imagePullSecrets on the DaemonSet's pod" [ "$(spec kdir | jq -c .imagePullSecrets)" = '[{"name":"regcred"}]' ]

echo "== labels and names"
check "every object has helm.sh/chart and app.kubernetes.io/{name,instance,version,managed-by}" [ "$(jq -c \
	--arg v "$(cat "$SRC/VERSION")" '[.[] | .metadata.labels | [.["helm.sh/chart"], .["app.kubernetes.io/name"],
	.["app.kubernetes.io/instance"], .["app.kubernetes.io/version"], .["app.kubernetes.io/managed-by"]]] |
	unique' "$T/mon.json")" = "[[\"rdma-qos-$(cat "$SRC/VERSION")\",\"rdma-qos\",\"rdma-qos\",\"$(cat \
	"$SRC/VERSION")\",\"Helm\"]]" ]
check "the fullname: the release's when it holds the chart's name, else <release>-rdma-qos" [ "$(obj \
	default DaemonSet | jq -r .metadata.name) $(obj ns DaemonSet | jq -r .metadata.name)" = "rdma-qos rq-rdma-qos" ]
args2=('{"openshift": {"scc": true}, "metrics": {"serviceMonitor": {"enabled": true}, "tls": {"certManager":
	{"enabled": true}}}}' x)
render twoa "${args2[0]}" x team-a "${SM[@]}"
render twob "${args2[0]}" x team-b "${SM[@]}"
cluster='[.[] | select(.kind | IN("ClusterRole", "ClusterRoleBinding", "SecurityContextConstraints", "Namespace")) |
	.kind + "/" + .metadata.name]'
check "release x in namespaces team-a and team-b: no cluster-scoped name in common ($(jq -c "$cluster" \
	"$T/twoa.json"))" [ "$(jq -s -c "[.[] | $cluster] | .[0] - (.[0] - .[1])" "$T/twoa.json" "$T/twob.json")" = '[]' ]
kustomize "$SRC/deploy/overlays/openshift" > "$T/k-ocp2.json"
kustomize "$SRC/deploy/monitoring" > "$T/k-mon.json"
render kbase '{"openshift": {"scc": true}, "metrics": {"serviceMonitor": {"enabled": true}, "tls":
	{"certManager": {"enabled": true}}}}' rdma-qos rdma-qos "${SM[@]}"
check "... nor with the kustomize base, openshift and monitoring's (release rdma-qos in rdma-qos)" [ "$(jq -s -c \
	"[.[] | $cluster] | .[0] - (.[0] - (.[1] + .[2]))" "$T/kbase.json" "$T/k-ocp2.json" "$T/k-mon.json")" = '[]' ]
check "Chart.yaml has kubeVersion" [ -n "$(yaml_list "$CHART/Chart.yaml" | jq -r '.[0].kubeVersion // empty')" ]
o=$("${HELM[@]}" template rdma-qos "$CHART" --kube-version 1.20.0 2>&1)
check "... which refuses Kubernetes 1.20" status_is 1 $? grep -q 'kubeVersion' <<< "$o" || echo "   $o"

echo "== AppArmor by .Capabilities.KubeVersion"
render k129 '' rdma-qos rdma-qos --kube-version 1.29.4
render k130 '' rdma-qos rdma-qos --kube-version 1.30.0
aa() { obj "$1" DaemonSet | jq -c '[(.spec.template.spec.containers[] | select(.name == "agent") |
	.securityContext.appArmorProfile), .spec.template.metadata.annotations["container.apparmor.security.beta.kubernetes.io/agent"]]'; }
check "Kubernetes 1.29: the annotation alone" [ "$(aa k129)" = '[null,"unconfined"]' ]
check "Kubernetes 1.30: the field alone" [ "$(aa k130)" = '[{"type":"Unconfined"},null]' ]
out=$(node "$HERE/k8s-check.mjs" "$NM" "$T/k129-json" "$T/k129.yaml" "$T/kdir.yaml" 2>&1)
check "... those renders pass k8s-check (${out##*$'\n'})" [ $? -eq 0 ] || echo "$out"

echo "== monitoring objects only where their CRDs are served"
render monnocrd '{"metrics": {"serviceMonitor": {"enabled": true}, "prometheusRule": {"enabled": true},
	"tls": {"certManager": {"enabled": true}}}}'
check "no monitoring.coreos.com API: no ServiceMonitor, no PrometheusRule (the Service stays)" [ "$(jq -c \
	'[.[].kind | select(IN("ServiceMonitor", "PrometheusRule", "Service"))]' "$T/monnocrd.json")" = '["Service"]' ]
o=$("${HELM[@]}" install rdma-qos "$CHART" --dry-run=client -f "$T/monnocrd.values.json" 2>&1)
check "... and NOTES.txt says so" grep -q 'WARNING: metrics.serviceMonitor.enabled, but this cluster serves no' <<< "$o"
render monall '{"metrics": {"serviceMonitor": {"enabled": true}, "prometheusRule": {"enabled": true},
	"dashboard": {"enabled": true}, "tls": {"certManager": {"enabled": true}}}}' rdma-qos rdma-qos "${SM[@]}" \
	-a monitoring.coreos.com/v1/PrometheusRule
check "chart files/prometheusrule.yaml and dashboard.json are deploy/monitoring's" \
	cmp -s "$CHART/files/prometheusrule.yaml" "$SRC/deploy/monitoring/prometheusrule.yaml"
check "... and chart files/dashboard.json is deploy/monitoring's" cmp -s "$CHART/files/dashboard.json" "$SRC/deploy/monitoring/dashboard.json"
check "the PrometheusRule's spec is deploy/monitoring's" same "$(obj monall PrometheusRule | jq -S .spec)" \
	"$(jq -S '.[] | select(.kind == "PrometheusRule") | .spec' "$T/k-mon.json")"
check "the dashboard ConfigMap holds dashboard.json, labelled grafana_dashboard" [ "$(jq -c '.[] | select(.kind ==
	"ConfigMap" and .data["dashboard.json"]) | [(.data["dashboard.json"] | fromjson == $d[0]),
	.metadata.labels.grafana_dashboard]' --slurpfile d "$SRC/deploy/monitoring/dashboard.json" "$T/monall.json")" = '[true,"1"]' ]
check "the ServiceMonitor sets job rdma-qos-agent (what the alerts watch)" [ "$(obj monall ServiceMonitor | jq -c \
	'[.spec.endpoints[0].relabelings[] | select(.targetLabel == "job") | .replacement]')" = '["rdma-qos-agent"]' ]
out=$(node "$HERE/k8s-check.mjs" "$NM" "$T/monall-json" "$T/monall.yaml" 2>&1)
check "... the render passes k8s-check, prometheus-operator's models included (${out##*$'\n'})" [ $? -eq 0 ] || echo "$out"

echo "== verified scrape (kube-rbac-proxy's certificate, authorization from a Secret)"
sm() { obj "$1" ServiceMonitor | jq -c ".spec.endpoints[0] | $2"; }
check "no insecureSkipVerify, no bearerTokenFile in any rendered object" \
	[ -z "$(grep -E 'insecureSkipVerify|bearerTokenFile' "$T/monall.json")" ]
check "tlsConfig.serverName is the metrics Service's DNS name" [ "$(sm monall .tlsConfig.serverName)" = \
	"\"$(obj monall Service | jq -r .metadata.name).rdma-qos.svc\"" ]
check "... a name of the cert-manager serving Certificate" [ "$(jq -c --argjson s "$(sm monall .tlsConfig.serverName)" \
	'[.[] | select(.kind == "Certificate" and (.spec.isCA | not)) | .spec.dnsNames | index($s) != null]' \
	"$T/monall.json")" = '[true]' ]
tlssec=$(obj monall Certificate | jq -rs '.[] | select(.spec.isCA | not) | .spec.secretName')
check "... its CA from that Certificate's Secret ($tlssec, ca.crt), issued by a CA Issuer" [ "$(sm monall \
	.tlsConfig.ca.secret)" = "{\"name\":\"$tlssec\",\"key\":\"ca.crt\"}" ]
check "... the CA Issuer's secret is the CA Certificate's" same "$(obj monall Issuer |
	jq -rs '[.[] | select(.spec.ca) | .spec.ca.secretName] | .[0]')" "$(obj monall Certificate | jq -rs \
	'.[] | select(.spec.isCA) | .spec.secretName')"
check "kube-rbac-proxy serves that Secret's certificate" [ "$(ctr monall kube-rbac-proxy | jq -c '[(.args[] |
	select(startswith("--tls-"))), (.volumeMounts[] | select(.name == "kube-rbac-proxy-tls") | .mountPath)]') $(spec \
	monall | jq -r '.volumes[] | select(.name == "kube-rbac-proxy-tls") | .secret.secretName')" = \
	'["--tls-cert-file=/etc/kube-rbac-proxy/tls/tls.crt","--tls-private-key-file=/etc/kube-rbac-proxy/tls/tls.key","/etc/kube-rbac-proxy/tls"] '"$tlssec" ]
tok=$(sm monall .authorization.credentials.name | tr -d '"')
sa=$(obj monall Secret | jq -r --arg t "$tok" 'select(.metadata.name == $t and .type ==
	"kubernetes.io/service-account-token") | .metadata.annotations["kubernetes.io/service-account.name"]')
check "authorization: Bearer, from the token Secret of a ServiceAccount of the release ($tok: $sa)" [ "$(sm monall \
	.authorization.type)" = '"Bearer"' ]
check "... a token ServiceAccount named ($sa)" [ -n "$sa" ]
check "... that ServiceAccount is in the release" [ "$(obj monall ServiceAccount | jq -rs --arg s "$sa" \
	'[.[] | select(.metadata.name == $s)] | length')" = 1 ]
check "... bound to a ClusterRole that may get /metrics (kube-rbac-proxy's SubjectAccessReview)" [ "$(jq -r \
	--arg s "$sa" '[.[] | select(.kind == "ClusterRoleBinding" and .subjects[0].name == $s) | .roleRef.name] as $r |
	.[] | select(.kind == "ClusterRole" and (.metadata.name | IN($r[]))) | .rules[] |
	select(.nonResourceURLs == ["/metrics"]) | .verbs[]' "$T/monall.json")" = get ]
o=$("${HELM[@]}" template rdma-qos "$CHART" --set metrics.serviceMonitor.enabled=true "${SM[@]}" 2>&1)
check "a ServiceMonitor without a certificate source is refused (no unverified scrape)" status_is 1 $? \
	grep -q 'Prometheus verifies kube-rbac-proxy' <<< "$o"
render tlsown '{"metrics": {"serviceMonitor": {"enabled": true}, "tls": {"secretName": "rq-serving",
	"ca": {"configMap": {"name": "openshift-service-ca.crt", "key": "service-ca.crt"}}}, "service":
	{"annotations": {"service.beta.openshift.io/serving-cert-secret-name": "rq-serving"}}}}' rdma-qos rdma-qos "${SM[@]}"
check "a Secret of one's own (OpenShift's service CA): mounted, the CA from the ConfigMap, no cert-manager" [ "$(spec \
	tlsown | jq -r '.volumes[] | select(.name == "kube-rbac-proxy-tls") | .secret.secretName') $(sm tlsown \
	.tlsConfig.ca.configMap.name) $(jq '[.[] | select(.kind == "Certificate")] | length' "$T/tlsown.json")" = \
	'rq-serving "openshift-service-ca.crt" 0' ]

echo "== uninstall: true, the Helm way to remove rdma-qos"
render un '{"uninstall": true, "imagePullSecrets": [{"name": "regcred"}]}'
check "renders the cleanup DaemonSet and the service account it runs as (no agent, no catalog)" [ "$(jq -c \
	'[.[] | .kind + "/" + .metadata.name]' "$T/un.json")" = '["ServiceAccount/rdma-qos","DaemonSet/rdma-qos-uninstall"]' ]
check "... which the DaemonSet names" [ "$(obj un DaemonSet | jq -r .spec.template.spec.serviceAccountName)" = rdma-qos ]
kustomize "$SRC/deploy/uninstall" > "$T/k-un.json"
check "... its pod spec is deploy/uninstall's (image, imagePullSecrets, service account's name aside)" same "$(obj un \
	DaemonSet | jq -S '.spec.template.spec | del(.imagePullSecrets, .serviceAccountName) |
	del(.initContainers[0].image)')" "$(jq -S '.[] | select(.kind == "DaemonSet") | .spec.template.spec |
	del(.serviceAccountName) | del(.initContainers[0].image)' "$T/k-un.json")"
check "... the image the release ran" same "$(obj un DaemonSet | jq -r '.spec.template.spec.initContainers[0].image')" \
	"$(ctr default install | jq -r .image)"
check "... a selector of its own (not the agent's pods)" [ "$(obj un DaemonSet | jq -cS .spec.selector.matchLabels)" = \
	'{"app.kubernetes.io/instance":"rdma-qos","app.kubernetes.io/name":"rdma-qos-uninstall"}' ]
render unocp '{"uninstall": true, "cniBinDir": "/var/lib/cni/bin", "openshift": {"scc": true}}'
check "... on the CNI bin dir of the release (cniBinDir)" [ "$(obj unocp DaemonSet | jq -r '.spec.template.spec.volumes[] |
	select(.name == "cni-bin") | .hostPath.path')" = /var/lib/cni/bin ]
admit() { scc_admit "$1"; }
out=$(admit "$T/unocp.json")
check "... openshift.scc: an SCC of its own admits the uninstall pod (scc.jq), which runs as spc_t" [ -z "$out" -a \
	"$(obj unocp DaemonSet | jq -r '.spec.template.spec.initContainers[0].securityContext.seLinuxOptions.type')" = \
	spc_t ] || echo "   $out"
check "... the same SCC as deploy/overlays/openshift-uninstall's (name, users, labels aside)" same "$(obj unocp \
	SecurityContextConstraints | jq -S -c 'del(.metadata, .users)')" "$(kustomize \
	"$SRC/deploy/overlays/openshift-uninstall" | jq -S -c '.[] | select(.kind == "SecurityContextConstraints") |
	del(.metadata, .users)')"
out=$(admit "$T/kbase.json")
check "openshift.scc with verified TLS: the install's pod (the proxy's secret volume) is admitted (scc.jq)" \
	[ -z "$out" ] || echo "   $out"
o=$("${HELM[@]}" install rdma-qos "$CHART" --dry-run=client --set uninstall=true 2>&1)
check "... NOTES.txt says what to wait for, then helm uninstall" grep -q 'rollout status ds/rdma-qos-uninstall' <<< "$o"
out=$(node "$HERE/k8s-check.mjs" "$NM" "$T/un-json" "$T/un.yaml" 2>&1)
check "... it passes k8s-check (${out##*$'\n'})" [ $? -eq 0 ] || echo "$out"
check "helm lint --strict passed for every value set rendered ($LINTED)" [ "$LINTED" -gt 20 ]

echo "== the kubectl plugin's RBAC (kubectlPlugin.rbac)"
check "off by default: no role for the plugin" [ "$(jq '[.[] | select(.metadata.labels["app.kubernetes.io/component"]
	== "kubectl-plugin")] | length' "$T/k130.json")" = 0 ]
render kplug '{"kubectlPlugin": {"rbac": true}}' rdma-qos team-x
kprules() { jq -S '[.rules[] | {apiGroups, resources, verbs}]'; }
check "kubectlPlugin.rbac: the ClusterRole's rules are deploy/kubectl-plugin's" same \
	"$(obj kplug ClusterRole | jq -s '.[] | select(.metadata.name | endswith("kubectl-plugin"))' | kprules)" \
	"$(yaml_list "$SRC/deploy/kubectl-plugin/rbac.yaml" | jq '.[] | select(.kind == "ClusterRole")' | kprules)"
check "... the Role's too, in the release's namespace" same \
	"$(obj kplug Role | jq -c 'select(.metadata.name | endswith("kubectl-plugin-exec")) | [.metadata.namespace, (.rules |
	map({apiGroups, resources, verbs}))]')" \
	"$(yaml_list "$SRC/deploy/kubectl-plugin/rbac.yaml" | jq -c '.[] | select(.kind == "Role") |
	["team-x", (.rules | map({apiGroups, resources, verbs}))]')"
out=$(node "$HERE/k8s-check.mjs" "$NM" "$T/kplug-json" "$T/kplug.yaml" 2>&1)
check "... it passes k8s-check (${out##*$'\n'})" [ $? -eq 0 ] || echo "$out"
