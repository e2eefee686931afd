// SPDX-License-Identifier: GPL-2.0
/*
 * Shadowed rules: a rule no address reaches, because earlier rules of its
 * family cover its whole prefix, by one prefix that contains it or by
 * several that tile it. Prefixes are nested or disjoint, so the distinct
 * prefixes, sorted by (family, address, length), form a forest in which a
 * prefix's descendants follow it; two passes over it give every rule's
 * answer in O(n log n).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "nfsfair.h"

#define NEVER INT32_MAX

typedef unsigned __int128 u128;

struct node {
	int family;
	unsigned int len;
	u128 start, end;	/* first and last address */
	int rule;		/* the first rule with this prefix */
	int parent;		/* the nearest containing prefix, or -1 */
	int above;		/* the first rule of any strict ancestor */
	u128 cursor;		/* children: the address after the last one seen */
	int nchildren;
	bool gap;		/* children: a hole between two, or before the first */
	bool tiled;		/* the children cover the whole prefix */
	int covered;		/* the first rule after which this prefix is covered */
	int children_covered;	/* the last child to be covered, when tiled */
};

static u128 addr_value(const struct nfsfair_prefix *p)
{
	unsigned int i, bytes = nfsfair_family_bits(p->family) / 8;
	u128 v = 0;

	for (i = 0; i < bytes; i++)
		v = v << 8 | p->addr[i];
	return v;
}

static u128 host_mask(int family, unsigned int len)
{
	unsigned int host = nfsfair_family_bits(family) - len;

	return host == 128 ? ~(u128)0 : ((u128)1 << host) - 1;
}

struct key {
	int family;
	unsigned int len;
	u128 start;
	int rule;
};

static int key_cmp(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	if (x->family != y->family)
		return x->family < y->family ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->rule - y->rule;
}

static bool node_contains(const struct node *a, const struct node *b)
{
	return a->family == b->family && a->start <= b->start && b->end <= a->end;
}

/* A node's children are complete: did they leave a hole at its end? */
static void node_close(struct node *n)
{
	n->tiled = n->nchildren && !n->gap && n->cursor == n->end + 1;
}

/* Forward: parents, the first rule above each, and whether children tile. */
static int forest_build(struct node *nodes, int n)
{
	int *stack, depth = 0, i;

	stack = malloc((n + 1) * sizeof(*stack));
	if (!stack)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct node *k = &nodes[i], *p;

		while (depth && !node_contains(&nodes[stack[depth - 1]], k))
			node_close(&nodes[stack[--depth]]);
		k->parent = depth ? stack[depth - 1] : -1;
		k->above = NEVER;
		k->cursor = k->start;
		if (k->parent >= 0) {
			p = &nodes[k->parent];
			k->above = p->rule < p->above ? p->rule : p->above;
			if (k->start != p->cursor)
				p->gap = true;
			p->cursor = k->end + 1;
			p->nchildren++;
		}
		stack[depth++] = i;
	}
	while (depth)
		node_close(&nodes[stack[--depth]]);
	free(stack);
	return 0;
}

/* Backward, so descendants come first: when each prefix is covered. */
static void forest_cover(struct node *nodes, int n)
{
	int i;

	for (i = n - 1; i >= 0; i--) {
		struct node *k = &nodes[i];
		int inside = k->tiled ? k->children_covered : NEVER;

		k->covered = k->rule < inside ? k->rule : inside;
		if (k->parent >= 0 && nodes[k->parent].children_covered < k->covered)
			nodes[k->parent].children_covered = k->covered;
	}
}

/**
 * nfsfair_rules_shadowed - which rules no address can reach
 * @v: the rules, in table order
 * @n: how many
 * @shadowed: out, one per rule
 *
 * Return: 0, or -ENOMEM.
 */
int nfsfair_rules_shadowed(const struct nfsfair_rule *v, int n, bool *shadowed)
{
	struct node *nodes = NULL;
	struct key *keys;
	int *node_of = NULL, nn = 0, i, ret = -ENOMEM;

	if (n <= 0)
		return 0;
	keys = malloc(n * sizeof(*keys));
	nodes = calloc(n, sizeof(*nodes));
	node_of = malloc(n * sizeof(*node_of));
	if (!keys || !nodes || !node_of)
		goto free;
	for (i = 0; i < n; i++) {
		keys[i].family = v[i].prefix.family;
		keys[i].len = v[i].prefix.len;
		keys[i].start = addr_value(&v[i].prefix);
		keys[i].rule = i;
	}
	qsort(keys, n, sizeof(*keys), key_cmp);
	for (i = 0; i < n; i++) {
		if (!nn || keys[i].family != nodes[nn - 1].family ||
		    keys[i].start != nodes[nn - 1].start || keys[i].len != nodes[nn - 1].len) {
			nodes[nn].family = keys[i].family;
			nodes[nn].len = keys[i].len;
			nodes[nn].start = keys[i].start;
			nodes[nn].end = keys[i].start | host_mask(keys[i].family, keys[i].len);
			nodes[nn].rule = keys[i].rule;
			nn++;
		}
		node_of[keys[i].rule] = nn - 1;
	}
	ret = forest_build(nodes, nn);
	if (ret)
		goto free;
	forest_cover(nodes, nn);
	for (i = 0; i < n; i++) {
		const struct node *k = &nodes[node_of[i]];

		shadowed[i] = k->rule < i || k->above < i || (k->tiled && k->children_covered < i);
	}
free:
	free(node_of);
	free(nodes);
	free(keys);
	return ret;
}
