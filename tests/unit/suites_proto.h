/* SPDX-License-Identifier: Apache-2.0 */
/* Prototypes of every discovered suite; the Makefile force-includes this in each unit source. */
#ifndef RQ_UNIT_SUITES_PROTO_H
#define RQ_UNIT_SUITES_PROTO_H
#include <check.h>

#define X(fn) Suite *fn(void);
#include "suites.h"
#undef X

#include <stddef.h>
/*
 * The name of a namespace or link a test makes on the host: @prefix ("rq"
 * and a word) and the runner's pid (main.c sets it before any test forks).
 * A test whose child fails or is killed before it removes what it made
 * leaves only such names, and the runner removes them after the last suite
 * (and fails the run if a passing test left one: issue 42 item 12).
 */
void unit_host_name(char *buf, size_t len, const char *prefix);
/*
 * A mkdtemp() template for a test's directory, "<the runner's directory>/
 * @name.XXXXXX": the runner removes its directory after the last suite,
 * whatever a dead test's child left in it.
 */
void unit_tmp(char *buf, size_t len, const char *name);
#endif
