// SPDX-License-Identifier: Apache-2.0
/*
 * sysfs as a pod's network namespace sees it. In exclusive RDMA netns mode
 * an RDMA device moved into a pod (and MOFED's tc/ under it) is tagged with
 * the pod's netns: the host's /sys never shows it, and setns() does not
 * change that, because a sysfs mount keeps the netns it was mounted in. So a
 * short-lived child makes its mount namespace private, enters the pod's
 * netns, mounts a sysfs over /sys there and does one read or write; the
 * plugin's own mount namespace and netns never change.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pkg/netns/netns.h"
#include "pkg/rdma/rdma.h"

enum podsys_op { POD_READ, POD_WRITE, POD_EXISTS, POD_READDIR };

#define PODSYS_BUF 8192

/* One open + read or write in the child; *ret_n is what was read. */
static int child_rw(enum podsys_op op, const char *path, const char *val, char *buf, size_t len,
		    ssize_t *ret_n)
{
	int fd = open(path, (op == POD_READ ? O_RDONLY : O_WRONLY) | O_CLOEXEC), r = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = op == POD_READ ? read(fd, buf, len) : write(fd, val, strlen(val));
	if (n < 0)
		r = -errno;
	else if (op == POD_WRITE && (size_t)n != strlen(val))
		r = -EIO;
	close(fd);
	*ret_n = n;
	return r;
}

/*
 * POD_READDIR: every regular entry of directory @path as "name value\n" (the
 * first line of each file). getdents64 itself: opendir allocates, and the
 * child of a threaded agent must not.
 */
static int child_readdir(const char *path, char *buf, size_t len, ssize_t *ret_n)
{
	char ents[4096];
	size_t o = 0;
	long n;
	int dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0)
		return -errno;
	while ((n = syscall(SYS_getdents64, dfd, ents, sizeof(ents))) > 0) {
		for (long off = 0; off < n;) {
			struct {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *d = (void *)(ents + off);
			char v[64];
			ssize_t got;
			size_t nl = strlen(d->name);
			int fd;

			off += d->reclen;
			if (d->name[0] == '.')
				continue;
			fd = openat(dfd, d->name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
			if (fd < 0)
				continue;
			got = read(fd, v, sizeof(v) - 1);
			close(fd);
			if (got <= 0 || o + nl + (size_t)got + 2 >= len)
				continue;
			memcpy(buf + o, d->name, nl);
			buf[o + nl] = ' ';
			o += nl + 1;
			for (ssize_t i = 0; i < got && v[i] != '\n'; i++)
				buf[o++] = v[i];
			buf[o++] = '\n';
		}
	}
	close(dfd);
	*ret_n = (ssize_t)o;
	return n < 0 ? -errno : 0;
}

/* Everything in the child: no allocation, no stdio; the answer goes to @out. */
static int child_io(int nsfd, enum podsys_op op, const char *path, const char *val, int out)
{
	char buf[PODSYS_BUF];
	ssize_t n = 0;
	int32_t rc;

	/*
	 * EBUSY from the sysfs mount: /sys already is this netns's sysfs (the same
	 * superblock on the same mount point: a host-networked pod's netns is the
	 * host's), so it shows the device as it is
	 */
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    setns(nsfd, CLONE_NEWNET) < 0 ||
	    (mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0 &&
	     errno != EBUSY))
		rc = -errno;
	else if (op == POD_EXISTS)
		rc = access(path, F_OK) < 0 ? -errno : 0;
	else if (op == POD_READDIR)
		rc = child_readdir(path, buf, sizeof(buf), &n);
	else
		rc = child_rw(op, path, val, buf, sizeof(buf) - 1, &n);
	if (write(out, &rc, sizeof(rc)) != (ssize_t)sizeof(rc))
		return 1;
	if (rc == 0 && (op == POD_READ || op == POD_READDIR) && n > 0 &&
	    write(out, buf, (size_t)n) != n)
		return 1;
	return 0;
}

static int read_all(int fd, char *buf, size_t len, size_t *ret_n)
{
	size_t got = 0;

	for (;;) {
		ssize_t n = read(fd, buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0 || (got += (size_t)n) == len)
			break;
	}
	*ret_n = got;
	return 0;
}

static int podsys_run(const char *netns, enum podsys_op op, const char *path, const char *val,
		      char *ret, size_t len)
{
	char buf[sizeof(int32_t) + PODSYS_BUF];
	int nsfd = -1, p[2], status = 0, r;
	size_t got = 0;
	int32_t rc;
	pid_t pid;

	/* the path is built from kernel-given names; refuse anything that could climb out */
	if (!path || path[0] != '/' || strstr(path, "/../") || strstr(path, "/.."))
		return -EPERM;
	r = netns_open(netns, &nsfd);
	if (r < 0)
		return r;
	if (pipe2(p, O_CLOEXEC) < 0) {
		r = -errno;
		close(nsfd);
		return r;
	}
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		_exit(child_io(nsfd, op, path, val, p[1]));
	}
	r = pid < 0 ? -errno : 0;
	close(p[1]);
	close(nsfd);
	if (r == 0)
		r = read_all(p[0], buf, sizeof(buf), &got);
	close(p[0]);
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (r < 0)
		return r;
	if (got < sizeof(rc) || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -EIO;
	memcpy(&rc, buf, sizeof(rc));
	if (rc < 0)
		return rc;
	if (op == POD_READ || op == POD_READDIR) {
		got -= sizeof(rc);
		if (got >= len)
			return -EFBIG;
		memcpy(ret, buf + sizeof(rc), got);
		ret[got] = '\0';
	}
	return 0;
}

int podsys_read(const char *netns, const char *path, char *buf, size_t len)
{
	if (!buf || len == 0)
		return -EINVAL;
	return podsys_run(netns, POD_READ, path, NULL, buf, len);
}

int podsys_write(const char *netns, const char *path, const char *val)
{
	return podsys_run(netns, POD_WRITE, path, val, NULL, 0);
}

int podsys_exists(const char *netns, const char *path)
{
	return podsys_run(netns, POD_EXISTS, path, NULL, NULL, 0);
}

int podsys_read_dir(const char *netns, const char *path, char *buf, size_t len)
{
	if (!buf || len == 0)
		return -EINVAL;
	return podsys_run(netns, POD_READDIR, path, NULL, buf, len);
}
