// SPDX-License-Identifier: GPL-2.0
/* Rules and their targets, as text: "-s PREFIX -j TARGET [--ids-per-host N] [--origin O]". */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "nfsfair.h"

/* Exact decimal, no sign, no spaces, no base prefixes. */
int nfsfair_uint_parse(const char *s, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!*s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	if (v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/* The targets' keywords: never class names, so that -j and a save file stay unambiguous. */
static const char *const reserved_names[] = { "default", "per-host", "per-client", "overflow" };

/*
 * The kernel's rule for a class name, said before asking it: 1 to
 * NFSFAIR_NAME_LEN bytes of ASCII letters, digits, '.', '_' and '-',
 * starting with a letter or a digit, and no target's keyword. Such a name
 * is one word on a command line and in a save file, so save and restore
 * round-trip it. The name is quoted with odd bytes as \xNN.
 */
int nfsfair_class_name_check(const char *name, char *err)
{
	size_t i, len = strlen(name);
	char q[80];

	output_fmt_owner((const uint8_t *)name, len, q, sizeof(q));
	if (len == 0 || len > NFSFAIR_NAME_LEN) {
		snprintf(err, NFSFAIR_ERR_LEN, "'%s': a class name is 1 to %d bytes", q,
			 NFSFAIR_NAME_LEN);
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		if (isascii(name[i]) && (isalnum(name[i]) || (i && strchr("._-", name[i]))))
			continue;
		snprintf(err, NFSFAIR_ERR_LEN, "'%s': %s", q, NFSFAIR_NAME_RULE);
		return -EINVAL;
	}
	for (i = 0; i < sizeof(reserved_names) / sizeof(reserved_names[0]); i++) {
		if (strcmp(name, reserved_names[i]))
			continue;
		snprintf(err, NFSFAIR_ERR_LEN, "'%s' is a target, not a class name", name);
		return -EINVAL;
	}
	return 0;
}

/* The targets that are not a class, as written; their /N is the per-host mask. */
static const char *const target_words[] = {
	[NFSFAIR_TARGET_PER_HOST] = "per-host",
	[NFSFAIR_TARGET_PER_CLIENT] = "per-client",
};

int nfsfair_target_parse(const char *s, struct nfsfair_target *t, char *err)
{
	unsigned int k;
	uint64_t v;
	size_t n;

	memset(t, 0, sizeof(*t));
	for (k = NFSFAIR_TARGET_PER_HOST; k <= NFSFAIR_TARGET_PER_CLIENT; k++) {
		n = strlen(target_words[k]);
		if (strncmp(s, target_words[k], n) || (s[n] && s[n] != '/'))
			continue;
		t->kind = k;
		if (!s[n])
			return 0;
		if (nfsfair_uint_parse(s + n + 1, 128, &v) < 0 || v == 0) {
			snprintf(err, NFSFAIR_ERR_LEN, "'%s': %s takes a length from 1 to 128", s,
				 target_words[k]);
			return -EINVAL;
		}
		t->per_host_len = v;
		return 0;
	}
	if (nfsfair_class_name_check(s, err) < 0)
		return -EINVAL;
	t->kind = NFSFAIR_TARGET_CLASS;
	strcpy(t->class, s);
	return 0;
}

uint8_t nfsfair_target_per_host_len(const struct nfsfair_target *t, int family)
{
	return t->per_host_len ? t->per_host_len : nfsfair_family_bits(family);
}

/* A per-client target's bound on the clients one address's IDs make; 0 for other targets. */
uint32_t nfsfair_target_ids_per_host(const struct nfsfair_target *t)
{
	if (t->kind != NFSFAIR_TARGET_PER_CLIENT)
		return 0;
	return t->ids_per_host ? t->ids_per_host : NFSFAIR_IDS_PER_HOST_DEFAULT;
}

/* The whole address reads "per-host" or "per-client", as it is written. */
int nfsfair_target_format(const struct nfsfair_target *t, int family, char *buf, size_t size)
{
	int n;

	if (t->kind == NFSFAIR_TARGET_CLASS)
		n = snprintf(buf, size, "%s", t->class);
	else if (!t->per_host_len || t->per_host_len == nfsfair_family_bits(family))
		n = snprintf(buf, size, "%s", target_words[t->kind]);
	else
		n = snprintf(buf, size, "%s/%u", target_words[t->kind], t->per_host_len);
	return (size_t)n >= size ? -ENOSPC : 0;
}

/* What the kernel would refuse anyway, said before asking it. */
int nfsfair_rule_check(const struct nfsfair_rule *r, char *err)
{
	unsigned int bits = nfsfair_family_bits(r->prefix.family);
	char t[32];

	if (r->target.kind != NFSFAIR_TARGET_CLASS && r->target.per_host_len > bits) {
		snprintf(err, NFSFAIR_ERR_LEN, "'%s/%u' is past /%u for an %s prefix",
			 target_words[r->target.kind], r->target.per_host_len, bits,
			 r->prefix.family == AF_INET ? "IPv4" : "IPv6");
		return -EINVAL;
	}
	if (r->target.kind != NFSFAIR_TARGET_PER_CLIENT && r->target.ids_per_host) {
		nfsfair_target_format(&r->target, r->prefix.family, t, sizeof(t));
		snprintf(err, NFSFAIR_ERR_LEN, "--ids-per-host %u needs -j per-client[/N], not -j %s",
			 r->target.ids_per_host, t);
		return -EINVAL;
	}
	return 0;
}

/* --ids-per-host only when not the default: a table saved before it existed reads the same. */
int nfsfair_rule_format(const struct nfsfair_rule *r, char *buf, size_t size)
{
	char p[NFSFAIR_PREFIX_STRLEN], t[32], ids[32] = "", origin[16] = "";
	uint32_t n_ids = nfsfair_target_ids_per_host(&r->target);
	int n, ret;

	ret = nfsfair_prefix_format(&r->prefix, p, sizeof(p));
	if (ret < 0)
		return ret;
	ret = nfsfair_target_format(&r->target, r->prefix.family, t, sizeof(t));
	if (ret < 0)
		return ret;
	if (n_ids && n_ids != NFSFAIR_IDS_PER_HOST_DEFAULT)
		snprintf(ids, sizeof(ids), " --ids-per-host %u", n_ids);
	if (r->origin)
		snprintf(origin, sizeof(origin), " --origin %u", r->origin);
	n = snprintf(buf, size, "-s %s -j %s%s%s", p, t, ids, origin);
	return (size_t)n >= size ? -ENOSPC : 0;
}

bool nfsfair_rule_equal(const struct nfsfair_rule *a, const struct nfsfair_rule *b)
{
	int f = a->prefix.family;

	if (!nfsfair_prefix_equal(&a->prefix, &b->prefix) || a->target.kind != b->target.kind)
		return false;
	if (a->target.kind == NFSFAIR_TARGET_CLASS)
		return !strcmp(a->target.class, b->target.class);
	return nfsfair_target_per_host_len(&a->target, f) ==
	       nfsfair_target_per_host_len(&b->target, f) &&
	       nfsfair_target_ids_per_host(&a->target) == nfsfair_target_ids_per_host(&b->target);
}
