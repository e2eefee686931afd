// SPDX-License-Identifier: GPL-2.0
/*
 * save and restore. restore checks every line before it changes anything,
 * then applies each origin's rules with one table-replace (the classes go
 * with the first), in the order restore-plan.c gives so the table comes
 * back in the file's order, under a lock so two restores never interleave.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <netlink/msg.h>
#include <netlink/attr.h>

#include "ctl.h"

/* A test builds its own nfsfair-ctl with a directory of its own. */
#ifndef RESTORE_LOCK_DIR
#define RESTORE_LOCK_DIR "/run/lock"
#endif
#define RESTORE_LOCK RESTORE_LOCK_DIR "/nfsfair-ctl.lock"

struct item {
	struct nfsfair_line l;
	int lineno;
};

struct restore {
	const char *file;
	struct item *v;
	int n;
	int nclasses;
};

/*
 * A name restore could not read back (an older kernel took any bytes)
 * would make a save file that fails, or one line that reads as others:
 * refuse before the first line is written.
 */
static int save_names_check(const struct ctl_classes *cl, const struct ctl_rules *rules)
{
	char err[NFSFAIR_ERR_LEN];
	int i;

	for (i = 0; i < cl->n; i++)
		if (nfsfair_class_name_check(cl->v[i].name, err) < 0)
			return ctl_error("save: class %s: nothing written", err);
	for (i = 0; i < rules->n; i++)
		if (rules->v[i].target.kind == NFSFAIR_TARGET_CLASS &&
		    nfsfair_class_name_check(rules->v[i].target.class, err) < 0)
			return ctl_error("save: rule %d: class %s: nothing written", i + 1, err);
	return 0;
}

/* " --limit N", or "" for none: a save file from before limits stays the same. */
static const char *limit_text(uint32_t limit)
{
	static char buf[24];

	if (!limit)
		return "";
	snprintf(buf, sizeof(buf), " --limit %u", limit);
	return buf;
}

int cmd_save(struct ctl *c)
{
	char text[NFSFAIR_RULE_STRLEN];
	struct ctl_classes cl;
	struct ctl_rules rules;
	int i, ret;

	ret = ctl_classes_dump(c, &cl);
	if (ret)
		return ret;
	ret = ctl_rules_dump(c, &rules);
	if (ret)
		goto free_cl;
	ret = save_names_check(&cl, &rules);
	if (ret)
		goto free_rules;
	for (i = 0; i < cl.n; i++)
		printf("-N %s --weight %u%s\n", cl.v[i].name, cl.v[i].weight,
		       limit_text(cl.v[i].limit));
	for (i = 0; i < rules.n; i++) {
		nfsfair_rule_format(&rules.v[i], text, sizeof(text));
		printf("-A %s\n", text);
	}
free_rules:
	free(rules.v);
free_cl:
	free(cl.v);
	return ret;
}

/*
 * table-replace puts each origin's rules in one place: a file where
 * another origin's rules split one origin's would come back reordered.
 */
static int check_origins(const struct restore *rs)
{
	const struct nfsfair_rule *prev = NULL, *r;
	bool seen[256] = { false };
	int i, prev_line = 0;

	for (i = 0; i < rs->n; i++) {
		if (rs->v[i].l.kind != NFSFAIR_LINE_RULE)
			continue;
		r = &rs->v[i].l.rule;
		if (prev && prev->origin != r->origin && seen[r->origin])
			return ctl_error("%s:%d: origin %u again, after origin %u's rule on line %d: restore cannot keep this order (table-replace puts each origin's rules together)",
					 rs->file, rs->v[i].lineno, r->origin, prev->origin,
					 prev_line);
		seen[r->origin] = true;
		prev = r;
		prev_line = rs->v[i].lineno;
	}
	return 0;
}

static int read_file(struct restore *rs, FILE *fp)
{
	char err[NFSFAIR_ERR_LEN], *line = NULL;
	struct item *v;
	size_t size = 0;
	int lineno = 0, ret = 0, i;

	while (getline(&line, &size, fp) >= 0) {
		lineno++;
		v = realloc(rs->v, (rs->n + 1) * sizeof(*v));
		if (!v) {
			ret = ctl_error("out of memory");
			break;
		}
		rs->v = v;
		if (nfsfair_line_parse(line, &v[rs->n].l, err) < 0) {
			ret = ctl_error("%s:%d: %s", rs->file, lineno, err);
			break;
		}
		if (v[rs->n].l.kind == NFSFAIR_LINE_EMPTY)
			continue;
		v[rs->n].lineno = lineno;
		if (v[rs->n].l.kind == NFSFAIR_LINE_CLASS) {
			for (i = 0; i < rs->n; i++)
				if (v[i].l.kind == NFSFAIR_LINE_CLASS &&
				    !strcmp(v[i].l.class, v[rs->n].l.class))
					break;
			if (i < rs->n) {
				ret = ctl_error("%s:%d: class '%s' again (first on line %d)",
						rs->file, lineno, v[i].l.class, v[i].lineno);
				break;
			}
			rs->nclasses++;
		}
		rs->n++;
	}
	if (!ret && ferror(fp))
		ret = ctl_error("%s: %s", rs->file, strerror(errno));
	if (!ret)
		ret = check_origins(rs);
	free(line);
	return ret;
}

static bool file_has_class(const struct restore *rs, const char *name)
{
	int i;

	for (i = 0; i < rs->n; i++)
		if (rs->v[i].l.kind == NFSFAIR_LINE_CLASS && !strcmp(rs->v[i].l.class, name))
			return true;
	return false;
}

static bool file_names_class(const struct restore *rs, const char *name)
{
	int i;

	for (i = 0; i < rs->n; i++)
		if (rs->v[i].l.kind == NFSFAIR_LINE_RULE &&
		    rs->v[i].l.rule.target.kind == NFSFAIR_TARGET_CLASS &&
		    !strcmp(rs->v[i].l.rule.target.class, name))
			return true;
	return false;
}

static int check_classes(const struct restore *rs, const struct ctl_classes *cl)
{
	const struct nfsfair_rule *r;
	int i;

	for (i = 0; i < rs->n; i++) {
		r = &rs->v[i].l.rule;
		if (rs->v[i].l.kind != NFSFAIR_LINE_RULE || r->target.kind != NFSFAIR_TARGET_CLASS)
			continue;
		if (!file_has_class(rs, r->target.class) && !ctl_class_find(cl, r->target.class))
			return ctl_error("%s:%d: no class '%s'", rs->file, rs->v[i].lineno,
					 r->target.class);
	}
	return 0;
}

static int gen_cb(struct nlattr **tb, void *arg)
{
	*(uint64_t *)arg = nfsfair_nla_uint(tb[NFSFAIR_A_TABLE_GENERATION]);
	return 0;
}

/* A class's line as attributes; its limit when it has one or the kernel's class had one. */
static int put_class(struct nl_msg *msg, const struct nfsfair_line *l,
		     const struct nfsfair_class *now)
{
	return nfsfair_nla_put_class(msg, l->class, l->weight, l->limit,
				     l->limit || (now && now->limit));
}

/* @cl: the kernel's classes, to carry the file's; NULL for rules alone. */
static int put_table(struct nl_msg *msg, const struct restore *rs, const struct ctl_step *st,
		     const struct ctl_classes *cl)
{
	struct nlattr *nest;
	int i;

	if (nla_put_u32(msg, NFSFAIR_A_TABLE_ORIGIN, st->origin) < 0)
		return -EMSGSIZE;
	for (i = 0; cl && i < rs->n; i++) {
		if (rs->v[i].l.kind != NFSFAIR_LINE_CLASS)
			continue;
		nest = nla_nest_start(msg, NFSFAIR_A_TABLE_CLASS);
		if (!nest || put_class(msg, &rs->v[i].l, ctl_class_find(cl, rs->v[i].l.class)) < 0)
			return -EMSGSIZE;
		nla_nest_end(msg, nest);
	}
	for (i = 0; st->fill && i < rs->n; i++) {
		if (rs->v[i].l.kind != NFSFAIR_LINE_RULE || rs->v[i].l.rule.origin != st->origin)
			continue;
		nest = nla_nest_start(msg, NFSFAIR_A_TABLE_RULE);
		if (!nest || nfsfair_nla_put_rule(msg, &rs->v[i].l.rule, false) < 0)
			return -EMSGSIZE;
		nla_nest_end(msg, nest);
	}
	return 0;
}

/* The line of the INDEXth class, or of origin's INDEXth rule. */
static int line_of(const struct restore *rs, int attr, int index, int origin)
{
	int i;

	for (i = 0; i < rs->n; i++) {
		if (attr == NFSFAIR_A_TABLE_CLASS && rs->v[i].l.kind == NFSFAIR_LINE_CLASS &&
		    !index--)
			return rs->v[i].lineno;
		if (attr == NFSFAIR_A_TABLE_RULE && rs->v[i].l.kind == NFSFAIR_LINE_RULE &&
		    rs->v[i].l.rule.origin == origin && !index--)
			return rs->v[i].lineno;
	}
	return 0;
}

/* The steps of a plan for the kernel's rules @table: -ENOMEM, or how many. */
static int plan(const struct ctl *c, const struct restore *rs, const struct nfsfair_rule *table,
		int ntable, struct ctl_step *steps)
{
	uint8_t *file = malloc(rs->n + 1), *now = malloc(ntable + 1);
	int nfile = 0, n = -ENOMEM, i;

	if (file && now) {
		for (i = 0; i < rs->n; i++)
			if (rs->v[i].l.kind == NFSFAIR_LINE_RULE)
				file[nfile++] = rs->v[i].l.rule.origin;
		for (i = 0; i < ntable; i++)
			now[i] = table[i].origin;
		n = ctl_restore_plan(file, nfile, now, ntable, c->opts & OPT_NOFLUSH, steps);
	}
	free(file);
	free(now);
	return n;
}

/* Step @s of @nsteps failed: those before it are in the kernel. */
static void partly(const struct restore *rs, const struct ctl_step *steps, int nsteps, int s)
{
	ctl_error("%s: restored in part: %d of %d table-replaces were applied; origin %u's and any after it were not",
		  rs->file, s, nsteps, steps[s].origin);
	if (steps[s].fill && !steps[s - 1].fill && steps[s - 1].origin == steps[s].origin)
		ctl_error("%s: origin %u has no rules now: they were taken out to put the file's at the end",
			  rs->file, steps[s].origin);
}

static int replace_origin(struct ctl *c, const struct restore *rs, const struct ctl_step *steps,
			  int nsteps, int s, uint64_t gen, const struct ctl_classes *cl)
{
	int ret, attr, index, line, origin = steps[s].origin;
	struct nl_msg *msg;

	msg = nfsfair_nl_msg_big(c->nl, NFSFAIR_CMD_TABLE_REPLACE);
	if (!msg)
		return ctl_error("out of memory");
	if ((!s && nla_put_u64(msg, NFSFAIR_A_TABLE_GENERATION, gen) < 0) ||
	    put_table(msg, rs, &steps[s], s ? NULL : cl) < 0) {
		nlmsg_free(msg);
		return ctl_error("%s: too many lines for one message", rs->file);
	}
	ret = nfsfair_nl_run(c->nl, msg, 0, NULL, NULL);
	if (ret >= 0)
		return 0;
	attr = nfsfair_nl_bad_attr(c->nl, NULL, &index);
	line = line_of(rs, attr, index, origin);
	ret = *nfsfair_nl_extack(c->nl) ? 0 : ret;
	if (line)
		ctl_error("%s:%d: kernel reports: %s", rs->file, line,
			  ret ? strerror(-ret) : nfsfair_nl_extack(c->nl));
	else
		ctl_error("%s: origin %d: kernel reports: %s", rs->file, origin,
			  ret ? strerror(-ret) : nfsfair_nl_extack(c->nl));
	if (s)
		partly(rs, steps, nsteps, s);
	return CTL_FAIL;
}

static int class_put(struct ctl *c, const struct restore *rs, const struct item *it,
		     const struct nfsfair_class *now)
{
	struct nl_msg *msg;
	int ret;

	msg = nfsfair_nl_msg(c->nl, now ? NFSFAIR_CMD_CLASS_SET : NFSFAIR_CMD_CLASS_NEW, false);
	if (!msg || put_class(msg, &it->l, now) < 0)
		return ctl_error("out of memory");
	ret = nfsfair_nl_run(c->nl, msg, 0, NULL, NULL);
	if (ret < 0)
		return ctl_error("%s:%d: kernel reports: %s", rs->file, it->lineno,
				 nfsfair_nl_extack(c->nl));
	return 0;
}

static int take_lock(void)
{
	int fd;

	mkdir(RESTORE_LOCK_DIR, 0755);
	fd = open(RESTORE_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX) < 0)
		return -1;
	return fd;
}

#define NEEDS_ADMIN "restore needs CAP_NET_ADMIN (root), as every edit of the table does"

static int apply(struct ctl *c, const struct restore *rs)
{
	struct ctl_step steps[CTL_STEPS_MAX];
	struct ctl_classes cl = { 0 };
	struct ctl_rules rules = { 0 };
	struct nl_msg *msg;
	uint64_t gen = 0;
	int ret, i, nsteps;

	ret = ctl_nl(c);
	if (ret)
		return ret;
	msg = nfsfair_nl_msg(c->nl, NFSFAIR_CMD_TABLE_GET, false);
	if (!msg)
		return ctl_error("out of memory");
	ret = nfsfair_nl_run(c->nl, msg, NFSFAIR_A_TABLE_MAX, gen_cb, &gen);
	if (ret < 0)
		return ctl_kernel_error(c, ret, SET_TABLE);
	ret = ctl_classes_dump(c, &cl);
	if (!ret)
		ret = ctl_rules_dump(c, &rules);
	if (!ret)
		ret = check_classes(rs, &cl);
	if (ret)
		goto out;
	nsteps = plan(c, rs, rules.v, rules.n, steps);
	if (nsteps < 0) {
		ret = ctl_error("out of memory");
		goto out;
	}
	for (i = 0; i < nsteps && !ret; i++)
		ret = replace_origin(c, rs, steps, nsteps, i, gen, &cl);
	/* --noflush with classes and no rules: no origin to carry them. */
	for (i = 0; !nsteps && !ret && i < rs->n; i++)
		if (rs->v[i].l.kind == NFSFAIR_LINE_CLASS)
			ret = class_put(c, rs, &rs->v[i], ctl_class_find(&cl, rs->v[i].l.class));
	/* Without --noflush the file is the whole state: drop classes it lacks. */
	for (i = 0; !ret && !(c->opts & OPT_NOFLUSH) && i < cl.n; i++) {
		if (file_has_class(rs, cl.v[i].name) || file_names_class(rs, cl.v[i].name))
			continue;
		msg = nfsfair_nl_msg(c->nl, NFSFAIR_CMD_CLASS_DEL, false);
		if (!msg || nla_put_string(msg, NFSFAIR_A_CLASS_NAME, cl.v[i].name) < 0)
			return ctl_error("out of memory");
		if (nfsfair_nl_run(c->nl, msg, 0, NULL, NULL) < 0)
			fprintf(stderr, "%s: class '%s' kept: kernel reports: %s\n", ctl_prog,
				cl.v[i].name, nfsfair_nl_extack(c->nl));
	}
out:
	free(cl.v);
	free(rules.v);
	return ret;
}

/*
 * What --test can say without the kernel: rules no address reaches in the
 * table the file gives an empty one (its rules in file order, as restore
 * leaves them), and classes no rule of the file names. Warnings, not errors.
 */
static int test_warnings(const struct restore *rs)
{
	char text[NFSFAIR_RULE_STRLEN], what[NFSFAIR_RULE_STRLEN + 64];
	bool *shadowed, *item_shadowed;
	struct nfsfair_rule *v;
	int *item, n = 0, i, ret = 0;

	v = calloc(rs->n + 1, sizeof(*v));
	item = malloc((rs->n + 1) * sizeof(*item));
	shadowed = malloc((rs->n + 1) * sizeof(*shadowed));
	item_shadowed = calloc(rs->n + 1, sizeof(*item_shadowed));
	if (!v || !item || !shadowed || !item_shadowed)
		goto nomem;
	for (i = 0; i < rs->n; i++) {
		if (rs->v[i].l.kind != NFSFAIR_LINE_RULE)
			continue;
		v[n] = rs->v[i].l.rule;
		item[n++] = i;
	}
	if (nfsfair_rules_shadowed(v, n, shadowed) < 0)
		goto nomem;
	for (i = 0; i < n; i++)
		item_shadowed[item[i]] = shadowed[i];
	for (i = 0; i < rs->n; i++) {
		const struct nfsfair_line *l = &rs->v[i].l;

		if (item_shadowed[i]) {
			nfsfair_rule_format(&l->rule, text, sizeof(text));
			snprintf(what, sizeof(what), "'%s' is shadowed by earlier rules", text);
		} else if (l->kind == NFSFAIR_LINE_CLASS && !file_names_class(rs, l->class)) {
			snprintf(what, sizeof(what), "class '%s' is named by no rule", l->class);
		} else {
			continue;
		}
		fprintf(stderr, "%s: %s:%d: warning: %s\n", ctl_prog, rs->file, rs->v[i].lineno,
			what);
	}
	goto free;
nomem:
	ret = ctl_error("out of memory");
free:
	free(item_shadowed);
	free(shadowed);
	free(item);
	free(v);
	return ret;
}

/*
 * The table the file would leave, built from the kernel's the way apply()
 * replaces it, step by step of the same plan, so the preview sees the
 * order the kernel would have.
 */
static int next_table(struct ctl *c, const struct restore *rs, const struct nfsfair_preview *pv,
		      struct nfsfair_rule **out, int *nout)
{
	struct ctl_step steps[CTL_STEPS_MAX];
	struct nfsfair_rule *cur, *add, *next;
	int ncur, nadd, nnext, nsteps, s, i, ret = 0;

	nsteps = plan(c, rs, pv->rules, pv->nrules, steps);
	add = malloc((rs->n + 1) * sizeof(*add));
	cur = malloc((pv->nrules + 1) * sizeof(*cur));
	if (nsteps < 0 || !add || !cur) {
		free(add);
		free(cur);
		return -ENOMEM;
	}
	memcpy(cur, pv->rules, pv->nrules * sizeof(*cur));
	ncur = pv->nrules;
	for (s = 0; s < nsteps && !ret; s++) {
		for (i = 0, nadd = 0; steps[s].fill && i < rs->n; i++)
			if (rs->v[i].l.kind == NFSFAIR_LINE_RULE &&
			    rs->v[i].l.rule.origin == steps[s].origin)
				add[nadd++] = rs->v[i].l.rule;
		ret = nfsfair_table_splice(cur, ncur, add, nadd, steps[s].origin, &next, &nnext);
		if (!ret) {
			free(cur);
			cur = next;
			ncur = nnext;
		}
	}
	free(add);
	if (ret) {
		free(cur);
		return ret;
	}
	*out = cur;
	*nout = ncur;
	return 0;
}

/* --test: the file is valid; what would it do to the peers connected now? */
static int test_report(struct ctl *c, const struct restore *rs)
{
	struct nfsfair_preview pv;
	struct nfsfair_rule *next = NULL;
	int nrules = rs->n - rs->nclasses, nnext = 0, ret;

	ret = nfsfair_preview_read(&pv, "/proc/net", NFSFAIR_NFSD_PORT);
	if (!ret && pv.state == NFSFAIR_PREVIEW_OK)
		ret = next_table(c, rs, &pv, &next, &nnext);
	if (!ret)
		ret = nfsfair_preview_diff(&pv, next, nnext);
	if (ret) {
		nfsfair_preview_free(&pv);
		free(next);
		return ctl_error("out of memory");
	}
	open_json_object(NULL);
	print_string(PRINT_ANY, "file", "%s: ", rs->file);
	print_uint(PRINT_ANY, "classes", "%" PRIu64, rs->nclasses);
	print_string(PRINT_FP, NULL, "%s", rs->nclasses == 1 ? " class, " : " classes, ");
	print_uint(PRINT_ANY, "rules", "%" PRIu64, nrules);
	print_string(PRINT_FP, NULL, "%s", nrules == 1 ? " rule" : " rules");
	print_bool(PRINT_JSON, "valid", NULL, true);
	print_string(PRINT_FP, NULL, "%s", ": OK\n");
	nfsfair_preview_print(&pv, "");
	close_json_object();
	output_done();
	nfsfair_preview_free(&pv);
	free(next);
	return 0;
}

int cmd_restore(struct ctl *c)
{
	struct restore rs = { .file = "<stdin>" };
	FILE *fp = stdin;
	int ret, lock;

	if ((c->opts & OPT_JSON) && !(c->opts & OPT_TEST))
		return ctl_usage_error(c, "restore --json needs --test");

	if (c->argc && strcmp(c->argv[0], "-")) {
		rs.file = c->argv[0];
		fp = fopen(rs.file, "r");
		if (!fp)
			return ctl_error("%s: %s", rs.file, strerror(errno));
	}
	ret = read_file(&rs, fp);
	if (fp != stdin)
		fclose(fp);
	if (ret)
		goto out;
	if (c->opts & OPT_TEST) {
		/* Warnings first: they are about the file, the preview about the kernel. */
		ret = test_warnings(&rs);
		if (!ret)
			ret = test_report(c, &rs);
		goto out;
	}
	/* Not even the lock without it: a lock file of ours would be in root's way. */
	if (!ctl_net_admin()) {
		ret = ctl_error(NEEDS_ADMIN);
		goto out;
	}
	lock = take_lock();
	if (lock < 0 && (errno == EACCES || errno == EPERM)) {
		ret = ctl_error(NEEDS_ADMIN " (lock %s: %s)", RESTORE_LOCK, strerror(errno));
		goto out;
	}
	if (lock < 0) {
		ret = ctl_error("%s: %s", RESTORE_LOCK, strerror(errno));
		goto out;
	}
	ret = apply(c, &rs);
	close(lock);
out:
	free(rs.v);
	return ret;
}
