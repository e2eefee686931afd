// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for nfsfair-ctl's command line: the input split on NUL
 * or newline into argv, through ctl_parse(), the whole of what main() does
 * before it enters a namespace or opens netlink. ctl_parse() returns, never
 * exits, so every input is one call.
 *
 * Beyond not crashing: the result is one of its three statuses, nothing has
 * opened netlink, and an accepted command line is one its verb's row allows,
 * with an --ids-per-host only in range and on a per-client target.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "../../cli/ctl.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct ctl c = { .wait = 1, .count = 1 };
	char *argv[MAX_ARGS + 2], err[NFSFAIR_ERR_LEN];
	size_t start = 0, i;
	int argc = 1, ret;

	argv[0] = strdup("nfsfair-ctl");
	/* Each argument its own allocation, so a read past one is caught. */
	for (i = 0; i <= size && argc <= MAX_ARGS; i++) {
		if (i < size && data[i] && data[i] != '\n')
			continue;
		argv[argc] = malloc(i - start + 1);
		memcpy(argv[argc], data + start, i - start);
		argv[argc++][i - start] = '\0';
		start = i + 1;
	}
	argv[argc] = NULL;
	optind = 0;	/* glibc: start over, forgetting the last call's state */
	ret = ctl_parse(&c, argc, argv);
	if (ret != CTL_OK && ret != CTL_USAGE && ret != CTL_HELP)
		abort();
	if (c.nl)
		abort();
	if (ret == CTL_OK) {
		if (!c.cmd || c.argc < c.cmd->args_min || c.argc > c.cmd->args_max ||
		    (c.opts & c.cmd->required) != c.cmd->required || (c.opts & ~c.cmd->allowed))
			abort();
		if (c.cmd->class_arg && nfsfair_class_name_check(c.argv[0], err))
			abort();
		if ((c.opts & OPT_IDS_PER_HOST) &&
		    (c.target.kind != NFSFAIR_TARGET_PER_CLIENT || !c.target.ids_per_host ||
		     c.target.ids_per_host > NFSFAIR_IDS_PER_HOST_MAX))
			abort();
	}
	for (i = 0; i < (size_t)argc; i++)
		free(argv[i]);
	return 0;
}
