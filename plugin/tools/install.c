// SPDX-License-Identifier: Apache-2.0
/*
 * rdma-qos install --cni-bin-dir DIR [--catalog-source FILE]: what the
 * DaemonSet's init container runs. The catalog first (validated by the
 * plugin's own parser; an invalid one changes nothing and fails, so a bad
 * ConfigMap keeps the last good catalog and is seen as a failing init
 * container), then this very binary (/proc/self/exe) as DIR/<name>. Each is
 * written only when its bytes differ, to a temporary name in the target
 * directory, fsync'd and renamed over the old one: a rename replaces a file
 * that is being executed, where cp fails with ETXTBSY, and a runtime that
 * execs the plugin meanwhile gets the old or the new binary, never half of
 * one. DIR and the catalog path are host paths (under RDMA_QOS_SIM_ROOT for
 * rdma-qos-sim); FILE is read as given.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pkg/log/log.h"
#include "plugin/tools/tools.h"

#define RQ_CATALOG_MAX ((size_t)4 << 20) /* as the plugin reads it */
#define RQ_BINARY_MAX  ((size_t)64 << 20)

struct install_opts {
	const char *bin_dir;
	const char *catalog_source;
};

/* Whether host file @path holds exactly @len bytes @data (a missing file does not). */
static bool same_content(const struct rq_root *root, const char *path, const char *data, size_t len)
{
	char *old = NULL;
	size_t olen = 0;
	bool same;

	if (sysfs_read_file(root, path, len + 1, &old, &olen) < 0)
		return false;
	same = olen == len && !memcmp(old, data, len);
	free(old);
	return same;
}

static int write_all(int fd, const char *data, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = write(fd, data + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		off += (size_t)n;
	}
	return 0;
}

/* tmp + fsync + rename + directory fsync, mode 0755: the executable counterpart of
 * sysfs_write_atomic (which makes 0600 state files). */
static int install_executable(const struct rq_root *root, const char *dir, const char *name,
			      const char *data, size_t len)
{
	char tmp[300];
	int dfd, fd, r;

	dfd = root_openat(root, dir, O_RDONLY | O_DIRECTORY, 0);
	if (dfd < 0)
		return dfd;
	/* in a container this is often pid 1 every time: a stale tmp is simply overwritten */
	(void)snprintf(tmp, sizeof(tmp), ".%s.%d.tmp", name, (int)getpid());
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0755);
	if (fd < 0) {
		r = -errno;
		close(dfd);
		return r;
	}
	r = write_all(fd, data, len);
	/* the umask may have cut the mode */
	if (r == 0 && fchmod(fd, 0755) < 0)
		r = -errno;
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && renameat(dfd, tmp, dfd, name) < 0)
		r = -errno;
	if (r < 0)
		(void)unlinkat(dfd, tmp, 0);
	else
		(void)fsync(dfd);
	close(dfd);
	return r;
}

int install_bin_path(const struct rq_env *env, const char *dir, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s", dir, env->binary);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int install_catalog(const struct rq_env *env, const char *source)
{
	struct rq_catalog *cat = NULL;
	struct rq_error e;
	char *buf = NULL;
	size_t len = 0;
	int r;

	r = cli_read_file(source, RQ_CATALOG_MAX, &buf, &len);
	if (r < 0) {
		log_error("catalog source %s: %s; the installed catalog is kept", source,
			  strerror(-r));
		return r;
	}
	rq_err_clear(&e);
	r = catalog_parse(buf, len, &cat, &e);
	catalog_free(cat);
	if (r < 0) {
		log_error("catalog source %s: %s; the installed catalog is kept", source, e.msg);
		goto out;
	}
	if (same_content(&env->root, RQ_CATALOG_PATH, buf, len)) {
		log_info("catalog %s: unchanged", RQ_CATALOG_PATH);
		goto out;
	}
	r = sysfs_write_atomic(&env->root, RQ_CATALOG_PATH, buf, len);
	if (r < 0)
		log_error("catalog %s: %s", RQ_CATALOG_PATH, strerror(-r));
	else
		log_info("catalog %s: installed from %s (%zu bytes)", RQ_CATALOG_PATH, source, len);
out:
	free(buf);
	return r;
}

int install_binary(const struct rq_env *env, const char *dir)
{
	char path[4096], *self = NULL;
	size_t len = 0;
	int r;

	r = install_bin_path(env, dir, path, sizeof(path));
	if (r < 0)
		return r;
	/* the running image itself: no second copy of the binary to keep in step */
	r = cli_read_file("/proc/self/exe", RQ_BINARY_MAX, &self, &len);
	if (r < 0) {
		log_error("reading this binary (/proc/self/exe): %s", strerror(-r));
		return r;
	}
	if (same_content(&env->root, path, self, len)) {
		log_info("binary %s: unchanged", path);
		goto out;
	}
	r = sysfs_mkdir_p(&env->root, dir, 0755);
	if (r == 0)
		r = install_executable(&env->root, dir, env->binary, self, len);
	if (r < 0)
		log_error("binary %s: %s", path, strerror(-r));
	else
		log_info("binary %s: installed (%s %s, %zu bytes)", path, env->binary, RQ_VERSION,
			 len);
out:
	free(self);
	return r;
}

static int parse_opts(int argc, char **argv, struct install_opts *o)
{
	static const struct option longopts[] = {
	    {"cni-bin-dir", required_argument, NULL, 'b'},
	    {"catalog-source", required_argument, NULL, 'c'},
	    {NULL, 0, NULL, 0},
	};
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (opt == 'b')
			o->bin_dir = optarg;
		else if (opt == 'c')
			o->catalog_source = optarg;
		else
			return -EINVAL;
	}
	if (optind != argc || !o->bin_dir || o->bin_dir[0] != '/')
		return -EINVAL;
	return 0;
}

int main_install(int argc, char **argv, const char *binary)
{
	struct install_opts o = {0};
	struct rq_env env;
	struct rq_error e;
	int r;

	/* argv[1] is "install": options start after it */
	if (parse_opts(argc - 1, argv + 1, &o) < 0) {
		(void)fprintf(
		    stderr,
		    "usage: %s install --cni-bin-dir DIR [--catalog-source FILE]\n"
		    "       DIR: an absolute path (/opt/cni/bin; OpenShift: /var/lib/cni/bin)\n",
		    binary);
		return 1;
	}
	rq_err_clear(&e);
	if (env_init(&env, &e) < 0) {
		(void)fprintf(stderr, "%s install: %s\n", binary, e.msg);
		return 1;
	}
	/* the catalog first, validated: an invalid one leaves catalog and binary as they were */
	r = o.catalog_source ? install_catalog(&env, o.catalog_source) : 0;
	if (r == 0)
		r = install_binary(&env, o.bin_dir);
	env_fini(&env);
	return r < 0 ? 1 : 0;
}
