// SPDX-License-Identifier: GPL-2.0
/*
 * nfsfaird --check: the table the configuration asks for, that it is
 * valid, and what applying it would move of the peers connected to nfsd
 * now (lib/preview.c). The text stays a file nfsfair-ctl restore reads:
 * the verdict and the preview are comment lines after the table.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"

static void table_print_json(const struct want *w)
{
	char buf[NFSFAIR_RULE_STRLEN + 32];
	size_t i;

	open_json_array("table");
	for (i = 0; i < w->nr_classes; i++) {
		snprintf(buf, sizeof(buf), "-N %s --weight %u", w->classes[i].name,
			 w->classes[i].weight);
		print_string(PRINT_JSON, NULL, NULL, buf);
	}
	for (i = 0; i < w->nr_rules; i++) {
		nfsfair_rule_format(&w->rules[i], buf + 3, sizeof(buf) - 3);
		memcpy(buf, "-A ", 3);
		print_string(PRINT_JSON, NULL, NULL, buf);
	}
	close_json_array();
}

/**
 * check_report - print what --check found
 * @w: the table the configuration asks for, valid
 * @config: the main file, to name
 * @json: one JSON document instead of the text
 *
 * Return: 0, or 1 when out of memory (the exit status).
 */
int check_report(const struct want *w, const char *config, bool json)
{
	struct nfsfair_preview pv;
	struct nfsfair_rule *next = NULL;
	int nnext = 0, ret;

	ret = nfsfair_preview_read(&pv, "/proc/net", NFSFAIR_NFSD_PORT);
	/* The daemon's replace: its origin's rules where its first one was. */
	if (!ret && pv.state == NFSFAIR_PREVIEW_OK)
		ret = nfsfair_table_splice(pv.rules, pv.nrules, w->rules, w->nr_rules, w->origin,
					   &next, &nnext);
	if (!ret)
		ret = nfsfair_preview_diff(&pv, next, nnext);
	if (ret) {
		fprintf(stderr, "nfsfaird: out of memory\n");
		goto out;
	}
	output_init(json, stdout);
	open_json_object(NULL);
	if (json)
		table_print_json(w);
	else
		want_print(w, stdout);
	print_string(PRINT_ANY, "config", "# %s: ", config);
	print_bool(PRINT_JSON, "valid", NULL, true);
	print_uint(PRINT_ANY, "classes", "valid: %" PRIu64, w->nr_classes);
	print_string(PRINT_FP, NULL, "%s", w->nr_classes == 1 ? " class, " : " classes, ");
	print_uint(PRINT_ANY, "rules", "%" PRIu64, w->nr_rules);
	print_uint(PRINT_ANY, "origin", w->nr_rules == 1 ? " rule of origin %" PRIu64 "\n" :
			  " rules of origin %" PRIu64 "\n", w->origin);
	nfsfair_preview_print(&pv, "# ");
	close_json_object();
	output_done();
out:
	nfsfair_preview_free(&pv);
	free(next);
	return ret ? 1 : 0;
}
