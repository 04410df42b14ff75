// SPDX-License-Identifier: Apache-2.0
/*
 * The simulated port's fault injection (dcb_fake.c; documented in dcb.h):
 * "fail": {"<op>": errno} makes that op (set_pfc, set_ets, app_add, app_del,
 * set_trust) fail; "failAfter": {"app_add"|"app_del": N} fails a batch -EIO
 * after its first N entries; "dcbxLocked": true makes every SET fail -EPERM.
 */
#include <errno.h>

#include <cjson/cJSON.h>

#include "pkg/dcb/dcb.h"
#include "pkg/dcb/dcb_faults.h"

int dcb_fault_hook(const cJSON *o, const char *op)
{
	const cJSON *v =
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "fail"), op);

	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "dcbxLocked")))
		return -EPERM;
	if (!cJSON_IsNumber(v) || v->valueint == 0 || v->valueint < -4095 || v->valueint > 4095)
		return 0;
	return v->valueint < 0 ? v->valueint : -v->valueint;
}

/* "failAfter": {"<op>": N} -> N, else -1 (no limit). */
int dcb_fault_fail_after(const cJSON *o, const char *op)
{
	const cJSON *v =
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "failAfter"), op);

	return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < RQ_DCB_APP_MAX
		   ? (int)v->valuedouble
		   : -1;
}
