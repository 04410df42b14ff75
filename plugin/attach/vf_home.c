// SPDX-License-Identifier: Apache-2.0
/*
 * Is the attachment's VF still its pod's interface? A driver reload, a
 * firmware reset or PCI error recovery unregisters the VF netdev and makes it
 * again in the host netns: the pod has lost its rail, and the record still
 * names the VF. The agent then reports the attachment (log, metric
 * rdma_qos_vf_in_pod 0, drift) and writes nothing of the VF's: its class is
 * nobody's to keep until a new ADD says whose it is; `show` says so too.
 * Asked inside the pod's netns, where the interface is: entering it changes
 * nothing. Only the netns the record's ADD saw is entered (attach/podns.c): a
 * /proc/<pid>/ns/net path read from the agent's own PID namespace names
 * another process, whose netns (the host's) has no such interface.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "pkg/log/log.h"
#include "pkg/netns/netns.h"
#include "plugin/attach/core.h"

int vf_home_judge(const struct rq_env *env, const cJSON *rec, char *why, size_t len)
{
	const char *ns = json_str(rec, "netns"), *ifn = json_str(rec, "ifname");
	const char *vf = json_str(rec, "vf") ?: "";
	char pci[RQ_PCI_ADDR_MAX] = "";
	int fd = -1, saved = -1, r, lr;

	why[0] = '\0';
	/* a shared device's attachment has no VF to be in its pod */
	if (!ns || !ns[0] || !ifn || !ifn[0] ||
	    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "shared")))
		return -ENOENT;
	/* gone, another netns at the path, or out of reach: the stale judge's business */
	r = podns_open(env, rec, NULL, 0, &fd);
	if (r < 0)
		return r;
	r = netns_enter(fd, &saved);
	close(fd);
	if (r < 0)
		return r;
	r = netns_link_ifindex(ifn);
	lr = r >= 0 ? env->link_pci(env, ifn, pci, sizeof(pci), NULL) : r;
	netns_return(saved);
	if (r < 0) {
		(void)snprintf(why, len, "the pod has no interface %s any more", ifn);
		return 0;
	}
	if (lr < 0)
		return -ENOENT; /* an interface that shows no device: cannot tell */
	if (strcmp(pci, vf) != 0) {
		(void)snprintf(why, len, "the pod's interface %s is device %s now", ifn, pci);
		return 0;
	}
	return 1;
}
