/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A QoS profile: what the PF and the VF must look like for lossless RoCE.
 * Pure data: parsing/validation lives in profile.c, no I/O.
 */
#ifndef RQ_PROFILE_H
#define RQ_PROFILE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "pkg/cni/error.h"
#include "pkg/dcb/target.h"

#define RQ_PROFILE_NAME_MAX 64
#define RQ_BUILTIN_PROFILE  "roce-lossless"

/*
 * What the VF's class must reach: RDMA-CM connections at least (configfs
 * default_roce_tos is enough), or every QP (needs MOFED/DOCA's global tclass).
 */
enum rq_tos_scope { RQ_TOS_SCOPE_RDMA_CM = 0, RQ_TOS_SCOPE_ALL_QPS = 1 };

/*
 * A profile: a per-VF choice (trafficClass, tosScope) and PF requirements
 * (the rest). Every PF key is a requirement the port must meet, absent =
 * none: a PF is shared by the VFs of many pods, so its target is the union
 * of the requirements of the node baseline and of every live attachment.
 */
struct rq_profile {
	char name[RQ_PROFILE_NAME_MAX]; /* catalog name, "roce-lossless", or "inline" */
	bool has_trust;			/* trust is required */
	enum rq_trust trust;
	uint8_t dscp_prio[RQ_NDSCP]; /* dscp>>3 (the fresh map) unless required otherwise */
	uint64_t dscp_override;	     /* bit d set: DSCP d -> dscp_prio[d] is required */
	uint8_t pfc;		     /* bitmap of priorities that must have PFC on */
	uint8_t ecn;		     /* bitmap of priorities that must have ECN NP+RP on */
	bool ecn_required;	     /* missing ECN control fails ADD */
	bool has_cnp[2];	     /* "cnp": {"dscp", "prio"}: the CNP's DSCP / 802.1p prio */
	uint8_t cnp[2];		     /* indexed by enum cnp_field (pkg/dcb) */
	struct rq_ets ets;	     /* present: must hold exactly */
	int traffic_class;	     /* 0..255; -1: leave the VF's class alone */
	enum rq_tos_scope tos_scope; /* "tosScope"; absent: rdma-cm */
};

/* The built-in roce-lossless profile of DESIGN.md. */
void profile_builtin(struct rq_profile *ret);
/* A profile that requires nothing and leaves the VF alone. */
void profile_empty(struct rq_profile *ret, const char *name);

/*
 * Parse and validate a profile object. Absent keys are no requirement
 * (trafficClass absent: the VF's class is left alone); dscp2prio implies
 * trust "dscp". @path is the JSON path of @obj for messages ("qos",
 * "profiles.gold"); errors name the full path, e.g.
 * "qos.ets.tcBw: percentages sum to 90, expected 100". Returns 0 or -EINVAL
 * with @e set (RQ_ERR_CONFIG).
 */
int profile_from_json(const cJSON *obj, const char *path, const char *name, struct rq_profile *ret,
		      struct rq_error *e);

/*
 * profile_from_json with an error collector (validate): every key's error is
 * kept in @keep and the profile (the valid keys) returned; without @keep,
 * profile_from_json.
 */
int profile_parse(const cJSON *obj, const char *path, const char *name, struct rq_errlist *keep,
		  struct rq_profile *ret, struct rq_error *e);

/* The JSON name of a TSA value ("strict", "ets", "vendor"). */
const char *profile_tsa_name(uint8_t t);

/* Serialise (for the attachment record / show); NULL on ENOMEM. */
cJSON *profile_to_json(const struct rq_profile *p);
/* Only the PF requirements (the PF index); NULL on ENOMEM. */
cJSON *profile_req_to_json(const struct rq_profile *p);

/* The DCB part of the profile's PF requirements, as pkg/dcb plans against it. */
void profile_dcb_target(const struct rq_profile *p, struct dcb_target *ret);

struct dcb_port_state;
struct dcb_plan;
/* dcb_plan_from and dcb_plan_describe against the profile's DCB requirements. */
void profile_dcb_plan(const struct dcb_port_state *cur, const struct rq_profile *p,
		      struct dcb_plan *ret);
int profile_dcb_describe(const struct dcb_port_state *cur, const struct rq_profile *p, char *buf,
			 size_t len);

/* True when the profile requires anything of the PF. */
bool profile_has_pf_req(const struct rq_profile *p);

/*
 * A real contradiction between two sets of requirements: one DSCP to two
 * priorities, dscp vs pcp trust, two different ETS. Returns true and
 * describes what each side requires ("trust dscp" / "trust pcp") into
 * @a_says and @b_says.
 */
bool profile_req_conflict(const struct rq_profile *a, const struct rq_profile *b, char *a_says,
			  char *b_says, size_t len);
/*
 * Add @b's requirements to @acc (the union). Where the two contradict,
 * @acc's side is kept (callers check profile_req_conflict first).
 */
void profile_req_merge(struct rq_profile *acc, const struct rq_profile *b);

#endif
