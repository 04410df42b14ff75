#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# PromQL out of deploy/monitoring/ for promtool (tests/monitoring/rules.sh):
#   promql_names.py dashboard DASHBOARD.json OUT_RULES.yaml  -> every panel query and variable
#       query as a recording rule (Grafana's variables replaced by valid placeholders:
#       $__rate_interval and the other $__ durations by 5m, $node etc. by "x"), so that
#       `promtool check rules OUT` parses each; prints the number of queries
#   promql_names.py names FILE...  -> the metric names the expressions in FILE (a rules file
#       as promtool reads it) select, one per line; __name__ regexes as "re:REGEX"
import json
import re
import sys

import yaml

KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or",
            "unless", "offset", "inf", "nan",
            # aggregations, also before their by/without clause
            "sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values",
            "bottomk", "topk", "quantile"}


def grafana_queries(d):
    """(where, expr) of every panel target (rows' nested panels too) and query variable."""
    out = []

    def panels(ps):
        for p in ps:
            for i, t in enumerate(p.get("targets", [])):
                if t.get("expr"):
                    out.append((f'panel "{p.get("title")}" target {i}', t["expr"]))
            panels(p.get("panels", []))
    panels(d.get("panels", []))
    for v in d.get("templating", {}).get("list", []):
        if v.get("type") != "query":
            continue
        q = v["query"]["query"] if isinstance(v.get("query"), dict) else v.get("query", "")
        m = re.fullmatch(r"\s*label_values\((.*),\s*(\w+)\s*\)\s*", q, re.S)
        out.append((f'variable {v["name"]}', m.group(1) if m else q))
    return out


def placeholders(e):
    e = re.sub(r"\$\{?__\w+\}?", "5m", e)
    return re.sub(r"\$\{?(\w+)(:\w+)?\}?", "x", e)


def names(expr):
    found = set(f"re:{m}" for m in re.findall(r'__name__\s*=~\s*"([^"]*)"', expr))
    e = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)        # string literals
    e = re.sub(r"\{[^}]*\}", "{}", e)                     # label matchers
    e = re.sub(r"\[[^\]]*\]", "[]", e)                    # ranges
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", r"\1", e)
    for m in re.finditer(r"(?<![\w:.])([a-zA-Z_:][a-zA-Z0-9_:]*)\b(\s*\()?", e):
        if m.group(2) or m.group(1) in KEYWORDS:
            continue                                      # a function or a keyword
        found.add(m.group(1))
    return found


if sys.argv[1] == "dashboard":
    d = json.load(open(sys.argv[2]))
    qs = grafana_queries(d)
    rules = [{"record": f"dashboard:query_{i}", "expr": placeholders(e)} for i, (_, e) in
             enumerate(qs)]
    yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}, open(sys.argv[3], "w"))
    for i, (w, _) in enumerate(qs):
        print(f"# dashboard:query_{i} = {w}", file=sys.stderr)
    print(len(qs))
elif sys.argv[1] == "names":
    out = set()
    for f in sys.argv[2:]:
        for g in yaml.safe_load(open(f))["groups"]:
            for r in g["rules"]:
                out |= names(r["expr"])
    print("\n".join(sorted(out)))
