#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# What a steady-state ADD (the same attachment ADDed again, the PF already
# right) asks the kernel, under strace (issue 51: each syscall of the pod's
# critical path is a kernel entry, several microseconds on a VM): the pod's
# ifindex comes from the RTM_GETLINK reply that names its device, not from an
# ioctl socket first; the pod netns is opened once (its identity for the
# record from the same fd); configfs's port file is looked for first, and
# rdma_cm and the device's directory only when it is missing; the VF's
# directory is not looked up apart when its numa_node reads; stdio does not
# probe stdout (the result is written at exit, from a buffer of main's); glibc's start does
# not read /proc/self/exe, nor ADD /proc/self/ns/pid for a netns path under /run.
# Behaviour, not time: counts of calls, no clock.
set -u
. "$(dirname "$0")/lib.sh"

sim_suite_start "steady ADD syscalls" rqsys sim_can_run
command -v strace > /dev/null || { fail "strace missing (tests/sim/packages.txt)"; summary; exit; }

"$MKNODE" --root "$ROOT" --pfs 1 --vfs 2 --numa-nodes 1 --rdma configfs --ecn yes --dcb yes \
	--pf-prefix sy$$ > /dev/null || { echo "FAIL: mknode"; exit 1; }
"$MKNODE" --root "$ROOT" pod --uid pod-sys --cpus 0-1 > /dev/null || { echo "FAIL: mknode pod"; exit 1; }
sim_make_vfs "$ROOT"
read -r _ VFPCI VF <<< "$(sim_vfs "$ROOT" | head -1)"
NS=$(newns p)
ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p-sys;K8S_POD_UID=pod-sys"
RQ="{\"type\":\"rdma-qos\",\"deviceID\":\"$VFPCI\"}"
PREV=$(chain_add "$ROOT" sys pod-sys "$NS" net1 "$VF" "$RQ" "$ARGS" 2> "$T/first.err")
check "first ADD succeeds" [ $? -eq 0 ] || { echo "$PREV"; cat "$T/first.err"; }

# the steady ADD under strace, with the environment a runtime gives it
conf_for sys 1.0.0 "$RQ" "$PREV" > "$T/conf"
env -i PATH="$PATH" RDMA_QOS_SIM_ROOT="$ROOT" CNI_COMMAND=ADD CNI_CONTAINERID=pod-sys \
	CNI_NETNS="$NS" CNI_IFNAME=net1 CNI_PATH="$CNI_BIN_DIR" CNI_ARGS="$ARGS" \
	strace -f -qq -s 128 -o "$T/st" "$SIM" < "$T/conf" > "$T/out" 2> "$T/err"
check "steady ADD succeeds under strace" [ $? -eq 0 ] || cat "$T/out" "$T/err"
has_result() { jq -e '.interfaces[0].name == "net1"' "$T/out" > /dev/null; }
check "steady ADD prints its result" has_result
# the calls of rdma-qos-sim itself (strace's own execve of it counted out)
sed -n '/execve(.*rdma-qos-sim/,$p' "$T/st" | sed 1d | grep -v -e '+++ exited' > "$T/calls"
n() { grep -c -e "$1" "$T/calls"; }
echo "   steady ADD: $(wc -l < "$T/calls") syscalls"

check "no ioctl socket for the pod interface's index ($(n SIOCGIFINDEX) SIOCGIFINDEX)" \
	[ "$(n SIOCGIFINDEX)" = 0 ]
# one link's RTM_GETLINK on a bare socket: the kernel binds it at the send (libnl's connect
# added two setsockopt, a bind and a getsockname)
check "no netlink socket set up beyond socket(2) ($(n 'setsockopt(\|bind(\|getsockname(') calls)" \
	[ "$(n 'setsockopt(\|bind(\|getsockname(')" = 0 ]
# ... and the one SIOCGSKNS asks for the plugin's own netns (below)
check "no socket but netlink ones and SIOCGSKNS's ($(n 'socket(AF_UNIX\|socket(AF_INET') others)" \
	[ "$(n 'socket(AF_UNIX\|socket(AF_INET')" = "$(n SIOCGSKNS)" ]
check "stdout not probed by stdio (fstat, isatty): $(n 'newfstatat(1,\|ioctl(1,') calls" \
	[ "$(n 'newfstatat(1,\|ioctl(1,')" = 0 ]
# open(2) or openat(2), as the libc has it
check "the pod netns opened once ($(n "\(openat(AT_FDCWD, \|open(\)\"$NS\"") opens)" \
	[ "$(n "\(openat(AT_FDCWD, \|open(\)\"$NS\"")" = 1 ]
check "the VF's directory not looked up apart from its numa_node ($(n "\"sys/bus/pci/devices/$VFPCI\", {flags=O_RDONLY|O_CLOEXEC|O_PATH,") lookups)" \
	[ "$(n "\"sys/bus/pci/devices/$VFPCI\", {flags=O_RDONLY|O_CLOEXEC|O_PATH,")" = 0 ]
check "rdma_cm not probed when the port file is there ($(n '"sys/kernel/config/rdma_cm"') probes)" \
	[ "$(n '"sys/kernel/config/rdma_cm"')" = 0 ]
check "the device's rdma_cm directory not probed ($(n '"sys/kernel/config/rdma_cm/[^/"]*"') probes)" \
	[ "$(n '"sys/kernel/config/rdma_cm/[^/"]*"')" = 0 ]
# glibc's static start asks /proc for the binary's directory, for a dlopen's $ORIGIN that
# rdma-qos never does (plugin/seams/static_origin.c)
check "the start-up does not read /proc/self/exe ($(n '"/proc/self/exe"') reads)" \
	[ "$(n '"/proc/self/exe"')" = 0 ]
# the netns to come back to, from a socket made here (SIOCGSKNS), not a /proc walk
check "the plugin's own netns not opened through /proc ($(n 'ns/net"') opens)" \
	[ "$(n 'ns/net"')" = 0 -a "$(n SIOCGSKNS)" = 1 ]
# a bind-mount netns path names its netns from any PID namespace: /proc not asked
check "the PID namespace not read for a bind-mount netns path ($(n 'ns/pid"') reads)" \
	[ "$(n 'ns/pid"')" = 0 ]
# sysfs emits a directory's entries until the next does not fit: one answer with room left
# is the whole directory (the steady ADD lists only directories under /sys)
check "each /sys directory listed in one getdents64 ($(grep -c 'getdents64(.*) = 0$' "$T/calls") asked again)" \
	[ "$(grep -c 'getdents64(.*) = 0$' "$T/calls")" = 0 ]
check "the port file: found once, read once ($(n 'default_roce_tos"') opens)" \
	[ "$(n 'default_roce_tos"')" = 2 ]
# the pod's CPUs on the VF's node: that node's cpulist read alone, the nodes not listed
check "the VF's node's cpulist alone read ($(n 'cpulist"') reads, $(n '"sys/devices/system/node"') listings)" \
	[ "$(n 'cpulist"')" = 1 -a "$(n '"sys/devices/system/node"')" = 0 ]
# the pod side's RTM_GETLINK asks for no counters (RTEXT_FILTER_SKIP_STATS: IPv6's per-CPU
# statistics not folded into the reply): the request's IFLA_EXT_MASK attribute (length 8,
# type 29) carries 8, as strace prints a request it does not decode
skip_stats='\\x08\\x00\\x1d\\x00\\x08\\x00\\x00\\x00'
check "the pod's link asked without statistics ($(grep -c "sendto(.*$skip_stats" "$T/calls") requests)" \
	[ "$(grep -c "sendto(.*$skip_stats" "$T/calls")" -ge 1 ]
chain_del "$ROOT" sys pod-sys "$NS" net1 "$VF" "$RQ" "$ARGS" > /dev/null 2>&1

# make bench's pod: net1 a bare veth that shows no device, the VF named by deviceID; the
# link's index comes from the RTM_GETLINK that found no device, not from an ioctl socket
read -r _ VF2PCI _ <<< "$(sim_vfs "$ROOT" | sed -n 2p)"
NS2=$(newns q)
ip link add "rqsy$$" type veth peer name "rqsy$$"p
ip link set "rqsy$$" netns "${NS2##*/}" name net1 && ip -n "${NS2##*/}" link set net1 up
PREV2=$(jq -nc --arg ns "$NS2" '{cniVersion: "1.0.0", interfaces: [{name: "net1", sandbox: $ns}]}')
conf_for sys2 1.0.0 "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF2PCI\"}" "$PREV2" > "$T/conf2"
ARGS2="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p-sys2;K8S_POD_UID=pod-sys"
add2() {
	env -i PATH="$PATH" RDMA_QOS_SIM_ROOT="$ROOT" CNI_COMMAND="${1:-ADD}" CNI_CONTAINERID=pod-sys2 \
		CNI_NETNS="$NS2" CNI_IFNAME=net1 CNI_PATH="$CNI_BIN_DIR" CNI_ARGS="$ARGS2" \
		"${@:2}" "$SIM" < "$T/conf2" > "$T/out2" 2> "$T/err2"
}
add2 ADD
check "ADD on a bare veth with the VF's deviceID" [ $? -eq 0 ] || cat "$T/out2" "$T/err2"
add2 ADD strace -f -qq -o "$T/st2"
check "... its steady ADD succeeds under strace" [ $? -eq 0 ] || cat "$T/out2" "$T/err2"
check "... no ioctl socket for its index ($(grep -c SIOCGIFINDEX "$T/st2") SIOCGIFINDEX)" \
	[ "$(grep -c SIOCGIFINDEX "$T/st2")" = 0 ]
add2 DEL
summary
