/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Congestion telemetry (DESIGN.md "Congestion telemetry"): one sample of
 * what each PF with attachments counts (ethtool stats by priority, its PFC
 * and DSCP map) and what each attachment's RDMA device counts, labelled with
 * the pod that owns the VF. The agent's /metrics and textfile and the tools'
 * `show --counters` and `top` all take their numbers from here; two samples
 * give rates and the derived signals. Read only: nothing here writes.
 */
#ifndef RQ_CORE_TELEMETRY_H
#define RQ_CORE_TELEMETRY_H

#include <cjson/cJSON.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "pkg/ethtool/ethtool.h"
#include "pkg/rdma/qp_owner.h"
#include "pkg/rdma/qps.h"
#include "pkg/rdma/rdma.h"
#include "plugin/attach/core.h"

struct tel_att {
	char ns[256], pod[256];
	char ifname[IF_NAMESIZE];      /* the pod's interface */
	char vf[16];		       /* PCI address */
	char rdma_dev[64];	       /* "" when the record has none */
	char pf[IF_NAMESIZE];	       /* "" for a VF without a PF */
	char netns[RQ_NETNS_PATH_MAX]; /* set when the device is in the pod (exclusive mode) */
	char podns[RQ_NETNS_PATH_MAX]; /* the pod's netns, where the VF netdev is ("" host) */
	char pidns[32];		       /* the record's "pidns", for podns (attach/podns.c) */
	uint64_t ns_dev, ns_ino, ns_pid_start; /* the record's netns identity, 0 none */
	int port;
	int tclass;	 /* the class the profile sets, -1 none */
	uint8_t pfc_req; /* the priorities the profile wants lossless */
	int prio;	 /* where its RoCE leaves per the PF's DSCP map now; -1 unknown */
	/*
	 * The device's hw_counters; when they count no packets or bytes (mlx5)
	 * the VF netdev's vport RDMA counters (ethtool_vport_rdma_names) are
	 * added, read in the pod's netns. has_ctr: any of either.
	 */
	bool has_ctr;
	struct rdma_counters ctr;
	/* every port its RoCE can leave by: pf, and in a hardware VF LAG each slave */
	char ports[RQ_MAX_PFS][IF_NAMESIZE];
	size_t n_ports;
	/*
	 * The QP census (tel_qps.c), read when the sample asks for it: census
	 * 1 done, 0 not read, negative why not.
	 * qp_prio[i]: where QP i's class leaves under the PF's DSCP map, -1
	 * unknown; qp_off[i]: an RTS QP of a lossless attachment whose priority
	 * has no PFC.
	 */
	int census;
	struct rq_qp_list qps;
	int8_t *qp_prio;
	bool *qp_off;
	/*
	 * A shared RDMA device's attachment (record "shared": true; a
	 * host-network pod's object of the same shape): the device and its
	 * counters are every pod's, so it has no counters of its own (has_ctr
	 * false); its QPs are the device's attributed to it (tel_shared.c):
	 * qp_by[i] how QP i was (enum rq_qp_by). own: the record's "ips",
	 * "gids" and "podUID" as the attribution reads them, made once with the
	 * target (owned).
	 */
	bool shared;
	struct rq_qp_own own;
	uint8_t *qp_by;
	/* qp_range: every QPN of qps is in [qpn_lo, qpn_hi] (set by the shared census) */
	bool qp_range;
	uint32_t qpn_lo, qpn_hi;
};

/* A shared RDMA device's census: its user QPs that no attachment owns (tel_shared.c). */
struct tel_dev {
	char rdma_dev[64];
	char pf[IF_NAMESIZE]; /* its first attachment's PF */
	int census;	      /* 1 read, negative: why not (no series then) */
	struct rq_qp_list qps;
};

struct tel_pf {
	/*
	 * The netdev as it is now: a driver reload may rename it, so tel_collect
	 * finds it again by @pci (the record's) and renames it and the
	 * attachments' ports; samples are matched by @pci where both have one.
	 */
	char name[IF_NAMESIZE];
	char pci[16];
	bool has_stats;
	struct port_sample ps;
	bool has_dcb;
	uint8_t pfc_en;
	uint8_t roce_prios; /* where the lossless attachments' RoCE leaves, per the DSCP map */
	/* the port's prio -> traffic class map (dcb_tc_of_prio); 0xff: not a TC */
	bool has_prio_tc;
	uint8_t prio_tc[8];
	uint8_t dscp2prio[64]; /* DSCP -> priority as the port has it now (has_dcb) */
};

struct tel_sample {
	double t;	 /* CLOCK_MONOTONIC, seconds */
	bool census;	 /* tel_collect also takes the QP census (the agent, `show --qps`) */
	double census_s; /* what the census took in the last tel_collect */
	/*
	 * Not census: each attachment takes its QPs from its own in this
	 * earlier sample (the agent's census cadence), judged anew against the
	 * PFs' maps now. NULL: none.
	 */
	const struct tel_sample *census_from;
	/*
	 * Census: the agent's previous sample (NULL: none). A shared device's QP
	 * that its process (same QPN, same pid) still holds keeps the pod its
	 * cgroup named then: its /proc/<pid>/cgroup is not read again.
	 */
	const struct tel_sample *census_prev;
	struct tel_pf *pfs;
	size_t n_pfs;
	struct tel_att *atts;
	size_t n_atts;
	/* the shared devices of the last census (or carried from census_from) */
	struct tel_dev *devs;
	size_t n_devs;
};

void tel_sample_init(struct tel_sample *s);
void tel_sample_fini(struct tel_sample *s);
/* What @a holds (counters, census, owner), freed; @a itself is the sample's. */
void tel_att_fini(struct tel_att *a);
/*
 * The key of an attachment in the agent's QP census book and `show --pod`:
 * its VF's PCI address; a shared attachment (no VF) "<ns>/<pod>/<ifname>".
 */
void tel_key(const char *vf, const char *ns, const char *pod, const char *ifname, char *buf,
	     size_t len);
void tel_rec_key(const cJSON *rec, char *buf, size_t len);
/*
 * One attachment from its record (labels from the record: pod, namespace,
 * interface, VF, RDMA device, first PF), and every PF the record names as
 * a port of the sample (a VF LAG has two); @prof may be NULL (then the
 * record's own profile is parsed). A shared attachment's record ("shared":
 * true, "rdmaDev"), or a host-network pod's object of that shape, joins the
 * shared census of its device.
 */
int tel_add_record(struct tel_sample *s, const cJSON *rec, const struct rq_profile *prof);
/* Every record of the node (the tools; the agent adds its pass's records one by one). */
int tel_load_records(const struct rq_env *env, struct tel_sample *s);
/* @to gets @from's attachments and PFs, without counters. */
int tel_copy_targets(const struct tel_sample *from, struct tel_sample *to);
/*
 * Read every counter now: ethtool and DCB of each PF, hw_counters of each
 * attachment (or, for packets and bytes, its VF netdev's vport counters); @cache (may be NULL)
 * keeps the counter files open between calls (a reader that comes back: the agent).
 */
int tel_collect(const struct rq_env *env, struct tel_sample *s, struct rdma_ctr_cache *cache);

/* A port counter's increase (64-bit ethtool stats): a decrease is a reset. */
static inline uint64_t tel_delta(uint64_t prev, uint64_t cur)
{
	return cur >= prev ? cur - prev : cur;
}

/*
 * The same attachment in @prev, or NULL; @hint: its index in @cur. The same
 * VF and RDMA device in the same pod: a VF that moved to another pod starts
 * its rates afresh.
 */
const struct tel_att *tel_att_prev(const struct tel_sample *prev, const struct tel_att *a,
				   size_t hint);
const struct tel_pf *tel_pf_find(const struct tel_sample *s, const char *name);
/* @pf's port in sample @s (another sample): by PCI address where both have one, else by name. */
const struct tel_pf *tel_pf_same(const struct tel_sample *s, const struct tel_pf *pf);
/* Can @a's RoCE leave by the port named @pf (its own PF, any slave of its VF LAG)? */
bool tel_att_on_pf(const struct tel_att *a, const char *pf);
/* The increase of port counter (@k, @prio, @dir) from @o to @n; false: no such counter. */
bool tel_port_delta(const struct tel_pf *o, const struct tel_pf *n, enum port_stat k, int prio,
		    int dir, uint64_t *ret);
/* hw_counter @name of @a (@hint: its index, if known); -ENOENT: none (or @a NULL). */
int tel_ctr_get(const struct tel_att *a, const char *name, size_t hint, uint64_t *ret);
/* The increase of hw_counter @name of @a since @p (NULL: no series); -ENOENT: none. */
int tel_att_delta(const struct tel_att *a, const struct tel_att *p, const char *name,
		  uint64_t *ret);

/* Derived signals of one PF over the interval prev -> cur; -1: no series. */
struct tel_derived {
	int8_t roce_on_lossy[PS_PRIOS];
	int8_t discards_on_pfc[PS_PRIOS];
	int8_t host_drops_on_pfc[PS_PRIOS]; /* the TC carrying the PFC priority dropped */
	int8_t pause_storm;
};
/* The port counts as in a storm when paused for more than this share of the interval. */
#define TEL_STORM_SHARE 0.5
/*
 * rdma_qos_port_pause_storm of the port @o -> @n over @dt seconds: 1 when the
 * driver's storm counters (tx_pause_storm_{warning,error}_events) moved or
 * the port was paused (either direction, any priority or link-level) for
 * more than TEL_STORM_SHARE of the interval; 0 not; -1 no such counter.
 */
int8_t tel_pause_storm(const struct tel_pf *o, const struct tel_pf *n, double dt);
void tel_derive(const struct tel_sample *prev, const struct tel_sample *cur,
		const struct tel_pf *pf, struct tel_derived *ret);

/*
 * Rates of one attachment for the tools' tables (per second; -1: no such
 * counter). retrans: requester-side triggers only; out_of_seq: the
 * responder's PSN gaps (per packet).
 */
struct tel_att_rates {
	double cnp_sent, cnp_handled, ecn_marked, retrans, out_of_seq, tx_pkts, rx_pkts;
	double pause_rx, pause_tx; /* the port's pause frames on the attachment's priority */
	int prio;		   /* that priority, -1 unknown */
};
void tel_att_rates(const struct tel_sample *prev, const struct tel_sample *cur, size_t i,
		   struct tel_att_rates *ret);
/* How bad an attachment looks, for sorting (higher: worse). */
double tel_att_badness(const struct tel_att_rates *r);

#endif
