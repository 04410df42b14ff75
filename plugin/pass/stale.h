/* SPDX-License-Identifier: Apache-2.0 */
/* Records whose netns is gone (stale.c): the grace before they are released. */
#ifndef RQ_PLUGIN_STALE_H
#define RQ_PLUGIN_STALE_H

#include <stdbool.h>

#include "plugin/agent/agent.h"

/* stale.c: a record whose netns is gone past the grace; 1 = released, 0 = kept */
struct stale_book;
int stale_book_load(const struct rq_env *env, struct stale_book **ret);
/*
 * 1: the record's netns gone past @grace_s (release it); 0: live or still
 * within the grace. Gone includes another netns at its path (attach/podns.c).
 */
int stale_book_judge(struct stale_book *b, const struct rq_env *env, const char *key,
		     const cJSON *rec, int grace_s);
/* records of this pass whose netns could not be judged from the agent's namespaces */
int stale_book_unjudged(const struct stale_book *b);
/* judged gone this pass and kept: within the grace */
bool stale_book_judge_pending(const struct stale_book *b, const char *key);
int stale_book_save(const struct rq_env *env, struct stale_book *b);
void stale_book_free(struct stale_book *b);

#endif
