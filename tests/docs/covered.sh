#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A skip may name where its case is covered instead (issue 48): skip_covered (tests/sim/lib.sh,
# tests/dcb/run.sh) prints 'SKIP: ... (covered: FILE "DESC")', and under CI only such a skip
# is not a failure. Every '(covered: FILE "DESC")' written in tests/ must name a file of the
# tree (FILE from its root) that holds a check with that description: check "DESC" ...
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
PASS=0 FAIL=0
pass() { PASS=$((PASS + 1)); echo "PASS: $*"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL: $*"; }
SELF=tests/docs/covered.sh
n=0
# FILE:LINE:(covered: F "D"), the placeholder the helpers' comments use aside
while IFS= read -r hit; do
	where=${hit%%:(covered: *}
	ref=${hit#"$where":}
	[ "$ref" = '(covered: FILE "DESC")' ] && continue
	n=$((n + 1))
	if ! [[ $ref =~ ^\(covered:\ ([^\ \"]+)\ \"([^\"]+)\"\)$ ]]; then
		fail "$where: '$ref' is not '(covered: FILE \"DESC\")'"
		continue
	fi
	f=${BASH_REMATCH[1]} d=${BASH_REMATCH[2]}
	if [ ! -f "$SRC/$f" ]; then
		fail "$where: $f (covered: ...) is no file of the tree"
	elif grep -qF -e "check \"$d\"" "$SRC/$f"; then
		pass "$where: $f has check \"$d\""
	else
		fail "$where: $f has no check \"$d\""
	fi
done < <(cd "$SRC" && grep -rnoE --exclude-dir=__pycache__ '\(covered: [^)]*\)' tests | grep -v "^$SELF:")
[ "$n" -gt 0 ] || fail "no '(covered: ...)' found in tests/ (tests/dcb/run.sh names some)"
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
