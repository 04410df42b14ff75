// SPDX-License-Identifier: Apache-2.0
#include "pkg/state/state.h"

#include "pkg/json/jscan.h"
#include "pkg/mem/mem.h"

#include <errno.h>
#include <time.h>
#include <sys/stat.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#define RQ_RECORD_MAX (256 * 1024)

static int enc_append(char *buf, size_t len, size_t *pos, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			     (c >= '0' && c <= '9') || c == '.' || c == '-';

		if (*pos + (plain ? 1 : 3) >= len)
			return -ENAMETOOLONG;
		if (plain) {
			buf[(*pos)++] = (char)c;
			continue;
		}
		buf[(*pos)++] = '%';
		buf[(*pos)++] = hex[c >> 4];
		buf[(*pos)++] = hex[c & 15];
	}
	return 0;
}

int state_key(const char *net, const char *cid, const char *ifname, char *buf, size_t len)
{
	const char *parts[3] = {net, cid, ifname};
	size_t pos = 0;

	/*
	 * A file name is at most 255 bytes, and the atomic write's temporary is
	 * ".<key>.json.<pid>.tmp" with a pid of up to 7 digits (pid_max 4194304).
	 */
	if (len > 228)
		len = 228;
	for (int i = 0; i < 3; i++) {
		int r;

		if (!parts[i] || !*parts[i])
			return -EINVAL;
		if (i > 0) {
			if (pos + 1 >= len)
				return -ENAMETOOLONG;
			buf[pos++] = '_';
		}
		r = enc_append(buf, len, &pos, parts[i]);
		if (r < 0)
			return r;
	}
	buf[pos] = '\0';
	return 0;
}

static int key_path(char *path, size_t len, const char *sub, const char *key)
{
	int n = snprintf(path, len, RQ_STATE_DIR "/%s%s.json", sub, key);

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

static int json_write(const struct rq_root *r, const char *path, const cJSON *o)
{
	char *s = cJSON_Print(o);
	int ret;

	if (!s)
		return -ENOMEM;
	/*
	 * tmp + rename without fsync (DESIGN.md): the state lives on tmpfs and
	 * describes what a reboot undoes anyway (pod netns, VF ToS, DCB settings)
	 */
	ret = sysfs_write_replace(r, path, s, strlen(s));
	cJSON_free(s);
	return ret;
}

static int json_read(const struct rq_root *r, const char *path, cJSON **ret)
{
	char *buf = NULL;
	size_t len = 0;
	cJSON *o;
	int rr;

	rr = sysfs_read_regular(r, path, RQ_RECORD_MAX, &buf, &len);
	if (rr < 0)
		return rr;
	/* cJSON takes ~4 bytes of heap per byte of a state file (a node, a key per member) */
	if (len * 4 >= RQ_MEM_PREFAULT_MIN)
		mem_prefault(len * 4);
	o = cJSON_ParseWithLength(buf, len);
	free(buf);
	if (!o || !cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return -EBADMSG;
	}
	*ret = o;
	return 0;
}

int state_record_write(const struct rq_root *r, const char *key, const cJSON *rec)
{
	char path[1400];
	int ret = key_path(path, sizeof(path), "", key);

	return ret < 0 ? ret : json_write(r, path, rec);
}

int state_record_read(const struct rq_root *r, const char *key, cJSON **ret)
{
	char path[1400];
	int rr = key_path(path, sizeof(path), "", key);

	return rr < 0 ? rr : json_read(r, path, ret);
}

/* The fixed-name temporary of an atomic write (sysfs_write_replace), left by a killed writer. */
static void tmp_remove(const struct rq_root *r, const char *path)
{
	char tmp[1500];
	const char *slash = strrchr(path, '/');

	if (!slash || snprintf(tmp, sizeof(tmp), "%.*s/.%s.tmp", (int)(slash - path), path,
			       slash + 1) >= (int)sizeof(tmp))
		return;
	(void)sysfs_unlink(r, tmp);
}

int state_record_remove(const struct rq_root *r, const char *key)
{
	char path[1400];
	int rr = key_path(path, sizeof(path), "", key);

	if (rr < 0)
		return rr;
	tmp_remove(r, path);
	rr = sysfs_unlink(r, path);
	return rr == -ENOENT ? 0 : rr;
}

static int list_suffix(const struct rq_root *r, const char *dir, const char *suffix, char ***ret,
		       size_t *ret_n);

int state_record_list(const struct rq_root *r, char ***ret, size_t *ret_n)
{
	return list_suffix(r, RQ_STATE_DIR, ".json", ret, ret_n);
}

static int pf_path(char *path, size_t len, const char *pci)
{
	int n = snprintf(path, len, RQ_STATE_DIR "/pf/%s.json", pci);

	/* PCI addresses are validated upstream; refuse anything path-like anyway. */
	if (strchr(pci, '/') || pci[0] == '.' || n < 0 || (size_t)n >= len)
		return -EINVAL;
	return 0;
}

int state_pf_read(const struct rq_root *r, const char *pf_pci, cJSON **ret)
{
	char path[512];
	int rr = pf_path(path, sizeof(path), pf_pci);

	return rr < 0 ? rr : json_read(r, path, ret);
}

int state_pf_write(const struct rq_root *r, const char *pf_pci, const cJSON *idx)
{
	char path[512];
	int rr = pf_path(path, sizeof(path), pf_pci);

	return rr < 0 ? rr : json_write(r, path, idx);
}

int state_pf_remove(const struct rq_root *r, const char *pf_pci)
{
	char path[512];
	int rr = pf_path(path, sizeof(path), pf_pci);

	if (rr < 0)
		return rr;
	tmp_remove(r, path);
	rr = sysfs_unlink(r, path);
	return rr == -ENOENT ? 0 : rr;
}

/* A shared RDMA device's class index: /run/rdma-qos/dev/<name>.json (issue 50). */
static int dev_path(char *path, size_t len, const char *dev)
{
	int n = snprintf(path, len, RQ_STATE_DIR "/dev/%s.json", dev);

	/* device names come from sysfs, never from a NAD; refuse anything path-like anyway */
	if (!dev[0] || strchr(dev, '/') || dev[0] == '.' || n < 0 || (size_t)n >= len)
		return -EINVAL;
	return 0;
}

int state_dev_read(const struct rq_root *r, const char *dev, cJSON **ret)
{
	char path[512];
	int rr = dev_path(path, sizeof(path), dev);

	return rr < 0 ? rr : json_read(r, path, ret);
}

int state_dev_write(const struct rq_root *r, const char *dev, const cJSON *idx)
{
	char path[512];
	int rr = dev_path(path, sizeof(path), dev);

	if (rr < 0)
		return rr;
	rr = sysfs_mkdir_p(r, RQ_STATE_DIR "/dev", 0700);
	return rr < 0 && rr != -EEXIST ? rr : json_write(r, path, idx);
}

int state_dev_remove(const struct rq_root *r, const char *dev)
{
	char path[512];
	int rr = dev_path(path, sizeof(path), dev);

	if (rr < 0)
		return rr;
	tmp_remove(r, path);
	rr = sysfs_unlink(r, path);
	return rr == -ENOENT ? 0 : rr;
}

/* Names in @dir ending in @suffix (stripped), not hidden; sorted. */
static int list_suffix(const struct rq_root *r, const char *dir, const char *suffix, char ***ret,
		       size_t *ret_n)
{
	char **names = NULL;
	size_t n = 0, k = 0, sl = strlen(suffix);
	int rr = sysfs_list(r, dir, &names, &n);

	*ret = NULL;
	*ret_n = 0;
	if (rr == -ENOENT)
		return 0;
	if (rr < 0)
		return rr;
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(names[i]);

		if (l > sl && !strcmp(names[i] + l - sl, suffix) && names[i][0] != '.') {
			names[i][l - sl] = '\0';
			names[k++] = names[i];
		} else {
			free(names[i]);
		}
	}
	*ret = names;
	*ret_n = k;
	return 0;
}

int state_pf_list(const struct rq_root *r, char ***ret, size_t *ret_n)
{
	return list_suffix(r, RQ_STATE_DIR "/pf", ".json", ret, ret_n);
}

int state_dev_list(const struct rq_root *r, char ***ret, size_t *ret_n)
{
	return list_suffix(r, RQ_STATE_DIR "/dev", ".json", ret, ret_n);
}

static int sweep_dir(const struct rq_root *r, const char *dir, time_t before, int *removed)
{
	char **names = NULL, path[1400];
	size_t n = 0;
	int rr = sysfs_list(r, dir, &names, &n);

	if (rr == -ENOENT)
		return 0;
	for (size_t i = 0; rr == 0 && i < n; i++) {
		size_t l = strlen(names[i]);
		struct stat st;
		int fd;

		if (names[i][0] != '.' || l < 5 || strcmp(names[i] + l - 4, ".tmp") != 0 ||
		    snprintf(path, sizeof(path), "%s/%s", dir, names[i]) >= (int)sizeof(path))
			continue;
		fd = root_openat(r, path, O_PATH | O_NOFOLLOW, 0);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_mtime < before &&
		    sysfs_unlink(r, path) == 0)
			(*removed)++;
		close(fd);
	}
	sysfs_list_free(names, n);
	return rr;
}

int state_tmp_sweep(const struct rq_root *r, int min_age_s, int *ret_removed)
{
	time_t before = time(NULL) - min_age_s;
	int rr;

	*ret_removed = 0;
	rr = sweep_dir(r, RQ_STATE_DIR, before, ret_removed);
	if (rr == 0)
		rr = sweep_dir(r, RQ_STATE_DIR "/pf", before, ret_removed);
	if (rr == 0) {
		rr = sweep_dir(r, RQ_STATE_DIR "/dev", before, ret_removed);
		rr = rr == -ENOENT ? 0 : rr;
	}
	return rr;
}

int state_tmp_sweep_dir(const struct rq_root *r, const char *dir, int min_age_s, int *ret_removed)
{
	/* age 0: every temporary, also one made within this second */
	time_t before = min_age_s > 0 ? time(NULL) - min_age_s : time(NULL) + 1;

	*ret_removed = 0;
	return sweep_dir(r, dir, before, ret_removed);
}

int state_pf_detach(const struct rq_root *r, const char *pf_pci, const char *key)
{
	cJSON *idx = NULL, *att, *it;
	bool found = false;
	char path[512];
	int rr, i = 0;

	/* under the PF lock no writer of this index is alive: its temporary is a leftover */
	if (pf_path(path, sizeof(path), pf_pci) == 0)
		tmp_remove(r, path);
	rr = state_pf_read(r, pf_pci, &idx);
	if (rr == -ENOENT)
		return 0;
	if (rr < 0)
		return rr;
	att = cJSON_GetObjectItemCaseSensitive(idx, "attachments");
	cJSON_ArrayForEach(it, att)
	{
		const cJSON *k =
		    cJSON_IsObject(it) ? cJSON_GetObjectItemCaseSensitive(it, "key") : it;

		if (cJSON_IsString(k) && !strcmp(k->valuestring, key)) {
			cJSON_DeleteItemFromArray(att, i);
			found = true;
			break;
		}
		i++;
	}
	if (!found && cJSON_IsArray(att) && cJSON_GetArraySize(att) > 0)
		rr = 0; /* not listed: nothing to write */
	else if (!cJSON_IsArray(att) || cJSON_GetArraySize(att) == 0)
		rr = state_pf_remove(r, pf_pci);
	else
		rr = state_pf_write(r, pf_pci, idx);
	cJSON_Delete(idx);
	return rr;
}

int state_dir_check(const struct rq_root *r)
{
	int rr = sysfs_mkdir_p(r, RQ_STATE_DIR "/pf", 0700);
	int fd;

	if (rr < 0 && rr != -EEXIST)
		return rr;
	fd = root_openat(r, RQ_STATE_DIR, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

struct entry_walk {
	char key[RQ_PF_ENTRY_STR], vf[RQ_PF_ENTRY_STR], name[RQ_PF_ENTRY_STR];
	struct rq_jbuf req;
};

/* A string member into @out ("" when not a string or cut); 1 when it was a whole string. */
static int entry_str(struct rq_jscan *s, char *out, size_t outsz)
{
	bool cut = false;
	int r = jscan_string(s, out, outsz, &cut);

	if (r < 0)
		return r;
	if (r == 0 || cut)
		out[0] = '\0';
	return r == 1 && !cut;
}

/* One element of "attachments": its members of interest into @w, then @fn. */
static int walk_entry(struct rq_jscan *s, struct entry_walk *w,
		      int (*fn)(const struct rq_pf_entry *e, void *ctx), void *ctx)
{
	struct rq_pf_entry e = {0};
	bool first = true, cut = false, has_key = false, has_vf = false, has_name = false;
	bool has_req = false;
	char mkey[32];
	int r;

	if (jscan_peek(s) != '{') {
		r = jscan_skip(s);
		return r < 0 ? r : fn(&e, ctx);
	}
	while ((r = jscan_member(s, &first, mkey, sizeof(mkey), &cut)) == 1) {
		if (!cut && !has_key && !strcmp(mkey, "key")) {
			has_key = true;
			r = entry_str(s, w->key, sizeof(w->key));
			e.key = r == 1 ? w->key : NULL;
		} else if (!cut && !has_vf && !strcmp(mkey, "vf")) {
			has_vf = true;
			r = entry_str(s, w->vf, sizeof(w->vf));
			e.vf = r == 1 ? w->vf : NULL;
		} else if (!cut && !has_name && !strcmp(mkey, "profileName")) {
			has_name = true;
			r = entry_str(s, w->name, sizeof(w->name));
			e.profile_name = r == 1 ? w->name : NULL;
		} else if (!cut && !has_req && !strcmp(mkey, "req")) {
			has_req = true;
			r = jscan_capture(s, &w->req);
			e.req = w->req.p;
			e.req_len = w->req.len;
		} else {
			r = jscan_skip(s);
		}
		if (r < 0)
			return r;
	}
	return r < 0 ? r : fn(&e, ctx);
}

int state_pf_walk(const struct rq_root *r, const char *pf_pci,
		  int (*fn)(const struct rq_pf_entry *e, void *ctx), void *ctx, bool *ret_legacy)
{
	struct entry_walk *w = calloc(1, sizeof(*w));
	struct rq_jscan s;
	char path[512], mkey[32];
	bool first = true, cut = false, seen_att = false;
	struct stat st;
	int fd, rr;

	*ret_legacy = false;
	if (!w)
		return -ENOMEM;
	w->req.max = RQ_RECORD_MAX;
	rr = pf_path(path, sizeof(path), pf_pci);
	fd = rr < 0 ? rr : root_openat(r, path, O_RDONLY, 0);
	if (fd < 0) {
		free(w);
		return fd;
	}
	rr = fstat(fd, &st) < 0
		 ? -errno
		 : jscan_init(
		       &s,
		       (struct rq_jsrc){.read = jfd_read,
					.ctx = &fd,
					.size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0},
		       RQ_RECORD_MAX);
	if (rr < 0)
		goto out;
	if (jscan_peek(&s) != '{') {
		rr = -EBADMSG;
		goto fini;
	}
	while ((rr = jscan_member(&s, &first, mkey, sizeof(mkey), &cut)) == 1) {
		if (!cut && !seen_att && !strcmp(mkey, "attachments")) {
			bool el_first = true;

			seen_att = true;
			if (jscan_peek(&s) != '[') {
				rr = -EBADMSG;
				break;
			}
			while ((rr = jscan_element(&s, &el_first)) == 1 &&
			       (rr = walk_entry(&s, w, fn, ctx)) == 0)
				;
			if (rr != 0)
				break;
			continue;
		}
		if (!cut && !strcmp(mkey, "profile"))
			*ret_legacy = true;
		rr = jscan_skip(&s);
		if (rr < 0)
			break;
	}
	/* the caller stopped, or the index is whole and has its attachments */
	if (rr == 0 && !seen_att)
		rr = -EBADMSG;
fini:
	jscan_fini(&s);
out:
	close(fd);
	jbuf_fini(&w->req);
	free(w);
	return rr == -EFBIG ? -EFBIG : rr;
}
