# SPDX-License-Identifier: Apache-2.0
# tests/deploy/overlays.sh: does a DaemonSet's pod land on a node with these labels? The
# nodeSelector (every pair) and the required node affinity (any term whose every expression
# holds: In, NotIn, Exists, DoesNotExist), as the scheduler reads them.
#   jq --argjson labels '{"k": "v"}' -f nodes.jq DAEMONSET.json   -> true or false
def expr_ok($l):
	if .operator == "In" then ($l[.key] != null and (.values | index($l[.key]) != null))
	elif .operator == "NotIn" then ($l[.key] == null or (.values | index($l[.key]) == null))
	elif .operator == "Exists" then $l[.key] != null
	elif .operator == "DoesNotExist" then $l[.key] == null
	else error("operator \(.operator)") end;
.spec.template.spec as $s
| (($s.nodeSelector // {}) | to_entries | all(.value == $labels[.key]))
  and (($s.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms
	// [{}]) | any((.matchExpressions // []) | all(expr_ok($labels))))
