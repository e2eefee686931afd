// SPDX-License-Identifier: GPL-2.0
/*
 * The table a configuration asks for: classes in order of definition,
 * then one rule per member address, in file order (main file, then the
 * drop-ins by name), first match winning as in the kernel. A class with
 * per-host (per-client) makes its members' rules per-host (per-client).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"

void want_free(struct want *w)
{
	free(w->classes);
	free(w->rules);
	memset(w, 0, sizeof(*w));
}

static int add_rule(struct want *w, const struct nfsfair_rule *r)
{
	struct nfsfair_rule *v;
	size_t i;

	/* A host named twice, or in two classes: its first rule wins anyway. */
	for (i = 0; i < w->nr_rules; i++)
		if (nfsfair_prefix_equal(&w->rules[i].prefix, &r->prefix))
			return 0;
	v = realloc(w->rules, (w->nr_rules + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	w->rules = v;
	w->rules[w->nr_rules++] = *r;
	return 0;
}

/**
 * want_build - the classes and rules of @cfg, names resolved through @r
 * Return: 0, or -EINVAL when a member is in error (reported).
 */
int want_build(struct want *w, struct cfg *cfg, struct resolver *r, enum res_mode mode)
{
	const struct nfsfair_prefix *addrs;
	struct nfsfair_rule rule;
	size_t i, j, k, n;
	int ret = 0, err;

	memset(w, 0, sizeof(*w));
	w->origin = cfg->origin;
	for (i = 0; i < cfg->nr_classes; i++) {
		const struct cfg_class *c = &cfg->classes[i];
		const struct cfg_class *def = c->defines ? c : cfg_class_find(cfg, c->name);

		if (c->defines && c->per_host < 0) {
			struct want_class *v = realloc(w->classes, (w->nr_classes + 1) * sizeof(*v));

			if (!v)
				return -ENOMEM;
			w->classes = v;
			snprintf(v[w->nr_classes].name, sizeof(v->name), "%s", c->name);
			v[w->nr_classes++].weight = c->weight;
		}
		for (j = 0; j < c->nr_members; j++) {
			const struct cfg_member *m = &c->members[j];
			int per_host = m->per_host >= 0 ? m->per_host : def->per_host;
			bool per_client = m->per_host >= 0 ? m->per_client : def->per_client;

			err = resolve_member(r, cfg, m, mode, &addrs, &n);
			if (err) {
				ret = err;
				continue;
			}
			for (k = 0; k < n; k++) {
				memset(&rule, 0, sizeof(rule));
				rule.prefix = addrs[k];
				rule.origin = cfg->origin;
				if (per_host >= 0) {
					rule.target.kind = per_client ? NFSFAIR_TARGET_PER_CLIENT :
									NFSFAIR_TARGET_PER_HOST;
					rule.target.per_host_len = per_host;
					if (per_host > (int)nfsfair_family_bits(addrs[k].family) ||
					    per_host < addrs[k].len) {
						cfg_error(cfg, &m->mark,
							  "%s/%d does not fit %s's /%u addresses",
							  cfg_per_word(per_client), per_host,
							  m->text, addrs[k].len);
						ret = -EINVAL;
						continue;
					}
				} else {
					rule.target.kind = NFSFAIR_TARGET_CLASS;
					snprintf(rule.target.class, sizeof(rule.target.class), "%s",
						 c->name);
				}
				if (add_rule(w, &rule))
					return -ENOMEM;
			}
		}
	}
	return ret;
}

/* The table as nfsfair-ctl would restore it. */
void want_print(const struct want *w, FILE *fp)
{
	char buf[NFSFAIR_RULE_STRLEN];
	size_t i;

	for (i = 0; i < w->nr_classes; i++)
		fprintf(fp, "-N %s --weight %u\n", w->classes[i].name, w->classes[i].weight);
	for (i = 0; i < w->nr_rules; i++) {
		nfsfair_rule_format(&w->rules[i], buf, sizeof(buf));
		fprintf(fp, "-A %s\n", buf);
	}
}
