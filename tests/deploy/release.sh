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
# copy: the tree's versioned files into a fresh $T/src
copy() {
	rm -rf "$T/src" && mkdir "$T/src"
	(cd "$SRC" && tar -c --exclude='./build*' --exclude=./.git VERSION LICENSE CHANGELOG.md \
		CONTRIBUTING.md README.md deploy docs) | tar -x -C "$T/src"
}
# broken NAME FILE SED MESSAGE [BUILD]: the copy (as it is: a fresh one unless KEEP=1), FILE
# edited, release-check fails naming it
broken() {
	[ "${KEEP:-0}" = 1 ] || copy
	sed -i "$3" "$T/src/$2"
	local o
	o=$(rc "$T/src" "${5:-$B}")
	check "$1: refused, '$4'" status_is 1 $? grep -qF -- "$4" <<< "$o" || echo "   got: $o"
}
# retag FROM TO: every place of the copy that carries the version, FROM -> TO (VERSION, the
# image tags, the Containerfile's default, the chart), as CONTRIBUTING.md's steps do
retag() {
	echo "$2" > "$T/src/VERSION"
	sed -i "s/newTag: $1\$/newTag: $2/" "$T/src/deploy/components/image/kustomization.yaml"
	grep -rlF "rdma-qos:$1" "$T/src/deploy" "$T/src/docs" | xargs -r sed -i "s/rdma-qos:$1\\b/rdma-qos:$2/g"
	sed -i "s/^ARG VERSION=$1\$/ARG VERSION=$2/" "$T/src/deploy/Containerfile"
	sed -i "s/^version: $1\$/version: $2/; s/^appVersion: \"$1\"/appVersion: \"$2\"/" "$T/src"/deploy/helm/*/Chart.yaml
}
# runbooks FROM TO: every runbook_url's blob/FROM/ -> blob/TO/
runbooks() { grep -rlF "blob/$1/" "$T/src/deploy" | xargs -r sed -i "s|/blob/$1/|/blob/$2/|g"; }
# fakebuild DIR VERSION-STRING: binaries that print what a build of that version prints
fakebuild() {
	mkdir -p "$1"
	for b in rdma-qos rdma-qos-sim; do printf '#!/bin/sh\necho "%s %s"\n' "$b" "$2" > "$1/$b"; chmod +x "$1/$b"; done
}
if [[ $V == *-dev ]]; then
	DEVV=$V RELV=${V%-dev}
	as_dev() { copy; }
	as_release() { # the release DEVV becomes: VERSION, tags, runbooks, its CHANGELOG entry
		copy
		retag "$DEVV" "$RELV"
		runbooks main "v$RELV"
		sed -i "0,/^## \[Unreleased\]\$/s//## [$RELV] - 2026-12-31\n\nTag \`v$RELV\` (a release cut by this test).\n\n### Upgrade notes\n\nNone./" \
			"$T/src/CHANGELOG.md"
	}
else
	RELV=$V DEVV=$(awk -F. '{ print $1 "." $2 + 1 ".0-dev" }' <<< "$V")
	as_release() { copy; }
	as_dev() { # main after the release: the next -dev, runbooks on main, [Unreleased] on top
		copy
		retag "$RELV" "$DEVV"
		runbooks "v$RELV" main
		sed -i "0,/^## \[/s/^## \[/## [Unreleased]\n\n## [/" "$T/src/CHANGELOG.md"
	}
fi
fakebuild "$T/rel" "$RELV"
fakebuild "$T/dev" "$DEVV+g0123456789ab"

broken "VERSION bumped alone" VERSION "s/.*/9.9.9/" "rdma-qos --version prints 'rdma-qos $V"
check "a build of main says so: --version is VERSION+g<12 hex of HEAD>, unless HEAD is tag vVERSION" \
	[ "$("$B/rdma-qos" --version)" = "rdma-qos $(make -s -C "$SRC" print-version)" -a \
	"$(make -s -C "$SRC" print-version RELEASE=0 REVISION=0123456789abcdef)" = "$V+g0123456789ab" -a \
	"$(make -s -C "$SRC" print-version RELEASE=0 REVISION=)" = "$V+unknown" -a \
	"$(make -s -C "$SRC" print-version RELEASE=1 VERSION="$RELV")" = "$RELV" ]
o=$(make -s -C "$SRC" print-version RELEASE=1 VERSION="$DEVV" 2>&1)
st=$?
check "RELEASE=1 of a -dev VERSION is refused: '$(tail -1 <<< "$o")'" status_is 2 $st \
	grep -qF "VERSION is $DEVV, not a release's X.Y.Z" <<< "$o"
tag=$(make -s -C "$SRC" print-image-tag RELEASE=0 VERSION="$DEVV" REVISION=0123456789abcdef)
check "a build of main's image tag: $tag (no '+', never a release's)" same "$tag" "$DEVV-g0123456789ab"
check "a release's image tag: the release" same "$(make -s -C "$SRC" print-image-tag RELEASE=1 VERSION="$RELV")" "$RELV"
check "... also for a release's tree built without RELEASE: not the release's tag" same \
	"$(make -s -C "$SRC" print-image-tag RELEASE=0 VERSION="$RELV" REVISION=0123456789abcdef)" "$RELV-g0123456789ab"
broken "a stale kustomize tag" deploy/components/image/kustomization.yaml "s/newTag: .*/newTag: 0.0.1/" \
	"deploy/components/image/kustomization.yaml: newTag 0.0.1 for image rdma-qos"
broken "a stale image in a manifest" deploy/uninstall/daemonset.yaml "s/rdma-qos:$V/rdma-qos:0.0.1/" \
	"deploy/uninstall/daemonset.yaml:"
broken "a stale Containerfile default" deploy/Containerfile "s/^ARG VERSION=.*/ARG VERSION=0.0.1/" \
	"deploy/Containerfile: ARG VERSION=0.0.1"
broken "a missing OCI label" deploy/Containerfile "/org.opencontainers.image.revision=/d" \
	"no org.opencontainers.image.revision label"
broken "a stale tag in the docs" docs/operations.md "0,/Set that image in/s//rdma-qos:0.0.1 &/" \
	"docs/operations.md:"
broken "a release's tag in README.md" README.md "0,/^## Images/s//rdma-qos:$RELV &/" "README.md:"
broken "a stale chart version" deploy/helm/rdma-qos/Chart.yaml "s/^version: .*/version: 0.0.1/" \
	"deploy/helm/rdma-qos/Chart.yaml: version '0.0.1'"
broken "no LICENSE text" LICENSE "s/Apache License/Some License/" "LICENSE: not the Apache-2.0 text"

echo "== main: the next release's -dev ($DEVV)"
as_dev
o=$(rc "$T/src" "$T/dev")
check "release-check passes on main's form ($DEVV, --version $DEVV+g<commit>)" status_is 0 $? \
	grep -q "$DEVV agrees everywhere" <<< "$o" || echo "$o"
fakebuild "$T/rel-as-dev" "$DEVV"
KEEP=1 broken "a -dev build that says the version alone" VERSION "" \
	"rdma-qos --version prints 'rdma-qos $DEVV', not" "$T/rel-as-dev"
as_dev
KEEP=1 broken "main's alerts linking to a release's runbooks" deploy/monitoring/prometheusrule.yaml \
	"0,/blob\/main\//s//blob\/v$RELV\//" "deploy/monitoring/prometheusrule.yaml:" "$T/dev"
as_dev
KEEP=1 broken "[Unreleased] not on top" CHANGELOG.md "0,/^## \[Unreleased\]\$/s//## [Unreleasd]/" \
	"CHANGELOG.md: VERSION is $DEVV, the top part is" "$T/dev"
as_dev
KEEP=1 broken "main left at the -dev of a release that is out" CHANGELOG.md \
	"0,/^## \[[0-9]/s/^## \[[0-9][0-9.]*\]/## [$RELV]/" \
	"CHANGELOG.md: release $RELV is out, VERSION $DEVV is not after it" "$T/dev"

echo "== a release ($RELV)"
as_release
o=$(rc "$T/src" "$T/rel")
check "release-check passes on a release's form ($RELV, --version $RELV, runbooks blob/v$RELV/)" status_is 0 $? \
	grep -q "$RELV agrees everywhere" <<< "$o" || echo "$o"
check "... both rule files link to the release's runbooks only" [ "$(grep -rh 'runbook_url:' "$T/src/deploy" |
	grep -c "/blob/v$RELV/docs/troubleshooting.md#alert-")" = "$(grep -rh 'runbook_url:' "$T/src/deploy" | wc -l)" ]
KEEP=1 broken "a release whose alerts link to main's runbooks" deploy/helm/rdma-qos/files/prometheusrule.yaml \
	"0,/blob\/v$RELV\//s//blob\/main\//" "deploy/helm/rdma-qos/files/prometheusrule.yaml:" "$T/rel"
as_release
KEEP=1 broken "a CHANGELOG without the new release" CHANGELOG.md "s/^## \[$RELV\]/## [0.0.9]/" \
	"CHANGELOG.md: the top release is '0.0.9'" "$T/rel"
as_release
# (the release's own notes: an Unreleased part above it may have some too)
KEEP=1 broken "a release without upgrade notes" CHANGELOG.md \
	"/^## \[$RELV\]/,/^## \[[0-9]/s/^### Upgrade notes/### Notes/" \
	"CHANGELOG.md: $RELV has no '### Upgrade notes'" "$T/rel"
as_release
KEEP=1 broken "a release's manifest left at -dev" deploy/base/daemonset.yaml "0,/rdma-qos:$RELV/s//rdma-qos:$DEVV/" \
	"deploy/base/daemonset.yaml:" "$T/rel"

copy
rm -rf "$T/src/deploy/helm"
mkdir -p "$T/src/deploy/helm/rdma-qos"
printf 'apiVersion: v2\nname: rdma-qos\nversion: %s\nappVersion: "0.0.1"\n' "$V" \
	> "$T/src/deploy/helm/rdma-qos/Chart.yaml"
o=$(rc "$T/src" "$B")
check "a Helm chart whose appVersion is not VERSION: refused" status_is 1 $? \
	grep -qF "deploy/helm/rdma-qos/Chart.yaml: appVersion '0.0.1'" <<< "$o"
finish
