#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The pictures in docs/ (#49 item 17): every docs/*.svg is well-formed XML, an <svg> with a
viewBox and a <title>, and is shown by a Markdown page; the two the docs need exist, and
their labels are the strings the code prints, read from the code:
- docs/rail-wiring.svg: the `; wiring: ` suffix of show's partner line
  (plugin/tools/show_peer.c) with the verdicts of plugin/judge/wiring_judge.c, `rail R ok`
  and `MISWIRED (rail R expects GLOB, partner NAME PORT)`; a swapped pair, each PF's
  partner matching the other's rule; the metric and alert it names exist.
- docs/pcie-paths.svg: the path levels of pkg/pci/tree.c (level_names), pix, pxb, phb and
  sys each labelling a GPU; no level name the code does not have; the metric exists.
  tests/docs/svg.py SRC"""
import fnmatch, os, re, sys
import xml.etree.ElementTree as ET

src = sys.argv[1] if len(sys.argv) > 1 else '.'
os.chdir(src)
SVG = '{http://www.w3.org/2000/svg}'
passed = failed = 0


def check(desc, ok, evidence=''):
    global passed, failed
    if ok:
        passed += 1
        print('PASS: ' + desc)
    else:
        failed += 1
        print('FAIL: ' + desc + (': ' + evidence if evidence else ''))
    return ok


def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def texts(root):
    """every <text>'s whole content (its tspans included), in document order"""
    return [''.join(t.itertext()) for t in root.iter(SVG + 'text')]


def c_format(path, pattern):
    """the first C string literal in PATH matching PATTERN (a regex over the literal)"""
    for lit in re.findall(r'"((?:[^"\\]|\\.)*)"', read(path)):
        if re.search(pattern, lit):
            return lit
    return None


def fmt_regex(fmt):
    """a printf format with %s only, as a regex: each %s a group of one word (a name, a glob),
    maybe after a space (the separator a format prints through an %s of its own)"""
    return ''.join(r'( ?[^\s,()]*)' if p == '%s' else re.escape(p) for p in re.split(r'(%s)', fmt))


# every Markdown file, for the references
md = {}
for d, dirs, fs in os.walk('.'):
    dirs[:] = [x for x in dirs if x != '.git' and not x.startswith('build') and x != 'node_modules']
    for f in fs:
        if f.endswith('.md'):
            md[os.path.normpath(os.path.join(d, f))] = read(os.path.join(d, f))
link = re.compile(r'!?\[[^\]]*\]\(([^)\s#]+)')

print('== every picture in docs/')
svgs = sorted(os.path.join('docs', f) for f in os.listdir('docs') if f.endswith('.svg'))
roots = {}
for s in svgs:
    try:
        root = ET.parse(s).getroot()
    except ET.ParseError as e:
        check(s + ': well-formed XML', False, str(e))
        continue
    check(s + ': well-formed XML', True)
    check(s + ': an <svg> with a viewBox and a <title>', root.tag == SVG + 'svg' and
          root.get('viewBox') and root.find(SVG + 'title') is not None and
          (root.find(SVG + 'title').text or '').strip())
    roots[s] = root
    shown = sorted(p for p, text in md.items() for target in link.findall(text)
                   if os.path.normpath(os.path.join(os.path.dirname(p), target)) == os.path.normpath(s))
    check(s + ': shown by a doc page (' + (', '.join(shown) or 'none') + ')', shown)

print('== docs/rail-wiring.svg: rail-optimised cabling, a swapped pair, what MISWIRED says')
r = 'docs/rail-wiring.svg'
if check(r + ' exists', r in roots):
    lines = texts(roots[r])
    suffix = c_format('plugin/tools/show_peer.c', r'^; wiring: %s$')
    ok_fmt = c_format('plugin/judge/wiring_judge.c', r'^rail %s ok$')
    mis_fmt = c_format('plugin/judge/wiring_judge.c', r'^MISWIRED \(')
    check('the code has the formats (show_peer.c %r, wiring_judge.c %r, %r)' % (suffix, ok_fmt, mis_fmt),
          suffix and ok_fmt and mis_fmt)
    if suffix and ok_fmt and mis_fmt:
        # MISWIRED (rail %s expects %s%s%s, partner %s %s): rail, glob, " ", port glob, name, port
        mis = re.compile(re.escape(suffix.replace('%s', '')) + fmt_regex(mis_fmt) + '$')
        okre = re.compile(re.escape(suffix.replace('%s', '')) + fmt_regex(ok_fmt) + '$')
        found = [m for m in (mis.search(t) for t in lines) if m]
        check('an ok PF, as show prints it (%s)' % ok_fmt.replace('%s', 'R'), any(okre.search(t) for t in lines))
        check('two MISWIRED lines, as show prints them (%d)' % len(found), len(found) == 2,
              '; '.join(lines))
        if len(found) == 2:
            (ra, ga, _, _, pa, _), (rb, gb, _, _, pb, _) = (m.groups() for m in found)
            check('a swapped pair: %s reaches rail %s\'s leaf (%s), %s rail %s\'s (%s)' % (ra, rb, gb, rb, ra, ga),
                  ra != rb and fnmatch.fnmatch(pa, gb) and fnmatch.fnmatch(pb, ga) and
                  not fnmatch.fnmatch(pa, ga) and not fnmatch.fnmatch(pb, gb))
            rules = ' '.join(t for t in lines if '"partner"' in t)
            check('the node.wiring rules drawn are the ones judged (%s, %s)' % (ga, gb),
                  '"partner": "%s", "rail": "%s"' % (ga, ra) in rules and
                  '"partner": "%s", "rail": "%s"' % (gb, rb) in rules, rules)
    names = re.findall(r'\b(rdma_qos_[a-z_]+)', ' '.join(lines))
    check('the metric it names is the agent\'s (%s)' % ', '.join(names),
          names and all(n in read('plugin/agent/wiring_metrics.c') for n in names))
    alerts = re.findall(r'\b(RdmaQos[A-Za-z]+)', ' '.join(lines))
    check('the alert it names is shipped (%s)' % ', '.join(alerts),
          alerts and all('alert: ' + a in read('deploy/monitoring/prometheusrule.yaml') for a in alerts))

print('== docs/pcie-paths.svg: a PCIe tree with pix, pxb, phb, sys')
p = 'docs/pcie-paths.svg'
if check(p + ' exists', p in roots):
    m = re.search(r'level_names\[\]\s*=\s*\{([^}]*)\}', read('pkg/pci/tree.c'))
    levels = re.findall(r'"([a-z0-9]+)"', m.group(1)) if m else []
    check('pkg/pci/tree.c names the levels (%s)' % ', '.join(levels), {'pix', 'pxb', 'phb', 'sys'} <= set(levels))
    lines = texts(roots[p])
    labels = [t.strip() for t in lines if re.fullmatch(r'\s*[a-z0-9]{3,4}\s*', t)]
    check('each of pix, pxb, phb, sys labels a GPU (%s)' % ', '.join(labels),
          sorted(labels) == sorted(['pix', 'pxb', 'phb', 'sys']))
    legend = [b.text for b in roots[p].iter(SVG + 'tspan') if b.get('font-weight') == 'bold']
    check('the legend explains the same levels, all the code\'s (%s)' % ', '.join(legend),
          sorted(legend) == sorted(labels) and all(x in levels for x in legend))
    names = re.findall(r'\b(rdma_qos_[a-z_]+)', ' '.join(lines))
    check('the metric it names is the agent\'s (%s)' % ', '.join(names),
          names and all(n in read('plugin/agent/gdr_metrics.c') for n in names))

print('%d passed, %d failed' % (passed, failed))
sys.exit(1 if failed else 0)
