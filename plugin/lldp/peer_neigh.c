// SPDX-License-Identifier: Apache-2.0
/*
 * The neighbours a watched PF heard (peer_int.h): 802.1AB 9.2.7.7 keys them
 * by MSAP (chassis ID + port ID), each with its own TTL; a shutdown LLDPDU
 * (TTL 0) removes only its own MSAP, and not its memory (neigh_forget). A frame that counts
 * (peer_sock.c) and decodes updates its MSAP's entry; one from a speaker not heard before re-reads
 * the node's own MACs first (peer_own.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>

#include "pkg/log/log.h"
#include "plugin/lldp/peer_int.h"

/* the node's own MACs are re-read at most this often when a new speaker shows up */
#define PEER_OWN_MIN_S 1.0
/*
 * 802.1AB-2016 transmit rules, which bound how fast one conforming speaker
 * can change what it says: every LLDPDU costs one credit (txCredit, 9.2.5.20),
 * at most txCreditMax = 5 are held (9.2.5.17) and the transmit timer adds one
 * per txTick, every second (9.2.5.21; the tx timer state machine, 9.2.3.?).
 * A change of content is one LLDPDU at least (somethingChangedLocal sends at
 * once, then txFastInit = 4 frames msgFastTx = 1 s apart, 9.2.5.5/9.2.5.19;
 * lldpd does the same with its fast-start, 1 s, and sends on each
 * `lldpcli configure` change). So a speaker whose content changes more than
 * 5 times at once, or more than once a second beyond that, is not one
 * speaker: contested.
 */
/*
 * A content contest that starts again within this many TTLs of the last one's
 * end lasts twice as long as that one, up to 2^PEER_CONTEST_SHIFT_MAX TTLs: a
 * replay slower than the TTL raises a pass and a line per contest, not per
 * frame (issue 42 item 7).
 */
#define PEER_CONTEST_AGAIN     4.0
#define PEER_CONTEST_SHIFT_MAX 5
#define PEER_TX_CREDIT_MAX     5.0
#define PEER_TX_CREDIT_PER_S   1.0

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
 * @pf's MSAP k leaves (a shutdown LLDPDU, or its TTL ran out): no longer a
 * partner, but what it said and how often it changed are kept while a TTL it
 * announced has not run out (the memory with the earliest end makes room).
 */
static void neigh_forget(struct peer_pf *pf, size_t k, double now)
{
	size_t m = pf->n_mem;

	/* its own old memory, else a lapsed one, else a free slot, else the earliest to end */
	for (size_t i = 0; i < pf->n_mem && m == pf->n_mem; i++)
		if (msap_eq(&pf->mem[i].peer, &pf->nb[k].peer))
			m = i;
	for (size_t i = 0; i < pf->n_mem && m == pf->n_mem; i++)
		if (!(pf->mem[i].remember_until > now))
			m = i;
	if (m == PEER_NEIGH_MAX)
		for (size_t i = m = 0; i < pf->n_mem; i++)
			if (pf->mem[i].remember_until < pf->mem[m].remember_until)
				m = i;
	if (pf->nb[k].remember_until > now) {
		pf->mem[m] = pf->nb[k];
		if (m == pf->n_mem)
			pf->n_mem++;
	}
	neigh_drop(pf, k);
}

/*
 * The MSAP of @p, back while @pf remembers it: a partner again with all it
 * had (what is judged, its history, its contest). NULL: not remembered (or no
 * room).
 */
static struct peer_neigh *neigh_recall(struct peer_pf *pf, const struct lldp_peer *p, double now)
{
	for (size_t i = 0; i < pf->n_mem; i++) {
		if (!msap_eq(&pf->mem[i].peer, p))
			continue;
		if (!(pf->mem[i].remember_until > now)) {
			pf->mem[i] = pf->mem[--pf->n_mem];
			return NULL;
		}
		if (pf->n_nb == PEER_NEIGH_MAX)
			return NULL;
		pf->nb[pf->n_nb] = pf->mem[i];
		pf->mem[i] = pf->mem[--pf->n_mem];
		return &pf->nb[pf->n_nb++];
	}
	return NULL;
}

/* FNV-1a over what the MSAP says, TTL aside (lldp_peer_same's equality, compact) */
static uint64_t content_sum(const struct lldp_peer *p)
{
	struct lldp_peer x;
	const unsigned char *c = (const unsigned char *)&x;
	uint64_t h = 1469598103934665603ull;

	/* decoded into zeroed memory (lldp_decode_pdu): padding is the same for the same content */
	memcpy(&x, p, sizeof(x));
	x.ttl = 0;
	for (size_t i = 0; i < sizeof(x); i++)
		h = (h ^ c[i]) * 1099511628211ull;
	return h;
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
		nb->contest_content = false;
	if (!was)
		log_warn("agent: PF %s: link partner %s port %s heard from two source MACs "
			 "(%02x:%02x:%02x:%02x:%02x:%02x, then %02x:%02x:%02x:%02x:%02x:%02x): "
			 "not judged until one of them has been silent past its TTL",
			 pf->name, p->chassis_id, p->port_id, nb->src[0], nb->src[1], nb->src[2],
			 nb->src[3], nb->src[4], nb->src[5], src[0], src[1], src[2], src[3], src[4],
			 src[5]);
	if (p->ttl) {
		nb->peer = nb->judged = *p;
		nb->sum = content_sum(p);
		memcpy(nb->src, src, ETH_ALEN);
		if (now + p->ttl > nb->remember_until)
			nb->remember_until = now + p->ttl;
		if (now + p->ttl > nb->expires) {
			nb->expires = now + p->ttl;
			nb->heard = agent_wall_now();
			nb->expires_wall = nb->heard + p->ttl;
		}
	}
	return !was;
}

/*
 * The MSAP of @nb, heard from its own source MAC, says @p, which differs from
 * what it said. Two speakers with one MSAP and one MAC (a pod's VF replaying
 * the switch's frames, edited, with the switch's MAC as its own) show as
 * content that changes back to something it said whose TTL has not run out,
 * as more than PEER_HIST changes within a TTL (the way around the first: a
 * new content in between), or as changes faster than 802.1AB lets one speaker
 * send (PEER_TX_CREDIT_MAX). Each contests the MSAP until it has said one
 * thing for a whole TTL. A switch whose operator changes PFC once is judged
 * on the new value at once; one reconfigured A -> B -> A within a TTL is
 * contested for one TTL, the price of not being replayed into "agrees".
 * True when the change contests it.
 */
static bool neigh_flip(struct peer_pf *pf, struct peer_neigh *nb, const struct lldp_peer *p,
		       double now)
{
	uint64_t s = content_sum(p);
	size_t live = 0, old = 0;
	bool back = false, fast;

	for (size_t i = 0; i < PEER_HIST; i++) {
		if (nb->hist_until[i] > now) {
			live++;
			back |= nb->hist_sum[i] == s;
		}
		if (nb->hist_until[i] < nb->hist_until[old])
			old = i;
	}
	nb->credit += (now - nb->credit_at) * PEER_TX_CREDIT_PER_S;
	if (nb->credit > PEER_TX_CREDIT_MAX)
		nb->credit = PEER_TX_CREDIT_MAX;
	nb->credit_at = now;
	fast = nb->credit < 1.0 || live == PEER_HIST;
	if (nb->credit >= 1.0)
		nb->credit -= 1.0;
	nb->hist_sum[old] = nb->sum; /* the oldest (or a lapsed) slot takes what it said */
	nb->hist_until[old] = nb->expires;
	nb->sum = s;
	if (!back && !fast)
		return false;
	if (!(nb->contested_until > now)) {
		nb->contest_content = true;
		/* back within PEER_CONTEST_AGAIN TTLs of the last one: twice as long */
		if (nb->contest_end > 0 && now - nb->contest_end < PEER_CONTEST_AGAIN * p->ttl)
			nb->contest_n += nb->contest_n < PEER_CONTEST_SHIFT_MAX;
		else
			nb->contest_n = 0;
		if (nb->logged_at > 0 && now < nb->logged_at + p->ttl)
			nb->quiet++;
		else
			log_warn(
			    "agent: PF %s: link partner %s port %s %s: two speakers with one "
			    "MSAP and source MAC, not judged for %.0f s, until it has said one "
			    "thing that long",
			    pf->name, p->chassis_id, p->port_id,
			    back ? "changed back to what it said within its TTL"
				 : "changes faster than 802.1AB lets one speaker send",
			    (double)p->ttl * (1u << nb->contest_n));
		if (!(nb->logged_at > 0 && now < nb->logged_at + p->ttl))
			nb->logged_at = now;
	}
	nb->settle_until = 0;
	if (now + (double)p->ttl * (1u << nb->contest_n) > nb->contested_until)
		nb->contested_until = now + (double)p->ttl * (1u << nb->contest_n);
	if (nb->expires > nb->contested_until)
		nb->contested_until = nb->expires;
	return true;
}

/*
 * At most one partner-change line per MSAP per TTL (issue 42 item 7): a
 * chatty speaker's changes are counted and named in the next line.
 */
static void neigh_log(const struct peer_pf *pf, struct peer_neigh *nb, const struct lldp_peer *p,
		      bool more, double now)
{
	if (nb && nb->logged_at > 0 && now < nb->logged_at + p->ttl) {
		nb->quiet++;
		return;
	}
	if (nb && nb->quiet)
		log_info("agent: PF %s: link partner %s (%s) port %s (%s), TTL %u s (%lu changes "
			 "since the last line)",
			 pf->name, p->chassis_id, p->sys_name[0] ? p->sys_name : "no system name",
			 p->port_id, p->port_desc[0] ? p->port_desc : "no description", p->ttl,
			 nb->quiet);
	else
		log_info("agent: PF %s: link partner %s (%s) port %s (%s), TTL %u s%s", pf->name,
			 p->chassis_id, p->sys_name[0] ? p->sys_name : "no system name", p->port_id,
			 p->port_desc[0] ? p->port_desc : "no description", p->ttl,
			 more ? ": more than one partner, nothing is judged" : "");
	if (nb) {
		nb->logged_at = now;
		nb->quiet = 0;
	}
}

/* A decoded LLDPDU from @src for @pf's table: true when what the partners say changed. */
static bool neigh_update(struct peer_pf *pf, const struct lldp_peer *p, const uint8_t *src)
{
	struct peer_neigh *nb = NULL;
	double now = peer_mono_now(), settle_ttl;
	bool changed, was_contested, recalled = false;

	for (size_t k = 0; k < pf->n_nb && !nb; k++)
		if (msap_eq(&pf->nb[k].peer, p))
			nb = &pf->nb[k];
	/* an MSAP back within a TTL it announced: what it said before still counts */
	if (!nb && p->ttl && (nb = neigh_recall(pf, p, now)) != NULL) {
		recalled = true;
		log_debug("agent: PF %s: link partner %s port %s is back within its last TTL",
			  pf->name, p->chassis_id, p->port_id);
	}
	if (nb && memcmp(nb->src, src, ETH_ALEN) != 0)
		return neigh_contest(pf, nb, p, src);
	if (p->ttl == 0) {
		/* a shutdown LLDPDU removes its own MSAP, nobody else's (802.1AB 9.2.7.7.4) */
		if (!nb)
			return false;
		log_info("agent: PF %s: link partner %s port %s is leaving (TTL 0)", pf->name,
			 nb->peer.chassis_id, nb->peer.port_id);
		/* the MSAP goes, not its memory: back with other content, it must settle */
		neigh_forget(pf, (size_t)(nb - pf->nb), now);
		return true;
	}
	if (!nb && pf->n_nb == PEER_NEIGH_MAX) {
		if (pf->dropped++ % 1000 == 0)
			log_debug("agent: PF %s: %d neighbours already: %s port %s not kept",
				  pf->name, PEER_NEIGH_MAX, p->chassis_id, p->port_id);
		return false;
	}
	changed = !nb || !lldp_peer_same(&nb->peer, p);
	was_contested = nb && nb->contested_until > now;
	if (changed && nb && (neigh_flip(pf, nb, p, now) || was_contested)) {
		/* changes while contested: nothing judged moves, no pass */
		changed = !was_contested;
	} else if (changed && nb) {
		/* what it said before stays judged until the new content settles (neigh_settle) */
		neigh_log(pf, nb, p, false, now);
		/* half the longer TTL: a sender cannot shorten it by announcing a short one */
		settle_ttl = p->ttl;
		if (nb->peer.ttl > settle_ttl)
			settle_ttl = nb->peer.ttl;
		if (nb->judged.ttl > settle_ttl)
			settle_ttl = nb->judged.ttl;
		nb->settle_until = now + settle_ttl / 2.0;
		changed = false;
	} else if (changed) {
		neigh_log(pf, nb, p, pf->n_nb > 0, now);
	}
	if (!nb) {
		nb = &pf->nb[pf->n_nb++];
		memset(nb, 0, sizeof(*nb));
		nb->sum = content_sum(p);
		nb->credit = PEER_TX_CREDIT_MAX;
		nb->credit_at = now;
		nb->logged_at = now;
		nb->judged = *p; /* a new MSAP: nothing to settle against */
	}
	if (nb->contested_until > now)
		nb->judged = *p; /* not judged while contested; shown as the latest */
	else if (lldp_peer_same(&nb->judged, p))
		nb->judged.ttl =
		    p->ttl; /* the TTL it says now (a settle's floor), not one of old */
	nb->peer = *p;
	memcpy(nb->src, src, ETH_ALEN);
	nb->expires = now + p->ttl;
	if (nb->expires > nb->remember_until)
		nb->remember_until = nb->expires;
	nb->heard = agent_wall_now();
	nb->expires_wall = nb->heard + p->ttl;
	/* back (recalled): a partner again, judged on what it said before */
	return changed || recalled;
}

/* A speaker (MSAP and source MAC) @pf has not heard from: the own MACs are worth a re-read. */
static bool speaker_new(const struct peer_pf *pf, const struct lldp_peer *p, const uint8_t *src)
{
	for (size_t k = 0; k < pf->n_nb; k++)
		if (msap_eq(&pf->nb[k].peer, p))
			return memcmp(pf->nb[k].src, src, ETH_ALEN) != 0;
	return true;
}

/* @src is the source MAC of an MSAP @pf hears now */
static bool partner_mac(const struct peer_pf *pf, const uint8_t *src)
{
	double now = peer_mono_now();

	for (size_t k = 0; k < pf->n_nb; k++)
		if (pf->nb[k].expires > now && !memcmp(pf->nb[k].src, src, ETH_ALEN))
			return true;
	return false;
}

/*
 * A current partner's MAC is also one of the node's (issue 42 item 9): a
 * tenant gave its VF the switch's MAC. Dropping it as own would blind the
 * listener to the switch itself until the tenant leaves, so its frames keep
 * counting; a replay from that MAC is what neigh_flip contests. Warned once
 * per PF. 0: the frame counts.
 */
static int own_is_partner(struct peer_pf *pf, const uint8_t *src)
{
	if (!pf->own_partner)
		log_warn("agent: PF %s: %02x:%02x:%02x:%02x:%02x:%02x is the link partner's MAC "
			 "and one of the node's own (a VF given the switch's MAC): its LLDP "
			 "still counts",
			 pf->name, src[0], src[1], src[2], src[3], src[4], src[5]);
	pf->own_partner = true;
	return 0;
}

/*
 * One frame for @pf, @r what peer_sock.c found of it (0: it counts): true when what the partners
 * say changed (a refresh only sets dirty). */
bool peer_pf_frame(struct peer_book *b, struct peer_pf *pf, int r, const uint8_t *buf, size_t len)
{
	struct lldp_peer p;

	if (r == -EPERM && partner_mac(pf, buf + ETH_ALEN))
		r = own_is_partner(pf, buf + ETH_ALEN);
	if (r == 0)
		r = lldp_decode_frame(buf, len, &p);
	/* a speaker not heard before: the node's MACs may have changed since they were read */
	if (r == 0 && speaker_new(pf, &p, buf + ETH_ALEN) &&
	    peer_mono_now() - b->own_at >= PEER_OWN_MIN_S) {
		peer_own_load(b);
		if (peer_own_mac(b, buf + ETH_ALEN) && !partner_mac(pf, buf + ETH_ALEN))
			r = -EPERM;
	}
	if (r == -EPERM) {
		bool other = memcmp(pf->own_last, buf + ETH_ALEN, ETH_ALEN) != 0;

		memcpy(pf->own_last, buf + ETH_ALEN, ETH_ALEN);
		if (pf->own++ % 1000 == 0 || other)
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

/*
 * A changed content that has stood alone for half its TTL is judged (true:
 * what is judged changed). Half a TTL is two transmit intervals with
 * 802.1AB's default msgTxHold of 4 (TTL = msgTxInterval * msgTxHold + 1,
 * 9.2.5.22; lldpd: tx-interval * tx-hold): a replay of the switch's MSAP
 * hears the switch itself within it, which changes it back (neigh_flip) and
 * contests it, so a replay is never judged, not even until the switch's
 * next frame; a real change is judged within one TTL.
 */
static bool neigh_settle(const struct peer_pf *pf, struct peer_neigh *nb, double now)
{
	if (!(nb->settle_until > 0) || nb->settle_until > now)
		return false;
	nb->settle_until = 0;
	if (nb->contested_until > now || lldp_peer_same(&nb->judged, &nb->peer)) {
		nb->judged = nb->peer;
		return false;
	}
	nb->judged = nb->peer;
	log_debug("agent: PF %s: link partner %s port %s: its new content stood for half a "
		  "TTL: judged",
		  pf->name, nb->peer.chassis_id, nb->peer.port_id);
	return true;
}

/* @pf's MSAPs whose TTL ran out at @now forgotten, ended contests judged: true when any */
bool peer_pf_expire(struct peer_pf *pf, double now)
{
	bool gone = false;

	for (size_t k = pf->n_nb; k-- > 0;) {
		gone |= neigh_settle(pf, &pf->nb[k], now);
		if (pf->nb[k].contested_until > 0 && pf->nb[k].contested_until <= now &&
		    pf->nb[k].expires > now) {
			if (pf->nb[k].contest_content &&
			    now < pf->nb[k].logged_at + pf->nb[k].peer.ttl)
				pf->nb[k].quiet++;
			else
				log_info(
				    "agent: PF %s: link partner %s port %s said one thing from "
				    "one source MAC long enough: judged",
				    pf->name, pf->nb[k].peer.chassis_id, pf->nb[k].peer.port_id);
			pf->nb[k].logged_at = now;
			pf->nb[k].contest_end = now;
			pf->nb[k].contested_until = 0;
			gone = true;
		}
		if (pf->nb[k].expires > now)
			continue;
		log_info("agent: PF %s: link partner %s port %s silent past its TTL: forgotten",
			 pf->name, pf->nb[k].peer.chassis_id, pf->nb[k].peer.port_id);
		neigh_forget(pf, k, now);
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
			if (nb->settle_until > 0 && nb->settle_until < first)
				first = nb->settle_until;
		}
	if (first > 0) {
		its.it_value.tv_sec = (time_t)first;
		its.it_value.tv_nsec = (long)((first - (double)(time_t)first) * 1e9) + 1;
	}
	(void)timerfd_settime(b->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}
