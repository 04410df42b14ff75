# SPDX-License-Identifier: Apache-2.0
# Shared by tests/deploy/*.sh: counters and skip-or-fail (under CI a missing
# prerequisite is a failure, as in tests/clients).
PASS=0 FAIL=0 SKIP=0
pass() { PASS=$((PASS + 1)); echo "PASS: $*"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL: $*"; }
check() { local d="$1"; shift; if "$@"; then pass "$d"; else fail "$d"; fi; }
skip() {
	if [ -n "${CI:-}" ]; then fail "$1 cannot run under CI: $2"; return; fi
	SKIP=$((SKIP + 1)); echo "SKIP: $1: $2"
}
finish() {
	[ "$SKIP" -eq 0 ] || echo "($SKIP skipped)"
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" -eq 0 ]
	exit
}
# status_is WANT STATUS CMD...: STATUS is WANT and CMD succeeds (one check for both)
status_is() { [ "$1" = "$2" ] && shift 2 && "$@"; }
