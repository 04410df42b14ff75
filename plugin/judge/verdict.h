/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One verdict per attachment (DESIGN.md "One answer per pod"): a table of
 * checks, each a judge that reads what its caller already found (show from
 * its reading of the node, the agent from its pass) and says ok,
 * problem(evidence) or unknown(why). Nothing here reads the node: the facts
 * are the callers' own findings, so the judgement is written once, here.
 *
 * Adding a check: one field group in struct verdict_facts (what the callers
 * found), one judge function and one row of the table in verdict.c.
 */
#ifndef RQ_CORE_VERDICT_H
#define RQ_CORE_VERDICT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "plugin/attach/core.h"
#include "plugin/judge/peer.h"

enum verdict_state { VERDICT_OK = 0, VERDICT_PROBLEM, VERDICT_UNKNOWN };

/* What the caller found about one attachment; a NULL text is "not found". */
struct verdict_facts {
	const cJSON *rec; /* the attachment's record: profile, numaVerdict, numaSource */
	/* pf_profile: the PF judged against its target (this attachment's and the others') */
	const char *pf_unmet;	  /* "required X, port has Y; ..."; "" all met; NULL: not read */
	const char *pf_why;	  /* pf_unmet NULL: why */
	const char *pf_suspended; /* items whose repair the agent suspended ("pfc, ets"); "" none */
	const char *pf_name;	  /* for the resume hint */
	/* vf_class */
	int in_pod;   /* 1: the VF is in its pod, 0: it left (vf_why), -1: cannot tell */
	bool tc_read; /* the knobs below were read; else vf_why */
	bool tc_has[RQ_KNOB_N];
	int tc[RQ_KNOB_N];
	const char *vf_why;
	/* peer: the partner judged against the PF's target; NULL: not judged (peer_why) */
	const struct peer_judgement *peer;
	const char *peer_why;
	/* qps: connected QPs in RTS/RTR on a priority without PFC; -1: not judged (qps_why) */
	int qps_off;
	const char *qps_why;
	/* gdr: the record's verdict; the degradations the agent read again this pass
	 * (an array of reasons), NULL: the record's gdrDegraded (what ADD saw) */
	const cJSON *gdr_degraded;
	/* wiring: 0 not judged (no rule, not one current partner), 1 as planned, 2 miswired;
	 * wiring_text the judge's words ("rail r1 ok", "MISWIRED (...)") */
	int wiring;
	const char *wiring_text;
	/* link: the reasons the PF's link is degraded ("flap,fec_uncorrectable"), "" healthy,
	 * NULL: no link health read for the PF (show: the agent's; a driver reporting nothing) */
	const char *link_reasons;
	const char *link_why; /* link_reasons NULL: why (NULL: the agent's own words) */
};

#define VERDICT_EVIDENCE_MAX 320

struct verdict_check {
	const char *name;  /* the metric's check label and show's JSON key */
	const char *words; /* what a failure is, in words: "lossless: NO (<words>: evidence)" */
	bool lossless;	   /* part of rdma_qos_attachment_lossless (else a performance check) */
	enum verdict_state (*judge)(const struct verdict_facts *f, char *ev, size_t len);
};

extern const struct verdict_check verdict_checks[];
extern const size_t verdict_n_checks;

#define VERDICT_MAX_CHECKS 16

struct verdict {
	enum verdict_state st[VERDICT_MAX_CHECKS];
	char ev[VERDICT_MAX_CHECKS][VERDICT_EVIDENCE_MAX];
	bool lossless_profile; /* the profile requires PFC: the lossless series exists */
	int first_lossless;    /* the first failing check that breaks lossless; -1: none */
	int first_problem;     /* the first failing check of any kind; -1: none */
};

/* Judge every check of the table for @f. */
void verdict_judge(const struct verdict_facts *f, struct verdict *ret);
/* "ok", "PROBLEM", "unknown" */
const char *verdict_state_name(enum verdict_state s);
/* Whether @rec's profile is lossless (a `pfc` requirement). */
bool verdict_profile_lossless(const cJSON *rec);
/* The verdict as show --json says it: {"lossless", "checks": {name: {state, evidence}}} */
cJSON *verdict_to_json(const struct verdict *v);
/* show's first line: "lossless: yes" / "lossless: NO (...)" / "lossless: not required (...)" */
void verdict_headline(const struct verdict *v, char *buf, size_t len);

/* qps facts from @a's census (NULL: none taken); @why holds the reason it is not judged */
struct tel_att;
void verdict_qps_facts(const struct tel_att *a, struct verdict_facts *f, char *why, size_t len);

#endif
