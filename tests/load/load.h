/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nfsfair-load: a load generator that keeps NFSv3 RPCs outstanding on TCP
 * connections from chosen source addresses, to measure how fairly knfsd
 * shares its threads between clients.
 */
#ifndef NFSFAIR_LOAD_H
#define NFSFAIR_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define PROG_NAME "nfsfair-load"
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define GROUP_NAME_MAX 32
#define MAX_CONNS 4096		/* per group */
#define MAX_DEPTH 4096		/* per connection */

enum load_proc {
	LOAD_PROC_NULL,
	LOAD_PROC_GETATTR,
};

/*
 * Latency histogram in nanoseconds, log-linear: exact below 256 ns, then
 * 128 buckets per power of two, so a quantile is off by less than 0.4 %.
 */
#define HIST_SUB_BITS 7
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_BUCKETS ((64 - HIST_SUB_BITS + 1) * HIST_SUB)

struct hist {
	uint64_t count;
	uint64_t bucket[HIST_BUCKETS];
};

void hist_add(struct hist *h, uint64_t ns);
void hist_merge(struct hist *dst, const struct hist *src);
uint64_t hist_quantile(const struct hist *h, double q);

struct group {
	char name[GROUP_NAME_MAX];
	char source[64];		/* the address as printed */
	struct sockaddr_storage src;
	socklen_t src_len;
	unsigned int conns;
	unsigned int depth;
	bool burst;			/* the --burst-group */
	/* results, from the end of the warm-up on (errors: whole run) */
	uint64_t ops;
	uint64_t errors;
	struct hist *lat;
};

struct options {
	const char *server_str;
	struct sockaddr_storage server;
	socklen_t server_len;
	unsigned int port;
	struct group *groups;
	unsigned int ngroups;
	enum load_proc proc;
	uint32_t hold_us;
	double jitter_pct;
	double duration_s;
	double warmup_s;
	double timeout_s;
	unsigned int burst_n;		/* 0: backlogged mode */
	const char *burst_group;
	unsigned int repeat;
	bool json;
	bool dump_request;
};

struct results {
	double duration_s;		/* length of the measured window */
	double *runs_ms;		/* burst mode: one per completed burst */
	unsigned int nruns;
	bool timed_out;
	bool failed;			/* a connection failed */
};

/* rpc.c */
#define RPC_CALL_MAX 128		/* bytes, record mark included */
#define RPC_RECORD_MAX (1u << 20)	/* largest reply record we accept */

enum rpc_reply_status {
	RPC_REPLY_OK,			/* accepted, SUCCESS */
	RPC_REPLY_DENIED,		/* MSG_DENIED; detail: reject_stat */
	RPC_REPLY_UNACCEPTED,		/* accept_stat != SUCCESS; detail: accept_stat */
	RPC_REPLY_GARBLED,		/* truncated or not a reply */
};

struct rpc_reply {
	uint32_t xid;
	enum rpc_reply_status status;
	uint32_t detail;
	int64_t nfs_status;		/* -1: none (NULL procedure) */
};

size_t rpc_encode_call(uint8_t *buf, uint32_t xid, enum load_proc proc, uint32_t hold_us);
int rpc_decode_reply(const uint8_t *rec, size_t len, struct rpc_reply *r);
void rpc_reply_describe(const struct rpc_reply *r, char *buf, size_t size);

/* engine.c */
int load_run(const struct options *o, struct results *res);
uint32_t load_hold_us(const struct options *o, uint64_t *rng);
uint32_t load_xid_base(unsigned int id);
int format_addr(const struct sockaddr_storage *ss, bool with_port, char *buf, size_t size);

#endif /* NFSFAIR_LOAD_H */
