#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# arm64 (Grace/GH200 nodes): the static binaries and the unit suite built with
# Debian's cross compiler against Debian's arm64 libraries (multiarch), the
# suite run under qemu-user. A few tests exercise kernel interfaces qemu-user
# does not emulate; they must fail exactly as listed below, for the reason
# given, and every other test must pass.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
SRC=$(cd "$HERE/../.." && pwd)
B=${RQ_ARM64_BUILD:-$SRC/build-arm64}
QEMU=$(command -v qemu-aarch64-static || command -v qemu-aarch64)
# what a build of this tree says (VERSION, +g<commit> off a release: make print-version)
VERSION=$(make -s -C "$SRC" print-version)
# test name -> what qemu-user lacks, and the failure text that shows it
declare -A QEMU_GAPS=(
	[netlink_errnos]="netlink DCB messages (RTM_GETDCB answered EOPNOTSUPP)|== -95"
	[open_not_a_netns]="the NS_GET_NSTYPE ioctl|== 0"
	[real_netns]="the SIOCETHTOOL ioctl (ENOTTY)|== -25"
	[ioctl_on_veth]="the SIOCETHTOOL ioctl (ENOTTY)|r == -25"
	[ioctl_in_netns]="the SIOCETHTOOL ioctl (ENOTTY)|== -25, -19 == -19"
	[host_root_falls_back]="seccomp filters (prctl EINVAL)|no_openat2() == -22"
	[other_root_refused]="seccomp filters (prctl EINVAL)|no_openat2() == -22"
	[link_nl_veth]="generic netlink (the ethtool family: EPROTONOSUPPORT)|ethtool_link_nl_new(&ops, &ctx) == -93"
	[lower_real]="RTM_GETNSID in its rtnetlink translation (EOPNOTSUPP)|== -95"
)

prereqs() {
	command -v aarch64-linux-gnu-gcc >/dev/null || { echo "no gcc-aarch64-linux-gnu"; return 1; }
	[ -n "$QEMU" ] || { echo "no qemu-user-static"; return 1; }
	local p
	for p in libnl-3-dev:arm64 libcjson-dev:arm64 libprotobuf-c-dev:arm64 libnghttp2-dev:arm64 check:arm64; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			{ echo "no $p"; return 1; }
	done
	# openat2 arrived in qemu-user 9.1: 7.2 (bookworm) fails every root-relative open
	local v
	v=$("$QEMU" --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
	[ "${v:-0}" -ge 9 ] || { echo "qemu-user $v lacks openat2 (bookworm-backports has 10)"; return 1; }
}
if ! why=$(prereqs); then
	skip arm64 "$why"
	finish
fi

echo "== cross build (aarch64-linux-gnu-gcc, arm64 multiarch libraries)"
mkdir -p "$B"
make -s -C "$SRC" -j2 B="$B" CC=aarch64-linux-gnu-gcc AR=aarch64-linux-gnu-ar all \
	"$B/unit-tests" > "$B/cross-build.log" 2>&1
rc=$?
check "the arm64 build succeeds" [ $rc -eq 0 ] || tail -20 "$B/cross-build.log"
for b in rdma-qos rdma-qos-sim; do
	check "$b is an arm64 static-pie executable" \
		grep -q 'ARM aarch64.*static-pie linked' <<< "$(file -b "$B/$b")"
	check "$b --version under qemu-user" \
		[ "$("$QEMU" "$B/$b" --version 2>&1)" = "$b $VERSION" ]
done
check "CNI VERSION under qemu-user" [ "$(CNI_COMMAND=VERSION "$QEMU" "$B/rdma-qos" < /dev/null |
	jq -r '.supportedVersions[-1]')" = 1.1.0 ]

echo "== unit tests under qemu-user"
out=$(RQ_BUILD="$B" RQ_SRC="$SRC" "$QEMU" "$B/unit-tests" 2>&1)
sum=$(grep -E '^[0-9]+%: Checks: ' <<< "$out")
total=$(sed -n 's/.*Checks: \([0-9]*\),.*/\1/p' <<< "$sum")
failed=$(sed -n 's/.*Failures: \([0-9]*\), Errors: \([0-9]*\)/\1 \2/p' <<< "$sum")
echo "INFO: $sum"
check "the suite ran ($total checks)" [ "${total:-0}" -gt 300 ]
unexpected=0
while IFS=: read -r file line kind tcase name rest; do
	[ "$kind" = F ] || [ "$kind" = E ] || continue
	gap=${QEMU_GAPS[$name]:-}
	if [ -n "$gap" ] && grep -qF -- "${gap#*|}" <<< "$rest"; then
		echo "INFO: $name fails under qemu-user: it lacks ${gap%%|*}"
	else
		unexpected=$((unexpected + 1))
		echo "   $file:$line $tcase:$name: $rest"
	fi
done < <(grep -E '^[^:]+:[0-9]+:[FE]:' <<< "$out")
check "every other test passes (no failure but qemu-user's ${#QEMU_GAPS[@]} known gaps)" \
	[ "$unexpected" -eq 0 ]
check "... and the known gaps are all there is: ${failed:-?} failures and errors" \
	[ "$(set -- $failed; echo $(($1 + $2)))" -le "${#QEMU_GAPS[@]}" ]
finish
