#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Guest side of the confinement test (run by guest.sh inside QEMU after
# tests/vm/confine-prep.sh on the host, see tests/vm/README.md "What confine.sh
# asserts"): the production image, run with podman exactly as the DaemonSet's
# settings say (confine-argv.mjs translated them from deploy/ as kustomize renders it: host
# network, caps NET_ADMIN+NET_RAW+SYS_ADMIN only, read-only root, no-new-privileges, podman's
# default seccomp filter for RuntimeDefault, AppArmor unconfined, the hostPath mounts).
# The install container (confined by the default AppArmor profile) installs the plugin
# and the catalog; that plugin makes an attachment; the agent container repairs PFC
# (dcbnl), the RoCE ToS in configfs (written back, and re-made after an rxe
# re-registration). The negative control: the same agent container under podman's
# default AppArmor profile fails the configfs repair (EACCES, drift reported), which
# shows the shipped AppArmor setting is needed.
# AppArmor must be enabled in the guest kernel; without it the test skips (fails under CI).
set -u
. "${RQSRC:?}/tests/vm/lib.sh"
T0=$SECONDS
# the guest mounts the cache at the host's path; guest.sh runs a copy of this script from
# $CACHE/run, so the cache is its parent
IN=$(cd "$(dirname "$0")/.." && pwd)/confine
A=$IN/argv
INTERVAL=5
metric() { awk -v k="$2" '$1 == k { print $2 }' "$1" 2>/dev/null; }
finish() { echo "confine.sh ran $((SECONDS - T0)) s in the guest"; echo "$PASS passed, $FAIL failed"; [ "$FAIL" -eq 0 ]; exit; }

echo "== the guest's LSM"
mountpoint -q /sys/kernel/security || mount -t securityfs securityfs /sys/kernel/security
lsm=$(cat /sys/kernel/security/lsm 2>/dev/null)
aa=$(cat /sys/module/apparmor/parameters/enabled 2>/dev/null)
echo "kernel $(uname -r); LSMs: $lsm; apparmor enabled: ${aa:-no}"
if [ "$aa" != Y ] || [ ! -d /sys/kernel/security/apparmor ]; then
	if [ -n "${CI:-}" ]; then fail "AppArmor is not enabled in the guest kernel (lsm: $lsm): the negative control cannot run"
	else echo "SKIP: AppArmor is not enabled in the guest kernel (lsm: $lsm): the confinement test needs it"; fi
	finish
fi
pass "AppArmor is enabled in the guest kernel"
command -v apparmor_parser > /dev/null || { fail "no apparmor_parser (the host's package apparmor, tests/vm/packages.txt)"; finish; }
[ -f "$IN/rdma-qos.tar" ] && [ -f "$A/agent.argv" ] || { fail "no image or argv in $IN (tests/vm/confine-prep.sh)"; finish; }

# the busybox init makes no /dev/fd (bash's process substitution, podman's tools)
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
# podman: storage on tmpfs, cgroup v2 by cgroupfs, runc (as tests/deploy/image.sh)
mkdir -p /sys/fs/cgroup && { mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup; }
cat > /tmp/containers.conf <<'CONF'
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]
[engine]
runtime = "runc"
# the guest's / is the initramfs (rootfs), where pivot_root(2) fails with EINVAL: runc moves
# the container's root with MS_MOVE and chroot instead; the confinement under test
# (capabilities, seccomp, AppArmor, no_new_privs, mounts) is applied the same way
no_pivot_root = true
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
P=(env CONTAINERS_CONF=/tmp/containers.conf podman --root /var/tmp/podman --runroot /run/podman --storage-driver vfs)
# the node's /etc is writable on a real node (the catalog's directory): a tmpfs overlay
# over the guest's read-only one, as in wire.sh
modprobe overlay; mkdir -p /run/etc-up /run/etc-work
mount -t overlay overlay -o lowerdir=/etc,upperdir=/run/etc-up,workdir=/run/etc-work /etc ||
	fail "overlay over /etc"
mkdir -p /opt/cni/bin /var/lib/kubelet
for c in install agent; do xargs -r mkdir -p < "$A/$c.mkdir"; done
"${P[@]}" load -q -i "$IN/rdma-qos.tar" > /tmp/load.log 2>&1
check "the image built by tests/deploy's build is loaded ($(tail -1 /tmp/load.log))" \
	"${P[@]}" image exists localhost/rdma-qos:confine
# run_argv FILE [SED]: podman run -d with the translated arguments (SED edits the lines)
run_argv() {
	local -a a
	sed -e "${2:-}" "$1" > /tmp/argv
	mapfile -t a < /tmp/argv
	"${P[@]}" run -d "${a[@]}"
}
clog() { "${P[@]}" logs "$1" 2>&1; }

echo "== the install container (default AppArmor profile: containers-default)"
echo "podman run $(tr '\n' ' ' < "$A/install.argv")"
"${P[@]}" rm -f rq-install > /dev/null 2>&1
run_argv "$A/install.argv" > /dev/null
check "install: podman started the container" [ $? -eq 0 ]
rc=$("${P[@]}" wait rq-install 2>&1)
zero=$("${P[@]}" inspect --format '{{.State.StartedAt.IsZero}}' rq-install)
check "install exits 0 ($rc), having started" [ "$rc:$zero" = 0:false ]
[ "$rc:$zero" = 0:false ] || clog rq-install
prof=$("${P[@]}" inspect --format '{{.AppArmorProfile}}' rq-install)
check "install ran under podman's default AppArmor profile ($prof)" grep -q '^containers-default' <<< "$prof"
check "... it installed /opt/cni/bin/rdma-qos" [ -x /opt/cni/bin/rdma-qos ]
check "... and the ConfigMap's catalog as /etc/cni/rdma-qos/profiles.json" \
	cmp -s /etc/cni/rdma-qos/profiles.json "$A"/configmap/rdma-qos-catalog-*/profiles.json
RQI=/opt/cni/bin/rdma-qos
check "the installed plugin is the image's ($($RQI --version))" same "$($RQI --version)" "$("$RQ" --version)"

echo "== an attachment made by the installed plugin (dcbsim PF, igbvf VF, rxe in a pod netns)"
dcb_rxe_node
# the catalog grants roce-lossless to namespace ai-training
ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai-training;K8S_POD_NAME=p0;K8S_POD_UID=pod-c0"
ip netns add pod1
prev=$(conf "{\"type\":\"host-device\",\"device\":\"$VF0\"}" | run $HD ADD c1 /run/netns/pod1 net1 "$ARGS")
ip netns exec pod1 rdma link add rxe0 type rxe netdev net1
TOS=/sys/kernel/config/rdma_cm/rxe0/ports/1/default_roce_tos
conf "{\"type\":\"rdma-qos\",\"deviceID\":\"$VF0PCI\"}" "$prev" | run $RQI ADD c1 /run/netns/pod1 net1 "$ARGS" > /dev/null 2> /tmp/add.log
check "ADD succeeds" [ $? -eq 0 ] || cat /tmp/add.log
pfc3_on() { dcb pfc show dev "$PF" prio-pfc | grep -q '3:on'; }
check "ADD: PFC prio 3 on" pfc3_on
check "ADD: ToS 106" [ "$(cat $TOS)" = 106 ]

# the metrics file on the host: --metrics-file's container path through the agent's mounts
mf=$(grep -o -- '"--metrics-file=[^"]*"' "$A/agent.argv" | sed 's/^"--metrics-file=//; s/"$//')
M=$(awk -v f="$mf" 'index(f, $1 "/") == 1 && length($1) > n { n = length($1); h = $2 "/" substr(f, length($1) + 2) } END { print h }' "$A/agent.map")
echo "the agent's --metrics-file $mf is $M on the node"
# agent NAME ARGV: start the agent container (the interval shortened to $INTERVAL s: the one
# change to the manifest's arguments, so that a ToS write is seen within the test's time)
agent() {
	"${P[@]}" rm -f rq-agent > /dev/null 2>&1
	rm -f "$M"
	echo "podman run $(sed "s/--interval=[0-9]*/--interval=$INTERVAL/" "$2" | tr '\n' ' ')"
	run_argv "$2" "s/--interval=[0-9]*/--interval=$INTERVAL/" > /dev/null
	check "$1: podman started the agent container" [ $? -eq 0 ]
	until_ms 30000 test -s "$M" > /dev/null
	check "$1: the agent container runs and wrote $M" [ -s "$M" ] || clog rq-agent
	sleep 1
}
stop_agent() {
	"${P[@]}" stop -t 10 rq-agent > /dev/null 2>&1
	"${P[@]}" inspect --format '{{.State.ExitCode}}' rq-agent
}
repairs() { metric "$M" "rdma_qos_repairs_total{pf=\"$PF\",item=\"$1\"}"; }

echo "== the agent as shipped: AppArmor unconfined, RuntimeDefault seccomp"
agent "shipped" "$A/agent.argv"
prof=$("${P[@]}" inspect --format '{{.AppArmorProfile}}' rq-agent)
check "shipped: the agent runs unconfined by AppArmor ($prof)" [ "$prof" = unconfined ]
sec=$(awk '/^Seccomp:/ { print $2 }' "/proc/$("${P[@]}" inspect --format '{{.State.Pid}}' rq-agent)/status")
check "shipped: under a seccomp filter (Seccomp: $sec, 2 = filter)" [ "$sec" = 2 ]
capeff=$(awk '/^CapEff:/ { print $2 }' "/proc/$("${P[@]}" inspect --format '{{.State.Pid}}' rq-agent)/status")
check "shipped: effective capabilities NET_ADMIN+NET_RAW+SYS_ADMIN only (CapEff $capeff)" [ "$capeff" = 0000000000203000 ]
dcb pfc set dev "$PF" prio-pfc 3:off
ms=$(until_ms 5000 pfc3_on); rc=$?
check "shipped: dcb pfc 3:off repaired (took $ms ms)" [ $rc -eq 0 ]
echo 0 > $TOS
ms=$(until_ms $(( INTERVAL * 1000 + 3000 )) grep -qx 106 $TOS); rc=$?
check "shipped: ToS 0 in configfs repaired to 106 (took $ms ms)" [ $rc -eq 0 ]
ip netns exec pod1 rdma link del rxe0
ip netns exec pod1 rdma link add rxe0 type rxe netdev net1
ms=$(until_ms 5000 grep -qx 106 $TOS); rc=$?
check "shipped: re-registered rxe0: its configfs group re-made with ToS 106 (took $ms ms)" [ $rc -eq 0 ]
sleep 1
check "shipped: repairs counted: pfc $(repairs pfc) >= 1" [ "$(repairs pfc)" -ge 1 ] 2> /dev/null
check "shipped: repairs counted: traffic_class $(repairs traffic_class) >= 1" [ "$(repairs traffic_class)" -ge 1 ] 2> /dev/null
clog rq-agent > /tmp/agent.log
check "shipped: the agent logged the repairs" grep -q "PF $PF repaired pfc" /tmp/agent.log
grep -E 'repaired|denied|error' /tmp/agent.log | head -8
running=$("${P[@]}" inspect --format '{{.State.Running}}' rq-agent)
rc=$(stop_agent)
check "shipped: the agent container, running until then ($running), exits 0 on SIGTERM ($rc)" \
	[ "$running:$rc" = true:0 ]

echo "== negative control: the same container under podman's default AppArmor profile"
dl=$(dmesg | wc -l)
agent "default profile" "$A/agent.apparmor-default.argv"
prof=$("${P[@]}" inspect --format '{{.AppArmorProfile}}' rq-agent)
check "default profile: the agent runs under $prof" grep -q '^containers-default' <<< "$prof"
dcb pfc set dev "$PF" prio-pfc 3:off
ms=$(until_ms 5000 pfc3_on); rc=$?
check "default profile: PFC is still repaired (dcbnl is netlink, not mediated; took $ms ms)" [ $rc -eq 0 ]
echo 0 > $TOS
sleep $(( INTERVAL * 2 + 2 ))
check "default profile: ToS 0 in configfs NOT repaired after two intervals ($(cat $TOS))" [ "$(cat $TOS)" = 0 ]
check "default profile: the metrics report the traffic_class drift" \
	[ "$(metric "$M" "rdma_qos_drift{pf=\"$PF\",item=\"traffic_class\"}")" = 1 ]
clog rq-agent > /tmp/agent-default.log
grep -iE 'denied|tos|traffic' /tmp/agent-default.log | head -4
check "default profile: the agent says the write was refused" grep -qiE 'permission denied|EACCES|denied' /tmp/agent-default.log
# the denial is AppArmor's: the agent's process is confined by containers-default in enforce
# mode, and the only difference from the shipped run above is that profile. (Its `deny`
# rules are quiet: the kernel writes no audit record for them, so there is none to look for.)
cur=$(cat "/proc/$("${P[@]}" inspect --format '{{.State.Pid}}' rq-agent)/attr/current" 2>&1)
check "default profile: the agent's process is confined in enforce mode ($cur)" \
	grep -qE '^containers-default[^ ]* \(enforce\)$' <<< "$cur"
check "default profile: and the kernel logged no AppArmor denial (the profile's deny rules are quiet)" \
	[ -z "$(dmesg | tail -n +$((dl + 1)) | grep 'apparmor="DENIED"')" ]
stop_agent > /dev/null
"${P[@]}" rm -f rq-agent > /dev/null 2>&1
echo 106 > $TOS

echo "== harness"
check "no kernel warning during the run" [ -z "$(dmesg | grep -E 'WARNING:|BUG:|Oops')" ]
finish
