// SPDX-License-Identifier: Apache-2.0
/*
 * PodResources replies into a placement: the same facts the kubelet files
 * give (exclusive CPUs, devices by NUMA node, memory's NUMA affinity), so
 * pkg/numa judges them with the same words. Here the wire helpers, the VF's
 * names and the gRPC status; the two decoders are podres_place.c (protobuf-c
 * into a placement) and podres_find.c (the List walked for a VF's owner).
 */
#include "pkg/podres/podres.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "pkg/podres/podres_int.h"

/* The gRPC length-prefixed message: flag 0 (uncompressed), 4-byte length, exactly the rest. */
int podres_unframe(const uint8_t *body, size_t len, const uint8_t **msg, size_t *mlen)
{
	uint32_t n;

	if (!body || len < 5 || body[0] != 0)
		return -EBADMSG;
	n = (uint32_t)body[1] << 24 | (uint32_t)body[2] << 16 | (uint32_t)body[3] << 8 | body[4];
	if (n != len - 5)
		return -EBADMSG;
	*msg = body + 5;
	*mlen = n;
	return 0;
}

const char *podres_vf_by_name(enum rq_podres_vf_by by)
{
	switch (by) {
	case RQ_PODRES_VF_BY_DRA_SRIOV:
		return "dra-driver-sriov";
	case RQ_PODRES_VF_BY_DRANET:
		return "dranet";
	case RQ_PODRES_VF_BY_DEVICE_ID:
		return "device-plugin";
	default:
		return "";
	}
}

/* "DDDD:BB:DD.F" in hex, any case: what sysfs and the SR-IOV device plugin write. */
bool podres_is_pci(const char *s)
{
	static const char form[] = "xxxx:xx:xx.x";

	if (!s || strlen(s) != sizeof(form) - 1)
		return false;
	for (size_t i = 0; form[i]; i++)
		if (form[i] == 'x' ? !isxdigit((unsigned char)s[i]) : s[i] != form[i])
			return false;
	return true;
}

/* @dev is @prefix then PCI address @pci with ':' and '.' as '-', without case. */
static bool dashed_is(const char *dev, const char *prefix, const char *pci)
{
	size_t n = strlen(prefix);

	if (strncmp(dev, prefix, n) != 0)
		return false;
	dev += n;
	for (; *pci; pci++, dev++) {
		char want = (*pci == ':' || *pci == '.') ? '-' : (char)tolower((unsigned char)*pci);

		if (tolower((unsigned char)*dev) != want)
			return false;
	}
	return !*dev;
}

enum rq_podres_vf_by podres_dra_names_vf(const char *driver, const char *device, const char *pci,
					 const char *netdev)
{
	bool addr = podres_is_pci(pci);

	if (!driver || !device || !device[0])
		return RQ_PODRES_VF_BY_NONE;
	if (!strcmp(driver, RQ_DRA_DRIVER_SRIOV))
		return addr && dashed_is(device, "", pci) ? RQ_PODRES_VF_BY_DRA_SRIOV
							  : RQ_PODRES_VF_BY_NONE;
	if (!strcmp(driver, RQ_DRA_DRIVER_DRANET)) {
		if (addr && dashed_is(device, "pci-", pci))
			return RQ_PODRES_VF_BY_DRANET;
		if (netdev && netdev[0] && !strcmp(device, netdev))
			return RQ_PODRES_VF_BY_DRANET;
	}
	return RQ_PODRES_VF_BY_NONE;
}

/* A protobuf varint at *@p before @end; *@p past it. */
int podres_pb_varint(const uint8_t **p, const uint8_t *end, uint64_t *ret)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 64 && *p < end; shift += 7) {
		uint8_t b = *(*p)++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*ret = v;
			return 0;
		}
	}
	return -EBADMSG;
}

/*
 * One protobuf field at *@p before @end: its number, and for a length-delimited one its
 * bytes in @ret_val/@ret_len (else NULL); *@p past it. Groups (wire types 3, 4) are not in
 * this API: malformed.
 */
int podres_pb_field(const uint8_t **p, const uint8_t *end, uint64_t *ret_num,
		    const uint8_t **ret_val, size_t *ret_len)
{
	uint64_t key, n;

	if (podres_pb_varint(p, end, &key) < 0) /* field 0 passes, as protobuf-c lets it */
		return -EBADMSG;
	*ret_num = key >> 3;
	*ret_val = NULL;
	*ret_len = 0;
	switch (key & 7) {
	case 0:
		return podres_pb_varint(p, end, &n);
	case 1:
	case 5:
		n = (key & 7) == 1 ? 8 : 4;
		break;
	case 2:
		if (podres_pb_varint(p, end, &n) < 0)
			return -EBADMSG;
		*ret_val = *p;
		*ret_len = (size_t)n;
		break;
	default:
		return -EBADMSG;
	}
	if (n > (uint64_t)(end - *p))
		return -EBADMSG;
	*p += n;
	return 0;
}

static int hexval(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int podres_grpc_msg_decode(const uint8_t *v, size_t len, char *ret, size_t cap)
{
	size_t o = 0;

	if (!ret || !cap)
		return -ENOSPC;
	for (size_t i = 0; v && i < len; i++) {
		uint8_t b = v[i];
		int hi = i + 2 < len ? hexval(v[i + 1]) : -1;
		int lo = i + 2 < len ? hexval(v[i + 2]) : -1;

		if (b == '%' && hi >= 0 && lo >= 0) {
			b = (uint8_t)(hi << 4 | lo);
			i += 2;
		}
		if (o + 1 >= cap) {
			ret[o] = '\0';
			return -ENOSPC;
		}
		ret[o++] = (char)(b ? b : (uint8_t)'?');
	}
	ret[o] = '\0';
	return 0;
}

/* @s is @word followed by the rest: the rest, else NULL. */
static const char *skip_word(const char *s, const char *word)
{
	size_t n = strlen(word);

	return s && !strncmp(s, word, n) ? s + n : NULL;
}

enum rq_podres_get_answer podres_get_answer(int grpc_status, const char *msg, const char *ns,
					    const char *name)
{
	const char *s;

	if (grpc_status == RQ_GRPC_UNIMPLEMENTED)
		return RQ_PODRES_GET_NO_METHOD;
	if (grpc_status == RQ_GRPC_NOT_FOUND)
		return RQ_PODRES_GET_NO_POD;
	if (grpc_status != RQ_GRPC_UNKNOWN || !msg)
		return RQ_PODRES_GET_FAILED;
	if (!strcmp(msg, "PodResources API Get method disabled"))
		return RQ_PODRES_GET_NO_METHOD;
	/* exactly "pod NAME in namespace NS not found" for the pod asked about */
	if (!ns || !name || !name[0] || !ns[0])
		return RQ_PODRES_GET_FAILED;
	s = skip_word(skip_word(skip_word(skip_word(msg, "pod "), name), " in namespace "), ns);
	s = skip_word(s, " not found");
	return s && !*s ? RQ_PODRES_GET_NO_POD : RQ_PODRES_GET_FAILED;
}
