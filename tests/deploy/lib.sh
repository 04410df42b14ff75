# SPDX-License-Identifier: Apache-2.0
# Shared by tests/deploy/*.sh: counters and skip-or-fail (under CI a missing
# prerequisite is a failure, as in tests/clients).
PASS=0 FAIL=0 SKIP=0
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
skip() {
	if [ -n "${CI:-}" ]; then fail "$1 cannot run under CI: $2"; return; fi
	SKIP=$((SKIP + 1)); echo "SKIP: $1: $2"
}
finish() {
	[ "$SKIP" -eq 0 ] || echo "($SKIP skipped)"
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" -eq 0 ]
	exit
}
# scc_admit RENDER.json: OpenShift's SCC admission offline (scc.jq), one refusal a line; a jq
# failure is one too, so an empty answer always means admitted
scc_admit() {
	local o
	o=$(jq -c -f "$(dirname "${BASH_SOURCE[0]}")/scc.jq" "$1") || { echo "scc.jq failed on $1"; return; }
	jq -r '.[]' <<< "$o"
}
# status_is WANT STATUS CMD...: STATUS is WANT and CMD succeeds (one check for both)
status_is() { [ "$1" = "$2" ] && shift 2 && "$@"; }

# The image build, shared by image.sh and tests/vm/run.sh (the image tests/vm/confine.sh runs
# in the guest). image_vars SRC: the cache, the local Debian 12 base's key and name.
image_vars() {
	CACHE=${RQ_IMAGE_CACHE:-/var/tmp/rdma-qos-image}
	CJSON_CACHE=${RQ_CJSON_CACHE:-/var/tmp/rdma-qos-cjson}
	# libmicrohttpd as the host's make built it (mk/microhttpd.mk; one prefix per target
	# triple): mounted, the build stage links it instead of building it again (2-3 minutes)
	MHD_CACHE=/var/tmp/rdma-qos-mhd
	SUITE=bookworm
	# what deploy/Containerfile's build stage needs, preinstalled so that it needs no network
	BASE_PKGS=gcc,libc6-dev,make,pkg-config,libcjson-dev,libnl-3-dev,libnl-route-3-dev,dpkg-dev,libprotobuf-c-dev,protobuf-c-compiler,libnghttp2-dev
	BASE_KEY=$(printf '%s %s' "$SUITE" "$BASE_PKGS" | sha256sum | cut -c1-12)
	BASE_IMG=localhost/rq-debian-build:$BASE_KEY
	IMG_SRC=$1
}
# image_prereqs: why the image cannot be built here (rc 1), or nothing
image_prereqs() {
	[ "$(id -u)" = 0 ] || { echo "needs root (podman, host paths)"; return 1; }
	local c
	for c in podman runc; do
		command -v "$c" >/dev/null || { echo "no $c"; return 1; }
	done
	[ -f "$CACHE/base-$BASE_KEY.tar" ] || command -v mmdebstrap >/dev/null ||
		{ echo "no mmdebstrap and no cached base"; return 1; }
	ls "$CJSON_CACHE"/cjson_*.dsc >/dev/null 2>&1 || { echo "no cJSON source in $CJSON_CACHE (make)"; return 1; }
}
# image_podman DIR [NAME]: P, the podman command on the cache's own store (DIR holds its
# config); NAME gives a separate store and run dir (multiarch.sh: its own, pruned apart)
image_podman() {
	local store=$CACHE/store${2:+-$2} run=/run/rdma-qos-image${2:+-$2}
	# this sandbox may cap RLIMIT_NOFILE/NPROC below podman's defaults (as in tests/clients)
	cat > "$1/containers.conf" <<CONF
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
[network]
network_backend = "cni"
CONF
	# a store of our own, kept in the cache (the base image stays imported); podman records
	# the run dir in the store, so that is fixed too
	P=(env CONTAINERS_CONF="$1/containers.conf" podman --root "$store"
		--runroot "$run" --storage-driver vfs)
	mkdir -p "$CACHE"
	# a store podman cannot open (another run dir, an interrupted run) is started afresh
	"${P[@]}" info > /dev/null 2>&1 || rm -rf "$store" "$run"
}
# image_base: the Debian 12 base tarball (mmdebstrap, cached) imported as BASE_IMG
image_base() {
	if [ ! -f "$CACHE/base-$BASE_KEY.tar" ]; then
		mmdebstrap --quiet --variant=apt --include="$BASE_PKGS" "$SUITE" "$CACHE/base.tmp.tar" \
			"deb http://deb.debian.org/debian $SUITE main" \
			"deb http://deb.debian.org/debian $SUITE-updates main" \
			"deb http://deb.debian.org/debian-security $SUITE-security main" &&
			mv "$CACHE/base.tmp.tar" "$CACHE/base-$BASE_KEY.tar"
	fi
	[ -f "$CACHE/base-$BASE_KEY.tar" ] || return 1
	"${P[@]}" image exists "$BASE_IMG" || "${P[@]}" import -q "$CACHE/base-$BASE_KEY.tar" "$BASE_IMG" >/dev/null
	"${P[@]}" image exists "$BASE_IMG"
}
# image_key TARGET: what the build of TARGET is made of: the files of the build context (the
# tree less what .containerignore keeps out), the commit it reports and the base
image_key() {
	(cd "$IMG_SRC" && git ls-files -co --exclude-standard -z 2>/dev/null |
		grep -zvE '^(tests|docs|examples)/' | xargs -0 sha256sum 2>/dev/null
	 echo "$1 $BASE_IMG $(git -C "$IMG_SRC" rev-parse HEAD 2>/dev/null)") | sha256sum | cut -c1-16
}
# image_build TARGET TAG LOG: deploy/Containerfile's TARGET from IMG_SRC on the base, as
# localhost/TARGET:TAG; the log's tail on failure. One build per content: the image is also
# tagged src-<image_key>, and a later call for the same content (image.sh, confine-prep.sh,
# make test's image-prep) tags that image instead of building it again.
image_build() {
	local key
	key=$(image_key "$1")
	if "${P[@]}" image exists "localhost/$1:src-$key"; then
		echo "reused localhost/$1:src-$key (the same build context)" > "$3"
		"${P[@]}" tag "localhost/$1:src-$key" "localhost/$1:$2"
		return
	fi
	mkdir -p "$MHD_CACHE"
	# the commit, as a host build of this tree has it (the build context has no .git): the
	# image's --version then says what the host binary says
	"${P[@]}" build -q -f "$IMG_SRC/deploy/Containerfile" --build-arg BASE="$BASE_IMG" \
		--build-arg REVISION="$(git -C "$IMG_SRC" rev-parse HEAD 2>/dev/null)" \
		-v "$CJSON_CACHE:$CJSON_CACHE" -v "$MHD_CACHE:$MHD_CACHE" --target "$1" -t "localhost/$1:$2" "$IMG_SRC" \
		> "$3" 2>&1 || { tail -30 "$3"; return 1; }
	# the older content's tags go (their images with them, once nothing else tags them)
	"${P[@]}" images --format '{{.Repository}}:{{.Tag}}' "localhost/$1" 2>/dev/null |
		grep ":src-" | grep -v ":src-$key$" | xargs -r "${P[@]}" rmi > /dev/null 2>&1
	"${P[@]}" tag "localhost/$1:$2" "localhost/$1:src-$key"
}
