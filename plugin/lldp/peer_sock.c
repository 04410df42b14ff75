// SPDX-License-Identifier: Apache-2.0
/*
 * A watched PF's LLDP socket (peer_int.h): an AF_PACKET tap on the PF
 * netdev's ifindex in the host netns, its classic BPF filter, and what a
 * frame read from it must be to count (untagged, to the nearest-bridge
 * group address, not from one of the node's own MACs). What the frame says
 * is peer_neigh.c's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pkg/log/log.h"
#include "plugin/lldp/peer_int.h"

#ifndef ETH_P_LLDP
#define ETH_P_LLDP 0x88cc
#endif
#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23 /* linux/if_packet.h since 4.20 */
#endif
/* frames read per socket and wakeup: a PF flooding its socket cannot starve the others */
#define PEER_BURST 64

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

void peer_pf_close(struct peer_pf *pf)
{
	if (pf->fd >= 0)
		close(pf->fd); /* leaves the epoll set with it */
	pf->fd = -1;
	pf->ifindex = 0;
	pf->n_nb = 0;
	pf->n_mem = 0;
}

/* PACKET_AUXDATA: the kernel untags a VLAN frame before a packet socket sees it (frame_accept) */
static int pf_accept_setup(struct peer_pf *pf)
{
	int on = 1;

	if (setsockopt(pf->fd, SOL_PACKET, PACKET_AUXDATA, &on, sizeof(on)) < 0) {
		int r = -errno;

		peer_pf_close(pf);
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
		peer_own_load(b);
	return peer_own_mac(b, buf + ETH_ALEN) ? -EPERM : 0;
}

void peer_pf_try_open(struct peer_book *b, struct peer_pf *pf)
{
	int r;

	/* the same name on a new netdev (a driver reload): a new socket, the old partner is gone */
	if (pf->fd >= 0 && (int)if_nametoindex(pf->name) != pf->ifindex) {
		log_info("agent: PF %s changed ifindex: listening for its LLDP again", pf->name);
		peer_pf_close(pf);
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

bool peer_pf_drain(struct peer_book *b, struct peer_pf *pf)
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
		changed |=
		    peer_pf_frame(b, pf, frame_accept(b, &mh, buf, (size_t)n), buf, (size_t)n);
	}
	return changed;
}
