// SPDX-License-Identifier: Apache-2.0
/*
 * The link partner's families (DESIGN.md "The link partner") and the
 * rdma-qos.peer NFD word, rendered after each pass from the partners the
 * book holds (peer_listen.c) and each watched PF's target as the pass built
 * it. A series exists only for what the partner advertises; an item it does
 * not advertise, or that the PF does not require, has no agreement series
 * (unknown), never a 0. With more than one partner on a PF (an EVPN fabric, a
 * pod's VF or a VM speaking LLDP) only who they are is rendered: nothing is
 * judged, and no partner's TLVs stand for the PF's.
 */
#include <linux/dcbnl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/promtext/promtext.h"
#include "plugin/pass/pass_int.h"
#include "plugin/judge/peer.h"
#include "plugin/telemetry/tel_ecn.h"
#include "plugin/agent/metrics.h"
#include "plugin/lldp/peer_book.h"
#include "plugin/pass/pass.h"

void peer_pass_collect(struct pass *p, const struct dcb_ops *ops, void *dcb)
{
	struct dcb_port_state *st = ops ? calloc(1, sizeof(*st)) : NULL;
	struct peer_target *t = calloc(p->n_pfs ? p->n_pfs : 1, sizeof(*t));
	size_t n;

	if (!t) {
		free(st);
		return;
	}
	for (size_t i = 0; i < p->n_pfs; i++) {
		const struct pf_acc *acc = &p->pfs[i];

		(void)snprintf(t[i].pf, sizeof(t[i].pf), "%s", acc->pf.ifname);
		t[i].has_t = acc->any_ensure || acc->any_verify;
		if (t[i].has_t)
			pass_pf_target(p, acc, &t[i].t);
		wiring_pass_collect(&t[i], p->cat, acc->pf.pci);
	}
	/* the rail ports node.wiring names, with no pod and no baseline on them yet */
	n = wiring_pass_ports(&p->a->env.root, p->cat, &t, p->n_pfs);
	for (size_t i = 0; i < n; i++) {
		t[i].mtu = peer_pf_mtu(&p->a->env.root, t[i].pf);
		t[i].vst = peer_pf_vst(t[i].pf);
		/* dcbnl's IEEE_GET carries DCB_ATTR_DCBX, the driver's getdcbx (GDCBX's answer) */
		if (st && ops->get(dcb, t[i].pf, st) == 0 && st->has_dcbx) {
			t[i].has_dcbx = true;
			t[i].dcbx = st->dcbx;
		}
	}
	free(p->rep->peer_t);
	p->rep->peer_t = t;
	p->rep->n_peer_t = n;
	free(st);
}

void peer_watch_pass(struct agent *a, const struct pass_report *rep)
{
	char(*names)[IF_NAMESIZE];

	if (!a->peers)
		return;
	names = calloc(rep->n_peer_t ? rep->n_peer_t : 1, sizeof(*names));
	if (!names)
		return;
	for (size_t i = 0; i < rep->n_peer_t; i++)
		(void)snprintf(names[i], IF_NAMESIZE, "%s", rep->peer_t[i].pf);
	peer_book_watch(a->peers, names, rep->n_peer_t);
	free(names);
}

static void render_info(FILE *f, const struct agent *a, const struct pass_report *rep)
{
	char e[4][600], pf[64];
	const struct lldp_peer *p;
	bool listening;

	prom_family(
	    f, "rdma_qos_peer_seen", "gauge",
	    "1 while the link partner's LLDP on the PF is current (within its TTL), else 0.");
	for (size_t i = 0; i < rep->n_peer_t; i++)
		(void)fprintf(f, "rdma_qos_peer_seen{pf=\"%s\"} %d\n",
			      prom_label_esc(rep->peer_t[i].pf, pf, sizeof(pf)),
			      peer_book_count(a->peers, rep->peer_t[i].pf) > 0);
	prom_family(
	    f, "rdma_qos_peer_partners", "gauge",
	    "LLDP neighbours (MSAPs: chassis ID + port ID) current on the PF; more than one: "
	    "nothing is judged.");
	for (size_t i = 0; i < rep->n_peer_t; i++)
		(void)fprintf(f, "rdma_qos_peer_partners{pf=\"%s\"} %zu\n",
			      prom_label_esc(rep->peer_t[i].pf, pf, sizeof(pf)),
			      peer_book_count(a->peers, rep->peer_t[i].pf));
	prom_family(f, "rdma_qos_peer_info", "gauge",
		    "The link partner heard on the PF: chassis ID, port ID, system name, port "
		    "description (always 1; one series per partner).");
	for (size_t i = 0; i < rep->n_peer_t; i++) {
		for (size_t k = 0; (p = peer_book_nth(a->peers, rep->peer_t[i].pf, k)); k++)
			(void)fprintf(
			    f,
			    "rdma_qos_peer_info{pf=\"%s\",chassis_id=\"%s\",port_id=\"%s\","
			    "system_name=\"%s\",port_description=\"%s\"} 1\n",
			    prom_label_esc(rep->peer_t[i].pf, pf, sizeof(pf)),
			    prom_label_esc(p->chassis_id, e[0], sizeof(e[0])),
			    prom_label_esc(p->port_id, e[1], sizeof(e[1])),
			    prom_label_esc(p->sys_name, e[2], sizeof(e[2])),
			    prom_label_esc(p->port_desc, e[3], sizeof(e[3])));
	}
	prom_family(
	    f, "rdma_qos_peer_dcbx", "gauge",
	    "The link partner's DCBX flavour (1): ieee (802.1Qaz TLVs), cee (DCBX v1.01), cin "
	    "(DCBX v1.00), none.");
	for (size_t i = 0; i < rep->n_peer_t; i++)
		if ((p = peer_book_get(a->peers, rep->peer_t[i].pf, &listening)))
			(void)fprintf(f, "rdma_qos_peer_dcbx{pf=\"%s\",version=\"%s\"} 1\n",
				      prom_label_esc(rep->peer_t[i].pf, pf, sizeof(pf)),
				      lldp_dcbx_name(lldp_dcbx_version(p)));
}

static void render_dcb(FILE *f, const struct agent *a, const struct pass_report *rep)
{
	const struct lldp_peer *p;
	char pf[64];
	uint8_t en;
	bool l, w;

	prom_family(
	    f, "rdma_qos_peer_pfc_enabled", "gauge",
	    "1 when the link partner advertises PFC on the priority (802.1Qaz PFC TLV, else "
	    "the CEE/CIN PFC feature).");
	for (size_t i = 0; i < rep->n_peer_t; i++)
		for (int pr = 0; (p = peer_book_get(a->peers, rep->peer_t[i].pf, &l)) &&
				 lldp_peer_pfc(p, &en, &w) && pr < 8;
		     pr++)
			(void)fprintf(f, "rdma_qos_peer_pfc_enabled{pf=\"%s\",prio=\"%d\"} %d\n",
				      prom_label_esc(rep->peer_t[i].pf, pf, sizeof(pf)), pr,
				      (en >> pr) & 1);
	prom_family(
	    f, "rdma_qos_peer_pfc_willing", "gauge",
	    "1 when the link partner's PFC TLV says willing (rdma-qos never acts on it; a NIC "
	    "whose firmware runs DCBX may).");
	for (size_t i = 0; i < rep->n_peer_t; i++)
		if ((p = peer_book_get(a->peers, rep->peer_t[i].pf, &l)) &&
		    lldp_peer_pfc(p, &en, &w))
			(void)fprintf(f, "rdma_qos_peer_pfc_willing{pf=\"%s\"} %d\n",
				      prom_label_esc(rep->peer_t[i].pf, pf, sizeof(pf)), w);
	prom_family(f, "rdma_qos_peer_dscp_priority", "gauge",
		    "The priority the link partner maps the DSCP to (Application Priority TLV, "
		    "selector 5; the lowest where it advertises several).");
	for (size_t i = 0; i < rep->n_peer_t; i++)
		for (int d = 0; (p = peer_book_get(a->peers, rep->peer_t[i].pf, &l)) && d < 64; d++)
			if (p->dscp_mask & (1ULL << d))
				(void)fprintf(
				    f, "rdma_qos_peer_dscp_priority{pf=\"%s\",dscp=\"%d\"} %d\n",
				    prom_label_esc(rep->peer_t[i].pf, pf, sizeof(pf)), d,
				    lldp_prio_first(p->dscp_prio[d]));
	prom_family(f, "rdma_qos_peer_max_frame_bytes", "gauge",
		    "The link partner's maximum frame size (802.3 TLV), bytes including the FCS.");
	for (size_t i = 0; i < rep->n_peer_t; i++)
		if ((p = peer_book_get(a->peers, rep->peer_t[i].pf, &l)) && p->has_max_frame)
			(void)fprintf(f, "rdma_qos_peer_max_frame_bytes{pf=\"%s\"} %u\n",
				      prom_label_esc(rep->peer_t[i].pf, pf, sizeof(pf)),
				      p->max_frame);
}

static void judge(const struct agent *a, const struct peer_target *t, struct peer_judgement *j)
{
	bool l;

	peer_judge(peer_book_get(a->peers, t->pf, &l), t->has_t ? &t->t : NULL, t->mtu, t->vst, j);
}

const struct peer_judgement *peer_pass_judge(const struct agent *a, const struct pass_report *rep,
					     const char *pf, struct peer_judgement *j, char *why,
					     size_t len)
{
	bool listening = false;

	if (!a->peers) {
		(void)snprintf(why, len, "agent --once listens to no link partner");
		return NULL;
	}
	for (size_t i = 0; i < rep->n_peer_t; i++) {
		if (strcmp(rep->peer_t[i].pf, pf) != 0)
			continue;
		if (!peer_book_get(a->peers, pf, &listening)) {
			size_t n = peer_book_count(a->peers, pf);

			(void)snprintf(why, len, "%s",
				       n > 1	   ? "more than one link partner heard"
				       : listening ? "no link partner heard (LLDP silent)"
						   : "not listening on the PF");
			return NULL;
		}
		judge(a, &rep->peer_t[i], j);
		return j;
	}
	(void)snprintf(why, len, "the PF is not watched");
	return NULL;
}

static void render_agreement(FILE *f, const struct agent *a, const struct pass_report *rep)
{
	struct peer_judgement j;
	char pf[64];

	prom_family(f, "rdma_qos_peer_agreement", "gauge",
		    "1 when the link partner agrees with the PF's target on the item, 0 when it "
		    "disagrees; no series: unknown (not advertised, or nothing required).");
	for (size_t i = 0; i < rep->n_peer_t; i++) {
		judge(a, &rep->peer_t[i], &j);
		for (int it = 0; it < PEER_ITEM_N; it++)
			if (j.v[it] != PEER_UNKNOWN)
				(void)fprintf(f,
					      "rdma_qos_peer_agreement{pf=\"%s\",item=\"%s\"} %d\n",
					      prom_label_esc(rep->peer_t[i].pf, pf, sizeof(pf)),
					      peer_item_names[it], j.v[it] == PEER_AGREES);
	}
}

static void render_dcbx(FILE *f, const struct pass_report *rep)
{
	static const struct {
		const char *name;
		uint8_t bit;
	} modes[] = {{"host", DCB_CAP_DCBX_HOST},
		     {"lld_managed", DCB_CAP_DCBX_LLD_MANAGED},
		     {"cee", DCB_CAP_DCBX_VER_CEE},
		     {"ieee", DCB_CAP_DCBX_VER_IEEE}};
	char pf[64];

	prom_family(f, "rdma_qos_port_dcbx_mode", "gauge",
		    "1 for each DCBX mode bit the port reports (dcbnl getdcbx): host, lld_managed "
		    "(the NIC firmware's LLDP agent owns DCBX), cee, ieee.");
	for (size_t i = 0; i < rep->n_peer_t; i++)
		for (size_t m = 0; rep->peer_t[i].has_dcbx && m < sizeof(modes) / sizeof(modes[0]);
		     m++)
			(void)fprintf(f, "rdma_qos_port_dcbx_mode{pf=\"%s\",mode=\"%s\"} %d\n",
				      prom_label_esc(rep->peer_t[i].pf, pf, sizeof(pf)),
				      modes[m].name, (rep->peer_t[i].dcbx & modes[m].bit) != 0);
}

char *peer_metrics_render(const struct agent *a, const struct pass_report *rep)
{
	struct prom_text t;
	FILE *f = prom_begin(&t);

	if (!f)
		return NULL;
	render_dcbx(f, rep);
	/* --once listens to nothing: no partner families rather than a partner never seen */
	if (a->peers) {
		render_info(f, a, rep);
		render_dcb(f, a, rep);
		render_agreement(f, a, rep);
		wiring_metrics_render(f, a, rep);
	}
	return prom_end(&t);
}

/*
 * Over the PFs with requirements (peer_word each): disagrees when any of them
 * disagrees; agrees when every one agrees, which needs its `pfc` judged and
 * agreeing (a PF with several partners judges nothing: unknown); otherwise
 * unknown.
 */
const char *peer_nfd_word(const struct agent *a, const struct pass_report *rep)
{
	bool all = true, any_pf = false;

	if (!a->peers)
		return "unknown";
	for (size_t i = 0; i < rep->n_peer_t; i++) {
		struct peer_judgement j;
		enum peer_verdict w;

		if (!rep->peer_t[i].has_t)
			continue;
		any_pf = true;
		judge(a, &rep->peer_t[i], &j);
		w = peer_word(&j);
		if (w == PEER_DISAGREES)
			return "disagrees";
		all &= w == PEER_AGREES;
	}
	return any_pf && all ? "agrees" : "unknown";
}

char *metrics_render_ecn(const struct tel_sample *prev, const struct tel_sample *cur)
{
	struct prom_text t;
	char pf[64];
	bool head = false;
	FILE *f = prev ? prom_begin(&t) : NULL;

	if (!f)
		return NULL;
	for (size_t i = 0; i < cur->n_pfs; i++) {
		int8_t v[PS_PRIOS];

		tel_ecn_ineffective(prev, cur, &cur->pfs[i], v);
		for (int p = 0; p < PS_PRIOS; p++) {
			if (v[p] < 0)
				continue;
			if (!head)
				prom_family(
				    f, "rdma_qos_port_ecn_ineffective", "gauge",
				    "1 when the link partner paused the PFC priority during the "
				    "last "
				    "interval while no attachment on the PF counted an ECN-marked "
				    "packet or a CNP (ECN off at the switch or the NIC).");
			head = true;
			(void)fprintf(f,
				      "rdma_qos_port_ecn_ineffective{pf=\"%s\",prio=\"%d\"} %d\n",
				      prom_label_esc(cur->pfs[i].name, pf, sizeof(pf)), p, v[p]);
		}
	}
	return prom_end(&t);
}
