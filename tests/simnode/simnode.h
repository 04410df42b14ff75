/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit-test helpers over tests/simnode/mknode: a fresh temporary root per
 * test (Check forks each test), built by the real builder, so the suites
 * exercise the same tree the simulated-node tests and the demo use.
 */
#ifndef RQ_TEST_SIMNODE_H
#define RQ_TEST_SIMNODE_H

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "pkg/sysfs/sysfs.h"

struct simnode {
	char dir[64];
	struct rq_root root;
};

/* Run a shell command built from @fmt (with $R = the root dir exported); returns its status. */
static inline int sim_sh(const struct simnode *n, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline int sim_sh(const struct simnode *n, const char *fmt, ...)
{
	char cmd[4096];
	int off;
	va_list ap;

	off = snprintf(cmd, sizeof(cmd), "R='%s'; MKNODE=\"${RQ_SRC:-.}/tests/simnode/mknode\"; ",
		       n->dir);
	va_start(ap, fmt);
	vsnprintf(cmd + off, sizeof(cmd) - (size_t)off, fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* mknode --root <tmp> @opts > /dev/null; the root opened. */
static inline void sim_build(struct simnode *n, const char *opts)
{
	unit_tmp(n->dir, sizeof(n->dir), "rq-node");
	ck_assert_ptr_nonnull(mkdtemp(n->dir));
	ck_assert_msg(sim_sh(n, "\"$MKNODE\" --root \"$R\" %s > /dev/null", opts) == 0,
		      "mknode %s failed (is RQ_SRC set to the source tree?)", opts);
	ck_assert_int_eq(root_open(n->dir, &n->root), 0);
}

static inline void sim_destroy(struct simnode *n)
{
	root_close(&n->root);
	if (n->dir[0])
		(void)!sim_sh(n, "rm -rf \"$R\"");
}

#endif
