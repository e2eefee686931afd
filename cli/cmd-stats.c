// SPDX-License-Identifier: GPL-2.0
/* stats: per-class rates between two class-get dumps SECONDS apart. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"

static void print_class(const struct nfsfair_class *now, const struct nfsfair_class *then,
			uint64_t total, unsigned int wait)
{
	uint64_t d = now->dispatches - (then ? then->dispatches : 0);
	uint64_t q = now->qtime_total_us - (then ? then->qtime_total_us : 0);
	double share = total ? 100.0 * d / total : 0;

	open_json_object(NULL);
	print_string(PRINT_ANY, "class", "%-15s", now->name);
	print_float(PRINT_ANY, "share-pct", " %5.1f%%", share);
	print_float(PRINT_ANY, "dispatches-per-s", " %8.1f", (double)d / wait);
	print_uint(PRINT_JSON, "dispatches", NULL, d);
	print_uint(PRINT_ANY, "connections", " %5" PRIu64, now->connections);
	print_uint(PRINT_ANY, "peers", " %5" PRIu64, now->peers);
	print_uint(PRINT_ANY, "queued", " %6" PRIu64, now->queued);
	if (d)
		print_float(PRINT_ANY, "wait-avg-ms", " %7.3fms", q / 1000.0 / d);
	else
		print_null(PRINT_ANY, "wait-avg-ms", " %9s", "-");
	print_float(PRINT_ANY, "wait-max-ms", " %7.3fms", now->qtime_max_us / 1000.0);
	print_uint(PRINT_ANY, "threads", " %7" PRIu64, now->threads);
	close_json_object();
	print_nl();
}

static int screen(struct ctl *c, const struct ctl_classes *now, const struct ctl_classes *then)
{
	const char *only = c->argc ? c->argv[0] : NULL;
	const struct nfsfair_class *k, *p;
	uint64_t total = 0;
	int i;

	for (i = 0; i < now->n; i++) {
		p = ctl_class_find(then, now->v[i].name);
		total += now->v[i].dispatches - (p ? p->dispatches : 0);
	}
	open_json_object(NULL);
	print_uint(PRINT_ANY, "interval", "every %" PRIu64 "s: ", c->wait);
	print_uint(PRINT_ANY, "dispatches", "%" PRIu64 " dispatches to classes\n", total);
	print_string(PRINT_FP, NULL, "%s\n",
		     "class            share   disp/s conns peers queued  wait-avg  wait-max threads");
	open_json_array("classes");
	for (i = 0; i < now->n; i++) {
		k = &now->v[i];
		if (!only || !strcmp(only, k->name))
			print_class(k, ctl_class_find(then, k->name), total, c->wait);
	}
	close_json_array();
	close_json_object();
	return 0;
}

int cmd_stats(struct ctl *c)
{
	struct ctl_classes then, now;
	unsigned int n;
	int ret;

	ret = ctl_classes_dump(c, &then);
	if (ret)
		return ret;
	if (c->argc && !ctl_class_find(&then, c->argv[0])) {
		free(then.v);
		return ctl_error("stats: no class '%s'", c->argv[0]);
	}
	if (c->opts & OPT_COUNT)
		open_json_array(NULL);
	for (n = 0; n < c->count; n++) {
		sleep(c->wait);
		ret = ctl_classes_dump(c, &now);
		if (ret)
			break;
		if (n)
			print_nl();
		screen(c, &now, &then);
		fflush(stdout);
		free(then.v);
		then = now;
	}
	if (c->opts & OPT_COUNT)
		close_json_array();
	output_done();
	free(then.v);
	return ret;
}
