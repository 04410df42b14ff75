// SPDX-License-Identifier: Apache-2.0
/*
 * The link partners' LLDP (DESIGN.md "The link partner"): one AF_PACKET
 * socket per watched PF, in the host netns, a tap on the PF netdev's ifindex
 * (ETH_P_ALL, filtered in the kernel down to untagged LLDP to the
 * nearest-bridge group address, which it joins), all in one epoll of the
 * book's own that the agent's loop polls as a single fd. It is
 * woken by a frame or by the earliest TTL running out (a timerfd), never by
 * a clock tick, and it never sends. A frame changes only the entry of the
 * socket it came in on, and only when it decodes: a hostile frame is dropped
 * and the partner heard before stays until its TTL. Every change of a partner
 * is written to RQ_PEER_FILE for `show`.
 *
 * Who counts (802.1AB 9.2.7.7: neighbours by MSAP): each PF keeps a table of
 * neighbours keyed by chassis ID + port ID, each with its own TTL; a shutdown
 * LLDPDU (TTL 0) removes only its own MSAP. Only untagged frames to the
 * nearest-bridge address count (peer_sock.c), and a frame whose source MAC is
 * one of the node's own PF or VF MACs is dropped: in legacy SR-IOV the eswitch
 * delivers a pod's VF multicast to the PF, and a pod has CAP_NET_RAW. With
 * more than one neighbour nothing is judged (peer_metrics.c, show).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "pkg/log/log.h"
#include "plugin/lldp/peer_int.h"
#include "plugin/lldp/peer_book.h"

int peer_book_new(const struct rq_env *env, struct peer_book **ret)
{
	struct peer_book *b = calloc(1, sizeof(*b));
	struct epoll_event ev = {.events = EPOLLIN};
	int r;

	if (!b)
		return -ENOMEM;
	b->root = env->root;
	b->env = env;
	b->ep = epoll_create1(EPOLL_CLOEXEC);
	b->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	ev.data.fd = b->tfd;
	if (b->ep < 0 || b->tfd < 0 || epoll_ctl(b->ep, EPOLL_CTL_ADD, b->tfd, &ev) < 0) {
		r = -errno;
		peer_book_free(b);
		return r;
	}
	*ret = b;
	return 0;
}

void peer_book_free(struct peer_book *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++)
		if (b->pf[i].fd >= 0)
			close(b->pf[i].fd);
	free(b->pf);
	free(b->own);
	if (b->tfd >= 0)
		close(b->tfd);
	if (b->ep >= 0)
		close(b->ep);
	free(b);
}

int peer_book_fd(const struct peer_book *b)
{
	return b ? b->ep : -1;
}

/* "partners": every current MSAP, [{"peer", "heard", "expires"}] */
static void neigh_json(cJSON *e, const struct peer_pf *pf)
{
	cJSON *a = cJSON_AddArrayToObject(e, "partners"), *x;

	for (size_t k = 0; a && k < pf->n_nb; k++) {
		if (!(x = cJSON_CreateObject()))
			return;
		cJSON_AddItemToObject(x, "peer", peer_to_json(&pf->nb[k].judged));
		cJSON_AddNumberToObject(x, "heard", pf->nb[k].heard);
		cJSON_AddNumberToObject(x, "expires", pf->nb[k].expires_wall);
		if (pf->nb[k].contested_until > peer_mono_now()) {
			cJSON_AddBoolToObject(x, "contested", true);
			cJSON_AddStringToObject(x, "contest",
						pf->nb[k].contest_content ? "content" : "mac");
		}
		cJSON_AddItemToArray(a, x);
	}
}

static cJSON *book_json(const struct peer_book *b)
{
	cJSON *o = cJSON_CreateObject(), *pfs = cJSON_AddObjectToObject(o, "pfs");
	cJSON *l = cJSON_AddArrayToObject(o, "listening");

	for (size_t i = 0; i < b->n; i++) {
		const struct peer_pf *pf = &b->pf[i];
		cJSON *e;

		if (pf->fd >= 0 && l)
			cJSON_AddItemToArray(l, cJSON_CreateString(pf->name));
		if (!pf->n_nb || !pfs || !(e = cJSON_AddObjectToObject(pfs, pf->name)))
			continue;
		/* one partner: as before, "peer" beside "partners" */
		if (pf->n_nb == 1 && !(pf->nb[0].contested_until > peer_mono_now())) {
			cJSON_AddItemToObject(e, "peer", peer_to_json(&pf->nb[0].judged));
			cJSON_AddNumberToObject(e, "heard", pf->nb[0].heard);
			cJSON_AddNumberToObject(e, "expires", pf->nb[0].expires_wall);
		}
		neigh_json(e, pf);
	}
	return o;
}

static void book_save(const struct peer_book *b)
{
	cJSON *o = book_json(b);
	char *s = o ? cJSON_PrintUnformatted(o) : NULL;
	int r = s ? sysfs_write_replace(&b->root, RQ_PEER_FILE, s, strlen(s)) : -ENOMEM;

	if (r < 0)
		log_warn("agent: writing %s: %s", RQ_PEER_FILE, strerror(-r));
	free(s);
	cJSON_Delete(o);
}

void peer_book_watch(struct peer_book *b, char (*names)[IF_NAMESIZE], size_t n)
{
	struct peer_pf *nw = calloc(n ? n : 1, sizeof(*nw));

	if (!nw)
		return; /* keep watching what we watch */
	for (size_t i = 0; i < n; i++) {
		struct peer_pf *old = NULL;

		for (size_t j = 0; j < b->n && !old; j++)
			if (b->pf[j].name[0] && !strcmp(b->pf[j].name, names[i]))
				old = &b->pf[j];
		if (old) {
			nw[i] = *old;
			old->name[0] = '\0'; /* moved */
			old->fd = -1;
		} else {
			(void)snprintf(nw[i].name, sizeof(nw[i].name), "%s", names[i]);
			nw[i].fd = -1;
		}
		peer_pf_try_open(b, &nw[i]);
	}
	for (size_t j = 0; j < b->n; j++)
		if (b->pf[j].name[0]) {
			log_info("agent: PF %s no longer watched: not listening for its LLDP",
				 b->pf[j].name);
			peer_pf_close(&b->pf[j]);
		}
	free(b->pf);
	b->pf = nw;
	b->n = n;
	b->own_stale = true; /* a pass ran: VFs may have come, gone or changed MAC */
	book_save(b);
}

static struct peer_pf *pf_by_fd(struct peer_book *b, int fd)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->pf[i].fd == fd)
			return &b->pf[i];
	return NULL;
}

size_t peer_book_ready(struct peer_book *b, char who[][48], size_t max)
{
	struct epoll_event evs[16];
	size_t n_who = 0;
	int n = epoll_wait(b->ep, evs, 16, 0);
	double now;

	for (int i = 0; i < n; i++) {
		struct peer_pf *pf = pf_by_fd(b, evs[i].data.fd);
		uint64_t ticks;

		if (evs[i].data.fd == b->tfd)
			(void)!read(b->tfd, &ticks, sizeof(ticks));
		else if (pf && peer_pf_drain(b, pf) && n_who < max)
			(void)snprintf(who[n_who++], 48, "%s", pf->name);
	}
	now = peer_mono_now();
	for (size_t i = 0; i < b->n; i++)
		if (peer_pf_expire(&b->pf[i], now) && n_who < max)
			(void)snprintf(who[n_who++], 48, "%s", b->pf[i].name);
	peer_arm_ttl(b);
	if (n_who || b->dirty)
		book_save(b);
	b->dirty = false;
	return n_who;
}

static const struct peer_pf *pf_by_name(const struct peer_book *b, const char *pf)
{
	for (size_t i = 0; b && i < b->n; i++)
		if (!strcmp(b->pf[i].name, pf))
			return &b->pf[i];
	return NULL;
}

const struct lldp_peer *peer_book_get(const struct peer_book *b, const char *pf,
				      bool *ret_listening)
{
	const struct peer_pf *x = pf_by_name(b, pf);

	*ret_listening = x && x->fd >= 0;
	return x && x->n_nb == 1 && !(x->nb[0].contested_until > peer_mono_now()) ? &x->nb[0].judged
										  : NULL;
}

size_t peer_book_count(const struct peer_book *b, const char *pf)
{
	const struct peer_pf *x = pf_by_name(b, pf);

	return x ? x->n_nb : 0;
}

const struct lldp_peer *peer_book_nth(const struct peer_book *b, const char *pf, size_t k)
{
	const struct peer_pf *x = pf_by_name(b, pf);

	return x && k < x->n_nb ? &x->nb[k].judged : NULL;
}
