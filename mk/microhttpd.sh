#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Build libmicrohttpd as a static, HTTPS-less archive from Debian's own source
# package (apt-get source; patches applied by dpkg-source). Debian's
# libmicrohttpd.a is built with GnuTLS, which ships no static archive, so it
# cannot go into a static binary; the agent serves plain HTTP on the node only.
# Usage: microhttpd.sh PREFIX CACHE   -> PREFIX/lib/libmicrohttpd.a, PREFIX/include
set -eu
prefix=$1 cache=$2
mkdir -p "$cache/src" && cd "$cache/src"
if ! ls libmicrohttpd_*.dsc >/dev/null 2>&1; then
	apt-get source --download-only libmicrohttpd >&2 || {
		# the same deb-src entry tests/clients/run.sh adds (Signed-By must agree with the deb entry)
		f=/etc/apt/sources.list.d/rq-bookworm-src.sources
		kr=/usr/share/keyrings/debian-archive-keyring.gpg
		printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: %s\n' "$kr" > "$f"
		apt-get -o DPkg::Lock::Timeout=600 update -q >&2 || {
			printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\n' > "$f"
			apt-get -o DPkg::Lock::Timeout=600 update -q >&2
		}
		apt-get source --download-only libmicrohttpd >&2
	}
fi
rm -rf build && mkdir build && cd build
dpkg-source --no-check -x ../libmicrohttpd_*.dsc src >&2
cd src
# -fPIC: the binaries are (static-)PIE; per-function sections: the link drops what the
# agent never calls (Makefile, --gc-sections); no unwind tables (Makefile, NOUNWIND)
# CC from make: the host's compiler, or the cross compiler of the arm64 build
# _GNUC_ATTR_CONSTR_NOT_SUPPORTED: no constructor and destructor (MHD_init, MHD_fini), which
# every exec of the binary ran, CNI commands included (issue 51); the library initialises
# itself at the agent's first MHD_start_daemon instead (daemon.c, MHD_check_global_init_)
cc=${CC:-cc}
./configure --host="$("$cc" -dumpmachine)" CC="$cc" --prefix="$prefix" --enable-static --disable-shared --with-pic \
	--disable-https --without-gnutls --disable-curl --disable-doc --disable-examples \
	--disable-tools --disable-nls --disable-dauth --disable-bauth --disable-postprocessor \
	--disable-sendfile --disable-httpupgrade CPPFLAGS="-D_GNUC_ATTR_CONSTR_NOT_SUPPORTED=1" CFLAGS="-O2 -g -ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables -fno-unwind-tables" >&2
make -j2 -C src/microhttpd >&2
make -C src/microhttpd install >&2
make -C src/include install >&2 || install -D -m 0644 src/include/microhttpd.h "$prefix/include/microhttpd.h"
test -f "$prefix/lib/libmicrohttpd.a"
