/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libnfsfair: what nfsfair-ctl and nfsfaird share. Prefixes and rules as
 * text, the netlink conversation with the kernel's nfsfair family, and one
 * print path for text and JSON.
 */
#ifndef NFSFAIR_H
#define NFSFAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/nfsfair_netlink.h>

/* Room for any message the library writes into a caller's buffer. */
#define NFSFAIR_ERR_LEN 256
/* Room for "ffff:...:ffff/128". */
#define NFSFAIR_PREFIX_STRLEN 64
/* Room for "-s PREFIX -j per-client/128 --ids-per-host 4096 --origin 255". */
#define NFSFAIR_RULE_STRLEN 128
/* The kernel's caps on one namespace's table (SVC_FAIR_MAX_RULES, _CLASSES). */
#define NFSFAIR_MAX_RULES 131072
#define NFSFAIR_MAX_CLASSES 1024

/* prefix.c */

struct nfsfair_prefix {
	int family;		/* AF_INET or AF_INET6 */
	uint8_t len;
	uint8_t addr[16];	/* network order; 4 bytes used for AF_INET */
};

int nfsfair_prefix_parse(const char *s, struct nfsfair_prefix *p, char *err);
int nfsfair_prefix_format(const struct nfsfair_prefix *p, char *buf, size_t size);
int nfsfair_addr_format(int family, const uint8_t *addr, char *buf, size_t size);
unsigned int nfsfair_family_bits(int family);
void nfsfair_addr_mask(int family, const uint8_t *addr, unsigned int len, uint8_t *out);
bool nfsfair_prefix_contains(const struct nfsfair_prefix *p, int family, const uint8_t *addr);
bool nfsfair_prefix_equal(const struct nfsfair_prefix *a, const struct nfsfair_prefix *b);

/* rule.c */

enum nfsfair_target_kind {
	NFSFAIR_TARGET_CLASS,
	NFSFAIR_TARGET_PER_HOST,
	NFSFAIR_TARGET_PER_CLIENT,	/* by NFSv4.1 client ID; per-host until bound */
};

struct nfsfair_target {
	enum nfsfair_target_kind kind;
	char class[NFSFAIR_NAME_LEN + 1];
	uint8_t per_host_len;	/* 0: the whole address of the rule's family */
	uint32_t ids_per_host;	/* per-client only; 0: NFSFAIR_IDS_PER_HOST_DEFAULT */
};

struct nfsfair_rule {
	struct nfsfair_prefix prefix;
	struct nfsfair_target target;
	uint8_t origin;
	uint32_t position;	/* 1-based; 0 when not from the kernel */
	uint64_t hits;
};

/* What nfsfair_class_name_check() says of a name with a byte outside the rule. */
#define NFSFAIR_NAME_RULE \
	"a class name is letters, digits, '.', '_' and '-', starting with a letter or a digit"
int nfsfair_class_name_check(const char *name, char *err);
int nfsfair_target_parse(const char *s, struct nfsfair_target *t, char *err);
int nfsfair_target_format(const struct nfsfair_target *t, int family, char *buf, size_t size);
uint8_t nfsfair_target_per_host_len(const struct nfsfair_target *t, int family);
uint32_t nfsfair_target_ids_per_host(const struct nfsfair_target *t);
int nfsfair_rule_check(const struct nfsfair_rule *r, char *err);
int nfsfair_rule_format(const struct nfsfair_rule *r, char *buf, size_t size);
bool nfsfair_rule_equal(const struct nfsfair_rule *a, const struct nfsfair_rule *b);
int nfsfair_uint_parse(const char *s, uint64_t max, uint64_t *out);

/* shadow.c: rules that earlier rules of their family cover entirely */

int nfsfair_rules_shadowed(const struct nfsfair_rule *v, int n, bool *shadowed);

/* save.c: the save/restore format, one item per line */

enum nfsfair_line_kind {
	NFSFAIR_LINE_EMPTY,	/* blank or comment */
	NFSFAIR_LINE_CLASS,	/* -N NAME [--weight W] [--limit N] */
	NFSFAIR_LINE_RULE,	/* -A -s PREFIX -j TARGET [--ids-per-host N] [--origin O] */
};

struct nfsfair_line {
	enum nfsfair_line_kind kind;
	char class[NFSFAIR_NAME_LEN + 1];
	uint32_t weight;
	uint32_t limit;		/* 0: none */
	struct nfsfair_rule rule;
};

int nfsfair_line_parse(const char *text, struct nfsfair_line *l, char *err);

/* nl.c: the one owner of the socket, send, ack, extack and receive */

struct nfsfair_nl;
struct nl_msg;
struct nlattr;

/* Called per reply or notification with its attributes parsed to maxattr. */
typedef int (*nfsfair_nl_cb)(struct nlattr **tb, void *arg);

int nfsfair_netns_enter(const char *name, char *err);
int nfsfair_nl_open(struct nfsfair_nl **nlp, char *err);
void nfsfair_nl_close(struct nfsfair_nl *nl);
/* Big enough for a whole table-replace at the kernel's caps. */
#define NFSFAIR_NL_MSG_MAX	(8 << 20)

struct nl_msg *nfsfair_nl_msg(struct nfsfair_nl *nl, uint8_t cmd, bool dump);
struct nl_msg *nfsfair_nl_msg_big(struct nfsfair_nl *nl, uint8_t cmd);
int nfsfair_nl_run(struct nfsfair_nl *nl, struct nl_msg *msg, int maxattr,
		   nfsfair_nl_cb cb, void *arg);
int nfsfair_nl_subscribe(struct nfsfair_nl *nl, const char *group);
int nfsfair_nl_listen(struct nfsfair_nl *nl, int maxattr, nfsfair_nl_cb cb, void *arg);
const char *nfsfair_nl_extack(const struct nfsfair_nl *nl);
int nfsfair_nl_bad_attr(const struct nfsfair_nl *nl, int *nested, int *index);
uint64_t nfsfair_nla_uint(const struct nlattr *a);
int nfsfair_nla_put_prefix(struct nl_msg *msg, int attr4, int attr6, int attr_len,
			   const struct nfsfair_prefix *p);
int nfsfair_nla_put_rule(struct nl_msg *msg, const struct nfsfair_rule *r, bool origin);
int nfsfair_nla_get_rule(struct nlattr **tb, struct nfsfair_rule *r);
int nfsfair_nla_put_class(struct nl_msg *msg, const char *name, uint32_t weight, uint32_t limit,
			  bool limit_too);
int nfsfair_nl_each(const struct nfsfair_nl *nl, int type,
		    int (*fn)(const struct nlattr *a, void *arg), void *arg);

/* read.c: the kernel's table read back */

/*
 * A counter the kernel did not send: one from before thread-time (an older
 * module, Debian's stock build) has no thread-ns or cost-ns. Never printed
 * as a number; 584 years of nanoseconds away from any real count.
 */
#define NFSFAIR_UNKNOWN UINT64_MAX

/* One thread pool's share of a class's or a client's counters. */
struct nfsfair_pool {
	int item;			/* the class's or client's index in its dump */
	uint32_t id;
	uint64_t dispatches, queued, threads, qtime_total_us, qtime_max_us;
	uint64_t thread_ns;		/* or NFSFAIR_UNKNOWN */
};

struct nfsfair_class {
	char name[NFSFAIR_NAME_LEN + 1];
	uint32_t weight;
	uint32_t limit;			/* most threads at once; 0: none */
	uint64_t rules, dispatches, connections, queued, qtime_total_us, qtime_max_us, threads;
	uint64_t peers;
	uint64_t limit_skips, limit_time_us, threads_max;
	uint64_t thread_ns;		/* time its calls held a thread; or NFSFAIR_UNKNOWN */
	const struct nfsfair_pool *pools;	/* in the dump's pool array; NULL without */
	int npools;
};

int nfsfair_read_rules(struct nfsfair_nl *nl, struct nfsfair_rule **v, int *n);
int nfsfair_read_classes(struct nfsfair_nl *nl, struct nfsfair_class **v, int *n);
int nfsfair_read_classes_pools(struct nfsfair_nl *nl, struct nfsfair_class **v, int *n,
			       struct nfsfair_pool **pools, int *npools);

/* A live client of nfsd (client-get). */
struct nfsfair_client {
	uint32_t kind;			/* enum nfsfair_client_kind */
	char class[NFSFAIR_NAME_LEN + 1];
	struct nfsfair_prefix prefix;	/* per-host: the masked address */
	uint64_t client_id;		/* client-id: boot verifier << 32 | counter */
	uint8_t owner[NFSFAIR_OWNER_LEN];
	uint8_t owner_len;
	uint64_t connections, dispatches, queued, peers;
	bool has_peer;			/* the kernel filtered by the peer asked for */
	uint64_t peer_connections;
	uint64_t threads;
	uint64_t thread_ns;		/* or NFSFAIR_UNKNOWN, as cost_ns */
	uint64_t cost_ns;		/* what its next call is charged at dispatch */
	const struct nfsfair_pool *pools;	/* in the dump's pool array; NULL without */
	int npools;
};

int nfsfair_read_clients(struct nfsfair_nl *nl, const struct nfsfair_prefix *peer,
			 struct nfsfair_client **v, int *n);
int nfsfair_read_clients_pools(struct nfsfair_nl *nl, const struct nfsfair_prefix *peer,
			       struct nfsfair_client **v, int *n, struct nfsfair_pool **pools,
			       int *npools);

/* preview.c: what a new table would do to the peers connected to nfsd now */

#define NFSFAIR_NFSD_PORT 2049

enum nfsfair_place_kind {
	NFSFAIR_PLACE_SINGLE,		/* no table: the single queue */
	NFSFAIR_PLACE_DEFAULT,		/* no rule matched */
	NFSFAIR_PLACE_CLASS,
	NFSFAIR_PLACE_PER_HOST,
	NFSFAIR_PLACE_PER_CLIENT,	/* its NFSv4.1 client ID's; per-host until bound */
	NFSFAIR_PLACE_CLIENT_ID,
	NFSFAIR_PLACE_OVERFLOW,
};

/* Where a connection is, or where a table sends it. */
struct nfsfair_place {
	enum nfsfair_place_kind kind;
	char class[NFSFAIR_NAME_LEN + 1];
	struct nfsfair_prefix host;	/* per-host, per-client: the masked address */
	uint64_t client_id;
};

/* A peer with established connections to nfsd, and the clients holding them. */
struct nfsfair_peer {
	int family;
	uint8_t addr[16];		/* an IPv4-mapped peer is AF_INET */
	uint64_t connections;		/* established, as the socket table says */
	struct nfsfair_client *clients;	/* only those holding this peer's */
	int nclients;
};

struct nfsfair_move {
	int family;
	uint8_t addr[16];
	struct nfsfair_place from, to;
	uint64_t connections;
	bool already;			/* the table now would move them too */
};

enum nfsfair_preview_state {
	NFSFAIR_PREVIEW_OK,
	NFSFAIR_PREVIEW_NO_FAMILY,	/* the kernel has no nfsfair family */
	NFSFAIR_PREVIEW_NO_NFSD,	/* nothing listens on nfsd's port */
	NFSFAIR_PREVIEW_ERROR,
};

struct nfsfair_preview {
	enum nfsfair_preview_state state;
	char why[NFSFAIR_ERR_LEN];	/* for NO_FAMILY and ERROR */
	unsigned int port;
	struct nfsfair_rule *rules;	/* the table now */
	int nrules;
	struct nfsfair_peer *peers;	/* sorted by address */
	int npeers;
	struct nfsfair_move *moves;	/* in peer order */
	int nmoves;
	int moving, unchanged;		/* peers with and without a move */
	uint64_t connections, unchanged_connections;
};

int nfsfair_rules_match(const struct nfsfair_rule *v, int n, int family, const uint8_t *addr);
void nfsfair_place_of_table(const struct nfsfair_rule *v, int n, int family,
			    const uint8_t *addr, struct nfsfair_place *pl);
void nfsfair_place_of_client(const struct nfsfair_client *k, struct nfsfair_place *pl);
bool nfsfair_place_keeps(const struct nfsfair_place *to, const struct nfsfair_place *now);
int nfsfair_place_format(const struct nfsfair_place *pl, char *buf, size_t size);
int nfsfair_table_splice(const struct nfsfair_rule *cur, int ncur, const struct nfsfair_rule *add,
			 int nadd, uint8_t origin, struct nfsfair_rule **out, int *nout);
int nfsfair_peers_read(const char *dir, unsigned int port, struct nfsfair_peer **v, int *n,
		       bool *listening);
int nfsfair_preview_read(struct nfsfair_preview *pv, const char *netdir, unsigned int port);
int nfsfair_preview_diff(struct nfsfair_preview *pv, const struct nfsfair_rule *next, int n);
void nfsfair_preview_print(const struct nfsfair_preview *pv, const char *lead);
void nfsfair_preview_free(struct nfsfair_preview *pv);

/* output.c: iproute2's idea, one print call for both text and -j JSON */

enum output_type {
	PRINT_FP = 1,		/* text only */
	PRINT_JSON = 2,		/* JSON only */
	PRINT_ANY = 3,
};

void output_init(bool json, FILE *fp);
bool output_is_json(void);
void output_done(void);
void open_json_object(const char *key);
void close_json_object(void);
void open_json_array(const char *key);
void close_json_array(void);
void print_string(enum output_type t, const char *key, const char *fmt, const char *val);
void print_uint(enum output_type t, const char *key, const char *fmt, uint64_t val);
void print_float(enum output_type t, const char *key, const char *fmt, double val);
void print_bool(enum output_type t, const char *key, const char *fmt, bool val);
void print_null(enum output_type t, const char *key, const char *fmt, const char *text);
void print_nl(void);
void output_fmt_count(uint64_t v, bool exact, char *buf, size_t size);
void output_fmt_ns(uint64_t ns, char *buf, size_t size);
/* Room for an owner string with every byte escaped. */
#define NFSFAIR_OWNER_STRLEN (4 * NFSFAIR_OWNER_LEN + 1)
void output_fmt_owner(const uint8_t *owner, size_t len, char *buf, size_t size);

/* textfile.c: metrics files for the node exporter's textfile collector */
void nfsfair_om_label_value(FILE *fp, const char *val);
int nfsfair_textfile_write(const char *path, void (*print)(FILE *fp, const void *arg),
			   const void *arg);

#endif /* NFSFAIR_H */
