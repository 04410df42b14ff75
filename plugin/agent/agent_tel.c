// SPDX-License-Identifier: Apache-2.0
/*
 * The agent's side of the congestion telemetry: a collector thread that
 * reads the counters of the attachments the last pass saw and renders them,
 * and the last text it rendered, which every consumer copies.
 *
 * On mlx5 one ETHTOOL_GSTATS of a netdev runs every stats group (about 30
 * firmware commands) and hw_counters reads may not be cached by the kernel
 * at all (update_hw_stats stamps its cache only when the driver returned
 * every counter): a collection over hundreds of VFs may take seconds. So no
 * consumer reads counters itself. A /metrics request or a pass asks for a
 * text at most AGENT_TEL_CACHE_S old and waits a bounded time for it, then
 * takes the last one; the lock is held only to hand over targets and text,
 * never while reading. The derived signals' window and who shares it:
 * docs/design.md#the-agents-threads-passes-counter-collector-http.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "pkg/log/log.h"
#include "plugin/agent/agent.h"
#include "plugin/judge/verdict.h"
#include "plugin/agent/agent_tel.h"
#include "plugin/agent/metrics.h"

#define AGENT_NOFILE_MAX 65536

struct agent_tel {
	pthread_mutex_t lock;
	pthread_cond_t wake; /* a consumer asked for a collection, or stop */
	pthread_cond_t done; /* a collection was published */
	pthread_t thread;
	bool running, stop, want;
	const struct rq_env *env;
	/* under lock: the attachments to read; gen changes when the set does */
	struct tel_sample targets;
	unsigned long targets_gen;
	/* under lock: the last text rendered (NULL: none yet) */
	char *text;
	/* under lock: when the last collection started (0: none yet), ended, for which targets */
	double done_t, last_end;
	unsigned long done_gen;
	/* under lock: a collection under way, since when, for which targets */
	bool busy;
	double busy_t;
	unsigned long busy_gen;
	/* under lock: {vf: {"off", "why"}} of the last collection's census (verdict_metrics.c) */
	cJSON *qps;
	/*
	 * under lock: qps_gen counts the books that differed from the one before; judged_gen is
	 * the one the last verdict began judging (judged: one has). A book the verdict has not
	 * judged raises a pass through raise_fd (an eventfd the loop polls; -1: none): the
	 * verdict follows the census within the coalescing delay, no pass waits for a census
	 * (issue 49 item 7)
	 */
	unsigned long qps_gen, judged_gen;
	bool judged;
	int raise_fd;
	/* the collector thread's own; census_t: when the last QP census was taken (0: never) */
	double census_t;
	struct tel_sample prev;
	bool have_prev;
	struct rdma_ctr_cache *cache; /* NULL: every read opens the files afresh */
};

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * How many counter files the agent may keep open: half of its descriptor
 * limit, raised first to the hard limit (capped; a container's soft limit is
 * often 1024 while its hard one is far higher). Whatever does not fit is read
 * the slow way.
 */
static size_t cache_budget(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 0;
	if (rl.rlim_cur < rl.rlim_max && rl.rlim_cur < AGENT_NOFILE_MAX) {
		rl.rlim_cur = rl.rlim_max < AGENT_NOFILE_MAX ? rl.rlim_max : AGENT_NOFILE_MAX;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
		(void)getrlimit(RLIMIT_NOFILE, &rl);
	}
	return rl.rlim_cur > 256 ? (size_t)(rl.rlim_cur / 2) : 0;
}

int agent_tel_new(const struct rq_env *env, struct agent_tel **ret)
{
	struct agent_tel *t = calloc(1, sizeof(*t));
	pthread_condattr_t ca;

	if (!t)
		return -ENOMEM;
	pthread_mutex_init(&t->lock, NULL);
	/* waits are bounded in CLOCK_MONOTONIC seconds, as mono() counts */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&t->wake, &ca);
	pthread_cond_init(&t->done, &ca);
	pthread_condattr_destroy(&ca);
	t->env = env;
	t->raise_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (t->raise_fd < 0)
		log_warn("agent: eventfd: %s: a changed QP census waits for the next pass",
			 strerror(errno));
	(void)rdma_ctr_cache_new(cache_budget(), &t->cache);
	/* --vf-counters essential: the other counter files are never opened or read */
	rdma_ctr_cache_known_only(t->cache, !env->tel_vf_all);
	*ret = t;
	return 0;
}

void agent_tel_free(struct agent_tel *t)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	t->stop = true;
	pthread_cond_broadcast(&t->wake);
	pthread_mutex_unlock(&t->lock);
	/* a collection under way ends first: reads are not interruptible */
	if (t->running)
		pthread_join(t->thread, NULL);
	tel_sample_fini(&t->targets);
	tel_sample_fini(&t->prev);
	rdma_ctr_cache_free(t->cache);
	free(t->text);
	cJSON_Delete(t->qps);
	if (t->raise_fd >= 0)
		close(t->raise_fd);
	pthread_cond_destroy(&t->wake);
	pthread_cond_destroy(&t->done);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

/* The same attachments and PFs, labelled alike (counters aside)? */
static bool targets_same(const struct tel_sample *a, const struct tel_sample *b)
{
	if (a->n_atts != b->n_atts || a->n_pfs != b->n_pfs)
		return false;
	for (size_t i = 0; i < a->n_pfs; i++)
		if (strcmp(a->pfs[i].name, b->pfs[i].name) != 0)
			return false;
	for (size_t i = 0; i < a->n_atts; i++) {
		const struct tel_att *x = &a->atts[i], *y = &b->atts[i];

		if (strcmp(x->ns, y->ns) || strcmp(x->pod, y->pod) ||
		    strcmp(x->ifname, y->ifname) || strcmp(x->vf, y->vf) ||
		    strcmp(x->rdma_dev, y->rdma_dev) || strcmp(x->pf, y->pf) ||
		    strcmp(x->netns, y->netns) || strcmp(x->podns, y->podns) ||
		    x->port != y->port || x->tclass != y->tclass || x->pfc_req != y->pfc_req ||
		    x->n_ports != y->n_ports || memcmp(x->ports, y->ports, sizeof(x->ports)) != 0)
			return false;
	}
	return true;
}

void agent_tel_targets(struct agent_tel *t, struct tel_sample *s)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	/* the set of attachments changed: the text of the old set is no longer fresh */
	if (!targets_same(&t->targets, s))
		t->targets_gen++;
	tel_sample_fini(&t->targets);
	t->targets = *s;
	tel_sample_init(s);
	pthread_mutex_unlock(&t->lock);
}

/* Outside the lock, the collector only: read the counters now, render against the previous. */
static char *collect(struct agent_tel *t, struct tel_sample *cur)
{
	double t0 = mono(), t1;
	char *text;

	/* a census due, else the last one's QPs (of the same attachments) judged anew */
	cur->census = !t->have_prev || t->census_t <= 0 || t0 - t->census_t >= t->env->census_s;
	cur->census_from = cur->census ? NULL : &t->prev;
	cur->census_prev = cur->census && t->have_prev ? &t->prev : NULL;
	if (cur->census)
		t->census_t = t0;
	(void)tel_collect(t->env, cur, t->cache);
	cur->census_from = NULL;
	cur->census_prev = NULL;
	t1 = mono();
	if (cur->census_s > 0) {
		size_t nq = 0;

		for (size_t i = 0; i < cur->n_atts; i++)
			nq += cur->atts[i].qps.n;
		log_debug("agent: QP census of %zu attachments (%zu QPs) took %.3f ms", cur->n_atts,
			  nq, cur->census_s * 1e3);
	}
	text = metrics_render_tel(t->have_prev ? &t->prev : NULL, cur);
	log_debug("agent: counters of %zu attachments on %zu PFs read in %.1f ms, rendered in %.1f "
		  "ms, derived signals over %.3f s",
		  cur->n_atts, cur->n_pfs, (t1 - t0) * 1e3, (mono() - t1) * 1e3,
		  t->have_prev ? cur->t - t->prev.t : 0.0);
	tel_sample_fini(&t->prev);
	t->prev = *cur;
	t->have_prev = true;
	tel_sample_init(cur);
	return text;
}

/* Under t->lock: sleep until @until (monotonic) or stop; false on stop. */
static bool wait_until(struct agent_tel *t, double until)
{
	while (!t->stop) {
		double now = mono();
		struct timespec ts;

		if (now >= until)
			return true;
		/* the condition variables use CLOCK_MONOTONIC (agent_tel_new) */
		ts.tv_sec = (time_t)until;
		ts.tv_nsec = (long)((until - (double)ts.tv_sec) * 1e9);
		(void)pthread_cond_timedwait(&t->wake, &t->lock, &ts);
	}
	return false;
}

/* The collector's own @s (its last sample): each attachment's QPs off PFC, or why not judged. */
static cJSON *qps_book(const struct tel_sample *s)
{
	cJSON *o = cJSON_CreateObject();

	for (size_t i = 0; o && i < s->n_atts; i++) {
		struct verdict_facts f;
		char why[160], key[600];
		const struct tel_att *a = &s->atts[i];
		cJSON *e;

		tel_key(a->vf, a->ns, a->pod, a->ifname, key, sizeof(key));
		e = cJSON_AddObjectToObject(o, key);

		verdict_qps_facts(&s->atts[i], &f, why, sizeof(why));
		cJSON_AddNumberToObject(e, "off", f.qps_off);
		cJSON_AddStringToObject(e, "why", why);
	}
	return o;
}

void agent_tel_qps_judging(struct agent_tel *t)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	t->judged = true;
	t->judged_gen = t->qps_gen;
	pthread_mutex_unlock(&t->lock);
}

int agent_tel_raise_fd(const struct agent_tel *t)
{
	return t ? t->raise_fd : -1;
}

bool agent_tel_raised(struct agent_tel *t)
{
	uint64_t n;
	bool r;

	if (!t || t->raise_fd < 0)
		return false;
	(void)!read(t->raise_fd, &n, sizeof(n));
	pthread_mutex_lock(&t->lock);
	r = t->judged_gen != t->qps_gen;
	pthread_mutex_unlock(&t->lock);
	return r;
}

/* Under t->lock: publish the book @q (owned) of the collection that just ended. */
static void qps_publish(struct agent_tel *t, cJSON *q)
{
	static const uint64_t one = 1;

	if (!cJSON_Compare(q, t->qps, true))
		t->qps_gen++;
	cJSON_Delete(t->qps);
	t->qps = q;
	/*
	 * a verdict judged another book: raise a pass (a full eventfd counter, EAGAIN, has
	 * one raised already); before the first verdict the first pass is still to come
	 */
	if (t->judged && t->judged_gen != t->qps_gen && t->raise_fd >= 0 &&
	    write(t->raise_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		log_warn("agent: raising a pass for the new QP census: %s", strerror(errno));
}

int agent_tel_qps(struct agent_tel *t, const char *key, char *why, size_t len)
{
	const cJSON *e;
	int off = -1;

	if (!t) {
		(void)snprintf(why, len, "no QP census (--no-counters)");
		return -1;
	}
	pthread_mutex_lock(&t->lock);
	e = cJSON_GetObjectItemCaseSensitive(t->qps, key);
	if (e) {
		off = json_int(e, "off", -1);
		(void)snprintf(why, len, "%s", json_str(e, "why") ?: "");
	} else {
		(void)snprintf(why, len, "no QP census of the attachment yet");
	}
	pthread_mutex_unlock(&t->lock);
	return off;
}

static void *collector(void *arg)
{
	struct agent_tel *t = arg;

	pthread_mutex_lock(&t->lock);
	for (;;) {
		struct tel_sample cur;
		unsigned long gen;
		double start;
		char *text;

		while (!t->want && !t->stop)
			pthread_cond_wait(&t->wake, &t->lock);
		/* the bounded cadence that keeps every window of the derived signals >= 1 s */
		if (t->stop || (t->last_end > 0 && !wait_until(t, t->last_end + AGENT_TEL_CACHE_S)))
			break;
		t->want = false;
		t->busy = true;
		t->busy_t = start = mono();
		t->busy_gen = gen = t->targets_gen;
		text = NULL;
		if (tel_copy_targets(&t->targets, &cur) == 0) {
			pthread_mutex_unlock(&t->lock);
			text = collect(t, &cur);
			pthread_mutex_lock(&t->lock);
		}
		if (text) {
			free(t->text);
			t->text = text;
			qps_publish(t, qps_book(&t->prev));
		}
		/* a failed one answers too (with the last text): waiters must not hang on ENOMEM */
		t->busy = false;
		t->done_t = start;
		t->done_gen = gen;
		t->last_end = mono();
		pthread_cond_broadcast(&t->done);
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

/* Under t->lock: the last collection answers a request made at @now. */
static bool fresh(const struct agent_tel *t, double now)
{
	return t->done_t > 0 && t->done_gen == t->targets_gen &&
	       t->done_t > now - AGENT_TEL_CACHE_S;
}

/* Under t->lock: the collection under way will answer a request made at @now. */
static bool coming(const struct agent_tel *t, double now)
{
	return t->busy && t->busy_gen == t->targets_gen && t->busy_t > now - AGENT_TEL_CACHE_S;
}

char *agent_tel_text(struct agent_tel *t, double wait_s)
{
	double now = mono();
	char *out = NULL;

	if (!t)
		return NULL;
	pthread_mutex_lock(&t->lock);
	/* started on first use: the agent's loop has blocked its signals by then */
	if (!t->running && !t->stop) {
		int r = pthread_create(&t->thread, NULL, collector, t);

		t->running = r == 0;
		if (r)
			log_warn("agent: cannot start the counter collector: %s", strerror(r));
	}
	if (t->running && !fresh(t, now)) {
		if (!coming(t, now)) {
			t->want = true;
			pthread_cond_signal(&t->wake);
		}
		if (wait_s < 0)
			while (!fresh(t, now) && !t->stop)
				pthread_cond_wait(&t->done, &t->lock);
		else if (wait_s > 0) {
			double until = now + wait_s;
			struct timespec ts = {.tv_sec = (time_t)until,
					      .tv_nsec =
						  (long)((until - (double)(time_t)until) * 1e9)};

			while (!fresh(t, now) && !t->stop &&
			       pthread_cond_timedwait(&t->done, &t->lock, &ts) != ETIMEDOUT)
				;
		}
	}
	out = t->text ? strdup(t->text) : NULL;
	pthread_mutex_unlock(&t->lock);
	return out;
}
