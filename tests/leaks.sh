#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# What the tests make on the host and must remove (issue 42 item 12), by the
# names the tests give it: network namespaces "rq*" (tests/sim/lib.sh's
# per-PID prefixes, the unit tests' rqunit/rqeth/rqctr), host links of the
# kinds the tests make (veth, dummy, bond, bridge) named "rq*" or
# "<2-3 letters><digit>*" (mknode's --pf-prefix names: qp1234, cr0v1),
# processes of the binaries under test in this netns (rdma-qos, rdma-qos-sim,
# the sim's PodResources server; tmux sessions "rq*") and temporary directories
# ${TMPDIR:-/tmp}/rq-*.
#   leaks.sh snapshot FILE   what exists now
#   leaks.sh list            what exists now, on stdout (tests/sim/simnode_check.sh)
#   leaks.sh check FILE      fail (1), naming each, if something of the above
#                            exists now that was not in FILE
# Only what appeared since the snapshot counts, so a machine's older leftovers
# or its own links do not fail the run; another test run on the same machine
# at the same time can (its namespaces look like ours).
set -u

inventory() {
	local k self pid name
	self=$(readlink /proc/self/ns/net)
	ip netns list 2> /dev/null | awk '$1 ~ /^rq/ { print "netns " $1 }'
	for k in veth dummy bond bridge; do
		ip -o link show type "$k" 2> /dev/null |
			awk -F': ' '{ sub(/@.*/, "", $2); print $2 }' |
			grep -E '^(rq|[a-z]{2,3}[0-9])' | sed "s/^/link /"
	done
	# a process by its executable's name, the PodResources server by its script;
	# only in this netns, where the tests start them (not a container's, nor a
	# run isolated in a netns of its own)
	ps -eo pid=,comm=,args= 2> /dev/null | awk '
		$2 == "rdma-qos" || $2 == "rdma-qos-sim" { print $1 " " $2; next }
		/tests\/simnode\/podres_server\.py/ { print $1 " podres_server.py" }' |
		while read -r pid name; do
			[ "$(readlink "/proc/$pid/ns/net" 2> /dev/null)" = "$self" ] &&
				echo "process $pid $name"
		done
	tmux ls -F '#{session_name}' 2> /dev/null | grep '^rq' | sed 's/^/tmux /'
	find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'rq-*' -printf 'tmpdir %p\n' 2> /dev/null
}

case "${1:-}" in
snapshot)
	inventory | sort > "$2"
	;;
list)
	inventory | sort
	;;
check)
	[ -f "$2" ] || { echo "leaks: no snapshot $2"; exit 1; }
	# the kernel destroys a deleted netns's links from a workqueue, and an
	# agent given SIGTERM takes a moment: allow them 5 s
	end=$((SECONDS + 5))
	while :; do
		new=$(inventory | sort | comm -13 "$2" -)
		[ -z "$new" ] || [ "$SECONDS" -ge "$end" ] && break
		sleep 0.2
	done
	if [ -n "$new" ]; then
		echo "FAIL: the tests left behind (not there before the run):"
		sed 's/^/  /' <<< "$new"
		exit 1
	fi
	echo "leaks: nothing left behind (namespaces, links, processes, temporary directories)"
	;;
*)
	echo "usage: $0 snapshot FILE | check FILE | list" >&2
	exit 2
	;;
esac
