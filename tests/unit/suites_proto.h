/* SPDX-License-Identifier: Apache-2.0 */
/* Prototypes of every discovered suite; the Makefile force-includes this in each unit source. */
#ifndef RQ_UNIT_SUITES_PROTO_H
#define RQ_UNIT_SUITES_PROTO_H
#include <check.h>

#define X(fn) Suite *fn(void);
#include "suites.h"
#undef X
#endif
