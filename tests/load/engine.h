/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside nfsfair-load's engine: the run, its connections and their call
 * slots, shared by engine.c (the epoll loop, protocol-blind but for the
 * call it encodes) and session.c (NFSv4.1 client IDs, sessions, slots).
 */
#ifndef NFSFAIR_ENGINE_H
#define NFSFAIR_ENGINE_H

#include "load.h"

enum phase {
	PH_CONNECT,			/* connecting and, for v4.1, setting up sessions */
	PH_WARMUP, PH_MEASURE, PH_BURST, PH_GAP,
	PH_TEARDOWN,			/* v4.1: draining, then destroying sessions */
	PH_DONE,
};

struct slot {
	uint32_t xid;
	uint32_t gen;			/* calls this slot has carried */
	uint32_t seqid;			/* v4.1: the last sa_sequenceid SEQUENCE took */
	uint64_t sent_ns;
	uint32_t hold_us;		/* the hold its call asked */
	bool busy;
};

struct client41;

struct conn {
	struct group *g;
	int fd;
	bool up;			/* connected */
	bool ready;			/* set up: calls may go */
	bool pollout;			/* EPOLLOUT is armed */
	uint32_t xid_base;
	unsigned int slot_shift;	/* xid - base: gen << shift | slot */
	struct slot *slots;
	unsigned int *free;		/* stack of free slot numbers */
	unsigned int nfree;
	unsigned int quota;		/* burst: calls this burst still has to send */
	uint8_t *out;			/* depth * RPC_CALL_MAX bytes */
	size_t out_len, out_off;
	uint8_t *in;
	size_t in_len;
	uint8_t *rec;			/* the reply record being joined */
	size_t rec_len, rec_cap;
	uint32_t frag_left;
	bool in_frag, frag_last;
	char desc[256];

	/* v4.1 (session.c) */
	struct client41 *cl;		/* the group's client */
	unsigned int sess;		/* the session this connection's calls use */
	uint32_t slot_base;		/* slot number 0's slot ID in that session */
	bool call_pending;		/* a set-up call outside the slots is out */
	uint32_t call_op;		/* its operation */
	uint32_t call_xid;
	unsigned int ncalls;		/* set-up calls made, for their xids */
};

struct run {
	const struct options *o;
	struct results *res;
	struct conn *conns;
	unsigned int nconns;
	unsigned int npending;		/* connections not ready yet */
	int epfd;
	enum phase phase;
	uint64_t phase_end;		/* 0: none */
	uint64_t deadline;
	uint64_t measure_start, measure_end;
	uint64_t burst_start;
	uint64_t burst_left;		/* burst replies still to come */
	uint64_t outstanding;		/* calls in slots, all connections */
	uint64_t wake;			/* a quiet group's next start (0: none) */
	uint64_t rng;
	unsigned int errors_shown;
	struct client41 *clients;	/* v4.1: one per group */
};

/* engine.c */
uint64_t now_ns(void);
int conn_fail(struct run *r, struct conn *c, const char *what, int err);
uint8_t *conn_out_tail(struct conn *c);
int conn_queue(struct run *r, struct conn *c, size_t len);
int conn_ready(struct run *r, struct conn *c);
void run_done(struct run *r);

/* session.c */
int session_init(struct run *r);
void session_free(struct run *r);
int session_conn_up(struct run *r, struct conn *c);
int session_call_reply(struct run *r, struct conn *c, const struct rpc_reply *rep);
size_t session_encode_probe(const struct conn *c, unsigned int idx, uint8_t *buf,
			    uint32_t hold_us);
int session_probe_reply(struct run *r, struct conn *c, unsigned int idx,
			const struct rpc_reply *rep);
void session_teardown(struct run *r);

#endif /* NFSFAIR_ENGINE_H */
