// SPDX-License-Identifier: GPL-2.0
/*
 * explain: the rule a peer meets first, found in a rule-get dump the way
 * the kernel looks it up, and the live clients holding the peer's
 * connections now (client-get with the peer's address). Connections move
 * to the client the table gives them at their next request, so the two
 * can differ for a moment after an edit, or for an idle connection.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netlink/msg.h>
#include <netlink/attr.h>

#include "ctl.h"

struct client {
	uint32_t kind;
	char class[NFSFAIR_NAME_LEN + 1];
	struct nfsfair_prefix prefix;
	uint64_t connections, dispatches, queued, peer_connections;
};

struct clients {
	struct client *v;
	int n;
};

static const char *const kinds[] = { "default", "class", "per-host", "overflow" };

static int client_cb(struct nlattr **tb, void *arg)
{
	struct clients *cs = arg;
	struct client *v, *k;

	v = realloc(cs->v, (cs->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	cs->v = v;
	k = &v[cs->n++];
	memset(k, 0, sizeof(*k));
	if (tb[NFSFAIR_A_CLIENT_KIND])
		k->kind = nla_get_u32(tb[NFSFAIR_A_CLIENT_KIND]);
	if (tb[NFSFAIR_A_CLIENT_CLASS])
		snprintf(k->class, sizeof(k->class), "%s",
			 nla_get_string(tb[NFSFAIR_A_CLIENT_CLASS]));
	if (tb[NFSFAIR_A_CLIENT_ADDR4] && nla_len(tb[NFSFAIR_A_CLIENT_ADDR4]) == 4) {
		k->prefix.family = AF_INET;
		memcpy(k->prefix.addr, nla_data(tb[NFSFAIR_A_CLIENT_ADDR4]), 4);
	} else if (tb[NFSFAIR_A_CLIENT_ADDR6] && nla_len(tb[NFSFAIR_A_CLIENT_ADDR6]) == 16) {
		k->prefix.family = AF_INET6;
		memcpy(k->prefix.addr, nla_data(tb[NFSFAIR_A_CLIENT_ADDR6]), 16);
	}
	if (tb[NFSFAIR_A_CLIENT_PREFIX_LEN])
		k->prefix.len = nla_get_u8(tb[NFSFAIR_A_CLIENT_PREFIX_LEN]);
	k->connections = nfsfair_nla_uint(tb[NFSFAIR_A_CLIENT_CONNECTIONS]);
	k->dispatches = nfsfair_nla_uint(tb[NFSFAIR_A_CLIENT_DISPATCHES]);
	k->queued = nfsfair_nla_uint(tb[NFSFAIR_A_CLIENT_QUEUED]);
	/* Only a kernel that filtered by the peer says how many are its. */
	if (!tb[NFSFAIR_A_CLIENT_PEER_CONNECTIONS]) {
		cs->n--;
		return 0;
	}
	k->peer_connections = nfsfair_nla_uint(tb[NFSFAIR_A_CLIENT_PEER_CONNECTIONS]);
	return 0;
}

/* The live clients holding connections from the peer at @p. */
static int clients_dump(struct ctl *c, const struct nfsfair_prefix *p, struct clients *cs)
{
	struct nl_msg *msg;
	int ret;

	msg = nfsfair_nl_msg(c->nl, NFSFAIR_CMD_CLIENT_GET, true);
	if (msg && (p->family == AF_INET ?
		    nla_put(msg, NFSFAIR_A_CLIENT_PEER_ADDR4, 4, p->addr) :
		    nla_put(msg, NFSFAIR_A_CLIENT_PEER_ADDR6, 16, p->addr)) < 0) {
		nlmsg_free(msg);
		msg = NULL;
	}
	if (!msg)
		return ctl_error("out of memory");
	ret = nfsfair_nl_run(c->nl, msg, NFSFAIR_A_CLIENT_MAX, client_cb, cs);
	return ret < 0 ? ctl_kernel_error(c, ret, SET_TABLE) : 0;
}

/* Does the live client K serve a peer at P that met rule R (NULL: none)? */
static bool serves(const struct client *k, const struct nfsfair_prefix *p,
		   const struct nfsfair_rule *r)
{
	struct nfsfair_prefix want = { .family = p->family };

	if (!r)
		return k->kind == NFSFAIR_CLIENT_KIND_DEFAULT;
	if (r->target.kind == NFSFAIR_TARGET_CLASS)
		return k->kind == NFSFAIR_CLIENT_KIND_CLASS && !strcmp(k->class, r->target.class);
	if (k->kind == NFSFAIR_CLIENT_KIND_OVERFLOW)
		return true;
	want.len = nfsfair_target_per_host_len(&r->target, p->family);
	nfsfair_addr_mask(p->family, p->addr, want.len, want.addr);
	return k->kind == NFSFAIR_CLIENT_KIND_PER_HOST && nfsfair_prefix_equal(&k->prefix, &want);
}

static void print_client(const struct client *k, bool moving)
{
	char a[NFSFAIR_PREFIX_STRLEN];

	open_json_object(NULL);
	print_string(PRINT_ANY, "kind", "  client %s",
		     k->kind < 4 ? kinds[k->kind] : "unknown");
	if (k->kind == NFSFAIR_CLIENT_KIND_CLASS)
		print_string(PRINT_ANY, "class", " %s", k->class);
	if (k->prefix.family) {
		nfsfair_prefix_format(&k->prefix, a, sizeof(a));
		print_string(PRINT_ANY, "prefix", " %s", a);
	}
	print_uint(PRINT_ANY, "connections", ": connections %" PRIu64, k->connections);
	print_uint(PRINT_ANY, "dispatches", " dispatches %" PRIu64, k->dispatches);
	print_uint(PRINT_ANY, "queued", " queued %" PRIu64, k->queued);
	print_uint(PRINT_ANY, "peer_connections", "; this peer's %" PRIu64,
		   k->peer_connections);
	print_bool(PRINT_JSON, "moving", NULL, moving);
	if (moving)
		print_string(PRINT_FP, NULL, "%s", ", moving at their next request");
	close_json_object();
	print_nl();
}

static void explain_one(const struct nfsfair_prefix *p, const struct ctl_rules *rules,
			const struct clients *cs)
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
		print_client(&cs->v[i], !rules->n || !serves(&cs->v[i], p, r));
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
		cs.n = 0;
		ret = clients_dump(c, &p[i], &cs);
		if (!ret)
			explain_one(&p[i], &rules, &cs);
	}
	close_json_array();
	output_done();
	free(cs.v);
	free(rules.v);
free_p:
	free(p);
	return ret;
}
