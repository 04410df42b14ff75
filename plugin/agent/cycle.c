// SPDX-License-Identifier: Apache-2.0
/*
 * One cycle of the agent: a pass, then what it found published (the metrics
 * file and the HTTP endpoint) and the PFs whose link events raise the next one.
 * Called by the loop (events.c) and by --once (agent.c).
 */
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/log/log.h"
#include "pkg/sysfs/sysfs.h"
#include "plugin/agent/agent.h"
#include "plugin/agent/agent_tel.h"
#include "plugin/agent/httpd.h"
#include "plugin/agent/link_health.h"
#include "plugin/agent/metrics.h"
#include "plugin/agent/nfd.h"
#include "plugin/pass/pass.h"

/* @more (owned, may be NULL) after *@text; on ENOMEM *@text stays as it was */
static void append(char **text, char *more)
{
	char *all = NULL;

	if (more && asprintf(&all, "%s%s", *text, more) >= 0) {
		free(*text);
		*text = all;
	}
	free(more);
}

bool agent_do_pass(struct agent *a)
{
	struct pass_report rep;
	const cJSON *it;
	size_t n = 0;
	char *text, *tel;
	int r;

	pass_report_init(&rep);
	r = agent_pass(a, &rep);
	if (r == 0) {
		peer_watch_pass(a, &rep);
		link_health_pass(a, &rep);
	}
	text = r == 0 ? metrics_render(a, &rep) : NULL;
	if (text) {
		/* the link partner's families (peer_metrics.c) after the pass's own */
		append(&text, peer_metrics_render(a, &rep));
		rep.peer_word = peer_nfd_word(a, &rep);
		/* the GPUDirect families (gdr_metrics.c) */
		append(&text, gdr_metrics_render(a, &rep));
		rep.gdr_word = gdr_nfd_word(&rep);
		/* the link health families and the attachments' link/wiring problems */
		append(&text, link_metrics_render(a, &rep));
		rep.wiring_word = wiring_nfd_word(a, &rep);
	}
	if (r == 0)
		agent_tel_targets(a->tel, &rep.targets);
	/*
	 * the textfile has the counters as of this pass when the collector reads them
	 * quickly, else its last ones; --once has no later pass: it waits for them
	 */
	tel = text && a->o.metrics_file
		  ? agent_tel_text(a->tel, a->o.once ? -1 : AGENT_TEL_PASS_WAIT_S)
		  : NULL;
	/* the verdict last: it reads the partner and the census just taken */
	if (text)
		append(&text, verdict_metrics_render(a, &rep));
	if (text && a->o.metrics_file) {
		char *all = NULL;
		const char *m;

		if (tel && asprintf(&all, "%s%s", text, tel) < 0)
			all = NULL;
		m = all ? all : text;
		/* a whole file or none: node-exporter's textfile collector must never read half */
		if ((r = sysfs_write_replace_path(a->o.metrics_file, m, strlen(m), 0644)) < 0)
			log_warn("agent: writing %s: %s", a->o.metrics_file, strerror(-r));
		free(all);
	}
	free(tel);
	agent_httpd_publish(a->httpd, text, a->catalog_valid, rep.duration);
	agent_nfd_publish(a, &rep, r == 0);
	free(text);
	/* the PFs whose link events raise the next pass */
	free(a->pf_names);
	a->pf_names = calloc((size_t)cJSON_GetArraySize(rep.pfs) + 1, sizeof(*a->pf_names));
	for (it = a->pf_names ? rep.pfs->child : NULL; it; it = it->next)
		(void)snprintf(a->pf_names[n++], IF_NAMESIZE, "%s", it->string);
	a->n_pf_names = a->pf_names ? n : 0;
	log_debug("agent: pass took %.3f s%s", rep.duration, rep.drift_left ? ", drift left" : "");
	bool drift = rep.drift_left || r < 0;

	pass_report_fini(&rep);
	return drift;
}
