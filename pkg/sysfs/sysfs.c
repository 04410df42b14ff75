// SPDX-License-Identifier: Apache-2.0
/*
 * Host paths under a root fd. openat2(RESOLVE_IN_ROOT) makes absolute and
 * ".." symlink targets resolve inside the root, as relative sysfs links must
 * in a simulated tree; callers' paths with ".." are refused outright.
 * One file past 500 lines on purpose: every reader and writer here shares the
 * root-fd resolution and its fallback below openat2's floor, which must not
 * be reachable from outside this file.
 */
#include "pkg/sysfs/sysfs.h"

#include "pkg/mem/mem.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int path_check(const char *path)
{
	const char *p = path;

	if (!path || path[0] != '/')
		return -EINVAL;
	while (*p) {
		const char *end;
		size_t n;

		while (*p == '/')
			p++;
		end = strchr(p, '/');
		n = end ? (size_t)(end - p) : strlen(p);
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return -EPERM;
		p += n;
	}
	return 0;
}

/* The path relative to the root: "." for "/" itself. */
static const char *rel(const char *path)
{
	while (*path == '/')
		path++;
	return *path ? path : ".";
}

int root_open(const char *path, struct rq_root *ret)
{
	int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	ret->fd = fd;
	ret->attr_replace = false;
	(void)snprintf(ret->path, sizeof(ret->path), "%s", path);
	return 0;
}

void root_close(struct rq_root *r)
{
	if (r && r->fd >= 0)
		close(r->fd);
	if (r)
		r->fd = -1;
}

/*
 * Kernels before 5.6 have no openat2 (ENOSYS). Under the host root "/" a
 * plain openat resolves every path exactly as RESOLVE_IN_ROOT would, absolute
 * symlink targets included, because the process root is that root; ".." is
 * refused either way. What is lost is RESOLVE_NO_MAGICLINKS, which guards
 * against /proc magic links planted on the way, something only root can do.
 * Under any other root (the simulated node) nothing short of openat2 keeps a
 * walk inside it: refuse (callers name the minimum, RQ_OPENAT2_MIN_KERNEL).
 */
static int root_openat_compat(const struct rq_root *r, const char *path, int flags, mode_t mode)
{
	int fd;

	if (strcmp(r->path, "/") != 0)
		return -ENOSYS;
	fd = openat(r->fd, rel(path), flags | O_CLOEXEC, mode);
	return fd < 0 ? -errno : fd;
}

int root_openat(const struct rq_root *r, const char *path, int flags, mode_t mode)
{
	struct open_how how;
	long fd;
	int rr = path_check(path);

	if (rr < 0)
		return rr;
	memset(&how, 0, sizeof(how));
	how.flags = (unsigned long long)(flags | O_CLOEXEC);
	how.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0;
	how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
	/* RESOLVE_IN_ROOT fails with EAGAIN when a rename raced the walk: retry, but boundedly */
	for (int tries = 0;; tries++) {
		fd = syscall(SYS_openat2, r->fd, rel(path), &how, sizeof(how));
		if (fd >= 0 || errno != EAGAIN || tries >= 16)
			break;
	}
	if (fd < 0 && errno == ENOSYS)
		return root_openat_compat(r, path, flags, mode);
	return fd < 0 ? -errno : (int)fd;
}

/* Open the parent directory of @path; *ret_name points at the last component. */
static int open_parent(const struct rq_root *r, const char *path, char *buf, size_t len,
		       const char **ret_name)
{
	char *slash;
	int fd;

	if (snprintf(buf, len, "%s", path) >= (int)len)
		return -ENAMETOOLONG;
	while (strlen(buf) > 1 && buf[strlen(buf) - 1] == '/')
		buf[strlen(buf) - 1] = '\0';
	slash = strrchr(buf, '/');
	if (!slash || !slash[1])
		return -EINVAL;
	*slash = '\0';
	fd = root_openat(r, buf[0] ? buf : "/", O_PATH | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	*ret_name = slash + 1;
	return fd;
}

/*
 * @cap: the first read's size; @regular: the caller's own regular file (a
 * state record, the simulated node's DCB file), where a short read is its end.
 */
static int read_file(const struct rq_root *r, const char *path, size_t max, size_t cap,
		     bool regular, char **ret, size_t *ret_len)
{
	size_t len = 0, reg_size = 0;
	bool sized = false, first = true;
	struct stat st;
	char *buf;
	int fd = root_openat(r, path, O_RDONLY, 0), rr = 0;

	if (fd < 0)
		return fd;
	buf = malloc(cap + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		size_t want;
		ssize_t n;

		if (len == cap) {
			char *nb;

			if (cap > max) {
				rr = -EFBIG;
				break;
			}
			/*
			 * Past the first 256 bytes a regular file says its size: one
			 * buffer and one more read, not a doubling realloc (a 70 KB
			 * catalog took 9 reads and copies through mmap'ed memory).
			 * Small files (sysfs attributes, records) never ask. sysfs says
			 * 4096 whatever the value; a file that grew since still doubles.
			 */
			want = cap * 2;
			if (!sized && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
			    (uint64_t)st.st_size >= cap) {
				want =
				    (uint64_t)st.st_size >= max ? max + 1 : (size_t)st.st_size + 1;
				reg_size = (uint64_t)st.st_size > max ? 0 : (size_t)st.st_size;
			}
			sized = true;
			nb = realloc(buf, want + 1);
			if (!nb) {
				rr = -ENOMEM;
				break;
			}
			buf = nb;
			cap = want;
			if (cap - len >= RQ_MEM_PREFAULT_MIN)
				mem_populate(buf + len, cap - len);
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rr = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		/*
		 * No read for the end (issue 51: a steady ADD read 11 files that way): a
		 * first read shorter than its 256 bytes has all of the file (a sysfs or
		 * configfs attribute is produced whole by one read, a seq_file fills a
		 * page before it returns, a regular file is short only at its end); and a
		 * regular file read up to the size fstat gave is whole (records are
		 * replaced by rename, never grown in place; one that grew since is read
		 * on as before when it is larger).
		 */
		if (((first || regular) && len < cap) || (reg_size && len == reg_size))
			break;
		first = false;
	}
	close(fd);
	if (rr == 0 && len > max)
		rr = -EFBIG;
	if (rr < 0) {
		free(buf);
		return rr;
	}
	buf[len] = '\0';
	*ret = buf;
	*ret_len = len;
	return 0;
}

int sysfs_read_file(const struct rq_root *r, const char *path, size_t max, char **ret,
		    size_t *ret_len)
{
	return read_file(r, path, max, 256, false, ret, ret_len);
}

int sysfs_read_regular(const struct rq_root *r, const char *path, size_t max, char **ret,
		       size_t *ret_len)
{
	/* a page: a record, the PF index, a DCB file in one read, no fstat */
	return read_file(r, path, max, 4096, true, ret, ret_len);
}

int sysfs_read_str(const struct rq_root *r, const char *path, char *buf, size_t len)
{
	char *data = NULL;
	size_t n = 0;
	int rr = sysfs_read_file(r, path, (size_t)64 * 1024, &data, &n);

	if (rr < 0)
		return rr;
	n = strcspn(data, "\n");
	if (n >= len) {
		free(data);
		return -ENAMETOOLONG;
	}
	memcpy(buf, data, n);
	buf[n] = '\0';
	free(data);
	return 0;
}

int sysfs_read_int(const struct rq_root *r, const char *path, long *ret)
{
	char buf[64], *end;
	long v;
	int rr = sysfs_read_str(r, path, buf, sizeof(buf));

	if (rr < 0)
		return rr;
	errno = 0;
	/* base 10: sysfs numbers are decimal, and "010" must not read as octal 8 */
	v = strtol(buf, &end, 10);
	if (errno || end == buf || (*end && *end != ' '))
		return -EINVAL;
	*ret = v;
	return 0;
}

static int write_atomic(const struct rq_root *r, const char *path, const char *data, size_t len,
			bool sync);

int sysfs_write_str(const struct rq_root *r, const char *path, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd, rr = 0;

	/*
	 * A kernel attribute takes the whole value in one write and never reads back
	 * truncated. A simulated node's attributes are plain files, where O_TRUNC then
	 * write could leave an empty file behind a killed writer: replace them whole.
	 */
	if (r->attr_replace) {
		fd = root_openat(r, path, O_RDONLY, 0);
		if (fd < 0)
			return fd;
		close(fd);
		return write_atomic(r, path, val, len, false);
	}
	fd = root_openat(r, path, O_WRONLY | O_TRUNC, 0);
	if (fd < 0)
		return fd;
	n = write(fd, val, len);
	if (n < 0)
		rr = -errno;
	else if ((size_t)n != len)
		rr = -EIO;
	if (close(fd) < 0 && rr == 0)
		rr = -errno;
	return rr;
}

int sysfs_readlink(const struct rq_root *r, const char *path, char *buf, size_t len)
{
	char tmp[4096];
	const char *name;
	ssize_t n;
	int dfd = open_parent(r, path, tmp, sizeof(tmp), &name);

	if (dfd < 0)
		return dfd;
	n = readlinkat(dfd, name, buf, len);
	close(dfd);
	if (n < 0)
		return -errno;
	if ((size_t)n >= len)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	return 0;
}

int sysfs_readlink_base(const struct rq_root *r, const char *path, char *buf, size_t len)
{
	char link[4096];
	const char *base;
	int rr = sysfs_readlink(r, path, link, sizeof(link));

	if (rr < 0)
		return rr;
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	if (!*base || strlen(base) >= len)
		return -EINVAL;
	memcpy(buf, base, strlen(base) + 1);
	return 0;
}

bool sysfs_exists(const struct rq_root *r, const char *path)
{
	int fd = root_openat(r, path, O_PATH, 0);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

int sysfs_mkdir(const struct rq_root *r, const char *path, mode_t mode)
{
	char tmp[4096];
	const char *name;
	int dfd = open_parent(r, path, tmp, sizeof(tmp), &name), rr = 0;

	if (dfd < 0)
		return dfd;
	if (mkdirat(dfd, name, mode) < 0)
		rr = -errno;
	close(dfd);
	return rr;
}

int sysfs_mkdir_p(const struct rq_root *r, const char *path, mode_t mode)
{
	char buf[4096];
	int rr = path_check(path);

	if (rr < 0)
		return rr;
	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (char *p = buf + 1;; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;

			*p = '\0';
			rr = sysfs_mkdir(r, buf, mode);
			if (rr < 0 && rr != -EEXIST)
				return rr;
			*p = c;
			if (!c)
				break;
		}
	}
	return 0;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

bool sysfs_pci_valid(const char *s)
{
	size_t n = s ? strlen(s) : 0, dom;

	/* domain:bus:dev.fn; the domain has 5 digits behind a VMD bridge */
	if (n != 12 && n != 13)
		return false;
	dom = n - 8;
	for (size_t i = 0; i < n; i++) {
		bool ok;

		if (i == dom || i == dom + 3)
			ok = s[i] == ':';
		else if (i == dom + 6)
			ok = s[i] == '.';
		else if (i == n - 1)
			ok = s[i] >= '0' && s[i] <= '7';
		else
			ok = is_hex(s[i]);
		if (!ok)
			return false;
	}
	/* the device number has 5 bits */
	return !(s[dom + 4] > '1');
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void sysfs_list_free(char **names, size_t n)
{
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

/* getdents64's record (the kernel's struct linux_dirent64) */
struct dirent64_rec {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/* the largest getdents64 record: its header and a NAME_MAX name, 8-byte aligned */
#define DIRENT64_MAX ((offsetof(struct dirent64_rec, name) + 256 + 7) & ~(size_t)7)

/*
 * getdents64 on the fd itself, not fdopendir/readdir: no fstat and two fcntl per
 * directory, no 32 KiB DIR buffer on the heap (issue 51: a steady ADD lists five).
 * Under /sys (sysfs and configfs: the kernel emits a directory's entries until
 * the next does not fit) an answer that left room for the largest entry is the
 * whole directory: no second getdents64 to hear 0 (6 calls of a steady ADD).
 * Other directories (kubelet's, the state's) are read to the 0, as readdir does.
 */
int sysfs_list(const struct rq_root *r, const char *path, char ***ret, size_t *ret_n)
{
	int fd = root_openat(r, path, O_RDONLY | O_DIRECTORY, 0), rr = 0;
	char **names = NULL;
	size_t n = 0, cap = 0;
	char buf[4096] __attribute__((aligned(8)));
	bool kernfs = !strncmp(path, "/sys/", 5);
	ssize_t got;

	if (fd < 0)
		return fd;
	while ((got = syscall(SYS_getdents64, fd, buf, sizeof(buf))) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rr = -errno;
			break;
		}
		for (ssize_t o = 0; o < got && rr == 0;) {
			const struct dirent64_rec *de = (const struct dirent64_rec *)(buf + o);

			o += de->reclen;
			if (!strcmp(de->name, ".") || !strcmp(de->name, ".."))
				continue;
			if (n == cap) {
				char **nn =
				    realloc(names, (cap = cap ? cap * 2 : 16) * sizeof(*names));

				if (!nn) {
					rr = -ENOMEM;
					break;
				}
				names = nn;
			}
			names[n] = strdup(de->name);
			if (!names[n]) {
				rr = -ENOMEM;
				break;
			}
			n++;
		}
		if (rr < 0 || (kernfs && (size_t)got <= sizeof(buf) - DIRENT64_MAX))
			break;
	}
	close(fd);
	if (rr < 0) {
		sysfs_list_free(names, n);
		return rr;
	}
	if (n > 1)
		qsort(names, n, sizeof(*names), cmp_names);
	*ret = names;
	*ret_n = n;
	return 0;
}

/*
 * The one writer of a whole file: @name in the directory @dfd (O_PATH, closed
 * here) replaced by a temporary beside it, renamed over.
 */
static int replace_at(int dfd, const char *name, const char *data, size_t len, mode_t mode,
		      bool sync)
{
	char tmpname[300];
	int fd, rr = 0;
	size_t off = 0;

	/* O_PATH cannot be used for *at writes on all kernels: reopen it readable. */
	fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(dfd);
	if (fd < 0)
		return -errno;
	dfd = fd;
	/*
	 * Without fsync the writers of one file are serialised by the caller, so the
	 * temporary has a fixed name: one killed half-way leaves nothing that the next
	 * write of the file does not replace. With fsync (install), the pid keeps
	 * concurrent writers apart.
	 */
	if ((sync ? snprintf(tmpname, sizeof(tmpname), ".%s.%d.tmp", name, (int)getpid())
		  : snprintf(tmpname, sizeof(tmpname), ".%s.tmp", name)) >= (int)sizeof(tmpname)) {
		close(dfd);
		return -ENAMETOOLONG;
	}
	fd = openat(dfd, tmpname, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0) {
		rr = -errno;
		close(dfd);
		return rr;
	}
	while (off < len && rr == 0) {
		ssize_t n = write(fd, data + off, len - off);

		if (n < 0 && errno != EINTR)
			rr = -errno;
		else if (n > 0)
			off += (size_t)n;
	}
	if (rr == 0 && sync && fsync(fd) < 0)
		rr = -errno;
	if (close(fd) < 0 && rr == 0)
		rr = -errno;
	if (rr == 0 && renameat(dfd, tmpname, dfd, name) < 0)
		rr = -errno;
	if (rr < 0)
		(void)unlinkat(dfd, tmpname, 0);
	else if (sync)
		(void)fsync(dfd);
	close(dfd);
	return rr;
}

static int write_atomic(const struct rq_root *r, const char *path, const char *data, size_t len,
			bool sync)
{
	char tmp[4096], dir[4096];
	const char *name;
	int dfd, rr;

	dfd = open_parent(r, path, dir, sizeof(dir), &name);
	if (dfd == -ENOENT) {
		(void)snprintf(tmp, sizeof(tmp), "%s", path);
		*strrchr(tmp, '/') = '\0';
		rr = sysfs_mkdir_p(r, tmp, 0700);
		if (rr < 0)
			return rr;
		dfd = open_parent(r, path, dir, sizeof(dir), &name);
	}
	if (dfd < 0)
		return dfd;
	return replace_at(dfd, name, data, len, 0600, sync);
}

int sysfs_write_atomic(const struct rq_root *r, const char *path, const char *data, size_t len)
{
	return write_atomic(r, path, data, len, true);
}

int sysfs_write_replace(const struct rq_root *r, const char *path, const char *data, size_t len)
{
	return write_atomic(r, path, data, len, false);
}

int sysfs_write_replace_path(const char *path, const char *data, size_t len, mode_t mode)
{
	char dir[4096];
	const char *name = strrchr(path, '/');
	int dfd;

	if (!name) {
		name = path;
		(void)snprintf(dir, sizeof(dir), ".");
	} else if (snprintf(dir, sizeof(dir), "%.*s", (int)(name - path), path) >=
		   (int)sizeof(dir)) {
		return -ENAMETOOLONG;
	} else {
		if (!dir[0])
			(void)snprintf(dir, sizeof(dir), "/");
		name++;
	}
	if (!name[0])
		return -EINVAL;
	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	return replace_at(dfd, name, data, len, mode, false);
}

int sysfs_unlink(const struct rq_root *r, const char *path)
{
	char tmp[4096];
	const char *name;
	int dfd = open_parent(r, path, tmp, sizeof(tmp), &name), rr = 0;

	if (dfd < 0)
		return dfd;
	if (unlinkat(dfd, name, 0) < 0)
		rr = -errno;
	close(dfd);
	return rr;
}
