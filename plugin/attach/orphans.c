// SPDX-License-Identifier: Apache-2.0
/*
 * PF index entries without a record: what an ADD killed between its index
 * write and its record write leaves behind, or a lost record. DEL without a
 * record drops its own key; the agent drops every such entry. Entries are
 * judged under the PF's lock, which an ADD holds from its index write to its
 * record write, so a live ADD's entry is never taken for an orphan.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/lock/lock.h"
#include "pkg/log/log.h"
#include "plugin/attach/core.h"

/* @key listed in @idx, or (@key NULL) any entry whose record is missing. */
static bool index_has_orphan(const struct rq_root *root, const cJSON *idx, const char *key)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(idx, "attachments"))
	{
		const char *k = json_str(it, "key");
		cJSON *rec = NULL;

		if (!k)
			continue;
		if (key) {
			if (!strcmp(k, key))
				return true;
			continue;
		}
		if (state_record_read(root, k, &rec) == -ENOENT)
			return true;
		cJSON_Delete(rec);
	}
	return false;
}

static void drop_in_pf(const struct rq_env *env, const char *pci, const char *key, const char *who)
{
	cJSON *idx = NULL, *it;
	int fd, r;

	fd = lock_pf(&env->root, pci, env->lock_timeout_ms);
	if (fd < 0) {
		log_warn("%s: PF %s index lists %s without a record, but its lock: %s", who, pci,
			 key ? "this attachment" : "entries", strerror(-fd));
		return;
	}
	/* read again under the lock: only what is still an orphan is dropped */
	if (state_pf_read(&env->root, pci, &idx) == 0)
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(idx, "attachments"))
		{
			const char *k = json_str(it, "key");
			cJSON *rec = NULL;

			if (!k || (key && strcmp(k, key) != 0))
				continue;
			if (state_record_read(&env->root, k, &rec) != -ENOENT) {
				cJSON_Delete(rec);
				continue;
			}
			r = state_pf_detach(&env->root, pci, k);
			if (r < 0)
				log_warn("%s: PF %s index: %s", who, pci, strerror(-r));
			else
				log_info(
				    "%s: PF %s index listed %s, which has no record (a lost ADD): "
				    "dropped",
				    who, pci, k);
		}
	cJSON_Delete(idx);
	lock_release(fd);
}

void attach_orphans_drop(const struct rq_env *env, const char *key, const char *who)
{
	char **pcis = NULL;
	size_t n = 0;

	if (state_pf_list(&env->root, &pcis, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		cJSON *idx = NULL;
		bool found;

		/* unlocked first look: most indexes hold nothing of interest */
		if (state_pf_read(&env->root, pcis[i], &idx) < 0)
			continue;
		found = index_has_orphan(&env->root, idx, key);
		cJSON_Delete(idx);
		if (found)
			drop_in_pf(env, pcis[i], key, who);
	}
	sysfs_list_free(pcis, n);
}
