// SPDX-License-Identifier: Apache-2.0
/*
 * rdma-qos uninstall --cni-bin-dir DIR [--wait S]: what the cleanup pods of
 * deploy/uninstall/ run on every node, so that removing rdma-qos needs no
 * hand work there. It removes DIR/<name> (this binary's name, as install
 * wrote it) and the installed catalog, but only when no attachment record
 * is left in the state directory: a pod still attached needs the binary for
 * its DEL, and without it the runtime's teardown fails and the pod stays
 * Terminating. While records remain it names them and fails (exit 1),
 * changing nothing; --wait S polls until they are gone or S seconds pass.
 * A record that appears while the binary is being removed (an ADD that was
 * already running) gets the binary back (install's own code) and a failure.
 *
 * It never changes a PF's QoS (trust, PFC, ETS, DSCP map): the port is
 * shared by every user of the NIC, the last DEL already released what
 * rdma-qos applied as far as it owned it, and an operator or another tool
 * (nic-configuration-operator, a host script) may rely on what is there.
 * Nothing left on the node is a hand task: the state directory is on tmpfs
 * and empty, the log directory holds logs only.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pkg/log/log.h"
#include "plugin/tools/tools.h"

#define RQ_UNINSTALL_WAIT_MAX	 86400
#define RQ_UNINSTALL_NAMES_SHOWN 20

struct uninstall_opts {
	const char *bin_dir;
	long wait_s;
};

/* "<key> (pod <ns>/<name>)" for each record; the number of records, or negative errno. */
static int remaining(const struct rq_env *env, bool report)
{
	char **keys = NULL;
	size_t n = 0;
	int r = state_record_list(&env->root, &keys, &n);

	if (r < 0) {
		log_error("state directory %s: %s", RQ_STATE_DIR, strerror(-r));
		return r;
	}
	for (size_t i = 0; i < n; i++) {
		cJSON *rec = NULL;

		if (report && i < RQ_UNINSTALL_NAMES_SHOWN) {
			(void)state_record_read(&env->root, keys[i], &rec);
			log_error("attachment %s (pod %s/%s) is still recorded", keys[i],
				  json_str(rec, "podNamespace") ?: "?",
				  json_str(rec, "podName") ?: "?");
			cJSON_Delete(rec);
		}
		free(keys[i]);
	}
	if (report && n > RQ_UNINSTALL_NAMES_SHOWN)
		log_error("... and %zu more", n - RQ_UNINSTALL_NAMES_SHOWN);
	free(keys);
	return n > (size_t)INT_MAX ? INT_MAX : (int)n;
}

/* Remove host file @path; 1 when it was there, 0 when already gone. */
static int remove_file(const struct rq_env *env, const char *what, const char *path)
{
	int r = sysfs_unlink(&env->root, path);

	if (r == -ENOENT) {
		log_info("%s %s: already absent", what, path);
		return 0;
	}
	if (r < 0) {
		log_error("%s %s: %s", what, path, strerror(-r));
		return r;
	}
	log_info("%s %s: removed", what, path);
	return 1;
}

/* The catalog's directory, when install's catalog was all it held. */
static void remove_catalog_dir(const struct rq_env *env)
{
	const char *path = RQ_CATALOG_PATH, *slash = strrchr(path, '/');
	char dir[256], parent[256];
	int dfd;

	(void)snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	slash = strrchr(dir, '/');
	(void)snprintf(parent, sizeof(parent), "%.*s", (int)(slash - dir), dir);
	dfd = root_openat(&env->root, parent, O_RDONLY | O_DIRECTORY, 0);
	if (dfd < 0)
		return;
	if (unlinkat(dfd, slash + 1, AT_REMOVEDIR) == 0)
		log_info("directory %s: removed (empty)", dir);
	/* ENOTEMPTY: the admin put something there; a mount point (EBUSY): the DaemonSet's */
	close(dfd);
}

static int parse_opts(int argc, char **argv, struct uninstall_opts *o)
{
	static const struct option longopts[] = {
	    {"cni-bin-dir", required_argument, NULL, 'b'},
	    {"wait", required_argument, NULL, 'w'},
	    {NULL, 0, NULL, 0},
	};
	char *end;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (opt == 'b') {
			o->bin_dir = optarg;
		} else if (opt == 'w') {
			errno = 0;
			o->wait_s = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || o->wait_s < 0 ||
			    o->wait_s > RQ_UNINSTALL_WAIT_MAX)
				return -EINVAL;
		} else {
			return -EINVAL;
		}
	}
	if (optind != argc || !o->bin_dir || o->bin_dir[0] != '/')
		return -EINVAL;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Until no record is left or @wait_s passed: 0, or the number still there (reported). */
static int wait_for_records(const struct rq_env *env, long wait_s)
{
	double deadline = now_s() + (double)wait_s;
	bool said = false;
	int n;

	while ((n = remaining(env, false)) > 0 && now_s() < deadline) {
		if (!said)
			log_info("%d attachment(s) recorded: waiting up to %ld s for their DEL", n,
				 wait_s);
		said = true;
		(void)usleep(500 * 1000);
	}
	if (n > 0) {
		n = remaining(env, true);
		if (n > 0)
			log_error("%d attachment(s) remain: the plugin binary and the catalog are "
				  "left in place for their DEL (delete those pods, then run "
				  "uninstall again)",
				  n);
	}
	return n;
}

int main_uninstall(int argc, char **argv, const char *binary)
{
	struct uninstall_opts o = {0};
	char path[4096];
	struct rq_env env;
	struct rq_error e;
	int r, n;

	if (parse_opts(argc - 1, argv + 1, &o) < 0) {
		(void)fprintf(
		    stderr,
		    "usage: %s uninstall --cni-bin-dir DIR [--wait S]\n"
		    "       DIR: an absolute path, as given to install\n"
		    "       S: seconds to wait for recorded attachments (0-%d, default 0)\n",
		    binary, RQ_UNINSTALL_WAIT_MAX);
		return 1;
	}
	rq_err_clear(&e);
	if (env_init(&env, &e) < 0) {
		(void)fprintf(stderr, "%s uninstall: %s\n", binary, e.msg);
		return 1;
	}
	r = install_bin_path(&env, o.bin_dir, path, sizeof(path));
	n = r < 0 ? r : wait_for_records(&env, o.wait_s);
	if (n != 0) {
		env_fini(&env);
		return 1;
	}
	r = remove_file(&env, "binary", path);
	/* an ADD that was running when the records were listed: its DEL needs the binary */
	if (r > 0 && remaining(&env, true) > 0) {
		log_error(
		    "an attachment was recorded while the binary was removed: reinstalling it");
		(void)install_binary(&env, o.bin_dir);
		env_fini(&env);
		return 1;
	}
	if (r >= 0)
		r = remove_file(&env, "catalog", RQ_CATALOG_PATH);
	if (r >= 0)
		remove_catalog_dir(&env);
	if (r >= 0)
		log_info("uninstalled: no attachment recorded; PF QoS left as it is (shared port)");
	env_fini(&env);
	return r < 0 ? 1 : 0;
}
