#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The release's consistency (tests/deploy/release-check.sh, also `make release-check`):
# the tree as it is must agree, and a copy with one place out of step must be caught.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
B=${RQ_BUILD:?}
SRC=$(cd "$HERE/../.." && pwd)
V=$(cat "$SRC/VERSION")
T=$(mktemp -d /tmp/rq-release.XXXXXX)
trap 'rm -rf "$T"' EXIT
rc() { bash "$HERE/release-check.sh" "$@" 2>&1; }

echo "== this tree"
out=$(rc "$SRC" "$B")
check "release-check passes on the tree ($V)" status_is 0 $? grep -q "$V agrees everywhere" <<< "$out" ||
	echo "$out"
check "LICENSE is Debian's Apache-2.0 text, byte for byte" \
	cmp -s "$SRC/LICENSE" /usr/share/common-licenses/Apache-2.0
check "CONTRIBUTING.md says how to cut a release" grep -q '^## Cutting a release' "$SRC/CONTRIBUTING.md"

echo "== a copy with one place out of step is caught"
# broken NAME FILE SED MESSAGE: a fresh copy, FILE edited, release-check fails naming it
broken() {
	rm -rf "$T/src" && mkdir "$T/src"
	(cd "$SRC" && tar -c --exclude='./build*' --exclude=./.git VERSION LICENSE CHANGELOG.md \
		CONTRIBUTING.md deploy docs) | tar -x -C "$T/src"
	sed -i "$3" "$T/src/$2"
	local o
	o=$(rc "$T/src" "$B")
	check "$1: refused, '$4'" status_is 1 $? grep -qF -- "$4" <<< "$o" || echo "   got: $o"
}
broken "VERSION bumped alone" VERSION "s/.*/9.9.9/" "rdma-qos --version prints 'rdma-qos $V"
check "a build of main says so: --version is VERSION+dev.g<12 hex of HEAD>, unless HEAD is tag vVERSION" \
	[ "$("$B/rdma-qos" --version)" = "rdma-qos $(make -s -C "$SRC" print-version)" -a \
	"$(make -s -C "$SRC" print-version RELEASE=0 REVISION=0123456789abcdef)" = "$V+dev.g0123456789ab" -a \
	"$(make -s -C "$SRC" print-version RELEASE=1)" = "$V" ]
broken "a stale kustomize tag" deploy/components/image/kustomization.yaml "s/newTag: .*/newTag: 0.0.1/" \
	"deploy/components/image/kustomization.yaml: newTag 0.0.1 for image rdma-qos"
broken "a stale image in a manifest" deploy/uninstall/daemonset.yaml "s/rdma-qos:$V/rdma-qos:0.0.1/" \
	"deploy/uninstall/daemonset.yaml:"
broken "a stale Containerfile default" deploy/Containerfile "s/^ARG VERSION=.*/ARG VERSION=0.0.1/" \
	"deploy/Containerfile: ARG VERSION=0.0.1"
broken "a missing OCI label" deploy/Containerfile "/org.opencontainers.image.revision=/d" \
	"no org.opencontainers.image.revision label"
broken "a CHANGELOG without the new release" CHANGELOG.md "s/^## \[$V\]/## [0.0.9]/" \
	"CHANGELOG.md: the top release is '0.0.9'"
# (the release's own notes: an Unreleased part above it may have some too)
broken "a release without upgrade notes" CHANGELOG.md "/^## \[$V\]/,/^### Upgrade notes/s/^### Upgrade notes/### Notes/" \
	"CHANGELOG.md: $V has no '### Upgrade notes'"
broken "a stale tag in the docs" docs/operations.md "0,/rdma-qos:$V/s//rdma-qos:0.0.1/" \
	"docs/operations.md:"
broken "no LICENSE text" LICENSE "s/Apache License/Some License/" "LICENSE: not the Apache-2.0 text"
rm -rf "$T/src" && mkdir -p "$T/src" && (cd "$SRC" && tar -c --exclude='./build*' VERSION LICENSE \
	CHANGELOG.md CONTRIBUTING.md deploy docs) | tar -x -C "$T/src"
mkdir -p "$T/src/deploy/helm/rdma-qos"
printf 'apiVersion: v2\nname: rdma-qos\nversion: 0.1.0\nappVersion: "0.0.1"\n' \
	> "$T/src/deploy/helm/rdma-qos/Chart.yaml"
o=$(rc "$T/src" "$B")
check "a Helm chart whose appVersion is not VERSION: refused" status_is 1 $? \
	grep -qF "deploy/helm/rdma-qos/Chart.yaml: appVersion '0.0.1'" <<< "$o"
finish
