/* SPDX-License-Identifier: Apache-2.0 */
/* What catalog.c (full validation) and catalog_use.c (ADD's partial load) share. */
#ifndef RQ_CATALOG_INT_H
#define RQ_CATALOG_INT_H

#include "netconf/netconf.h"

#define RQ_CATALOG_MAX_PROFILES 256
#define RQ_CATALOG_MAX_NS	4096

bool catalog_ns_name_valid(const char *s);
/* The "node" object into c->pf_max, c->baseline, c->carrier_wait_s. */
int catalog_node_from_json(struct rq_catalog *c, const cJSON *o, struct rq_error *e);
/* node.gdrLevel, node.gdrTopology (netconf/gdr_keys.c) */
int catalog_node_gdr(struct rq_catalog *c, const cJSON *node, struct rq_error *e);
/* node.sharedResources (netconf/shared_res.c) into c->shared, c->n_shared */
int catalog_node_shared(struct rq_catalog *c, const cJSON *v, struct rq_error *e);
/* One namespace entry (@ns its key) appended to c->ns, which has room for it. */
int catalog_ns_from_json(struct rq_catalog *c, const char *ns, const cJSON *it, struct rq_error *e);

#endif
