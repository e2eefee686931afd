// SPDX-License-Identifier: GPL-2.0
/* Editing rules: -A -I -R -D -C -F -Z. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <netlink/msg.h>
#include <netlink/attr.h>

#include "ctl.h"

/* The rules -s SOURCE -j TARGET stands for: one per address of a hostname. */
static int rules_of(struct ctl *c, struct nfsfair_rule **out, int *n)
{
	struct nfsfair_prefix *p;
	struct nfsfair_rule *r;
	char err[NFSFAIR_ERR_LEN];
	int i, ret;

	ret = ctl_resolve(c->source, &p, n, false);
	if (ret)
		return ret;
	r = calloc(*n, sizeof(*r));
	if (!r) {
		free(p);
		return ctl_error("out of memory");
	}
	for (i = 0; i < *n; i++) {
		r[i].prefix = p[i];
		r[i].target = c->target;
		r[i].origin = c->origin;
		if (nfsfair_rule_check(&r[i], err) < 0) {
			free(p);
			free(r);
			return ctl_usage_error(c, "-j %s", err);
		}
	}
	free(p);
	*out = r;
	return 0;
}

/* Send CMD for each rule, at POS, POS+1, ... when POS is given. */
static int send_rules(struct ctl *c, uint8_t cmd, const struct nfsfair_rule *r, int n,
		      uint32_t pos, bool origin)
{
	struct nl_msg *msg;
	int i, ret;

	ret = ctl_nl(c);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		msg = nfsfair_nl_msg(c->nl, cmd, false);
		if (!msg)
			return ctl_error("out of memory");
		if ((pos && nla_put_u32(msg, NFSFAIR_A_RULE_POSITION, pos + i) < 0) ||
		    nfsfair_nla_put_rule(msg, &r[i], origin) < 0) {
			nlmsg_free(msg);
			return ctl_error("message too long");
		}
		ret = nfsfair_nl_run(c->nl, msg, 0, NULL, NULL);
		if (ret < 0)
			return ctl_kernel_error(c, ret, SET_RULE);
	}
	return 0;
}

static int rule_cmd(struct ctl *c, uint8_t cmd, uint32_t pos, bool origin)
{
	struct nfsfair_rule *r;
	int n, ret;

	ret = rules_of(c, &r, &n);
	if (ret)
		return ret;
	if (cmd == NFSFAIR_CMD_RULE_REPLACE && n != 1) {
		free(r);
		return ctl_usage_error(c, "-R: '%s' is %d addresses; -R replaces one rule",
				       c->source, n);
	}
	ret = send_rules(c, cmd, r, n, pos, origin);
	free(r);
	return ret;
}

int cmd_append(struct ctl *c)
{
	return rule_cmd(c, NFSFAIR_CMD_RULE_APPEND, 0, true);
}

int cmd_insert(struct ctl *c)
{
	uint32_t pos = 1;

	if (c->argc && ctl_position(c, c->argv[0], &pos))
		return CTL_USAGE;
	return rule_cmd(c, NFSFAIR_CMD_RULE_INSERT, pos, true);
}

int cmd_replace(struct ctl *c)
{
	uint32_t pos;

	if (ctl_position(c, c->argv[0], &pos))
		return CTL_USAGE;
	return rule_cmd(c, NFSFAIR_CMD_RULE_REPLACE, pos, true);
}

int cmd_delete(struct ctl *c)
{
	bool spec = (c->opts & (OPT_SOURCE | OPT_TARGET)) == (OPT_SOURCE | OPT_TARGET);
	struct nl_msg *msg;
	uint32_t pos;
	int ret;

	if (c->argc && (c->opts & (OPT_SOURCE | OPT_TARGET)))
		return ctl_usage_error(c, "-D takes NUM or -s SOURCE -j TARGET, not both");
	if (!c->argc && !spec)
		return ctl_usage_error(c, "-D needs NUM, or -s SOURCE and -j TARGET");
	if (spec)
		return rule_cmd(c, NFSFAIR_CMD_RULE_DEL, 0, false);
	if (ctl_position(c, c->argv[0], &pos))
		return CTL_USAGE;
	ret = ctl_nl(c);
	if (ret)
		return ret;
	msg = nfsfair_nl_msg(c->nl, NFSFAIR_CMD_RULE_DEL, false);
	if (!msg || nla_put_u32(msg, NFSFAIR_A_RULE_POSITION, pos) < 0)
		return ctl_error("out of memory");
	ret = nfsfair_nl_run(c->nl, msg, 0, NULL, NULL);
	return ret < 0 ? ctl_kernel_error(c, ret, SET_RULE) : CTL_OK;
}

int cmd_check(struct ctl *c)
{
	struct ctl_rules rules;
	struct nfsfair_rule *r;
	char text[NFSFAIR_RULE_STRLEN];
	int n, i, j, ret;

	ret = rules_of(c, &r, &n);
	if (ret)
		return ret;
	ret = ctl_rules_dump(c, &rules);
	if (ret)
		goto free_r;
	for (i = 0; i < n; i++) {
		for (j = 0; j < rules.n && !nfsfair_rule_equal(&r[i], &rules.v[j]); j++)
			;
		if (j == rules.n) {
			nfsfair_rule_format(&r[i], text, sizeof(text));
			ret = ctl_error("no rule %s", text);
			break;
		}
	}
	free(rules.v);
free_r:
	free(r);
	return ret;
}

static int simple(struct ctl *c, uint8_t cmd, bool origin)
{
	struct nl_msg *msg;
	int ret;

	ret = ctl_nl(c);
	if (ret)
		return ret;
	msg = nfsfair_nl_msg(c->nl, cmd, false);
	if (!msg || (origin && nla_put_u32(msg, NFSFAIR_A_RULE_ORIGIN, c->origin) < 0))
		return ctl_error("out of memory");
	ret = nfsfair_nl_run(c->nl, msg, 0, NULL, NULL);
	return ret < 0 ? ctl_kernel_error(c, ret, SET_RULE) : CTL_OK;
}

int cmd_flush(struct ctl *c)
{
	return simple(c, NFSFAIR_CMD_RULE_FLUSH, c->opts & OPT_ORIGIN);
}

int cmd_zero(struct ctl *c)
{
	return simple(c, NFSFAIR_CMD_COUNTERS_ZERO, false);
}
