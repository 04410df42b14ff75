// SPDX-License-Identifier: Apache-2.0
/* Waiting for a PF's carrier to come back after a PFC change (carrier.h). */
#include "pkg/sysfs/carrier.h"

#include <errno.h>
#include <stdio.h>
#include <time.h>

#define CARRIER_POLL_MS 20

int carrier_read(const struct rq_root *r, const char *ifname, bool *ret_up, long *ret_changes)
{
	char path[256];
	long up = 0, changes = 0;
	int rr;

	(void)snprintf(path, sizeof(path), "/sys/class/net/%s/carrier", ifname);
	rr = sysfs_read_int(r, path, &up);
	if (rr < 0)
		return rr;
	(void)snprintf(path, sizeof(path), "/sys/class/net/%s/carrier_changes", ifname);
	if (sysfs_read_int(r, path, &changes) < 0)
		changes = 0;
	*ret_up = up == 1;
	*ret_changes = changes;
	return 0;
}

int carrier_down_read(const struct rq_root *r, const char *ifname, long *ret)
{
	char path[256];
	long v;
	int rr;

	(void)snprintf(path, sizeof(path), "/sys/class/net/%s/carrier_down_count", ifname);
	rr = sysfs_read_int(r, path, &v);
	if (rr < 0)
		return rr;
	if (v < 0)
		return -EINVAL;
	*ret = v;
	return 0;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

int carrier_wait_up(const struct rq_root *r, const char *ifname, long changes_before,
		    int timeout_ms, int settle_ms, int *ret_waited_ms)
{
	const struct timespec tick = {0, CARRIER_POLL_MS * 1000000L};
	long start = now_ms(), waited;

	for (;;) {
		bool up = false;
		long changes = changes_before;
		int rr = carrier_read(r, ifname, &up, &changes);

		waited = now_ms() - start;
		/* an admin-down netdev reads -EINVAL: that is a carrier that is not up */
		if (rr < 0 && rr != -EINVAL) {
			*ret_waited_ms = (int)waited;
			return rr;
		}
		if (rr == 0 && up && (changes != changes_before || waited >= settle_ms)) {
			*ret_waited_ms = (int)waited;
			return 0;
		}
		if (waited >= timeout_ms) {
			*ret_waited_ms = (int)waited;
			return -ETIMEDOUT;
		}
		(void)nanosleep(&tick, NULL);
	}
}
