// SPDX-License-Identifier: Apache-2.0
/*
 * The agent's loop: one epoll over a signalfd, the pass timer (timerfd), a
 * coalescing timer, and the event sources (event_sources.c). An event arms the
 * coalescing timer (AGENT_COALESCE_MS), so a burst (a driver reload raises
 * dozens) becomes one pass. A source that keeps firing for one port is
 * ignored for that port for a while, doubling, and the log says so; the
 * timer still runs. The telemetry collector raises a pass too when its QP
 * census changed since the last verdict judged it. SIGTERM or SIGINT: the pass
 * under way finishes, exit 0.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "pkg/log/log.h"
#include "plugin/agent/agent.h"
#include "plugin/agent/agent_tel.h"
#include "plugin/agent/events.h"
#include "plugin/lldp/peer_book.h"

#define FLAP_WINDOW_S	 10
#define FLAP_MAX_EVENTS	 20 /* per port and window; more is a flapping port */
#define FLAP_BACKOFF_MIN 5
#define FLAP_BACKOFF_MAX 300
#define FLAP_SLOTS	 32

struct flap {
	char who[48];
	long win_start, until, last;
	int count, backoff_s;
};

struct loop {
	struct agent *a;
	int ep, sig, timer, coalesce;
	bool armed, stop;
	struct ev_src src[EV_SRC_MAX];
	size_t n_src;
	struct flap flap[FLAP_SLOTS];
};

static long mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

static struct flap *flap_slot(struct loop *l, const char *who)
{
	struct flap *old = &l->flap[0];

	for (size_t i = 0; i < FLAP_SLOTS; i++) {
		if (!strcmp(l->flap[i].who, who))
			return &l->flap[i];
		if (l->flap[i].last < old->last)
			old = &l->flap[i];
	}
	memset(old, 0, sizeof(*old));
	(void)snprintf(old->who, sizeof(old->who), "%s", who);
	return old;
}

/* false: @who is backing off and its event is dropped */
static bool flap_admit(struct loop *l, const char *src, const char *who)
{
	struct flap *f = flap_slot(l, who);
	long now = mono_s();

	f->last = now;
	if (now < f->until)
		return false;
	if (now - f->win_start >= FLAP_WINDOW_S) {
		/* a quiet window forgets the back-off */
		if (f->count <= FLAP_MAX_EVENTS && now - f->win_start >= 2L * FLAP_WINDOW_S)
			f->backoff_s = 0;
		f->win_start = now;
		f->count = 0;
	}
	if (++f->count <= FLAP_MAX_EVENTS)
		return true;
	f->backoff_s = f->backoff_s ? f->backoff_s * 2 : FLAP_BACKOFF_MIN;
	if (f->backoff_s > FLAP_BACKOFF_MAX)
		f->backoff_s = FLAP_BACKOFF_MAX;
	f->until = now + f->backoff_s;
	log_warn("agent: %s events for %s keep coming (%d in %d s): ignoring them for %d s; "
		 "the --interval timer still runs",
		 src, who, f->count, FLAP_WINDOW_S, f->backoff_s);
	return false;
}

static int arm(int fd, long first_ms, long every_ms)
{
	struct itimerspec its = {
	    .it_value = {.tv_sec = first_ms / 1000, .tv_nsec = (first_ms % 1000) * 1000000L},
	    .it_interval = {.tv_sec = every_ms / 1000, .tv_nsec = (every_ms % 1000) * 1000000L},
	};

	return timerfd_settime(fd, 0, &its, NULL) < 0 ? -errno : 0;
}

static int add_fd(struct loop *l, int fd, uint64_t tag)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = tag};

	return epoll_ctl(l->ep, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

enum { TAG_SIG = 1000, TAG_TIMER, TAG_COALESCE, TAG_PEER, TAG_CENSUS };

static int loop_open(struct loop *l)
{
	sigset_t mask;
	int r;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	l->ep = epoll_create1(EPOLL_CLOEXEC);
	l->sig = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	l->timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	l->coalesce = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (l->ep < 0 || l->sig < 0 || l->timer < 0 || l->coalesce < 0)
		return -errno;
	r = arm(l->timer, (long)l->a->o.interval_s * 1000, (long)l->a->o.interval_s * 1000);
	if (r == 0)
		r = add_fd(l, l->sig, TAG_SIG);
	if (r == 0)
		r = add_fd(l, l->timer, TAG_TIMER);
	if (r == 0)
		r = add_fd(l, l->coalesce, TAG_COALESCE);
	/* the link partners' LLDP sockets and TTL timer, behind the book's one epoll fd */
	if (r == 0 && l->a->peers)
		r = add_fd(l, peer_book_fd(l->a->peers), TAG_PEER);
	/* the collector's QP census changed what the last verdict judged (agent_tel.c) */
	if (r == 0 && agent_tel_raise_fd(l->a->tel) >= 0)
		r = add_fd(l, agent_tel_raise_fd(l->a->tel), TAG_CENSUS);
	if (r < 0)
		return r;
	l->n_src = ev_src_open_all(&l->a->env, l->src, EV_SRC_MAX);
	for (size_t i = 0; i < l->n_src; i++) {
		r = add_fd(l, l->src[i].fd, i);
		if (r < 0)
			return r;
		log_info("agent: listening for %s", l->src[i].name);
	}
	return 0;
}

static void loop_close(struct loop *l)
{
	for (size_t i = 0; i < l->n_src; i++)
		close(l->src[i].fd);
	for (int *fd = &l->ep; fd <= &l->coalesce; fd++)
		if (*fd >= 0)
			close(*fd);
}

static void on_source(struct loop *l, struct ev_src *s)
{
	char who[EV_WHO_MAX][48];
	size_t n = 0;
	bool resync = false, any = false;
	int r = ev_src_drain(s, l->a, who, EV_WHO_MAX, &n, &resync);

	if (r < 0 && r != -EAGAIN)
		log_warn("agent: %s: %s", s->name, strerror(-r));
	if (resync)
		log_warn(
		    "agent: %s overran (ENOBUFS): events were lost, resyncing with a full pass",
		    s->name);
	for (size_t i = 0; i < n; i++)
		any |= flap_admit(l, s->name, who[i]);
	if ((any || resync) && !l->armed) {
		log_debug("agent: %s event (%s): pass in %d ms", s->name, n ? who[0] : "resync",
			  AGENT_COALESCE_MS);
		if (arm(l->coalesce, AGENT_COALESCE_MS, 0) == 0)
			l->armed = true;
	}
}

/* A partner came, changed or went: a pass judges it again (a refresh of the same is quiet). */
static void on_peer(struct loop *l)
{
	char who[EV_WHO_MAX][48];
	size_t n = peer_book_ready(l->a->peers, who, EV_WHO_MAX);
	bool any = false;

	for (size_t i = 0; i < n; i++)
		any |= flap_admit(l, "LLDP", who[i]);
	if (any && !l->armed) {
		log_debug("agent: link partner of %s changed: pass in %d ms", who[0],
			  AGENT_COALESCE_MS);
		if (arm(l->coalesce, AGENT_COALESCE_MS, 0) == 0)
			l->armed = true;
	}
}

/*
 * The QP census changed since the verdict last judged it: a pass judges it now rather than at
 * the next --interval tick (issue 49 item 7). The pass does not wait for a census of its own.
 */
static void on_census(struct loop *l)
{
	/* a census the pass since then judged already (its collection ended before its verdict) */
	if (!agent_tel_raised(l->a->tel))
		return;
	if (flap_admit(l, "QP census", "qps") && !l->armed) {
		log_debug("agent: the QP census changed since the last verdict: pass in %d ms",
			  AGENT_COALESCE_MS);
		if (arm(l->coalesce, AGENT_COALESCE_MS, 0) == 0)
			l->armed = true;
	}
}

static void on_signal(struct loop *l)
{
	struct signalfd_siginfo si;

	while (read(l->sig, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		log_info("agent: signal %u: exiting", si.ssi_signo);
		l->stop = true;
	}
}

int agent_block_signals(void)
{
	sigset_t mask;

	/* before any thread starts (the HTTP server's): a thread with them unblocked would take
	 * them */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGPIPE);
	return pthread_sigmask(SIG_BLOCK, &mask, NULL) ? -EINVAL : 0;
}

int agent_run(struct agent *a)
{
	struct loop l = {.a = a, .ep = -1, .sig = -1, .timer = -1, .coalesce = -1};
	struct epoll_event evs[16];
	uint64_t ticks;
	int r = loop_open(&l);

	if (r < 0) {
		log_error("agent: setting up the event loop: %s", strerror(-r));
		loop_close(&l);
		return r;
	}
	agent_do_pass(a);
	while (!l.stop) {
		bool pass = false;
		int n = epoll_wait(l.ep, evs, 16, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		for (int i = 0; i < n; i++) {
			uint64_t tag = evs[i].data.u64;

			if (tag == TAG_SIG) {
				on_signal(&l);
			} else if (tag == TAG_TIMER || tag == TAG_COALESCE) {
				(void)!read(tag == TAG_TIMER ? l.timer : l.coalesce, &ticks,
					    sizeof(ticks));
				pass = true;
			} else if (tag == TAG_PEER) {
				on_peer(&l);
			} else if (tag == TAG_CENSUS) {
				on_census(&l);
			} else if (tag < l.n_src) {
				on_source(&l, &l.src[tag]);
			}
		}
		if (pass && !l.stop) {
			l.armed = false;
			(void)arm(l.coalesce, 0, 0);
			agent_do_pass(a);
		}
	}
	loop_close(&l);
	return r < 0 ? r : 0;
}
