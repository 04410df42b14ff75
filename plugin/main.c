// SPDX-License-Identifier: Apache-2.0
/*
 * CNI dispatch: the only code that prints or exits. Reads stdin (bounded)
 * and the CNI environment, parses the network configuration, installs the
 * log sink and hands over to the command.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "pkg/log/log.h"
#include "pkg/mem/mem.h"
#include "plugin/agent/agent.h"
#include "plugin/cni/commands.h"
#include "plugin/tools/tools.h"

static const struct {
	enum rq_cni_cmd cmd;
	int (*fn)(struct rq_ctx *c);
} dispatch[] = {
    {RQ_CMD_ADD, cmd_add},	 {RQ_CMD_DEL, cmd_del}, {RQ_CMD_CHECK, cmd_check},
    {RQ_CMD_STATUS, cmd_status}, {RQ_CMD_GC, cmd_gc},
};

static int log_fd = STDERR_FILENO;

static void log_sink(void *userdata, enum rq_log_level lvl, const char *msg)
{
	char line[3200], stamp[32]; /* rq_log's 3072 and the stamp, name, pid and level */
	struct timespec ts;
	int n;

	clock_gettime(CLOCK_REALTIME, &ts);
	rq_log_utc_stamp(&ts, stamp, sizeof(stamp));
	n = snprintf(line, sizeof(line), "%s %s[%d] %s: %s\n", stamp, (const char *)userdata,
		     (int)getpid(), rq_log_level_name(lvl), msg);
	if (n > 0)
		(void)!write(log_fd, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

static void usage(FILE *to, const char *binary)
{
	fprintf(to,
		"%s %s: chained CNI plugin giving SR-IOV VFs a lossless RoCE path.\n"
		"It is run by a container runtime with CNI_COMMAND set (ADD, DEL, CHECK,\n"
		"VERSION, STATUS, GC) and the network configuration on stdin.\n\n"
		"usage: %s --version\n"
		"       %s show [--json]     per PF and VF QoS state and attachments\n"
		"       %s show --pod NAMESPACE/NAME [--json]  is the pod's path lossless: one "
		"verdict per attachment (exit 0 yes, 1 a check fails, 2 no attachment here)\n"
		"       %s show --counters [--json] [--interval S]  congestion counters as rates\n"
		"       %s show --qps [--json] [--host-proc DIR]  each attachment's QPs and their "
		"class\n"
		"       %s top [--interval S] the same, refreshing, worst pod first\n"
		"       %s install --cni-bin-dir DIR [--catalog-source FILE]\n"
		"       %s uninstall --cni-bin-dir DIR [--wait S]  once no attachment is recorded\n"
		"       %s validate FILE [--catalog FILE] [--namespace NS]  a catalog, conflist,\n"
		"                          plugin config, NAD or SriovNetwork (JSON or YAML)\n"
		"       %s preflight [--json]  before the first pod: what this node lacks\n"
		"       %s agent [--once] ... keep recorded attachments in profile (agent --help)\n"
		"       %s resume PF ITEM    lift the agent's suspension of a repair\n",
		binary, RQ_VERSION, binary, binary, binary, binary, binary, binary, binary, binary,
		binary, binary, binary, binary);
}

/* stdout's buffer in a CNI command (main): a result is a few KiB, more is flushed as it fills */
static char cni_out[4096];

static void print_error(const char *version, const struct rq_error *e)
{
	char *s = cni_error_json(version, e);

	if (s) {
		fputs(s, stdout);
		fputc('\n', stdout);
		cJSON_free(s);
	}
	if (e->msg[0])
		log_error("%s", e->msg);
}

/* The cniVersion for error objects: the config's, when it has a usable one. */
static void stdin_version(const char *buf, size_t len, char *ret, size_t rlen)
{
	cJSON *o = cJSON_ParseWithLength(buf, len);
	const char *v = json_str(o, "cniVersion");

	snprintf(ret, rlen, "%s", v && netconf_version_supported(v) ? v : "1.0.0");
	cJSON_Delete(o);
}

/* DEL must work even on a config that no longer validates: name is enough. */
static int del_fallback_conf(const char *buf, size_t len, struct rq_netconf **ret)
{
	struct rq_netconf *nc = calloc(1, sizeof(*nc));

	if (!nc)
		return -ENOMEM;
	nc->root = cJSON_ParseWithLength(buf, len);
	/* without a name no record can exist: DEL then succeeds (run()) */
	nc->name = json_str(nc->root, "name") ?: "";
	nc->cni_version = json_str(nc->root, "cniVersion") ?: "1.0.0";
	if (!cJSON_IsObject(nc->root)) {
		netconf_free(nc);
		return -EINVAL;
	}
	*ret = nc;
	return 0;
}

/*
 * The log file is capped: past RQ_LOG_MAX_BYTES it becomes <name>.1 (the
 * previous .1 goes) and a new one starts, so a node running many pods never
 * fills /var/log. Two plugins rotating at once may lose the older half.
 */
#define RQ_LOG_MAX_BYTES ((off_t)8 << 20)

static int log_rotate(const struct rq_env *env, int fd, const char *name)
{
	char old[300];
	struct stat st;
	int dfd;

	if (fstat(fd, &st) < 0 || st.st_size < RQ_LOG_MAX_BYTES)
		return fd;
	dfd = root_openat(&env->root, RQ_LOG_DIR, O_PATH | O_DIRECTORY, 0);
	(void)snprintf(old, sizeof(old), "%s.1", name);
	if (dfd < 0 || renameat(dfd, name, dfd, old) < 0) {
		if (dfd >= 0)
			close(dfd);
		return fd;
	}
	close(dfd);
	close(fd);
	return -1;
}

static void log_open_file(const struct rq_env *env, const char *name)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), RQ_LOG_DIR "/%s", name);
	if (sysfs_mkdir_p(&env->root, RQ_LOG_DIR, 0750) < 0 &&
	    !sysfs_exists(&env->root, RQ_LOG_DIR))
		return;
	fd = root_openat(&env->root, path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW, 0640);
	if (fd >= 0)
		fd = log_rotate(env, fd, name);
	if (fd == -1)
		fd =
		    root_openat(&env->root, path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW, 0640);
	if (fd >= 0)
		log_fd = fd;
	else
		log_warn("logFile %s: %s; logging to stderr", path, strerror(-fd));
}

/* CHECK exists from CNI 0.4.0, GC and STATUS from 1.1.0 (SPEC.md). */
static int version_allows(struct rq_ctx *c)
{
	const char *need = c->args.cmd == RQ_CMD_CHECK				      ? "0.4.0"
			   : c->args.cmd == RQ_CMD_GC || c->args.cmd == RQ_CMD_STATUS ? "1.1.0"
										      : NULL;

	if (need && netconf_version_cmp(c->nc->cni_version, need) < 0)
		return rq_err(&c->err, RQ_ERR_VERSION, -EINVAL,
			      "cniVersion: %s does not allow %s (needs %s or later)",
			      c->nc->cni_version, c->args.command, need);
	/* GC releases every record it is not told to keep: it must be told */
	if (c->args.cmd == RQ_CMD_GC && !c->nc->valid_attachments)
		return rq_err(&c->err, RQ_ERR_CONFIG, -EINVAL,
			      "cni.dev/valid-attachments: required for GC");
	return 0;
}

static int run(struct rq_ctx *c, const char *buf, size_t len)
{
	int r;

	r = netconf_parse(buf, len, &c->nc, &c->err);
	if (r < 0 && c->args.cmd == RQ_CMD_DEL && c->err.code != RQ_ERR_VERSION &&
	    del_fallback_conf(buf, len, &c->nc) == 0) {
		log_warn("DEL with an invalid configuration (%s): cleaning up by name", c->err.msg);
		rq_err_clear(&c->err);
		r = 0;
	}
	if (r < 0)
		return r;
	if (c->nc->log_level)
		rq_log_set_level(c->nc->log_level);
	r = env_init(&c->env, &c->err);
	if (r < 0)
		return r;
	if (c->nc->log_file)
		log_open_file(&c->env, c->nc->log_file);
	r = version_allows(c);
	if (r < 0)
		return r;
	if (c->args.containerid && c->args.ifname) {
		r = state_key(c->nc->name, c->args.containerid, c->args.ifname, c->key,
			      sizeof(c->key));
		/* no ADD can have made a record under a name that cannot exist */
		if (r < 0 && c->args.cmd == RQ_CMD_DEL) {
			log_warn("DEL: no record name for network \"%s\" container %s ifname %s "
				 "(%s): nothing to delete",
				 c->nc->name ?: "", c->args.containerid, c->args.ifname,
				 strerror(-r));
			return 0;
		}
		if (r < 0)
			return rq_err(&c->err, RQ_ERR_CONFIG, r,
				      "name: network name, container ID and ifname too long for a "
				      "record name");
	}
	for (size_t i = 0; i < sizeof(dispatch) / sizeof(dispatch[0]); i++)
		if (dispatch[i].cmd == c->args.cmd)
			return dispatch[i].fn(c);
	return rq_err(&c->err, RQ_ERR_ENV, -EINVAL, "CNI_COMMAND %s is not handled",
		      c->args.command);
}

/* The node-side tools' environment (host root, DCB backend), at log level @lvl. */
static int tool_env_init(struct rq_env *env, const char *binary, enum rq_log_level lvl)
{
	struct rq_error e;

	rq_err_clear(&e);
	rq_log_set_level(lvl);
	if (env_init(env, &e) < 0) {
		fprintf(stderr, "%s: %s\n", binary, e.msg);
		return -1;
	}
	return 0;
}

static int main_show(int argc, char **argv, const char *binary)
{
	struct rq_env env;
	bool json = false, qps = false;
	const char *host_proc = NULL;
	struct show_pod_arg *pods = NULL;
	size_t n_pods = 0;
	int r, status = 0;

	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--qps")) {
			qps = true;
		} else if (!strcmp(argv[i], "--pod") && i + 1 < argc) {
			const char *pod = argv[++i];
			struct show_pod_arg *more = realloc(pods, (n_pods + 1) * sizeof(*pods));

			if (!more) {
				free(pods);
				fprintf(stderr, "%s show: out of memory\n", binary);
				return 1;
			}
			pods = more;
			if (show_pod_parse(pod, pods[n_pods].ns, sizeof(pods[n_pods].ns),
					   pods[n_pods].name, sizeof(pods[n_pods].name)) < 0) {
				fprintf(stderr, "%s show: --pod \"%s\": expected NAMESPACE/NAME\n",
					binary, pod);
				free(pods);
				return 1;
			}
			n_pods++;
		} else if (!strcmp(argv[i], "--host-proc") && i + 1 < argc) {
			host_proc = argv[++i]; /* as the agent's: a pod's /proc/<pid>/ns/net */
		} else {
			fprintf(stderr, "%s show: unexpected argument \"%s\"\n", binary, argv[i]);
			free(pods);
			return 1;
		}
	}

	if (tool_env_init(&env, binary, RQ_LOG_WARN) < 0) {
		free(pods);
		return 1;
	}
	env.host_proc = host_proc;
	r = n_pods ? cmd_show_pods(&env, pods, n_pods, json, &status)
	    : qps  ? cmd_show_qps(&env, json)
		   : cmd_show(&env, json);
	env_fini(&env);
	free(pods);
	if (r < 0)
		fprintf(stderr, "%s show: %s\n", binary, strerror(-r));
	return r < 0 ? 1 : status;
}

/*
 * `SUBCOMMAND --help`: that subcommand's own usage on stdout, exit 0 (agent and
 * preflight print theirs themselves). NULL: not a subcommand.
 */
static const char *sub_usage(const char *sub)
{
	static const struct {
		const char *name, *text;
	} subs[] = {
	    {"show",
	     "show [--json] [--qps [--host-proc DIR]] | show --counters [--json] "
	     "[--interval S]\n"
	     "     | show --pod NAMESPACE/NAME [--pod NAMESPACE/NAME ...] [--json]\n"
	     "Per PF and VF: the QoS state, the attachments and whether each is in profile;\n"
	     "--pod: the pod's verdict, one line per check (exit 0 lossless, 1 a check\n"
	     "fails, 2 no attachment of that pod on this node); several --pod: a verdict\n"
	     "each (text: a \"pod NS/NAME\" line before each; --json: an array), exit the\n"
	     "worst (1 over 2 over 0);\n"
	     "--counters: congestion counters as rates; --qps: each attachment's QPs and "
	     "their class.\n"},
	    {"top", "top [--interval S]\n"
		    "show --counters, refreshing, the worst pod first.\n"},
	    {"install", "install --cni-bin-dir DIR [--catalog-source FILE]\n"
			"Validate and install the catalog, then this binary into DIR (only when "
			"it differs).\n"},
	    {"uninstall", "uninstall --cni-bin-dir DIR [--wait S]\n"
			  "Remove the binary and the catalog once no attachment is recorded.\n"},
	    {"validate", "validate FILE [--catalog FILE] [--namespace NS]\n"
			 "A catalog, conflist, plugin config, NAD or SriovNetwork (JSON or "
			 "YAML), through\nthe plugin's own parsers; a key rdma-qos does not know "
			 "is refused with the nearest\nknown one. --catalog: the profile the NAD "
			 "resolves to in its namespace.\n"},
	};

	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
		if (!strcmp(sub, subs[i].name))
			return subs[i].text;
	return NULL;
}

static bool is_help(const char *a)
{
	return !strcmp(a, "--help") || !strcmp(a, "-h");
}

/* preflight [--json]: exit 0 ready, 1 something the catalog requires is missing */
static int main_preflight(int argc, char **argv, const char *binary)
{
	struct rq_env env;
	bool json = false;
	int r;

	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf(
			    "usage: %s preflight [--json]\n"
			    "Before the first pod: rdma_cm and configfs, ib_core's netns mode,\n"
			    "kubelet's PodResources, per PF DCBX mode and the traffic-class knob\n"
			    "(inbox vs DOCA-OFED), the link partner's LLDP (from the agent), each\n"
			    "with what to do. Exit 0 ready, 1 when something the catalog requires\n"
			    "is missing.\n",
			    binary);
			return 0;
		} else {
			fprintf(stderr, "%s preflight: unexpected argument \"%s\"\n", binary,
				argv[i]);
			return 1;
		}
	}
	if (tool_env_init(&env, binary, RQ_LOG_ERROR) < 0)
		return 1;
	r = cmd_preflight(&env, json);
	env_fini(&env);
	if (r < 0)
		fprintf(stderr, "%s preflight: %s\n", binary, strerror(-r));
	return r == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	static struct rq_ctx ctx;
	const char *binary = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	char version[16];
	char *buf = NULL;
	size_t len = 0;
	const char *command;
	int r;

	rq_log_set_sink(log_sink, (void *)binary);
	if (argc > 1 && !strcmp(argv[1], "--version")) {
		printf("%s %s\n", binary, RQ_VERSION);
		return 0;
	}
	if (argc == 2 && (is_help(argv[1]) || !strcmp(argv[1], "help"))) {
		usage(stdout, binary);
		return 0;
	}
	for (int i = 2; argc > 2 && i < argc; i++)
		if (is_help(argv[i]) && sub_usage(argv[1])) {
			printf("usage: %s %s", binary, sub_usage(argv[1]));
			return 0;
		}
	if (argc > 1 && !strcmp(argv[1], "show")) {
		for (int i = 2; i < argc; i++)
			if (!strcmp(argv[i], "--counters"))
				return main_counters(argc, argv, binary, false);
		return main_show(argc, argv, binary);
	}
	if (argc > 1 && !strcmp(argv[1], "top"))
		return main_counters(argc, argv, binary, true);
	if (argc > 1 && !strcmp(argv[1], "install"))
		return main_install(argc, argv, binary);
	if (argc > 1 && !strcmp(argv[1], "uninstall"))
		return main_uninstall(argc, argv, binary);
	if (argc > 1 && !strcmp(argv[1], "validate"))
		return main_validate(argc, argv, binary);
	if (argc > 1 && !strcmp(argv[1], "resume"))
		return cmd_resume(argc, argv, binary);
	if (argc > 1 && !strcmp(argv[1], "preflight"))
		return main_preflight(argc, argv, binary);
	if (argc > 1 && !strcmp(argv[1], "agent"))
		return cmd_agent(argc, argv, binary);
	command = getenv("CNI_COMMAND");
	if (argc > 1 || !command || !*command) {
		usage(stderr, binary);
		return 1;
	}
	/*
	 * A CNI command lives for milliseconds: freed heap is kept for reuse, so
	 * that pages populated in bulk for a large file (pkg/mem) are not given
	 * back at a free (the agent, which lives for days, keeps glibc's
	 * defaults). The heap is not populated ahead of a steady ADD: it would
	 * touch the untouched tails of blocks sized for the worst case (the pod's
	 * device list, the PodResources placement) too, a page or two more in
	 * all, and measured no faster (docs/benchmarks.md, issue 51's fourth round).
	 */
	mem_init((size_t)8 * 1024 * 1024);
	/*
	 * cJSON's many small blocks from a bump arena (pkg/mem): ~1000 of them in a
	 * steady ADD, whose malloc and free cost more than the parsing. Every string
	 * cJSON allocates goes back by cJSON_free, never free() (under ASan, which
	 * poisons the arena's free blocks, a free() of one is an invalid free).
	 */
	if (mem_arena((size_t)32 * 1024) == 0)
		cJSON_InitHooks(
		    &(cJSON_Hooks){.malloc_fn = mem_arena_alloc, .free_fn = mem_arena_free});
	/*
	 * The result goes out whole at exit, as it would to the runtime's pipe
	 * anyway: a buffer of our own spares stdio's fstat and isatty ioctl on
	 * stdout at the first output (2 syscalls of every CNI command).
	 */
	(void)setvbuf(stdout, cni_out, _IOFBF, sizeof(cni_out));
	ctx.env.root.fd = -1;
	r = cni_read_stdin(STDIN_FILENO, &buf, &len, &ctx.err);
	stdin_version(buf ? buf : "", len, version, sizeof(version));
	/* VERSION needs CNI_COMMAND alone (SPEC.md): nothing else is looked at */
	if (r == 0 && strcmp(command, "VERSION") != 0)
		r = cni_args_from_env(&ctx.args, &ctx.err);
	else if (r == 0)
		ctx.args.cmd = RQ_CMD_VERSION;
	if (r == 0 && ctx.args.cmd == RQ_CMD_VERSION) {
		char *s = cni_version_json(version);

		puts(s ? s : "{}");
		cJSON_free(s);
		free(buf);
		return 0;
	}
	if (r == 0)
		r = run(&ctx, buf, len);
	if (r < 0 && !rq_err_isset(&ctx.err))
		rq_err(&ctx.err, RQ_ERR_IO, r, "%s", strerror(-r));
	if (r < 0)
		print_error(ctx.nc && ctx.nc->cni_version ? ctx.nc->cni_version : version,
			    &ctx.err);
	netconf_free(ctx.nc);
	catalog_free(ctx.cat);
	env_fini(&ctx.env);
	free(buf);
	fflush(stdout);
#ifndef __SANITIZE_ADDRESS__
	/*
	 * Nothing is left for exit's handlers (gcc's and libnl's destructors,
	 * stdio's flush, done): _exit spares a steady ADD the text page of
	 * _fini at the far end of the binary (issue 51). The sanitizer build
	 * exits normally, for LeakSanitizer's check at exit.
	 */
	_exit(r < 0 ? 1 : 0);
#endif
	return r < 0 ? 1 : 0;
}
