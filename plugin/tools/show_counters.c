// SPDX-License-Identifier: Apache-2.0
/*
 * `rdma-qos show --counters [--json] [--interval S]` and `rdma-qos top
 * [--interval S]`: the congestion telemetry of the node without Prometheus
 * (over ssh): two samples S seconds apart, rates per PF priority and per
 * attachment, worst pod first. `top` repeats with plain ANSI (home, clear).
 * A pod whose PF's link the agent found degraded (show_link.c) ends its row
 * with the reasons. Both only read: the counters, the records, the DCB state.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "pkg/log/log.h"
#include "plugin/telemetry/tel_who.h"
#include "plugin/telemetry/telemetry.h"
#include "plugin/tools/tools.h"

static void num(cJSON *o, const char *k, double v)
{
	if (v < 0)
		cJSON_AddNullToObject(o, k);
	else
		cJSON_AddNumberToObject(o, k, round(v * 1000) / 1000);
}

static double port_rate(const struct tel_pf *o, const struct tel_pf *n, enum port_stat k, int p,
			int d, double dt)
{
	if (!o || !o->has_stats || !n->has_stats || !o->ps.has[k][p][d] || !n->ps.has[k][p][d])
		return -1;
	return (double)tel_delta(o->ps.v[k][p][d], n->ps.v[k][p][d]) / dt;
}

static cJSON *prio_list(const int8_t *v)
{
	cJSON *a = cJSON_CreateArray();

	for (int p = 0; a && p < PS_PRIOS; p++)
		if (v[p] == 1)
			cJSON_AddItemToArray(a, cJSON_CreateNumber(p));
	return a;
}

static cJSON *pf_json(const struct tel_sample *prev, const struct tel_sample *cur,
		      const struct tel_pf *pf, double dt)
{
	const struct tel_pf *o = tel_pf_same(prev, pf);
	cJSON *j = cJSON_CreateObject(), *prios, *pfc;
	struct tel_derived d;

	if (!j)
		return NULL;
	tel_derive(prev, cur, pf, &d);
	cJSON_AddStringToObject(j, "pf", pf->name);
	pfc = cJSON_AddArrayToObject(j, "pfc");
	for (int p = 0; pf->has_dcb && pfc && p < PS_PRIOS; p++)
		if (pf->pfc_en & (1u << p))
			cJSON_AddItemToArray(pfc, cJSON_CreateNumber(p));
	cJSON_AddBoolToObject(j, "stats", pf->has_stats);
	prios = cJSON_AddArrayToObject(j, "prios");
	for (int p = 0; prios && p < PS_PRIOS; p++) {
		double rx = port_rate(o, pf, PS_PAUSE_FRAMES, p, 0, dt);
		double tx = port_rate(o, pf, PS_PAUSE_FRAMES, p, 1, dt);
		double us = port_rate(o, pf, PS_PAUSE_USEC, p, 0, dt);
		double pk = port_rate(o, pf, PS_PRIO_PACKETS, p, 1, dt);
		double dc = port_rate(o, pf, PS_PRIO_DISCARDS, p, 0, dt);
		cJSON *e;

		/* the priorities that matter: lossless, RoCE's, or moving */
		if (!((pf->pfc_en | pf->roce_prios) & (1u << p)) && rx <= 0 && tx <= 0 && pk <= 0 &&
		    dc <= 0)
			continue;
		e = cJSON_CreateObject();
		cJSON_AddNumberToObject(e, "prio", p);
		num(e, "pauseRx", rx);
		num(e, "pauseTx", tx);
		/* pause_duration is in microseconds: the share of the interval the port was paused
		 */
		num(e, "pausedRxShare", us < 0 ? -1 : us / 1e6);
		num(e, "txPackets", pk);
		num(e, "discards", dc);
		cJSON_AddItemToArray(prios, e);
	}
	num(j, "portDiscards", port_rate(o, pf, PS_PORT_DISCARDS, 0, 0, dt));
	/* link-level pause, a port without PFC (null: the port does not run it) */
	num(j, "globalPauseRx", port_rate(o, pf, PS_GPAUSE_FRAMES, 0, 0, dt));
	num(j, "globalPauseTx", port_rate(o, pf, PS_GPAUSE_FRAMES, 0, 1, dt));
	if (d.pause_storm < 0)
		cJSON_AddNullToObject(j, "pauseStorm");
	else
		cJSON_AddBoolToObject(j, "pauseStorm", d.pause_storm == 1);
	cJSON_AddItemToObject(j, "roceOnLossyPrio", prio_list(d.roce_on_lossy));
	cJSON_AddItemToObject(j, "discardsOnPfcPrio", prio_list(d.discards_on_pfc));
	cJSON_AddItemToObject(j, "hostDropsOnPfcPrio", prio_list(d.host_drops_on_pfc));
	return j;
}

struct ranked {
	size_t i;
	double bad;
	struct tel_att_rates r;
	double share[TEL_CAUSE_N]; /* of its paused port's traffic, -1: not paused (tel_who.c) */
	double top_share;	   /* the larger, 0 when none */
	int cause;		   /* whose share that is, -1 none */
};

/*
 * While a port is paused, the pods carrying most of its traffic first: that
 * is who the pause is about. A pod that moved none of it (share 0) ranks as
 * any other, by how bad its own counters look.
 */
static int by_badness(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->top_share != y->top_share)
		return x->top_share < y->top_share ? 1 : -1;
	if (x->bad != y->bad)
		return x->bad < y->bad ? 1 : -1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* pausedShare {host_rx, fabric} (null: that cause did not pause its port), pauseCause */
static void share_json(cJSON *e, const struct ranked *rk)
{
	cJSON *s = cJSON_AddObjectToObject(e, "pausedShare");

	for (int c = 0; s && c < TEL_CAUSE_N; c++)
		num(s, tel_cause_names[c], rk->share[c]);
	if (rk->cause < 0)
		cJSON_AddNullToObject(e, "pauseCause");
	else
		cJSON_AddStringToObject(e, "pauseCause", tel_cause_names[rk->cause]);
}

/* Both samples as one object: {"interval", "pfs": [...], "attachments": [... worst first]}. */
static cJSON *rates_json(const struct tel_sample *prev, const struct tel_sample *cur)
{
	double dt = cur->t - prev->t;
	cJSON *o = cJSON_CreateObject(), *pfs, *atts;
	struct ranked *rk = calloc(cur->n_atts ? cur->n_atts : 1, sizeof(*rk));
	double(*sh)[TEL_CAUSE_N] = calloc(cur->n_atts ? cur->n_atts : 1, sizeof(*sh));

	if (!o || !rk || !sh) {
		cJSON_Delete(o);
		free(rk);
		free(sh);
		return NULL;
	}
	tel_paused_shares(prev, cur, sh);
	cJSON_AddNumberToObject(o, "interval", round(dt * 1000) / 1000);
	pfs = cJSON_AddArrayToObject(o, "pfs");
	for (size_t i = 0; pfs && i < cur->n_pfs; i++)
		cJSON_AddItemToArray(pfs, pf_json(prev, cur, &cur->pfs[i], dt));
	for (size_t i = 0; i < cur->n_atts; i++) {
		rk[i].i = i;
		tel_att_rates(prev, cur, i, &rk[i].r);
		rk[i].bad = tel_att_badness(&rk[i].r);
		rk[i].cause = -1;
		for (int c = 0; c < TEL_CAUSE_N; c++) {
			rk[i].share[c] = sh[i][c];
			if (sh[i][c] > rk[i].top_share) {
				rk[i].top_share = sh[i][c];
				rk[i].cause = c;
			}
		}
	}
	free(sh);
	qsort(rk, cur->n_atts, sizeof(*rk), by_badness);
	atts = cJSON_AddArrayToObject(o, "attachments");
	for (size_t k = 0; atts && k < cur->n_atts; k++) {
		const struct tel_att *a = &cur->atts[rk[k].i];
		const struct tel_att_rates *r = &rk[k].r;
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "namespace", a->ns);
		cJSON_AddStringToObject(e, "pod", a->pod);
		cJSON_AddStringToObject(e, "interface", a->ifname);
		cJSON_AddStringToObject(e, "vf", a->vf);
		cJSON_AddStringToObject(e, "rdmaDev", a->rdma_dev);
		cJSON_AddStringToObject(e, "pf", a->pf);
		if (r->prio < 0)
			cJSON_AddNullToObject(e, "prio");
		else
			cJSON_AddNumberToObject(e, "prio", r->prio);
		num(e, "cnpSent", r->cnp_sent);
		num(e, "cnpHandled", r->cnp_handled);
		num(e, "ecnMarked", r->ecn_marked);
		num(e, "retransmissions", r->retrans);
		num(e, "outOfSequence", r->out_of_seq);
		num(e, "txPackets", r->tx_pkts);
		num(e, "rxPackets", r->rx_pkts);
		num(e, "pauseRx", r->pause_rx);
		num(e, "pauseTx", r->pause_tx);
		share_json(e, &rk[k]);
		cJSON_AddItemToArray(atts, e);
	}
	free(rk);
	return o;
}

/* A rate for a column: "-" when the driver has no such counter. */
static const char *col(const cJSON *o, const char *k, char *buf, size_t len)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	if (!cJSON_IsNumber(v))
		return "-";
	(void)snprintf(buf, len, "%.1f", v->valuedouble);
	return buf;
}

static void prio_text(const cJSON *l, char *buf, size_t len)
{
	const cJSON *it;
	size_t o = 0;

	buf[0] = '\0';
	cJSON_ArrayForEach(it, l) o +=
	    (size_t)snprintf(buf + o, len > o ? len - o : 0, "%s%d", o ? "," : "", it->valueint);
	if (!o)
		(void)snprintf(buf, len, "none");
}

static void print_pf(FILE *f, const cJSON *pf)
{
	const cJSON *pr, *st = cJSON_GetObjectItemCaseSensitive(pf, "pauseStorm");
	char pfc[32], lossy[32], disc[32], host[32], a[32], b[32], c[32], d[32], e[32];

	prio_text(cJSON_GetObjectItemCaseSensitive(pf, "pfc"), pfc, sizeof(pfc));
	prio_text(cJSON_GetObjectItemCaseSensitive(pf, "roceOnLossyPrio"), lossy, sizeof(lossy));
	prio_text(cJSON_GetObjectItemCaseSensitive(pf, "discardsOnPfcPrio"), disc, sizeof(disc));
	prio_text(cJSON_GetObjectItemCaseSensitive(pf, "hostDropsOnPfcPrio"), host, sizeof(host));
	fprintf(f,
		"PF %s  pfc %s  pause storm %s  roce on lossy prio %s  discards on pfc prio %s  "
		"host drops on pfc prio %s  partner %s%s\n",
		json_str(pf, "pf"), pfc,
		cJSON_IsNull(st)   ? "-"
		: cJSON_IsTrue(st) ? "YES"
				   : "no",
		lossy, disc, host,
		!strcmp(json_str(pf, "partner") ?: "", "disagrees") ? "DISAGREES"
								     : json_str(pf, "partner") ?: "unknown",
		cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pf, "stats")) ? "" : "  (no port stats)");
	cJSON_ArrayForEach(pr, cJSON_GetObjectItemCaseSensitive(pf, "prios")) fprintf(
	    f, "  prio %d  pause rx %s/s tx %s/s  paused %s s/s  tx %s pkt/s  discards %s/s\n",
	    json_int(pr, "prio", -1), col(pr, "pauseRx", a, sizeof(a)),
	    col(pr, "pauseTx", b, sizeof(b)), col(pr, "pausedRxShare", c, sizeof(c)),
	    col(pr, "txPackets", d, sizeof(d)), col(pr, "discards", e, sizeof(e)));
}

static void print_text(FILE *f, const cJSON *o, size_t max_rows)
{
	const cJSON *it;
	size_t n = 0;
	char c[8][24], sh[32];

	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "pfs")) print_pf(f, it);
	fprintf(f, "\n%-14s %-24s %-6s %-13s %-4s %9s %9s %9s %9s %9s  %s\n", "NAMESPACE", "POD",
		"IF", "VF", "PRIO", "CNP-TX/s", "CNP-RX/s", "RETX/s", "PAUSE-RX", "PAUSE-TX",
		"PAUSED-SHARE");
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "attachments"))
	{
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(it, "prio");
		const char *cause = json_str(it, "pauseCause");
		const char *link = json_str(it, "linkDegraded");

		if (n++ >= max_rows)
			break;
		(void)snprintf(c[0], sizeof(c[0]), "%d", p ? p->valueint : -1);
		/* the share of its paused port's traffic, and what paused the port */
		if (cause)
			(void)snprintf(
			    sh, sizeof(sh), "%.2f %s",
			    cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(
				cJSON_GetObjectItemCaseSensitive(it, "pausedShare"), cause)),
			    cause);
		fprintf(f, "%-14.14s %-24.24s %-6.6s %-13.13s %-4s %9s %9s %9s %9s %9s  %s%s%s\n",
			json_str(it, "namespace"), json_str(it, "pod"), json_str(it, "interface"),
			json_str(it, "vf"), cJSON_IsNumber(p) ? c[0] : "-",
			col(it, "cnpSent", c[1], sizeof(c[1])),
			col(it, "cnpHandled", c[2], sizeof(c[2])),
			col(it, "retransmissions", c[3], sizeof(c[3])),
			col(it, "pauseRx", c[4], sizeof(c[4])),
			col(it, "pauseTx", c[5], sizeof(c[5])), cause ? sh : "-",
			link ? "  link degraded: " : "", link ?: "");
	}
}

static void nap(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int sample(const struct rq_env *env, const struct tel_sample *targets,
		  struct tel_sample *ret)
{
	int r = tel_copy_targets(targets, ret);

	return r < 0 ? r : tel_collect(env, ret, NULL);
}

static int parse_args(int argc, char **argv, int first, bool *json, double *interval)
{
	for (int i = first; i < argc; i++) {
		char *end = NULL;

		if (!strcmp(argv[i], "--json") && json) {
			*json = true;
		} else if (!strcmp(argv[i], "--counters")) {
			continue;
		} else if (!strcmp(argv[i], "--interval") && i + 1 < argc) {
			*interval = strtod(argv[++i], &end);
			if (*end || !(*interval >= 0.1 && *interval <= 3600)) {
				fprintf(stderr, "--interval: \"%s\" is not 0.1..3600 seconds\n",
					argv[i]);
				return -EINVAL;
			}
		} else {
			fprintf(stderr, "unexpected argument \"%s\"\n", argv[i]);
			return -EINVAL;
		}
	}
	return 0;
}

static int counters_loop(const struct rq_env *env, bool top, bool json, double interval)
{
	struct tel_sample targets, prev, cur;
	struct winsize ws = {.ws_row = 0};
	int r;

	tel_sample_init(&targets);
	tel_sample_init(&prev);
	r = tel_load_records(env, &targets);
	if (r == 0)
		r = sample(env, &targets, &prev);
	while (r == 0) {
		cJSON *o;

		nap(interval);
		r = sample(env, &targets, &cur);
		if (r < 0)
			break;
		o = rates_json(&prev, &cur);
		if (o) { /* the link partner in one word per PF (show_peer.c), the link's health */
			show_peer_annotate(env, o);
			show_link_annotate(env, o);
		}
		tel_sample_fini(&prev);
		prev = cur;
		if (!o) {
			r = -ENOMEM;
			break;
		}
		if (json) {
			char *s = cJSON_Print(o);

			if (s)
				puts(s);
			free(s);
		} else if (top) {
			if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) < 0 || ws.ws_row < 8)
				ws.ws_row = 24;
			/* plain ANSI: cursor home, clear the screen */
			printf(
			    "\033[H\033[2J%s top: every %.1f s, worst pod first (Ctrl-C quits)\n\n",
			    env->binary, interval);
			print_text(stdout, o, (size_t)ws.ws_row - 8);
		} else {
			printf(
			    "rates over %.2f s\n",
			    cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "interval")));
			print_text(stdout, o, (size_t)-1);
		}
		fflush(stdout);
		cJSON_Delete(o);
		if (!top)
			break;
	}
	tel_sample_fini(&prev);
	tel_sample_fini(&targets);
	return r;
}

int main_counters(int argc, char **argv, const char *binary, bool top)
{
	struct rq_env env;
	struct rq_error e;
	double interval = 1.0;
	bool json = false;
	int r;

	r = parse_args(argc, argv, 2, top ? NULL : &json, &interval);
	if (r < 0) {
		fprintf(stderr,
			"usage: %s show --counters [--json] [--interval S] | %s top "
			"[--interval S]\n",
			binary, binary);
		return 2;
	}
	rq_err_clear(&e);
	rq_log_set_level(RQ_LOG_WARN);
	if (env_init(&env, &e) < 0) {
		fprintf(stderr, "%s: %s\n", binary, e.msg);
		return 1;
	}
	r = counters_loop(&env, top, json, interval);
	env_fini(&env);
	if (r < 0)
		fprintf(stderr, "%s %s: %s\n", binary, top ? "top" : "show --counters",
			strerror(-r));
	return r < 0 ? 1 : 0;
}
