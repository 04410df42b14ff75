// SPDX-License-Identifier: Apache-2.0
/*
 * ECN (DCQCN notification and reaction point) per priority. dcbnl has no
 * attribute for it; MOFED/DOCA drivers expose
 * /sys/class/net/<pf>/ecn/roce_{np,rp}/enable/<prio>.
 */
#include <errno.h>
#include <stdio.h>

#include "pkg/dcb/dcb.h"

static const char *const sides[] = { "roce_np", "roce_rp" };

static void ecn_path(char *buf, size_t len, const char *pf, int side, int prio)
{
	snprintf(buf, len, "/sys/class/net/%s/ecn/%s/enable/%d", pf, sides[side], prio);
}

int ecn_probe(const struct rq_root *r, const char *pf, uint8_t mask, bool *ret_available)
{
	char path[256];

	for (int p = 0; p < 8; p++) {
		if (!(mask & (1u << p)))
			continue;
		for (int s = 0; s < 2; s++) {
			ecn_path(path, sizeof(path), pf, s, p);
			if (!sysfs_exists(r, path)) {
				*ret_available = false;
				return 0;
			}
		}
	}
	*ret_available = true;
	return 0;
}

int ecn_get(const struct rq_root *r, const char *pf, uint8_t mask, uint8_t *ret_on)
{
	char path[256];
	uint8_t on = 0;

	for (int p = 0; p < 8; p++) {
		bool both = true;

		if (!(mask & (1u << p)))
			continue;
		for (int s = 0; s < 2; s++) {
			long v = 0;
			int rr;

			ecn_path(path, sizeof(path), pf, s, p);
			rr = sysfs_read_int(r, path, &v);
			if (rr < 0)
				return rr;
			both &= v == 1;
		}
		if (both)
			on |= (uint8_t)(1u << p);
	}
	*ret_on = on;
	return 0;
}

int ecn_enable(const struct rq_root *r, const char *pf, uint8_t mask, uint8_t *ret_changed)
{
	char path[256];
	uint8_t changed = 0;

	for (int p = 0; p < 8; p++) {
		if (!(mask & (1u << p)))
			continue;
		for (int s = 0; s < 2; s++) {
			long v = 0;
			int rr;

			ecn_path(path, sizeof(path), pf, s, p);
			rr = sysfs_read_int(r, path, &v);
			if (rr < 0) {
				*ret_changed = changed;
				return rr;
			}
			if (v == 1)
				continue;
			rr = sysfs_write_str(r, path, "1");
			if (rr < 0) {
				*ret_changed = changed; /* what was written, for the undo */
				return rr;
			}
			changed |= (uint8_t)(1u << p);
		}
	}
	*ret_changed = changed;
	return 0;
}
