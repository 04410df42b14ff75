// SPDX-License-Identifier: Apache-2.0
/*
 * The agent's side of the congestion telemetry: the attachments the last
 * pass saw, the previous sample (rates and derived signals need one) and the
 * last text, cached for about a second so a scrape storm reads the counters
 * once. Counters are read when asked (a /metrics request, a pass for the
 * textfile), never on a timer of their own. The HTTP thread and the pass
 * both come here: one lock.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "pkg/log/log.h"
#include "plugin/agent/agent.h"

#define AGENT_NOFILE_MAX 65536

struct agent_tel {
	pthread_mutex_t lock;
	const struct rq_env *env;
	struct tel_sample targets, prev;
	bool have_prev;
	struct rdma_ctr_cache *cache; /* NULL: every read opens the files afresh */
	char *text;
	double text_t;
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

	if (!t)
		return -ENOMEM;
	pthread_mutex_init(&t->lock, NULL);
	t->env = env;
	(void)rdma_ctr_cache_new(cache_budget(), &t->cache);
	*ret = t;
	return 0;
}

void agent_tel_free(struct agent_tel *t)
{
	if (!t)
		return;
	tel_sample_fini(&t->targets);
	tel_sample_fini(&t->prev);
	rdma_ctr_cache_free(t->cache);
	free(t->text);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

void agent_tel_targets(struct agent_tel *t, struct tel_sample *s)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	tel_sample_fini(&t->targets);
	t->targets = *s;
	tel_sample_init(s);
	/* the set of attachments changed: the next request reads afresh */
	t->text_t = 0;
	pthread_mutex_unlock(&t->lock);
}

/* Read the counters now and render them against the previous sample. */
static char *sample_now(struct agent_tel *t)
{
	struct tel_sample cur;
	char *text;

	double t0 = mono(), t1;

	if (tel_copy_targets(&t->targets, &cur) < 0)
		return NULL;
	(void)tel_collect(t->env, &cur, t->cache);
	t1 = mono();
	text = metrics_render_tel(t->have_prev ? &t->prev : NULL, &cur);
	log_debug(
	    "agent: counters of %zu attachments on %zu PFs read in %.1f ms, rendered in %.1f ms",
	    cur.n_atts, cur.n_pfs, (t1 - t0) * 1e3, (mono() - t1) * 1e3);
	tel_sample_fini(&t->prev);
	t->prev = cur;
	t->have_prev = true;
	return text;
}

char *agent_tel_text(struct agent_tel *t)
{
	char *out = NULL;
	double now = mono();

	if (!t)
		return NULL;
	pthread_mutex_lock(&t->lock);
	if (!t->text || t->text_t <= 0 || now - t->text_t >= AGENT_TEL_CACHE_S) {
		char *text = sample_now(t);

		if (text) {
			free(t->text);
			t->text = text;
			t->text_t = now;
		}
	}
	out = t->text ? strdup(t->text) : NULL;
	pthread_mutex_unlock(&t->lock);
	return out;
}
