// SPDX-License-Identifier: GPL-2.0
/*
 * The YAML configuration: one key table per mapping, every error reported
 * as FILE:LINE:COLUMN with the source line and a caret, and every error
 * in a file reported, not just the first. Nothing here touches the kernel.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "config.h"

struct cfg_source {
	char *name;
	char *text;
	size_t len;
};

/* Source texts, for printing the line an error points at. */
static struct cfg_source *sources;
static size_t nr_sources;

static const struct cfg_source *source_of(const char *file)
{
	size_t i;

	for (i = 0; i < nr_sources; i++)
		if (sources[i].name == file)
			return &sources[i];
	return NULL;
}

void cfg_init(struct cfg *cfg, FILE *err)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->origin = CFG_ORIGIN_DEFAULT;
	cfg->err = err;
}

void cfg_free(struct cfg *cfg)
{
	size_t i, j;

	for (i = 0; i < cfg->nr_classes; i++) {
		for (j = 0; j < cfg->classes[i].nr_members; j++)
			free(cfg->classes[i].members[j].text);
		free(cfg->classes[i].members);
	}
	free(cfg->classes);
	for (i = 0; i < nr_sources; i++) {
		free(sources[i].name);
		free(sources[i].text);
	}
	free(sources);
	sources = NULL;
	nr_sources = 0;
	free(cfg->files);
	memset(cfg, 0, sizeof(*cfg));
}

/* FILE:LINE:COL: message, then the line and a caret under the column. */
void cfg_error(struct cfg *cfg, const struct cfg_mark *mark, const char *fmt, ...)
{
	FILE *fp = cfg->err ? cfg->err : stderr;
	const struct cfg_source *src = source_of(mark->file);
	const char *line, *end;
	unsigned int n;
	va_list ap;

	fprintf(fp, "%s:%u:%u: ", mark->file, mark->line, mark->column);
	va_start(ap, fmt);
	vfprintf(fp, fmt, ap);
	va_end(ap);
	fputc('\n', fp);
	cfg->errors++;
	if (!src || !src->text)
		return;
	line = src->text;
	for (n = 1; n < mark->line && line; n++) {
		line = memchr(line, '\n', src->text + src->len - line);
		line = line ? line + 1 : NULL;
	}
	if (!line)
		return;
	end = memchr(line, '\n', src->text + src->len - line);
	if (!end)
		end = src->text + src->len;
	fprintf(fp, "    %.*s\n    %*s^\n", (int)(end - line), line, (int)mark->column - 1, "");
}

struct parse {
	struct cfg *cfg;
	yaml_document_t *doc;
	const char *file;
};

static struct cfg_mark mark_of(const struct parse *ps, const yaml_node_t *node)
{
	struct cfg_mark m = {
		.file = ps->file,
		.line = node->start_mark.line + 1,
		.column = node->start_mark.column + 1,
	};
	return m;
}

static void node_error(struct parse *ps, const yaml_node_t *node, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void node_error(struct parse *ps, const yaml_node_t *node, const char *fmt, ...)
{
	struct cfg_mark m = mark_of(ps, node);
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cfg_error(ps->cfg, &m, "%s", msg);
}

static const char *scalar(const yaml_node_t *node)
{
	return node->type == YAML_SCALAR_NODE ? (const char *)node->data.scalar.value : NULL;
}

static const char *type_name(const yaml_node_t *node)
{
	switch (node->type) {
	case YAML_SCALAR_NODE:
		return "a scalar";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_MAPPING_NODE:
		return "a mapping";
	default:
		return "nothing";
	}
}

/* An integer scalar in [min, max]; reports and returns -1 otherwise. */
static long integer(struct parse *ps, const yaml_node_t *node, const char *key,
		    long min, long max)
{
	const char *s = scalar(node);
	char *end;
	long v;

	if (!s) {
		node_error(ps, node, "'%s' must be a number, not %s", key, type_name(node));
		return -1;
	}
	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < min || v > max) {
		node_error(ps, node, "'%s' must be a whole number from %ld to %ld, not '%s'",
			   key, min, max, s);
		return -1;
	}
	return v;
}

/*
 * Walk a mapping's pairs: a key not in @keys (NULL-terminated) or given
 * twice is an error; @fn gets each known key's index and value.
 */
typedef void (*pair_fn)(struct parse *ps, int key, yaml_node_t *value, void *arg);

static void mapping(struct parse *ps, yaml_node_t *node, const char *what,
		    const char *const *keys, pair_fn fn, void *arg)
{
	yaml_node_pair_t *pair;
	unsigned int seen = 0;
	char expected[256] = "";
	int k;

	for (k = 0; keys[k]; k++)
		snprintf(expected + strlen(expected), sizeof(expected) - strlen(expected),
			 "%s'%s'", k ? ", " : "", keys[k]);
	for (pair = node->data.mapping.pairs.start; pair < node->data.mapping.pairs.top; pair++) {
		yaml_node_t *key = yaml_document_get_node(ps->doc, pair->key);
		yaml_node_t *value = yaml_document_get_node(ps->doc, pair->value);
		const char *name = scalar(key);

		for (k = 0; name && keys[k] && strcmp(keys[k], name); k++)
			;
		if (!name || !keys[k]) {
			node_error(ps, key, "unknown key '%s' in %s (expected %s)",
				   name ? name : "?", what, expected);
			continue;
		}
		if (seen & (1u << k)) {
			node_error(ps, key, "'%s' given twice in %s", name, what);
			continue;
		}
		seen |= 1u << k;
		fn(ps, k, value, arg);
	}
}

/* Members */

enum { MEMBER_ADDRESS, MEMBER_PER_HOST, MEMBER_PER_CLIENT };
static const char *const member_keys[] = { "address", "per-host", "per-client", NULL };

struct member_ctx {
	struct cfg_member *m;
	bool has_address, has_per;
};

const char *cfg_per_word(bool per_client)
{
	return per_client ? "per-client" : "per-host";
}

/* per-host: N or per-client: N, one of them, into *per_host and *per_client. */
static void per_target(struct parse *ps, yaml_node_t *value, bool per_client, bool *seen,
		       const char *what, int *per_host, bool *client)
{
	long n;

	if (*seen) {
		node_error(ps, value, "%s has 'per-host' or 'per-client', not both", what);
		return;
	}
	*seen = true;
	n = integer(ps, value, cfg_per_word(per_client), 1, 128);
	if (n >= 0) {
		*per_host = n;
		*client = per_client;
	}
}

static void member_pair(struct parse *ps, int key, yaml_node_t *value, void *arg)
{
	struct member_ctx *mc = arg;

	switch (key) {
	case MEMBER_ADDRESS:
		if (!scalar(value) || !*scalar(value)) {
			node_error(ps, value, "'address' must be a hostname, address or prefix");
			return;
		}
		mc->m->text = strdup(scalar(value));
		mc->m->mark = mark_of(ps, value);
		mc->has_address = true;
		break;
	case MEMBER_PER_HOST:
	case MEMBER_PER_CLIENT:
		per_target(ps, value, key == MEMBER_PER_CLIENT, &mc->has_per, "a member",
			   &mc->m->per_host, &mc->m->per_client);
		break;
	}
}

static void member(struct parse *ps, yaml_node_t *node, struct cfg_class *c)
{
	struct cfg_member m = { .per_host = -1, .mark = mark_of(ps, node) };
	struct member_ctx mc = { .m = &m };
	struct cfg_member *v;

	if (node->type == YAML_SCALAR_NODE) {
		if (!*scalar(node)) {
			node_error(ps, node, "a member must be a hostname, address or prefix");
			return;
		}
		m.text = strdup(scalar(node));
	} else if (node->type == YAML_MAPPING_NODE) {
		mapping(ps, node, "a member", member_keys, member_pair, &mc);
		if (!mc.has_address) {
			node_error(ps, node, "a member needs 'address'");
			free(m.text);
			return;
		}
	} else {
		node_error(ps, node, "a member must be a hostname, address or prefix, or a "
			   "mapping with 'address' and 'per-host' or 'per-client', not %s",
			   type_name(node));
		return;
	}
	v = realloc(c->members, (c->nr_members + 1) * sizeof(*v));
	if (!v) {
		free(m.text);
		ps->cfg->errors++;
		return;
	}
	c->members = v;
	c->members[c->nr_members++] = m;
}

/* Classes */

enum {
	CLASS_NAME, CLASS_ADD_TO, CLASS_WEIGHT, CLASS_PER_HOST, CLASS_PER_CLIENT, CLASS_MEMBERS,
};
static const char *const class_keys[] = {
	"name", "add-to", "weight", "per-host", "per-client", "members", NULL,
};

struct class_ctx {
	struct cfg_class *c;
	yaml_node_t *name, *add_to, *weight, *members;
	bool has_per;
};

static void class_pair(struct parse *ps, int key, yaml_node_t *value, void *arg)
{
	struct class_ctx *cc = arg;
	yaml_node_item_t *item;
	char err[NFSFAIR_ERR_LEN];
	long n;

	switch (key) {
	case CLASS_NAME:
	case CLASS_ADD_TO:
		/* Given, even if wrong: "needs 'name'" would be a second error. */
		if (key == CLASS_NAME)
			cc->name = value;
		else
			cc->add_to = value;
		if (!scalar(value)) {
			node_error(ps, value, "'%s' must be a class name of 1 to %d characters",
				   class_keys[key], NFSFAIR_NAME_LEN);
			return;
		}
		if (nfsfair_class_name_check(scalar(value), err)) {
			node_error(ps, value, "%s", err);
			return;
		}
		snprintf(cc->c->name, sizeof(cc->c->name), "%s", scalar(value));
		cc->c->mark = mark_of(ps, value);
		break;
	case CLASS_WEIGHT:
		n = integer(ps, value, "weight", 1, NFSFAIR_WEIGHT_MAX);
		if (n > 0)
			cc->c->weight = n;
		cc->weight = value;
		break;
	case CLASS_PER_HOST:
	case CLASS_PER_CLIENT:
		per_target(ps, value, key == CLASS_PER_CLIENT, &cc->has_per, "a class",
			   &cc->c->per_host, &cc->c->per_client);
		break;
	case CLASS_MEMBERS:
		cc->members = value;
		if (value->type != YAML_SEQUENCE_NODE) {
			node_error(ps, value, "'members' must be a list, not %s", type_name(value));
			return;
		}
		for (item = value->data.sequence.items.start;
		     item < value->data.sequence.items.top; item++)
			member(ps, yaml_document_get_node(ps->doc, *item), cc->c);
		break;
	}
}

static void class(struct parse *ps, yaml_node_t *node)
{
	struct cfg *cfg = ps->cfg;
	struct cfg_class c = { .weight = 1, .per_host = -1, .mark = mark_of(ps, node) };
	struct class_ctx cc = { .c = &c };
	const struct cfg_class *prev;
	struct cfg_class *v;
	size_t i;

	if (node->type != YAML_MAPPING_NODE) {
		node_error(ps, node, "a class must be a mapping with 'name' and 'members', not %s",
			   type_name(node));
		return;
	}
	mapping(ps, node, "a class", class_keys, class_pair, &cc);
	if (!cc.name == !cc.add_to) {
		node_error(ps, node, cc.name ? "a class has 'name' or 'add-to', not both" :
			   "a class needs 'name' (to define it) or 'add-to' (to extend one)");
		goto drop;
	}
	if (!c.name[0])
		goto drop;	/* reported */
	c.defines = cc.name;
	prev = cfg_class_find(cfg, c.name);
	if (c.defines && prev) {
		node_error(ps, cc.name, "class '%s' is already defined at %s:%u:%u", c.name,
			   prev->mark.file, prev->mark.line, prev->mark.column);
		goto drop;
	}
	if (!c.defines && !prev) {
		node_error(ps, cc.add_to, "no class '%s' defined before this", c.name);
		goto drop;
	}
	if (!c.defines && cc.weight) {
		node_error(ps, cc.weight, "'weight' belongs where class '%s' is defined", c.name);
		goto drop;
	}
	if (!c.nr_members) {
		node_error(ps, cc.members ? cc.members : node, "class '%s' has no members", c.name);
		goto drop;
	}
	v = realloc(cfg->classes, (cfg->nr_classes + 1) * sizeof(*v));
	if (!v)
		goto drop;
	cfg->classes = v;
	cfg->classes[cfg->nr_classes++] = c;
	return;
drop:
	for (i = 0; i < c.nr_members; i++)
		free(c.members[i].text);
	free(c.members);
}

/* The document */

enum { TOP_ORIGIN, TOP_CLASSES };
static const char *const top_keys[] = { "origin", "classes", NULL };

static void top_pair(struct parse *ps, int key, yaml_node_t *value, void *arg)
{
	yaml_node_item_t *item;
	long n;

	(void)arg;
	switch (key) {
	case TOP_ORIGIN:
		n = integer(ps, value, "origin", 1, 255);
		if (n > 0) {
			ps->cfg->origin = n;
			ps->cfg->origin_mark = mark_of(ps, value);
		}
		break;
	case TOP_CLASSES:
		if (value->type != YAML_SEQUENCE_NODE) {
			node_error(ps, value, "'classes' must be a list, not %s", type_name(value));
			return;
		}
		for (item = value->data.sequence.items.start;
		     item < value->data.sequence.items.top; item++)
			class(ps, yaml_document_get_node(ps->doc, *item));
		break;
	}
}

static const char *add_source(const char *name, const unsigned char *data, size_t len)
{
	struct cfg_source *v = realloc(sources, (nr_sources + 1) * sizeof(*v));

	if (!v)
		return NULL;
	sources = v;
	v = &sources[nr_sources];
	v->name = strdup(name);
	v->text = malloc(len + 1);
	if (!v->name || !v->text) {
		free(v->name);
		free(v->text);
		return NULL;
	}
	memcpy(v->text, data, len);
	v->text[len] = '\0';
	v->len = len;
	nr_sources++;
	return v->name;
}

/**
 * cfg_load_buffer - parse one file's text into @cfg
 * Return: 0, or -EINVAL when the text had errors (all of them reported).
 */
int cfg_load_buffer(struct cfg *cfg, const char *name, const unsigned char *data, size_t len)
{
	unsigned int errors = cfg->errors;
	yaml_parser_t parser;
	yaml_document_t doc;
	struct parse ps = { .cfg = cfg, .doc = &doc };
	yaml_node_t *root;

	ps.file = add_source(name, data, len);
	if (!ps.file)
		return -ENOMEM;
	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, data, len);
	if (!yaml_parser_load(&parser, &doc)) {
		struct cfg_mark m = {
			.file = ps.file,
			.line = parser.problem_mark.line + 1,
			.column = parser.problem_mark.column + 1,
		};

		if (parser.context)
			cfg_error(cfg, &m, "YAML: %s %s opened at line %zu, column %zu",
				  parser.problem, parser.context, parser.context_mark.line + 1,
				  parser.context_mark.column + 1);
		else
			cfg_error(cfg, &m, "YAML: %s", parser.problem);
		yaml_parser_delete(&parser);
		return -EINVAL;
	}
	root = yaml_document_get_root_node(&doc);
	if (root && root->type != YAML_MAPPING_NODE)
		node_error(&ps, root, "the file must be a mapping with 'classes', not %s",
			   type_name(root));
	else if (root)
		mapping(&ps, root, "the file", top_keys, top_pair, NULL);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return cfg->errors > errors ? -EINVAL : 0;
}

/**
 * cfg_load_file - parse a file into @cfg
 * Return: 0, -EINVAL on errors in it (reported), or -errno reading it.
 */
int cfg_load_file(struct cfg *cfg, const char *path)
{
	FILE *fp = fopen(path, "r");
	unsigned char *data = NULL;
	size_t len = 0, cap = 0, n;
	int ret;

	if (!fp) {
		ret = -errno;
		fprintf(cfg->err ? cfg->err : stderr, "%s: %s\n", path, strerror(errno));
		cfg->errors++;
		return ret;
	}
	do {
		if (len == cap) {
			unsigned char *v = realloc(data, cap = cap ? 2 * cap : 4096);

			if (!v) {
				free(data);
				fclose(fp);
				return -ENOMEM;
			}
			data = v;
		}
		n = fread(data + len, 1, cap - len, fp);
		len += n;
	} while (n);
	ret = ferror(fp) ? -EIO : cfg_load_buffer(cfg, path, data, len);
	fclose(fp);
	free(data);
	return ret;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int yaml_file(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 5 && !strcmp(d->d_name + n - 5, ".yaml");
}

/**
 * cfg_load_dir - the main file, then DROPIN_DIR/ *.yaml in name order
 * Return: 0, or a negative errno when anything had errors (all reported).
 */
int cfg_load_dir(struct cfg *cfg, const char *main_file, const char *dropin_dir)
{
	struct dirent **names;
	char path[4096];
	int n, i, ret;

	ret = cfg_load_file(cfg, main_file);
	if (ret && ret != -EINVAL)
		return ret;
	n = dropin_dir ? scandir(dropin_dir, &names, yaml_file, by_name) : -1;
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dropin_dir, names[i]->d_name);
		if (cfg_load_file(cfg, path) && !ret)
			ret = -EINVAL;
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	return cfg->errors ? -EINVAL : ret;
}

const struct cfg_class *cfg_class_find(const struct cfg *cfg, const char *name)
{
	size_t i;

	for (i = 0; i < cfg->nr_classes; i++)
		if (cfg->classes[i].defines && !strcmp(cfg->classes[i].name, name))
			return &cfg->classes[i];
	return NULL;
}

static bool hostname_ok(const char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '.' && *s != '_')
			return false;
	return true;
}

/**
 * cfg_check - what can be checked before resolving: literal prefixes
 * (well formed, no host bits) and per-host lengths for their family.
 * Return: 0, or -EINVAL with every problem reported.
 */
int cfg_check(struct cfg *cfg)
{
	char err[NFSFAIR_ERR_LEN];
	struct nfsfair_prefix p;
	size_t i, j;

	for (i = 0; i < cfg->nr_classes; i++) {
		struct cfg_class *c = &cfg->classes[i];

		for (j = 0; j < c->nr_members; j++) {
			struct cfg_member *m = &c->members[j];
			int per_host = m->per_host >= 0 ? m->per_host : c->per_host;
			bool client = m->per_host >= 0 ? m->per_client : c->per_client;
			const char *per = cfg_per_word(client);

			if (!strchr(m->text, '/') && !strchr(m->text, ':') &&
			    nfsfair_prefix_parse(m->text, &p, err)) {
				/* Not an address: a hostname, resolved later. */
				if (!hostname_ok(m->text))
					cfg_error(cfg, &m->mark, "'%s' is neither an address, a prefix "
						  "nor a hostname", m->text);
				continue;
			}
			if (nfsfair_prefix_parse(m->text, &p, err)) {
				cfg_error(cfg, &m->mark, "%s", err);
				continue;
			}
			if (per_host > (int)nfsfair_family_bits(p.family))
				cfg_error(cfg, &m->mark, "%s/%d is past /%u for '%s'", per,
					  per_host, nfsfair_family_bits(p.family), m->text);
			else if (per_host >= 0 && per_host < p.len)
				cfg_error(cfg, &m->mark,
					  "%s/%d is shorter than the prefix of '%s'%s", per,
					  per_host, m->text, client ? "" : ": use a class");
		}
	}
	return cfg->errors ? -EINVAL : 0;
}
