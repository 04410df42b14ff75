#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Guest side of the VF traffic-class test (run by guest.sh inside QEMU, after
# e2e.sh in its own guest: the RDMA netns mode can only be switched while no
# other netns exists). The production rdma-qos runs after Debian's
# host-device on an igbvf VF that carries ibsim, a RoCE ib_device with
# MOFED's tc/1/traffic_class that can move between network namespaces:
# first in shared RDMA netns mode, then in exclusive mode with the device
# moved into the pod by `rdma dev set ... netns`, as rdma-cni does.
set -u
. "${RQSRC:?}/tests/vm/lib.sh"
CONF_NAME=tos
ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p0;K8S_POD_UID=pod-tos"
CFG=/sys/kernel/config/rdma_cm
DEV=ibsim0
writes() { cat /sys/module/ibsim/parameters/tc_writes; }
tc_host() { cat /sys/class/infiniband/$DEV/tc/1/traffic_class; }
tc_pod() { ip netns exec pod cat /sys/class/infiniband/$DEV/tc/1/traffic_class; }
cfs() { cat $CFG/$DEV/ports/1/default_roce_tos; }
rec() { jq -c "$1" /run/rdma-qos/state/tos_"$2"_net1.json; }

modprobe igb && modprobe igbvf || fail "modprobe igb igbvf"
udevadm settle 2>/dev/null; sleep 1
PFPCI=0000:81:00.0
vf_enable "$PFPCI" 1
VFPCI=$(basename "$(readlink -f /sys/bus/pci/devices/$PFPCI/virtfn0)"); VF=$(ls /sys/bus/pci/devices/$VFPCI/net)
ip link set "$VF" up
modprobe rdma_cm || fail "modprobe rdma_cm"
modprobe ibsim ifname="$VF" || fail "modprobe ibsim ifname=$VF"
echo "kernel $(uname -r); PF $PF, VF $VF ($VFPCI) with $(ls /sys/bus/pci/devices/$VFPCI/infiniband 2>/dev/null)"
RQCONF="{\"type\":\"rdma-qos\",\"deviceID\":\"$VFPCI\",\"pf\":\"ignore\",\"numa\":\"off\"}"

echo "== shared RDMA netns mode: both knobs from the host"
check "ibsim0 hangs off the VF's PCI function" [ -e /sys/bus/pci/devices/$VFPCI/infiniband/$DEV ]
check "its MOFED-like traffic_class reads empty (unset)" [ -z "$(tc_host)" ]
ip netns add a
prev=$(conf "{\"type\":\"host-device\",\"device\":\"$VF\"}" | run $HD ADD c1 /run/netns/a net1 "$ARGS")
out=$(conf "$RQCONF" "$prev" | run "$RQ" ADD c1 /run/netns/a net1 "$ARGS" 2> /tmp/tos-a.log)
rc=$?
[ $rc -eq 0 ] || { echo "ADD said: $out"; cat /tmp/tos-a.log; }
check "shared: ADD succeeds" [ $rc -eq 0 ]
check "shared: MOFED's knob reads 'Global tclass=106'" [ "$(tc_host)" = "Global tclass=106" ]
check "shared: configfs default_roce_tos 106" [ "$(cfs)" = 106 ]
check "shared: record: scope all-qps, device not in the pod" [ "$(rec '[.rdma.tosScope, .rdma.inPod]' c1)" = '["all-qps",false]' ]
conf "$RQCONF" "$out" | run "$RQ" CHECK c1 /run/netns/a net1 "$ARGS" > /tmp/tos-chk 2>&1
check "shared: CHECK passes" [ $? -eq 0 -a ! -s /tmp/tos-chk ]
conf "$RQCONF" | run "$RQ" DEL c1 /run/netns/a net1 "$ARGS" 2>/dev/null
check "shared: DEL succeeds" [ $? -eq 0 ]
check "shared: DEL wrote -1: MOFED's knob unset (empty) again" [ -z "$(tc_host)" ]
check "shared: DEL put configfs back to 0" [ "$(cfs)" = 0 ]
conf "{\"type\":\"host-device\",\"device\":\"$VF\"}" | run $HD DEL c1 /run/netns/a net1 "$ARGS" > /dev/null
check "host-device DEL: $VF is back in the host" ip link show "$VF"
ip netns del a

echo "== exclusive RDMA netns mode: the device in the pod"
# the kernel refuses the switch while another netns exists; netns teardown is asynchronous
for _ in $(seq 100); do rdma system set netns exclusive 2>/dev/null && break; sleep 0.2; done
check "rdma system set netns exclusive (ib_core netns_mode N)" [ "$(cat /sys/module/ib_core/parameters/netns_mode)" = N ]
ip netns add pod
touch /run/netns/host && mount --bind /proc/1/ns/net /run/netns/host
prev=$(conf "{\"type\":\"host-device\",\"device\":\"$VF\"}" | run $HD ADD c2 /run/netns/pod net1 "$ARGS")
check "host-device moved $VF into the pod as net1" ip netns exec pod ip link show net1
W=$(writes)
msg=$(conf "$RQCONF" "$prev" | run "$RQ" ADD c2 /run/netns/pod net1 "$ARGS" 2>/dev/null)
echo "rdma-qos before rdma said: $(jq -c . <<< "$msg" 2>/dev/null || echo "$msg")"
check "rdma-qos before rdma (device still in the host): code 7" [ "$(jq .code <<< "$msg")" = 7 ]
check "... saying rdma-qos must come after the rdma plugin" grep -q 'must come after the "rdma" plugin' <<< "$(jq -r .msg <<< "$msg")"
check "... and writing nothing" [ "$(writes)" = "$W" ]
mkdir -p $CFG/$DEV && echo 32 > $CFG/$DEV/ports/1/default_roce_tos
# the rdma plugin's part (rdma-cni): move the RDMA device into the pod
rdma dev set $DEV netns pod
check "rdma dev set $DEV netns pod: the host's sysfs no longer shows it" [ ! -e /sys/class/infiniband/$DEV ]
check "... nor does the VF's PCI function" [ -z "$(ls /sys/bus/pci/devices/$VFPCI/infiniband 2>/dev/null)" ]
check "... setns alone does not either (the host's sysfs keeps its netns)" \
	bash -c "nsenter --net=/run/netns/pod true && ! nsenter --net=/run/netns/pod test -e /sys/class/infiniband/$DEV"
check "... a sysfs mounted in the pod's netns does, unset" [ -z "$(tc_pod)" ]
check "... the move reset configfs default_roce_tos from 32 to 0" [ "$(cfs)" = 0 ]
M0=$(wc -l < /proc/self/mountinfo)
out=$(conf "$RQCONF" "$prev" | run "$RQ" ADD c2 /run/netns/pod net1 "$ARGS" 2> /tmp/tos-b.log)
rc=$?
[ $rc -eq 0 ] || { echo "ADD said: $out"; cat /tmp/tos-b.log; }
check "exclusive: ADD after rdma succeeds" [ $rc -eq 0 ]
check "exclusive: MOFED's knob in the pod's sysfs reads 'Global tclass=106'" [ "$(tc_pod)" = "Global tclass=106" ]
PODNS=$(stat -L -c %i /run/netns/pod)
check "... written from the pod's netns (inode $PODNS, ibsim's log)" \
	grep -q "ibsim: $DEV tc/1/traffic_class = 106, written from netns $PODNS\$" <<< "$(dmesg)"
check "exclusive: configfs default_roce_tos 106, written from the host" [ "$(cfs)" = 106 ]
check "exclusive: record: device in the pod, scope all-qps, previous -1 and 0" \
	[ "$(rec '[.rdma.device, .rdma.inPod, .rdma.tosScope, .rdma.knobs.mofed.previous, .rdma.knobs.configfs.previous]' c2)" = '["ibsim0",true,"all-qps",-1,0]' ]
check "exclusive: the host's mount table is as before (the sysfs mount stayed in the child)" \
	[ "$(wc -l < /proc/self/mountinfo)" = "$M0" ]
conf "$RQCONF" "$out" | run "$RQ" CHECK c2 /run/netns/pod net1 "$ARGS" > /tmp/tos-chk 2>&1
check "exclusive: CHECK passes" [ $? -eq 0 -a ! -s /tmp/tos-chk ]
ip netns exec pod sh -c "echo 64 > /sys/class/infiniband/$DEV/tc/1/traffic_class"
msg=$(conf "$RQCONF" "$out" | run "$RQ" CHECK c2 /run/netns/pod net1 "$ARGS" 2>/dev/null)
check "exclusive: CHECK sees MOFED's knob drift inside the pod" \
	grep -q "$DEV traffic class (mofed): configured 106, current 64" <<< "$(jq -r .msg <<< "$msg")"
ip netns exec pod sh -c "echo 106 > /sys/class/infiniband/$DEV/tc/1/traffic_class"
W=$(writes)
conf "$RQCONF" "$out" | run "$RQ" ADD c2 /run/netns/pod net1 "$ARGS" > /dev/null 2>&1
check "exclusive: a repeated ADD writes nothing ($W writes)" [ "$(writes)" = "$W" ]
"$RQ" show --json > /tmp/tos-show.json 2>/dev/null
check "exclusive: show reads the knobs through the pod's sysfs" \
	[ "$(jq -c --arg v "$VFPCI" '.pfs[].vfs[] | select(.pci == $v) | [.rdma, .tos.mofed, .tos.configfs, .tosScope]' /tmp/tos-show.json)" = '["ibsim0",106,106,"all-qps"]' ]
conf "$RQCONF" | run "$RQ" DEL c2 /run/netns/pod net1 "$ARGS" 2> /tmp/tos-del.log
check "exclusive: DEL succeeds" [ $? -eq 0 ]
check "exclusive: DEL wrote -1 in the pod: MOFED's knob unset (empty) again" [ -z "$(tc_pod)" ]
check "... (ibsim saw -1 from the pod's netns)" \
	grep -q "ibsim: $DEV tc/1/traffic_class = -1, written from netns $PODNS\$" <<< "$(dmesg)"
check "exclusive: DEL put configfs back to 0" [ "$(cfs)" = 0 ]
# the rdma plugin's DEL, then host-device's
ip netns exec pod rdma dev set $DEV netns host
conf "{\"type\":\"host-device\",\"device\":\"$VF\"}" | run $HD DEL c2 /run/netns/pod net1 "$ARGS" > /dev/null
check "the device is back in the host" [ -e /sys/class/infiniband/$DEV ]

echo "== exclusive: the pod's netns is gone before DEL (containerd)"
ip netns add pod2
prev=$(conf "{\"type\":\"host-device\",\"device\":\"$VF\"}" | run $HD ADD c3 /run/netns/pod2 net1 "$ARGS")
rdma dev set $DEV netns pod2
out=$(conf "$RQCONF" "$prev" | run "$RQ" ADD c3 /run/netns/pod2 net1 "$ARGS" 2>/dev/null)
check "ADD in pod2 succeeds" [ $? -eq 0 ]
check "... MOFED's knob in pod2's sysfs reads 'Global tclass=106'" \
	[ "$(ip netns exec pod2 cat /sys/class/infiniband/$DEV/tc/1/traffic_class)" = "Global tclass=106" ]
ip netns del pod2
for _ in $(seq 100); do [ -e /sys/class/infiniband/$DEV ] && break; sleep 0.2; done
check "the netns gone, the device is back in the host with its class" [ "$(tc_host)" = "Global tclass=106" ]
conf "$RQCONF" | run "$RQ" DEL c3 "" net1 "$ARGS" 2> /tmp/tos-del3.log
check "DEL with an empty CNI_NETNS succeeds" [ $? -eq 0 ]
check "... and unsets MOFED's knob through the host's sysfs" [ -z "$(tc_host)" ]

echo "== exclusive: a cri-dockerd record (/proc/<pid>/ns/net), the agent in its own PID namespace"
# as the DaemonSet runs it: no hostPID (unshare --pid --mount-proc), hostNetwork (the host's
# netns), the host's /proc mounted at --host-proc; every reader of the record's netns maps the
# path through it (attach/podns.c). Without that the agent reads the class in the host's sysfs.
# pod2's netns died with the VF in it: the kernel handed it back to the host as "net1"
VF=$(ls /sys/bus/pci/devices/$VFPCI/net)
ip netns add pod4
ip netns exec pod4 sleep 1000 &
HOLDER=$!
# until it has entered pod4 (a TCG guest is slow)
for _ in $(seq 100); do
	same "$(stat -L -c %i /proc/$HOLDER/ns/net)" "$(stat -L -c %i /run/netns/pod4)" && break
	sleep 0.1
done
PNS=/proc/$HOLDER/ns/net
check "process $HOLDER holds pod4's netns" same "$(stat -L -c %i "$PNS")" "$(stat -L -c %i /run/netns/pod4)"
ARGS4="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p4;K8S_POD_UID=pod-tos4"
prev=$(conf "{\"type\":\"host-device\",\"device\":\"$VF\"}" | run $HD ADD c4 "$PNS" net1 "$ARGS4")
check "host-device moved $VF into it as net1" ip netns exec pod4 ip link show net1 > /dev/null
rdma dev set $DEV netns pod4
out=$(conf "$RQCONF" "$prev" | run "$RQ" ADD c4 "$PNS" net1 "$ARGS4" 2> /tmp/tos-c4.log)
rc=$?
[ $rc -eq 0 ] || { echo "ADD said: $out"; cat /tmp/tos-c4.log; }
check "ADD with CNI_NETNS $PNS (device in the pod) succeeds" [ $rc -eq 0 ]
check "... the record has the netns's identity (netnsIno $(stat -L -c %i "$PNS"))" \
	same "$(rec '.netnsIno' c4)" "$(stat -L -c %i "$PNS")"
tc4() { ip netns exec pod4 cat /sys/class/infiniband/$DEV/tc/1/traffic_class; }
check "... MOFED's knob in the pod reads 'Global tclass=106'" [ "$(tc4)" = "Global tclass=106" ]
[ "$(tc4)" = "Global tclass=106" ] || { echo "tc4: $(tc4 2>&1)"; ip netns exec pod4 ip -br link; ip netns exec pod4 rdma dev; cat /tmp/tos-c4.log; }
ip netns exec pod4 sh -c "echo 64 > /sys/class/infiniband/$DEV/tc/1/traffic_class" # another writer
mkdir -p /tmp/hostproc && mount --bind /proc /tmp/hostproc
WROTE="ibsim: $DEV tc/1/traffic_class = 106, written from netns $(stat -L -c %i "$PNS")\$"
N0=$(dmesg | grep -c "$WROTE")
unshare --pid --fork --mount-proc "$RQ" agent --once --host-proc /tmp/hostproc \
	--metrics-file /tmp/tos-agent.prom 2> /tmp/tos-agent.log
rc=$?
[ $rc -eq 0 ] || cat /tmp/tos-agent.log
check "agent --once in its own PID namespace with --host-proc: exit 0 (in profile)" [ $rc -eq 0 ]
check "... MOFED's knob repaired in the pod's sysfs: 'Global tclass=106'" [ "$(tc4)" = "Global tclass=106" ]
check "... written by the agent from the pod's netns (ibsim's log: $N0 such writes before, one more now)" \
	[ "$(dmesg | grep -c "$WROTE")" = $((N0 + 1)) ]
check "... the log says it repaired it (was 64)" grep -q "repaired traffic_class (mofed): was 64, now 106" /tmp/tos-agent.log
L4="namespace=\"ai\",pod=\"p4\",vf=\"$VFPCI\""
check "... rdma_qos_vf_in_pod 1 (no false 'left its pod')" \
	[ "$(awk -v k="rdma_qos_vf_in_pod{$L4}" '$1 == k { print $2 }' /tmp/tos-agent.prom)" = 1 ]
check "... no traffic-class drift" [ "$(grep -c '^rdma_qos_drift{.*item="traffic_class"} 1' /tmp/tos-agent.prom)" = 0 ]
check "... its hw_counters, read in the pod's sysfs, labelled p4" \
	[ "$(grep -c '^rdma_qos_vf_cnp_sent_total{namespace="ai",pod="p4",.*rdma_dev="ibsim0"' /tmp/tos-agent.prom)" = 1 ]
conf "$RQCONF" | run "$RQ" DEL c4 "$PNS" net1 "$ARGS4" 2> /dev/null
check "DEL succeeds" [ $? -eq 0 ]
ip netns exec pod4 rdma dev set $DEV netns host
conf "{\"type\":\"host-device\",\"device\":\"$VF\"}" | run $HD DEL c4 "$PNS" net1 "$ARGS4" > /dev/null
kill $HOLDER; wait $HOLDER 2> /dev/null
umount /tmp/hostproc; ip netns del pod4

echo "== harness"
check "ibsim unloads" rmmod ibsim
check "no kernel warning during the run" [ -z "$(dmesg | grep -E 'WARNING:|BUG:|Oops|refcount_t')" ]
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
