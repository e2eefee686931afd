// SPDX-License-Identifier: GPL-2.0
/*
 * nfsfair-load: options, the report, the exit status.
 *
 *   nfsfair-load --group a:127.0.0.2:1:4 --group b:127.0.0.3:4:4 \
 *		  --proc getattr --hold-us 1000 --duration 5 --json
 *   nfsfair-load --group a:127.0.0.2:16:16 --proc v41 --hold-us 10000
 *   nfsfair-load --group a:127.0.0.2:16:16 --group b:127.0.0.3:1:16 \
 *		  --duration 8 --window-ms 100 --json
 *
 * --window-ms N also counts each group's completions in windows of N ms
 * from the start of the measured period, so that a share can be followed
 * through a change made while the load runs (tests/bench/fairness,
 * live-edit); the report gives that start on CLOCK_MONOTONIC, the clock a
 * script on the same machine stamps the change with.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"

enum {
	OPT_SERVER = 256, OPT_PORT, OPT_GROUP, OPT_PROC, OPT_HOLD_US, OPT_JITTER,
	OPT_DURATION, OPT_WARMUP, OPT_BURST, OPT_BURST_GROUP, OPT_REPEAT, OPT_JSON,
	OPT_TIMEOUT, OPT_DUMP_REQUEST, OPT_WINDOW_MS, OPT_HELP = 'h',
};

static const struct option long_opts[] = {
	{ "server",	  required_argument, NULL, OPT_SERVER },
	{ "port",	  required_argument, NULL, OPT_PORT },
	{ "group",	  required_argument, NULL, OPT_GROUP },
	{ "proc",	  required_argument, NULL, OPT_PROC },
	{ "hold-us",	  required_argument, NULL, OPT_HOLD_US },
	{ "jitter",	  required_argument, NULL, OPT_JITTER },
	{ "duration",	  required_argument, NULL, OPT_DURATION },
	{ "warmup",	  required_argument, NULL, OPT_WARMUP },
	{ "burst",	  required_argument, NULL, OPT_BURST },
	{ "burst-group",  required_argument, NULL, OPT_BURST_GROUP },
	{ "repeat",	  required_argument, NULL, OPT_REPEAT },
	{ "window-ms",	  required_argument, NULL, OPT_WINDOW_MS },
	{ "json",	  no_argument,	     NULL, OPT_JSON },
	{ "timeout",	  required_argument, NULL, OPT_TIMEOUT },
	{ "dump-request", no_argument,	     NULL, OPT_DUMP_REQUEST },
	{ "help",	  no_argument,	     NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 }
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG_NAME " --group NAME:SRCADDR:CONNS:DEPTH [--group ...] [OPTION]...\n"
"Keep NFS calls outstanding on TCP connections to nfsd, from chosen source\n"
"addresses, and report each group's completions, share and latency.\n"
"\n"
"  --server ADDR        nfsd's address, IPv4 or IPv6 literal (default 127.0.0.1)\n"
"  --port N             nfsd's port (default 2049)\n"
"  --group NAME:SRCADDR:CONNS:DEPTH\n"
"                       a load group: CONNS connections bound to SRCADDR, each\n"
"                       keeping DEPTH calls outstanding; repeatable\n"
"  --proc null|getattr|v41\n"
"                       null: NFSv3 NULL; getattr: NFSv3 GETATTR of the hold\n"
"                       hook's handle (default); v41: NFSv4.1 COMPOUND\n"
"                       { SEQUENCE, PUTFH of the hold hook's handle } on a\n"
"                       session (see below)\n"
"  --hold-us N          hold time asked of the hold hook, in us (default 10000)\n"
"  --jitter PCT         draw each hold uniformly in hold*(1+-PCT/100) (default 0)\n"
"  --duration SECONDS   measured time of a backlogged run (default 10); SIGUSR1\n"
"                       ends it early, and the report covers the time until then\n"
"  --warmup SECONDS     time before measuring, not counted (default 1)\n"
"  --burst N            burst mode: after the warm-up the --burst-group sends N\n"
"                       calls over its connections (at most DEPTH outstanding\n"
"                       on each) while the other groups stay backlogged; the\n"
"                       time until all N complete is reported\n"
"  --burst-group NAME   the group that bursts\n"
"  --repeat R           bursts to run, 100 ms apart; the median is reported\n"
"                       (default 5)\n"
"  --window-ms N        also count each group's completions in windows of N ms\n"
"                       of the measured time, from its start (not with --burst;\n"
"                       the last window is short if N does not divide\n"
"                       --duration); the report adds the windows' counts and,\n"
"                       in JSON, start_ns: that start on CLOCK_MONOTONIC\n"
"  --json               print the report as JSON\n"
"  --timeout SECONDS    hard cap on the whole run (default 120)\n"
"  --dump-request       print the first call, record mark included, as hex\n"
"                       words instead of running; for v41 the measured\n"
"                       COMPOUND, with session ID 0, slot 0, seqid 1\n"
"  --help               this text\n"
"\n"
"The report gives each group's completed calls (replies with any NFS status;\n"
"for v41, NFS4ERR_STALE from the hold), ops/s, share of all completions, p50\n"
"and p99 latency from send to reply and RPC-level errors; the total line's\n"
"depth is all the calls kept outstanding.\n"
"\n"
"v41: each group is one NFSv4.1 client. Its first connection makes the client\n"
"ID (EXCHANGE_ID, SP4_NONE) and a session (CREATE_SESSION, no back channel)\n"
"asking for CONNS x DEPTH slots; if the server grants fewer, it makes further\n"
"sessions, each carrying as many whole connections as its slots hold. Every\n"
"other connection joins its session with BIND_CONN_TO_SESSION first. Each\n"
"outstanding call has a slot of its own. A reply other than the hold's\n"
"NFS4ERR_STALE after a successful SEQUENCE is a protocol error: it is\n"
"reported and ends the run with exit status 1. After the run, the sessions\n"
"and client IDs are destroyed.\n"
"\n"
"Exit status: 0 run completed, 1 connection, RPC or protocol errors or\n"
"timeout, 2 usage error.\n");
}

static void __attribute__((noreturn, format(printf, 1, 2))) usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", PROG_NAME);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", PROG_NAME);
	exit(2);
}

static const char *opt_name(int val)
{
	const struct option *lo;

	for (lo = long_opts; lo->name; lo++)
		if (lo->val == val)
			return lo->name;
	return "?";
}

static unsigned long parse_ulong(const char *what, const char *s, unsigned long min,
				 unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (!*s || *end || *s == '-' || *s == '+' || *s == ' ' || errno || v < min || v > max)
		usage_error("%s: '%s' is not a whole number from %lu to %lu", what, s, min, max);
	return v;
}

static double parse_seconds(const char *what, const char *s, double min, bool zero_ok,
			    double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || *end || errno || !isfinite(v) || v < min || v > max || (!zero_ok && v == 0))
		usage_error("%s: '%s' is not a number from %g%s to %g", what, s, min,
			    zero_ok ? "" : " (exclusive)", max);
	return v;
}

/* parse_addr - an IPv4 or IPv6 literal (brackets allowed) with port. */
static int parse_addr(const char *s, unsigned int port, struct sockaddr_storage *ss,
		      socklen_t *len)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	char buf[INET6_ADDRSTRLEN + 2];
	size_t n = strlen(s);

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, s, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		*len = sizeof(*sin);
		return 0;
	}
	if (n >= 2 && s[0] == '[' && s[n - 1] == ']' && n - 2 < sizeof(buf)) {
		memcpy(buf, s + 1, n - 2);
		buf[n - 2] = '\0';
		s = buf;
	}
	if (inet_pton(AF_INET6, s, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		*len = sizeof(*sin6);
		return 0;
	}
	return -EINVAL;
}

static bool valid_name(const char *s, size_t len)
{
	size_t i;

	if (!len || len >= GROUP_NAME_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (!(s[i] >= 'a' && s[i] <= 'z') && !(s[i] >= 'A' && s[i] <= 'Z') &&
		    !(s[i] >= '0' && s[i] <= '9') && !strchr("_.-", s[i]))
			return false;
	return true;
}

/* parse_group - NAME:SRCADDR:CONNS:DEPTH; SRCADDR may itself hold colons. */
static void parse_group(struct options *o, const char *arg)
{
	const char *first = strchr(arg, ':'), *last = strrchr(arg, ':'), *mid;
	char src[INET6_ADDRSTRLEN + 2], num[32], what[96];
	struct group *g;
	unsigned int i;
	size_t len;

	mid = last;
	if (first && first != last)
		for (mid = last - 1; mid > first && *mid != ':'; mid--)
			;
	if (!first || mid == first || mid == last)
		usage_error("--group '%s': expected NAME:SRCADDR:CONNS:DEPTH", arg);
	if (!valid_name(arg, first - arg))
		usage_error("--group '%s': NAME must be 1 to %d letters, digits, '_', '.' or '-'",
			    arg, GROUP_NAME_MAX - 1);
	g = realloc(o->groups, (o->ngroups + 1) * sizeof(*g));
	if (!g) {
		fprintf(stderr, "%s: out of memory\n", PROG_NAME);
		exit(1);
	}
	o->groups = g;
	g = &o->groups[o->ngroups];
	memset(g, 0, sizeof(*g));
	memcpy(g->name, arg, first - arg);
	for (i = 0; i < o->ngroups; i++)
		if (!strcmp(o->groups[i].name, g->name))
			usage_error("--group '%s': there already is a group '%s'", arg, g->name);

	len = mid - first - 1;
	if (len >= sizeof(src))
		len = sizeof(src) - 1;
	memcpy(src, first + 1, len);
	src[len] = '\0';
	if (parse_addr(src, 0, &g->src, &g->src_len))
		usage_error("--group '%s': SRCADDR '%s' is not an IPv4 or IPv6 address", arg, src);
	format_addr(&g->src, false, g->source, sizeof(g->source));

	len = last - mid - 1;
	if (len >= sizeof(num))
		len = sizeof(num) - 1;
	memcpy(num, mid + 1, len);
	num[len] = '\0';
	snprintf(what, sizeof(what), "--group '%s': CONNS", arg);
	g->conns = parse_ulong(what, num, 1, MAX_CONNS);
	snprintf(what, sizeof(what), "--group '%s': DEPTH", arg);
	g->depth = parse_ulong(what, last + 1, 1, MAX_DEPTH);
	o->ngroups++;
}

static void check_options(struct options *o)
{
	struct group *g;
	unsigned int i;
	double windows;

	if (parse_addr(o->server_str, o->port, &o->server, &o->server_len))
		usage_error("--server: '%s' is not an IPv4 or IPv6 address", o->server_str);
	if (o->dump_request)
		return;
	if (!o->ngroups)
		usage_error("at least one --group NAME:SRCADDR:CONNS:DEPTH is required");
	for (i = 0; i < o->ngroups; i++) {
		g = &o->groups[i];
		if (g->src.ss_family != o->server.ss_family)
			usage_error("--group '%s': source %s and --server %s are not the same family",
				    g->name, g->source, o->server_str);
		if (o->burst_group && !strcmp(o->burst_group, g->name))
			g->burst = true;
	}
	if (o->burst_n && !o->burst_group)
		usage_error("--burst: needs --burst-group NAME");
	if (o->burst_group && !o->burst_n)
		usage_error("--burst-group: needs --burst N");
	if (o->burst_group) {
		for (i = 0; i < o->ngroups && !o->groups[i].burst; i++)
			;
		if (i == o->ngroups)
			usage_error("--burst-group: no --group is named '%s'", o->burst_group);
	} else if (o->warmup_s + o->duration_s >= o->timeout_s) {
		usage_error("--duration: %g s after a %g s --warmup does not fit in --timeout %g s",
			    o->duration_s, o->warmup_s, o->timeout_s);
	}
	if (o->window_ms && o->burst_n)
		usage_error("--window-ms: counts a backlogged run's --duration, not --burst");
	if (o->window_ms) {
		/* the tolerance keeps 0.3 s / 100 ms at 3 windows, not 4 */
		windows = ceil(o->duration_s * 1000 / o->window_ms - 1e-6);
		if (windows > MAX_WINDOWS)
			usage_error("--window-ms: %u ms makes %.0f windows of --duration %g s, "
				    "more than %u", o->window_ms, windows, o->duration_s,
				    MAX_WINDOWS);
		o->nwindows = windows;
	}
}

static void parse_options(struct options *o, int argc, char **argv)
{
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_SERVER:
			o->server_str = optarg;
			break;
		case OPT_PORT:
			o->port = parse_ulong("--port", optarg, 1, 65535);
			break;
		case OPT_GROUP:
			parse_group(o, optarg);
			break;
		case OPT_PROC:
			if (!strcmp(optarg, "null"))
				o->proc = LOAD_PROC_NULL;
			else if (!strcmp(optarg, "getattr"))
				o->proc = LOAD_PROC_GETATTR;
			else if (!strcmp(optarg, "v41"))
				o->proc = LOAD_PROC_V41;
			else
				usage_error("--proc: '%s' is not null, getattr or v41", optarg);
			break;
		case OPT_HOLD_US:
			o->hold_us = parse_ulong("--hold-us", optarg, 0, UINT32_MAX);
			break;
		case OPT_JITTER:
			o->jitter_pct = parse_seconds("--jitter", optarg, 0, true, 100);
			break;
		case OPT_DURATION:
			o->duration_s = parse_seconds("--duration", optarg, 0, false, 86400);
			break;
		case OPT_WARMUP:
			o->warmup_s = parse_seconds("--warmup", optarg, 0, true, 86400);
			break;
		case OPT_BURST:
			o->burst_n = parse_ulong("--burst", optarg, 1, 100000000);
			break;
		case OPT_BURST_GROUP:
			o->burst_group = optarg;
			break;
		case OPT_REPEAT:
			o->repeat = parse_ulong("--repeat", optarg, 1, 10000);
			break;
		case OPT_WINDOW_MS:
			o->window_ms = parse_ulong("--window-ms", optarg, 1, 3600000);
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_TIMEOUT:
			o->timeout_s = parse_seconds("--timeout", optarg, 0, false, 86400);
			break;
		case OPT_DUMP_REQUEST:
			o->dump_request = true;
			break;
		case OPT_HELP:
			usage(stdout);
			exit(0);
		case ':':
			usage_error("option '--%s' requires an argument", opt_name(optopt));
		default:
			usage_error("unrecognized option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	check_options(o);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *v, unsigned int n)
{
	double *s;
	double m;

	if (!n)
		return 0;
	s = malloc(n * sizeof(*s));
	if (!s)
		return v[0];
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return m;
}

struct row {
	const char *name, *source;
	unsigned int conns, depth;
	uint64_t ops, errors;
	double ops_per_s, share;
	const struct hist *lat;
	const struct group *g;		/* NULL on the total line */
};

static void fill_row(struct row *row, const struct group *g, uint64_t total, double dur)
{
	row->name = g->name;
	row->source = g->source;
	row->conns = g->conns;
	row->depth = g->depth;
	row->ops = g->ops;
	row->errors = g->errors;
	row->ops_per_s = dur > 0 ? g->ops / dur : 0;
	row->share = total ? 100.0 * g->ops / total : 0;
	row->lat = g->lat;
	row->g = g;
}

static void text_row(const struct row *row, int nw, int sw)
{
	printf("%-*s  %-*s %6u %6u %10llu %11.1f %7.2f", nw, row->name, sw, row->source,
	       row->conns, row->depth, (unsigned long long)row->ops, row->ops_per_s, row->share);
	if (row->lat->count)
		printf(" %9.3f %9.3f", hist_quantile(row->lat, 0.5) / 1e6,
		       hist_quantile(row->lat, 0.99) / 1e6);
	else
		printf(" %9s %9s", "-", "-");
	printf(" %7llu\n", (unsigned long long)row->errors);
}

/* print_windows - a group's --window-ms counts, separated by sep. */
static void print_windows(const struct options *o, const struct group *g, const char *sep)
{
	unsigned int i;

	for (i = 0; i < o->nwindows; i++)
		printf("%s%llu", i ? sep : "", (unsigned long long)g->windows[i]);
}

static void json_row(const struct options *o, const struct row *row, bool last)
{
	printf("    {\"name\": \"%s\", \"source\": \"%s\", \"conns\": %u, \"depth\": %u, "
	       "\"ops\": %llu, \"ops_per_s\": %.3f, \"share_pct\": %.3f, ",
	       row->name, row->source, row->conns, row->depth, (unsigned long long)row->ops,
	       row->ops_per_s, row->share);
	if (row->lat->count)
		printf("\"p50_ms\": %.4f, \"p99_ms\": %.4f, ", hist_quantile(row->lat, 0.5) / 1e6,
		       hist_quantile(row->lat, 0.99) / 1e6);
	else
		printf("\"p50_ms\": null, \"p99_ms\": null, ");
	if (o->proc == LOAD_PROC_V41)
		printf("\"sessions\": %u, \"slots\": %u, ", row->g->sessions, row->g->slots);
	printf("\"errors\": %llu", (unsigned long long)row->errors);
	if (o->window_ms) {
		printf(",\n     \"windows\": [");
		print_windows(o, row->g, ", ");
		printf("]");
	}
	printf("}%s\n", last ? "" : ",");
}

static void report(const struct options *o, const struct results *res, struct hist *all)
{
	const char *proc = load_proc_name(o->proc);
	struct row row, total = { .name = "total", .source = "", .lat = all };
	double dur = res->duration_s;
	int nw = 5, sw = 6, n;
	char server[80];
	unsigned int i;

	format_addr(&o->server, true, server, sizeof(server));
	for (i = 0; i < o->ngroups; i++) {
		total.ops += o->groups[i].ops;
		total.errors += o->groups[i].errors;
		total.conns += o->groups[i].conns;
		total.depth += o->groups[i].conns * o->groups[i].depth;
		hist_merge(all, o->groups[i].lat);
		n = strlen(o->groups[i].name);
		nw = n > nw ? n : nw;
		n = strlen(o->groups[i].source);
		sw = n > sw ? n : sw;
	}
	total.ops_per_s = dur > 0 ? total.ops / dur : 0;
	total.share = total.ops ? 100 : 0;

	if (o->json) {
		printf("{\n  \"server\": \"%s\", \"proc\": \"%s\", \"hold_us\": %u, "
		       "\"jitter_pct\": %g, \"warmup_s\": %g,\n  \"duration_s\": %.4f,\n",
		       server, proc, o->hold_us, o->jitter_pct, o->warmup_s, dur);
		if (o->window_ms)
			printf("  \"window_ms\": %u, \"start_ns\": %llu,\n", o->window_ms,
			       (unsigned long long)res->start_ns);
		printf("  \"groups\": [\n");
		for (i = 0; i < o->ngroups; i++) {
			fill_row(&row, &o->groups[i], total.ops, dur);
			json_row(o, &row, i + 1 == o->ngroups);
		}
		printf("  ],\n  \"total_ops\": %llu, \"total_ops_per_s\": %.3f, "
		       "\"total_errors\": %llu",
		       (unsigned long long)total.ops, total.ops_per_s,
		       (unsigned long long)total.errors);
		if (o->burst_n) {
			printf(",\n  \"burst\": {\"group\": \"%s\", \"n\": %u, \"median_ms\": %.4f, "
			       "\"runs_ms\": [", o->burst_group, o->burst_n,
			       median(res->runs_ms, res->nruns));
			for (i = 0; i < res->nruns; i++)
				printf("%s%.4f", i ? ", " : "", res->runs_ms[i]);
			printf("]}");
		}
		printf("\n}\n");
		return;
	}

	printf("%s %s", server, proc);
	if (o->proc != LOAD_PROC_NULL)
		printf(" hold %u us", o->hold_us);
	if (o->jitter_pct)
		printf(" +-%g%%", o->jitter_pct);
	printf(", %g s warm-up, %.3f s measured\n", o->warmup_s, dur);
	printf("%-*s  %-*s %6s %6s %10s %11s %7s %9s %9s %7s\n", nw, "group", sw, "source",
	       "conns", "depth", "ops", "ops/s", "share%", "p50_ms", "p99_ms", "errors");
	for (i = 0; i < o->ngroups; i++) {
		fill_row(&row, &o->groups[i], total.ops, dur);
		text_row(&row, nw, sw);
	}
	text_row(&total, nw, sw);
	if (o->proc == LOAD_PROC_V41) {
		printf("v4.1 sessions (slots granted):");
		for (i = 0; i < o->ngroups; i++)
			printf("%s %s %u (%u)", i ? "," : "", o->groups[i].name,
			       o->groups[i].sessions, o->groups[i].slots);
		printf("\n");
	}
	for (i = 0; o->window_ms && i < o->ngroups; i++) {
		printf("%s, per %u ms: ", o->groups[i].name, o->window_ms);
		print_windows(o, &o->groups[i], " ");
		printf("\n");
	}
	if (o->burst_n) {
		printf("burst %s: %u calls, median %.3f ms over %u runs:", o->burst_group,
		       o->burst_n, median(res->runs_ms, res->nruns), res->nruns);
		for (i = 0; i < res->nruns; i++)
			printf(" %.3f", res->runs_ms[i]);
		printf("\n");
	}
}

static void dump_request(const struct options *o)
{
	const struct nfs41_seq seq = { .seqid = 1 };	/* session 0, slot 0 */
	uint8_t buf[RPC_CALL_MAX];
	uint64_t rng = 1;
	size_t len, i;

	if (o->proc == LOAD_PROC_V41)
		len = nfs41_encode_probe(buf, load_xid_base(0), &seq, load_hold_us(o, &rng));
	else
		len = rpc_encode_call(buf, load_xid_base(0), o->proc, load_hold_us(o, &rng));
	for (i = 0; i < len; i += 4)
		printf("%02x%02x%02x%02x%s", buf[i], buf[i + 1], buf[i + 2], buf[i + 3],
		       i + 4 < len ? " " : "\n");
}

int main(int argc, char **argv)
{
	struct options o = {
		.server_str = "127.0.0.1",
		.port = 2049,
		.proc = LOAD_PROC_GETATTR,
		.hold_us = 10000,
		.duration_s = 10,
		.warmup_s = 1,
		.timeout_s = 120,
		.repeat = 5,
	};
	struct results res = { 0 };
	struct hist *all = NULL;
	int status = 1, err;
	bool nomem;
	unsigned int i;

	parse_options(&o, argc, argv);
	if (o.dump_request) {
		dump_request(&o);
		status = 0;
		goto out;
	}
	if (!o.burst_n)
		o.repeat = 0;
	all = calloc(1, sizeof(*all));
	nomem = !all;
	for (i = 0; i < o.ngroups; i++) {
		o.groups[i].lat = calloc(1, sizeof(struct hist));
		nomem |= !o.groups[i].lat;
		if (o.window_ms) {
			o.groups[i].windows = calloc(o.nwindows, sizeof(uint64_t));
			nomem |= !o.groups[i].windows;
		}
	}
	if (nomem) {
		fprintf(stderr, "%s: out of memory\n", PROG_NAME);
		goto out;
	}
	err = load_run(&o, &res);
	if (err)
		goto out;
	if (res.timed_out)
		fprintf(stderr, "%s: timeout: the run did not finish within --timeout %g s\n",
			PROG_NAME, o.timeout_s);
	report(&o, &res, all);
	status = 0;
	if (res.timed_out || res.failed)
		status = 1;
	for (i = 0; i < o.ngroups; i++)
		if (o.groups[i].errors)
			status = 1;
out:
	fflush(stdout);
	for (i = 0; i < o.ngroups; i++) {
		free(o.groups[i].lat);
		free(o.groups[i].windows);
	}
	free(o.groups);
	free(res.runs_ms);
	free(all);
	return status;
}
