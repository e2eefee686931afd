// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's table read back: every rule in order, every class with
 * its counters. nfsfair-ctl and nfsfaird both read it; written once here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/attr.h>

#include "nfsfair.h"

struct grow {
	void **v;
	int *n;
	size_t size;
};

/* Room for one more element at the end of *g->v; NULL when out of memory. */
static void *grow_one(struct grow *g)
{
	char *v = realloc(*g->v, (*g->n + 1) * g->size);

	if (!v)
		return NULL;
	*g->v = v;
	memset(v + *g->n * g->size, 0, g->size);
	return v + (*g->n)++ * g->size;
}

static int rule_cb(struct nlattr **tb, void *arg)
{
	struct nfsfair_rule *r = grow_one(arg);

	if (!r)
		return -ENOMEM;
	return nfsfair_nla_get_rule(tb, r) < 0 ? -EPROTO : 0;
}

static int class_cb(struct nlattr **tb, void *arg)
{
	struct nfsfair_class *k;

	if (!tb[NFSFAIR_A_CLASS_NAME])
		return 0;
	k = grow_one(arg);
	if (!k)
		return -ENOMEM;
	snprintf(k->name, sizeof(k->name), "%s", nla_get_string(tb[NFSFAIR_A_CLASS_NAME]));
	k->weight = tb[NFSFAIR_A_CLASS_WEIGHT] ? nla_get_u32(tb[NFSFAIR_A_CLASS_WEIGHT]) : 1;
	k->rules = nfsfair_nla_uint(tb[NFSFAIR_A_CLASS_RULES]);
	k->dispatches = nfsfair_nla_uint(tb[NFSFAIR_A_CLASS_DISPATCHES]);
	k->connections = nfsfair_nla_uint(tb[NFSFAIR_A_CLASS_CONNECTIONS]);
	k->queued = nfsfair_nla_uint(tb[NFSFAIR_A_CLASS_QUEUED]);
	k->qtime_total_us = nfsfair_nla_uint(tb[NFSFAIR_A_CLASS_QTIME_TOTAL_US]);
	k->qtime_max_us = nfsfair_nla_uint(tb[NFSFAIR_A_CLASS_QTIME_MAX_US]);
	k->threads = nfsfair_nla_uint(tb[NFSFAIR_A_CLASS_THREADS]);
	k->peers = nfsfair_nla_uint(tb[NFSFAIR_A_CLASS_PEERS]);
	return 0;
}

static int read_all(struct nfsfair_nl *nl, uint8_t cmd, int maxattr, nfsfair_nl_cb cb,
		    void **v, int *n, size_t size)
{
	struct grow g = { .v = v, .n = n, .size = size };
	struct nl_msg *msg = nfsfair_nl_msg(nl, cmd, true);
	int ret;

	*v = NULL;
	*n = 0;
	if (!msg)
		return -ENOMEM;
	ret = nfsfair_nl_run(nl, msg, maxattr, cb, &g);
	if (ret < 0) {
		free(*v);
		*v = NULL;
		*n = 0;
	}
	return ret;
}

/* Every rule, in order. Returns 0 or a negative errno; free(*v) after. */
int nfsfair_read_rules(struct nfsfair_nl *nl, struct nfsfair_rule **v, int *n)
{
	return read_all(nl, NFSFAIR_CMD_RULE_GET, NFSFAIR_A_RULE_MAX, rule_cb,
			(void **)v, n, sizeof(**v));
}

/* Every class with its counters. Returns 0 or a negative errno; free(*v) after. */
int nfsfair_read_classes(struct nfsfair_nl *nl, struct nfsfair_class **v, int *n)
{
	return read_all(nl, NFSFAIR_CMD_CLASS_GET, NFSFAIR_A_CLASS_MAX, class_cb,
			(void **)v, n, sizeof(**v));
}
