#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The image, offline: a Debian 12 base made locally with mmdebstrap (no
# registry is reachable; cached like the VM kernel), deploy/Containerfile
# built with podman, the DaemonSet's pod template played with `podman kube
# play` (podman 4.3 cannot play a DaemonSet) against host-path directories:
# binary and catalog land, a second run over a running binary succeeds, a
# bad ConfigMap keeps the old catalog. Then the same template with the
# test-only rdma-qos-sim image installs rdma-qos-sim, and cnitool runs the chain from that
# bin dir (tests/clients/run.sh's cnitool case).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
SRC=$(cd "$HERE/../.." && pwd)
NM=${RQ_NPM_CACHE:-/var/tmp/rdma-qos-npm}/node_modules
VERSION=$(cat "$SRC/VERSION")
image_vars "$SRC"

prereqs() {
	image_prereqs || return 1
	local c
	for c in catatonit node jq; do
		command -v "$c" >/dev/null || { echo "no $c"; return 1; }
	done
	[ -d "$NM/yaml" ] || { echo "no yaml module in $NM (manifests.sh installs it)"; return 1; }
}
if ! why=$(prereqs); then
	skip image "$why"
	finish
fi

T=$(mktemp -d /tmp/rq-image.XXXXXX)
OLDPID=""
image_podman "$T"
cleanup() {
	[ -z "$OLDPID" ] || kill "$OLDPID" 2>/dev/null
	"${P[@]}" pod rm -a -f >/dev/null 2>&1
	"${P[@]}" rm -a -f >/dev/null 2>&1
	"${P[@]}" image prune -f >/dev/null 2>&1
	awk -v t="$T/" 'index($2, t) == 1 {print $2}' /proc/self/mounts | sort -r | xargs -r -n1 umount -l
	rm -rf "$T"
}
trap 'exit 130' INT TERM
trap cleanup EXIT
echo "== base image (mmdebstrap, $SUITE: $BASE_PKGS)"
image_base
check "a Debian 12 base tarball exists (cached in $CACHE)" [ -f "$CACHE/base-$BASE_KEY.tar" ]
check "the base is imported as $BASE_IMG" "${P[@]}" image exists "$BASE_IMG"

echo "== podman build -f deploy/Containerfile"
build() { image_build "$1" test "$T/build-$1.log"; }
s0=$(date +%s)
build rdma-qos
rc=$? took=$(($(date +%s) - s0))
check "the image builds from source on the local base ($took s)" [ $rc -eq 0 ]
build rdma-qos-sim
rc=$?
check "the test-only rdma-qos-sim target builds" [ $rc -eq 0 ]
files() { # IMAGE: every path in the image's filesystem
	local c
	c=$("${P[@]}" create "$1") && "${P[@]}" export "$c" | tar -t | sort | tr '\n' ' '
	"${P[@]}" rm "$c" >/dev/null
}
check "the image holds the static binary and nothing else" \
	[ "$(files localhost/rdma-qos:test)" = "rdma-qos " ]
ver=$("${P[@]}" run --rm --network none localhost/rdma-qos:test --version)
check "its entrypoint runs it: --version prints 'rdma-qos $VERSION+g<commit>' (not a release build)" \
	bash -c '[[ $1 =~ ^rdma-qos\ ${2//./\\.}\+(g[0-9a-f]{12}|unknown)$ ]]' _ "$ver" "$VERSION"
c=$("${P[@]}" create localhost/rdma-qos:test) && "${P[@]}" cp "$c:/rdma-qos" "$T/image-rdma-qos" &&
	"${P[@]}" rm "$c" > /dev/null
check "the image's binary is static-pie" grep -q 'static-pie linked' <<< "$(file -b "$T/image-rdma-qos")"
echo "INFO: image size $("${P[@]}" image inspect --format '{{.Size}}' localhost/rdma-qos:test) bytes"

# pod IMAGE BIN HOST: the DaemonSet's pod template as a Pod against host paths under HOST. The
# agent needs issue 13: its container runs --version instead. Init containers are kept
# ("always") so that their logs can be read. The kube-rbac-proxy sidecar (it needs an API
# server), its token volume and the agent's HTTP probes are left out.
pod() {
	node "$HERE/pod-template.mjs" "$NM" "$SRC/deploy/base/daemonset.yaml" | jq --arg img "$1" \
		--arg bin "/$2" --arg h "$3" '.metadata.annotations =
		{"io.podman.annotations.init.container.type": "always"} |
		.spec.restartPolicy = "Never" | del(.spec.priorityClassName) |
		.spec.containers |= map(select(.name != "kube-rbac-proxy") |
			del(.livenessProbe, .readinessProbe)) |
		.spec.volumes |= map(select(.projected == null)) |
		.spec.initContainers[].image = $img | .spec.containers[].image = $img |
		.spec.initContainers[0].command[0] = $bin |
		.spec.containers[0].command = [$bin, "--version"] |
		.spec.volumes |= map(if .hostPath then .hostPath.path = $h + .hostPath.path else . end)'
}
# play POD.json CONFIGMAP.yaml: kube play, wait until the install container has exited;
# prints its exit code
play() {
	"${P[@]}" pod rm -a -f >/dev/null 2>&1
	"${P[@]}" kube play --configmap "$2" "$1" > "$T/play.log" 2>&1
	local st
	for _ in $(seq 60); do
		st=$("${P[@]}" inspect --format '{{.State.Status}} {{.State.ExitCode}}' \
			rdma-qos-install 2>/dev/null)
		case $st in exited*) break ;; esac
		sleep 0.5
	done
	echo "${st#* }"
}
install_log() { "${P[@]}" logs rdma-qos-install 2>&1; }

echo "== podman kube play: the DaemonSet's pod template"
H=$T/host
pod localhost/rdma-qos:test rdma-qos "$H" > "$T/pod.json"
for d in $(jq -r '.spec.volumes[].hostPath.path // empty' "$T/pod.json"); do mkdir -p "$d"; done
BIN=$H/opt/cni/bin/rdma-qos CAT=$H/etc/cni/rdma-qos/profiles.json
# the ConfigMap deploy/base's generator makes (kube play takes it under its plain name)
cp "$SRC/deploy/base/profiles.json" "$T/configmap-catalog.json"
jq -Rs '{apiVersion: "v1", kind: "ConfigMap", metadata: {name: "rdma-qos-catalog"},
	data: {"profiles.json": .}}' "$T/configmap-catalog.json" > "$T/configmap.yaml"
rc=$(play "$T/pod.json" "$T/configmap.yaml")
check "the install init container exits 0" status_is 0 "$rc" \
	grep -q "binary /host/opt/cni/bin/rdma-qos: installed" <<< "$(install_log)" ||
	{ cat "$T/play.log"; install_log; }
check "the binary landed in the host's CNI bin dir" cmp -s "$T/image-rdma-qos" "$BIN"
check "... executable (0755)" [ "$(stat -c %a "$BIN")" = 755 ]
check "the ConfigMap's catalog landed as /etc/cni/rdma-qos/profiles.json" \
	cmp -s "$T/configmap-catalog.json" "$CAT"
# the pod's agent container runs the image's --version: the same build as above
check "the agent container started after it (it printed the image's version)" \
	[ "$("${P[@]}" logs rdma-qos-agent 2>&1)" = "$ver" ]
check "the installed binary answers CNI VERSION on the host" [ "$(CNI_COMMAND=VERSION "$BIN" \
	< /dev/null | jq -r '.supportedVersions[-1]')" = 1.1.0 ]

echo "== a second run while the installed binary is executing"
printf 'old' >> "$BIN"
cp "$CAT" "$T/cat.before"
mkfifo "$T/stdin"
CNI_COMMAND=VERSION "$BIN" < "$T/stdin" > /dev/null 2>&1 &
OLDPID=$!
exec 7<> "$T/stdin"
sleep 0.3
check "the old binary is executing" grep -q "^$BIN" <<< "$(readlink "/proc/$OLDPID/exe")"
rc=$(play "$T/pod.json" "$T/configmap.yaml")
check "the second install exits 0 over the running binary" [ "$rc" = 0 ] || install_log
check "... and replaced it" cmp -s "$T/image-rdma-qos" "$BIN"
check "... the catalog was unchanged and left alone" grep -q 'catalog .*: unchanged' <<< "$(install_log)"
check "... the old process still runs" kill -0 "$OLDPID"
exec 7>&-
wait "$OLDPID"
OLDPID=""

echo "== a bad ConfigMap keeps the old catalog"
sed 's/"default": "lossy", "allow": \["lossy"\]/"default": "lossy", "allow": ["nope"]/' \
	"$T/configmap-catalog.json" | jq -Rs '{apiVersion: "v1", kind: "ConfigMap",
	metadata: {name: "rdma-qos-catalog"}, data: {"profiles.json": .}}' > "$T/bad-configmap.yaml"
check "(the bad ConfigMap differs)" [ "$(cmp -s "$T/configmap.yaml" \
	"$T/bad-configmap.yaml" && echo same)" != same ]
printf 'old' >> "$BIN"
cp "$BIN" "$T/bin.before"
rc=$(play "$T/pod.json" "$T/bad-configmap.yaml")
check "the install init container fails (exit 1)" [ "$rc" = 1 ]
check "... its log names the JSON path" \
	grep -q 'namespaces.\*.allow\[0\]: unknown profile "nope"; the installed catalog is kept' \
	<<< "$(install_log)"
check "... the old catalog is kept" cmp -s "$T/cat.before" "$CAT"
check "... and the binary is not touched" cmp -s "$T/bin.before" "$BIN"
check "... the agent container never started" \
	[ "$("${P[@]}" inspect --format '{{.State.Status}}' rdma-qos-agent 2>/dev/null)" != exited ]
"${P[@]}" pod rm -a -f >/dev/null 2>&1

# The whole client suite (cnitool, podman, containerd) runs once, in clients-test, on the host
# build; here cnitool, a real client, drives ADD, CHECK (x4, a drift caught) and DEL through
# the binary the image installed (the same suite's cnitool case: the same checks).
echo "== cnitool runs the chain from the bin dir the image installed"
HS=$T/host-sim
pod localhost/rdma-qos-sim:test rdma-qos-sim "$HS" | jq '.spec.initContainers[0].env =
	[{name: "RDMA_QOS_SIM_ROOT", value: "/"}] | .spec.containers[0].env =
	[{name: "RDMA_QOS_SIM_ROOT", value: "/"}]' > "$T/pod-sim.json"
for d in $(jq -r '.spec.volumes[].hostPath.path // empty' "$T/pod-sim.json"); do mkdir -p "$d"; done
rc=$(play "$T/pod-sim.json" "$T/configmap.yaml")
check "the rdma-qos-sim image installs rdma-qos-sim" \
	status_is 0 "$rc" [ -x "$HS/opt/cni/bin/rdma-qos-sim" ] || install_log
"${P[@]}" pod rm -a -f >/dev/null 2>&1
RQ_CLIENTS=cnitool RQ_BUILD=$HS/opt/cni/bin bash "$SRC/tests/clients/run.sh" > "$T/clients.log" 2>&1
rc=$?
check "tests/clients/run.sh's cnitool case passes with rdma-qos-sim from that bin dir ($(tail -1 "$T/clients.log"))" \
	[ $rc -eq 0 ] || tail -20 "$T/clients.log"
finish
