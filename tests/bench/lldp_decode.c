// SPDX-License-Identifier: Apache-2.0
/*
 * Decode time per LLDP frame (make agent-bench, tests/agent/bench_lldp.sh): what
 * the agent spends on each frame a switch sends (every 30 s per PF in practice) and
 * on a flood of junk. Three frames: a switch's full LLDPDU (identity, PFC,
 * Application Priority, ETS Configuration and Recommendation, max frame size: the
 * fuzz seed), a minimal one (chassis, port, TTL) and junk with the LLDP Ethertype
 * (refused at its first TLV). Prints "name ns/frame" for the best of 5 runs of N.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pkg/lldp/lldp.h"

static const unsigned char full[] =
    "\x01\x80\xc2\x00\x00\x0e\x02\x00\x00\x00\x00\x01\x88\xcc\x02\x07\x04\x0c\x42\xa1\x00\x00"
    "\x01\x04\x05\x05" "swp3\x06\x02\x00\x78\x08\x09" "Ethernet3\x0a\x07" "leaf-01\xfe\x06\x00\x80\xc2"
    "\x0b\x08\x08\xfe\x0b\x00\x80\xc2\x0c\x00\x65\x00\x1a\xc5\x00\x30\xfe\x19\x00\x80\xc2\x09"
    "\x08\x01\x23\x45\x67\x32\x32\x00\x00\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x00\x00\xfe"
    "\x19\x00\x80\xc2\x0a\x00\x01\x23\x45\x67\x32\x32\x00\x00\x00\x00\x00\x00\x02\x02\x00\x00"
    "\x00\x00\x00\x00\xfe\x06\x00\x12\x0f\x04\x24\x00\x00\x00";
static const unsigned char minimal[] =
    "\x01\x80\xc2\x00\x00\x0e\x02\x00\x00\x00\x00\x01\x88\xcc\x02\x07\x04\x0c\x42\xa1\x00\x00"
    "\x01\x04\x05\x05" "swp3\x06\x02\x00\x78\x00\x00";

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double per_frame(const unsigned char *f, size_t len, long n, int want)
{
	static struct lldp_peer p;
	double best = 0;

	for (int run = 0; run < 5; run++) {
		double t0 = now_ns();

		for (long i = 0; i < n; i++)
			if (lldp_decode_frame(f, len, &p) != want)
				abort();
		double t = (now_ns() - t0) / (double)n;

		best = run == 0 || t < best ? t : best;
	}
	return best;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	unsigned char junk[814];

	memcpy(junk, full, 14);
	for (size_t i = 14; i < sizeof(junk); i++)
		junk[i] = (unsigned char)(i * 37 + 11);
	junk[14] = 0x06; /* a TTL TLV first: refused at once */
	printf("full-switch-lldpdu %zu-bytes %.0f ns/frame\n", sizeof(full) - 1,
	       per_frame(full, sizeof(full) - 1, n, 0));
	printf("minimal-lldpdu %zu-bytes %.0f ns/frame\n", sizeof(minimal) - 1,
	       per_frame(minimal, sizeof(minimal) - 1, n, 0));
	printf("junk-with-lldp-ethertype %zu-bytes %.0f ns/frame\n", sizeof(junk),
	       per_frame(junk, sizeof(junk), n, -EBADMSG));
	return 0;
}
