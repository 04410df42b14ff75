#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Real CNI clients drive the chain [host-device, rdma-qos-sim] on the simulated
# node: cnitool (built from Debian's golang-github-appc-cni source package:
# ADD, CHECK, DEL), podman 4.3 with its CNI backend (ADD, DEL) and
# containerd's ctr run --cni (ADD, DEL with an empty CNI_NETNS). Each client
# gets its own PF, so each one's PF-wide effect is its own.
#
# The plugin on every client's CNI path is a shim that logs the command, the
# netns and RDMA_QOS_SIM_ROOT it was given, then runs rdma-qos-sim. It does not
# set the root: a client must pass its own environment through, as libcni does
# (os.Environ() + the CNI_* variables). The exception is podman's, see
# podman_setup.
#
# RQ_CLIENTS (default "cnitool podman ctr") picks the clients: tests/deploy/image.sh runs
# cnitool alone against the binary the image installed.
set -u
CLIENTS=" ${RQ_CLIENTS:-cnitool podman ctr} "
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../sim/lib.sh"
CACHE=${RQ_CLIENTS_CACHE:-/var/tmp/rdma-qos-clients}
SKIP=0

# Without CI a client this machine cannot run is skipped with the reason;
# under CI every client must run, so a missing prerequisite is a failure.
skip() {
	if [ -n "${CI:-}" ]; then fail "$1 cannot run under CI: $2"; return; fi
	SKIP=$((SKIP + 1)); echo "SKIP: $1: $2"
}
finish() {
	if [ "$FAIL" -gt 0 ] && [ -s "${T:-}/plugin.log" ]; then
		echo "--- rdma-qos-sim's stderr"
		cat "$T/plugin.log"
	fi
	if [ "$SKIP" -gt 0 ]; then echo "($SKIP skipped)"; fi
	summary
	exit
}

ensure_packages() {
	local p missing=()
	while read -r p; do
		case $p in '' | '#'*) continue ;; esac
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing+=("$p")
	done < "$HERE/packages.txt"
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" = 0 ] || return 0
	echo "installing ${missing[*]}"
	local apt=(env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -q)
	"${apt[@]}" install -y --no-install-recommends "${missing[@]}" >&2 ||
		{ "${apt[@]}" update >&2 &&
			"${apt[@]}" install -y --no-install-recommends "${missing[@]}" >&2; }
}

ensure_packages || echo "apt-get could not install every package in packages.txt"
if ! why=$(sim_can_run); then
	skip "all clients" "$why"
	finish
fi

# golang-github-appc-cni-dev ships libcni and pkg/ but not cnitool/: cnitool
# comes from the same Debian source package, built in GOPATH mode against
# /usr/share/gocode (no module download).
# add_deb_src: shared with the static build's cJSON (tools/deb-src.sh)
. "$HERE/../../tools/deb-src.sh"

build_cnitool() {
	[ -x "$CACHE/cnitool" ] && return 0
	command -v go >/dev/null || { echo "no go (golang-go)"; return 1; }
	mkdir -p "$CACHE/src" && cd "$CACHE/src" || return 1
	if ! ls golang-github-appc-cni_*.orig.tar.* >/dev/null 2>&1; then
		apt-get source --download-only golang-github-appc-cni >&2 2>/dev/null ||
			{ add_deb_src && apt-get source --download-only golang-github-appc-cni >&2; } ||
			return 1
	fi
	rm -rf golang-github-appc-cni-*/ && tar xf golang-github-appc-cni_*.orig.tar.* || return 1
	cd golang-github-appc-cni-*/ || return 1
	GO111MODULE=off GOPATH="$CACHE/gopath:/usr/share/gocode" GOCACHE="$CACHE/gocache" \
		GOFLAGS='' go build -o "$CACHE/cnitool.tmp" ./cnitool >&2 &&
		mv "$CACHE/cnitool.tmp" "$CACHE/cnitool"
}

T=$(mktemp -d /tmp/rq-clients.XXXXXX)
ROOT=$T/node
NSS=() CTRD_PID="" MADE_DIRS=() C=()
P=(env CONTAINERS_CONF="$T/containers.conf" RDMA_QOS_SIM_ROOT="$ROOT"
	podman --root "$T/pstore" --runroot "$T/prun" --storage-driver vfs)
cleanup() {
	local n
	for n in "${NSS[@]}"; do ip netns del "$n" 2>/dev/null; done
	if command -v podman >/dev/null && [ -d "$T/pstore" ]; then
		"${P[@]}" rm -af -t 0 >/dev/null 2>&1
	fi
	if [ -n "$CTRD_PID" ]; then
		# an aborted ctr run leaves its task, the shim and the rootfs mount behind
		"${C[@]}" task kill -s KILL rqctr >/dev/null 2>&1
		"${C[@]}" task rm -f rqctr >/dev/null 2>&1
		"${C[@]}" container rm rqctr >/dev/null 2>&1
		kill "$CTRD_PID" 2>/dev/null
		wait "$CTRD_PID" 2>/dev/null
		for n in $(pgrep -f -- "-address $T/ctrd/sock"); do kill "$n"; done
	fi
	# anything still mounted under the test dir (podman's, containerd's), deepest first
	awk -v t="$T/" 'index($2, t) == 1 {print $2}' /proc/self/mounts | sort -r |
		xargs -r -n1 umount -l
	sim_del_vfs "$ROOT" 2>/dev/null
	for n in "${MADE_DIRS[@]}"; do rmdir "$n" 2>/dev/null; done
	rm -rf "$T"
}
trap 'exit 130' INT TERM
trap cleanup EXIT; [ -n "${RQ_KEEP:-}" ] && trap - EXIT

"$MKNODE" --root "$ROOT" --pfs 3 --vfs 2 --numa-nodes 1 --rdma configfs --ecn yes --dcb yes \
	--pf-prefix "cl$$" >/dev/null
sim_make_vfs "$ROOT"
# one PF per client: v0 of PF 0, 1, 2
mapfile -t VFS < <(sim_vfs "$ROOT" | awk '$3 ~ /v0$/')
# mkshim DIR [DEFAULT_ROOT]: the logging shim; with DEFAULT_ROOT it fills in a missing
# RDMA_QOS_SIM_ROOT after logging what the caller passed
mkshim() {
	local fill=""
	[ -z "${2:-}" ] || fill=": \"\${RDMA_QOS_SIM_ROOT:=$2}\"; export RDMA_QOS_SIM_ROOT"
	mkdir -p "$1"
	cat > "$1/rdma-qos-sim" <<SHIM
#!/bin/sh
echo "\$CNI_COMMAND netns=[\$CNI_NETNS] root=[\$RDMA_QOS_SIM_ROOT]" >> "$T/calls.log"
echo "\$CNI_COMMAND from \$(tr '\\0' ' ' < /proc/\$PPID/cmdline)" >> "$T/parents.log"
$fill
"$SIM" "\$@" 2>> "$T/plugin.log"
rc=\$?
echo "\$CNI_COMMAND rc=\$rc" >> "$T/done.log"
exit \$rc
SHIM
	chmod +x "$1/rdma-qos-sim"
}
mkshim "$T/bin"

conflist() { # name vfdev vfpci
	jq -n --arg n "$1" --arg d "$2" --arg p "$3" '{cniVersion: "1.0.0", name: $n, plugins: [
		{type: "host-device", device: $d},
		{type: "rdma-qos-sim", deviceID: $p, numa: "warn",
		 capabilities: {deviceID: true}}]}'
}
# recs [NETWORK]: attachment records (of one network)
recs() {
	find "$ROOT/run/rdma-qos/state/" -maxdepth 1 -name "${1:+$1_}*.json" 2>/dev/null | wc -l
}
tos_of() { # VFPCI
	local dev
	dev=$(ls "$ROOT/sys/bus/pci/devices/$1/infiniband")
	cat "$ROOT/sys/kernel/config/rdma_cm/$dev/ports/1/default_roce_tos"
}
# the full DSCP map the built-in profile installs: 64 entries, dscp -> dscp >> 3 (26 -> 3, 48 -> 6)
dscp_map_ok() {
	jq -e '[.app[] | select(.selector == 5)] | (length == 64) and
		(map(.protocol) | sort == [range(64)]) and
		all(.priority == (.protocol / 8 | floor)) and
		(map(select(.protocol == 26 or .protocol == 48) | [.protocol, .priority]) | sort
			== [[26, 3], [48, 6]])' "$ROOT/dcb/$1.json" >/dev/null
}
# check_effect CLIENT PF VFPCI NETWORK: what ADD must leave on the PF, the VF and the state dir
check_effect() {
	check "$1: PF $2 pfc [3]" [ "$(jq -c .pfc "$ROOT/dcb/$2.json")" = "[3]" ]
	check "$1: PF $2 trusts DSCP with the full DSCP map" dscp_map_ok "$2"
	local ecn=$ROOT/sys/class/net/$2/ecn
	check "$1: PF $2 ECN NP+RP on prio 3" \
		[ "$(cat "$ecn/roce_np/enable/3" "$ecn/roce_rp/enable/3" | tr -d '\n')" = 11 ]
	check "$1: VF $3 RoCE ToS 106" [ "$(tos_of "$3")" = 106 ]
	check "$1: one attachment record of network $4" [ "$(recs "$4")" = 1 ]
}
# check_undone CLIENT VFPCI NETWORK: what DEL must leave
check_undone() {
	check "$1: DEL removed the record" [ "$(recs "$3")" = 0 ]
	check "$1: DEL restored the VF's ToS" [ "$(tos_of "$2")" = 0 ]
}
has_link() { ip ${2:+-n "$2"} link show "$1" >/dev/null 2>&1; } # IFNAME [NETNS]
calls() { tr '\n' ';' < "$T/calls.log" 2>/dev/null; }

client_cnitool() {
	local pf vfpci vf ns out rc msg
	read -r pf vfpci vf <<< "${VFS[0]}"
	if ! (build_cnitool); then
		skip cnitool "no build from Debian's golang-github-appc-cni source package"
		return
	fi
	mkdir -p "$T/net.d" && conflist roce-cnitool "$vf" "$vfpci" > "$T/net.d/roce.conflist"
	ns=rqcl$$a
	ip netns add "$ns" && NSS+=("$ns")
	: > "$T/calls.log"
	# host-device from Debian's dir, the plugin from ours; the root only in cnitool's env
	local -a ct=(env NETCONFPATH="$T/net.d" CNI_PATH="$CNI_BIN_DIR:$T/bin" CNI_IFNAME=net1
		RDMA_QOS_SIM_ROOT="$ROOT" "$CACHE/cnitool")
	out=$(CNI_ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=c" "${ct[@]}" \
		add roce-cnitool "/run/netns/$ns")
	rc=$?
	check "cnitool add succeeds" [ $rc -eq 0 ]
	check "cnitool add printed the result: net1 in the pod netns, cniVersion 1.0.0" \
		[ "$(jq -r --arg sb "/run/netns/$ns" '[.cniVersion,
			(.interfaces[] | select(.sandbox == $sb) | .name)] | join(" ")' \
			<<< "$out")" = "1.0.0 net1" ]
	check "cnitool passed its environment (RDMA_QOS_SIM_ROOT) through to the plugin" \
		[ "$(calls)" = "ADD netns=[/run/netns/$ns] root=[$ROOT];" ]
	check "net1 is in the pod netns" has_link net1 "$ns"
	check_effect cnitool "$pf" "$vfpci" roce-cnitool

	"${ct[@]}" check roce-cnitool "/run/netns/$ns"
	check "cnitool check succeeds" [ $? -eq 0 ]
	msg=$(env -u RDMA_QOS_SIM_ROOT "${ct[@]:0:4}" "$CACHE/cnitool" check roce-cnitool \
		"/run/netns/$ns" 2>&1)
	rc=$?
	check "without RDMA_QOS_SIM_ROOT in cnitool's env the plugin fails (env is the carrier)" \
		[ $rc -ne 0 ]
	check "... and cnitool reports the plugin's CNI error" \
		grep -q 'RDMA_QOS_SIM_ROOT must name' <<< "$msg"
	jq '.pfc = []' "$ROOT/dcb/$pf.json" > "$T/d" && cp "$T/d" "$ROOT/dcb/$pf.json"
	msg=$("${ct[@]}" check roce-cnitool "/run/netns/$ns" 2>&1)
	rc=$?
	check "cnitool check fails on a drifted PFC (pfc [])" [ $rc -ne 0 ]
	check "the drift message reaches cnitool" \
		grep -q 'pfc: required priority 3, port has none' <<< "$msg"
	jq '.pfc = [3]' "$ROOT/dcb/$pf.json" > "$T/d" && cp "$T/d" "$ROOT/dcb/$pf.json"
	"${ct[@]}" check roce-cnitool "/run/netns/$ns"
	check "cnitool check succeeds again once PFC is back" [ $? -eq 0 ]
	"${ct[@]}" del roce-cnitool "/run/netns/$ns"
	check "cnitool del succeeds" [ $? -eq 0 ]
	check_undone cnitool "$vfpci" roce-cnitool
	check "cnitool sent ADD, CHECK x4, DEL in that order" \
		[ "$(calls | sed 's/ netns=[^;]*//g')" = "ADD;CHECK;CHECK;CHECK;CHECK;DEL;" ]
	check "host-device gave the VF back to the host" has_link "$vf"
}

# A rootfs from busybox-static: /bin/busybox and the applets the tests run.
busybox_tar() {
	[ -f "$CACHE/busybox.tar" ] && return 0
	[ -x /bin/busybox ] || return 1
	rm -rf "$T/rootfs" && mkdir -p "$T/rootfs/bin" "$CACHE" || return 1
	cp /bin/busybox "$T/rootfs/bin/" || return 1
	local a
	for a in sh ip sleep cat ls; do ln -s busybox "$T/rootfs/bin/$a"; done
	tar -C "$T/rootfs" -cf "$CACHE/busybox.tar.tmp" . &&
		mv "$CACHE/busybox.tar.tmp" "$CACHE/busybox.tar"
}

podman_setup() {
	# podman may run DEL from the "podman container cleanup" that conmon starts with its own
	# environment, not ours: this shim fills in the node's root when the caller did not pass it
	mkshim "$T/podman-bin" "$ROOT"
	mkdir -p "$T/podman-net.d"
	conflist roce-podman "$1" "$2" > "$T/podman-net.d/roce-podman.conflist"
	conflist roce-podman-exit "$3" "$4" > "$T/podman-net.d/roce-podman-exit.conflist"
	# private network config dir and plugin dirs: nothing under /etc/cni is read or written
	cat > "$T/containers.conf" <<CONF
[network]
network_backend = "cni"
cni_plugin_dirs = ["$CNI_BIN_DIR", "$T/podman-bin"]
network_config_dir = "$T/podman-net.d"
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
	"${P[@]}" import -q "$CACHE/busybox.tar" localhost/rq-busybox:latest >/dev/null
	check "podman imported the busybox image" [ $? -eq 0 ]
	check "podman sees the networks from the private config dir" \
		[ "$("${P[@]}" network ls --format '{{.Name}} {{.Driver}}' | grep '^roce-podman' |
			sort | tr '\n' ';')" = \
			"roce-podman host-device;roce-podman-exit host-device;" ]
}

# podman_run NETWORK CMD...: the container id; the sandbox may cap RLIMIT_NOFILE/NPROC below
# podman's defaults
podman_run() {
	local net=$1
	shift
	"${P[@]}" run -d --ulimit nofile=1024:1024 --ulimit nproc=4096:4096 --network "$net" \
		localhost/rq-busybox:latest "$@" 2> "$T/podman.err" ||
		{ cat "$T/podman.err"; return 1; }
}

# podman rm -f on a running container: podman itself tears the network down
podman_rm_case() {
	local pf=$1 vfpci=$2 vf=$3 cid rc mac
	: > "$T/calls.log"
	mac=$(cat "/sys/class/net/$vf/address")
	cid=$(podman_run roce-podman sleep 120)
	check "podman run --network roce-podman (CNI ADD) succeeds" [ $? -eq 0 ]
	check "the container sees the VF (MAC $mac) as eth0" [ "$("${P[@]}" exec "$cid" \
		ip -o link show eth0 | grep -o 'link/ether [0-9a-f:]*')" = "link/ether $mac" ]
	check "podman received the result: roce-podman attached to the container" \
		[ "$("${P[@]}" inspect --format \
			'{{range $k, $v := .NetworkSettings.Networks}}{{$k}} {{end}}' "$cid")" = \
			"roce-podman " ]
	check "podman run passed RDMA_QOS_SIM_ROOT through to the plugin" \
		[ "$(sed -n 's/^ADD netns=\[\/run\/netns\/[^]]*\] //p' "$T/calls.log")" = \
			"root=[$ROOT]" ]
	check_effect podman "$pf" "$vfpci" roce-podman
	"${P[@]}" rm -f -t 0 "$cid" >/dev/null
	check "podman rm -f succeeds" [ $? -eq 0 ]
	check_undone podman "$vfpci" roce-podman
	# besides VERSION probes (their number varies with the networks podman knows), podman calls
	# ADD, then DEL with the container's netns path still present, and never CHECK
	check "podman sent ADD, then DEL with the ADD's netns, nothing else" same \
		"$(calls | sed 's/ root=[^;]*//g; s/VERSION netns=\[dummy\];//g')" \
		"$(sed -n 's/^ADD\( netns=\[\/run\/netns\/[^]]*\]\).*/ADD\1;DEL\1;/p' \
			"$T/calls.log")"
	check "host-device gave the VF back to the host" has_link "$vf"
}

# a container that exits by itself: conmon's "podman container cleanup" tears the network down
podman_exit_case() {
	local pf=$1 vfpci=$2 vf=$3 cid
	: > "$T/calls.log"
	: > "$T/parents.log"
	cid=$(podman_run roce-podman-exit sleep 2)
	check "podman run --network roce-podman-exit succeeds" [ $? -eq 0 ]
	check_effect "podman (exit)" "$pf" "$vfpci" roce-podman-exit
	check "the container exits 0" [ "$("${P[@]}" wait "$cid")" = 0 ]
	for _ in $(seq 40); do [ "$(recs roce-podman-exit)" = 0 ] && break; sleep 0.25; done
	check_undone "podman (exit)" "$vfpci" roce-podman-exit
	check "the DEL came from conmon's podman container cleanup" \
		[ "$(grep '^DEL from' "$T/parents.log" | grep -c ' container cleanup ')" = 1 ]
	echo "INFO: the cleanup's DEL came with $(sed -n 's/^DEL netns=[^ ]* //p' "$T/calls.log" |
		sed 's/^root=\[\]$/no RDMA_QOS_SIM_ROOT (the shim filled it in)/')"
	check "host-device gave the VF back to the host" has_link "$vf"
	"${P[@]}" rm "$cid" >/dev/null
	check "podman rm of the exited container succeeds" [ $? -eq 0 ]
	check "podman rm sent no second DEL for the cleaned-up container: ADD, DEL" [ \
		"$(calls | sed 's/ netns=[^;]*//g; s/VERSION;//g')" = "ADD;DEL;" ]
}

client_podman() {
	local pf vfpci vf vfpci2 vf2
	read -r pf vfpci vf <<< "${VFS[1]}"
	read -r _ vfpci2 vf2 <<< "$(sim_vfs "$ROOT" | awk -v p="$pf" '$1 == p && $3 ~ /v1$/')"
	command -v podman >/dev/null || { skip podman "not installed"; return; }
	command -v runc >/dev/null || { skip podman "no runc"; return; }
	busybox_tar || { skip podman "no /bin/busybox (busybox-static)"; return; }
	podman_setup "$vf" "$vfpci" "$vf2" "$vfpci2"
	podman_rm_case "$pf" "$vfpci" "$vf"
	podman_exit_case "$pf" "$vfpci2" "$vf2"
}

if [[ $CLIENTS == *" cnitool "* ]]; then
	echo "== cnitool (Debian golang-github-appc-cni source)"
	client_cnitool
fi
# An OCI archive of the same busybox rootfs, for ctr images import.
busybox_oci() {
	[ -f "$CACHE/busybox-oci.tar" ] && return 0
	command -v podman >/dev/null && busybox_tar || return 1
	"${P[@]}" import -q "$CACHE/busybox.tar" localhost/rq-busybox:latest >/dev/null &&
		"${P[@]}" save -q --format oci-archive -o "$CACHE/busybox-oci.tmp" \
			localhost/rq-busybox:latest &&
		mv "$CACHE/busybox-oci.tmp" "$CACHE/busybox-oci.tar"
}

# ctr run --cni has no flags for CNI dirs: go-cni's defaults /etc/cni/net.d (first conflist) and
# /opt/cni/bin apply. ctr itself (not the daemon) runs the plugins, so a private mount namespace
# around ctr, with our dirs bound over those two, leaves the host's CNI config untouched.
ctr_mountpoints() {
	local d
	# whatever this makes is removed again on exit, deepest first
	for d in /etc/cni /etc/cni/net.d /opt/cni /opt/cni/bin; do
		[ -d "$d" ] || { mkdir "$d" && MADE_DIRS=("$d" "${MADE_DIRS[@]}"); }
	done
}
ctr_private() {
	unshare --mount --propagation private -- sh -c 'mount --bind "$1" /etc/cni/net.d &&
		mount --bind "$2" /opt/cni/bin && shift 2 && exec "$@"' \
		sh "$T/ctr-net.d" "$T/ctr-bin" env RDMA_QOS_SIM_ROOT="$ROOT" "${C[@]}" "$@"
}

start_containerd() {
	mkdir -p "$T/ctrd"
	cat > "$T/ctrd/config.toml" <<CONF
version = 2
root = "$T/ctrd/root"
state = "$T/ctrd/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$T/ctrd/sock"
[plugins."io.containerd.internal.v1.opt"]
  path = "$T/ctrd/opt"
CONF
	containerd --config "$T/ctrd/config.toml" > "$T/ctrd/log" 2>&1 &
	CTRD_PID=$!
	for _ in $(seq 50); do
		"${C[@]}" version >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	cat "$T/ctrd/log"
	return 1
}

client_ctr() {
	local pf vfpci vf mac rc
	read -r pf vfpci vf <<< "${VFS[2]}"
	if ! command -v containerd >/dev/null || ! command -v ctr >/dev/null; then
		skip ctr "no containerd"
		return
	fi
	command -v runc >/dev/null || { skip ctr "no runc"; return; }
	busybox_oci || { skip ctr "no busybox OCI archive (needs podman, busybox-static)"; return; }
	C=(ctr --address "$T/ctrd/sock" --namespace rqtest)
	start_containerd
	check "containerd started on a private socket, root and state" kill -0 "$CTRD_PID"
	# the archive's ref.name annotation names the image
	"${C[@]}" images import "$CACHE/busybox-oci.tar" >/dev/null
	rc=$?
	check "ctr imported the busybox image" \
		[ "$rc $("${C[@]}" images ls -q)" = "0 localhost/rq-busybox:latest" ]
	mkdir -p "$T/ctr-net.d" "$T/ctr-bin"
	conflist roce-ctr "$vf" "$vfpci" > "$T/ctr-net.d/10-roce-ctr.conflist"
	ln -s "$T/bin/rdma-qos-sim" "$T/ctr-bin/rdma-qos-sim"
	ln -s "$HOSTDEV" "$T/ctr-bin/host-device"
	mac=$(cat "/sys/class/net/$vf/address")
	: > "$T/calls.log"
	ctr_mountpoints
	ctr_private run --cni --rm localhost/rq-busybox:latest rqctr \
		sh -c 'ip -o link show eth0; sleep 3' \
		> "$T/ctr.out" 2>&1 &
	local run=$!
	for _ in $(seq 40); do [ "$(recs roce-ctr)" = 1 ] && break; sleep 0.25; done
	check_effect ctr "$pf" "$vfpci" roce-ctr
	wait $run
	rc=$?
	[ $rc -eq 0 ] || cat "$T/ctr.out"
	check "ctr run --cni --rm succeeds" [ $rc -eq 0 ]
	check "the container saw the VF (MAC $mac) as eth0" \
		[ "$(grep -o 'link/ether [0-9a-f:]*' "$T/ctr.out")" = "link/ether $mac" ]
	check "ctr passed RDMA_QOS_SIM_ROOT through to the plugin" \
		[ "$(sed -n 's/^ADD netns=\[\/proc\/[0-9]*\/ns\/net\] //p' "$T/calls.log")" = \
			"root=[$ROOT]" ]
	# the task is gone before ctr removes the network: DEL comes with an empty CNI_NETNS (and,
	# unlike podman's libcni, go-cni asks for no VERSION)
	check "ctr sent ADD with the task's /proc netns, then DEL with an empty CNI_NETNS" [ \
		"$(calls | sed 's/ root=[^;]*//g; s/proc\/[0-9]*/proc\/PID/')" = \
		"ADD netns=[/proc/PID/ns/net];DEL netns=[];" ]
	check_undone ctr "$vfpci" roce-ctr
	check "no rdma-qos-sim conflist was left in the host's /etc/cni/net.d" \
		[ ! -e /etc/cni/net.d/10-roce-ctr.conflist ]
	kill "$CTRD_PID" && wait "$CTRD_PID"
	check "containerd stopped" [ $? -eq 0 ]
	CTRD_PID=""
}

if [[ $CLIENTS == *" podman "* ]]; then
	echo "== podman 4.3, CNI backend, runc"
	client_podman
fi
if [[ $CLIENTS == *" ctr "* ]]; then
	echo "== containerd 1.6: ctr run --cni"
	client_ctr
fi
finish
