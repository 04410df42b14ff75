#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A measurement, not a build: rdma-qos-sim linked static-pie against musl instead of
# glibc, to size what glibc's static start-up costs a CNI exec (docs/benchmarks.md,
# "ADD's cost", issue 51). glibc's start runs ~43 CPUID instructions (cpu features and
# cache sizes for its string functions' ifuncs: each a VM exit, ~4 us on a VM) and takes
# ~30 page faults before main; musl's runs none and takes 6.
#
#   tests/bench/musl_poc.sh OUTDIR [bump]
#
# OUTDIR/rdma-qos-sim: the same sources (this tree; `make all` first, for build/gen),
# linked with musl's libc.a and with libnl-3, libmicrohttpd, protobuf-c, nghttp2 and
# cJSON built for musl from Debian's source packages (apt-get source, cached in
# OUTDIR/src). "bump": a bump allocator in place of musl's malloc (mallocng maps and
# unmaps a group per size class as a command allocates and frees: 52 mmap/munmap
# calls a steady ADD), to show what an allocator that keeps its pages would give;
# never for the agent, which frees. Needs musl-tools, flex, bison (libnl's configure).
# Not built by make, not tested: compare it with `bench` (tests/bench/bench.c).
set -euo pipefail
out=$(mkdir -p "$1" && cd "$1" && pwd) mode=${2:-}
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tools/deb-src.sh"
for t in musl-gcc flex bison; do command -v $t > /dev/null || { echo "musl_poc: needs $t" >&2; exit 1; }; done
[ -f "$src/build/gen/pkg/podres/api.pb-c.c" ] || { echo "musl_poc: make all first" >&2; exit 1; }
ML=/usr/lib/$(gcc -dumpmachine | sed 's/-gnu$/-musl/')
MI=/usr/include/$(gcc -dumpmachine | sed 's/-gnu$/-musl/')
# musl's headers without the kernel's: the uapi headers the code and libnl include
mkdir -p "$out/inc" "$out/src" "$out/lib" "$out/obj"
for d in linux asm-generic rdma; do ln -sfn "/usr/include/$d" "$out/inc/$d"; done
ln -sfn "/usr/include/$(gcc -dumpmachine)/asm" "$out/inc/asm"
F="-O2 -g -fPIE -ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables -fno-unwind-tables -isystem $out/inc"
cd "$out/src"
ln -sfn "$out/src/cjson" "$out/inc/cjson" # <cjson/cJSON.h>, cJSON's own source
for p in libnl3 protobuf-c nghttp2 libmicrohttpd cjson; do
	ls ${p}_*.dsc > /dev/null 2>&1 || apt_source_download $p
	[ -d $p ] || dpkg-source --no-check -x ${p}_*.dsc $p > /dev/null
done
if [ ! -f "$out/lib/libnl-3.a" ]; then
	(cd libnl3 && touch aclocal.m4 configure Makefile.in &&
		CC=musl-gcc CFLAGS="$F" ./configure --enable-static --disable-shared --disable-cli \
			--disable-debug > ../libnl3.log 2>&1 &&
		make -j2 lib/libnl-3.la ACLOCAL=true AUTOMAKE=true AUTOCONF=true >> ../libnl3.log 2>&1)
	cp libnl3/lib/.libs/libnl-3.a "$out/lib/"
fi
if [ ! -f "$out/lib/libmicrohttpd.a" ]; then
	# the options of mk/microhttpd.sh
	(cd libmicrohttpd && chmod +x configure && touch aclocal.m4 configure Makefile.in src/*/Makefile.in &&
		CC=musl-gcc ./configure --enable-static --disable-shared --with-pic --disable-https \
			--without-gnutls --disable-curl --disable-doc --disable-examples --disable-tools \
			--disable-nls --disable-dauth --disable-bauth --disable-postprocessor \
			--disable-sendfile --disable-httpupgrade \
			CPPFLAGS="-D_GNUC_ATTR_CONSTR_NOT_SUPPORTED=1 -isystem $out/inc" CFLAGS="$F" \
			> ../mhd.log 2>&1 &&
		make -j2 -C src/microhttpd ACLOCAL=true AUTOMAKE=true AUTOCONF=true >> ../mhd.log 2>&1)
	cp libmicrohttpd/src/microhttpd/.libs/libmicrohttpd.a "$out/lib/"
fi
if [ ! -f "$out/lib/libnghttp2.a" ]; then
	v=$(sed -n 's/^AC_INIT(\[nghttp2\], \[\([0-9.]*\).*/\1/p' nghttp2/configure.ac)
	sed -e "s/@PACKAGE_VERSION@/$v/" -e 's/@PACKAGE_VERSION_NUM@/0/' \
		nghttp2/lib/includes/nghttp2/nghttp2ver.h.in > nghttp2/lib/includes/nghttp2/nghttp2ver.h
	rm -rf ng && mkdir ng
	for f in nghttp2/lib/*.c; do
		musl-gcc $F -DHAVE_ARPA_INET_H -DHAVE_NETINET_IN_H -DBUILDING_NGHTTP2 -DNGHTTP2_STATICLIB \
			-Inghttp2/lib/includes -Inghttp2/lib -c "$f" -o "ng/$(basename "$f" .c).o"
	done
	ar rcs "$out/lib/libnghttp2.a" ng/*.o
fi
musl-gcc $F -Iprotobuf-c -c protobuf-c/protobuf-c/protobuf-c.c -o "$out/obj/lib_pbc.o"
musl-gcc $F -c cjson/cJSON.c -o "$out/obj/lib_cjson.o"
cd "$src"
CF="-std=gnu11 $F -fno-strict-aliasing -D_GNU_SOURCE -DRQ_VERSION=\"musl-poc\" -I. -Ibuild/gen \
	-I$out/inc -I$out/src/libnl3/include -I$out/src/libmicrohttpd/src/include \
	-I$out/src/protobuf-c -I$out/src/nghttp2/lib/includes -I$out/src/cjson"
rm -f "$out"/obj/rq_*.o "$out/obj/failed"
# the CNI path first, as the Makefile's BIN_LINK orders it
for f in plugin/attach/*.c plugin/cni/*.c plugin/main.c plugin/seams/env_sim.c pkg/*/*.c netconf/*.c \
	plugin/agent/*.c plugin/judge/*.c plugin/lldp/*.c plugin/pass/*.c plugin/telemetry/*.c \
	plugin/tools/*.c build/gen/pkg/podres/api.pb-c.c; do
	{ musl-gcc $CF -w -c "$f" -o "$out/obj/rq_$(echo "$f" | tr / _ | sed 's/\.c$/.o/')" ||
		echo "$f" >> "$out/obj/failed"; } &
	while [ "$(jobs -r | wc -l)" -ge 2 ]; do sleep 0.05; done
done
wait
[ ! -f "$out/obj/failed" ] || { echo "musl_poc: did not compile: $(cat "$out/obj/failed")" >&2; exit 1; }
extra=
if [ "$mode" = bump ]; then
	cat > "$out/obj/bump.c" <<'C'
/* measurement only: malloc as a bump pointer over 1 MiB mappings; free gives back only the last block */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
static char *cur, *end, *last;
static void *grab(size_t n)
{
	size_t tot = (n + 31) & ~(size_t)15, c;
	if (!cur || (size_t)(end - cur) < tot) {
		c = tot > (1u << 20) ? (tot + 4095) & ~(size_t)4095 : (1u << 20);
		cur = mmap(0, c, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (cur == MAP_FAILED) { cur = 0; errno = ENOMEM; return 0; }
		end = cur + c;
	}
	*(size_t *)cur = n;
	last = cur;
	cur += tot;
	return last + 16;
}
void *malloc(size_t n) { return grab(n ? n : 1); }
void free(void *p) { if (p && (char *)p - 16 == last) { cur = last; last = 0; } }
void *calloc(size_t a, size_t b)
{
	void *p;
	if (b && a > SIZE_MAX / b) { errno = ENOMEM; return 0; }
	p = grab(a * b ? a * b : 1);
	return p ? memset(p, 0, a * b) : p;
}
void *realloc(void *p, size_t n)
{
	size_t o = p ? *(size_t *)((char *)p - 16) : 0;
	void *q;
	if (p && n <= o) return p;
	q = malloc(n);
	if (q && p) memcpy(q, p, o);
	return q;
}
void *aligned_alloc(size_t a, size_t n) { char *p = grab(n + a); return p ? (void *)(((uintptr_t)p + a - 1) & ~(uintptr_t)(a - 1)) : p; }
int posix_memalign(void **r, size_t a, size_t n) { *r = aligned_alloc(a, n); return *r ? 0 : ENOMEM; }
size_t malloc_usable_size(void *p) { return *(size_t *)((char *)p - 16); }
C
	musl-gcc -O2 -fPIE -c "$out/obj/bump.c" -o "$out/obj/bump.o"
	extra=$out/obj/bump.o
fi
# static-pie by hand: musl 1.2.3's rcrt1 applies RELA only (DT_RELR is musl 1.2.4)
gcc -static-pie -nostdlib -nostartfiles -Wl,--gc-sections -Wl,-O1 -o "$out/rdma-qos-sim" \
	"$ML/rcrt1.o" "$ML/crti.o" "$(gcc -print-file-name=crtbeginS.o)" $extra \
	$(ls "$out"/obj/rq_plugin_attach_*.o "$out"/obj/rq_plugin_cni_*.o "$out/obj/rq_plugin_main.o" \
		"$out/obj/rq_plugin_seams_env_sim.o") \
	$(ls "$out"/obj/rq_*.o | grep -v -e rq_plugin_attach_ -e rq_plugin_cni_ -e rq_plugin_main.o \
		-e rq_plugin_seams_) \
	"$out/lib/libnl-3.a" "$out/lib/libmicrohttpd.a" "$out/obj/lib_cjson.o" "$out/obj/lib_pbc.o" \
	"$out/lib/libnghttp2.a" -L"$ML" -lc "$(gcc -print-libgcc-file-name)" \
	"$(gcc -print-file-name=crtendS.o)" "$ML/crtn.o"
size "$out/rdma-qos-sim"
echo "$out/rdma-qos-sim"
