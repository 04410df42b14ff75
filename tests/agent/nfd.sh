#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Node labels through Node Feature Discovery (DESIGN.md; issue 32 item 5):
# `agent --nfd-features-file PATH` writes NFD's local feature file after every
# pass. The file is read here as nfd-worker reads it (source/local: `#`
# comments, the `# +expiry-time=` directive, key=value, an unprefixed key in
# feature.node.kubernetes.io/, dot files skipped), and the labels must say:
# - lossless=true with a lossless attachment whose PF is in profile, and with
#   only the node baseline (no attachment yet);
# - lossless=false while a PF is out of profile (no DCB: drift left), while a
#   repair is suspended (another writer), on a node with lossy attachments only;
# - peer=unknown (no link partner heard; tests/agent/lldp.sh has agrees and disagrees);
# - the expiry is three intervals ahead, moves while the agent runs, and once the
#   agent stops nfd-worker drops the labels past it;
# - the file is rewritten only when a label changes or less than two intervals
#   of its expiry remain (issue 42 item 8: same inode and mtime across a pass);
# - the keys carry NFD's prefix themselves, so the labels are the same under
#   NFD's DisableAutoPrefix gate (issue 37 item 7);
# - written atomically: only the file itself and no temporary that nfd-worker
#   would read is ever in the directory.
set -u
. "$(dirname "$0")/lib.sh"

sim_suite_start "agent NFD feature file" rqnf agent_can_run
BG=""
suite_teardown() { [ -n "$BG" ] && kill "$BG" 2> /dev/null; }
agent() { RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent "$@"; }
FD=$T/features.d
mkdir -p "$FD"
F=$FD/rdma-qos

# nfd_labels FILE [NOW]: the labels nfd-worker takes from FILE at NOW (epoch s), one
# "key=value" a line, sorted; "INVALID: ..." for what nfd-worker would refuse.
# NFD_DISABLE_AUTO_PREFIX=1: as with NFD's DisableAutoPrefix gate (no namespace added)
nfd_labels() {
	NOAUTO=${NFD_DISABLE_AUTO_PREFIX:-0} python3 - "$1" "${2:-$(date +%s)}" << 'EOF'
import datetime, os, re, sys
path, now = sys.argv[1], float(sys.argv[2])
if path.split("/")[-1].startswith("."):
    sys.exit(0)
data = open(path).read()
if len(data) > 64 * 1024:
    print("INVALID: over 64 KiB"); sys.exit(0)
expiry, out = None, []
for line in data.splitlines():
    line = line.strip()
    if not line:
        continue
    if line.startswith("# +"):
        key, _, val = line[3:].partition("=")
        if key != "expiry-time":
            print("INVALID: directive " + key); continue
        try:
            expiry = datetime.datetime.strptime(val.strip(), "%Y-%m-%dT%H:%M:%SZ").replace(
                tzinfo=datetime.timezone.utc).timestamp()
        except ValueError:
            print("INVALID: expiry " + val)
        continue
    if line.startswith("#"):
        continue
    k, sep, v = line.partition("=")
    v = v if sep else "true"
    if expiry is not None and expiry < now:
        continue
    if "/" not in k and os.environ["NOAUTO"] != "1":
        k = "feature.node.kubernetes.io/" + k
    name = k.split("/", 1)[-1]
    if not re.fullmatch(r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?", name) or \
       not re.fullmatch(r"([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?", v):
        print("INVALID: label " + line); continue
    out.append(k + "=" + v)
print("\n".join(sorted(out)))
EOF
}
# the first label nfd-worker takes (lossless), read whole so the reader never meets a closed pipe
first_label() { # the lossless label (rdma-qos.gdr sorts before it: tests/sim/gdr.sh)
	local l
	l=$(nfd_labels "$@" | grep -v '\.gdr=')
	echo "${l%%$'\n'*}"
}
expiry_of() { sed -n 's/^# +expiry-time=//p' "$1" | head -1; }
L=feature.node.kubernetes.io/rdma-qos

"$MKNODE" --root "$ROOT" --pfs 2 --vfs 4 --numa-nodes 2 --cpus-per-node 4 --rdma configfs \
	--ecn yes --dcb yes --pf-prefix nf$$ > /dev/null || { echo "FAIL: mknode"; exit 1; }
"$MKNODE" --root "$ROOT" pod --uid pod-a --cpus 0-1 > /dev/null
sim_make_vfs "$ROOT"
mapfile -t VFS < <(sim_vfs "$ROOT")
read -r PF0 VF0PCI VF0 <<< "${VFS[0]}"
read -r _ VF1PCI VF1 <<< "${VFS[1]}"
ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p1;K8S_POD_UID=pod-a"
rq() { echo "{\"type\":\"rdma-qos\",\"deviceID\":\"$1\"$2}"; }
CAT=$ROOT/etc/cni/rdma-qos/profiles.json
mkdir -p "${CAT%/*}"

echo "== a node with lossy attachments only"
echo '{"profiles":{"lossy":{"trafficClass":0}},"namespaces":{"*":{"default":"lossy","allow":["lossy","roce-lossless"]}}}' > "$CAT"
NSA=$(newns a)
chain_add "$ROOT" roce c1 "$NSA" net1 "$VF1" "$(rq "$VF1PCI" ',"profile":"lossy"')" "$ARGS" > /dev/null
check "ADD a lossy attachment" [ $? -eq 0 ]
agent --once --nfd-features-file "$F" 2> "$T/a0.log"
check "the pass writes the file" [ -s "$F" ]
check "nfd-worker takes lossless=false, peer=unknown" [ "$(nfd_labels "$F" | tr '\n' ' ')" = \
	"$L.gdr=unknown $L.lossless=false $L.peer=unknown $L.wiring=unknown " ]

echo "== a lossless attachment in profile"
NSB=$(newns b)
chain_add "$ROOT" roce c2 "$NSB" net1 "$VF0" "$(rq "$VF0PCI" ',"profile":"roce-lossless"')" "$ARGS" > /dev/null
check "ADD a lossless attachment" [ $? -eq 0 ]
t0=$(date +%s)
agent --once --interval 60 --nfd-features-file "$F" 2> "$T/a1.log"
check "the pass ends in profile" [ $? -eq 0 ]
check "nfd-worker takes lossless=true, peer=unknown" [ "$(nfd_labels "$F" | tr '\n' ' ')" = \
	"$L.gdr=unknown $L.lossless=true $L.peer=unknown $L.wiring=unknown " ]
e=$(date -u -d "$(expiry_of "$F")" +%s)
check "the keys carry NFD's prefix in the file itself" \
	[ "$(grep -v '^#' "$F" | cut -d= -f1 | tr '\n' ' ')" = "$L.lossless $L.peer $L.gdr $L.wiring " ]
check "under NFD's DisableAutoPrefix the same labels" [ "$(NFD_DISABLE_AUTO_PREFIX=1 nfd_labels "$F" | tr '\n' ' ')" = \
	"$L.gdr=unknown $L.lossless=true $L.peer=unknown $L.wiring=unknown " ]
check "the expiry is three intervals (180 s) ahead ($((e - t0)) s)" [ $((e - t0)) -ge 179 ]
check "... and at most 182 s ahead" [ $((e - t0)) -le 182 ]
check "nfd-worker drops the labels past the expiry" [ -z "$(nfd_labels "$F" $((e + 1)))" ]
check "the directory holds the file alone (no temporary left)" [ "$(ls -A "$FD")" = rdma-qos ]
check "the file is world-readable (nfd-worker runs as another user on some distributions)" \
	[ "$(stat -c %a "$F")" = 644 ]

echo "== a PF out of profile"
mv "$ROOT/dcb/$PF0.json" "$T/dcb.saved"
agent --once --nfd-features-file "$F" 2> "$T/a2.log"
check "the PF has no DCB: drift left (exit 1)" [ $? -eq 1 ]
check "... lossless=false" [ "$(first_label "$F")" = "$L.lossless=false" ]
mv "$T/dcb.saved" "$ROOT/dcb/$PF0.json"
agent --once --nfd-features-file "$F" 2> "$T/a3.log"
check "the PF back in profile: lossless=true again" [ "$(first_label "$F")" = "$L.lossless=true" ]

echo "== a suspended repair"
for _ in 1 2 3 4 5; do
	dcb_edit "$ROOT" "$PF0" '.pfc = []'
	RDMA_QOS_SIM_REPAIR_BACKOFF_MS=0 agent --once --nfd-features-file "$F" 2> /dev/null
done
dcb_edit "$ROOT" "$PF0" '.pfc = []'
RDMA_QOS_SIM_REPAIR_BACKOFF_MS=0 agent --once --nfd-features-file "$F" --metrics-file "$T/m.prom" 2> "$T/a4.log"
check "another writer's PFC fight suspends the repair" \
	[ "$(metric "$T/m.prom" "rdma_qos_repair_suspended{pf=\"$PF0\",item=\"pfc\"}")" = 1 ]
check "... lossless=false" [ "$(first_label "$F")" = "$L.lossless=false" ]
rm -f "$ROOT/run/rdma-qos/agent/fights.json"
agent --once --nfd-features-file "$F" 2> "$T/a5.log"
check "the suspension cleared and PFC repaired: lossless=true" [ "$(first_label "$F")" = "$L.lossless=true" ]


echo "== the node baseline alone"
chain_del "$ROOT" roce c2 "$NSB" net1 "$VF0" "$(rq "$VF0PCI" ',"profile":"roce-lossless"')" "$ARGS" 2> /dev/null
echo '{"profiles":{"lossy":{"trafficClass":0}},"namespaces":{"*":{"default":"lossy","allow":["lossy","roce-lossless"]}},"node":{"pf":"ensure","baseline":"roce-lossless"}}' > "$CAT"
agent --once --nfd-features-file "$F" 2> "$T/a6.log"
check "no lossless attachment, the baseline on every PF in profile: lossless=true" \
	[ "$(first_label "$F")" = "$L.lossless=true" ] || { cat "$F"; tail -5 "$T/a6.log"; }

echo "== rewritten only when a label changes or the expiry runs low (issue 42 item 8)"
# --interval 4: the expiry is 12 s ahead; the pass at 4 s finds 8 s left (no rewrite), the
# one at 8 s finds 4 s (under two intervals: rewritten)
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --interval 4 --log-level debug --nfd-features-file "$F" 2> "$T/q.log" &
BG=$!
sleep 0.5
i0=$(stat -c %i.%Y "$F")
for _ in $(seq 60); do [ "$(grep -c 'pass took' "$T/q.log")" -ge 2 ] && break; sleep 0.1; done
sleep 0.3
check "a pass with the same labels and 8 s of expiry left leaves the file alone (inode.mtime $i0 -> $(stat -c %i.%Y "$F"); $(grep -c 'pass took' "$T/q.log") passes)" \
	[ "$(stat -c %i.%Y "$F")" = "$i0" ]
check "... over at least two passes" [ "$(grep -c 'pass took' "$T/q.log")" -ge 2 ]
mv "$ROOT/dcb/$PF0.json" "$T/dcb.saved"
for _ in $(seq 60); do [ "$(first_label "$F")" = "$L.lossless=false" ] && break; sleep 0.1; done
check "a label that changes is written at the next pass: lossless=false" [ "$(first_label "$F")" = "$L.lossless=false" ]
mv "$T/dcb.saved" "$ROOT/dcb/$PF0.json"
i1=$(stat -c %i "$F")
for _ in $(seq 100); do [ "$(first_label "$F")" = "$L.lossless=true" ] && [ "$(stat -c %i "$F")" != "$i1" ] && break; sleep 0.1; done
check "... and back: lossless=true" [ "$(first_label "$F")" = "$L.lossless=true" ]
kill "$BG"; wait "$BG" 2> /dev/null; BG=""

echo "== the running agent keeps the expiry ahead; stopped, the labels lapse"
RDMA_QOS_SIM_ROOT=$ROOT "$SIM" agent --interval 1 --nfd-features-file "$F" 2> "$T/bg.log" &
BG=$!
sleep 0.5
e1=$(expiry_of "$F")
sleep 2.5
e2=$(expiry_of "$F")
check "the expiry moves forward with the passes ($e1 -> $e2)" [ "$(date -u -d "$e2" +%s)" -gt "$(date -u -d "$e1" +%s)" ]
check "... lossless=true while it runs" [ "$(first_label "$F")" = "$L.lossless=true" ]
check "... no temporary was ever left beside it" [ "$(ls -A "$FD")" = rdma-qos ]
# whenever nfd-worker reads the file while the agent runs (each sleepInterval, or on a change)
# it finds the labels: the expiry follows the agent's --interval, not nfd-worker's cadence
seen=""
for _ in 1 2 3 4 5; do seen="$seen$(first_label "$F" | sed 's/.*=//') "; sleep 0.35; done
check "read at any moment while the agent runs: lossless=true every time ($seen)" \
	[ "$seen" = "true true true true true " ]
kill "$BG"; wait "$BG" 2> /dev/null; BG=""
e=$(date -u -d "$(expiry_of "$F")" +%s)
check "the agent stopped: the file stays, with its labels, expiring within 3 intervals ($((e - $(date +%s))) s)" \
	[ $((e - $(date +%s))) -le 3 ]
check "... the file keeps its lossless=true label" [ "$(first_label "$F")" = "$L.lossless=true" ]
sleep $((e - $(date +%s) + 1))
check "... past it nfd-worker takes no rdma-qos label" [ -z "$(nfd_labels "$F")" ]

summary
