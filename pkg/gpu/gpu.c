// SPDX-License-Identifier: Apache-2.0
/*
 * A pod's accelerators as PCI addresses. The sources and their IDs are in
 * docs/compatibility.md; the research behind them names the upstream files
 * (NVIDIA's k8s-device-plugin and DRA driver, nv-procfs.c, ROCm's plugin and
 * DRA driver, Intel's resource drivers).
 */
#include "pkg/gpu/gpu.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NV_GPUS "/proc/driver/nvidia/gpus"

static void unmapped(struct rq_gpu_set *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void unmapped(struct rq_gpu_set *s, const char *fmt, ...)
{
	size_t n = strlen(s->unmapped);
	va_list ap;

	s->n_unmapped++;
	if (n + 3 >= sizeof(s->unmapped))
		return;
	if (n)
		n += (size_t)snprintf(s->unmapped + n, sizeof(s->unmapped) - n, ", ");
	va_start(ap, fmt);
	(void)vsnprintf(s->unmapped + n, sizeof(s->unmapped) - n, fmt, ap);
	va_end(ap);
}

static bool has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

bool gpu_devplugin_candidate(const char *resource, const char *id)
{
	return has_prefix(id, "GPU-") || has_prefix(id, "MIG-") || sysfs_pci_valid(id) ||
	       strstr(resource, "gaudi") != NULL || has_prefix(resource, "habana.ai/");
}

bool gpu_dra_candidate(const char *driver)
{
	return !strcmp(driver, RQ_DRA_GPU_NVIDIA) || !strcmp(driver, RQ_DRA_GPU_AMD) ||
	       !strcmp(driver, RQ_DRA_GAUDI) || !strcmp(driver, RQ_DRA_GPU_INTEL);
}

/* "Name: \t value" -> value, trimmed */
static const char *field(const char *line, const char *name, char *buf, size_t len)
{
	size_t n = strlen(name), k;

	if (strncmp(line, name, n) != 0 || line[n] != ':')
		return NULL;
	line += n + 1;
	while (*line == ' ' || *line == '\t')
		line++;
	k = strcspn(line, "\n");
	while (k && (line[k - 1] == ' ' || line[k - 1] == '\t' || line[k - 1] == '\r'))
		k--;
	(void)snprintf(buf, len, "%.*s", (int)k, line);
	return buf;
}

int gpu_nvidia_info_parse(const char *text, char *uuid, size_t uuid_len, int *minor)
{
	bool any = false;

	uuid[0] = '\0';
	*minor = -1;
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char v[128], *end;

		if (field(l, "GPU UUID", v, sizeof(v))) {
			(void)snprintf(uuid, uuid_len, "%s", v);
			any = true;
		} else if (field(l, "Device Minor", v, sizeof(v))) {
			long m = strtol(v, &end, 10);

			if (end != v && !*end && m >= 0 && m < 1 << 20) {
				*minor = (int)m;
				any = true;
			}
		}
	}
	return any ? 0 : -EBADMSG;
}

/* The NVIDIA GPUs of the node, read once: PCI address, UUID, minor, C2C. */
struct nv_gpu {
	char pci[RQ_PCI_NAME], uuid[96];
	int minor;
	bool c2c;
};

static size_t nv_read(const struct rq_root *r, struct nv_gpu *out, size_t max)
{
	char **names = NULL;
	size_t nn = 0, n = 0;

	if (sysfs_list(r, NV_GPUS, &names, &nn) < 0)
		return 0;
	for (size_t i = 0; i < nn && n < max; i++) {
		char path[128], *text = NULL;
		size_t len;

		if (!sysfs_pci_valid(names[i]))
			continue;
		(void)snprintf(path, sizeof(path), NV_GPUS "/%s/information", names[i]);
		if (sysfs_read_file(r, path, 8192, &text, &len) < 0)
			continue;
		if (gpu_nvidia_info_parse(text, out[n].uuid, sizeof(out[n].uuid), &out[n].minor) ==
		    0) {
			(void)snprintf(out[n].pci, sizeof(out[n].pci), "%s", names[i]);
			/* the GPU's memory is a NUMA node: a coherent (C2C) platform */
			(void)snprintf(path, sizeof(path), NV_GPUS "/%s/numa_status", names[i]);
			out[n].c2c = sysfs_exists(r, path);
			n++;
		}
		free(text);
	}
	sysfs_list_free(names, nn);
	return n;
}

static void add(struct rq_gpu_set *s, const char *pci, const char *id, const char *source, bool c2c)
{
	struct rq_gpu *g;

	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->gpu[i].pci, pci))
			return; /* replicas (time-slicing "<uuid>::<n>") of one GPU */
	if (s->n == RQ_GPU_MAX) {
		unmapped(s, "%s %s (more than %d accelerators)", source, id, RQ_GPU_MAX);
		return;
	}
	g = &s->gpu[s->n++];
	(void)snprintf(g->pci, sizeof(g->pci), "%s", pci);
	(void)snprintf(g->id, sizeof(g->id), "%s", id);
	(void)snprintf(g->source, sizeof(g->source), "%s", source);
	g->c2c = c2c;
}

struct nv_cache {
	struct nv_gpu gpu[RQ_GPU_MAX * 2];
	size_t n;
	bool read;
};

static const struct nv_gpu *nv_find(const struct rq_root *r, struct nv_cache *c, const char *uuid,
				    int minor)
{
	if (!c->read) {
		c->n = nv_read(r, c->gpu, sizeof(c->gpu) / sizeof(c->gpu[0]));
		c->read = true;
	}
	for (size_t i = 0; i < c->n; i++)
		if ((uuid && !strcasecmp(c->gpu[i].uuid, uuid)) ||
		    (!uuid && c->gpu[i].minor == minor))
			return &c->gpu[i];
	return NULL;
}

static void map_devplugin(const struct rq_root *r, struct nv_cache *nv,
			  const struct rq_kubelet_dev *d, struct rq_gpu_set *s)
{
	const struct nv_gpu *g;
	uint32_t cls;

	if (has_prefix(d->id, "GPU-")) {
		char uuid[128];

		/* a shared GPU's replicas are "<uuid>::<n>" */
		(void)snprintf(uuid, sizeof(uuid), "%.*s", (int)strcspn(d->id, ":"), d->id);
		g = nv_find(r, nv, uuid, -1);
		if (g)
			add(s, g->pci, d->id, d->resource, g->c2c);
		else
			unmapped(s, "%s %s (no " NV_GPUS " entry)", d->resource, d->id);
	} else if (has_prefix(d->id, "MIG-")) {
		unmapped(s, "%s %s (a MIG device: its GPU needs NVML)", d->resource, d->id);
	} else if (sysfs_pci_valid(d->id)) {
		/* AMD's plugin names a GPU by its address; the SR-IOV plugin a VF the same way */
		if (pci_class(r, d->id, &cls) == 0 && (cls >> 16 == 0x03 || cls >> 16 == 0x12))
			add(s, d->id, d->id, d->resource, false);
	} else {
		unmapped(s, "%s %s (a serial number: no PCI address without HLML)", d->resource,
			 d->id);
	}
}

/* "gpu-<n>" or "gpu-<n>-..." -> n; -1 when the name is not so */
static long dra_index(const char *name, const char **rest)
{
	char *end;
	long n;

	if (!has_prefix(name, "gpu-") || !isdigit((unsigned char)name[4]))
		return -1;
	n = strtol(name + 4, &end, 10);
	if (n < 0 || n > 1 << 20)
		return -1;
	*rest = end;
	return n;
}

static void map_dra(const struct rq_root *r, struct nv_cache *nv, const struct rq_podres_dra_dev *d,
		    struct rq_gpu_set *s)
{
	const char *rest = "";
	long n = dra_index(d->device, &rest);

	if (!strcmp(d->driver, RQ_DRA_GPU_NVIDIA)) {
		/* gpu-<minor>, and a MIG device's gpu-<parent minor>-mig-...: its parent's place */
		const struct nv_gpu *g = n >= 0 && (!*rest || has_prefix(rest, "-mig-"))
					     ? nv_find(r, nv, NULL, (int)n)
					     : NULL;
		if (g)
			add(s, g->pci, d->device, d->driver, g->c2c);
		else
			unmapped(s, "%s/%s (no GPU of that minor)", d->driver, d->device);
	} else if (!strcmp(d->driver, RQ_DRA_GPU_AMD)) {
		char path[64], pci[64];

		/* gpu-<card>-<render>: the card's DRM device is the GPU */
		(void)snprintf(path, sizeof(path), "/sys/class/drm/card%ld/device", n);
		if (n >= 0 && *rest == '-' && sysfs_readlink_base(r, path, pci, sizeof(pci)) == 0 &&
		    sysfs_pci_valid(pci))
			add(s, pci, d->device, d->driver, false);
		else
			unmapped(s, "%s/%s (no DRM card of that index)", d->driver, d->device);
	} else {
		/* Intel: "dddd-bb-dd-f-0x<device id>" */
		char pci[32];
		const char *x = strstr(d->device, "-0x");
		size_t k = x ? (size_t)(x - d->device) : 0, dom = k - 8;

		(void)snprintf(pci, sizeof(pci), "%.*s", (int)(k < sizeof(pci) ? k : 0), d->device);
		if ((k == 12 || k == 13) && pci[dom] == '-' && pci[dom + 3] == '-' &&
		    pci[dom + 6] == '-') {
			pci[dom] = pci[dom + 3] = ':';
			pci[dom + 6] = '.';
		}
		if (sysfs_pci_valid(pci))
			add(s, pci, d->device, d->driver, false);
		else
			unmapped(s, "%s/%s (not an address-0xID name)", d->driver, d->device);
	}
}

int gpu_map_pod(const struct rq_root *r, const struct rq_kubelet_dev *devs, size_t n_devs,
		const struct rq_podres_dra_dev *dra, size_t n_dra, struct rq_gpu_set *ret)
{
	struct nv_cache cache, *nv = &cache;

	cache.read = false;
	memset(ret, 0, sizeof(*ret));
	for (size_t i = 0; i < n_devs; i++)
		if (gpu_devplugin_candidate(devs[i].resource, devs[i].id))
			map_devplugin(r, nv, &devs[i], ret);
	for (size_t i = 0; i < n_dra; i++)
		if (gpu_dra_candidate(dra[i].driver))
			map_dra(r, nv, &dra[i], ret);
	return 0;
}
