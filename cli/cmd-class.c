// SPDX-License-Identifier: GPL-2.0
/* Editing classes: -N NAME [--weight W] [--limit N], -E likewise, -X NAME. */
#include <stdio.h>
#include <netlink/msg.h>
#include <netlink/attr.h>

#include "ctl.h"

/* A limit is sent only when given: a kernel without limits refuses the attribute. */
static int class_cmd(struct ctl *c, uint8_t cmd, bool weight, bool limit)
{
	struct nl_msg *msg;
	int ret;

	/* ctl_parse() checked the name: strictly for -N and -E, its length for -X */
	ret = ctl_nl(c);
	if (ret)
		return ret;
	msg = nfsfair_nl_msg(c->nl, cmd, false);
	if (!msg || nla_put_string(msg, NFSFAIR_A_CLASS_NAME, c->argv[0]) < 0 ||
	    (weight && nla_put_u32(msg, NFSFAIR_A_CLASS_WEIGHT, c->weight) < 0) ||
	    (limit && nla_put_u32(msg, NFSFAIR_A_CLASS_LIMIT, c->limit) < 0))
		return ctl_error("out of memory");
	ret = nfsfair_nl_run(c->nl, msg, 0, NULL, NULL);
	return ret < 0 ? ctl_kernel_error(c, ret, SET_CLASS) : CTL_OK;
}

int cmd_class_new(struct ctl *c)
{
	return class_cmd(c, NFSFAIR_CMD_CLASS_NEW, c->opts & OPT_WEIGHT, c->opts & OPT_LIMIT);
}

int cmd_class_set(struct ctl *c)
{
	return class_cmd(c, NFSFAIR_CMD_CLASS_SET, c->opts & OPT_WEIGHT, c->opts & OPT_LIMIT);
}

int cmd_class_del(struct ctl *c)
{
	return class_cmd(c, NFSFAIR_CMD_CLASS_DEL, false, false);
}
