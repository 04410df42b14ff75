// SPDX-License-Identifier: Apache-2.0
/*
 * bench: exec commands N times with fork/execve/wait4 (no shell in the timed
 * path), interleaved (every line once a round, in a shuffled order) so that
 * ratios hold on a noisy machine;
 * report p10, median, p90, p99 of wall time and the peak RSS from wait4.
 *
 *   bench -n N [-j out.json] PLAN        N interleaved rounds of every plan line
 *   bench -p K [-j out.json] PLAN        K copies of each plan line at once
 *
 * PLAN lines (tab-separated): name, prepare (a shell command run before each
 * timed run, outside the timing, or "-"), stdin file, env file (KEY=VALUE
 * lines), then argv (space-separated). In -p mode "{i}" in the stdin and
 * env file names is replaced by the copy index.
 *
 * The clock starts right before fork() and stops when wait4() returns: stdin
 * is opened and the environment read beforehand, so file I/O of the harness
 * is not charged to the command. ru_maxrss of a child is the larger of its
 * own peak and the forked harness image it replaced at execve, so the harness
 * is linked statically and touches little memory (the no-op line in run.sh
 * measures that floor).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_LINES 32
#define MAX_ARGS  32
#define MAX_ENV	  64
#define MAX_PAR	  1024

struct cmd {
	char name[64];
	char prepare[1024];
	char in[512];
	char envf[512];
	char *argv[MAX_ARGS];
	double *us;
	long *rss;
	int n, ok, fails; /* timed runs; exited 0; failed runs and prepare steps */
	char last_fail[48];
};

/* What one run needs, made ready before the clock starts. */
struct launch {
	char envbuf[MAX_ENV][1024];
	char *envp[MAX_ENV];
	int fd;
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void subst(char *dst, size_t len, const char *src, int idx)
{
	const char *p = strstr(src, "{i}");

	if (!p) {
		(void)snprintf(dst, len, "%s", src);
		return;
	}
	(void)snprintf(dst, len, "%.*s%d%s", (int)(p - src), src, idx, p + 3);
}

static int load_env(const char *file, struct launch *l)
{
	FILE *f = fopen(file, "re");
	int n = 0;

	if (!f)
		return -errno;
	while (n < MAX_ENV - 1 && fgets(l->envbuf[n], sizeof(l->envbuf[n]), f)) {
		l->envbuf[n][strcspn(l->envbuf[n], "\n")] = '\0';
		if (l->envbuf[n][0]) {
			l->envp[n] = l->envbuf[n];
			n++;
		}
	}
	(void)fclose(f);
	l->envp[n] = NULL;
	return n;
}

/* Open stdin and read the environment of copy @idx of @c; exits on a broken plan. */
static void prepare(const struct cmd *c, int idx, struct launch *l)
{
	char in[600], envf[600];

	subst(in, sizeof(in), c->in, idx);
	subst(envf, sizeof(envf), c->envf, idx);
	if (load_env(envf, l) < 0) {
		perror(envf);
		exit(2);
	}
	l->fd = open(in, O_RDONLY | O_CLOEXEC);
	if (l->fd < 0) {
		perror(in);
		exit(2);
	}
}

static pid_t launch(struct cmd *c, struct launch *l)
{
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		/* dup2 clears O_CLOEXEC on the new descriptors 0, 1, 2 */
		if (dup2(l->fd, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
			_exit(126);
		execve(c->argv[0], c->argv, l->envp);
		_exit(127);
	}
	close(l->fd);
	if (pid < 0)
		c->fails++;
	return pid;
}

static void account(struct cmd *c, double us, int status, const struct rusage *ru)
{
	c->us[c->n] = us;
	c->rss[c->n++] = ru->ru_maxrss;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		c->ok++;
		return;
	}
	c->fails++;
	/* 126: stdin/stdout setup failed, 127: execve failed (e.g. a binary being relinked) */
	if (WIFEXITED(status))
		(void)snprintf(c->last_fail, sizeof(c->last_fail), "run %d: exit %d", c->n,
			       WEXITSTATUS(status));
	else
		(void)snprintf(c->last_fail, sizeof(c->last_fail), "run %d: signal %d", c->n,
			       WTERMSIG(status));
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int cmp_l(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

/* nearest-rank percentile of a sorted array */
static double pct(const double *v, int n, double p)
{
	return n == 0 ? 0 : v[(int)((n - 1) * p + 0.5)];
}

static int parse_line(char *l, struct cmd *c, int max_runs)
{
	char *save = NULL, *f[5];
	int a = 0;

	memset(c, 0, sizeof(*c));
	for (int i = 0; i < 5; i++)
		if (!(f[i] = strtok_r(i ? NULL : l, "\t", &save)))
			return -EINVAL;
	(void)snprintf(c->name, sizeof(c->name), "%s", f[0]);
	(void)snprintf(c->prepare, sizeof(c->prepare), "%s", f[1]);
	(void)snprintf(c->in, sizeof(c->in), "%s", f[2]);
	(void)snprintf(c->envf, sizeof(c->envf), "%s", f[3]);
	save = NULL;
	for (char *t = strtok_r(f[4], " ", &save); t && a < MAX_ARGS - 1;
	     t = strtok_r(NULL, " ", &save))
		c->argv[a++] = t;
	c->argv[a] = NULL;
	c->us = calloc((size_t)max_runs, sizeof(double));
	c->rss = calloc((size_t)max_runs, sizeof(long));
	return c->us && c->rss ? 0 : -ENOMEM;
}

static int parse_plan(const char *file, struct cmd *cmds, int max_runs)
{
	static char lines[MAX_LINES][4096];
	FILE *f = fopen(file, "re");
	int n = 0;

	if (!f)
		return -errno;
	while (n < MAX_LINES && fgets(lines[n], sizeof(lines[n]), f)) {
		char *l = lines[n];

		l[strcspn(l, "\n")] = '\0';
		if (!l[0] || l[0] == '#')
			continue;
		if (parse_line(l, &cmds[n], max_runs) < 0) {
			(void)fprintf(stderr, "bench: %s: line %d: want 5 tab-separated fields\n",
				      file, n + 1);
			(void)fclose(f);
			return -EINVAL;
		}
		n++;
	}
	(void)fclose(f);
	return n;
}

static void report(FILE *js, struct cmd *c, int first, double wall)
{
	long maxrss = 0, medrss = 0;
	double p10, p50, p90, p99;

	for (int i = 0; i < c->n; i++)
		maxrss = c->rss[i] > maxrss ? c->rss[i] : maxrss;
	/* the median too: a static binary's RSS moves with its load address (docs/benchmarks.md) */
	if (c->n > 0) {
		qsort(c->rss, (size_t)c->n, sizeof(*c->rss), cmp_l);
		medrss = c->rss[c->n / 2];
	}
	qsort(c->us, (size_t)c->n, sizeof(*c->us), cmp_d);
	p10 = pct(c->us, c->n, 0.10);
	p50 = pct(c->us, c->n, 0.50);
	p90 = pct(c->us, c->n, 0.90);
	p99 = pct(c->us, c->n, 0.99);
	(void)printf(
	    "%-28s n=%-4d ok=%-4d p10 %8.0f  p50 %8.0f  p90 %8.0f  p99 %8.0f us  rss %5ld KiB"
	    " (median %ld)",
	    c->name, c->n, c->ok, p10, p50, p90, p99, maxrss, medrss);
	if (wall > 0)
		(void)printf("  wall %.0f us", wall);
	if (c->last_fail[0])
		(void)printf("  last failure: %s", c->last_fail);
	(void)putchar('\n');
	if (js)
		(void)fprintf(
		    js,
		    "%s\n  \"%s\": {\"n\": %d, \"ok\": %d, \"fails\": %d, \"p10_us\": %.1f, "
		    "\"p50_us\": %.1f, \"p90_us\": %.1f, \"p99_us\": %.1f, "
		    "\"max_rss_kib\": %ld, \"median_rss_kib\": %ld, \"wall_us\": %.1f, "
		    "\"last_fail\": \"%s\"}",
		    first ? "" : ",", c->name, c->n, c->ok, c->fails, p10, p50, p90, p99, maxrss,
		    medrss, wall, c->last_fail);
}

/* A failed prepare step is a failure of the line; the run is skipped. */
static int run_prepare(struct cmd *c)
{
	/* the prepare step is a shell command by design, and runs outside the timing */
	if (strcmp(c->prepare, "-") != 0 && system(c->prepare) != 0) { // NOLINT(cert-env33-c)
		(void)fprintf(stderr, "bench: %s: prepare failed: %s\n", c->name, c->prepare);
		(void)snprintf(c->last_fail, sizeof(c->last_fail), "prepare before run %d", c->n);
		c->fails++;
		return -1;
	}
	return 0;
}

/*
 * Each round runs the lines in an order of its own (a fixed-seed shuffle, so
 * runs repeat): in a fixed order a command always follows the same neighbour,
 * and a 1.2 MB static binary run right after a 4 MB Go plugin pays more for
 * the caches that neighbour evicted than the C floor run after a no-op does
 * (measured: +11% vs +5%). Random neighbours charge that to every line alike.
 */
static void shuffle(int *order, int nc, unsigned long long *seed)
{
	for (int i = 0; i < nc; i++)
		order[i] = i;
	for (int i = nc - 1; i > 0; i--) {
		int j, t;

		*seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
		j = (int)((*seed >> 33) % (unsigned long long)(i + 1));
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
}

static void run_interleaved(struct cmd *cmds, int nc, int rounds, FILE *js)
{
	static struct launch l;
	static int order[MAX_LINES];
	unsigned long long seed = 42;

	for (int round = 0; round < rounds; round++) {
		shuffle(order, nc, &seed);
		for (int o = 0; o < nc; o++) {
			struct cmd *c = &cmds[order[o]];
			struct rusage ru;
			double t0;
			pid_t pid;
			int st;

			if (run_prepare(c) < 0)
				continue;
			prepare(c, round, &l);
			t0 = now_us();
			pid = launch(c, &l);
			if (pid > 0 && wait4(pid, &st, 0, &ru) == pid)
				account(c, now_us() - t0, st, &ru);
		}
	}
	for (int k = 0; k < nc; k++)
		report(js, &cmds[k], k == 0, 0);
}

/*
 * Copies start back to back; each is made ready just before its fork, with one
 * launch buffer, so the harness stays small (its image bounds every ru_maxrss).
 */
static void run_parallel(struct cmd *c, int par, FILE *js, int first)
{
	static struct launch l;
	static pid_t pids[MAX_PAR];
	static double start[MAX_PAR];
	double t0;

	if (run_prepare(c) < 0) {
		report(js, c, first, 0);
		return;
	}
	t0 = now_us();
	for (int i = 0; i < par; i++) {
		prepare(c, i, &l);
		start[i] = now_us();
		pids[i] = launch(c, &l);
	}
	for (int i = 0; i < par; i++) {
		struct rusage ru;
		int st, k;
		pid_t p = wait4(-1, &st, 0, &ru);

		if (p < 0)
			break;
		for (k = 0; k < par && pids[k] != p; k++)
			;
		if (k < par)
			account(c, now_us() - start[k], st, &ru);
	}
	report(js, c, first, now_us() - t0);
}

static int parse_count(const char *s)
{
	char *end = NULL;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < 0 || v > 1000000)
		return -1;
	return (int)v;
}

int main(int argc, char **argv)
{
	static struct cmd cmds[MAX_LINES];
	int n = 50, par = 0, opt, nc;
	const char *jout = NULL;
	FILE *js = NULL;

	while ((opt = getopt(argc, argv, "n:p:j:")) != -1) {
		if (opt == 'n')
			n = parse_count(optarg);
		else if (opt == 'p')
			par = parse_count(optarg);
		else if (opt == 'j')
			jout = optarg;
		else
			optind = argc;
	}
	if (optind != argc - 1 || n < 1 || par < 0 || par > MAX_PAR) {
		(void)fprintf(stderr, "usage: bench [-n N | -p K (<= %d)] [-j out.json] PLAN\n",
			      MAX_PAR);
		return 2;
	}
	nc = parse_plan(argv[optind], cmds, par ? par : n);
	if (nc <= 0) {
		(void)fprintf(stderr, "bench: no plan in %s\n", argv[optind]);
		return 2;
	}
	if (jout && !(js = fopen(jout, "we"))) {
		perror(jout);
		return 2;
	}
	if (js)
		(void)fputs("{", js);
	if (par)
		for (int k = 0; k < nc; k++)
			run_parallel(&cmds[k], par, js, k == 0);
	else
		run_interleaved(cmds, nc, n, js);
	if (js) {
		(void)fputs("\n}\n", js);
		(void)fclose(js);
	}
	return 0;
}
