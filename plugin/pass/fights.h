/* SPDX-License-Identifier: Apache-2.0 */
/* The repairs that fight another writer (fights.c): back-off and suspension per PF and item. */
#ifndef RQ_PLUGIN_FIGHTS_H
#define RQ_PLUGIN_FIGHTS_H

#include <stdbool.h>

#include "plugin/agent/agent.h"

/* where the agent remembers repairs that fight another writer (fights.c); rm clears it */
#define AGENT_FIGHT_FILE RQ_FIGHT_FILE
/* a repair more than this after the last one of the same item is not part of a fight */
#define FIGHT_WINDOW_S 1800
/* the repair of one item, undone each time, that suspends it */
#define FIGHT_MAX_REPAIRS 5

/*
 * fights.c: per PF (by PCI address) and item, repairs in a row (each undone
 * by another writer): back-off, then suspension until the catalog changes or
 * AGENT_FIGHT_FILE is deleted. A reset of the port is no part of a fight.
 */
struct fight_book;
int fight_book_load(const struct rq_env *env, struct fight_book **ret);
enum fight_reset {
	FIGHT_NO_RESET = 0,
	FIGHT_RESET_DEFAULTS, /* every DCB part the target sets is back at the driver's default */
	FIGHT_RESET_NETDEV,   /* the PF's netdev has a new ifindex: it was re-created */
};
/*
 * @pf as the pass found it, before any write: its netdev's @ifindex (<= 0:
 * unknown) and @at_defaults (port_at_defaults in pf_repair.c). A reset is
 * logged and clears the PF's counts and suspensions; the repair that follows
 * is not passed to fight_repaired.
 */
enum fight_reset fight_port_seen(struct fight_book *b, const struct rq_pf *pf, int ifindex,
				 bool at_defaults);
/* How the pass left @pf's port, read back after any repair: at the defaults or not */
void fight_port_left(struct fight_book *b, const struct rq_pf *pf, bool at_defaults);
/* false: some of @items of @pf is backing off or suspended: do not write the PF now */
bool fight_may_repair(struct fight_book *b, const struct rq_env *env, const struct rq_pf *pf,
		      unsigned items, double now);
/* @items of @pf were repaired at @now */
void fight_repaired(struct fight_book *b, const struct rq_pf *pf, unsigned items, double now);
bool fight_suspended(const struct fight_book *b, const struct rq_pf *pf, int item);
void fight_report(const struct fight_book *b, struct pass_report *rep);
/*
 * Forget @item ("all": every item) of the PF at @pci: its repairs in a row and
 * its suspension. 1 when something was suspended, 0 when not.
 */
int fight_resume(struct fight_book *b, const char *pci, const char *item);
int fight_book_save(const struct rq_env *env, struct fight_book *b);
void fight_book_free(struct fight_book *b);

#endif
