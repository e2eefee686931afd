// SPDX-License-Identifier: GPL-2.0
/*
 * monitor: what each change to the table did, like `ip monitor`. The
 * "changes" group says only that the generation moved, so monitor keeps
 * a copy of the table, dumps it again on each notification (on a second
 * socket: the first one is for notifications only) and prints the
 * difference. A notification at or below the copy's generation is one the
 * copy already shows.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

struct snapshot {
	uint64_t gen;
	struct ctl_classes cl;
	struct ctl_rules rules;
};

/* Lines printed for the change at hand. */
static int shown;

struct monitor {
	struct ctl *c;
	struct ctl dump;	/* the verbs' dump helpers, on the second socket */
	struct snapshot now;
};

static void snapshot_free(struct snapshot *s)
{
	free(s->cl.v);
	free(s->rules.v);
	memset(s, 0, sizeof(*s));
}

static int gen_cb(struct nlattr **tb, void *arg)
{
	*(uint64_t *)arg = nfsfair_nla_uint(tb[NFSFAIR_A_TABLE_GENERATION]);
	return 0;
}

static int read_gen(struct ctl *d, uint64_t *gen)
{
	struct nl_msg *msg = nfsfair_nl_msg(d->nl, NFSFAIR_CMD_TABLE_GET, false);
	int ret;

	if (!msg)
		return ctl_error("out of memory");
	ret = nfsfair_nl_run(d->nl, msg, NFSFAIR_A_TABLE_MAX, gen_cb, gen);
	return ret < 0 ? ctl_kernel_error(d, ret, SET_TABLE) : 0;
}

/* Classes and rules of one generation: dump again if it moved meanwhile. */
static int snapshot_take(struct ctl *d, struct snapshot *s)
{
	uint64_t after;
	int ret, tries;

	for (tries = 0; tries < 10; tries++) {
		memset(s, 0, sizeof(*s));
		ret = read_gen(d, &s->gen);
		if (!ret)
			ret = ctl_classes_dump(d, &s->cl);
		if (!ret)
			ret = ctl_rules_dump(d, &s->rules);
		if (!ret)
			ret = read_gen(d, &after);
		if (ret || after == s->gen || tries == 9)
			return ret;
		snapshot_free(s);
	}
	return 0;
}

static bool rule_same(const struct nfsfair_rule *a, const struct nfsfair_rule *b)
{
	return a->origin == b->origin && nfsfair_rule_equal(a, b);
}

static void print_head(uint64_t gen, const char *what)
{
	shown++;
	print_uint(PRINT_FP, NULL, "generation %" PRIu64, gen);
	print_string(PRINT_FP, NULL, " %s", what);
}

static void print_class(uint64_t gen, const char *what, const struct nfsfair_class *k,
			const struct nfsfair_class *was)
{
	open_json_object(NULL);
	print_head(gen, what);
	print_string(PRINT_ANY, "name", " %s", k->name);
	print_uint(PRINT_ANY, "weight", " weight %" PRIu64, k->weight);
	if (was && was->weight != k->weight)
		print_uint(PRINT_ANY, "old-weight", " (was %" PRIu64 ")", was->weight);
	/* the limit only where there is or was one: most classes have none */
	if (k->limit || (was && was->limit))
		print_uint(PRINT_FP, NULL, " limit %" PRIu64, k->limit);
	print_uint(PRINT_JSON, "limit", NULL, k->limit);
	if (was && was->limit != k->limit)
		print_uint(PRINT_ANY, "old-limit", " (was %" PRIu64 ")", was->limit);
	close_json_object();
	print_nl();
}

static void print_rule(uint64_t gen, const char *what, const struct nfsfair_rule *r)
{
	char text[NFSFAIR_RULE_STRLEN], src[NFSFAIR_PREFIX_STRLEN], tgt[32];

	nfsfair_rule_format(r, text, sizeof(text));
	nfsfair_prefix_format(&r->prefix, src, sizeof(src));
	nfsfair_target_format(&r->target, r->prefix.family, tgt, sizeof(tgt));
	open_json_object(NULL);
	print_head(gen, what);
	print_uint(PRINT_ANY, "position", " %" PRIu64, r->position);
	print_string(PRINT_FP, NULL, " -A %s", text);
	print_string(PRINT_JSON, "source", NULL, src);
	print_string(PRINT_JSON, "target", NULL, tgt);
	print_uint(PRINT_JSON, "origin", NULL, r->origin);
	close_json_object();
	print_nl();
}

static void diff_classes(uint64_t gen, const struct ctl_classes *old, const struct ctl_classes *new)
{
	const struct nfsfair_class *k;
	int i;

	open_json_array("classes-removed");
	for (i = 0; i < old->n; i++)
		if (!ctl_class_find(new, old->v[i].name))
			print_class(gen, "class-del", &old->v[i], NULL);
	close_json_array();
	open_json_array("classes-added");
	for (i = 0; i < new->n; i++)
		if (!ctl_class_find(old, new->v[i].name))
			print_class(gen, "class-new", &new->v[i], NULL);
	close_json_array();
	open_json_array("classes-changed");
	for (i = 0; i < new->n; i++) {
		k = ctl_class_find(old, new->v[i].name);
		if (k && (k->weight != new->v[i].weight || k->limit != new->v[i].limit))
			print_class(gen, "class-set", &new->v[i], k);
	}
	close_json_array();
}

/* Is b[0..nb) a subsequence of a[0..na)? Marks in keep[] which of a it uses. */
static bool subsequence(const struct nfsfair_rule *a, int na, const struct nfsfair_rule *b,
			int nb, bool *keep)
{
	int i, j = 0;

	for (i = 0; i < na; i++) {
		keep[i] = j < nb && rule_same(&a[i], &b[j]);
		j += keep[i];
	}
	return j == nb;
}

/*
 * Rules: past the common head and tail, the middle usually only lost
 * rules (-D, -F) or only gained them (-A, -I); otherwise all of the old
 * middle is shown removed and all of the new one added (-R, restore).
 */
static int diff_rules(uint64_t gen, const struct ctl_rules *old, const struct ctl_rules *new)
{
	const struct nfsfair_rule *o = old->v, *n = new->v;
	int head = 0, tail = 0, no, nn, i;
	bool *keep_o, *keep_n;

	while (head < old->n && head < new->n && rule_same(&o[head], &n[head]))
		head++;
	while (tail < old->n - head && tail < new->n - head &&
	       rule_same(&o[old->n - 1 - tail], &n[new->n - 1 - tail]))
		tail++;
	no = old->n - head - tail;
	nn = new->n - head - tail;
	keep_o = calloc(no + 1, sizeof(bool));
	keep_n = calloc(nn + 1, sizeof(bool));
	if (!keep_o || !keep_n) {
		free(keep_o);
		free(keep_n);
		return ctl_error("out of memory");
	}
	if (!subsequence(o + head, no, n + head, nn, keep_o)) {
		memset(keep_o, 0, no * sizeof(bool));
		if (subsequence(n + head, nn, o + head, no, keep_n))
			memset(keep_o, 1, no * sizeof(bool));
	} else {
		memset(keep_n, 1, nn * sizeof(bool));
	}
	open_json_array("rules-removed");
	for (i = 0; i < no; i++)
		if (!keep_o[i])
			print_rule(gen, "rule-del", &o[head + i]);
	close_json_array();
	open_json_array("rules-added");
	for (i = 0; i < nn; i++)
		if (!keep_n[i])
			print_rule(gen, "rule-new", &n[head + i]);
	close_json_array();
	free(keep_o);
	free(keep_n);
	return 0;
}

static int change_cb(struct nlattr **tb, void *arg)
{
	struct monitor *m = arg;
	struct snapshot next;
	int ret;

	if (!tb[NFSFAIR_A_TABLE_GENERATION] ||
	    nfsfair_nla_uint(tb[NFSFAIR_A_TABLE_GENERATION]) <= m->now.gen)
		return 0;
	ret = snapshot_take(&m->dump, &next);
	if (ret)
		return -EIO;
	output_init(output_is_json(), stdout);
	shown = 0;
	open_json_object(NULL);
	print_uint(PRINT_JSON, "generation", NULL, next.gen);
	diff_classes(next.gen, &m->now.cl, &next.cl);
	ret = diff_rules(next.gen, &m->now.rules, &next.rules);
	close_json_object();
	/* A change with nothing to show still says its generation. */
	if (!output_is_json() && !shown) {
		print_uint(PRINT_FP, NULL, "generation %" PRIu64, next.gen);
		print_nl();
	}
	output_done();
	snapshot_free(&m->now);
	m->now = next;
	if (ret)
		return -EIO;
	return (m->c->opts & OPT_COUNT) && --m->c->count == 0 ? 1 : 0;
}

int cmd_monitor(struct ctl *c)
{
	struct monitor m = { .c = c };
	char err[NFSFAIR_ERR_LEN];
	int ret;

	ret = ctl_nl(c);
	if (ret)
		return ret;
	if (nfsfair_nl_subscribe(c->nl, NFSFAIR_MCGRP_CHANGES) < 0)
		return ctl_error("cannot join the '%s' group", NFSFAIR_MCGRP_CHANGES);
	m.dump = *c;
	if (nfsfair_nl_open(&m.dump.nl, err) < 0)
		return ctl_error("%s", err);
	/* After joining, so that no change falls between the copy and the group. */
	ret = snapshot_take(&m.dump, &m.now);
	if (!ret) {
		ret = nfsfair_nl_listen(c->nl, NFSFAIR_A_TABLE_MAX, change_cb, &m);
		ret = ret < 0 ? ctl_error("monitor: receive failed") : CTL_OK;
	}
	snapshot_free(&m.now);
	nfsfair_nl_close(m.dump.nl);
	return ret;
}
