// SPDX-License-Identifier: Apache-2.0
/* pkg/state and pkg/lock over a temporary root. */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pkg/lock/lock.h"
#include "pkg/state/state.h"

static char tmpl[64];
static struct rq_root root;

static void setup(void)
{
	unit_tmp(tmpl, sizeof(tmpl), "rq-state");
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	ck_assert_int_eq(root_open(tmpl, &root), 0);
}

static void teardown(void)
{
	char cmd[128];

	root_close(&root);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpl);
	(void)!system(cmd);
}

START_TEST(record_roundtrip)
{
	cJSON *rec = cJSON_Parse("{\"vf\":\"0000:81:00.1\",\"rdma\":{\"tosPrevious\":0}}"), *back = NULL;
	char **keys = NULL;
	size_t n = 0;

	ck_assert_int_eq(state_record_read(&root, "net_c1_net1", &back), -ENOENT);
	ck_assert_int_eq(state_record_write(&root, "net_c1_net1", rec), 0);
	ck_assert_int_eq(state_record_write(&root, "net_c2_net1", rec), 0);
	ck_assert_int_eq(state_record_read(&root, "net_c1_net1", &back), 0);
	ck_assert_str_eq(cJSON_GetObjectItem(back, "vf")->valuestring, "0000:81:00.1");
	ck_assert_int_eq(state_record_list(&root, &keys, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(keys[0], "net_c1_net1");
	ck_assert_str_eq(keys[1], "net_c2_net1");
	for (size_t i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
	ck_assert_int_eq(state_record_remove(&root, "net_c1_net1"), 0);
	ck_assert_int_eq(state_record_remove(&root, "net_c1_net1"), 0); /* already gone: fine */
	cJSON_Delete(back);
	back = NULL;
	ck_assert_int_eq(state_record_read(&root, "net_c1_net1", &back), -ENOENT);
	cJSON_Delete(rec);
}
END_TEST

START_TEST(record_corrupt)
{
	char path[256];
	FILE *f;
	cJSON *back = NULL;

	ck_assert_int_eq(state_dir_check(&root), 0);
	snprintf(path, sizeof(path), "%s" RQ_STATE_DIR "/bad.json", tmpl);
	f = fopen(path, "w");
	fputs("{\"trunc", f);
	fclose(f);
	ck_assert_int_eq(state_record_read(&root, "bad", &back), -EBADMSG);
}
END_TEST

START_TEST(pf_index_detach)
{
	cJSON *idx = cJSON_Parse("{\"attachments\":[{\"key\":\"a\"},{\"key\":\"b\"}]}"), *back = NULL;

	ck_assert_int_eq(state_pf_write(&root, "0000:81:00.0", idx), 0);
	ck_assert_int_eq(state_pf_detach(&root, "0000:81:00.0", "a"), 0);
	ck_assert_int_eq(state_pf_read(&root, "0000:81:00.0", &back), 0);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(back, "attachments")), 1);
	cJSON_Delete(back);
	ck_assert_int_eq(state_pf_detach(&root, "0000:81:00.0", "zzz"), 0);
	ck_assert_int_eq(state_pf_detach(&root, "0000:81:00.0", "b"), 0);
	ck_assert_int_eq(state_pf_read(&root, "0000:81:00.0", &back), -ENOENT);
	ck_assert_int_eq(state_pf_detach(&root, "0000:81:00.0", "b"), 0);
	ck_assert_int_eq(state_pf_write(&root, "../x", idx), -EINVAL);
	cJSON_Delete(idx);
}
END_TEST

/* What state_pf_walk saw, entry by entry ("-" for NULL), and where to stop. */
struct seen {
	char text[2048];
	int n, stop_at;
};

static int collect(const struct rq_pf_entry *e, void *ctx)
{
	struct seen *w = ctx;
	size_t o = strlen(w->text);

	snprintf(w->text + o, sizeof(w->text) - o, "%s|%s|%s|%.*s;", e->key ? e->key : "-",
		 e->vf ? e->vf : "-", e->profile_name ? e->profile_name : "-",
		 e->req ? (int)e->req_len : 1, e->req ? e->req : "-");
	return ++w->n == w->stop_at ? 1 : 0;
}

static void put_index(const char *text)
{
	char path[256];
	FILE *f;

	ck_assert_int_eq(state_dir_check(&root), 0);
	snprintf(path, sizeof(path), "%s" RQ_STATE_DIR "/pf", tmpl);
	(void)mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s" RQ_STATE_DIR "/pf/0000:81:00.0.json", tmpl);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static int walk(const char *text, struct seen *w, bool *legacy)
{
	memset(w->text, 0, sizeof(w->text));
	w->n = 0;
	if (text)
		put_index(text);
	return state_pf_walk(&root, "0000:81:00.0", collect, w, legacy);
}

START_TEST(pf_index_walk)
{
	struct seen w = {.stop_at = 0};
	bool legacy = true;
	char big[1200];

	ck_assert_int_eq(state_pf_walk(&root, "0000:81:00.0", collect, &w, &legacy), -ENOENT);
	/* as ADD writes it: every member, the raw "req" text kept as written */
	ck_assert_int_eq(walk("{\"attachments\": [{\"key\": \"a\", \"pod\": \"ns/p\", \"vf\": "
			      "\"0000:81:00.1\", \"profileName\": \"roce\", \"req\": {\"pfc\": [3]}}, "
			      "{\"req\":{\"trust\":\"dscp\"},\"vf\":\"0000:81:00.2\",\"key\":\"b\"}]}",
			      &w, &legacy),
			 0);
	ck_assert_str_eq(w.text, "a|0000:81:00.1|roce|{\"pfc\": [3]};b|0000:81:00.2|-|{\"trust\":"
				 "\"dscp\"};");
	ck_assert(!legacy);
	/* the old shared "profile", before or after the entries */
	ck_assert_int_eq(walk("{\"attachments\":[{\"key\":\"a\"}],\"profile\":{}}", &w, &legacy), 0);
	ck_assert(legacy);
	ck_assert_str_eq(w.text, "a|-|-|-;");
	/* wrong types, duplicates (the first counts, as in cJSON), a non-object entry */
	ck_assert_int_eq(walk("{\"attachments\":[{\"key\":7,\"vf\":\"x\",\"vf\":\"y\"},3,{\"key\":"
			      "\"c\",\"key\":\"d\"}]}",
			      &w, &legacy),
			 0);
	ck_assert_str_eq(w.text, "-|x|-|-;-|-|-|-;c|-|-|-;");
	/* a key too long for the walk is no key: the caller cannot match it */
	memset(big, 'k', sizeof(big));
	memcpy(big, "{\"attachments\":[{\"key\":\"", 24);
	memcpy(big + sizeof(big) - 6, "\"}]}", 5);
	ck_assert_int_eq(walk(big, &w, &legacy), 0);
	ck_assert_str_eq(w.text, "-|-|-|-;");
	/* the callback stops it */
	w.stop_at = 1;
	ck_assert_int_eq(walk("{\"attachments\":[{\"key\":\"a\"},{\"key\":\"b\"}]}", &w, &legacy), 1);
	ck_assert_str_eq(w.text, "a|-|-|-;");
	w.stop_at = 0;
	/* not an index */
	ck_assert_int_eq(walk("[]", &w, &legacy), -EBADMSG);
	ck_assert_int_eq(walk("{\"attachments\":{}}", &w, &legacy), -EBADMSG);
	ck_assert_int_eq(walk("{\"other\":1}", &w, &legacy), -EBADMSG);
	ck_assert_int_eq(walk("{\"attachments\":[{\"key\":\"a\"}", &w, &legacy), -EBADMSG);
	ck_assert_int_eq(walk("{\"attachments\":[{\"key\":\"a\"}]", &w, &legacy), -EBADMSG);
}
END_TEST

START_TEST(lock_bounded_wait)
{
	int fd = lock_pf(&root, "0000:81:00.0", 100), st;
	pid_t pid;

	ck_assert_int_ge(fd, 0);
	pid = fork();
	if (pid == 0) {
		int r = lock_pf(&root, "0000:81:00.0", 150);

		_exit(r == -EAGAIN ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "second locker did not time out");
	lock_release(fd);
	fd = lock_pf(&root, "0000:81:00.0", 100);
	ck_assert_int_ge(fd, 0);
	lock_release(fd);
	ck_assert_int_eq(lock_pf(&root, "../../etc/x", 100), -EINVAL);
}
END_TEST

/* A dead holder's lock is free (the kernel drops it); a live one is not; an unlinked file is re-made. */
START_TEST(lock_attachment_liveness)
{
	int fd, st, pipefd[2];
	pid_t pid;
	char c;

	ck_assert_int_eq(pipe(pipefd), 0);
	pid = fork();
	if (pid == 0) {
		int r = lock_attachment(&root, "net_c1_eth0", 100);

		(void)!write(pipefd[1], r >= 0 ? "y" : "n", 1);
		pause(); /* held until killed, as an ADD between its pending and final writes */
		_exit(0);
	}
	ck_assert_int_eq(read(pipefd[0], &c, 1), 1);
	ck_assert_int_eq(c, 'y');
	ck_assert_int_eq(lock_attachment(&root, "net_c1_eth0", 0), -EAGAIN);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	fd = lock_attachment(&root, "net_c1_eth0", 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(lock_attachment_remove(&root, "net_c1_eth0"), 0);
	lock_release(fd);
	fd = lock_attachment(&root, "net_c1_eth0", 0);
	ck_assert_int_ge(fd, 0);
	lock_release(fd);
	ck_assert_int_eq(lock_attachment(&root, "../x", 0), -EINVAL);
	/*
	 * A waiter whose file is removed (DEL) while it waits gets the lock on the file made
	 * again at the path, never on the unlinked one
	 */
	fd = lock_attachment(&root, "net_c1_eth0", 0);
	ck_assert_int_ge(fd, 0);
	pid = fork();
	if (pid == 0) {
		int w = lock_attachment(&root, "net_c1_eth0", 5000);
		struct stat a, b;
		char p[4200];
		bool ok;

		(void)snprintf(p, sizeof(p), "%s" RQ_ATT_LOCK_DIR "/net_c1_eth0.lock", tmpl);
		ok = w >= 0 && fstat(w, &a) == 0 && a.st_nlink == 1 && stat(p, &b) == 0 &&
		     a.st_ino == b.st_ino && a.st_dev == b.st_dev;
		(void)!write(pipefd[1], ok ? "y" : "n", 1);
		_exit(0);
	}
	usleep(100 * 1000); /* the child waits on the held lock */
	ck_assert_int_eq(lock_attachment_remove(&root, "net_c1_eth0"), 0);
	lock_release(fd);
	ck_assert_int_eq(read(pipefd[0], &c, 1), 1);
	ck_assert_int_eq(c, 'y');
	waitpid(pid, &st, 0);
	close(pipefd[0]);
	close(pipefd[1]);
}
END_TEST

Suite *suite_state(void)
{
	Suite *s = suite_create("state");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, record_roundtrip);
	tcase_add_test(tc, record_corrupt);
	tcase_add_test(tc, pf_index_detach);
	tcase_add_test(tc, pf_index_walk);
	tcase_add_test(tc, lock_bounded_wait);
	tcase_add_test(tc, lock_attachment_liveness);
	suite_add_tcase(s, tc);
	return s;
}
