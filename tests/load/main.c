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
 *   nfsfair-load --group H:127.0.0.2:1:8:50000 --group L:127.0.0.3:1:8:1000 \
 *		  --hold-switch L:2:50000 --start H:1 --duration 4 --window-ms 100
 *
 * --window-ms N also counts each group's completions in windows of N ms
 * from the start of the measured period, so that a share can be followed
 * through a change made while the load runs (tests/bench/fairness,
 * live-edit); the report gives that start on CLOCK_MONOTONIC, the clock a
 * script on the same machine stamps the change with.
 *
 * Each group may ask its own holds (HOLD, a list cycled call by call),
 * change them (--hold-switch), start late (--start) and go quiet for a
 * while (--pause); the report gives each group's share of thread-time:
 * the holds its completed calls asked, over all groups' (issue 40).
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
	OPT_TIMEOUT, OPT_DUMP_REQUEST, OPT_WINDOW_MS, OPT_HOLD_SWITCH, OPT_START, OPT_PAUSE,
	OPT_HELP = 'h',
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
	{ "hold-switch",  required_argument, NULL, OPT_HOLD_SWITCH },
	{ "start",	  required_argument, NULL, OPT_START },
	{ "pause",	  required_argument, NULL, OPT_PAUSE },
	{ "json",	  no_argument,	     NULL, OPT_JSON },
	{ "timeout",	  required_argument, NULL, OPT_TIMEOUT },
	{ "dump-request", no_argument,	     NULL, OPT_DUMP_REQUEST },
	{ "help",	  no_argument,	     NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 }
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG_NAME " --group NAME:SRCADDR:CONNS:DEPTH[:HOLD] [--group ...] [OPTION]...\n"
"Keep NFS calls outstanding on TCP connections to nfsd, from chosen source\n"
"addresses, and report each group's completions, share, share of thread-time\n"
"and latency.\n"
"\n"
"  --server ADDR        nfsd's address, IPv4 or IPv6 literal (default 127.0.0.1)\n"
"  --port N             nfsd's port (default 2049)\n"
"  --group NAME:SRCADDR:CONNS:DEPTH[:HOLD]\n"
"                       a load group: CONNS connections bound to SRCADDR, each\n"
"                       keeping DEPTH calls outstanding; repeatable. HOLD: the\n"
"                       hold its calls ask, in us (default --hold-us), or a\n"
"                       list US,US,... cycled call by call over the group's\n"
"                       calls (a host mixing cheap and costly calls). An IPv6\n"
"                       SRCADDR followed by HOLD goes in brackets: [::1]\n"
"  --proc null|getattr|v41\n"
"                       null: NFSv3 NULL; getattr: NFSv3 GETATTR of the hold\n"
"                       hook's handle (default); v41: NFSv4.1 COMPOUND\n"
"                       { SEQUENCE, PUTFH of the hold hook's handle } on a\n"
"                       session (see below)\n"
"  --hold-us N          hold time asked of the hold hook, in us, by the groups\n"
"                       without a HOLD (default 10000)\n"
"  --jitter PCT         draw each hold uniformly in hold*(1+-PCT/100) (default 0)\n"
"  --hold-switch NAME:SECONDS:HOLD\n"
"                       from SECONDS into the measured time on, group NAME's\n"
"                       calls ask HOLD (US or US,US,...), from its first;\n"
"                       calls already sent keep theirs; repeatable\n"
"  --start NAME:SECONDS group NAME sends its first call SECONDS into the\n"
"                       measured time, none in the warm-up (its connections\n"
"                       are set up with the others' at the start)\n"
"  --pause NAME:FROM:TO group NAME sends no new call from FROM to TO seconds\n"
"                       into the measured time (its calls out still complete);\n"
"                       repeatable. --hold-switch, --start and --pause: not\n"
"                       with --burst; their times lie within --duration\n"
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
"for v41, NFS4ERR_STALE from the hold), ops/s over the measured time, share\n"
"of all completions, share of thread-time (the holds its completed calls\n"
"asked, over those of all groups: what the hold hook held nfsd's threads\n"
"for), p50 and p99 latency from send to reply and RPC-level errors; the\n"
"total line's depth is all the calls kept outstanding. With --window-ms, it\n"
"also gives each group's thread-time in each window: each completed call's\n"
"hold spread over the time just before its reply (the hook replies as its\n"
"hold ends), the part before the measured time left out. A group with a\n"
"--start also has the time from its start to its first reply (JSON\n"
"first_ms).\n"
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

/*
 * parse_holds - HOLD: US or US,US,... (whole us, up to MAX_HOLDS of them)
 * into l; what names the argument in a refusal.
 */
static void parse_holds(const char *what, const char *s, size_t len, struct hold_list *l)
{
	char buf[MAX_HOLDS * 12], *tok, *save = NULL;
	unsigned long v;
	char *end;

	l->n = 0;
	if (len >= sizeof(buf))
		usage_error("%s '%.*s': more than %d holds", what, (int)len, s, MAX_HOLDS);
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (!len || buf[0] == ',' || buf[len - 1] == ',' || strstr(buf, ",,"))
		usage_error("%s '%s': expected US or US,US,... (whole microseconds)", what, buf);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		errno = 0;
		v = strtoul(tok, &end, 10);
		if (!*tok || *end || !(*tok >= '0' && *tok <= '9') || errno || v > UINT32_MAX)
			usage_error("%s '%.*s': '%s' is not a whole number of us from 0 to %u",
				    what, (int)len, s, tok, UINT32_MAX);
		if (l->n == MAX_HOLDS)
			usage_error("%s '%.*s': more than %d holds", what, (int)len, s, MAX_HOLDS);
		l->us[l->n++] = v;
	}
}

static bool is_addr(const char *s, size_t len)
{
	char buf[INET6_ADDRSTRLEN + 2];
	struct sockaddr_storage ss;
	socklen_t sl;

	if (len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return !parse_addr(buf, 0, &ss, &sl);
}

static bool is_ipv4(const char *s, size_t len)
{
	char buf[INET_ADDRSTRLEN];
	struct in_addr a;

	if (len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return inet_pton(AF_INET, buf, &a) == 1;
}

/* parse_field - a whole number from 1 to max, len bytes at f. */
static unsigned long parse_field(const char *what, const char *f, size_t len, unsigned long max)
{
	char *num = strndup(f, len);
	unsigned long v;

	if (!num) {
		fprintf(stderr, "%s: out of memory\n", PROG_NAME);
		exit(1);
	}
	v = parse_ulong(what, num, 1, max);
	free(num);
	return v;
}

/* colon_before - the last ':' in [from, p), or NULL. */
static const char *colon_before(const char *from, const char *p)
{
	while (p > from)
		if (*--p == ':')
			return p;
	return NULL;
}

/*
 * parse_group - NAME:SRCADDR:CONNS:DEPTH[:HOLD]. SRCADDR is an IPv4
 * literal, a bracketed IPv6 one, or an IPv6 one without brackets, which
 * may hold colons itself: then the fields are read from the right, and
 * an address that reads as well with or without a HOLD is refused.
 */
static void parse_group(struct options *o, const char *arg)
{
	const char *first = strchr(arg, ':'), *rest, *src_end, *p, *f[4], *last, *mid, *third;
	char src[INET6_ADDRSTRLEN + 2], what[1100];
	size_t src_len, len[4];
	unsigned int i, nf = 0;
	struct group *g;

	if (!first)
		usage_error("--group '%s': expected NAME:SRCADDR:CONNS:DEPTH[:HOLD]", arg);
	if (!valid_name(arg, first - arg))
		usage_error("--group '%s': NAME must be 1 to %d letters, digits, '_', '.' or '-'",
			    arg, GROUP_NAME_MAX - 1);
	rest = first + 1;
	src_end = NULL;
	if (*rest == '[') {
		p = strchr(rest, ']');
		if (!p || p[1] != ':')
			usage_error("--group '%s': SRCADDR '[...]' needs its ']' and a ':' "
				    "after it", arg);
		src_end = p + 1;
	} else if ((p = strchr(rest, ':')) && is_ipv4(rest, p - rest)) {
		src_end = p;
	}
	if (src_end) {
		/* the fields after SRCADDR: CONNS, DEPTH and maybe HOLD */
		p = src_end;
		while (p && nf < 4) {
			f[nf] = p + 1;
			p = strchr(p + 1, ':');
			len[nf] = (p ? p : f[nf] + strlen(f[nf])) - f[nf];
			nf++;
		}
		if (p || nf < 2 || nf > 3)
			usage_error("--group '%s': expected NAME:SRCADDR:CONNS:DEPTH[:HOLD]", arg);
	} else {
		/* an IPv6 SRCADDR without brackets, or no address at all */
		last = strrchr(rest, ':');
		mid = last ? colon_before(rest, last) : NULL;
		if (!mid)
			usage_error("--group '%s': expected NAME:SRCADDR:CONNS:DEPTH[:HOLD]", arg);
		third = colon_before(rest, mid);
		if (third && is_addr(rest, third - rest)) {
			if (is_addr(rest, mid - rest))
				usage_error("--group '%s': SRCADDR '%.*s' or '%.*s'? Put an IPv6 "
					    "SRCADDR in brackets: [ADDR]", arg,
					    (int)(mid - rest), rest, (int)(third - rest), rest);
			src_end = third;
		} else {
			src_end = mid;
		}
		nf = src_end == third ? 3 : 2;
		f[0] = src_end + 1;
		f[1] = strchr(f[0], ':') + 1;
		f[2] = nf == 3 ? last + 1 : NULL;
		len[0] = f[1] - 1 - f[0];
		len[1] = (nf == 3 ? last : f[1] + strlen(f[1])) - f[1];
		len[2] = nf == 3 ? strlen(f[2]) : 0;
	}

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

	src_len = src_end - rest;
	if (src_len >= sizeof(src))
		src_len = sizeof(src) - 1;
	memcpy(src, rest, src_len);
	src[src_len] = '\0';
	if (parse_addr(src, 0, &g->src, &g->src_len))
		usage_error("--group '%s': SRCADDR '%s' is not an IPv4 or IPv6 address", arg, src);
	format_addr(&g->src, false, g->source, sizeof(g->source));

	snprintf(what, sizeof(what), "--group '%s': CONNS", arg);
	g->conns = parse_field(what, f[0], len[0], MAX_CONNS);
	snprintf(what, sizeof(what), "--group '%s': DEPTH", arg);
	g->depth = parse_field(what, f[1], len[1], MAX_DEPTH);
	if (nf == 3) {
		snprintf(what, sizeof(what), "--group '%s': HOLD", arg);
		parse_holds(what, f[2], len[2], &g->hold);
	}
	o->ngroups++;
}

/*
 * parse_sched - --hold-switch NAME:SECONDS:HOLD, --start NAME:SECONDS or
 * --pause NAME:FROM:TO; the group is found, and the times checked against
 * --duration, once every option is read (check_options).
 */
static void parse_sched(struct options *o, enum sched_kind kind, const char *opt,
			const char *arg)
{
	static const char *const form[] = {
		[SCHED_SWITCH] = "NAME:SECONDS:HOLD",
		[SCHED_START] = "NAME:SECONDS",
		[SCHED_PAUSE] = "NAME:FROM:TO",
	};
	const char *c1 = strchr(arg, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	char what[1100], *num;
	struct sched *s;
	size_t n;

	if (!c1 || (kind == SCHED_START) != !c2 || (c2 && strchr(c2 + 1, ':')))
		usage_error("--%s '%s': expected %s", opt, arg, form[kind]);
	if (!valid_name(arg, c1 - arg))
		usage_error("--%s '%s': no --group can be named '%.*s'", opt, arg, (int)(c1 - arg),
			    arg);
	s = realloc(o->sched, (o->nsched + 1) * sizeof(*s));
	if (!s) {
		fprintf(stderr, "%s: out of memory\n", PROG_NAME);
		exit(1);
	}
	o->sched = s;
	s = &o->sched[o->nsched++];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->arg = arg;
	memcpy(s->name, arg, c1 - arg);
	n = (c2 ? (size_t)(c2 - c1 - 1) : strlen(c1 + 1));
	num = strndup(c1 + 1, n);
	if (!num) {
		fprintf(stderr, "%s: out of memory\n", PROG_NAME);
		exit(1);
	}
	snprintf(what, sizeof(what), "--%s '%s': %s", opt, arg,
		 kind == SCHED_PAUSE ? "FROM" : "SECONDS");
	s->from_s = parse_seconds(what, num, 0, true, 86400);
	free(num);
	if (kind == SCHED_PAUSE) {
		snprintf(what, sizeof(what), "--%s '%s': TO", opt, arg);
		s->to_s = parse_seconds(what, c2 + 1, 0, true, 86400);
		if (s->to_s <= s->from_s)
			usage_error("--%s '%s': FROM %g s is not before TO %g s", opt, arg,
				    s->from_s, s->to_s);
	} else if (kind == SCHED_SWITCH) {
		snprintf(what, sizeof(what), "--%s '%s': HOLD", opt, arg);
		parse_holds(what, c2 + 1, strlen(c2 + 1), &s->hold);
	}
	s->from_ns = llround(s->from_s * 1e9);
	s->to_ns = llround(s->to_s * 1e9);
}

static uint32_t holds_max(const struct hold_list *l, uint32_t m)
{
	unsigned int i;

	for (i = 0; i < l->n; i++)
		m = l->us[i] > m ? l->us[i] : m;
	return m;
}

static const char *sched_opt(enum sched_kind kind)
{
	return kind == SCHED_SWITCH ? "hold-switch" : kind == SCHED_START ? "start" : "pause";
}

/*
 * check_sched - each --hold-switch, --start and --pause names a group and
 * lies within --duration of a backlogged run; one --start a group.
 */
static void check_sched(struct options *o)
{
	struct sched *s;
	unsigned int i, j;

	for (i = 0; i < o->nsched; i++) {
		s = &o->sched[i];
		for (j = 0; j < o->ngroups && strcmp(o->groups[j].name, s->name); j++)
			;
		if (j == o->ngroups)
			usage_error("--%s '%s': no --group is named '%s'", sched_opt(s->kind),
				    s->arg, s->name);
		s->g = &o->groups[j];
		if (o->burst_n)
			usage_error("--%s: changes a backlogged run over its --duration, "
				    "not --burst", sched_opt(s->kind));
		if (s->kind == SCHED_PAUSE ? s->to_s > o->duration_s : s->from_s >= o->duration_s)
			usage_error("--%s '%s': %g s is past --duration %g s", sched_opt(s->kind),
				    s->arg, s->kind == SCHED_PAUSE ? s->to_s : s->from_s,
				    o->duration_s);
		if (s->kind == SCHED_START) {
			if (s->g->start)
				usage_error("--start '%s': group '%s' already has --start '%s'",
					    s->arg, s->name, s->g->start->arg);
			s->g->start = s;
		}
		if (s->kind == SCHED_PAUSE)
			s->g->paused = true;
		o->hold_max_us = holds_max(&s->hold, o->hold_max_us);
	}
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
		usage_error("at least one --group NAME:SRCADDR:CONNS:DEPTH[:HOLD] is required");
	o->hold_max_us = o->hold_us;
	for (i = 0; i < o->ngroups; i++) {
		g = &o->groups[i];
		o->hold_max_us = holds_max(&g->hold, o->hold_max_us);
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
	check_sched(o);
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
		case OPT_HOLD_SWITCH:
			parse_sched(o, SCHED_SWITCH, "hold-switch", optarg);
			break;
		case OPT_START:
			parse_sched(o, SCHED_START, "start", optarg);
			break;
		case OPT_PAUSE:
			parse_sched(o, SCHED_PAUSE, "pause", optarg);
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
	uint64_t ops, errors, thread_us;
	double ops_per_s, share, thread;
	const struct hist *lat;
	const struct group *g;		/* NULL on the total line */
};

static void fill_row(struct row *row, const struct group *g, uint64_t total,
		     uint64_t total_us, double dur)
{
	row->name = g->name;
	row->source = g->source;
	row->conns = g->conns;
	row->depth = g->depth;
	row->ops = g->ops;
	row->errors = g->errors;
	row->ops_per_s = dur > 0 ? g->ops / dur : 0;
	row->share = total ? 100.0 * g->ops / total : 0;
	row->thread_us = g->thread_us;
	row->thread = total_us ? 100.0 * g->thread_us / total_us : 0;
	row->lat = g->lat;
	row->g = g;
}

static void text_row(const struct row *row, int nw, int sw)
{
	printf("%-*s  %-*s %6u %6u %10llu %11.1f %7.2f %7.2f", nw, row->name, sw, row->source,
	       row->conns, row->depth, (unsigned long long)row->ops, row->ops_per_s, row->share,
	       row->thread);
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

/* print_holds - a HOLD list as "US,US" (sep ","), or --hold-us for none. */
static void print_holds(const struct options *o, const struct hold_list *l, const char *sep)
{
	unsigned int i;

	if (!l->n)
		printf("%u", o->hold_us);
	for (i = 0; i < l->n; i++)
		printf("%s%u", i ? sep : "", l->us[i]);
}

/* print_thread_windows - a group's thread-time in each window, in ms. */
static void print_thread_windows(const struct options *o, const struct group *g, const char *sep,
				 const char *fmt)
{
	unsigned int i;

	for (i = 0; i < o->nwindows; i++) {
		printf("%s", i ? sep : "");
		printf(fmt, g->win_thread_ns[i] / 1e6);
	}
}

/* first_ms - ms from group g's --start to its first reply; < 0: none. */
static double first_ms(const struct results *res, const struct group *g)
{
	if (!g->start || !g->first_ns)
		return -1;
	return (double)(g->first_ns - res->start_ns - g->start->from_ns) / 1e6;
}

/* json_sched - a group's own holds and schedule, as JSON members. */
static void json_sched(const struct options *o, const struct results *res, const struct group *g)
{
	const struct sched *s;
	unsigned int i, n;

	printf(",\n     \"hold_us\": [");
	print_holds(o, &g->hold, ", ");
	printf("]");
	for (i = n = 0; i < o->nsched; i++) {
		s = &o->sched[i];
		if (s->g != g || s->kind != SCHED_SWITCH)
			continue;
		printf("%s{\"at_s\": %g, \"hold_us\": [", n++ ? ", " : ", \"hold_switches\": [",
		       s->from_s);
		print_holds(o, &s->hold, ", ");
		printf("]}");
	}
	if (n)
		printf("]");
	for (i = n = 0; i < o->nsched; i++) {
		s = &o->sched[i];
		if (s->g == g && s->kind == SCHED_PAUSE)
			printf("%s[%g, %g]", n++ ? ", " : ", \"pauses\": [", s->from_s, s->to_s);
	}
	if (n)
		printf("]");
	if (g->start) {
		printf(", \"start_s\": %g, \"first_ms\": ", g->start->from_s);
		if (first_ms(res, g) < 0)
			printf("null");
		else
			printf("%.4f", first_ms(res, g));
	}
}

static void json_row(const struct options *o, const struct results *res, const struct row *row,
		     bool last)
{
	printf("    {\"name\": \"%s\", \"source\": \"%s\", \"conns\": %u, \"depth\": %u, "
	       "\"ops\": %llu, \"ops_per_s\": %.3f, \"share_pct\": %.3f,\n     "
	       "\"thread_s\": %.6f, \"thread_pct\": %.3f, ",
	       row->name, row->source, row->conns, row->depth, (unsigned long long)row->ops,
	       row->ops_per_s, row->share, row->thread_us / 1e6, row->thread);
	if (row->lat->count)
		printf("\"p50_ms\": %.4f, \"p99_ms\": %.4f, ", hist_quantile(row->lat, 0.5) / 1e6,
		       hist_quantile(row->lat, 0.99) / 1e6);
	else
		printf("\"p50_ms\": null, \"p99_ms\": null, ");
	if (o->proc == LOAD_PROC_V41)
		printf("\"sessions\": %u, \"slots\": %u, ", row->g->sessions, row->g->slots);
	printf("\"errors\": %llu", (unsigned long long)row->errors);
	json_sched(o, res, row->g);
	if (o->window_ms) {
		printf(",\n     \"windows\": [");
		print_windows(o, row->g, ", ");
		printf("],\n     \"windows_thread_ms\": [");
		print_thread_windows(o, row->g, ", ", "%.3f");
		printf("]");
	}
	printf("}%s\n", last ? "" : ",");
}

static void report(const struct options *o, const struct results *res, struct hist *all)
{
	const char *proc = load_proc_name(o->proc);
	struct row row, total = { .name = "total", .source = "", .lat = all };
	const struct group *g;
	const struct sched *sc;
	unsigned int j;
	double dur = res->duration_s;
	int nw = 5, sw = 6, n;
	char server[80];
	unsigned int i;

	format_addr(&o->server, true, server, sizeof(server));
	for (i = 0; i < o->ngroups; i++) {
		total.ops += o->groups[i].ops;
		total.thread_us += o->groups[i].thread_us;
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
	total.thread = total.thread_us ? 100 : 0;

	if (o->json) {
		printf("{\n  \"server\": \"%s\", \"proc\": \"%s\", \"hold_us\": %u, "
		       "\"jitter_pct\": %g, \"warmup_s\": %g,\n  \"duration_s\": %.4f,\n",
		       server, proc, o->hold_us, o->jitter_pct, o->warmup_s, dur);
		if (o->window_ms)
			printf("  \"window_ms\": %u, \"start_ns\": %llu,\n", o->window_ms,
			       (unsigned long long)res->start_ns);
		printf("  \"groups\": [\n");
		for (i = 0; i < o->ngroups; i++) {
			fill_row(&row, &o->groups[i], total.ops, total.thread_us, dur);
			json_row(o, res, &row, i + 1 == o->ngroups);
		}
		printf("  ],\n  \"total_ops\": %llu, \"total_ops_per_s\": %.3f, "
		       "\"total_thread_s\": %.6f, \"total_errors\": %llu",
		       (unsigned long long)total.ops, total.ops_per_s, total.thread_us / 1e6,
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
	printf("%-*s  %-*s %6s %6s %10s %11s %7s %7s %9s %9s %7s\n", nw, "group", sw, "source",
	       "conns", "depth", "ops", "ops/s", "share%", "thread%", "p50_ms", "p99_ms", "errors");
	for (i = 0; i < o->ngroups; i++) {
		fill_row(&row, &o->groups[i], total.ops, total.thread_us, dur);
		text_row(&row, nw, sw);
	}
	text_row(&total, nw, sw);
	/* the groups with holds or a schedule of their own */
	for (i = 0; i < o->ngroups; i++) {
		g = &o->groups[i];
		for (j = 0; j < o->nsched && o->sched[j].g != g; j++)
			;
		if (!g->hold.n && j == o->nsched)
			continue;
		printf("%s: hold ", g->name);
		print_holds(o, &g->hold, ",");
		printf(" us");
		for (j = 0; j < o->nsched; j++) {
			sc = &o->sched[j];
			if (sc->g != g)
				continue;
			if (sc->kind == SCHED_SWITCH) {
				printf(", from %g s ", sc->from_s);
				print_holds(o, &sc->hold, ",");
				printf(" us");
			} else if (sc->kind == SCHED_PAUSE) {
				printf(", quiet from %g to %g s", sc->from_s, sc->to_s);
			} else if (first_ms(res, g) >= 0) {
				printf(", starts at %g s, first reply %.3f ms later", sc->from_s,
				       first_ms(res, g));
			} else {
				printf(", starts at %g s, no reply", sc->from_s);
			}
		}
		printf("\n");
	}
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
	for (i = 0; o->window_ms && i < o->ngroups; i++) {
		printf("%s, thread-ms per %u ms: ", o->groups[i].name, o->window_ms);
		print_thread_windows(o, &o->groups[i], " ", "%.1f");
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
	uint32_t base = o->hold_us, hold;
	uint8_t buf[RPC_CALL_MAX];
	uint64_t rng = 1;
	size_t len, i;

	/* the first group's first call, if a group is given */
	if (o->ngroups && o->groups[0].hold.n)
		base = o->groups[0].hold.us[0];
	hold = load_hold_us(o, base, &rng);
	if (o->proc == LOAD_PROC_V41)
		len = nfs41_encode_probe(buf, load_xid_base(0), &seq, hold);
	else
		len = rpc_encode_call(buf, load_xid_base(0), o->proc, hold);
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
			o.groups[i].win_thread_ns = calloc(o.nwindows, sizeof(uint64_t));
			nomem |= !o.groups[i].windows || !o.groups[i].win_thread_ns;
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
		free(o.groups[i].win_thread_ns);
	}
	free(o.groups);
	free(o.sched);
	free(res.runs_ms);
	free(all);
	return status;
}
