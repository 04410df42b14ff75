// SPDX-License-Identifier: Apache-2.0
/*
 * VFs no chain ran rdma-qos for: dra-driver-sriov in STANDALONE mode and
 * dranet move a VF into the pod's netns without any CNI chain, and a NAD that
 * forgot rdma-qos does the same through Multus. The host then has no record
 * of the VF, and the host's sysfs no netdev of it (a netdev's sysfs entry is
 * tagged with its netns: the agent's /sys is the host's). Where it went is
 * found by entering the network namespaces the agent can see: the runtimes'
 * bind mounts (/run/netns, /var/run/netns: containerd, CRI-O) and, through
 * --host-proc, the processes' (cri-dockerd), each netns once (by nsfs
 * identity). Inside one, a link is the VF when env->link_pci names its PCI
 * address, as ADD's own check of deviceID asks it. The scan enters netns
 * only while some VF is unaccounted for, so a node whose VFs are all chained
 * or in the host pays one sysfs walk.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pkg/kubelet/kubelet.h"
#include "pkg/log/log.h"
#include "pkg/netns/netns.h"
#include "pkg/podres/podres.h"
#include "plugin/attach/unchained.h"

int unchained_pf_vfs(const struct rq_env *env, const char *pf_pci, char (**ret)[RQ_PCI_ADDR_MAX],
		     size_t *ret_n)
{
	char path[128], **names = NULL;
	char(*vfs)[RQ_PCI_ADDR_MAX] = NULL;
	size_t n = 0, k = 0;
	int r;

	(void)snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", pf_pci);
	r = sysfs_list(&env->root, path, &names, &n);
	if (r < 0)
		return r;
	vfs = calloc(n ? n : 1, sizeof(*vfs));
	if (!vfs) {
		sysfs_list_free(names, n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		char link[256], pci[64];

		if (strncmp(names[i], "virtfn", 6) != 0)
			continue;
		(void)snprintf(link, sizeof(link), "%s/%s", path, names[i]);
		if (sysfs_readlink_base(&env->root, link, pci, sizeof(pci)) == 0 &&
		    sysfs_pci_valid(pci))
			(void)snprintf(vfs[k++], RQ_PCI_ADDR_MAX, "%s", pci);
	}
	sysfs_list_free(names, n);
	*ret = vfs;
	*ret_n = k;
	return 0;
}

static bool vf_key(const cJSON *rec, char *buf, size_t len)
{
	const char *vf = json_str(rec, "vf");

	return vf && snprintf(buf, len, "%s", vf) < (int)len;
}

cJSON *unchained_recorded_vfs(const struct rq_env *env)
{
	return attach_records_set(env, vf_key);
}

/*
 * A candidate: a VF with a netdev driver (not vfio-pci, not unbound) whose
 * netdev is not in this process's netns. Its host name, when sysfs shows one,
 * is kept: PodResources may name the VF by it (dranet before 0.7).
 */
static bool vf_away(const struct rq_env *env, const char *vf, char *host_name, size_t len)
{
	char path[160], drv[64] = "", **names = NULL;
	size_t n = 0;
	bool away = true;

	host_name[0] = '\0';
	(void)snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", vf);
	if (sysfs_readlink_base(&env->root, path, drv, sizeof(drv)) < 0 ||
	    !strcmp(drv, "vfio-pci") || !strcmp(drv, "pci-stub"))
		return false;
	(void)snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/net", vf);
	if (sysfs_list(&env->root, path, &names, &n) == 0 && n > 0) {
		char pci[RQ_PCI_ADDR_MAX] = "";

		(void)snprintf(host_name, len, "%s", names[0]);
		/* the host's sysfs shows it; the link must be here too (the simulated node's
		 * sysfs is files: the veth standing in for the VF tells) */
		away = netns_link_ifindex(names[0]) < 0 ||
		       (env->link_pci(env, names[0], pci, sizeof(pci), NULL) > 0 &&
			strcmp(pci, vf) != 0);
	}
	sysfs_list_free(names, n);
	return away;
}

struct scan {
	const struct rq_env *env;
	struct rq_unchained *u;
	size_t n, left;
	bool excl;
	uint64_t (*seen)[2];
	size_t n_seen, cap_seen;
	uint64_t own_dev, own_ino;
};

static bool scan_seen(struct scan *s, uint64_t dev, uint64_t ino)
{
	uint64_t(*m)[2];

	for (size_t i = 0; i < s->n_seen; i++)
		if (s->seen[i][0] == dev && s->seen[i][1] == ino)
			return true;
	if (s->n_seen == s->cap_seen) {
		size_t cap = s->cap_seen ? s->cap_seen * 2 : 64;

		m = realloc(s->seen, cap * sizeof(*m));
		if (!m)
			return false;
		s->seen = m;
		s->cap_seen = cap;
	}
	s->seen[s->n_seen][0] = dev;
	s->seen[s->n_seen][1] = ino;
	s->n_seen++;
	return false;
}

/* Inside one netns: which of its links are unaccounted VFs. */
static void scan_links(struct scan *s, const char *path, uint64_t dev, uint64_t ino)
{
	struct if_nameindex *ifs = if_nameindex();

	for (struct if_nameindex *i = ifs; i && i->if_index; i++) {
		char pci[RQ_PCI_ADDR_MAX] = "";

		if (!strcmp(i->if_name, "lo") ||
		    s->env->link_pci(s->env, i->if_name, pci, sizeof(pci), NULL) < 0)
			continue;
		for (size_t k = 0; k < s->n; k++) {
			struct rq_unchained *u = &s->u[k];
			struct rq_rdma_dev d;

			if (u->netns[0] || strcmp(u->vf, pci) != 0)
				continue;
			(void)snprintf(u->ifname, sizeof(u->ifname), "%s", i->if_name);
			(void)snprintf(u->netns, sizeof(u->netns), "%s", path);
			u->netns_dev = dev;
			u->netns_ino = ino;
			memset(&d, 0, sizeof(d));
			/* exclusive mode: the device is where the netdev is, once it was moved */
			if (s->excl && rdma_find_by_ifindex((int)i->if_index, &d) == 0)
				(void)snprintf(u->rdma_dev, sizeof(u->rdma_dev), "%s", d.name);
			s->left--;
		}
	}
	if (ifs)
		if_freenameindex(ifs);
}

static void scan_netns(struct scan *s, const char *path)
{
	uint64_t dev = 0, ino = 0;
	int fd = -1, saved = -1;

	if (netns_open(path, &fd) < 0)
		return;
	if (netns_identity(fd, &dev, &ino) < 0 || (dev == s->own_dev && ino == s->own_ino) ||
	    scan_seen(s, dev, ino) || netns_enter(fd, &saved) < 0) {
		close(fd);
		return;
	}
	close(fd);
	scan_links(s, path, dev, ino);
	(void)netns_return(saved);
}

/* Every netns file in @dir (a runtime's bind mounts), or every <pid>/ns/net of a /proc. */
static void scan_dir(struct scan *s, const char *dir, bool proc)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && s->left && (e = readdir(d))) {
		char path[RQ_NETNS_PATH_MAX];

		if (e->d_name[0] == '.' ||
		    (proc && strspn(e->d_name, "0123456789") != strlen(e->d_name)))
			continue;
		if (snprintf(path, sizeof(path), proc ? "%s/%s/ns/net" : "%s/%s", dir, e->d_name) >=
		    (int)sizeof(path))
			continue;
		scan_netns(s, path);
	}
	if (d)
		closedir(d);
}

static void scan_pods(const struct rq_env *env, const char *kubelet_dir, struct rq_unchained *u,
		      size_t n)
{
	struct rq_podres_status st;
	uint8_t *body = NULL;
	size_t len = 0;
	int r = podres_list(&env->root, kubelet_dir,
			    env->podres_list_ms > 0 ? env->podres_list_ms : RQ_UNCHAINED_PODRES_MS,
			    &body, &len, &st);

	for (size_t k = 0; k < n; k++) {
		struct rq_podres_vf_owner o;
		int fr;

		if (!u[k].netns[0])
			continue;
		if (r < 0) {
			(void)snprintf(u[k].pod_why, sizeof(u[k].pod_why), "PodResources List: %s",
				       st.detail[0] ? st.detail : strerror(-r));
			continue;
		}
		memset(&o, 0, sizeof(o));
		fr = podres_find_vf(body, len, u[k].vf, u[k].host_name[0] ? u[k].host_name : NULL,
				    &o);
		if (fr == 0) {
			u[k].pod_known = true;
			(void)snprintf(u[k].pod_ns, sizeof(u[k].pod_ns), "%s", o.ns);
			(void)snprintf(u[k].pod_name, sizeof(u[k].pod_name), "%s", o.name);
			(void)snprintf(u[k].by, sizeof(u[k].by), "%s", podres_vf_by_name(o.by));
		} else {
			(void)snprintf(u[k].pod_why, sizeof(u[k].pod_why), "%s",
				       fr == -ESRCH	 ? "no pod's resources name it"
				       : fr == -ENOTUNIQ ? "two pods' resources name it"
							 : strerror(-fr));
		}
	}
	free(body);
}

/* The pod of process @pid's cgroup, named by kubelet's pod log directory. */
static int pod_of_process(const struct rq_env *env, const char *proc, const char *pid,
			  struct rq_unchained *u)
{
	char path[RQ_NETNS_PATH_MAX], buf[4096], uid[RQ_KUBELET_KEY_MAX], **names = NULL;
	size_t n = 0, len;
	FILE *f;
	int r = -ENOENT;

	(void)snprintf(path, sizeof(path), "%s/%s/cgroup", proc, pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	if (kubelet_cgroup_pod_uid(buf, len, uid, sizeof(uid)) < 0)
		return -ENOENT;
	if (sysfs_list(&env->root, RQ_POD_LOG_DIR, &names, &n) < 0)
		n = 0;
	for (size_t i = 0; i < n && r < 0; i++)
		if (kubelet_pod_log_entry(names[i], uid, u->pod_ns, sizeof(u->pod_ns), u->pod_name,
					  sizeof(u->pod_name)) == 0)
			r = 0;
	sysfs_list_free(names, n);
	if (r < 0)
		(void)snprintf(u->pod_why, sizeof(u->pod_why),
			       "no pod's resources name it, and pod %.40s of its netns has no "
			       "directory in " RQ_POD_LOG_DIR,
			       uid);
	return r;
}

/*
 * The VFs no PodResources container names: a DRA claim only the pod spec lists
 * (dranet's examples) is under no container. Their netns's processes tell the
 * pod (the host's /proc, --host-proc): one process is enough, as every process
 * in a pod's netns is the pod's.
 */
static void scan_pods_by_process(const struct rq_env *env, struct rq_unchained *u, size_t n)
{
	const char *proc = env->host_proc;
	size_t left = 0;
	struct dirent *e;
	DIR *d;

	for (size_t k = 0; k < n; k++)
		left += u[k].netns[0] && !u[k].pod_known;
	if (!left || !proc || !proc[0] || !(d = opendir(proc)))
		return;
	while (left && (e = readdir(d))) {
		char path[RQ_NETNS_PATH_MAX];
		struct stat st;

		if (strspn(e->d_name, "0123456789") != strlen(e->d_name) ||
		    snprintf(path, sizeof(path), "%s/%s/ns/net", proc, e->d_name) >=
			(int)sizeof(path) ||
		    stat(path, &st) < 0)
			continue;
		for (size_t k = 0; k < n; k++) {
			if (!u[k].netns[0] || u[k].pod_known ||
			    u[k].netns_dev != (uint64_t)st.st_dev ||
			    u[k].netns_ino != (uint64_t)st.st_ino)
				continue;
			left--;
			if (pod_of_process(env, proc, e->d_name, &u[k]) == 0) {
				u[k].pod_known = true;
				(void)snprintf(u[k].by, sizeof(u[k].by), "%s",
					       RQ_UNCHAINED_BY_NETNS);
			}
			/* one process per VF: a second one would tell the same */
			u[k].netns_dev = u[k].netns_ino = 0;
		}
	}
	closedir(d);
}

int unchained_scan(const struct rq_env *env, const char *kubelet_dir,
		   char (*pf_pcis)[RQ_PCI_ADDR_MAX], size_t n, const cJSON *recorded,
		   struct rq_unchained **ret, size_t *ret_n)
{
	struct scan s = {.env = env};
	cJSON *own_rec = NULL;
	size_t k = 0;
	int fd;

	*ret = NULL;
	*ret_n = 0;
	if (!recorded && !(recorded = own_rec = unchained_recorded_vfs(env)))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		char(*vfs)[RQ_PCI_ADDR_MAX] = NULL, pf_path[128];
		size_t nv = 0;
		struct rq_unchained *m;

		if (unchained_pf_vfs(env, pf_pcis[i], &vfs, &nv) < 0)
			continue;
		m = realloc(s.u, (s.n + nv + 1) * sizeof(*m));
		if (!m) {
			free(vfs);
			continue;
		}
		s.u = m;
		for (size_t j = 0; j < nv; j++) {
			struct rq_unchained *u = &s.u[s.n];
			char **names = NULL;
			size_t nn = 0;

			memset(u, 0, sizeof(*u));
			if (cJSON_GetObjectItemCaseSensitive(recorded, vfs[j]) ||
			    !vf_away(env, vfs[j], u->host_name, sizeof(u->host_name)))
				continue;
			(void)snprintf(u->vf, sizeof(u->vf), "%s", vfs[j]);
			(void)snprintf(u->pf_pci, sizeof(u->pf_pci), "%s", pf_pcis[i]);
			(void)snprintf(pf_path, sizeof(pf_path), "/sys/bus/pci/devices/%s/net",
				       pf_pcis[i]);
			if (sysfs_list(&env->root, pf_path, &names, &nn) == 0 && nn > 0)
				(void)snprintf(u->pf, sizeof(u->pf), "%s", names[0]);
			sysfs_list_free(names, nn);
			s.n++;
		}
		free(vfs);
	}
	cJSON_Delete(own_rec);
	s.left = s.n;
	if (s.n == 0) {
		free(s.u);
		return 0;
	}
	(void)rdma_netns_exclusive(&env->root, &s.excl);
	fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		(void)netns_identity(fd, &s.own_dev, &s.own_ino);
		close(fd);
	}
	scan_dir(&s, "/run/netns", false);
	scan_dir(&s, "/var/run/netns", false);
	if (env->host_proc && env->host_proc[0])
		scan_dir(&s, env->host_proc, true);
	free(s.seen);
	/* only the VFs found in a netns: one that is nowhere to be seen is not reported */
	for (size_t i = 0; i < s.n; i++) {
		struct rq_rdma_dev d;

		if (!s.u[i].netns[0])
			continue;
		memset(&d, 0, sizeof(d));
		if (!s.u[i].rdma_dev[0] && rdma_find_by_pci(&env->root, s.u[i].vf, &d) == 0) {
			(void)snprintf(s.u[i].rdma_dev, sizeof(s.u[i].rdma_dev), "%s", d.name);
			s.u[i].rdma_in_host = s.excl;
		}
		if (k != i)
			s.u[k] = s.u[i];
		k++;
	}
	if (kubelet_dir && k) {
		scan_pods(env, kubelet_dir, s.u, k);
		scan_pods_by_process(env, s.u, k);
	}
	if (k == 0) {
		free(s.u);
		s.u = NULL;
	}
	*ret = s.u;
	*ret_n = k;
	return 0;
}

int unchained_watched_pfs(const struct rq_env *env, const struct rq_catalog *cat,
			  char (**ret)[RQ_PCI_ADDR_MAX], size_t *ret_n)
{
	char **idx = NULL, (*out)[RQ_PCI_ADDR_MAX] = NULL;
	struct rq_pf *pfs = NULL;
	size_t ni = 0, np = 0, k = 0;

	if (state_pf_list(&env->root, &idx, &ni) < 0)
		ni = 0;
	if (cat && cat->baseline[0] && cat->pf_max != RQ_PF_IGNORE &&
	    device_list_pfs(&env->root, &pfs, &np) < 0)
		np = 0;
	out = calloc(ni + np + 1, sizeof(*out));
	for (size_t i = 0; out && i < ni + np; i++) {
		const char *pci = i < ni ? idx[i] : pfs[i - ni].pci;
		bool dup = false;

		for (size_t j = 0; j < k && !dup; j++)
			dup = !strcmp(out[j], pci);
		if (!dup && sysfs_pci_valid(pci))
			(void)snprintf(out[k++], RQ_PCI_ADDR_MAX, "%s", pci);
	}
	for (size_t i = 0; i < ni; i++)
		free(idx[i]);
	free(idx);
	free(pfs);
	if (!out)
		return -ENOMEM;
	*ret = out;
	*ret_n = k;
	return 0;
}
