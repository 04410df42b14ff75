// SPDX-License-Identifier: Apache-2.0
/*
 * The record's pod netns, for every reader of it (the stale judge, the
 * VF-home check, telemetry, the class in exclusive RDMA netns mode, DEL,
 * show): located through the host's /proc when the record's path is a
 * /proc/<pid> of another PID namespace, and entered only while it is still
 * the netns ADD saw (pkg/netns/resolve.c says why).
 */
#include <errno.h>
#include <unistd.h>

#include "plugin/attach/core.h"

/* JSON numbers are doubles: exact up to 2^53, more than any dev_t or nsfs inode seen */
#define ID_MAX 9007199254740992.0

static uint64_t id_of(const cJSON *rec, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(rec, name);

	if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > ID_MAX)
		return 0;
	return (uint64_t)v->valuedouble;
}

void podns_of_record(const cJSON *rec, struct netns_rec *ret)
{
	ret->path = json_str(rec, "netns");
	ret->pidns = json_str(rec, "pidns");
	ret->dev = id_of(rec, "netnsDev");
	ret->ino = id_of(rec, "netnsIno");
	ret->pid_start = id_of(rec, "netnsPidStart");
}

int podns_open(const struct rq_env *env, const cJSON *rec, char *ret_path, size_t len, int *ret_fd)
{
	struct netns_rec n;

	podns_of_record(rec, &n);
	return netns_open_rec(&n, env ? env->host_proc : NULL, ret_path, len, ret_fd);
}

int podns_record_identity(const char *path, uint64_t dev, uint64_t ino, cJSON *rec)
{
	uint64_t start = 0;
	int fd = -1, r;

	if (!ino) {
		r = netns_open(path, &fd);
		if (r < 0)
			return r;
		r = netns_identity(fd, &dev, &ino);
		close(fd);
		if (r < 0)
			return r;
	}
	if ((double)dev > ID_MAX || (double)ino > ID_MAX)
		return -ERANGE;
	if (!cJSON_AddNumberToObject(rec, "netnsDev", (double)dev) ||
	    !cJSON_AddNumberToObject(rec, "netnsIno", (double)ino))
		return -ENOMEM;
	/*
	 * nsfs inode numbers are reused as soon as a netns is freed: a PID reused
	 * by a process in the next pod's netns could match. The process's start
	 * time tells it from its successor at that PID.
	 */
	r = netns_pid_start("/proc", path, &start);
	if (r == -EINVAL)
		return 0; /* not a /proc/<pid> path */
	if (r < 0)
		return r;
	if ((double)start > ID_MAX)
		return -ERANGE;
	return cJSON_AddNumberToObject(rec, "netnsPidStart", (double)start) ? 0 : -ENOMEM;
}
