/* SPDX-License-Identifier: Apache-2.0 */
/* The agent's HTTP server (httpd.c). */
#ifndef RQ_PLUGIN_HTTPD_H
#define RQ_PLUGIN_HTTPD_H

#include <stdbool.h>

#include "plugin/agent/agent_tel.h"

/* httpd.c: /metrics, /healthz and /readyz at ADDR:PORT (libmicrohttpd, a thread per connection) */
/* connections served at once (each its own thread): far more than probes and scrapers need */
#define AGENT_HTTP_CONNECTIONS 256
/* a request must arrive complete within this many seconds of its connection (or the last answer) */
#define AGENT_HTTP_REQUEST_S 5
/*
 * and its answer must have been taken by the client within this many seconds of the
 * request's arrival (a /metrics request may wait AGENT_TEL_SCRAPE_WAIT_S for a
 * collection; a body of ~1 MB leaves over loopback in milliseconds): a client that
 * reads the answer a few bytes at a time holds a connection no longer than that
 */
#define AGENT_HTTP_ANSWER_S 15
struct agent_httpd;
/* /healthz goes stale (503) after this many --interval plus the longest pass */
#define AGENT_STALE_INTERVALS 3
double agent_stale_bound_s(int interval_s, double longest_pass_s);
/*
 * @tel, may be NULL: its text follows each /metrics answer (agent_tel_text,
 * waiting at most AGENT_TEL_SCRAPE_WAIT_S for a fresh one)
 */
int agent_httpd_start(const char *listen, int interval_s, struct agent_tel *tel,
		      struct agent_httpd **ret);
/*
 * Hand over a pass's metrics text (the server keeps its own copy). @text NULL: the
 * pass could not run, which refreshes nothing.
 */
void agent_httpd_publish(struct agent_httpd *h, const char *text, bool catalog_valid,
			 double duration_s);
void agent_httpd_stop(struct agent_httpd *h);

#endif
