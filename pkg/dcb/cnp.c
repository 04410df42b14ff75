// SPDX-License-Identifier: Apache-2.0
/*
 * The congestion notification packet (CNP) a notification point sends, and
 * the DCQCN rate parameters, as MOFED/DOCA's mlx5 exposes them:
 * /sys/class/net/<pf>/ecn/roce_np/{cnp_dscp,cnp_802p_prio} (the CNP's DSCP
 * and 802.1p priority: a CNP that leaves on a lossy class is dropped under
 * the very congestion it reports) and the reaction point's rate parameters
 * under ecn/roce_rp/. The upstream driver has none of these files.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pkg/dcb/dcb.h"

static const char *const cnp_files[CNP_N] = {"cnp_dscp", "cnp_802p_prio"};

/* Reported, never written: tuning them is the NIC vendor's and the operator's business. */
static const char *const dcqcn_np[] = {"min_time_between_cnps", NULL};
static const char *const dcqcn_rp[] = {"clamp_tgt_rate",
				       "clamp_tgt_rate_after_time_inc",
				       "rpg_time_reset",
				       "rpg_byte_reset",
				       "rpg_threshold",
				       "rpg_max_rate",
				       "rpg_ai_rate",
				       "rpg_hai_rate",
				       "rpg_gd",
				       "rpg_min_dec_fac",
				       "rpg_min_rate",
				       "rate_to_set_on_first_cnp",
				       "dce_tcp_g",
				       "dce_tcp_rtt",
				       "rate_reduce_monitor_period",
				       "initial_alpha_value",
				       NULL};

const char *cnp_field_name(enum cnp_field f)
{
	return f >= 0 && f < CNP_N ? cnp_files[f] : "?";
}

static void cnp_path(char *buf, size_t len, const char *pf, const char *file)
{
	(void)snprintf(buf, len, "/sys/class/net/%s/ecn/roce_np/%s", pf, file);
}

int cnp_get(const struct rq_root *r, const char *pf, struct cnp_state *ret)
{
	struct cnp_state st;
	char path[256];

	memset(&st, 0, sizeof(st));
	for (int f = 0; f < CNP_N; f++) {
		long v = 0;
		int rr;

		cnp_path(path, sizeof(path), pf, cnp_files[f]);
		rr = sysfs_read_int(r, path, &v);
		if (rr == -ENOENT)
			continue;
		if (rr < 0)
			return rr;
		if (v < 0 || v > (f == CNP_DSCP ? 63 : 7))
			return -ERANGE;
		st.has[f] = true;
		st.val[f] = (uint8_t)v;
	}
	*ret = st;
	return 0;
}

int cnp_set(const struct rq_root *r, const char *pf, enum cnp_field f, uint8_t val)
{
	char path[256], v[8];

	if (f < 0 || f >= CNP_N)
		return -EINVAL;
	cnp_path(path, sizeof(path), pf, cnp_files[f]);
	(void)snprintf(v, sizeof(v), "%u", val);
	return sysfs_write_str(r, path, v);
}

int dcqcn_each(const struct rq_root *r, const char *pf,
	       void (*fn)(void *arg, const char *side, const char *param, long value), void *arg)
{
	static const char *const *const lists[2] = {dcqcn_np, dcqcn_rp};
	static const char *const sides[2] = {"roce_np", "roce_rp"};
	char path[300];
	int n = 0;

	for (int s = 0; s < 2; s++)
		for (const char *const *p = lists[s]; *p; p++) {
			long v = 0;

			(void)snprintf(path, sizeof(path), "/sys/class/net/%s/ecn/%s/%s", pf,
				       sides[s], *p);
			if (sysfs_read_int(r, path, &v) < 0)
				continue;
			fn(arg, sides[s], *p, v);
			n++;
		}
	return n;
}
