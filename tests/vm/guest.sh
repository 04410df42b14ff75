#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# guest.sh: a throw-away QEMU guest with a real kernel for rdma-qos's
# end-to-end test: two NUMA nodes, two igb PFs with SR-IOV (igbvf VFs; one PF
# behind a pxb-pcie on NUMA node 1 at 0000:81:00.0), rdma_rxe, configfs and
# the dcbsim test module. Host /usr and /etc are shared read-only over 9p, so
# host binaries (ip, dcb, rdma, /usr/lib/cni/*, the project's build) run in
# the guest unchanged; the source tree is shared read-only at its own path.
#
#   guest.sh setup           download + prepare (idempotent, cached)
#   guest.sh SCRIPT [ARGS]   boot, run "bash SCRIPT ARGS" as root, power off;
#                            exit status = the script's
# env: RQ_VM_CACHE (default /var/tmp/rdma-qos-vm), BOOT_TIMEOUT (120),
#      JOB_TIMEOUT (600), BOOT_TRIES (2), RQ_BUILD (the build directory, default
#      <source>/build: shared read-only at its own path when outside the source
#      tree, and exported to the script)
set -euo pipefail
CACHE=${RQ_VM_CACHE:-/var/tmp/rdma-qos-vm}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BOOT_TIMEOUT=${BOOT_TIMEOUT:-120}
JOB_TIMEOUT=${JOB_TIMEOUT:-600}
BOOT_TRIES=${BOOT_TRIES:-2}
BUILD=$(cd "${RQ_BUILD:-$SRC/build}" 2>/dev/null && pwd || echo "$SRC/build")
say() { echo "vm: $*" >&2; }
apt_install() {
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q \
		--no-install-recommends "$@" >&2
}

kernel_version() {
	[ -f "$CACHE/kv" ] && { KV=$(cat "$CACHE/kv"); return; }
	KV=$(apt-cache depends -t bookworm-backports linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-6/ { sub("linux-image-", "", $2); print $2; exit }')
	[ -n "$KV" ] || { say "no bookworm-backports kernel in the apt sources"; exit 1; }
}

backports() {
	apt-cache policy 2>/dev/null | grep -q bookworm-backports && return
	say "adding bookworm-backports to the apt sources (QEMU >= 8 for igb, kernel 6.12)"
	echo 'deb http://deb.debian.org/debian bookworm-backports main' \
		> /etc/apt/sources.list.d/bookworm-backports.list
	apt-get -o DPkg::Lock::Timeout=600 update -q >&2
}

# build_module NAME DIR: tests/vm/NAME/ (NAME.c, or the sources its Kbuild names) built in
# DIR when a file changed, into the guest kernel's extra/ (depmod again after)
build_module() {
	local d="$SRC/tests/vm/$1" f changed=0
	for f in "$d"/*; do cmp -s "$f" "$2/${f##*/}" || changed=1; done
	[ -f "$2/$1.ko" ] || changed=1
	if [ $changed = 1 ]; then
		mkdir -p "$2"
		rm -f "$2"/*.c "$2"/*.h "$2"/Kbuild
		cp "$d"/* "$2/"
		[ -f "$2/Kbuild" ] || echo "obj-m := $1.o" > "$2/Makefile"
		make -s -C "$CACHE/kroot/usr/src/linux-headers-$KV" M="$2" \
			CONFIG_DEBUG_INFO_BTF_MODULES= modules >&2
		mkdir -p "$CACHE/kroot/lib/modules/$KV/extra"
		cp "$2/$1.ko" "$CACHE/kroot/lib/modules/$KV/extra/"
		rm -f "$CACHE/depmod-done"
	fi
}

# netdevsim (tests/vm/fabric.sh: a PF with devlink health reporters, FEC statistics and a
# peer for carrier flaps): Debian's kernel does not build it (CONFIG_NETDEVSIM unset), so it
# is built from the guest kernel's own source package (linux-source-6.12 at the image's
# version; drivers/net/netdevsim alone is unpacked) against the downloaded headers
build_netdevsim() {
	local d="$CACHE/netdevsim" mm ver deb
	[ -f "$CACHE/kroot/lib/modules/$KV/extra/netdevsim.ko" ] && return 0
	mm=$(echo "$KV" | cut -d. -f1,2)
	ver=$(dpkg-deb -f "$(ls "$CACHE"/debs/linux-image-"$KV"_*.deb | head -1)" Version)
	deb=$(ls "$CACHE"/debs/linux-source-"$mm"_"${ver/:/%3a}"_all.deb 2> /dev/null | head -1 || true)
	if [ -z "$deb" ]; then
		(cd "$CACHE/debs" && apt-get download -q "linux-source-$mm=$ver" >&2)
		deb=$(ls "$CACHE"/debs/linux-source-"$mm"_*_all.deb | head -1)
	fi
	rm -rf "$d"; mkdir -p "$d"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/linux-source-$mm.tar.xz" | xz -dc |
		tar -x -C "$d" --strip-components=4 --wildcards "linux-source-$mm/drivers/net/netdevsim/*"
	make -s -C "$CACHE/kroot/usr/src/linux-headers-$KV" M="$d" CONFIG_NETDEVSIM=m \
		CONFIG_DEBUG_INFO_BTF_MODULES= modules >&2
	strip --strip-debug "$d/netdevsim.ko"
	mkdir -p "$CACHE/kroot/lib/modules/$KV/extra"
	cp "$d/netdevsim.ko" "$CACHE/kroot/lib/modules/$KV/extra/"
	rm -f "$CACHE/depmod-done" "$deb"
}

setup() {
	mkdir -p "$CACHE/debs" "$CACHE/run" "$CACHE/module"
	backports
	if ! qemu-system-x86_64 -device help 2>/dev/null | grep -q '"igb"'; then
		apt_install -t bookworm-backports qemu-system-x86
	fi
	command -v depmod >/dev/null && [ -x /usr/bin/busybox ] && command -v gcc-12 >/dev/null &&
		command -v bc >/dev/null && command -v rdma >/dev/null ||
		apt_install kmod busybox-static make gcc-12 bc xz-utils iproute2 cpio
	# wire.sh's RoCE traffic and capture, qps.sh's perftest (run in the guest from the shared /usr)
	command -v rping >/dev/null && command -v ibv_rc_pingpong >/dev/null && command -v tcpdump >/dev/null &&
		command -v ib_write_bw >/dev/null || apt_install rdmacm-utils ibverbs-utils tcpdump perftest
	kernel_version
	local kbase=${KV%-amd64}
	if [ ! -f "$CACHE/kroot/boot/vmlinuz-$KV" ]; then
		(cd "$CACHE/debs" && apt-get download -q "linux-image-$KV" "linux-headers-$KV" \
			"linux-headers-$kbase-common" "linux-kbuild-$kbase" >&2)
		for d in "$CACHE"/debs/linux-*"$kbase"*.deb; do dpkg-deb -x "$d" "$CACHE/kroot"; done
		# the headers' Makefile includes an absolute /usr/src path
		sed -i "s|^include /usr/src/|include $CACHE/kroot/usr/src/|" \
			"$CACHE/kroot/usr/src/linux-headers-$KV/Makefile"
		rm -f "$CACHE/depmod-done"
		echo "$KV" > "$CACHE/kv"
	fi
	# iproute2 from bookworm-backports (extracted, not installed): its dcb has apptrust
	if [ ! -x "$CACHE/iproute2-bpo/sbin/dcb" ]; then
		(cd "$CACHE/debs" && apt-get download -q -t bookworm-backports iproute2 >&2)
		dpkg-deb -x "$(ls -t "$CACHE"/debs/iproute2_*bpo*.deb | head -1)" "$CACHE/iproute2-bpo"
	fi
	# the test modules, built against the downloaded headers (no pahole: no module BTF):
	# dcbsim (tests/vm/e2e.sh, agent.sh) in module/, ibsim (tos.sh) in ibsim/
	build_module dcbsim "$CACHE/module"
	build_module ibsim "$CACHE/ibsim"
	build_netdevsim
	if [ ! -f "$CACHE/depmod-done" ]; then
		depmod -b "$CACHE/kroot" "$KV" && touch "$CACHE/depmod-done"
	fi
	if [ ! -f "$CACHE/initramfs.cpio" ] || [ "$0" -nt "$CACHE/initramfs.cpio" ]; then
		make_initramfs
	fi
	say "setup done (kernel $KV, cache $CACHE)"
}

make_initramfs() {
	local ir="$CACHE/initramfs" m
	rm -rf "$ir"; mkdir -p "$ir/.bb"
	cp /usr/bin/busybox "$ir/.bb/"
	for m in fs/netfs/netfs net/9p/9pnet net/9p/9pnet_virtio fs/9p/9p; do
		xz -dc "$CACHE/kroot/lib/modules/$KV/kernel/$m.ko.xz" > "$ir/.bb/${m##*/}.ko"
	done
	init_script > "$ir/init"; chmod 755 "$ir/init"
	(cd "$ir" && find . | cpio -o -H newc --quiet > "$CACHE/initramfs.cpio")
}

init_script() {
	cat <<'INIT'
#!/.bb/busybox sh
# PID 1: this initramfs is the root (RAM); host /usr, /etc, the source tree
# read-only and the cache read-write come over 9p.
B=/.bb/busybox
for d in proc sys dev run tmp usr etc lib var root; do $B mkdir -p /$d; done
$B mount -t proc proc /proc; $B mount -t sysfs sys /sys; $B mount -t devtmpfs dev /dev
$B mkdir -p /dev/pts /dev/shm; $B mount -t devpts devpts /dev/pts
for d in /dev/shm /run /tmp /var; do $B mount -t tmpfs tmpfs $d; done
for m in netfs 9pnet 9pnet_virtio 9p; do $B insmod /.bb/$m.ko || echo "init: insmod $m failed"; done
O=trans=virtio,version=9p2000.L,msize=262144
$B mount -t 9p -o $O,ro,cache=loose usr /usr
$B mount -t 9p -o $O,ro,cache=loose etc /etc
$B mkdir -p "$RQCACHE" "$RQSRC"
$B mount -t 9p -o $O cache "$RQCACHE"
$B mount -t 9p -o $O,ro src "$RQSRC"
if [ -n "$RQBUILD" ]; then $B mkdir -p "$RQBUILD"; $B mount -t 9p -o $O,ro build "$RQBUILD"; fi
$B ln -s usr/bin /bin; $B ln -s usr/sbin /sbin; $B ln -s usr/lib64 /lib64
for e in /usr/lib/*; do $B ln -s "$e" /lib/ 2>/dev/null; done
KV=$($B uname -r)
$B mkdir -p /lib/modules /var/tmp /var/lib /var/log /run/netns
$B ln -s /run /var/run
$B ln -s "$RQCACHE/kroot/lib/modules/$KV" "/lib/modules/$KV"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin HOME=/root
ip link set lo up
modprobe configfs && $B mount -t configfs none /sys/kernel/config
echo "RQ-INIT-UP"
if [ ! -x /usr/bin/bash ]; then
	echo "init: host /usr is not mounted; kernel log:"; $B dmesg | $B tail -40
fi
if [ -n "$RQJOB" ]; then
	/usr/bin/bash "$RQJOB"; rc=$?
	echo "$rc" > "$RQJOB.rc"
	echo "RQ-JOB-DONE rc=$rc"
	$B sync
fi
$B poweroff -f
INIT
}

run_job() {
	local id=$$ job rc=124 try t0 qpid up el log
	job="$CACHE/run/job.$id.sh"; log="$CACHE/run/console.$id.log"
	cp "$1" "$CACHE/run/user.$id.sh"
	{ printf 'cd %q 2>/dev/null || cd /\n' "$PWD"
	  printf 'export RQ_BUILD=%q\n' "$BUILD"
	  printf 'exec /usr/bin/bash'; printf ' %q' "$CACHE/run/user.$id.sh" "${@:2}"; printf '\n'; } > "$job"
	local fs="local,security_model=none" bdev=() bdir=
	# a build directory outside the source tree gets its own share (the
	# source share already carries one inside it)
	case "$BUILD/" in
	"$SRC"/*) ;;
	*) bdir=$BUILD
	   # shellcheck disable=SC2054 # commas belong to the QEMU option
	   bdev=(-fsdev "$fs,id=fsbuild,path=$BUILD,readonly=on"
		 -device virtio-9p-pci,fsdev=fsbuild,mount_tag=build,bus=pcie.0) ;;
	esac
	# each PF on a restricted user netdev of its own: nothing is on the other end of
	# its wire. A script with a line "# vm: pfs-wired" gets both PFs on one QEMU hub
	# instead, one L2 segment: what one PF sends the other receives (agent.sh: lldpd
	# on 0000:01:00.0 is the switch port of the dcbsim PF)
	local n0=user,id=n0,restrict=on n1=user,id=n1,restrict=on
	if grep -q '^# vm: pfs-wired' "$1"; then
		n0=hubport,id=n0,hubid=0 n1=hubport,id=n1,hubid=0
	fi
	# "# vm: gdr-tree" (gdr.sh, GPUDirect RDMA): the first PF below a PCIe switch (x3130
	# upstream, xio3130 downstream ports) with a display device (class 0x03, the "GPU")
	# below the switch's other port, and a second display device on a root port of its own
	local pf0=(-device pcie-root-port,id=rp0,bus=pcie.0,chassis=1
		   -netdev "$n0" -device igb,bus=rp0,netdev=n0,mac=52:54:00:00:00:10)
	if grep -q '^# vm: gdr-tree' "$1"; then
		pf0=(-device pcie-root-port,id=rp0,bus=pcie.0,chassis=1
		     -device x3130-upstream,id=up0,bus=rp0
		     -device xio3130-downstream,id=dp0,bus=up0,chassis=3,slot=0
		     -netdev "$n0" -device igb,bus=dp0,netdev=n0,mac=52:54:00:00:00:10
		     -device xio3130-downstream,id=dp1,bus=up0,chassis=4,slot=1
		     -device bochs-display,bus=dp1
		     -device pcie-root-port,id=rp2,bus=pcie.0,chassis=5
		     -device bochs-display,bus=rp2)
	fi
	for try in $(seq 1 "$BOOT_TRIES"); do
		rm -f "$job.rc"; : > "$log"
		qemu-system-x86_64 -accel tcg,thread=multi -cpu max -M q35 \
			-smp 2,sockets=2,cores=1,threads=1 -m 2G \
			-object memory-backend-ram,id=m0,size=1G -object memory-backend-ram,id=m1,size=1G \
			-numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1 \
			-fsdev "$fs,id=fsusr,path=/usr,readonly=on" -device virtio-9p-pci,fsdev=fsusr,mount_tag=usr,bus=pcie.0 \
			-fsdev "$fs,id=fsetc,path=/etc,readonly=on" -device virtio-9p-pci,fsdev=fsetc,mount_tag=etc,bus=pcie.0 \
			-fsdev "$fs,id=fscache,path=$CACHE" -device virtio-9p-pci,fsdev=fscache,mount_tag=cache,bus=pcie.0 \
			-fsdev "$fs,id=fssrc,path=$SRC,readonly=on" -device virtio-9p-pci,fsdev=fssrc,mount_tag=src,bus=pcie.0 \
			"${bdev[@]}" \
			"${pf0[@]}" \
			-device pxb-pcie,id=pxb1,bus_nr=0x80,numa_node=1,bus=pcie.0 \
			-device pcie-root-port,id=rp1,bus=pxb1,chassis=2 \
			-netdev "$n1" -device igb,bus=rp1,netdev=n1,mac=52:54:00:00:00:11 \
			-kernel "$CACHE/kroot/boot/vmlinuz-$KV" -initrd "$CACHE/initramfs.cpio" \
			-append "console=ttyS0 quiet panic=-1 RQCACHE=$CACHE RQSRC=$SRC RQBUILD=$bdir RQJOB=$job" \
			-no-reboot -display none -serial "file:$log" -monitor none < /dev/null &
		qpid=$!; t0=$SECONDS; up=0
		while kill -0 $qpid 2>/dev/null; do
			el=$((SECONDS - t0))
			if [ $up = 0 ] && grep -q RQ-INIT-UP "$log"; then up=1; say "guest up after ${el}s (try $try)"; fi
			if [ $up = 0 ] && [ $el -gt "$BOOT_TIMEOUT" ]; then say "no boot after ${el}s: retry"; kill $qpid; break; fi
			if [ $el -gt "$JOB_TIMEOUT" ]; then say "job timeout ${el}s"; kill $qpid; break; fi
			sleep 1
		done
		wait $qpid 2>/dev/null || true
		sed -e '/RQ-INIT-UP/d' "$log" | tr -d '\r'
		if [ -f "$job.rc" ]; then rc=$(cat "$job.rc"); break; fi
		[ $up = 0 ] || break
	done
	rm -f "$job" "$job.rc" "$CACHE/run/user.$id.sh" "$log"
	return "$rc"
}

# one setup at a time (make test's vm-prep and guests run side by side): the others wait for
# it and then find everything done
locked_setup() {
	mkdir -p "$CACHE"
	exec 9> "$CACHE/.setup.lock"
	flock 9
	setup
	exec 9>&-
}

case "${1:-}" in
setup) locked_setup ;;
"") echo "usage: guest.sh setup | guest.sh SCRIPT [ARGS]" >&2; exit 2 ;;
*) [ -f "$1" ] || { say "no such script: $1"; exit 2; }
   locked_setup; kernel_version; run_job "$@" ;;
esac
