// SPDX-License-Identifier: GPL-2.0
/* Reading the table: -L, -S and classes. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "ctl.h"

static enum output_type when(bool shown)
{
	return shown ? PRINT_ANY : PRINT_JSON;
}

static void print_rule(struct ctl *c, const struct nfsfair_rule *r, bool shadowed)
{
	uint32_t ids = nfsfair_target_ids_per_host(&r->target);
	bool verbose = c->opts & OPT_VERBOSE;
	char src[NFSFAIR_PREFIX_STRLEN], tgt[32], n[32];

	nfsfair_prefix_format(&r->prefix, src, sizeof(src));
	nfsfair_target_format(&r->target, r->prefix.family, tgt, sizeof(tgt));
	output_fmt_count(r->hits, c->opts & OPT_EXACT, n, sizeof(n));
	open_json_object(NULL);
	print_uint(when(c->opts & OPT_LINE), "position", "%-5" PRIu64, r->position);
	print_string(PRINT_FP, NULL, verbose ? "%8s " : "", n);
	print_uint(PRINT_JSON, "hits", NULL, r->hits);
	print_uint(when(verbose), "origin", "%-7" PRIu64, r->origin);
	print_string(PRINT_ANY, "target", "%-16s ", tgt);
	if (r->target.kind == NFSFAIR_TARGET_CLASS)
		print_string(PRINT_JSON, "class", NULL, r->target.class);
	else
		print_uint(PRINT_JSON, "per-host-len", NULL,
			   nfsfair_target_per_host_len(&r->target, r->prefix.family));
	print_string(PRINT_ANY, "source", "%s", src);
	/* As -S writes it: in the text only when not the default. */
	if (ids)
		print_uint(when(ids != NFSFAIR_IDS_PER_HOST_DEFAULT), "ids-per-host",
			   "  --ids-per-host %" PRIu64, ids);
	print_bool(PRINT_JSON, "shadowed", NULL, shadowed);
	if (shadowed)
		print_string(PRINT_FP, NULL, "%s", "  [shadowed by earlier rules]");
	close_json_object();
	print_nl();
}

int cmd_list(struct ctl *c)
{
	struct ctl_rules rules;
	bool *shadowed;
	int i, ret;

	ret = ctl_rules_dump(c, &rules);
	if (ret)
		return ret;
	shadowed = calloc(rules.n + 1, sizeof(*shadowed));
	if (!shadowed || nfsfair_rules_shadowed(rules.v, rules.n, shadowed) < 0) {
		free(shadowed);
		free(rules.v);
		return ctl_error("out of memory");
	}
	if (c->opts & OPT_LINE)
		print_string(PRINT_FP, NULL, "%-5s", "num");
	if (c->opts & OPT_VERBOSE)
		print_string(PRINT_FP, NULL, "%8s origin ", "hits");
	print_string(PRINT_FP, NULL, "%-16s source\n", "target");
	open_json_array(NULL);
	for (i = 0; i < rules.n; i++)
		print_rule(c, &rules.v[i], shadowed[i]);
	close_json_array();
	output_done();
	free(shadowed);
	free(rules.v);
	return CTL_OK;
}

int cmd_list_rules(struct ctl *c)
{
	char text[NFSFAIR_RULE_STRLEN];
	struct ctl_rules rules;
	int i, ret;

	ret = ctl_rules_dump(c, &rules);
	if (ret)
		return ret;
	for (i = 0; i < rules.n; i++) {
		nfsfair_rule_format(&rules.v[i], text, sizeof(text));
		printf("-A %s\n", text);
	}
	free(rules.v);
	return CTL_OK;
}

/* Seconds, from microseconds: exact with -x. */
static void print_usec(const char *key, const char *fmt, uint64_t us, bool exact, bool shown)
{
	char buf[32];

	if (exact)
		snprintf(buf, sizeof(buf), "%" PRIu64 ".%06" PRIu64 "s", us / 1000000,
			 us % 1000000);
	else
		snprintf(buf, sizeof(buf), "%.1fs", us / 1e6);
	if (shown)
		print_string(PRINT_FP, NULL, fmt, buf);
	print_uint(PRINT_JSON, key, NULL, us);
}

int cmd_classes(struct ctl *c)
{
	bool verbose = c->opts & OPT_VERBOSE, exact = c->opts & OPT_EXACT;
	struct ctl_classes cl;
	char n[32];
	int i, ret;

	ret = ctl_classes_dump(c, &cl);
	if (ret)
		return ret;
	print_string(PRINT_FP, NULL, "%-16s weight limit rules", "class");
	if (verbose)
		print_string(PRINT_FP, NULL, "%s",
			     " dispatches conns queued threads thr-max  skips at-limit");
	print_nl();
	open_json_array(NULL);
	for (i = 0; i < cl.n; i++) {
		const struct nfsfair_class *k = &cl.v[i];

		open_json_object(NULL);
		print_string(PRINT_ANY, "name", "%-16s ", k->name);
		print_uint(PRINT_ANY, "weight", "%6" PRIu64, k->weight);
		ctl_print_limit(k->limit, " %5" PRIu64, " %5s");
		print_uint(PRINT_ANY, "rules", " %5" PRIu64, k->rules);
		output_fmt_count(k->dispatches, exact, n, sizeof(n));
		print_string(PRINT_FP, NULL, verbose ? " %10s" : "", n);
		print_uint(PRINT_JSON, "dispatches", NULL, k->dispatches);
		print_uint(when(verbose), "connections", " %5" PRIu64, k->connections);
		print_uint(when(verbose), "queued", " %6" PRIu64, k->queued);
		print_uint(when(verbose), "threads", " %7" PRIu64, k->threads);
		print_uint(when(verbose), "threads-max", " %7" PRIu64, k->threads_max);
		output_fmt_count(k->limit_skips, exact, n, sizeof(n));
		print_string(PRINT_FP, NULL, verbose ? " %6s" : "", n);
		print_uint(PRINT_JSON, "limit-skips", NULL, k->limit_skips);
		print_usec("limit-time-us", " %8s", k->limit_time_us, exact, verbose);
		print_uint(PRINT_JSON, "qtime-total-us", NULL, k->qtime_total_us);
		print_uint(PRINT_JSON, "qtime-max-us", NULL, k->qtime_max_us);
		/* JSON only: scripts read -v's columns as they are */
		if (k->thread_ns != NFSFAIR_UNKNOWN)
			print_uint(PRINT_JSON, "thread-ns", NULL, k->thread_ns);
		close_json_object();
		print_nl();
	}
	close_json_array();
	output_done();
	free(cl.v);
	return CTL_OK;
}
