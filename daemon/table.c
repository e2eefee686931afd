// SPDX-License-Identifier: GPL-2.0
/*
 * The table a configuration asks for: classes in order of definition,
 * then one rule per member address, in file order (main file, then the
 * drop-ins by name), first match winning as in the kernel. A class with
 * per-host (per-client) makes its members' rules per-host (per-client),
 * with its ids-per-host unless a member gives its own.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "daemon.h"
#include "hash.h"

void want_free(struct want *w)
{
	free(w->classes);
	free(w->rules);
	memset(w, 0, sizeof(*w));
}

static uint64_t prefix_hash(const struct nfsfair_prefix *p)
{
	uint8_t key[18];

	key[0] = p->family == AF_INET6;
	key[1] = p->len;
	memcpy(key + 2, p->addr, 16);
	return hash_bytes(key, sizeof(key));
}

static bool same_prefix(const void *key, size_t pos, const void *arg)
{
	const struct want *w = arg;

	return nfsfair_prefix_equal(key, &w->rules[pos].prefix);
}

/*
 * A host named twice, or in two classes: its first rule wins anyway. The
 * index makes this check O(1): a scan of the rules so far made 65,536
 * members take 9.5 s.
 */
static int add_rule(struct want *w, struct hash_index *seen, const struct nfsfair_rule *r)
{
	uint64_t hash = prefix_hash(&r->prefix);

	if (hash_find(seen, hash, &r->prefix, same_prefix, w) != SIZE_MAX)
		return 0;
	if (w->nr_rules == NFSFAIR_MAX_RULES)
		return -E2BIG;
	if (array_grow(&w->rules, w->nr_rules, sizeof(*w->rules)) ||
	    hash_add(seen, hash, w->nr_rules))
		return -ENOMEM;
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
	struct hash_index seen = {};
	struct nfsfair_rule rule;
	size_t i, j, k, n;
	int ret = 0, err;

	memset(w, 0, sizeof(*w));
	w->origin = cfg->origin;
	for (i = 0; i < cfg->nr_classes; i++) {
		const struct cfg_class *c = &cfg->classes[i];
		const struct cfg_class *def = c->defines ? c : cfg_class_find(cfg, c->name);

		if (c->defines && c->per_host < 0) {
			struct want_class *v;

			if (array_grow(&w->classes, w->nr_classes, sizeof(*v))) {
				ret = -ENOMEM;
				goto out;
			}
			v = &w->classes[w->nr_classes++];
			snprintf(v->name, sizeof(v->name), "%s", c->name);
			v->weight = c->weight;
			v->limit = c->limit;
		}
		for (j = 0; j < c->nr_members; j++) {
			const struct cfg_member *m = &c->members[j];
			int per_host = m->per_host >= 0 ? m->per_host : def->per_host;
			bool per_client = m->per_host >= 0 ? m->per_client : def->per_client;
			/* Inherited on its own: a member's per-client/N of its own keeps the class's. */
			uint32_t ids = m->ids_per_host ? m->ids_per_host : def->ids_per_host;

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
					rule.target.ids_per_host = per_client ? ids : 0;
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
				err = add_rule(w, &seen, &rule);
				if (err == -E2BIG) {
					cfg_error(cfg, &m->mark,
						  "'%s' makes more than %d rules, the kernel's limit",
						  m->text, NFSFAIR_MAX_RULES);
					ret = -EINVAL;
					goto out;
				}
				if (err) {
					ret = err;
					goto out;
				}
			}
		}
	}
out:
	hash_free(&seen);
	return ret;
}

/* The table as nfsfair-ctl would restore it. */
void want_print(const struct want *w, FILE *fp)
{
	char buf[NFSFAIR_RULE_STRLEN];
	size_t i;

	for (i = 0; i < w->nr_classes; i++) {
		fprintf(fp, "-N %s --weight %u", w->classes[i].name, w->classes[i].weight);
		if (w->classes[i].limit)
			fprintf(fp, " --limit %u", w->classes[i].limit);
		fputc('\n', fp);
	}
	for (i = 0; i < w->nr_rules; i++) {
		nfsfair_rule_format(&w->rules[i], buf, sizeof(buf));
		fprintf(fp, "-A %s\n", buf);
	}
}
