#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# rdma-qos validate on what a reader holds (issue 45 item 11): a NAD, a SriovNetwork or an
# example file as YAML or JSON, every document of a kind it reads; a key rdma-qos does not
# know is refused with the nearest known one (the runtime's and Multus's keys, and the
# GPUDirect ones, are known); --catalog resolves the profile as ADD would in the NAD's
# namespace. ADD's warning for the same typo is in tests/sim/tos.sh.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
B=${RQ_BUILD:?}
SRC=$(cd "$HERE/../.." && pwd)
T=$(mktemp -d /tmp/rq-validate.XXXXXX)
trap 'rm -rf "$T"' EXIT
v() { "$B/rdma-qos" validate "$@" 2>&1; }

# nad FILE KEYS: a NAD (YAML, config as a block scalar) whose rdma-qos entry carries KEYS
nad() {
	cat > "$1" <<-EOF2
	apiVersion: k8s.cni.cncf.io/v1
	kind: NetworkAttachmentDefinition
	metadata:
	  name: roce
	  namespace: ai-training # where the pods run
	spec:
	  config: |
	    {
	      "cniVersion": "1.0.0",
	      "name": "roce",
	      "plugins": [
	        { "type": "sriov", "spoofchk": "off" },
	        { "type": "rdma-qos", $2 "capabilities": { "deviceID": true } }
	      ]
	    }
	EOF2
}

echo "== a typo in a NAD key"
nad "$T/typo.yaml" '"profle": "roce-lossless",'
o=$(v "$T/typo.yaml")
check "YAML NAD with \"profle\": refused, naming the key and \"profile\"" status_is 1 $? \
	grep -qF 'spec.config.plugins[1].profle: unknown key (did you mean "profile"?)' <<< "$o" || echo "   $o"
python3 -c 'import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))' \
	"$T/typo.yaml" > "$T/typo.json"
o=$(v "$T/typo.json")
check "... the same NAD as JSON (kubectl get -o json): refused alike" status_is 1 $? \
	grep -qF 'did you mean "profile"?' <<< "$o" || echo "   $o"
jq '.spec.config | fromjson | .plugins[1]' "$T/typo.json" > "$T/typo.plugin.json"
jq '. + {cniVersion: "1.0.0", name: "roce"}' "$T/typo.plugin.json" > "$T/typo.one.json"
o=$(v "$T/typo.one.json")
check "... one plugin's config: refused" status_is 1 $? grep -qF 'profle: unknown key' <<< "$o"
nad "$T/far.yaml" '"qqqqqqqqq": 1,'
o=$(v "$T/far.yaml")
check "a key near nothing: refused, listing what rdma-qos knows" status_is 1 $? \
	grep -qF 'qqqqqqqqq: unknown key (rdma-qos knows type, profile, pf' <<< "$o" || echo "   $o"
nad "$T/case.yaml" '"Profile": "roce-lossless",'
o=$(v "$T/case.yaml")
check "a wrong case (\"Profile\"): refused, naming \"profile\"" status_is 1 $? \
	grep -qF 'did you mean "profile"?' <<< "$o"

echo "== known keys pass"
K='"profile": "roce-lossless", "pf": "ensure", "numa": "warn", "logLevel": "info", "logFile": "rq.log",'
K+=' "gdr": "warn", "gdrLevel": "pxb", "deviceID": "0000:3b:00.2", "runtimeConfig": {},'
nad "$T/known.yaml" "$K"' "args": {"cni": {}}, "cni.dev/valid-attachments": [],'
o=$(v "$T/known.yaml")
check "ours, gdr and gdrLevel, and the runtime's and Multus's keys: valid" status_is 0 $? \
	grep -q 'valid NetworkAttachmentDefinition' <<< "$o" || echo "   $o"
nad "$T/plain.yaml" '"profile": "roce-lossless",'
o=$(v "$T/plain.yaml")
check "... other plugins' keys in their own entries are not ours to judge (sriov's spoofchk)" \
	status_is 0 $? grep -q 'profile roce-lossless' <<< "$o"

echo "== against a catalog (--catalog): what ADD resolves in the NAD's namespace"
o=$(v "$T/plain.yaml" --catalog "$SRC/examples/profiles.json")
check "namespace ai-training (metadata.namespace) gets roce-lossless" status_is 0 $? \
	grep -qF 'namespace ai-training gets profile roce-lossless, pf ensure' <<< "$o" || echo "   $o"
o=$(v "$T/plain.yaml" --catalog "$SRC/examples/profiles.json" --namespace web)
check "... --namespace web, which may not use it: refused (101's reason)" status_is 1 $? \
	grep -qF 'is not allowed in namespace "web"' <<< "$o" || echo "   $o"
nad "$T/missing.yaml" '"profile": "roce-losless",'
o=$(v "$T/missing.yaml" --catalog "$SRC/examples/profiles.json")
check "... a profile the catalog lacks: refused" status_is 1 $? grep -q 'roce-losless' <<< "$o" || echo "   $o"
echo '{"profiles": {' > "$T/bad.json"
o=$(v "$T/plain.yaml" --catalog "$T/bad.json")
check "... an invalid catalog: refused, naming --catalog" status_is 1 $? grep -q '^--catalog ' <<< "$o"

echo "== SriovNetwork: the operator owns the NAD, metaPlugins is where rdma-qos goes"
o=$(v "$SRC/examples/sriovnetwork.yaml")
check "examples/sriovnetwork.yaml: its SriovNetwork's metaPlugins, chained after sriov" status_is 0 $? \
	grep -qF 'SriovNetwork, spec.metaPlugins: conflist' <<< "$o" || echo "   $o"
sed 's/"profile"/"profil"/' "$SRC/examples/sriovnetwork.yaml" > "$T/sn-typo.yaml"
o=$(v "$T/sn-typo.yaml")
check "... a typo there: refused under spec.metaPlugins" status_is 1 $? \
	grep -qF 'spec.metaPlugins.plugins[2].profil: unknown key (did you mean "profile"?)' <<< "$o" ||
	echo "   $o"
o=$(v "$SRC/examples/sriovnetwork.yaml" --catalog "$SRC/examples/profiles.json")
check "... against the example catalog in its networkNamespace" status_is 0 $? \
	grep -qF 'namespace ai-training gets profile' <<< "$o" || echo "   $o"

echo "== shared RDMA devices (issue 50): chains after macvlan and ipvlan"
# shared FILE LOWER ENTRY: a conflist [LOWER on ens1f0np0, {rdma-qos ENTRY}]
shared() {
	cat > "$1" <<-EOF2
	{ "cniVersion": "1.0.0", "name": "roce-shared", "plugins": [
	    { "type": "$2", "master": "ens1f0np0", "ipam": { "type": "host-local", "subnet": "10.99.0.0/24" } },
	    { "type": "rdma-qos", $3 "numa": "warn" } ] }
	EOF2
}
for lower in macvlan ipvlan; do
	shared "$T/$lower.json" $lower '"profile": "roce-lossless",'
	o=$(v "$T/$lower.json")
	check "[$lower, rdma-qos] without deviceID: valid, a shared RDMA device" status_is 0 $? \
		grep -qF "rdma-qos is plugins[1] of 2 after $lower, a shared RDMA device (profile roce-lossless" \
		<<< "$o" || echo "   $o"
	check "... a note (not an error, not a warning): the class is per device, 102 on a second one" same \
		"$(grep -c '^note: plugins\[1\]: after '"$lower"': the pod shares the PF.s RDMA device (no VF): a lossless profile.s class is ensured per device.*102' \
		<<< "$o")/$(grep -c '^warning: ' <<< "$o")" "1/0"
	check "... and where the pod's NCCL_IB_GID_INDEX is told" grep -qF 'NCCL_IB_GID_INDEX is in `rdma-qos show --pod`' <<< "$o"
	o=$(v "$T/$lower.json" --catalog "$SRC/examples/profiles.json" --namespace ai-training)
	check "... against the catalog in ai-training: roce-lossless, as for a VF" status_is 0 $? \
		grep -qF 'namespace ai-training gets profile roce-lossless' <<< "$o" || echo "   $o"
done
# what it refuses in a VF chain it refuses here
shared "$T/sh-typo.json" macvlan '"profle": "roce-lossless",'
o=$(v "$T/sh-typo.json")
check "a typo in rdma-qos after macvlan: refused, naming the key" status_is 1 $? \
	grep -qF 'plugins[1].profle: unknown key (did you mean "profile"?)' <<< "$o" || echo "   $o"
o=$(v "$T/sh-typo.json" 2>&1 | grep -c '^note: ')
check "... the error alone, no note beside it" same "$o" 0
jq '.plugins |= reverse' "$T/macvlan.json" > "$T/sh-first.json"
o=$(v "$T/sh-first.json")
check "rdma-qos before macvlan: refused (a chained plugin follows the one that gives the interface)" status_is 1 $? \
	grep -qF 'plugins[0].type: rdma-qos is a chained plugin: it must follow the plugin that gives the pod its interface (sriov, host-device, macvlan, ipvlan)' \
	<<< "$o" || echo "   $o"
shared "$T/sh-two.json" macvlan '"profile": "roce-lossless",'
jq '.plugins += [{"type": "rdma-qos"}]' "$T/sh-two.json" > "$T/sh-two2.json"
o=$(v "$T/sh-two2.json")
check "a second rdma-qos entry after macvlan: refused" status_is 1 $? grep -qF 'plugins[2]: a second rdma-qos entry' <<< "$o"
shared "$T/sh-pf.json" macvlan '"profile": "roce-lossless", "pf": "sure",'
o=$(v "$T/sh-pf.json")
check "a bad pf mode after macvlan: refused" status_is 1 $? grep -qF 'plugins[1].pf: expected one' <<< "$o" || echo "   $o"
o=$(v "$T/macvlan.json" --catalog "$SRC/examples/profiles.json" --namespace web)
check "a profile the namespace may not use after macvlan: refused (101's reason)" status_is 1 $? \
	grep -qF 'is not allowed in namespace "web"' <<< "$o" || echo "   $o"
shared "$T/sh-pci.json" macvlan '"profile": "roce-lossless", "deviceID": "0000:3b:00.2",'
o=$(v "$T/sh-pci.json")
check "a PCI deviceID after macvlan: valid, with a warning (ADD would take the VF path)" status_is 0 $? \
	grep -qF 'warning: plugins[1].deviceID: "0000:3b:00.2" is a PCI address: ADD takes the VF path, but macvlan gives the pod no VF' \
	<<< "$o" || echo "   $o"
jq '.plugins[0].type = "sriov" | del(.plugins[0].master)' "$T/macvlan.json" > "$T/vf.json"
o=$(v "$T/vf.json")
check "the same rdma-qos entry after sriov: no note (a VF chain)" status_is 0 $? same \
	"$(grep -c '^note: ' <<< "$o")/$(grep -c 'shared RDMA device' <<< "$o")" "0/0"
# the same as a NAD: the note under the document and spec.config
{ printf 'apiVersion: k8s.cni.cncf.io/v1\nkind: NetworkAttachmentDefinition\nmetadata:\n  name: roce-shared\n'
  printf '  namespace: ai-training\nspec:\n  config: |\n'; sed 's/^/    /' "$T/ipvlan.json"; } > "$T/ipvlan-nad.yaml"
o=$(v "$T/ipvlan-nad.yaml")
check "an ipvlan NAD: valid, the note names its document and spec.config" status_is 0 $? \
	grep -qF 'note: document 1: spec.config.plugins[1]: after ipvlan' <<< "$o" || echo "   $o"
echo "== MacvlanNetwork (network-operator): metaPlugins, rendered as [macvlan, ...]"
o=$(v "$SRC/examples/macvlannetwork.yaml")
check "examples/macvlannetwork.yaml: valid, its metaPlugins chained after macvlan" status_is 0 $? \
	grep -qF 'valid MacvlanNetwork, spec.metaPlugins: conflist "roce-shared-macvlan", rdma-qos is plugins[1] of 2 after macvlan' \
	<<< "$o" || echo "   $o"
check "... noted as a shared RDMA device, under spec.metaPlugins" \
	grep -qF 'note: document 1: spec.metaPlugins.plugins[1]: after macvlan' <<< "$o"
sed 's/"profile"/"profil"/' "$SRC/examples/macvlannetwork.yaml" > "$T/mv-typo.yaml"
o=$(v "$T/mv-typo.yaml")
check "... a typo there: refused under spec.metaPlugins" status_is 1 $? \
	grep -qF 'spec.metaPlugins.plugins[1].profil: unknown key (did you mean "profile"?)' <<< "$o" || echo "   $o"
grep -v -e '^  metaPlugins:' -e '"type": "rdma-qos"' "$SRC/examples/macvlannetwork.yaml" > "$T/mv-none.yaml"
o=$(v "$T/mv-none.yaml")
check "... without metaPlugins: refused, saying rdma-qos goes there" status_is 1 $? \
	grep -qF "spec.metaPlugins: required: rdma-qos is chained through the MacvlanNetwork's metaPlugins" <<< "$o" ||
	echo "   $o"
o=$(v "$SRC/examples/macvlannetwork.yaml" --catalog "$SRC/examples/profiles.json")
check "... against the example catalog in its networkNamespace" status_is 0 $? \
	grep -qF 'namespace ai-training gets profile roce-lossless' <<< "$o" || echo "   $o"
o=$(v "$SRC/examples/shared-macvlan.yaml")
check "the shared device plugin's ConfigMap beside the NADs: skipped (no profiles.json), the NADs read" status_is 0 $? \
	grep -qF 'valid (skipped ConfigMap without profiles.json); NetworkAttachmentDefinition' <<< "$o" || echo "   $o"
echo '{"node": {"sharedResources": {"hca_shared_devices_a": ["ens1f0np0", "ens1f0np0"]}}}' > "$T/sr.json"
o=$(v "$T/sr.json")
check "node.sharedResources: a resource without its prefix refused, naming it" status_is 1 $? \
	grep -qF 'node.sharedResources["hca_shared_devices_a"]: not a device plugin resource name' <<< "$o" || echo "   $o"
echo '{"node": {"sharedResources": {"rdma/hca_shared_devices_a": ["ens1f0np0", "ens1f0np0"]}}}' > "$T/sr.json"
o=$(v "$T/sr.json")
check "... a PF listed twice refused, by its path" status_is 1 $? \
	grep -qF 'node.sharedResources["rdma/hca_shared_devices_a"][1]: "ens1f0np0" is listed twice' <<< "$o" || echo "   $o"

echo "== every example that carries a NAD, SriovNetwork or MacvlanNetwork, as shipped"
for f in nad-sriov dra-sriov-multus nic-configuration-operator sriovnetwork shared-macvlan shared-ipvlan macvlannetwork; do
	o=$(v "$SRC/examples/$f.yaml")
	check "examples/$f.yaml: valid" status_is 0 $? grep -qE 'valid .*(NetworkAttachmentDefinition|SriovNetwork|MacvlanNetwork)' \
		<<< "$o" || echo "   $o"
done
o=$(v "$SRC/examples/nic-configuration-operator.yaml" --catalog \
	"$SRC/deploy/overlays/nic-configuration-operator/profiles.json")
check "examples/nic-configuration-operator.yaml against its overlay's catalog: pf verify" status_is 0 $? \
	grep -qF 'pf verify' <<< "$o" || echo "   $o"
o=$(v "$SRC/examples/pod-cni-args.yaml")
check "a file with nothing validate reads (a Pod): refused, saying so" status_is 1 $? \
	grep -q 'no NetworkAttachmentDefinition, SriovNetwork, MacvlanNetwork or ConfigMap' <<< "$o"
printf 'kind: NetworkAttachmentDefinition\nspec:\n  config: "{\n    x"\n' > "$T/multi.yaml"
o=$(v "$T/multi.yaml")
check "a YAML construct it does not read (multi-line quoted): refused with its line" status_is 1 $? \
	grep -q 'YAML line 3' <<< "$o" || echo "   $o"
echo "== every error in one run, each naming its path (issue 49 item 14)"
cat > "$T/three.json" <<'EOF2'
{"profiles": {"gold": {"pfc": [9], "trust": "dscp", "trafficClass": 106}},
 "namespaces": {"ai": {"allow": ["roce-losless", "gold"], "default": "gold"}},
 "node": {"wirring": [], "gdrLevel": "PIX"}}
EOF2
o=$(v "$T/three.json")
check "a catalog with three mistakes: exit 1, the three in one run, then how many" status_is 1 $? \
	same "$(grep -c '^/.*three.json: ' <<< "$o")" 4 || echo "   $o"
check "... a value out of range, by its path" grep -qF 'three.json: profiles.gold.pfc[0]: 9 out of range 0-7' <<< "$o"
check "... a profile name: did you mean roce-lossless" grep -qF \
	'namespaces.ai.allow[0]: unknown profile "roce-losless" (did you mean "roce-lossless"?)' <<< "$o"
check "... a catalog key: node.wirring, did you mean wiring" grep -qF \
	'node.wirring: unknown key (did you mean "wiring"?)' <<< "$o"
check "... node.gdrLevel \"PIX\" (as NCCL writes it) is not one of them" [ "$(grep -c gdrLevel <<< "$o")" = 0 ]
check "... the last line counts them" same "$(tail -1 <<< "$o")" "$T/three.json: 3 errors"
nad "$T/nad3.yaml" '"profle": "roce-lossless", "pf": "sure", "gdrLevel": "far",'
o=$(v "$T/nad3.yaml")
check "a NAD with three mistakes: the three, under spec.config.plugins[1]" status_is 1 $? same \
	"$(grep -cE 'spec.config.plugins\[1\]\.(profle: unknown key \(did you mean "profile"|pf: expected one|gdrLevel: expected one)' \
	<<< "$o")" 3 || echo "   $o"
nad "$T/pix.yaml" '"profile": "roce-lossless", "gdrLevel": "PIX",'
o=$(v "$T/pix.yaml")
check "gdrLevel \"PIX\" in a NAD: valid (any case)" status_is 0 $? grep -q 'valid NetworkAttachmentDefinition' \
	<<< "$o" || echo "   $o"
{ cat "$T/typo.yaml"; echo "---"; sed 's/name: roce$/name: roce2/' "$T/far.yaml"; } > "$T/two.yaml"
o=$(v "$T/two.yaml")
check "two NADs in one file, a mistake in each: both, by document" status_is 1 $? same \
	"$(grep -cE 'document (1: spec.config.plugins\[1\].profle|2: spec.config.plugins\[1\].qqqqqqqqq)' <<< "$o")" 2 ||
	echo "   $o"

echo "== warnings: valid, wrong in meaning; exit 0 when there is nothing else"
cat > "$T/meaning.json" <<'EOF2'
{"profiles": {"gold": {"trust": "dscp", "pfc": [3], "dscp2prio": {"26": 2}, "trafficClass": 106},
              "ecn": {"ecnRequired": true, "trafficClass": 104}},
 "node": {"wiring": [{"pf": "ens*", "partner": "leaf-*", "rail": "any"},
                     {"pf": "ens1f0", "partner": "leaf-r1-*", "rail": "r1"}]}}
EOF2
o=$(v "$T/meaning.json")
check "a catalog valid but wrong in meaning: exit 0, three warning: lines" status_is 0 $? \
	same "$(grep -c '^warning: ' <<< "$o")" 3 || echo "   $o"
check "... a lossless class whose DSCP maps to a priority without PFC" grep -qF \
	'warning: profiles.gold.trafficClass: 106 is DSCP 26, which dscp2prio maps to priority 2, and PFC is on priority 3 only' <<< "$o"
check "... a class without ECT when ECN is required" grep -qF \
	'warning: profiles.ecn.trafficClass: 104 has ECN bits 00 (Not-ECT) and ecnRequired is true' <<< "$o"
check "... a wiring rule an earlier one hides" grep -qF \
	'warning: node.wiring[1]: never used: node.wiring[0].pf "ens*" matches every PF its pf "ens1f0" matches' <<< "$o"
check "... and still valid, saying how many warnings" grep -qF 'valid catalog, 2 profiles' <<< "$o"
nad "$T/inline.yaml" '"qos": {"ecnRequired": true, "trafficClass": 104},'
o=$(v "$T/inline.yaml")
check "an inline profile's warning names its path in the NAD" status_is 0 $? grep -qF \
	'warning: document 1: spec.config.plugins[1].qos.trafficClass: 104 has ECN bits 00' <<< "$o" || echo "   $o"
o=$(v "$SRC/examples/profiles.json")
check "examples/profiles.json: valid, no warning" status_is 0 $? same "$(grep -c warning <<< "$o")" 0 ||
	echo "   $o"
echo "== what helm template writes: lists of mappings, flow mappings over two lines"
{ cat <<-'EOF2'
	apiVersion: apps/v1
	kind: DaemonSet
	metadata: { name: rdma-qos }
	spec:
	  template:
	    spec:
	      containers:
	        - name: agent
	          image: x
	          volumeMounts:
	            - { name: netns, mountPath: /var/run/netns, readOnly: true,
	                mountPropagation: HostToContainer }
	            - { name: run-netns, mountPath: /run/netns, readOnly: true,
	                mountPropagation: HostToContainer }
	      initContainers:
	      - name: install
	        image: x
	      tolerations: [ { operator: Exists,
	          effect: NoSchedule } ]
	---
	EOF2
  cat "$T/plain.yaml"; } > "$T/helmish.yaml"
o=$(v "$T/helmish.yaml")
check "a DaemonSet as helm writes it beside a NAD: skipped by kind, the NAD read" status_is 0 $? \
	grep -qF 'valid (skipped DaemonSet); NetworkAttachmentDefinition' <<< "$o" || echo "   $o"
finish
