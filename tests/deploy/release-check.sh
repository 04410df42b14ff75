#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# make release-check: every place that carries the version agrees with VERSION.
#   tests/deploy/release-check.sh SRC BUILD   (BUILD holds rdma-qos and rdma-qos-sim)
# VERSION is a release's X.Y.Z, or on main the next release's X.Y.Z-dev (CONTRIBUTING.md
# "Versions"). Checked: `rdma-qos --version` (and rdma-qos-sim's: VERSION for a release
# build, VERSION+g<commit> for any other; a -dev VERSION never alone); the image tag of
# every kustomization under deploy/ (images[].newTag for rdma-qos) and every
# `image: rdma-qos:TAG` in deploy/; the Containerfile's VERSION build-arg default and
# every rdma-qos:TAG it, README.md or the docs mention; `--set image.tag=X` in the docs;
# deploy/helm/*/Chart.yaml version and appVersion; every alert's runbook_url: a release's
# rules link to its own tag's runbooks (blob/vX.Y.Z/), main's to main's (blob/main/);
# CHANGELOG.md: a release's VERSION is its top release, a -dev VERSION has [Unreleased]
# on top and is newer than every release; each release with an "Upgrade notes" part and
# its tag named; LICENSE is the Apache-2.0 text.
# Prints each disagreement; exit 1 if any.
set -u
SRC=${1:?SRC} B=${2:?BUILD}
bad=0
no() { echo "release-check: $*"; bad=$((bad + 1)); }
V=$(cat "$SRC/VERSION" 2>/dev/null)
DEV=0
if [[ $V =~ ^[0-9]+\.[0-9]+\.[0-9]+-dev$ ]]; then
	DEV=1
elif ! [[ $V =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
	no "VERSION: '$V' is not X.Y.Z (a release) or X.Y.Z-dev (main, before release X.Y.Z)"
fi
# a tag as the docs and manifests write it: X.Y.Z or X.Y.Z-dev
TAG_RE='[0-9]+\.[0-9]+\.[0-9]+(-dev)?'

# a release build prints VERSION, any other VERSION+g<commit> (CONTRIBUTING.md "Versions")
for b in rdma-qos rdma-qos-sim; do
	got=$("$B/$b" --version 2>&1)
	if [ $DEV = 1 ]; then
		[[ $got =~ ^$b\ ${V//./\\.}\+(g[0-9a-f]{12}|unknown)$ ]] ||
			no "$b --version prints '$got', not '$b $V+g<commit>' (rebuild after a VERSION change)"
	else
		[[ $got =~ ^$b\ ${V//./\\.}(\+(g[0-9a-f]{12}|unknown))?$ ]] ||
			no "$b --version prints '$got', not '$b $V' or '$b $V+g<commit>' (rebuild after a VERSION change)"
	fi
done

# kustomizations: the rdma-qos image's newTag
while IFS= read -r k; do
	tags=$(awk '/^images:/ {i = 1; next} /^[^ ]/ {i = 0}
		i && /- name:/ {n = ($3 == "rdma-qos")} i && n && /newTag:/ {print $2}' "$k")
	for t in $tags; do
		[ "$t" = "$V" ] || no "${k#"$SRC"/}: newTag $t for image rdma-qos, VERSION is $V"
	done
done < <(find "$SRC/deploy" -name kustomization.yaml | sort)

# every rdma-qos:TAG written in deploy/, docs/ and README.md (image fields, build commands)
while IFS=: read -r f line text; do
	for t in $(grep -oE "rdma-qos:$TAG_RE" <<< "$text" | cut -d: -f2); do
		[ "$t" = "$V" ] || no "${f#"$SRC"/}:$line: rdma-qos:$t, VERSION is $V"
	done
done < <(grep -rnE "rdma-qos:$TAG_RE" "$SRC/deploy" "$SRC/docs" "$SRC/CONTRIBUTING.md" "$SRC/README.md" \
	--include='*.yaml' --include='*.md' --include=Containerfile --include='*.tpl' 2>/dev/null)

# the chart's image tag as the docs pass it (helm --set image.tag=X.Y.Z)
while IFS=: read -r f line text; do
	t=$(grep -oE "image\.tag=$TAG_RE" <<< "$text" | head -1 | cut -d= -f2)
	[ "$t" = "$V" ] || no "${f#"$SRC"/}:$line: image.tag=$t, VERSION is $V"
done < <(grep -rnE "image\.tag=$TAG_RE" "$SRC/docs" "$SRC/deploy" "$SRC/CONTRIBUTING.md" "$SRC/README.md" \
	--include='*.md' --include='*.yaml' 2>/dev/null)

cf=$SRC/deploy/Containerfile
d=$(sed -n 's/^ARG VERSION=\(.*\)$/\1/p' "$cf")
[ "$d" = "$V" ] || no "deploy/Containerfile: ARG VERSION=$d (the label's default), VERSION is $V"
for l in title description version revision source licenses; do
	grep -q "org.opencontainers.image.$l=" "$cf" || no "deploy/Containerfile: no org.opencontainers.image.$l label"
done

for chart in "$SRC"/deploy/helm/*/Chart.yaml; do
	[ -f "$chart" ] || continue
	for k in version appVersion; do
		a=$(sed -n "s/^$k: *\"\{0,1\}\([^\"]*\)\"\{0,1\} *\$/\1/p" "$chart")
		[ "$a" = "$V" ] || no "${chart#"$SRC"/}: $k '$a', VERSION is $V"
	done
done

# the runbooks an alert links to: a release's own tag's, main's on main (the rules of a
# release read only what that release exports, and its runbooks say what it does)
if [ $DEV = 1 ]; then ref=main; else ref=v$V; fi
while IFS=: read -r f line text; do
	[[ $text == *"/blob/$ref/"* ]] ||
		no "${f#"$SRC"/}:$line: runbook_url $(grep -o 'https://[^ ]*' <<< "$text" | head -1) is not blob/$ref/ (VERSION is $V)"
done < <(grep -rn 'runbook_url:' "$SRC/deploy" --include='*.yaml' 2>/dev/null)

cl=$SRC/CHANGELOG.md
if [ ! -f "$cl" ]; then
	no "CHANGELOG.md is missing"
else
	rels=$(sed -n 's/^## \[\([0-9][0-9.]*\)\] - [0-9]\{4\}-[0-9]\{2\}-[0-9]\{2\}$/\1/p' "$cl")
	top=$(head -1 <<< "$rels")
	if [ $DEV = 1 ]; then
		first=$(grep -m1 '^## \[' "$cl")
		[ "$first" = "## [Unreleased]" ] || no "CHANGELOG.md: VERSION is $V, the top part is '$first', not '## [Unreleased]'"
		# X.Y.Z-dev comes before X.Y.Z: that release is not out, and is newer than every one that is
		base=${V%-dev}
		[ -z "$top" ] || { [ "$top" != "$base" ] && [ "$(printf '%s\n' "$top" "$base" | sort -V | tail -1)" = "$base" ]; } ||
			no "CHANGELOG.md: release $top is out, VERSION $V is not after it (bump VERSION to the next X.Y.Z-dev)"
	else
		[ "$top" = "$V" ] || no "CHANGELOG.md: the top release is '$top', VERSION is $V"
	fi
	for r in $rels; do
		# the release's own part: from its heading to the next release heading
		part=$(awk -v r="## [$r]" 'index($0, r) == 1 {p = 1; next} /^## \[/ {p = 0} p' "$cl")
		grep -q '^### Upgrade notes' <<< "$part" || no "CHANGELOG.md: $r has no '### Upgrade notes'"
		grep -q "^Tag \`v$r\`" <<< "$part" || no "CHANGELOG.md: $r does not name its tag (Tag \`v$r\` ...)"
	done
	[ -z "$(grep '^## \[' "$cl" | grep -vE '^## \[(Unreleased|[0-9]+\.[0-9]+\.[0-9]+)\]')" ] ||
		no "CHANGELOG.md: a release heading is not '## [X.Y.Z] - YYYY-MM-DD'"
fi

grep -q 'Apache License' "$SRC/LICENSE" 2>/dev/null && grep -q 'Version 2.0, January 2004' "$SRC/LICENSE" ||
	no "LICENSE: not the Apache-2.0 text"

[ $bad -eq 0 ] && echo "release-check: $V agrees everywhere"
[ $bad -eq 0 ]
