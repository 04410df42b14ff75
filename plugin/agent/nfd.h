/* SPDX-License-Identifier: Apache-2.0 */
/* --nfd-features-file: the NFD local feature file (nfd.c). */
#ifndef RQ_PLUGIN_NFD_H
#define RQ_PLUGIN_NFD_H

#include <stdbool.h>
#include <stddef.h>

#include "plugin/agent/agent.h"

/* nfd.c: the NFD local feature file of a pass (@pass_ok false: the pass could not run) */
int nfd_render(const struct pass_report *rep, bool pass_ok, double now, int interval_s, char *buf,
	       size_t len);
void agent_nfd_publish(const struct agent *a, const struct pass_report *rep, bool pass_ok);

#endif
