// SPDX-License-Identifier: Apache-2.0
#include "pkg/lock/lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

int lock_pf(const struct rq_root *r, const char *pf_pci, int timeout_ms)
{
	char path[256];
	long deadline;
	int fd, n, delay_us = 200;

	if (strchr(pf_pci, '/') || pf_pci[0] == '.' || !pf_pci[0])
		return -EINVAL;
	n = snprintf(path, sizeof(path), RQ_LOCK_DIR "/%s.lock", pf_pci);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	fd = root_openat(r, path, O_RDWR | O_CREAT | O_NOFOLLOW, 0600);
	if (fd == -ENOENT) {
		int rr = sysfs_mkdir_p(r, RQ_LOCK_DIR, 0700);

		if (rr < 0 && rr != -EEXIST)
			return rr;
		fd = root_openat(r, path, O_RDWR | O_CREAT | O_NOFOLLOW, 0600);
	}
	if (fd < 0)
		return fd;
	deadline = now_ms() + timeout_ms;
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
	return fd;
}

void lock_release(int fd)
{
	if (fd < 0)
		return;
	flock(fd, LOCK_UN);
	close(fd);
}
