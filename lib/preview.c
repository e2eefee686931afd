// SPDX-License-Identifier: GPL-2.0
/*
 * Preview: what a new table would do to the peers connected to nfsd now.
 * The peers come from the socket table (established TCP connections to
 * nfsd's port), where their connections are now from the kernel's
 * client-get dump filtered by each peer, and where they would go from the
 * first rule of the new table that matches them, the kernel's way: first
 * match wins, an IPv4-mapped IPv6 peer is its IPv4 address, no rule at all
 * is the single queue. Connections the socket table shows but no client
 * holds are on the single queue (not bound yet, or accepted before any
 * table existed). nfsfair-ctl restore --test and nfsfaird --check share it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "nfsfair.h"

#define TCP_ESTABLISHED	0x01
#define TCP_LISTEN	0x0a

static const char *const place_words[] = {
	[NFSFAIR_PLACE_SINGLE] = "single-queue",
	[NFSFAIR_PLACE_DEFAULT] = "default",
	[NFSFAIR_PLACE_CLASS] = "class",
	[NFSFAIR_PLACE_PER_HOST] = "per-host",
	[NFSFAIR_PLACE_PER_CLIENT] = "per-client",
	[NFSFAIR_PLACE_CLIENT_ID] = "client-id",
	[NFSFAIR_PLACE_OVERFLOW] = "overflow",
};

/* The index of the first rule of @v matching the address, or -1. */
int nfsfair_rules_match(const struct nfsfair_rule *v, int n, int family, const uint8_t *addr)
{
	int i;

	for (i = 0; i < n; i++)
		if (nfsfair_prefix_contains(&v[i].prefix, family, addr))
			return i;
	return -1;
}

/* Where a table of @n rules puts a connection from the address. */
void nfsfair_place_of_table(const struct nfsfair_rule *v, int n, int family,
			    const uint8_t *addr, struct nfsfair_place *pl)
{
	const struct nfsfair_rule *r;
	int i = nfsfair_rules_match(v, n, family, addr);

	memset(pl, 0, sizeof(*pl));
	if (!n) {
		pl->kind = NFSFAIR_PLACE_SINGLE;
		return;
	}
	if (i < 0) {
		pl->kind = NFSFAIR_PLACE_DEFAULT;
		return;
	}
	r = &v[i];
	if (r->target.kind == NFSFAIR_TARGET_CLASS) {
		pl->kind = NFSFAIR_PLACE_CLASS;
		snprintf(pl->class, sizeof(pl->class), "%s", r->target.class);
		return;
	}
	/* Per-client with ids-per-host 1 gives no client ID a client: it is per-host. */
	pl->kind = nfsfair_target_ids_per_host(&r->target) > 1 ? NFSFAIR_PLACE_PER_CLIENT :
								 NFSFAIR_PLACE_PER_HOST;
	pl->host.family = family;
	pl->host.len = nfsfair_target_per_host_len(&r->target, family);
	nfsfair_addr_mask(family, addr, pl->host.len, pl->host.addr);
}

/* Where the live client @k is. */
void nfsfair_place_of_client(const struct nfsfair_client *k, struct nfsfair_place *pl)
{
	memset(pl, 0, sizeof(*pl));
	switch (k->kind) {
	case NFSFAIR_CLIENT_KIND_CLASS:
		pl->kind = NFSFAIR_PLACE_CLASS;
		snprintf(pl->class, sizeof(pl->class), "%s", k->class);
		break;
	case NFSFAIR_CLIENT_KIND_PER_HOST:
		pl->kind = NFSFAIR_PLACE_PER_HOST;
		pl->host = k->prefix;
		break;
	case NFSFAIR_CLIENT_KIND_CLIENT_ID:
		pl->kind = NFSFAIR_PLACE_CLIENT_ID;
		pl->client_id = k->client_id;
		break;
	case NFSFAIR_CLIENT_KIND_OVERFLOW:
		pl->kind = NFSFAIR_PLACE_OVERFLOW;
		break;
	default:
		pl->kind = NFSFAIR_PLACE_DEFAULT;
		break;
	}
}

/*
 * Is a connection at @now where a table sending it to @to leaves it? A
 * per-host or per-client target can land in the overflow client when the
 * kernel's cap is reached; a connection bound to an NFSv4.1 session stays
 * in its client ID's client under a per-client rule. Whether a per-host
 * connection is bound to a session the dump does not say: it stays. So
 * does one of a client ID past the rule's ids-per-host, which is in the
 * address's per-host client; which of an address's IDs are past it is
 * the kernel's to say (the order they came in), not the dump's, so a
 * client ID's client is taken to stay.
 */
bool nfsfair_place_keeps(const struct nfsfair_place *to, const struct nfsfair_place *now)
{
	switch (to->kind) {
	case NFSFAIR_PLACE_CLASS:
		return now->kind == NFSFAIR_PLACE_CLASS && !strcmp(now->class, to->class);
	case NFSFAIR_PLACE_PER_CLIENT:
	case NFSFAIR_PLACE_PER_HOST:
		if (now->kind == NFSFAIR_PLACE_OVERFLOW)
			return true;
		if (now->kind == NFSFAIR_PLACE_CLIENT_ID)
			return to->kind == NFSFAIR_PLACE_PER_CLIENT;
		return now->kind == NFSFAIR_PLACE_PER_HOST && nfsfair_prefix_equal(&now->host, &to->host);
	default:
		return now->kind == to->kind;
	}
}

int nfsfair_place_format(const struct nfsfair_place *pl, char *buf, size_t size)
{
	char p[NFSFAIR_PREFIX_STRLEN] = "";
	int n;

	switch (pl->kind) {
	case NFSFAIR_PLACE_SINGLE:
		n = snprintf(buf, size, "single queue");
		break;
	case NFSFAIR_PLACE_CLASS:
		n = snprintf(buf, size, "class %s", pl->class);
		break;
	case NFSFAIR_PLACE_PER_HOST:
	case NFSFAIR_PLACE_PER_CLIENT:
		nfsfair_prefix_format(&pl->host, p, sizeof(p));
		n = snprintf(buf, size, "%s %s", place_words[pl->kind], p);
		break;
	case NFSFAIR_PLACE_CLIENT_ID:
		n = snprintf(buf, size, "client-id 0x%016" PRIx64, pl->client_id);
		break;
	default:
		n = snprintf(buf, size, "%s", place_words[pl->kind]);
		break;
	}
	return (size_t)n >= size ? -ENOSPC : 0;
}

/*
 * The table after a table-replace of @origin's rules by @add, as the
 * kernel makes it: other origins' rules keep their order, the new ones
 * take the place of the origin's first old rule, or go at the end.
 */
int nfsfair_table_splice(const struct nfsfair_rule *cur, int ncur, const struct nfsfair_rule *add,
			 int nadd, uint8_t origin, struct nfsfair_rule **out, int *nout)
{
	struct nfsfair_rule *v;
	int i, n = 0, first = -1;

	v = malloc((ncur + nadd + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < ncur; i++) {
		if (cur[i].origin != origin)
			v[n++] = cur[i];
		else if (first < 0)
			first = n;
	}
	if (first < 0)
		first = n;
	memmove(&v[first + nadd], &v[first], (n - first) * sizeof(*v));
	for (i = 0; i < nadd; i++) {
		v[first + i] = add[i];
		v[first + i].origin = origin;
	}
	*out = v;
	*nout = n + nadd;
	return 0;
}

static int peer_cmp(const void *a, const void *b)
{
	const struct nfsfair_peer *x = a, *y = b;

	if (x->family != y->family)
		return x->family == AF_INET ? -1 : 1;
	return memcmp(x->addr, y->addr, 16);
}

static int peer_add(struct nfsfair_peer **v, int *n, int family, const uint8_t *addr)
{
	struct nfsfair_peer *p;
	int i;

	for (i = 0; i < *n; i++) {
		if ((*v)[i].family == family && !memcmp((*v)[i].addr, addr, 16)) {
			(*v)[i].connections++;
			return 0;
		}
	}
	p = realloc(*v, (*n + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	*v = p;
	p = &p[(*n)++];
	memset(p, 0, sizeof(*p));
	p->family = family;
	memcpy(p->addr, addr, 16);
	p->connections = 1;
	return 0;
}

/* "0100007F:0801" of /proc/net/tcp{,6}: 32-bit words as the host prints them. */
static int sock_addr_parse(const char *s, bool v6, uint8_t *addr, unsigned int *port)
{
	unsigned int words = v6 ? 4 : 1, i;
	char hex[9] = "";
	uint32_t w;

	memset(addr, 0, 16);
	for (i = 0; i < words; i++) {
		memcpy(hex, s + 8 * i, 8);
		if (sscanf(hex, "%8" SCNx32, &w) != 1)
			return -EINVAL;
		memcpy(addr + 4 * i, &w, 4);
	}
	return s[8 * words] == ':' && sscanf(s + 8 * words + 1, "%4x", port) == 1 ? 0 : -EINVAL;
}

static bool v4_mapped(const uint8_t *a)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(a, prefix, sizeof(prefix));
}

/* One socket table: established connections to @port, and whether it listens. */
static int sockets_parse(FILE *fp, bool v6, unsigned int port, struct nfsfair_peer **v, int *n,
			 bool *listening)
{
	char line[512], local[64], remote[64];
	uint8_t laddr[16], raddr[16], a4[16] = {};
	unsigned int lport, rport, st;
	int ret;

	if (!fgets(line, sizeof(line), fp))	/* the header */
		return 0;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, " %*u: %63s %63s %x", local, remote, &st) != 3 ||
		    sock_addr_parse(local, v6, laddr, &lport) ||
		    sock_addr_parse(remote, v6, raddr, &rport))
			return -EPROTO;
		if (lport != port)
			continue;
		if (st == TCP_LISTEN)
			*listening = true;
		if (st != TCP_ESTABLISHED)
			continue;
		if (v6 && v4_mapped(raddr)) {
			memcpy(a4, raddr + 12, 4);
			ret = peer_add(v, n, AF_INET, a4);
		} else {
			ret = peer_add(v, n, v6 ? AF_INET6 : AF_INET, raddr);
		}
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * nfsfair_peers_read - the peers with established TCP connections to @port
 * @dir: where the socket tables are ("/proc/net"), tcp and tcp6
 * @port: nfsd's port
 * @v: out, the peers sorted by address, with their connection counts
 * @n: out, how many
 * @listening: out, whether anything listens on @port
 *
 * A missing table (no IPv6) counts as empty. Return: 0 or a negative errno;
 * free(*v) after.
 */
int nfsfair_peers_read(const char *dir, unsigned int port, struct nfsfair_peer **v, int *n,
		       bool *listening)
{
	char path[4096];
	int i, ret = 0;
	FILE *fp;

	*v = NULL;
	*n = 0;
	*listening = false;
	for (i = 0; i < 2 && !ret; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, i ? "tcp6" : "tcp");
		fp = fopen(path, "re");
		if (!fp) {
			if (errno != ENOENT)
				ret = -errno;
			continue;
		}
		ret = sockets_parse(fp, i, port, v, n, listening);
		fclose(fp);
	}
	if (ret) {
		free(*v);
		*v = NULL;
		*n = 0;
		return ret;
	}
	if (*n)
		qsort(*v, *n, sizeof(**v), peer_cmp);
	return 0;
}

void nfsfair_preview_free(struct nfsfair_preview *pv)
{
	int i;

	for (i = 0; i < pv->npeers; i++)
		free(pv->peers[i].clients);
	free(pv->peers);
	free(pv->rules);
	free(pv->moves);
	memset(pv, 0, sizeof(*pv));
}

/* The clients holding each peer's connections; only those the kernel counted. */
static int peers_clients(struct nfsfair_nl *nl, struct nfsfair_preview *pv)
{
	struct nfsfair_prefix p;
	struct nfsfair_peer *peer;
	int i, j, n, ret;

	for (i = 0; i < pv->npeers; i++) {
		peer = &pv->peers[i];
		memset(&p, 0, sizeof(p));
		p.family = peer->family;
		p.len = nfsfair_family_bits(p.family);
		memcpy(p.addr, peer->addr, 16);
		ret = nfsfair_read_clients(nl, &p, &peer->clients, &peer->nclients);
		if (ret)
			return ret;
		for (j = 0, n = 0; j < peer->nclients; j++)
			if (peer->clients[j].has_peer && peer->clients[j].peer_connections)
				peer->clients[n++] = peer->clients[j];
		peer->nclients = n;
	}
	return 0;
}

static void preview_why(struct nfsfair_preview *pv, enum nfsfair_preview_state state,
			const char *what, const char *why)
{
	pv->state = state;
	snprintf(pv->why, sizeof(pv->why), "%s%s%s", what, *why ? ": " : "", why);
}

/**
 * nfsfair_preview_read - the table now, the peers connected to nfsd now
 * and the clients holding their connections
 * @pv: out; its state says why there is nothing to compare, if so
 * @netdir: where the socket tables are, "/proc/net"
 * @port: nfsd's TCP port
 *
 * Return: 0, or -ENOMEM. A kernel without the family, a closed nfsd, or
 * a refused dump are states of @pv, not errors. nfsfair_preview_free() after.
 */
int nfsfair_preview_read(struct nfsfair_preview *pv, const char *netdir, unsigned int port)
{
	char err[NFSFAIR_ERR_LEN] = "";
	struct nfsfair_nl *nl = NULL;
	bool listening;
	int ret;

	memset(pv, 0, sizeof(*pv));
	pv->port = port;
	ret = nfsfair_nl_open(&nl, err);
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		preview_why(pv, ret == -ENOENT ? NFSFAIR_PREVIEW_NO_FAMILY : NFSFAIR_PREVIEW_ERROR,
			    err, "");
		return 0;
	}
	ret = nfsfair_read_rules(nl, &pv->rules, &pv->nrules);
	if (ret) {
		preview_why(pv, NFSFAIR_PREVIEW_ERROR, "reading the table",
			    *nfsfair_nl_extack(nl) ? nfsfair_nl_extack(nl) : strerror(-ret));
		goto out;
	}
	ret = nfsfair_peers_read(netdir, port, &pv->peers, &pv->npeers, &listening);
	if (ret) {
		preview_why(pv, NFSFAIR_PREVIEW_ERROR, netdir, strerror(-ret));
		goto out;
	}
	if (!listening && !pv->npeers) {
		pv->state = NFSFAIR_PREVIEW_NO_NFSD;
		goto out;
	}
	ret = peers_clients(nl, pv);
	if (ret)
		preview_why(pv, NFSFAIR_PREVIEW_ERROR, "reading nfsd's clients",
			    *nfsfair_nl_extack(nl) ? nfsfair_nl_extack(nl) : strerror(-ret));
out:
	nfsfair_nl_close(nl);
	return ret == -ENOMEM ? ret : 0;
}

static bool place_equal(const struct nfsfair_place *a, const struct nfsfair_place *b)
{
	return a->kind == b->kind && !strcmp(a->class, b->class) &&
	       nfsfair_prefix_equal(&a->host, &b->host) && a->client_id == b->client_id;
}

static int move_add(struct nfsfair_preview *pv, const struct nfsfair_peer *peer,
		    const struct nfsfair_place *from, const struct nfsfair_place *to,
		    uint64_t conns, bool already)
{
	struct nfsfair_move *m;
	int i;

	/* One line per peer and place: a class can have a client per service. */
	for (i = 0; i < pv->nmoves; i++) {
		m = &pv->moves[i];
		if (m->family == peer->family && !memcmp(m->addr, peer->addr, 16) &&
		    m->already == already && place_equal(&m->from, from) && place_equal(&m->to, to)) {
			m->connections += conns;
			return 0;
		}
	}
	m = realloc(pv->moves, (pv->nmoves + 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	pv->moves = m;
	m = &m[pv->nmoves++];
	memset(m, 0, sizeof(*m));
	m->family = peer->family;
	memcpy(m->addr, peer->addr, 16);
	m->from = *from;
	m->to = *to;
	m->connections = conns;
	m->already = already;
	return 0;
}

/**
 * nfsfair_preview_diff - which peers' connections a table would move
 * @pv: from nfsfair_preview_read (or filled by hand): the table now in
 *	rules, the peers with their connections and clients; moves and
 *	counts are set here
 * @next: the table after the edit, in order
 * @n: its rules
 *
 * A move is one peer's connections in one client now that @next puts
 * elsewhere; "already" when the table now would move them too (an idle
 * connection not rebound since the last edit, or one on the single queue
 * that a table will bind). Return: 0 or -ENOMEM.
 */
int nfsfair_preview_diff(struct nfsfair_preview *pv, const struct nfsfair_rule *next, int n)
{
	struct nfsfair_place now, old, to;
	const struct nfsfair_peer *peer;
	uint64_t bound, conns;
	bool moved;
	int i, j, ret;

	free(pv->moves);
	pv->moves = NULL;
	pv->nmoves = pv->moving = pv->unchanged = 0;
	pv->connections = pv->unchanged_connections = 0;
	if (pv->state != NFSFAIR_PREVIEW_OK)
		return 0;
	for (i = 0; i < pv->npeers; i++) {
		peer = &pv->peers[i];
		nfsfair_place_of_table(pv->rules, pv->nrules, peer->family, peer->addr, &old);
		nfsfair_place_of_table(next, n, peer->family, peer->addr, &to);
		moved = false;
		bound = 0;
		for (j = 0; j < peer->nclients; j++) {
			conns = peer->clients[j].peer_connections;
			bound += conns;
			nfsfair_place_of_client(&peer->clients[j], &now);
			if (nfsfair_place_keeps(&to, &now))
				continue;
			ret = move_add(pv, peer, &now, &to, conns, !nfsfair_place_keeps(&old, &now));
			if (ret)
				return ret;
			moved = true;
		}
		/* Established, but in no client: on the single queue. */
		conns = peer->connections > bound ? peer->connections - bound : 0;
		memset(&now, 0, sizeof(now));
		now.kind = NFSFAIR_PLACE_SINGLE;
		if (conns && !nfsfair_place_keeps(&to, &now)) {
			ret = move_add(pv, peer, &now, &to, conns, !nfsfair_place_keeps(&old, &now));
			if (ret)
				return ret;
			moved = true;
		}
		conns = peer->connections > bound ? peer->connections : bound;
		pv->connections += conns;
		if (moved) {
			pv->moving++;
		} else {
			pv->unchanged++;
			pv->unchanged_connections += conns;
		}
	}
	return 0;
}

static void place_print(const char *key, const struct nfsfair_place *pl)
{
	char p[NFSFAIR_PREFIX_STRLEN], id[24];

	open_json_object(key);
	print_string(PRINT_JSON, "kind", NULL, place_words[pl->kind]);
	if (pl->kind == NFSFAIR_PLACE_CLASS)
		print_string(PRINT_JSON, "class", NULL, pl->class);
	if (pl->kind == NFSFAIR_PLACE_PER_HOST || pl->kind == NFSFAIR_PLACE_PER_CLIENT) {
		nfsfair_prefix_format(&pl->host, p, sizeof(p));
		print_string(PRINT_JSON, "prefix", NULL, p);
	}
	if (pl->kind == NFSFAIR_PLACE_CLIENT_ID) {
		/* hex, as a string: 64 bits do not survive a JSON double */
		snprintf(id, sizeof(id), "0x%016" PRIx64, pl->client_id);
		print_string(PRINT_JSON, "client_id", NULL, id);
	}
	close_json_object();
}

static void move_print(const struct nfsfair_move *m, const char *lead)
{
	char a[NFSFAIR_PREFIX_STRLEN], from[80], to[80];

	nfsfair_addr_format(m->family, m->addr, a, sizeof(a));
	nfsfair_place_format(&m->from, from, sizeof(from));
	nfsfair_place_format(&m->to, to, sizeof(to));
	open_json_object(NULL);
	print_string(PRINT_FP, NULL, "%s  ", lead);
	print_string(PRINT_ANY, "peer", "%s: ", a);
	print_string(PRINT_FP, NULL, "%s -> ", from);
	print_string(PRINT_FP, NULL, "%s", to);
	place_print("from", &m->from);
	place_print("to", &m->to);
	print_uint(PRINT_ANY, "connections", " (%" PRIu64, m->connections);
	print_string(PRINT_FP, NULL, "%s", m->connections == 1 ? " connection" : " connections");
	print_bool(PRINT_JSON, "already", NULL, m->already);
	print_string(PRINT_FP, NULL, "%s)\n", m->already ? ", moving already" : "");
	close_json_object();
}

static const char *const state_words[] = {
	[NFSFAIR_PREVIEW_OK] = "ok",
	[NFSFAIR_PREVIEW_NO_FAMILY] = "no-family",
	[NFSFAIR_PREVIEW_NO_NFSD] = "no-nfsd",
	[NFSFAIR_PREVIEW_ERROR] = "error",
};

/**
 * nfsfair_preview_print - the preview, through output.c
 * @pv: after nfsfair_preview_diff
 * @lead: put before every text line ("# " keeps nfsfaird --check's
 *	output a file restore reads)
 *
 * In JSON, an object under the key "preview" of the object open now.
 */
void nfsfair_preview_print(const struct nfsfair_preview *pv, const char *lead)
{
	char buf[64], text[160];
	int i;

	open_json_object("preview");
	print_string(PRINT_JSON, "state", NULL, state_words[pv->state]);
	print_string(PRINT_FP, NULL, "%spreview: ", lead);
	switch (pv->state) {
	case NFSFAIR_PREVIEW_NO_FAMILY:
	case NFSFAIR_PREVIEW_ERROR:
		print_string(PRINT_ANY, "reason", "%s: no live clients to compare\n", pv->why);
		break;
	case NFSFAIR_PREVIEW_NO_NFSD:
		snprintf(buf, sizeof(buf), "nothing listens on TCP port %u", pv->port);
		print_string(PRINT_ANY, "reason", "%s (no nfsd): no live clients to compare\n",
			     buf);
		break;
	case NFSFAIR_PREVIEW_OK:
		print_uint(PRINT_JSON, "port", NULL, pv->port);
		print_uint(PRINT_JSON, "peers", NULL, pv->npeers);
		print_uint(PRINT_JSON, "connections", NULL, pv->connections);
		print_uint(PRINT_JSON, "moving", NULL, pv->moving);
		print_uint(PRINT_JSON, "unchanged", NULL, pv->unchanged);
		print_uint(PRINT_JSON, "unchanged_connections", NULL, pv->unchanged_connections);
		if (!pv->npeers)
			snprintf(text, sizeof(text), "no connections to nfsd now: nothing would move");
		else
			snprintf(text, sizeof(text),
				 "%d peer%s with %" PRIu64 " connection%s to nfsd now: %d would move, %d unchanged",
				 pv->npeers, pv->npeers == 1 ? "" : "s", pv->connections,
				 pv->connections == 1 ? "" : "s", pv->moving, pv->unchanged);
		print_string(PRINT_FP, NULL, "%s\n", text);
		open_json_array("moves");
		for (i = 0; i < pv->nmoves; i++)
			move_print(&pv->moves[i], lead);
		close_json_array();
		break;
	}
	close_json_object();
}
