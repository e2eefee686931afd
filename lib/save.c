// SPDX-License-Identifier: GPL-2.0
/*
 * The save format, read line by line: what `nfsfair-ctl save` writes and
 * `restore` reads. Classes as "-N NAME [--weight W] [--limit N]", rules as
 * "-A -s PREFIX -j TARGET [--ids-per-host N] [--origin O]"; '#' starts a
 * comment.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nfsfair.h"

#define LINE_MAX_WORDS 16

static int split(char *s, char **words, int max)
{
	int n = 0;
	char *w;

	for (w = strtok(s, " \t\r\n"); w; w = strtok(NULL, " \t\r\n")) {
		if (w[0] == '#')
			break;
		if (n == max)
			return -E2BIG;
		words[n++] = w;
	}
	return n;
}

static int class_line(char **w, int n, struct nfsfair_line *l, char *err)
{
	uint64_t v;
	int i;

	if (n < 2) {
		snprintf(err, NFSFAIR_ERR_LEN, "-N needs a class name");
		return -EINVAL;
	}
	if (nfsfair_class_name_check(w[1], err) < 0)
		return -EINVAL;
	strcpy(l->class, w[1]);
	l->weight = 1;
	for (i = 2; i < n; i += 2) {
		if (strcmp(w[i], "--weight") && strcmp(w[i], "--limit")) {
			snprintf(err, NFSFAIR_ERR_LEN, "-N does not take '%s'", w[i]);
			return -EINVAL;
		}
		if (i + 1 == n) {
			snprintf(err, NFSFAIR_ERR_LEN, "%s needs a value", w[i]);
			return -EINVAL;
		}
		if (!strcmp(w[i], "--limit")) {
			if (nfsfair_uint_parse(w[i + 1], NFSFAIR_LIMIT_MAX, &v) < 0) {
				snprintf(err, NFSFAIR_ERR_LEN, "'%s': a limit is 0 to %d",
					 w[i + 1], NFSFAIR_LIMIT_MAX);
				return -EINVAL;
			}
			l->limit = v;
			continue;
		}
		if (nfsfair_uint_parse(w[i + 1], NFSFAIR_WEIGHT_MAX, &v) < 0 || v == 0) {
			snprintf(err, NFSFAIR_ERR_LEN, "'%s': a weight is 1 to %d",
				 w[i + 1], NFSFAIR_WEIGHT_MAX);
			return -EINVAL;
		}
		l->weight = v;
	}
	l->kind = NFSFAIR_LINE_CLASS;
	return 0;
}

static int rule_line(char **w, int n, struct nfsfair_line *l, char *err)
{
	struct nfsfair_rule *r = &l->rule;
	bool source = false, target = false;
	uint64_t v, ids = 0;
	int i;

	for (i = 1; i < n; i += 2) {
		if (i + 1 == n) {
			snprintf(err, NFSFAIR_ERR_LEN, "%s needs a value", w[i]);
			return -EINVAL;
		}
		if (!strcmp(w[i], "-s")) {
			if (nfsfair_prefix_parse(w[i + 1], &r->prefix, err) < 0)
				return -EINVAL;
			source = true;
		} else if (!strcmp(w[i], "-j")) {
			if (nfsfair_target_parse(w[i + 1], &r->target, err) < 0)
				return -EINVAL;
			target = true;
		} else if (!strcmp(w[i], "--origin")) {
			if (nfsfair_uint_parse(w[i + 1], 255, &v) < 0) {
				snprintf(err, NFSFAIR_ERR_LEN, "'%s': an origin is 0 to 255",
					 w[i + 1]);
				return -EINVAL;
			}
			r->origin = v;
		} else if (!strcmp(w[i], "--ids-per-host")) {
			if (nfsfair_uint_parse(w[i + 1], NFSFAIR_IDS_PER_HOST_MAX, &ids) < 0 ||
			    ids == 0) {
				snprintf(err, NFSFAIR_ERR_LEN, "'%s': ids-per-host is 1 to %d",
					 w[i + 1], NFSFAIR_IDS_PER_HOST_MAX);
				return -EINVAL;
			}
		} else {
			snprintf(err, NFSFAIR_ERR_LEN, "-A does not take '%s'", w[i]);
			return -EINVAL;
		}
	}
	if (!source || !target) {
		snprintf(err, NFSFAIR_ERR_LEN, "-A needs %s", source ? "-j TARGET" : "-s PREFIX");
		return -EINVAL;
	}
	/* After the loop: -j's parse starts the target afresh. */
	r->target.ids_per_host = ids;
	if (nfsfair_rule_check(r, err) < 0)
		return -EINVAL;
	l->kind = NFSFAIR_LINE_RULE;
	return 0;
}

int nfsfair_line_parse(const char *text, struct nfsfair_line *l, char *err)
{
	char buf[1024], *w[LINE_MAX_WORDS];
	int n;

	memset(l, 0, sizeof(*l));
	if (strlen(text) >= sizeof(buf)) {
		snprintf(err, NFSFAIR_ERR_LEN, "line too long");
		return -EINVAL;
	}
	strcpy(buf, text);
	n = split(buf, w, LINE_MAX_WORDS);
	if (n < 0) {
		snprintf(err, NFSFAIR_ERR_LEN, "too many words");
		return -EINVAL;
	}
	if (n == 0) {
		l->kind = NFSFAIR_LINE_EMPTY;
		return 0;
	}
	if (!strcmp(w[0], "-N"))
		return class_line(w, n, l, err);
	if (!strcmp(w[0], "-A"))
		return rule_line(w, n, l, err);
	snprintf(err, NFSFAIR_ERR_LEN, "'%s': a line is '%s' or '%s'", w[0],
		 "-N NAME [--weight W] [--limit N]",
		 "-A -s PREFIX -j TARGET [--ids-per-host N] [--origin O]");
	return -EINVAL;
}
