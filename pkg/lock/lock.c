// SPDX-License-Identifier: Apache-2.0
#include "pkg/lock/lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* open (creating @dir when missing) and flock @path, with a bounded wait; 0 ms: try once */
static int lock_path(const struct rq_root *r, const char *dir, const char *path, int timeout_ms,
		     bool verify)
{
	long deadline = now_ms() + timeout_ms;
	int fd, delay_us = 200;

again:
	fd = root_openat(r, path, O_RDWR | O_CREAT | O_NOFOLLOW, 0600);
	if (fd == -ENOENT) {
		int rr = sysfs_mkdir_p(r, dir, 0700);

		if (rr < 0 && rr != -EEXIST)
			return rr;
		fd = root_openat(r, path, O_RDWR | O_CREAT | O_NOFOLLOW, 0600);
	}
	if (fd < 0)
		return fd;
	/* Poll with back-off rather than SIGALRM: signals would disturb the caller. */
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int err = errno;

		if (err != EWOULDBLOCK && err != EINTR) {
			close(fd);
			return -err;
		}
		if (now_ms() >= deadline) {
			close(fd);
			return -EAGAIN;
		}
		usleep((useconds_t)delay_us);
		if (delay_us < 20000)
			delay_us *= 2;
	}
	if (verify) {
		/*
		 * A sweeper unlinked the file while we waited (DEL's lock_attachment_remove,
		 * or a rename over it): the lock is on nothing. Its link count says so: a lock
		 * file is only ever linked at its one path, so a count above 0 is that path
		 * (one fstat, where opening the path again to compare inodes took three calls).
		 */
		struct stat a;

		if (fstat(fd, &a) < 0 || a.st_nlink == 0) {
			close(fd);
			goto again;
		}
	}
	return fd;
}

int lock_pf(const struct rq_root *r, const char *pf_pci, int timeout_ms)
{
	char path[256];
	int n;

	if (strchr(pf_pci, '/') || pf_pci[0] == '.' || !pf_pci[0])
		return -EINVAL;
	n = snprintf(path, sizeof(path), RQ_LOCK_DIR "/%s.lock", pf_pci);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	return lock_path(r, RQ_LOCK_DIR, path, timeout_ms, false);
}

static int attachment_path(const char *key, char *path, size_t len)
{
	int n;

	if (strchr(key, '/') || key[0] == '.' || !key[0])
		return -EINVAL;
	n = snprintf(path, len, RQ_ATT_LOCK_DIR "/%s.lock", key);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

int lock_attachment(const struct rq_root *r, const char *key, int timeout_ms)
{
	char path[512];
	int rr = attachment_path(key, path, sizeof(path));

	return rr < 0 ? rr : lock_path(r, RQ_ATT_LOCK_DIR, path, timeout_ms, true);
}

int lock_attachment_remove(const struct rq_root *r, const char *key)
{
	char path[512];
	int rr = attachment_path(key, path, sizeof(path));

	if (rr < 0)
		return rr;
	rr = sysfs_unlink(r, path);
	return rr == -ENOENT ? 0 : rr;
}

void lock_release(int fd)
{
	if (fd < 0)
		return;
	flock(fd, LOCK_UN);
	close(fd);
}
