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
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "pkg/log/log.h"
#include "plugin/agent/agent.h"
#include "plugin/core/peer.h"

#ifndef ETH_P_LLDP
#define ETH_P_LLDP 0x88cc
#endif
#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23 /* linux/if_packet.h since 4.20 */
#endif
/* frames read per socket and wakeup: a PF flooding its socket cannot starve the others */
#define PEER_BURST 64

struct peer_pf {
	char name[IF_NAMESIZE];
	int fd, ifindex, open_err;
	bool have;
	struct lldp_peer peer;
	double expires;		    /* monotonic */
	double heard, expires_wall; /* wall clock, for show */
	unsigned long dropped;	    /* frames that did not decode */
};

struct peer_book {
	struct rq_root root;
	int ep, tfd;
	struct peer_pf *pf;
	size_t n;
	bool dirty; /* a frame was heard since RQ_PEER_FILE was written (its expiry moved) */
};

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int peer_book_new(const struct rq_env *env, struct peer_book **ret)
{
	struct peer_book *b = calloc(1, sizeof(*b));
	struct epoll_event ev = {.events = EPOLLIN};
	int r;

	if (!b)
		return -ENOMEM;
	b->root = env->root;
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

/*
 * What the tap passes up (classic BPF, run by the kernel on every frame the
 * PF receives, so nothing else ever wakes the agent): not the node's own
 * outgoing frames (PACKET_IGNORE_OUTGOING keeps them away from 4.20 on; this
 * is for older kernels), untagged (the kernel moves an 802.1Q tag out of the
 * frame before any tap runs: only the ancillary field can tell), Ethertype
 * 0x88cc, sent to 01:80:c2:00:00:0e. The whole frame is accepted.
 */
static const struct sock_filter lldp_tap_code[] = {
    /* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF + SKF_AD_PKTTYPE),
    /* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_OUTGOING, 9, 0),
    /* 2 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF + SKF_AD_VLAN_TAG_PRESENT),
    /* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 7),
    /* 4 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12),
    /* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_LLDP, 0, 5),
    /* 6 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
    /* 7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x0180c200, 0, 3),
    /* 8 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 4),
    /* 9 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x000e, 0, 1),
    /* 10 */ BPF_STMT(BPF_RET | BPF_K, 0xffffffffu),
    /* 11 */ BPF_STMT(BPF_RET | BPF_K, 0),
};

/*
 * The PF is often a bond slave (VF LAG, RoCE LAG, an LACP host bond) or an
 * OVS port (switchdev): its rx_handler (bond_handle_frame,
 * netdev_frame_hook) runs before any protocol handler. A bond hands the
 * active slave's frames to the bond (a socket for ETH_P_LLDP bound to the
 * slave still gets them, but from the bond's ifindex), OVS consumes them.
 * An ETH_P_ALL socket bound to the PF is on the PF's ptype_all list: the
 * kernel runs those taps first, with the frame still the PF's
 * (__netif_receive_skb_core), so the tap hears the switch whatever sits
 * above the PF. PACKET_ORIGDEV: the address names the device the frame
 * arrived on, not the one an rx_handler moved it to (on the tap both are the
 * PF; it keeps pf_drain's ifindex check right all the same). One socket, one
 * hook, on the PF's list alone: a frame reaches it once, not again on the
 * bond's round nor through a protocol handler.
 *
 * Protocol 0 at socket(): the socket hears nothing until bind(), by which
 * time the filter is on, so no frame of another interface or another kind
 * is ever queued.
 */
static int pf_open(struct peer_book *b, struct peer_pf *pf)
{
	static const unsigned char group[ETH_ALEN] = LLDP_MCAST_NEAREST_BRIDGE;
	struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL)};
	struct packet_mreq mr = {.mr_type = PACKET_MR_MULTICAST, .mr_alen = ETH_ALEN};
	struct sock_fprog prog = {.len = sizeof(lldp_tap_code) / sizeof(lldp_tap_code[0]),
				  .filter = (struct sock_filter *)lldp_tap_code};
	struct epoll_event ev = {.events = EPOLLIN};
	int fd, one = 1, idx = (int)if_nametoindex(pf->name);

	if (idx <= 0)
		return -ENODEV;
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	sll.sll_ifindex = idx;
	mr.mr_ifindex = idx;
	memcpy(mr.mr_address, group, ETH_ALEN);
	ev.data.fd = fd;
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0 ||
	    setsockopt(fd, SOL_PACKET, PACKET_ORIGDEV, &one, sizeof(one)) < 0 ||
	    (setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)) < 0 &&
	     errno != ENOPROTOOPT) || /* before 4.20: the filter drops them, after a clone each */
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0 ||
	    setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr)) < 0 ||
	    epoll_ctl(b->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	pf->fd = fd;
	pf->ifindex = idx;
	return 0;
}

static void pf_close(struct peer_pf *pf)
{
	if (pf->fd >= 0)
		close(pf->fd); /* leaves the epoll set with it */
	pf->fd = -1;
	pf->ifindex = 0;
	pf->have = false;
}

static void pf_try_open(struct peer_book *b, struct peer_pf *pf)
{
	int r;

	/* the same name on a new netdev (a driver reload): a new socket, the old partner is gone */
	if (pf->fd >= 0 && (int)if_nametoindex(pf->name) != pf->ifindex) {
		log_info("agent: PF %s changed ifindex: listening for its LLDP again", pf->name);
		pf_close(pf);
	}
	if (pf->fd >= 0)
		return;
	r = pf_open(b, pf);
	if (r == 0) {
		log_info("agent: listening for the link partner's LLDP on %s", pf->name);
	} else if (r != pf->open_err) {
		/* a PF without a host netdev of that name (a simulated one) is normal: debug */
		if (r == -ENODEV)
			log_debug("agent: PF %s: no such netdev here: its partner is not heard",
				  pf->name);
		else
			log_warn(
			    "agent: PF %s: cannot listen for LLDP (%s): its partner is unknown",
			    pf->name, strerror(-r));
	}
	pf->open_err = r;
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
		if (!pf->have || !pfs || !(e = cJSON_AddObjectToObject(pfs, pf->name)))
			continue;
		cJSON_AddItemToObject(e, "peer", peer_to_json(&pf->peer));
		cJSON_AddNumberToObject(e, "heard", pf->heard);
		cJSON_AddNumberToObject(e, "expires", pf->expires_wall);
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
		pf_try_open(b, &nw[i]);
	}
	for (size_t j = 0; j < b->n; j++)
		if (b->pf[j].name[0]) {
			log_info("agent: PF %s no longer watched: not listening for its LLDP",
				 b->pf[j].name);
			pf_close(&b->pf[j]);
		}
	free(b->pf);
	b->pf = nw;
	b->n = n;
	book_save(b);
}

static struct peer_pf *pf_by_fd(struct peer_book *b, int fd)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->pf[i].fd == fd)
			return &b->pf[i];
	return NULL;
}

/* One frame for @pf: true when what the partner says changed (a refresh only sets *dirty). */
static bool pf_frame(struct peer_pf *pf, const uint8_t *buf, size_t len, bool *dirty)
{
	struct lldp_peer p;
	bool changed;
	int r = lldp_decode_frame(buf, len, &p);

	if (r < 0) {
		if (pf->dropped++ % 1000 == 0)
			log_debug(
			    "agent: PF %s: dropped an LLDP frame of %zu bytes (%s; %lu so far)",
			    pf->name, len, strerror(-r), pf->dropped);
		return false;
	}
	*dirty = true;
	if (p.ttl == 0) {
		if (pf->have)
			log_info("agent: PF %s: link partner %s port %s is leaving (TTL 0)",
				 pf->name, pf->peer.chassis_id, pf->peer.port_id);
		changed = pf->have;
		pf->have = false;
		return changed;
	}
	changed = !pf->have || !lldp_peer_same(&pf->peer, &p);
	if (changed)
		log_info("agent: PF %s: link partner %s (%s) port %s (%s), TTL %u s", pf->name,
			 p.chassis_id, p.sys_name[0] ? p.sys_name : "no system name", p.port_id,
			 p.port_desc[0] ? p.port_desc : "no description", p.ttl);
	pf->peer = p;
	pf->have = true;
	pf->expires = mono_now() + p.ttl;
	pf->heard = agent_wall_now();
	pf->expires_wall = pf->heard + p.ttl;
	return changed;
}

static bool pf_drain(struct peer_pf *pf, bool *dirty)
{
	static uint8_t buf[LLDP_FRAME_MAX + 1];
	bool changed = false;

	for (int i = 0; i < PEER_BURST; i++) {
		struct sockaddr_ll from = {0};
		struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
		struct msghdr mh = {.msg_name = &from,
				    .msg_namelen = sizeof(from),
				    .msg_iov = &iov,
				    .msg_iovlen = 1};
		ssize_t n = recvmsg(pf->fd, &mh, MSG_TRUNC);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break; /* EAGAIN: all read; an error: the next frame or pass tells */
		/* never our own (nothing here sends, but another host agent may) nor another PF's;
		 * with PACKET_ORIGDEV the address names the PF even where a bond took the frame */
		if (from.sll_pkttype == PACKET_OUTGOING || from.sll_ifindex != pf->ifindex)
			continue;
		if ((size_t)n > LLDP_FRAME_MAX) {
			pf->dropped++;
			continue;
		}
		changed |= pf_frame(pf, buf, (size_t)n, dirty);
	}
	return changed;
}

static void arm_ttl(struct peer_book *b)
{
	struct itimerspec its = {0};
	double first = 0;

	for (size_t i = 0; i < b->n; i++)
		if (b->pf[i].have && (first == 0 || b->pf[i].expires < first))
			first = b->pf[i].expires;
	if (first > 0) {
		its.it_value.tv_sec = (time_t)first;
		its.it_value.tv_nsec = (long)((first - (double)(time_t)first) * 1e9) + 1;
	}
	(void)timerfd_settime(b->tfd, TFD_TIMER_ABSTIME, &its, NULL);
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
		else if (pf && pf_drain(pf, &b->dirty) && n_who < max)
			(void)snprintf(who[n_who++], 48, "%s", pf->name);
	}
	now = mono_now();
	for (size_t i = 0; i < b->n; i++) {
		if (!b->pf[i].have || b->pf[i].expires > now)
			continue;
		log_info("agent: PF %s: link partner %s port %s silent past its TTL: forgotten",
			 b->pf[i].name, b->pf[i].peer.chassis_id, b->pf[i].peer.port_id);
		b->pf[i].have = false;
		if (n_who < max)
			(void)snprintf(who[n_who++], 48, "%s", b->pf[i].name);
	}
	arm_ttl(b);
	if (n_who || b->dirty)
		book_save(b);
	b->dirty = false;
	return n_who;
}

const struct lldp_peer *peer_book_get(const struct peer_book *b, const char *pf,
				      bool *ret_listening)
{
	*ret_listening = false;
	for (size_t i = 0; b && i < b->n; i++) {
		if (strcmp(b->pf[i].name, pf) != 0)
			continue;
		*ret_listening = b->pf[i].fd >= 0;
		return b->pf[i].have ? &b->pf[i].peer : NULL;
	}
	return NULL;
}
