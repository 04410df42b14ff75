// SPDX-License-Identifier: Apache-2.0
/*
 * The watched PFs' node.wiring rules, for the pass: each attachment's or the
 * baseline's PF gets its rule, and the node's ports a rule names are watched
 * too, before any pod lands on them (DESIGN.md "The fabric under the pod").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/agent/agent.h"
#include "pkg/sysfs/device.h"
#include "plugin/judge/wiring_judge.h"
#include "plugin/pass/pass.h"

void wiring_pass_collect(struct peer_target *t, const struct rq_catalog *cat, const char *pci)
{
	const struct rq_wiring_rule *r =
	    cat ? wiring_rule_for(cat->wiring, cat->n_wiring, t->pf, pci) : NULL;

	(void)snprintf(t->pci, sizeof(t->pci), "%s", pci ? pci : "");
	if (t->pci[0] && !t->dl_bus[0]) {
		(void)snprintf(t->dl_bus, sizeof(t->dl_bus), "pci");
		(void)snprintf(t->dl_dev, sizeof(t->dl_dev), "%s", t->pci);
	}
	t->has_rule = r != NULL;
	if (r)
		t->rule = *r;
}

size_t wiring_pass_ports(const struct rq_root *root, const struct rq_catalog *cat,
			 struct peer_target **t, size_t n)
{
	char **names = NULL, bus[32], dev[64];
	size_t nn = 0, k = n;

	if (!cat || !cat->n_wiring || sysfs_list(root, "/sys/class/net", &names, &nn) < 0)
		return n;
	for (size_t i = 0; i < nn; i++) {
		const char *pci;
		struct peer_target *x;
		bool have = false;

		for (size_t j = 0; j < k && !have; j++)
			have = !strcmp((*t)[j].pf, names[i]);
		if (have || strlen(names[i]) >= IF_NAMESIZE ||
		    device_port_parent(root, names[i], bus, sizeof(bus), dev, sizeof(dev)) < 0)
			continue;
		pci = !strcmp(bus, "pci") ? dev : NULL;
		if (!wiring_rule_for(cat->wiring, cat->n_wiring, names[i], pci))
			continue;
		if (!(x = realloc(*t, (k + 1) * sizeof(*x))))
			break;
		*t = x;
		x = &(*t)[k++];
		memset(x, 0, sizeof(*x));
		(void)snprintf(x->pf, sizeof(x->pf), "%s", names[i]);
		(void)snprintf(x->dl_bus, sizeof(x->dl_bus), "%s", bus);
		(void)snprintf(x->dl_dev, sizeof(x->dl_dev), "%s", dev);
		wiring_pass_collect(x, cat, pci);
	}
	sysfs_list_free(names, nn);
	return k;
}
