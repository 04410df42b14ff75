// SPDX-License-Identifier: Apache-2.0
/*
 * The PF part of ADD and CHECK: conflict check against live attachments,
 * DCB read/diff/apply or verify, ECN, and the undo of what this ADD changed.
 */
#include "plugin/pfqos.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pkg/log/log.h"

/* "a\nb\n" -> "a; b": one CNI message line, within @cap bytes */
void join_lines(char *s, size_t cap)
{
	char tmp[4096];
	size_t o = 0;

	for (const char *p = s; *p && o + 3 < sizeof(tmp); p++) {
		if (*p != '\n') {
			tmp[o++] = *p;
			continue;
		}
		if (p[1]) {
			tmp[o++] = ';';
			tmp[o++] = ' ';
		}
	}
	tmp[o] = '\0';
	snprintf(s, cap, "%s", tmp);
}

/* Drop index entries whose record is gone (a lost DEL); returns live count. */
static int index_live(struct rq_ctx *c, cJSON *idx, const cJSON **ret_first)
{
	cJSON *att = cJSON_GetObjectItemCaseSensitive(idx, "attachments");
	int i = 0, live = 0;

	*ret_first = NULL;
	while (cJSON_IsArray(att) && i < cJSON_GetArraySize(att)) {
		cJSON *it = cJSON_GetArrayItem(att, i);
		const char *key = json_str(it, "key");
		cJSON *rec = NULL;

		if (key && !strcmp(key, c->key)) {
			i++;
			continue;
		}
		if (!key || state_record_read(&c->env.root, key, &rec) == -ENOENT) {
			cJSON_DeleteItemFromArray(att, i);
			continue;
		}
		cJSON_Delete(rec);
		if (!*ret_first)
			*ret_first = it;
		live++;
		i++;
	}
	return live;
}

int pfqos_conflict_check(struct rq_ctx *c, const struct rq_pf *pf, cJSON **ret_idx)
{
	struct rq_profile other;
	struct rq_error perr;
	cJSON *idx = NULL;
	const cJSON *live = NULL;
	const char *oname;
	int r;

	*ret_idx = NULL;
	r = state_pf_read(&c->env.root, pf->pci, &idx);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return rq_err(&c->err, RQ_ERR_IO, r, "PF %s index: %s", pf->pci, strerror(-r));
	*ret_idx = idx;
	rq_err_clear(&perr);
	oname = json_str(idx, "profileName") ?: "?";
	if (profile_from_json(cJSON_GetObjectItemCaseSensitive(idx, "profile"), "profile", oname,
			      &other, &perr) < 0)
		return rq_err(&c->err, RQ_ERR_IO, -EBADMSG, "PF %s index is corrupt: %s", pf->pci,
			      perr.msg);
	/* Agreement is the common case: it needs no look at the records. */
	if (profile_pf_equal(&other, &c->profile))
		return 0;
	if (index_live(c, idx, &live) == 0)
		return 0;
	/* PF-equal profiles share the index: name the one this attachment used */
	oname = json_str(live, "profileName") ?: oname;
	return rq_err(&c->err, RQ_ERR_PF_CONFLICT, -EBUSY,
		      "PF %s (%s) QoS conflict: profile \"%s\" of this attachment disagrees on "
		      "PF-wide settings with profile \"%s\" of live attachment %s",
		      pf->ifname, pf->pci, c->profile.name, oname, json_str(live, "pod") ?: "?");
}

static int pf_read(struct rq_ctx *c, const struct dcb_ops *ops, void *ctx, const struct rq_pf *pf,
		   struct dcb_port_state *st)
{
	int r = ops->get(ctx, pf->ifname, st);

	if (r == -EOPNOTSUPP)
		return rq_err(&c->err, RQ_ERR_NO_DCB, r, "no DCB on PF %s (driver %s)", pf->ifname,
			      pf->driver[0] ? pf->driver : "unknown");
	if (r < 0)
		return rq_err(&c->err, RQ_ERR_IO, r, "reading DCB state of PF %s: %s", pf->ifname,
			      strerror(-r));
	return 0;
}

static int ecn_step(struct rq_ctx *c, const struct rq_pf *pf, bool write, uint16_t *ret_written)
{
	bool avail = false;
	uint8_t on = 0;
	int r;

	*ret_written = 0;
	if (!c->profile.ecn)
		return 0;
	r = ecn_probe(&c->env.root, pf->ifname, c->profile.ecn, &avail);
	if (r < 0 || !avail) {
		if (c->profile.ecn_required)
			return rq_err(&c->err, RQ_ERR_NO_ECN, -EOPNOTSUPP,
				      "PF %s has no ECN control (/sys/class/net/%s/ecn/roce_np, "
				      "roce_rp) and profile \"%s\" sets ecnRequired",
				      pf->ifname, pf->ifname, c->profile.name);
		log_warn("PF %s has no ECN control: ECN on priorities 0x%02x left to the driver",
			 pf->ifname, c->profile.ecn);
		return 0;
	}
	r = ecn_get(&c->env.root, pf->ifname, c->profile.ecn, &on);
	if (r < 0)
		return rq_err(&c->err, RQ_ERR_IO, r, "reading ECN of PF %s: %s", pf->ifname,
			      strerror(-r));
	if ((on & c->profile.ecn) == c->profile.ecn)
		return 0;
	if (!write)
		return rq_err(&c->err, RQ_ERR_PF_MISMATCH, -EINVAL,
			      "PF %s ecn: configured priorities 0x%02x, current 0x%02x", pf->ifname,
			      c->profile.ecn, on);
	r = ecn_enable(&c->env.root, pf->ifname, c->profile.ecn, ret_written);
	if (r < 0)
		return rq_err(&c->err, RQ_ERR_IO, r, "enabling ECN on PF %s: %s", pf->ifname,
			      strerror(-r));
	log_info("PF %s ecn: priorities 0x%02x -> 0x%02x", pf->ifname, on,
		 on | ecn_written_prios(*ret_written));
	return 0;
}

int pfqos_ensure(struct rq_ctx *c, const struct dcb_ops *ops, void *ctx, const struct rq_pf *pf,
		 struct pf_undo *u)
{
	char diff[2048];
	int r;

	memset(u, 0, sizeof(*u));
	r = pf_read(c, ops, ctx, pf, &u->before);
	if (r < 0)
		return r;
	dcb_plan_from(&u->before, &c->profile, &u->plan);
	if (!dcb_plan_empty(&u->plan)) {
		if (c->pf_mode == RQ_PF_VERIFY) {
			dcb_plan_describe(&u->before, &c->profile, diff, sizeof(diff));
			join_lines(diff, sizeof(diff));
			return rq_err(
			    &c->err, RQ_ERR_PF_MISMATCH, -EINVAL,
			    "PF %s is not as profile \"%s\" says and pf is \"verify\": %s",
			    pf->ifname, c->profile.name, diff);
		}
		log_info("PF %s: applying profile \"%s\"", pf->ifname, c->profile.name);
		r = dcb_apply_ex(ops, ctx, pf->ifname, pf->driver, &u->before, &u->plan, &c->err);
		if (r < 0)
			return r;
		u->dcb_applied = true;
	} else {
		log_debug("PF %s already matches profile \"%s\": no DCB write", pf->ifname,
			  c->profile.name);
	}
	return ecn_step(c, pf, c->pf_mode == RQ_PF_ENSURE, &u->ecn_written);
}

/* Exactly the files this ADD wrote: a side the operator had on stays on. */
static void undo_ecn(struct rq_ctx *c, const struct rq_pf *pf, uint16_t written)
{
	int r;

	if (!written)
		return;
	r = ecn_revert(&c->env.root, pf->ifname, written);
	if (r < 0)
		log_warn("PF %s: turning ECN back off (files 0x%04x) failed: %s", pf->ifname,
			 written, strerror(-r));
	else
		log_info("PF %s ecn: priorities 0x%02x turned back off (ADD failed)", pf->ifname,
			 ecn_written_prios(written));
}

void pfqos_undo(struct rq_ctx *c, const struct dcb_ops *ops, void *ctx, const struct rq_pf *pf,
		const struct pf_undo *u)
{
	undo_ecn(c, pf, u->ecn_written);
	if (!u->dcb_applied)
		return;
	/* by state, against what the port reports now: no inverse plan, no nested rollback */
	if (dcb_restore(ops, ctx, pf->ifname, &u->before) < 0)
		log_error("PF %s: rollback of this ADD's DCB changes is incomplete (see above)",
			  pf->ifname);
	else
		log_info("PF %s: DCB changes of the failed ADD rolled back", pf->ifname);
}

int pfqos_check(struct rq_ctx *c, const struct dcb_ops *ops, void *ctx, const struct rq_pf *pf,
		char *drift, size_t len)
{
	struct dcb_port_state st;
	struct rq_error e2;
	size_t n = strlen(drift);
	uint8_t on = 0;
	bool avail = false;
	int r;

	r = pf_read(c, ops, ctx, pf, &st);
	if (r < 0)
		return r;
	if (n < len)
		dcb_plan_describe(&st, &c->profile, drift + n, len - n);
	rq_err_clear(&e2);
	if (c->profile.ecn && ecn_probe(&c->env.root, pf->ifname, c->profile.ecn, &avail) == 0 &&
	    avail && ecn_get(&c->env.root, pf->ifname, c->profile.ecn, &on) == 0 &&
	    (on & c->profile.ecn) != c->profile.ecn) {
		n = strlen(drift);
		snprintf(drift + n, len - n,
			 "PF %s ecn: configured priorities 0x%02x, current 0x%02x\n", pf->ifname,
			 c->profile.ecn, on & c->profile.ecn);
	}
	return 0;
}
