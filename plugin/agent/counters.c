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
#include <time.h>

#include "plugin/agent/agent.h"

struct agent_tel {
	pthread_mutex_t lock;
	const struct rq_env *env;
	struct tel_sample targets, prev;
	bool have_prev;
	char *text;
	double text_t;
};

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int agent_tel_new(const struct rq_env *env, struct agent_tel **ret)
{
	struct agent_tel *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	pthread_mutex_init(&t->lock, NULL);
	t->env = env;
	*ret = t;
	return 0;
}

void agent_tel_free(struct agent_tel *t)
{
	if (!t)
		return;
	tel_sample_fini(&t->targets);
	tel_sample_fini(&t->prev);
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

	if (tel_copy_targets(&t->targets, &cur) < 0)
		return NULL;
	(void)tel_collect(t->env, &cur);
	text = metrics_render_tel(t->have_prev ? &t->prev : NULL, &cur);
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
