#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Extract the members of libc.a that a CNI command runs (mk/cni_libc.txt) into DIR, so
# that the link puts them right after the CNI path's own code (Makefile, BIN_LINK): one
# dense stretch of text instead of glibc's 640 KiB, where a steady ADD touched a function
# in every 64 KiB (docs/benchmarks.md "ADD's cost"). Members this libc.a has not (another
# architecture's string variants) are skipped; the list only orders, it adds nothing:
# each listed member is one the link takes from libc.a anyway.
# Usage: cni_libc.sh CC LIST DIR
set -eu
cc=$1 list=$2 dir=$3
# $cc unquoted: CC may be a command with arguments (ccache gcc)
libc=$($cc -print-file-name=libc.a)
[ -f "$libc" ] || { echo "cni_libc.sh: no libc.a for $cc" >&2; exit 1; }
rm -rf "$dir" && mkdir -p "$dir"
ar t "$libc" | sort -u > "$dir/.members"
grep -v '^#' "$list" | sort -u | comm -12 - "$dir/.members" > "$dir/.take"
# ar x writes into the current directory
(cd "$dir" && xargs -r ar x "$libc" < .take)
echo "cni_libc.sh: $(wc -l < "$dir/.take") of $(grep -vc '^#' "$list") members from $libc"
