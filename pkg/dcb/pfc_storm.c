// SPDX-License-Identifier: Apache-2.0
/*
 * The PFC storm-prevention timeout (ethtool's pfc-prevention-tout tunable,
 * ETHTOOL_PFC_PREVENTION_TOUT): how long a port may be kept paused before
 * the driver stops honouring PFC on it. Read only; SIOCETHTOOL is the only way
 * to it (the ethtool netlink tunables carry no such id).
 */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pkg/dcb/dcb.h"

int pfc_storm_tout_get(const char *ifname, int *ret_ms)
{
	struct {
		struct ethtool_tunable t;
		uint16_t v;
	} req;
	struct ifreq ifr;
	int fd, r = 0;

	if (strlen(ifname) >= sizeof(ifr.ifr_name))
		return -EINVAL;
	memset(&req, 0, sizeof(req));
	req.t.cmd = ETHTOOL_GTUNABLE;
	req.t.id = ETHTOOL_PFC_PREVENTION_TOUT;
	req.t.type_id = ETHTOOL_TUNABLE_U16;
	req.t.len = sizeof(req.v);
	memset(&ifr, 0, sizeof(ifr));
	(void)snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&req;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		r = -errno;
	close(fd);
	if (r < 0)
		return r;
	*ret_ms = req.v == PFC_STORM_PREVENTION_AUTO ? -1 : (int)req.v;
	return 0;
}
