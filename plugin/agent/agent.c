// SPDX-License-Identifier: Apache-2.0
/*
 * `rdma-qos agent [--once] [--interval S] [--metrics-file PATH]
 * [--listen ADDR:PORT] [--catalog-source FILE] [--stale-grace S]`: run by the
 * DaemonSet, because no container runtime calls CHECK for a running pod.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/log/log.h"
#include "plugin/agent/agent.h"
#include "plugin/agent/events.h"
#include "plugin/agent/agent_tel.h"
#include "plugin/agent/httpd.h"
#include "plugin/agent/link_health.h"
#include "plugin/lldp/peer_book.h"

#define AGENT_SECS_MAX 604800 /* a week */

static void agent_usage(const char *binary)
{
	(void)fprintf(
	    stderr,
	    "usage: %s agent [--once] [--interval S] [--metrics-file PATH]\n"
	    "                [--listen ADDR:PORT] [--catalog-source FILE] [--stale-grace S]\n"
	    "                [--host-proc DIR] [--repair-backoff S] [--no-counters]\n"
	    "                [--vf-counters essential|all] [--qp-census-interval S]\n"
	    "                [--nfd-features-file PATH]\n"
	    "                [--log-level error|warn|info|debug]\n"
	    "  --once             one pass; exit 0 when all is in profile afterwards, 1 when\n"
	    "                     drift remains\n"
	    "  --interval S       full pass every S seconds (default %d); events come sooner\n"
	    "  --metrics-file P   Prometheus text file, replaced atomically after each pass\n"
	    "  --listen A:P       serve /metrics, /healthz and /readyz over HTTP (\":9474\": "
	    "all\n"
	    "                     addresses)\n"
	    "  --catalog-source F validate F and install it as the node catalog when it changed\n"
	    "  --stale-grace S    release a record whose pod netns is gone for S seconds\n"
	    "                     (default %d)\n"
	    "  --host-proc DIR    the host's /proc as mounted into the pod: judges and enters\n"
	    "                     records whose netns is /proc/<pid>/ns/net (no hostPID)\n"
	    "  --repair-backoff S first wait before repairing again what another writer keeps\n"
	    "                     undoing (default 30, doubling; the 5th repair in a row\n"
	    "                     suspends it)\n"
	    "  --no-counters      no congestion telemetry (port and VF counters)\n"
	    "  --vf-counters M    essential (default): the VF families of DESIGN.md; all: also\n"
	    "                     every other hw_counters entry (rdma_qos_vf_hw_counter_total)\n"
	    "  --qp-census-interval S  list each attachment's QPs at most every S seconds\n"
	    "                     (default %d; 0: at every collection)\n"
	    "  --nfd-features-file P  Node Feature Discovery local feature file (in NFD's\n"
	    "                     features.d/), replaced atomically after each pass:\n"
	    "                     feature.node.kubernetes.io/rdma-qos.lossless, ...rdma-qos.peer,\n"
	    "                     expiring 3 intervals ahead\n",
	    binary, AGENT_INTERVAL_DEFAULT_S, AGENT_STALE_GRACE_DEFAULT_S, AGENT_CENSUS_DEFAULT_S);
}

static int parse_secs(const char *flag, const char *s, int min, int *ret)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > AGENT_SECS_MAX) {
		(void)fprintf(stderr, "agent: %s: \"%s\" is not a number of seconds (%d..%d)\n",
			      flag, s, min, AGENT_SECS_MAX);
		return -EINVAL;
	}
	*ret = (int)v;
	return 0;
}

static int parse_opts(int argc, char **argv, struct agent_opts *o, const char *binary)
{
	static const struct option opts[] = {
	    {"once", no_argument, NULL, 'o'},
	    {"interval", required_argument, NULL, 'i'},
	    {"metrics-file", required_argument, NULL, 'm'},
	    {"listen", required_argument, NULL, 'l'},
	    {"catalog-source", required_argument, NULL, 'c'},
	    {"stale-grace", required_argument, NULL, 's'},
	    {"host-proc", required_argument, NULL, 'p'},
	    {"repair-backoff", required_argument, NULL, 'b'},
	    {"log-level", required_argument, NULL, 'v'},
	    {"no-counters", no_argument, NULL, 'n'},
	    {"vf-counters", required_argument, NULL, 'V'},
	    {"nfd-features-file", required_argument, NULL, 'f'},
	    {"qp-census-interval", required_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	enum rq_log_level lvl;
	int ch, r = 0;

	o->interval_s = AGENT_INTERVAL_DEFAULT_S;
	o->stale_grace_s = AGENT_STALE_GRACE_DEFAULT_S;
	o->repair_backoff_s = -1;
	o->census_s = AGENT_CENSUS_DEFAULT_S;
	optind = 2; /* argv[1] is "agent" */
	while (r == 0 && (ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case 'o':
			o->once = true;
			break;
		case 'i':
			r = parse_secs("--interval", optarg, 1, &o->interval_s);
			break;
		case 's':
			r = parse_secs("--stale-grace", optarg, 0, &o->stale_grace_s);
			break;
		case 'p':
			o->host_proc = optarg;
			break;
		case 'b':
			r = parse_secs("--repair-backoff", optarg, 0, &o->repair_backoff_s);
			break;
		case 'm':
			o->metrics_file = optarg;
			break;
		case 'l':
			o->listen = optarg;
			break;
		case 'c':
			o->catalog_source = optarg;
			break;
		case 'n':
			o->no_counters = true;
			break;
		case 'f':
			o->nfd_file = optarg;
			break;
		case 'q':
			r = parse_secs("--qp-census-interval", optarg, 0, &o->census_s);
			break;
		case 'V':
			if (!strcmp(optarg, "all") || !strcmp(optarg, "essential")) {
				o->vf_counters_all = !strcmp(optarg, "all");
				break;
			}
			(void)fprintf(stderr,
				      "agent: --vf-counters: \"%s\": expected essential or all\n",
				      optarg);
			r = -EINVAL;
			break;
		case 'v':
			if (rq_log_level_parse(optarg, &lvl) < 0)
				r = -EINVAL;
			else
				rq_log_set_level(lvl);
			break;
		default:
			agent_usage(binary);
			return ch == 'h' ? 1 : -EINVAL;
		}
	}
	if (r == 0 && optind < argc) {
		(void)fprintf(stderr, "agent: unexpected argument \"%s\"\n", argv[optind]);
		r = -EINVAL;
	}
	return r;
}

int cmd_agent(int argc, char **argv, const char *binary)
{
	static struct agent a;
	struct rq_error e;
	int r;

	memset(&a, 0, sizeof(a));
	rq_err_clear(&e);
	r = parse_opts(argc, argv, &a.o, binary);
	if (r != 0)
		return r < 0 ? 2 : 0;
	if (env_init(&a.env, &e) < 0) {
		(void)fprintf(stderr, "%s agent: %s\n", binary, e.msg);
		return 2;
	}
	a.env.tel_vf_all = a.o.vf_counters_all;
	a.env.census_s = a.o.census_s;
	if (a.o.repair_backoff_s >= 0)
		a.env.repair_backoff_ms = a.o.repair_backoff_s * 1000;
	/* every reader of a record's netns maps /proc/<pid> paths through it (attach/podns.c) */
	a.env.host_proc = a.o.host_proc;
	a.catalog_valid = true;
	if (!a.o.no_counters && agent_tel_new(&a.env, &a.tel) < 0) {
		(void)fprintf(stderr, "%s agent: out of memory\n", binary);
		env_fini(&a.env);
		return 2;
	}
	if (a.o.once) {
		r = agent_do_pass(&a) ? 1 : 0;
	} else {
		(void)agent_block_signals();
		/* read-only and never fatal: the partner belongs to the fabric team */
		if ((r = peer_book_new(&a.env, &a.peers)) < 0)
			log_warn("agent: not listening for link partners' LLDP: %s", strerror(-r));
		if (a.o.listen &&
		    (r = agent_httpd_start(a.o.listen, a.o.interval_s, a.tel, &a.httpd)) < 0) {
			log_error("agent: cannot serve HTTP at %s: %s", a.o.listen, strerror(-r));
			agent_tel_free(a.tel);
			env_fini(&a.env);
			return 2;
		}
		log_info("agent: started (interval %d s, stale grace %d s%s%s)", a.o.interval_s,
			 a.o.stale_grace_s, a.o.listen ? ", listening on " : "",
			 a.o.listen ? a.o.listen : "");
		r = agent_run(&a) < 0 ? 2 : 0;
		agent_httpd_stop(a.httpd);
	}
	agent_tel_free(a.tel);
	peer_book_free(a.peers);
	link_book_free(a.links);
	free(a.repairs);
	free(a.resets);
	free(a.pf_names);
	free(a.vf_names);
	free(a.vf_pcis);
	free(a.adoptions);
	cJSON_Delete(a.unchained_seen);
	cJSON_Delete(a.hostnet_seen);
	cJSON_Delete(a.vf_left);
	env_fini(&a.env);
	return r;
}
