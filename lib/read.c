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
	struct nfsfair_nl *nl;
	struct nfsfair_pool **pools;	/* NULL: the pool nests are not wanted */
	int *npools;
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

/* An attribute an older kernel may not send: NFSFAIR_UNKNOWN without it, not 0. */
static uint64_t nla_uint_or_unknown(const struct nlattr *a)
{
	return a ? nfsfair_nla_uint(a) : NFSFAIR_UNKNOWN;
}

static int pool_cb(const struct nlattr *a, void *arg)
{
	struct nlattr *tb[NFSFAIR_A_POOL_STATS_MAX + 1];
	struct grow *g = arg;
	struct grow pg = {
		.v = (void **)g->pools, .n = g->npools, .size = sizeof(**g->pools),
	};
	struct nfsfair_pool *p;

	if (nla_parse_nested(tb, NFSFAIR_A_POOL_STATS_MAX, (struct nlattr *)a, NULL) < 0)
		return -EPROTO;
	p = grow_one(&pg);
	if (!p)
		return -ENOMEM;
	p->item = *g->n - 1;
	if (tb[NFSFAIR_A_POOL_STATS_ID])
		p->id = nfsfair_nla_uint(tb[NFSFAIR_A_POOL_STATS_ID]);
	p->dispatches = nfsfair_nla_uint(tb[NFSFAIR_A_POOL_STATS_DISPATCHES]);
	p->queued = nfsfair_nla_uint(tb[NFSFAIR_A_POOL_STATS_QUEUED]);
	p->threads = nfsfair_nla_uint(tb[NFSFAIR_A_POOL_STATS_THREADS]);
	p->qtime_total_us = nfsfair_nla_uint(tb[NFSFAIR_A_POOL_STATS_QTIME_TOTAL_US]);
	p->qtime_max_us = nfsfair_nla_uint(tb[NFSFAIR_A_POOL_STATS_QTIME_MAX_US]);
	p->thread_ns = nla_uint_or_unknown(tb[NFSFAIR_A_POOL_STATS_THREAD_NS]);
	return 0;
}

/* The pool nests of the reply at hand, for the item just added. */
static int pools_of(struct grow *g, int type)
{
	return g->pools ? nfsfair_nl_each(g->nl, type, pool_cb, g) : 0;
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
	k->weight = tb[NFSFAIR_A_CLASS_WEIGHT] ? nfsfair_nla_uint(tb[NFSFAIR_A_CLASS_WEIGHT]) : 1;
	k->rules = nfsfair_nla_uint(tb[NFSFAIR_A_CLASS_RULES]);
	k->dispatches = nfsfair_nla_uint(tb[NFSFAIR_A_CLASS_DISPATCHES]);
	k->connections = nfsfair_nla_uint(tb[NFSFAIR_A_CLASS_CONNECTIONS]);
	k->queued = nfsfair_nla_uint(tb[NFSFAIR_A_CLASS_QUEUED]);
	k->qtime_total_us = nfsfair_nla_uint(tb[NFSFAIR_A_CLASS_QTIME_TOTAL_US]);
	k->qtime_max_us = nfsfair_nla_uint(tb[NFSFAIR_A_CLASS_QTIME_MAX_US]);
	k->threads = nfsfair_nla_uint(tb[NFSFAIR_A_CLASS_THREADS]);
	k->peers = nfsfair_nla_uint(tb[NFSFAIR_A_CLASS_PEERS]);
	k->limit = tb[NFSFAIR_A_CLASS_LIMIT] ? nfsfair_nla_uint(tb[NFSFAIR_A_CLASS_LIMIT]) : 0;
	k->limit_skips = nfsfair_nla_uint(tb[NFSFAIR_A_CLASS_LIMIT_SKIPS]);
	k->limit_time_us = nfsfair_nla_uint(tb[NFSFAIR_A_CLASS_LIMIT_TIME_US]);
	k->threads_max = nfsfair_nla_uint(tb[NFSFAIR_A_CLASS_THREADS_MAX]);
	k->thread_ns = nla_uint_or_unknown(tb[NFSFAIR_A_CLASS_THREAD_NS]);
	return pools_of(arg, NFSFAIR_A_CLASS_POOL);
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
		k->prefix.len = nfsfair_nla_uint(tb[NFSFAIR_A_CLIENT_PREFIX_LEN]);
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
	k->threads = nfsfair_nla_uint(tb[NFSFAIR_A_CLIENT_THREADS]);
	k->thread_ns = nla_uint_or_unknown(tb[NFSFAIR_A_CLIENT_THREAD_NS]);
	k->cost_ns = nla_uint_or_unknown(tb[NFSFAIR_A_CLIENT_COST_NS]);
	return pools_of(arg, NFSFAIR_A_CLIENT_POOL);
}

/*
 * Runs the dump MSG (NULL: out of memory), collecting what CB makes of
 * each reply, and with @pools each reply's pool nests into one array.
 * A dump the table changed under (parts of two tables) is run again.
 */
static int read_all(struct nfsfair_nl *nl, struct nl_msg *msg, int maxattr, nfsfair_nl_cb cb,
		    void **v, int *n, size_t size, struct nfsfair_pool **pools, int *npools)
{
	struct grow g = {
		.v = v, .n = n, .size = size, .nl = nl, .pools = pools, .npools = npools,
	};
	struct nl_msg *again;
	int ret, tries = 0;

	do {
		*v = NULL;
		*n = 0;
		if (pools) {
			*pools = NULL;
			*npools = 0;
		}
		if (!msg)
			return -ENOMEM;
		/* the request is consumed: a copy for the next try */
		again = ++tries < 10 ? nlmsg_convert(nlmsg_hdr(msg)) : NULL;
		ret = nfsfair_nl_run(nl, msg, maxattr, cb, &g);
		if (ret < 0) {
			free(*v);
			*v = NULL;
			*n = 0;
			if (pools) {
				free(*pools);
				*pools = NULL;
				*npools = 0;
			}
		}
		msg = again;
	} while (ret == -EAGAIN && msg);
	nlmsg_free(msg);
	return ret;
}

/*
 * Point each class or client at its pools once the pool array has stopped
 * moving; an item's pools came in its own reply, so they are adjacent.
 */
static void class_pools_link(struct nfsfair_class *v, int n, const struct nfsfair_pool *p,
			     int np)
{
	int i;

	for (i = 0; i < np; i++) {
		if (p[i].item < 0 || p[i].item >= n)
			continue;
		if (!v[p[i].item].pools)
			v[p[i].item].pools = &p[i];
		v[p[i].item].npools++;
	}
}

static void client_pools_link(struct nfsfair_client *v, int n, const struct nfsfair_pool *p,
			      int np)
{
	int i;

	for (i = 0; i < np; i++) {
		if (p[i].item < 0 || p[i].item >= n)
			continue;
		if (!v[p[i].item].pools)
			v[p[i].item].pools = &p[i];
		v[p[i].item].npools++;
	}
}

/* Every rule, in order. Returns 0 or a negative errno; free(*v) after. */
int nfsfair_read_rules(struct nfsfair_nl *nl, struct nfsfair_rule **v, int *n)
{
	return read_all(nl, nfsfair_nl_msg(nl, NFSFAIR_CMD_RULE_GET, true), NFSFAIR_A_RULE_MAX,
			rule_cb, (void **)v, n, sizeof(**v), NULL, NULL);
}

/* Every class with its counters. Returns 0 or a negative errno; free(*v) after. */
int nfsfair_read_classes(struct nfsfair_nl *nl, struct nfsfair_class **v, int *n)
{
	return read_all(nl, nfsfair_nl_msg(nl, NFSFAIR_CMD_CLASS_GET, true), NFSFAIR_A_CLASS_MAX,
			class_cb, (void **)v, n, sizeof(**v), NULL, NULL);
}

/*
 * Every class with its counters, and split by thread pool: each class's
 * pools point into *pools. Returns 0 or a negative errno; free(*v) and
 * free(*pools) after.
 */
int nfsfair_read_classes_pools(struct nfsfair_nl *nl, struct nfsfair_class **v, int *n,
			       struct nfsfair_pool **pools, int *npools)
{
	int ret;

	ret = read_all(nl, nfsfair_nl_msg(nl, NFSFAIR_CMD_CLASS_GET, true), NFSFAIR_A_CLASS_MAX,
		       class_cb, (void **)v, n, sizeof(**v), pools, npools);
	if (!ret)
		class_pools_link(*v, *n, *pools, *npools);
	return ret;
}

/*
 * nfsd's live clients, or with @peer (an address) only those holding its
 * connections. Returns 0 or a negative errno; free(*v) after.
 */
int nfsfair_read_clients(struct nfsfair_nl *nl, const struct nfsfair_prefix *peer,
			 struct nfsfair_client **v, int *n)
{
	return nfsfair_read_clients_pools(nl, peer, v, n, NULL, NULL);
}

/* The same, and with @pools each client's counters split by pool; free(*pools) after. */
int nfsfair_read_clients_pools(struct nfsfair_nl *nl, const struct nfsfair_prefix *peer,
			       struct nfsfair_client **v, int *n, struct nfsfair_pool **pools,
			       int *npools)
{
	struct nl_msg *msg = nfsfair_nl_msg(nl, NFSFAIR_CMD_CLIENT_GET, true);
	int ret;

	if (msg && peer && (peer->family == AF_INET ?
			    nla_put(msg, NFSFAIR_A_CLIENT_PEER_ADDR4, 4, peer->addr) :
			    nla_put(msg, NFSFAIR_A_CLIENT_PEER_ADDR6, 16, peer->addr)) < 0) {
		nlmsg_free(msg);
		msg = NULL;
	}
	ret = read_all(nl, msg, NFSFAIR_A_CLIENT_MAX, client_cb, (void **)v, n, sizeof(**v), pools,
		       npools);
	if (!ret && pools)
		client_pools_link(*v, *n, *pools, *npools);
	return ret;
}
