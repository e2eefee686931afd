// SPDX-License-Identifier: GPL-2.0
/*
 * Apply: read what the kernel has, and when the daemon's origin's rules
 * or the weights or limits of its classes differ from what the
 * configuration asks, replace them in one table-replace. Never
 * flush-then-add (there would be a moment when everyone is
 * unclassified); never touch other origins.
 * Nothing written when nothing differs, so a restart with the same file
 * costs the kernel nothing.
 *
 * Then prune: a class the daemon created (struct owned) that the
 * configuration no longer names is deleted, unless a rule of another
 * origin still names it; the kernel refusing is reported, not fatal.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include "daemon.h"

struct have {
	struct nfsfair_rule *rules;	/* every rule; same() looks at one origin */
	int nr_rules;
	struct nfsfair_class *classes;
	int nr_classes;
	uint64_t generation;
};

static int have_generation(struct nlattr **tb, void *arg)
{
	struct have *h = arg;

	if (tb[NFSFAIR_A_TABLE_GENERATION])
		h->generation = nfsfair_nla_uint(tb[NFSFAIR_A_TABLE_GENERATION]);
	return 0;
}

static int read_have(struct nfsfair_nl *nl, struct have *h)
{
	int ret;

	ret = nfsfair_nl_run(nl, nfsfair_nl_msg(nl, NFSFAIR_CMD_TABLE_GET, false),
			     NFSFAIR_A_TABLE_MAX, have_generation, h);
	if (!ret)
		ret = nfsfair_read_rules(nl, &h->rules, &h->nr_rules);
	if (!ret)
		ret = nfsfair_read_classes(nl, &h->classes, &h->nr_classes);
	return ret;
}

static bool same(const struct want *w, const struct have *h)
{
	size_t i = 0;
	int j;

	/* The origin's rules, in order, and nothing more of that origin. */
	for (j = 0; j < h->nr_rules; j++) {
		if (h->rules[j].origin != w->origin)
			continue;
		if (i == w->nr_rules || !nfsfair_rule_equal(&w->rules[i], &h->rules[j]))
			return false;
		i++;
	}
	if (i != w->nr_rules)
		return false;
	for (i = 0; i < w->nr_classes; i++) {
		for (j = 0; j < h->nr_classes; j++)
			if (!strcmp(w->classes[i].name, h->classes[j].name))
				break;
		if (j == h->nr_classes || h->classes[j].weight != w->classes[i].weight ||
		    h->classes[j].limit != w->classes[i].limit)
			return false;
	}
	return true;
}

/* The kernel's limit of class @name now; 0 for none, or no such class. */
static uint32_t have_limit(const struct have *h, const char *name)
{
	int j;

	for (j = 0; j < h->nr_classes; j++)
		if (!strcmp(h->classes[j].name, name))
			return h->classes[j].limit;
	return 0;
}

static struct nl_msg *replace_msg(struct nfsfair_nl *nl, const struct want *w,
				  const struct have *h)
{
	struct nl_msg *msg = nfsfair_nl_msg_big(nl, NFSFAIR_CMD_TABLE_REPLACE);
	const struct want_class *k;
	struct nlattr *nest;
	uint64_t gen = h->generation;
	size_t i;

	if (!msg)
		return NULL;
	if (nla_put_u32(msg, NFSFAIR_A_TABLE_ORIGIN, w->origin) ||
	    nla_put_u64(msg, NFSFAIR_A_TABLE_GENERATION, gen))
		goto fail;
	for (i = 0; i < w->nr_classes; i++) {
		k = &w->classes[i];
		nest = nla_nest_start(msg, NFSFAIR_A_TABLE_CLASS | NLA_F_NESTED);
		/* the limit when there is one, or one to clear */
		if (!nest || nfsfair_nla_put_class(msg, k->name, k->weight, k->limit,
						   k->limit || have_limit(h, k->name)))
			goto fail;
		nla_nest_end(msg, nest);
	}
	for (i = 0; i < w->nr_rules; i++) {
		nest = nla_nest_start(msg, NFSFAIR_A_TABLE_RULE | NLA_F_NESTED);
		if (!nest || nfsfair_nla_put_rule(msg, &w->rules[i], false))
			goto fail;
		nla_nest_end(msg, nest);
	}
	return msg;
fail:
	nlmsg_free(msg);
	return NULL;
}

static bool wanted(const struct want *w, const char *name)
{
	size_t i;

	for (i = 0; i < w->nr_classes; i++)
		if (!strcmp(w->classes[i].name, name))
			return true;
	return false;
}

static bool have_class(const struct have *h, const char *name)
{
	int j;

	for (j = 0; j < h->nr_classes; j++)
		if (!strcmp(h->classes[j].name, name))
			return true;
	return false;
}

/* The first rule naming class @name, or NULL. */
static const struct nfsfair_rule *rule_naming(const struct have *h, const char *name)
{
	int j;

	for (j = 0; j < h->nr_rules; j++)
		if (h->rules[j].target.kind == NFSFAIR_TARGET_CLASS &&
		    !strcmp(h->rules[j].target.class, name))
			return &h->rules[j];
	return NULL;
}

static int class_del(struct nfsfair_nl *nl, const char *name)
{
	struct nl_msg *msg = nfsfair_nl_msg(nl, NFSFAIR_CMD_CLASS_DEL, false);

	if (!msg)
		return -ENOMEM;
	if (nla_put_string(msg, NFSFAIR_A_CLASS_NAME, name) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return nfsfair_nl_run(nl, msg, 0, NULL, NULL);
}

/* Is @entry, "NAME (WHY)", one of @list's, with ", " between them? */
static bool listed(const char *list, const char *entry)
{
	size_t len = strlen(entry);
	const char *p;

	for (p = strstr(list, entry); p; p = strstr(p + 1, entry))
		if ((p == list || (p - list >= 2 && !memcmp(p - 2, ", ", 2))) &&
		    (!p[len] || !strncmp(p + len, ", ", 2)))
			return true;
	return false;
}

/**
 * apply_kept - note class @name kept for @why, in @res->kept for the status
 * @before: the last apply's @res->kept
 *
 * Logged only when @before does not have it: every refresh and every retry
 * applies again, and said each time it filled the log. Past the room of
 * the list, a change shows only in what fits.
 */
void apply_kept(struct apply_result *res, const char *before, const char *name, const char *why)
{
	size_t len = strlen(res->kept), sep = len ? 2 : 0, now;
	const char *entry;

	snprintf(res->kept + len, sizeof(res->kept) - len, "%s%s (%s)", sep ? ", " : "",
		 name, why);
	now = strlen(res->kept);
	entry = res->kept + (len + sep < now ? len + sep : now);	/* "" if none fits */
	if (*entry ? listed(before, entry) : strlen(before) == sizeof(res->kept) - 1)
		return;
	fprintf(stderr, "nfsfaird: class %s is no longer in the configuration, keeping it: %s\n",
		name, why);
}

/* Delete the classes we created that @w no longer names; @h is the table now. */
static void prune(struct nfsfair_nl *nl, const struct want *w, const struct have *h,
		  struct owned *o, const char *kept, struct apply_result *res)
{
	char name[NFSFAIR_NAME_LEN + 1], why[NFSFAIR_ERR_LEN + 32];
	const struct nfsfair_rule *r;
	size_t i;
	int ret;

	for (i = o->nr; i-- > 0;) {
		snprintf(name, sizeof(name), "%s", o->names[i]);
		if (wanted(w, name))
			continue;
		if (!have_class(h, name)) {
			owned_del(o, name);	/* deleted by someone else */
			continue;
		}
		r = rule_naming(h, name);
		if (r) {
			snprintf(why, sizeof(why), "a rule of origin %u names it", r->origin);
			apply_kept(res, kept, name, why);
			continue;
		}
		ret = class_del(nl, name);
		if (!ret) {
			fprintf(stderr, "nfsfaird: class %s is no longer in the configuration: deleted\n",
				name);
			owned_del(o, name);
			res->deleted++;
			continue;
		}
		snprintf(why, sizeof(why), "kernel reports: %s",
			 *nfsfair_nl_extack(nl) ? nfsfair_nl_extack(nl) : strerror(-ret));
		apply_kept(res, kept, name, why);
	}
}

/* Which classes the replace about to be sent creates: ours from now on. */
static int note_created(const struct want *w, const struct have *h, struct owned *o)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < w->nr_classes && !ret; i++)
		if (!have_class(h, w->classes[i].name))
			ret = owned_add(o, w->classes[i].name);
	return ret;
}

static void have_free(struct have *h)
{
	free(h->rules);
	free(h->classes);
	memset(h, 0, sizeof(*h));
}

static int replace(struct nfsfair_nl *nl, const struct want *w, struct have *h,
		   struct owned *o, struct apply_result *res)
{
	struct owned created = {};
	struct nl_msg *msg;
	int ret, tries;
	size_t i;

	/* A writer racing us changes the generation: read again, once. */
	for (tries = 0; tries < 2; tries++) {
		have_free(h);
		ret = read_have(nl, h);
		if (ret) {
			snprintf(res->err, NFSFAIR_ERR_LEN, "reading the table: %s",
				 *nfsfair_nl_extack(nl) ? nfsfair_nl_extack(nl) : strerror(-ret));
			break;
		}
		if (same(w, h))
			break;
		owned_free(&created);
		ret = note_created(w, h, &created);
		if (ret)
			break;
		msg = replace_msg(nl, w, h);
		if (!msg) {
			snprintf(res->err, NFSFAIR_ERR_LEN, "the table does not fit one message");
			ret = -EMSGSIZE;
			break;
		}
		ret = nfsfair_nl_run(nl, msg, 0, NULL, NULL);
		if (!ret) {
			res->changed = true;
			break;
		}
		snprintf(res->err, NFSFAIR_ERR_LEN, "kernel reports: %s",
			 *nfsfair_nl_extack(nl) ? nfsfair_nl_extack(nl) : strerror(-ret));
		if (ret != -ESTALE)
			break;
	}
	for (i = 0; !ret && i < created.nr; i++)
		ret = owned_add(o, created.names[i]);
	owned_free(&created);
	return ret;
}

/**
 * apply_want - make the kernel's table what @w asks, if it is not already
 * @w: classes and the daemon's origin's rules
 * @o: the classes the daemon created; updated
 * @kept: the last apply's @res->kept, so that the log says what changed
 * @res: what happened: changed, the generation now, classes kept, whether
 *	  the kernel has the family, the error
 *
 * Return: 0 or a negative errno (the reason in @res->err); -ENOENT with
 * @res->family false when the kernel has no nfsfair family.
 */
int apply_want(const struct want *w, struct owned *o, const char *kept,
	       struct apply_result *res)
{
	struct nfsfair_nl *nl = NULL;
	struct have h = {};
	int ret;

	memset(res, 0, sizeof(*res));
	ret = nfsfair_nl_open(&nl, res->err);
	if (ret)
		return ret;
	res->family = true;
	ret = replace(nl, w, &h, o, res);
	/* Prune against the table as it is after the replace. */
	if (!ret && res->changed) {
		have_free(&h);
		ret = read_have(nl, &h);
		if (ret)
			snprintf(res->err, NFSFAIR_ERR_LEN, "reading the table: %s",
				 strerror(-ret));
	}
	if (!ret) {
		prune(nl, w, &h, o, kept, res);
		if (res->deleted) {
			have_free(&h);
			ret = read_have(nl, &h);
		}
		res->generation = h.generation;
	}
	have_free(&h);
	nfsfair_nl_close(nl);
	return ret;
}
