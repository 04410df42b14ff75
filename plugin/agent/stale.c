// SPDX-License-Identifier: Apache-2.0
/*
 * Stale records: an attachment whose pod netns is gone lost its DEL (no GC
 * will ever name it: Multus sends GC to the cluster network only). The agent
 * remembers since when each netns has been gone, in a small file beside the
 * records, so the grace also holds across `agent --once` runs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pkg/netns/netns.h"
#include "plugin/agent/agent.h"

struct stale_book {
	cJSON *gone; /* {key: wall-clock second first seen gone} */
	cJSON *seen; /* keys judged this pass: the rest are dropped at save */
	bool dirty;
};

int stale_book_load(const struct rq_env *env, struct stale_book **ret)
{
	struct stale_book *b = calloc(1, sizeof(*b));
	char *buf = NULL;
	size_t len = 0;

	if (!b)
		return -ENOMEM;
	if (sysfs_read_file(&env->root, AGENT_STALE_FILE, (size_t)1024 * 1024, &buf, &len) == 0)
		b->gone = cJSON_ParseWithLength(buf, len);
	free(buf);
	if (!cJSON_IsObject(b->gone)) {
		cJSON_Delete(b->gone);
		b->gone = cJSON_CreateObject();
	}
	b->seen = cJSON_CreateObject();
	if (!b->gone || !b->seen) {
		stale_book_free(b);
		return -ENOMEM;
	}
	*ret = b;
	return 0;
}

/* "Gone": the path is missing, or is no netns any more (an unmounted bind-mount target). */
static bool netns_gone(const char *path)
{
	int fd = -1, r;

	if (!path || !*path)
		return false; /* no netns recorded: nothing to judge by */
	r = netns_open(path, &fd);
	if (r == 0)
		close(fd);
	return r == -ENOENT || r == -EINVAL;
}

int stale_book_judge(struct stale_book *b, const char *key, const char *netns, int grace_s)
{
	const cJSON *since = cJSON_GetObjectItemCaseSensitive(b->gone, key);
	double now = (double)time(NULL);

	if (!netns_gone(netns)) {
		if (since)
			b->dirty = true;
		return 0;
	}
	cJSON_AddItemToObject(b->seen, key, cJSON_CreateTrue());
	if (!cJSON_IsNumber(since)) {
		cJSON_DeleteItemFromObjectCaseSensitive(b->gone, key);
		cJSON_AddNumberToObject(b->gone, key, now);
		b->dirty = true;
		return grace_s <= 0;
	}
	return now - since->valuedouble >= grace_s;
}

int stale_book_save(const struct rq_env *env, struct stale_book *b)
{
	cJSON *it = b->gone ? b->gone->child : NULL;
	char *s;
	int r;

	/* a key not judged gone this pass came back or was released */
	while (it) {
		cJSON *next = it->next;

		if (!cJSON_GetObjectItemCaseSensitive(b->seen, it->string)) {
			cJSON_Delete(cJSON_DetachItemViaPointer(b->gone, it));
			b->dirty = true;
		}
		it = next;
	}
	if (!b->dirty)
		return 0;
	s = cJSON_PrintUnformatted(b->gone);
	if (!s)
		return -ENOMEM;
	r = sysfs_write_atomic(&env->root, AGENT_STALE_FILE, s, strlen(s));
	free(s);
	return r;
}

void stale_book_free(struct stale_book *b)
{
	if (!b)
		return;
	cJSON_Delete(b->gone);
	cJSON_Delete(b->seen);
	free(b);
}

bool stale_book_judge_pending(const struct stale_book *b, const char *key)
{
	return b && cJSON_GetObjectItemCaseSensitive(b->seen, key);
}
