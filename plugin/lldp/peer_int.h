/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The link partners' book, shared by its files: peer_listen.c (the book, its
 * file for show, the agent's calls), peer_sock.c (a PF's socket and its
 * filter), peer_neigh.c (the neighbours a PF heard, their TTLs), peer_own.c
 * (the node's own MACs). Calls run listen -> sock -> neigh -> own.
 */
#ifndef RQ_AGENT_PEER_INT_H
#define RQ_AGENT_PEER_INT_H

#include <linux/if_ether.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>

#include "plugin/agent/agent.h"
#include "plugin/judge/peer.h"

/*
 * Neighbours kept per PF. One is the norm, a few an EVPN fabric; beyond this a
 * new MSAP is not kept (the count stays above one: nothing is judged anyway).
 */
#define PEER_NEIGH_MAX 8
/* earlier contents kept per MSAP: more changes than this within a TTL contest it */
#define PEER_HIST 8

struct peer_neigh {
	struct lldp_peer peer; /* what it said last */
	/*
	 * what is judged, show'n and exported: what it said before a change until
	 * the new content has stood alone for half a TTL (settle_until, monotonic;
	 * peer_neigh.c neigh_settle)
	 */
	struct lldp_peer judged;
	double settle_until;
	uint8_t src[ETH_ALEN];	    /* the source MAC it was last heard from */
	double expires;		    /* monotonic */
	double heard, expires_wall; /* wall clock, for show */
	/*
	 * monotonic; while later than now the MSAP was heard from two source MACs
	 * (a second speaker copying the switch's chassis and port ID): not judged
	 */
	double contested_until;
	/* contested for what it said (peer_neigh.c neigh_flip), not for its MAC */
	bool contest_content;
	/* when its last contest ended (monotonic) and how many came back soon after one */
	double contest_end;
	unsigned contest_n;
	/*
	 * What it said (peer_neigh.c's content_sum, TTL aside): now, and before
	 * (each with the time its TTL ran out, monotonic); the 802.1AB transmit
	 * credit a conforming speaker would have left for changes.
	 */
	uint64_t sum, hist_sum[PEER_HIST];
	double hist_until[PEER_HIST], credit, credit_at;
	double logged_at;    /* monotonic: its last partner-change line (one per TTL) */
	unsigned long quiet; /* changes not logged since */
	/* monotonic: the latest any TTL it announced runs out; its memory lasts that long */
	double remember_until;
};

struct peer_pf {
	char name[IF_NAMESIZE];
	int fd, ifindex, open_err;
	struct peer_neigh nb[PEER_NEIGH_MAX];
	size_t n_nb;
	/*
	 * MSAPs that left (a shutdown LLDPDU) while a TTL they announced had not
	 * run out: not partners, but what they said and how often it changed is
	 * recalled when they come back (peer_neigh.c neigh_recall)
	 */
	struct peer_neigh mem[PEER_NEIGH_MAX];
	size_t n_mem;
	unsigned long dropped; /* frames that did not decode or were not the nearest bridge's */
	unsigned long own;     /* frames from one of the node's own MACs */
	uint8_t own_last[ETH_ALEN]; /* the own MAC last logged: another is logged at once */
	bool own_partner;	    /* warned: a current partner's MAC is also one of the node's */
};

struct peer_book {
	struct rq_root root;
	const struct rq_env *env; /* the agent's: records' and unchained VFs' netns (peer_own.c) */
	int ep, tfd;
	struct peer_pf *pf;
	size_t n;
	bool dirty; /* a frame was heard since RQ_PEER_FILE was written (its expiry moved) */
	/* the node's own PF and VF MACs (own_macs_load): stale after a pass, re-read lazily */
	uint8_t (*own)[ETH_ALEN];
	size_t n_own;
	bool own_stale;
	double own_at; /* monotonic */
};

static inline double peer_mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* peer_sock.c */
void peer_pf_try_open(struct peer_book *b, struct peer_pf *pf);
void peer_pf_close(struct peer_pf *pf);
bool peer_pf_drain(struct peer_book *b, struct peer_pf *pf);

/* peer_neigh.c */
bool peer_pf_frame(struct peer_book *b, struct peer_pf *pf, int accept_r, const uint8_t *buf,
		   size_t len);
bool peer_pf_expire(struct peer_pf *pf, double now);
void peer_arm_ttl(struct peer_book *b);

/* peer_own.c */
void peer_own_load(struct peer_book *b);
bool peer_own_mac(const struct peer_book *b, const uint8_t *src);

#endif
