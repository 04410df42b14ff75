# SPDX-License-Identifier: Apache-2.0
# Shared by the guest-side scripts (sourced as . "$RQSRC/tests/vm/lib.sh"; guest.sh
# runs a copy of the script, so its own dirname is not the source tree).
SRC=${RQSRC:?}
BUILD=${RQ_BUILD:-$SRC/build}
RQ=$BUILD/rdma-qos
HD=/usr/lib/cni/host-device
PASS=0 FAIL=0
pass() { PASS=$((PASS + 1)); echo "PASS: $*"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL: $*"; }
# check DESC CMD...: CMD counted as a PASS or a FAIL; returns CMD's status, so that
# `check ... || diagnostic` shows the evidence of a failure (a suite calling check runs
# without set -e: a failing check is counted and the suite goes on to its summary)
# (no local but d: the condition runs in check's scope and may read the caller's variables)
check() { local d="$1"; shift; if "$@"; then pass "$d"; else set -- $?; fail "$d"; return "$1"; fi; }
# same A B: A and B are the same text and not empty. [ "$(X)" = "$(Y)" ] passed when X and Y
# both printed nothing (both failed, or found nothing); same "$(X)" "$(Y)" does not. One
# definition a lib (tests/sim, tests/vm, tests/deploy, tests/docs/readme_path.sh), all alike.
same() { [ -n "$1" ] && [ "$1" = "$2" ]; }
# run PLUGIN CMD CID NETNS IFNAME ARGS < conf: a runtime's call
run() { CNI_COMMAND=$2 CNI_CONTAINERID=$3 CNI_NETNS=$4 CNI_IFNAME=$5 CNI_PATH=/usr/lib/cni CNI_ARGS=$6 "$1"; }
# conf PLUGIN-JSON [PREVRESULT]: the plugin's config as the runtime passes it (network $CONF_NAME)
conf() {
	jq -c --arg n "${CONF_NAME:-roce}" --argjson p "${2:-null}" \
		'{cniVersion: "1.0.0", name: $n} + . + (if $p == null then {} else {prevResult: $p} end)' <<< "$1"
}
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# tcp_listening PORT: wait (at most 20 s) until a TCP socket listens on PORT: a verbs
# program's server (ibv_rc_pingpong, perftest: 18515) makes its device, CQ and QP first, which
# on a loaded host took longer than a fixed sleep ("Couldn't connect to ...:18515")
tcp_listening() { for _ in $(seq 200); do ss -ltnH "sport = :$1" | grep -q . && return 0; sleep 0.1; done; return 1; }
# until_ms MS CMD...: poll CMD every 50 ms; prints the ms it took; rc 1 on timeout
until_ms() {
	local lim=$1 t0; shift; t0=$(now_ms)
	while ! "$@" 2>/dev/null; do
		[ $(( $(now_ms) - t0 )) -ge "$lim" ] && { echo $(( $(now_ms) - t0 )); return 1; }
		sleep 0.05
	done
	echo $(( $(now_ms) - t0 ))
}
# vf_enable PFPCI N: the PF up with N igbvf VFs, waiting for the first VF's netdev; sets PF
vf_enable() {
	PF=$(ls "/sys/bus/pci/devices/$1/net")
	ip link set "$PF" up
	echo "$2" > "/sys/bus/pci/devices/$1/sriov_numvfs"
	for _ in $(seq 100); do [ -d "/sys/bus/pci/devices/$1/virtfn0/net" ] && break; sleep 0.2; done
}
# dcb_rxe_node: the one-VF node of agent.sh and confine.sh: igb with one igbvf VF on
# 0000:81:00.0 (sets PFPCI, PF, VF0PCI, VF0, the VF up), dcbsim on the PF, rxe and rdma_cm
dcb_rxe_node() {
	modprobe igb && modprobe igbvf || fail "modprobe igb igbvf"
	udevadm settle 2>/dev/null; sleep 1
	PFPCI=0000:81:00.0
	vf_enable "$PFPCI" 1
	VF0PCI=$(basename "$(readlink -f "/sys/bus/pci/devices/$PFPCI/virtfn0")")
	VF0=$(ls "/sys/bus/pci/devices/$VF0PCI/net")
	modprobe dcbsim ifname="$PF" || fail "modprobe dcbsim"
	modprobe rdma_rxe && modprobe rdma_cm || fail "modprobe rdma_rxe rdma_cm"
	ip link set "$VF0" up
}
# promcheck FILE: promtool parses it and lints nothing but the one finding a contract name
# brings (its linter flags any name containing "counter"; DESIGN.md fixes
# rdma_qos_vf_hw_counter_total); tests/agent/lib.sh has the same rule for the sim
promcheck() {
	promtool check metrics < "$1" > "$1.lint" 2>&1 && return 0
	[ -s "$1.lint" ] && ! grep -qv "^rdma_qos_vf_hw_counter_total metric name should not include type 'counter'$" "$1.lint"
}
# raw_decode [sgid]: mlx5 resource dumps (`rdma -j -r res show qp`, "data" byte arrays,
# iproute2 >= 6.x) as "QPN STATE TCLASS" lines (with sgid: "QPN STATE TCLASS SRC_ADDR_INDEX"),
# read from the spec (mlx5_ifc: segments {be16 length_dw, be16 type}, control types >=
# 0xfff0, the resource segment's index1 at byte 8 and query_qp_out at 16, the qpc at 0x18
# of that, its primary path (ads) at 0x18 of the qpc, src_addr_index its byte 9, tclass
# bits 20..27 of its be32 at 0x0c), not from the agent's parser (qps.sh, shared.sh)
raw_decode() {
	jq -r '.[] | select(.data) | .data | map(tostring) | join(" ")' | while read -r -a b; do
		local off=0 len typ p q a x
		while [ $((off + 4)) -le ${#b[@]} ]; do
			len=$((b[off] * 256 + b[off + 1])); typ=$((b[off + 2] * 256 + b[off + 3]))
			[ "$len" -gt 0 ] || break
			if [ "$typ" -lt $((0xfff0)) ]; then
				p=$((off + 16)); q=$((p + 0x18)); a=$((q + 0x18 + 0x0c)); x=
				[ "${1:-}" = sgid ] && x=" ${b[q + 0x18 + 9]}"
				echo "$(((b[off + 8] << 24) | (b[off + 9] << 16) | (b[off + 10] << 8) | b[off + 11])) $((b[q] >> 4)) $((((b[a] << 24 | b[a + 1] << 16 | b[a + 2] << 8 | b[a + 3]) >> 20) & 255))$x"
				break
			fi
			off=$((off + len * 4))
		done
	done
}
