/* SPDX-License-Identifier: Apache-2.0 */
/* The simulated port's fault injection (dcb_faults.c). Internal to pkg/dcb. */
#ifndef RQ_DCB_FAULTS_H
#define RQ_DCB_FAULTS_H

#include <cjson/cJSON.h>

/* The error a SET @op fails with by the port's "fail" or "dcbxLocked" (<0), else 0 */
int dcb_fault_hook(const cJSON *o, const char *op);
/* "failAfter": {"<op>": N} -> N, else -1 (no limit). */
int dcb_fault_fail_after(const cJSON *o, const char *op);

#endif
