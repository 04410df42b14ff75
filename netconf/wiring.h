/* SPDX-License-Identifier: Apache-2.0 */
/*
 * node.wiring: the planned cabling of a rail-optimized fabric (DESIGN.md "The
 * fabric under the pod"), a list of {"pf": GLOB, "partner": GLOB, "port":
 * GLOB, "rail": NAME}. Globs are fnmatch(3) patterns without flags; `pf`
 * matches the PF netdev name or its PCI address, `partner` the LLDP system
 * name, `port` (optional) the partner's port ID or port description. The
 * first rule whose `pf` matches a PF is that PF's rule. No I/O.
 */
#ifndef RQ_NETCONF_WIRING_H
#define RQ_NETCONF_WIRING_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "pkg/cni/error.h"

#define RQ_WIRING_MAX_RULES 256
#define RQ_WIRING_GLOB_MAX  128
#define RQ_WIRING_RAIL_MAX  64

struct rq_wiring_rule {
	char pf[RQ_WIRING_GLOB_MAX];
	char partner[RQ_WIRING_GLOB_MAX];
	char port[RQ_WIRING_GLOB_MAX]; /* "": any port */
	char rail[RQ_WIRING_RAIL_MAX];
};

/*
 * A usable glob: printable ASCII without white space, every `[` closed by a
 * `]` (a class may not be empty), no trailing `\`. fnmatch itself accepts
 * anything, and a rule with an unclosed class would silently match nothing.
 */
bool wiring_glob_valid(const char *g);
/*
 * Parse @v (node.wiring) into a calloc'd array; errors name the JSON path
 * (`node.wiring[1].partner: ...`). *ret stays NULL for an empty list. With a
 * collector @keep (validate), each rule's error is kept and the next rule read.
 */
int wiring_from_json(const cJSON *v, struct rq_errlist *keep, struct rq_wiring_rule **ret,
		     size_t *ret_n, struct rq_error *e);
/* The first rule for the PF (@ifname or @pci may be NULL or ""), or NULL. */
const struct rq_wiring_rule *wiring_rule_for(const struct rq_wiring_rule *rules, size_t n,
					     const char *ifname, const char *pci);

/*
 * Whether every name glob @b matches, glob @a matches too (@a "eth*" covers
 * "eth[0-3]" and "eth2"). Sound, not complete: true only when it is sure
 * (a `*` of @b needs a `*` of @a), so a warning built on it is never false.
 */
bool wiring_glob_covers(const char *a, const char *b);
/*
 * The earlier rule whose `pf` hides rule @j's (every PF rule @j names takes
 * that earlier rule first, so @j is never used), or -1.
 */
int wiring_hidden_by(const struct rq_wiring_rule *rules, size_t n, size_t j);

#endif
