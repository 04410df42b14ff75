/* SPDX-License-Identifier: Apache-2.0 */
/*
 * PF-wide QoS through dcbnl. A backend (struct dcb_ops) reads and writes one
 * port; the diff/apply logic above it is backend-agnostic, so the same code
 * drives the kernel (dcb_nl.c, libnl) and the simulated node (dcb_fake.c).
 */
#ifndef RQ_DCB_H
#define RQ_DCB_H

#include <linux/dcbnl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pkg/dcb/target.h"
#include "pkg/cni/error.h"
#include "pkg/sysfs/sysfs.h"

#ifndef IEEE_8021QAZ_APP_SEL_DSCP
#define IEEE_8021QAZ_APP_SEL_DSCP 5
#endif
/*
 * Kernel >= 6.2 uapi that Debian 12's 6.1 headers lack. They are enumerators
 * upstream (an #ifndef cannot see them), so they carry our prefix.
 */
#define RQ_DCB_ATTR_APP_TRUST_TABLE 11 /* enum ieee_attrs: DCB_ATTR_DCB_APP_TRUST_TABLE */
#define RQ_DCB_ATTR_DCB_APP	    2  /* enum ieee_attrs_app: DCB_ATTR_DCB_APP */
#ifndef DCB_APP_SEL_PCP
#define DCB_APP_SEL_PCP 255
#endif
#define RQ_DCB_APP_SEL_PCP DCB_APP_SEL_PCP
#define RQ_DCB_APP_MAX	   256
#define RQ_DCB_TRUST_MAX   8

struct dcb_app_entry {
	uint8_t selector;
	uint16_t protocol;
	uint8_t priority;
};

/* What a port reports (IEEE_GET). has_* false: the driver did not report it. */
struct dcb_port_state {
	bool has_pfc;
	uint8_t pfc_en;	 /* bitmap */
	uint8_t pfc_cap; /* 0 = unknown */
	bool has_ets;
	uint8_t ets_willing;
	uint8_t ets_cap;
	uint8_t tc_tx_bw[8];
	uint8_t tc_tsa[8];
	uint8_t prio_tc[8];
	size_t n_app;
	struct dcb_app_entry app[RQ_DCB_APP_MAX];
	bool has_trust; /* driver supports apptrust */
	size_t n_trust;
	uint8_t trust[RQ_DCB_TRUST_MAX]; /* selectors in order */
	bool has_dcbx;
	uint8_t dcbx; /* DCB_CAP_DCBX_* bits */
	/*
	 * The port's receive buffers (DCB_ATTR_DCB_BUFFER, drivers with
	 * dcbnl_getbuffer: mlx5): which buffer each priority lands in, and the
	 * sizes in bytes. Reported only: a lossless priority sharing a buffer with
	 * lossy ones pauses them too and its headroom is theirs.
	 */
	bool has_buffer;
	uint8_t prio2buffer[8];
	uint32_t buffer_size[8];
	uint32_t buffer_total;
	/* the structs as the kernel reported them: a SET changes only our fields */
	struct ieee_pfc raw_pfc;
	struct ieee_ets raw_ets;
};

struct dcb_ops {
	const char *name;
	/* -EOPNOTSUPP: no dcbnl on this netdev; -ENODEV: no such netdev */
	int (*get)(void *ctx, const char *ifname, struct dcb_port_state *ret);
	/* full ieee_pfc with pfc_en = @pfc_en, other fields from @cur */
	int (*set_pfc)(void *ctx, const char *ifname, const struct dcb_port_state *cur,
		       uint8_t pfc_en);
	int (*set_ets)(void *ctx, const char *ifname, const struct dcb_port_state *cur,
		       const struct rq_ets *ets);
	int (*app_add)(void *ctx, const char *ifname, const struct dcb_app_entry *apps, size_t n);
	int (*app_del)(void *ctx, const char *ifname, const struct dcb_app_entry *apps, size_t n);
	int (*set_trust)(void *ctx, const char *ifname, const uint8_t *sel, size_t n);
	void (*free)(void *ctx);
};

/*
 * Backends. The netlink one opens its socket in the caller's current netns
 * (call before entering the pod netns). The fake keeps ports as
 * <root>/dcb/<ifname>.json (DESIGN.md "Simulated node").
 *
 * Fake file keys: "pfc": [prios on]; "app": [{"selector","protocol",
 * "priority"}]; "ets": {"tcBw","tsa","prioTc"} (8 numbers each; missing =
 * the driver reported no ETS); "trust": ["dscp","pcp",...] (names as
 * iproute2's apptrust: ethtype, stream-port, dgram-port, port, dscp, pcp;
 * missing = the port default, ["pcp"]; the fake always supports apptrust); "dcbx":
 * DCB_CAP_DCBX_* bits (missing = not reported); "writes": SET calls applied
 * (set_pfc, set_ets, app_add, app_del, set_trust: one each per successful
 * call). Unknown keys are kept. No file -> -EOPNOTSUPP. app_add of an entry
 * that exists exactly -> -EEXIST, app_del of a missing one -> -ENOENT
 * (the generic kernel path: an add keeps other entries of the same DSCP).
 * As the kernel, an APP batch is applied entry by entry and stops at the
 * first failing entry; the entries before it stay (one write).
 * Test hooks (the fake only):
 *   "fail": {"set_pfc": -5, ...}  that op fails with that errno (a positive
 *                                 number is negated), nothing written;
 *   "failAfter": {"app_add": N}   app_add/app_del apply the first N entries
 *                                 of a batch, then fail -EIO (a kernel batch
 *                                 half applied); batches of <= N succeed;
 *   "appReplace": true            mlx5 APP semantics: adding a DSCP entry
 *                                 replaces the entry of that DSCP (adding the
 *                                 exact entry again succeeds), so deleting
 *                                 the old one afterwards is -ENOENT;
 *   "flapMs": N                   a PFC change takes <root>/sys/class/net/<if>/carrier
 *                                 (where it exists) to 0 and, N ms later, back to 1,
 *                                 bumping carrier_changes (mlx5_toggle_port_link);
 *   "dcbxLocked": true            every SET fails -EPERM and, unless "dcbx"
 *                                 is given, get reports dcbx = LLD_MANAGED |
 *                                 VER_IEEE (firmware-owned DCBX).
 */
/*
 * The traffic class that carries priority @prio (0..7) on the port: the
 * IEEE_ETS prio_tc map the driver reports; a port that reports none has
 * mlx5's default (en_dcbnl.c mlx5e_ets_init: priority 0 on TC 1, 1 on TC 0,
 * the others on their own number). -EINVAL: @prio out of range or a map
 * entry past TC 7.
 */
int dcb_tc_of_prio(const struct dcb_port_state *st, int prio);

int dcb_nl_new(const struct dcb_ops **ret_ops, void **ret_ctx);
int dcb_fake_new(const struct rq_root *root, const struct dcb_ops **ret_ops, void **ret_ctx);

/* What the port lacks against a set of requirements: the SETs that add it. */
struct dcb_plan {
	bool set_pfc;
	uint8_t pfc_en;
	bool set_ets;
	struct rq_ets ets;
	size_t n_add;
	struct dcb_app_entry add[RQ_DCB_APP_MAX];
	size_t n_del;
	struct dcb_app_entry del[RQ_DCB_APP_MAX];
	bool set_trust;
	size_t n_trust;
	uint8_t trust[RQ_DCB_TRUST_MAX];
};

/*
 * The SETs that make @cur meet the requirements @p (a profile, or the union
 * of several; plan.c explains what "meet" means): adds only, except DSCP
 * entries a requirement contradicts. Empty (dcb_plan_empty) when the port
 * already meets them.
 */
void dcb_plan_from(const struct dcb_port_state *cur, const struct dcb_target *p,
		   struct dcb_plan *ret);
bool dcb_plan_empty(const struct dcb_plan *plan);
/*
 * Human-readable "required X, port has Y" lines for every unmet
 * requirement, one per line, into @buf. Returns the number of them.
 */
int dcb_plan_describe(const struct dcb_port_state *cur, const struct dcb_target *p, char *buf,
		      size_t len);

/* "3,4" for a priority bitmap, "none" when empty. */
void dcb_prio_text(uint8_t mask, char *buf, size_t len);

/* DCBX reported without the host bit: firmware or an LLDP agent owns DCB (dcb.c says why). */
bool dcb_dcbx_not_host(const struct dcb_port_state *cur);

/*
 * Apply @plan in the safe order (documented in dcb.c). On a failure half-way
 * the port is put back to @cur by state (dcb_restore), best effort, and the
 * first error is returned with @e set (RQ_ERR_NO_DCB, RQ_ERR_DCBX_LOCKED,
 * RQ_ERR_IO ...). Logs one line per change.
 *
 * DSCP APP semantics differ by driver and both converge: on the generic
 * kernel path an APP add keeps the other entries of that DSCP (the delete
 * step removes the replaced one); mlx5's add replaces the entry of that DSCP
 * itself and its delete of the old entry then fails -ENOENT, upon which the
 * port is re-read and only entries still present are deleted.
 */
int dcb_apply(const struct dcb_ops *ops, void *ctx, const char *ifname,
	      const struct dcb_port_state *cur, const struct dcb_plan *plan, struct rq_error *e);
/* Same, naming the PF's driver in messages (RQ_ERR_NO_DCB); @driver may be NULL. */
int dcb_apply_ex(const struct dcb_ops *ops, void *ctx, const char *ifname, const char *driver,
		 const struct dcb_port_state *cur, const struct dcb_plan *plan, struct rq_error *e);
/*
 * Put the port back to @before as far as it can, best effort, from what it
 * reports now (never by replaying steps, never with a nested rollback): re-add
 * the DSCP APP entries of @before that are missing (-EEXIST tolerated), delete
 * the DSCP entries @before did not have (-ENOENT tolerated), then apptrust,
 * ETS and PFC where they differ (PFC first when it only turns priorities
 * off). Continues past errors, logs each; returns 0 or the first error.
 * Writes nothing when the port already is as @before.
 */
int dcb_restore(const struct dcb_ops *ops, void *ctx, const char *ifname,
		const struct dcb_port_state *before);

/*
 * ECN per priority through /sys/class/net/<pf>/ecn/roce_{np,rp}/enable/<prio>.
 * ecn_probe: *ret_available true when the files exist for every priority in
 * @mask. ecn_get: bitmap of priorities with both NP and RP enabled.
 */
int ecn_probe(const struct rq_root *r, const char *pf, uint8_t mask, bool *ret_available);
int ecn_get(const struct rq_root *r, const char *pf, uint8_t mask, uint8_t *ret_on);
/*
 * Enable NP+RP for priorities in @mask where not on yet. *ret_written: the
 * files this call wrote, bit 2 * prio + side (side 0 roce_np, 1 roce_rp), so
 * an undo turns off exactly those and never a side that was already on.
 */
int ecn_enable(const struct rq_root *r, const char *pf, uint8_t mask, uint16_t *ret_written);
/* Write 0 to each file in @written (bits as ecn_enable's), best effort; the first error. */
int ecn_revert(const struct rq_root *r, const char *pf, uint16_t written);
/* The priorities a written bitmap touches. */
uint8_t ecn_written_prios(uint16_t written);

/*
 * cnp.c: the CNP's DSCP and 802.1p priority (MOFED/DOCA
 * /sys/class/net/<pf>/ecn/roce_np/cnp_dscp, cnp_802p_prio). cnp_get: has[f]
 * false where the driver lacks the file (upstream mlx5, every other driver).
 */
enum cnp_field { CNP_DSCP = 0, CNP_PRIO, CNP_N };
struct cnp_state {
	bool has[CNP_N];
	uint8_t val[CNP_N];
};
const char *cnp_field_name(enum cnp_field f);
int cnp_get(const struct rq_root *r, const char *pf, struct cnp_state *ret);
int cnp_set(const struct rq_root *r, const char *pf, enum cnp_field f, uint8_t val);
/*
 * Each DCQCN parameter the driver exposes under ecn/roce_np and ecn/roce_rp
 * (min_time_between_cnps, rpg_*, dce_tcp_*, ...), read only: @fn is called
 * per readable one; returns how many.
 */
int dcqcn_each(const struct rq_root *r, const char *pf,
	       void (*fn)(void *arg, const char *side, const char *param, long value), void *arg);

/*
 * pfc_storm.c: the port's PFC storm-prevention timeout (ETHTOOL_GTUNABLE
 * ETHTOOL_PFC_PREVENTION_TOUT) in ms; 0 = prevention off, -1 = the driver's
 * "auto". -EOPNOTSUPP where the driver has no such tunable.
 */
int pfc_storm_tout_get(const char *ifname, int *ret_ms);

#endif
