#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# rdma-qos install and rdma-qos validate, run as the init container and an
# admin would. The production binary installs into a temporary bin dir (a
# host path under "/"); catalog cases use rdma-qos-sim, whose catalog path
# resolves under RDMA_QOS_SIM_ROOT, so the host's /etc/cni stays untouched.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
B=${RQ_BUILD:?}
SRC=$(cd "$HERE/../.." && pwd)
PROD=$B/rdma-qos SIMB=$B/rdma-qos-sim
T=$(mktemp -d /tmp/rq-install.XXXXXX)
OLDPID=""
cleanup() {
	[ -z "$OLDPID" ] || kill "$OLDPID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

ino() { stat -c %i "$1"; }
mode() { stat -c %a "$1"; }
no_tmp_left() { [ -z "$(find "$1" -name '.*.tmp')" ]; }

echo "== install: the production binary into a bin dir"
out=$("$PROD" install --cni-bin-dir "$T/opt/cni/bin" 2>&1)
check "install into a missing bin dir succeeds (it is created)" [ $? -eq 0 ]
check "... the installed binary is this binary" cmp -s "$PROD" "$T/opt/cni/bin/rdma-qos"
check "... mode 0755" [ "$(mode "$T/opt/cni/bin/rdma-qos")" = 755 ]
check "... logged as installed" grep -q "binary $T/opt/cni/bin/rdma-qos: installed" <<< "$out"
i1=$(ino "$T/opt/cni/bin/rdma-qos")
out=$("$PROD" install --cni-bin-dir "$T/opt/cni/bin" 2>&1)
check "a second install succeeds" [ $? -eq 0 ]
check "... and writes nothing when the bytes are equal (same inode, 'unchanged')" \
	[ "$(ino "$T/opt/cni/bin/rdma-qos") $(grep -c unchanged <<< "$out")" = "$i1 1" ]
check "... leaves no temporary file" no_tmp_left "$T/opt/cni/bin"

echo "== install over a binary that is executing"
mkdir -p "$T/busy"
# an older build: other bytes, still runnable
cp "$PROD" "$T/busy/rdma-qos" && printf 'old' >> "$T/busy/rdma-qos"
mkfifo "$T/stdin"
# the plugin blocks reading its config from stdin: a runtime's ADD in flight
CNI_COMMAND=VERSION "$T/busy/rdma-qos" < "$T/stdin" > "$T/old.out" 2>&1 &
OLDPID=$!
exec 7<> "$T/stdin"
sleep 0.3
check "the old binary is running" [ "$(readlink "/proc/$OLDPID/exe")" = "$T/busy/rdma-qos" ]
msg=$(cp "$PROD" "$T/busy/rdma-qos" 2>&1)
check "cp over the running binary fails (text file busy): the case install exists for" \
	grep -qi 'text file busy' <<< "$msg"
out=$("$PROD" install --cni-bin-dir "$T/busy" 2>&1)
check "install over the running binary succeeds" [ $? -eq 0 ]
check "... the new binary is in place" cmp -s "$PROD" "$T/busy/rdma-qos"
check "... the old process still runs its own (now unlinked) image" \
	grep -q "$T/busy/rdma-qos (deleted)" <<< "$(readlink "/proc/$OLDPID/exe")"
exec 7>&-
wait "$OLDPID"
rc=$?
OLDPID=""
check "... and finishes its command normally (VERSION, exit 0)" \
	[ "$rc $(jq -r .cniVersion "$T/old.out" 2>/dev/null)" = "0 1.0.0" ]
check "... no temporary file left" no_tmp_left "$T/busy"

echo "== install with a catalog (rdma-qos-sim, catalog under the simulated root)"
N=$T/node
S=(env RDMA_QOS_SIM_ROOT="$N" "$SIMB")
mkdir -p "$N"
CAT=$N/etc/cni/rdma-qos/profiles.json
out=$("${S[@]}" install --cni-bin-dir /opt/cni/bin --catalog-source "$SRC/examples/profiles.json" 2>&1)
check "install --catalog-source succeeds" [ $? -eq 0 ]
check "... the catalog is installed" cmp -s "$SRC/examples/profiles.json" "$CAT"
check "... the binary is installed under the root's /opt/cni/bin" \
	cmp -s "$SIMB" "$N/opt/cni/bin/rdma-qos-sim"
check "... the catalog came first" [ "$(grep -o -E '(catalog|binary) [^:]*: installed' <<< "$out" |
	cut -d' ' -f1 | tr '\n' ' ')" = "catalog binary " ]
jq '.node.pf = "verify"' "$SRC/examples/profiles.json" > "$T/cat2.json"
printf 'stale' >> "$N/opt/cni/bin/rdma-qos-sim"
i1=$(ino "$CAT")
out=$("${S[@]}" install --cni-bin-dir /opt/cni/bin --catalog-source "$T/cat2.json" 2>&1)
check "a changed catalog is installed (new inode: renamed into place)" \
	[ "$(cmp -s "$T/cat2.json" "$CAT" && echo same) $(ino "$CAT")" = "same $(ino "$CAT")" ]
check "... as a new file (renamed into place, not rewritten)" [ "$(ino "$CAT")" != "$i1" ]
check "... and a changed binary too" cmp -s "$SIMB" "$N/opt/cni/bin/rdma-qos-sim"

# a bad ConfigMap: the old catalog stays, and so does the binary (nothing is touched)
jq '.namespaces["ai-training"].default = "nope"' "$T/cat2.json" > "$T/bad.json"
printf 'stale' >> "$N/opt/cni/bin/rdma-qos-sim"
cp "$N/opt/cni/bin/rdma-qos-sim" "$T/before"
out=$("${S[@]}" install --cni-bin-dir /opt/cni/bin --catalog-source "$T/bad.json" 2>&1)
check "an invalid catalog source fails the install" [ $? -eq 1 ]
check "... naming the JSON path" \
	grep -q 'namespaces.ai-training.default: unknown profile "nope"' <<< "$out"
check "... the installed catalog is kept" cmp -s "$T/cat2.json" "$CAT"
check "... and the binary is not touched" cmp -s "$T/before" "$N/opt/cni/bin/rdma-qos-sim"
printf '{"profiles": ' > "$T/trunc.json"
out=$("${S[@]}" install --cni-bin-dir /opt/cni/bin --catalog-source "$T/trunc.json" 2>&1)
check "a truncated catalog fails (not JSON), the catalog is kept" \
	status_is 1 $? cmp -s "$T/cat2.json" "$CAT"
out=$("${S[@]}" install --cni-bin-dir /opt/cni/bin --catalog-source "$T/missing.json" 2>&1)
check "a missing catalog source fails, the catalog is kept" \
	status_is 1 $? cmp -s "$T/cat2.json" "$CAT"

echo "== uninstall: only once no attachment is recorded (rdma-qos-sim, simulated root)"
U=$T/unode
US=(env RDMA_QOS_SIM_ROOT="$U" "$SIMB")
mkdir -p "$U"
"${US[@]}" install --cni-bin-dir /opt/cni/bin --catalog-source "$SRC/examples/profiles.json" \
	> /dev/null 2>&1
UBIN=$U/opt/cni/bin/rdma-qos-sim UCAT=$U/etc/cni/rdma-qos/profiles.json
check "(installed: the binary)" [ -x "$UBIN" ]
check "(installed: the catalog)" [ -f "$UCAT" ]
mkdir -p "$U/run/rdma-qos/state/pf"
rec() { # KEY NS POD
	printf '{"podNamespace": "%s", "podName": "%s", "vf": "0000:3b:00.2"}' "$2" "$3" \
		> "$U/run/rdma-qos/state/$1.json"
}
rec roce_c1_net1 ai-training trainer-0
rec roce_c2_net1 ai-training trainer-1
out=$("${US[@]}" uninstall --cni-bin-dir /opt/cni/bin 2>&1)
rc=$?
check "with attachments recorded uninstall refuses (exit 1)" [ $rc -eq 1 ] || echo "   $out"
check "... naming each attachment and its pod" grep -q \
	'attachment roce_c1_net1 (pod ai-training/trainer-0) is still recorded' <<< "$out"
check "... and the second attachment (trainer-1)" grep -q 'attachment roce_c2_net1 (pod ai-training/trainer-1)' <<< "$out"
check "... saying what it leaves and why" grep -q '2 attachment(s) remain: the plugin binary' <<< "$out"
check "... the binary stays for their DEL" cmp -s "$SIMB" "$UBIN"
check "... and the catalog too" cmp -s "$SRC/examples/profiles.json" "$UCAT"
s0=$(date +%s.%N)
"${US[@]}" uninstall --cni-bin-dir /opt/cni/bin --wait 1 > /dev/null 2>&1
rc=$?
took=$(echo "$(date +%s.%N) - $s0" | bc)
check "--wait 1 with records that stay: exit 1 after about 1 s ($took s)" \
	status_is 1 $rc [ "$(echo "$took >= 1 && $took < 5" | bc)" = 1 ]
check "... the binary stays" [ -x "$UBIN" ]
# the pods' DELs come while uninstall waits
(sleep 1; rm "$U/run/rdma-qos/state/roce_c1_net1.json"; sleep 1
	rm "$U/run/rdma-qos/state/roce_c2_net1.json") &
out=$("${US[@]}" uninstall --cni-bin-dir /opt/cni/bin --wait 30 2>&1)
rc=$?
wait
check "--wait 30 while the records go: exit 0" [ $rc -eq 0 ] || echo "   $out"
check "... it said it waits" grep -q '2 attachment(s) recorded: waiting up to 30 s' <<< "$out"
check "... the binary is removed" [ ! -e "$UBIN" ]
check "... the catalog is removed" [ ! -e "$UCAT" ]
check "... and its directory (it held nothing else)" [ ! -e "$U/etc/cni/rdma-qos" ]
check "... the CNI bin dir itself stays (other plugins live there)" [ -d "$U/opt/cni/bin" ]
check "... logged" grep -q "binary /opt/cni/bin/rdma-qos-sim: removed" <<< "$out"
check "... the catalog's removal logged" grep -q "catalog /etc/cni/rdma-qos/profiles.json: removed" <<< "$out"
out=$("${US[@]}" uninstall --cni-bin-dir /opt/cni/bin 2>&1)
check "a second uninstall on the clean node exits 0 (idempotent)" [ $? -eq 0 ] || echo "   $out"
check "... saying what was already gone" \
	[ "$(grep -c 'already absent' <<< "$out")" = 2 ]
mkdir -p "$T/never"
out=$(env RDMA_QOS_SIM_ROOT="$T/never" "$SIMB" uninstall --cni-bin-dir /opt/cni/bin 2>&1)
check "uninstall on a node rdma-qos never ran on exits 0" [ $? -eq 0 ] || echo "   $out"
# the production binary: its own name in a host bin dir, catalog untouched elsewhere
"$PROD" install --cni-bin-dir "$T/pbin" > /dev/null 2>&1
cp "$SIMB" "$T/pbin/other-plugin"
check "(the production binary is installed)" [ -x "$T/pbin/rdma-qos" ]
"$PROD" uninstall --cni-bin-dir "$T/pbin" --bogus > /dev/null 2>&1
check "uninstall: an unknown option is refused, nothing removed" status_is 1 $? [ -x "$T/pbin/rdma-qos" ]
for w in -1 x 86401; do
	"$PROD" uninstall --cni-bin-dir "$T/pbin" --wait "$w" > /dev/null 2>&1
	check "uninstall: --wait $w is refused, nothing removed" status_is 1 $? [ -x "$T/pbin/rdma-qos" ]
done
"$PROD" uninstall --cni-bin-dir relative > /dev/null 2>&1
check "uninstall: a relative --cni-bin-dir is refused" [ $? -eq 1 ]

echo "== install usage"
"$PROD" install --cni-bin-dir relative/bin > /dev/null 2>&1
check "a relative --cni-bin-dir is refused" [ $? -eq 1 ]
"$PROD" install > /dev/null 2>&1
check "--cni-bin-dir is required" [ $? -eq 1 ]
"$PROD" install --cni-bin-dir "$T/x" --bogus > /dev/null 2>&1
check "an unknown option is refused" [ $? -eq 1 ]
check "... and nothing was created" [ ! -e "$T/x" ]

echo "== the log file is capped (logFile): past 8 MiB it becomes <name>.1"
L=$N/var/log/rdma-qos
mkdir -p "$L"
del_logged() {
	echo '{"cniVersion": "1.0.0", "name": "n", "type": "rdma-qos-sim", "logFile": "t.log",
		"logLevel": "debug"}' | env RDMA_QOS_SIM_ROOT="$N" CNI_COMMAND=DEL CNI_CONTAINERID=c1 \
		CNI_IFNAME=net1 CNI_NETNS= CNI_PATH=/nonexistent "$SIMB" > /dev/null
}
head -c 8000000 /dev/zero | tr '\0' x > "$L/t.log"
del_logged
check "below the cap the plugin appends to it" [ "$(stat -c %s "$L/t.log") $(ls "$L" | tr '\n' ' ')" \
	!= "8000000 t.log " ]
check "... and rotates nothing" [ ! -e "$L/t.log.1" ]
head -c 8388608 /dev/zero | tr '\0' x > "$L/t.log"
del_logged
check "at the cap the old log becomes t.log.1 (8 MiB)" [ "$(stat -c %s "$L/t.log.1")" = 8388608 ]
check "... and the plugin writes a new t.log" grep -q 'debug: n_c1_net1: no record' "$L/t.log"
check "... which is small" [ "$(stat -c %s "$L/t.log")" -lt 1000 ]

echo "== validate"
v() { "$PROD" validate "$@" 2>&1; }
out=$(v "$SRC/examples/profiles.json")
check "validate: examples/profiles.json is a valid catalog" \
	status_is 0 $? grep -q 'valid catalog, 4 profiles' <<< "$out"
out=$(v "$SRC/examples/conflist-host-device.json")
check "validate: examples/conflist-host-device.json is a valid conflist" \
	status_is 0 $? grep -q 'valid conflist "roce", rdma-qos is plugins\[1\] of 2' <<< "$out"
# expect_invalid NAME FILE MESSAGE: exit 1 and the message (which names the JSON path)
expect_invalid() {
	local out rc
	out=$(v "$2")
	rc=$?
	check "validate: $1 -> exit 1, '$3'" status_is 1 $rc grep -qF -- "$3" <<< "$out" ||
		echo "   got rc=$rc: $out"
}
jq '.profiles.fabric.ets.tcBw[0] = 30' "$SRC/examples/profiles.json" > "$T/v1.json"
expect_invalid "ETS bandwidths" "$T/v1.json" "profiles.fabric.ets.tcBw: percentages sum to"
jq '.plugins[1].numa = "sometimes"' "$SRC/examples/conflist-host-device.json" > "$T/v2.json"
expect_invalid "conflist entry" "$T/v2.json" "plugins[1].numa:"
jq '.plugins |= reverse' "$SRC/examples/conflist-host-device.json" > "$T/v3.json"
expect_invalid "rdma-qos first in the chain" "$T/v3.json" \
	"plugins[0].type: rdma-qos is a chained plugin"
jq 'del(.plugins[1])' "$SRC/examples/conflist-host-device.json" > "$T/v4.json"
expect_invalid "no rdma-qos entry" "$T/v4.json" "plugins: no rdma-qos entry"
jq -n --arg c "$(cat "$T/v2.json")" '{apiVersion: "k8s.cni.cncf.io/v1",
	kind: "NetworkAttachmentDefinition", metadata: {name: "x"}, spec: {config: $c}}' > "$T/v5.json"
expect_invalid "NAD spec.config" "$T/v5.json" "spec.config.plugins[1].numa:"
jq -n --arg c "$(cat "$T/v1.json")" '{apiVersion: "v1", kind: "ConfigMap",
	metadata: {name: "x"}, data: {"profiles.json": $c}}' > "$T/v6.json"
expect_invalid "ConfigMap catalog" "$T/v6.json" \
	'data["profiles.json"].profiles.fabric.ets.tcBw: percentages sum to'
printf '{"profiles": {}, "profiles": {}}' > "$T/v7.json"
expect_invalid "duplicate key" "$T/v7.json" "profiles: duplicate key"
printf 'kind: NetworkAttachmentDefinition\nspec:\n  config: [1, 2]\n' > "$T/v7y.yaml"
expect_invalid "YAML input validate does not read (a flow sequence): named" "$T/v7y.yaml" \
	"spec.config: expected a non-empty JSON string"
jq -n --arg c "$(cat "$SRC/examples/conflist-host-device.json")" '{apiVersion:
	"k8s.cni.cncf.io/v1", kind: "NetworkAttachmentDefinition", metadata: {name: "x"},
	spec: {config: $c}}' > "$T/v8.json"
out=$(v "$T/v8.json")
check "validate: a NAD with a good spec.config" status_is 0 $? \
	grep -q 'valid NetworkAttachmentDefinition, spec.config: conflist "roce"' <<< "$out"
# issue 42 item 11: NVIDIA's rdma-cni with rdmaQoS writes the class too: valid, with a warning
jq '.plugins |= [.[0], {"type": "rdma", "rdmaQoS": {"tos": 96, "tc": 96}}, .[1]]' \
	"$SRC/examples/conflist-host-device.json" > "$T/v9.json"
out=$(v "$T/v9.json")
check "validate: a chain whose rdma plugin sets rdmaQoS -> exit 0, a warning naming it" status_is 0 $? \
	grep -qF "warning: plugins[1].rdmaQoS: the rdma plugin (NVIDIA's rdma-cni) writes the RDMA device's class too (tos 96" <<< "$out"
out=$(v "$SRC/examples/conflist-host-device.json")
check "validate: ... and none without it" [ "$(grep -c warning <<< "$out")" = 0 ]
v /nonexistent > /dev/null
check "validate: a missing file -> exit 1" [ $? -eq 1 ]
finish
