// SPDX-License-Identifier: Apache-2.0
/*
 * --nfd-features-file PATH: the node's lossless readiness as a Node Feature
 * Discovery local feature file, `key=value` lines with NFD's prefix written
 * out and a `# +expiry-time=` three intervals ahead, so the labels lapse when
 * the agent stops; why, and when nfd-worker reads it: docs/operations.md
 * "Node labels through Node Feature Discovery". Written after every pass
 * (--once included) through a dot temporary, but only when a label changes or
 * the expiry runs low (nfd_due): each rename makes nfd-worker GET its
 * NodeFeature object (issue 42 item 8). Not withdrawn on SIGTERM.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pkg/log/log.h"
#include "pkg/sysfs/sysfs.h"
#include "plugin/agent/agent.h"
#include "plugin/agent/nfd.h"

/* NFD's own namespace: written out, never left to nfd-worker's auto-prefix */
#define NFD_PREFIX "feature.node.kubernetes.io/"

/*
 * rdma-qos.lossless: true when the node has at least one PF with requirements
 * (a lossless attachment's, a VF's or one on a shared RDMA device alike, or the
 * node baseline's: the pass's req_pfs, never filtered on vf), every one of them is in
 * profile after the pass (DCB, ECN and its attachments' classes), and no
 * repair is suspended. A node with no such PF is not known to be lossless.
 */
static bool nfd_lossless(const struct pass_report *rep)
{
	const cJSON *it;
	int n = 0;

	cJSON_ArrayForEach(it, rep->suspended) /* every item the fight book knows, 0 or 1 */
	    if (json_int(it, "value", 0) != 0) return false;
	cJSON_ArrayForEach(it, rep->req_pfs)
	{
		/* drift of its attachments' requirements; a baseline-only PF is judged by that */
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(rep->pfs, it->string);
		const cJSON *b = cJSON_GetObjectItemCaseSensitive(rep->baseline, it->string);

		if ((!m && !b) || (m && (unsigned)m->valuedouble != 0) ||
		    (b && b->valuedouble != 1))
			return false;
		n++;
	}
	return n > 0;
}

int nfd_render(const struct pass_report *rep, bool pass_ok, double now, int interval_s, char *buf,
	       size_t len)
{
	time_t exp = (time_t)now + 3 * (time_t)interval_s;
	struct tm tm;
	char when[32];
	int n;

	if (!gmtime_r(&exp, &tm) || !strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return -EINVAL;
	/*
	 * rdma-qos.peer: over the same PFs, what their link partners' LLDP says
	 * (peer_metrics.c); a partner not heard is "unknown", never a mismatch.
	 */
	n = snprintf(buf, len,
		     "# rdma-qos agent: written when a label changes, expires 3 intervals ahead\n"
		     "# +expiry-time=%s\n" NFD_PREFIX "rdma-qos.lossless=%s\n" NFD_PREFIX
		     "rdma-qos.peer=%s\n" NFD_PREFIX "rdma-qos.gdr=%s\n" NFD_PREFIX
		     "rdma-qos.wiring=%s\n",
		     when, pass_ok && nfd_lossless(rep) ? "true" : "false",
		     pass_ok && rep->peer_word ? rep->peer_word : "unknown",
		     pass_ok && rep->gdr_word ? rep->gdr_word : "unknown",
		     pass_ok && rep->wiring_word ? rep->wiring_word : "unknown");
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

/* the labels of a rendered file: what follows its expiry line */
static const char *nfd_labels_of(const char *text)
{
	const char *e = strstr(text, "# +expiry-time=");
	const char *nl = e ? strchr(e, '\n') : NULL;

	return nl ? nl + 1 : NULL;
}

/*
 * Whether @text must replace the file at @path: it is missing or not what
 * this agent wrote, a label differs, its expiry is more than three intervals
 * ahead (written by a run with a longer --interval: a stopped agent's labels
 * would outlive what docs/operations.md promises), or less than two intervals
 * of its expiry remain (so that nfd-worker always finds the expiry at least
 * one interval ahead: docs/operations.md). Half an interval of slack is taken
 * off: the expiry is whole seconds and a pass comes a little after its
 * interval, so a file written three intervals ahead shows just under two at
 * the next pass; without the slack every pass would rewrite it. Read from
 * the file, not remembered: `--once` and a restarted agent rewrite no more.
 */
static bool nfd_due(const char *path, const char *text, double now, int interval_s)
{
	char old[1024];
	const char *lo, *ln = nfd_labels_of(text), *e;
	ssize_t n = -1;
	struct tm tm = {0};
	double left;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);

	if (fd >= 0) {
		n = read(fd, old, sizeof(old) - 1);
		close(fd);
	}
	if (n <= 0 || n >= (ssize_t)sizeof(old) - 1)
		return true;
	old[n] = '\0';
	lo = nfd_labels_of(old);
	e = strstr(old, "# +expiry-time=");
	if (!lo || !ln || strcmp(lo, ln) != 0 ||
	    !strptime(e + strlen("# +expiry-time="), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return true;
	left = (double)timegm(&tm) - now;
	return left < 2.0 * interval_s - interval_s / 2.0 || left > 3.0 * interval_s + 1.0;
}

void agent_nfd_publish(const struct agent *a, const struct pass_report *rep, bool pass_ok)
{
	char text[512];
	double now = agent_wall_now();
	int r;

	if (!a->o.nfd_file)
		return;
	r = nfd_render(rep, pass_ok, now, a->o.interval_s, text, sizeof(text));
	if (r == 0 && !nfd_due(a->o.nfd_file, text, now, a->o.interval_s))
		return;
	if (r == 0)
		/* a dot temporary beside it, renamed over: nfd-worker skips dot files */
		r = sysfs_write_replace_path(a->o.nfd_file, text, strlen(text), 0644);
	if (r < 0)
		log_warn("agent: writing the NFD feature file %s: %s", a->o.nfd_file, strerror(-r));
}
