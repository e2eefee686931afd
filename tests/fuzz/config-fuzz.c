// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for nfsfaird's YAML loader: any bytes, as a file, go
 * through parsing and the pre-resolution checks. Errors are expected;
 * crashes, leaks and sanitizer reports are not.
 */
#include <stdio.h>

#include "../../daemon/config.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static FILE *devnull;
	struct cfg cfg;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	cfg_init(&cfg, devnull);
	if (!cfg_load_buffer(&cfg, "fuzz.yaml", data, size))
		cfg_check(&cfg);
	cfg_free(&cfg);
	return 0;
}
