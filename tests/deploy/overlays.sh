#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The kustomize base and overlays as kubectl kustomize renders them (kubectl 1.35, kustomize
# v5.7, tools.sh): every rendered document
# against kubernetes-models (k8s-check.mjs), the rendered catalogs through rdma-qos validate,
# then what the layout promises (docs/operations.md "Rolling out a catalog change"):
# - base: the agent runs the installed catalog (no live sync); a catalog edit renames the
#   ConfigMap and so changes the pod template (a rollout at maxUnavailable), nothing else;
# - live-sync: --catalog-source and the /config mount, a ConfigMap under one name: an edit
#   leaves the pod template alone (every node follows it at once);
# - pool-example: distinct DaemonSets and ConfigMaps, one Namespace, and every node label set
#   tried lands on at most one DaemonSet;
# - openshift: the base plus an SCC that admits exactly what the pod asks for, the CNI bin dir
#   /var/lib/cni/bin and spc_t for install, nothing else changed (docs/operations.md "OpenShift").
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
# free_port (the TLS check's openssl s_server), shared with the simulated-node suites
. "$HERE/../sim/free_port.sh"
B=${RQ_BUILD:?}
SRC=$(cd "$HERE/../.." && pwd)
T=$(mktemp -d /tmp/rq-overlays.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$HERE/npm.sh"
. "$HERE/tools.sh"

render() { kustomize "$1"; } # DIR -> JSON list (kubectl kustomize, tools.sh)
docs() { jq -c '.[]' "$1" | sed 's/^/---\n/'; }      # JSON list -> YAML stream
ds() { jq --arg n "$2" '.[] | select(.kind == "DaemonSet" and .metadata.name == $n)' "$1"; }
cms() { jq -c '[.[] | select(.kind == "ConfigMap") | .metadata.name] | sort' "$1"; }
agent() { ds "$1" "${2:-rdma-qos}" | jq -c '.spec.template.spec.containers[] |
	select(.name == "agent")'; }
for d in deploy deploy/overlays/live-sync deploy/overlays/pool-example deploy/overlays/openshift \
	deploy/overlays/openshift-live-sync deploy/overlays/metrics-tls deploy/overlays/nfd deploy/overlays/cri-dockerd deploy/overlays/host-pid deploy/monitoring \
	deploy/overlays/nic-configuration-operator deploy/uninstall; do
	n=$(basename "$d")
	echo "== $d"
	render "$SRC/$d" > "$T/$n.json"
	rc=$?
	check "$d renders ($(jq length "$T/$n.json") objects)" [ $rc -eq 0 ]
	docs "$T/$n.json" > "$T/$n.yaml"
	out=$(node "$HERE/k8s-check.mjs" "$NM" "$T/json-$n" "$T/$n.yaml" 2>&1)
	check "... every rendered document passes k8s-check (${out##*$'\n'})" [ $? -eq 0 ] ||
		echo "$out"
	for f in "$T/json-$n"/*.json; do
		# the catalogs (the dashboard's ConfigMap is not one)
		[ "$(jq -r '.kind == "ConfigMap" and (.data | has("profiles.json"))' "$f")" = true ] || continue
		o=$("$B/rdma-qos" validate "$f" 2>&1)
		check "... rendered ConfigMap $(jq -r .metadata.name "$f"): rdma-qos validate" \
			status_is 0 $? grep -q 'valid ConfigMap' <<< "$o" || echo "   $o"
	done
done

echo "== nic-configuration-operator: its catalog is the one the DaemonSet reads"
R=$T/nic-configuration-operator.json
check "one catalog ConfigMap, the base's generated name (hash suffix)" \
	grep -qE '^\["rdma-qos-catalog-[a-z0-9]{10}"\]$' <<< "$(cms "$R")"
check "... holding the overlay's profiles.json (node.pf verify)" [ "$(jq -r '.[] |
	select(.kind == "ConfigMap") | .data["profiles.json"] | fromjson | .node.pf' "$R")" = verify ]
check "... and the DaemonSet's config volume names it" same "$(ds "$R" rdma-qos | jq -c '[.spec.template
	.spec.volumes[] | select(.name == "config") | .configMap.name]')" "$(cms "$R")"
check "examples/nic-configuration-operator.yaml ships no ConfigMap of its own (one nobody reads)" \
	[ -z "$(grep -x 'kind: ConfigMap' "$SRC/examples/nic-configuration-operator.yaml")" ]

echo "== base: staged rollout"
R=$T/deploy.json
check "one catalog ConfigMap, named with a hash suffix" \
	grep -qE '^\["rdma-qos-catalog-[a-z0-9]{10}"\]$' <<< "$(cms "$R")"
check "... holding deploy/base/profiles.json byte for byte" same "$(jq -j '.[] |
	select(.kind == "ConfigMap") | .data["profiles.json"]' "$R" | sha256sum)" \
	"$(sha256sum < "$SRC/deploy/base/profiles.json")"
check "the DaemonSet's config volume names it" same "$(ds "$R" rdma-qos | jq -c '[.spec.template.spec
	.volumes[] | select(.name == "config") | .configMap.name]')" "$(cms "$R")"
check "the init container installs the catalog from /config" [ "$(ds "$R" rdma-qos | jq -r \
	'.spec.template.spec.initContainers[] | select(.name == "install") | .command |
	index("--catalog-source=/config/profiles.json") != null')" = true ]
check "the agent has no --catalog-source and no /config mount (no live sync)" [ "$(agent "$R" |
	jq -c '[(.command + (.args // []))[] | select(startswith("--catalog-source"))] +
	[.volumeMounts[] | select(.mountPath == "/config")]')" = '[]' ]
check "the rollout is RollingUpdate with a maxUnavailable ($(ds "$R" rdma-qos | jq -c \
	.spec.updateStrategy.rollingUpdate))" [ "$(ds "$R" rdma-qos | jq -r '.spec.updateStrategy |
	.type + " " + (.rollingUpdate.maxUnavailable != null | tostring)')" = "RollingUpdate true" ]
# a catalog edit, in a copy of deploy/
cp -r "$SRC/deploy" "$T/edit"
jq '.node.pf = "verify"' "$SRC/deploy/base/profiles.json" > "$T/edit/base/profiles.json"
render "$T/edit" > "$T/edit.json"
render "$T/edit/overlays/live-sync" > "$T/edit-live.json"
check "a catalog edit renames the ConfigMap ($(cms "$R") -> $(cms "$T/edit.json"))" \
	[ "$(cms "$R")" != "$(cms "$T/edit.json")" ]
tmpl() { ds "$1" rdma-qos | jq -S .spec.template; }
check "... so the pod template changes (the DaemonSet rolls)" [ "$(tmpl "$R")" != "$(tmpl "$T/edit.json")" ]
nocm='del(.spec.template.spec.volumes[] | select(.name == "config") | .configMap.name)'
check "... and in nothing but the config volume's ConfigMap name" same "$(ds "$R" rdma-qos |
	jq -S "$nocm")" "$(ds "$T/edit.json" rdma-qos | jq -S "$nocm")"

echo "== live-sync overlay"
L=$T/live-sync.json
check "the agent takes --catalog-source=/config/profiles.json" [ "$(agent "$L" | jq -r \
	'.command | index("--catalog-source=/config/profiles.json") != null')" = true ]
check "... and mounts the ConfigMap at /config read-only" [ "$(agent "$L" | jq -c '[.volumeMounts[] |
	select(.name == "config") | [.mountPath, .readOnly]]')" = '[["/config",true]]' ]
check "the ConfigMap keeps one name (rdma-qos-catalog, no hash)" \
	[ "$(cms "$L")" = '["rdma-qos-catalog"]' ]
check "a catalog edit leaves the pod template alone (every node follows it at once)" \
	same "$(tmpl "$L")" "$(tmpl "$T/edit-live.json")"
check "... the ConfigMap's data changes under the same name" [ "$(cms "$T/edit-live.json") $(jq \
	-r '.[] | select(.kind == "ConfigMap") | .data["profiles.json"] | fromjson | .node.pf' \
	"$T/edit-live.json")" = '["rdma-qos-catalog"] verify' ]
check "apart from those, the live-sync DaemonSet is the base's" same "$(ds "$L" rdma-qos | jq -S \
	"$nocm"' | .spec.template.spec.containers |= map(if .name == "agent" then
	.command -= ["--catalog-source=/config/profiles.json"] |
	.volumeMounts |= map(select(.name != "config")) else . end)')" "$(ds "$R" rdma-qos |
	jq -S "$nocm")"

echo "== pool-example overlay"
P=$T/pool-example.json
check "two DaemonSets, rdma-qos and rdma-qos-gpu-a" [ "$(jq -c '[.[] | select(.kind ==
	"DaemonSet") | .metadata.name] | sort' "$P")" = '["rdma-qos","rdma-qos-gpu-a"]' ]
check "two distinct catalog ConfigMaps" [ "$(jq -c '[.[] | select(.kind == "ConfigMap") |
	.metadata.name] | unique | length' "$P")" = 2 ]
check "one Namespace, and every object in it" [ "$(jq -c '[.[] | select(.kind == "Namespace")
	| .metadata.name], [.[] | select(.kind | IN("Namespace", "ClusterRole", "ClusterRoleBinding") | not) |
	.metadata.namespace] | unique' "$P" |
	tr -d '\n')" = '["rdma-qos"]["rdma-qos"]' ]
for n in rdma-qos rdma-qos-gpu-a; do
	cm=$(ds "$P" $n | jq -r '.spec.template.spec.volumes[] | select(.name == "config") |
		.configMap.name')
	check "$n's config volume names a ConfigMap of the render ($cm)" \
		[ "$(jq --arg c "$cm" '[.[] | select(.kind == "ConfigMap" and .metadata.name == $c)] |
		length' "$P")" = 1 ]
done
check "rdma-qos-gpu-a's ConfigMap holds gpu-a/profiles.json" same "$(jq -j '.[] | select(.kind ==
	"ConfigMap" and (.metadata.name | startswith("rdma-qos-catalog-gpu-a-"))) |
	.data["profiles.json"]' "$P" | sha256sum)" "$(sha256sum < \
	"$SRC/deploy/overlays/pool-example/gpu-a/profiles.json")"
check "the two selectors differ" [ "$(ds "$P" rdma-qos | jq -c .spec.selector)" != \
	"$(ds "$P" rdma-qos-gpu-a | jq -c .spec.selector)" ]
# selects FILE: "A>B" for each DaemonSet A whose selector matches the pod template of another B
selects() { jq -r '[.[] | select(.kind == "DaemonSet")] as $d | $d[] as $a | $d[] as $b |
	select($a.metadata.name != $b.metadata.name) | select($a.spec.selector.matchLabels |
	to_entries | all(.value == $b.spec.template.metadata.labels[.key])) |
	"\($a.metadata.name)>\($b.metadata.name)"' "$1" | tr '\n' ' '; }
check "no DaemonSet selects another's pods (the DaemonSet documentation forbids it)" \
	[ -z "$(selects "$P")" ] || echo "   $(selects "$P")"
check "... every selector in its own pod template's labels" [ "$(jq '[.[] | select(.kind ==
	"DaemonSet") | .spec.selector.matchLabels as $s | .spec.template.metadata.labels as $l |
	$s | to_entries | all(.value == $l[.key])] | all' "$P")" = true ]
# landing FILE LABELS: the DaemonSets whose pods land on a node with LABELS
landing() {
	local n out=()
	for n in $(jq -r '.[] | select(.kind == "DaemonSet") | .metadata.name' "$1"); do
		[ "$(ds "$1" "$n" | jq --argjson labels "$2" -f "$HERE/nodes.jq")" = true ] &&
			out+=("$n")
	done
	echo "${out[*]}"
}
OS='"kubernetes.io/os": "linux"'
check "a node in no pool: rdma-qos only" [ "$(landing "$P" "{$OS}")" = rdma-qos ]
check "a node labelled rdma-qos/pool=gpu-a: rdma-qos-gpu-a only" \
	[ "$(landing "$P" "{$OS, \"rdma-qos/pool\": \"gpu-a\"}")" = rdma-qos-gpu-a ]
check "a node labelled with another pool: none (each pool is listed)" \
	[ -z "$(landing "$P" "{$OS, \"rdma-qos/pool\": \"gpu-b\"}")" ]
check "a non-Linux node: none" [ -z "$(landing "$P" '{"kubernetes.io/os": "windows"}')" ]
# the check catches an overlap: without the base's DoesNotExist patch a pool node runs two agents
cp -r "$SRC/deploy" "$T/overlap"
sed -i '/^patches:/,$d' "$T/overlap/overlays/pool-example/default/kustomization.yaml"
render "$T/overlap/overlays/pool-example" > "$T/overlap.json"
check "(without default/'s patch a gpu-a node lands two DaemonSets: the check sees overlaps)" \
	[ "$(landing "$T/overlap.json" "{$OS, \"rdma-qos/pool\": \"gpu-a\"}")" = \
	"rdma-qos rdma-qos-gpu-a" ]
echo "== components combined: openshift-live-sync"
OL=$T/openshift-live-sync.json
check "the same objects as the openshift overlay, the catalog ConfigMap under one name" same "$(jq -c \
	'[.[] | .kind + "/" + .metadata.name] | sort' "$OL")" "$(jq -c '[.[] | .kind + "/" +
	.metadata.name | sub("rdma-qos-catalog-[a-z0-9]{10}$"; "rdma-qos-catalog")] | sort' \
	"$T/openshift.json")"
check "its DaemonSet is the openshift overlay's plus the live-sync changes" same "$(ds "$OL" rdma-qos |
	jq -S "$nocm"' | .spec.template.spec.containers |= map(if .name == "agent" then
	.command -= ["--catalog-source=/config/profiles.json"] |
	.volumeMounts |= map(select(.name != "config")) else . end)')" "$(ds "$T/openshift.json" \
	rdma-qos | jq -S "$nocm")"
check "... with --catalog-source and the /config mount, and the CNI bin dir /var/lib/cni/bin" \
	[ "$(agent "$OL" | jq -c '[(.command | index("--catalog-source=/config/profiles.json") != null),
	[.volumeMounts[] | select(.name == "config") | .mountPath]]') $(ds "$OL" rdma-qos | jq -r \
	'.spec.template.spec.volumes[] | select(.name == "cni-bin") | .hostPath.path')" = \
	'[true,["/config"]] /var/lib/cni/bin' ]
check "live-sync and openshift are Components (kind: Component), their overlays list them" [ "$(for c in \
	live-sync openshift; do yaml_list "$SRC/deploy/components/$c/kustomization.yaml" | jq -r '.[0].kind'
	yaml_list "$SRC/deploy/overlays/$c/kustomization.yaml" | jq -c '.[0].components'; done |
	tr '\n' ' ')" = 'Component ["../../components/live-sync"] Component ["../../components/openshift"] ' ]

echo "== components: nfd"
NF=$T/nfd.json
check "the nfd overlay's DaemonSet is the base's plus the NFD flag, mount and hostPath" same "$(ds "$NF" rdma-qos |
	jq -S "$nocm"' | .spec.template.spec.containers |= map(if .name == "agent" then
	.command -= ["--nfd-features-file=/etc/kubernetes/node-feature-discovery/features.d/rdma-qos"] |
	.volumeMounts |= map(select(.name != "nfd-features")) else . end) |
	.spec.template.spec.volumes |= map(select(.name != "nfd-features"))')" \
	"$(ds "$T/deploy.json" rdma-qos | jq -S "$nocm")"
check "... the hostPath is NFD's features.d/ (a directory: the file is replaced by rename)" [ "$(ds "$NF" rdma-qos |
	jq -c '.spec.template.spec.volumes[] | select(.name == "nfd-features") | .hostPath')" = \
	'{"path":"/etc/kubernetes/node-feature-discovery/features.d","type":"DirectoryOrCreate"}' ]
check "components/nfd is a Component" [ "$(yaml_list "$SRC/deploy/components/nfd/kustomization.yaml" |
	jq -r '.[0].kind')" = Component ]

echo "== components: cri-dockerd"
CD=$T/cri-dockerd.json
check "the cri-dockerd overlay's DaemonSet is the base's plus SYS_PTRACE for the agent alone" same "$(ds "$CD" rdma-qos |
	jq -S "$nocm"' | .spec.template.spec.containers |= map(if .name == "agent" then
	.securityContext.capabilities.add -= ["SYS_PTRACE"] else . end)')" \
	"$(ds "$T/deploy.json" rdma-qos | jq -S "$nocm")"
check "... the agent's capabilities: NET_ADMIN, NET_RAW, SYS_ADMIN, SYS_PTRACE; the base's agent has no SYS_PTRACE" \
	[ "$(agent "$CD" | jq -c '.securityContext.capabilities.add')/$(agent "$T/deploy.json" |
	jq -c '.securityContext.capabilities.add | index("SYS_PTRACE")')" = '["NET_ADMIN","NET_RAW","SYS_ADMIN","SYS_PTRACE"]/null' ]
check "components/cri-dockerd is a Component" [ "$(yaml_list "$SRC/deploy/components/cri-dockerd/kustomization.yaml" |
	jq -r '.[0].kind')" = Component ]

echo "== components: host-pid (host-network pods on a shared RDMA device)"
HP=$T/host-pid.json
check "the host-pid overlay's DaemonSet is the base's plus hostPID: true, nothing else" same "$(ds "$HP" rdma-qos |
	jq -S "$nocm"' | del(.spec.template.spec.hostPID)')" "$(ds "$T/deploy.json" rdma-qos | jq -S "$nocm")"
check "... hostPID true there, absent from the base" [ "$(ds "$HP" rdma-qos | jq -c .spec.template.spec.hostPID)/$(ds \
	"$T/deploy.json" rdma-qos | jq -c .spec.template.spec.hostPID)" = "true/null" ]
check "components/host-pid is a Component" [ "$(yaml_list "$SRC/deploy/components/host-pid/kustomization.yaml" |
	jq -r '.[0].kind')" = Component ]
# with openshift (listed first): the SCC openshift adds admits hostPID; without host-pid it does not
OH=$T/ocp-hostpid && mkdir -p "$OH" && rel=$(realpath --relative-to="$OH" "$SRC/deploy")
printf 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [%s/base]\ncomponents: [%s/components/openshift, %s/components/host-pid]\n' \
	"$rel" "$rel" "$rel" > "$OH/kustomization.yaml"
render "$OH" > "$T/ocp-hostpid.json"
out=$(scc_admit "$T/ocp-hostpid.json")
check "openshift then host-pid: the SCC allows hostPID and admits the pod (scc.jq)" [ -z "$out" -a "$(jq -c '.[] |
	select(.kind == "SecurityContextConstraints") | .allowHostPID' "$T/ocp-hostpid.json")" = true ] || echo "   $out"
check "... the openshift overlay alone keeps allowHostPID false" [ "$(jq -c '.[] |
	select(.kind == "SecurityContextConstraints") | .allowHostPID' "$T/openshift.json")" = false ]

echo "== verified scrape: deploy/monitoring with deploy/overlays/metrics-tls"
MO=$T/monitoring.json MT=$T/metrics-tls.json
smep() { jq -c ".[] | select(.kind == \"ServiceMonitor\") | .spec.endpoints[0] | $1" "$MO"; }
check "no insecureSkipVerify, no bearerTokenFile in any rendered object" \
	[ -z "$(grep -E 'insecureSkipVerify|bearerTokenFile' "$MO" "$MT")" ]
svc=$(jq -r '.[] | select(.kind == "Service") | .metadata.name + "." + .metadata.namespace + ".svc"' "$MO")
check "tlsConfig.serverName is the metrics Service's DNS name ($svc)" [ "$(smep .tlsConfig.serverName)" = "\"$svc\"" ]
check "... a name of the serving Certificate of components/metrics-tls" [ "$(jq -c --arg s "$svc" '[.[] |
	select(.kind == "Certificate" and (.spec.isCA | not)) | .spec.dnsNames | index($s) != null]' "$MT")" = '[true]' ]
tlssec=$(jq -r '.[] | select(.kind == "Certificate" and (.spec.isCA | not)) | .spec.secretName' "$MT")
check "... tlsConfig.ca: key ca.crt of that Certificate's Secret ($tlssec), in the ServiceMonitor's namespace" \
	[ "$(smep '.tlsConfig.ca.secret | {name, key}') $(jq -r '[.[] | select(.kind == "ServiceMonitor" or .kind == "Certificate") |
	.metadata.namespace] | unique | join(" ")' "$MO" "$MT" | sort -u | tr '\n' ' ')" = \
	"{\"name\":\"$tlssec\",\"key\":\"ca.crt\"} rdma-qos " ]
check "... issued by a CA Issuer whose CA is the self-signed Certificate" [ "$(jq -r '[.[] | select(.kind ==
	"Issuer" and .spec.ca) | .spec.ca.secretName] + [.[] | select(.kind == "Certificate" and .spec.isCA) |
	.spec.secretName] | unique | length' "$MT")" = 1 ]
proxy() { ds "$1" rdma-qos | jq -c '.spec.template.spec.containers[] | select(.name == "kube-rbac-proxy")'; }
check "the metrics-tls DaemonSet's kube-rbac-proxy serves that Secret's certificate" [ "$(proxy "$MT" | jq -c \
	'[(.args[] | select(startswith("--tls-"))), (.volumeMounts[] | select(.name == "kube-rbac-proxy-tls") |
	.mountPath)]') $(ds "$MT" rdma-qos | jq -r '.spec.template.spec.volumes[] | select(.name ==
	"kube-rbac-proxy-tls") | .secret.secretName')" = '["--tls-cert-file=/etc/kube-rbac-proxy/tls/tls.crt",'\
'"--tls-private-key-file=/etc/kube-rbac-proxy/tls/tls.key","/etc/kube-rbac-proxy/tls"] '"$tlssec" ]
check "... and is the base's otherwise" same "$(ds "$MT" rdma-qos | jq -S "$nocm"' | .spec.template.spec |=
	(.volumes |= map(select(.name != "kube-rbac-proxy-tls")) | .containers |= map(if .name == "kube-rbac-proxy"
	then .args |= map(select(startswith("--tls-") | not)) | .volumeMounts |= map(select(.name !=
	"kube-rbac-proxy-tls")) else . end))')" "$(ds "$R" rdma-qos | jq -S "$nocm")"
tok=$(smep .authorization.credentials.name | tr -d '"')
sa=$(jq -r --arg t "$tok" '.[] | select(.kind == "Secret" and .metadata.name == $t and .type ==
	"kubernetes.io/service-account-token") | .metadata.annotations["kubernetes.io/service-account.name"]' "$MO")
check "authorization: Bearer, the token Secret ($tok) of a ServiceAccount of the render (${sa:-none})" \
	[ "$(smep .authorization.type) $(jq -r --arg s "$sa" '[.[] | select(.kind == "ServiceAccount" and
	.metadata.name == $s)] | length' "$MO")" = '"Bearer" 1' ]
check "... bound to a ClusterRole that may get /metrics (what kube-rbac-proxy asks)" [ "$(jq -r --arg s "$sa" \
	'[.[] | select(.kind == "ClusterRoleBinding" and .subjects[0].name == $s and .subjects[0].namespace ==
	"rdma-qos") | .roleRef.name] as $r | .[] | select(.kind == "ClusterRole" and (.metadata.name |
	IN($r[]))) | .rules[] | select(.nonResourceURLs == ["/metrics"]) | .verbs[]' "$MO")" = get ]

echo "== a TLS handshake as the ServiceMonitor verifies (openssl s_server, curl)"
# certificates shaped as the rendered Certificates (a CA; a serving certificate with their
# dnsNames and usages), served as kube-rbac-proxy would on a node's address; curl checks it
# as Prometheus does: the CA of tlsConfig.ca, the name of tlsConfig.serverName
handshake() { # DIR: curl with the ServiceMonitor's serverName against the server on $port
	curl -s -o /dev/null --max-time 5 --cacert "$1/ca.crt" --resolve "$sn:$port:127.0.0.1" "https://$sn:$port/"
}
serve() { # CERT KEY: openssl s_server on 127.0.0.1:$port until stop
	openssl s_server -quiet -www -accept "127.0.0.1:$port" -cert "$1" -key "$2" > /dev/null 2>&1 &
	srv=$!
	for _ in $(seq 50); do curl -sk -o /dev/null --max-time 1 "https://127.0.0.1:$port/" && return; sleep 0.1; done
}
stop() { kill "$srv" 2> /dev/null; wait "$srv" 2> /dev/null; }
if command -v openssl > /dev/null && command -v curl > /dev/null; then
	W=$T/tls && mkdir -p "$W"
	sn=$(smep .tlsConfig.serverName | tr -d '"') port=$(free_port)
	ec=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
	openssl req -x509 "${ec[@]}" -keyout "$W/ca.key" -out "$W/ca.crt" -days 1 -subj "/CN=$(jq -r '.[] |
		select(.kind == "Certificate" and .spec.isCA) | .spec.commonName' "$MT")" \
		-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign 2> /dev/null
	jq -r '.[] | select(.kind == "Certificate" and (.spec.isCA | not)) | .spec |
		"subjectAltName=" + ([.dnsNames[] | "DNS:" + .] | join(",")), "extendedKeyUsage=" + ([.usages[] |
		select(. == "server auth") | "serverAuth"] | join(",")), "keyUsage=" + ([.usages[] | {"digital signature":
		"digitalSignature", "key encipherment": "keyEncipherment"}[.] // empty] | join(","))' "$MT" > "$W/ext"
	openssl req "${ec[@]}" -keyout "$W/tls.key" -out "$W/tls.csr" -subj / 2> /dev/null
	openssl x509 -req -in "$W/tls.csr" -CA "$W/ca.crt" -CAkey "$W/ca.key" -CAcreateserial -days 1 \
		-extfile "$W/ext" -out "$W/tls.crt" 2> /dev/null
	serve "$W/tls.crt" "$W/tls.key"
	handshake "$W"
	check "the serving certificate verifies with the ServiceMonitor's CA and serverName ($sn)" [ $? -eq 0 ]
	curl -s -o /dev/null --max-time 5 --cacert "$W/ca.crt" "https://127.0.0.1:$port/"
	check "... by the node's address alone it does not (why serverName is set)" [ $? -eq 60 ]
	stop
	# what kube-rbac-proxy serves without --tls-cert-file: a certificate of its own
	openssl req -x509 "${ec[@]}" -keyout "$W/self.key" -out "$W/self.crt" -days 1 -subj /CN=kube-rbac-proxy \
		-addext "subjectAltName=DNS:$sn" 2> /dev/null
	serve "$W/self.crt" "$W/self.key"
	handshake "$W"
	check "a self-signed proxy certificate (no metrics-tls) is refused (curl 60)" [ $? -eq 60 ]
	stop
else
	skip "TLS handshake" "no openssl or curl"
fi

echo "== openshift overlay"
O=$T/openshift.json
ods=$(ds "$O" rdma-qos) bds=$(ds "$T/deploy.json" rdma-qos)
scc=$(jq '.[] | select(.kind == "SecurityContextConstraints")' "$O")
check "apart from the SCC, the objects are the base's" same "$(jq -c '[.[] | select(.kind !=
	"SecurityContextConstraints") | .kind + "/" + .metadata.name] | sort' "$O")" \
	"$(jq -c '[.[] | .kind + "/" + .metadata.name] | sort' "$T/deploy.json")"
check "the DaemonSet is the base's but for the CNI bin dir and install's SELinux type" same "$(jq -S -c \
	'del(.spec.template.spec.volumes[] | select(.name == "cni-bin") | .hostPath.path) |
	del(.spec.template.spec.initContainers[0].securityContext.seLinuxOptions)' <<< "$ods")" \
	"$(jq -S -c 'del(.spec.template.spec.volumes[] | select(.name == "cni-bin") | .hostPath.path)' \
	<<< "$bds")"
check "the CNI bin dir is /var/lib/cni/bin" [ "$(jq -r '.spec.template.spec.volumes[] |
	select(.name == "cni-bin") | .hostPath.path' <<< "$ods")" = /var/lib/cni/bin ]
check "install and agent run as spc_t" [ "$(jq -c '[(.spec.template.spec.initContainers +
	.spec.template.spec.containers)[] | select(.name != "kube-rbac-proxy") |
	.securityContext.seLinuxOptions.type]' <<< "$ods")" = '["spc_t","spc_t"]' ]
sa=$(jq -r '.spec.template.spec.serviceAccountName' <<< "$ods")
check "the SCC admits the pod's ServiceAccount ($sa), which the base has" [ "$(jq -r '.users | join(" ")' \
	<<< "$scc") $(jq -r --arg n "$sa" '.[] | select(.kind == "ServiceAccount" and .metadata.name == $n) |
	.metadata.name' "$O")" = "system:serviceaccount:rdma-qos:$sa $sa" ]
check "the SCC is cluster-scoped (no namespace)" [ "$(jq -r .metadata.namespace <<< "$scc")" = null ]
check "the SCC allows exactly the capabilities the containers add" same "$(jq -c '.allowedCapabilities | sort' \
	<<< "$scc")" "$(jq -c '[(.spec.template.spec.initContainers + .spec.template.spec.containers)[] |
	.securityContext.capabilities.add[]?] | unique' <<< "$ods")"
check "... exactly the volume kinds the pod uses, and secret (components/metrics-tls' certificate)" \
	same "$(jq -c '.volumes | sort' <<< "$scc")" "$(jq -c '[.spec.template.spec.volumes[] | del(.name) |
	keys[0]] + ["secret"] | unique' <<< "$ods")"
# OpenShift admission offline (scc.jq): the render's pods against the render's SCCs
admit() { scc_admit "$1"; }
out=$(admit "$O")
check "scc.jq: the openshift overlay's pod is admitted by its SCC" [ -z "$out" ] || echo "   $out"
mkdir -p "$T/os-tls" && cp -r "$SRC/deploy" "$T/os-tls/deploy"
printf 'resources: [../../base]\ncomponents: [../../components/openshift, ../../components/metrics-tls]\n' \
	> "$T/os-tls/deploy/overlays/os-tls.yaml"
mkdir -p "$T/os-tls/deploy/overlays/os-tls" && mv "$T/os-tls/deploy/overlays/os-tls.yaml" \
	"$T/os-tls/deploy/overlays/os-tls/kustomization.yaml"
render "$T/os-tls/deploy/overlays/os-tls" > "$T/os-tls.json"
out=$(admit "$T/os-tls.json")
check "openshift + metrics-tls (the verified scrape): the proxy's secret volume is admitted" \
	[ -n "$(jq '.[] | select(.kind == "DaemonSet") | .spec.template.spec.volumes[] | select(.secret)' \
	"$T/os-tls.json")" -a -z "$out" ] || echo "   $out"
jq '[.[] | select(.kind == "SecurityContextConstraints") |= (.volumes -= ["secret"])]' "$T/os-tls.json" \
	> "$T/os-tls-old.json"
check "... scc.jq refuses it with an SCC without secret (as shipped before)" \
	grep -q 'volume type secret not allowed' <<< "$(admit "$T/os-tls-old.json")"

echo "== openshift-uninstall overlay"
OU=$T/openshift-uninstall.json
render "$SRC/deploy/overlays/openshift-uninstall" > "$OU"
check "it renders deploy/uninstall's DaemonSet and ServiceAccount, and an SCC" [ "$(jq -c '[.[] |
	.kind] | sort' "$OU")" = '["DaemonSet","SecurityContextConstraints","ServiceAccount"]' ]
out=$(admit "$OU")
check "scc.jq: the uninstall pod is admitted by that SCC (its own service account)" [ -z "$out" ] ||
	echo "   $out"
check "... and not by the install's SCC (no SCC names rdma-qos-uninstall there)" \
	grep -q 'no SCC of the render names' <<< "$(jq -s '.[0] + [.[1][] | select(.kind !=
	"SecurityContextConstraints")]' "$O" "$OU" | admit /dev/stdin)"
check "... CNI bin dir /var/lib/cni/bin, the uninstall container spc_t" [ "$(ds "$OU" rdma-qos-uninstall |
	jq -c '[(.spec.template.spec.volumes[] | select(.name == "cni-bin") | .hostPath.path),
	.spec.template.spec.initContainers[0].securityContext.seLinuxOptions.type]')" = \
	'["/var/lib/cni/bin","spc_t"]' ]
img0='.spec.template.spec.initContainers[0].image'
check "... the same image as the install (components/image)" same "$(ds "$OU" rdma-qos-uninstall |
	jq -r "$img0")" "$(ds "$O" rdma-qos | jq -r "$img0")"
check "... host network and host dirs, nothing privileged, no host PID/IPC/ports" [ "$(jq -c \
	'[.allowHostNetwork, .allowHostDirVolumePlugin, .allowPrivilegedContainer, .allowHostPID,
	.allowHostIPC, .allowHostPorts, .allowPrivilegeEscalation]' <<< "$scc")" = \
	'[true,true,false,false,false,false,false]' ]
check "... seccomp runtime/default, which every container asks for" [ "$(jq -c .seccompProfiles <<< "$scc") $(jq -c \
	'[(.spec.template.spec.initContainers + .spec.template.spec.containers)[].securityContext.seccompProfile.type] |
	unique' <<< "$ods")" = '["runtime/default"] ["RuntimeDefault"]' ]
check "... any SELinux type (the pod's spc_t) and uid (0, the proxy's 65534)" [ "$(jq -c \
	'[.seLinuxContext.type, .runAsUser.type]' <<< "$scc")" = '["RunAsAny","RunAsAny"]' ]
check "... and the read-only root every container keeps" [ "$(jq -r .readOnlyRootFilesystem <<< "$scc") $(jq -c \
	'[(.spec.template.spec.initContainers + .spec.template.spec.containers)[].securityContext.readOnlyRootFilesystem] |
	unique' <<< "$ods")" = 'true [true]' ]
# the patch's test operations: a base whose first volume is not cni-bin fails the render
cp -r "$SRC/deploy" "$T/reorder"
python3 - "$T/reorder/base/daemonset.yaml" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
a = s.index("        - name: cni-bin\n"); b = s.index("        - name: catalog-dir\n")
c = s.index("        - name: config\n")
open(p, "w").write(s[:a] + s[b:c] + s[a:b] + s[c:])
PY
o=$(render "$T/reorder/overlays/openshift" 2>&1 > /dev/null)
check "a base with cni-bin not first: the openshift render fails, naming the test" status_is 1 $? \
	grep -q "testing value /spec/template/spec/volumes/0/name failed" <<< "$o" || echo "   $o"

echo "== docs/operations.md's SR-IOV-only overlay"
# the YAML block under its "# sriov-only/kustomization.yaml" line, beside a deploy/ of this tree
mkdir -p "$T/sriov/sriov-only" && ln -s "$SRC/deploy" "$T/sriov/deploy"
awk '/^# sriov-only\/kustomization.yaml$/ { on = 1 } on && /^```$/ { exit } on' "$SRC/docs/operations.md" \
	> "$T/sriov/sriov-only/kustomization.yaml"
render "$T/sriov/sriov-only" > "$T/sriov.json"
check "it renders" [ $? -eq 0 -a -s "$T/sriov/sriov-only/kustomization.yaml" ]
check "... the DaemonSet selects SR-IOV Linux nodes" same "$(ds "$T/sriov.json" rdma-qos |
	jq -c .spec.template.spec.nodeSelector)" '{"feature.node.kubernetes.io/network-sriov.capable":"true","kubernetes.io/os":"linux"}'
finish
