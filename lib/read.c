// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's table read back: every rule in order, every class with
 * its counters, nfsd's live clients. nfsfair-ctl and nfsfaird both read
 * it; written once here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

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

static int client_cb(struct nlattr **tb, void *arg)
{
	struct nfsfair_client *k = grow_one(arg);
	struct nlattr *a;

	if (!k)
		return -ENOMEM;
	if (tb[NFSFAIR_A_CLIENT_KIND])
		k->kind = nla_get_u32(tb[NFSFAIR_A_CLIENT_KIND]);
	if (tb[NFSFAIR_A_CLIENT_CLASS])
		snprintf(k->class, sizeof(k->class), "%s",
			 nla_get_string(tb[NFSFAIR_A_CLIENT_CLASS]));
	if (tb[NFSFAIR_A_CLIENT_ADDR4] && nla_len(tb[NFSFAIR_A_CLIENT_ADDR4]) == 4) {
		k->prefix.family = AF_INET;
		memcpy(k->prefix.addr, nla_data(tb[NFSFAIR_A_CLIENT_ADDR4]), 4);
	} else if (tb[NFSFAIR_A_CLIENT_ADDR6] && nla_len(tb[NFSFAIR_A_CLIENT_ADDR6]) == 16) {
		k->prefix.family = AF_INET6;
		memcpy(k->prefix.addr, nla_data(tb[NFSFAIR_A_CLIENT_ADDR6]), 16);
	}
	if (tb[NFSFAIR_A_CLIENT_PREFIX_LEN])
		k->prefix.len = nla_get_u8(tb[NFSFAIR_A_CLIENT_PREFIX_LEN]);
	k->client_id = nfsfair_nla_uint(tb[NFSFAIR_A_CLIENT_CLIENT_ID]);
	a = tb[NFSFAIR_A_CLIENT_OWNER];
	if (a) {
		k->owner_len = nla_len(a) < NFSFAIR_OWNER_LEN ? nla_len(a) : NFSFAIR_OWNER_LEN;
		memcpy(k->owner, nla_data(a), k->owner_len);
	}
	k->connections = nfsfair_nla_uint(tb[NFSFAIR_A_CLIENT_CONNECTIONS]);
	k->dispatches = nfsfair_nla_uint(tb[NFSFAIR_A_CLIENT_DISPATCHES]);
	k->queued = nfsfair_nla_uint(tb[NFSFAIR_A_CLIENT_QUEUED]);
	k->peers = nfsfair_nla_uint(tb[NFSFAIR_A_CLIENT_PEERS]);
	k->has_peer = tb[NFSFAIR_A_CLIENT_PEER_CONNECTIONS] != NULL;
	k->peer_connections = nfsfair_nla_uint(tb[NFSFAIR_A_CLIENT_PEER_CONNECTIONS]);
	return 0;
}

/* Runs the dump MSG (NULL: out of memory), collecting what CB makes of each reply. */
static int read_all(struct nfsfair_nl *nl, struct nl_msg *msg, int maxattr, nfsfair_nl_cb cb,
		    void **v, int *n, size_t size)
{
	struct grow g = { .v = v, .n = n, .size = size };
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
	return read_all(nl, nfsfair_nl_msg(nl, NFSFAIR_CMD_RULE_GET, true), NFSFAIR_A_RULE_MAX,
			rule_cb, (void **)v, n, sizeof(**v));
}

/* Every class with its counters. Returns 0 or a negative errno; free(*v) after. */
int nfsfair_read_classes(struct nfsfair_nl *nl, struct nfsfair_class **v, int *n)
{
	return read_all(nl, nfsfair_nl_msg(nl, NFSFAIR_CMD_CLASS_GET, true), NFSFAIR_A_CLASS_MAX,
			class_cb, (void **)v, n, sizeof(**v));
}

/*
 * nfsd's live clients, or with @peer (an address) only those holding its
 * connections. Returns 0 or a negative errno; free(*v) after.
 */
int nfsfair_read_clients(struct nfsfair_nl *nl, const struct nfsfair_prefix *peer,
			 struct nfsfair_client **v, int *n)
{
	struct nl_msg *msg = nfsfair_nl_msg(nl, NFSFAIR_CMD_CLIENT_GET, true);

	if (msg && peer && (peer->family == AF_INET ?
			    nla_put(msg, NFSFAIR_A_CLIENT_PEER_ADDR4, 4, peer->addr) :
			    nla_put(msg, NFSFAIR_A_CLIENT_PEER_ADDR6, 16, peer->addr)) < 0) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return read_all(nl, msg, NFSFAIR_A_CLIENT_MAX, client_cb, (void **)v, n, sizeof(**v));
}
