#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The demo cannot rot (issue 39): run tests/demo.sh as `make demo` does, its stdout a pipe,
# and check its key lines step by step, its wall time (under 3 minutes) and that it leaves
# nothing behind: no netns, no link, no process (the agent, lldpd, top), no temp dir. Then
# interrupt it mid-run, with lldpd and the agent running, three ways (SIGINT to its process
# group as Ctrl-C does, SIGINT to the script alone while top runs, SIGTERM to the script
# alone), and once with its reader gone (make demo | head), and check the same. Run by make
# sim-test.
#
# What is the demo's: its processes carry RQ_DEMO_MARK in their environment (set for the
# demo alone), but for lldpd, which clears its own: those are the processes of its netns,
# dm<pid>_*, sampled while they run; its temp dir is under its own TMPDIR; its links are
# ens<N>f* (N from its output).
set -u
. "$(dirname "$0")/../agent/lib.sh"

sim_suite_start "demo check" rqdc demo_can_run
# lldpcli (setuid _lldpd) must reach the demo's control sockets under $T/tmp
chmod 711 "$T"
DEMO=$RQ_SRC/tests/demo.sh
DEMO_PID=""
suite_teardown() { [ -n "$DEMO_PID" ] && kill -TERM -- "-$DEMO_PID" 2> /dev/null && wait "$DEMO_PID" 2> /dev/null; }
set -m # each demo its own process group, SIGINT not ignored (as from a shell)

# demo_start NAME: the demo in the background, stdout and stderr to $T/NAME.out
# the demo as a shell starts it: a run started in the background by a non-interactive shell
# (dash: make's recipes, a CI runner's) has SIGINT and SIGQUIT ignored, bash cannot trap a
# signal ignored when it starts, and this suite would send its Ctrl-C to nobody
DEMO_SH=(env --default-signal=INT,QUIT,TERM,PIPE bash "$DEMO")
demo_start() {
	mkdir -p "$T/$1.tmp"
	: > "$T/$1.out"
	: > "$T/$1.procs"
	RQ_DEMO_MARK="$T/$1" TMPDIR="$T/$1.tmp" RQ_BUILD=$RQ_BUILD "${DEMO_SH[@]}" > "$T/$1.out" 2>&1 &
	DEMO_PID=$!
	echo "$DEMO_PID" > "$T/$1.pid"
}
# demo_procs NAME: the pids of live processes of that run (by the mark in their environment)
demo_procs() {
	local e
	for e in /proc/[0-9]*/environ; do
		grep -qzxF "RQ_DEMO_MARK=$T/$1" "$e" 2> /dev/null && { e=${e%/environ}; echo "${e#/proc/}"; }
	done
	return 0
}
# started PID: its start time (field 22 of /proc/PID/stat, past the name in parentheses),
# empty once gone or a zombie
started() { sed 's/.*) //' "/proc/$1/stat" 2> /dev/null | awk '$1 != "Z" { print $20 }'; }
# sample NAME: add the run's processes running now to $T/NAME.procs ("pid start" lines):
# the marked ones and those in its netns
sample() {
	local pid n p
	pid=$(cat "$T/$1.pid")
	{
		demo_procs "$1"
		for n in $(ip netns list | awk -v p="dm${pid}_" 'index($1, p) == 1 { print $1 }'); do
			ip netns pids "$n" 2> /dev/null
		done
	} | sort -u | while read -r p; do echo "$p $(started "$p")"; done >> "$T/$1.procs"
	sort -u -o "$T/$1.procs" "$T/$1.procs"
}
# leftovers NAME: what that run left (nothing: empty)
leftovers() {
	local pid pf p s
	pid=$(cat "$T/$1.pid")
	pf=$(grep -o -m1 '^ens[0-9]*f0 ' "$T/$1.out" | tr -d ' ')
	{
		demo_procs "$1"
		while read -r p s; do [ -n "$s" ] && [ "$(started "$p")" = "$s" ] && echo "$p"; done < "$T/$1.procs"
	} | sort -u | while read -r p; do echo "process $p $(tr '\0' ' ' < "/proc/$p/cmdline" 2> /dev/null)"; done
	ip netns list | awk -v p="dm${pid}_" 'index($1, p) == 1 { print "netns " $1 }'
	[ -n "$pf" ] && ip -o link show 2> /dev/null | awk -F': ' -v p="${pf%0}" 'index($2, p) == 1 { sub(/@.*/, "", $2); print "link " $2 }'
	ls -A "$T/$1.tmp" | sed 's/^/temp /'
}
# nothing_left NAME: wait (10 s: the kernel destroys a deleted netns's veths later) until
# the run left nothing; else print what it left
nothing_left() {
	local f="$T/$1.left"
	left_empty() { leftovers "$1" > "$f"; [ ! -s "$f" ]; }
	wait_until 10 left_empty "$1" && return 0
	sed 's/^/  left: /' "$f"
	return 1
}
# section N: the lines of the demo's step N (its heading "== N." to the next heading)
section() { awk -v h="== $2." 'index($0, h) == 1 { on = 1; next } /^== / { on = 0 } on' "$T/$1.out"; }

echo "== the whole demo, stdout a pipe"
t0=$(date +%s%N)
demo_start full
# LINE in the output of run NAME, or the run is over
reached() { grep -q "$2" "$T/$1.out" || ! kill -0 "$DEMO_PID" 2> /dev/null; }
wait_until 120 reached full '^  partner leaf-01' && sample full
check "while lldpd plays the switch: the script, the agent and lldpd's two processes run ($(wc -l < "$T/full.procs"))" \
	[ "$(wc -l < "$T/full.procs")" -ge 4 ]
wait "$DEMO_PID"
rc=$?
DEMO_PID=""
ms=$((($(date +%s%N) - t0) / 1000000))
check "the demo exits 0 (rc $rc)" [ "$rc" -eq 0 ] || tail -20 "$T/full.out"
check "it took under 3 minutes ($ms ms)" [ "$ms" -lt 180000 ]
check "its last line: 'demo: done'" [ "$(tail -1 "$T/full.out")" = "demo: done" ]
check "no escape sequence on a pipe (headings readable)" [ "$(grep -c $'\033' "$T/full.out")" = 0 ]
check "five numbered steps, in order" \
	[ "$(grep -o '^== [0-9]\.' "$T/full.out" | tr -d '\n')" = "== 1.== 2.== 3.== 4.== 5." ]
check "nothing left behind" nothing_left full
S1=$(section full 1) S2=$(section full 2) S3=$(section full 3) S4=$(section full 4) S5=$(section full 5)

echo "== 1. three pods attach"
check "three ADDs done, each CHECK ok" [ "$(grep -c 'ADD done' <<< "$S1"):$(grep -c '^CHECK ok$' <<< "$S1")" = 3:3 ]
check "web is lossy (cni-args profile), the trainers lossless" \
	[ "$(grep -o 'ai-training/[a-z0-9-]* profile [a-z-]*' <<< "$S1" | tr '\n' ,)" = \
		"ai-training/trainer-0 profile roce-lossless,ai-training/trainer-1 profile roce-lossless,ai-training/web profile lossy," ]
check "show: the PF in profile (required ... met)" grep -q '^  required .*: met$' <<< "$S1"
check "trainer-1 is NUMA misaligned" grep -q 'NUMA misaligned (numa: warn' <<< "$S1"

echo "== 2. the agent repairs an outside write"
check "the write: pfc [3] -> [4]" grep -q '^\$ mlnx_qos .*pfc \[3\] -> \[4\]' <<< "$S2"
check "the agent's log line: repaired pfc, was 4, now 3,4" grep -q 'info: agent: PF ens[0-9]*f0 repaired pfc: was 4, now 3,4$' <<< "$S2"
ms=$(sed -n 's/^agent log, \([0-9]*\) ms after the write:$/\1/p' <<< "$S2")
check "within a second of the write (${ms:-no} ms)" [ "${ms:-1000}" -lt 1000 ]
check "show before: pfc [3]; after: pfc [3,4], met" \
	[ "$(grep -o '^PF [^ ]* .* pfc \[[0-9,]*\]' <<< "$S2" | grep -o 'pfc \[[0-9,]*\]' | tr '\n' ,):$(grep -c '^  required .*: met$' <<< "$S2")" = "pfc [3],pfc [3,4],:2" ]

echo "== 3. lldpd as the switch"
check "the agent heard leaf-01 port swp3" grep -q 'agent: PF ens[0-9]*f0: link partner .* (leaf-01) port swp3' <<< "$S3"
check "the partner line agrees on pfc, then DISAGREES" \
	[ "$(grep '^  partner leaf-01 port swp3' <<< "$S3" | grep -o 'pfc agrees\|pfc DISAGREES' | tr '\n' ,)" = "pfc agrees,pfc DISAGREES," ]
check "... saying why (partner PFC on 4, required 3)" grep -q 'DISAGREES (partner PFC on 4, required 3)' <<< "$S3"
check "CHECK passes while the switch disagrees" grep -q '^CHECK ai-training/trainer-0: ok$' <<< "$S3"

echo "== 4. congestion: top and show --qps"
ROWS=$(awk '/^NAMESPACE/ { on = 1; next } on && NF == 0 { exit } on' <<< "$S4")
check "top's PF line: partner DISAGREES" grep -q '^PF ens[0-9]*f0 .* partner DISAGREES$' <<< "$S4"
check "top ranks trainer-1 first (0.75 of what the paused port received), trainer-0 0.25" \
	[ "$(awk '{ print $2 "=" $(NF - 1) "/" $NF }' <<< "$ROWS" | tr '\n' ,)" = "trainer-1=0.75/host_rx,trainer-0=0.25/host_rx,web=0.0/-," ]
check "show --qps: trainer-0's qpn 18 at class 0 OFF LOSSLESS" grep -q '^  qpn 18 .* class 0 (dscp 0) -> prio 0  OFF LOSSLESS' <<< "$S4"
check "show --qps: the only OFF LOSSLESS line (web's class 0 is lossy: not flagged)" [ "$(grep -c 'OFF LOSSLESS' <<< "$S4")" = 1 ]
check "show --qps: web lossy, trainer-0 1 off lossless" \
	[ "$(grep -c '^ai-training/web .* lossy: census ok' <<< "$S4"):$(grep -c '^ai-training/trainer-0 .* lossless: census ok, 2 QPs, 1 off lossless' <<< "$S4")" = 1:1 ]

POD=$(awk '/^-- rdma-qos show --pod ai-training\/trainer-0/ { on = 1; next } /^(--|==) / { on = 0 } on' <<< "$S4")
check "show --pod ai-training/trainer-0: first line lossless: NO, naming the interface and the check" \
	grep -q '^lossless: NO (net1: the link partner disagrees: pfc: partner PFC on 4, required 3)$' <<< "$POD"
check "... one line per check, all nine in order" [ "$(awk '/^  [a-z_]+ +(ok|PROBLEM|unknown) / { print $1 }' <<< "$POD" |
	tr '\n' ,)" = "pf_profile,vf_class,peer,qps,numa,gdr,wiring,link,config," ]
check "... peer and qps PROBLEM (the QP at class 0), the rest ok or unknown" \
	[ "$(grep -o '^  [a-z_]* *PROBLEM' <<< "$POD" | awk '{ print $1 }' | tr '\n' ,)" = "peer,qps," ]
check "... exit 1: not lossless" grep -q '^(exit 1: not lossless)$' <<< "$POD"

echo "== 5. the metrics"
m5() { grep "^$1{" <<< "$S5" | grep -F "$2" | awk '{ print $2 }'; }
check "rdma_qos_attachment_lossless trainer-0 0 (its verdict over time)" \
	[ "$(m5 rdma_qos_attachment_lossless 'pod="trainer-0"')" = 0 ]
check "... under the alert that reads it (RdmaQosPodNotLossless)" \
	[ "$(grep -B1 -m1 '^rdma_qos_attachment_lossless{' <<< "$S5" | head -1)" = "# alert RdmaQosPodNotLossless" ]
check "... web, lossy, has none" [ -z "$(m5 rdma_qos_attachment_lossless 'pod="web"')" ]
check "rdma_qos_pf_in_profile 1" [ "$(m5 rdma_qos_pf_in_profile 'pf="')" = 1 ]
check "rdma_qos_repairs_total{item=pfc} 1 (2.)" [ "$(m5 rdma_qos_repairs_total 'item="pfc"')" = 1 ]
check "rdma_qos_peer_agreement{item=pfc} 0 (3.)" [ "$(m5 rdma_qos_peer_agreement 'item="pfc"')" = 0 ]
check "... under the alert that reads it (RdmaQosPeerDisagrees)" grep -q '^# alert .*RdmaQosPeerDisagrees' <<< "$S5"
check "rdma_qos_vf_qps_off_lossless trainer-0 1 (4.)" [ "$(m5 rdma_qos_vf_qps_off_lossless 'pod="trainer-0"')" = 1 ]
check "... under RdmaQosLosslessPodOnLossyClass" grep -q '^# alert RdmaQosLosslessPodOnLossyClass$' <<< "$S5"
check "rdma_qos_vf_paused_traffic_share trainer-1 0.75 (host_rx)" [ "$(m5 rdma_qos_vf_paused_traffic_share 'pod="trainer-1"')" = 0.7500 ]
check "rdma_qos_numa_misaligned trainer-1 1" [ "$(m5 rdma_qos_numa_misaligned 'pod="trainer-1"')" = 1 ]
check "a short list (under 20 series)" [ "$(grep -c '^rdma_qos_' <<< "$S5")" -lt 20 ]
check "then DEL of each pod, no record left, the agent exits 0" \
	[ "$(grep -c ': DEL ok$' "$T/full.out"):$(grep -c '^0 attachment record(s)$' "$T/full.out"):$(grep -c '^agent: SIGTERM, exit 0$' "$T/full.out")" = 3:1:1 ]

# interrupt NAME SIGNAL TARGET LINE PROCS: a demo, sent SIGNAL (to its process group: TARGET
# group; to the script: TARGET script) once its output has LINE and at least PROCS processes
# of it run (the script, the agent, lldpd's two, top)
interrupt() {
	local name=$1 sig=$2 target=$3 line=$4 min=$5 rc n
	demo_start "$name"
	wait_until 120 reached "$name" "$line"
	check "$name: the demo reached '$line'" grep -q "$line" "$T/$name.out"
	sample "$name"
	n=$(wc -l < "$T/$name.procs")
	check "$name: its processes are found ($n, at least $min)" [ "$n" -ge "$min" ]
	if [ "$target" = group ]; then kill "-$sig" -- "-$DEMO_PID"; else kill "-$sig" "$DEMO_PID"; fi
	wait "$DEMO_PID"
	rc=$?
	DEMO_PID=""
	check "$name: SIG$sig ends it (rc $rc)" [ "$rc" = $((128 + $(kill -l "$sig"))) ]
	check "$name: it did not finish" [ "$(grep -c '^demo: done$' "$T/$name.out")" = 0 ]
	check "$name: nothing left behind" nothing_left "$name"
}
echo "== interrupted: Ctrl-C (SIGINT to the process group) while lldpd plays the switch"
interrupt ctrl-c INT group '^  partner leaf-01' 4
echo "== interrupted: SIGINT to the script alone while top runs"
interrupt sigint INT script '^\$ rdma-qos top' 5
echo "== interrupted: SIGTERM to the script alone as the agent repairs"
interrupt sigterm TERM script '^\$ mlnx_qos' 2
echo "== interrupted: its reader stops reading (make demo | head -n 30)"
mkdir -p "$T/pipe.tmp"
: > "$T/pipe.procs"
RQ_DEMO_MARK="$T/pipe" TMPDIR="$T/pipe.tmp" RQ_BUILD=$RQ_BUILD "${DEMO_SH[@]}" > >(head -n 30 > "$T/pipe.out") 2>&1 &
DEMO_PID=$!
echo "$DEMO_PID" > "$T/pipe.pid"
wait "$DEMO_PID"
rc=$?
DEMO_PID=""
check "pipe: the demo stops with the reader gone (rc $rc)" [ "$rc" -ne 0 ]
check "pipe: ... once it had attached a pod" grep -q '^-- ai-training/trainer-0: ADD' "$T/pipe.out" ||
	sed "s/^/  pipe.out: /" "$T/pipe.out"
check "pipe: nothing left behind" nothing_left pipe

summary
