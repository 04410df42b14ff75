# SPDX-License-Identifier: Apache-2.0
# tests/deploy/schema.sh: deploy/schema/catalog.schema.json and `rdma-qos validate` agree on
# accept/reject over a corpus of catalogs:
#   /usr/bin/python3 schema-check.py SCHEMA RDMA_QOS CATALOG_FILE...
# The files given (examples, deploy, the catalogs the tests write) and the crafted cases
# below (every error the catalog parser reports, plus accepted edge cases) each go through
# both; they must agree, except for the cases listed VALIDATE_ONLY, rules across fields that
# JSON Schema cannot state: there validate must reject and the schema must accept (if the
# schema learns the rule, the case moves to the agreeing list). One line per case; exit 1 on
# any disagreement.
import json
import subprocess
import sys
import tempfile
from jsonschema import Draft202012Validator

schema_path, binary, *files = sys.argv[1:]
with open(schema_path, encoding="utf-8") as f:
    schema = json.load(f)
Draft202012Validator.check_schema(schema)
validator = Draft202012Validator(schema)

ETS = {"tcBw": [50, 50, 0, 0, 0, 0, 0, 0], "tsa": ["ets", "ets"] + ["strict"] * 6,
       "prioTc": [0, 1, 2, 3, 4, 5, 6, 7]}


def prof(**kw):
    return json.dumps({"profiles": {"p": kw}})


def node(**kw):
    return json.dumps({"node": kw})


def ns(entry, name="team-a"):
    return json.dumps({"profiles": {"p": {}}, "namespaces": {name: entry}})


def ets(**kw):
    return prof(ets={**ETS, **kw})


many = lambda n, v: ", ".join(f'"n{i}": {v}' for i in range(n))  # noqa: E731

# (name, catalog text): both must accept
GOOD = [
    ("an empty catalog", "{}"),
    ("every key at once", json.dumps({
        "profiles": {"fabric": {"trust": "dscp", "dscp2prio": {"0": 0, "26": 3, "63": 7},
                                "pfc": [3], "ecn": [3, 4], "ecnRequired": True, "ets": ETS,
                                "trafficClass": 106, "tosScope": "all-qps",
                                "cnp": {"dscp": 48, "prio": 6}},
                     "pcp.Only_1": {"trust": "pcp", "pfc": [], "cnp": {"prio": 0}}},
        "namespaces": {"a-1": {"default": "fabric", "allow": ["fabric", "roce-lossless"],
                               "inline": False},
                       "*": {"allow": []}},
        "node": {"pf": "verify", "baseline": "fabric", "carrierWaitSeconds": 60,
                 "kubeletDir": "/var/snap/microk8s/common/var/lib/kubelet",
                 "numaSource": "files", "unchained": "adopt",
                 "wiring": [{"pf": "ens1f0", "partner": "leaf-r1-*", "port": "swp[1-9]",
                             "rail": "r1"},
                            {"pf": "0000:3b:00.1", "partner": "leaf-r2-??", "rail": "r.2:a/b"}]}})),
    ("wiring globs: classes with ] and !, escapes", node(wiring=[
        {"pf": "x[]]", "partner": "[!]a]", "port": "\\*[\\]]", "rail": "r"},
        {"pf": "]", "partner": "a[[]b", "rail": "r"}])),
    ("an empty wiring list", node(wiring=[])),
    ("node.gdrLevel p2c", node(gdrLevel="p2c")),
    ("node.gdrLevel PXB (NCCL's case)", node(gdrLevel="PXB")),
    ("node.linkHealth: a fractional FEC floor, and 0", node(linkHealth={"fecUncorrectablePerMinute": 0.5})),
    ("node.linkHealth: a floor of 0", node(linkHealth={"fecUncorrectablePerMinute": 0})),
    ("node.sharedResources: two resources on PFs by netdev name",
     node(sharedResources={"rdma/hca_shared_devices_a": ["ens1f0np0", "ens1f1np1"],
                           "example.com/x.y_z-1": ["bond0"]})),
    ("node.sharedResources: an empty map", node(sharedResources={})),
    ("node.sharedResources: a netdev name of 15", node(sharedResources={"rdma/a": ["e" * 15]})),
    ("node.linkHealth empty", node(linkHealth={})),
    ("integers written as 3.0", prof(pfc=[3.0], trafficClass=106.0)),
    ("the built-in profile by name only", ns({"default": "roce-lossless",
                                              "allow": ["roce-lossless"]})),
    ("256 profiles", '{"profiles": {%s}}' % many(256, "{}")),
    ("a 63-character namespace name", ns({}, "a" * 63)),
    ("carrierWaitSeconds 0", node(carrierWaitSeconds=0)),
    ("kubeletDir with a dot component", node(kubeletDir="/var/lib/./kubelet..x")),
    ("ETS with vendor TCs at bandwidth 0", ets(tsa=["ets", "ets", "vendor"] + ["strict"] * 5)),
]

# (name, catalog text): both must reject
BAD = [
    ("not JSON", '{"profiles": '),
    ("a JSON array", "[]"),
    ("an unknown top-level key", '{"bogus": {}}'),
    ("profiles not an object", '{"profiles": []}'),
    ("257 profiles", '{"profiles": {%s}}' % many(257, "{}")),
    ("a profile name with a space", '{"profiles": {"a b": {}}}'),
    ("a 64-character profile name", json.dumps({"profiles": {"p" * 64: {}}})),
    ("a profile not an object", '{"profiles": {"p": 1}}'),
    ("an unknown profile key", prof(trus="dscp")),
    ("trust neither dscp nor pcp", prof(trust="DSCP")),
    ("dscp2prio not an object", prof(dscp2prio=[1])),
    ("a dscp2prio key 64", prof(dscp2prio={"64": 1})),
    ("a dscp2prio key with a leading zero", prof(dscp2prio={"07": 1})),
    ("a dscp2prio key not a number", prof(dscp2prio={"x": 1})),
    ("a dscp2prio priority 8", prof(dscp2prio={"26": 8})),
    ("dscp2prio with trust pcp", prof(trust="pcp", dscp2prio={"26": 3})),
    ("pfc not an array", prof(pfc=3)),
    ("a pfc priority 8", prof(pfc=[8])),
    ("a pfc priority 1.5", prof(pfc=[1.5])),
    ("a pfc priority as a string", prof(pfc=["3"])),
    ("a pfc priority listed twice", prof(pfc=[3, 3])),
    ("an ecn priority -1", prof(ecn=[-1])),
    ("an ecn priority listed twice", prof(ecn=[4, 2, 4])),
    ("ecnRequired not a boolean", prof(ecnRequired="yes")),
    ("ets not an object", prof(ets=[])),
    ("an unknown ets key", ets(tcbw=[0] * 8)),
    ("ets without prioTc", prof(ets={"tcBw": ETS["tcBw"], "tsa": ETS["tsa"]})),
    ("tcBw with 7 entries", ets(tcBw=[50, 50, 0, 0, 0, 0, 0])),
    ("a tcBw entry 101", ets(tcBw=[101, 0, 0, 0, 0, 0, 0, 0])),
    ("a prioTc entry 8", ets(prioTc=[8, 1, 2, 3, 4, 5, 6, 7])),
    ("tsa with 9 entries", ets(tsa=ETS["tsa"] + ["ets"])),
    ("a tsa entry cbs", ets(tsa=["ets", "cbs"] + ["strict"] * 6)),
    ("cnp not an object", prof(cnp=48)),
    ("an unknown cnp key", prof(cnp={"dscp": 48, "pcp": 6})),
    ("cnp naming neither dscp nor prio", prof(cnp={})),
    ("a cnp dscp 64", prof(cnp={"dscp": 64})),
    ("a cnp prio 8", prof(cnp={"prio": 8})),
    ("trafficClass 256", prof(trafficClass=256)),
    ("trafficClass -1", prof(trafficClass=-1)),
    ("trafficClass 1.5", prof(trafficClass=1.5)),
    ("tosScope all", prof(tosScope="all")),
    ("namespaces not an object", '{"namespaces": []}'),
    ("4097 namespace entries", '{"namespaces": {%s}}' % many(4097, "{}")),
    ("a namespace name in capitals", ns({}, "Team")),
    ("a namespace name ending in -", ns({}, "team-")),
    ("a 64-character namespace name", ns({}, "a" * 64)),
    ("a namespace entry not an object", ns([])),
    ("an unknown namespace entry key", ns({"defaults": "p"})),
    ("allow not an array", ns({"allow": "p"})),
    ("an allow entry not a string", ns({"allow": [1]})),
    ("inline not a boolean", ns({"inline": "true"})),
    ("default not a string", ns({"default": 1})),
    ("node not an object", '{"node": "ensure"}'),
    ("an unknown node key", node(pf="ensure", bogus=1)),
    ("node.pf strict", node(pf="strict")),
    ("node.numaSource kubelet", node(numaSource="kubelet")),
    ("node.unchained Adopt (case matters)", node(unchained="Adopt")),
    ("node.wiring an object", node(wiring={"pf": "a"})),
    ("node.gdrLevel node (a path, not a level)", node(gdrLevel="node")),
    ("node.gdrLevel a number", node(gdrLevel=3)),
    ("node.linkHealth a number", node(linkHealth=1)),
    ("node.linkHealth a negative FEC floor", node(linkHealth={"fecUncorrectablePerMinute": -1})),
    ("node.linkHealth a FEC floor as a string", node(linkHealth={"fecUncorrectablePerMinute": "1"})),
    ("node.linkHealth an unknown key", node(linkHealth={"fec": 1})),
    ("node.wiring a rule without rail", node(wiring=[{"pf": "a", "partner": "b"}])),
    ("node.wiring a rule without partner", node(wiring=[{"pf": "a", "rail": "r"}])),
    ("node.wiring an unknown rule key", node(wiring=[{"pf": "a", "partner": "b", "rail": "r",
                                                     "leaf": "c"}])),
    ("node.wiring an unclosed class", node(wiring=[{"pf": "ens[1", "partner": "b", "rail": "r"}])),
    ("node.wiring an empty class", node(wiring=[{"pf": "a", "partner": "[]", "rail": "r"}])),
    ("node.wiring a trailing backslash", node(wiring=[{"pf": "a", "partner": "b\\", "rail": "r"}])),
    ("node.wiring a glob with a space", node(wiring=[{"pf": "a", "partner": "leaf r1", "rail": "r"}])),
    ("node.wiring an empty glob", node(wiring=[{"pf": "", "partner": "b", "rail": "r"}])),
    ("node.wiring a glob of 128", node(wiring=[{"pf": "a" * 128, "partner": "b", "rail": "r"}])),
    ("node.wiring a rail with a space", node(wiring=[{"pf": "a", "partner": "b", "rail": "r 1"}])),
    ("node.wiring a rail of 64", node(wiring=[{"pf": "a", "partner": "b", "rail": "r" * 64}])),
    ("node.wiring a non-ASCII glob", node(wiring=[{"pf": "a", "partner": "l\u00e9af", "rail": "r"}])),
    ("node.unchained not a string", node(unchained=True)),
    ("node.sharedResources a list", node(sharedResources=["ens1f0np0"])),
    ("node.sharedResources a resource without prefix", node(sharedResources={"hca_shared_devices_a": ["a"]})),
    ("node.sharedResources a resource with two slashes", node(sharedResources={"rdma/a/b": ["a"]})),
    ("node.sharedResources a resource prefix in upper case", node(sharedResources={"RDMA/a": ["a"]})),
    ("node.sharedResources a resource name of 64", node(sharedResources={"rdma/" + "a" * 64: ["a"]})),
    ("node.sharedResources a PF list empty", node(sharedResources={"rdma/a": []})),
    ("node.sharedResources a PF name, not a list", node(sharedResources={"rdma/a": "ens1f0np0"})),
    ("node.sharedResources a PF twice", node(sharedResources={"rdma/a": ["e", "e"]})),
    ("node.sharedResources a netdev name of 16", node(sharedResources={"rdma/a": ["e" * 16]})),
    ("node.sharedResources a netdev name with a slash", node(sharedResources={"rdma/a": ["a/b"]})),
    ("node.sharedResources a netdev name ..", node(sharedResources={"rdma/a": [".."]})),
    ("node.sharedResources a PCI address (PFs are named by netdev)", node(sharedResources={"rdma/a": ["0000:3b:00.0"]})),
    ("node.sharedResources a PF as a number", node(sharedResources={"rdma/a": [1]})),
    ("node.sharedResources 65 PFs", node(sharedResources={"rdma/a": [f"e{i}" for i in range(65)]})),
    ("node.baseline not a string", node(baseline=1)),
    ("node.baseline not a profile name", node(baseline="a b")),
    ("carrierWaitSeconds 61", node(carrierWaitSeconds=61)),
    ("carrierWaitSeconds -1", node(carrierWaitSeconds=-1)),
    ("carrierWaitSeconds 2.5", node(carrierWaitSeconds=2.5)),
    ("carrierWaitSeconds as a string", node(carrierWaitSeconds="10")),
    ("kubeletDir relative", node(kubeletDir="var/lib/kubelet")),
    ("kubeletDir with a space", node(kubeletDir="/var/lib/my kubelet")),
    ("kubeletDir of 256 characters", node(kubeletDir="/" + "k" * 255)),
    ("kubeletDir with a .. component", node(kubeletDir="/var/lib/../kubelet")),
    ("kubeletDir ending in /..", node(kubeletDir="/var/lib/..")),
]

# (name, catalog text, why the schema cannot say it): validate rejects, the schema accepts
VALIDATE_ONLY = [
    ("namespaces default naming an unknown profile", ns({"default": "nope", "allow": ["nope"]}),
     "a reference to a key of profiles (or the built-in name): JSON Schema has no cross-"
     "reference from a value to a sibling object's keys"),
    ("an allow entry naming an unknown profile", ns({"allow": ["p", "nope"]}),
     "same: a reference to profiles' keys"),
    ("node.baseline naming an unknown profile", json.dumps({"profiles": {"p": {}},
                                                           "node": {"baseline": "nope"}}),
     "same: a reference to profiles' keys"),
    ("a default not in its allow list", ns({"default": "p", "allow": ["roce-lossless"]}),
     "membership of one field's value in a sibling array"),
    ("ETS bandwidths summing to 90", ets(tcBw=[50, 40, 0, 0, 0, 0, 0, 0]),
     "a sum over array items"),
    ("a bandwidth on a strict TC", ets(tcBw=[50, 40, 10, 0, 0, 0, 0, 0]),
     "tcBw[i] depends on tsa[i], index by index"),
    ("a top-level key given twice", '{"node": {}, "node": {}}',
     "duplicate keys: the schema sees parsed JSON, where the last one wins"),
    ("a profile given twice", '{"profiles": {"p": {}, "p": {"pfc": [3]}}}',
     "same: duplicate keys"),
    ("a namespace entry given twice", '{"namespaces": {"a": {}, "a": {}}}',
     "same: duplicate keys"),
    ("a key given twice inside a profile", '{"profiles": {"p": {"pfc": [3], "pfc": [4]}}}',
     "same: duplicate keys"),
]


def by_validate(text):
    with tempfile.NamedTemporaryFile("w", suffix=".json", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        r = subprocess.run([binary, "validate", f.name], capture_output=True, text=True)
    out = (r.stdout + r.stderr).strip().replace(f.name, "<file>")
    if r.returncode == 0 and "valid catalog" not in out:
        return None, f"not taken as a catalog: {out}"
    return r.returncode == 0, out


def by_schema(text):
    try:
        doc = json.loads(text)
    except ValueError as e:
        return False, f"not JSON: {e}"
    errs = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if not errs:
        return True, "valid"
    e = errs[0]
    return False, f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message[:100]}"


npass = nfail = 0


def report(ok, what, v, s):
    global npass, nfail
    if ok:
        npass += 1
        print(f"PASS: {what}")
    else:
        nfail += 1
        print(f"FAIL: {what}\n   validate: {v}\n   schema: {s}")


def has_duplicates(text):
    dup = []

    def hook(pairs):
        keys = [k for k, _ in pairs]
        dup.extend(k for k in set(keys) if keys.count(k) > 1)
        return dict(pairs)
    try:
        json.loads(text, object_pairs_hook=hook)
    except ValueError:
        return False
    return bool(dup)


# a corpus file with a key given twice is a validate-only case (the rule listed below)
cases = []
ndup = 0
for f in files:
    text = open(f, encoding="utf-8").read()
    if has_duplicates(text):
        VALIDATE_ONLY.append((f, text, "a key given twice (duplicate keys)"))
        ndup += 1
    else:
        cases.append((f, text, None))
cases += [(f"crafted: {n}", t, True) for n, t in GOOD]
cases += [(f"crafted: {n}", t, False) for n, t in BAD]
for name, text, want in cases:
    va, vmsg = by_validate(text)
    sa, smsg = by_schema(text)
    word = {True: "accept", False: "reject", None: "?"}
    agree = va is not None and va == sa and (want is None or va == want)
    report(agree, f"{name}: both {word[va]}" if agree else
           f"{name}: validate {word[va]}, schema {word[sa]}" +
           ("" if want is None else f" (want both {word[want]})"), vmsg, smsg)
for name, text, why in VALIDATE_ONLY:
    va, vmsg = by_validate(text)
    sa, smsg = by_schema(text)
    report(va is False and sa is True,
           f"validate-only: {name}: validate rejects, the schema accepts ({why})", vmsg, smsg)
print(f"schema-check: {len(files)} files ({ndup} with duplicate keys), {len(GOOD)} good and {len(BAD)} bad crafted, "
      f"{len(VALIDATE_ONLY)} validate-only; {npass} passed, {nfail} failed")
sys.exit(1 if nfail else 0)
