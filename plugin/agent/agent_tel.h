/* SPDX-License-Identifier: Apache-2.0 */
/* The agent's congestion telemetry, read when asked (agent_tel.c). */
#ifndef RQ_PLUGIN_AGENT_TEL_H
#define RQ_PLUGIN_AGENT_TEL_H

#include <stddef.h>

#include "plugin/agent/agent.h"
#include "plugin/telemetry/telemetry.h"

/*
 * agent_tel.c: congestion telemetry, read by a collector thread when asked: a
 * text is fresh for AGENT_TEL_CACHE_S, which is also the least time between
 * the end of one collection and the start of the next (so every derived
 * signal is judged over at least that long).
 */
#define AGENT_TEL_CACHE_S 1.0
/*
 * how long a /metrics request waits for a fresh collection before taking the last text:
 * enough for a slow node's usual collection, well below Prometheus' 10 s scrape timeout
 */
#define AGENT_TEL_SCRAPE_WAIT_S 4.0
/* how long a pass (the textfile) waits for one: repairs never wait on counters for long */
#define AGENT_TEL_PASS_WAIT_S 0.5
struct agent_tel;
int agent_tel_new(const struct rq_env *env, struct agent_tel **ret);
/* Stops the collector (after a collection under way). */
void agent_tel_free(struct agent_tel *t);
/* The attachments of the last pass (moved out of @s). */
void agent_tel_targets(struct agent_tel *t, struct tel_sample *s);
/*
 * The telemetry text (malloc'd; NULL when there is none yet or on ENOMEM):
 * the last one when it is fresh, else a fresh one asked of the collector and
 * waited for at most @wait_s seconds (<0: until it comes, 0: not at all), then
 * the last one.
 */
char *agent_tel_text(struct agent_tel *t, double wait_s);
/*
 * agent_tel.c: connected QPs of attachment @key (tel_key: its VF, or a shared
 * attachment's ns/pod/ifname) sending off PFC in the last census; -1 (and
 * @why) when not judged
 */
int agent_tel_qps(struct agent_tel *t, const char *key, char *why, size_t len);
/*
 * agent_tel.c: a verdict begins to judge the last census (before its agent_tel_qps calls);
 * a collection that publishes a census it has not judged makes agent_tel_raise_fd readable
 */
void agent_tel_qps_judging(struct agent_tel *t);
/*
 * agent_tel.c: an eventfd that is readable when the QP census changed since the last verdict
 * judged it: the loop raises a pass; -1: none (no telemetry, no eventfd)
 */
int agent_tel_raise_fd(const struct agent_tel *t);
/* agent_tel.c: takes what made the eventfd readable; true when no verdict judged it since */
bool agent_tel_raised(struct agent_tel *t);

#endif
