/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CNI error codes and the error context every layer fills.
 *
 * Mechanism code returns 0 or a negative errno; when it fails for a reason a
 * user must read, it also fills a struct rq_error (CNI code + message). The
 * plugin prints that as the CNI error object. The first error set wins:
 * later rq_err() calls on an already-set context keep the original message,
 * so rollback failures never hide the cause.
 */
#ifndef RQ_CNI_ERROR_H
#define RQ_CNI_ERROR_H

#include <stdarg.h>
#include <stddef.h>

enum rq_cni_code {
	RQ_ERR_NONE = 0,
	RQ_ERR_VERSION = 1,	      /* incompatible CNI version */
	RQ_ERR_UNSUPPORTED_FIELD = 2, /* unsupported field in network configuration */
	RQ_ERR_UNKNOWN_CONTAINER = 3,
	RQ_ERR_ENV = 4, /* invalid necessary environment variables */
	RQ_ERR_IO = 5,
	RQ_ERR_DECODE = 6, /* failed to decode content */
	RQ_ERR_CONFIG = 7, /* invalid network config */
	RQ_ERR_TRY_AGAIN = 11,
	RQ_ERR_NOT_READY = 50, /* STATUS: plugin not available */
	/* 100+ : rdma-qos's own, documented in docs/troubleshooting.md */
	RQ_ERR_NO_DCB = 100,	  /* PF has no dcbnl ops */
	RQ_ERR_NOT_ALLOWED = 101, /* profile / inline qos / pf mode not allowed for namespace */
	RQ_ERR_PF_CONFLICT = 102, /* PF-wide settings conflict with a live attachment */
	RQ_ERR_NUMA = 103,	  /* NUMA misaligned under numa: strict */
	RQ_ERR_NO_DEVICE = 104,	  /* VF, PF or RDMA device not found */
	RQ_ERR_PF_MISMATCH = 105, /* pf: verify and the PF is not as the profile says */
	RQ_ERR_DCBX_LOCKED = 106, /* DCBX owned by firmware / LLDP agent */
	RQ_ERR_NO_ECN = 107,	  /* ecnRequired and no ECN control */
	RQ_ERR_NO_TOS = 108,	  /* no traffic-class interface for the RDMA device */
	RQ_ERR_DRIFT = 109,	  /* CHECK: state drifted from the record/profile */
	RQ_ERR_NOT_OWNER = 110,	  /* deviceID is not this pod's device */
	RQ_ERR_TOS_SCOPE = 111,	  /* tosScope all-qps and the device has only configfs (RDMA-CM) */
	RQ_ERR_NO_CARRIER = 112,  /* the PF's carrier did not come back after a PFC change */
	RQ_ERR_GDR_FAR =
	    113, /* gdr: strict and the VF is beyond gdrLevel from every GPU of the pod */
};

#define RQ_ERR_MSG_MAX	   1024
#define RQ_ERR_DETAILS_MAX 2048

struct rq_error {
	int code; /* enum rq_cni_code, 0 = unset */
	char msg[RQ_ERR_MSG_MAX];
	char details[RQ_ERR_DETAILS_MAX];
};

/*
 * Fill @e (if non-NULL and not yet set) and return @r, so callers can write
 * `return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "pfc[2]: %d out of range 0-7", v);`
 */
int rq_err(struct rq_error *e, int code, int r, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int rq_err_details(struct rq_error *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rq_err_clear(struct rq_error *e);
static inline int rq_err_isset(const struct rq_error *e)
{
	return e && e->code != 0;
}

/*
 * An error collector: every error of one parse, not only the first (what
 * `rdma-qos validate` reports in one run). A parser given one in its context
 * (catalog_parse_keep, netconf_parse_keep) hands each error that does not
 * stop it to rq_err_keep at the point where it can carry on with the next
 * key; without one (ADD, CHECK, the agent) rq_err_keep returns the error and
 * the parser stops at the first, as before. Warnings (a profile valid but
 * wrong in meaning) are collected the same way in a list of their own.
 */
#define RQ_ERRLIST_MAX 64

struct rq_errlist {
	size_t n;	/* messages kept (at most RQ_ERRLIST_MAX) */
	size_t dropped; /* beyond RQ_ERRLIST_MAX: counted, not kept */
	int code;	/* the first one's enum rq_cni_code */
	char msg[RQ_ERRLIST_MAX][RQ_ERR_MSG_MAX];
};

/*
 * @r < 0 with @e set, and a collector @l: @e's message is appended to @l, @e
 * is cleared and 0 returned (carry on). Without @l, for r >= 0, and for
 * -ENOMEM (nothing sensible follows), @r unchanged.
 */
int rq_err_keep(struct rq_errlist *l, struct rq_error *e, int r);
/* Append a message to @l (a warning, or an error found outside a parser). */
void rq_errlist_add(struct rq_errlist *l, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* How many messages @l has seen (kept and dropped): a mark for rq_errlist_since. */
size_t rq_errlist_count(const struct rq_errlist *l);
/*
 * Messages added to @l since @mark: the first of them into @e (its code) and
 * -EINVAL, so that a parse that kept errors still fails; else 0.
 */
int rq_errlist_since(const struct rq_errlist *l, size_t mark, struct rq_error *e);

#endif
