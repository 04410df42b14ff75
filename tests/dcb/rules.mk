# SPDX-License-Identifier: Apache-2.0
# tests/dcb: byte-exact comparison of pkg/dcb's dcbnl requests with iproute2's
# dcb (tests/dcb/run.sh). The driver links only the codec and the netlink
# backend, so it builds even while other packages are mid-change.
.PHONY: dcb-test
$(B)/tests/dcb/dcb-encode: $(B)/tests/dcb/dcb_encode.o $(B)/pkg/dcb/dcb_msg.o $(B)/pkg/dcb/dcb_nl.o \
                           $(B)/pkg/nlparse/nlparse.o $(B)/pkg/nlparse/ask.o
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

dcb-test: $(B)/tests/dcb/dcb-encode
	RQ_BUILD=$(abspath $(B)) bash tests/dcb/run.sh

# make test runs this comparison too (its early lane; it skips, saying why, without root/dcb/strace).
LANE_EARLY += dcb-test
