#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Agent pass time against the number of attachments (make agent-bench, run by
# make bench): N in 1..256 records on a simulated node of 2 PFs x 128 VFs,
# all in profile (the steady state: reads only), then with every VF's ToS
# reset (N repairs). One real ADD makes the first record; the others are
# that record re-keyed to the other VFs (the pass reads records only).
# Median of 5 `agent --once` runs; rdma_qos_pass_duration_seconds is the pass
# inside the process, wall is the whole run.
set -u
. "$(dirname "$0")/lib.sh"
why=$(sim_can_run) || { echo "agent-bench: cannot run: $why"; exit 1; }
T=$(mktemp -d /tmp/rq-abench.XXXXXX)
ROOT=$T/node
cleanup() { ip netns del "rqab$$" 2>/dev/null; bench_pods_del "rqab$$"; ip link del "rqab$$" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
"$MKNODE" --root "$ROOT" --pfs 2 --vfs 128 --rdma configfs --ecn yes --dcb yes --pf-prefix ab$$ > /dev/null || exit 1
mapfile -t VFS < <(sim_vfs "$ROOT")
read -r _ VF0PCI VF0 <<< "${VFS[0]}"
ip netns add "rqab$$"
ip link add "$VF0" type veth peer name "${VF0}p"
ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p;K8S_POD_UID=u"
chain_add "$ROOT" roce c0 "/run/netns/rqab$$" net1 "$VF0" "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF0PCI\"}" "$ARGS" > /dev/null 2>&1 || { echo "agent-bench: ADD failed"; exit 1; }
SD=$(state_dir "$ROOT")
REC=$(ls "$SD"/*.json | head -1)
jq -c . "$REC" > "$T/rec0.json"
rm -f "$REC"
MED() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
printf '%-6s %-22s %-22s\n' N "in profile: pass/wall ms" "N ToS repairs: pass/wall ms"
prev=0
for n in 1 4 16 64 256; do
	bench_records "$ROOT" "$SD" "$T/rec0.json" "rqab$$" "$prev" "$n" || { echo "agent-bench: cannot make the pods"; exit 1; }
	prev=$n
	for mode in steady repair; do
		: > "$T/p" ; : > "$T/w"
		for _ in 1 2 3 4 5; do
			if [ $mode = repair ]; then
				for d in "$ROOT"/sys/kernel/config/rdma_cm/*/ports/1/default_roce_tos; do echo 0 > "$d"; done
			fi
			t0=$(date +%s%N)
			RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --once --metrics-file "$T/m" --log-level error 2>/dev/null
			echo $(( ($(date +%s%N) - t0) / 1000 )) >> "$T/w"
			awk '$1 == "rdma_qos_pass_duration_seconds" { printf "%d\n", $2 * 1e6 }' "$T/m" >> "$T/p"
		done
		eval "${mode}_p=$(MED < "$T/p") ${mode}_w=$(MED < "$T/w")"
		# the point measures N attachments in their pods, or it measures nothing
		home=$(grep -c '^rdma_qos_vf_in_pod{.*} 1$' "$T/m")
		[ "$home" = "$n" ] || { echo "agent-bench: $home of $n VFs in their pods"; exit 1; }
	done
	printf '%-6s %-22s %-22s\n' "$n" "$(awk -v a="$steady_p" -v b="$steady_w" 'BEGIN { printf "%.1f / %.1f", a / 1000, b / 1000 }')" \
		"$(awk -v a="$repair_p" -v b="$repair_w" 'BEGIN { printf "%.1f / %.1f", a / 1000, b / 1000 }')"
done
