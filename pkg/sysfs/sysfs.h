/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Host filesystem access relative to a root directory: "/" for rdma-qos,
 * RDMA_QOS_SIM_ROOT for rdma-qos-sim. Every absolute host path the plugin
 * reads or writes goes through here. Paths are absolute strings ("/sys/...");
 * they resolve with openat2(RESOLVE_IN_ROOT) so relative sysfs symlinks work
 * inside a simulated tree and nothing resolves outside the root; a path with
 * a ".." component is refused outright (-EPERM).
 *
 * All functions return 0 / a count, or a negative errno.
 */
#ifndef RQ_SYSFS_H
#define RQ_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct rq_root {
	int fd;		   /* O_PATH|O_DIRECTORY of the root */
	char path[4096];   /* for messages only */
	bool attr_replace; /* a simulated tree: sysfs_write_str replaces the file whole */
};

int root_open(const char *path, struct rq_root *ret);
void root_close(struct rq_root *r);

/* The first kernel with openat2: a root other than "/" needs it (-ENOSYS before). */
#define RQ_OPENAT2_MIN_KERNEL "5.6"

/* openat2 under the root; @path absolute. Returns an fd (O_CLOEXEC added) or -errno. Without
 * openat2 the root "/" falls back to openat (same resolution, no RESOLVE_NO_MAGICLINKS). */
int root_openat(const struct rq_root *r, const char *path, int flags, mode_t mode);

/* Read a whole small file (at most @max bytes; more -> -EFBIG) into a malloc'd NUL-terminated
 * buffer. */
int sysfs_read_file(const struct rq_root *r, const char *path, size_t max, char **ret,
		    size_t *ret_len);
/* The same for a regular file of the caller's own, which is never grown in place (a
 * record, replaced by rename): a read shorter than asked is its end. Read whole in one
 * read(2) when it fits a page (sysfs_read_file: a read, an fstat and a read past 256 B). */
int sysfs_read_regular(const struct rq_root *r, const char *path, size_t max, char **ret,
		       size_t *ret_len);
/* Read the first line (trailing newline stripped) into buf. */
int sysfs_read_str(const struct rq_root *r, const char *path, char *buf, size_t len);
int sysfs_read_int(const struct rq_root *r, const char *path, long *ret);
/* Write a string (no O_CREAT: sysfs attributes exist or not). */
int sysfs_write_str(const struct rq_root *r, const char *path, const char *val);
/* readlink; @buf gets the raw link text. */
int sysfs_readlink(const struct rq_root *r, const char *path, char *buf, size_t len);
/* basename of the link target ("../../0000:81:00.0" -> "0000:81:00.0"). */
int sysfs_readlink_base(const struct rq_root *r, const char *path, char *buf, size_t len);
bool sysfs_exists(const struct rq_root *r, const char *path);
int sysfs_mkdir(const struct rq_root *r, const char *path, mode_t mode);
/* mkdir -p */
int sysfs_mkdir_p(const struct rq_root *r, const char *path, mode_t mode);

/*
 * List directory entries (excluding "." and ".."), sorted. *ret is a malloc'd
 * array of malloc'd names; free with sysfs_list_free.
 */
int sysfs_list(const struct rq_root *r, const char *path, char ***ret, size_t *ret_n);
void sysfs_list_free(char **names, size_t n);

/*
 * Atomically replace a regular file: write tmp in the same dir, fsync,
 * rename, fsync the dir. Creates parent directories (0700).
 */
int sysfs_write_atomic(const struct rq_root *r, const char *path, const char *data, size_t len);
/*
 * The same without the fsyncs: readers never see a torn file, but a crash
 * may lose it. For files on tmpfs, or that describe nothing that outlives a
 * reboot (the attachment state under /run). The writers of one file must be
 * serialised by the caller (the PF lock, the runtime's one operation per
 * container at a time): the temporary is ".<name>.tmp", so a writer killed
 * half-way leaves one the next write replaces (state_tmp_path names it).
 */
int sysfs_write_replace(const struct rq_root *r, const char *path, const char *data, size_t len);
/*
 * sysfs_write_replace for a path outside the root (an operator's --metrics-file
 * or --nfd-features-file, absolute or relative): its directory must exist, the
 * file gets @mode (0644: node-exporter and nfd-worker may read it as another
 * user). The temporary, ".<name>.tmp", is a dot file: nfd-worker skips dot
 * files, node-exporter's textfile collector reads *.prom only.
 */
int sysfs_write_replace_path(const char *path, const char *data, size_t len, mode_t mode);
int sysfs_unlink(const struct rq_root *r, const char *path);

/* A canonical PCI address as sysfs spells it: "0000:81:00.1" (lower-case hex; a 5-digit domain
 * behind VMD). Callers build paths from it, so anything else is refused before any lookup. */
bool sysfs_pci_valid(const char *s);

#endif
