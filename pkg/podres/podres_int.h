/* SPDX-License-Identifier: Apache-2.0 */
/* The wire helpers podres.c shares with its two decoders (podres_place.c, podres_find.c). */
#ifndef RQ_PODRES_INT_H
#define RQ_PODRES_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The gRPC length-prefixed message: flag 0 (uncompressed), 4-byte length, exactly the rest. */
int podres_unframe(const uint8_t *body, size_t len, const uint8_t **msg, size_t *mlen);
/* A protobuf varint at *@p before @end; *@p past it. */
int podres_pb_varint(const uint8_t **p, const uint8_t *end, uint64_t *ret);
/*
 * One protobuf field at *@p before @end: its number, and for a length-delimited one its
 * bytes in @ret_val/@ret_len (else NULL); *@p past it.
 */
int podres_pb_field(const uint8_t **p, const uint8_t *end, uint64_t *ret_num,
		    const uint8_t **ret_val, size_t *ret_len);
/* "DDDD:BB:DD.F" in hex, any case: what sysfs and the SR-IOV device plugin write. */
bool podres_is_pci(const char *s);

#endif
