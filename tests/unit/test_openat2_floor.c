// SPDX-License-Identifier: Apache-2.0
/*
 * pkg/sysfs on a kernel without openat2 (before 5.6): a seccomp filter in the
 * test's forked child makes openat2 fail with ENOSYS, as such a kernel does.
 * The host root "/" still works (openat fallback); any other root is refused
 * with -ENOSYS, which rdma-qos-sim turns into an error naming the minimum.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pkg/sysfs/sysfs.h"

/* openat2 -> ENOSYS, everything else allowed. Only the native ABI is tested here. */
static int no_openat2(void)
{
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		return -errno;
	return 0;
}

START_TEST(host_root_falls_back)
{
	struct rq_root host;
	char buf[64];
	long v;

	ck_assert_int_eq(root_open("/", &host), 0);
	ck_assert_int_eq(no_openat2(), 0);
	ck_assert_int_eq((int)syscall(SYS_openat2, AT_FDCWD, "/", NULL, 0), -1);
	ck_assert_int_eq(errno, ENOSYS);
	/* absolute paths and symlinks on the way resolve as they do on the host */
	ck_assert_int_eq(sysfs_read_str(&host, "/proc/self/status", buf, sizeof(buf)), 0);
	ck_assert(!strncmp(buf, "Name:", 5));
	ck_assert_int_eq(sysfs_read_int(&host, "/proc/sys/kernel/pid_max", &v), 0);
	ck_assert_int_gt(v, 0);
	ck_assert(sysfs_exists(&host, "/proc/self/fd"));
	/* ".." is refused before any syscall, with or without openat2 */
	ck_assert_int_eq(root_openat(&host, "/proc/../etc/hostname", O_RDONLY, 0), -EPERM);
	ck_assert_int_eq(root_openat(&host, "/nonexistent-rq", O_RDONLY, 0), -ENOENT);
	root_close(&host);
}
END_TEST

START_TEST(other_root_refused)
{
	char top[64], path[80];
	struct rq_root r;
	FILE *f;

	unit_tmp(top, sizeof(top), "rq-floor");
	ck_assert_ptr_nonnull(mkdtemp(top));
	(void)snprintf(path, sizeof(path), "%s/x", top);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("1\n", f);
	fclose(f);
	ck_assert_int_eq(root_open(top, &r), 0);
	ck_assert_int_eq(no_openat2(), 0);
	/* a plain openat would escape through an absolute symlink: no fallback here */
	ck_assert_int_eq(root_openat(&r, "/x", O_RDONLY, 0), -ENOSYS);
	ck_assert(!sysfs_exists(&r, "/x"));
	root_close(&r);
	unlink(path);
	rmdir(top);
}
END_TEST

Suite *suite_openat2_floor(void)
{
	Suite *s = suite_create("openat2_floor");
	TCase *tc = tcase_create("no openat2");

	tcase_add_test(tc, host_root_falls_back);
	tcase_add_test(tc, other_root_refused);
	suite_add_tcase(s, tc);
	return s;
}
