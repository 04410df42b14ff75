# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# free_port: a TCP port for a test's listener on 127.0.0.1 (the agent's --listen, a TLS
# server), one that no other suite running beside this one has been handed: suites started
# side by side took 20000 + ($$ + k) % 20000 and collided. Under a lock (flock), the next
# port of a counter shared by every suite (20000-32767, below the kernel's ephemeral ports),
# skipping a port something listens on (ss -ltn, or a connect through bash's /dev/tcp) or one handed to a suite that still runs;
# each port handed is recorded with the suite's PID. Sourced by tests/sim/lib.sh (so every
# simulated-node suite and the demo have it) and by tests/deploy/overlays.sh. set -e safe
# (tests/demo.sh). Prints the port; rc 1 (nothing printed) when none is free or no lock.
free_port() {
	local dir lo=20000 hi=32767 fd n p i holder
	if [ "$(id -u)" = 0 ]; then dir=/run/rdma-qos-tests/ports; else dir=/tmp/rdma-qos-tests-$(id -u)/ports; fi
	dir=${RQ_PORT_DIR:-$dir}
	mkdir -p "$dir" || return 1
	exec {fd}>> "$dir/lock" || return 1
	if ! flock -w 60 "$fd"; then exec {fd}>&-; return 1; fi
	n=$(cat "$dir/next" 2> /dev/null || true)
	if ! [[ $n =~ ^[0-9]+$ ]] || [ "$n" -lt $lo ] || [ "$n" -gt $hi ]; then n=$((lo + $$ % (hi - lo + 1))); fi
	p=""
	for ((i = 0; i <= hi - lo; i++)); do
		p=$n
		n=$((n >= hi ? lo : n + 1))
		# handed to a suite that still runs (its PID alive: it may not listen yet)
		holder=$(cat "$dir/$p" 2> /dev/null || true)
		if [ -n "$holder" ] && [ "$holder" != $$ ] && kill -0 "$holder" 2> /dev/null; then p=""; continue; fi
		if command -v ss > /dev/null; then
			if ss -Hltn "sport = :$p" | grep -q .; then p=""; continue; fi
		elif (: < "/dev/tcp/127.0.0.1/$p") 2> /dev/null; then p=""; continue
		fi
		break
	done
	[ -n "$p" ] && echo $$ > "$dir/$p" && echo "$n" > "$dir/next"
	exec {fd}>&-
	[ -n "$p" ] && echo "$p"
}
