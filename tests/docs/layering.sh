#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# No circles between files (CONTRIBUTING.md "House rules"; issue 48 "The house"), checked on
# the objects rather than by grepping sources: every .c under plugin/, pkg/ and netconf/ has
# its object in $RQ_BUILD (build/ by default; run after `make`), nm gives each object's
# defined and undefined global symbols, an undefined symbol defined by another of these
# objects is an edge file -> file, and a strongly connected component of more than one file
# is a cycle, named with its files and the symbols that close it. A basename (foo.c, foo.h)
# that occurs twice across the three trees fails too: a file is found by its name. RQ_SRC: the
# tree (default: this checkout).
set -u
SRC=${RQ_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${RQ_BUILD:-$SRC/build}
pass=0 failed=0
ok() { echo "PASS: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; failed=$((failed + 1)); }

# ---- one basename, one file ----
dups=$(cd "$SRC" && find plugin pkg netconf -type f \( -name '*.c' -o -name '*.h' \) -printf '%f\n' | sort | uniq -d)
if [ -z "$dups" ]; then
	ok "every .c and .h basename occurs once across plugin/, pkg/ and netconf/"
else
	for b in $dups; do
		bad "$b occurs more than once: $(cd "$SRC" && find plugin pkg netconf -type f -name "$b" | sort | tr '\n' ' ')"
	done
fi

# ---- the symbol graph: one "D file sym" / "U file sym" line per global symbol ----
T=$(mktemp -d /tmp/rq-layering.XXXXXX)
trap 'rm -rf "$T"' EXIT
missing=0
while IFS= read -r c; do
	o=$BUILD/${c%.c}.o
	if [ ! -f "$o" ]; then
		bad "$c has no object $o (run make first)"
		missing=$((missing + 1))
		continue
	fi
	nm -g "$o" | awk -v f="$c" '$1 == "U" { print "U", f, $2; next }
		NF == 3 && $2 ~ /^[TDBRVWCGS]$/ { print "D", f, $3 }' >> "$T/syms"
done < <(cd "$SRC" && find plugin pkg netconf -type f -name '*.c' | sort)
n_files=$(cd "$SRC" && find plugin pkg netconf -type f -name '*.c' | wc -l)

if [ "$missing" -eq 0 ] && [ "$n_files" -gt 0 ]; then
	# Tarjan's algorithm over the file graph. The build seams (plugin/seams/env_prod.c,
	# env_sim.c) each define the same ops for one binary: an edge goes to every definer.
	python3 - "$T/syms" > "$T/out" << 'EOF'
import sys
from collections import defaultdict
defs, uses = defaultdict(set), []
files = set()
for line in open(sys.argv[1]):
    k, f, s = line.split()
    files.add(f)
    if k == "D":
        defs[s].add(f)
    else:
        uses.append((f, s))
edges = defaultdict(lambda: defaultdict(set))
for f, s in uses:
    for g in defs.get(s, ()):
        if g != f:
            edges[f][g].add(s)
sys.setrecursionlimit(100000)
index, low, stack, on, sccs = {}, {}, [], set(), []
def visit(v):
    index[v] = low[v] = len(index)
    stack.append(v); on.add(v)
    for w in sorted(edges[v]):
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v:
                break
        sccs.append(sorted(comp))
for v in sorted(files):
    if v not in index:
        visit(v)
n_edges = sum(len(t) for t in edges.values())
print("GRAPH %d %d" % (len(files), n_edges))
for comp in sccs:
    if len(comp) < 2:
        continue
    members = set(comp)
    why = []
    for f in comp:
        for g in sorted(edges[f]):
            if g in members:
                why.append("%s -> %s (%s)" % (f, g, ", ".join(sorted(edges[f][g])[:3])))
    print("CYCLE " + " ".join(comp) + " :: " + "; ".join(why))
EOF
	read -r _ nf ne < <(grep '^GRAPH' "$T/out")
	if [ "${nf:-0}" -ne "$n_files" ] || [ "${ne:-0}" -eq 0 ]; then
		bad "the symbol graph is incomplete: ${nf:-0} of $n_files files, ${ne:-0} edges"
	elif ! grep -q '^CYCLE' "$T/out"; then
		ok "no cycle between the $nf files of plugin/, pkg/ and netconf/ ($ne file -> file edges)"
	fi
	while IFS= read -r l; do
		bad "a cycle between files: ${l#CYCLE }"
	done < <(grep '^CYCLE' "$T/out")
fi
echo "$pass passed, $failed failed"
[ "$failed" -eq 0 ]
