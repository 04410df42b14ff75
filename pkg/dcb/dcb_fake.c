// SPDX-License-Identifier: Apache-2.0
/*
 * The simulated node's DCB: <root>/dcb/<ifname>.json stands for a port with
 * dcbnl ops (absent file: -EOPNOTSUPP, as a real port without them). Keys:
 *   "pfc": [prios on], "app": [{"selector","protocol","priority"}],
 *   "ets": {"tcBw": [8], "tsa": [8 ints], "prioTc": [8]},
 *   "trust": ["dscp", "pcp"] (apptrust order), "dcbx": u8,
 *   "writes": N (every applied SET call counts one).
 * A missing key is the port's default (no PFC, no APP entries, trust pcp,
 * ETS unreported). Unknown keys are kept. A value out of range makes get
 * fail -EBADMSG (a corrupt port file is a test bug, not a port state).
 * One file past 500 lines on purpose: it is one file format, its reader and its
 * writer, kept together so the format cannot drift between them.
 * APP batches apply entry by entry and stop at the first failing entry, as
 * the kernel's dcbnl_ieee_set/del do.
 * Test hooks (documented in dcb.h): "fail", "failAfter" and "dcbxLocked"
 * (dcb_faults.c); "appReplace": true emulates mlx5's APP semantics;
 * "dcbxLocked" also reports firmware-owned DCBX.
 */
#include <errno.h>
#include <unistd.h>
#include <time.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "pkg/dcb/dcb.h"
#include "pkg/dcb/dcb_faults.h"
#include "pkg/mem/mem.h"
#include "pkg/sysfs/carrier.h"

#define FAKE_FILE_MAX ((size_t)1024 * 1024)

struct fake {
	struct rq_root root;
};

static int fake_path(const char *ifname, char *buf, size_t len)
{
	/* a netdev name: at most 15 bytes, no '/', and never "." or ".." */
	if (!ifname[0] || strnlen(ifname, 16) >= 16 || strchr(ifname, '/') || ifname[0] == '.')
		return -ENODEV;
	snprintf(buf, len, "/dcb/%s.json", ifname);
	return 0;
}

static int fake_load(struct fake *f, const char *ifname, cJSON **ret)
{
	char path[128], *buf = NULL;
	size_t len = 0;
	cJSON *o;
	int r = fake_path(ifname, path, sizeof(path));

	if (r < 0)
		return r;
	r = sysfs_read_regular(&f->root, path, FAKE_FILE_MAX, &buf, &len);
	if (r == -ENOENT)
		return -EOPNOTSUPP;
	if (r < 0)
		return r;
	o = cJSON_ParseWithLength(buf, len);
	free(buf);
	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return -EBADMSG;
	}
	*ret = o;
	return 0;
}

static int fake_store(struct fake *f, const char *ifname, cJSON *o)
{
	char path[128], *s;
	cJSON *w = cJSON_GetObjectItemCaseSensitive(o, "writes");
	int r;

	if (w && cJSON_IsNumber(w)) {
		cJSON_SetNumberValue(w, w->valuedouble + 1);
	} else {
		cJSON_DeleteItemFromObjectCaseSensitive(o, "writes");
		cJSON_AddNumberToObject(o, "writes", 1);
	}
	r = fake_path(ifname, path, sizeof(path));
	if (r < 0)
		return r;
	s = cJSON_Print(o);
	if (!s)
		return -ENOMEM;
	/* under the PF lock, like the kernel port it stands for: one writer at a time */
	r = sysfs_write_replace(&f->root, path, s, strlen(s));
	cJSON_free(s);
	return r;
}

static const struct {
	const char *name;
	uint8_t sel;
} trust_names[] = {
    {"ethtype", 1},
    {"stream-port", 2},
    {"dgram-port", 3},
    {"port", 4},
    {"dscp", IEEE_8021QAZ_APP_SEL_DSCP},
    {"pcp", RQ_DCB_APP_SEL_PCP},
};

static int trust_sel(const char *name)
{
	for (size_t i = 0; i < sizeof(trust_names) / sizeof(trust_names[0]); i++)
		if (!strcmp(name, trust_names[i].name))
			return trust_names[i].sel;
	return -EBADMSG;
}

static const char *trust_str(uint8_t sel)
{
	for (size_t i = 0; i < sizeof(trust_names) / sizeof(trust_names[0]); i++)
		if (sel == trust_names[i].sel)
			return trust_names[i].name;
	return "unknown";
}

/* A number in [lo, hi] or -EBADMSG. */
static int num_in(const cJSON *v, int lo, int hi)
{
	if (!cJSON_IsNumber(v) || v->valuedouble < lo || v->valuedouble > hi)
		return -EBADMSG;
	return (int)v->valuedouble;
}

static int u8_array(const cJSON *a, int hi, uint8_t *out)
{
	const cJSON *it;
	int i = 0;

	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 8)
		return -EBADMSG;
	cJSON_ArrayForEach(it, a)
	{
		int v = num_in(it, 0, hi);

		if (v < 0)
			return v;
		out[i++] = (uint8_t)v;
	}
	return 0;
}

static int get_apps(const cJSON *o, struct dcb_port_state *st)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "app"))
	{
		int sel = num_in(cJSON_GetObjectItemCaseSensitive(it, "selector"), 0, 255);
		int proto = num_in(cJSON_GetObjectItemCaseSensitive(it, "protocol"), 0, 65535);
		int prio = num_in(cJSON_GetObjectItemCaseSensitive(it, "priority"), 0, 7);

		if (sel < 0 || proto < 0 || prio < 0)
			return -EBADMSG;
		if (st->n_app >= RQ_DCB_APP_MAX)
			return -E2BIG;
		st->app[st->n_app++] =
		    (struct dcb_app_entry){(uint8_t)sel, (uint16_t)proto, (uint8_t)prio};
	}
	return 0;
}

static int get_ets(const cJSON *v, struct dcb_port_state *st)
{
	int r;

	if (!v)
		return 0;
	r = u8_array(cJSON_GetObjectItemCaseSensitive(v, "tcBw"), 100, st->tc_tx_bw);
	if (r == 0)
		r = u8_array(cJSON_GetObjectItemCaseSensitive(v, "tsa"), 255, st->tc_tsa);
	if (r == 0)
		r = u8_array(cJSON_GetObjectItemCaseSensitive(v, "prioTc"), 7, st->prio_tc);
	st->has_ets = r == 0;
	return r;
}

/* "buffer": {"prio2buffer": [8], "bufferSize": [8 bytes], "totalSize": bytes}: as
 * DCB_ATTR_DCB_BUFFER */
static int get_buffer(const cJSON *v, struct dcb_port_state *st)
{
	const cJSON *sz, *it;
	int i = 0, r;

	if (!v)
		return 0;
	r = u8_array(cJSON_GetObjectItemCaseSensitive(v, "prio2buffer"), 7, st->prio2buffer);
	if (r < 0)
		return r;
	sz = cJSON_GetObjectItemCaseSensitive(v, "bufferSize");
	if (!cJSON_IsArray(sz) || cJSON_GetArraySize(sz) != 8)
		return -EBADMSG;
	cJSON_ArrayForEach(it, sz)
	{
		if (!cJSON_IsNumber(it) || it->valuedouble < 0 || it->valuedouble > 4294967295.0)
			return -EBADMSG;
		st->buffer_size[i++] = (uint32_t)it->valuedouble;
	}
	it = cJSON_GetObjectItemCaseSensitive(v, "totalSize");
	if (it && (!cJSON_IsNumber(it) || it->valuedouble < 0 || it->valuedouble > 4294967295.0))
		return -EBADMSG;
	st->buffer_total = it ? (uint32_t)it->valuedouble : 0;
	st->has_buffer = true;
	return 0;
}

static int get_trust(const cJSON *o, struct dcb_port_state *st)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "trust"), *it;

	st->has_trust = true;
	if (!v) {
		st->trust[st->n_trust++] = RQ_DCB_APP_SEL_PCP;
		return 0;
	}
	cJSON_ArrayForEach(it, v)
	{
		int sel = cJSON_IsString(it) ? trust_sel(it->valuestring) : -EBADMSG;

		if (sel < 0)
			return sel;
		if (st->n_trust >= RQ_DCB_TRUST_MAX)
			return -E2BIG;
		st->trust[st->n_trust++] = (uint8_t)sel;
	}
	return 0;
}

static int get_fill(const cJSON *o, struct dcb_port_state *st)
{
	const cJSON *v, *it;
	int r;

	st->has_pfc = true;
	st->pfc_cap = 8;
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "pfc"))
	{
		int p = num_in(it, 0, 7);

		if (p < 0)
			return p;
		st->pfc_en |= (uint8_t)(1u << p);
	}
	r = get_apps(o, st);
	if (r == 0)
		r = get_ets(cJSON_GetObjectItemCaseSensitive(o, "ets"), st);
	if (r == 0)
		r = get_trust(o, st);
	if (r == 0)
		r = get_buffer(cJSON_GetObjectItemCaseSensitive(o, "buffer"), st);
	if (r < 0)
		return r;
	if ((v = cJSON_GetObjectItemCaseSensitive(o, "dcbx"))) {
		int d = num_in(v, 0, 255);

		if (d < 0)
			return d;
		st->has_dcbx = true;
		st->dcbx = (uint8_t)d;
	} else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "dcbxLocked"))) {
		st->has_dcbx = true;
		st->dcbx = DCB_CAP_DCBX_LLD_MANAGED | DCB_CAP_DCBX_VER_IEEE;
	}
	return 0;
}

/*
 * The file's tree is read into @ret and dropped here whole: in a CNI command
 * its blocks of cJSON's arena (pkg/mem; the 64-entry APP table alone is
 * ~20 KiB of nodes) serve the rest of the command instead of fresh pages
 * (issue 51).
 */
static int fake_get(void *ctx, const char *ifname, struct dcb_port_state *ret)
{
	struct dcb_port_state *st;
	size_t mark = mem_arena_mark();
	cJSON *o = NULL;
	int r = fake_load(ctx, ifname, &o);

	if (r < 0) {
		mem_arena_release(mark); /* a parse that failed freed what it took */
		return r;
	}
	st = calloc(1, sizeof(*st));
	if (!st) {
		cJSON_Delete(o);
		mem_arena_release(mark);
		return -ENOMEM;
	}
	r = get_fill(o, st);
	if (r == 0)
		*ret = *st;
	free(st);
	cJSON_Delete(o);
	mem_arena_release(mark);
	return r;
}

/*
 * Load, check the failure hook, let @fn edit, store (writes + 1). @fn sets
 * *changed when it edited @o: a failing APP batch keeps what went in before
 * the failing entry, as the kernel does.
 */
static int fake_edit(struct fake *f, const char *ifname, const char *op,
		     int (*fn)(cJSON *o, const void *arg, const char *op, bool *changed),
		     const void *arg)
{
	cJSON *o = NULL;
	bool changed = false;
	int r = fake_load(f, ifname, &o);

	if (r < 0)
		return r;
	r = dcb_fault_hook(o, op);
	if (r == 0)
		r = fn(o, arg, op, &changed);
	if (r == 0 || changed) {
		int rs = fake_store(f, ifname, o);

		r = r ?: rs;
	}
	cJSON_Delete(o);
	return r;
}

static cJSON *prio_array(uint8_t mask)
{
	cJSON *a = cJSON_CreateArray();

	for (int i = 0; a && i < 8; i++)
		if (mask & (1u << i))
			cJSON_AddItemToArray(a, cJSON_CreateNumber(i));
	return a;
}

static int edit_pfc(cJSON *o, const void *arg, const char *op, bool *changed)
{
	*changed = true;
	cJSON_DeleteItemFromObjectCaseSensitive(o, "pfc");
	cJSON_AddItemToObject(o, "pfc", prio_array(*(const uint8_t *)arg));
	return 0;
}

/* carrier and carrier_changes of the simulated netdev, where the tree has them */
static void fake_carrier(struct fake *f, const char *ifname, bool up)
{
	char path[256], v[32];
	long changes = 0;

	(void)snprintf(path, sizeof(path), "/sys/class/net/%s/carrier_changes", ifname);
	if (sysfs_read_int(&f->root, path, &changes) == 0) {
		(void)snprintf(v, sizeof(v), "%ld", changes + 1);
		(void)sysfs_write_str(&f->root, path, v);
	}
	(void)snprintf(path, sizeof(path), "/sys/class/net/%s/carrier", ifname);
	(void)sysfs_write_str(&f->root, path, up ? "1" : "0");
}

/*
 * "flapMs": N -> a PFC change takes the carrier down and, N ms later, up
 * again, as mlx5e_dcbnl_ieee_setpfc -> mlx5_toggle_port_link does. The
 * carrier comes back from a detached grandchild, so the plugin sees it
 * asynchronously, as from the driver.
 */
static void fake_flap(struct fake *f, const char *ifname)
{
	cJSON *o = NULL;
	const cJSON *v;
	long ms;
	pid_t pid;

	if (fake_load(f, ifname, &o) < 0)
		return;
	v = cJSON_GetObjectItemCaseSensitive(o, "flapMs");
	ms = cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 600000
		 ? (long)v->valuedouble
		 : -1;
	cJSON_Delete(o);
	if (ms < 0)
		return;
	fake_carrier(f, ifname, false);
	pid = fork();
	if (pid == 0) {
		if (fork() == 0) {
			struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

			(void)nanosleep(&ts, NULL);
			fake_carrier(f, ifname, true);
		}
		_exit(0);
	}
	if (pid > 0)
		(void)waitpid(pid, NULL, 0);
}

/*
 * mlx5's link toggle on a PFC change counts one carrier drop: the simulated
 * netdev's carrier_down_count grows by one where the tree has that file.
 */
static void fake_carrier_down(struct fake *f, const char *ifname)
{
	char path[256], v[32];
	long n = 0;

	(void)snprintf(path, sizeof(path), "/sys/class/net/%s/carrier_down_count", ifname);
	if (carrier_down_read(&f->root, ifname, &n) == 0) {
		(void)snprintf(v, sizeof(v), "%ld", n + 1);
		(void)sysfs_write_str(&f->root, path, v);
	}
}

static int fake_set_pfc(void *ctx, const char *ifname, const struct dcb_port_state *cur,
			uint8_t pfc_en)
{
	int r = fake_edit(ctx, ifname, "set_pfc", edit_pfc, &pfc_en);

	if (r == 0 && (!cur->has_pfc || cur->pfc_en != pfc_en)) {
		fake_carrier_down(ctx, ifname);
		fake_flap(ctx, ifname);
	}
	return r;
}

static int edit_ets(cJSON *o, const void *arg, const char *op, bool *changed)
{
	const struct rq_ets *ets = arg;
	cJSON *e;
	int bw[8], tsa[8], ptc[8];

	*changed = true;
	for (int i = 0; i < 8; i++) {
		bw[i] = ets->tc_bw[i];
		tsa[i] = ets->tsa[i];
		ptc[i] = ets->prio_tc[i];
	}
	cJSON_DeleteItemFromObjectCaseSensitive(o, "ets");
	e = cJSON_AddObjectToObject(o, "ets");
	cJSON_AddItemToObject(e, "tcBw", cJSON_CreateIntArray(bw, 8));
	cJSON_AddItemToObject(e, "tsa", cJSON_CreateIntArray(tsa, 8));
	cJSON_AddItemToObject(e, "prioTc", cJSON_CreateIntArray(ptc, 8));
	return 0;
}

static int fake_set_ets(void *ctx, const char *ifname, const struct dcb_port_state *cur,
			const struct rq_ets *ets)
{
	return fake_edit(ctx, ifname, "set_ets", edit_ets, ets);
}

struct app_arg {
	const struct dcb_app_entry *apps;
	size_t n;
};

static int app_index(const cJSON *arr, const struct dcb_app_entry *a)
{
	const cJSON *it;
	int i = 0;

	cJSON_ArrayForEach(it, arr)
	{
		if (cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(it, "selector")) ==
			a->selector &&
		    cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(it, "protocol")) ==
			a->protocol &&
		    cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(it, "priority")) ==
			a->priority)
			return i;
		i++;
	}
	return -1;
}

static cJSON *app_array(cJSON *o)
{
	cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, "app");

	if (!cJSON_IsArray(arr)) {
		cJSON_DeleteItemFromObjectCaseSensitive(o, "app");
		arr = cJSON_AddArrayToObject(o, "app");
	}
	return arr;
}

/* Index of the DSCP entry for @proto whatever its priority, or -1. */
static int dscp_index(const cJSON *arr, uint16_t proto)
{
	const cJSON *it;
	int i = 0;

	cJSON_ArrayForEach(it, arr)
	{
		if (cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(it, "selector")) ==
			IEEE_8021QAZ_APP_SEL_DSCP &&
		    cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(it, "protocol")) == proto)
			return i;
		i++;
	}
	return -1;
}

static int edit_app_add(cJSON *o, const void *arg, const char *op, bool *changed)
{
	const struct app_arg *a = arg;
	cJSON *arr = app_array(o);
	int after = dcb_fault_fail_after(o, op);
	bool replace = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "appReplace"));

	for (size_t i = 0; i < a->n; i++) {
		const struct dcb_app_entry *x = &a->apps[i];
		cJSON *e;

		if (after >= 0 && i == (size_t)after)
			return -EIO;
		if (replace && x->selector == IEEE_8021QAZ_APP_SEL_DSCP) {
			/* mlx5e_dcbnl_ieee_setapp: the old entry of this DSCP goes */
			if (app_index(arr, x) >= 0)
				continue;
			for (int j; (j = dscp_index(arr, x->protocol)) >= 0;)
				cJSON_DeleteItemFromArray(arr, j);
		} else if (app_index(arr, x) >= 0) {
			/* the generic kernel path: adding an entry that exists is -EEXIST */
			return -EEXIST;
		}
		e = cJSON_CreateObject();
		cJSON_AddNumberToObject(e, "selector", x->selector);
		cJSON_AddNumberToObject(e, "protocol", x->protocol);
		cJSON_AddNumberToObject(e, "priority", x->priority);
		cJSON_AddItemToArray(arr, e);
		*changed = true;
	}
	return 0;
}

static int edit_app_del(cJSON *o, const void *arg, const char *op, bool *changed)
{
	const struct app_arg *a = arg;
	cJSON *arr = app_array(o);
	int after = dcb_fault_fail_after(o, op);

	for (size_t i = 0; i < a->n; i++) {
		int j = app_index(arr, &a->apps[i]);

		if (after >= 0 && i == (size_t)after)
			return -EIO;
		/* mlx5 too: an entry not matching the DSCP's current priority is -ENOENT */
		if (j < 0)
			return -ENOENT;
		cJSON_DeleteItemFromArray(arr, j);
		*changed = true;
	}
	return 0;
}

static int fake_app_add(void *ctx, const char *ifname, const struct dcb_app_entry *apps, size_t n)
{
	struct app_arg a = {apps, n};

	return fake_edit(ctx, ifname, "app_add", edit_app_add, &a);
}

static int fake_app_del(void *ctx, const char *ifname, const struct dcb_app_entry *apps, size_t n)
{
	struct app_arg a = {apps, n};

	return fake_edit(ctx, ifname, "app_del", edit_app_del, &a);
}

struct trust_arg {
	const uint8_t *sel;
	size_t n;
};

static int edit_trust(cJSON *o, const void *arg, const char *op, bool *changed)
{
	const struct trust_arg *t = arg;
	cJSON *a;

	*changed = true;
	cJSON_DeleteItemFromObjectCaseSensitive(o, "trust");
	a = cJSON_AddArrayToObject(o, "trust");
	for (size_t i = 0; i < t->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(trust_str(t->sel[i])));
	return 0;
}

static int fake_set_trust(void *ctx, const char *ifname, const uint8_t *sel, size_t n)
{
	struct trust_arg t = {sel, n};

	return fake_edit(ctx, ifname, "set_trust", edit_trust, &t);
}

static void fake_free(void *ctx)
{
	struct fake *f = ctx;

	if (!f)
		return;
	root_close(&f->root);
	free(f);
}

static const struct dcb_ops fake_ops = {
    .name = "fake",
    .get = fake_get,
    .set_pfc = fake_set_pfc,
    .set_ets = fake_set_ets,
    .app_add = fake_app_add,
    .app_del = fake_app_del,
    .set_trust = fake_set_trust,
    .free = fake_free,
};

int dcb_fake_new(const struct rq_root *root, const struct dcb_ops **ret_ops, void **ret_ctx)
{
	struct fake *f = calloc(1, sizeof(*f));
	int fd;

	if (!f)
		return -ENOMEM;
	/* own a duplicate of the root so the backend outlives nothing it borrows */
	fd = fcntl(root->fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0) {
		free(f);
		return -errno;
	}
	f->root = *root;
	f->root.fd = fd;
	*ret_ops = &fake_ops;
	*ret_ctx = f;
	return 0;
}
