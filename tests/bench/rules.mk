# SPDX-License-Identifier: Apache-2.0
# make bench helpers: the timing harness and the C floor peer.
$(B)/bench/bench: tests/bench/bench.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -D_GNU_SOURCE -Wall -Wextra -o $@ $<

$(B)/bench/floor: tests/bench/floor.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -D_GNU_SOURCE -Wall -Wextra -o $@ $<

bench: $(B)/bench/bench $(B)/bench/floor
