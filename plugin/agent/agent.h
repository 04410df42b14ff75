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
	cJSON *hostnet_seen;		/* {"ns/pod pf": true}: host-network pods already logged */
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
	/*
	 * The host-network pods on shared devices this pass (pass/hostnet_pass.c): the
	 * in-memory objects of attach/hostnet.h, beside the records; each one judged is
	 * also in @verdict. The QP census attributes a shared device's QPs over these too.
	 */
	cJSON *hostnet;
	double fec_uncorr_per_min; /* node.linkHealth.fecUncorrectablePerMinute (link_health.c) */
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
/* rdma_qos_adoptions_total{pf}: an unchained VF adopted (unchained_pass.c) */
void agent_count_adoption(struct agent *a, const char *pf);

/* report.c: rdma_qos_vf_in_pod of one attachment judged by vf_home_judge */
void vf_home_report(struct pass_report *rep, const cJSON *rec, bool in_pod);

/* events.c: the event loop (after agent_block_signals, before any thread) */
int agent_block_signals(void);
int agent_run(struct agent *a);

int cmd_agent(int argc, char **argv, const char *binary);

#endif
