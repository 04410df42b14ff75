// SPDX-License-Identifier: Apache-2.0
/*
 * The node's own MACs: each watched PF netdev's and each of its VFs' whose
 * netdev is in the host netns (/sys/class/net/<pf>/address,
 * <pf>/device/virtfn<N>/net/<vf>/address; the sim root's files in the sim),
 * the MAC the PF set for each VF (rtnetlink IFLA_VF_MAC: a VF inside a
 * pod has no netdev in the host's sysfs), and the current MAC of each VF in a
 * pod: recorded ones and unchained ones, read inside their netns (issue 42
 * item 3). IFLA_VF_MAC is the admin MAC, all-zero unless sriov-cni was given
 * a `mac` (mlx5 up to 6.12 reports no other): a pod's VF otherwise has the
 * MAC the driver made up, and only its own netns shows it. With spoof
 * checking off (mlx5's default) a tenant can send from any MAC, which no
 * filter here can tell from the switch (docs/troubleshooting.md).
 * Read lazily (peer_neigh.c, peer_sock.c): only when a frame arrives after a pass ran (own_stale),
 * or from a speaker not heard from before (at most once a second), so a quiet switch costs nothing
 * and a flood of new speakers costs one re-read a second.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pkg/netns/netns.h"
#include "pkg/state/state.h"
#include "plugin/lldp/peer_int.h"
#include "plugin/attach/core.h"
#include "plugin/attach/unchained.h"

/* VFs per PF whose MAC the PF reports that are read (mlx5 has at most 127 per PF) */
#define PEER_OWN_VFS 256

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

/* the current MAC of @ifname inside the netns @fd, added when it has one */
static void own_add_in(struct peer_book *b, int fd, const char *ifname, size_t *cap)
{
	uint8_t mac[ETH_ALEN];
	int saved = -1, r = netns_enter(fd, &saved);

	if (r == 0) {
		r = netns_link_mac(ifname, mac);
		netns_return(saved);
	}
	if (r == 0)
		own_put(b, mac, cap);
}

/* each recorded VF's current MAC, in the netns its ADD saw (attach/podns.c) */
static void own_add_records(struct peer_book *b, size_t *cap)
{
	char **keys = NULL;
	size_t n = 0;

	if (state_record_list(&b->root, &keys, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		cJSON *rec = NULL;
		const char *ifn;
		int fd = -1;

		if (state_record_read(&b->root, keys[i], &rec) == 0 &&
		    (ifn = json_str(rec, "ifname")) && ifn[0] &&
		    podns_open(b->env, rec, NULL, 0, &fd) == 0) {
			own_add_in(b, fd, ifn, cap);
			close(fd);
		}
		cJSON_Delete(rec);
		free(keys[i]);
	}
	free(keys);
}

/* each unchained VF's of the watched PFs (attach/unchained.c, no PodResources look-up) */
static void own_add_unchained(struct peer_book *b, size_t *cap)
{
	char(*pcis)[RQ_PCI_ADDR_MAX] = calloc(b->n ? b->n : 1, sizeof(*pcis));
	struct rq_unchained *u = NULL;
	size_t n = 0, nu = 0;

	for (size_t i = 0; pcis && i < b->n; i++) {
		char path[PATH_MAX];

		(void)snprintf(path, sizeof(path), "/sys/class/net/%s/device", b->pf[i].name);
		if (sysfs_readlink_base(&b->root, path, pcis[n], sizeof(pcis[n])) == 0)
			n++;
	}
	if (n && unchained_scan(b->env, NULL, pcis, n, NULL, &u, &nu) == 0)
		for (size_t k = 0; k < nu; k++) {
			int fd = -1;

			if (netns_open(u[k].netns, &fd) == 0) {
				own_add_in(b, fd, u[k].ifname, cap);
				close(fd);
			}
		}
	free(u);
	free(pcis);
}

void peer_own_load(struct peer_book *b)
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
	if (b->env) {
		own_add_records(b, &cap);
		own_add_unchained(b, &cap);
	}
	b->own_stale = false;
	b->own_at = peer_mono_now();
}

bool peer_own_mac(const struct peer_book *b, const uint8_t *src)
{
	for (size_t i = 0; i < b->n_own; i++)
		if (!memcmp(b->own[i], src, ETH_ALEN))
			return true;
	return false;
}
