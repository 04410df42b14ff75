/* SPDX-License-Identifier: Apache-2.0 */
/* The CNI commands, dispatched by plugin/main.c on CNI_COMMAND. */
#ifndef RQ_CNI_COMMANDS_H
#define RQ_CNI_COMMANDS_H

#include "plugin/attach/core.h"

int cmd_add(struct rq_ctx *c);
int cmd_check(struct rq_ctx *c);
int cmd_del(struct rq_ctx *c);
int cmd_gc(struct rq_ctx *c);
int cmd_status(struct rq_ctx *c);

#endif
