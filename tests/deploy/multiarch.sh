#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# One Containerfile, two architectures, offline: deploy/Containerfile built with
# `podman build --platform linux/amd64` and `linux/arm64` on a local Debian 12
# base (mmdebstrap, amd64 with the arm64 cross compiler and arm64 libraries;
# no registry), both assembled into one manifest list. Checked: each image's
# config names its architecture, its binary is a static ELF of that
# architecture and the only file, the amd64 one runs --version in podman and
# the arm64 one under qemu-user, and the OCI labels carry the version and the
# source revision. Then deploy/uninstall's pod template is played with the amd64 image.
# Its own podman store (image.sh prunes its own).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
SRC=$(cd "$HERE/../.." && pwd)
CACHE=${RQ_IMAGE_CACHE:-/var/tmp/rdma-qos-image}
CJSON_CACHE=${RQ_CJSON_CACHE:-/var/tmp/rdma-qos-cjson}
MHD_CACHE=/var/tmp/rdma-qos-mhd
QEMU=$(command -v qemu-aarch64-static || command -v qemu-aarch64)
SUITE=bookworm
# what the build stage installs for either target (deploy/Containerfile), preinstalled
CROSS=gcc-aarch64-linux-gnu,libc6-dev-arm64-cross,libcjson-dev:arm64,libnl-3-dev:arm64
CROSS=$CROSS,libnl-route-3-dev:arm64,libprotobuf-c-dev:arm64,libnghttp2-dev:arm64
BASE_PKGS=gcc,libc6-dev,make,pkg-config,libcjson-dev,libnl-3-dev,libnl-route-3-dev,dpkg-dev
BASE_PKGS=$BASE_PKGS,libprotobuf-c-dev,protobuf-c-compiler,libnghttp2-dev,$CROSS
BASE_KEY=$(printf '%s %s %s' "$SUITE" amd64,arm64 "$BASE_PKGS" | sha256sum | cut -c1-12)
BASE_IMG=localhost/rq-debian-cross:$BASE_KEY
V=$(cat "$SRC/VERSION")
R=$(git -C "$SRC" rev-parse HEAD 2>/dev/null || echo unknown)
# a release's tree (VERSION X.Y.Z) builds as the release (RELEASE=1: --version X.Y.Z); main's
# (X.Y.Z-dev) cannot (make refuses RELEASE=1): its images say X.Y.Z-dev+g<commit>
if [[ $V == *-dev ]]; then REL=0 WANT="$V+g${R:0:12}"; else REL=1 WANT=$V; fi

prereqs() {
	[ "$(id -u)" = 0 ] || { echo "needs root (podman)"; return 1; }
	[ "$(uname -m)" = x86_64 ] || { echo "the build machine is $(uname -m), this test builds from amd64"; return 1; }
	local c
	for c in podman runc jq file; do
		command -v "$c" >/dev/null || { echo "no $c"; return 1; }
	done
	[ -n "$QEMU" ] || { echo "no qemu-user-static"; return 1; }
	[ -f "$CACHE/base-$BASE_KEY.tar" ] || command -v mmdebstrap >/dev/null ||
		{ echo "no mmdebstrap and no cached base"; return 1; }
	ls "$CJSON_CACHE"/cjson_*.dsc >/dev/null 2>&1 || { echo "no cJSON source in $CJSON_CACHE (make)"; return 1; }
}
if ! why=$(prereqs); then
	skip multiarch "$why"
	finish
fi

T=$(mktemp -d /tmp/rq-multiarch.XXXXXX)
image_podman "$T" multiarch
cleanup() {
	"${P[@]}" pod rm -a -f >/dev/null 2>&1
	"${P[@]}" rm -a -f >/dev/null 2>&1
	"${P[@]}" manifest rm "localhost/rdma-qos:$V-test" >/dev/null 2>&1
	"${P[@]}" image prune -f >/dev/null 2>&1
	rm -rf "$T"
}
trap 'exit 130' INT TERM
trap cleanup EXIT
mkdir -p "$MHD_CACHE"

echo "== base image (mmdebstrap, $SUITE, amd64 + arm64: the cross compiler and arm64 libraries)"
if [ ! -f "$CACHE/base-$BASE_KEY.tar" ]; then
	mmdebstrap --quiet --variant=apt --architectures=amd64,arm64 --include="$BASE_PKGS" "$SUITE" \
		"$CACHE/base-$BASE_KEY.tmp.tar" \
		"deb http://deb.debian.org/debian $SUITE main" \
		"deb http://deb.debian.org/debian $SUITE-updates main" \
		"deb http://deb.debian.org/debian-security $SUITE-security main" &&
		mv "$CACHE/base-$BASE_KEY.tmp.tar" "$CACHE/base-$BASE_KEY.tar"
fi
check "a Debian 12 amd64+arm64 base tarball exists (cached in $CACHE)" [ -f "$CACHE/base-$BASE_KEY.tar" ]
"${P[@]}" image exists "$BASE_IMG" || "${P[@]}" import -q "$CACHE/base-$BASE_KEY.tar" "$BASE_IMG" >/dev/null
check "the base is imported as $BASE_IMG" "${P[@]}" image exists "$BASE_IMG"

echo "== podman build --platform linux/{amd64,arm64} -f deploy/Containerfile"
img() { echo "localhost/rdma-qos:$V-$1"; }
for a in amd64 arm64; do
	s0=$(date +%s)
	# the cached cJSON and libmicrohttpd sources (per target triple) are mounted: no network.
	# podman 4.3 sets TARGETARCH from --platform but not BUILDPLATFORM (buildx and later
	# podman do): given here, or the build stage would be the target's platform
	# --no-cache: buildah 1.28 reuses a cached final stage whose LABEL build-args differ
	"${P[@]}" rmi -f "$(img $a)" >/dev/null 2>&1
	"${P[@]}" build -q --no-cache --platform "linux/$a" -f "$SRC/deploy/Containerfile" \
		--build-arg BUILDPLATFORM=linux/amd64 \
		--build-arg BASE="$BASE_IMG" --build-arg VERSION="$V" --build-arg REVISION="$R" \
		--build-arg RELEASE=$REL -v "$CJSON_CACHE:$CJSON_CACHE" -v "$MHD_CACHE:$MHD_CACHE" --network none \
		--target rdma-qos -t "$(img $a)" "$SRC" > "$T/build-$a.log" 2>&1
	rc=$?
	[ $rc -eq 0 ] || tail -30 "$T/build-$a.log"
	check "the $a image builds ($(($(date +%s) - s0)) s, no network)" [ $rc -eq 0 ]
done
"${P[@]}" manifest rm "localhost/rdma-qos:$V-test" >/dev/null 2>&1
"${P[@]}" manifest create "localhost/rdma-qos:$V-test" >/dev/null &&
	for a in amd64 arm64; do
		"${P[@]}" manifest add "localhost/rdma-qos:$V-test" "containers-storage:$(img $a)" >/dev/null
	done
m=$("${P[@]}" manifest inspect "localhost/rdma-qos:$V-test" 2>/dev/null)
check "one manifest list holds both: $(jq -c '[.manifests[].platform | .os + "/" + .architecture]' <<< "$m")" \
	[ "$(jq -c '[.manifests[].platform | .os + "/" + .architecture] | sort' <<< "$m")" = \
	'["linux/amd64","linux/arm64"]' ]

declare -A ELF=([amd64]='x86-64' [arm64]='ARM aarch64')
for a in amd64 arm64; do
	i=$(img "$a")
	conf=$("${P[@]}" image inspect "$i" 2>/dev/null)
	check "$a: the image config's architecture is $a, os linux" \
		[ "$(jq -r '.[0] | .Os + "/" + .Architecture' <<< "$conf")" = "linux/$a" ]
	lab() { jq -r --arg k "org.opencontainers.image.$1" '.[0].Labels[$k] // empty' <<< "$conf"; }
	check "$a: label version is $V" [ "$(lab version)" = "$V" ]
	check "$a: label revision is the tree's commit ($R)" [ "$(lab revision)" = "$R" ]
	check "$a: labels title, licenses (Apache-2.0)" [ "$(lab title) $(lab licenses)" = "rdma-qos Apache-2.0" ]
	c=$("${P[@]}" create "$i" 2>/dev/null)
	check "$a: the image holds the static binary and nothing else" \
		[ "$("${P[@]}" export "$c" | tar -t | sort | tr '\n' ' ')" = "rdma-qos " ]
	mkdir -p "$T/$a"
	"${P[@]}" cp "$c:/rdma-qos" "$T/$a/rdma-qos" >/dev/null 2>&1
	"${P[@]}" rm "$c" >/dev/null
	f=$(file -b "$T/$a/rdma-qos")
	echo "INFO: $a binary: $f"
	check "$a: the binary is an ELF for ${ELF[$a]}, static-pie" \
		grep -q "ELF 64-bit.*${ELF[$a]}.*static-pie linked" <<< "$f"
	check "$a: the binary carries the same revision for rdma_qos_build_info" \
		grep -qxF "$R" <(strings "$T/$a/rdma-qos")
done
check "amd64: podman runs it: --version prints 'rdma-qos $WANT' (RELEASE=$REL)" [ "$("${P[@]}" run --rm --network none \
	"$(img amd64)" --version 2>&1)" = "rdma-qos $WANT" ]
check "arm64: under qemu-user ($QEMU) --version prints 'rdma-qos $WANT'" \
	[ "$("$QEMU" "$T/arm64/rdma-qos" --version 2>&1)" = "rdma-qos $WANT" ]
check "arm64: CNI VERSION under qemu-user" [ "$(CNI_COMMAND=VERSION "$QEMU" "$T/arm64/rdma-qos" \
	< /dev/null | jq -r '.supportedVersions[-1]')" = 1.1.0 ]

# deploy/uninstall/'s pod template, played with the amd64 image against host paths under $H
# (as image.sh plays the DaemonSet): with a record it refuses and names the pod, without it
# removes the binary and the catalog and nothing else. The idle pause container (not
# available offline) is replaced by the image's --version.
NM=${RQ_NPM_CACHE:-/var/tmp/rdma-qos-npm}/node_modules
if ! command -v node >/dev/null || [ ! -d "$NM/yaml" ]; then
	skip "uninstall pod" "no node or no yaml module in $NM (manifests.sh installs it)"
	finish
fi
echo "== podman kube play: deploy/uninstall's pod template"
H=$T/host
node "$HERE/pod-template.mjs" "$NM" "$SRC/deploy/uninstall/daemonset.yaml" | jq --arg img "$(img amd64)" \
	--arg h "$H" '.metadata.annotations = {"io.podman.annotations.init.container.type": "always"} |
	.spec.restartPolicy = "Never" | .spec.initContainers[].image = $img |
	.spec.initContainers[0].command |= map(if startswith("--wait=") then "--wait=1" else . end) |
	.spec.containers[0] = (.spec.initContainers[0] | .name = "done" |
		.command = ["/rdma-qos", "--version"]) |
	.spec.volumes |= map(if .hostPath then .hostPath.path = $h + .hostPath.path else . end)' \
	> "$T/upod.json"
mkdir -p "$H/opt/cni/bin" "$H/etc/cni/net.d" "$H/etc/cni/rdma-qos" "$H/run/rdma-qos/state/pf"
cp "$T/amd64/rdma-qos" "$H/opt/cni/bin/rdma-qos"
cp "$T/amd64/rdma-qos" "$H/opt/cni/bin/host-device"
echo '{}' > "$H/etc/cni/net.d/10-other.conflist"
cp "$SRC/examples/profiles.json" "$H/etc/cni/rdma-qos/profiles.json"
printf '{"podNamespace": "ai-training", "podName": "trainer-0"}' \
	> "$H/run/rdma-qos/state/roce_c1_net1.json"
uplay() { # prints the uninstall init container's exit code
	"${P[@]}" pod rm -a -f >/dev/null 2>&1
	"${P[@]}" kube play --network none "$T/upod.json" > "$T/uplay.log" 2>&1 || cat "$T/uplay.log" >&2
	local st
	for _ in $(seq 60); do
		st=$("${P[@]}" inspect --format '{{.State.Status}} {{.State.ExitCode}}' \
			rdma-qos-uninstall-uninstall 2>/dev/null)
		case $st in exited*) break ;; esac
		sleep 0.5
	done
	echo "${st#* }"
}
ulog() { "${P[@]}" logs rdma-qos-uninstall-uninstall 2>&1; }
rc=$(uplay)
check "with a record the uninstall init container fails (exit 1)" [ "$rc" = 1 ] || ulog
check "... its log names the attachment and its pod" \
	grep -q 'attachment roce_c1_net1 (pod ai-training/trainer-0) is still recorded' <<< "$(ulog)"
check "... the binary stays" [ -x "$H/opt/cni/bin/rdma-qos" ]
check "... and the catalog stays" [ -f "$H/etc/cni/rdma-qos/profiles.json" ]
rm "$H/run/rdma-qos/state/roce_c1_net1.json"
rc=$(uplay)
check "without records it exits 0" [ "$rc" = 0 ] || ulog
check "... the binary is gone from the host's CNI bin dir" [ ! -e "$H/opt/cni/bin/rdma-qos" ]
check "... the catalog and its directory are gone" [ ! -e "$H/etc/cni/rdma-qos" ]
check "... the other plugin stays" [ -x "$H/opt/cni/bin/host-device" ]
check "... and the other CNI config stays" [ -f "$H/etc/cni/net.d/10-other.conflist" ]
check "... then the pod's idle container ran" [ "$("${P[@]}" logs rdma-qos-uninstall-done 2>&1)" = \
	"rdma-qos $WANT" ]
"${P[@]}" pod rm -a -f >/dev/null 2>&1
finish
