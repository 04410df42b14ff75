// SPDX-License-Identifier: Apache-2.0
/*
 * /metrics and /healthz over plain HTTP with libmicrohttpd (its own thread):
 * HTTP parsing is not ours to write. The server answers from a copy of the
 * last pass's text, so a slow pass never delays a scrape.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/log/log.h"
#include "plugin/agent/agent.h"

struct agent_httpd {
	struct MHD_Daemon *d;
	pthread_mutex_t lock;
	char *text;
	bool healthy;
	struct agent_tel *tel;
};

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
	pthread_mutex_lock(&h->lock);
	if (!strcmp(url, "/healthz"))
		r = h->healthy
			? reply(conn, MHD_HTTP_OK, "text/plain", "ok\n")
			: reply(conn, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain", "no pass yet\n");
	else
		r = reply(conn, MHD_HTTP_NOT_FOUND, "text/plain", "/metrics or /healthz\n");
	pthread_mutex_unlock(&h->lock);
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

int agent_httpd_start(const char *listen, struct agent_tel *tel, struct agent_httpd **ret)
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

void agent_httpd_publish(struct agent_httpd *h, const char *text, bool healthy)
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
	h->healthy = healthy;
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
