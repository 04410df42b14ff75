/* SPDX-License-Identifier: Apache-2.0 */
/* The file-backed DCB fake fixture and helpers of test_dcb.c, shared with test_dcb_rollback.c. */
#ifndef RQ_TEST_DCB_FIXTURE_H
#define RQ_TEST_DCB_FIXTURE_H

#include "netconf/profile.h"
#include "pkg/dcb/dcb.h"

void dcbt_setup(void);
void dcbt_teardown(void);
void port_write(const char *ifname, const char *json);
int port_writes(const char *ifname);
void assert_key(const char *ifname, const char *key, const char *want);
int app_count(const char *ifname, int sel);
int app_prio(const char *ifname, int sel, int proto);
void port_write_right(const char *ifname, const char *extra);
int get_plan_apply(const char *ifname, const struct rq_profile *p, struct dcb_plan *plan,
		   struct rq_error *e);
int rec_apply(const char *ifname, const struct rq_profile *p, struct rq_error *e);
extern char calls[512];
extern const struct dcb_ops *fops;
extern void *fctx;

#endif
