// SPDX-License-Identifier: Apache-2.0
/* pkg/sysfs: root-relative access over a temporary tree built here. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pkg/mem/mem.h"
#include "pkg/sysfs/sysfs.h"

static char top[64];
static struct rq_root root;

/* Create <top><rel> with @text (parents made). */
static void put(const char *rel, const char *text)
{
	char path[512], cmd[700];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", top, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	ck_assert_int_eq(system(cmd), 0);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static void link_at(const char *target, const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s%s", top, rel);
	ck_assert_int_eq(symlink(target, path), 0);
}

static void setup(void)
{
	unit_tmp(top, sizeof(top), "rq-sysfs");
	ck_assert_ptr_nonnull(mkdtemp(top));
	ck_assert_int_eq(root_open(top, &root), 0);
}

static void teardown(void)
{
	char cmd[128];

	root_close(&root);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
	(void)!system(cmd);
}

static char *slurp(const char *rel)
{
	char *buf = NULL;
	size_t len = 0;

	ck_assert_int_eq(sysfs_read_file(&root, rel, 4096, &buf, &len), 0);
	ck_assert_uint_eq(strlen(buf), len);
	return buf;
}

START_TEST(root_open_errors)
{
	struct rq_root r = {.fd = 77};

	ck_assert_int_eq(root_open("/nonexistent/rq-root", &r), -ENOENT);
	ck_assert_int_eq(r.fd, 77); /* untouched on failure */
	ck_assert_int_eq(root_open("/etc/hostname", &r), -ENOTDIR);
	root_close(&root);
	ck_assert_int_eq(root.fd, -1);
	root_close(&root); /* twice is harmless */
	root_close(NULL);
}
END_TEST

START_TEST(path_rules)
{
	put("/a/b", "x\n");
	ck_assert_int_eq(root_openat(&root, "a/b", O_RDONLY, 0), -EINVAL);
	ck_assert_int_eq(root_openat(&root, "", O_RDONLY, 0), -EINVAL);
	ck_assert_int_eq(root_openat(&root, NULL, O_RDONLY, 0), -EINVAL);
	ck_assert_int_eq(root_openat(&root, "/sys/../../etc/passwd", O_RDONLY, 0), -EPERM);
	ck_assert_int_eq(root_openat(&root, "/a/..", O_RDONLY, 0), -EPERM);
	ck_assert_int_eq(root_openat(&root, "/..", O_RDONLY, 0), -EPERM);
	ck_assert_int_eq(root_openat(&root, "/a//../a/b", O_RDONLY, 0), -EPERM);
	/* a name that merely contains dots is fine */
	put("/a/..b", "dots");
	{
		char *s = slurp("/a/..b");

		ck_assert_str_eq(s, "dots");
		free(s);
	}
	{
		int fd = root_openat(&root, "/a//b", O_RDONLY, 0);

		ck_assert_int_ge(fd, 0);
		ck_assert_int_ne(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
		close(fd);
	}
	{
		int fd = root_openat(&root, "/", O_PATH | O_DIRECTORY, 0);

		ck_assert_int_ge(fd, 0);
		close(fd);
	}
	ck_assert_int_eq(sysfs_mkdir_p(&root, "/x/../y", 0755), -EPERM);
	ck_assert_int_eq(sysfs_write_atomic(&root, "/x/../y", "1", 1), -EPERM);
	ck_assert_int_eq(sysfs_write_atomic(&root, "rel", "1", 1), -EINVAL);
}
END_TEST

/* Absolute and climbing symlinks resolve inside the root, never to the host's files. */
START_TEST(symlinks_stay_inside)
{
	char *s, buf[64];

	put("/etc/passwd", "inside\n");
	link_at("/etc/passwd", "/abs");
	link_at("../../../../../../../../etc/passwd", "/climb");
	ck_assert_int_eq(mkdir(strcat(strcpy(buf, top), "/d"), 0755), 0);
	link_at("../../../../..", "/d/up");
	s = slurp("/abs");
	ck_assert_str_eq(s, "inside\n");
	free(s);
	s = slurp("/climb");
	ck_assert_str_eq(s, "inside\n");
	free(s);
	s = slurp("/d/up/etc/passwd");
	ck_assert_str_eq(s, "inside\n");
	free(s);
	/* the host has /etc/hostname, the root does not */
	link_at("/etc/hostname", "/host");
	ck_assert_int_eq(access("/etc/hostname", F_OK), 0);
	ck_assert_int_eq(sysfs_read_str(&root, "/host", buf, sizeof(buf)), -ENOENT);
	ck_assert(!sysfs_exists(&root, "/host"));
	ck_assert(!sysfs_exists(&root, "/d/up/etc/hostname"));
	/* writes through a climbing link land inside too */
	link_at("../../../../tmp", "/tmplink");
	/* no /tmp in the root yet: the dangling link does not fall through to the host's */
	ck_assert_int_eq(sysfs_write_atomic(&root, "/tmplink/rq-inside", "z", 1), -ENOENT);
	ck_assert_int_eq(sysfs_mkdir(&root, "/tmp", 0700), 0);
	ck_assert_int_eq(sysfs_write_atomic(&root, "/tmplink/rq-inside", "z", 1), 0);
	ck_assert_int_eq(access("/tmp/rq-inside", F_OK), -1);
	s = slurp("/tmp/rq-inside");
	ck_assert_str_eq(s, "z");
	free(s);
}
END_TEST

START_TEST(symlink_loops_fail)
{
	char buf[64], **names = NULL;
	size_t n = 0;

	link_at("/loop2", "/loop1");
	link_at("/loop1", "/loop2");
	link_at("self", "/self");
	ck_assert_int_eq(root_openat(&root, "/loop1", O_RDONLY, 0), -ELOOP);
	ck_assert_int_eq(root_openat(&root, "/self", O_RDONLY, 0), -ELOOP);
	ck_assert_int_eq(sysfs_read_str(&root, "/loop1/x", buf, sizeof(buf)), -ELOOP);
	ck_assert_int_eq(sysfs_list(&root, "/self", &names, &n), -ELOOP);
	ck_assert_int_eq(sysfs_mkdir_p(&root, "/self/a/b", 0755), -ELOOP);
	ck_assert_int_eq(sysfs_write_atomic(&root, "/loop2/f", "1", 1), -ELOOP);
	ck_assert(!sysfs_exists(&root, "/loop1"));
	/* the link itself is readable */
	ck_assert_int_eq(sysfs_readlink(&root, "/self", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "self");
}
END_TEST

/* /proc magic links are refused even when the root is "/". */
START_TEST(magic_links_refused)
{
	struct rq_root host;

	ck_assert_int_eq(root_open("/", &host), 0);
	ck_assert_int_eq(root_openat(&host, "/proc/self/cwd", O_PATH, 0), -ELOOP);
	ck_assert_int_eq(root_openat(&host, "/proc/self/exe", O_RDONLY, 0), -ELOOP);
	ck_assert(sysfs_exists(&host, "/proc/self/status"));
	root_close(&host);
}
END_TEST

START_TEST(read_bounds)
{
	char big[10001], *buf = (char *)0x1;
	size_t len = 7;

	memset(big, 'a', 10000);
	big[10000] = '\0';
	put("/big", big);
	put("/hundred", "0123456789012345678901234567890123456789012345678901234567890123456789"
			"012345678901234567890123456789");
	put("/empty", "");
	ck_assert_int_eq(sysfs_read_file(&root, "/hundred", 99, &buf, &len), -EFBIG);
	ck_assert_ptr_eq(buf, (char *)0x1);
	ck_assert_uint_eq(len, 7);
	ck_assert_int_eq(sysfs_read_file(&root, "/hundred", 100, &buf, &len), 0);
	ck_assert_uint_eq(len, 100);
	free(buf);
	ck_assert_int_eq(sysfs_read_file(&root, "/big", 9999, &buf, &len), -EFBIG);
	ck_assert_int_eq(sysfs_read_file(&root, "/big", 10000, &buf, &len), 0);
	ck_assert_uint_eq(len, 10000);
	ck_assert_int_eq(buf[9999], 'a');
	ck_assert_int_eq(buf[10000], '\0');
	free(buf);
	ck_assert_int_eq(sysfs_read_file(&root, "/empty", 0, &buf, &len), 0);
	ck_assert_uint_eq(len, 0);
	ck_assert_str_eq(buf, "");
	free(buf);
	ck_assert_int_eq(sysfs_read_file(&root, "/missing", 10, &buf, &len), -ENOENT);
	ck_assert_int_eq(sysfs_read_file(&root, "/", 10, &buf, &len), -EISDIR);
}
END_TEST

/* A file big enough for the populated single-read path (pkg/mem), byte for byte. */
START_TEST(read_big_sized)
{
	size_t n = 3 * RQ_MEM_PREFAULT_MIN + 17, len = 0;
	char *big = malloc(n + 1), *buf = NULL;

	ck_assert_ptr_nonnull(big);
	for (size_t i = 0; i < n; i++)
		big[i] = (char)('a' + i % 26);
	big[n] = '\0';
	put("/huge", big);
	ck_assert_int_eq(sysfs_read_file(&root, "/huge", n - 1, &buf, &len), -EFBIG);
	ck_assert_int_eq(sysfs_read_file(&root, "/huge", n, &buf, &len), 0);
	ck_assert_uint_eq(len, n);
	ck_assert_int_eq(memcmp(buf, big, n), 0);
	ck_assert_int_eq(buf[n], '\0');
	free(buf);
	free(big);
}
END_TEST

/*
 * mem_prefault leaves the pages it populated in the heap, resident, for the
 * allocations that follow (glibc's allocator; ASan has its own).
 */
START_TEST(prefault_keeps_pages)
{
#if defined(__SANITIZE_ADDRESS__) || !defined(__GLIBC__)
	mem_prefault(4 * RQ_MEM_PREFAULT_MIN);
#else
	long pg = sysconf(_SC_PAGESIZE);
	size_t n = 16 * RQ_MEM_PREFAULT_MIN, want = n / 2, pages, resident = 0;
	unsigned char *vec;
	char *p;
	uintptr_t a;

	mem_init((size_t)8 * 1024 * 1024);
	mem_prefault(n);
	p = malloc(want);
	ck_assert_ptr_nonnull(p);
	a = ((uintptr_t)p + (uintptr_t)pg - 1) & ~((uintptr_t)pg - 1);
	pages = (want - (a - (uintptr_t)p)) / (size_t)pg;
	vec = calloc(pages, 1);
	ck_assert_ptr_nonnull(vec);
	ck_assert_int_eq(mincore((void *)a, pages * (size_t)pg, vec), 0);
	for (size_t i = 0; i < pages; i++)
		resident += vec[i] & 1;
	/*
	 * MADV_POPULATE_WRITE (23) is Linux 5.14; older kernels refuse it and
	 * qemu-user accepts it and does nothing: the heap is held to what it does
	 * on fresh anonymous pages here
	 */
	{
		unsigned char mvec[4] = {0};
		void *m = mmap(NULL, 4 * (size_t)pg, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		ck_assert_ptr_ne(m, MAP_FAILED);
		if (madvise(m, 4 * (size_t)pg, 23) == 0 && mincore(m, 4 * (size_t)pg, mvec) == 0 &&
		    (mvec[0] & mvec[1] & mvec[2] & mvec[3] & 1))
			ck_assert_uint_eq(resident, pages);
		munmap(m, 4 * (size_t)pg);
	}
	free(vec);
	free(p);
#endif
}
END_TEST

START_TEST(read_str_and_int)
{
	char buf[8];
	long v = 99;

	put("/s", "first\nsecond\n");
	put("/long", "123456789\n");
	put("/i1", "42\n");
	put("/i2", "-1\n");
	put("/i3", "010\n");
	put("/bad1", "abc\n");
	put("/bad2", "");
	put("/bad3", "12abc");
	put("/bad4", "99999999999999999999999");
	ck_assert_int_eq(sysfs_read_str(&root, "/s", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "first");
	ck_assert_int_eq(sysfs_read_str(&root, "/long", buf, sizeof(buf)), -ENAMETOOLONG);
	ck_assert_int_eq(sysfs_read_int(&root, "/i1", &v), 0);
	ck_assert_int_eq(v, 42);
	ck_assert_int_eq(sysfs_read_int(&root, "/i2", &v), 0);
	ck_assert_int_eq(v, -1);
	ck_assert_int_eq(sysfs_read_int(&root, "/i3", &v), 0);
	ck_assert_int_eq(v, 10);
	ck_assert_int_eq(sysfs_read_int(&root, "/bad1", &v), -EINVAL);
	ck_assert_int_eq(sysfs_read_int(&root, "/bad2", &v), -EINVAL);
	ck_assert_int_eq(sysfs_read_int(&root, "/bad3", &v), -EINVAL);
	ck_assert_int_eq(sysfs_read_int(&root, "/bad4", &v), -EINVAL);
	ck_assert_int_eq(v, 10);
	ck_assert_int_eq(sysfs_read_int(&root, "/nope", &v), -ENOENT);
}
END_TEST

START_TEST(write_str_no_create)
{
	char *s;

	put("/attr", "0\n");
	ck_assert_int_eq(sysfs_write_str(&root, "/attr", "106"), 0);
	s = slurp("/attr");
	ck_assert_str_eq(s, "106");
	free(s);
	ck_assert_int_eq(sysfs_write_str(&root, "/absent", "1"), -ENOENT);
	ck_assert(!sysfs_exists(&root, "/absent"));
}
END_TEST

START_TEST(readlink_and_base)
{
	char buf[64], small[4];

	put("/f", "");
	link_at("../../0000:81:00.0", "/physfn");
	link_at("../../0000:81:00.0/", "/trailing");
	ck_assert_int_eq(sysfs_readlink(&root, "/physfn", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "../../0000:81:00.0");
	ck_assert_int_eq(sysfs_readlink_base(&root, "/physfn", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "0000:81:00.0");
	ck_assert_int_eq(sysfs_readlink_base(&root, "/physfn", small, sizeof(small)), -EINVAL);
	ck_assert_int_eq(sysfs_readlink(&root, "/physfn", small, sizeof(small)), -ENAMETOOLONG);
	ck_assert_int_eq(sysfs_readlink_base(&root, "/trailing", buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(sysfs_readlink(&root, "/f", buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(sysfs_readlink(&root, "/none", buf, sizeof(buf)), -ENOENT);
	ck_assert_int_eq(sysfs_readlink(&root, "/", buf, sizeof(buf)), -EINVAL);
}
END_TEST

START_TEST(mkdir_and_list)
{
	char **names = NULL;
	size_t n = 0;

	ck_assert_int_eq(sysfs_mkdir(&root, "/one", 0755), 0);
	ck_assert_int_eq(sysfs_mkdir(&root, "/one", 0755), -EEXIST);
	ck_assert_int_eq(sysfs_mkdir(&root, "/no/such", 0755), -ENOENT);
	ck_assert_int_eq(sysfs_mkdir_p(&root, "/p/q/r/", 0755), 0);
	ck_assert_int_eq(sysfs_mkdir_p(&root, "/p/q/r", 0755), 0);
	ck_assert(sysfs_exists(&root, "/p/q/r"));
	put("/l/net10", "");
	put("/l/net2", "");
	put("/l/a", "");
	ck_assert_int_eq(sysfs_list(&root, "/l", &names, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(names[0], "a");
	ck_assert_str_eq(names[1], "net10");
	ck_assert_str_eq(names[2], "net2");
	sysfs_list_free(names, n);
	names = NULL;
	ck_assert_int_eq(sysfs_list(&root, "/one", &names, &n), 0);
	ck_assert_uint_eq(n, 0);
	sysfs_list_free(names, n);
	ck_assert_int_eq(sysfs_list(&root, "/missing", &names, &n), -ENOENT);
	ck_assert_int_eq(sysfs_list(&root, "/l/a", &names, &n), -ENOTDIR);
	sysfs_list_free(NULL, 0);
	/*
	 * Under /sys a directory answered whole in one getdents64 is not asked again; one
	 * whose entries take several answers (over 4 KiB of records, names of every
	 * length up to NAME_MAX) is read to its end
	 */
	for (int len = 1; len <= 255; len += 2) {
		char name[300], p[320];

		memset(name, 'a' + len % 26, (size_t)len);
		name[len] = '\0';
		(void)snprintf(p, sizeof(p), "/sys/many/%s", name);
		put(p, "");
	}
	names = NULL;
	ck_assert_int_eq(sysfs_list(&root, "/sys/many", &names, &n), 0);
	ck_assert_uint_eq(n, 128);
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(strlen(names[i]) % 2, 1);
	sysfs_list_free(names, n);
	put("/sys/few/x", "");
	put("/sys/few/y", "");
	names = NULL;
	ck_assert_int_eq(sysfs_list(&root, "/sys/few", &names, &n), 0);
	ck_assert_uint_eq(n, 2);
	sysfs_list_free(names, n);
}
END_TEST

START_TEST(write_atomic)
{
	char path[512], *s;
	struct stat st;
	char **names = NULL;
	size_t n = 0;

	ck_assert_int_eq(sysfs_write_atomic(&root, "/var/lib/cni/rq/rec.json", "{\"a\":1}", 7), 0);
	s = slurp("/var/lib/cni/rq/rec.json");
	ck_assert_str_eq(s, "{\"a\":1}");
	free(s);
	snprintf(path, sizeof(path), "%s/var/lib/cni/rq", top);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0700);
	snprintf(path, sizeof(path), "%s/var/lib/cni/rq/rec.json", top);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0600);
	ck_assert_int_eq(sysfs_write_atomic(&root, "/var/lib/cni/rq/rec.json", "b", 1), 0);
	s = slurp("/var/lib/cni/rq/rec.json");
	ck_assert_str_eq(s, "b");
	free(s);
	/* the tmpfs state's variant (no fsync) replaces the same way */
	ck_assert_int_eq(sysfs_write_replace(&root, "/var/lib/cni/rq/empty", "x", 1), 0);
	s = slurp("/var/lib/cni/rq/empty");
	ck_assert_str_eq(s, "x");
	free(s);
	ck_assert_int_eq(sysfs_write_atomic(&root, "/var/lib/cni/rq/empty", "", 0), 0);
	/* no temporary file left behind */
	ck_assert_int_eq(sysfs_list(&root, "/var/lib/cni/rq", &names, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(names[0], "empty");
	ck_assert_str_eq(names[1], "rec.json");
	sysfs_list_free(names, n);
	ck_assert_int_eq(sysfs_unlink(&root, "/var/lib/cni/rq/rec.json"), 0);
	ck_assert_int_eq(sysfs_unlink(&root, "/var/lib/cni/rq/rec.json"), -ENOENT);
	ck_assert(!sysfs_exists(&root, "/var/lib/cni/rq/rec.json"));
	/* a parent that is a file */
	put("/file", "");
	ck_assert_int_eq(sysfs_write_atomic(&root, "/file/x", "1", 1), -ENOTDIR);
	ck_assert_int_eq(sysfs_write_replace(&root, "/file/x", "1", 1), -ENOTDIR);
}
END_TEST

/*
 * The operator's files (--metrics-file, --nfd-features-file): a plain path, the mode asked
 * for, replaced through a dot temporary that never stays (nfd-worker skips dot files).
 */
START_TEST(write_replace_path)
{
	char path[512], cwd[4096], *s;
	struct stat st;
	char **names = NULL;
	size_t n = 0;
	mode_t old = umask(022);

	put("/out/keep", "");
	snprintf(path, sizeof(path), "%s/out/m.prom", top);
	ck_assert_int_eq(sysfs_write_replace_path(path, "a 1\n", 4, 0644), 0);
	ck_assert_int_eq(sysfs_write_replace_path(path, "a 2\n", 4, 0644), 0);
	s = slurp("/out/m.prom");
	ck_assert_str_eq(s, "a 2\n");
	free(s);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0644);
	/* relative to the working directory */
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	snprintf(path, sizeof(path), "%s/out", top);
	ck_assert_int_eq(chdir(path), 0);
	ck_assert_int_eq(sysfs_write_replace_path("rel", "r", 1, 0644), 0);
	ck_assert_int_eq(chdir(cwd), 0);
	s = slurp("/out/rel");
	ck_assert_str_eq(s, "r");
	free(s);
	ck_assert_int_eq(sysfs_list(&root, "/out", &names, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(names[0], "keep");
	ck_assert_str_eq(names[1], "m.prom");
	ck_assert_str_eq(names[2], "rel");
	sysfs_list_free(names, n);
	/* no directory made: a missing one is the operator's to create */
	snprintf(path, sizeof(path), "%s/nodir/m.prom", top);
	ck_assert_int_eq(sysfs_write_replace_path(path, "x", 1, 0644), -ENOENT);
	snprintf(path, sizeof(path), "%s/out/", top);
	ck_assert_int_eq(sysfs_write_replace_path(path, "x", 1, 0644), -EINVAL);
	umask(old);
}
END_TEST

START_TEST(pci_address_syntax)
{
	ck_assert(sysfs_pci_valid("0000:81:00.1"));
	ck_assert(sysfs_pci_valid("0000:ff:1f.7"));
	ck_assert(sysfs_pci_valid("10000:e1:00.0")); /* VMD domain */
	ck_assert(!sysfs_pci_valid(NULL));
	ck_assert(!sysfs_pci_valid(""));
	ck_assert(!sysfs_pci_valid("0000:81:00.8"));
	ck_assert(!sysfs_pci_valid("0000:81:20.0"));
	ck_assert(!sysfs_pci_valid("0000:81:00"));
	ck_assert(!sysfs_pci_valid("0000:81:00.1 "));
	ck_assert(!sysfs_pci_valid("0000:AF:00.1"));
	ck_assert(!sysfs_pci_valid("0x00:81:00.1"));
	ck_assert(!sysfs_pci_valid("0000-81:00.1"));
	ck_assert(!sysfs_pci_valid("../../../etc"));
	ck_assert(!sysfs_pci_valid("0000:81:00.1/../.."));
	ck_assert(!sysfs_pci_valid("000000:81:00.1"));
}
END_TEST

Suite *suite_sysfs(void);
Suite *suite_sysfs(void)
{
	Suite *s = suite_create("sysfs");
	TCase *tc = tcase_create("root");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, root_open_errors);
	tcase_add_test(tc, path_rules);
	tcase_add_test(tc, symlinks_stay_inside);
	tcase_add_test(tc, symlink_loops_fail);
	tcase_add_test(tc, magic_links_refused);
	tcase_add_test(tc, read_bounds);
	tcase_add_test(tc, read_big_sized);
	tcase_add_test(tc, prefault_keeps_pages);
	tcase_add_test(tc, read_str_and_int);
	tcase_add_test(tc, write_str_no_create);
	tcase_add_test(tc, readlink_and_base);
	tcase_add_test(tc, mkdir_and_list);
	tcase_add_test(tc, write_atomic);
	tcase_add_test(tc, write_replace_path);
	tcase_add_test(tc, pci_address_syntax);
	suite_add_tcase(s, tc);
	return s;
}
