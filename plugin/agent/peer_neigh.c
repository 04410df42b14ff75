// SPDX-License-Identifier: Apache-2.0
/*
 * The neighbours a watched PF heard (peer_int.h): 802.1AB 9.2.7.7 keys them
 * by MSAP (chassis ID + port ID), each with its own TTL; a shutdown LLDPDU
 * (TTL 0) removes only its own MSAP. A frame that counts (peer_sock.c) and
 * decodes updates its MSAP's entry; one from a speaker not heard before
 * re-reads the node's own MACs first (peer_own.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>

#include "pkg/log/log.h"
#include "plugin/agent/peer_int.h"

/* the node's own MACs are re-read at most this often when a new speaker shows up */
#define PEER_OWN_MIN_S 1.0

static bool msap_eq(const struct lldp_peer *a, const struct lldp_peer *b)
{
	return a->chassis_subtype == b->chassis_subtype && a->port_subtype == b->port_subtype &&
	       !strcmp(a->chassis_id, b->chassis_id) && !strcmp(a->port_id, b->port_id);
}

static void neigh_drop(struct peer_pf *pf, size_t k)
{
	pf->nb[k] = pf->nb[--pf->n_nb];
}

/*
 * The MSAP of @nb heard from another source MAC than before: two speakers
 * claim one chassis and port (a pod copying the switch's IDs, its VF's spoof
 * check off). Neither is believed until both TTLs have run out: the MSAP is
 * contested, nothing is judged. A shutdown from the other MAC only contests.
 */
static bool neigh_contest(struct peer_pf *pf, struct peer_neigh *nb, const struct lldp_peer *p,
			  const uint8_t *src)
{
	double now = peer_mono_now(), until = now + p->ttl;
	bool was = nb->contested_until > now;

	if (until < nb->expires)
		until = nb->expires;
	if (until > nb->contested_until)
		nb->contested_until = until;
	if (!was)
		log_warn("agent: PF %s: link partner %s port %s heard from two source MACs "
			 "(%02x:%02x:%02x:%02x:%02x:%02x, then %02x:%02x:%02x:%02x:%02x:%02x): "
			 "not judged until one of them has been silent past its TTL",
			 pf->name, p->chassis_id, p->port_id, nb->src[0], nb->src[1], nb->src[2],
			 nb->src[3], nb->src[4], nb->src[5], src[0], src[1], src[2], src[3], src[4],
			 src[5]);
	if (p->ttl) {
		nb->peer = *p;
		memcpy(nb->src, src, ETH_ALEN);
		if (now + p->ttl > nb->expires) {
			nb->expires = now + p->ttl;
			nb->heard = agent_wall_now();
			nb->expires_wall = nb->heard + p->ttl;
		}
	}
	return !was;
}

/* A decoded LLDPDU from @src for @pf's table: true when what the partners say changed. */
static bool neigh_update(struct peer_pf *pf, const struct lldp_peer *p, const uint8_t *src)
{
	struct peer_neigh *nb = NULL;
	bool changed;

	for (size_t k = 0; k < pf->n_nb && !nb; k++)
		if (msap_eq(&pf->nb[k].peer, p))
			nb = &pf->nb[k];
	if (nb && memcmp(nb->src, src, ETH_ALEN) != 0)
		return neigh_contest(pf, nb, p, src);
	if (p->ttl == 0) {
		/* a shutdown LLDPDU removes its own MSAP, nobody else's (802.1AB 9.2.7.7.4) */
		if (!nb)
			return false;
		log_info("agent: PF %s: link partner %s port %s is leaving (TTL 0)", pf->name,
			 nb->peer.chassis_id, nb->peer.port_id);
		neigh_drop(pf, (size_t)(nb - pf->nb));
		return true;
	}
	if (!nb && pf->n_nb == PEER_NEIGH_MAX) {
		if (pf->dropped++ % 1000 == 0)
			log_debug("agent: PF %s: %d neighbours already: %s port %s not kept",
				  pf->name, PEER_NEIGH_MAX, p->chassis_id, p->port_id);
		return false;
	}
	changed = !nb || !lldp_peer_same(&nb->peer, p);
	if (changed)
		log_info("agent: PF %s: link partner %s (%s) port %s (%s), TTL %u s%s", pf->name,
			 p->chassis_id, p->sys_name[0] ? p->sys_name : "no system name", p->port_id,
			 p->port_desc[0] ? p->port_desc : "no description", p->ttl,
			 !nb && pf->n_nb ? ": more than one partner, nothing is judged" : "");
	if (!nb) {
		nb = &pf->nb[pf->n_nb++];
		nb->contested_until = 0;
	}
	nb->peer = *p;
	memcpy(nb->src, src, ETH_ALEN);
	nb->expires = peer_mono_now() + p->ttl;
	nb->heard = agent_wall_now();
	nb->expires_wall = nb->heard + p->ttl;
	return changed;
}

/* A speaker (MSAP and source MAC) @pf has not heard from: the own MACs are worth a re-read. */
static bool speaker_new(const struct peer_pf *pf, const struct lldp_peer *p, const uint8_t *src)
{
	for (size_t k = 0; k < pf->n_nb; k++)
		if (msap_eq(&pf->nb[k].peer, p))
			return memcmp(pf->nb[k].src, src, ETH_ALEN) != 0;
	return true;
}

/*
 * One frame for @pf, @r what peer_sock.c found of it (0: it counts): true when what the partners
 * say changed (a refresh only sets dirty). */
bool peer_pf_frame(struct peer_book *b, struct peer_pf *pf, int r, const uint8_t *buf, size_t len)
{
	struct lldp_peer p;

	if (r == 0)
		r = lldp_decode_frame(buf, len, &p);
	/* a speaker not heard before: the node's MACs may have changed since they were read */
	if (r == 0 && speaker_new(pf, &p, buf + ETH_ALEN) &&
	    peer_mono_now() - b->own_at >= PEER_OWN_MIN_S) {
		peer_own_load(b);
		if (peer_own_mac(b, buf + ETH_ALEN))
			r = -EPERM;
	}
	if (r == -EPERM) {
		if (pf->own++ % 1000 == 0)
			log_info(
			    "agent: PF %s: dropped an LLDP frame from the node's own MAC "
			    "%02x:%02x:%02x:%02x:%02x:%02x (a pod or VM speaking LLDP; %lu so far)",
			    pf->name, buf[6], buf[7], buf[8], buf[9], buf[10], buf[11], pf->own);
		return false;
	}
	if (r < 0) {
		if (pf->dropped++ % 1000 == 0)
			log_debug(
			    "agent: PF %s: dropped an LLDP frame of %zu bytes (%s; %lu so far)",
			    pf->name, len, strerror(-r), pf->dropped);
		return false;
	}
	b->dirty = true;
	return neigh_update(pf, &p, buf + ETH_ALEN);
}

/* @pf's MSAPs whose TTL ran out at @now forgotten, ended contests judged: true when any */
bool peer_pf_expire(struct peer_pf *pf, double now)
{
	bool gone = false;

	for (size_t k = pf->n_nb; k-- > 0;) {
		if (pf->nb[k].contested_until > 0 && pf->nb[k].contested_until <= now &&
		    pf->nb[k].expires > now) {
			log_info("agent: PF %s: link partner %s port %s heard from one source "
				 "MAC again: judged",
				 pf->name, pf->nb[k].peer.chassis_id, pf->nb[k].peer.port_id);
			pf->nb[k].contested_until = 0;
			gone = true;
		}
		if (pf->nb[k].expires > now)
			continue;
		log_info("agent: PF %s: link partner %s port %s silent past its TTL: forgotten",
			 pf->name, pf->nb[k].peer.chassis_id, pf->nb[k].peer.port_id);
		neigh_drop(pf, k);
		gone = true;
	}
	return gone;
}

void peer_arm_ttl(struct peer_book *b)
{
	struct itimerspec its = {0};
	double first = 0;

	for (size_t i = 0; i < b->n; i++)
		for (size_t k = 0; k < b->pf[i].n_nb; k++) {
			const struct peer_neigh *nb = &b->pf[i].nb[k];

			if (first == 0 || nb->expires < first)
				first = nb->expires;
			if (nb->contested_until > 0 && nb->contested_until < first)
				first = nb->contested_until;
		}
	if (first > 0) {
		its.it_value.tv_sec = (time_t)first;
		its.it_value.tv_nsec = (long)((first - (double)(time_t)first) * 1e9) + 1;
	}
	(void)timerfd_settime(b->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}
