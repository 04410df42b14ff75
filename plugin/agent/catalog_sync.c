// SPDX-License-Identifier: Apache-2.0
/* Catalog sync: validate a catalog source and install it atomically when it changed. */
#include "plugin/agent/catalog_sync.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "netconf/netconf.h"
#include "plugin/attach/core.h"

#define CATALOG_MAX ((size_t)4 * 1024 * 1024)

/* The source is the caller's path (a ConfigMap mount inside the agent's container), not a host one.
 */
static int read_source(const char *path, char **ret, size_t *ret_len)
{
	struct stat st;
	char *buf;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), r = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > CATALOG_MAX) {
		r = fstat(fd, &st) < 0 ? -errno : S_ISREG(st.st_mode) ? -EFBIG : -EINVAL;
		close(fd);
		return r;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	/* a ConfigMap update swaps a symlink: read to EOF, bounded by the size seen */
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : 0;
			break;
		}
		got += (size_t)n;
	}
	close(fd);
	if (r < 0) {
		free(buf);
		return r;
	}
	buf[got] = '\0';
	*ret = buf;
	*ret_len = got;
	return 0;
}

int catalog_sync(const struct rq_root *root, const char *source, bool *ret_changed,
		 struct rq_error *e)
{
	struct rq_catalog *cat = NULL;
	char *src = NULL, *cur = NULL;
	size_t len = 0, cur_len = 0;
	int r;

	*ret_changed = false;
	r = read_source(source, &src, &len);
	if (r < 0)
		return rq_err(e, RQ_ERR_IO, r, "catalog source %s: %s", source, strerror(-r));
	r = catalog_parse(src, len, &cat, e);
	catalog_free(cat);
	if (r < 0) {
		char msg[RQ_ERR_MSG_MAX];

		(void)snprintf(msg, sizeof(msg), "catalog source %s: %s", source, e->msg);
		memcpy(e->msg, msg, sizeof(e->msg));
		free(src);
		return r;
	}
	r = sysfs_read_file(root, RQ_CATALOG_PATH, CATALOG_MAX, &cur, &cur_len);
	if (r == 0 && cur && src && cur_len == len && !memcmp(cur, src, len)) {
		free(cur);
		free(src);
		return 0;
	}
	free(cur);
	r = sysfs_write_atomic(root, RQ_CATALOG_PATH, src, len);
	free(src);
	if (r < 0)
		return rq_err(e, RQ_ERR_IO, r, "installing catalog %s: %s", RQ_CATALOG_PATH,
			      strerror(-r));
	*ret_changed = true;
	return 0;
}
