// SPDX-License-Identifier: GPL-2.0
/*
 * stats --pools: fairness pool by pool. Each of nfsd's thread pools runs
 * its own round, so the sums over pools can hide a client that one pool
 * serves less than another. Between two client-get dumps, each live
 * client's share of each pool's dispatches, and the clients whose shares
 * of two pools differ too much. No netlink here: tests/unit/stats-pools.c
 * feeds it dumps of its own.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

/*
 * A client's shares of two pools make a skew when they differ by more
 * than SKEW_POINTS, both pools having dispatched at least
 * SKEW_MIN_DISPATCHES in the interval: fewer say nothing.
 */
#define SKEW_POINTS		10.0
#define SKEW_MIN_DISPATCHES	100

struct dump {
	const struct nfsfair_client *v;
	int n;
};

/* A counter's growth; a client that came back counts from 0. */
static uint64_t delta(uint64_t now, uint64_t then)
{
	return now >= then ? now - then : now;
}

/* Do A and B name the same client: kind, and class, address or client ID? */
static bool same_client(const struct nfsfair_client *a, const struct nfsfair_client *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case NFSFAIR_CLIENT_KIND_CLASS:
		return !strcmp(a->class, b->class);
	case NFSFAIR_CLIENT_KIND_PER_HOST:
	case NFSFAIR_CLIENT_KIND_OVERFLOW:	/* one a prefix, and the last with none */
		return nfsfair_prefix_equal(&a->prefix, &b->prefix);
	case NFSFAIR_CLIENT_KIND_CLIENT_ID:
		return a->client_id == b->client_id;
	default:
		return true;
	}
}

/*
 * Client K's dispatches in pool ID over the interval, 0 where it has no
 * nest for the pool; *pool is its nest, or NULL.
 */
static uint64_t pool_dispatches(const struct nfsfair_client *k, const struct dump *then,
				uint32_t id, const struct nfsfair_pool **pool)
{
	const struct nfsfair_client *p = NULL;
	uint64_t was = 0;
	int i;

	*pool = NULL;
	for (i = 0; i < k->npools && k->pools[i].id != id; i++)
		;
	if (i == k->npools)
		return 0;
	*pool = &k->pools[i];
	for (i = 0; i < then->n && !p; i++)
		if (same_client(k, &then->v[i]))
			p = &then->v[i];
	for (i = 0; p && i < p->npools; i++)
		if (p->pools[i].id == id)
			was = p->pools[i].dispatches;
	return delta((*pool)->dispatches, was);
}

/* The client's name in the text (in a column of 28 with @pad), its identity in JSON. */
static void print_who(const struct nfsfair_client *k, bool pad)
{
	char who[NFSFAIR_PREFIX_STRLEN + 32], a[NFSFAIR_PREFIX_STRLEN];
	char owner[NFSFAIR_OWNER_STRLEN];

	switch (k->kind) {
	case NFSFAIR_CLIENT_KIND_CLASS:
		snprintf(who, sizeof(who), "class %s", k->class);
		print_string(PRINT_JSON, "kind", NULL, "class");
		print_string(PRINT_JSON, "class", NULL, k->class);
		break;
	case NFSFAIR_CLIENT_KIND_PER_HOST:
		nfsfair_prefix_format(&k->prefix, a, sizeof(a));
		snprintf(who, sizeof(who), "per-host %s", a);
		print_string(PRINT_JSON, "kind", NULL, "per-host");
		print_string(PRINT_JSON, "prefix", NULL, a);
		break;
	case NFSFAIR_CLIENT_KIND_CLIENT_ID:
		/* hex, as a string: 64 bits do not survive a JSON double */
		snprintf(a, sizeof(a), "0x%016" PRIx64, k->client_id);
		snprintf(who, sizeof(who), "client-id %s", a);
		output_fmt_owner(k->owner, k->owner_len, owner, sizeof(owner));
		print_string(PRINT_JSON, "kind", NULL, "client-id");
		print_string(PRINT_JSON, "client-id", NULL, a);
		print_string(PRINT_JSON, "owner", NULL, owner);
		break;
	case NFSFAIR_CLIENT_KIND_OVERFLOW:
		print_string(PRINT_JSON, "kind", NULL, "overflow");
		if (!k->prefix.family) {
			snprintf(who, sizeof(who), "overflow");
			break;
		}
		nfsfair_prefix_format(&k->prefix, a, sizeof(a));
		snprintf(who, sizeof(who), "overflow %s", a);
		print_string(PRINT_JSON, "prefix", NULL, a);
		break;
	default:
		snprintf(who, sizeof(who), "default");
		print_string(PRINT_JSON, "kind", NULL, who);
		break;
	}
	print_string(PRINT_FP, NULL, pad ? "%-28s" : "%s", who);
}

struct pools {
	uint32_t *id;		/* every pool a client has a nest for, ascending */
	uint64_t *total;	/* its dispatches in the interval, all clients */
	int n;
};

static void pools_free(struct pools *ps)
{
	free(ps->id);
	free(ps->total);
}

static int pools_collect(const struct dump *now, const struct dump *then, struct pools *ps)
{
	const struct nfsfair_pool *p;
	uint32_t id;
	int i, j, k, n = 0;

	for (i = 0; i < now->n; i++)
		n += now->v[i].npools;
	ps->id = calloc(n + 1, sizeof(*ps->id));
	ps->total = calloc(n + 1, sizeof(*ps->total));
	ps->n = 0;
	if (!ps->id || !ps->total)
		return -ENOMEM;
	for (i = 0; i < now->n; i++) {
		for (j = 0; j < now->v[i].npools; j++) {
			id = now->v[i].pools[j].id;
			for (k = 0; k < ps->n && ps->id[k] < id; k++)
				;
			if (k == ps->n || ps->id[k] != id) {
				memmove(&ps->id[k + 1], &ps->id[k], (ps->n - k) * sizeof(*ps->id));
				memmove(&ps->total[k + 1], &ps->total[k],
					(ps->n - k) * sizeof(*ps->total));
				ps->id[k] = id;
				ps->total[k] = 0;
				ps->n++;
			}
			ps->total[k] += pool_dispatches(&now->v[i], then, id, &p);
		}
	}
	return 0;
}

/* A client's highest and lowest share among the pools that dispatched enough to tell. */
struct spread {
	int pools;		/* such pools */
	int hi, lo;		/* their indexes in struct pools */
	double hi_pct, lo_pct;
};

static bool skewed(const struct spread *sp)
{
	return sp->pools >= 2 && sp->hi_pct - sp->lo_pct > SKEW_POINTS;
}

/* One client's rows, one per pool: its share of the pool's dispatches. */
static void print_rows(const struct nfsfair_client *k, const struct dump *then,
		       const struct pools *ps, unsigned int wait, struct spread *sp)
{
	const struct nfsfair_pool *p;
	double share;
	uint64_t d;
	int i;

	memset(sp, 0, sizeof(*sp));
	open_json_array("pools");
	for (i = 0; i < ps->n; i++) {
		d = pool_dispatches(k, then, ps->id[i], &p);
		share = ps->total[i] ? 100.0 * d / ps->total[i] : 0;
		if (ps->total[i] >= SKEW_MIN_DISPATCHES) {
			if (!sp->pools || share > sp->hi_pct) {
				sp->hi = i;
				sp->hi_pct = share;
			}
			if (!sp->pools || share < sp->lo_pct) {
				sp->lo = i;
				sp->lo_pct = share;
			}
			sp->pools++;
		}
		open_json_object(NULL);
		if (i)
			print_string(PRINT_FP, NULL, "%-28s", "");
		print_uint(PRINT_ANY, "pool", " %4" PRIu64, ps->id[i]);
		print_float(PRINT_ANY, "share-pct", " %5.1f%%", share);
		print_float(PRINT_ANY, "dispatches-per-s", " %8.1f", (double)d / wait);
		print_uint(PRINT_JSON, "dispatches", NULL, d);
		print_uint(PRINT_ANY, "threads", " %7" PRIu64, p ? p->threads : 0);
		print_uint(PRINT_ANY, "queued", " %6" PRIu64, p ? p->queued : 0);
		close_json_object();
		print_nl();
	}
	close_json_array();
	if (!ps->n)
		print_nl();
}

static void print_skew(const struct nfsfair_client *k, const struct pools *ps,
		       const struct spread *sp)
{
	print_string(PRINT_FP, NULL, "%s", "skew: ");
	print_who(k, false);
	print_float(PRINT_FP, NULL, " %.1f%%", sp->hi_pct);
	print_uint(PRINT_FP, NULL, " of pool %" PRIu64, ps->id[sp->hi]);
	print_float(PRINT_FP, NULL, ", %.1f%%", sp->lo_pct);
	print_uint(PRINT_FP, NULL, " of pool %" PRIu64, ps->id[sp->lo]);
	print_float(PRINT_FP, NULL, ": %.1f points apart\n", sp->hi_pct - sp->lo_pct);
}

static bool shown(const struct nfsfair_client *k, const char *only)
{
	return !only || (k->kind == NFSFAIR_CLIENT_KIND_CLASS && !strcmp(k->class, only));
}

/**
 * ctl_pools_screen - one screen of stats --pools
 * @only: a class name, to show that class alone; NULL for every client
 * @wait: the seconds between the two dumps
 * @now, @nnow: client-get with pools, now
 * @then, @nthen: the same, @wait seconds before
 *
 * Every client counts in a pool's total, @only or not.
 * Return: 0, or an exit status.
 */
int ctl_pools_screen(const char *only, unsigned int wait, const struct nfsfair_client *now,
		     int nnow, const struct nfsfair_client *then, int nthen)
{
	const struct dump dnow = { now, nnow }, dthen = { then, nthen };
	struct pools ps = { 0 };
	struct spread *sp;
	uint64_t total = 0;
	int i, skews = 0;

	sp = calloc(nnow + 1, sizeof(*sp));
	if (!sp || pools_collect(&dnow, &dthen, &ps) < 0) {
		free(sp);
		pools_free(&ps);
		return ctl_error("out of memory");
	}
	for (i = 0; i < ps.n; i++)
		total += ps.total[i];
	open_json_object(NULL);
	print_uint(PRINT_ANY, "interval", "every %" PRIu64 "s: ", wait);
	print_uint(PRINT_ANY, "dispatches", "%" PRIu64 " dispatches", total);
	print_uint(PRINT_FP, NULL, " in %" PRIu64, ps.n);
	print_string(PRINT_FP, NULL, "%s", ps.n == 1 ? " pool:" : " pools:");
	print_float(PRINT_JSON, "skew-points", NULL, SKEW_POINTS);
	print_uint(PRINT_JSON, "skew-min-dispatches", NULL, SKEW_MIN_DISPATCHES);
	open_json_array("pools");
	for (i = 0; i < ps.n; i++) {
		open_json_object(NULL);
		print_string(PRINT_FP, NULL, "%s", i ? "," : "");
		print_uint(PRINT_ANY, "pool", " pool %" PRIu64, ps.id[i]);
		print_uint(PRINT_ANY, "dispatches", ": %" PRIu64, ps.total[i]);
		close_json_object();
	}
	close_json_array();
	print_string(PRINT_FP, NULL, "\n%s\n",
		     "client                       pool  share   disp/s threads queued");
	open_json_array("clients");
	for (i = 0; i < nnow; i++) {
		if (!shown(&now[i], only))
			continue;
		open_json_object(NULL);
		print_who(&now[i], true);
		print_rows(&now[i], &dthen, &ps, wait, &sp[i]);
		if (sp[i].pools >= 2)
			print_float(PRINT_JSON, "spread-points", NULL, sp[i].hi_pct - sp[i].lo_pct);
		else
			print_null(PRINT_JSON, "spread-points", NULL, NULL);
		print_bool(PRINT_JSON, "skew", NULL, skewed(&sp[i]));
		close_json_object();
		skews += skewed(&sp[i]);
	}
	close_json_array();
	close_json_object();
	/* in JSON, "skew" and "spread-points" above say it */
	for (i = 0; !output_is_json() && i < nnow; i++)
		if (shown(&now[i], only) && skewed(&sp[i]))
			print_skew(&now[i], &ps, &sp[i]);
	if (!skews) {
		print_uint(PRINT_FP, NULL, "no skew: no client's shares of two pools with %" PRIu64,
			   SKEW_MIN_DISPATCHES);
		print_float(PRINT_FP, NULL, " dispatches or more differ by more than %.0f points\n",
			    SKEW_POINTS);
	}
	free(sp);
	pools_free(&ps);
	return 0;
}
