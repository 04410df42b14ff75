#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# plugin/README.md names every file of plugin/ (issue 37 item 8): each plugin/**/*.c and
# *.h appears, in backquotes, in the table row of its folder (`cni/`, `attach/`, ...;
# plugin/main.c in the `main.c` row), so a file added without a word in the README fails
# `make docs-test`. RQ_SRC: the tree to check (default: this checkout).
set -u
SRC=${RQ_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
README=$SRC/plugin/README.md
pass=0 failed=0
ok() { echo "PASS: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; failed=$((failed + 1)); }

# row_of FOLDER: the README table row whose first cell is `FOLDER`
row_of() { awk -v k="| \`$1\` |" 'index($0, k) == 1' "$README"; }
n=0
while IFS= read -r f; do
	rel=${f#"$SRC"/plugin/}
	case $rel in
	*/*) folder=${rel%%/*}/ ;;
	*) folder=$rel ;;
	esac
	row=$(row_of "$folder")
	n=$((n + 1))
	if [ -z "$row" ]; then
		bad "plugin/$rel: plugin/README.md has no row for \`$folder\`"
	elif ! grep -qF "\`${rel##*/}\`" <<< "$row"; then
		bad "plugin/$rel is not named in the \`$folder\` row of plugin/README.md"
	fi
done < <(find "$SRC/plugin" -type f \( -name '*.c' -o -name '*.h' \) | sort)
if [ "$n" -eq 0 ]; then
	bad "no .c/.h file found under $SRC/plugin"
elif [ "$failed" -eq 0 ]; then
	ok "plugin/README.md names each of the $n .c/.h files of plugin/ in its folder's row"
fi
echo "$pass passed, $failed failed"
[ "$failed" -eq 0 ]
