#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The shipped binaries are static-pie, hold no NSS code, and run in an empty
# chroot (no libc, no loader, no /etc, no /proc): --version and CNI VERSION,
# opening no file at all.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
B=${RQ_BUILD:?}
VERSION=$(cat "$HERE/../../VERSION")
# env -i clears PATH
CHROOT=$(command -v chroot)
STRACE=$(command -v strace)

static_checks() { # BIN
	local bin=$B/$1
	check "$1 is static-pie linked" grep -q 'static-pie linked' <<< "$(file -b "$bin")"
	check "$1 has no dynamic dependencies (ldd)" \
		grep -qE 'statically linked|not a dynamic executable' <<< "$(ldd "$bin" 2>&1)"
	check "$1 has no DT_NEEDED entry" [ -z "$(readelf -d "$bin" | grep NEEDED)" ]
	check "$1 holds no NSS code (nsswitch.conf, libnss_*)" \
		[ -z "$(strings "$bin" | grep -E 'nsswitch\.conf|libnss_')" ]
}

# after_exec BIN TRACE: the traced calls after chroot exec'd /BIN, the exec itself left out
after_exec() {
	sed -n "/execve(\"\\/$1\"/,\$p" "$2" | grep -vE '^[0-9]+ +execve'
}

chroot_checks() { # BIN
	local bin=$1 root=$T/root-$1 out
	mkdir -p "$root" && cp "$B/$bin" "$root/"
	check "the $bin chroot holds nothing but the binary" [ "$(ls -A "$root")" = "$bin" ]
	out=$(env -i "$CHROOT" "$root" "/$bin" --version 2>&1)
	check "$bin --version in an empty chroot: '$bin $VERSION[+g<commit>]'" \
		bash -c '[[ $1 =~ ^$2\ ${3//./\\.}(\+(g[0-9a-f]{12}|unknown))?$ ]]' _ "$out" "$bin" "$VERSION"
	out=$(env -i CNI_COMMAND=VERSION "$CHROOT" "$root" "/$bin" < /dev/null 2>&1)
	check "$bin CNI VERSION in an empty chroot lists 0.4.0 .. 1.1.0" \
		jq -e '(.supportedVersions | index("0.4.0") and index("1.1.0")) and .cniVersion' \
		<<< "$out" >/dev/null
	command -v strace >/dev/null || { skip "$bin under strace" "no strace"; return; }
	env -i CNI_COMMAND=VERSION "$STRACE" -f -qq -o "$T/trace-$bin" \
		-e trace=execve,open,openat,openat2,connect "$CHROOT" "$root" "/$bin" < /dev/null \
		> /dev/null 2>&1
	env -i "$STRACE" -f -qq -o "$T/trace2-$bin" -e trace=execve,open,openat,openat2,connect \
		"$CHROOT" "$root" "/$bin" --version > /dev/null 2>&1
	# what the binary did after chroot exec'd it
	check "$bin VERSION and --version open no file and connect nowhere (strace)" [ -z "$(
		after_exec "$bin" "$T/trace-$bin"; after_exec "$bin" "$T/trace2-$bin")" ]
	check "... and strace saw both execs" [ "$(cat "$T/trace-$bin" "$T/trace2-$bin" |
		grep -c "execve(\"/$bin\"")" = 2 ]
}

T=$(mktemp -d /tmp/rq-static.XXXXXX)
trap 'rm -rf "$T"' EXIT
echo "== static binaries"
for b in rdma-qos rdma-qos-sim; do static_checks "$b"; done
if [ "$(id -u)" != 0 ]; then
	skip "empty chroot" "needs root"
else
	for b in rdma-qos rdma-qos-sim; do chroot_checks "$b"; done
fi
finish
