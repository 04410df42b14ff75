#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Real CNI clients drive the chain [host-device, rdma-qos] on the simulated
# node: cnitool (built from Debian's golang-github-appc-cni source package:
# ADD, CHECK, DEL), podman 4.3 with its CNI backend (ADD, DEL) and
# containerd's ctr run --cni (ADD, DEL with an empty CNI_NETNS). Each client
# runs the real host-device and a "rdma-qos" that is rdma-qos-sim bound to
# this test's simulated node.
set -u
. "$(dirname "$0")/../sim/lib.sh"
CACHE=${RQ_CLIENTS_CACHE:-/var/tmp/rdma-qos-clients}

skip_all() {
	if [ -n "${CI:-}" ]; then echo "FAIL: client tests cannot run under CI: $*"; echo "0 passed, 1 failed"; exit 1; fi
	echo "SKIP: client tests: $*"; echo "0 passed, 0 failed, 1 skipped"; exit 0
}
why=$(sim_can_run) || skip_all "$why"

build_cnitool() {
	[ -x "$CACHE/cnitool" ] && return 0
	mkdir -p "$CACHE/src" && cd "$CACHE/src" || return 1
	if ! ls golang-github-appc-cni_*.orig.tar.* >/dev/null 2>&1; then
		if ! grep -rqs '^deb-src .*bookworm main' /etc/apt/sources.list /etc/apt/sources.list.d/; then
			echo 'deb-src http://deb.debian.org/debian bookworm main' > /etc/apt/sources.list.d/rq-bookworm-src.list
			apt-get -o DPkg::Lock::Timeout=600 update -q >&2 || return 1
		fi
		apt-get source --download-only golang-github-appc-cni >&2 || return 1
	fi
	rm -rf golang-github-appc-cni-*/ && tar xf golang-github-appc-cni_*.orig.tar.* || return 1
	cd golang-github-appc-cni-*/ || return 1
	# GOPATH mode against Debian's packaged Go sources: no module download
	GO111MODULE=off GOPATH="$CACHE/gopath:/usr/share/gocode" GOCACHE="$CACHE/gocache" GOFLAGS= \
		go build -o "$CACHE/cnitool" ./cnitool >&2
}

T=$(mktemp -d /tmp/rq-clients.XXXXXX)
ROOT=$T/node
NSS=() CTRD_PID=""
cleanup() {
	for n in "${NSS[@]}"; do ip netns del "$n" 2>/dev/null; done
	[ -z "$CTRD_PID" ] || { kill "$CTRD_PID"; wait "$CTRD_PID"; } 2>/dev/null
	podman --root "$T/pstore" --runroot "$T/prun" --storage-driver vfs rm -af >/dev/null 2>&1
	rm -f /etc/cni/net.d/00-rdma-qos-clients.conflist /opt/cni/bin/rdma-qos /opt/cni/bin/host-device.rq-test
	[ -L /opt/cni/bin/host-device ] && [ "$(readlink /opt/cni/bin/host-device)" = "$HOSTDEV" ] && rm -f /opt/cni/bin/host-device
	sim_del_vfs "$ROOT" 2>/dev/null
	umount -R "$T/pstore" "$T/prun" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

"$MKNODE" --root "$ROOT" --pfs 1 --vfs 4 --numa-nodes 1 --rdma configfs --ecn yes --dcb yes --pf-prefix cl$$ >/dev/null
sim_make_vfs "$ROOT"
mapfile -t VFS < <(sim_vfs "$ROOT")
read -r PF VF0PCI VF0 <<< "${VFS[0]}"
read -r _ VF1PCI VF1 <<< "${VFS[1]}"
read -r _ VF2PCI VF2 <<< "${VFS[2]}"
# the plugin binary the clients find on their CNI path: rdma-qos-sim on this node
mkdir -p "$T/bin"
printf '#!/bin/sh\nRDMA_QOS_SIM_ROOT=%s exec %s "$@"\n' "$ROOT" "$SIM" > "$T/bin/rdma-qos"
chmod +x "$T/bin/rdma-qos"
ln -s "$HOSTDEV" "$T/bin/host-device"
conflist() {   # name vfdev vfpci
	jq -n --arg n "$1" --arg d "$2" --arg p "$3" '{cniVersion: "1.0.0", name: $n, plugins: [
		{type: "host-device", device: $d},
		{type: "rdma-qos", deviceID: $p, numa: "warn", capabilities: {deviceID: true}}]}'
}
recs() { ls "$ROOT/var/lib/cni/rdma-qos/" 2>/dev/null | grep -c '\.json$'; }
tos_of() { cat "$ROOT/sys/kernel/config/rdma_cm/$(ls "$ROOT/sys/bus/pci/devices/$1/infiniband")/ports/1/default_roce_tos"; }

echo "== cnitool (Debian golang-github-appc-cni source)"
if (build_cnitool); then
	mkdir -p "$T/net.d"; conflist roce-cnitool "$VF0" "$VF0PCI" > "$T/net.d/roce.conflist"
	ip netns add "rqcl$$a"; NSS+=("rqcl$$a")
	export NETCONFPATH=$T/net.d CNI_PATH=$T/bin
	out=$(CNI_IFNAME=net1 CNI_ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=c" "$CACHE/cnitool" add roce-cnitool "/run/netns/rqcl$$a")
	check "cnitool add succeeds" [ $? -eq 0 ]
	check "cnitool received the result with net1 in the pod" [ "$(jq -r '.interfaces[] | select(.sandbox != null) | .name' <<< "$out")" = net1 ]
	check "effect: PF pfc [3]" [ "$(jq -c .pfc "$ROOT/dcb/$PF.json")" = "[3]" ]
	check "effect: 64 DSCP entries" [ "$(jq '[.app[] | select(.selector == 5)] | length' "$ROOT/dcb/$PF.json")" = 64 ]
	check "effect: VF ToS 106" [ "$(tos_of "$VF0PCI")" = 106 ]
	check "effect: one record" [ "$(recs)" = 1 ]
	CNI_IFNAME=net1 "$CACHE/cnitool" check roce-cnitool "/run/netns/rqcl$$a"
	check "cnitool check succeeds" [ $? -eq 0 ]
	jq '.pfc = []' "$ROOT/dcb/$PF.json" > "$T/d" && cp "$T/d" "$ROOT/dcb/$PF.json"
	msg=$(CNI_IFNAME=net1 "$CACHE/cnitool" check roce-cnitool "/run/netns/rqcl$$a" 2>&1)
	check "cnitool check fails on a drifted PFC" [ $? -ne 0 ]
	check "the drift message reaches cnitool" grep -q 'pfc: configured prio 3, current prio none' <<< "$msg"
	jq '.pfc = [3]' "$ROOT/dcb/$PF.json" > "$T/d" && cp "$T/d" "$ROOT/dcb/$PF.json"
	CNI_IFNAME=net1 "$CACHE/cnitool" del roce-cnitool "/run/netns/rqcl$$a"
	check "cnitool del succeeds" [ $? -eq 0 ]
	check "record gone after del" [ "$(recs)" = 0 ]
	check "ToS restored after del" [ "$(tos_of "$VF0PCI")" = 0 ]
	check "host-device gave the VF back" ip link show "$VF0"
	unset NETCONFPATH CNI_PATH
else
	fail "cnitool could not be built from Debian's source package"
fi

echo "== podman 4.3, CNI backend, runc"
if [ ! -f "$CACHE/busybox.tar" ]; then
	mkdir -p "$T/rootfs/bin" && cp /bin/busybox "$T/rootfs/bin/" &&
		for a in sh ip sleep cat ls; do ln -s busybox "$T/rootfs/bin/$a"; done &&
		tar -C "$T/rootfs" -cf "$CACHE/busybox.tar" .
fi
mkdir -p "$T/podman-net.d"; conflist roce-podman "$VF1" "$VF1PCI" > "$T/podman-net.d/roce-podman.conflist"
cat > "$T/containers.conf" <<CONF
[network]
network_backend = "cni"
cni_plugin_dirs = ["$T/bin"]
network_config_dir = "$T/podman-net.d"
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
P=(env CONTAINERS_CONF="$T/containers.conf" podman --root "$T/pstore" --runroot "$T/prun" --storage-driver vfs)
"${P[@]}" import "$CACHE/busybox.tar" localhost/rq-busybox:latest >/dev/null
check "podman imported the local busybox image" [ $? -eq 0 ]
# the sandbox caps RLIMIT_NOFILE/NPROC below podman's defaults: keep the host's
cid=$("${P[@]}" run -d --ulimit nofile=1024:1024 --ulimit nproc=4096:4096 --network roce-podman localhost/rq-busybox:latest sleep 120 2> "$T/podman.err")
rc=$?
[ $rc -eq 0 ] || cat "$T/podman.err"
check "podman run --network (CNI ADD) succeeds" [ $rc -eq 0 ]
links=$("${P[@]}" exec "$cid" ip link 2>/dev/null)
check "the container sees the moved VF as eth0" grep -q 'eth0' <<< "$links"
check "effect: VF ToS 106" [ "$(tos_of "$VF1PCI")" = 106 ]
check "effect: record for the podman container" [ "$(recs)" = 1 ]
"${P[@]}" rm -f -t 0 "$cid" >/dev/null
check "podman rm succeeds" [ $? -eq 0 ]
check "podman's DEL removed the record" [ "$(recs)" = 0 ]
check "podman's DEL restored the ToS" [ "$(tos_of "$VF1PCI")" = 0 ]

echo "== containerd 1.6: ctr run --cni"
# ctr uses go-cni's defaults: the first conflist in /etc/cni/net.d, plugins in /opt/cni/bin
mkdir -p /opt/cni/bin /etc/cni/net.d
cp "$T/bin/rdma-qos" /opt/cni/bin/rdma-qos
[ -e /opt/cni/bin/host-device ] || ln -s "$HOSTDEV" /opt/cni/bin/host-device
conflist roce-ctr "$VF2" "$VF2PCI" > /etc/cni/net.d/00-rdma-qos-clients.conflist
mkdir -p "$T/ctrd"
cat > "$T/ctrd/config.toml" <<CONF
version = 2
root = "$T/ctrd/root"
state = "$T/ctrd/state"
[grpc]
  address = "$T/ctrd/sock"
[plugins."io.containerd.grpc.v1.cri"]
  disable_apparmor = true
CONF
containerd --config "$T/ctrd/config.toml" > "$T/ctrd/log" 2>&1 &
CTRD_PID=$!
C=(ctr --address "$T/ctrd/sock" --namespace rqtest)
for i in $(seq 50); do "${C[@]}" version >/dev/null 2>&1 && break; sleep 0.2; done
[ -f "$CACHE/busybox-oci.tar" ] ||
	"${P[@]}" save --format oci-archive -o "$CACHE/busybox-oci.tar" localhost/rq-busybox:latest >/dev/null 2>&1
"${C[@]}" images import --index-name localhost/rq-busybox:latest "$CACHE/busybox-oci.tar" >/dev/null
check "ctr imported the busybox image" bash -c "${C[*]} images ls -q | grep -qx localhost/rq-busybox:latest"
"${C[@]}" run --cni --rm localhost/rq-busybox:latest rqctr sh -c 'ip link; sleep 4' > "$T/ctr.out" 2>&1 &
RUNPID=$!
for i in $(seq 40); do [ "$(recs)" = 1 ] && break; sleep 0.25; done
check "ctr run --cni: ADD made the record" [ "$(recs)" = 1 ]
check "effect: VF ToS 106" [ "$(tos_of "$VF2PCI")" = 106 ]
wait $RUNPID
check "ctr run --cni --rm succeeds" [ $? -eq 0 ]
check "the container saw the moved VF as eth0" grep -q 'eth0' "$T/ctr.out"
check "ctr's DEL (empty CNI_NETNS) removed the record" [ "$(recs)" = 0 ]
check "ctr's DEL restored the ToS" [ "$(tos_of "$VF2PCI")" = 0 ]

summary
