/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The watched PFs' link health (link_health.c), split by role: the reading
 * (link_read.c), the judge (link_judge.c), RQ_LINK_FILE (link_save.c) and the
 * families (link_metrics.c) share the book the agent keeps (struct agent's links).
 */
#ifndef RQ_PLUGIN_LINK_HEALTH_H
#define RQ_PLUGIN_LINK_HEALTH_H

#include "plugin/agent/agent.h"

/*
 * link_health.c: the watched PFs' link health, read after each pass, its
 * families and each attachment's `link` (and `wiring`) problem.
 */
enum link_reason { LINK_FLAP = 0, LINK_FEC, LINK_SYMBOL, LINK_HEALTH, LINK_SPEED, LINK_REASON_N };
extern const char *const link_reason_names[LINK_REASON_N];
struct link_book;
void link_health_pass(struct agent *a, const struct pass_report *rep);
int link_degraded(const struct agent *a, const char *pf, enum link_reason reason);
void link_reasons_text(const struct agent *a, const char *pf, char *buf, size_t len);
/* the same; false when no link health of @pf was read (the verdict's link: unknown) */
bool link_reasons_known(const struct agent *a, const char *pf, char *buf, size_t len);
char *link_metrics_render(const struct agent *a, const struct pass_report *rep);
void link_book_free(struct link_book *b);

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
	/* the uncorrectable FEC count's window: its count and wall clock when it opened; 0 none */
	uint64_t fec_c0;
	double fec_t0;
};

struct link_book {
	struct link_pf *pf;
	size_t n;
	double fec_per_min; /* the floor the last reading was judged against */
};

/* link_read.c: one reading of watched PF @t (@eo, @dops may be NULL: not read) */
void link_read_pf(const struct rq_env *env, const struct ethtool_link_ops *eo, void *ectx,
		  const struct devlink_ops *dops, void *dctx, const struct peer_target *t,
		  struct link_reading *r);
/*
 * link_judge.c: the reasons that hold between the previous reading and this
 * one; @fec_per_min: node.linkHealth.fecUncorrectablePerMinute, @interval_s
 * the agent's --interval
 */
void link_judge_pf(struct link_pf *x, double now, double fec_per_min, int interval_s);
/* link_save.c */
uint64_t link_own_saved(const struct agent *a, const char *pf, uint64_t flaps);
void link_file_save(const struct agent *a);

#endif
