#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# make release-check: every place that carries the version agrees with VERSION.
#   tests/deploy/release-check.sh SRC BUILD   (BUILD holds rdma-qos and rdma-qos-sim)
# Checked: VERSION is X.Y.Z; `rdma-qos --version` (and rdma-qos-sim's: VERSION, or
# VERSION+dev.g<commit> for a build that is not the release's); the image tag of
# every kustomization under deploy/ (images[].newTag for rdma-qos) and every
# `image: rdma-qos:TAG` in deploy/; the Containerfile's VERSION build-arg default and
# every rdma-qos:TAG it or the docs mention; CHANGELOG.md's top release, each release
# with an "Upgrade notes" part and its tag named; `--set image.tag=X` in the docs;
# deploy/helm/*/Chart.yaml appVersion when a chart exists; LICENSE is the Apache-2.0 text.
# Prints each disagreement; exit 1 if any.
set -u
SRC=${1:?SRC} B=${2:?BUILD}
bad=0
no() { echo "release-check: $*"; bad=$((bad + 1)); }
V=$(cat "$SRC/VERSION" 2>/dev/null)
[[ $V =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || no "VERSION: '$V' is not X.Y.Z"

# a release build prints VERSION, a build of main VERSION+dev.g<commit> (CONTRIBUTING.md "Versions")
for b in rdma-qos rdma-qos-sim; do
	got=$("$B/$b" --version 2>&1)
	[[ $got =~ ^$b\ ${V//./\\.}(\+dev(\.g[0-9a-f]{12})?)?$ ]] ||
		no "$b --version prints '$got', not '$b $V' or '$b $V+dev.g<commit>' (rebuild after a VERSION change)"
done

# kustomizations: the rdma-qos image's newTag
while IFS= read -r k; do
	tags=$(awk '/^images:/ {i = 1; next} /^[^ ]/ {i = 0}
		i && /- name:/ {n = ($3 == "rdma-qos")} i && n && /newTag:/ {print $2}' "$k")
	for t in $tags; do
		[ "$t" = "$V" ] || no "${k#"$SRC"/}: newTag $t for image rdma-qos, VERSION is $V"
	done
done < <(find "$SRC/deploy" -name kustomization.yaml | sort)

# every rdma-qos:TAG written in deploy/ and docs/ (image fields, build commands)
while IFS=: read -r f line text; do
	for t in $(grep -oE 'rdma-qos:[0-9]+\.[0-9]+\.[0-9]+' <<< "$text" | cut -d: -f2); do
		[ "$t" = "$V" ] || no "${f#"$SRC"/}:$line: rdma-qos:$t, VERSION is $V"
	done
done < <(grep -rnE 'rdma-qos:[0-9]+\.[0-9]+\.[0-9]+' "$SRC/deploy" "$SRC/docs" "$SRC/CONTRIBUTING.md" \
	--include='*.yaml' --include='*.md' --include=Containerfile --include='*.tpl' 2>/dev/null)

# the chart's image tag as the docs pass it (helm --set image.tag=X.Y.Z)
while IFS=: read -r f line text; do
	t=$(grep -oE 'image\.tag=[0-9]+\.[0-9]+\.[0-9]+' <<< "$text" | head -1 | cut -d= -f2)
	[ "$t" = "$V" ] || no "${f#"$SRC"/}:$line: image.tag=$t, VERSION is $V"
done < <(grep -rnE 'image\.tag=[0-9]+\.[0-9]+\.[0-9]+' "$SRC/docs" "$SRC/deploy" "$SRC/CONTRIBUTING.md" \
	--include='*.md' --include='*.yaml' 2>/dev/null)

cf=$SRC/deploy/Containerfile
d=$(sed -n 's/^ARG VERSION=\(.*\)$/\1/p' "$cf")
[ "$d" = "$V" ] || no "deploy/Containerfile: ARG VERSION=$d (the label's default), VERSION is $V"
for l in title description version revision source licenses; do
	grep -q "org.opencontainers.image.$l=" "$cf" || no "deploy/Containerfile: no org.opencontainers.image.$l label"
done

for chart in "$SRC"/deploy/helm/*/Chart.yaml; do
	[ -f "$chart" ] || continue
	a=$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' "$chart")
	[ "$a" = "$V" ] || no "${chart#"$SRC"/}: appVersion '$a', VERSION is $V"
done

cl=$SRC/CHANGELOG.md
if [ ! -f "$cl" ]; then
	no "CHANGELOG.md is missing"
else
	rels=$(sed -n 's/^## \[\([0-9][0-9.]*\)\] - [0-9]\{4\}-[0-9]\{2\}-[0-9]\{2\}$/\1/p' "$cl")
	top=$(head -1 <<< "$rels")
	[ "$top" = "$V" ] || no "CHANGELOG.md: the top release is '$top', VERSION is $V"
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
