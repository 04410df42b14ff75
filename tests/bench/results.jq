# SPDX-License-Identifier: Apache-2.0
# results.json of make bench from the harness's JSON files (run.sh passes the
# slurped files and the counters as variables).
def r2: . * 100 | round / 100;
def ms: . / 1000 | r2;
def over($a; $b): if $a == null or $b == null then null else ($a.p50_us / $b.p50_us | r2) end;
def peer: if startswith("rdma-qos ADD") then "tuning ADD"
	elif startswith("rdma-qos CHECK") then "tuning CHECK"
	elif startswith("rdma-qos DEL") then "tuning DEL" else null end;
def row($all): .key as $k | .value as $v | {name: $k, n: $v.n, ok: "\($v.ok)/\($v.n)",
	p50_ms: ($v.p50_us | ms), p10_ms: ($v.p10_us | ms), p90_ms: ($v.p90_us | ms),
	p99_ms: ($v.p99_us | ms), wall_ms: ($v.wall_us | ms), rss_kib: $v.max_rss_kib,
	vs_floor: (over($v; $all["floor ADD"]) // "-"),
	vs_tuning: ((if ($k | peer) then over($v; $all[$k | peer]) else null end) // "-")};

($m[0]) as $m | ($s[0]) as $s | ($p[0]) as $p |
$m["rdma-qos ADD steady"] as $ours | $m["rdma-qos ADD 2nd VF"] as $ours2 |
($s | to_entries | map(select(.key != "floor ADD"))) as $pts |
($pts | min_by(.value.p50_us)) as $lo | ($pts | max_by(.value.p50_us)) as $hi |
(($hi.value.p50_us - $lo.value.p50_us) / $lo.value.p50_us) as $spread |
([$m | to_entries[] | select(.key | startswith("rdma-qos")) | .value.max_rss_kib] | max) as $rss |
([$p[] | .ok] | add) as $parok | ([$p[] | .n] | add) as $parn |
{
	runs_per_command: $n,
	main: $m, scale: $s, parallel: $p,
	table: [$m | to_entries[] | row($m)],
	scale_table: [$s | to_entries[] | row($s)],
	parallel_table: [$p | to_entries[] | row($p)],
	steady_add: {pf_writes: $pfw, file_changing_syscalls: $wsys,
		pf_writes_during_timed_runs: $runpfw},
	second_vf_add: {pf_writes: $pfw2, file_changing_syscalls: $wsys2},
	first_add_on_pf: {pf_writes: $firstw},
	parallel_state: {records: $parrec, pf_index_entries: $paridx, pf_writes: $parpfw},
	ratios: {ours_over_floor: over($ours; $m["floor ADD"]),
		ours_over_tuning: over($ours; $m["tuning ADD"]),
		second_vf_over_floor: over($ours2; $m["floor ADD"]),
		second_vf_over_tuning: over($ours2; $m["tuning ADD"]),
		floor_over_tuning: over($m["floor ADD"]; $m["tuning ADD"]),
		# the scale rounds hold no writing peers (no fsync, no tree copies)
		scale_ours_over_floor: over($s["records=1"]; $s["floor ADD"]),
		scale_spread: ($spread | r2)},
	targets: [
		{target: "steady ADD (same attachment again) median <= 1.5x the C floor",
		 measured: "\(over($ours; $m["floor ADD"]))x",
		 met: (over($ours; $m["floor ADD"]) <= 1.5)},
		{target: "steady ADD (2nd VF of a configured PF) median <= 1.5x the C floor",
		 measured: "\(over($ours2; $m["floor ADD"]))x",
		 met: (over($ours2; $m["floor ADD"]) <= 1.5)},
		{target: "steady ADD (same attachment again) median <= 0.25x Go tuning ADD",
		 measured: ("\(over($ours; $m["tuning ADD"]))x" +
			" (C floor: \(over($m["floor ADD"]; $m["tuning ADD"]))x)"),
		 met: (over($ours; $m["tuning ADD"]) <= 0.25)},
		{target: "steady ADD (2nd VF of a configured PF) median <= 0.25x Go tuning ADD",
		 measured: "\(over($ours2; $m["tuning ADD"]))x",
		 met: (over($ours2; $m["tuning ADD"]) <= 0.25)},
		{target: "peak RSS < 1.5 MiB (1536 KiB)",
		 measured: ("\($rss) KiB, max over rdma-qos ADD/CHECK/DEL/VERSION" +
			" (C floor \($m["floor ADD"].max_rss_kib)," +
			" harness floor \($m["exec no-op (static)"].max_rss_kib))"),
		 met: ($rss < 1536)},
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
	]
}
