#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# deploy/ and examples/, offline: every manifest against kubernetes-models'
# schemas plus our unknown-key walk (k8s-check.mjs), broken copies that must
# fail, then every embedded CNI config and catalog through the plugin's own
# parser (rdma-qos validate), with the conflists the operators and Multus
# would render.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
B=${RQ_BUILD:?}
SRC=$(cd "$HERE/../.." && pwd)
T=$(mktemp -d /tmp/rq-manifests.XXXXXX)
trap 'rm -rf "$T"' EXIT
# the pinned node modules (npm.sh), or the whole part skips
. "$HERE/npm.sh"
k8s_check() { node "$HERE/k8s-check.mjs" "$NM" "$@"; }

echo "== manifests against kubernetes-models and crd-keys.json"
# deploy/base/ and examples/ (their documents are looked at below); the other kustomizations
# apart (they share the file name); what the kustomizations render: tests/deploy/overlays.sh
out=$(k8s_check "$T/json" "$SRC"/deploy/base/*.yaml "$SRC"/examples/*.yaml 2>&1)
check "every document in deploy/base/ and examples/ passes (${out##*$'\n'})" [ $? -eq 0 ] ||
	echo "$out"
out=$(for k in $(find "$SRC/deploy" -name kustomization.yaml -not -path '*/base/*' | sort); do
	k8s_check "$T/kjson" "$k" 2>&1 || echo "FAILED: $k"; done)
check "every other kustomization.yaml in deploy/ passes ($(grep -c '^1 documents' <<< "$out"))" \
	[ -z "$(grep -E 'PROBLEM|FAILED' <<< "$out")" ] || echo "$out"
# the checker catches what it claims to: one broken copy per kind of mistake
DS=$SRC/deploy/base/daemonset.yaml
broken() { # NAME SED EXPECTED
	mkdir -p "$T/broken" && sed "$2" "$DS" > "$T/broken/$1.yaml"
	local o
	o=$(k8s_check "$T/bjson" "$T/broken/$1.yaml" 2>&1)
	check "a DaemonSet with $1 is refused: $3" status_is 1 $? grep -qF -- "$3" <<< "$o" ||
		echo "   got: $o"
}
broken "a wrong type" 's/      hostNetwork: true/      hostNetwork: "yes"/' \
	"hostNetwork must be boolean"
broken "a misspelt container key" 's/^\(          \)image: rdma-qos:[0-9.]*/&\n\1imagePullPolcy: Always/' \
	"containers[0].imagePullPolcy: unknown key (not in IContainer)"
broken "a duplicate key" 's/      hostNetwork: true/&\n      hostNetwork: true/' \
	"Map keys must be unique"
broken "a misspelt spec key" 's/^  selector:/  selectr:/' "spec.selectr: unknown key"
sed 's/  metaPlugins: |/  metaPlugin: |/' "$SRC/examples/sriovnetwork.yaml" > "$T/broken/sn.yaml"
o=$(k8s_check "$T/bjson" "$T/broken/sn.yaml" 2>&1)
check "a SriovNetwork with a misspelt spec key is refused" status_is 1 $? \
	grep -qF "spec.metaPlugin: unknown key" <<< "$o"

echo "== kustomization and DaemonSet wiring"
J=$T/json
ks=$J/kustomization.yaml.0.json ds=$J/daemonset.yaml.0.json
check "deploy/base/kustomization.yaml lists every other file in deploy/base/" same "$(jq -r \
	'.resources[], .configMapGenerator[].files[]' "$ks" | sort | tr '\n' ' ')" \
	"$(cd "$SRC/deploy/base" && for f in *; do [ "$f" = kustomization.yaml ] || echo "$f"; done |
	sort | tr '\n' ' ')"
check "the DaemonSet's config volume is the generated catalog ConfigMap" same "$(jq -r \
	'.spec.template.spec.volumes[] | select(.name == "config") | .configMap.name' "$ds")" \
	"$(jq -r '.configMapGenerator[0].name' "$ks")"
k8s_check "$T/top" "$SRC/deploy/kustomization.yaml" > /dev/null 2>&1
check "deploy/kustomization.yaml is the base (resources: [base])" \
	[ "$(jq -c .resources "$T/top/kustomization.yaml.0.json")" = '["base"]' ]
check "every volumeMount names a volume" [ -z "$(jq -r '.spec.template.spec as $s |
	[$s.volumes[].name] as $v | ($s.initContainers + $s.containers)[].volumeMounts[] |
	select(.name as $n | $v | index($n) | not) | .name' "$ds")" ]
check "the init container runs install with the ConfigMap's catalog" [ "$(jq -c \
	'.spec.template.spec.initContainers[0].command' "$ds")" = \
	'["/rdma-qos","install","--cni-bin-dir=/host/opt/cni/bin","--catalog-source=/config/profiles.json"]' ]
check "the main container runs the agent" \
	[ "$(jq -r '.spec.template.spec.containers[0].command[1]' "$ds")" = agent ]
check "... on the catalog installed at pod start: no live sync (no --catalog-source, no /config)" \
	[ "$(jq -c '.spec.template.spec.containers[0] | [(.command[] | select(startswith(
	"--catalog-source"))), (.volumeMounts[] | select(.name == "config"))]' "$ds")" = '[]' ]
check "no container is privileged, every one drops ALL capabilities" [ "$(jq -c \
	'[(.spec.template.spec.initContainers + .spec.template.spec.containers)[].securityContext |
	[.privileged // false, .capabilities.drop]] | unique' "$ds")" = '[[false,["ALL"]]]' ]
for cap in $(jq -r '.spec.template.spec.containers[].securityContext.capabilities.add[]?' "$ds"); do
	check "capability $cap is given with its reason in daemonset.yaml" \
		grep -qE "^# .*$cap for " "$DS"
done

echo "== confinement (docs/operations.md \"Confinement\")"
jsc() { jq -r --arg c "$1" "(.spec.template.spec.initContainers + .spec.template.spec.containers)[] |
	select(.name == \$c) | .securityContext | $2" "$ds"; }
check "every container asks for the runtime's default seccomp filter (RuntimeDefault)" \
	[ "$(jsc install .seccompProfile.type) $(jsc agent .seccompProfile.type) $(jsc kube-rbac-proxy \
	.seccompProfile.type)" = "RuntimeDefault RuntimeDefault RuntimeDefault" ]
check "the agent is AppArmor-unconfined by field (>= 1.30) and by annotation (older clusters)" \
	[ "$(jsc agent .appArmorProfile.type) $(jq -r '.spec.template.metadata.annotations
	["container.apparmor.security.beta.kubernetes.io/agent"]' "$ds")" = "Unconfined unconfined" ]
check "the install container keeps the default AppArmor profile" [ "$(jsc install .appArmorProfile) $(jq -r \
	'.spec.template.metadata.annotations["container.apparmor.security.beta.kubernetes.io/install"]' "$ds")" = "null null" ]
check "the agent runs as SELinux spc_t" [ "$(jsc agent .seLinuxOptions.type)" = spc_t ]
for k in seccompProfile appArmorProfile seLinuxOptions; do
	check "$k is given with its reason (a comment above it) in daemonset.yaml" \
		[ -z "$(awk -v k="$k:" '$1 == k && prev !~ /^ *#/ { print NR } { prev = $0 }' "$DS")" ]
done

# the key list catches what it claims to
sed 's/^allowHostNetwork: true/allowHostNetwrk: true/' "$SRC/deploy/components/openshift/scc.yaml" > "$T/broken/scc.yaml"
o=$(k8s_check "$T/bjson" "$T/broken/scc.yaml" 2>&1)
check "an SCC with a misspelt key is refused" status_is 1 $? grep -qF "allowHostNetwrk: unknown key" <<< "$o"
echo "== deploy/uninstall: the cleanup DaemonSet"
out=$(k8s_check "$T/ujson" "$SRC"/deploy/uninstall/*.yaml 2>&1)
check "every document in deploy/uninstall/ passes (${out##*$'\n'})" [ $? -eq 0 ] || echo "$out"
uds=$T/ujson/daemonset.yaml.0.json uks=$T/ujson/kustomization.yaml.0.json
# the kustomization that sets the image (deploy/, or deploy/base/ where the base moved)
kimg=$SRC/deploy/kustomization.yaml
[ -f "$SRC/deploy/base/kustomization.yaml" ] && kimg=$SRC/deploy/base/kustomization.yaml
node -e 'const Y=require(process.argv[1]); console.log(JSON.stringify(Y.parse(
	require("fs").readFileSync(process.argv[2], "utf8"))))' "$NM/yaml" "$kimg" > "$T/kimg.json"
check "its kustomization lists its DaemonSet and service account, in the namespace and with the image Component of ${kimg#"$SRC"/}" \
	[ "$(jq -c '[.resources, .namespace, .components]' "$uks")" = \
	"$(jq -c '[["serviceaccount.yaml", "daemonset.yaml"], .namespace, .components]' "$T/kimg.json")" -a \
	"$(jq -c .components "$T/kimg.json")" = '["../components/image"]' ]
check "its init container runs uninstall on the DaemonSet's CNI bin dir, waiting for DELs" \
	[ "$(jq -c '.spec.template.spec.initContainers[0].command' "$uds")" = \
	'["/rdma-qos","uninstall","--cni-bin-dir=/host/opt/cni/bin","--wait=300"]' ]
hp() { jq -r --arg m "$2" '.spec.template.spec as $s | ($s.initContainers + $s.containers)[].volumeMounts[]? |
	select(.mountPath == $m) | .name as $n | $s.volumes[] | select(.name == $n) | .hostPath.path' "$1" | sort -u; }
check "... the bin dir is the host path install writes" same "$(hp "$uds" /host/opt/cni/bin)" \
	"$(hp "$ds" /host/opt/cni/bin)"
check "... the state directory is the host path the agent uses (records are read there)" \
	same "$(hp "$uds" /run/rdma-qos)" "$(hp "$ds" /run/rdma-qos)"
check "... the catalog's host directory is under its /etc/cni mount" \
	[ "$(hp "$uds" /etc/cni)/rdma-qos" = "$(hp "$ds" /etc/cni/rdma-qos)" ]
check "... every container drops ALL capabilities, adds none, not privileged" [ "$(jq -c \
	'[(.spec.template.spec.initContainers + .spec.template.spec.containers)[].securityContext |
	[.privileged // false, .capabilities.drop, .capabilities.add]] | unique' "$uds")" = \
	'[[false,["ALL"],null]]' ]
check "both DaemonSets show an install or uninstall error in kubectl describe" [ "$(jq -s -c \
	'[.[] | .spec.template.spec | (.initContainers + .containers)[] | select(.image |
	startswith("rdma-qos")) | .terminationMessagePolicy] | unique' "$ds" "$uds")" = \
	'["FallbackToLogsOnError"]' ]

echo "== embedded CNI configs and catalogs through rdma-qos validate"
v() { "$B/rdma-qos" validate "$1" 2>&1; }
for f in $(find "$SRC/deploy" -name profiles.json | sort); do
	o=$(v "$f")
	check "rdma-qos validate ${f#"$SRC"/} (a kustomize catalog)" status_is 0 $? \
		grep -q 'valid catalog' <<< "$o" || echo "   $o"
done
for f in "$J"/*.json; do
	# a ConfigMap is ours when it holds profiles.json (the shared device plugin's holds config.json)
	case $(jq -r 'if .kind == "ConfigMap" and (.data["profiles.json"] | not) then "other"
		else .kind end' "$f") in
	ConfigMap | NetworkAttachmentDefinition)
		o=$(v "$f")
		check "rdma-qos validate $(basename "$f" .json) ($(jq -r .kind "$f"))" [ $? -eq 0 ] ||
			echo "   $o"
		;;
	esac
done
# what sriov-network-operator renders: [sriov, <metaPlugins>] in one conflist
pc=$J/sriovnetwork.yaml.0.json sn=$J/sriovnetwork.yaml.1.json
check "SriovNetworkPoolConfig puts the pool in exclusive RDMA mode" \
	[ "$(jq -r '.kind + " " + .spec.rdmaMode' "$pc")" = "SriovNetworkPoolConfig exclusive" ]
jq '{cniVersion: "1.0.0", name: .metadata.name, plugins: ([{type: "sriov",
	spoofchk: .spec.spoofChk, trust: .spec.trust, ipam: (.spec.ipam | fromjson)}] +
	("[" + .spec.metaPlugins + "]" | fromjson))}' "$sn" > "$T/sriov.conflist"
check "SriovNetwork renders the chain sriov -> rdma -> rdma-qos" \
	[ "$(jq -c '[.plugins[].type]' "$T/sriov.conflist")" = '["sriov","rdma","rdma-qos"]' ]
check "... rdma-qos declares the deviceID capability" \
	[ "$(jq '.plugins[2].capabilities.deviceID' "$T/sriov.conflist")" = true ]
o=$(v "$T/sriov.conflist")
check "... and the rendered conflist validates" status_is 0 $? \
	grep -q 'rdma-qos is plugins\[2\] of 3 (profile roce-lossless, pf ensure, numa strict)' <<< "$o"
# what network-operator renders from a HostDeviceNetwork: [host-device, <metaPlugins>]
hd=$J/hostdevicenetwork.yaml.0.json
jq '{cniVersion: "1.0.0", name: .metadata.name, plugins: ([{type: "host-device",
	ipam: (.spec.ipam | fromjson)}] + ("[" + .spec.metaPlugins + "]" | fromjson))}' "$hd" \
	> "$T/hostdev.conflist"
check "HostDeviceNetwork's metaPlugins render the chain host-device -> rdma-qos" \
	[ "$(jq -c '[.plugins[].type]' "$T/hostdev.conflist")" = '["host-device","rdma-qos"]' ]
o=$(v "$T/hostdev.conflist")
check "... and the rendered conflist validates" status_is 0 $? \
	grep -q 'rdma-qos is plugins\[1\] of 2' <<< "$o"
# what Multus does with the pod's cni-args: args.cni in every plugin of the selected NAD
pod=$J/pod-cni-args.yaml.0.json
sel=$(jq -r '.metadata.annotations["k8s.v1.cni.cncf.io/networks"]' "$pod")
nad=$J/nad-sriov.yaml.0.json
check "the pod selects nad-sriov.yaml's network in its namespace" same "$(jq -r '.[0] |
	.name + "/" + .namespace' <<< "$sel")" "$(jq -r '.metadata.name + "/" +
	.metadata.namespace' "$nad")"
jq --argjson a "$(jq '.[0]["cni-args"]' <<< "$sel")" '.spec.config | fromjson |
	.plugins[] += {args: {cni: $a}}' "$nad" > "$T/pod.conflist"
o=$(v "$T/pod.conflist")
check "the pod's cni-args select profile lossy over the NAD's roce-lossless" status_is 0 $? \
	grep -q '(profile lossy,' <<< "$o"
check "the pod requests the NAD's resource" same "$(jq -r '.spec.containers[0].resources.limits |
	keys[0]' "$pod")" "$(jq -r '.metadata.annotations["k8s.v1.cni.cncf.io/resourceName"]' "$nad")"
nic=$J/nic-configuration-operator.yaml
# the catalog is the overlay's (the ConfigMap the default install reads: tests/deploy/overlays.sh)
jq -n --rawfile c "$SRC/deploy/overlays/nic-configuration-operator/profiles.json" \
	'{data: {"profiles.json": $c}}' > "$nic.cat.json"
check "nic-configuration-operator: the operator's PFC string is the catalog profile's pfc" same "$(jq -r \
	'.spec.template.roceOptimized.qos.pfc | split(",") | to_entries |
	map(select(.value == "1") | .key) | tostring' "$nic.0.json")" "$(jq -r \
	'.data["profiles.json"] | fromjson | .profiles["operator-lossless"].pfc | tostring' "$nic.cat.json")"
check "... trust is the same" same "$(jq -r .spec.template.roceOptimized.qos.trust "$nic.0.json")" \
	"$(jq -r '.data["profiles.json"] | fromjson | .profiles["operator-lossless"].trust' "$nic.cat.json")"
qos='.spec.template.roceOptimized.qos' prof='.data["profiles.json"] | fromjson | .profiles["operator-lossless"]'
check "... the operator's ECN priority is the profile's ecn" same "$(jq -c "[$qos.ecn |
	select(.enabled) | .priority]" "$nic.0.json")" "$(jq -c "$prof.ecn" "$nic.cat.json")"
check "... the operator's port ToS is the profile's trafficClass" same "$(jq "$qos.tos" \
	"$nic.0.json")" "$(jq "$prof.trafficClass" "$nic.cat.json")"
check "... the operator turns global pause off (PFC needs it; rdma-qos leaves it)" \
	[ "$(jq "$qos.pauseFrames.enabled" "$nic.0.json")" = false ]
check "... the pods' NAD asks for pf verify, as the node allows" [ "$(jq -r '.spec.config | fromjson |
	.plugins[] | select(.type == "rdma-qos") | .pf' "$nic.1.json")" = verify ]
check "... and the node never writes the PF (node.pf verify)" [ "$(jq -r \
	'.data["profiles.json"] | fromjson | .node.pf' "$nic.cat.json")" = verify ]
echo "== shared RDMA devices: the shared device plugin, macvlan and ipvlan, MacvlanNetwork, host-network pods"
# examples/shared-macvlan.yaml: the plugin's ConfigMap, a NAD on the PF, one on its VLAN
sm=$J/shared-macvlan.yaml
dp=$(jq -r '.data["config.json"]' "$sm.0.json")
check "the shared device plugin's config.json: resource hca_shared_devices_a, rdmaHcaMax, selectors naming the PF" \
	[ "$(jq -c '.configList[0] | [.resourceName, (.rdmaHcaMax | type), .selectors.ifNames]' <<< "$dp")" = \
	'["hca_shared_devices_a","number",["ens1f0np0"]]' ]
res="rdma/$(jq -r '.configList[0].resourceName' <<< "$dp")"
pfs=$(jq -c '.configList[0].selectors.ifNames' <<< "$dp")
for d in "$sm.1.json" "$sm.2.json" "$J/shared-ipvlan.yaml.0.json"; do
	cl=$(jq '.spec.config | fromjson' "$d") n=$(jq -r .metadata.name "$d")
	lower=$(jq -r '.plugins[0].type' <<< "$cl")
	check "$n: the chain is [$lower, rdma-qos]" [ "$(jq -c '[.plugins[].type]' <<< "$cl")" = \
		"[\"$lower\",\"rdma-qos\"]" -a \( "$lower" = macvlan -o "$lower" = ipvlan \) ]
	check "... rdma-qos has no deviceID and declares no deviceID capability (no VF)" [ "$(jq -c \
		'.plugins[1] | [.deviceID, .capabilities, .runtimeConfig]' <<< "$cl")" = '[null,null,null]' ]
	check "... the master is a PF the shared device plugin selects (or a VLAN on it)" [ "$(jq --argjson p \
		"$pfs" '.plugins[0].master | sub("\\.[0-9]+$"; "") | IN($p[])' <<< "$cl")" = true ]
	check "... the NAD names the shared resource ($res)" [ "$(jq -r \
		'.metadata.annotations["k8s.v1.cni.cncf.io/resourceName"]' "$d")" = "$res" ]
	printf '%s\n' "$cl" > "$T/$n.conflist"
	o=$(v "$T/$n.conflist")
	check "... its conflist validates, as a shared RDMA device after $lower" status_is 0 $? \
		grep -q "rdma-qos is plugins\[1\] of 2 after $lower, a shared RDMA device" <<< "$o" || echo "   $o"
done
check "the VLAN variant's master is ens1f0np0.100" [ "$(jq -r '.spec.config | fromjson |
	.plugins[0].master' "$sm.2.json")" = ens1f0np0.100 ]
# what network-operator renders from a MacvlanNetwork (manifests/state-macvlan-network):
# [macvlan with master, mode, mtu (when not 0), ipam, <metaPlugins>], cniVersion 0.3.1
mv=$J/macvlannetwork.yaml.0.json
jq '{cniVersion: "0.3.1", name: .metadata.name, plugins: ([{type: "macvlan", master: .spec.master,
	mode: .spec.mode, ipam: (.spec.ipam | fromjson)} + (if .spec.mtu > 0 then {mtu: .spec.mtu}
	else {} end)] + ("[" + .spec.metaPlugins + "]" | fromjson))}' "$mv" > "$T/macvlan.conflist"
check "MacvlanNetwork's metaPlugins render the chain macvlan -> rdma-qos" \
	[ "$(jq -c '[.plugins[].type]' "$T/macvlan.conflist")" = '["macvlan","rdma-qos"]' ]
check "... on a PF the shared device plugin selects" [ "$(jq --argjson p "$pfs" '.spec.master | IN($p[])' "$mv")" = true ]
o=$(v "$T/macvlan.conflist")
check "... and the rendered conflist (cniVersion 0.3.1) validates" status_is 0 $? \
	grep -q 'rdma-qos is plugins\[1\] of 2 after macvlan' <<< "$o" || echo "   $o"
o=$(v "$SRC/examples/macvlannetwork.yaml")
check "... as rdma-qos validate reads the CR itself" status_is 0 $? \
	grep -q 'valid MacvlanNetwork, spec.metaPlugins: conflist "roce-shared-macvlan"' <<< "$o" || echo "   $o"
# host-network pods: the catalog maps the resource to the PFs the plugin selects
hn=$J/pod-shared-hostnetwork.yaml.0.json
check "the host-network pod is on the host network and requests $res" [ "$(jq -c --arg r "$res" \
	'[.spec.hostNetwork, .spec.containers[0].resources.limits[$r]]' "$hn")" = '[true,"1"]' ]
check "examples/profiles.json's node.sharedResources maps $res to the PFs the plugin selects" \
	[ "$(jq -c --arg r "$res" '.node.sharedResources[$r]' "$SRC/examples/profiles.json")" = "$pfs" ]
# the NCCL pod: its entrypoint finds net1's RoCE v2 GID index as show --pod names it
gp=$J/pod-shared-gid.yaml.0.json
check "the NCCL pod selects roce-shared in its namespace and requests $res" [ "$(jq -c --arg r "$res" '[
	(.metadata.annotations["k8s.v1.cni.cncf.io/networks"] | fromjson | .[0] | .name + "/" + .namespace),
	.spec.containers[0].resources.limits[$r]]' "$gp")" = "[\"$(jq -r '.metadata.name + "/" +
	.metadata.namespace' "$sm.1.json")\",\"1\"]" ]
G=$T/gid && mkdir -p "$G/bin" "$G/sys/class/infiniband/mlx5_0/ports/1/gids" \
	"$G/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types"
printf '#!/bin/sh\necho "5: net1    inet 10.99.0.11/24 brd 10.99.0.255 scope global net1"\n' > "$G/bin/ip"
chmod +x "$G/bin/ip"
gid() { echo "$2" > "$G/sys/class/infiniband/mlx5_0/ports/1/gids/$1"
	echo "$3" > "$G/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/$1"; }
# the PF's own address at 0/1, this pod's RoCE v1 then v2 at 2/3, another pod's v2 at 5
gid 1 0000:0000:0000:0000:0000:ffff:0a63:0001 "RoCE v2"
gid 2 0000:0000:0000:0000:0000:ffff:0a63:000b "IB/RoCE v1"
gid 3 0000:0000:0000:0000:0000:ffff:0a63:000b "RoCE v2"
gid 5 0000:0000:0000:0000:0000:ffff:0a63:000c "RoCE v2"
o=$(PATH=$G/bin:$PATH SYSFS=$G/sys timeout 20 sh -c "$(jq -r '.spec.containers[0].command[2]' "$gp")" \
	entrypoint sh -c 'echo "job: $NCCL_IB_HCA $NCCL_IB_GID_INDEX $*"' job -b 8 2>&1)
check "... its entrypoint sets NCCL_IB_GID_INDEX to net1's RoCE v2 GID (3, not v1's 2 nor another pod's 5)" \
	same "$(tail -1 <<< "$o")" "job: =mlx5_0 3 -b 8"
check "... the container's command passes its arguments through (entrypoint, then the job)" [ "$(jq -c \
	'.spec.containers[0].command[3:5]' "$gp")" = '["entrypoint","all_reduce_perf"]' ]
gid 3 0000:0000:0000:0000:0000:ffff:0a63:000b "IB/RoCE v1"
o=$(PATH=$G/bin:$PATH SYSFS=$G/sys timeout 20 sh -c "$(jq -r '.spec.containers[0].command[2]' "$gp")" \
	entrypoint true 2>&1)
check "... no RoCE v2 GID for net1's address: exits 1, saying so" status_is 1 $? \
	grep -q 'no RoCE v2 GID for it' <<< "$o"

echo "== the kubectl plugin's RBAC (deploy/kubectl-plugin/)"
# what a user of kubectl-rdma_qos needs (DESIGN.md, the kubectl plugin): cluster-wide get/list
# of pods, jobs and replicasets; in the agent's namespace get/list pods and pods/exec create
# AND get (kubectl 1.30+ execs over a WebSocket, a GET)
KP=$SRC/deploy/kubectl-plugin
out=$(k8s_check "$T/kpjson" "$KP/kustomization.yaml" "$KP/rbac.yaml" 2>&1)
check "deploy/kubectl-plugin passes (${out##*$'\n'})" [ $? -eq 0 ] || echo "$out"
kp_rules() { # KIND -> "apigroup/resource verb" lines of that role
	python3 -c 'import sys, yaml
for d in yaml.safe_load_all(open(sys.argv[1])):
    if d and d["kind"] == sys.argv[2]:
        print(d["metadata"].get("namespace", "-"))
        for r in d["rules"]:
            for g in r["apiGroups"]:
                for res in r["resources"]:
                    for v in r["verbs"]:
                        print((g or "core") + "/" + res, v)' "$KP/rbac.yaml" "$1" 2> /dev/null | sort
}
check "a ClusterRole: get/list pods, jobs, replicasets" [ "$(kp_rules ClusterRole | tr '\n' ' ')" = \
	"- apps/replicasets get apps/replicasets list batch/jobs get batch/jobs list core/pods get core/pods list " ]
check "a Role in rdma-qos: get/list pods, pods/exec create and get" [ "$(kp_rules Role | tr '\n' ' ')" = \
	"core/pods get core/pods list core/pods/exec create core/pods/exec get rdma-qos " ]
check "docs/operations.md names the roles" grep -q "rdma-qos-kubectl-plugin" "$SRC/docs/operations.md"
finish
