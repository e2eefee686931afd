// SPDX-License-Identifier: GPL-2.0
/*
 * lib/preview.c natively, as TAP, no kernel: the table a table-replace
 * leaves, the socket tables read for nfsd's peers, the diff of a table
 * now and a new one against peers and the clients holding them (hand
 * cases, then random tables against a naive IPv4 matcher), and the
 * printed text and JSON.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/nfsfair.h"

static int count, failures;

static int ok(int cond, const char *desc)
{
	count++;
	printf("%s %d - %s\n", cond ? "ok" : "not ok", count, desc);
	if (!cond)
		failures++;
	return cond;
}

/* ok, showing DETAIL (what was got) when it fails */
static void okd(int cond, const char *desc, const char *detail)
{
	if (!ok(cond, desc) && detail)
		printf("# got: %s\n", detail);
}

static struct nfsfair_rule rule(const char *prefix, const char *target, int origin)
{
	char err[NFSFAIR_ERR_LEN];
	struct nfsfair_rule r = { .origin = origin };

	if (nfsfair_prefix_parse(prefix, &r.prefix, err) ||
	    nfsfair_target_parse(target, &r.target, err)) {
		fprintf(stderr, "a bad rule in the test: %s %s: %s\n", prefix, target, err);
		exit(1);
	}
	return r;
}

/* The table as "-s P -j T [--origin O]" lines joined by "; ". */
static void table_text(const struct nfsfair_rule *v, int n, char *buf, size_t size)
{
	char r[NFSFAIR_RULE_STRLEN];
	size_t len = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		nfsfair_rule_format(&v[i], r, sizeof(r));
		len += snprintf(buf + len, size - len, "%s%s", i ? "; " : "", r);
	}
}

static void test_splice(void)
{
	struct nfsfair_rule cur[] = {
		rule("10.0.0.0/8", "a", 0), rule("10.1.0.0/16", "b", 5),
		rule("10.2.0.0/16", "c", 0), rule("10.3.0.0/16", "d", 7),
	};
	struct nfsfair_rule add[] = { rule("192.0.2.0/24", "x", 0), rule("198.51.100.0/24", "y", 0) };
	struct nfsfair_rule *v;
	char got[1024];
	int n;

	nfsfair_table_splice(cur, 4, add, 2, 5, &v, &n);
	table_text(v, n, got, sizeof(got));
	ok(!strcmp(got, "-s 10.0.0.0/8 -j a; -s 192.0.2.0/24 -j x --origin 5; "
		   "-s 198.51.100.0/24 -j y --origin 5; -s 10.2.0.0/16 -j c; "
		   "-s 10.3.0.0/16 -j d --origin 7"),
	   "splice: origin 5's new rules take its old rule's place, origin set");
	free(v);
	nfsfair_table_splice(cur, 4, add, 1, 0, &v, &n);
	table_text(v, n, got, sizeof(got));
	ok(!strcmp(got, "-s 192.0.2.0/24 -j x; -s 10.1.0.0/16 -j b --origin 5; "
		   "-s 10.3.0.0/16 -j d --origin 7"),
	   "splice: origin 0's two rules, first and third, become one at the first's place");
	free(v);
	nfsfair_table_splice(cur, 4, add, 2, 9, &v, &n);
	ok(n == 6 && v[4].origin == 9 && v[5].origin == 9 && !strcmp(v[3].target.class, "d"),
	   "splice: a new origin goes at the end");
	free(v);
	nfsfair_table_splice(cur, 4, NULL, 0, 7, &v, &n);
	table_text(v, n, got, sizeof(got));
	ok(n == 3 && !strstr(got, "origin 7"), "splice: no rules removes the origin's");
	free(v);
	nfsfair_table_splice(NULL, 0, NULL, 0, 0, &v, &n);
	ok(n == 0, "splice: empty into empty");
	free(v);
}

/* Socket tables in the kernel's format: 127.0.0.1:2049 is 0100007F:0801. */
static const char tcp4[] =
	"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	/* nfsd listening */
	"   0: 00000000:0801 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1\n"
	/* 127.0.0.2 three times, established */
	"   1: 0100007F:0801 0200007F:03FF 01 00000000:00000000 00:00000000 00000000     0        0 2 1\n"
	"   2: 0100007F:0801 0200007F:03FE 01 00000000:00000000 00:00000000 00000000     0        0 3 1\n"
	"   3: 0100007F:0801 0200007F:03FD 01 00000000:00000000 00:00000000 00000000     0        0 4 1\n"
	/* 127.0.0.3 once, and once closing: not counted */
	"   4: 0100007F:0801 0300007F:0300 01 00000000:00000000 00:00000000 00000000     0        0 5 1\n"
	"   5: 0100007F:0801 0300007F:0301 06 00000000:00000000 00:00000000 00000000     0        0 6 1\n"
	/* the client's side of a loopback mount: remote port 2049, not ours */
	"   6: 0400007F:0302 0100007F:0801 01 00000000:00000000 00:00000000 00000000     0        0 7 1\n"
	/* another service's peer */
	"   7: 0100007F:0016 0900007F:9999 01 00000000:00000000 00:00000000 00000000     0        0 8 1\n";

static const char tcp6[] =
	"  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	/* ::1 from ::1 */
	"   0: 00000000000000000000000001000000:0801 00000000000000000000000001000000:A000 01 00000000:00000000 00:00000000 00000000     0        0 9 1\n"
	/* ::ffff:127.0.0.2, an IPv4 peer on the IPv6 socket */
	"   1: 0000000000000000FFFF00000100007F:0801 0000000000000000FFFF00000200007F:A001 01 00000000:00000000 00:00000000 00000000     0        0 10 1\n"
	/* 2001:db8::7 */
	"   2: 00000000000000000000000001000000:0801 B80D0120000000000000000007000000:A002 01 00000000:00000000 00:00000000 00000000     0        0 11 1\n";

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "w");
	if (!fp || fputs(text, fp) < 0 || fclose(fp)) {
		perror(path);
		exit(1);
	}
}

static void test_peers(const char *dir)
{
	struct nfsfair_peer *v;
	char a[4][64];
	bool listening;
	int n, i, ret;

	write_file(dir, "tcp", tcp4);
	write_file(dir, "tcp6", tcp6);
	ret = nfsfair_peers_read(dir, 2049, &v, &n, &listening);
	ok(!ret && n == 4 && listening, "peers: four peers of port 2049, and it listens");
	for (i = 0; i < 4 && i < n; i++)
		nfsfair_addr_format(v[i].family, v[i].addr, a[i], sizeof(a[i]));
	ok(n == 4 && !strcmp(a[0], "127.0.0.2") && v[0].family == AF_INET && v[0].connections == 4,
	   "peers: 127.0.0.2, three on the IPv4 table and one IPv4-mapped, as IPv4");
	ok(n == 4 && !strcmp(a[1], "127.0.0.3") && v[1].connections == 1,
	   "peers: 127.0.0.3 once: the closing one is not counted");
	ok(n == 4 && !strcmp(a[2], "::1") && !strcmp(a[3], "2001:db8::7") &&
	   v[2].connections == 1 && v[3].connections == 1, "peers: ::1 and 2001:db8::7, IPv6 last");
	free(v);
	ret = nfsfair_peers_read(dir, 22, &v, &n, &listening);
	ok(!ret && n == 1 && !listening && v[0].connections == 1,
	   "peers: port 22 has one peer and no listener");
	free(v);
	write_file(dir, "tcp", "header\n   0: zz:0801 0200007F:03FF 01\n");
	ret = nfsfair_peers_read(dir, 2049, &v, &n, &listening);
	ok(ret == -EPROTO && !v && !n, "peers: a line that does not parse is an error");
	snprintf(a[0], sizeof(a[0]), "%s/none", dir);
	ret = nfsfair_peers_read(a[0], 2049, &v, &n, &listening);
	ok(!ret && !n && !listening, "peers: no socket tables at all: no peers");
}

/* A peer whose connections live in CLIENTS (NULL-terminated kind list below). */
struct hand_client {
	uint32_t kind;
	const char *what;	/* class name, or per-host prefix */
	uint64_t conns;
	uint64_t id;
};

static void peer_set(struct nfsfair_peer *p, const char *addr, uint64_t conns,
		     const struct hand_client *hc, int n)
{
	char err[NFSFAIR_ERR_LEN];
	struct nfsfair_prefix a;
	int i;

	nfsfair_prefix_parse(addr, &a, err);
	memset(p, 0, sizeof(*p));
	p->family = a.family;
	memcpy(p->addr, a.addr, 16);
	p->connections = conns;
	p->clients = calloc(n + 1, sizeof(*p->clients));
	p->nclients = n;
	for (i = 0; i < n; i++) {
		struct nfsfair_client *k = &p->clients[i];

		k->kind = hc[i].kind;
		k->has_peer = true;
		k->peer_connections = hc[i].conns;
		k->client_id = hc[i].id;
		if (hc[i].kind == NFSFAIR_CLIENT_KIND_CLASS)
			snprintf(k->class, sizeof(k->class), "%s", hc[i].what);
		if (hc[i].kind == NFSFAIR_CLIENT_KIND_PER_HOST)
			nfsfair_prefix_parse(hc[i].what, &k->prefix, err);
	}
}

static struct nfsfair_rule *rules_dup(const struct nfsfair_rule *v, int n)
{
	struct nfsfair_rule *d = malloc((n + 1) * sizeof(*d));

	memcpy(d, v, n * sizeof(*d));
	return d;
}

/* Every move as "ADDR: FROM -> TO (N[, already])" joined by "; ". */
static void moves_text(const struct nfsfair_preview *pv, char *buf, size_t size)
{
	char a[64], from[80], to[80];
	size_t len = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < pv->nmoves; i++) {
		const struct nfsfair_move *m = &pv->moves[i];

		nfsfair_addr_format(m->family, m->addr, a, sizeof(a));
		nfsfair_place_format(&m->from, from, sizeof(from));
		nfsfair_place_format(&m->to, to, sizeof(to));
		len += snprintf(buf + len, size - len, "%s%s: %s -> %s (%llu%s)", i ? "; " : "", a,
				from, to, (unsigned long long)m->connections,
				m->already ? ", already" : "");
	}
}

static char *print_to_string(const struct nfsfair_preview *pv, bool json, const char *lead)
{
	char *text = NULL;
	size_t size = 0;
	FILE *fp = open_memstream(&text, &size);

	output_init(json, fp);
	open_json_object(NULL);
	nfsfair_preview_print(pv, lead);
	close_json_object();
	output_done();
	fclose(fp);
	return text;
}

static void test_diff(void)
{
	const struct nfsfair_rule old[] = {
		rule("127.0.0.2/32", "movers", 0), rule("127.0.0.4/32", "movers", 0),
		rule("10.1.2.0/24", "per-host/24", 0), rule("10.9.0.0/16", "per-client", 0),
		rule("127.0.0.0/8", "per-host", 0), rule("::/0", "per-host/64", 0),
	};
	const struct nfsfair_rule next[] = {
		rule("127.0.0.2/32", "bulk", 0), rule("127.0.0.4/32", "movers", 0),
		rule("10.1.2.0/24", "per-host", 0), rule("10.9.0.0/16", "per-host", 0),
		rule("10.8.0.0/16", "per-host/16", 0),
		rule("127.0.0.0/8", "per-host", 0), rule("::/0", "per-host/64", 0),
	};
	const struct hand_client movers16[] = { { NFSFAIR_CLIENT_KIND_CLASS, "movers", 16, 0 } };
	const struct hand_client host3[] = { { NFSFAIR_CLIENT_KIND_PER_HOST, "127.0.0.3/32", 1, 0 } };
	/* a class per service: two clients of one class hold the peer's connections */
	const struct hand_client movers3[] = {
		{ NFSFAIR_CLIENT_KIND_CLASS, "movers", 2, 0 }, { NFSFAIR_CLIENT_KIND_CLASS, "movers", 1, 0 },
	};
	const struct hand_client net24[] = { { NFSFAIR_CLIENT_KIND_PER_HOST, "10.1.2.0/24", 2, 0 } };
	const struct hand_client bound[] = {
		{ NFSFAIR_CLIENT_KIND_CLIENT_ID, NULL, 3, 0x6543210000000001ULL },
		{ NFSFAIR_CLIENT_KIND_PER_HOST, "10.9.0.5/32", 1, 0 },
	};
	const struct hand_client over[] = { { NFSFAIR_CLIENT_KIND_OVERFLOW, NULL, 2, 0 } };
	const struct hand_client v6[] = { { NFSFAIR_CLIENT_KIND_PER_HOST, "2001:db8::/64", 5, 0 } };
	struct nfsfair_preview pv = { .state = NFSFAIR_PREVIEW_OK, .port = 2049 };
	char got[2048], *text;

	pv.rules = rules_dup(old, 6);
	pv.nrules = 6;
	pv.npeers = 8;
	pv.peers = calloc(pv.npeers, sizeof(*pv.peers));
	peer_set(&pv.peers[0], "10.1.2.3", 2, net24, 1);
	peer_set(&pv.peers[1], "10.8.0.1", 1, NULL, 0);		/* unbound: single queue */
	peer_set(&pv.peers[2], "10.9.0.5", 4, bound, 2);
	peer_set(&pv.peers[3], "127.0.0.2", 16, movers16, 1);
	peer_set(&pv.peers[4], "127.0.0.3", 1, host3, 1);
	peer_set(&pv.peers[5], "127.0.0.4", 4, movers3, 2);	/* and one unbound */
	peer_set(&pv.peers[6], "127.0.0.5", 2, over, 1);
	peer_set(&pv.peers[7], "2001:db8::7", 5, v6, 1);

	ok(!nfsfair_preview_diff(&pv, old, 6) && pv.nmoves == 2 && pv.moving == 2,
	   "diff: the table now against itself moves only what it moves already");
	moves_text(&pv, got, sizeof(got));
	okd(!strcmp(got, "10.8.0.1: single queue -> default (1, already); "
		   "127.0.0.4: single queue -> class movers (1, already)"),
	   "diff: ... the unbound connections, both marked already", got);

	nfsfair_preview_diff(&pv, next, 7);
	moves_text(&pv, got, sizeof(got));
	okd(!strcmp(got, "10.1.2.3: per-host 10.1.2.0/24 -> per-host 10.1.2.3/32 (2); "
		   "10.8.0.1: single queue -> per-host 10.8.0.0/16 (1, already); "
		   "10.9.0.5: client-id 0x6543210000000001 -> per-host 10.9.0.5/32 (3); "
		   "127.0.0.2: class movers -> class bulk (16); "
		   "127.0.0.4: single queue -> class movers (1, already)"),
	   "diff: per-host/24 to /32, unbound to a new rule, a client ID out of per-client, "
	   "a class for another, the unbound kept apart from the class's two clients", got);
	ok(pv.moving == 5 && pv.unchanged == 3 && pv.unchanged_connections == 8 &&
	   pv.connections == 35,
	   "diff: 5 peers move, 3 (127.0.0.3, overflow 127.0.0.5, 2001:db8::7) with 8 stay, of 35");

	nfsfair_preview_diff(&pv, NULL, 0);
	okd(pv.nmoves == 8 && pv.moving == 7 && pv.unchanged == 1,
	    "diff: an empty table sends every peer in a client to the single queue, "
	    "10.8.0.1 stays there", NULL);
	moves_text(&pv, got, sizeof(got));
	okd(strstr(got, "127.0.0.4: class movers -> single queue (3)") &&
	   !strstr(got, "127.0.0.4: single queue"),
	   "diff: ... the class's two clients merged into one line, the unbound stay", got);

	free(pv.rules);
	pv.rules = NULL;
	pv.nrules = 0;
	nfsfair_preview_diff(&pv, NULL, 0);
	moves_text(&pv, got, sizeof(got));
	okd(pv.nmoves == 8 && pv.moving == 7 && pv.unchanged == 1 &&
	    strstr(got, "127.0.0.2: class movers -> single queue (16, already)"),
	    "diff: from no table to none: connections still in clients move already", got);

	/* The printed forms of one small case. */
	nfsfair_preview_free(&pv);
	pv = (struct nfsfair_preview){ .state = NFSFAIR_PREVIEW_OK, .port = 2049 };
	pv.rules = rules_dup(old, 1);
	pv.nrules = 1;
	pv.npeers = 2;
	pv.peers = calloc(2, sizeof(*pv.peers));
	peer_set(&pv.peers[0], "127.0.0.2", 16, movers16, 1);
	peer_set(&pv.peers[1], "127.0.0.3", 1, NULL, 0);
	nfsfair_preview_diff(&pv, next, 1);
	text = print_to_string(&pv, false, "# ");
	okd(!strcmp(text, "# preview: 2 peers with 17 connections to nfsd now: 2 would move, 0 unchanged\n"
			 "#   127.0.0.2: class movers -> class bulk (16 connections)\n"
			 "#   127.0.0.3: single queue -> default (1 connection, moving already)\n"),
	   "print: text, one line per move, with the lead", text);
	free(text);
	text = print_to_string(&pv, true, "");
	okd(!strcmp(text, "{\"preview\":{\"state\":\"ok\",\"port\":2049,\"peers\":2,\"connections\":17,"
			 "\"moving\":2,\"unchanged\":0,\"unchanged_connections\":0,\"moves\":["
			 "{\"peer\":\"127.0.0.2\",\"from\":{\"kind\":\"class\",\"class\":\"movers\"},"
			 "\"to\":{\"kind\":\"class\",\"class\":\"bulk\"},\"connections\":16,"
			 "\"already\":false},"
			 "{\"peer\":\"127.0.0.3\",\"from\":{\"kind\":\"single-queue\"},"
			 "\"to\":{\"kind\":\"default\"},\"connections\":1,\"already\":true}]}}\n"),
	   "print: JSON, the same moves with their places as objects", text);
	free(text);
	nfsfair_preview_free(&pv);

	pv = (struct nfsfair_preview){ .state = NFSFAIR_PREVIEW_OK, .port = 2049 };
	nfsfair_preview_diff(&pv, next, 7);
	text = print_to_string(&pv, false, "");
	okd(!strcmp(text, "preview: no connections to nfsd now: nothing would move\n"),
	   "print: no peers, one line", text);
	free(text);
	pv.state = NFSFAIR_PREVIEW_NO_NFSD;
	text = print_to_string(&pv, false, "");
	okd(!strcmp(text, "preview: nothing listens on TCP port 2049 (no nfsd): "
			 "no live clients to compare\n"), "print: no nfsd, one line", text);
	free(text);
	pv.state = NFSFAIR_PREVIEW_NO_FAMILY;
	snprintf(pv.why, sizeof(pv.why), "no family here");
	text = print_to_string(&pv, true, "");
	okd(!strcmp(text, "{\"preview\":{\"state\":\"no-family\",\"reason\":\"no family here\"}}\n"),
	   "print: no family, JSON with the reason", text);
	free(text);
}

/*
 * A per-client rule's ids-per-host: 1 makes it per-host, so a client ID's
 * connections leave their client for the address's; any other keeps them,
 * as which of an address's IDs are past the bound is the kernel's to say.
 */
static void test_ids_per_host(void)
{
	const struct nfsfair_rule now[] = { rule("10.9.0.0/16", "per-client", 0) };
	struct nfsfair_rule next[] = { rule("10.9.0.0/16", "per-client", 0) };
	const struct hand_client bound[] = {
		{ NFSFAIR_CLIENT_KIND_CLIENT_ID, NULL, 3, 0x6543210000000001ULL },
		{ NFSFAIR_CLIENT_KIND_PER_HOST, "10.9.0.5/32", 1, 0 },
	};
	struct nfsfair_preview pv = { .state = NFSFAIR_PREVIEW_OK, .port = 2049 };
	char got[512];

	pv.rules = rules_dup(now, 1);
	pv.nrules = 1;
	pv.npeers = 1;
	pv.peers = calloc(pv.npeers, sizeof(*pv.peers));
	peer_set(&pv.peers[0], "10.9.0.5", 4, bound, 2);
	next[0].target.ids_per_host = 2;
	ok(!nfsfair_preview_diff(&pv, next, 1) && pv.nmoves == 0 && pv.unchanged == 1,
	   "ids-per-host 2: the client ID's and the unbound connections stay");
	next[0].target.ids_per_host = 1;
	nfsfair_preview_diff(&pv, next, 1);
	moves_text(&pv, got, sizeof(got));
	okd(!strcmp(got, "10.9.0.5: client-id 0x6543210000000001 -> per-host 10.9.0.5/32 (3)"),
	    "ids-per-host 1: the client ID's 3 connections move to per-host, the unbound stay", got);
	nfsfair_preview_free(&pv);
}

/*
 * Random IPv4 tables over a small range, and peers steadily where the old
 * table puts them (the kernel after every connection's next request): a
 * peer moves exactly when a naive first-match of the two tables, on
 * 32-bit integers, gives different targets; connections add up.
 */
static uint32_t ip(const struct nfsfair_prefix *p)
{
	return (uint32_t)p->addr[0] << 24 | p->addr[1] << 16 | p->addr[2] << 8 | p->addr[3];
}

static void naive_target(const struct nfsfair_rule *v, int n, uint32_t a, char *buf, size_t size)
{
	int i;

	if (!n) {
		snprintf(buf, size, "single");
		return;
	}
	for (i = 0; i < n; i++) {
		uint32_t mask = v[i].prefix.len ? ~0u << (32 - v[i].prefix.len) : 0;
		unsigned int h = v[i].target.per_host_len ? v[i].target.per_host_len : 32;

		if ((a & mask) != ip(&v[i].prefix))
			continue;
		if (v[i].target.kind == NFSFAIR_TARGET_CLASS)
			snprintf(buf, size, "class %s", v[i].target.class);
		else
			snprintf(buf, size, "host %08x/%u", a & (~0u << (32 - h)), h);
		return;
	}
	snprintf(buf, size, "default");
}

static void random_table(struct nfsfair_rule *v, int n)
{
	static const char *const targets[] = { "a", "b", "c", "per-host", "per-host/30", "per-host/29" };
	char p[32];
	int i, len;
	uint32_t a;

	for (i = 0; i < n; i++) {
		len = 26 + rand() % 7;
		a = (0x0a000000 | (rand() & 0xff)) & (~0u << (32 - len));
		snprintf(p, sizeof(p), "%u.%u.%u.%u/%d", a >> 24, (a >> 16) & 0xff, (a >> 8) & 0xff,
			 a & 0xff, len);
		v[i] = rule(p, targets[rand() % 6], 0);
	}
}

static void test_random(void)
{
	struct nfsfair_rule old[12], next[12];
	struct nfsfair_place pl;
	char a[32], t_old[64], t_new[64];
	int round, i, nold, nnext, bad = 0, bad_sum = 0;
	int want_moving;
	bool used[256];

	srand(13);
	for (round = 0; round < 3000; round++) {
		struct nfsfair_preview pv = { .state = NFSFAIR_PREVIEW_OK };
		uint64_t sum = 0, total = 0;

		nold = rand() % 13;
		nnext = rand() % 13;
		random_table(old, nold);
		random_table(next, nnext);
		pv.rules = rules_dup(old, nold);
		pv.nrules = nold;
		pv.npeers = 1 + rand() % 20;
		pv.peers = calloc(pv.npeers, sizeof(*pv.peers));
		want_moving = 0;
		memset(used, 0, sizeof(used));
		for (i = 0; i < pv.npeers; i++) {
			struct nfsfair_peer *p = &pv.peers[i];
			uint32_t addr;

			/* distinct addresses, as the socket table gives */
			do
				addr = 0x0a000000 | (rand() & 0xff);
			while (used[addr & 0xff]);
			used[addr & 0xff] = true;
			snprintf(a, sizeof(a), "10.0.0.%u", addr & 0xff);
			peer_set(p, a, 1 + rand() % 16, NULL, 0);
			total += p->connections;
			nfsfair_place_of_table(old, nold, AF_INET, p->addr, &pl);
			if (pl.kind != NFSFAIR_PLACE_SINGLE) {
				p->clients = calloc(1, sizeof(*p->clients));
				p->nclients = 1;
				p->clients[0].has_peer = true;
				p->clients[0].peer_connections = p->connections;
				p->clients[0].kind = pl.kind == NFSFAIR_PLACE_CLASS ?
					NFSFAIR_CLIENT_KIND_CLASS : pl.kind == NFSFAIR_PLACE_DEFAULT ?
					NFSFAIR_CLIENT_KIND_DEFAULT : NFSFAIR_CLIENT_KIND_PER_HOST;
				snprintf(p->clients[0].class, sizeof(p->clients[0].class), "%s",
					 pl.class);
				p->clients[0].prefix = pl.host;
			}
			naive_target(old, nold, addr, t_old, sizeof(t_old));
			naive_target(next, nnext, addr, t_new, sizeof(t_new));
			want_moving += strcmp(t_old, t_new) != 0;
		}
		nfsfair_preview_diff(&pv, next, nnext);
		for (i = 0; i < pv.nmoves; i++) {
			sum += pv.moves[i].connections;
			bad += pv.moves[i].already;
		}
		if (pv.moving != want_moving || pv.moving != pv.nmoves ||
		    pv.moving + pv.unchanged != pv.npeers)
			bad++;
		if (sum + pv.unchanged_connections != total || pv.connections != total)
			bad_sum++;
		nfsfair_preview_free(&pv);
	}
	ok(!bad, "random: 3000 table pairs, a peer moves exactly when the naive targets differ, "
		 "and never 'already' when it sits where the old table puts it");
	ok(!bad_sum, "random: moved and unchanged connections add up to the peers'");
}

static void test_cleanup(const char *dir)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/tcp", dir);
	remove(path);
	snprintf(path, sizeof(path), "%s/tcp6", dir);
	remove(path);
	rmdir(dir);
}

int main(void)
{
	char dir[] = "/tmp/nfsfair-preview.XXXXXX";

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_splice();
	test_peers(dir);
	test_diff();
	test_ids_per_host();
	test_random();
	test_cleanup(dir);
	printf("1..%d\n", count);
	return failures ? 1 : 0;
}
