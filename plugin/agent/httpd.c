// SPDX-License-Identifier: Apache-2.0
/*
 * /metrics, /healthz and /readyz over plain HTTP with libmicrohttpd: HTTP
 * parsing is not ours to write. The server answers from memory: a copy of
 * the last pass's text and the telemetry collector's last text (agent_tel.c),
 * so neither a slow pass nor slow counter reads hold up an answer for long.
 *
 * /healthz (liveness) is about the passes, not the server: it answers 503 once
 * the last completed pass (or the start, before the first) is older than
 * AGENT_STALE_INTERVALS x --interval + the longest pass seen, so a loop stuck
 * in a pass (a hung read, a lock never released) gets the container restarted
 * while this thread still answers. /readyz (readiness) answers 200 only while
 * /healthz would, a pass has completed and the catalog source is valid: an
 * invalid catalog stops a rolling update (maxUnavailable) at the first node.
 * Both read only the pass timestamps: never a counter, never a pass's lock.
 *
 * A thread per connection, the request deadline and its reaper:
 * docs/design.md#the-agents-threads-passes-counter-collector-http.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "pkg/log/log.h"
#include "plugin/agent/agent.h"
#include "plugin/agent/agent_tel.h"
#include "plugin/agent/httpd.h"

/* One open connection, as the reaper sees it. */
struct conn {
	struct conn *prev, *next;
	int fd;
	bool in_request; /* its request has arrived, its answer is under way */
	/* monotonic seconds: its request must have arrived (!in_request), or its answer
	   been taken (in_request), by then */
	double deadline;
};

struct agent_httpd {
	struct MHD_Daemon *d;
	/* the reaper's: open connections, their deadlines */
	pthread_mutex_t conns_lock;
	pthread_cond_t conns_stop;
	pthread_t reaper;
	bool reaper_running, stopping;
	struct conn *conns;
	pthread_mutex_t lock;
	char *text;
	struct agent_tel *tel;
	int interval_s;
	double started;	 /* monotonic seconds */
	double last_ok;	 /* monotonic seconds of the last completed pass; 0: none yet */
	double longest;	 /* the longest pass seen, seconds */
	bool catalog_ok; /* as of the last completed pass */
};

static double mono_now(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double agent_stale_bound_s(int interval_s, double longest_pass_s)
{
	return AGENT_STALE_INTERVALS * (double)interval_s + longest_pass_s;
}

/* Under h->lock: the /healthz or /readyz answer (status and a one-line body). */
static unsigned health(const struct agent_httpd *h, bool ready, char *msg, size_t len)
{
	double now = mono_now(), since = h->last_ok ? h->last_ok : h->started;
	double bound = agent_stale_bound_s(h->interval_s, h->longest), age = now - since;

	if (age > bound) {
		(void)snprintf(msg, len, "stale: %s %.0f s ago (bound %.0f s)\n",
			       h->last_ok ? "last pass completed" : "started, no pass completed",
			       age, bound);
		return MHD_HTTP_SERVICE_UNAVAILABLE;
	}
	if (!h->last_ok) {
		(void)snprintf(msg, len, "%s\n", ready ? "no pass yet" : "starting");
		return ready ? MHD_HTTP_SERVICE_UNAVAILABLE : MHD_HTTP_OK;
	}
	if (ready && !h->catalog_ok) {
		(void)snprintf(msg, len,
			       "catalog source invalid (the last good catalog is kept)\n");
		return MHD_HTTP_SERVICE_UNAVAILABLE;
	}
	(void)snprintf(msg, len, "ok\n");
	return MHD_HTTP_OK;
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status, const char *type,
			     const char *body)
{
	struct MHD_Response *res =
	    MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result r;

	if (!res)
		return MHD_NO;
	MHD_add_response_header(res, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	r = MHD_queue_response(conn, status, res);
	MHD_destroy_response(res);
	return r;
}

/*
 * The last pass's text and the collector's (at most AGENT_TEL_CACHE_S old
 * when it reads quickly, else its last), joined into one buffer MHD takes
 * over: with 256 attachments that is ~600 KiB, copied no more than it must be.
 */
static enum MHD_Result metrics(struct agent_httpd *h, struct MHD_Connection *conn)
{
	struct MHD_Response *res;
	size_t lp = 0, lt;
	char *all = NULL, *tel;
	enum MHD_Result r;

	pthread_mutex_lock(&h->lock);
	if (h->text) {
		lp = strlen(h->text);
		all = malloc(lp + 1);
		if (all)
			memcpy(all, h->text, lp + 1);
	}
	pthread_mutex_unlock(&h->lock);
	if (!all)
		return reply(conn, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain", "no pass yet\n");
	/* this connection's own thread: waiting here holds up no other request */
	tel = agent_tel_text(h->tel, AGENT_TEL_SCRAPE_WAIT_S);
	lt = tel ? strlen(tel) : 0;
	if (lt) {
		char *n = realloc(all, lp + lt + 1);

		if (n) {
			memcpy(n + lp, tel, lt + 1);
			all = n;
			lp += lt;
		}
	}
	free(tel);
	res = MHD_create_response_from_buffer(lp, all, MHD_RESPMEM_MUST_FREE);
	if (!res) {
		free(all);
		return MHD_NO;
	}
	MHD_add_response_header(res, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/plain; version=0.0.4; charset=utf-8");
	r = MHD_queue_response(conn, MHD_HTTP_OK, res);
	MHD_destroy_response(res);
	return r;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_size, void **con_cls)
{
	struct agent_httpd *h = cls;
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	enum MHD_Result r;

	if (ci && ci->socket_context) {
		struct conn *c = ci->socket_context;

		pthread_mutex_lock(&h->conns_lock);
		if (!c->in_request)
			c->deadline = mono_now() + AGENT_HTTP_ANSWER_S;
		c->in_request = true;
		pthread_mutex_unlock(&h->conns_lock);
	}
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", "GET only\n");
	if (!strcmp(url, "/metrics"))
		return metrics(h, conn);
	if (!strcmp(url, "/healthz") || !strcmp(url, "/readyz")) {
		char msg[160];
		unsigned st;

		pthread_mutex_lock(&h->lock);
		st = health(h, url[1] == 'r', msg, sizeof(msg));
		pthread_mutex_unlock(&h->lock);
		return reply(conn, st, "text/plain", msg);
	}
	r = reply(conn, MHD_HTTP_NOT_FOUND, "text/plain", "/metrics, /healthz or /readyz\n");
	return r;
}

/* MHD_OPTION_NOTIFY_CONNECTION: called before MHD closes the socket, so the reaper never
   shuts down a descriptor that was closed and reused */
static void conn_notify(void *cls, struct MHD_Connection *connection, void **socket_context,
			enum MHD_ConnectionNotificationCode toe)
{
	struct agent_httpd *h = cls;
	struct conn *c = *socket_context;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci =
		    MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);

		c = ci ? calloc(1, sizeof(*c)) : NULL;
		if (!c)
			return; /* not reaped: MHD's idle timeout still applies */
		c->fd = ci->connect_fd;
		c->deadline = mono_now() + AGENT_HTTP_REQUEST_S;
		pthread_mutex_lock(&h->conns_lock);
		c->next = h->conns;
		if (h->conns)
			h->conns->prev = c;
		h->conns = c;
		pthread_mutex_unlock(&h->conns_lock);
		*socket_context = c;
		return;
	}
	if (!c)
		return;
	pthread_mutex_lock(&h->conns_lock);
	if (c->prev)
		c->prev->next = c->next;
	else
		h->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	pthread_mutex_unlock(&h->conns_lock);
	free(c);
	*socket_context = NULL;
}

/* MHD_OPTION_NOTIFY_COMPLETED: answered; a kept-alive connection's next request gets its time */
static void req_completed(void *cls, struct MHD_Connection *connection, void **con_cls,
			  enum MHD_RequestTerminationCode toe)
{
	struct agent_httpd *h = cls;
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct conn *c = ci ? ci->socket_context : NULL;

	(void)con_cls;
	(void)toe;
	if (!c)
		return;
	pthread_mutex_lock(&h->conns_lock);
	c->in_request = false;
	c->deadline = mono_now() + AGENT_HTTP_REQUEST_S;
	pthread_mutex_unlock(&h->conns_lock);
}

/* Once a second: shut down connections whose request is late (a slowloris, a stuck client)
   or whose answer the client takes too slowly (a reader taking a few bytes at a time). */
static void *reaper(void *arg)
{
	struct agent_httpd *h = arg;

	pthread_mutex_lock(&h->conns_lock);
	while (!h->stopping) {
		double now = mono_now(), until = now + 1;
		struct timespec ts = {.tv_sec = (time_t)until,
				      .tv_nsec = (long)((until - (double)(time_t)until) * 1e9)};

		for (struct conn *c = h->conns; c; c = c->next) {
			if (now <= c->deadline)
				continue;
			if (c->in_request) {
				/* an answer the client takes too slowly: reset, what it has not
				   taken dropped (a plain close would leave the kernel sending it)
				 */
				struct linger l = {.l_onoff = 1, .l_linger = 0};

				log_debug("agent: HTTP answer not taken within %d s: reset",
					  AGENT_HTTP_ANSWER_S);
				(void)setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
			} else {
				log_debug("agent: HTTP request not complete within %d s: closed",
					  AGENT_HTTP_REQUEST_S);
			}
			(void)shutdown(c->fd, SHUT_RDWR);
			c->deadline = now + 3600; /* once */
		}
		(void)pthread_cond_timedwait(&h->conns_stop, &h->conns_lock, &ts);
	}
	pthread_mutex_unlock(&h->conns_lock);
	return NULL;
}

/* "ADDR:PORT" (IPv4) or "[ADDR]:PORT" / ":PORT" (all addresses, IPv6 and IPv4) */
static int parse_listen(const char *s, struct sockaddr_storage *ss, unsigned *ret_port, bool *v6)
{
	const char *colon = strrchr(s, ':');
	char host[64];
	long port;
	char *end;

	if (!colon || (size_t)(colon - s) >= sizeof(host))
		return -EINVAL;
	port = strtol(colon + 1, &end, 10);
	if (*end || port < 1 || port > 65535)
		return -EINVAL;
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = '\0';
	memset(ss, 0, sizeof(*ss));
	*ret_port = (unsigned)port;
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

		host[strlen(host) - 1] = '\0';
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		*v6 = true;
		return inet_pton(AF_INET6, host + 1, &a6->sin6_addr) == 1 ? 0 : -EINVAL;
	}
	*v6 = !host[0];
	if (!host[0]) {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		a6->sin6_addr = in6addr_any;
		return 0;
	}
	((struct sockaddr_in *)ss)->sin_family = AF_INET;
	((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, host, &((struct sockaddr_in *)ss)->sin_addr) == 1 ? 0 : -EINVAL;
}

static void httpd_free(struct agent_httpd *h)
{
	if (h->reaper_running) {
		pthread_mutex_lock(&h->conns_lock);
		h->stopping = true;
		pthread_cond_signal(&h->conns_stop);
		pthread_mutex_unlock(&h->conns_lock);
		pthread_join(h->reaper, NULL);
	}
	pthread_cond_destroy(&h->conns_stop);
	pthread_mutex_destroy(&h->conns_lock);
	pthread_mutex_destroy(&h->lock);
	free(h->text);
	free(h);
}

int agent_httpd_start(const char *listen, int interval_s, struct agent_tel *tel,
		      struct agent_httpd **ret)
{
	struct sockaddr_storage ss;
	pthread_condattr_t ca;
	struct agent_httpd *h;
	unsigned port = 0;
	bool v6 = false;
	int r = parse_listen(listen, &ss, &port, &v6);

	if (r < 0)
		return r;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	pthread_mutex_init(&h->lock, NULL);
	pthread_mutex_init(&h->conns_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->conns_stop, &ca);
	pthread_condattr_destroy(&ca);
	h->tel = tel;
	h->interval_s = interval_s;
	h->started = mono_now();
	h->reaper_running = pthread_create(&h->reaper, NULL, reaper, h) == 0;
	h->d = MHD_start_daemon(
	    /* poll, not select: the telemetry keeps counter files open, so sockets may well get
	       descriptors past select()'s FD_SETSIZE */
	    MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL |
		MHD_USE_ERROR_LOG | (v6 ? MHD_USE_DUAL_STACK : 0),
	    (uint16_t)port, NULL, NULL, handle, h, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)AGENT_HTTP_CONNECTIONS,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)AGENT_HTTP_REQUEST_S,
	    /* a connection's thread runs little of ours: a small stack keeps 256 of them cheap */
	    MHD_OPTION_THREAD_STACK_SIZE, (size_t)(512 * 1024), MHD_OPTION_NOTIFY_CONNECTION,
	    conn_notify, h, MHD_OPTION_NOTIFY_COMPLETED, req_completed, h, MHD_OPTION_END);
	if (!h->d || !h->reaper_running) {
		r = h->d ? -EAGAIN : -EADDRNOTAVAIL;
		if (h->d)
			MHD_stop_daemon(h->d);
		httpd_free(h);
		return r;
	}
	*ret = h;
	return 0;
}

void agent_httpd_publish(struct agent_httpd *h, const char *text, bool catalog_valid,
			 double duration_s)
{
	char *copy;

	if (!h)
		return;
	copy = text ? strdup(text) : NULL;
	pthread_mutex_lock(&h->lock);
	if (copy || !text) {
		free(h->text);
		h->text = copy;
	}
	/* a pass that could not run (no text) is no sign of life */
	if (text) {
		h->last_ok = mono_now();
		h->catalog_ok = catalog_valid;
		if (duration_s > h->longest)
			h->longest = duration_s;
	}
	pthread_mutex_unlock(&h->lock);
}

void agent_httpd_stop(struct agent_httpd *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->d);
	httpd_free(h);
}
