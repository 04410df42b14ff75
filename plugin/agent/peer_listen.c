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
 * nearest-bridge address count (frame_accept), and a frame whose source MAC is
 * one of the node's own PF or VF MACs is dropped: in legacy SR-IOV the eswitch
 * delivers a pod's VF multicast to the PF, and a pod has CAP_NET_RAW. With
 * more than one neighbour nothing is judged (peer_metrics.c, show).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
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
#include "pkg/netns/netns.h"
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
/*
 * Neighbours kept per PF. One is the norm, a few an EVPN fabric; beyond this a
 * new MSAP is not kept (the count stays above one: nothing is judged anyway).
 */
#define PEER_NEIGH_MAX 8
/* the node's own MACs are re-read at most this often when a new speaker shows up */
#define PEER_OWN_MIN_S 1.0
/* VFs per PF whose MAC the PF reports that are read (mlx5 has at most 127 per PF) */
#define PEER_OWN_VFS 256

struct peer_neigh {
	struct lldp_peer peer;
	uint8_t src[ETH_ALEN];	    /* the source MAC it was last heard from */
	double expires;		    /* monotonic */
	double heard, expires_wall; /* wall clock, for show */
	/*
	 * monotonic; while later than now the MSAP was heard from two source MACs
	 * (a second speaker copying the switch's chassis and port ID): not judged
	 */
	double contested_until;
};

struct peer_pf {
	char name[IF_NAMESIZE];
	int fd, ifindex, open_err;
	struct peer_neigh nb[PEER_NEIGH_MAX];
	size_t n_nb;
	unsigned long dropped; /* frames that did not decode or were not the nearest bridge's */
	unsigned long own;     /* frames from one of the node's own MACs */
};

struct peer_book {
	struct rq_root root;
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

/*
 * What the tap passes up (classic BPF, run by the kernel on every frame the
 * PF receives, so nothing else ever wakes the agent): not the node's own
 * outgoing frames (PACKET_IGNORE_OUTGOING keeps them away from 4.20 on; this
 * is for older kernels), untagged or VID 0 (the kernel moves an 802.1Q tag
 * out of the frame before any tap runs: only the ancillary field can tell;
 * frame_accept's rule, VID 0 being a priority tag), Ethertype 0x88cc, sent to
 * 01:80:c2:00:00:0e. The whole frame is accepted. frame_accept checks all but
 * the pkttype again: this only keeps the rest from waking the agent.
 */
static const struct sock_filter lldp_tap_code[] = {
    /* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF + SKF_AD_PKTTYPE),
    /* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_OUTGOING, 10, 0),
    /* 2 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF + SKF_AD_VLAN_TAG),
    /* 3 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0x0fff),
    /* 4 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 7),
    /* 5 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12),
    /* 6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_LLDP, 0, 5),
    /* 7 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
    /* 8 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x0180c200, 0, 3),
    /* 9 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 4),
    /* 10 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x000e, 0, 1),
    /* 11 */ BPF_STMT(BPF_RET | BPF_K, 0xffffffffu),
    /* 12 */ BPF_STMT(BPF_RET | BPF_K, 0),
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
	pf->n_nb = 0;
}

static int pf_accept_setup(struct peer_pf *pf);

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
	if (r == 0)
		r = pf_accept_setup(pf);
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

/* "partners": every current MSAP, [{"peer", "heard", "expires"}] */
static void neigh_json(cJSON *e, const struct peer_pf *pf)
{
	cJSON *a = cJSON_AddArrayToObject(e, "partners"), *x;

	for (size_t k = 0; a && k < pf->n_nb; k++) {
		if (!(x = cJSON_CreateObject()))
			return;
		cJSON_AddItemToObject(x, "peer", peer_to_json(&pf->nb[k].peer));
		cJSON_AddNumberToObject(x, "heard", pf->nb[k].heard);
		cJSON_AddNumberToObject(x, "expires", pf->nb[k].expires_wall);
		if (pf->nb[k].contested_until > mono_now())
			cJSON_AddBoolToObject(x, "contested", true);
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
		if (pf->n_nb == 1 && !(pf->nb[0].contested_until > mono_now())) {
			cJSON_AddItemToObject(e, "peer", peer_to_json(&pf->nb[0].peer));
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
	double now = mono_now(), until = now + p->ttl;
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
	nb->expires = mono_now() + p->ttl;
	nb->heard = agent_wall_now();
	nb->expires_wall = nb->heard + p->ttl;
	return changed;
}

/*
 * The node's own MACs: each watched PF netdev's and each of its VFs' whose
 * netdev is in the host netns (/sys/class/net/<pf>/address,
 * <pf>/device/virtfn<N>/net/<vf>/address; the sim root's files in the sim),
 * and the MAC the PF set for each VF (rtnetlink IFLA_VF_MAC: a VF inside a
 * pod has no netdev in the host's sysfs).
 * Read lazily: only when a frame arrives after a pass ran (own_stale), or
 * from a speaker not heard from before (at most once a second), so a quiet
 * switch costs nothing and a flood of new speakers costs one re-read a second.
 */
static void own_put(struct peer_book *b, const uint8_t *mac, size_t *cap)
{
	if (b->n_own == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		uint8_t(*g)[ETH_ALEN] = realloc(b->own, nc * sizeof(*g));

		if (!g)
			return;
		b->own = g;
		*cap = nc;
	}
	memcpy(b->own[b->n_own++], mac, ETH_ALEN);
}

static void own_add(struct peer_book *b, const char *path, size_t *cap)
{
	char buf[32];
	unsigned m[ETH_ALEN];
	uint8_t mac[ETH_ALEN];

	if (sysfs_read_str(&b->root, path, buf, sizeof(buf)) < 0 ||
	    sscanf(buf, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) != 6)
		return;
	for (int i = 0; i < ETH_ALEN; i++)
		mac[i] = (uint8_t)m[i];
	own_put(b, mac, cap);
}

/* the VFs' MACs the PF reports (the real netdev of that name; none for a simulated PF) */
static void own_add_vf_admin(struct peer_book *b, const char *pf, size_t *cap)
{
	uint8_t(*macs)[ETH_ALEN] = calloc(PEER_OWN_VFS, ETH_ALEN);
	int n = macs ? netns_link_vf_macs(pf, macs, PEER_OWN_VFS) : -ENOMEM;

	for (int i = 0; i < n; i++)
		own_put(b, macs[i], cap);
	free(macs);
}

static void own_macs_load(struct peer_book *b)
{
	size_t cap = b->n_own = 0;

	free(b->own);
	b->own = NULL;
	for (size_t i = 0; i < b->n; i++) {
		char path[PATH_MAX], **fn = NULL, **vn = NULL;
		size_t nf = 0, nv = 0;

		(void)snprintf(path, sizeof(path), "/sys/class/net/%s/address", b->pf[i].name);
		own_add(b, path, &cap);
		if (b->pf[i].fd >= 0)
			own_add_vf_admin(b, b->pf[i].name, &cap);
		(void)snprintf(path, sizeof(path), "/sys/class/net/%s/device", b->pf[i].name);
		if (sysfs_list(&b->root, path, &fn, &nf) < 0)
			continue;
		for (size_t f = 0; f < nf; f++) {
			if (strncmp(fn[f], "virtfn", 6) != 0)
				continue;
			(void)snprintf(path, sizeof(path), "/sys/class/net/%s/device/%s/net",
				       b->pf[i].name, fn[f]);
			if (sysfs_list(&b->root, path, &vn, &nv) < 0)
				continue;
			for (size_t v = 0; v < nv; v++) {
				(void)snprintf(path, sizeof(path),
					       "/sys/class/net/%s/device/%s/net/%s/address",
					       b->pf[i].name, fn[f], vn[v]);
				own_add(b, path, &cap);
			}
			sysfs_list_free(vn, nv);
		}
		sysfs_list_free(fn, nf);
	}
	b->own_stale = false;
	b->own_at = mono_now();
}

static bool own_mac(const struct peer_book *b, const uint8_t *src)
{
	for (size_t i = 0; i < b->n_own; i++)
		if (!memcmp(b->own[i], src, ETH_ALEN))
			return true;
	return false;
}

/* A speaker (MSAP and source MAC) @pf has not heard from: the own MACs are worth a re-read. */
static bool speaker_new(const struct peer_pf *pf, const struct lldp_peer *p, const uint8_t *src)
{
	for (size_t k = 0; k < pf->n_nb; k++)
		if (msap_eq(&pf->nb[k].peer, p))
			return memcmp(pf->nb[k].src, src, ETH_ALEN) != 0;
	return true;
}

/* PACKET_AUXDATA: the kernel untags a VLAN frame before a packet socket sees it (frame_accept) */
static int pf_accept_setup(struct peer_pf *pf)
{
	int on = 1;

	if (setsockopt(pf->fd, SOL_PACKET, PACKET_AUXDATA, &on, sizeof(on)) < 0) {
		int r = -errno;

		pf_close(pf);
		return r;
	}
	return 0;
}

/*
 * Whether a frame read from @pf's socket counts: untagged, to the
 * nearest-bridge address, from a MAC that is not the node's own. 0, or the
 * reason it does not (-EPROTO tagged, -EADDRNOTAVAIL another destination,
 * -EPERM the node's own MAC).
 *
 * A packet socket never sees the tag in the data: __netif_receive_skb_core
 * untags every 802.1Q frame first (skb_vlan_untag). A VID that no VLAN device
 * takes is then marked PACKET_OTHERHOST and its tag cleared before protocol
 * handlers run, so a socket bound to ETH_P_LLDP knows it only by that
 * pkttype; a tap that runs before (ETH_P_ALL) still has the tag in the
 * auxdata (TP_STATUS_VLAN_VALID). A VID of 0 (a priority tag) is untagged in
 * 802.1Q's sense and counts. A VID a VLAN device takes arrives on that device
 * (another ifindex): not the PF's.
 */
static int frame_accept(struct peer_book *b, const struct msghdr *mh, const uint8_t *buf,
			size_t len)
{
	static const uint8_t nearest[ETH_ALEN] = LLDP_MCAST_NEAREST_BRIDGE;
	const struct sockaddr_ll *from = mh->msg_name;

	if (from && from->sll_pkttype == PACKET_OTHERHOST)
		return -EPROTO;

	for (struct cmsghdr *c = CMSG_FIRSTHDR((struct msghdr *)mh); c;
	     c = CMSG_NXTHDR((struct msghdr *)mh, c)) {
		struct tpacket_auxdata aux;

		if (c->cmsg_level != SOL_PACKET || c->cmsg_type != PACKET_AUXDATA ||
		    c->cmsg_len < CMSG_LEN(sizeof(aux)))
			continue;
		memcpy(&aux, CMSG_DATA(c), sizeof(aux));
		if ((aux.tp_status & TP_STATUS_VLAN_VALID) && (aux.tp_vlan_tci & 0x0fff))
			return -EPROTO;
	}
	if (len < 2 * ETH_ALEN)
		return -EPROTO;
	if (memcmp(buf, nearest, ETH_ALEN) != 0)
		return -EADDRNOTAVAIL;
	if (b->own_stale)
		own_macs_load(b);
	return own_mac(b, buf + ETH_ALEN) ? -EPERM : 0;
}

/* One frame for @pf: true when what the partners say changed (a refresh only sets dirty). */
static bool pf_frame(struct peer_book *b, struct peer_pf *pf, const struct msghdr *mh,
		     const uint8_t *buf, size_t len)
{
	struct lldp_peer p;
	int r = frame_accept(b, mh, buf, len);

	if (r == 0)
		r = lldp_decode_frame(buf, len, &p);
	/* a speaker not heard before: the node's MACs may have changed since they were read */
	if (r == 0 && speaker_new(pf, &p, buf + ETH_ALEN) &&
	    mono_now() - b->own_at >= PEER_OWN_MIN_S) {
		own_macs_load(b);
		if (own_mac(b, buf + ETH_ALEN))
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

static bool pf_drain(struct peer_book *b, struct peer_pf *pf)
{
	static uint8_t buf[LLDP_FRAME_MAX + 1];
	bool changed = false;

	for (int i = 0; i < PEER_BURST; i++) {
		struct sockaddr_ll from = {0};
		union {
			char b[CMSG_SPACE(sizeof(struct tpacket_auxdata))];
			struct cmsghdr align;
		} cbuf;
		struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
		struct msghdr mh = {.msg_name = &from,
				    .msg_namelen = sizeof(from),
				    .msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = cbuf.b,
				    .msg_controllen = sizeof(cbuf.b)};
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
		changed |= pf_frame(b, pf, &mh, buf, (size_t)n);
	}
	return changed;
}

static void arm_ttl(struct peer_book *b)
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
		else if (pf && pf_drain(b, pf) && n_who < max)
			(void)snprintf(who[n_who++], 48, "%s", pf->name);
	}
	now = mono_now();
	for (size_t i = 0; i < b->n; i++) {
		struct peer_pf *pf = &b->pf[i];
		bool gone = false;

		for (size_t k = pf->n_nb; k-- > 0;) {
			if (pf->nb[k].contested_until > 0 && pf->nb[k].contested_until <= now &&
			    pf->nb[k].expires > now) {
				log_info(
				    "agent: PF %s: link partner %s port %s heard from one source "
				    "MAC again: judged",
				    pf->name, pf->nb[k].peer.chassis_id, pf->nb[k].peer.port_id);
				pf->nb[k].contested_until = 0;
				gone = true;
			}
			if (pf->nb[k].expires > now)
				continue;
			log_info(
			    "agent: PF %s: link partner %s port %s silent past its TTL: forgotten",
			    pf->name, pf->nb[k].peer.chassis_id, pf->nb[k].peer.port_id);
			neigh_drop(pf, k);
			gone = true;
		}
		if (gone && n_who < max)
			(void)snprintf(who[n_who++], 48, "%s", pf->name);
	}
	arm_ttl(b);
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
	return x && x->n_nb == 1 && !(x->nb[0].contested_until > mono_now()) ? &x->nb[0].peer
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

	return x && k < x->n_nb ? &x->nb[k].peer : NULL;
}
