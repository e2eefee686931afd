// SPDX-License-Identifier: GPL-2.0
/*
 * The YAML configuration: one key table per mapping, every error reported
 * as FILE:LINE:COLUMN with the source line and a caret, and every error
 * in a file reported, not just the first. Nothing here touches the kernel.
 */
#define _GNU_SOURCE	/* scandirat */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "config.h"

struct cfg_source {
	char *name;
	char *text;
	size_t len;
	size_t *lines;		/* where each line starts; made at the first error */
	size_t nr_lines;
};

/* Source texts, for printing the line an error points at. */
static struct cfg_source *sources;
static size_t nr_sources;

static struct cfg_source *source_of(const char *file)
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
	hash_free(&cfg->class_index);
	for (i = 0; i < nr_sources; i++) {
		free(sources[i].name);
		free(sources[i].text);
		free(sources[i].lines);
	}
	free(sources);
	sources = NULL;
	nr_sources = 0;
	free(cfg->files);
	memset(cfg, 0, sizeof(*cfg));
}

/* The text of line @n (1-based), found through an index made once per file. */
static const char *source_line(struct cfg_source *src, unsigned int n)
{
	const char *p, *end = src->text + src->len;

	if (!src->lines) {
		for (p = src->text; p; p = memchr(p, '\n', end - p), p = p ? p + 1 : NULL)
			src->nr_lines++;
		src->lines = malloc(src->nr_lines * sizeof(*src->lines));
		if (!src->lines) {
			src->nr_lines = 0;
			return NULL;
		}
		src->nr_lines = 0;
		for (p = src->text; p; p = memchr(p, '\n', end - p), p = p ? p + 1 : NULL)
			src->lines[src->nr_lines++] = p - src->text;
	}
	return n >= 1 && n <= src->nr_lines ? src->text + src->lines[n - 1] : NULL;
}

#define SHOWN_LINE	120

/*
 * The line, and a caret under @column; of a long line (a flow list can
 * be megabytes) only SHOWN_LINE bytes around the column, with "...".
 */
static void print_window(FILE *fp, const char *line, const char *end, unsigned int column)
{
	const char *from = line, *to = end;
	size_t col = column ? column - 1 : 0;

	if (end - line > SHOWN_LINE) {
		if (col > SHOWN_LINE / 2)
			from = line + (col - SHOWN_LINE / 2 < (size_t)(end - line) - SHOWN_LINE ?
				       col - SHOWN_LINE / 2 : (size_t)(end - line) - SHOWN_LINE);
		to = from + SHOWN_LINE;
		col -= from - line;
	}
	fprintf(fp, "    %s%.*s%s\n", from > line ? "..." : "", (int)(to - from), from,
		to < end ? "..." : "");
	fprintf(fp, "    %*s^\n", (int)(col + (from > line ? 3 : 0)), "");
}

/* FILE:LINE:COL: message, then the line and a caret under the column. */
void cfg_error(struct cfg *cfg, const struct cfg_mark *mark, const char *fmt, ...)
{
	FILE *fp = cfg->err ? cfg->err : stderr;
	struct cfg_source *src = source_of(mark->file);
	const char *line, *end;
	va_list ap;

	fprintf(fp, "%s:%u:%u: ", mark->file, mark->line, mark->column);
	va_start(ap, fmt);
	vfprintf(fp, fmt, ap);
	va_end(ap);
	fputc('\n', fp);
	cfg->errors++;
	if (!src || !src->text)
		return;
	line = source_line(src, mark->line);
	if (!line)
		return;
	end = memchr(line, '\n', src->text + src->len - line);
	if (!end)
		end = src->text + src->len;
	print_window(fp, line, end, mark->column);
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

enum { MEMBER_ADDRESS, MEMBER_PER_HOST, MEMBER_PER_CLIENT, MEMBER_IDS_PER_HOST };
static const char *const member_keys[] = {
	"address", "per-host", "per-client", "ids-per-host", NULL,
};

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

/* ids-per-host: N, into *out; whether the target takes it is checked once all is read. */
static void ids_per_host(struct parse *ps, yaml_node_t *value, uint32_t *out)
{
	long n = integer(ps, value, "ids-per-host", 1, NFSFAIR_IDS_PER_HOST_MAX);

	if (n > 0)
		*out = n;
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
	case MEMBER_IDS_PER_HOST:
		ids_per_host(ps, value, &mc->m->ids_per_host);
		mc->m->ids_mark = mark_of(ps, value);
		break;
	}
}

static void member(struct parse *ps, yaml_node_t *node, struct cfg_class *c)
{
	struct cfg_member m = { .per_host = -1, .mark = mark_of(ps, node) };
	struct member_ctx mc = { .m = &m };

	if (ps->cfg->nr_members >= CFG_MEMBERS_MAX) {
		/* Said once, at the first member past the limit. */
		if (ps->cfg->nr_members++ == CFG_MEMBERS_MAX)
			node_error(ps, node,
				   "more than %d members in all files: the kernel takes at most %d rules",
				   CFG_MEMBERS_MAX, NFSFAIR_MAX_RULES);
		return;
	}
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
	if (!m.text || array_grow(&c->members, c->nr_members, sizeof(*c->members))) {
		node_error(ps, node, "out of memory");
		free(m.text);
		return;
	}
	c->members[c->nr_members++] = m;
	ps->cfg->nr_members++;
}

/* Classes */

enum {
	CLASS_NAME, CLASS_ADD_TO, CLASS_WEIGHT, CLASS_LIMIT, CLASS_PER_HOST, CLASS_PER_CLIENT,
	CLASS_IDS_PER_HOST, CLASS_MEMBERS,
};
static const char *const class_keys[] = {
	"name", "add-to", "weight", "limit", "per-host", "per-client", "ids-per-host", "members",
	NULL,
};

struct class_ctx {
	struct cfg_class *c;
	yaml_node_t *name, *add_to, *weight, *limit, *members, *ids;
	yaml_node_t *per;	/* the first of per-host and per-client */
	int per_key;
	bool has_per, per_host_key, per_client_key;
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
	case CLASS_LIMIT:
		n = integer(ps, value, "limit", 0, NFSFAIR_LIMIT_MAX);
		if (n >= 0)
			cc->c->limit = n;
		cc->limit = value;
		break;
	case CLASS_PER_HOST:
	case CLASS_PER_CLIENT:
		if (!cc->per) {
			cc->per = value;
			cc->per_key = key;
		}
		if (key == CLASS_PER_CLIENT)
			cc->per_client_key = true;
		else
			cc->per_host_key = true;
		per_target(ps, value, key == CLASS_PER_CLIENT, &cc->has_per, "a class",
			   &cc->c->per_host, &cc->c->per_client);
		break;
	case CLASS_IDS_PER_HOST:
		cc->ids = value;
		ids_per_host(ps, value, &cc->c->ids_per_host);
		break;
	case CLASS_MEMBERS:
		cc->members = value;
		if (value->type != YAML_SEQUENCE_NODE) {
			node_error(ps, value, "'members' must be a list, not %s", type_name(value));
			return;
		}
		/* Past the limit, stop: an alias can repeat a long list many times. */
		for (item = value->data.sequence.items.start;
		     item < value->data.sequence.items.top &&
		     ps->cfg->nr_members <= CFG_MEMBERS_MAX; item++)
			member(ps, yaml_document_get_node(ps->doc, *item), cc->c);
		break;
	}
}

/*
 * A member's ids-per-host is for a per-client rule: its own per-client,
 * or, with no target of its own, its class's (@def, the definition).
 */
static void member_ids_check(struct parse *ps, const struct cfg_class *def,
			     const struct cfg_member *m)
{
	char target[64];

	if (!m->ids_per_host || (m->per_host >= 0 ? m->per_client : def->per_client))
		return;
	if (m->per_host >= 0)
		snprintf(target, sizeof(target), "per-host/%d", m->per_host);
	else if (def->per_host >= 0)
		snprintf(target, sizeof(target), "per-host/%d (class '%s')", def->per_host,
			 def->name);
	else
		snprintf(target, sizeof(target), "class '%s'", def->name);
	cfg_error(ps->cfg, &m->ids_mark,
		  "'ids-per-host' needs 'per-client' on the member or its class; its target is %s",
		  target);
}

static void class(struct parse *ps, yaml_node_t *node)
{
	struct cfg *cfg = ps->cfg;
	struct cfg_class c = { .weight = 1, .per_host = -1, .mark = mark_of(ps, node) };
	struct class_ctx cc = { .c = &c };
	const struct cfg_class *prev;
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
	if (!c.defines && cc.limit) {
		node_error(ps, cc.limit, "'limit' belongs where class '%s' is defined", c.name);
		goto drop;
	}
	/*
	 * A target is the class's: members added with another would be in it
	 * by name only. A member can still have its own.
	 */
	if (!c.defines && cc.per) {
		node_error(ps, cc.per, "'%s' belongs where class '%s' is defined, or on a "
			   "member with 'address'", class_keys[cc.per_key], c.name);
		goto drop;
	}
	if (!c.defines && cc.ids) {
		node_error(ps, cc.ids,
			   "'ids-per-host' belongs where class '%s' is defined, or on a member with 'address'",
			   c.name);
		goto drop;
	}
	/* Reported, not dropped: an add-to of the class would be a second error. */
	if (cc.ids && !cc.per_client_key)
		node_error(ps, cc.ids, "'ids-per-host' needs 'per-client' in the same class%s",
			   cc.per_host_key ? ", not 'per-host'" : "");
	/* A cap that silently capped nothing would be worse than none. */
	if (cc.limit && c.per_host >= 0) {
		node_error(ps, cc.limit, "'limit' needs a class: with '%s' each member is a "
			   "client of its own", cfg_per_word(c.per_client));
		goto drop;
	}
	for (i = 0; i < c.nr_members; i++)
		member_ids_check(ps, c.defines ? &c : prev, &c.members[i]);
	if (!c.nr_members) {
		/* Past the members limit (reported once), every class is empty. */
		if (cfg->nr_members <= CFG_MEMBERS_MAX)
			node_error(ps, cc.members ? cc.members : node, "class '%s' has no members",
				   c.name);
		goto drop;
	}
	if (c.defines && c.per_host < 0) {
		if (cfg->nr_kernel_classes == NFSFAIR_MAX_CLASSES) {
			node_error(ps, cc.name, "more than %d classes: the kernel's limit",
				   NFSFAIR_MAX_CLASSES);
			goto drop;
		}
		cfg->nr_kernel_classes++;
	}
	if (array_grow(&cfg->classes, cfg->nr_classes, sizeof(*cfg->classes)) ||
	    (c.defines && hash_add(&cfg->class_index, hash_bytes(c.name, strlen(c.name)),
				   cfg->nr_classes))) {
		node_error(ps, node, "out of memory");
		goto drop;
	}
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
	v->lines = NULL;
	v->nr_lines = 0;
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

/* FILE: message, for what is wrong with a file as a whole. */
static void file_error(struct cfg *cfg, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void file_error(struct cfg *cfg, const char *path, const char *fmt, ...)
{
	FILE *fp = cfg->err ? cfg->err : stderr;
	va_list ap;

	fprintf(fp, "%s: ", path);
	va_start(ap, fmt);
	vfprintf(fp, fmt, ap);
	va_end(ap);
	fputc('\n', fp);
	cfg->errors++;
}

/*
 * The whole of @path, at most CFG_FILE_MAX bytes: a regular file is
 * measured before it is read, anything else (a pipe) as it is read.
 * Return: 0, or a negative errno with the reason reported as FILE: reason.
 */
static int read_whole(struct cfg *cfg, int dirfd, const char *name, const char *path,
		      unsigned char **out, size_t *len)
{
	unsigned char *data = NULL, *v;
	struct stat st;
	size_t cap;
	ssize_t n;
	int fd, ret = 0;

	*len = 0;
	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		ret = -errno;
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		ret = -EISDIR;
		goto fail;
	}
	if (S_ISREG(st.st_mode) && st.st_size > CFG_FILE_MAX)
		goto too_big;
	/* One byte more than the size, so that EOF is seen without growing. */
	cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 65536;
	data = malloc(cap);
	if (!data) {
		ret = -ENOMEM;
		goto fail;
	}
	for (;;) {
		if (*len == cap) {
			v = realloc(data, cap *= 2);
			if (!v) {
				ret = -ENOMEM;
				goto fail;
			}
			data = v;
		}
		n = read(fd, data + *len, cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			goto fail;
		}
		if (!n)
			break;
		*len += n;
		if (*len > CFG_FILE_MAX)
			goto too_big;
	}
	close(fd);
	*out = data;
	return 0;
too_big:
	file_error(cfg, path, "larger than the %d MiB limit", CFG_FILE_MAX >> 20);
	ret = -EFBIG;
	goto out;
fail:
	file_error(cfg, path, "%s", strerror(-ret));
out:
	if (fd >= 0)
		close(fd);
	free(data);
	return ret;
}

/* The file @name in @dirfd, reported as @path. */
static int load_file_at(struct cfg *cfg, int dirfd, const char *name, const char *path)
{
	unsigned char *data;
	size_t len;
	int ret;

	ret = read_whole(cfg, dirfd, name, path, &data, &len);
	if (ret)
		return ret;
	ret = cfg_load_buffer(cfg, path, data, len);
	free(data);
	return ret;
}

/**
 * cfg_load_file - parse a file into @cfg
 * Return: 0, -EINVAL on errors in it, or -errno reading it (all reported).
 */
int cfg_load_file(struct cfg *cfg, const char *path)
{
	return load_file_at(cfg, AT_FDCWD, path, path);
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
	int n = -1, i, ret, dirfd = -1;

	ret = cfg_load_file(cfg, main_file);
	if (ret && ret != -EINVAL)
		return ret;
	/*
	 * The directory is opened once and its files relative to it: swapped
	 * for another while we read (a symlink or a rename, as deployment
	 * tools do), it still gives all of one version, never half of each.
	 */
	if (dropin_dir)
		dirfd = open(dropin_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd >= 0)
		n = scandirat(dirfd, ".", &names, yaml_file, by_name);
	/* No drop-in directory is no drop-ins; one we cannot read is an error. */
	if (n < 0 && dropin_dir && errno != ENOENT) {
		ret = -errno;
		file_error(cfg, dropin_dir, "%s", strerror(errno));
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dropin_dir, names[i]->d_name);
		if (load_file_at(cfg, dirfd, names[i]->d_name, path) && !ret)
			ret = -EINVAL;
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	if (dirfd >= 0)
		close(dirfd);
	return cfg->errors ? -EINVAL : ret;
}

static bool same_class(const void *key, size_t pos, const void *arg)
{
	const struct cfg *cfg = arg;

	return !strcmp(key, cfg->classes[pos].name);
}

/* The class @name's definition; through the index, as add-to entries may be many. */
const struct cfg_class *cfg_class_find(const struct cfg *cfg, const char *name)
{
	size_t pos = hash_find(&cfg->class_index, hash_bytes(name, strlen(name)), name,
			       same_class, cfg);

	return pos == SIZE_MAX ? NULL : &cfg->classes[pos];
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
		/* An add-to entry's members take the target of the class's definition. */
		const struct cfg_class *def = c->defines ? c : cfg_class_find(cfg, c->name);

		for (j = 0; j < c->nr_members; j++) {
			struct cfg_member *m = &c->members[j];
			int per_host = m->per_host >= 0 ? m->per_host : def->per_host;
			bool client = m->per_host >= 0 ? m->per_client : def->per_client;
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
