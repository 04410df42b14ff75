/* SPDX-License-Identifier: Apache-2.0 */
/* The families the agent renders (metrics.c, the *_metrics.c files) and its NFD words. */
#ifndef RQ_PLUGIN_METRICS_H
#define RQ_PLUGIN_METRICS_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "plugin/agent/agent.h"

/* metrics.c */
char *metrics_render(const struct agent *a, const struct pass_report *rep);
/* tel_metrics.c: the telemetry families of sample @cur (@prev: the one before, NULL for none). */
char *metrics_render_tel(const struct tel_sample *prev, const struct tel_sample *cur);
/* peer_metrics.c: the partner families (malloc'd text) and the NFD word, after a pass */
char *peer_metrics_render(const struct agent *a, const struct pass_report *rep);
const char *peer_nfd_word(const struct agent *a, const struct pass_report *rep);
/* wiring_metrics.c: the wiring family and NFD word */
void wiring_metrics_render(FILE *f, const struct agent *a, const struct pass_report *rep);
/* 1 ok, 0 miswired, -1 unknown (no rule, no one partner) for watched PF @pf */
int wiring_pf_verdict(const struct agent *a, const struct pass_report *rep, const char *pf);
const char *wiring_nfd_word(const struct agent *a, const struct pass_report *rep);
/* peer_metrics.c: rdma_qos_port_ecn_ineffective over @prev -> @cur (malloc'd; NULL: none) */
char *metrics_render_ecn(const struct tel_sample *prev, const struct tel_sample *cur);
/* gdr_metrics.c: a record's GPUDirect pair (registers read again), the families, the NFD word */
void agent_gdr_record(const struct agent *a, struct pass_report *rep, const cJSON *rec);
/* the degradations this pass read again for @vf's pair (an array), NULL: none read */
const cJSON *agent_gdr_degraded(const struct pass_report *rep, const char *vf);
char *gdr_metrics_render(const struct agent *a, const struct pass_report *rep);
const char *gdr_nfd_word(const struct pass_report *rep);
/* who_metrics.c: the "Who" families over @prev -> @cur (malloc'd; NULL: none) */
char *metrics_render_who(const struct tel_sample *prev, const struct tel_sample *cur);
/* The QP census families of @cur (qps_metrics.c): its own census or the one it carried. */
char *metrics_render_qps(const struct tel_sample *cur);
/*
 * peer_metrics.c: @pf's partner judged against its target as the partner
 * families judge it; NULL (and @why) when nothing is heard or it is not watched
 */
struct peer_judgement;
const struct peer_judgement *peer_pass_judge(const struct agent *a, const struct pass_report *rep,
					     const char *pf, struct peer_judgement *j, char *why,
					     size_t len);
/* verdict_metrics.c: note an attachment of the pass; its families after the pass */
void verdict_pass_note(struct pass_report *rep, const cJSON *rec, const char *pf, bool vf_gone);
char *verdict_metrics_render(const struct agent *a, const struct pass_report *rep);
/* after a pass: the book listens on the PFs the pass watched (attachments', baseline's) */
void peer_watch_pass(struct agent *a, const struct pass_report *rep);

#endif
