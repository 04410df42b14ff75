#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# deploy/schema/catalog.schema.json (JSON Schema draft 2020-12) against the plugin's own
# parser: schema-check.py runs every catalog here through `rdma-qos validate` and Debian's
# python3-jsonschema and requires the same accept/reject: examples/ and deploy/ catalogs,
# the catalogs the test scripts write (single-quoted JSON in tests/*/*.sh), and crafted
# cases for every error the catalog parser reports. Rules across fields are listed there
# as validate-only, each with its reason.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
B=${RQ_BUILD:?}
SRC=$(cd "$HERE/../.." && pwd)
SCHEMA=$SRC/deploy/schema/catalog.schema.json
PY=/usr/bin/python3
T=$(mktemp -d /tmp/rq-schema.XXXXXX)
trap 'rm -rf "$T"' EXIT

if ! "$PY" -c 'import jsonschema' 2>/dev/null; then
	skip schema "no python3-jsonschema for $PY"
	finish
fi
check "the schema is JSON and declares draft 2020-12" [ "$(jq -r '."$schema"' "$SCHEMA")" = \
	https://json-schema.org/draft/2020-12/schema ]
# the corpus: catalog files (a JSON object with no kind/plugins/type: what validate reads as
# a catalog), the catalogs in the examples' ConfigMaps and the chart's values, and those
# embedded in the tests' shell scripts
files=()
for f in "$SRC"/examples/*.json $(find "$SRC/deploy" -name '*.json' -not -path '*/schema/*' |
	sort); do
	jq -e 'type == "object" and (has("kind") or has("plugins") or has("type") | not)' "$f" \
		> /dev/null 2>&1 && files+=("$f")
done
n=0
while IFS= read -r c; do
	jq -e 'type == "object" and (keys - ["profiles", "namespaces", "node"] | length == 0)
		and length > 0' <<< "$c" > /dev/null 2>&1 || continue
	n=$((n + 1))
	printf '%s\n' "$c" > "$T/from-tests-$n.json"
	files+=("$T/from-tests-$n.json")
done < <(grep -ohE "'\{[^']*\}'" "$SRC"/tests/*/*.sh | sed "s/^'//; s/'\$//" | sort -u)
# the catalogs of the examples' ConfigMaps and the Helm chart's default
"$PY" - "$T" "$SRC"/examples/*.yaml "$SRC/deploy/helm/rdma-qos/values.yaml" <<'PYEOF' > "$T/embedded.txt"
import json, os, sys, yaml
out = sys.argv[1]
for f in sys.argv[2:]:
    for i, d in enumerate(yaml.safe_load_all(open(f, encoding="utf-8"))):
        if not isinstance(d, dict):
            continue
        c = d.get("data", {}).get("profiles.json") if d.get("kind") == "ConfigMap" else (
            d.get("catalog") if f.endswith("values.yaml") else None)
        if c:
            # the chart's catalog is a map (rendered with toJson)
            c = c if isinstance(c, str) else json.dumps(c)
            p = os.path.join(out, f"{os.path.basename(f)}.{i}.json")
            open(p, "w", encoding="utf-8").write(c)
            print(p)
PYEOF
mapfile -t emb < "$T/embedded.txt"
files+=("${emb[@]}")
# (nic-configuration-operator's catalog is a file of its overlay now, not a ConfigMap in examples/)
check "the corpus has the examples' and deploy's catalogs (the nic-configuration-operator overlay's too), ${#emb[@]} embedded in manifests and $n from the tests" \
	[ "$([ "${#files[@]}" -gt "$((n + ${#emb[@]}))" ] && [ "$n" -ge 5 ] && [ "${#emb[@]}" -ge 1 ] &&
	printf '%s\n' "${files[@]}" | grep -q 'overlays/nic-configuration-operator/profiles.json$' &&
	echo yes)" = yes ]
out=$("$PY" "$HERE/schema-check.py" "$SCHEMA" "$B/rdma-qos" "${files[@]}" 2>&1)
rc=$?
sed "s|$T/||; s|$SRC/||" <<< "$out"
check "schema and rdma-qos validate agree (${out##*$'\n'})" [ $rc -eq 0 ]
PASS=$((PASS + $(grep -c '^PASS' <<< "$out"))) FAIL=$((FAIL + $(grep -c '^FAIL' <<< "$out")))
finish
