#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Remake mk/cni_libc.txt: the libc.a members CNI commands run (a first ADD, the steady
# ADD, CHECK, DEL, VERSION, and `--version`), traced in
# build/rdma-qos-sim under gdb (a temporary breakpoint on every function, hit or not)
# on a simulated node, mapped to the libc.a member defining each function hit
# (global symbols, and local ones only where one member has that name). Then checks
# that the list adds no member: the binary linked with it defines the same symbols
# as one linked without it. Run by hand after a glibc upgrade or when ADD changes
# much (docs/benchmarks.md "ADD's cost"); as root, like the sim suites.
set -euo pipefail
. "$(dirname "$0")/../sim/lib.sh"
why=$(sim_can_run) || { echo "cni_libc: cannot run: $why" >&2; exit 1; }
command -v gdb > /dev/null || { echo "cni_libc: no gdb" >&2; exit 1; }
T=$(mktemp -d /tmp/rq-cnilibc.XXXXXX) NS=rqcnilibc$$
cleanup() { ip netns del "$NS" 2>/dev/null || true; rm -rf "$T"; }
trap cleanup EXIT
BIN=$T/rdma-qos-sim
cp "$RQ_BUILD/rdma-qos-sim" "$BIN"
ip netns add "$NS"
ip link add "rqcl$$" type veth peer name "rqcl$$p"
ip link set "rqcl$$" netns "$NS" name net1 && ip -n "$NS" link set net1 up
"$MKNODE" --root "$T/node" --pfs 1 --vfs 2 --numa-nodes 1 --rdma configfs --ecn yes --dcb yes \
	--pf-prefix cl > /dev/null
"$MKNODE" --root "$T/node" pod --uid pod-cl --cpus 0-1 > /dev/null
VF=$(sim_vfs "$T/node" | awk 'NR == 1 { print $2 }')
conf_for cl 1.0.0 "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF\"}" \
	"{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"net1\",\"sandbox\":\"/run/netns/$NS\"}]}" \
	> "$T/in.json"
cat > "$T/env" <<ENV
CNI_COMMAND=ADD
CNI_CONTAINERID=cl
CNI_NETNS=/run/netns/$NS
CNI_IFNAME=net1
CNI_PATH=/usr/lib/cni
CNI_ARGS=IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=cl;K8S_POD_UID=pod-cl
RDMA_QOS_SIM_ROOT=$T/node
ENV
nm "$BIN" | awk '$2 ~ /^[tTWi]$/ { print $1, $3 }' | sort -u -k1,1 > "$T/syms"
cat > "$T/trace.py" <<PY
import gdb
gdb.execute("set pagination off")
# starti's arguments are the program's (gdb's --args would be replaced): from $T/args
gdb.execute("starti %s < $T/in.json > /dev/null 2> /dev/null" % open("$T/args").read().strip())
base = next(int(l.split("-")[0], 16) for l in open("/proc/%d/maps" % gdb.selected_inferior().pid)
            if l.rstrip().endswith("$BIN"))
names = {}
for l in open("$T/syms"):
    a, n = l.split()
    if int(a, 16):
        names[base + int(a, 16)] = n
for a in names:
    gdb.Breakpoint("*0x%x" % a, internal=True, temporary=True)
with open("$T/hits", "a") as out:
    while True:
        try:
            gdb.execute("continue", to_string=True)
            pc = int(gdb.parse_and_eval("\$pc"))
        except gdb.error:
            break
        if pc in names:
            out.write(names[pc] + "\n")
PY
# the commands of an attachment's life, each traced: the first ADD on a fresh PF (it writes
# the PF, the class, the record), the steady ADD the list is for, CHECK, DEL, VERSION; and
# `--version`, the start-up alone that docs/benchmarks.md measures (stdio's own buffer there)
: > "$T/hits"
for cmd in ADD ADD CHECK DEL VERSION --version; do
	arg=
	case $cmd in --*) arg=$cmd cmd=VERSION ;; esac
	sed "s/^CNI_COMMAND=.*/CNI_COMMAND=$cmd/" "$T/env" > "$T/env.cmd"
	echo "$arg" > "$T/args"
	env -i $(cat "$T/env.cmd") gdb -q -batch -x "$T/trace.py" "$BIN" > "$T/gdb.log" 2>&1 ||
		{ tail -5 "$T/gdb.log" >&2; exit 1; }
done
[ -s "$T/hits" ] || { echo "cni_libc: gdb saw no function" >&2; exit 1; }
LIBC=$(${CC:-cc} -print-file-name=libc.a)
# member of each function: globals, and locals whose name one member alone defines
nm -A "$LIBC" 2>/dev/null | awk '$(NF-1) ~ /^[tTWi]$/ { split($1, p, ":"); print $NF, p[2], $(NF-1) }' |
	sort -u > "$T/libc"
awk '$3 == "t" { n[$1]++; m[$1] = $2 } $3 != "t" { g[$1] = $2 }
	END { for (s in g) print s, g[s]; for (s in n) if (n[s] == 1 && !(s in g)) print s, m[s] }' \
	"$T/libc" | sort -k1,1 > "$T/map"
# a libc function the binary takes from our own objects instead (plugin/seams/static_*.c:
# _dl_get_origin, the NSS stand-ins) names no member: listing it would define it twice
nm --defined-only "$RQ_BUILD"/plugin/seams/static_*.o | awk '$2 ~ /^[TW]$/ { print $3 }' |
	sort -u > "$T/ours"
# ... and what the production binary's CNI path runs that the simulated node's does not:
# libnl's socket (nl_socket_alloc's port lock and sequence clock, nl_connect, nl_send,
# nl_recv) for dcbnl and ethtool-netlink, where rdma-qos-sim reads files
PROD_ONLY="bind.o getsockname.o pthread_rwlock_wrlock.o recvmsg.o sendmsg.o setsockopt.o time.o"
# ... and the members every command touches only the data of, which a function breakpoint
# does not see (glibc's start-up and stdio: __environ, __default_pthread_attr,
# __pthread_force_elision, the stdio and locale locks, printf's hook tables, _r_debug): their .bss beside the CNI path's, not on three
# pages of their own after the agent's (a page fault each, docs/benchmarks.md)
DATA_ONLY="dl-debug-symbols.o environ.o lowlevellock.o reg-modifier.o reg-printf.o setlocale.o stdfiles.o vars.o"
{
	sort -u "$T/hits" | comm -23 - "$T/ours" | join - "$T/map" | awk '{ print $2 }'
	ar t "$LIBC" | grep -Fx -f <(tr ' ' '\n' <<< "$PROD_ONLY $DATA_ONLY")
} | sort -u > "$T/members"
OUT=$RQ_SRC/mk/cni_libc.txt
{ sed -n '1,/^# member to the link/p' "$OUT"; cat "$T/members"; } > "$T/list"
cp "$T/list" "$OUT"
echo "cni_libc: $(sort -u "$T/hits" | wc -l) functions hit, $(wc -l < "$T/members") libc.a members -> $OUT"
# the list orders, it adds nothing: the same symbols with and without it
make -C "$RQ_SRC" -s B="$T/with" "$T/with/rdma-qos-sim" > /dev/null
make -C "$RQ_SRC" -s B="$T/without" CNI_LIBC= "$T/without/rdma-qos-sim" > /dev/null
diff <(nm "$T/with/rdma-qos-sim" | awk '{ print $NF }' | sort) \
	<(nm "$T/without/rdma-qos-sim" | awk '{ print $NF }' | sort) > /dev/null ||
	{ echo "cni_libc: the list adds libc members to the link: check $OUT" >&2; exit 1; }
echo "cni_libc: the list adds no member (same symbols with and without it)"
