// SPDX-License-Identifier: GPL-2.0
/*
 * stats: per-class rates, and shares of thread-time and of calls, between
 * two class-get dumps SECONDS apart, and the same for the NFSv4.1 client
 * IDs of per-client rules (client-get), which belong to no class. With
 * --pools, each live client's share of each thread pool's dispatches, and
 * the clients whose shares differ between pools. With --openmetrics, one
 * dump of the counters themselves, to standard output or replacing a file
 * whole.
 */
#define _GNU_SOURCE	/* asprintf */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl.h"

struct sample {
	struct ctl_classes cl;
	struct nfsfair_pool *cpools;	/* the classes' pools */
	struct nfsfair_client *all;	/* every live client */
	int nall;
	struct nfsfair_pool *kpools;	/* the clients' pools */
	struct nfsfair_client *v;	/* client-id clients only, copied from all */
	int n;
};

static void sample_free(struct sample *s)
{
	free(s->cl.v);
	free(s->cpools);
	free(s->all);
	free(s->kpools);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* Returns 0 or an exit status. */
static int sample_take(struct ctl *c, struct sample *s)
{
	int ret, i, np;

	memset(s, 0, sizeof(*s));
	ret = ctl_nl(c);
	if (ret)
		return ret;
	ret = nfsfair_read_classes_pools(c->nl, &s->cl.v, &s->cl.n, &s->cpools, &np);
	if (ret < 0)
		return ctl_kernel_error(c, ret, SET_CLASS);
	ret = nfsfair_read_clients_pools(c->nl, NULL, &s->all, &s->nall, &s->kpools, &np);
	if (ret < 0) {
		sample_free(s);
		return ctl_kernel_error(c, ret, SET_TABLE);
	}
	s->v = calloc(s->nall + 1, sizeof(*s->v));
	if (!s->v) {
		sample_free(s);
		return ctl_error("out of memory");
	}
	for (i = 0; i < s->nall; i++)
		if (s->all[i].kind == NFSFAIR_CLIENT_KIND_CLIENT_ID)
			s->v[s->n++] = s->all[i];
	return 0;
}

/* A counter's growth; a client or class that came back counts from 0. */
static uint64_t delta(uint64_t now, uint64_t then)
{
	return now >= then ? now - then : now;
}

static const struct nfsfair_client *client_find(const struct sample *s, uint64_t id)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->v[i].client_id == id)
			return &s->v[i];
	return NULL;
}

/*
 * The growth of a thread-time counter, or NFSFAIR_UNKNOWN from a kernel
 * that does not count it. A class or client that came back counts from 0.
 */
static uint64_t delta_ns(uint64_t now, uint64_t then)
{
	if (now == NFSFAIR_UNKNOWN)
		return NFSFAIR_UNKNOWN;
	return delta(now, then == NFSFAIR_UNKNOWN ? 0 : then);
}

/*
 * What fair dispatch shares: the row's share of the thread-time, @ns of
 * @total_ns, in @t (text, JSON or both). A "-", and no key, where the
 * kernel does not count it.
 */
static void print_thread_share(enum output_type t, uint64_t ns, uint64_t total_ns)
{
	if (ns == NFSFAIR_UNKNOWN) {
		print_string(t & PRINT_FP, NULL, " %6s", "-");
		return;
	}
	print_float(t, "thread-share-pct", " %5.1f%%", total_ns ? 100.0 * ns / total_ns : 0);
	print_uint(PRINT_JSON, "thread-ns", NULL, ns);
}

/* The mean time a call held a thread: @ns over @d dispatches; null without one. */
static void print_per_call(enum output_type t, uint64_t ns, uint64_t d)
{
	char mean[16];

	if (ns == NFSFAIR_UNKNOWN) {
		print_string(t & PRINT_FP, NULL, " %8s", "-");
	} else if (d) {
		output_fmt_ns(ns / d, mean, sizeof(mean));
		print_string(t & PRINT_FP, NULL, " %8s", mean);
		print_float(PRINT_JSON, "thread-ms-per-call", NULL, ns / 1e6 / d);
	} else {
		print_null(t, "thread-ms-per-call", " %8s", "-");
	}
}

static void print_class(const struct nfsfair_class *now, const struct nfsfair_class *then,
			uint64_t total, uint64_t total_ns, unsigned int wait)
{
	uint64_t d = delta(now->dispatches, then ? then->dispatches : 0);
	uint64_t q = delta(now->qtime_total_us, then ? then->qtime_total_us : 0);
	uint64_t ns = delta_ns(now->thread_ns, then ? then->thread_ns : 0);
	char thr[32];

	open_json_object(NULL);
	print_string(PRINT_ANY, "class", "%-15s", now->name);
	print_thread_share(PRINT_ANY, ns, total_ns);
	print_float(PRINT_ANY, "share-pct", " %5.1f%%", total ? 100.0 * d / total : 0);
	print_float(PRINT_ANY, "dispatches-per-s", " %8.1f", (double)d / wait);
	print_uint(PRINT_JSON, "dispatches", NULL, d);
	print_per_call(PRINT_ANY, ns, d);
	print_uint(PRINT_ANY, "connections", " %5" PRIu64, now->connections);
	print_uint(PRINT_JSON, "peers", NULL, now->peers);
	print_uint(PRINT_ANY, "queued", " %6" PRIu64, now->queued);
	if (d)
		print_float(PRINT_ANY, "wait-avg-ms", " %7.3fms", q / 1000.0 / d);
	else
		print_null(PRINT_ANY, "wait-avg-ms", " %9s", "-");
	print_float(PRINT_JSON, "wait-max-ms", NULL, now->qtime_max_us / 1000.0);
	/* 80 columns: the limit goes with the threads, as THREADS/LIMIT */
	if (now->limit)
		snprintf(thr, sizeof(thr), "%" PRIu64 "/%" PRIu32, now->threads, now->limit);
	else
		snprintf(thr, sizeof(thr), "%" PRIu64, now->threads);
	print_string(PRINT_FP, NULL, " %7s", thr);
	print_uint(PRINT_JSON, "threads", NULL, now->threads);
	print_uint(PRINT_JSON, "limit", NULL, now->limit);
	print_uint(PRINT_JSON, "threads-max", NULL, now->threads_max);
	print_uint(PRINT_JSON, "limit-skips", NULL,
		   delta(now->limit_skips, then ? then->limit_skips : 0));
	print_uint(PRINT_JSON, "limit-time-us", NULL,
		   delta(now->limit_time_us, then ? then->limit_time_us : 0));
	close_json_object();
	print_nl();
}

static void print_client(const struct nfsfair_client *now, const struct nfsfair_client *then,
			 uint64_t total, uint64_t total_ns, unsigned int wait)
{
	uint64_t d = delta(now->dispatches, then ? then->dispatches : 0);
	uint64_t ns = delta_ns(now->thread_ns, then ? then->thread_ns : 0);
	char id[24], owner[NFSFAIR_OWNER_STRLEN];

	snprintf(id, sizeof(id), "0x%016" PRIx64, now->client_id);
	output_fmt_owner(now->owner, now->owner_len, owner, sizeof(owner));
	open_json_object(NULL);
	print_string(PRINT_ANY, "client-id", "%-18s", id);
	print_float(PRINT_ANY, "share-pct", " %5.1f%%", total ? 100.0 * d / total : 0);
	print_float(PRINT_ANY, "dispatches-per-s", " %8.1f", (double)d / wait);
	print_uint(PRINT_JSON, "dispatches", NULL, d);
	/* JSON only: scripts read the text's columns as they are */
	print_thread_share(PRINT_JSON, ns, total_ns);
	print_per_call(PRINT_JSON, ns, d);
	print_uint(PRINT_ANY, "connections", " %5" PRIu64, now->connections);
	print_uint(PRINT_JSON, "peers", NULL, now->peers);
	print_uint(PRINT_JSON, "queued", NULL, now->queued);
	print_string(PRINT_ANY, "owner", " \"%s\"", owner);
	close_json_object();
	print_nl();
}

/* The dispatches and thread-time of a screen's rows, for their shares. */
struct totals {
	uint64_t dispatches;
	uint64_t ns;		/* NFSFAIR_UNKNOWN when no row has thread-time */
};

static void totals_add(struct totals *t, uint64_t d, uint64_t ns)
{
	t->dispatches += d;
	if (ns != NFSFAIR_UNKNOWN)
		t->ns = (t->ns == NFSFAIR_UNKNOWN ? 0 : t->ns) + ns;
}

/* The client IDs' table, when there are any; their share is among them. */
static void clients_screen(struct ctl *c, const struct sample *now, const struct sample *then)
{
	const struct nfsfair_client *p;
	struct totals t = { 0, NFSFAIR_UNKNOWN };
	int i;

	for (i = 0; i < now->n; i++) {
		p = client_find(then, now->v[i].client_id);
		totals_add(&t, delta(now->v[i].dispatches, p ? p->dispatches : 0),
			   delta_ns(now->v[i].thread_ns, p ? p->thread_ns : 0));
	}
	/* the text as it was: scripts read these lines whole */
	if (now->n) {
		print_uint(PRINT_FP, NULL, "%" PRIu64 " dispatches to ", t.dispatches);
		print_uint(PRINT_FP, NULL, "%" PRIu64 " NFSv4.1 client IDs\n", now->n);
		print_string(PRINT_FP, NULL, "%s\n",
			     "client-id           share   disp/s conns owner");
	}
	open_json_array("clients");
	for (i = 0; i < now->n; i++)
		print_client(&now->v[i], client_find(then, now->v[i].client_id), t.dispatches,
			     t.ns, c->wait);
	close_json_array();
}

static int screen(struct ctl *c, const struct sample *now, const struct sample *then)
{
	const char *only = c->argc ? c->argv[0] : NULL;
	const struct nfsfair_class *k, *p;
	struct totals t = { 0, NFSFAIR_UNKNOWN };
	char ns[16];
	int i;

	for (i = 0; i < now->cl.n; i++) {
		k = &now->cl.v[i];
		p = ctl_class_find(&then->cl, k->name);
		totals_add(&t, delta(k->dispatches, p ? p->dispatches : 0),
			   delta_ns(k->thread_ns, p ? p->thread_ns : 0));
	}
	open_json_object(NULL);
	print_uint(PRINT_ANY, "interval", "every %" PRIu64 "s: ", c->wait);
	print_uint(PRINT_ANY, "dispatches", "%" PRIu64 " dispatches to classes", t.dispatches);
	if (t.ns != NFSFAIR_UNKNOWN) {
		output_fmt_ns(t.ns, ns, sizeof(ns));
		print_string(PRINT_FP, NULL, ", %s of thread-time", ns);
		print_uint(PRINT_JSON, "thread-ns", NULL, t.ns);
	}
	print_nl();
	print_string(PRINT_FP, NULL, "%s\n",
		     "class             time  calls   disp/s per-call conns queued  wait-avg threads");
	open_json_array("classes");
	for (i = 0; i < now->cl.n; i++) {
		k = &now->cl.v[i];
		if (!only || !strcmp(only, k->name))
			print_class(k, ctl_class_find(&then->cl, k->name), t.dispatches, t.ns,
				    c->wait);
	}
	close_json_array();
	if (!only)
		clients_screen(c, now, then);
	close_json_object();
	return 0;
}

static void print_metrics(FILE *fp, const void *m)
{
	ctl_openmetrics_print(fp, m);
}

/* --output FILE: replaced whole, never half-written (nfsfair_textfile_write()). */
static int write_atomic(const char *path, const struct ctl_metrics *m)
{
	int err = nfsfair_textfile_write(path, print_metrics, m);

	return err ? ctl_error("--output %s: %s", path, strerror(-err)) : CTL_OK;
}

/* One sample of the counters, or with CLASS its series alone, as on screen. */
static int stats_openmetrics(struct ctl *c, const struct sample *s)
{
	const char *only = c->argc ? c->argv[0] : NULL;
	struct ctl_metrics m = { .netns = c->netns ? c->netns : "" };
	struct ctl_rules rules;
	int i, n = 0, ret;

	ret = ctl_rules_dump(c, &rules);
	if (ret)
		return ret;
	m.classes = only ? ctl_class_find(&s->cl, only) : s->cl.v;
	m.nclasses = only ? 1 : s->cl.n;
	for (i = 0; i < rules.n; i++)
		if (!only || (rules.v[i].target.kind == NFSFAIR_TARGET_CLASS &&
			      !strcmp(rules.v[i].target.class, only)))
			rules.v[n++] = rules.v[i];
	m.rules = rules.v;
	m.nrules = n;
	m.clients = s->v;
	m.nclients = only ? 0 : s->n;
	if (c->output) {
		ret = write_atomic(c->output, &m);
	} else {
		errno = 0;
		ctl_openmetrics_print(stdout, &m);
		if (fflush(stdout) || ferror(stdout))
			ret = ctl_error("standard output: %s", strerror(errno ? errno : EIO));
	}
	free(rules.v);
	return ret;
}

int cmd_stats(struct ctl *c)
{
	struct sample then, now;
	unsigned int n;
	int ret;

	ret = sample_take(c, &then);
	if (ret)
		return ret;
	if (c->argc && !ctl_class_find(&then.cl, c->argv[0])) {
		sample_free(&then);
		return ctl_error("stats: no class '%s'", c->argv[0]);
	}
	if (c->opts & OPT_OPENMETRICS) {
		ret = stats_openmetrics(c, &then);
		sample_free(&then);
		return ret;
	}
	if (c->opts & OPT_COUNT)
		open_json_array(NULL);
	for (n = 0; n < c->count; n++) {
		sleep(c->wait);
		ret = sample_take(c, &now);
		if (ret)
			break;
		if (n)
			print_nl();
		if (c->opts & OPT_POOLS)
			ret = ctl_pools_screen(c->argc ? c->argv[0] : NULL, c->wait, now.all,
					       now.nall, then.all, then.nall);
		else
			ret = screen(c, &now, &then);
		fflush(stdout);
		sample_free(&then);
		then = now;
		if (ret)
			break;
	}
	if (c->opts & OPT_COUNT)
		close_json_array();
	output_done();
	sample_free(&then);
	return ret;
}
