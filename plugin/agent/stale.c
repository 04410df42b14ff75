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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pkg/netns/netns.h"
#include "plugin/agent/agent.h"

struct stale_book {
	cJSON *gone; /* {key: wall-clock second first seen gone} */
	cJSON *seen; /* keys judged this pass: the rest are dropped at save */
	bool dirty;
	const char *host_proc; /* --host-proc: the host's /proc as mounted into the pod */
	char own_pidns[64];    /* "pid:[N]" of the agent's PID namespace */
	int unjudged;	       /* records whose netns cannot be judged from here */
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
	if (readlink("/proc/self/ns/pid", b->own_pidns, sizeof(b->own_pidns) - 1) < 0)
		b->own_pidns[0] = '\0';
	if (!b->gone || !b->seen) {
		stale_book_free(b);
		return -ENOMEM;
	}
	*ret = b;
	return 0;
}

/* The init PID namespace's inode (PROC_PID_INIT_INO): what records without "pidns" were written in. */
#define INIT_PIDNS "pid:[4026531836]"

enum ns_verdict { NS_LIVE, NS_GONE, NS_UNKNOWN };

static enum ns_verdict open_verdict(const char *path)
{
	int fd = -1, r = netns_open(path, &fd);

	if (r == 0)
		close(fd);
	/* "gone": the path is missing, or is no netns any more (an unmounted bind-mount target) */
	return r == -ENOENT || r == -EINVAL ? NS_GONE : NS_LIVE;
}

/*
 * Judged from the agent's own namespaces, which are not the plugin's: the
 * DaemonSet has no hostPID, so /proc/<pid>/... (cri-dockerd's netns paths)
 * names a process of the runtime's PID namespace that the agent's /proc does
 * not show, and a bind-mounted netns exists in the agent's view only where
 * its directory is mounted into the pod. What cannot be judged is never
 * called gone.
 */
static enum ns_verdict netns_judge(struct stale_book *b, const char *path, const char *pidns)
{
	char buf[4200], dir[4200], seen[64] = "";
	const char *rest, *slash;
	struct stat st;
	FILE *f;

	if (!path || !*path)
		return NS_LIVE; /* no netns recorded: nothing to judge by */
	if (strncmp(path, "/proc/", 6) != 0) {
		/* a bind-mount target: its directory must be there (mounted) for ENOENT to mean gone */
		slash = strrchr(path, '/');
		(void)snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
		if (!dir[0] || stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
			return NS_UNKNOWN;
		return open_verdict(path);
	}
	rest = path + 6;
	if (!*rest || rest[strspn(rest, "0123456789")] != '/' || *rest == '/')
		return NS_UNKNOWN; /* /proc/self/... and the like: nothing about the pod */
	if (!pidns || !*pidns)
		pidns = INIT_PIDNS;
	if (b->own_pidns[0] && !strcmp(b->own_pidns, pidns))
		return open_verdict(path);
	if (!b->host_proc)
		return NS_UNKNOWN;
	/*
	 * The mount must be a /proc of the plugin's PID namespace. Only the
	 * host's (initial) one can be told from outside: its pid 2 is kthreadd
	 * (a child namespace may not even read its /proc/1/ns links).
	 */
	(void)snprintf(buf, sizeof(buf), "%s/2/comm", b->host_proc);
	f = strcmp(pidns, INIT_PIDNS) == 0 ? fopen(buf, "re") : NULL;
	if (!f)
		return NS_UNKNOWN;
	if (!fgets(seen, sizeof(seen), f))
		seen[0] = '\0';
	fclose(f);
	if (strcmp(seen, "kthreadd\n") != 0)
		return NS_UNKNOWN;
	(void)snprintf(buf, sizeof(buf), "%s/%s", b->host_proc, rest);
	return open_verdict(buf);
}

int stale_book_judge(struct stale_book *b, const char *key, const char *netns, const char *pidns,
		     int grace_s)
{
	const cJSON *since = cJSON_GetObjectItemCaseSensitive(b->gone, key);
	double now = (double)time(NULL);
	enum ns_verdict v = netns_judge(b, netns, pidns);

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

void stale_book_set_host_proc(struct stale_book *b, const char *dir)
{
	b->host_proc = dir;
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
