// SPDX-License-Identifier: GPL-2.0
/*
 * Apply: read what the kernel has, and when the daemon's origin's rules
 * or the weights of its classes differ from what the configuration asks,
 * replace them in one table-replace. Never flush-then-add (there would be
 * a moment when everyone is unclassified); never touch other origins.
 * Nothing written when nothing differs, so a restart with the same file
 * costs the kernel nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include "daemon.h"

struct have {
	struct nfsfair_rule *rules;	/* every rule; same() looks at one origin */
	int nr_rules;
	struct nfsfair_class *classes;
	int nr_classes;
	uint64_t generation;
};

static int have_generation(struct nlattr **tb, void *arg)
{
	struct have *h = arg;

	if (tb[NFSFAIR_A_TABLE_GENERATION])
		h->generation = nfsfair_nla_uint(tb[NFSFAIR_A_TABLE_GENERATION]);
	return 0;
}

static int read_have(struct nfsfair_nl *nl, struct have *h)
{
	int ret;

	ret = nfsfair_nl_run(nl, nfsfair_nl_msg(nl, NFSFAIR_CMD_TABLE_GET, false),
			     NFSFAIR_A_TABLE_MAX, have_generation, h);
	if (!ret)
		ret = nfsfair_read_rules(nl, &h->rules, &h->nr_rules);
	if (!ret)
		ret = nfsfair_read_classes(nl, &h->classes, &h->nr_classes);
	return ret;
}

static bool same(const struct want *w, const struct have *h)
{
	size_t i = 0;
	int j;

	/* The origin's rules, in order, and nothing more of that origin. */
	for (j = 0; j < h->nr_rules; j++) {
		if (h->rules[j].origin != w->origin)
			continue;
		if (i == w->nr_rules || !nfsfair_rule_equal(&w->rules[i], &h->rules[j]))
			return false;
		i++;
	}
	if (i != w->nr_rules)
		return false;
	for (i = 0; i < w->nr_classes; i++) {
		for (j = 0; j < h->nr_classes; j++)
			if (!strcmp(w->classes[i].name, h->classes[j].name))
				break;
		if (j == h->nr_classes || h->classes[j].weight != w->classes[i].weight)
			return false;
	}
	return true;
}

static struct nl_msg *replace_msg(struct nfsfair_nl *nl, const struct want *w, uint64_t gen)
{
	struct nl_msg *msg = nfsfair_nl_msg_big(nl, NFSFAIR_CMD_TABLE_REPLACE);
	struct nlattr *nest;
	size_t i;

	if (!msg)
		return NULL;
	if (nla_put_u8(msg, NFSFAIR_A_TABLE_ORIGIN, w->origin) ||
	    nla_put_u64(msg, NFSFAIR_A_TABLE_GENERATION, gen))
		goto fail;
	for (i = 0; i < w->nr_classes; i++) {
		nest = nla_nest_start(msg, NFSFAIR_A_TABLE_CLASS | NLA_F_NESTED);
		if (!nest || nla_put_string(msg, NFSFAIR_A_CLASS_NAME, w->classes[i].name) ||
		    nla_put_u32(msg, NFSFAIR_A_CLASS_WEIGHT, w->classes[i].weight))
			goto fail;
		nla_nest_end(msg, nest);
	}
	for (i = 0; i < w->nr_rules; i++) {
		nest = nla_nest_start(msg, NFSFAIR_A_TABLE_RULE | NLA_F_NESTED);
		if (!nest || nfsfair_nla_put_rule(msg, &w->rules[i], false))
			goto fail;
		nla_nest_end(msg, nest);
	}
	return msg;
fail:
	nlmsg_free(msg);
	return NULL;
}

/**
 * apply_want - make the kernel's table what @w asks, if it is not already
 * @w: classes and the daemon's origin's rules
 * @changed: set when a replace was sent and accepted
 * @err: the reason of a failure, NFSFAIR_ERR_LEN bytes
 *
 * Return: 0 or a negative errno.
 */
int apply_want(const struct want *w, bool *changed, char *err)
{
	struct nfsfair_nl *nl = NULL;
	struct have h = {};
	struct nl_msg *msg;
	int ret, tries;

	*changed = false;
	err[0] = '\0';
	ret = nfsfair_nl_open(&nl, err);
	if (ret)
		return ret;
	/* A writer racing us changes the generation: read again, once. */
	for (tries = 0; tries < 2; tries++) {
		free(h.rules);
		free(h.classes);
		memset(&h, 0, sizeof(h));
		ret = read_have(nl, &h);
		if (ret) {
			snprintf(err, NFSFAIR_ERR_LEN, "reading the table: %s",
				 *nfsfair_nl_extack(nl) ? nfsfair_nl_extack(nl) : strerror(-ret));
			break;
		}
		if (same(w, &h))
			break;
		msg = replace_msg(nl, w, h.generation);
		if (!msg) {
			snprintf(err, NFSFAIR_ERR_LEN, "the table does not fit one message");
			ret = -EMSGSIZE;
			break;
		}
		ret = nfsfair_nl_run(nl, msg, 0, NULL, NULL);
		if (!ret) {
			*changed = true;
			break;
		}
		snprintf(err, NFSFAIR_ERR_LEN, "kernel reports: %s",
			 *nfsfair_nl_extack(nl) ? nfsfair_nl_extack(nl) : strerror(-ret));
		if (ret != -ESTALE)
			break;
	}
	free(h.rules);
	free(h.classes);
	nfsfair_nl_close(nl);
	return ret;
}
