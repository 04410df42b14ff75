// SPDX-License-Identifier: Apache-2.0
/*
 * ECN (DCQCN notification and reaction point) per priority. dcbnl has no
 * attribute for it; MOFED/DOCA drivers expose
 * /sys/class/net/<pf>/ecn/roce_{np,rp}/enable/<prio>.
 */
#include <errno.h>
#include <stdio.h>

#include "pkg/dcb/dcb.h"

/*
 * Output parameters are written only on success; ecn_enable puts back what
 * it wrote when it fails half-way, so a failed call changed nothing.
 */

static const char *const sides[] = {"roce_np", "roce_rp"};

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

int ecn_revert(const struct rq_root *r, const char *pf, uint16_t written)
{
	char path[256];
	int first = 0;

	for (int i = 0; i < 16; i++) {
		int rr;

		if (!(written & (1u << i)))
			continue;
		ecn_path(path, sizeof(path), pf, i % 2, i / 2);
		rr = sysfs_write_str(r, path, "0");
		if (rr < 0 && !first)
			first = rr;
	}
	return first;
}

uint8_t ecn_written_prios(uint16_t written)
{
	uint8_t prios = 0;

	for (int i = 0; i < 16; i++)
		if (written & (1u << i))
			prios |= (uint8_t)(1u << (i / 2));
	return prios;
}

int ecn_enable(const struct rq_root *r, const char *pf, uint8_t mask, uint16_t *ret_written)
{
	char path[256];
	uint16_t written = 0;

	for (int p = 0; p < 8; p++) {
		if (!(mask & (1u << p)))
			continue;
		for (int s = 0; s < 2; s++) {
			long v = 0;
			int rr;

			ecn_path(path, sizeof(path), pf, s, p);
			rr = sysfs_read_int(r, path, &v);
			if (rr == 0 && v != 1)
				rr = sysfs_write_str(r, path, "1");
			else if (rr == 0)
				continue;
			if (rr < 0) {
				/* all or nothing: the caller never learns a half-enabled state */
				(void)ecn_revert(r, pf, written);
				return rr;
			}
			written |= (uint16_t)(1u << (2 * p + s));
		}
	}
	*ret_written = written;
	return 0;
}
