// SPDX-License-Identifier: GPL-2.0
/*
 * stats --openmetrics: the cumulative counters in the OpenMetrics text
 * format, for Prometheus through the node exporter's textfile collector.
 * Written here, not through lib/output.c: a format of its own, not a
 * human line or its JSON twin.
 *
 * HELP and TYPE name the samples, "_total" included, as the Prometheus
 * text format does: promtool and the textfile collector parse that format,
 * and take a strict OpenMetrics counter family (named without "_total")
 * for an untyped sample with no help.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "ctl.h"

enum om_value {
	OM_U64,			/* a uint64_t */
	OM_USEC,		/* a uint64_t of microseconds, printed as seconds */
	OM_U32,			/* a uint32_t */
	OM_NSEC,		/* a uint64_t of nanoseconds as seconds; no sample if unknown */
};

struct om_family {
	const char *name;
	const char *type;
	const char *help;
	size_t off;		/* of the value in the item */
	enum om_value kind;
};

/* An item's labels, from the opening brace; the caller closes it, a pool series adds its pool. */
typedef void (*om_labels)(FILE *fp, const char *ns, const void *item);

#define CLASS(m) offsetof(struct nfsfair_class, m)
#define CLIENT(m) offsetof(struct nfsfair_client, m)

static const struct om_family class_families[] = {
	{ "nfsfair_class_dispatches_total", "counter",
	  "Requests dispatched to threads from the class's connections.", CLASS(dispatches), OM_U64 },
	{ "nfsfair_class_thread_seconds_total", "counter",
	  "Time the class's calls held an nfsd thread, dequeue to reply, for calls that ended.",
	  CLASS(thread_ns), OM_NSEC },
	{ "nfsfair_class_connections", "gauge", "Connections in the class now.",
	  CLASS(connections), OM_U64 },
	{ "nfsfair_class_peers", "gauge",
	  "Distinct peer addresses with connections in the class now.", CLASS(peers), OM_U64 },
	{ "nfsfair_class_queued_connections", "gauge",
	  "Connections of the class waiting for a thread now.", CLASS(queued), OM_U64 },
	{ "nfsfair_class_queue_wait_seconds_total", "counter",
	  "Time the class's connections waited from ready to dequeued.",
	  CLASS(qtime_total_us), OM_USEC },
	{ "nfsfair_class_queue_wait_max_seconds", "gauge",
	  "Longest wait from ready to dequeued since the counters were zeroed.",
	  CLASS(qtime_max_us), OM_USEC },
	{ "nfsfair_class_threads", "gauge", "Threads serving the class's connections now.",
	  CLASS(threads), OM_U64 },
	{ "nfsfair_class_limit", "gauge",
	  "Most threads that may serve the class's connections at once; 0 for no limit.",
	  CLASS(limit), OM_U32 },
	{ "nfsfair_class_limit_skips_total", "counter",
	  "Times dispatch passed over the class because it was at its limit.",
	  CLASS(limit_skips), OM_U64 },
	{ "nfsfair_class_limit_seconds_total", "counter",
	  "Time the class spent at its limit with connections waiting.",
	  CLASS(limit_time_us), OM_USEC },
	{ "nfsfair_class_threads_max", "gauge", "Most threads that served the class at once.",
	  CLASS(threads_max), OM_U64 },
};

static const struct om_family rule_families[] = {
	{ "nfsfair_rule_hits_total", "counter",
	  "Connections the rule classified, at accept and after a table change.",
	  offsetof(struct nfsfair_rule, hits), OM_U64 },
};

static const struct om_family client_families[] = {
	{ "nfsfair_client_dispatches_total", "counter",
	  "Requests dispatched from the connections of an NFSv4.1 client ID.",
	  CLIENT(dispatches), OM_U64 },
	{ "nfsfair_client_thread_seconds_total", "counter",
	  "Time the calls of an NFSv4.1 client ID held an nfsd thread, for calls that ended.",
	  CLIENT(thread_ns), OM_NSEC },
	{ "nfsfair_client_connections", "gauge",
	  "Connections bound to the NFSv4.1 client ID now.", CLIENT(connections), OM_U64 },
	{ "nfsfair_client_peers", "gauge",
	  "Distinct peer addresses with connections bound to the NFSv4.1 client ID now.",
	  CLIENT(peers), OM_U64 },
	{ "nfsfair_client_queued_connections", "gauge",
	  "Connections of the NFSv4.1 client ID waiting for a thread now.", CLIENT(queued), OM_U64 },
};

/* SEP name="value", the value escaped (nfsfair_om_label_value()). */
static void label(FILE *fp, const char *sep, const char *name, const char *val)
{
	fprintf(fp, "%s%s=\"", sep, name);
	nfsfair_om_label_value(fp, val);
	fputc('"', fp);
}

static void class_labels(FILE *fp, const char *ns, const void *item)
{
	const struct nfsfair_class *k = item;

	label(fp, "{", "namespace", ns);
	label(fp, ",", "class", k->name);
}

static void rule_labels(FILE *fp, const char *ns, const void *item)
{
	const struct nfsfair_rule *r = item;
	char pos[16], prefix[NFSFAIR_PREFIX_STRLEN], target[32], origin[8];

	snprintf(pos, sizeof(pos), "%" PRIu32, r->position);
	nfsfair_prefix_format(&r->prefix, prefix, sizeof(prefix));
	nfsfair_target_format(&r->target, r->prefix.family, target, sizeof(target));
	snprintf(origin, sizeof(origin), "%u", r->origin);
	label(fp, "{", "namespace", ns);
	label(fp, ",", "position", pos);
	label(fp, ",", "prefix", prefix);
	label(fp, ",", "target", target);
	label(fp, ",", "origin", origin);
}

static void client_labels(FILE *fp, const char *ns, const void *item)
{
	const struct nfsfair_client *k = item;
	char id[24], owner[NFSFAIR_OWNER_STRLEN];

	snprintf(id, sizeof(id), "0x%016" PRIx64, k->client_id);
	output_fmt_owner(k->owner, k->owner_len, owner, sizeof(owner));
	label(fp, "{", "namespace", ns);
	label(fp, ",", "client_id", id);
	label(fp, ",", "owner", owner);
}

/* Exact: no double in between. */
static void value(FILE *fp, uint64_t v, enum om_value kind)
{
	if (kind == OM_USEC)
		fprintf(fp, " %" PRIu64 ".%06" PRIu64 "\n", v / 1000000, v % 1000000);
	else if (kind == OM_NSEC)
		fprintf(fp, " %" PRIu64 ".%09" PRIu64 "\n", v / 1000000000, v % 1000000000);
	else
		fprintf(fp, " %" PRIu64 "\n", v);
}

/* Each family, with its help and type even when it has no sample. */
static void families(FILE *fp, const struct om_family *f, size_t nf, const char *ns,
		     const void *items, int n, size_t size, om_labels labels)
{
	const char *item;
	uint32_t v32;
	uint64_t v;
	size_t i;
	int j;

	for (i = 0; i < nf; i++) {
		fprintf(fp, "# HELP %s %s\n", f[i].name, f[i].help);
		fprintf(fp, "# TYPE %s %s\n", f[i].name, f[i].type);
		for (j = 0; j < n; j++) {
			item = (const char *)items + j * size;
			if (f[i].kind == OM_U32) {
				memcpy(&v32, item + f[i].off, sizeof(v32));
				v = v32;
			} else {
				memcpy(&v, item + f[i].off, sizeof(v));
			}
			if (f[i].kind == OM_NSEC && v == NFSFAIR_UNKNOWN)
				continue;
			fputs(f[i].name, fp);
			labels(fp, ns, item);
			fputc('}', fp);
			value(fp, v, f[i].kind);
		}
	}
}

/* A counter of struct nfsfair_pool, as a family split by pool. */
struct om_pool_family {
	const char *name;
	const char *help;
	size_t off;		/* of the value in struct nfsfair_pool */
	enum om_value kind;	/* OM_U64 or OM_NSEC */
};

#define POOL(m) offsetof(struct nfsfair_pool, m)

/*
 * One counter family split by pool: each item's series for each of its
 * pools, with the label pool. Pools' counters run since the class's or
 * client's live client came, not since the counters were zeroed.
 */
static void pool_family(FILE *fp, const struct om_pool_family *f, const char *ns,
			const void *items, int n, size_t size, size_t pools_off, size_t npools_off,
			om_labels labels)
{
	const struct nfsfair_pool *pools;
	const char *item;
	char id[16];
	uint64_t v;
	int j, k, npools;

	fprintf(fp, "# HELP %s %s\n# TYPE %s counter\n", f->name, f->help, f->name);
	for (j = 0; j < n; j++) {
		item = (const char *)items + j * size;
		memcpy(&pools, item + pools_off, sizeof(pools));
		memcpy(&npools, item + npools_off, sizeof(npools));
		for (k = 0; k < npools; k++) {
			memcpy(&v, (const char *)&pools[k] + f->off, sizeof(v));
			if (f->kind == OM_NSEC && v == NFSFAIR_UNKNOWN)
				continue;
			snprintf(id, sizeof(id), "%" PRIu32, pools[k].id);
			fputs(f->name, fp);
			labels(fp, ns, item);
			label(fp, ",", "pool", id);
			fputc('}', fp);
			value(fp, v, f->kind);
		}
	}
}

static const struct om_pool_family class_pool_families[] = {
	{ "nfsfair_class_pool_dispatches_total",
	  "Requests dispatched from the class's connections by one pool's threads.",
	  POOL(dispatches), OM_U64 },
	{ "nfsfair_class_pool_thread_seconds_total",
	  "Time the class's calls held one pool's threads, for calls that ended.",
	  POOL(thread_ns), OM_NSEC },
};

static const struct om_pool_family client_pool_families[] = {
	{ "nfsfair_client_pool_dispatches_total",
	  "Requests dispatched from an NFSv4.1 client ID's connections by one pool's threads.",
	  POOL(dispatches), OM_U64 },
	{ "nfsfair_client_pool_thread_seconds_total",
	  "Time the calls of an NFSv4.1 client ID held one pool's threads, for calls that ended.",
	  POOL(thread_ns), OM_NSEC },
};

/* The caller checks fp for a write error. */
void ctl_openmetrics_print(FILE *fp, const struct ctl_metrics *m)
{
	size_t i;

	families(fp, class_families, ARRAY_SIZE(class_families), m->netns, m->classes,
		 m->nclasses, sizeof(*m->classes), class_labels);
	for (i = 0; i < ARRAY_SIZE(class_pool_families); i++)
		pool_family(fp, &class_pool_families[i], m->netns, m->classes, m->nclasses,
			    sizeof(*m->classes), CLASS(pools), CLASS(npools), class_labels);
	families(fp, rule_families, ARRAY_SIZE(rule_families), m->netns, m->rules, m->nrules,
		 sizeof(*m->rules), rule_labels);
	families(fp, client_families, ARRAY_SIZE(client_families), m->netns, m->clients,
		 m->nclients, sizeof(*m->clients), client_labels);
	for (i = 0; i < ARRAY_SIZE(client_pool_families); i++)
		pool_family(fp, &client_pool_families[i], m->netns, m->clients, m->nclients,
			    sizeof(*m->clients), CLIENT(pools), CLIENT(npools), client_labels);
	fputs("# EOF\n", fp);
}
