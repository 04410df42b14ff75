// SPDX-License-Identifier: Apache-2.0
/*
 * /metrics, /healthz and /readyz over plain HTTP with libmicrohttpd (its own
 * thread): HTTP parsing is not ours to write. The server answers from a copy
 * of the last pass's text, so a slow pass never delays a scrape.
 *
 * /healthz (liveness) is about the passes, not the server: it answers 503 once
 * the last completed pass (or the start, before the first) is older than
 * AGENT_STALE_INTERVALS x --interval + the longest pass seen, so a loop stuck
 * in a pass (a hung read, a lock never released) gets the container restarted
 * while this thread still answers. /readyz (readiness) answers 200 only while
 * /healthz would, a pass has completed and the catalog source is valid: an
 * invalid catalog stops a rolling update (maxUnavailable) at the first node.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pkg/log/log.h"
#include "plugin/agent/agent.h"

struct agent_httpd {
	struct MHD_Daemon *d;
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
 * The last pass's text and the counters as of now (read outside the lock: a
 * pass may publish meanwhile), joined into one buffer MHD takes over: with
 * 256 attachments that is ~600 KiB, copied no more than it must be.
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
	tel = agent_tel_text(h->tel);
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
	enum MHD_Result r;

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

int agent_httpd_start(const char *listen, int interval_s, struct agent_tel *tel,
		      struct agent_httpd **ret)
{
	struct sockaddr_storage ss;
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
	h->tel = tel;
	h->interval_s = interval_s;
	h->started = mono_now();
	h->d = MHD_start_daemon(
	    /* epoll where there is: the telemetry keeps counter files open, so sockets may
	       well get descriptors past select()'s FD_SETSIZE */
	    MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG | (v6 ? MHD_USE_DUAL_STACK : 0),
	    (uint16_t)port, NULL, NULL, handle, h, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
	    MHD_OPTION_CONNECTION_LIMIT, 16u, MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_END);
	if (!h->d) {
		pthread_mutex_destroy(&h->lock);
		free(h);
		return -EADDRNOTAVAIL;
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
	pthread_mutex_destroy(&h->lock);
	free(h->text);
	free(h);
}
