// SPDX-License-Identifier: Apache-2.0
/*
 * Registers of a PCI function: its configuration space as sysfs shows it
 * (the PCI Express capability's link registers, the ACS extended capability;
 * offsets from include/uapi/linux/pci_regs.h), the link attributes, the class
 * and the IOMMU group's type.
 */
#include "pkg/pci/pci.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CFG_STATUS	0x06
#define CFG_STATUS_CAPS 0x10
#define CFG_CAP_PTR	0x34
#define CAP_ID_EXP	0x10
#define EXP_FLAGS	0x02
#define EXP_LNKCAP	0x0c
#define EXP_LNKSTA	0x12
#define EXT_START	0x100
#define EXT_ID_ACS	0x0d
#define ACS_CTRL	0x06
#define CFG_MAX		4096

static uint16_t rd16(const uint8_t *b, size_t off)
{
	return (uint16_t)(b[off] | b[off + 1] << 8);
}

static uint32_t rd32(const uint8_t *b, size_t off)
{
	return (uint32_t)rd16(b, off) | (uint32_t)rd16(b, off + 2) << 16;
}

void pci_config_parse(const uint8_t *buf, size_t len, struct rq_pci_cfg *ret)
{
	size_t p;

	memset(ret, 0, sizeof(*ret));
	if (len < 64 || !(rd16(buf, CFG_STATUS) & CFG_STATUS_CAPS))
		return;
	p = buf[CFG_CAP_PTR] & 0xfc;
	/* at most 48 capabilities fit in the standard space: a loop in the list ends there */
	for (int n = 0; n < 48 && p >= 0x40 && p + 2 <= len; n++) {
		if (buf[p] == CAP_ID_EXP && p + EXP_LNKSTA + 2 <= len) {
			uint32_t cap = rd32(buf, p + EXP_LNKCAP);
			uint16_t sta = rd16(buf, p + EXP_LNKSTA);

			ret->has_pcie = true;
			ret->port_type = (rd16(buf, p + EXP_FLAGS) >> 4) & 0xf;
			ret->cap_speed = (int)(cap & 0xf);
			ret->cap_width = (int)((cap >> 4) & 0x3f);
			ret->sta_speed = sta & 0xf;
			ret->sta_width = (sta >> 4) & 0x3f;
			break;
		}
		p = buf[p + 1] & 0xfc;
	}
	if (!ret->has_pcie || len < EXT_START + 4)
		return;
	ret->ext_read = true;
	p = EXT_START;
	for (int n = 0; n < (CFG_MAX - EXT_START) / 4 && p >= EXT_START && p + 4 <= len; n++) {
		uint32_t h = rd32(buf, p);

		if (h == 0 || h == 0xffffffff)
			break;
		if ((h & 0xffff) == EXT_ID_ACS && p + ACS_CTRL + 2 <= len) {
			ret->has_acs = true;
			ret->acs_ctrl = rd16(buf, p + ACS_CTRL);
			break;
		}
		p = (h >> 20) & 0xffc;
	}
}

int pci_config(const struct rq_root *r, const char *pci, struct rq_pci_cfg *ret)
{
	uint8_t buf[CFG_MAX];
	char path[128];
	size_t len = 0;
	ssize_t n;
	int fd;

	if (!sysfs_pci_valid(pci))
		return -EINVAL;
	(void)snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", pci);
	fd = root_openat(r, path, O_RDONLY, 0);
	if (fd < 0)
		return fd;
	/* the kernel serves what the reader may see: 64 bytes unless CAP_SYS_ADMIN */
	while (len < sizeof(buf) && (n = read(fd, buf + len, sizeof(buf) - len)) > 0)
		len += (size_t)n;
	n = n < 0 ? -errno : 0;
	close(fd);
	if (n < 0)
		return (int)n;
	pci_config_parse(buf, len, ret);
	return 0;
}

int pci_speed_gen(const char *s)
{
	static const struct {
		double gts;
		int gen;
	} gens[] = {{2.5, 1}, {5, 2}, {8, 3}, {16, 4}, {32, 5}, {64, 6}};
	char *end;
	double v = strtod(s, &end);

	if (end == s || strncmp(end, " GT/s", 5) != 0)
		return 0;
	for (size_t i = 0; i < sizeof(gens) / sizeof(gens[0]); i++)
		if (v > gens[i].gts - 0.1 && v < gens[i].gts + 0.1)
			return gens[i].gen;
	return 0;
}

int pci_link_sysfs(const struct rq_root *r, const char *pci, struct rq_pci_cfg *ret)
{
	static const char *const f[] = {"max_link_speed", "max_link_width", "current_link_speed",
					"current_link_width"};
	int v[4];

	if (!sysfs_pci_valid(pci))
		return -EINVAL;
	for (size_t i = 0; i < 4; i++) {
		char path[128], buf[64];
		int rr;

		(void)snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", pci, f[i]);
		rr = sysfs_read_str(r, path, buf, sizeof(buf));
		if (rr < 0)
			return rr;
		v[i] = i % 2 ? atoi(buf) : pci_speed_gen(buf);
	}
	memset(ret, 0, sizeof(*ret));
	ret->cap_speed = v[0];
	ret->cap_width = v[1];
	ret->sta_speed = v[2];
	ret->sta_width = v[3];
	return 0;
}

int pci_iommu_type(const struct rq_root *r, const char *pci, char *buf, size_t len)
{
	char path[128], group[32];
	int rr;

	if (!sysfs_pci_valid(pci))
		return -EINVAL;
	(void)snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/iommu_group", pci);
	rr = sysfs_readlink_base(r, path, group, sizeof(group));
	if (rr < 0)
		return rr;
	if (!group[0] || strspn(group, "0123456789") != strlen(group))
		return -EINVAL;
	(void)snprintf(path, sizeof(path), "/sys/kernel/iommu_groups/%s/type", group);
	return sysfs_read_str(r, path, buf, len);
}

int pci_class(const struct rq_root *r, const char *pci, uint32_t *ret)
{
	char path[128], buf[32], *end;
	unsigned long v;
	int rr;

	if (!sysfs_pci_valid(pci))
		return -EINVAL;
	(void)snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/class", pci);
	rr = sysfs_read_str(r, path, buf, sizeof(buf));
	if (rr < 0)
		return rr;
	v = strtoul(buf, &end, 16);
	if (end == buf || *end || v > 0xffffff)
		return -EINVAL;
	*ret = (uint32_t)v;
	return 0;
}
