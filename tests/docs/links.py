#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Every relative link in the project's Markdown resolves: the file (or folder)
exists and, with a #fragment, the target has a heading of that slug (GitHub's
rule: lower case, punctuation dropped, spaces to dashes)."""
import os, re, sys

root = sys.argv[1] if len(sys.argv) > 1 else '.'
os.chdir(root)
skip_dirs = {'.git', 'build', 'build-asan', 'node_modules'}
files = []
for d, dirs, fs in os.walk('.'):
    dirs[:] = [x for x in dirs if x not in skip_dirs and not x.startswith('build')]
    files += [os.path.join(d, f) for f in fs if f.endswith('.md')]

def slugs(path):
    out, seen = set(), {}
    in_code = False
    for line in open(path, encoding='utf-8'):
        if line.startswith('```'):
            in_code = not in_code
        if in_code:
            continue
        m = re.match(r'^#{1,6}\s+(.*?)\s*#*\s*$', line)
        if not m:
            continue
        s = m.group(1).strip().lower()
        s = re.sub(r'[^\w\- ]', '', s).replace(' ', '-')
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else '%s-%d' % (s, n))
    return out

link = re.compile(r'\[[^\]]*\]\(([^)\s]+)\)')
passed = failed = 0
for f in sorted(files):
    in_code = False
    for ln, line in enumerate(open(f, encoding='utf-8'), 1):
        if line.startswith('```'):
            in_code = not in_code
        if in_code:
            continue
        for target in link.findall(re.sub(r'`[^`]*`', '', line)):
            if re.match(r'^[a-z]+:', target):
                continue  # http:, mailto: ...: not checked offline
            path, _, frag = target.partition('#')
            dest = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
            ok = os.path.exists(dest)
            why = 'no such file' if not ok else ''
            if ok and frag:
                ok = os.path.isfile(dest) and frag in slugs(dest)
                why = 'no heading #%s' % frag if not ok else ''
            if ok:
                passed += 1
            else:
                failed += 1
                print('FAIL: %s:%d: %s: %s' % (f[2:], ln, target, why))
print('%d passed, %d failed' % (passed, failed))
sys.exit(1 if failed else 0)
