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
	uint8_t origin;
	struct nfsfair_rule *rules;
	size_t nr_rules;
	struct want_class *classes;
	size_t nr_classes;
	uint64_t generation;
};

static int have_rule(struct nlattr **tb, void *arg)
{
	struct have *h = arg;
	struct nfsfair_rule r, *v;

	if (nfsfair_nla_get_rule(tb, &r) || r.origin != h->origin)
		return 0;
	v = realloc(h->rules, (h->nr_rules + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	h->rules = v;
	h->rules[h->nr_rules++] = r;
	return 0;
}

static int have_class(struct nlattr **tb, void *arg)
{
	struct have *h = arg;
	struct want_class *v;

	if (!tb[NFSFAIR_A_CLASS_NAME])
		return 0;
	v = realloc(h->classes, (h->nr_classes + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	h->classes = v;
	v = &h->classes[h->nr_classes++];
	snprintf(v->name, sizeof(v->name), "%s", nla_get_string(tb[NFSFAIR_A_CLASS_NAME]));
	v->weight = tb[NFSFAIR_A_CLASS_WEIGHT] ? nla_get_u32(tb[NFSFAIR_A_CLASS_WEIGHT]) : 1;
	return 0;
}

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
		ret = nfsfair_nl_run(nl, nfsfair_nl_msg(nl, NFSFAIR_CMD_RULE_GET, true),
				     NFSFAIR_A_RULE_MAX, have_rule, h);
	if (!ret)
		ret = nfsfair_nl_run(nl, nfsfair_nl_msg(nl, NFSFAIR_CMD_CLASS_GET, true),
				     NFSFAIR_A_CLASS_MAX, have_class, h);
	return ret;
}

static bool same(const struct want *w, const struct have *h)
{
	size_t i, j;

	if (w->nr_rules != h->nr_rules)
		return false;
	for (i = 0; i < w->nr_rules; i++)
		if (!nfsfair_rule_equal(&w->rules[i], &h->rules[i]))
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
	struct have h = { .origin = w->origin };
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
		h.origin = w->origin;
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
