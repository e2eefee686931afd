// SPDX-License-Identifier: GPL-2.0
/*
 * Members to addresses. A literal address or prefix needs no lookup. A
 * hostname resolves to all its IPv4 and IPv6 addresses, each a /32 or
 * /128; the answer is kept, and when a later lookup fails the last good
 * answer stays in use. While loading a configuration, a name that does
 * not exist is an error in the file; a resolver that does not answer is
 * not (the name is skipped until it answers, and said so).
 *
 * A name is looked up again when its DNS records expire (the shortest
 * TTL of its A and AAAA answers), no sooner than RES_MIN_INTERVAL and no
 * later than the refresh interval; a name the hosts file lists, which has
 * no TTL (DNS is not asked for one), at the refresh interval. A failing
 * name is retried after 10, 20, 40... seconds, up to the refresh interval.
 */
#define _GNU_SOURCE	/* EAI_NODATA */
#include <arpa/nameser.h>
#include <errno.h>
#include <netdb.h>
#include <resolv.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "daemon.h"

void resolver_free(struct resolver *r)
{
	size_t i;

	for (i = 0; i < r->nr_hosts; i++) {
		free(r->hosts[i].name);
		free(r->hosts[i].addrs);
	}
	free(r->hosts);
	hash_free(&r->index);
	hosts_free(&r->hosts_file);
	memset(r, 0, sizeof(*r));
}

static bool same_host(const void *key, size_t pos, const void *arg)
{
	const struct resolver *r = arg;

	return !strcmp(key, r->hosts[pos].name);
}

/* By name through the index: 65,536 names scanned one by one took seconds. */
static struct res_host *host_get(struct resolver *r, const char *name)
{
	uint64_t hash = hash_bytes(name, strlen(name));
	struct res_host *v;
	size_t pos;

	pos = hash_find(&r->index, hash, name, same_host, r);
	if (pos != SIZE_MAX)
		return &r->hosts[pos];
	if (array_grow(&r->hosts, r->nr_hosts, sizeof(*r->hosts)))
		return NULL;
	v = &r->hosts[r->nr_hosts];
	memset(v, 0, sizeof(*v));
	v->name = strdup(name);
	if (!v->name || hash_add(&r->index, hash, r->nr_hosts)) {
		free(v->name);
		return NULL;
	}
	r->nr_hosts++;
	return v;
}

static int cmp_prefix(const void *a, const void *b)
{
	const struct nfsfair_prefix *x = a, *y = b;

	if (x->family != y->family)
		return x->family == AF_INET ? -1 : 1;
	return memcmp(x->addr, y->addr, sizeof(x->addr));
}

/* getaddrinfo into a sorted, duplicate-free list; returns its EAI_ code. */
static int lookup(const char *name, struct nfsfair_prefix **out, size_t *nr)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res, *ai;
	struct nfsfair_prefix *v = NULL, p;
	size_t n = 0, i;
	int ret;

	ret = getaddrinfo(name, NULL, &hints, &res);
	if (ret)
		return ret;
	for (ai = res; ai; ai = ai->ai_next) {
		memset(&p, 0, sizeof(p));
		p.family = ai->ai_family;
		if (ai->ai_family == AF_INET) {
			memcpy(p.addr, &((struct sockaddr_in *)ai->ai_addr)->sin_addr, 4);
			p.len = 32;
		} else if (ai->ai_family == AF_INET6) {
			memcpy(p.addr, &((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr, 16);
			p.len = 128;
		} else {
			continue;
		}
		for (i = 0; i < n && cmp_prefix(&v[i], &p); i++)
			;
		if (i < n)
			continue;
		v = realloc(v, (n + 1) * sizeof(*v));
		if (!v) {
			freeaddrinfo(res);
			return EAI_MEMORY;
		}
		v[n++] = p;
	}
	freeaddrinfo(res);
	qsort(v, n, sizeof(*v), cmp_prefix);
	*out = v;
	*nr = n;
	return n ? 0 : EAI_NODATA;
}

time_t resolver_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/* The shortest TTL of NAME's A and AAAA records; 0 when DNS has none. */
static unsigned int dns_ttl(const char *name)
{
	static const int types[] = { ns_t_a, ns_t_aaaa };
	unsigned char answer[4096];
	struct __res_state st;
	unsigned int ttl = 0;
	ns_msg msg;
	ns_rr rr;
	int i, k, n;

	memset(&st, 0, sizeof(st));
	if (res_ninit(&st))
		return 0;
	for (i = 0; i < 2; i++) {
		n = res_nquery(&st, name, ns_c_in, types[i], answer, sizeof(answer));
		if (n < 0 || ns_initparse(answer, n, &msg))
			continue;
		for (k = 0; k < ns_msg_count(msg, ns_s_an); k++)
			if (!ns_parserr(&msg, ns_s_an, k, &rr) && (int)ns_rr_type(rr) == types[i] &&
			    (!ttl || ns_rr_ttl(rr) < ttl))
				ttl = ns_rr_ttl(rr);
	}
	res_nclose(&st);
	return ttl;
}

static unsigned int clamp_interval(const struct resolver *r, unsigned int s)
{
	unsigned int most = r->refresh ? r->refresh : 300;

	return s < RES_MIN_INTERVAL ? RES_MIN_INTERVAL : s > most ? most : s;
}

/**
 * resolver_due - when the next name is due for a lookup
 * Return: CLOCK_MONOTONIC seconds, or 0 when there are no names.
 */
time_t resolver_due(const struct resolver *r)
{
	time_t due = 0;
	size_t i;

	for (i = 0; i < r->nr_hosts; i++)
		if (!due || r->hosts[i].due < due)
			due = r->hosts[i].due;
	return due;
}

static bool permanent(int eai)
{
	return eai == EAI_NONAME || eai == EAI_NODATA;
}

/**
 * resolve_member - the addresses a member stands for
 * @r: the resolver, keeping answers between calls
 * @cfg: for reporting errors at the member's mark
 * @m: the member
 * @mode: RES_STRICT while loading a configuration, RES_REFRESH after
 * @addrs: set to the addresses (owned by @r, or static for literals)
 * @nr: set to how many; 0 when a name has never resolved
 *
 * Return: 0, or -EINVAL when @m is in error (reported at its mark).
 */
int resolve_member(struct resolver *r, struct cfg *cfg, const struct cfg_member *m,
		   enum res_mode mode, const struct nfsfair_prefix **addrs, size_t *nr)
{
	static struct nfsfair_prefix literal;
	char err[NFSFAIR_ERR_LEN];
	struct nfsfair_prefix *v;
	struct res_host *h;
	size_t n;
	int eai;

	if (!nfsfair_prefix_parse(m->text, &literal, err)) {
		*addrs = &literal;
		*nr = 1;
		return 0;
	}
	h = host_get(r, m->text);
	if (!h)
		return -ENOMEM;
	eai = lookup(m->text, &v, &n);
	if (!eai) {
		free(h->addrs);
		h->addrs = v;
		h->nr_addrs = n;
		h->ok = true;
		h->resolved_at = time(NULL);
		h->error[0] = '\0';
		h->failures = 0;
		h->ttl = hosts_has(&r->hosts_file, m->text) ? 0 : dns_ttl(m->text);
		h->due = resolver_now() + clamp_interval(r, h->ttl ? h->ttl : r->refresh);
	} else {
		snprintf(h->error, sizeof(h->error), "%s", gai_strerror(eai));
		h->failures++;
		h->due = resolver_now() +
			 clamp_interval(r, RES_MIN_INTERVAL << (h->failures < 6 ? h->failures - 1 : 5));
		if (mode == RES_STRICT && permanent(eai) && !h->ok) {
			cfg_error(cfg, &m->mark, "'%s': %s", m->text, gai_strerror(eai));
			return -EINVAL;
		}
		fprintf(stderr, "nfsfaird: %s: %s, %s\n", m->text, gai_strerror(eai),
			h->ok ? "keeping its last addresses" : "skipping it until it resolves");
	}
	*addrs = h->addrs;
	*nr = h->nr_addrs;
	return 0;
}

void resolver_counts(const struct resolver *r, size_t *ok, size_t *failing)
{
	size_t i;

	*ok = *failing = 0;
	for (i = 0; i < r->nr_hosts; i++) {
		if (r->hosts[i].error[0])
			(*failing)++;
		else
			(*ok)++;
	}
}

static bool same_member(const void *key, size_t pos, const void *arg)
{
	const char *const *texts = arg;

	return !strcmp(key, texts[pos]);
}

/*
 * Forget the names @cfg no longer has, so counts and status show its names
 * only. Both through indexes: a member scan per host was O(hosts x members).
 * Out of memory, nothing is pruned: the status shows names no longer used.
 */
void resolver_prune(struct resolver *r, const struct cfg *cfg)
{
	struct hash_index names = {}, index = {};
	const char **texts;
	size_t i, j, n = 0, kept = 0;
	uint64_t hash;

	for (i = 0; i < cfg->nr_classes; i++)
		n += cfg->classes[i].nr_members;
	texts = malloc((n + 1) * sizeof(*texts));
	if (!texts || hash_reserve(&names, n) || hash_reserve(&index, r->nr_hosts))
		goto out;
	n = 0;
	for (i = 0; i < cfg->nr_classes; i++) {
		for (j = 0; j < cfg->classes[i].nr_members; j++) {
			const char *t = cfg->classes[i].members[j].text;

			hash = hash_bytes(t, strlen(t));
			if (hash_find(&names, hash, t, same_member, texts) != SIZE_MAX)
				continue;
			texts[n] = t;
			hash_add(&names, hash, n++);	/* reserved: cannot fail */
		}
	}
	for (i = 0; i < r->nr_hosts; i++) {
		struct res_host *h = &r->hosts[i];

		hash = hash_bytes(h->name, strlen(h->name));
		if (hash_find(&names, hash, h->name, same_member, texts) == SIZE_MAX) {
			free(h->name);
			free(h->addrs);
			continue;
		}
		r->hosts[kept] = *h;
		hash_add(&index, hash, kept++);		/* reserved */
	}
	r->nr_hosts = kept;
	hash_free(&r->index);
	r->index = index;
	index = (struct hash_index){};
out:
	hash_free(&index);
	hash_free(&names);
	free(texts);
}

/* The last success of the name resolved longest ago; 0 when none has. */
time_t resolver_oldest(const struct resolver *r)
{
	time_t oldest = 0;
	size_t i;

	for (i = 0; i < r->nr_hosts; i++)
		if (r->hosts[i].ok && (!oldest || r->hosts[i].resolved_at < oldest))
			oldest = r->hosts[i].resolved_at;
	return oldest;
}
