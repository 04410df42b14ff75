// SPDX-License-Identifier: Apache-2.0
/*
 * The full-duplex link modes of the UAPI header: their bit, speed (Mb/s, from
 * the mode's name) and name as ethtool prints it ("100000baseCR4/Full"). The
 * netlink reader takes the fastest mode both ends advertise from two bitsets,
 * the simulated node from two lists of names (link.h).
 */
#include <errno.h>
#include <linux/ethtool.h>
#include <string.h>

#include "pkg/ethtool/link.h"

// clang-format off
#define M(n, s) {ETHTOOL_LINK_MODE_##n##_Full_BIT, s, #n "/Full"}
// clang-format on

static const struct {
	unsigned bit;
	uint32_t mbps;
	const char *name;
} link_modes[] = {
    M(10baseT, 10),
    M(100baseT, 100),
    M(1000baseT, 1000),
    M(10000baseT, 10000),
    M(2500baseX, 2500),
    M(1000baseKX, 1000),
    M(10000baseKX4, 10000),
    M(10000baseKR, 10000),
    M(20000baseMLD2, 20000),
    M(20000baseKR2, 20000),
    M(40000baseKR4, 40000),
    M(40000baseCR4, 40000),
    M(40000baseSR4, 40000),
    M(40000baseLR4, 40000),
    M(56000baseKR4, 56000),
    M(56000baseCR4, 56000),
    M(56000baseSR4, 56000),
    M(56000baseLR4, 56000),
    M(25000baseCR, 25000),
    M(25000baseKR, 25000),
    M(25000baseSR, 25000),
    M(50000baseCR2, 50000),
    M(50000baseKR2, 50000),
    M(100000baseKR4, 100000),
    M(100000baseSR4, 100000),
    M(100000baseCR4, 100000),
    M(100000baseLR4_ER4, 100000),
    M(50000baseSR2, 50000),
    M(1000baseX, 1000),
    M(10000baseCR, 10000),
    M(10000baseSR, 10000),
    M(10000baseLR, 10000),
    M(10000baseLRM, 10000),
    M(10000baseER, 10000),
    M(2500baseT, 2500),
    M(5000baseT, 5000),
    M(50000baseKR, 50000),
    M(50000baseSR, 50000),
    M(50000baseCR, 50000),
    M(50000baseLR_ER_FR, 50000),
    M(50000baseDR, 50000),
    M(100000baseKR2, 100000),
    M(100000baseSR2, 100000),
    M(100000baseCR2, 100000),
    M(100000baseLR2_ER2_FR2, 100000),
    M(100000baseDR2, 100000),
    M(200000baseKR4, 200000),
    M(200000baseSR4, 200000),
    M(200000baseLR4_ER4_FR4, 200000),
    M(200000baseDR4, 200000),
    M(200000baseCR4, 200000),
    M(100baseT1, 100),
    M(1000baseT1, 1000),
    M(400000baseKR8, 400000),
    M(400000baseSR8, 400000),
    M(400000baseLR8_ER8_FR8, 400000),
    M(400000baseDR8, 400000),
    M(400000baseCR8, 400000),
    M(100000baseKR, 100000),
    M(100000baseSR, 100000),
    M(100000baseLR_ER_FR, 100000),
    M(100000baseCR, 100000),
    M(100000baseDR, 100000),
    M(200000baseKR2, 200000),
    M(200000baseSR2, 200000),
    M(200000baseLR2_ER2_FR2, 200000),
    M(200000baseDR2, 200000),
    M(200000baseCR2, 200000),
    M(400000baseKR4, 400000),
    M(400000baseSR4, 400000),
    M(400000baseLR4_ER4_FR4, 400000),
    M(400000baseDR4, 400000),
    M(400000baseCR4, 400000),
    M(100baseFX, 100),
    M(10baseT1L, 10),
};

uint32_t ethtool_link_modes_max(const uint32_t *bits, unsigned nbits)
{
	uint32_t best = 0;

	for (size_t i = 0; i < sizeof(link_modes) / sizeof(link_modes[0]); i++) {
		unsigned b = link_modes[i].bit;

		if (b < nbits && (bits[b / 32] >> (b % 32)) & 1 && link_modes[i].mbps > best)
			best = link_modes[i].mbps;
	}
	return best;
}

uint32_t ethtool_link_modes_common_max(const uint32_t *a, const uint32_t *b, unsigned nbits)
{
	uint32_t both[ETH_LINK_MODE_WORDS];
	unsigned words = (nbits + 31) / 32;

	if (words > ETH_LINK_MODE_WORDS)
		words = ETH_LINK_MODE_WORDS, nbits = ETH_LINK_MODE_WORDS * 32;
	memset(both, 0, sizeof(both));
	for (unsigned i = 0; i < words; i++)
		both[i] = a[i] & b[i];
	return ethtool_link_modes_max(both, nbits);
}

int ethtool_link_mode_bit(const char *name)
{
	for (size_t i = 0; name && i < sizeof(link_modes) / sizeof(link_modes[0]); i++)
		if (!strcmp(link_modes[i].name, name))
			return (int)link_modes[i].bit;
	return -EINVAL;
}
