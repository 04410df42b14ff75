// SPDX-License-Identifier: Apache-2.0
/*
 * devlink health reporters over generic netlink (devlink.h): a dump of
 * DEVLINK_CMD_HEALTH_REPORTER_GET with the device's handle (bus "pci" and its
 * address for a NIC, "netdevsim" and "netdevsimN" for the test device). Kernels that dump every
 * device regardless of the handle are answered too: replies are kept only for the device asked for.
 * Port reporters (DEVLINK_ATTR_PORT_INDEX) count as the device's.
 */
#include <errno.h>
#include <linux/devlink.h>
#include <netlink/attr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/devlink/devlink.h"
#include "pkg/genl/genl.h"
#include "pkg/nlparse/nlparse.h"

struct dl_nl {
	struct genl_sock s;
	uint16_t family;
};

struct dl_dump {
	const char *bus, *dev;
	struct devlink_reporter *out;
	size_t n;
};

static bool str_is(const struct nlattr *a, const char *want)
{
	size_t n = strlen(want);

	return a && (size_t)nla_len(a) >= n + 1 && !memcmp(nla_data(a), want, n) &&
	       ((const char *)nla_data(a))[n] == '\0';
}

static int rep_cb(const struct nlmsghdr *h, void *arg)
{
	struct dl_dump *d = arg;
	struct nlattr *tb[DEVLINK_ATTR_MAX + 1], *r[DEVLINK_ATTR_MAX + 1];
	struct devlink_reporter *o;
	int rc = nlparse_msg(h, h->nlmsg_len, GENL_HDRLEN, tb, DEVLINK_ATTR_MAX, NULL);

	if (rc < 0)
		return rc;
	if (!str_is(tb[DEVLINK_ATTR_BUS_NAME], d->bus) ||
	    !str_is(tb[DEVLINK_ATTR_DEV_NAME], d->dev) || !tb[DEVLINK_ATTR_HEALTH_REPORTER] ||
	    d->n == RQ_DEVLINK_REPORTERS)
		return 0;
	if ((rc = nlparse_nested(tb[DEVLINK_ATTR_HEALTH_REPORTER], r, DEVLINK_ATTR_MAX, NULL)) < 0)
		return rc;
	if (!r[DEVLINK_ATTR_HEALTH_REPORTER_NAME] || !r[DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT] ||
	    nla_len(r[DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT]) < 8)
		return 0;
	o = &d->out[d->n++];
	memset(o, 0, sizeof(*o));
	(void)snprintf(o->name, sizeof(o->name), "%.*s",
		       nla_len(r[DEVLINK_ATTR_HEALTH_REPORTER_NAME]),
		       (const char *)nla_data(r[DEVLINK_ATTR_HEALTH_REPORTER_NAME]));
	memcpy(&o->errors, nla_data(r[DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT]), sizeof(uint64_t));
	o->healthy =
	    !r[DEVLINK_ATTR_HEALTH_REPORTER_STATE] ||
	    nla_get_u8(r[DEVLINK_ATTR_HEALTH_REPORTER_STATE]) ==
		0 /* DEVLINK_HEALTH_REPORTER_STATE_HEALTHY, in the kernel's net/devlink.h only */;
	return 0;
}

/* a bus or device name as the kernel's dev_name() gives it: printable, no '/' */
static bool name_ok(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n == 0 || n >= max)
		return false;
	for (; *s; s++)
		if (*s <= ' ' || *s > '~' || *s == '/')
			return false;
	return true;
}

static int nl_health(void *ctx, const char *bus, const char *dev, struct devlink_reporter *ret,
		     size_t *ret_n)
{
	struct dl_nl *x = ctx;
	struct dl_dump d = {.bus = bus, .dev = dev, .out = ret};
	struct genl_req m;
	int r;

	if (!name_ok(bus, 32) || !name_ok(dev, 64))
		return -ENODEV;
	genl_req_init(&m, x->family, DEVLINK_CMD_HEALTH_REPORTER_GET, DEVLINK_GENL_VERSION,
		      NLM_F_DUMP);
	genl_put_str(&m, DEVLINK_ATTR_BUS_NAME, bus);
	genl_put_str(&m, DEVLINK_ATTR_DEV_NAME, dev);
	r = genl_talk(&x->s, &m, rep_cb, &d);
	/* no devlink instance for the device: it reports no reporter */
	if (r == -ENODEV || r == -EOPNOTSUPP)
		r = 0, d.n = 0;
	if (r == 0)
		*ret_n = d.n;
	return r;
}

static void nl_free(void *ctx)
{
	struct dl_nl *x = ctx;

	genl_close(&x->s);
	free(x);
}

static const struct devlink_ops nl_ops = {.health = nl_health, .free = nl_free};

int devlink_nl_new(const struct devlink_ops **ret_ops, void **ret_ctx)
{
	struct dl_nl *x = calloc(1, sizeof(*x));
	int r;

	if (!x)
		return -ENOMEM;
	x->s.fd = -1;
	if ((r = genl_open(&x->s)) < 0 ||
	    (r = genl_family(&x->s, DEVLINK_GENL_NAME, &x->family)) < 0) {
		genl_close(&x->s);
		free(x);
		return r;
	}
	*ret_ops = &nl_ops;
	*ret_ctx = x;
	return 0;
}
