#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Least privilege (issue 30, item 7): the agent container mounts only what the
# agent reads, and what it reads is all mounted.
# - the DaemonSet (deploy/base) and the chart's rendered pod give the agent no
#   mount that exposes kubelet's pods/ tree (every pod's secrets and
#   service-account tokens): neither kubelet's root dir nor anything above
#   or under pods/;
# - the agent, run as the DaemonSet runs it (its own PID and mount namespace,
#   the container's flags) over a node with every kind of record (lossless
#   and lossy attachments, a cri-dockerd /proc/<pid>/ns/net netns, congestion
#   counters, kubelet's state files present, a VF no chain ran rdma-qos for, its
#   pod found from its netns's process and kubelet's pod log directory), opens
#   nothing under kubelet's root dir but pod-resources/ (the PodResources socket, the
#   agent's one kubelet mount), and every host path it opens lies under one of its container's
#   mounts (strace -f of the whole pass).
set -u
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)

mounts_can_run() {
	agent_can_run || return 1
	command -v strace > /dev/null || { echo "no strace"; return 1; }
	python3 -c 'import yaml' 2> /dev/null || { echo "no python3-yaml"; return 1; }
	unshare --pid --fork --mount-proc true 2> /dev/null || { echo "unshare --pid --mount-proc refused"; return 1; }
	return 0
}
sim_suite_start "agent mounts" rqmt mounts_can_run
HOSTPROC=$T/hostproc
PCG=""
suite_teardown() {
	[ -n "${SLEEPER:-}" ] && kill "$SLEEPER" 2> /dev/null
	[ -n "${SLEEPER2:-}" ] && kill "$SLEEPER2" 2> /dev/null && wait "$SLEEPER2" 2> /dev/null
	# the pod's cgroup, and its parents when no other run uses them
	[ -n "$PCG" ] && rmdir "$PCG" "${PCG%/*}" "${PCG%/*/*}" 2> /dev/null
	mountpoint -q "$HOSTPROC" && umount -l "$HOSTPROC"
}

# agent_mounts FILE: the agent container's "mountPath hostPath" lines of the DaemonSet in FILE
agent_mounts() {
	python3 - "$1" << 'EOF'
import sys, yaml
for d in yaml.safe_load_all(open(sys.argv[1])):
    if not d or d.get("kind") != "DaemonSet":
        continue
    s = d["spec"]["template"]["spec"]
    vols = {v["name"]: v for v in s.get("volumes", [])}
    for c in s["containers"]:
        if c["name"] != "agent":
            continue
        for m in c.get("volumeMounts", []):
            hp = vols[m["name"]].get("hostPath", {}).get("path", "-")
            print(m["mountPath"], hp)
EOF
}
# exposes_pods HOSTPATH: a mount of it would show kubelet's pods/ tree
exposes_pods() {
	local k=/var/lib/kubelet p=${1%/}
	case "$k/pods/" in "$p"/*) return 0 ;; esac
	case "$p/" in "$k/pods/"*) return 0 ;; esac
	return 1
}

echo "== the agent container's mounts, as shipped"
agent_mounts "$SRC/deploy/base/daemonset.yaml" > "$T/mounts.base"
check "the base DaemonSet's agent has mounts ($(wc -l < "$T/mounts.base"))" [ -s "$T/mounts.base" ]
bad=$(while read -r _ hp; do exposes_pods "$hp" && echo "$hp"; done < "$T/mounts.base")
check "no agent mount of the base exposes kubelet's pods/ (secrets, tokens)${bad:+: $bad}" [ -z "$bad" ]
HELM=$SRC/deploy/helm/rdma-qos/templates/daemonset.yaml
hbad=$(grep -nE 'path: *(/var/lib/kubelet|/var/lib|/var|/)[ ,}]' "$HELM")
check "the chart's DaemonSet mounts no kubelet root (or above) either${hbad:+: $hbad}" [ -z "$hbad" ]
check "every agent mount has a row in docs/operations.md \"The agent's mounts\"" [ -z "$(
	while read -r mp _; do grep -qF -- "| \`$mp\`" "$SRC/docs/operations.md" || echo "$mp"; done < "$T/mounts.base")" ]

echo "== what the agent opens in a pass, as the DaemonSet runs it"
"$MKNODE" --root "$ROOT" --pfs 2 --vfs 4 --numa-nodes 2 --cpus-per-node 4 --rdma configfs \
	--ecn yes --dcb yes --counters yes --pf-prefix mt$$ > /dev/null || { echo "FAIL: mknode"; exit 1; }
"$MKNODE" --root "$ROOT" pod --uid pod-a --cpus 0-1 --mem-node 0 > /dev/null
sim_make_vfs "$ROOT"
mapfile -t VFS < <(sim_vfs "$ROOT")
read -r _ VF0PCI VF0 <<< "${VFS[0]}"
read -r _ VF1PCI VF1 <<< "${VFS[1]}"
read -r _ VF2PCI VF2 <<< "${VFS[2]}"
ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p1;K8S_POD_UID=pod-a"
rq() { echo "{\"type\":\"rdma-qos\",\"deviceID\":\"$1\"}"; }
NSA=$(newns a) NSB=$(newns b) NSC=$(newns c)
NSB=/var/run/netns/${NSB##*/} # as containerd and CRI-O record it
chain_add "$ROOT" roce c1 "$NSA" net1 "$VF0" "$(rq "$VF0PCI")" "$ARGS" > /dev/null
check "ADD a lossless attachment" [ $? -eq 0 ]
chain_add "$ROOT" roce c2 "$NSB" net1 "$VF1" "$(rq "$VF1PCI")" "$ARGS" > /dev/null
check "ADD a second attachment" [ $? -eq 0 ]
ip netns exec "${NS_PREFIX}c" sleep 1000 &
SLEEPER=$!
sleep 0.2
chain_add "$ROOT" roce c3 "/proc/$SLEEPER/ns/net" net1 "$VF2" "$(rq "$VF2PCI")" "$ARGS" > /dev/null
check "ADD with a cri-dockerd netns (/proc/<pid>/ns/net)" [ $? -eq 0 ]
# a VF no chain ran rdma-qos for (moved as dranet moves it): the pass asks kubelet's
# PodResources List for its pod, through the one kubelet mount (pod-resources/)
read -r _ _ VF3 <<< "${VFS[3]}"
NSD=$(newns d)
ip link set "$VF3" netns "${NSD##*/}"
# its pod claims it at pod level (dranet's examples): no PodResources container names it, so
# the pass finds the pod from a process of its netns (the pod UID in its cgroup, systemd's
# driver) and kubelet's pod log directory (/var/log/pods/NAMESPACE_NAME_UID)
PUID=$(printf '%08x-0000-4000-8000-%012x' "$$" "$$")
for CGR in /sys/fs/cgroup/unified /sys/fs/cgroup; do [ "$(stat -fc %T "$CGR" 2> /dev/null)" = cgroup2fs ] && break; CGR=""; done
ip netns exec "${NSD##*/}" sleep 1000 &
SLEEPER2=$!
if [ -n "$CGR" ]; then
	PCG=$CGR/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${PUID//-/_}.slice
	mkdir -p "$PCG" && echo "$SLEEPER2" > "$PCG/cgroup.procs"
fi
check "a process of VF3's netns is in its pod's cgroup (cgroup2: ${CGR:-none})" grep -q "pod${PUID//-/_}" "/proc/$SLEEPER2/cgroup"
mkdir -p "$ROOT/var/log/pods/ai_pl_$PUID"
check "kubelet's state files exist on the node (the agent could read them)" \
	[ -s "$ROOT/var/lib/kubelet/cpu_manager_state" ]
# a drift, so the pass repairs (the write paths are exercised too)
DEV0=$(rdma_of "$ROOT" "$VF0PCI")
echo 0 > "$(tos_file "$ROOT" "$DEV0")"
mkdir -p "$HOSTPROC" && mount --bind /proc "$HOSTPROC"
TF=$ROOT/var/lib/node_exporter/textfile_collector
mkdir -p "$TF"
RDMA_QOS_SIM_ROOT=$ROOT strace -f -qq -y -e trace=%file,connect -o "$T/strace" \
	unshare --pid --fork --mount-proc "$SIM" agent --once --interval=60 \
	--metrics-file="$TF/rdma-qos.prom" --host-proc="$HOSTPROC" 2> "$T/agent.log"
check "the pass ends in profile (exit 0)" [ $? -eq 0 ] || tail -5 "$T/agent.log"
check "... it repaired the class (106)" [ "$(cat "$(tos_file "$ROOT" "$DEV0")")" = 106 ]
check "... it read congestion counters (VF series in its metrics)" \
	grep -q '^rdma_qos_vf_cnp_sent_total{' "$TF/rdma-qos.prom"
# every path a syscall named, as the agent's mount namespace sees it: under the sim root
# the host's, the --host-proc dir the host's /proc
# (-y: a result fd and a dirfd print their paths; openat2 under the sim root names its
# path relative to the root's fd)
python3 - "$T/strace" > "$T/paths" << 'EOF'
import re, sys
out = set()
for l in open(sys.argv[1]):
    m = re.search(r'= \d+<([^>]*)>$', l.rstrip())
    if m:
        out.add(m.group(1))
    m = re.search(r'\((?:-?\d+<([^>]*)>|AT_FDCWD<[^>]*>), "([^"]*)"', l)
    if m and m.group(2):
        rel = m.group(2)
        out.add(rel if rel.startswith("/") or not m.group(1) else m.group(1).rstrip("/") + "/" + rel)
    for a in re.findall(r'"(/[^"]*)"', l):
        out.add(a)
print("\n".join(sorted(out)))
EOF
grep -F "$ROOT/" "$T/paths" | sed "s|^$ROOT||" | grep -vxE '/\.?' > "$T/host-paths"
grep -E '^/(var/)?run/netns/' "$T/paths" >> "$T/host-paths"
grep -F "$HOSTPROC/" "$T/paths" | sed "s|^$HOSTPROC|/host/proc|" >> "$T/host-paths"
check "the trace holds the pass's host paths ($(wc -l < "$T/host-paths"))" [ "$(wc -l < "$T/host-paths")" -gt 20 ]
kub=$(grep -E '^/var/lib/kubelet(/|$)' "$T/host-paths" | grep -vE '^/var/lib/kubelet(/pod-resources(/|$)|/?$)' | head -3)
check "the agent opens nothing under /var/lib/kubelet but pod-resources/${kub:+: $kub}" [ -z "$kub" ]
check "... where it asks PodResources for the unchained VF's pod" \
	grep -qE '^/var/lib/kubelet/pod-resources(/kubelet.sock)?$' "$T/host-paths"
check "... and reads kubelet's pod log directories for the pod-level claim's pod" \
	grep -qx '/var/log/pods' "$T/host-paths"
check "... which names it (unchained{pod=\"pl\"})" grep -q '^rdma_qos_vf_unchained{.*namespace="ai",pod="pl"' "$TF/rdma-qos.prom"
# host paths the container reaches: mountPath (where the hostPath is mounted; /host/proc is
# --host-proc) plus what the runtime gives every container (/proc/self, /dev, and the kernel's
# global procfs entries every procfs mount shows: /proc/driver/nvidia, /proc/sys/kernel, which
# the GPUDirect peer-memory probe reads); the sim's stand-ins for netlink and ioctls (<root>/dcb,
# ethtool, devlink, rdma: tests/simnode/LAYOUT.md) are no host paths
# outside MOUNTS: the host paths of the trace under none of MOUNTS
outside() {
	while read -r p; do
		ok=""
		while read -r mp _; do
			# under a mount, or a directory above one (mkdir -p of the state dir)
			case "$p/" in "${mp%/}/"*) ok=1; break ;; esac
			case "${mp%/}/" in "$p/"*) ok=1; break ;; esac
		done < "$1"
		[ -n "$ok" ] || echo "$p"
	done < "$T/host-paths" | grep -vE '^/(proc/self|proc/driver/nvidia|proc/sys/kernel|dev|dcb|ethtool|devlink|rdma)(/|$)'
}
out=$(outside "$T/mounts.base" | head -5)
check "every host path the agent opens is under one of its mounts${out:+: $out}" [ -z "$out" ]
grep -v '^/run/rdma-qos ' "$T/mounts.base" > "$T/mounts.norun"
check "... a check that sees a missing mount (without /run/rdma-qos's, the records are outside)" \
	grep -q '^/run/rdma-qos/state/' <<< "$(outside "$T/mounts.norun")"
check "... and the records' /run/netns and /var/run/netns paths are in the trace" \
	grep -q '^/run/netns/' "$T/host-paths"
check "... and the /var/run/netns paths are in the trace" grep -q '^/var/run/netns/' "$T/host-paths"
unused=$(while read -r mp _; do
	grep -q "^${mp%/}\(/\|$\)" "$T/host-paths" || echo "$mp"; done < "$T/mounts.base")
check "every agent mount is used by the pass (none for nothing)${unused:+: $unused}" [ -z "$unused" ]

summary
