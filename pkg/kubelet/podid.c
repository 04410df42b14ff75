// SPDX-License-Identifier: Apache-2.0
/*
 * A pod's identity from what the host shows of its processes, for a VF whose
 * pod no PodResources container names: kubelet lists a DRA claim only under
 * the containers whose resources.claims name it (cm/dra GetContainerClaimInfos),
 * and dranet's examples claim at pod level. A process in the VF's netns has
 * the pod's UID in its cgroup path (both kubelet cgroup drivers), and
 * kubelet's pod log directory NAMESPACE_NAME_UID maps the UID to the names
 * (neither a namespace nor a pod name may hold '_').
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pkg/kubelet/kubelet.h"

/* [0-9a-fA-F_-], 8..64 long: a UUID (systemd writes its "-" as "_") or a static pod's hash */
static bool uid_ok(const char *s, size_t n)
{
	if (n < 8 || n > 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr("0123456789abcdefABCDEF-_", s[i]) || !s[i])
			return false;
	return true;
}

/* One cgroup path component: "pod<uid>" (cgroupfs) or "kubepods-<qos>-pod<uid>.slice" (systemd). */
static bool comp_uid(const char *c, size_t n, char *ret, size_t len)
{
	const char *u = NULL;

	if (n > 6 && !memcmp(c + n - 6, ".slice", 6))
		n -= 6;
	if (n > 3 && !memcmp(c, "pod", 3))
		u = c + 3;
	for (size_t i = 0; i + 4 <= n; i++)
		if (!memcmp(c + i, "-pod", 4))
			u = c + i + 4;
	if (!u || !uid_ok(u, n - (size_t)(u - c)) || n - (size_t)(u - c) >= len)
		return false;
	for (size_t i = 0; i < n - (size_t)(u - c); i++)
		ret[i] = u[i] == '_' ? '-' : u[i];
	ret[n - (size_t)(u - c)] = '\0';
	return true;
}

int kubelet_cgroup_pod_uid(const char *buf, size_t len, char *ret, size_t ret_len)
{
	const char *end = buf + len, *line = buf;

	while (line < end) {
		const char *eol = memchr(line, '\n', (size_t)(end - line)) ?: end;
		const char *path = NULL, *p;
		bool kube = false;

		/* "hierarchy:controllers:path": the path after the second ':' */
		p = memchr(line, ':', (size_t)(eol - line));
		if (p)
			path = memchr(p + 1, ':', (size_t)(eol - p - 1));
		for (p = path ? path + 1 : eol; p < eol;) {
			const char *c = p, *ce = memchr(p, '/', (size_t)(eol - p)) ?: eol;
			char uid[RQ_KUBELET_KEY_MAX];

			bool named = ce - c >= 8 && memmem(c, (size_t)(ce - c), "kubepods", 8);

			/* systemd's "kubepods-besteffort-pod<uid>.slice" names both */
			if ((kube || named) && comp_uid(c, (size_t)(ce - c), uid, sizeof(uid))) {
				if (strlen(uid) >= ret_len)
					return -ENAMETOOLONG;
				memcpy(ret, uid, strlen(uid) + 1);
				return 0;
			}
			kube |= named;
			p = ce + 1;
		}
		line = eol + 1;
	}
	return -ENOENT;
}

int kubelet_pod_log_entry(const char *entry, const char *uid, char *ret_ns, size_t ns_len,
			  char *ret_name, size_t name_len)
{
	size_t el = strlen(entry), ul = strlen(uid);
	const char *first = strchr(entry, '_');
	size_t nl, ml;

	if (ul == 0 || el < ul + 4 || entry[el - ul - 1] != '_' || strcmp(entry + el - ul, uid))
		return -ENOENT;
	if (!first || first == entry || first >= entry + el - ul - 1)
		return -EINVAL;
	nl = (size_t)(first - entry);
	ml = (size_t)(entry + el - ul - 1 - (first + 1));
	if (ml == 0 || memchr(first + 1, '_', ml))
		return -EINVAL;
	if (nl >= ns_len || ml >= name_len)
		return -ENAMETOOLONG;
	(void)snprintf(ret_ns, ns_len, "%.*s", (int)nl, entry);
	(void)snprintf(ret_name, name_len, "%.*s", (int)ml, first + 1);
	return 0;
}
