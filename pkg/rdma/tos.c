// SPDX-License-Identifier: Apache-2.0
/* The traffic-class knobs of an RDMA device: where they are, their text, read and write. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/rdma/rdma.h"

/* MOFED's file, through the pod's own sysfs when the device lives in the pod (exclusive mode). */
static bool mofed_exists(const struct rq_root *r, const struct rq_rdma_dev *dev, const char *path)
{
	if (dev->netns[0])
		return podsys_exists(dev->netns, path) == 0;
	return sysfs_exists(r, path);
}

static int configfs_missing(const struct rq_root *r, const struct rq_rdma_dev *dev,
			    struct rq_error *e)
{
	char **names = NULL;
	size_t n = 0;
	bool mounted = sysfs_list(r, "/sys/kernel/config", &names, &n) == 0 && n > 0;

	sysfs_list_free(names, n);
	return rq_err(e, RQ_ERR_NO_TOS, -ENOENT,
		      "RDMA device %s has no traffic-class interface: %s", dev->name,
		      mounted ? "rdma_cm is not loaded (modprobe rdma_cm)"
			      : "configfs is not mounted at /sys/kernel/config");
}

int rdma_tos_locate(const struct rq_root *r, struct rq_rdma_dev *dev, bool create,
		    struct rq_error *e)
{
	char path[512];
	int rr;

	for (int k = 0; k < RQ_KNOB_N; k++) {
		dev->has[k] = false;
		dev->path[k][0] = '\0';
	}
	(void)snprintf(path, sizeof(path), "/sys/class/infiniband/%s/tc/%d/traffic_class",
		       dev->name, dev->port);
	if (mofed_exists(r, dev, path)) {
		dev->has[RQ_KNOB_MOFED] = true;
		(void)snprintf(dev->path[RQ_KNOB_MOFED], sizeof(dev->path[0]), "%s", path);
	}
	(void)snprintf(path, sizeof(path),
		       "/sys/kernel/config/rdma_cm/%s/ports/%d/default_roce_tos", dev->name,
		       dev->port);
	/*
	 * The port file first: where it is, rdma_cm and the device's directory are
	 * too (every ADD after the first on a device: two lookups fewer on the
	 * pod's path); the directories are looked at only to say what is missing.
	 */
	if (sysfs_exists(r, path))
		goto found;
	/* configfs is one global tree, whichever netns the device is in */
	if (!sysfs_exists(r, "/sys/kernel/config/rdma_cm"))
		return dev->has[RQ_KNOB_MOFED] ? 0 : configfs_missing(r, dev, e);
	(void)snprintf(path, sizeof(path), "/sys/kernel/config/rdma_cm/%s", dev->name);
	/* configfs creates ports/<n>/default_roce_tos when the directory is made */
	rr = sysfs_exists(r, path) ? 0 : create ? sysfs_mkdir(r, path, 0755) : -ENOENT;
	if (rr < 0 && rr != -EEXIST) {
		if (dev->has[RQ_KNOB_MOFED])
			return 0;
		return rq_err(e, RQ_ERR_NO_TOS, rr, "mkdir %s: %s", path, strerror(-rr));
	}
	(void)snprintf(path, sizeof(path),
		       "/sys/kernel/config/rdma_cm/%s/ports/%d/default_roce_tos", dev->name,
		       dev->port);
	if (!sysfs_exists(r, path)) {
		if (dev->has[RQ_KNOB_MOFED])
			return 0;
		return rq_err(e, RQ_ERR_NO_TOS, -ENOENT, "%s does not exist (port %d of %s)", path,
			      dev->port, dev->name);
	}
found:
	dev->has[RQ_KNOB_CONFIGFS] = true;
	(void)snprintf(dev->path[RQ_KNOB_CONFIGFS], sizeof(dev->path[0]), "%s", path);
	return 0;
}

/* A whole value: optional blanks, an integer -1..255, optional blanks. */
static int parse_value(const char *p, const char *end, int *ret)
{
	char num[16];
	char *stop;
	size_t n;
	long v;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	n = (size_t)(end - p);
	if (n == 0) {
		*ret = -1;
		return 0;
	}
	if (n >= sizeof(num))
		return -EINVAL;
	memcpy(num, p, n);
	num[n] = '\0';
	v = strtol(num, &stop, 10);
	if (*stop || v < -1 || v > 255)
		return -EINVAL;
	*ret = (int)v;
	return 0;
}

/*
 * MOFED prints "Global tclass=<n>" first, and only while the global class
 * is set, then one line per destination rule ("dst_ip=.../24,tclass=<n>"):
 * a rule's class is not the device's, whatever line it is on.
 */
int rdma_tos_parse(const char *s, int *ret)
{
	static const char global[] = "Global tclass=";
	int val = -1, v;
	bool first = true;

	while (*s) {
		const char *nl = strchr(s, '\n');
		const char *end = nl ? nl : s + strlen(s);

		if (!strncmp(s, global, sizeof(global) - 1)) {
			if (parse_value(s + sizeof(global) - 1, end, &v) < 0)
				return -EINVAL;
			val = v;
		} else if (memmem(s, (size_t)(end - s), "tclass=", 7) == NULL) {
			/* a bare number (configfs, or a MOFED file as written): the only line */
			if (!first || parse_value(s, end, &v) < 0)
				return -EINVAL;
			val = v;
		}
		first = false;
		s = nl ? nl + 1 : end;
	}
	*ret = val;
	return 0;
}

int rdma_tos_read(const struct rq_root *r, const struct rq_rdma_dev *dev, enum rq_tos_knob k,
		  int *ret)
{
	char pod[4096];
	char *buf = NULL;
	size_t len = 0;
	int rr;

	if (k < 0 || k >= RQ_KNOB_N || !dev->has[k])
		return -ENOENT;
	if (k == RQ_KNOB_MOFED && dev->netns[0]) {
		rr = podsys_read(dev->netns, dev->path[k], pod, sizeof(pod));
		return rr < 0 ? rr : rdma_tos_parse(pod, ret);
	}
	/* MOFED's rules may fill a page */
	rr = sysfs_read_file(r, dev->path[k], 8192, &buf, &len);
	if (rr < 0)
		return rr;
	rr = rdma_tos_parse(buf, ret);
	free(buf);
	return rr;
}

int rdma_tos_write(const struct rq_root *r, const struct rq_rdma_dev *dev, enum rq_tos_knob k,
		   int val)
{
	char buf[16];

	if (k < 0 || k >= RQ_KNOB_N || !dev->has[k])
		return -ENOENT;
	/* configfs takes 0..255 only; MOFED reads -1 as "unset the global class" */
	if (val < (k == RQ_KNOB_MOFED ? -1 : 0) || val > 255)
		return -ERANGE;
	(void)snprintf(buf, sizeof(buf), "%d", val);
	if (k == RQ_KNOB_MOFED && dev->netns[0])
		return podsys_write(dev->netns, dev->path[k], buf);
	return sysfs_write_str(r, dev->path[k], buf);
}
