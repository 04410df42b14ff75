// SPDX-License-Identifier: Apache-2.0
/*
 * Link health per watched PF (DESIGN.md "The fabric under the pod"): carrier
 * flaps (sysfs carrier_down_count), FEC blocks, PHY symbol errors and the
 * link speed against the fastest mode both ends advertise (pkg/ethtool's
 * link.h), devlink health reporters' error counts (pkg/devlink). Read after
 * each pass for the PFs the pass watched; a counter that grew between two
 * readings, or a speed below what both ends advertise, holds its reason for
 * one --interval (rdma_qos_port_link_degraded), so a flap between two
 * event-raised passes a second apart is still seen by a scrape a minute
 * later, and a quiet port clears. What a driver does not report has no
 * series. Every attachment on a degraded PF gets the `link` problem. After
 * each reading the reasons go to RQ_LINK_FILE for `show --pod` and `top`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/log/log.h"
#include "pkg/promtext/promtext.h"
#include "plugin/agent/agent.h"
#include "plugin/judge/peer.h"

const char *const link_reason_names[LINK_REASON_N] = {"flap", "fec_uncorrectable", "symbol_errors",
						      "health", "speed"};

struct link_reading {
	bool has_flaps;
	uint64_t flaps;
	/* the PF index's carrierDownAfterWrite (an ADD or repair toggled the link), -1 none */
	long own_note;
	struct eth_link_health eth;
	size_t n_rep;
	struct devlink_reporter rep[RQ_DEVLINK_REPORTERS];
};

struct link_pf {
	char pf[IF_NAMESIZE];
	bool has_prev;
	struct link_reading prev, cur;
	/* carrier drops rdma-qos caused since the agent's first reading, and the note used last */
	uint64_t own;
	long own_used;
	double last[LINK_REASON_N]; /* wall clock when the reason last held; 0 never */
};

struct link_book {
	struct link_pf *pf;
	size_t n;
};

void link_book_free(struct link_book *b)
{
	if (!b)
		return;
	free(b->pf);
	free(b);
}

static void read_pf(const struct rq_env *env, const struct ethtool_link_ops *eo, void *ectx,
		    const struct devlink_ops *dops, void *dctx, const struct peer_target *t,
		    struct link_reading *r)
{
	char path[96];
	long v;

	memset(r, 0, sizeof(*r));
	r->own_note = -1;
	(void)snprintf(path, sizeof(path), "/sys/class/net/%s/carrier_down_count", t->pf);
	if (sysfs_read_int(&env->root, path, &v) == 0 && v >= 0) {
		r->has_flaps = true;
		r->flaps = (uint64_t)v;
	}
	/* after the count: a toggle counted here was noted before, or is read next pass with it */
	if (r->has_flaps && t->pci[0]) {
		cJSON *idx = NULL;
		const cJSON *n;

		if (state_pf_read(&env->root, t->pci, &idx) == 0 &&
		    cJSON_IsNumber(
			n = cJSON_GetObjectItemCaseSensitive(idx, "carrierDownAfterWrite")) &&
		    n->valuedouble >= 0)
			r->own_note = (long)n->valuedouble;
		cJSON_Delete(idx);
	}
	if (eo && eo->health(ectx, t->pf, &r->eth) < 0)
		memset(&r->eth, 0, sizeof(r->eth));
	if (dops && t->dl_bus[0] && dops->health(dctx, t->dl_bus, t->dl_dev, r->rep, &r->n_rep) < 0)
		r->n_rep = 0;
}

static uint64_t reporter_errors(const struct link_reading *r, const char *name, bool *ret_found)
{
	for (size_t i = 0; i < r->n_rep; i++)
		if (!strcmp(r->rep[i].name, name)) {
			*ret_found = true;
			return r->rep[i].errors;
		}
	*ret_found = false;
	return 0;
}

static bool speed_short(const struct eth_link_health *e)
{
	uint32_t both =
	    e->local_max_mbps < e->partner_max_mbps ? e->local_max_mbps : e->partner_max_mbps;

	return e->has_speed && e->speed_mbps > 0 && both > 0 && e->speed_mbps < both;
}

/* the reasons that hold between the previous reading and this one */
static void judge(struct link_pf *x, double now)
{
	const struct link_reading *p = &x->prev, *c = &x->cur;
	bool held[LINK_REASON_N] = {false};

	if (x->has_prev) {
		uint64_t own = 0;

		/*
		 * the drops up to a new note (an ADD's or repair's own PFC write: mlx5
		 * toggles the link) that this interval counted are ours, not flaps
		 */
		if (c->has_flaps && p->has_flaps && c->flaps > p->flaps && c->own_note >= 0 &&
		    c->own_note != x->own_used) {
			uint64_t from = p->flaps, to = (uint64_t)c->own_note;

			if (x->own_used >= 0 && (uint64_t)x->own_used > from)
				from = (uint64_t)x->own_used;
			if (to > c->flaps)
				to = c->flaps;
			own = to > from ? to - from : 0;
		}
		if (c->own_note >= 0)
			x->own_used = c->own_note;
		x->own += own;
		if (c->has_flaps && x->own > c->flaps)
			x->own = 0; /* the count went back (a driver reload): nothing to take off */
		held[LINK_FLAP] = c->has_flaps && p->has_flaps && c->flaps > p->flaps + own;
		held[LINK_FEC] = c->eth.has_fec && p->eth.has_fec &&
				 c->eth.fec_uncorrectable > p->eth.fec_uncorrectable;
		held[LINK_SYMBOL] = c->eth.has_symbol_errors && p->eth.has_symbol_errors &&
				    c->eth.symbol_errors > p->eth.symbol_errors;
		for (size_t i = 0; i < c->n_rep; i++) {
			bool found;
			uint64_t before = reporter_errors(p, c->rep[i].name, &found);

			held[LINK_HEALTH] |= found && c->rep[i].errors > before;
		}
	}
	held[LINK_SPEED] = speed_short(&c->eth);
	for (int k = 0; k < LINK_REASON_N; k++)
		if (held[k])
			x->last[k] = now;
}

static void link_file_save(const struct agent *a);

/*
 * The drops an earlier agent discounted as its own toggles (RQ_LINK_FILE's
 * ownDrops of @pf), so that rdma_qos_port_link_flaps_total does not jump up by
 * them at a restart; 0 when unknown or more than the count now (it went back).
 */
static uint64_t own_saved(const struct agent *a, const char *pf, uint64_t flaps)
{
	char *buf = NULL;
	size_t len = 0;
	cJSON *o;
	const cJSON *n;
	uint64_t v = 0;

	if (sysfs_read_file(&a->env.root, RQ_LINK_FILE, 1024 * 1024, &buf, &len) < 0)
		return 0;
	o = cJSON_ParseWithLength(buf, len);
	free(buf);
	n = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "pfs"), pf),
	    "ownDrops");
	if (cJSON_IsNumber(n) && n->valuedouble > 0 && n->valuedouble <= (double)flaps)
		v = (uint64_t)n->valuedouble;
	cJSON_Delete(o);
	return v;
}

void link_health_pass(struct agent *a, const struct pass_report *rep)
{
	const struct ethtool_link_ops *eo = NULL;
	const struct devlink_ops *dops = NULL;
	void *ectx = NULL, *dctx = NULL;
	struct link_book *nb;
	double now = agent_wall_now();

	if (!a->env.link_open || a->env.link_open(&a->env, &eo, &ectx) < 0)
		eo = NULL;
	if (!a->env.devlink_open || a->env.devlink_open(&a->env, &dops, &dctx) < 0)
		dops = NULL;
	nb = calloc(1, sizeof(*nb));
	if (nb)
		nb->pf = calloc(rep->n_peer_t ? rep->n_peer_t : 1, sizeof(*nb->pf));
	for (size_t i = 0; nb && nb->pf && i < rep->n_peer_t; i++) {
		struct link_pf *x = &nb->pf[nb->n++];

		/* what the last pass kept of this PF: its reading and the reasons' times */
		for (size_t k = 0; a->links && k < a->links->n; k++)
			if (!strcmp(a->links->pf[k].pf, rep->peer_t[i].pf)) {
				*x = a->links->pf[k];
				x->prev = x->cur;
				x->has_prev = true;
			}
		(void)snprintf(x->pf, sizeof(x->pf), "%s", rep->peer_t[i].pf);
		read_pf(&a->env, eo, ectx, dops, dctx, &rep->peer_t[i], &x->cur);
		if (!x->has_prev) {
			x->own_used =
			    x->cur
				.own_note; /* a note older than the first reading is in its count */
			if (!a->links && x->cur.has_flaps)
				x->own = own_saved(a, x->pf, x->cur.flaps);
		}
		judge(x, now);
	}
	if (eo)
		eo->free(ectx);
	if (dops)
		dops->free(dctx);
	if (nb && !nb->pf) {
		free(nb);
		nb = NULL;
	}
	if (!nb) {
		log_warn("agent: out of memory for the link health");
		return;
	}
	link_book_free(a->links);
	a->links = nb;
	link_file_save(a);
}

/* 1: @reason held within the last interval; 0: not; -1: the driver does not report it */
int link_degraded(const struct agent *a, const char *pf, enum link_reason reason)
{
	for (size_t i = 0; a->links && i < a->links->n; i++) {
		const struct link_pf *x = &a->links->pf[i];
		const struct link_reading *c = &x->cur;
		bool known = reason == LINK_FLAP     ? c->has_flaps
			     : reason == LINK_FEC    ? c->eth.has_fec
			     : reason == LINK_SYMBOL ? c->eth.has_symbol_errors
			     : reason == LINK_HEALTH ? c->n_rep > 0
						     : c->eth.has_speed && c->eth.local_max_mbps &&
							   c->eth.partner_max_mbps;

		if (strcmp(x->pf, pf) != 0)
			continue;
		if (!known)
			return -1;
		return x->last[reason] > 0 &&
		       agent_wall_now() - x->last[reason] < (double)a->o.interval_s;
	}
	return -1;
}

/* The reasons @pf is degraded for, comma-separated ("" none); for logs, top and show */
void link_reasons_text(const struct agent *a, const char *pf, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int k = 0; k < LINK_REASON_N && o < len; k++)
		if (link_degraded(a, pf, (enum link_reason)k) == 1)
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? "," : "",
					      link_reason_names[k]);
}

static void render_counters(FILE *f, const struct link_book *b)
{
	char pf[64], e[96];

	prom_family(f, "rdma_qos_port_link_flaps_total", "counter",
		    "Times the PF's carrier went down (sysfs carrier_down_count), less the link "
		    "toggles rdma-qos's own PFC writes caused.");
	for (size_t i = 0; i < b->n; i++)
		if (b->pf[i].cur.has_flaps)
			(void)fprintf(f, "rdma_qos_port_link_flaps_total{pf=\"%s\"} %llu\n",
				      prom_label_esc(b->pf[i].pf, pf, sizeof(pf)),
				      (unsigned long long)(b->pf[i].cur.flaps - b->pf[i].own));
	prom_family(f, "rdma_qos_port_fec_blocks_total", "counter",
		    "FEC blocks the PF corrected or could not correct (ethtool netlink FEC "
		    "statistics).");
	for (size_t i = 0; i < b->n; i++)
		if (b->pf[i].cur.eth.has_fec)
			(void)fprintf(
			    f,
			    "rdma_qos_port_fec_blocks_total{pf=\"%s\",kind=\"corrected\"} "
			    "%llu\nrdma_qos_port_fec_blocks_total{pf=\"%s\",kind="
			    "\"uncorrectable\"} %llu\n",
			    prom_label_esc(b->pf[i].pf, pf, sizeof(pf)),
			    (unsigned long long)b->pf[i].cur.eth.fec_corrected, pf,
			    (unsigned long long)b->pf[i].cur.eth.fec_uncorrectable);
	prom_family(f, "rdma_qos_port_symbol_errors_total", "counter",
		    "PHY symbol errors during carrier (ethtool netlink IEEE 802.3 PHY statistics, "
		    "SymbolErrorDuringCarrier).");
	for (size_t i = 0; i < b->n; i++)
		if (b->pf[i].cur.eth.has_symbol_errors)
			(void)fprintf(f, "rdma_qos_port_symbol_errors_total{pf=\"%s\"} %llu\n",
				      prom_label_esc(b->pf[i].pf, pf, sizeof(pf)),
				      (unsigned long long)b->pf[i].cur.eth.symbol_errors);
	prom_family(f, "rdma_qos_port_health_errors_total", "counter",
		    "Errors the PF's devlink health reporter counted.");
	for (size_t i = 0; i < b->n; i++)
		for (size_t k = 0; k < b->pf[i].cur.n_rep; k++)
			(void)fprintf(
			    f,
			    "rdma_qos_port_health_errors_total{pf=\"%s\",reporter=\"%s\"} %llu\n",
			    prom_label_esc(b->pf[i].pf, pf, sizeof(pf)),
			    prom_label_esc(b->pf[i].cur.rep[k].name, e, sizeof(e)),
			    (unsigned long long)b->pf[i].cur.rep[k].errors);
	prom_family(f, "rdma_qos_port_speed_bytes", "gauge",
		    "The PF's link speed in bytes per second (ethtool link modes).");
	for (size_t i = 0; i < b->n; i++)
		if (b->pf[i].cur.eth.has_speed && b->pf[i].cur.eth.speed_mbps)
			(void)fprintf(f, "rdma_qos_port_speed_bytes{pf=\"%s\"} %llu\n",
				      prom_label_esc(b->pf[i].pf, pf, sizeof(pf)),
				      (unsigned long long)b->pf[i].cur.eth.speed_mbps * 125000ULL);
}

/* RQ_LINK_FILE (judge/peer.h): per PF the reasons degraded now and those the driver reports */
static void link_file_save(const struct agent *a)
{
	cJSON *o = cJSON_CreateObject(), *pfs = cJSON_AddObjectToObject(o, "pfs");
	char *s;
	int r;

	cJSON_AddNumberToObject(o, "written", agent_wall_now());
	cJSON_AddNumberToObject(o, "interval", a->o.interval_s);
	for (size_t i = 0; pfs && i < a->links->n; i++) {
		cJSON *e = cJSON_AddObjectToObject(pfs, a->links->pf[i].pf);
		cJSON *deg = cJSON_AddArrayToObject(e, "degraded");
		cJSON *known = cJSON_AddArrayToObject(e, "reported");

		/* the drops discounted as rdma-qos's own toggles: a restarted agent goes on from
		 * them */
		if (e && a->links->pf[i].own)
			cJSON_AddNumberToObject(e, "ownDrops", (double)a->links->pf[i].own);

		for (int k = 0; deg && known && k < LINK_REASON_N; k++) {
			int d = link_degraded(a, a->links->pf[i].pf, (enum link_reason)k);

			if (d >= 0)
				cJSON_AddItemToArray(known,
						     cJSON_CreateString(link_reason_names[k]));
			if (d == 1)
				cJSON_AddItemToArray(deg, cJSON_CreateString(link_reason_names[k]));
		}
	}
	s = pfs ? cJSON_PrintUnformatted(o) : NULL;
	r = s ? sysfs_write_replace(&a->env.root, RQ_LINK_FILE, s, strlen(s)) : -ENOMEM;
	if (r < 0)
		log_warn("agent: writing %s: %s", RQ_LINK_FILE, strerror(-r));
	free(s);
	cJSON_Delete(o);
}

/* link_reasons_text, true when the agent read some link health of @pf (else unknown) */
bool link_reasons_known(const struct agent *a, const char *pf, char *buf, size_t len)
{
	bool known = false;

	for (int k = 0; k < LINK_REASON_N; k++)
		known |= link_degraded(a, pf, (enum link_reason)k) >= 0;
	link_reasons_text(a, pf, buf, len);
	return known;
}

char *link_metrics_render(const struct agent *a, const struct pass_report *rep)
{
	struct prom_text t;
	char pf[64];
	FILE *f = prom_begin(&t);

	if (!f)
		return NULL;
	if (a->links) {
		render_counters(f, a->links);
		prom_family(
		    f, "rdma_qos_port_link_degraded", "gauge",
		    "1 while, in the last interval, the PF flapped, counted uncorrectable FEC "
		    "blocks or symbol errors, a health reporter counted an error, or it ran "
		    "below the fastest speed both ends advertise; no series for a reason the "
		    "driver does not report.");
		for (size_t i = 0; i < a->links->n; i++)
			for (int k = 0; k < LINK_REASON_N; k++) {
				int d = link_degraded(a, a->links->pf[i].pf, (enum link_reason)k);

				if (d >= 0)
					(void)fprintf(
					    f,
					    "rdma_qos_port_link_degraded{pf=\"%s\",reason=\"%s\"} "
					    "%d\n",
					    prom_label_esc(a->links->pf[i].pf, pf, sizeof(pf)),
					    link_reason_names[k], d);
			}
	}
	return prom_end(&t);
}
