// SPDX-License-Identifier: GPL-2.0
/* monitor: one line per change to the table, from the "changes" group. */
#include <inttypes.h>
#include <stdio.h>

#include "ctl.h"

static int change_cb(struct nlattr **tb, void *arg)
{
	struct ctl *c = arg;

	if (!tb[NFSFAIR_A_TABLE_GENERATION])
		return 0;
	printf("generation %" PRIu64 "\n", nfsfair_nla_uint(tb[NFSFAIR_A_TABLE_GENERATION]));
	fflush(stdout);
	return (c->opts & OPT_COUNT) && --c->count == 0 ? 1 : 0;
}

int cmd_monitor(struct ctl *c)
{
	int ret;

	ret = ctl_nl(c);
	if (ret)
		return ret;
	if (nfsfair_nl_subscribe(c->nl, NFSFAIR_MCGRP_CHANGES) < 0)
		return ctl_error("cannot join the '%s' group", NFSFAIR_MCGRP_CHANGES);
	ret = nfsfair_nl_listen(c->nl, NFSFAIR_A_TABLE_MAX, change_cb, c);
	return ret < 0 ? ctl_error("monitor: receive failed") : CTL_OK;
}
