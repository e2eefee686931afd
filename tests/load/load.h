/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nfsfair-load: a load generator that keeps NFS RPCs outstanding on TCP
 * connections from chosen source addresses, to measure how fairly knfsd
 * shares its threads between clients. It speaks NFSv3 (rpc.c) or NFSv4.1
 * over sessions (nfs41.c for the wire format, session.c for client IDs,
 * sessions and slots).
 */
#ifndef NFSFAIR_LOAD_H
#define NFSFAIR_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#define PROG_NAME "nfsfair-load"
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define GROUP_NAME_MAX 32
#define MAX_CONNS 4096		/* per group */
#define MAX_DEPTH 4096		/* per connection */
#define MAX_WINDOWS 100000	/* --window-ms windows in a run */
#define MAX_HOLDS 64		/* holds in one HOLD list */

enum load_proc {
	LOAD_PROC_NULL,			/* NFSv3 NULL */
	LOAD_PROC_GETATTR,		/* NFSv3 GETATTR of the hold handle */
	LOAD_PROC_V41,			/* NFSv4.1 SEQUENCE, PUTFH of the hold handle */
};

const char *load_proc_name(enum load_proc proc);

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

/* HOLD: holds in us, cycled call by call (n == 0: none given). */
struct hold_list {
	uint32_t us[MAX_HOLDS];
	unsigned int n;
};

/* A change to one group's calls over the measured time. */
enum sched_kind {
	SCHED_SWITCH,			/* --hold-switch NAME:SECONDS:HOLD */
	SCHED_START,			/* --start NAME:SECONDS */
	SCHED_PAUSE,			/* --pause NAME:FROM:TO */
};

struct sched {
	enum sched_kind kind;
	const char *arg;		/* as given, for messages */
	char name[GROUP_NAME_MAX];
	struct group *g;		/* resolved once every --group is read */
	double from_s, to_s;		/* into the measured time; to: a pause's end */
	uint64_t from_ns, to_ns;
	struct hold_list hold;		/* SCHED_SWITCH */
};

struct group {
	char name[GROUP_NAME_MAX];
	char source[64];		/* the address as printed */
	struct sockaddr_storage src;
	socklen_t src_len;
	unsigned int conns;
	unsigned int depth;
	bool burst;			/* the --burst-group */
	struct hold_list hold;		/* its own holds (n == 0: --hold-us) */
	const struct sched *start;	/* --start, or NULL */
	bool paused;			/* has a --pause */
	/* the run's state */
	const struct hold_list *cur;	/* the holds in use (NULL: --hold-us) */
	unsigned int hold_next;		/* the next one's index in it */
	/* results, from the end of the warm-up on (errors: whole run) */
	uint64_t ops;
	uint64_t errors;
	uint64_t thread_us;		/* holds asked by the calls counted in ops */
	uint64_t first_ns;		/* --start: its first completion (0: none) */
	struct hist *lat;
	uint64_t *windows;		/* --window-ms: completions in each window */
	uint64_t *win_thread_ns;	/* --window-ms: hold time in each window */
	/* v4.1: the sessions the group's connections share */
	unsigned int sessions;
	unsigned int slots;		/* fore channel slots granted, all sessions */
};

struct options {
	const char *server_str;
	struct sockaddr_storage server;
	socklen_t server_len;
	unsigned int port;
	struct group *groups;
	unsigned int ngroups;
	enum load_proc proc;
	uint32_t hold_us;		/* for groups without a HOLD of their own */
	uint32_t hold_max_us;		/* the longest hold any call may ask */
	struct sched *sched;		/* --hold-switch, --start, --pause */
	unsigned int nsched;
	double jitter_pct;
	double duration_s;
	double warmup_s;
	double timeout_s;
	unsigned int burst_n;		/* 0: backlogged mode */
	const char *burst_group;
	unsigned int repeat;
	unsigned int window_ms;		/* 0: no windows */
	unsigned int nwindows;		/* windows in --duration, the last maybe short */
	bool json;
	bool dump_request;
};

struct results {
	double duration_s;		/* length of the measured window */
	uint64_t start_ns;		/* its start, CLOCK_MONOTONIC */
	double *runs_ms;		/* burst mode: one per completed burst */
	unsigned int nruns;
	bool timed_out;
	bool failed;			/* a connection failed */
};

/* XDR (RFC 4506): big-endian 32-bit units, opaques padded to a unit. */
static inline uint8_t *xdr_put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
	return p + 4;
}

static inline uint8_t *xdr_put64(uint8_t *p, uint64_t v)
{
	return xdr_put32(xdr_put32(p, v >> 32), v);
}

/* xdr_put_fixed - fixed-length opaque: the bytes and their padding. */
static inline uint8_t *xdr_put_fixed(uint8_t *p, const void *data, uint32_t len)
{
	uint32_t pad = (4 - (len & 3)) & 3;

	memcpy(p, data, len);
	memset(p + len, 0, pad);
	return p + len + pad;
}

/* xdr_put_opaque - variable-length opaque: length, bytes, padding. */
static inline uint8_t *xdr_put_opaque(uint8_t *p, const void *data, uint32_t len)
{
	return xdr_put_fixed(xdr_put32(p, len), data, len);
}

static inline uint32_t xdr_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* rpc.c */
#define RPC_CALL_MAX 256		/* bytes, record mark included */
#define RPC_RECORD_MAX (1u << 20)	/* largest reply record we accept */
#define HOLD_FH_LEN 16			/* the hold hook's handle */

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
	const uint8_t *body;		/* RPC_REPLY_OK: the procedure's results */
	size_t body_len;
};

size_t rpc_encode_call(uint8_t *buf, uint32_t xid, enum load_proc proc, uint32_t hold_us);
uint8_t *rpc_put_call_header(uint8_t *buf, uint32_t xid, uint32_t vers, uint32_t proc);
size_t rpc_end_call(uint8_t *buf, const uint8_t *end);
uint8_t *rpc_put_hold_fh(uint8_t *p, uint32_t hold_us);
int rpc_decode_reply(const uint8_t *rec, size_t len, struct rpc_reply *r);
void rpc_reply_describe(const struct rpc_reply *r, char *buf, size_t size);

/* nfs41.c: NFSv4.1 COMPOUNDs (RFC 8881), encoded and decoded */
#define NFS4_SESSIONID_SIZE 16
#define NFS4_VERIFIER_SIZE 8
#define NFS4_OWNER_MAX 128		/* co_ownerid bytes we send */
#define NFS41_OPS_MAX 2			/* operations in any COMPOUND we send */

enum {
	NFS4_OK = 0,
	NFS4ERR_STALE = 70,
};

enum nfs41_op {
	OP_PUTFH = 22,
	OP_BIND_CONN_TO_SESSION = 41,
	OP_EXCHANGE_ID = 42,
	OP_CREATE_SESSION = 43,
	OP_DESTROY_SESSION = 44,
	OP_SEQUENCE = 53,
	OP_DESTROY_CLIENTID = 57,
};

/* channel_attrs4, without the RDMA ird (never sent, skipped when read) */
struct nfs41_chan_attrs {
	uint32_t headerpadsize;
	uint32_t maxrequestsize;
	uint32_t maxresponsesize;
	uint32_t maxresponsesize_cached;
	uint32_t maxoperations;
	uint32_t maxrequests;
};

/* SEQUENCE4args, and the matching fields of SEQUENCE4resok */
struct nfs41_seq {
	uint8_t sessionid[NFS4_SESSIONID_SIZE];
	uint32_t seqid;
	uint32_t slotid;
	uint32_t highest_slotid;
	uint32_t target_highest_slotid;	/* reply only */
	uint32_t status_flags;		/* reply only */
};

/*
 * A decoded COMPOUND4res: its status, each operation's status, and the
 * results we use of the operations that succeeded.
 */
struct nfs41_res {
	uint32_t status;
	unsigned int nops;			/* results present */
	uint32_t op[NFS41_OPS_MAX];
	uint32_t op_status[NFS41_OPS_MAX];
	struct {
		uint64_t clientid;
		uint32_t seqid;
		uint32_t flags;
	} exid;
	struct {
		uint8_t sessionid[NFS4_SESSIONID_SIZE];
		uint32_t seqid;
		uint32_t flags;
		struct nfs41_chan_attrs fore;
	} cs;
	struct {
		uint8_t sessionid[NFS4_SESSIONID_SIZE];
		uint32_t dir;
	} bind;
	struct nfs41_seq seq;
};

size_t nfs41_encode_exchange_id(uint8_t *buf, uint32_t xid,
				const uint8_t verifier[NFS4_VERIFIER_SIZE],
				const void *owner, uint32_t owner_len);
size_t nfs41_encode_create_session(uint8_t *buf, uint32_t xid, uint64_t clientid, uint32_t seqid,
				   const struct nfs41_chan_attrs *fore,
				   const struct nfs41_chan_attrs *back, uint32_t cb_program);
size_t nfs41_encode_bind_conn(uint8_t *buf, uint32_t xid,
			      const uint8_t sessionid[NFS4_SESSIONID_SIZE]);
size_t nfs41_encode_destroy_session(uint8_t *buf, uint32_t xid,
				    const uint8_t sessionid[NFS4_SESSIONID_SIZE]);
size_t nfs41_encode_destroy_clientid(uint8_t *buf, uint32_t xid, uint64_t clientid);
size_t nfs41_encode_probe(uint8_t *buf, uint32_t xid, const struct nfs41_seq *seq,
			  uint32_t hold_us);
int nfs41_decode_res(const uint8_t *p, size_t len, const uint32_t *ops, unsigned int nops,
		     struct nfs41_res *res);
const char *nfs41_op_name(uint32_t op);
void nfs41_status_describe(uint32_t status, char *buf, size_t size);

/* engine.c */
int load_run(const struct options *o, struct results *res);
uint32_t load_hold_us(const struct options *o, uint32_t base_us, uint64_t *rng);
uint32_t load_xid_base(unsigned int id);
int format_addr(const struct sockaddr_storage *ss, bool with_port, char *buf, size_t size);

#endif /* NFSFAIR_LOAD_H */
