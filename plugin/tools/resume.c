// SPDX-License-Identifier: Apache-2.0
/*
 * `rdma-qos resume PF ITEM`: lift the agent's suspension of a repair (fights.c)
 * once whoever kept undoing it is stopped. The image has no shell, so this is
 * how an operator clears it (kubectl exec into the node's agent), where 0.2.0's
 * docs said to delete the book. Only that PF's item is cleared: every other
 * suspension and back-off stays. The agent repairs the item at its next pass.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "plugin/agent/agent.h"
#include "plugin/pass/fights.h"
#include "plugin/tools/tools.h"

static void usage(FILE *f, const char *binary)
{
	(void)fprintf(f,
		      "usage: %s resume PF ITEM\n"
		      "  PF: the PF's netdev name or PCI address; ITEM: one of",
		      binary);
	for (int i = 0; i < ITEM_N; i++)
		(void)fprintf(f, " %s", agent_item_names[i]);
	(void)fprintf(f, ", or all\n"
			 "  lifts the agent's suspension of that repair (rdma-qos show says "
			 "REPAIR SUSPENDED); the agent repairs it at its next pass\n");
}

int cmd_resume(int argc, char **argv, const char *binary)
{
	struct fight_book *b = NULL;
	struct rq_env env;
	struct rq_error e;
	char pci[64], path[300];
	const char *pf, *item;
	bool known = !strcmp(argc > 3 ? argv[3] : "", "all");
	int r;

	if (argc == 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
		usage(stdout, binary);
		return 0;
	}
	if (argc != 4) {
		usage(stderr, binary);
		return 1;
	}
	pf = argv[2];
	item = argv[3];
	for (int i = 0; i < ITEM_N; i++)
		known |= !strcmp(item, agent_item_names[i]);
	if (!known) {
		(void)fprintf(stderr, "%s resume: ITEM \"%s\" is not an item\n", binary, item);
		usage(stderr, binary);
		return 1;
	}
	rq_err_clear(&e);
	if (env_init(&env, &e) < 0) {
		(void)fprintf(stderr, "%s resume: %s\n", binary, e.msg);
		return 1;
	}
	/* a name is looked up now; a PCI address is taken as it is (the book's key) */
	(void)snprintf(path, sizeof(path), "/sys/class/net/%s/device", pf);
	if (strchr(pf, ':'))
		(void)snprintf(pci, sizeof(pci), "%s", pf);
	else if (strchr(pf, '/') || sysfs_readlink_base(&env.root, path, pci, sizeof(pci)) < 0) {
		(void)fprintf(stderr, "%s resume: PF \"%s\": no such network device\n", binary, pf);
		env_fini(&env);
		return 1;
	}
	r = fight_book_load(&env, &b);
	if (r == 0) {
		r = fight_resume(b, pci, item);
		if (r >= 0) {
			int w = fight_book_save(&env, b);

			r = w < 0 ? w : r;
		}
	}
	fight_book_free(b);
	env_fini(&env);
	if (r < 0) {
		(void)fprintf(stderr, "%s resume: %s: %s\n", binary, AGENT_FIGHT_FILE,
			      strerror(-r));
		return 1;
	}
	if (r == 1)
		printf("PF %s (%s): repair of %s resumed: the agent repairs it at its next pass\n",
		       pf, pci, item);
	else
		printf("PF %s (%s): the repair of %s was not suspended: nothing to resume\n", pf,
		       pci, item);
	return 0;
}
