// SPDX-License-Identifier: Apache-2.0
/*
 * May this attachment's PF requirements join the port? A real contradiction
 * with the node baseline or with a live attachment listed in the PF index
 * (one DSCP to two priorities, dscp vs pcp trust, two different ETS, CNP
 * classes) is code 102, naming both sides; a repeated ADD takes the steady
 * path (the index streamed, nothing else on it concerns the attachment).
 */
#include "plugin/attach/pf_require.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

/* A live attachment: its record still exists (a lost DEL leaves an entry without one). */
static bool entry_live(struct rq_ctx *c, const char *key)
{
	cJSON *rec = NULL;

	if (!key || state_record_read(&c->env.root, key, &rec) == -ENOENT)
		return false;
	cJSON_Delete(rec);
	return true;
}

/*
 * An index entry's requirements. Entries written before requirements were
 * per entry carry none: the index's own "profile" then speaks for them.
 * Consecutive entries of one profile are parsed once (@cache_json).
 */
static int entry_req(const cJSON *idx, const cJSON *it, const cJSON **cache_json,
		     struct rq_profile *cache, struct rq_error *e)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(it, "req");

	if (!j)
		j = cJSON_GetObjectItemCaseSensitive(idx, "profile");
	if (*cache_json && json_equal(*cache_json, j))
		return 0;
	*cache_json = NULL;
	if (profile_from_json(j, "req", json_str(it, "profileName") ?: "?", cache, e) < 0)
		return -EBADMSG;
	*cache_json = j;
	return 0;
}

static int conflict_error(struct rq_ctx *c, const struct rq_pf *pf, const char *mine,
			  const char *other, const char *theirs)
{
	return rq_err(&c->err, RQ_ERR_PF_CONFLICT, -EBUSY,
		      "PF %s (%s) QoS conflict: profile \"%s\" of this attachment requires %s, "
		      "%s requires %s",
		      pf->ifname, pf->pci, c->profile.name, mine, other, theirs);
}

/* The node baseline against this attachment's requirements. */
static int baseline_conflict(struct rq_ctx *c, const struct rq_pf *pf)
{
	struct rq_profile base;
	char mine[200], theirs[200], who[128];

	if (catalog_baseline(c->cat, &base) < 0 ||
	    !profile_req_conflict(&c->profile, &base, mine, theirs, sizeof(mine)))
		return 0;
	snprintf(who, sizeof(who), "node baseline profile \"%s\"", base.name);
	return conflict_error(c, pf, mine, who, theirs);
}

/*
 * Only a real contradiction conflicts (profile_req_conflict): one DSCP to two
 * priorities, dscp vs pcp trust, two different ETS. An entry that contradicts
 * but whose record is gone (a lost DEL) is dropped instead.
 */
static int entries_conflict(struct rq_ctx *c, const struct rq_pf *pf, cJSON *idx)
{
	cJSON *att = cJSON_GetObjectItemCaseSensitive(idx, "attachments");
	cJSON *mine_json = profile_req_to_json(&c->profile);
	const cJSON *cache_json = NULL;
	struct rq_profile other;
	struct rq_error perr;
	char mine[200], theirs[200], who[700];
	cJSON *it, *next;
	int r = 0;

	if (!mine_json)
		return rq_err(&c->err, RQ_ERR_IO, -ENOMEM, "out of memory");
	rq_err_clear(&perr);
	/* walked as a list (an entry may be dropped on the way): indexing it is quadratic */
	for (it = cJSON_IsArray(att) ? att->child : NULL; it && r == 0; it = next) {
		const char *key = json_str(it, "key");
		const cJSON *req = cJSON_GetObjectItemCaseSensitive(it, "req");

		next = it->next;
		if ((key && !strcmp(key, c->key)) || (req && json_equal(req, mine_json)))
			continue;
		if (entry_req(idx, it, &cache_json, &other, &perr) < 0) {
			r = rq_err(&c->err, RQ_ERR_IO, -EBADMSG, "PF %s index is corrupt: %s",
				   pf->pci, perr.msg);
			break;
		}
		if (!profile_req_conflict(&c->profile, &other, mine, theirs, sizeof(mine)))
			continue;
		if (!entry_live(c, key)) {
			cache_json = NULL; /* it may be this entry's "req" */
			cJSON_Delete(cJSON_DetachItemViaPointer(att, it));
			continue;
		}
		snprintf(who, sizeof(who), "profile \"%s\" of live attachment %s",
			 json_str(it, "profileName") ?: other.name, json_str(it, "pod") ?: "?");
		r = conflict_error(c, pf, mine, who, theirs);
	}
	cJSON_Delete(mine_json);
	return r;
}

/*
 * A repeated ADD on a PF with many attachments: stream the index instead of
 * building it, and say whether this attachment is listed with the same
 * profile and requirements while nothing else on the index could matter: no
 * other entry holds (or may hold) its VF, none contradicts it, no old-format
 * entry. Then the full check (entries_conflict, the owner check, index_add)
 * would read the whole index to find nothing to say or write. Anything else
 * makes the probe give up, and the full path decides as before.
 */
struct steady_probe {
	struct rq_ctx *c;
	const char *vf;
	cJSON *mine;
	char *ok_req; /* the last other "req" text found compatible: most entries repeat it */
	size_t ok_len;
	bool own, own_same, give_up;
};

static bool other_req_ok(struct steady_probe *p, const char *req, size_t len)
{
	struct rq_profile other;
	struct rq_error e;
	char a[200], b[200];
	cJSON *j;
	bool ok;

	/* a profile that requires nothing of the PF contradicts no one */
	if (!profile_has_pf_req(&p->c->profile))
		return true;
	if (p->ok_req && p->ok_len == len && !memcmp(p->ok_req, req, len))
		return true;
	j = cJSON_ParseWithLength(req, len);
	rq_err_clear(&e);
	ok = j && (json_equal(j, p->mine) ||
		   (profile_from_json(j, "req", "?", &other, &e) == 0 &&
		    !profile_req_conflict(&p->c->profile, &other, a, b, sizeof(a))));
	cJSON_Delete(j);
	if (ok) {
		char *copy = malloc(len);

		if (copy) {
			memcpy(copy, req, len);
			free(p->ok_req);
			p->ok_req = copy;
			p->ok_len = len;
		}
	}
	return ok;
}

static int probe_entry(const struct rq_pf_entry *e, void *ctx)
{
	struct steady_probe *p = ctx;

	if (!e->key || !e->req) {
		p->give_up = true;
	} else if (!strcmp(e->key, p->c->key)) {
		cJSON *j;

		if (p->own) {
			p->give_up = true; /* listed twice: not the steady state */
			return 1;
		}
		p->own = true;
		j = cJSON_ParseWithLength(e->req, e->req_len);
		p->own_same = e->profile_name && !strcmp(e->profile_name, p->c->profile.name) &&
			      j && json_equal(j, p->mine);
		cJSON_Delete(j);
		p->give_up = !p->own_same;
	} else if (!e->vf || (p->vf[0] && !strcmp(e->vf, p->vf)) ||
		   !other_req_ok(p, e->req, e->req_len)) {
		/* another entry of this VF (a shared attachment's "" names none: pods on one shared
		 * device keep the steady path), or requirements this one cannot vouch for */
		p->give_up = true;
	}
	return p->give_up ? 1 : 0;
}

static bool steady_probe(struct rq_ctx *c, const struct rq_pf *pf, const char *vf_pci)
{
	struct steady_probe p = {.c = c, .vf = vf_pci};
	bool legacy = false;
	int r;

	p.mine = profile_req_to_json(&c->profile);
	if (!p.mine)
		return false;
	r = state_pf_walk(&c->env.root, pf->pci, probe_entry, &p, &legacy);
	cJSON_Delete(p.mine);
	free(p.ok_req);
	return r == 0 && !legacy && p.own && p.own_same && !p.give_up;
}

int pfqos_conflict_check(struct rq_ctx *c, const struct rq_pf *pf, const char *vf_pci,
			 cJSON **ret_idx, bool *ret_steady)
{
	cJSON *idx = NULL;
	int r;

	*ret_idx = NULL;
	*ret_steady = false;
	/* an attachment that requires nothing of the PF cannot contradict anyone */
	if (profile_has_pf_req(&c->profile)) {
		r = baseline_conflict(c, pf);
		if (r < 0)
			return r;
	}
	if (vf_pci && steady_probe(c, pf, vf_pci)) {
		*ret_steady = true;
		return 0;
	}
	r = state_pf_read(&c->env.root, pf->pci, &idx);
	if (r < 0 && r != -ENOENT)
		return rq_err(&c->err, RQ_ERR_IO, r, "PF %s index: %s", pf->pci, strerror(-r));
	*ret_idx = idx;
	if (!profile_has_pf_req(&c->profile))
		return 0;
	return idx ? entries_conflict(c, pf, idx) : 0;
}
