// SPDX-License-Identifier: GPL-2.0
/*
 * stats --pools' screen (cli/stats-pools.c) on client-get dumps made up
 * here, no kernel: tests/unit/stats-pools.sh compares the text and reads
 * the JSON.
 *
 *   stats-pools SCENARIO [json] [CLASS]
 *
 * skew: two pools; 127.0.0.3 gets 49% of pool 0 and 26% of pool 1, the
 *	reference's numbers, 127.0.0.4 the other way round; class bulk 25%
 *	of both; a third pool with fewer than 100 dispatches, where bulk has
 *	them all, says nothing.
 * even: the same clients, every share within 4 points across pools.
 * one: a single pool.
 * churn: a client new since the first dump, and one whose counters went
 *	back (it went and came again): both count from 0.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cli/ctl.h"

int ctl_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CTL_FAIL;
}

#define MAX_POOLS 3

/* A client with dispatches d[i] in pool i; ~0 for no nest in that pool. */
struct fake {
	struct nfsfair_client k;
	struct nfsfair_pool pools[MAX_POOLS];
};

#define NONE UINT64_MAX

static void fake(struct fake *f, uint32_t kind, const char *what, const uint64_t *d, int npools)
{
	char err[NFSFAIR_ERR_LEN];
	int i;

	memset(f, 0, sizeof(*f));
	f->k.kind = kind;
	if (kind == NFSFAIR_CLIENT_KIND_CLASS)
		snprintf(f->k.class, sizeof(f->k.class), "%s", what);
	else if (kind == NFSFAIR_CLIENT_KIND_PER_HOST && nfsfair_prefix_parse(what, &f->k.prefix, err))
		fprintf(stderr, "%s\n", err);
	else if (kind == NFSFAIR_CLIENT_KIND_CLIENT_ID)
		f->k.client_id = strtoull(what, NULL, 0);
	for (i = 0; i < npools; i++) {
		if (d[i] == NONE)
			continue;
		f->pools[f->k.npools].id = i;
		f->pools[f->k.npools].dispatches = d[i];
		f->pools[f->k.npools].threads = d[i] % 7;
		f->pools[f->k.npools].queued = d[i] % 5;
		f->k.npools++;
	}
	f->k.pools = f->pools;
}

static void flatten(struct fake *f, int n, struct nfsfair_client *out)
{
	int i;

	for (i = 0; i < n; i++) {
		f[i].k.pools = f[i].pools;
		out[i] = f[i].k;
	}
}

int main(int argc, char **argv)
{
	const char *scenario = argc > 1 ? argv[1] : "";
	const char *only = argc > 3 ? argv[3] : NULL;
	struct fake fnow[4], fthen[4];
	struct nfsfair_client now[4], then[4];
	int nnow = 4, nthen = 4, np = 3, ret;

	output_init(argc > 2 && !strcmp(argv[2], "json"), stdout);
	if (!strcmp(scenario, "skew") || !strcmp(scenario, "even")) {
		bool skew = !strcmp(scenario, "skew");
		/* the interval: pool 0 1000, pool 1 400, pool 2 50 dispatches */
		uint64_t b0[] = { 1000, 2000, 3000 }, b1[] = { 1250, 2100, 3050 };
		uint64_t h0[] = { 10, 20, NONE }, h1[] = { 500, skew ? 124 : 200, NONE };
		uint64_t g0[] = { 7, 0, NONE }, g1[] = { 267, skew ? 196 : 120, NONE };
		uint64_t c0[] = { 0, 0, NONE }, c1[] = { 0, 0, NONE };

		fake(&fthen[0], NFSFAIR_CLIENT_KIND_CLASS, "bulk", b0, np);
		fake(&fnow[0], NFSFAIR_CLIENT_KIND_CLASS, "bulk", b1, np);
		fake(&fthen[1], NFSFAIR_CLIENT_KIND_PER_HOST, "127.0.0.3", h0, np);
		fake(&fnow[1], NFSFAIR_CLIENT_KIND_PER_HOST, "127.0.0.3", h1, np);
		fake(&fthen[2], NFSFAIR_CLIENT_KIND_PER_HOST, "127.0.0.4", g0, np);
		fake(&fnow[2], NFSFAIR_CLIENT_KIND_PER_HOST, "127.0.0.4", g1, np);
		fake(&fthen[3], NFSFAIR_CLIENT_KIND_DEFAULT, NULL, c0, np);
		fake(&fnow[3], NFSFAIR_CLIENT_KIND_DEFAULT, NULL, c1, np);
	} else if (!strcmp(scenario, "one")) {
		uint64_t b0[] = { 100 }, b1[] = { 500 }, h0[] = { 0 }, h1[] = { 1200 };

		np = 1;
		nnow = nthen = 2;
		fake(&fthen[0], NFSFAIR_CLIENT_KIND_CLASS, "bulk", b0, np);
		fake(&fnow[0], NFSFAIR_CLIENT_KIND_CLASS, "bulk", b1, np);
		fake(&fthen[1], NFSFAIR_CLIENT_KIND_PER_HOST, "127.0.0.3", h0, np);
		fake(&fnow[1], NFSFAIR_CLIENT_KIND_PER_HOST, "127.0.0.3", h1, np);
	} else if (!strcmp(scenario, "churn")) {
		/* client-id 0x..2 is new; 127.0.0.3 went and came back with less */
		uint64_t i1[] = { 300, 100 }, h0[] = { 5000, 5000 }, h1[] = { 300, 100 };
		uint64_t g0[] = { 100, 100 }, g1[] = { 500, 300 };

		np = 2;
		nnow = 3;
		nthen = 2;
		fake(&fnow[0], NFSFAIR_CLIENT_KIND_CLIENT_ID, "0x6b0f2c1a00000002", i1, np);
		fake(&fthen[0], NFSFAIR_CLIENT_KIND_PER_HOST, "127.0.0.3", h0, np);
		fake(&fnow[1], NFSFAIR_CLIENT_KIND_PER_HOST, "127.0.0.3", h1, np);
		fake(&fthen[1], NFSFAIR_CLIENT_KIND_PER_HOST, "127.0.0.4", g0, np);
		fake(&fnow[2], NFSFAIR_CLIENT_KIND_PER_HOST, "127.0.0.4", g1, np);
	} else {
		fprintf(stderr, "stats-pools: no scenario '%s'\n", scenario);
		return 2;
	}
	flatten(fnow, nnow, now);
	flatten(fthen, nthen, then);
	ret = ctl_pools_screen(only, 2, now, nnow, then, nthen);
	output_done();
	return ret;
}
