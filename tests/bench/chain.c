// SPDX-License-Identifier: Apache-2.0
/*
 * chain: run a CNI chain as a runtime does, for make bench's "whole chain"
 * points (what a pod start pays: host-device, then rdma-qos with
 * host-device's result as prevResult).
 *
 *   chain PLUGIN CONF [PLUGIN2 CONF2]
 *
 * PLUGIN runs with CONF on stdin and the caller's environment. With PLUGIN2,
 * its stdin is CONF2 with the text "__PREV__" replaced by PLUGIN's output,
 * and its output is ours; else PLUGIN's is. The exit status is the first
 * failing step's. Measured alone and chained by the same runner, so its own
 * cost is on both sides of the ratio.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define OUT_MAX (1 << 20)

static char *slurp(const char *path, size_t *len)
{
	static char buf[OUT_MAX];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

/* Run @bin with @in on stdin; its stdout into @out. Returns its exit status. */
static int run(const char *bin, const char *in, size_t in_len, char *out, size_t *out_len)
{
	int pin[2], pout[2], st = 0;
	size_t off = 0;
	pid_t pid;

	if (pipe2(pin, O_CLOEXEC) < 0 || pipe2(pout, O_CLOEXEC) < 0)
		return 125;
	pid = fork();
	if (pid < 0)
		return 125;
	if (pid == 0) {
		char *argv[] = {(char *)bin, NULL};

		dup2(pin[0], 0);
		dup2(pout[1], 1);
		execv(bin, argv);
		_exit(127);
	}
	close(pin[0]);
	close(pout[1]);
	/* CNI stdin is small (well under a pipe buffer), so write all, then read */
	while (off < in_len) {
		ssize_t n = write(pin[1], in + off, in_len - off);

		if (n < 0 && errno != EINTR)
			break;
		if (n > 0)
			off += (size_t)n;
	}
	close(pin[1]);
	*out_len = 0;
	for (;;) {
		ssize_t n = read(pout[0], out + *out_len, OUT_MAX - 1 - *out_len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		*out_len += (size_t)n;
	}
	out[*out_len] = '\0';
	close(pout[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

int main(int argc, char **argv)
{
	static char out1[OUT_MAX], out2[OUT_MAX], conf2[2 * OUT_MAX];
	size_t len = 0, olen = 0, tlen = 0;
	const char *in, *mark;
	int rc;

	if (argc != 3 && argc != 5) {
		fprintf(stderr, "usage: chain PLUGIN CONF [PLUGIN2 CONF2]\n");
		return 2;
	}
	in = slurp(argv[2], &len);
	if (!in)
		return 2;
	rc = run(argv[1], in, len, out1, &olen);
	if (rc != 0 || argc == 3) {
		fwrite(out1, 1, olen, stdout);
		return rc;
	}
	in = slurp(argv[4], &tlen);
	mark = in ? strstr(in, "__PREV__") : NULL;
	if (!mark)
		return 2;
	len = (size_t)(mark - in);
	memcpy(conf2, in, len);
	memcpy(conf2 + len, out1, olen);
	memcpy(conf2 + len + olen, mark + 8, tlen - len - 8);
	len += olen + tlen - (size_t)(mark - in) - 8;
	rc = run(argv[3], conf2, len, out2, &olen);
	fwrite(out2, 1, olen, stdout);
	return rc;
}
