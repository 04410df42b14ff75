#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# cJSON as a static archive, built from Debian's own `cjson` source package
# (the version of the installed libcjson-dev when apt has its source, so the
# same upstream code and Debian patches, security fixes included). Debian
# ships no libcjson.a, and nothing of cJSON is kept in this repository.
#
#   tools/cjson.sh OUTDIR CC AR [CFLAGS...]
#
# OUTDIR gets libcjson.a and include/cjson/cJSON.h. The downloaded source
# files are cached in $RQ_CJSON_CACHE (/var/tmp/rdma-qos-cjson), so later
# builds (other clones, other architectures) need no network; the first one
# needs apt's deb-src entry (added when run as root, see deb-src.sh).
set -euo pipefail
out=$1 cc=$2 ar=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
cache=${RQ_CJSON_CACHE:-/var/tmp/rdma-qos-cjson}
. "$here/deb-src.sh"

want=$(dpkg-query -W -f='${Version}\n' libcjson-dev 2>/dev/null | head -1)
mkdir -p "$cache"
dsc=""
if [ -n "$want" ] && [ -f "$cache/cjson_${want#*:}.dsc" ]; then
	dsc=$cache/cjson_${want#*:}.dsc
elif [ -z "$want" ] && ls "$cache"/cjson_*.dsc >/dev/null 2>&1; then
	dsc=$(ls "$cache"/cjson_*.dsc | sort -V | tail -1)
fi
if [ -z "$dsc" ]; then
	echo "cjson: fetching Debian's cjson source${want:+ $want} into $cache" >&2
	tmp=$(mktemp -d "$cache/dl.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	# the installed binary's version first; a newer source only if that one is gone from apt
	(cd "$tmp" && { { [ -n "$want" ] && apt_source_download cjson "$want"; } ||
		apt_source_download cjson; }) || {
		echo "cjson: cannot get Debian's cjson source package (apt-get source cjson)" >&2
		exit 1
	}
	dsc=$cache/$(cd "$tmp" && ls cjson_*.dsc | sort -V | tail -1)
	mv "$tmp"/cjson_* "$cache"/
fi

rm -rf "$out/src" && mkdir -p "$out/include/cjson"
# dpkg-source checks the files against the .dsc's checksums and applies debian/patches
dpkg-source --no-copy -x "$dsc" "$out/src" >&2
cp "$out/src/cJSON.h" "$out/include/cjson/cJSON.h"
# the objects are compiled against the installed libcjson-dev header: same ABI or no archive
if [ -f /usr/include/cjson/cJSON.h ] && ! cmp -s /usr/include/cjson/cJSON.h "$out/src/cJSON.h"; then
	echo "cjson: $(basename "$dsc") has another cJSON.h than the installed libcjson-dev" >&2
	exit 1
fi
"$cc" "$@" -c "$out/src/cJSON.c" -o "$out/cJSON.o"
rm -f "$out/libcjson.a.tmp"
"$ar" rcs "$out/libcjson.a.tmp" "$out/cJSON.o"
mv "$out/libcjson.a.tmp" "$out/libcjson.a"
echo "cjson: $out/libcjson.a from $(basename "$dsc" .dsc)" >&2
