# SPDX-License-Identifier: Apache-2.0
# results.json of make bench from the harness's JSON files (run.sh passes the
# slurped files and the counters as variables).
def r2: . * 100 | round / 100;
def ms: . / 1000 | r2;
def over($a; $b): if $a == null or $b == null then null else ($a.p50_us / $b.p50_us | r2) end;
def peer: if startswith("rdma-qos ADD") or startswith("baseline") then "tuning ADD"
	elif startswith("rdma-qos CHECK") then "tuning CHECK"
	elif startswith("rdma-qos DEL") then "tuning DEL" else null end;
def row($all): .key as $k | .value as $v | {name: $k, n: $v.n, ok: "\($v.ok)/\($v.n)",
	p50_ms: ($v.p50_us | ms), p10_ms: ($v.p10_us | ms), p90_ms: ($v.p90_us | ms),
	p99_ms: ($v.p99_us | ms), wall_ms: ($v.wall_us | ms), rss_kib: $v.max_rss_kib, median_rss_kib: $v.median_rss_kib,
	vs_floor: (over($v; $all["floor ADD"]) // "-"),
	vs_tuning: ((if ($k | peer) then over($v; $all[$k | peer]) else null end) // "-")};

($m[0]) as $m | ($s[0]) as $s | ($p[0]) as $p | ($k[0]) as $k |
$m["rdma-qos ADD steady"] as $ours | $m["rdma-qos ADD 2nd VF"] as $ours2 |
($s | to_entries | map(select(.key != "floor ADD"))) as $pts |
($pts | min_by(.value.p50_us)) as $lo | ($pts | max_by(.value.p50_us)) as $hi |
(($hi.value.p50_us - $lo.value.p50_us) / $lo.value.p50_us) as $spread |
([$m | to_entries[] | select(.key | startswith("rdma-qos")) | .value.max_rss_kib] | max) as $rss |
([$m | to_entries[] | select(.key | startswith("rdma-qos")) | .value.median_rss_kib] | max) as $medrss |
([$p[] | .ok] | add) as $parok | ([$p[] | .n] | add) as $parn |
# issue 51: the steady ADD's peak RSS (the median of its runs' peaks) against the C floor's and
# each baseline's (rdma-qos-sim built from git at that commit, its steady ADD in the same rounds)
def rss_over($a; $b): if $a == null or $b == null then null
	else ($a.median_rss_kib / $b.median_rss_kib | r2) end;
rss_over($ours; $m["floor ADD"]) as $rssfloor |
[$bases[] | . as $c | $m["baseline \($c) ADD steady"] as $b | {commit: $c,
	time: over($ours; $b), rss: rss_over($ours; $b), over_floor: over($b; $m["floor ADD"]),
	p50_ms: ($b.p50_us | ms), rss_kib: $b.median_rss_kib}] as $base |
{
	runs_per_command: $n,
	main: $m, scale: $s, parallel: $p, node: $k,
	table: [$m | to_entries[] | row($m)],
	scale_table: [$s | to_entries[] | row($s)],
	parallel_table: [$p | to_entries[] | row($p)],
	node_table: [$k | to_entries[] | row($k)],
	steady_add: {pf_writes: $pfw, file_changing_syscalls: $wsys,
		pf_writes_during_timed_runs: $runpfw},
	second_vf_add: {pf_writes: $pfw2, file_changing_syscalls: $wsys2},
	first_add_on_pf: {pf_writes: $firstw},
	parallel_state: {records: $parrec, pf_index_entries: $paridx, pf_writes: $parpfw},
	ratios: {ours_over_floor: over($ours; $m["floor ADD"]),
		ours_rss_over_floor: $rssfloor, ours_rss_kib: $ours.median_rss_kib,
		floor_rss_kib: $m["floor ADD"].median_rss_kib, baselines: $base,
		ours_over_tuning: over($ours; $m["tuning ADD"]),
		second_vf_over_floor: over($ours2; $m["floor ADD"]),
		second_vf_over_tuning: over($ours2; $m["tuning ADD"]),
		floor_over_tuning: over($m["floor ADD"]; $m["tuning ADD"]),
		# the scale rounds hold no writing peers (no fsync, no tree copies)
		scale_ours_over_floor: over($s["records=1"]; $s["floor ADD"]),
		scale_spread: ($spread | r2),
		check_over_floor: over($m["rdma-qos CHECK"]; $m["floor ADD"]),
		del_over_floor: over($m["rdma-qos DEL"]; $m["floor ADD"]),
		kubelet250_over_kubelet1: over($k["kubelet pods=250"]; $k["kubelet pods=1"]),
		kubelet110_over_kubelet1: over($k["kubelet pods=110"]; $k["kubelet pods=1"]),
		kubelet1_over_floor: over($k["kubelet pods=1"]; $k["floor ADD"]),
		api250_over_api1: over($k["kubelet API pods=250"]; $k["kubelet API pods=1"]),
		api1_over_floor: over($k["kubelet API pods=1"]; $k["floor ADD"]),
		api250_over_floor: over($k["kubelet API pods=250"]; $k["floor ADD"]),
		# kubelet 1.26, 1.27-1.33 without the gate: Get refused, List on the same connection
		apilist250_over_api250: over($k["kubelet API List pods=250"]; $k["kubelet API pods=250"]),
		apilist250_over_api1: over($k["kubelet API List pods=250"]; $k["kubelet API pods=1"]),
		apilist250_over_floor: over($k["kubelet API List pods=250"]; $k["floor ADD"]),
		catalog200_over_none: over($k["catalog=200x50"]; $k["catalog=none"]),
		catalog3_over_none: over($k["catalog=3x2"]; $k["catalog=none"]),
		chain_over_hostdevice: over($k["chain host-device + rdma-qos ADD"];
			$k["host-device ADD alone"]),
		# an 8-GPU pod judged (GPUDirect RDMA) against the same ADD with gdr off
		gdr8_over_off: over($k["gdr 8-GPU pod"]; $k["gdr off, same pod"])},
	targets: ([
		{target: "issue 51: steady ADD median <= 1.15x the C floor",
		 measured: "\(over($ours; $m["floor ADD"]))x",
		 met: (over($ours; $m["floor ADD"]) <= 1.15)},
		{target: "issue 51: steady ADD peak RSS <= 1.05x the C floor's (medians of the runs' peaks)",
		 measured: ("\($rssfloor)x (\($ours.median_rss_kib) / \($m["floor ADD"].median_rss_kib) KiB;" +
			" max \($ours.max_rss_kib) / \($m["floor ADD"].max_rss_kib) KiB)"),
		 met: ($rssfloor <= 1.05)}] +
		[$base[] | {target: "issue 51: steady ADD no slower than baseline \(.commit) (built from git)",
		 measured: "\(.time)x (\(.commit): \(.p50_ms) ms, \(.over_floor)x the C floor)",
		 met: (.time != null and .time <= 1.0)},
		{target: "issue 51: steady ADD peak RSS no more than baseline \(.commit)'s",
		 measured: "\(.rss)x (\(.commit): \(.rss_kib) KiB)", met: (.rss != null and .rss <= 1.0)}] + [
		{target: "issue 50: steady ADD of a shared attachment (macvlan) <= 1.1x a VF attachment's",
		 measured: "\(over($m["rdma-qos ADD steady shared"]; $ours))x",
		 met: ((over($m["rdma-qos ADD steady shared"]; $ours) // 99) <= 1.1)},
		{target: "steady ADD (same attachment again) median <= 1.05x the C floor",
		 measured: "\(over($ours; $m["floor ADD"]))x",
		 met: (over($ours; $m["floor ADD"]) <= 1.05)},
		{target: "CHECK median <= 1.05x the C floor",
		 measured: "\(over($m["rdma-qos CHECK"]; $m["floor ADD"]))x",
		 met: (over($m["rdma-qos CHECK"]; $m["floor ADD"]) <= 1.05)},
		{target: "DEL median <= 1.05x the C floor",
		 measured: "\(over($m["rdma-qos DEL"]; $m["floor ADD"]))x",
		 met: (over($m["rdma-qos DEL"]; $m["floor ADD"]) <= 1.05)},
		{target: "ADD of the 2nd VF of a configured PF median <= 1.3x the C floor",
		 measured: "\(over($ours2; $m["floor ADD"]))x",
		 met: (over($ours2; $m["floor ADD"]) <= 1.3)},
		{target: "ADD with kubelet state of 250 pods (5.7 MB) <= 1.25x ADD on an empty node (1 pod)",
		 measured: ("\(over($k["kubelet pods=250"]; $k["kubelet pods=1"]))x" +
			" (110 pods: \(over($k["kubelet pods=110"]; $k["kubelet pods=1"]))x)"),
		 met: (over($k["kubelet pods=250"]; $k["kubelet pods=1"]) <= 1.25)},
		{target: "ADD over the PodResources API, 250 pods <= 1.15x the same on an empty node (1 pod)",
		 measured: ("\(over($k["kubelet API pods=250"]; $k["kubelet API pods=1"]))x" +
			" (API / C floor: 1 pod \(over($k["kubelet API pods=1"]; $k["floor ADD"]))x," +
			" 250 pods \(over($k["kubelet API pods=250"]; $k["floor ADD"]))x)"),
		 met: (over($k["kubelet API pods=250"]; $k["kubelet API pods=1"]) <= 1.15)},
		{target: "ADD with a catalog of 200 namespaces / 50 profiles <= 1.1x no catalog",
		 measured: ("\(over($k["catalog=200x50"]; $k["catalog=none"]))x" +
			" (3 namespaces / 2 profiles: \(over($k["catalog=3x2"]; $k["catalog=none"]))x)"),
		 met: (over($k["catalog=200x50"]; $k["catalog=none"]) <= 1.1)},
		{target: "steady ADD (same attachment again) median <= 0.25x Go tuning ADD",
		 measured: ("\(over($ours; $m["tuning ADD"]))x" +
			" (C floor: \(over($m["floor ADD"]; $m["tuning ADD"]))x)"),
		 met: (over($ours; $m["tuning ADD"]) <= 0.25)},
		{target: "steady ADD (2nd VF of a configured PF) median <= 0.25x Go tuning ADD",
		 measured: "\(over($ours2; $m["tuning ADD"]))x",
		 met: (over($ours2; $m["tuning ADD"]) <= 0.25)},
		{target: "peak RSS <= 1.25 MiB (1280 KiB)",
		 measured: ("\($rss) KiB, max over rdma-qos ADD/CHECK/DEL/VERSION (median \($medrss))" +
			" (C floor \($m["floor ADD"].max_rss_kib)," +
			" harness floor \($m["exec no-op (static)"].max_rss_kib))"),
		 met: ($rss <= 1280)},
		{target: "steady ADD flat within 20% across scale points",
		 measured: ("\($spread * 100 | round)% (min \($lo.value.p50_us | ms) ms at \($lo.key)," +
			" max \($hi.value.p50_us | ms) ms at \($hi.key))"),
		 met: ($spread <= 0.20)},
		{target: "zero PF writes on steady-state ADD",
		 measured: ("\($pfw) (same attachment, traced), \($pfw2) (2nd VF, traced)," +
			" \($runpfw) during \(2 * $n) timed ADDs"),
		 met: ($pfw == 0 and $pfw2 == 0 and $runpfw == 0)},
		{target: "no failures among 64 parallel ADDs on one PF",
		 measured: ("\($parok)/\($parn) ok over \($p | length) bursts;" +
			" \($parrec)/64 records, \($paridx)/64 in the PF index"),
		 met: ($parok == $parn and $parrec == 64 and $paridx == 64)}
	])
}
