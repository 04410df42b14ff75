#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Guest side of the adoption test (issue 38; run by guest.sh inside QEMU, a guest of its
# own: exclusive RDMA netns mode is switched on before any netns exists). The production
# agent, node.unchained adopt, node.baseline (every SR-IOV PF watched), kubelet's
# PodResources served by tests/simnode/podres_server.py on /var/lib/kubelet. An igbvf VF
# carrying ibsim0 (a RoCE ib_device with MOFED's tc/1/traffic_class that moves between
# netns) is moved as kubernetes-sigs/dranet moves it in exclusive RDMA netns mode, with no
# CNI call: `ip link set VF netns NS`, then `rdma dev set ibsim0 netns NS`.
# - until the RDMA device follows, the VF is reported (rdma_qos_vf_unchained 1), not adopted;
# - then adopted: the record marked adopted, the class written in the pod's netns (ibsim
#   logs the writer's netns), PFC/DSCP on the PF through real dcbnl (dcbsim),
#   rdma_qos_adoptions_total 1, the latency from the rdma dev move printed;
# - the pod's netns deleted: the kernel moves the VF and ibsim0 back to the host, the
#   agent releases the adoption (its link event), the class is unset again.
# What it cannot show: packets on the wire. rxe is the only RoCE device here that sends,
# and on 6.12 an rxe device whose netdev leaves the initial netns is destroyed (README
# "The 6.12 rxe netns limit"); ibsim has no data path. The class RDMA-CM connections of
# ibsim0 would take is the one read back here, in the pod's netns.
set -u
. "${RQSRC:?}/tests/vm/lib.sh"
DEV=ibsim0
URL=http://127.0.0.1:9311/metrics
SD=/run/rdma-qos/state
val() { awk -v k="$2" 'index($0, k " ") == 1 { print $2 }' "$1"; }
tc_pod() { ip netns exec pod cat /sys/class/infiniband/$DEV/tc/1/traffic_class 2> /dev/null; }
tc_host() { cat /sys/class/infiniband/$DEV/tc/1/traffic_class 2> /dev/null; }
adopted() { ls $SD/rdma-qos-adopted_*.json 2> /dev/null | head -1; }
has_adopted() { [ -n "$(adopted)" ]; }
none_adopted() { [ -z "$(adopted)" ]; }

modprobe igb && modprobe igbvf || fail "modprobe igb igbvf"
udevadm settle 2> /dev/null; sleep 1
mount -t debugfs none /sys/kernel/debug 2> /dev/null
PFPCI=0000:81:00.0
vf_enable "$PFPCI" 2
for _ in $(seq 100); do [ -d /sys/bus/pci/devices/$PFPCI/virtfn1/net ] && break; sleep 0.2; done
VFPCI=$(basename "$(readlink -f /sys/bus/pci/devices/$PFPCI/virtfn1)")
VF=$(ls /sys/bus/pci/devices/$VFPCI/net)
modprobe dcbsim ifname="$PF" || fail "modprobe dcbsim"
modprobe rdma_cm || fail "modprobe rdma_cm"
for _ in $(seq 50); do rdma system set netns exclusive 2> /dev/null && break; sleep 0.2; done
check "rdma system set netns exclusive" [ "$(cat /sys/module/ib_core/parameters/netns_mode)" = N ]
modprobe ibsim ifname="$VF" || fail "modprobe ibsim ifname=$VF"
ip link set "$VF" up
echo "kernel $(uname -r); PF $PF ($PFPCI), VF $VF ($VFPCI) with $DEV"

# kubelet's PodResources: the device plugin's ID of the VF under pod ml/dra-0
# the node catalog (a tmpfs overlay over the guest's read-only /etc, as wire.sh does)
modprobe overlay; mkdir -p /run/etc-up /run/etc-work
mount -t overlay overlay -o lowerdir=/etc,upperdir=/run/etc-up,workdir=/run/etc-work /etc ||
	fail "overlay over /etc for the node catalog"
mkdir -p /var/lib/kubelet /etc/cni/rdma-qos /tmp/pb
"$RQSRC/tests/simnode/mknode" --root / pod --uid u-dra --cpus 0 --device "intel.com/sriov_rdma=$VFPCI@1" > /dev/null
protoc --python_out=/tmp/pb -I"$RQSRC/pkg/podres" "$RQSRC/pkg/podres/api.proto" || fail "protoc"
python3 "$RQSRC/tests/simnode/podres_server.py" --root / --pb /tmp/pb --pod ml/dra-0=u-dra > /tmp/psrv.log 2>&1 &
for _ in $(seq 300); do grep -q ready /tmp/psrv.log && break; sleep 0.1; done
check "PodResources server up" grep -q ready /tmp/psrv.log
cat > /etc/cni/rdma-qos/profiles.json << 'EOF'
{"namespaces": {"ml": {"default": "roce-lossless", "allow": ["roce-lossless"]}},
 "node": {"baseline": "roce-lossless", "unchained": "adopt"}}
EOF
"$RQ" agent --interval 3600 --listen 127.0.0.1:9311 --host-proc /proc 2> /tmp/agent.log &
for _ in $(seq 300); do curl -sf "$URL" > /tmp/m0.prom && break; sleep 0.2; done
check "the agent serves /metrics" [ -s /tmp/m0.prom ]
check "the baseline is on the dcbsim PF (PFC 3)" bash -c "dcb pfc show dev $PF | grep -q 'prio-pfc.*3:on'"
check "no adoption yet" [ -z "$(adopted)" ]

echo "== dranet's move, step 1: the netdev into the pod (its RDMA device still in the host)"
ip netns add pod
ip link set "$VF" netns pod
ok=""
for _ in $(seq 100); do
	curl -sf "$URL" > /tmp/m1.prom
	[ "$(grep -c "^rdma_qos_vf_unchained{vf=\"$VFPCI\",pf=\"$PF\",rdma_dev=\"$DEV\",namespace=\"ml\",pod=\"dra-0\"} 1" /tmp/m1.prom)" = 1 ] && { ok=1; break; }
	sleep 0.2
done
check "reported unchained (pod ml/dra-0 named by PodResources), within 20 s" [ -n "$ok" ]
check "... not adopted while $DEV is in the host (exclusive mode)" [ -z "$(adopted)" ]
grep -q "not adopted yet: its RDMA device $DEV is still in the host" /tmp/agent.log
check "... the log says so" [ $? -eq 0 ]

echo "== step 2: rdma dev set $DEV netns pod"
T0=$(now_ms)
rdma dev set $DEV netns pod
ms=$(until_ms 10000 has_adopted)
rc=$?
check "adopted after the RDMA device's move (${ms} ms under TCG; the goal on a node is < 1 s)" [ $rc -eq 0 ]
R=$(adopted)
echo "record: $(jq -c '{podNamespace, podName, netns, ifname, adopted, profileName, numaVerdict, rdma: {dev: .rdma.dev, inPod: .rdma.inPod}}' "$R" 2> /dev/null)"
check "the record: adopted, pod ml/dra-0, netns /run/netns/pod, interface $VF" \
	[ "$(jq -r '"\(.adopted) \(.podNamespace)/\(.podName) \(.netns) \(.ifname)"' "$R")" = "true ml/dra-0 /run/netns/pod $VF" ]
check "the class in the pod's netns: MOFED's knob 'Global tclass=106'" [ "$(tc_pod)" = "Global tclass=106" ]
ino=$(stat -L -c %i /run/netns/pod)
check "... written from the pod's netns (ibsim logs netns $ino)" bash -c "dmesg | grep -q 'ibsim: $DEV tc/1/traffic_class = 106, written from netns $ino'"
curl -sf "$URL" > /tmp/m2.prom
check "rdma_qos_adoptions_total{pf=$PF} 1" [ "$(val /tmp/m2.prom "rdma_qos_adoptions_total{pf=\"$PF\"}")" = 1 ]
check "no longer unchained" [ "$(grep -c '^rdma_qos_vf_unchained{' /tmp/m2.prom)" = 0 ]
check "rdma_qos_attachments counts it" [ "$(val /tmp/m2.prom "rdma_qos_attachments{pf=\"$PF\",profile=\"roce-lossless\"}")" = 1 ]
"$RQ" show > /tmp/show.txt 2>&1
check "show: the VF's line says adopted" grep -q "VF $VFPCI .*ml/dra-0 profile roce-lossless (adopted)" /tmp/show.txt

echo "== the pod goes: its netns deleted (the kernel moves the VF and $DEV back)"
ip netns del pod
ms=$(until_ms 20000 none_adopted)
rc=$?
check "the adoption released (${ms} ms)" [ $rc -eq 0 ]
for _ in $(seq 100); do [ -e /sys/class/infiniband/$DEV ] && break; sleep 0.1; done
check "$DEV back in the host, its class unset again" [ -z "$(tc_host)" ]
grep -E "adopted|releas" /tmp/agent.log | tail -5
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
