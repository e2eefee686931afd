// SPDX-License-Identifier: GPL-2.0
/*
 * explain: the rule a peer meets first, found in a rule-get dump the way
 * the kernel looks it up, and the live clients holding the peer's
 * connections now (client-get with the peer's address). Connections move
 * to the client the table gives them at their next request, so the two
 * can differ for a moment after an edit, or for an idle connection.
 * Under a per-client rule a peer's connections may be in several
 * clients: one per NFSv4.1 client ID behind it, and per-host until bound,
 * or when its client ID came after the rule's ids-per-host - 1 others of
 * the address (which those are, the kernel knows, not the dump).
 * A client's thread-time is shown with its share of all live clients'
 * (each counted since it came), and the cost its next call is charged.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

struct clients {
	struct nfsfair_client *v;
	int n;
};

static const char *const kinds[] = {
	[NFSFAIR_CLIENT_KIND_DEFAULT] = "default",
	[NFSFAIR_CLIENT_KIND_CLASS] = "class",
	[NFSFAIR_CLIENT_KIND_PER_HOST] = "per-host",
	[NFSFAIR_CLIENT_KIND_OVERFLOW] = "overflow",
	[NFSFAIR_CLIENT_KIND_CLIENT_ID] = "client-id",
};

/* The live clients holding connections from the peer at @p. */
static int clients_dump(struct ctl *c, const struct nfsfair_prefix *p, struct clients *cs)
{
	int ret, i, n = 0;

	ret = nfsfair_read_clients(c->nl, p, &cs->v, &cs->n);
	if (ret < 0)
		return ctl_kernel_error(c, ret, SET_TABLE);
	/* Only a kernel that filtered by the peer says how many are its. */
	for (i = 0; i < cs->n; i++)
		if (cs->v[i].has_peer)
			cs->v[n++] = cs->v[i];
	cs->n = n;
	return 0;
}

/* Does the live client K serve a peer at P that met rule R (NULL: none)? */
static bool serves(const struct nfsfair_client *k, const struct nfsfair_prefix *p,
		   const struct nfsfair_rule *r)
{
	struct nfsfair_prefix want = { .family = p->family };

	if (!r)
		return k->kind == NFSFAIR_CLIENT_KIND_DEFAULT;
	if (r->target.kind == NFSFAIR_TARGET_CLASS)
		return k->kind == NFSFAIR_CLIENT_KIND_CLASS && !strcmp(k->class, r->target.class);
	if (k->kind == NFSFAIR_CLIENT_KIND_OVERFLOW)
		return true;
	/*
	 * The dump asked for this peer's clients: a client ID holding them is
	 * its own, unless ids-per-host 1 gives no client ID a client.
	 */
	if (k->kind == NFSFAIR_CLIENT_KIND_CLIENT_ID)
		return nfsfair_target_ids_per_host(&r->target) > 1;
	want.len = nfsfair_target_per_host_len(&r->target, p->family);
	nfsfair_addr_mask(p->family, p->addr, want.len, want.addr);
	return k->kind == NFSFAIR_CLIENT_KIND_PER_HOST && nfsfair_prefix_equal(&k->prefix, &want);
}

/* All live clients' thread-time, for a client's share; NFSFAIR_UNKNOWN if not counted. */
static int thread_ns_total(struct ctl *c, uint64_t *total)
{
	struct nfsfair_client *v;
	int ret, i, n;

	*total = NFSFAIR_UNKNOWN;
	ret = nfsfair_read_clients(c->nl, NULL, &v, &n);
	if (ret < 0)
		return ctl_kernel_error(c, ret, SET_TABLE);
	for (i = 0; i < n; i++)
		if (v[i].thread_ns != NFSFAIR_UNKNOWN)
			*total = (*total == NFSFAIR_UNKNOWN ? 0 : *total) + v[i].thread_ns;
	free(v);
	return 0;
}

/* Its thread-time, its share of @total, its next call's charge: each only if counted. */
static void print_thread_time(const struct nfsfair_client *k, uint64_t total)
{
	char t[16];

	if (k->thread_ns != NFSFAIR_UNKNOWN) {
		output_fmt_ns(k->thread_ns, t, sizeof(t));
		print_string(PRINT_FP, NULL, " thread-time %s", t);
		print_uint(PRINT_JSON, "thread_ns", NULL, k->thread_ns);
		/* not after a -Z between the two dumps */
		if (total != NFSFAIR_UNKNOWN && total >= k->thread_ns)
			print_float(PRINT_ANY, "thread_share_pct", " (%.1f%%)",
				    total ? 100.0 * k->thread_ns / total : 0);
	}
	if (k->cost_ns != NFSFAIR_UNKNOWN) {
		output_fmt_ns(k->cost_ns, t, sizeof(t));
		print_string(PRINT_FP, NULL, " cost %s", t);
		print_uint(PRINT_JSON, "cost_ns", NULL, k->cost_ns);
	}
}

static void print_client(const struct nfsfair_client *k, bool moving, uint64_t total)
{
	char a[NFSFAIR_PREFIX_STRLEN], owner[NFSFAIR_OWNER_STRLEN], id[24];

	open_json_object(NULL);
	print_string(PRINT_ANY, "kind", "  client %s",
		     k->kind < ARRAY_SIZE(kinds) ? kinds[k->kind] : "unknown");
	if (k->kind == NFSFAIR_CLIENT_KIND_CLASS)
		print_string(PRINT_ANY, "class", " %s", k->class);
	if (k->kind == NFSFAIR_CLIENT_KIND_CLIENT_ID) {
		/* hex, as a string: 64 bits do not survive a JSON double */
		snprintf(id, sizeof(id), "0x%016" PRIx64, k->client_id);
		output_fmt_owner(k->owner, k->owner_len, owner, sizeof(owner));
		print_string(PRINT_ANY, "client_id", " %s", id);
		print_string(PRINT_ANY, "owner", " owner \"%s\"", owner);
	}
	if (k->prefix.family) {
		nfsfair_prefix_format(&k->prefix, a, sizeof(a));
		print_string(PRINT_ANY, "prefix", " %s", a);
	}
	print_uint(PRINT_ANY, "connections", ": connections %" PRIu64, k->connections);
	print_uint(PRINT_ANY, "dispatches", " dispatches %" PRIu64, k->dispatches);
	print_uint(PRINT_ANY, "queued", " queued %" PRIu64, k->queued);
	print_thread_time(k, total);
	print_uint(PRINT_ANY, "peer_connections", "; this peer's %" PRIu64,
		   k->peer_connections);
	print_bool(PRINT_JSON, "moving", NULL, moving);
	if (moving)
		print_string(PRINT_FP, NULL, "%s", ", moving at their next request");
	close_json_object();
	print_nl();
}

static void explain_one(const struct nfsfair_prefix *p, const struct ctl_rules *rules,
			const struct clients *cs, uint64_t total)
{
	char a[NFSFAIR_PREFIX_STRLEN], text[NFSFAIR_RULE_STRLEN], t[32];
	const struct nfsfair_rule *r = NULL;
	int i;

	for (i = 0; i < rules->n && !r; i++)
		if (nfsfair_prefix_contains(&rules->v[i].prefix, p->family, p->addr))
			r = &rules->v[i];
	nfsfair_addr_format(p->family, p->addr, a, sizeof(a));
	open_json_object(NULL);
	print_string(PRINT_ANY, "address", "%s: ", a);
	if (r) {
		nfsfair_rule_format(r, text, sizeof(text));
		nfsfair_target_format(&r->target, r->prefix.family, t, sizeof(t));
		print_uint(PRINT_ANY, "position", "rule %" PRIu64, r->position);
		print_string(PRINT_ANY, "rule", " (%s)", text);
		print_string(PRINT_ANY, "target", " -> %s\n", t);
	} else if (rules->n) {
		print_null(PRINT_ANY, "position", "%s", "no rule matches");
		print_string(PRINT_ANY, "target", " -> %s\n", "default");
	} else {
		print_null(PRINT_ANY, "position", "%s", "no table");
		print_string(PRINT_ANY, "target", " -> %s\n", "single queue");
	}
	/* Where its connections are now; "moving" when the table says otherwise. */
	open_json_array("clients");
	for (i = 0; i < cs->n; i++)
		print_client(&cs->v[i], !rules->n || !serves(&cs->v[i], p, r), total);
	close_json_array();
	if (!cs->n)
		print_string(PRINT_FP, NULL, "%s\n", rules->n ?
			     "  no connection bound to a client" :
			     "  its connections, if any, are on the single queue");
	close_json_object();
}

int cmd_explain(struct ctl *c)
{
	struct nfsfair_prefix *p;
	struct ctl_rules rules;
	struct clients cs = { 0 };
	uint64_t total = NFSFAIR_UNKNOWN;
	int n, i, ret;

	ret = ctl_resolve(c->argv[0], &p, &n, false);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		if (p[i].len != nfsfair_family_bits(p[i].family)) {
			free(p);
			return ctl_usage_error(c, "explain: '%s' is a prefix, not an address",
					       c->argv[0]);
		}
	}
	ret = ctl_rules_dump(c, &rules);
	if (ret)
		goto free_p;
	open_json_array(NULL);
	for (i = 0; i < n && !ret; i++) {
		/* the total after the clients: it has grown at least as much as they have */
		ret = clients_dump(c, &p[i], &cs);
		if (!ret)
			ret = thread_ns_total(c, &total);
		if (!ret)
			explain_one(&p[i], &rules, &cs, total);
		free(cs.v);
	}
	close_json_array();
	output_done();
	free(rules.v);
free_p:
	free(p);
	return ret;
}
