/* SPDX-License-Identifier: Apache-2.0 */
/* The operator tools: node-side subcommands (argv[1]); exit status 0 or 1. */
#ifndef RQ_TOOLS_H
#define RQ_TOOLS_H

#include <stdbool.h>
#include <stddef.h>

#include "plugin/core/core.h"

int cmd_show(struct rq_env *env, bool json);
/* counters.c: `show --counters [--json] [--interval S]` and `top [--interval S]` */
int main_counters(int argc, char **argv, const char *binary, bool top);
int main_install(int argc, char **argv, const char *binary);
/* install.c, shared with uninstall.c: DIR/<binary> into @buf; this binary (/proc/self/exe)
 * installed as DIR/<binary> (tmp + rename, only when the bytes differ). */
int install_bin_path(const struct rq_env *env, const char *dir, char *buf, size_t len);
int install_binary(const struct rq_env *env, const char *dir);
int main_uninstall(int argc, char **argv, const char *binary);
int main_validate(int argc, char **argv, const char *binary);
/* A whole file (or pipe) named on the command line (not a host path), at most @max bytes. */
int cli_read_file(const char *path, size_t max, char **ret, size_t *ret_len);

#endif
