// SPDX-License-Identifier: Apache-2.0
/*
 * bench: exec commands N times with fork/execve/wait4 (no shell in the timed
 * path), interleaved A B A B ... so ratios hold on a noisy machine; report
 * median, p10, p90 of wall time and the peak RSS from wait4.
 *
 *   bench -n N [-j out.json] PLAN        interleaved runs of every plan line
 *   bench -p K [-j out.json] PLAN        K copies of each plan line at once
 *
 * PLAN lines (tab-separated): name, prepare (a shell command run before each
 * timed run, outside the timing, or "-"), stdin file, env file (KEY=VALUE
 * lines), then argv (space-separated). In -p mode "{i}" in the stdin and
 * env file names is replaced by the copy index.
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
#define MAX_ARGS 32
#define MAX_ENV 64

struct cmd {
	char name[64];
	char prepare[1024];
	char in[512];
	char envf[512];
	char *argv[MAX_ARGS];
	double *us;
	long *rss;
	int n, fails;
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void subst(char *dst, size_t len, const char *src, int idx)
{
	const char *p = strstr(src, "{i}");

	if (!p) {
		snprintf(dst, len, "%s", src);
		return;
	}
	snprintf(dst, len, "%.*s%d%s", (int)(p - src), src, idx, p + 3);
}

static int load_env(const char *file, char **envp)
{
	static char buf[MAX_ENV][1024];
	FILE *f = fopen(file, "r");
	int n = 0;

	if (!f)
		return -1;
	while (n < MAX_ENV - 1 && fgets(buf[n], sizeof(buf[n]), f)) {
		buf[n][strcspn(buf[n], "\n")] = '\0';
		if (buf[n][0])
			envp[n] = buf[n], n++;
	}
	fclose(f);
	envp[n] = NULL;
	return n;
}

/* Start one run; returns the pid. The env and stdin are set up before the clock starts. */
static pid_t spawn(struct cmd *c, int idx)
{
	char in[600], envf[600];
	char *envp[MAX_ENV];
	pid_t pid;
	int fd;

	subst(in, sizeof(in), c->in, idx);
	subst(envf, sizeof(envf), c->envf, idx);
	if (load_env(envf, envp) < 0) {
		perror(envf);
		exit(2);
	}
	fd = open(in, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(in);
		exit(2);
	}
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(fd, 0);
		dup2(null, 1);
		dup2(null, 2);
		execve(c->argv[0], c->argv, envp);
		_exit(127);
	}
	close(fd);
	return pid;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(double *v, int n, double p)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_d);
	return v[(int)((n - 1) * p + 0.5)];
}

static int parse_plan(const char *file, struct cmd *cmds, int max_runs)
{
	static char lines[MAX_LINES][4096];
	FILE *f = fopen(file, "r");
	int n = 0;

	if (!f)
		return -1;
	while (n < MAX_LINES && fgets(lines[n], sizeof(lines[n]), f)) {
		char *save = NULL, *tok, *l = lines[n];
		struct cmd *c = &cmds[n];
		int a = 0;

		l[strcspn(l, "\n")] = '\0';
		if (!l[0] || l[0] == '#')
			continue;
		memset(c, 0, sizeof(*c));
		snprintf(c->name, sizeof(c->name), "%s", strtok_r(l, "\t", &save));
		snprintf(c->prepare, sizeof(c->prepare), "%s", strtok_r(NULL, "\t", &save));
		snprintf(c->in, sizeof(c->in), "%s", strtok_r(NULL, "\t", &save));
		snprintf(c->envf, sizeof(c->envf), "%s", strtok_r(NULL, "\t", &save));
		tok = strtok_r(NULL, "\t", &save);
		for (char *s2 = NULL, *t = strtok_r(tok, " ", &s2); t && a < MAX_ARGS - 1;
		     t = strtok_r(NULL, " ", &s2))
			c->argv[a++] = t;
		c->argv[a] = NULL;
		c->us = calloc((size_t)max_runs, sizeof(double));
		c->rss = calloc((size_t)max_runs, sizeof(long));
		n++;
	}
	fclose(f);
	return n;
}

static void report(FILE *js, struct cmd *c, int first, double wall)
{
	long maxrss = 0;
	double p10, p50, p90, p99;

	for (int i = 0; i < c->n; i++)
		maxrss = c->rss[i] > maxrss ? c->rss[i] : maxrss;
	p10 = pct(c->us, c->n, 0.10);
	p50 = pct(c->us, c->n, 0.50);
	p90 = pct(c->us, c->n, 0.90);
	p99 = pct(c->us, c->n, 0.99);
	printf("%-28s n=%-4d fail=%-3d p10 %8.0f  p50 %8.0f  p90 %8.0f  p99 %8.0f us  rss %5ld KiB\n",
	       c->name, c->n, c->fails, p10, p50, p90, p99, maxrss);
	if (js)
		fprintf(js,
			"%s\n  \"%s\": {\"n\": %d, \"fails\": %d, \"p10_us\": %.1f, \"p50_us\": %.1f, "
			"\"p90_us\": %.1f, \"p99_us\": %.1f, \"max_rss_kib\": %ld, \"wall_us\": %.1f}",
			first ? "" : ",", c->name, c->n, c->fails, p10, p50, p90, p99, maxrss, wall);
}

int main(int argc, char **argv)
{
	struct cmd cmds[MAX_LINES];
	int n = 50, par = 0, opt, nc;
	const char *jout = NULL;
	FILE *js = NULL;

	while ((opt = getopt(argc, argv, "n:p:j:")) != -1) {
		if (opt == 'n')
			n = atoi(optarg);
		else if (opt == 'p')
			par = atoi(optarg);
		else if (opt == 'j')
			jout = optarg;
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: bench [-n N | -p K] [-j out.json] PLAN\n");
		return 2;
	}
	nc = parse_plan(argv[optind], cmds, par ? par : n);
	if (nc <= 0) {
		fprintf(stderr, "bench: no plan in %s\n", argv[optind]);
		return 2;
	}
	if (jout && !(js = fopen(jout, "w")))
		return 2;
	if (js)
		fputs("{", js);
	if (par) {
		for (int k = 0; k < nc; k++) {
			struct cmd *c = &cmds[k];
			pid_t pids[1024];
			double start[1024], t0;

			if (strcmp(c->prepare, "-") && system(c->prepare) != 0)
				c->fails++;
			t0 = now_us();
			for (int i = 0; i < par && i < 1024; i++) {
				start[i] = now_us();
				pids[i] = spawn(c, i);
			}
			for (int done = 0; done < par && done < 1024; done++) {
				struct rusage ru;
				int st, i;
				pid_t p = wait4(-1, &st, 0, &ru);

				for (i = 0; i < par && pids[i] != p; i++)
					;
				c->us[c->n] = now_us() - start[i];
				c->rss[c->n++] = ru.ru_maxrss;
				if (!WIFEXITED(st) || WEXITSTATUS(st))
					c->fails++;
			}
			report(js, c, k == 0, now_us() - t0);
		}
	} else {
		for (int round = 0; round < n; round++)
			for (int k = 0; k < nc; k++) {
				struct cmd *c = &cmds[k];
				struct rusage ru;
				double t0;
				pid_t pid;
				int st;

				if (strcmp(c->prepare, "-") && system(c->prepare) != 0)
					c->fails++;
				t0 = now_us();
				pid = spawn(c, round);
				wait4(pid, &st, 0, &ru);
				c->us[c->n] = now_us() - t0;
				c->rss[c->n++] = ru.ru_maxrss;
				if (!WIFEXITED(st) || WEXITSTATUS(st))
					c->fails++;
			}
		for (int k = 0; k < nc; k++)
			report(js, &cmds[k], k == 0, 0);
	}
	if (js) {
		fputs("\n}\n", js);
		fclose(js);
	}
	return 0;
}
