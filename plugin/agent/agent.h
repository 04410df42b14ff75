/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The node agent (`rdma-qos agent`): reconcile passes over the recorded
 * attachments, their triggers, stale records, catalog sync and metrics.
 * DESIGN.md "The node agent and the deployment".
 */
#ifndef RQ_PLUGIN_AGENT_H
#define RQ_PLUGIN_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <net/if.h>

#include "plugin/attach/core.h"
#include "plugin/telemetry/telemetry.h"

#define AGENT_INTERVAL_DEFAULT_S    60
#define AGENT_STALE_GRACE_DEFAULT_S 300
/*
 * The QP census at most every this many seconds (--qp-census-interval): a
 * QP's class is set when it connects, and on mlx5 each QP's dump is a
 * firmware command, so the collections in between reuse the last census
 * (judged against the PF's map as it is then).
 */
#define AGENT_CENSUS_DEFAULT_S 10
#define AGENT_COALESCE_MS      200
/* where the agent remembers since when a record's netns has been gone (tmpfs, like the records) */
#define AGENT_DIR	 "/run/rdma-qos/agent"
#define AGENT_STALE_FILE "/run/rdma-qos/agent/stale.json"

/* where the agent remembers repairs that fight another writer (fights.c); rm clears it */
#define AGENT_FIGHT_FILE RQ_FIGHT_FILE
/* a repair more than this after the last one of the same item is not part of a fight */
#define FIGHT_WINDOW_S 1800
/* the repair of one item, undone each time, that suspends it */
#define FIGHT_MAX_REPAIRS 5

struct agent_opts {
	bool once;
	int interval_s;
	const char *metrics_file;
	const char *listen;
	const char *catalog_source;
	int stale_grace_s;
	const char *host_proc; /* --host-proc DIR: the host's /proc mounted into the pod */
	int repair_backoff_s;  /* --repair-backoff S; -1: the environment's default */
	bool no_counters;      /* --no-counters: no congestion telemetry */
	bool vf_counters_all;  /* --vf-counters all: every hw_counters entry, not only essential */
	int census_s;	       /* --qp-census-interval S: the QP census at most every S s */
	const char *nfd_file;  /* --nfd-features-file PATH: NFD local feature file (nfd.c) */
};

/* One counter of rdma_qos_repairs_total{pf,item}: kept over the agent's life. */
struct agent_repair {
	char pf[32];
	char item[24];
	unsigned long long n;
};

struct agent {
	struct agent_opts o;
	struct rq_env env;
	struct agent_repair *repairs;
	size_t n_repairs;
	struct agent_repair *resets; /* rdma_qos_port_resets_total{pf}: item unused */
	size_t n_resets;
	bool catalog_valid;
	/* the metrics text of the last pass (owned), handed to the HTTP server */
	char *metrics;
	struct agent_httpd *httpd;
	struct agent_tel *tel; /* NULL with --no-counters */
	/* keys of attachments already reported out of their pod (logged once at warn) */
	cJSON *vf_left;
	/* the PFs the last pass saw: their link events raise a pass */
	char (*pf_names)[IF_NAMESIZE];
	size_t n_pf_names;
	struct peer_book *peers; /* the link partners' LLDP (peer_listen.c); NULL with --once */
	/* unchained_pass.c: the watched PFs' VFs, whose link events raise a pass (a VF moved into a
	 * pod's netns, or back): host netdev names and PCI addresses (IFLA_PARENT_DEV_NAME) */
	char (*vf_names)[IF_NAMESIZE];
	size_t n_vf_names;
	char (*vf_pcis)[16];
	size_t n_vf_pcis;
	cJSON *unchained_seen;		/* {vf: "ns/pod"}: unchained VFs already logged */
	struct link_book *links;	/* link_health.c: the watched PFs' last link health */
	struct agent_repair *adoptions; /* rdma_qos_adoptions_total{pf}: item unused */
	size_t n_adoptions;
};

/* What rdma_qos_drift / rdma_qos_repairs_total name in their "item" label. */
enum agent_item {
	ITEM_DCB = 0, /* the PF's DCB could not be read (gone, no dcbnl) */
	ITEM_TRUST,
	ITEM_DSCP2PRIO,
	ITEM_PFC,
	ITEM_ETS,
	ITEM_ECN,
	ITEM_TRAFFIC_CLASS,
	ITEM_CNP, /* the CNP's DSCP / 802.1p priority (MOFED ecn/roce_np) */
	ITEM_N
};
extern const char *const agent_item_names[ITEM_N];

/* One pass's findings, turned into metrics (metrics.c) and the --once verdict. */
struct pass_report {
	cJSON *attachments; /* [{"pf","profile","n"}] */
	cJSON *pfs;	    /* {pf: bitmap of enum agent_item drifted after the pass} */
	cJSON *vf_tc;	    /* [{"vf","rdmaDev","knob","value"}] */
	cJSON *numa;	    /* [{"namespace","pod","vf"}] */
	/* [{"namespace","pod","container","vf","pf","gpu","path","level","verdict","gpus","degraded"}]
	 */
	cJSON *gdr;
	const char *gdr_word; /* rdma-qos.gdr: ok, degraded, unknown (NULL: unknown) */
	cJSON *vf_home;	      /* [{"namespace","pod","vf","inPod"}]: attachments judged */
	cJSON *baseline;      /* {pf: 1/0}: PFs the node baseline covers, meeting it */
	cJSON *pf_facts;  /* {pf: {"cnp", "dcqcn", "buffer", "pfcPreventionMs"}}: reported only */
	int stale;	  /* records whose netns is gone, still within the grace */
	int rolled_back;  /* pending records of dead ADDs put back this pass */
	cJSON *suspended; /* [{"pf","item","value"}]: rdma_qos_repair_suspended */
	cJSON *req_pfs; /* {pf: true}: PFs with requirements (an attachment's or the baseline's) */
	double started; /* wall clock, seconds */
	double duration;
	bool drift_left;
	struct tel_sample targets;  /* the attachments whose counters the telemetry reads */
	struct peer_target *peer_t; /* the watched PFs: what their partners are judged against */
	size_t n_peer_t;
	const char *peer_word;	 /* rdma-qos.peer: agrees, disagrees, unknown (NULL: unknown) */
	const char *wiring_word; /* rdma-qos.wiring: ok, miswired, unknown (NULL: unknown) */
	/* [{"vf","pf","rdmaDev","namespace","pod"}]: rdma_qos_vf_unchained (unchained_pass.c) */
	cJSON *unchained;
	cJSON *verdict; /* [{"pf","rec","vfGone"}]: the attachments verdict_metrics.c judges */
};

/* One PF the agent watches (an attachment's or the baseline's), for the partner's judge. */
struct peer_target {
	char pf[IF_NAMESIZE];
	char pci[16];	 /* "" for a port that is not a PCI function (netdevsim) */
	char dl_bus[32]; /* its devlink instance: "pci" and the PCI address, */
	char dl_dev[64]; /* or the parent device's bus and name; "" unknown */
	bool has_t;	 /* something is required of the PF */
	struct rq_profile t;
	int mtu;  /* <0: unknown */
	bool vst; /* a VF of it has a VST VLAN: +4 bytes on the wire (judge/peer.c) */
	bool has_dcbx;
	uint8_t dcbx;  /* DCB_CAP_DCBX_* as dcbnl's getdcbx reports it */
	bool has_rule; /* node.wiring has a rule for the PF (wiring_metrics.c) */
	struct rq_wiring_rule rule;
};

/* Temporaries of atomic writes older than this are a killed writer's (no write takes that long). */
#define AGENT_TMP_AGE_S 60

/* pass.c: one pass over every record; 0, or <0 when the pass could not run at all */
int agent_pass(struct agent *a, struct pass_report *rep);
/* cycle.c: a pass and its publication; true when drift is left */
bool agent_do_pass(struct agent *a);
/* report.c: wall-clock seconds */
double agent_wall_now(void);
void pass_report_init(struct pass_report *rep);
void pass_report_fini(struct pass_report *rep);
void agent_count_repair(struct agent *a, const char *pf, enum agent_item item);
/* A reset of @pf's port (fights.c: fight_port_seen), for rdma_qos_port_resets_total */
void agent_count_reset(struct agent *a, const char *pf);
/* Mark @item of @pf drifted after the pass (@drifted false: just list the PF). */
void pass_report_drift(struct pass_report *rep, const char *pf, enum agent_item item, bool drifted);

/*
 * vf_repair.c: the VF traffic class of one attachment (the one seam to
 * the ToS code): find the RDMA device again from the VF's PCI address (it may
 * have come back under another name), repair the class when it drifted,
 * update the record when the device name changed. *ret_drift: drift left.
 */
int reconcile_tos(struct rq_ctx *c, cJSON *rec, const struct rq_vf_info *vf, bool *ret_drift,
		  struct pass_report *rep, struct agent *a);

/* pf_repair.c: what the PF's port says beyond its requirements (CNP, DCQCN, PFC buffers) */
void pf_facts_collect(struct pass_report *rep, const struct rq_env *env, const struct rq_pf *pf,
		      const struct dcb_ops *ops, void *dcb);
/* report.c: rdma_qos_vf_in_pod of one attachment judged by vf_home_judge */
void vf_home_report(struct pass_report *rep, const cJSON *rec, bool in_pod);

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

/*
 * fights.c: per PF (by PCI address) and item, repairs in a row (each undone
 * by another writer): back-off, then suspension until the catalog changes or
 * AGENT_FIGHT_FILE is deleted. A reset of the port is no part of a fight.
 */
struct fight_book;
int fight_book_load(const struct rq_env *env, struct fight_book **ret);
enum fight_reset {
	FIGHT_NO_RESET = 0,
	FIGHT_RESET_DEFAULTS, /* every DCB part the target sets is back at the driver's default */
	FIGHT_RESET_NETDEV,   /* the PF's netdev has a new ifindex: it was re-created */
};
/*
 * @pf as the pass found it, before any write: its netdev's @ifindex (<= 0:
 * unknown) and @at_defaults (port_at_defaults in pf_repair.c). A reset is
 * logged and clears the PF's counts and suspensions; the repair that follows
 * is not passed to fight_repaired.
 */
enum fight_reset fight_port_seen(struct fight_book *b, const struct rq_pf *pf, int ifindex,
				 bool at_defaults);
/* How the pass left @pf's port, read back after any repair: at the defaults or not */
void fight_port_left(struct fight_book *b, const struct rq_pf *pf, bool at_defaults);
/* false: some of @items of @pf is backing off or suspended: do not write the PF now */
bool fight_may_repair(struct fight_book *b, const struct rq_env *env, const struct rq_pf *pf,
		      unsigned items, double now);
/* @items of @pf were repaired at @now */
void fight_repaired(struct fight_book *b, const struct rq_pf *pf, unsigned items, double now);
bool fight_suspended(const struct fight_book *b, const struct rq_pf *pf, int item);
void fight_report(const struct fight_book *b, struct pass_report *rep);
/*
 * Forget @item ("all": every item) of the PF at @pci: its repairs in a row and
 * its suspension. 1 when something was suspended, 0 when not.
 */
int fight_resume(struct fight_book *b, const char *pci, const char *item);
int fight_book_save(const struct rq_env *env, struct fight_book *b);
void fight_book_free(struct fight_book *b);

/* nfd.c: the NFD local feature file of a pass (@pass_ok false: the pass could not run) */
int nfd_render(const struct pass_report *rep, bool pass_ok, double now, int interval_s, char *buf,
	       size_t len);
void agent_nfd_publish(const struct agent *a, const struct pass_report *rep, bool pass_ok);
/* metrics.c */
char *metrics_render(const struct agent *a, const struct pass_report *rep);
/* tel_metrics.c: the telemetry families of sample @cur (@prev: the one before, NULL for none). */
char *metrics_render_tel(const struct tel_sample *prev, const struct tel_sample *cur);

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

/* httpd.c: /metrics, /healthz and /readyz at ADDR:PORT (libmicrohttpd, a thread per connection) */
/* connections served at once (each its own thread): far more than probes and scrapers need */
#define AGENT_HTTP_CONNECTIONS 256
/* a request must arrive complete within this many seconds of its connection (or the last answer) */
#define AGENT_HTTP_REQUEST_S 5
/*
 * and its answer must have been taken by the client within this many seconds of the
 * request's arrival (a /metrics request may wait AGENT_TEL_SCRAPE_WAIT_S for a
 * collection; a body of ~1 MB leaves over loopback in milliseconds): a client that
 * reads the answer a few bytes at a time holds a connection no longer than that
 */
#define AGENT_HTTP_ANSWER_S 15
struct agent_httpd;
/* /healthz goes stale (503) after this many --interval plus the longest pass */
#define AGENT_STALE_INTERVALS 3
double agent_stale_bound_s(int interval_s, double longest_pass_s);
/*
 * @tel, may be NULL: its text follows each /metrics answer (agent_tel_text,
 * waiting at most AGENT_TEL_SCRAPE_WAIT_S for a fresh one)
 */
int agent_httpd_start(const char *listen, int interval_s, struct agent_tel *tel,
		      struct agent_httpd **ret);
/*
 * Hand over a pass's metrics text (the server keeps its own copy). @text NULL: the
 * pass could not run, which refreshes nothing.
 */
void agent_httpd_publish(struct agent_httpd *h, const char *text, bool catalog_valid,
			 double duration_s);
void agent_httpd_stop(struct agent_httpd *h);

/*
 * peer_listen.c: the link partners' LLDP, one AF_PACKET socket per watched PF
 * in one epoll of its own (peer_book_fd), woken by a frame or a TTL running out.
 */
struct peer_book;
struct lldp_peer;
int peer_book_new(const struct rq_env *env, struct peer_book **ret);
void peer_book_free(struct peer_book *b);
int peer_book_fd(const struct peer_book *b);
/* Listen on exactly these PFs (the last pass's); others are closed and forgotten. */
void peer_book_watch(struct peer_book *b, char (*names)[IF_NAMESIZE], size_t n);
/* Read what is waiting; @who gets each PF whose partner changed, came or went. */
size_t peer_book_ready(struct peer_book *b, char who[][48], size_t max);
/*
 * @pf's one current partner: NULL when none is heard or more than one is (then
 * nothing is judged); *ret_listening: a socket is open on it.
 */
const struct lldp_peer *peer_book_get(const struct peer_book *b, const char *pf,
				      bool *ret_listening);
/* @pf's current neighbours (MSAPs), and the @k-th of them (NULL past the last) */
size_t peer_book_count(const struct peer_book *b, const char *pf);
const struct lldp_peer *peer_book_nth(const struct peer_book *b, const char *pf, size_t k);
/* peer_metrics.c: the partner families (malloc'd text) and the NFD word, after a pass */
char *peer_metrics_render(const struct agent *a, const struct pass_report *rep);
const char *peer_nfd_word(const struct agent *a, const struct pass_report *rep);
/* pass/wiring_ports.c: each watched PF's node.wiring rule, and the ports a rule names */
void wiring_pass_collect(struct peer_target *t, const struct rq_catalog *cat, const char *pci);
/*
 * The node's physical ports (device_port_parent) that a node.wiring rule
 * names and that are not among the @n targets of *t already, appended to *t
 * (realloc'd); the new count. Their partner, wiring and link health are
 * watched before any pod lands on them.
 */
size_t wiring_pass_ports(const struct rq_root *root, const struct rq_catalog *cat,
			 struct peer_target **t, size_t n);
/* wiring_metrics.c: the wiring family and NFD word */
void wiring_metrics_render(FILE *f, const struct agent *a, const struct pass_report *rep);
/* 1 ok, 0 miswired, -1 unknown (no rule, no one partner) for watched PF @pf */
int wiring_pf_verdict(const struct agent *a, const struct pass_report *rep, const char *pf);

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
const char *wiring_nfd_word(const struct agent *a, const struct pass_report *rep);
/* rdma_qos_port_ecn_ineffective over @prev -> @cur (malloc'd; NULL: none) */
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
/*
 * agent_tel.c: connected QPs of @vf's attachment sending off PFC in the last census;
 * -1 (and @why) when not judged
 */
int agent_tel_qps(struct agent_tel *t, const char *vf, char *why, size_t len);
/* verdict_metrics.c: note an attachment of the pass; its families after the pass */
void verdict_pass_note(struct pass_report *rep, const cJSON *rec, const char *pf, bool vf_gone);
char *verdict_metrics_render(const struct agent *a, const struct pass_report *rep);
/* after a pass: the book listens on the PFs the pass watched (attachments', baseline's) */
void peer_watch_pass(struct agent *a, const struct pass_report *rep);

/* unchained_pass.c: a link event of @name (its PCI parent @pci, may be "") is a watched PF's VF */
bool agent_vf_link(const struct agent *a, const char *name, const char *pci);
void agent_count_adoption(struct agent *a, const char *pf);

/* events.c: the event loop (after agent_block_signals, before any thread) */
int agent_block_signals(void);
int agent_run(struct agent *a);

int cmd_agent(int argc, char **argv, const char *binary);
/* resume.c: `rdma-qos resume PF ITEM` */
int cmd_resume(int argc, char **argv, const char *binary);

#endif
