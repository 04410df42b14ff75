// SPDX-License-Identifier: Apache-2.0
/*
 * Stale records: an attachment whose pod netns is gone lost its DEL (no GC
 * will ever name it: Multus sends GC to the cluster network only). The agent
 * remembers since when each netns has been gone, in a small file beside the
 * records, so the grace also holds across `agent --once` runs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plugin/agent/agent.h"
#include "plugin/pass/stale.h"

struct stale_book {
	cJSON *gone; /* {key: wall-clock second first seen gone} */
	cJSON *seen; /* keys judged this pass: the rest are dropped at save */
	bool dirty;
	int unjudged; /* records whose netns cannot be judged from here */
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

enum ns_verdict { NS_LIVE, NS_GONE, NS_UNKNOWN };

/*
 * Judged from the agent's own namespaces, which are not the plugin's: the
 * DaemonSet has no hostPID, so /proc/<pid>/... (cri-dockerd's netns paths)
 * is read through --host-proc, and a bind-mounted netns exists in the
 * agent's view only where its directory is mounted into the pod
 * (attach/podns.c). What cannot be judged is never called gone; a netns that
 * is not the one ADD recorded (a PID reused after a lost DEL) is.
 */
static enum ns_verdict netns_judge(const struct rq_env *env, const cJSON *rec)
{
	const char *path = json_str(rec, "netns");
	int r;

	if (!path || !*path)
		return NS_LIVE; /* no netns recorded: nothing to judge by */
	r = podns_open(env, rec, NULL, 0, NULL);
	/*
	 * -EACCES: the kernel's ptrace check on /proc/<pid>/ns/net (the holder has
	 * capabilities the agent lacks, and the agent has no CAP_SYS_PTRACE)
	 */
	if (r == -EREMOTE || r == -EACCES || r == -EPERM)
		return NS_UNKNOWN;
	/* gone: no such path, no netns there (an unmounted bind-mount target), another netns */
	return r == -ENOENT || r == -EINVAL || r == -ESTALE ? NS_GONE : NS_LIVE;
}

int stale_book_judge(struct stale_book *b, const struct rq_env *env, const char *key,
		     const cJSON *rec, int grace_s)
{
	const cJSON *since = cJSON_GetObjectItemCaseSensitive(b->gone, key);
	double now = (double)time(NULL);
	enum ns_verdict v = netns_judge(env, rec);

	if (v == NS_UNKNOWN)
		b->unjudged++;
	if (v != NS_GONE) {
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

int stale_book_unjudged(const struct stale_book *b)
{
	return b ? b->unjudged : 0;
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
