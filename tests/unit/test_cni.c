// SPDX-License-Identifier: Apache-2.0
/* pkg/cni: environment, CNI_ARGS, bounded stdin, result pass-through, error objects. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pkg/cni/cni.h"
#include "pkg/state/state.h"

static void env_clear(void)
{
	unsetenv("CNI_COMMAND");
	unsetenv("CNI_CONTAINERID");
	unsetenv("CNI_NETNS");
	unsetenv("CNI_IFNAME");
	unsetenv("CNI_PATH");
	unsetenv("CNI_ARGS");
}

static void env_add(void)
{
	env_clear();
	setenv("CNI_COMMAND", "ADD", 1);
	setenv("CNI_CONTAINERID", "abc123", 1);
	setenv("CNI_NETNS", "/run/netns/x", 1);
	setenv("CNI_IFNAME", "net1", 1);
	setenv("CNI_PATH", "/opt/cni/bin", 1);
}

START_TEST(env_add_complete)
{
	struct rq_cni_args a;
	struct rq_error e = { 0 };

	env_add();
	setenv("CNI_ARGS", "IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=p0;K8S_POD_UID=u-1;"
			   "FOO=bar", 1);
	ck_assert_int_eq(cni_args_from_env(&a, &e), 0);
	ck_assert_int_eq(a.cmd, RQ_CMD_ADD);
	ck_assert_str_eq(a.pod_namespace, "ai");
	ck_assert_str_eq(a.pod_name, "p0");
	ck_assert_str_eq(a.pod_uid, "u-1");
	ck_assert_str_eq(a.ifname, "net1");
}
END_TEST

static const struct {
	const char *cmd;
	const char *unset;
	const char *want; /* substring of the message, NULL = success */
} env_cases[] = {
	{ "ADD", "CNI_NETNS", "CNI_NETNS is required" },
	{ "CHECK", "CNI_NETNS", "CNI_NETNS is required" },
	{ "DEL", "CNI_NETNS", NULL },
	{ "ADD", "CNI_CONTAINERID", "CNI_CONTAINERID is required" },
	{ "DEL", "CNI_IFNAME", "CNI_IFNAME is required" },
	{ "ADD", "CNI_PATH", "CNI_PATH is required" },
	{ "VERSION", "CNI_CONTAINERID", NULL },
	{ "GC", "CNI_IFNAME", NULL },
	{ "STATUS", "CNI_PATH", NULL },
	{ "BOGUS", "CNI_PATH", "unknown command" },
};

START_TEST(env_required)
{
	struct rq_cni_args a;
	struct rq_error e = { 0 };
	int r;

	env_add();
	setenv("CNI_COMMAND", env_cases[_i].cmd, 1);
	unsetenv(env_cases[_i].unset);
	r = cni_args_from_env(&a, &e);
	if (!env_cases[_i].want) {
		ck_assert_msg(r == 0, "%s without %s: %s", env_cases[_i].cmd, env_cases[_i].unset,
			      e.msg);
	} else {
		ck_assert_int_lt(r, 0);
		ck_assert_int_eq(e.code, RQ_ERR_ENV);
		ck_assert_msg(strstr(e.msg, env_cases[_i].want), "msg: %s", e.msg);
	}
}
END_TEST

START_TEST(env_empty_netns_del)
{
	struct rq_cni_args a;
	struct rq_error e = { 0 };

	env_add();
	setenv("CNI_COMMAND", "DEL", 1);
	setenv("CNI_NETNS", "", 1);
	ck_assert_int_eq(cni_args_from_env(&a, &e), 0);
	ck_assert_ptr_null(a.netns);
}
END_TEST

START_TEST(args_unknown_rejected)
{
	struct rq_cni_args a;
	struct rq_error e = { 0 };

	memset(&a, 0, sizeof(a));
	ck_assert_int_lt(cni_args_parse("K8S_POD_NAME=x;WHAT=1", &a, &e), 0);
	ck_assert_ptr_nonnull(strstr(e.msg, "WHAT"));
	rq_err_clear(&e);
	ck_assert_int_lt(cni_args_parse("novalue", &a, &e), 0);
	ck_assert_int_eq(e.code, RQ_ERR_ENV);
	rq_err_clear(&e);
	ck_assert_int_eq(cni_args_parse("IgnoreUnknown=true;WHAT=1;;", &a, &e), 0);
	ck_assert_int_eq(cni_args_parse("IgnoreUnknown=True;WHAT=1", &a, &e), 0);
	ck_assert_int_lt(cni_args_parse("IgnoreUnknown=0;WHAT=1", &a, &e), 0);
}
END_TEST

START_TEST(ids_validated)
{
	struct rq_cni_args a;
	struct rq_error e = { 0 };

	memset(&a, 0, sizeof(a));
	a.containerid = "ok-id_1.2";
	a.ifname = "net1";
	ck_assert_int_eq(cni_validate_ids(&a, &e), 0);
	a.ifname = "../../x";
	ck_assert_int_lt(cni_validate_ids(&a, &e), 0);
	ck_assert_ptr_nonnull(strstr(e.msg, "CNI_IFNAME"));
	rq_err_clear(&e);
	a.ifname = "net1";
	a.containerid = "-bad";
	ck_assert_int_lt(cni_validate_ids(&a, &e), 0);
	ck_assert_ptr_nonnull(strstr(e.msg, "CNI_CONTAINERID"));
}
END_TEST

static int pipe_with(const char *data, size_t len)
{
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	if (fork() == 0) {
		close(p[0]);
		while (len > 0) {
			ssize_t n = write(p[1], data, len > 65536 ? 65536 : len);

			if (n <= 0)
				_exit(1);
			data += n;
			len -= (size_t)n;
		}
		_exit(0);
	}
	close(p[1]);
	return p[0];
}

START_TEST(stdin_bounded)
{
	size_t big = RQ_CNI_STDIN_MAX + 1;
	char *data = malloc(big), *buf = NULL;
	struct rq_error e = { 0 };
	size_t len = 0;
	int fd;

	memset(data, ' ', big);
	fd = pipe_with(data, big);
	ck_assert_int_eq(cni_read_stdin(fd, &buf, &len, &e), -EFBIG);
	ck_assert_int_eq(e.code, RQ_ERR_IO);
	ck_assert_ptr_nonnull(strstr(e.msg, "larger than"));
	close(fd);
	rq_err_clear(&e);
	fd = pipe_with(data, RQ_CNI_STDIN_MAX);
	ck_assert_int_eq(cni_read_stdin(fd, &buf, &len, &e), 0);
	ck_assert_uint_eq(len, RQ_CNI_STDIN_MAX);
	free(buf);
	free(data);
	close(fd);
}
END_TEST

/* Golden pass-through: unknown fields kept, only the version-dependent parts change. */
static const char *prev_04 =
	"{\"cniVersion\":\"0.4.0\",\"interfaces\":[{\"name\":\"net1\",\"mac\":\"aa:bb:cc:dd:ee:ff\","
	"\"sandbox\":\"/run/netns/x\"}],\"ips\":[{\"version\":\"4\",\"address\":\"10.1.2.3/24\","
	"\"interface\":0},{\"address\":\"fd00::1/64\"}],\"dns\":{},\"x-vendor\":{\"keep\":[1,2]}}";

static const struct {
	const char *version;
	const char *want;
} golden[] = {
	{ "0.3.0",
	  "{\"interfaces\":[{\"name\":\"net1\",\"mac\":\"aa:bb:cc:dd:ee:ff\",\"sandbox\":\"/run/"
	  "netns/x\"}],\"ips\":[{\"version\":\"4\",\"address\":\"10.1.2.3/24\",\"interface\":0},"
	  "{\"address\":\"fd00::1/64\",\"version\":\"6\"}],\"dns\":{},\"x-vendor\":{\"keep\":[1,2]"
	  "},\"cniVersion\":\"0.3.0\"}" },
	{ "0.3.1",
	  "{\"interfaces\":[{\"name\":\"net1\",\"mac\":\"aa:bb:cc:dd:ee:ff\",\"sandbox\":\"/run/"
	  "netns/x\"}],\"ips\":[{\"version\":\"4\",\"address\":\"10.1.2.3/24\",\"interface\":0},"
	  "{\"address\":\"fd00::1/64\",\"version\":\"6\"}],\"dns\":{},\"x-vendor\":{\"keep\":[1,2]"
	  "},\"cniVersion\":\"0.3.1\"}" },
	{ "0.4.0",
	  "{\"interfaces\":[{\"name\":\"net1\",\"mac\":\"aa:bb:cc:dd:ee:ff\",\"sandbox\":\"/run/"
	  "netns/x\"}],\"ips\":[{\"version\":\"4\",\"address\":\"10.1.2.3/24\",\"interface\":0},"
	  "{\"address\":\"fd00::1/64\",\"version\":\"6\"}],\"dns\":{},\"x-vendor\":{\"keep\":[1,2]"
	  "},\"cniVersion\":\"0.4.0\"}" },
	{ "1.0.0",
	  "{\"interfaces\":[{\"name\":\"net1\",\"mac\":\"aa:bb:cc:dd:ee:ff\",\"sandbox\":\"/run/"
	  "netns/x\"}],\"ips\":[{\"address\":\"10.1.2.3/24\",\"interface\":0},{\"address\":\"fd00:"
	  ":1/64\"}],\"dns\":{},\"x-vendor\":{\"keep\":[1,2]},\"cniVersion\":\"1.0.0\"}" },
	{ "1.1.0",
	  "{\"interfaces\":[{\"name\":\"net1\",\"mac\":\"aa:bb:cc:dd:ee:ff\",\"sandbox\":\"/run/"
	  "netns/x\"}],\"ips\":[{\"address\":\"10.1.2.3/24\",\"interface\":0},{\"address\":\"fd00:"
	  ":1/64\"}],\"dns\":{},\"x-vendor\":{\"keep\":[1,2]},\"cniVersion\":\"1.1.0\"}" },
};

START_TEST(result_golden)
{
	cJSON *prev = cJSON_Parse(prev_04), *out;
	char *s;

	out = cni_result_convert(prev, golden[_i].version);
	s = cJSON_PrintUnformatted(out);
	ck_assert_str_eq(s, golden[_i].want);
	cJSON_free(s);
	cJSON_Delete(out);
	cJSON_Delete(prev);
}
END_TEST

START_TEST(error_and_version_json)
{
	struct rq_error e = { 0 };
	char *s;
	cJSON *o;

	rq_err(&e, RQ_ERR_CONFIG, -EINVAL, "qos.pfc[2]: %d out of range 0-7", 9);
	rq_err(&e, RQ_ERR_IO, -EIO, "second error must not overwrite");
	rq_err_details(&e, "see docs");
	s = cni_error_json("0.4.0", &e);
	o = cJSON_Parse(s);
	ck_assert_int_eq(cJSON_GetObjectItem(o, "code")->valueint, 7);
	ck_assert_str_eq(cJSON_GetObjectItem(o, "msg")->valuestring, "qos.pfc[2]: 9 out of range 0-7");
	ck_assert_str_eq(cJSON_GetObjectItem(o, "details")->valuestring, "see docs");
	ck_assert_str_eq(cJSON_GetObjectItem(o, "cniVersion")->valuestring, "0.4.0");
	cJSON_Delete(o);
	cJSON_free(s);
	s = cni_version_json("1.0.0");
	ck_assert_ptr_nonnull(strstr(s, "\"0.3.0\", \"0.3.1\", \"0.4.0\", \"1.0.0\", \"1.1.0\""));
	cJSON_free(s);
}
END_TEST

START_TEST(state_keys_are_names)
{
	char k[RQ_STATE_KEY_MAX];

	ck_assert_int_eq(state_key("roce", "abc", "net1", k, sizeof(k)), 0);
	ck_assert_str_eq(k, "roce_abc_net1");
	ck_assert_int_eq(state_key("../../etc", "a_b", "n/1", k, sizeof(k)), 0);
	ck_assert_str_eq(k, "..%2f..%2fetc_a%5fb_n%2f1");
	ck_assert_ptr_null(strchr(k, '/'));
	ck_assert_int_eq(state_key("", "a", "b", k, sizeof(k)), -EINVAL);
	{
		char longname[400];

		memset(longname, 'x', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = '\0';
		ck_assert_int_eq(state_key(longname, "a", "b", k, sizeof(k)), -ENAMETOOLONG);
	}
}
END_TEST

Suite *suite_cni(void)
{
	Suite *s = suite_create("cni");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, env_add_complete);
	tcase_add_loop_test(tc, env_required, 0, sizeof(env_cases) / sizeof(env_cases[0]));
	tcase_add_test(tc, env_empty_netns_del);
	tcase_add_test(tc, args_unknown_rejected);
	tcase_add_test(tc, ids_validated);
	tcase_add_test(tc, stdin_bounded);
	tcase_add_loop_test(tc, result_golden, 0, sizeof(golden) / sizeof(golden[0]));
	tcase_add_test(tc, error_and_version_json);
	tcase_add_test(tc, state_keys_are_names);
	suite_add_tcase(s, tc);
	return s;
}
