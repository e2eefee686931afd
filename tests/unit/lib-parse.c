// SPDX-License-Identifier: GPL-2.0
/* Unit tests of libnfsfair's parsers, natively, as TAP. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <netlink/msg.h>
#include <netlink/attr.h>

#include "../../lib/nfsfair.h"

static int count, failures;

static void ok(int cond, const char *fmt, const char *arg)
{
	count++;
	printf("%s %d - ", cond ? "ok" : "not ok", count);
	printf(fmt, arg);
	putchar('\n');
	if (!cond)
		failures++;
}

static const struct {
	const char *in;
	const char *out;	/* canonical text, or the error message */
	int family;
} prefixes[] = {
	{ "192.0.2.0/24", "192.0.2.0/24", AF_INET },
	{ "192.0.2.7", "192.0.2.7/32", AF_INET },
	{ "0.0.0.0/0", "0.0.0.0/0", AF_INET },
	{ "10.1.2.3/32", "10.1.2.3/32", AF_INET },
	{ "2001:db8::/32", "2001:db8::/32", AF_INET6 },
	{ "::1", "::1/128", AF_INET6 },
	{ "::/0", "::/0", AF_INET6 },
	{ "fe80::1/128", "fe80::1/128", AF_INET6 },
	{ "10.0.0.1/8", "'10.0.0.1/8': host bits set past /8", 0 },
	{ "10.0.0.0/33", "'10.0.0.0/33': prefix length 33 is past /32", 0 },
	{ "::/129", "'::/129': prefix length 129 is past /128", 0 },
	{ "2001:db8::1/64", "'2001:db8::1/64': host bits set past /64", 0 },
	{ "10.0.0.0/", "'10.0.0.0/': '' is not a prefix length", 0 },
	{ "10.0.0.0/x", "'10.0.0.0/x': 'x' is not a prefix length", 0 },
	{ "10.0.0.0/-1", "'10.0.0.0/-1': '-1' is not a prefix length", 0 },
	{ "10.0.0.0/ 8", "'10.0.0.0/ 8': ' 8' is not a prefix length", 0 },
	{ "/33", "'/33': not an IPv4 or IPv6 address", 0 },
	{ "1.2.3", "'1.2.3': not an IPv4 or IPv6 address", 0 },
	{ "256.0.0.0/8", "'256.0.0.0/8': not an IPv4 or IPv6 address", 0 },
	{ "host.example", "'host.example': not an IPv4 or IPv6 address", 0 },
	{ "", "'': not an IPv4 or IPv6 address", 0 },
};

static void test_prefixes(void)
{
	char err[NFSFAIR_ERR_LEN], buf[NFSFAIR_PREFIX_STRLEN], desc[256];
	struct nfsfair_prefix p;
	unsigned int i;
	int ret;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		err[0] = buf[0] = '\0';
		ret = nfsfair_prefix_parse(prefixes[i].in, &p, err);
		if (!ret)
			nfsfair_prefix_format(&p, buf, sizeof(buf));
		if (prefixes[i].family) {
			snprintf(desc, sizeof(desc), "prefix '%s' -> %s", prefixes[i].in,
				 prefixes[i].out);
			ok(!ret && p.family == prefixes[i].family &&
			   !strcmp(buf, prefixes[i].out), "%s", desc);
		} else {
			snprintf(desc, sizeof(desc), "prefix '%s' refused: %s", prefixes[i].in,
				 prefixes[i].out);
			ok(ret < 0 && !strcmp(err, prefixes[i].out), "%s", desc);
			if (ret == 0 || strcmp(err, prefixes[i].out))
				printf("# got: %s\n", ret ? err : buf);
		}
	}
}

static void test_contains(void)
{
	struct nfsfair_prefix p, a;
	char err[NFSFAIR_ERR_LEN];

	nfsfair_prefix_parse("127.0.0.0/8", &p, err);
	nfsfair_prefix_parse("127.0.0.3", &a, err);
	ok(nfsfair_prefix_contains(&p, a.family, a.addr), "%s", "127.0.0.0/8 contains 127.0.0.3");
	nfsfair_prefix_parse("128.0.0.3", &a, err);
	ok(!nfsfair_prefix_contains(&p, a.family, a.addr), "%s",
	   "127.0.0.0/8 does not contain 128.0.0.3");
	nfsfair_prefix_parse("::1", &a, err);
	ok(!nfsfair_prefix_contains(&p, a.family, a.addr), "%s",
	   "127.0.0.0/8 does not contain ::1");
	nfsfair_prefix_parse("0.0.0.0/0", &p, err);
	nfsfair_prefix_parse("203.0.113.9", &a, err);
	ok(nfsfair_prefix_contains(&p, a.family, a.addr), "%s", "0.0.0.0/0 contains anything v4");
}

#define NAME_RULES NFSFAIR_NAME_RULE

static const struct {
	const char *in;
	const char *err;	/* NULL: parses */
} targets[] = {
	{ "movers", NULL }, { "per-host", NULL }, { "per-host/64", NULL }, { "per-host/1", NULL },
	{ "a15-bytes-name1", NULL }, { "per-client", NULL }, { "per-client/64", NULL },
	{ "per-client/1", NULL }, { "per-client/128", NULL },
	{ "per-host/0", "'per-host/0': per-host takes a length from 1 to 128" },
	{ "per-host/129", "'per-host/129': per-host takes a length from 1 to 128" },
	{ "per-host/", "'per-host/': per-host takes a length from 1 to 128" },
	{ "per-host/x", "'per-host/x': per-host takes a length from 1 to 128" },
	{ "", "'': a class name is 1 to 15 bytes" },
	{ "a-name-too-long-x", "'a-name-too-long-x': a class name is 1 to 15 bytes" },
	{ "-movers", "'-movers': " NAME_RULES },
	{ "a/b", "'a/b': " NAME_RULES },
	{ "per-hostile", NULL },	/* the kernel's rule: only the keywords themselves */
	{ "per-client/0", "'per-client/0': per-client takes a length from 1 to 128" },
	{ "per-client/129", "'per-client/129': per-client takes a length from 1 to 128" },
	{ "per-client/", "'per-client/': per-client takes a length from 1 to 128" },
	{ "per-client/-8", "'per-client/-8': per-client takes a length from 1 to 128" },
	{ "per-client/24x", "'per-client/24x': per-client takes a length from 1 to 128" },
	{ "per-clients", NULL },
	{ "per-client-x", NULL },
	{ "Per-client", NULL },	/* exact keywords: any other spelling is a class name */
	/* issue 10: names that could not be restored, or inject save lines */
	{ "a b", "'a b': " NAME_RULES },
	{ "x\n-F", "'x\\x0a-F': " NAME_RULES },
	{ "a#b", "'a#b': " NAME_RULES },
	{ ".hidden", "'.hidden': " NAME_RULES },
	{ "_x", "'_x': " NAME_RULES },
	{ "caf\xc3\xa9", "'caf\\xc3\\xa9': " NAME_RULES },
	{ "a\"b", "'a\\x22b': " NAME_RULES },
	{ "default", "'default' is a target, not a class name" },
	{ "overflow", "'overflow' is a target, not a class name" },
	{ "9lives", NULL }, { "a.b_c-d", NULL }, { "Default", NULL },
};

static void test_targets(void)
{
	char err[NFSFAIR_ERR_LEN], desc[256], in[128];
	struct nfsfair_target t;
	unsigned int i;
	int ret;

	for (i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
		err[0] = '\0';
		ret = nfsfair_target_parse(targets[i].in, &t, err);
		/* odd bytes as \xNN, so that a newline cannot break the TAP line */
		output_fmt_owner((const uint8_t *)targets[i].in, strlen(targets[i].in), in,
				 sizeof(in));
		snprintf(desc, sizeof(desc), "target '%s' %s%s", in,
			 targets[i].err ? "refused: " : "parses",
			 targets[i].err ? targets[i].err : "");
		ok(targets[i].err ? ret < 0 && !strcmp(err, targets[i].err) : ret == 0, "%s", desc);
		if (targets[i].err && strcmp(err, targets[i].err))
			printf("# got: %s\n", err);
	}
	nfsfair_target_parse("per-client/24", &t, err);
	ok(t.kind == NFSFAIR_TARGET_PER_CLIENT && t.per_host_len == 24, "%s",
	   "per-client/24: kind per-client, per-host mask 24");
	nfsfair_target_parse("per-client", &t, err);
	ok(t.kind == NFSFAIR_TARGET_PER_CLIENT && nfsfair_target_per_host_len(&t, AF_INET) == 32 &&
	   nfsfair_target_per_host_len(&t, AF_INET6) == 128, "%s",
	   "per-client: the mask defaults to the whole address, /32 or /128");
	nfsfair_target_parse("Per-client", &t, err);
	ok(t.kind == NFSFAIR_TARGET_CLASS, "%s", "'Per-client' is a class name");
	ok(nfsfair_class_name_check("per-client", err) < 0 &&
	   nfsfair_class_name_check("per-host", err) < 0 &&
	   nfsfair_class_name_check("per-clientele", err) == 0, "%s",
	   "the keywords per-client and per-host are not class names; longer words are");
	ok(nfsfair_class_name_check("per-host", err) < 0 &&
	   !strcmp(err, "'per-host' is a target, not a class name"), "%s",
	   "class name 'per-host': a target, as the kernel says");
}

static const char *const rules[] = {
	"-s 192.0.2.0/24 -j movers",
	"-s 10.0.0.0/8 -j per-host",
	"-s 10.0.0.0/8 -j per-host/24",
	"-s 2001:db8::/32 -j per-host/64",
	"-s ::1/128 -j interactive --origin 7",
	"-s 0.0.0.0/0 -j per-host --origin 255",
	"-s 127.0.0.0/8 -j per-client",
	"-s 10.0.0.0/8 -j per-client/24",
	"-s 2001:db8::/32 -j per-client/64 --origin 9",
	"-s ::/0 -j per-client",
	"-s 127.0.0.0/8 -j per-client --ids-per-host 2",
	"-s 10.0.0.0/8 -j per-client/24 --ids-per-host 4096 --origin 9",
	"-s ::/0 -j per-client/64 --ids-per-host 1",
};

/* format(parse(x)) == x, through the save format's -A line. */
static void test_round_trip(void)
{
	char err[NFSFAIR_ERR_LEN], line[256], out[NFSFAIR_RULE_STRLEN];
	struct nfsfair_line l;
	unsigned int i;
	int ret;

	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		snprintf(line, sizeof(line), "-A %s\n", rules[i]);
		ret = nfsfair_line_parse(line, &l, err);
		out[0] = '\0';
		if (!ret)
			nfsfair_rule_format(&l.rule, out, sizeof(out));
		ok(!ret && l.kind == NFSFAIR_LINE_RULE && !strcmp(out, rules[i]),
		   "round trip '%s'", rules[i]);
	}
}

static const struct {
	const char *line;
	const char *err;	/* NULL: parses */
} lines[] = {
	{ "-N movers --weight 2", NULL },
	{ "-N movers", NULL },
	{ "   # a comment", NULL },
	{ "", NULL },
	{ "-A -s 10.0.0.0/8 -j movers # trailing comment", NULL },
	{ "-N movers --weight 0", "'0': a weight is 1 to 1000" },
	{ "-N movers --weight 1001", "'1001': a weight is 1 to 1000" },
	{ "-N", "-N needs a class name" },
	{ "-N movers --limit 2", NULL },
	{ "-N movers --limit 0 --weight 3", NULL },
	{ "-N movers --limit 8192", NULL },
	{ "-N movers --limit 8193", "'8193': a limit is 0 to 8192" },
	{ "-N movers --limit -1", "'-1': a limit is 0 to 8192" },
	{ "-N movers --limit four", "'four': a limit is 0 to 8192" },
	{ "-N movers --weight 2 --limit", "--limit needs a value" },
	{ "-N movers --limits 2", "-N does not take '--limits'" },
	{ "-A -s 10.0.0.1/8 -j movers", "'10.0.0.1/8': host bits set past /8" },
	{ "-A -s 10.0.0.0/8", "-A needs -j TARGET" },
	{ "-A -j movers", "-A needs -s PREFIX" },
	{ "-A -s 10.0.0.0/8 -j per-host/64", "'per-host/64' is past /32 for an IPv4 prefix" },
	{ "-A -s 10.0.0.0/8 -j per-client/33", "'per-client/33' is past /32 for an IPv4 prefix" },
	{ "-A -s 10.0.0.0/8 -j per-client/",
	  "'per-client/': per-client takes a length from 1 to 128" },
	{ "-A -s 10.0.0.0/8 -j per-client-x", NULL },
	{ "-N default", "'default' is a target, not a class name" },
	{ "-N per-client --weight 2", "'per-client' is a target, not a class name" },
	{ "-A -s 10.0.0.0/8 -j overflow", "'overflow' is a target, not a class name" },
	{ "-N .x", "'.x': " NAME_RULES },
	{ "-A -s 10.0.0.0/8 -j a\x01" "b", "'a\\x01b': " NAME_RULES },
	{ "-A -s ::/0 -j per-client/128 --origin 3", NULL },
	{ "-A -s 10.0.0.0/8 -j movers --origin 256", "'256': an origin is 0 to 255" },
	{ "-A -s localhost -j movers", "'localhost': not an IPv4 or IPv6 address" },
	{ "-I -s 10.0.0.0/8 -j movers", "'-I': a line is '-N NAME [--weight W] [--limit N]' or "
	  "'-A -s PREFIX -j TARGET [--ids-per-host N] [--origin O]'" },
	/* ids-per-host: a per-client rule's, 1 to 4096, before or after -j */
	{ "-A -s 127.0.0.0/8 -j per-client --ids-per-host 2", NULL },
	{ "-A -s 127.0.0.0/8 --ids-per-host 4096 -j per-client/24 --origin 3", NULL },
	{ "-A -s 127.0.0.0/8 -j per-client --ids-per-host 1", NULL },
	{ "-A -s 127.0.0.0/8 -j per-client --ids-per-host 0", "'0': ids-per-host is 1 to 4096" },
	{ "-A -s 127.0.0.0/8 -j per-client --ids-per-host 4097",
	  "'4097': ids-per-host is 1 to 4096" },
	{ "-A -s 127.0.0.0/8 -j per-client --ids-per-host -2", "'-2': ids-per-host is 1 to 4096" },
	{ "-A -s 127.0.0.0/8 -j per-client --ids-per-host two",
	  "'two': ids-per-host is 1 to 4096" },
	{ "-A -s 127.0.0.0/8 -j per-client --ids-per-host", "--ids-per-host needs a value" },
	{ "-A -s 127.0.0.0/8 -j per-host --ids-per-host 2",
	  "--ids-per-host 2 needs -j per-client[/N], not -j per-host" },
	{ "-A -s 127.0.0.0/8 --ids-per-host 8 -j per-host/24",
	  "--ids-per-host 8 needs -j per-client[/N], not -j per-host/24" },
	{ "-A -s 127.0.0.0/8 -j movers --ids-per-host 2",
	  "--ids-per-host 2 needs -j per-client[/N], not -j movers" },
	{ "-A -s 127.0.0.0/8 -j per-client --ids-per-hosts 2", "-A does not take '--ids-per-hosts'" },
};

static void test_lines(void)
{
	char err[NFSFAIR_ERR_LEN], desc[256], in[128];
	struct nfsfair_line l;
	unsigned int i;
	int ret;

	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		err[0] = '\0';
		ret = nfsfair_line_parse(lines[i].line, &l, err);
		output_fmt_owner((const uint8_t *)lines[i].line, strlen(lines[i].line), in,
				 sizeof(in));
		snprintf(desc, sizeof(desc), "save line '%s': %s", in,
			 lines[i].err ? lines[i].err : "good");
		ok(lines[i].err ? ret < 0 && !strcmp(err, lines[i].err) : ret == 0, "%s", desc);
		if (lines[i].err && strcmp(err, lines[i].err))
			printf("# got: %s\n", err);
	}
	nfsfair_line_parse("-N movers --weight 7", &l, err);
	ok(l.kind == NFSFAIR_LINE_CLASS && !strcmp(l.class, "movers") && l.weight == 7, "%s",
	   "-N movers --weight 7: name and weight");
	nfsfair_line_parse("-N movers", &l, err);
	ok(l.weight == 1, "%s", "-N without --weight: weight 1");
	ok(l.limit == 0, "%s", "-N without --limit: no limit (0)");
	nfsfair_line_parse("-N bulk --limit 4 --weight 2", &l, err);
	ok(l.kind == NFSFAIR_LINE_CLASS && l.limit == 4 && l.weight == 2, "%s",
	   "-N bulk --limit 4 --weight 2: limit 4, weight 2, in either order");
}

/* A class's attributes: the limit only when asked, so an old kernel is not sent one. */
static void test_class_attrs(void)
{
	struct nlattr *tb[NFSFAIR_A_CLASS_MAX + 1];
	struct nl_msg *msg;
	int ret, pass;

	for (pass = 0; pass < 3; pass++) {
		msg = nlmsg_alloc();
		ret = msg ? nfsfair_nla_put_class(msg, "bulk", 3, pass == 2 ? 0 : 4, pass) : -1;
		if (!ret)
			ret = nla_parse(tb, NFSFAIR_A_CLASS_MAX, nlmsg_attrdata(nlmsg_hdr(msg), 0),
					nlmsg_attrlen(nlmsg_hdr(msg), 0), NULL);
		ok(!ret && !strcmp(nla_get_string(tb[NFSFAIR_A_CLASS_NAME]), "bulk") &&
		   nla_get_u32(tb[NFSFAIR_A_CLASS_WEIGHT]) == 3 &&
		   (pass ? tb[NFSFAIR_A_CLASS_LIMIT] &&
			   nla_get_u32(tb[NFSFAIR_A_CLASS_LIMIT]) == (pass == 2 ? 0u : 4u) :
			   !tb[NFSFAIR_A_CLASS_LIMIT]), "%s",
		   pass == 0 ? "class attributes: limit left out when not asked for" :
		   pass == 1 ? "class attributes: limit 4 sent" :
			       "class attributes: limit 0 sent, to clear one");
		nlmsg_free(msg);
	}
}

/* The text each rule reads as, and which pairs are the same rule. */
static void test_canonical(void)
{
	char err[NFSFAIR_ERR_LEN], out[NFSFAIR_RULE_STRLEN];
	struct nfsfair_line a, b, c, d;

	nfsfair_line_parse("-A -s 127.0.0.0/8 -j per-client/32", &a, err);
	nfsfair_rule_format(&a.rule, out, sizeof(out));
	ok(!strcmp(out, "-s 127.0.0.0/8 -j per-client"), "%s",
	   "per-client/32 on IPv4 reads as per-client");
	nfsfair_line_parse("-A -s 127.0.0.0/8 -j per-client", &b, err);
	nfsfair_line_parse("-A -s 127.0.0.0/8 -j per-host", &c, err);
	nfsfair_line_parse("-A -s 127.0.0.0/8 -j per-client/24", &d, err);
	ok(nfsfair_rule_equal(&a.rule, &b.rule), "%s", "per-client/32 equals per-client on IPv4");
	ok(!nfsfair_rule_equal(&b.rule, &c.rule) && !nfsfair_rule_equal(&c.rule, &b.rule), "%s",
	   "per-client is not per-host");
	ok(!nfsfair_rule_equal(&b.rule, &d.rule), "%s", "per-client is not per-client/24");
}

/* ids-per-host: part of a per-client rule, written only when not the default. */
static void test_ids_per_host(void)
{
	char err[NFSFAIR_ERR_LEN], out[NFSFAIR_RULE_STRLEN];
	struct nfsfair_line a, b, c, d;
	struct nfsfair_rule r;

	nfsfair_line_parse("-A -s 127.0.0.0/8 -j per-client", &a, err);
	nfsfair_line_parse("-A -s 127.0.0.0/8 -j per-client --ids-per-host 4", &b, err);
	nfsfair_line_parse("-A -s 127.0.0.0/8 -j per-client --ids-per-host 8", &c, err);
	nfsfair_line_parse("-A -s 127.0.0.0/8 -j per-client --ids-per-host 2", &d, err);
	ok(nfsfair_target_ids_per_host(&a.rule.target) == NFSFAIR_IDS_PER_HOST_DEFAULT, "%s",
	   "per-client without --ids-per-host: the default, 4");
	nfsfair_rule_format(&b.rule, out, sizeof(out));
	ok(!strcmp(out, "-s 127.0.0.0/8 -j per-client"), "%s",
	   "--ids-per-host 4 (the default) is not written");
	ok(nfsfair_rule_equal(&a.rule, &b.rule), "%s",
	   "per-client equals per-client --ids-per-host 4");
	ok(!nfsfair_rule_equal(&a.rule, &c.rule) && !nfsfair_rule_equal(&c.rule, &a.rule), "%s",
	   "per-client is not per-client --ids-per-host 8");
	ok(!nfsfair_rule_equal(&c.rule, &d.rule), "%s",
	   "per-client --ids-per-host 8 is not per-client --ids-per-host 2");
	nfsfair_line_parse("-A -s 127.0.0.0/8 -j per-host", &a, err);
	ok(nfsfair_target_ids_per_host(&a.rule.target) == 0, "%s",
	   "per-host has no ids-per-host (0)");
	/* Made by hand, as nfsfaird makes its rules: checked before the kernel is asked. */
	r = a.rule;
	r.target.ids_per_host = 3;
	ok(nfsfair_rule_check(&r, err) < 0 &&
	   !strcmp(err, "--ids-per-host 3 needs -j per-client[/N], not -j per-host"), "%s",
	   "rule check: ids-per-host on a per-host rule refused");
	r.target.kind = NFSFAIR_TARGET_PER_CLIENT;
	ok(nfsfair_rule_check(&r, err) == 0, "%s", "rule check: ids-per-host 3 on per-client");
}

/* A rule's attributes, parsed back into @tb; 0 or -1. */
static int rule_attrs(const char *text, struct nlattr **tb, struct nl_msg **msg)
{
	char err[NFSFAIR_ERR_LEN];
	struct nfsfair_line l;

	*msg = nlmsg_alloc();
	if (!*msg || nfsfair_line_parse(text, &l, err) < 0 ||
	    nfsfair_nla_put_rule(*msg, &l.rule, true) < 0)
		return -1;
	return nla_parse(tb, NFSFAIR_A_RULE_MAX, nlmsg_attrdata(nlmsg_hdr(*msg), 0),
			 nlmsg_attrlen(nlmsg_hdr(*msg), 0), NULL) < 0 ? -1 : 0;
}

/*
 * ids-per-host goes only when it is not the default (the kernel's for
 * none), so a kernel without it still takes every rule that does not
 * use it; a dump carries it always, and the default reads as the default.
 */
static void test_netlink_ids(void)
{
	static const struct {
		const char *text;
		uint32_t attr;		/* the attribute's value; 0: left out */
	} attrs[] = {
		{ "-A -s 127.0.0.0/8 -j per-client --ids-per-host 2", 2 },
		{ "-A -s 127.0.0.0/8 -j per-client --ids-per-host 4096", 4096 },
		{ "-A -s 127.0.0.0/8 -j per-client --ids-per-host 1", 1 },
		{ "-A -s 127.0.0.0/8 -j per-client", 0 },
		{ "-A -s 127.0.0.0/8 -j per-client --ids-per-host 4", 0 },
		{ "-A -s 127.0.0.0/8 -j per-host", 0 },
		{ "-A -s 127.0.0.0/8 -j movers", 0 },
	};
	struct nlattr *tb[NFSFAIR_A_RULE_MAX + 1];
	struct nfsfair_rule back, want;
	char err[NFSFAIR_ERR_LEN], desc[160];
	struct nfsfair_line l;
	struct nl_msg *msg;
	struct nlattr *a;
	unsigned int i;
	int ret;
	bool good;

	for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		ret = rule_attrs(attrs[i].text, tb, &msg);
		a = ret ? NULL : tb[NFSFAIR_A_RULE_IDS_PER_HOST];
		if (attrs[i].attr)
			good = a && nla_len(a) == 4 && nla_get_u32(a) == attrs[i].attr;
		else
			good = !ret && !a;
		snprintf(desc, sizeof(desc), "netlink '%s': ids-per-host %s", attrs[i].text + 3,
			 attrs[i].attr ? "sent" : "left out");
		ok(good, "%s", desc);
		nlmsg_free(msg);
	}
	/* A dump's rule: the kernel gives the default, 4, as it gives any value. */
	msg = nlmsg_alloc();
	nfsfair_line_parse("-A -s 127.0.0.0/8 -j per-client/24", &l, err);
	want = l.rule;
	ret = msg ? nfsfair_nla_put_rule(msg, &l.rule, true) : -1;
	if (!ret)
		ret = nla_put_u32(msg, NFSFAIR_A_RULE_IDS_PER_HOST, NFSFAIR_IDS_PER_HOST_DEFAULT);
	if (!ret)
		ret = nla_parse(tb, NFSFAIR_A_RULE_MAX, nlmsg_attrdata(nlmsg_hdr(msg), 0),
				nlmsg_attrlen(nlmsg_hdr(msg), 0), NULL);
	if (!ret)
		ret = nfsfair_nla_get_rule(tb, &back);
	ok(!ret && back.target.ids_per_host == NFSFAIR_IDS_PER_HOST_DEFAULT &&
	   nfsfair_rule_equal(&back, &want), "%s",
	   "netlink: a dump's ids-per-host 4 decodes, equal to a rule given none");
	nlmsg_free(msg);
	ret = rule_attrs("-A -s 127.0.0.0/8 -j per-client/24 --ids-per-host 9", tb, &msg);
	if (!ret)
		ret = nfsfair_nla_get_rule(tb, &back);
	ok(!ret && nfsfair_target_ids_per_host(&back.target) == 9, "%s",
	   "netlink: ids-per-host 9 decodes as 9");
	nlmsg_free(msg);
}

/*
 * The family's integers are uint: sent as 4 bytes (the kernel takes 4 or
 * 8, no longer the 1 of a u8), and read back from 4 or 8.
 */
static void test_netlink_uint(void)
{
	static const int sent[] = { NFSFAIR_A_RULE_PREFIX_LEN, NFSFAIR_A_RULE_PER_HOST_LEN,
				    NFSFAIR_A_RULE_ORIGIN };
	static const uint8_t db8[16] = { 0x20, 0x01, 0x0d, 0xb8 };	/* 2001:db8::/32 */
	struct nlattr *tb[NFSFAIR_A_RULE_MAX + 1];
	struct nfsfair_rule back;
	struct nl_msg *msg;
	unsigned int i;
	bool good;
	int ret;

	ret = rule_attrs("-A -s 10.0.0.0/8 -j per-host/24 --origin 200", tb, &msg);
	good = !ret;
	for (i = 0; good && i < sizeof(sent) / sizeof(sent[0]); i++)
		good = tb[sent[i]] && nla_len(tb[sent[i]]) == 4;
	ok(good && nla_get_u32(tb[NFSFAIR_A_RULE_PREFIX_LEN]) == 8 &&
	   nla_get_u32(tb[NFSFAIR_A_RULE_PER_HOST_LEN]) == 24 &&
	   nla_get_u32(tb[NFSFAIR_A_RULE_ORIGIN]) == 200, "%s",
	   "netlink: prefix-len, per-host-len and origin go out as 4-byte uints");
	nlmsg_free(msg);

	msg = nlmsg_alloc();
	ret = msg ? nla_put(msg, NFSFAIR_A_RULE_ADDR6, sizeof(db8), db8) : -1;
	if (!ret)
		ret = nla_put_u64(msg, NFSFAIR_A_RULE_PREFIX_LEN, 32);
	if (!ret)
		ret = nla_put_u64(msg, NFSFAIR_A_RULE_PER_HOST_LEN, 64);
	if (!ret)
		ret = nla_put_u64(msg, NFSFAIR_A_RULE_ORIGIN, 7);
	if (!ret)
		ret = nla_put_u64(msg, NFSFAIR_A_RULE_POSITION, 3);
	if (!ret)
		ret = nla_parse(tb, NFSFAIR_A_RULE_MAX, nlmsg_attrdata(nlmsg_hdr(msg), 0),
				nlmsg_attrlen(nlmsg_hdr(msg), 0), NULL);
	if (!ret)
		ret = nfsfair_nla_get_rule(tb, &back);
	ok(!ret && back.prefix.family == AF_INET6 && back.prefix.len == 32 &&
	   back.target.kind == NFSFAIR_TARGET_PER_HOST && back.target.per_host_len == 64 &&
	   back.origin == 7 && back.position == 3, "%s",
	   "netlink: a rule whose integers come as 8 bytes decodes the same");
	nlmsg_free(msg);
}

/* Through the rule attribute set and back, the way the kernel sees it. */
static void test_netlink(void)
{
	static const char *const texts[] = {
		"-A -s 127.0.0.0/8 -j per-client --origin 4", "-A -s 10.0.0.0/8 -j per-client/24",
		"-A -s 10.0.0.0/8 -j per-host/24", "-A -s 2001:db8::/32 -j movers",
		"-A -s 127.0.0.0/8 -j per-client --ids-per-host 2",
		"-A -s ::/0 -j per-client/64 --ids-per-host 4096 --origin 4",
	};
	struct nlattr *tb[NFSFAIR_A_RULE_MAX + 1];
	char err[NFSFAIR_ERR_LEN], desc[128];
	struct nfsfair_rule back;
	struct nfsfair_line l;
	struct nl_msg *msg;
	unsigned int i;
	int ret;

	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		nfsfair_line_parse(texts[i], &l, err);
		msg = nlmsg_alloc();
		ret = msg ? nfsfair_nla_put_rule(msg, &l.rule, true) : -1;
		if (!ret)
			ret = nla_parse(tb, NFSFAIR_A_RULE_MAX, nlmsg_attrdata(nlmsg_hdr(msg), 0),
					nlmsg_attrlen(nlmsg_hdr(msg), 0), NULL);
		if (!ret)
			ret = nfsfair_nla_get_rule(tb, &back);
		snprintf(desc, sizeof(desc), "netlink '%s': per-client flag %s, decodes the same",
			 texts[i] + 3, strstr(texts[i], "per-client") ? "set" : "absent");
		ok(!ret && !tb[NFSFAIR_A_RULE_PER_CLIENT] == !strstr(texts[i], "per-client") &&
		   (l.rule.target.kind == NFSFAIR_TARGET_CLASS ||
		    tb[NFSFAIR_A_RULE_PER_HOST_LEN]) &&
		   nfsfair_rule_equal(&l.rule, &back) && back.origin == l.rule.origin, "%s", desc);
		nlmsg_free(msg);
	}
	test_netlink_ids();
	test_netlink_uint();
}

static void test_owner(void)
{
	static const uint8_t odd[] = { 'a', '"', 'b', '\\', 0, 0x1f, 0x7f, 0xc3, 0xa9 };
	const char *plain = "Linux NFSv4.1 nfsfair-guest";
	char buf[NFSFAIR_OWNER_STRLEN], small[8];

	output_fmt_owner((const uint8_t *)plain, strlen(plain), buf, sizeof(buf));
	ok(!strcmp(buf, plain), "owner '%s' printed as it is", plain);
	output_fmt_owner(odd, sizeof(odd), buf, sizeof(buf));
	ok(!strcmp(buf, "a\\x22b\\x5c\\x00\\x1f\\x7f\\xc3\\xa9"), "%s",
	   "owner: '\"', '\\', control and non-ASCII bytes as \\xNN");
	output_fmt_owner(odd, sizeof(odd), small, sizeof(small));
	ok(!strcmp(small, "a\\x22b"), "%s",
	   "owner: cut at a whole escape when the buffer is short");
	memset(buf, 0xff, sizeof(buf));
	output_fmt_owner(odd, 0, buf, sizeof(buf));
	ok(buf[0] == '\0', "%s", "owner: empty");
}

static void test_counts(void)
{
	char buf[32];

	output_fmt_count(99999, false, buf, sizeof(buf));
	ok(!strcmp(buf, "99999"), "%s", "count 99999 stays exact");
	output_fmt_count(123456, false, buf, sizeof(buf));
	ok(!strcmp(buf, "123K"), "%s", "count 123456 -> 123K");
	output_fmt_count(123456789, false, buf, sizeof(buf));
	ok(!strcmp(buf, "123M"), "%s", "count 123456789 -> 123M");
	output_fmt_count(123456789, true, buf, sizeof(buf));
	ok(!strcmp(buf, "123456789"), "%s", "-x: 123456789 exact");
}

/* Three significant digits, in the unit that keeps them under 1000. */
static void test_times(void)
{
	static const struct {
		uint64_t ns;
		const char *text;
	} times[] = {
		{ 0, "0ns" }, { 999, "999ns" }, { 1000, "1.00us" }, { 1004, "1.00us" },
		{ 1005, "1.01us" }, { 9994, "9.99us" }, { 9995, "10.0us" }, { 12345, "12.3us" },
		{ 99949, "99.9us" }, { 99950, "100us" }, { 999499, "999us" },
		{ 999500, "1.00ms" }, { 1000000, "1.00ms" }, { 50000000, "50.0ms" },
		{ 480000000, "480ms" }, { 999500000, "1.00s" }, { 2000000000, "2.00s" },
		{ 999499999999, "999s" }, { 999500000000, "1000s" }, { 3600000000000, "3600s" },
		{ UINT64_MAX, "18446744074s" },
	};
	char buf[32], desc[64];
	unsigned int i;

	for (i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		output_fmt_ns(times[i].ns, buf, sizeof(buf));
		snprintf(desc, sizeof(desc), "%" PRIu64 " ns reads %s", times[i].ns, times[i].text);
		ok(!strcmp(buf, times[i].text), "%s", desc);
		if (strcmp(buf, times[i].text))
			printf("# got %s\n", buf);
	}
}

int main(void)
{
	test_prefixes();
	test_contains();
	test_targets();
	test_round_trip();
	test_lines();
	test_canonical();
	test_ids_per_host();
	test_netlink();
	test_class_attrs();
	test_owner();
	test_counts();
	test_times();
	printf("1..%d\n", count);
	return failures ? 1 : 0;
}
