// SPDX-License-Identifier: Apache-2.0
/*
 * The one reader of the agent's JSON files (fight book, link partners, link
 * health) for show.c, show_peer.c and show_link.c: here, not in show.c, so
 * that show.c -> show_peer.c runs one way (tests/docs/layering.sh).
 */
#include <stdlib.h>

#include "plugin/tools/tools.h"

cJSON *show_agent_file(const struct rq_env *env, const char *path)
{
	cJSON *o = NULL;
	char *buf = NULL;
	size_t len = 0;

	if (sysfs_read_file(&env->root, path, (size_t)1024 * 1024, &buf, &len) == 0)
		o = cJSON_ParseWithLength(buf, len);
	free(buf);
	return o;
}
