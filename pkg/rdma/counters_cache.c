// SPDX-License-Identifier: Apache-2.0
/*
 * hw_counters files kept open between reads. An mlx5 port has ~40 counters:
 * open, read and close of each for every VF at every scrape is most of what
 * the telemetry costs; pread(fd, 0) on a kept sysfs file gives the current
 * value (kernfs calls the show() method again for a read at offset 0).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pkg/rdma/rdma.h"

struct ctr_entry {
	char dev[64];
	int port;
	bool used;
	time_t listed; /* CLOCK_MONOTONIC seconds */
	size_t n;
	char (*names)[RQ_RDMA_CTR_NAME];
	int *fds;
};

struct rdma_ctr_cache {
	struct ctr_entry *e;
	size_t n_e;
	size_t fds, max_fds;
	bool known_only;
};

static time_t mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

int rdma_ctr_cache_new(size_t max_fds, struct rdma_ctr_cache **ret)
{
	struct rdma_ctr_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->max_fds = max_fds;
	*ret = c;
	return 0;
}

void rdma_ctr_cache_known_only(struct rdma_ctr_cache *c, bool on)
{
	if (c)
		c->known_only = on;
}

static void entry_drop(struct rdma_ctr_cache *c, struct ctr_entry *e)
{
	for (size_t i = 0; i < e->n; i++)
		if (e->fds[i] >= 0)
			close(e->fds[i]);
	c->fds -= e->n;
	free(e->names);
	free(e->fds);
	e->names = NULL;
	e->fds = NULL;
	e->n = 0;
}

void rdma_ctr_cache_free(struct rdma_ctr_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_e; i++)
		entry_drop(c, &c->e[i]);
	free(c->e);
	free(c);
}

void rdma_ctr_cache_sweep(struct rdma_ctr_cache *c)
{
	size_t k = 0;

	if (!c)
		return;
	for (size_t i = 0; i < c->n_e; i++) {
		if (!c->e[i].used) {
			entry_drop(c, &c->e[i]);
			continue;
		}
		c->e[i].used = false;
		c->e[k++] = c->e[i];
	}
	c->n_e = k;
}

/* List the directory and open every counter file (lifespan and dot files left out). */
static int entry_fill(struct rdma_ctr_cache *c, struct ctr_entry *e, int dfd)
{
	char ents[8192];
	size_t cap = 0;
	long n;
	int r = 0, dir;

	while (r == 0 && (n = syscall(SYS_getdents64, dfd, ents, sizeof(ents))) > 0)
		for (long off = 0; r == 0 && off < n;) {
			const struct linux_dirent64 {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *d = (const void *)(ents + off);
			size_t nl = strlen(d->name);
			int fd;

			off += d->reclen;
			if (d->name[0] == '.' || !strcmp(d->name, "lifespan") ||
			    nl >= RQ_RDMA_CTR_NAME)
				continue;
			if (c->known_only && rdma_counter_classify(d->name, &dir) == RC_OTHER)
				continue;
			fd = openat(dfd, d->name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
			if (fd < 0)
				continue;
			if (e->n == cap) {
				size_t nc = cap ? cap * 2 : 64;
				char(*nn)[RQ_RDMA_CTR_NAME] =
				    realloc(e->names, nc * RQ_RDMA_CTR_NAME);
				int *nf = nn ? realloc(e->fds, nc * sizeof(int)) : NULL;

				if (nn)
					e->names = nn;
				if (!nf) {
					close(fd);
					r = -ENOMEM;
					break;
				}
				e->fds = nf;
				cap = nc;
			}
			memcpy(e->names[e->n], d->name, nl + 1);
			e->fds[e->n++] = fd;
			c->fds++;
		}
	if (r == 0 && n < 0)
		r = -errno;
	if (r < 0)
		entry_drop(c, e);
	return r;
}

static struct ctr_entry *entry_get(struct rdma_ctr_cache *c, const char *dev, int port)
{
	struct ctr_entry *n;

	for (size_t i = 0; i < c->n_e; i++)
		if (c->e[i].port == port && !strcmp(c->e[i].dev, dev))
			return &c->e[i];
	n = realloc(c->e, (c->n_e + 1) * sizeof(*n));
	if (!n)
		return NULL;
	c->e = n;
	n = &c->e[c->n_e++];
	memset(n, 0, sizeof(*n));
	(void)snprintf(n->dev, sizeof(n->dev), "%s", dev);
	n->port = port;
	return n;
}

/* Every kept file read again; -ESTALE when one fails (the device went away). */
static int entry_read(struct ctr_entry *e, struct rdma_counters *ret)
{
	ret->names = malloc((e->n ? e->n : 1) * RQ_RDMA_CTR_NAME);
	ret->vals = malloc((e->n ? e->n : 1) * sizeof(uint64_t));
	ret->n = 0;
	if (!ret->names || !ret->vals)
		return -ENOMEM;
	for (size_t i = 0; i < e->n; i++) {
		char v[64], *end;
		ssize_t got = pread(e->fds[i], v, sizeof(v) - 1, 0);
		unsigned long long x;

		if (got < 0)
			return -ESTALE;
		v[got] = '\0';
		errno = 0;
		x = strtoull(v, &end, 10);
		if (got == 0 || errno || end == v || v[0] == '-' || (*end && *end != '\n'))
			continue;
		memcpy(ret->names[ret->n], e->names[i], RQ_RDMA_CTR_NAME);
		ret->vals[ret->n++] = x;
	}
	return 0;
}

int rdma_counters_read_cached(struct rdma_ctr_cache *c, const struct rq_root *r, const char *dev,
			      int port, struct rdma_counters *ret)
{
	struct ctr_entry *e;
	char path[256];
	int dfd, rc;

	memset(ret, 0, sizeof(*ret));
	if (!c)
		return rdma_counters_read(r, NULL, dev, port, ret);
	if (!dev[0] || strchr(dev, '/') || dev[0] == '.' || port < 1)
		return -EINVAL;
	e = entry_get(c, dev, port);
	if (!e)
		return -ENOMEM;
	e->used = true;
	if (e->fds && mono_s() - e->listed < RQ_CTR_RELIST_S) {
		rc = entry_read(e, ret);
		if (rc == 0)
			return 0;
		rdma_counters_fini(ret);
	}
	entry_drop(c, e);
	if (c->fds >= c->max_fds)
		return rdma_counters_read(r, NULL, dev, port, ret);
	if (snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/hw_counters", dev,
		     port) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	dfd = root_openat(r, path, O_RDONLY | O_DIRECTORY, 0);
	if (dfd < 0)
		return dfd;
	rc = entry_fill(c, e, dfd);
	close(dfd);
	if (rc < 0)
		return rc;
	e->listed = mono_s();
	rc = entry_read(e, ret);
	if (rc < 0) {
		rdma_counters_fini(ret);
		entry_drop(c, e);
	}
	return rc;
}
