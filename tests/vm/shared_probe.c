// SPDX-License-Identifier: Apache-2.0
/*
 * Test driver for tests/vm/shared.sh (issue 50 on a real kernel): the
 * pkg/ functions of the shared path, run on the guest's kernel.
 *
 *   shared-probe lower NETNS IFNAME   netns_link_lower from IFNAME in the
 *       netns NETNS (a path: /run/netns/pa) to the caller's netns (the host):
 *       prints "KIND DEV:KIND ..." (the pod link's kind, then the host chain
 *       from the lower device to the real one); an error prints "error -N"
 *       (and "nsid N" for -EXDEV), exit 1
 *   shared-probe gid DEV IP MS       rdma_gid_table_read + rdma_gid_find on
 *       DEV's port 1 every 10 ms for up to MS ms, as ADD waits: prints
 *       "v2 N v1 M after T ms", exit 0; else "error -N after T ms", exit 1
 *   shared-probe nogid DEV IP MS     the same until the address has no RoCE v2
 *       entry (-ENOENT): "gone after T ms", exit 0; else exit 1
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pkg/netns/netns.h"
#include "pkg/rdma/gid.h"
#include "pkg/sysfs/sysfs.h"

static long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int lower(const char *nspath, const char *ifname)
{
	struct netns_lower l;
	int pod = open(nspath, O_RDONLY | O_CLOEXEC),
	    host = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	int rc;

	if (pod < 0 || host < 0) {
		fprintf(stderr, "shared-probe: opening %s: %s\n", pod < 0 ? nspath : "own netns",
			strerror(errno));
		return 2;
	}
	memset(&l, 0, sizeof(l));
	rc = netns_link_lower(pod, ifname, host, &l);
	close(pod);
	close(host);
	if (rc < 0) {
		if (rc == -EXDEV)
			printf("error %d nsid %d\n", rc, l.other_nsid);
		else
			printf("error %d\n", rc);
		return 1;
	}
	printf("%s", l.kind);
	for (size_t i = 0; i < l.n; i++)
		printf(" %s:%s", l.dev[i].ifname, l.dev[i].kind);
	printf("\n");
	return 0;
}

/* one read of the table and the address's entries: rdma_gid_find's answer */
static int find(const struct rq_root *r, const char *dev, const char *ip, struct rdma_gid_match *m)
{
	struct rdma_gid_table t;
	int rc = rdma_gid_table_read(r, dev, 1, &t);

	if (rc < 0)
		return rc;
	rc = rdma_gid_find(&t, ip, m);
	rdma_gid_table_fini(&t);
	return rc;
}

static int gid(const char *dev, const char *ip, long lim, int want_gone)
{
	struct rq_root r;
	struct rdma_gid_match m;
	long t0 = now_ms(), t;
	int rc;

	if (root_open("/", &r) < 0)
		return 2;
	for (;;) {
		rc = find(&r, dev, ip, &m);
		t = now_ms() - t0;
		if (want_gone ? rc == -ENOENT : rc == 0)
			break;
		if (t >= lim || (rc < 0 && rc != -ENOENT)) {
			printf("error %d after %ld ms\n", rc, t);
			root_close(&r);
			return 1;
		}
		usleep(10000);
	}
	root_close(&r);
	if (want_gone)
		printf("gone after %ld ms\n", t);
	else
		printf("v2 %d v1 %d after %ld ms\n", m.v2, m.v1, t);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "lower"))
		return lower(argv[2], argv[3]);
	if (argc == 5 && (!strcmp(argv[1], "gid") || !strcmp(argv[1], "nogid")))
		return gid(argv[2], argv[3], atol(argv[4]), !strcmp(argv[1], "nogid"));
	fprintf(stderr, "usage: shared-probe lower NETNS IFNAME | gid|nogid DEV IP MS\n");
	return 2;
}
