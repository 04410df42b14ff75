# SPDX-License-Identifier: Apache-2.0
# libmicrohttpd for the agent's /metrics and /healthz, as a static archive
# without HTTPS, built from Debian's source package (mk/microhttpd.sh) and
# cached outside the tree: Debian's own libmicrohttpd.a needs GnuTLS, which
# has no static archive, and the binaries are linked statically (issue 14).
# one cache per target triple: the arm64 cross build (tests/deploy/arm64.sh) needs its own
RQ_MHD_CACHE ?= /var/tmp/rdma-qos-mhd/$(shell $(CC) -dumpmachine)
# prefix-lazyinit: built without the library's constructor (mk/microhttpd.sh), apart from
# the prefix of the builds before it
MHD_PREFIX   := $(RQ_MHD_CACHE)/prefix-lazyinit
MHD_LIB      := $(MHD_PREFIX)/lib/libmicrohttpd.a

$(MHD_LIB): mk/microhttpd.sh
	@mkdir -p $(RQ_MHD_CACHE)
	flock $(RQ_MHD_CACHE).lock env CC="$(CC)" bash mk/microhttpd.sh $(MHD_PREFIX) $(RQ_MHD_CACHE) > $(RQ_MHD_CACHE).log 2>&1 || \
		{ tail -30 $(RQ_MHD_CACHE).log; echo "FAIL: building libmicrohttpd (log: $(RQ_MHD_CACHE).log)"; exit 1; }

$(B)/plugin/agent/httpd.o: CFLAGS += -I$(MHD_PREFIX)/include
$(B)/plugin/agent/httpd.o: | $(MHD_LIB)
$(B)/rdma-qos $(B)/rdma-qos-sim: $(MHD_LIB)
PKG_LIBS += -lpthread
