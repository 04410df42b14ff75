// SPDX-License-Identifier: Apache-2.0
/*
 * A recorded netns, as another process finds it. The path CNI_NETNS gave the
 * plugin names the netns only in the plugin's namespaces: a bind-mounted
 * nsfs file (/run/netns/X) in its mount namespace, /proc/<pid>/ns/net
 * (cri-dockerd) in its PID namespace. The agent has a PID namespace of its
 * own (no hostPID), where that PID is nobody or another process, so such a
 * path is read through the host's /proc as mounted into the agent's pod.
 * And a path is not an identity: after a lost DEL the PID may be another
 * process's, in another netns. The nsfs inode recorded at ADD is: a netns
 * that does not have it is not the pod's, and is never entered.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pkg/netns/netns.h"

/* The init PID namespace's inode (PROC_PID_INIT_INO): what records without "pidns" were written in.
 */
#define INIT_PIDNS "pid:[4026531836]"

/*
 * Is @host_proc a /proc of the initial PID namespace? Only that one can be
 * told from outside: its pid 2 is kthreadd (a child namespace may not even
 * read its /proc/1/ns links).
 */
static bool proc_is_init(const char *host_proc)
{
	char buf[4200], seen[64] = "";
	FILE *f;

	(void)snprintf(buf, sizeof(buf), "%s/2/comm", host_proc);
	f = fopen(buf, "re");
	if (!f)
		return false;
	if (!fgets(seen, sizeof(seen), f))
		seen[0] = '\0';
	fclose(f);
	return strcmp(seen, "kthreadd\n") == 0;
}

static int put(char *buf, size_t len, const char *a, const char *b)
{
	int n = snprintf(buf, len, "%s%s", a, b);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* The <pid> of a /proc/<pid>/... path, or NULL */
static const char *proc_pid(const char *path, size_t *ret_len)
{
	const char *rest = path + 6;
	size_t n;

	if (strncmp(path, "/proc/", 6) != 0)
		return NULL;
	n = strspn(rest, "0123456789");
	if (n == 0 || rest[n] != '/')
		return NULL;
	*ret_len = n;
	return rest;
}

int netns_locate(const struct netns_rec *n, const char *host_proc, char *buf, size_t len)
{
	char own[64] = "", dir[4200];
	const char *rest, *slash, *pidns;
	struct stat st;
	size_t plen;

	if (!n->path || !n->path[0])
		return -ENOENT;
	if (strncmp(n->path, "/proc/", 6) != 0) {
		/* a bind-mount target: ENOENT means gone only in a directory that is there */
		slash = strrchr(n->path, '/');
		(void)snprintf(dir, sizeof(dir), "%.*s", (int)(slash - n->path), n->path);
		if (!dir[0] || stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
			return -EREMOTE;
		return put(buf, len, n->path, "");
	}
	rest = proc_pid(n->path, &plen);
	if (!rest)
		return -EREMOTE; /* /proc/self/... and the like: nothing about the pod */
	pidns = n->pidns && n->pidns[0] ? n->pidns : INIT_PIDNS;
	if (readlink("/proc/self/ns/pid", own, sizeof(own) - 1) > 0 && !strcmp(own, pidns))
		return put(buf, len, n->path, "");
	/* the mount must be a /proc of the plugin's PID namespace */
	if (!host_proc || !host_proc[0] || strcmp(pidns, INIT_PIDNS) != 0 ||
	    !proc_is_init(host_proc))
		return -EREMOTE;
	return put(buf, len, host_proc, n->path + 5);
}

int netns_pid_start(const char *proc, const char *path, uint64_t *ret)
{
	char buf[4200], stat[1024], *p;
	unsigned long long v;
	const char *pid;
	size_t n, got;
	FILE *f;

	pid = path ? proc_pid(path, &n) : NULL;
	if (!pid)
		return -EINVAL;
	(void)snprintf(buf, sizeof(buf), "%s/%.*s/stat", proc, (int)n, pid);
	f = fopen(buf, "re");
	if (!f)
		return errno == ENOENT || errno == ESRCH ? -ENOENT : -errno;
	got = fread(stat, 1, sizeof(stat) - 1, f);
	fclose(f);
	stat[got] = '\0';
	/* comm may hold spaces and parentheses: the fields start after the last ')' */
	p = strrchr(stat, ')');
	/* state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime
	 * cutime cstime priority nice num_threads itrealvalue starttime */
	if (!p || sscanf(p + 1,
			 " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
			 "%*d %*d %llu",
			 &v) != 1)
		return -EBADMSG;
	*ret = v;
	return 0;
}

int netns_identity(int fd, uint64_t *ret_dev, uint64_t *ret_ino)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	*ret_dev = (uint64_t)st.st_dev;
	*ret_ino = (uint64_t)st.st_ino;
	return 0;
}

/* Is the process of @n's /proc/<pid> path, as located at @path, still the one ADD saw? */
static bool pid_same(const struct netns_rec *n, const char *path)
{
	char proc[4200];
	size_t len;
	const char *pid = proc_pid(n->path, &len);
	uint64_t start = 0;

	/* @path is <proc root>/<pid>/...: the root is what precedes the pid */
	if (!pid || strlen(path) < strlen(n->path))
		return false;
	(void)snprintf(proc, sizeof(proc), "%.*s", (int)(strlen(path) - strlen(n->path) + 5), path);
	return netns_pid_start(proc, n->path, &start) == 0 && start == n->pid_start;
}

int netns_open_rec(const struct netns_rec *n, const char *host_proc, char *ret_path, size_t len,
		   int *ret_fd)
{
	char path[4200];
	uint64_t dev = 0, ino = 0;
	int fd = -1, r;

	r = netns_locate(n, host_proc, path, sizeof(path));
	if (r < 0)
		return r;
	r = netns_open(path, &fd);
	if (r < 0)
		return r;
	/* no identity recorded (a record of 0.2.0): the path is all there is to go by */
	if (n->ino && (netns_identity(fd, &dev, &ino) < 0 || dev != n->dev || ino != n->ino)) {
		close(fd);
		return -ESTALE;
	}
	/*
	 * After the open: a process that has its start time now lived when the
	 * netns was opened through it (a PID is reused only after its process died).
	 */
	if (n->pid_start && !pid_same(n, path)) {
		close(fd);
		return -ESTALE;
	}
	if (ret_path && put(ret_path, len, path, "") < 0) {
		close(fd);
		return -ENAMETOOLONG;
	}
	if (ret_fd)
		*ret_fd = fd;
	else
		close(fd);
	return 0;
}
