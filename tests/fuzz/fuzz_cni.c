// SPDX-License-Identifier: Apache-2.0
/* libFuzzer: CNI_ARGS parsing and prevResult conversion never crash. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/cni/cni.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rq_cni_args a;
	struct rq_error e = { 0 };
	char *s = malloc(size + 1);
	cJSON *prev, *out;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	memset(&a, 0, sizeof(a));
	(void)cni_args_parse(s, &a, &e);
	prev = cJSON_ParseWithLength(s, size);
	if (prev) {
		out = cni_result_convert(prev, size % 2 ? "0.4.0" : "1.0.0");
		cJSON_Delete(out);
		cJSON_Delete(prev);
	}
	free(s);
	return 0;
}
