# SPDX-License-Identifier: Apache-2.0
# make bench helpers: the timing harness (static: its forked image bounds every
# child's ru_maxrss from below, see bench.c), the C floor peer (dynamic, like
# any plugin), a static no-op without C start-up that measures exec itself, and
# an empty main linked static-pie that adds glibc's start-up to it.
BENCH_CFLAGS = -std=gnu11 -O2 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wformat=2 -Wvla

$(B)/bench/bench: tests/bench/bench.c
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -static -o $@ $<

$(B)/bench/floor: tests/bench/floor.c
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -o $@ $<

$(B)/bench/noop: tests/bench/noop.c
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -static -nostartfiles -o $@ $<

# glibc's start-up alone, linked as the plugin is
$(B)/bench/cstart: tests/bench/cstart.c
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -static-pie -o $@ $<

# the chain runner of the "whole chain" points (dynamic, like the floor)
$(B)/bench/chain: tests/bench/chain.c
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -o $@ $<

bench: $(B)/bench/bench $(B)/bench/floor $(B)/bench/noop $(B)/bench/cstart $(B)/bench/chain

# decode time per LLDP frame (tests/agent/bench_lldp.sh, make agent-bench)
$(B)/bench/lldp_decode: tests/bench/lldp_decode.c pkg/lldp/lldp.c pkg/lldp/lldp.h
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -I. -o $@ tests/bench/lldp_decode.c pkg/lldp/lldp.c
