#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Install what building and testing rdma-qos needs on Debian 12 (run as root).
# The build's packages are listed here; each test area lists its own in
# tests/<area>/packages.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
pkgs=(build-essential pkg-config clang libcjson-dev libnl-3-dev
	libprotobuf-c-dev protobuf-c-compiler libnghttp2-dev # pkg/podres: kubelet's PodResources API
	check containernetworking-plugins iproute2 jq strace
	dpkg-dev xz-utils) # dpkg-dev, xz-utils: cJSON and libmicrohttpd from their Debian sources
for f in tests/*/packages.txt; do
	[ -f "$f" ] || continue
	while read -r p _; do
		case "$p" in ''|'#'*) ;; *) pkgs+=("$p") ;; esac
	done < "$f"
done
# what installed packages provide counts too (nodesource's nodejs provides npm, and
# installing Debian's npm beside it would remove it)
provided=" $(dpkg-query -W -f='${db:Status-Abbrev} ${Provides}\n' 2>/dev/null | awk '$1 == "ii" {
	$1 = ""; gsub(/ \([^)]*\)/, ""); gsub(/,/, " "); print }' | tr '\n' ' ') "
# "pkg/release" (bookworm-backports) asks apt for that release's version; "pkg:arch" for a
# foreign architecture, which is added first
missing=() update=${RQ_SETUP_NO_UPDATE:+no}
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "${p%%/*}" 2>/dev/null | grep -q 'install ok installed' ||
		[[ $provided == *" ${p%%/*} "* ]] || missing+=("$p")
done
for p in "${missing[@]}"; do
	a=${p%%/*}
	[ "${a#*:}" != "$a" ] || continue
	dpkg --print-foreign-architectures | grep -qx "${a#*:}" && continue
	dpkg --add-architecture "${a#*:}"
	update=""
done
# "pkg/bookworm-backports" needs the suite in the apt sources (a fresh Debian 12 may lack it)
for p in "${missing[@]}"; do
	[ "${p#*/}" = bookworm-backports ] || continue
	apt-cache policy 2>/dev/null | grep -q bookworm-backports && break
	echo 'deb http://deb.debian.org/debian bookworm-backports main' \
		> /etc/apt/sources.list.d/bookworm-backports.list
	update=""
	break
done
if [ ${#missing[@]} -gt 0 ]; then
	if [ -z "$update" ]; then apt-get -o DPkg::Lock::Timeout=600 update -q; fi
	apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}"
fi
echo "setup: all packages present (${#pkgs[@]} checked)"
