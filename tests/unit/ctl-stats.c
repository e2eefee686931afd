// SPDX-License-Identifier: GPL-2.0
/*
 * nfsfair-ctl stats, explain and classes on counters made up here, no
 * kernel: the real main() (built as nfsfair_ctl_main) with the library's
 * dumps replaced by ld --wrap, and sleep() too. tests/unit/ctl-stats.sh
 * compares the text and reads the JSON.
 *
 *   ctl-stats SCENARIO NFSFAIR-CTL-ARGS...
 *
 * fair: three samples 5 s apart. In the first interval bulk's 420 calls
 *	held a thread 50 ms each (21 s), ls's 19000 calls 1 ms each (19 s),
 *	idle made none; in the second, 400 and 20000 calls, 20 s each. Two
 *	NFSv4.1 client IDs, 5 ms and 1 ms a call. explain's clients: the
 *	classes', per-host 127.0.0.3/32, the default client and the IDs,
 *	150 s of thread-time in all.
 * old: the same counters from a kernel without thread-time: no thread-ns
 *	and no cost-ns anywhere.
 * reset: bulk's counters went back between the samples (-Z), ls is new
 *	since the first: both count from 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cli/ctl.h"

#define S 1000000000ULL		/* ns */
#define U NFSFAIR_UNKNOWN
#define NSAMPLES 3

int nfsfair_ctl_main(int argc, char **argv);

static bool old;		/* a kernel without thread-time */
static bool reset;
static int sample_no;		/* of the next class dump */

unsigned int __wrap_sleep(unsigned int seconds)
{
	(void)seconds;
	return 0;
}

int __wrap_ctl_nl(struct ctl *c)
{
	(void)c;
	return 0;
}

static uint64_t ns(uint64_t v)
{
	return old ? U : v;
}

static struct nfsfair_class klass(const char *name, uint64_t d, uint64_t t, uint64_t q_us,
				  uint64_t conns, uint64_t queued, uint64_t threads)
{
	struct nfsfair_class k = {
		.weight = 1, .rules = 1, .dispatches = d, .thread_ns = ns(t),
		.qtime_total_us = q_us, .qtime_max_us = 120000, .connections = conns,
		.peers = conns, .queued = queued, .threads = threads,
	};

	snprintf(k.name, sizeof(k.name), "%s", name);
	return k;
}

/* The classes at sample I; bulk's split over two pools. */
static int classes_at(int i, struct nfsfair_class *v, struct nfsfair_pool *p, int *np)
{
	static const uint64_t bulk_d[] = { 1000, 1420, 1820 }, ls_d[] = { 50000, 69000, 89000 };
	static const uint64_t bulk_t[] = { 50, 71, 91 }, ls_t[] = { 50, 69, 89 };
	static const uint64_t bulk_q[] = { 1000000, 64000000, 124000000 };
	static const uint64_t ls_q[] = { 25000000, 34500000, 44500000 };
	int n = 0;

	if (reset && i == 0) {
		v[n++] = klass("bulk", 90000, 900 * S, 9000000, 1, 0, 0);
		v[n++] = klass("idle", 0, 0, 0, 0, 0, 0);
		*np = 0;
		return n;
	}
	v[n] = klass("bulk", bulk_d[i], bulk_t[i] * S, bulk_q[i], 1, 8, 4);
	v[n].limit = 4;
	p[0] = (struct nfsfair_pool){ .item = n, .id = 0, .dispatches = bulk_d[i] - 20,
				      .thread_ns = ns((bulk_t[i] - 1) * S) };
	p[1] = (struct nfsfair_pool){ .item = n, .id = 1, .dispatches = 20,
				      .thread_ns = ns(S) };
	v[n].pools = p;
	v[n++].npools = 2;
	*np = 2;
	v[n++] = klass("ls", ls_d[i], ls_t[i] * S, ls_q[i], 1, 0, 4);
	v[n++] = klass("idle", 0, 0, 0, 0, 0, 0);
	return n;
}

static struct nfsfair_client client(uint32_t kind, const char *what, uint64_t d, uint64_t t,
				    uint64_t cost)
{
	char err[NFSFAIR_ERR_LEN];
	struct nfsfair_client k = {
		.kind = kind, .dispatches = d, .thread_ns = ns(t), .cost_ns = ns(cost),
		.connections = 1, .peers = 1,
	};

	if (kind == NFSFAIR_CLIENT_KIND_CLASS) {
		snprintf(k.class, sizeof(k.class), "%s", what);
	} else if (kind == NFSFAIR_CLIENT_KIND_PER_HOST) {
		if (nfsfair_prefix_parse(what, &k.prefix, err) < 0)
			abort();
		k.connections = 4;
	} else if (kind == NFSFAIR_CLIENT_KIND_CLIENT_ID) {
		k.client_id = strtoull(what, NULL, 0);
		k.owner_len = snprintf((char *)k.owner, sizeof(k.owner), "Linux NFSv4.1 %s",
				       what + 16);
		k.connections = 2;
	}
	return k;
}

/* nfsd's live clients at sample I. */
static int clients_at(int i, struct nfsfair_client *v)
{
	static const uint64_t a_d[] = { 100, 600, 1100 }, a_t[] = { 1000, 3500, 6000 };
	static const uint64_t b_d[] = { 0, 500, 1000 }, b_t[] = { 0, 500, 1000 };
	int n = 0;

	v[n++] = client(NFSFAIR_CLIENT_KIND_CLASS, "bulk", 1420, 71 * S, 50200000);
	v[n++] = client(NFSFAIR_CLIENT_KIND_CLASS, "ls", 69000, 69 * S, 1010000);
	v[n++] = client(NFSFAIR_CLIENT_KIND_PER_HOST, "127.0.0.3", 3000, 6 * S, 2000000);
	v[n++] = client(NFSFAIR_CLIENT_KIND_DEFAULT, NULL, 0, 0, 10000000);
	v[n++] = client(NFSFAIR_CLIENT_KIND_CLIENT_ID, "0x6b0f2c1a00000003", a_d[i],
			a_t[i] * S / 1000, 5000000);
	v[n++] = client(NFSFAIR_CLIENT_KIND_CLIENT_ID, "0x6b0f2c1a00000004", b_d[i],
			b_t[i] * S / 1000, 1000000);
	return n;
}

static void *copy(const void *v, size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		abort();
	return memcpy(p, v, size);
}

int __wrap_nfsfair_read_classes_pools(struct nfsfair_nl *nl, struct nfsfair_class **v, int *n,
				      struct nfsfair_pool **pools, int *npools)
{
	struct nfsfair_class k[8];
	struct nfsfair_pool p[8];
	int i, at = sample_no < NSAMPLES ? sample_no : NSAMPLES - 1;

	(void)nl;
	sample_no++;
	*n = classes_at(at, k, p, npools);
	*v = copy(k, *n * sizeof(*k));
	*pools = copy(p, *npools * sizeof(*p));
	for (i = 0; i < *n; i++)
		if ((*v)[i].pools)
			(*v)[i].pools = *pools + ((*v)[i].pools - p);
	return 0;
}

int __wrap_nfsfair_read_classes(struct nfsfair_nl *nl, struct nfsfair_class **v, int *n)
{
	struct nfsfair_pool *pools;
	int i, np, ret;

	sample_no = 1;
	ret = __wrap_nfsfair_read_classes_pools(nl, v, n, &pools, &np);
	for (i = 0; i < *n; i++) {
		(*v)[i].pools = NULL;
		(*v)[i].npools = 0;
	}
	free(pools);
	return ret;
}

/* The clients of the sample of the last class dump; with @peer, those holding its connections. */
int __wrap_nfsfair_read_clients_pools(struct nfsfair_nl *nl, const struct nfsfair_prefix *peer,
				      struct nfsfair_client **v, int *n,
				      struct nfsfair_pool **pools, int *npools)
{
	struct nfsfair_client k[8];
	char a[NFSFAIR_PREFIX_STRLEN];
	int i, m = 0, at = sample_no ? sample_no - 1 : 1;

	(void)nl;
	*n = clients_at(at < NSAMPLES ? at : NSAMPLES - 1, k);
	if (pools) {
		*pools = NULL;
		*npools = 0;
	}
	if (peer) {
		nfsfair_addr_format(peer->family, peer->addr, a, sizeof(a));
		for (i = 0; i < *n; i++) {
			if ((!strcmp(a, "127.0.0.2") && !strcmp(k[i].class, "bulk")) ||
			    (!strcmp(a, "127.0.0.3") && k[i].kind == NFSFAIR_CLIENT_KIND_PER_HOST)) {
				k[i].has_peer = true;
				k[i].peer_connections = k[i].connections;
				k[m++] = k[i];
			}
		}
		*n = m;
	}
	*v = copy(k, *n * sizeof(*k));
	return 0;
}

int __wrap_nfsfair_read_clients(struct nfsfair_nl *nl, const struct nfsfair_prefix *peer,
				struct nfsfair_client **v, int *n)
{
	return __wrap_nfsfair_read_clients_pools(nl, peer, v, n, NULL, NULL);
}

int __wrap_nfsfair_read_rules(struct nfsfair_nl *nl, struct nfsfair_rule **v, int *n)
{
	static const char *const text[] = { "-A -s 127.0.0.2 -j bulk", "-A -s 127.0.0.0/8 -j per-host" };
	char err[NFSFAIR_ERR_LEN];
	struct nfsfair_line l;
	int i;

	(void)nl;
	*n = 2;
	*v = calloc(*n, sizeof(**v));
	for (i = 0; i < *n; i++) {
		if (!*v || nfsfair_line_parse(text[i], &l, err) < 0)
			abort();
		(*v)[i] = l.rule;
		(*v)[i].position = i + 1;
		(*v)[i].hits = 4;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *scenario = argc > 1 ? argv[1] : "";

	old = !strcmp(scenario, "old");
	reset = !strcmp(scenario, "reset");
	if (!old && !reset && strcmp(scenario, "fair")) {
		fprintf(stderr, "ctl-stats: no scenario '%s'\n", scenario);
		return 2;
	}
	argv[1] = "nfsfair-ctl";
	return nfsfair_ctl_main(argc - 1, argv + 1);
}
