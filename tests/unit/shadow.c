// SPDX-License-Identifier: GPL-2.0
/*
 * nfsfair_rules_shadowed(), natively, as TAP: hand cases, then thousands of
 * random tables against a naive reference, with prefixes crowded into a
 * small range so containment and tiling happen often.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "../../lib/nfsfair.h"

static int count, failures;

static void ok(int cond, const char *desc)
{
	count++;
	printf("%s %d - %s\n", cond ? "ok" : "not ok", count, desc);
	if (!cond)
		failures++;
}

/* Does one of rules [0, upto) contain Q? */
static bool naive_contained(const struct nfsfair_prefix *q, const struct nfsfair_rule *v, int upto)
{
	int j;

	for (j = 0; j < upto; j++)
		if (v[j].prefix.len <= q->len &&
		    nfsfair_prefix_contains(&v[j].prefix, q->family, q->addr))
			return true;
	return false;
}

/* Is Q covered by the union of rules [0, upto) of its family? */
static bool naive_covered(const struct nfsfair_prefix *q, const struct nfsfair_rule *v, int upto)
{
	struct nfsfair_prefix half;
	unsigned int bits = nfsfair_family_bits(q->family);
	bool inside = false;
	int j;

	for (j = 0; j < upto; j++) {
		const struct nfsfair_prefix *p = &v[j].prefix;

		if (p->family != q->family)
			continue;
		if (p->len <= q->len && nfsfair_prefix_contains(p, q->family, q->addr))
			return true;
		if (p->len > q->len && nfsfair_prefix_contains(q, p->family, p->addr))
			inside = true;
	}
	if (!inside || q->len == bits)
		return false;
	half = *q;
	half.len++;
	if (!naive_covered(&half, v, upto))
		return false;
	half.addr[q->len / 8] |= 0x80 >> (q->len % 8);
	return naive_covered(&half, v, upto);
}

static void rules_of(const char *const *text, struct nfsfair_rule *v, int *n)
{
	char err[NFSFAIR_ERR_LEN];

	for (*n = 0; text[*n]; (*n)++) {
		memset(&v[*n], 0, sizeof(v[*n]));
		if (nfsfair_prefix_parse(text[*n], &v[*n].prefix, err) < 0) {
			fprintf(stderr, "%s\n", err);
			exit(1);
		}
	}
}

/* The expected marks as a string, one '1' or '0' per rule. */
static const struct {
	const char *desc;
	const char *prefixes[8];
	const char *want;
} cases[] = {
	{ "empty table", { NULL }, "" },
	{ "one rule", { "10.0.0.0/24" }, "0" },
	{ "contained in an earlier prefix", { "10.0.0.0/8", "10.1.2.0/24" }, "01" },
	{ "containing a later prefix is not shadowed", { "10.1.2.0/24", "10.0.0.0/8" }, "00" },
	{ "equal prefix earlier", { "10.0.0.0/24", "10.0.0.0/24" }, "01" },
	{ "tiled by two halves", { "10.0.0.0/25", "10.0.0.128/25", "10.0.0.0/24" }, "001" },
	{ "tiled by four quarters",
	  { "10.0.0.192/26", "10.0.0.0/26", "10.0.0.128/26", "10.0.0.64/26", "10.0.0.0/24" },
	  "00001" },
	{ "tiled by a half and two quarters",
	  { "10.0.0.128/25", "10.0.0.0/26", "10.0.0.64/26", "10.0.0.0/24" }, "0001" },
	{ "three quarters only: not shadowed",
	  { "10.0.0.0/26", "10.0.0.64/26", "10.0.0.128/26", "10.0.0.0/24" }, "0000" },
	{ "one half only: not shadowed", { "10.0.0.0/25", "10.0.0.0/24" }, "00" },
	{ "a half tiled below, the other half whole",
	  { "10.0.0.0/26", "10.0.0.64/26", "10.0.0.128/25", "10.0.0.0/24", "10.0.0.0/25" },
	  "00011" },
	{ "tiling across an earlier wider rule", { "10.0.0.0/25", "10.0.0.0/8", "10.0.0.128/25",
	  "10.0.0.0/24" }, "0011" },
	{ "the other family does not count", { "0.0.0.0/0", "::/0", "10.0.0.0/8", "2001:db8::/32" },
	  "0011" },
	{ "IPv4 does not tile IPv6", { "0.0.0.0/1", "128.0.0.0/1", "::/0", "0.0.0.0/0" }, "0001" },
	{ "::/0 tiled by its two halves", { "::/1", "8000::/1", "::/0" }, "001" },
	{ "0.0.0.0/0 tiled by its two halves", { "128.0.0.0/1", "0.0.0.0/1", "0.0.0.0/0" }, "001" },
	{ "a /32 inside a /31", { "192.0.2.0/31", "192.0.2.1/32", "192.0.2.0/32" }, "011" },
	{ "disjoint rules", { "10.0.0.0/24", "10.0.1.0/24", "10.0.0.0/23" }, "001" },
	{ "gap between tiles", { "10.0.0.0/24", "10.0.2.0/24", "10.0.3.0/24", "10.0.0.0/22" },
	  "0000" },
};

static void test_cases(void)
{
	struct nfsfair_rule v[8];
	bool marks[8];
	char got[9];
	unsigned int c;
	int n, i;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		rules_of(cases[c].prefixes, v, &n);
		if (nfsfair_rules_shadowed(v, n, marks) < 0) {
			ok(0, cases[c].desc);
			continue;
		}
		for (i = 0; i < n; i++)
			got[i] = marks[i] ? '1' : '0';
		got[n] = '\0';
		ok(!strcmp(got, cases[c].want), cases[c].desc);
		if (strcmp(got, cases[c].want))
			printf("# got %s, want %s\n", got, cases[c].want);
		for (i = 0; i < n; i++)
			if (marks[i] != naive_covered(&v[i].prefix, v, i))
				ok(0, "the naive reference agrees on the hand case");
	}
}

/* 0 to n - 1, more often high: more small prefixes, so tiling happens. */
static int longer(int n)
{
	int a = rand() % n, b = rand() % n;

	return a > b ? a : b;
}

/* Inside 10.0.0.0/22 (lengths 22..26), or 2001:db8::/120 (120..124), or rarely wider. */
static void random_prefix(struct nfsfair_prefix *p)
{
	uint8_t a[16] = { 0 };
	int r = rand() % 40;

	if (r < 24) {
		a[0] = 10;
		a[2] = rand() % 4;
		a[3] = rand() % 256;
		p->family = AF_INET;
		p->len = 22 + longer(5);
		nfsfair_addr_mask(AF_INET, a, p->len, p->addr);
	} else if (r < 39) {
		a[0] = 0x20;
		a[1] = 0x01;
		a[2] = 0x0d;
		a[3] = 0xb8;
		a[15] = rand() % 256;
		p->family = AF_INET6;
		p->len = 120 + longer(5);
		nfsfair_addr_mask(AF_INET6, a, p->len, p->addr);
	} else {
		p->family = rand() % 2 ? AF_INET : AF_INET6;
		a[0] = p->family == AF_INET ? 10 : 0x20;
		a[1] = p->family == AF_INET ? 0 : 0x01;
		p->len = rand() % 3 == 0 ? 0 : rand() % 2 ? 1 : 8;
		nfsfair_addr_mask(p->family, a, p->len, p->addr);
	}
}

static void test_random(int tables)
{
	struct nfsfair_rule v[64];
	bool marks[64];
	int t, i, n, bad = 0, shadowed = 0, tiled = 0, total = 0;
	char desc[128];

	srand(13);
	for (t = 0; t < tables; t++) {
		n = 1 + rand() % 40;
		memset(v, 0, sizeof(v));
		for (i = 0; i < n; i++)
			random_prefix(&v[i].prefix);
		if (nfsfair_rules_shadowed(v, n, marks) < 0) {
			bad++;
			continue;
		}
		for (i = 0; i < n; i++) {
			total++;
			shadowed += marks[i];
			tiled += marks[i] && !naive_contained(&v[i].prefix, v, i);
			if (marks[i] != naive_covered(&v[i].prefix, v, i)) {
				if (!bad++)
					printf("# table %d, rule %d differs\n", t, i + 1);
			}
		}
	}
	snprintf(desc, sizeof(desc), "%d random tables agree with the naive reference", tables);
	ok(!bad, desc);
	printf("# %d of %d rules shadowed, %d of them by tiling alone\n", shadowed, total, tiled);
	ok(shadowed * 10 > total && shadowed * 10 < total * 9,
	   "the random tables shadow between 10% and 90% of rules");
	ok(tiled * 100 > shadowed, "more than 1% of those by tiling alone");
}

/* 20,000 rules, as the integration suite's big table: answers, and quickly. */
static void test_big(void)
{
	static struct nfsfair_rule v[20001];
	static bool marks[20001];
	int i, shadowed = 0;

	memset(v, 0, sizeof(v));
	for (i = 0; i < 20000; i++) {
		v[i].prefix.family = AF_INET;
		v[i].prefix.len = 24;
		v[i].prefix.addr[0] = 10;
		v[i].prefix.addr[1] = i / 256;
		v[i].prefix.addr[2] = i % 256;
	}
	v[20000].prefix.family = AF_INET;
	v[20000].prefix.len = 16;
	v[20000].prefix.addr[0] = 10;
	v[20000].prefix.addr[1] = 3;
	ok(nfsfair_rules_shadowed(v, 20001, marks) == 0, "20,001 rules");
	for (i = 0; i < 20001; i++)
		shadowed += marks[i];
	ok(shadowed == 1 && marks[20000], "20,001 rules: only the /16 the /24s tile is shadowed");
}

int main(void)
{
	test_cases();
	test_random(5000);
	test_big();
	printf("1..%d\n", count);
	return failures ? 1 : 0;
}
