// SPDX-License-Identifier: GPL-2.0
/* What the verbs share: kernel errors, sources, positions, table dumps. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <netlink/msg.h>
#include <netlink/attr.h>

#include "ctl.h"

/* Which argument of ours the kernel's complaint is about. */
static void concerns(struct ctl *c, enum ctl_set set, char *buf, size_t size)
{
	int attr = nfsfair_nl_bad_attr(c->nl, NULL, NULL);

	buf[0] = '\0';
	if (attr < 0)
		return;
	if (set == SET_RULE) {
		switch (attr) {
		case NFSFAIR_A_RULE_ADDR4:
		case NFSFAIR_A_RULE_ADDR6:
		case NFSFAIR_A_RULE_PREFIX_LEN:
			snprintf(buf, size, " (-s %s)", c->source ? c->source : "");
			break;
		case NFSFAIR_A_RULE_CLASS:
		case NFSFAIR_A_RULE_PER_HOST_LEN:
		case NFSFAIR_A_RULE_PER_CLIENT:
			snprintf(buf, size, " (-j %s)", c->target_text ? c->target_text : "");
			break;
		case NFSFAIR_A_RULE_POSITION:
			snprintf(buf, size, " (%s %s)", ctl_verb(c), c->argc ? c->argv[0] : "");
			break;
		case NFSFAIR_A_RULE_ORIGIN:
			snprintf(buf, size, " (--origin %u)", c->origin);
			break;
		case NFSFAIR_A_RULE_IDS_PER_HOST:
			snprintf(buf, size, " (--ids-per-host %u)",
				 nfsfair_target_ids_per_host(&c->target));
			break;
		}
	} else if (set == SET_CLASS) {
		if (attr == NFSFAIR_A_CLASS_NAME)
			snprintf(buf, size, " (%s %s)", ctl_verb(c), c->argc ? c->argv[0] : "");
		else if (attr == NFSFAIR_A_CLASS_WEIGHT)
			snprintf(buf, size, " (--weight %u)", c->weight);
		else if (attr == NFSFAIR_A_CLASS_LIMIT)
			snprintf(buf, size, " (--limit %u)", c->limit);
	}
}

int ctl_kernel_error(struct ctl *c, int err, enum ctl_set set)
{
	const char *msg = nfsfair_nl_extack(c->nl);
	char where[128];

	/* GENL_ADMIN_PERM refuses without a word: say what it wants. */
	if (err == -EPERM && !*msg)
		return ctl_error("%s needs CAP_NET_ADMIN (root): kernel reports: %s", ctl_verb(c),
				 strerror(EPERM));
	concerns(c, set, where, sizeof(where));
	return ctl_error("kernel reports: %s%s", *msg ? msg : strerror(-err), where);
}

/*
 * Whether CAP_NET_ADMIN is in our effective set. The family's edits are
 * GENL_ADMIN_PERM, which wants it in the initial user namespace: without
 * it here the kernel refuses for sure. When we cannot tell, it decides.
 */
bool ctl_net_admin(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = { 0 };

	if (syscall(SYS_capget, &hdr, data) < 0)
		return true;
	return data[CAP_TO_INDEX(CAP_NET_ADMIN)].effective & CAP_TO_MASK(CAP_NET_ADMIN);
}

/*
 * SOURCE as a prefix, or a hostname resolved once to all of its addresses,
 * IPv4 and IPv6, each its own /32 or /128. Returns 0, or an exit status.
 */
int ctl_resolve(const char *source, struct nfsfair_prefix **out, int *n, bool quiet)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res, *ai;
	struct nfsfair_prefix *v = NULL, p;
	char err[NFSFAIR_ERR_LEN], a[INET6_ADDRSTRLEN];
	int count = 0, i, ret;
	bool parsed;

	parsed = nfsfair_prefix_parse(source, &p, err) == 0;
	if (parsed || strchr(source, '/') || strchr(source, ':') ||
	    strspn(source, "0123456789.") == strlen(source)) {
		if (!parsed)
			return ctl_usage_error(NULL, "-s %s", err);
		*out = malloc(sizeof(p));
		if (!*out)
			return ctl_error("out of memory");
		**out = p;
		*n = 1;
		return 0;
	}
	ret = getaddrinfo(source, NULL, &hints, &res);
	if (ret)
		return ctl_error("-s '%s': %s", source,
				 ret == EAI_SYSTEM ? strerror(errno) : gai_strerror(ret));
	for (ai = res; ai; ai = ai->ai_next) {
		memset(&p, 0, sizeof(p));
		p.family = ai->ai_family;
		if (p.family == AF_INET)
			memcpy(p.addr, &((struct sockaddr_in *)ai->ai_addr)->sin_addr, 4);
		else if (p.family == AF_INET6)
			memcpy(p.addr, &((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr, 16);
		else
			continue;
		p.len = nfsfair_family_bits(p.family);
		for (i = 0; i < count && !nfsfair_prefix_equal(&v[i], &p); i++)
			;
		if (i < count)
			continue;
		v = realloc(v, (count + 1) * sizeof(*v));
		if (!v) {
			freeaddrinfo(res);
			return ctl_error("out of memory");
		}
		v[count++] = p;
	}
	freeaddrinfo(res);
	if (!count)
		return ctl_error("-s '%s': no IPv4 or IPv6 address", source);
	if (!quiet) {
		fprintf(stderr, "%s: '%s' resolved to %d address%s: ", ctl_prog, source, count,
			count == 1 ? "" : "es");
		for (i = 0; i < count; i++) {
			nfsfair_addr_format(v[i].family, v[i].addr, a, sizeof(a));
			fprintf(stderr, "%s%s", i ? ", " : "", a);
		}
		fputc('\n', stderr);
	}
	*out = v;
	*n = count;
	return 0;
}

int ctl_position(struct ctl *c, const char *s, uint32_t *pos)
{
	uint64_t v;

	if (nfsfair_uint_parse(s, UINT32_MAX, &v) < 0 || v == 0)
		return ctl_usage_error(c, "%s '%s': a position is a number from 1", ctl_verb(c), s);
	*pos = v;
	return 0;
}

/* The whole table, in order. Returns 0 or an exit status. */
int ctl_rules_dump(struct ctl *c, struct ctl_rules *rules)
{
	int ret = ctl_nl(c);

	rules->v = NULL;
	rules->n = 0;
	if (ret)
		return ret;
	ret = nfsfair_read_rules(c->nl, &rules->v, &rules->n);
	return ret < 0 ? ctl_kernel_error(c, ret, SET_RULE) : 0;
}

/* Every class with its counters. Returns 0 or an exit status. */
int ctl_classes_dump(struct ctl *c, struct ctl_classes *cl)
{
	int ret = ctl_nl(c);

	cl->v = NULL;
	cl->n = 0;
	if (ret)
		return ret;
	ret = nfsfair_read_classes(c->nl, &cl->v, &cl->n);
	return ret < 0 ? ctl_kernel_error(c, ret, SET_CLASS) : 0;
}

const struct nfsfair_class *ctl_class_find(const struct ctl_classes *cl, const char *name)
{
	int i;

	for (i = 0; i < cl->n; i++)
		if (!strcmp(cl->v[i].name, name))
			return &cl->v[i];
	return NULL;
}

/* A class's limit, or "-" for none in the text (NONE_FMT); 0 in JSON. */
void ctl_print_limit(uint32_t limit, const char *fmt, const char *none_fmt)
{
	if (limit) {
		print_uint(PRINT_ANY, "limit", fmt, limit);
	} else {
		print_uint(PRINT_JSON, "limit", NULL, 0);
		print_string(PRINT_FP, NULL, none_fmt, "-");
	}
}
