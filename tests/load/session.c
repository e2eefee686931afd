// SPDX-License-Identifier: GPL-2.0
/*
 * NFSv4.1 client IDs, sessions and slots for nfsfair-load (--proc v41).
 *
 * Each group is one client: its first connection, the lead, makes the
 * client ID (EXCHANGE_ID) and the sessions (CREATE_SESSION), which bind
 * it to them; every other connection of the group binds itself to its
 * session with BIND_CONN_TO_SESSION before it sends anything else.
 *
 * A connection keeps DEPTH calls outstanding, each in a slot of its own:
 * connection slot i is slot ID slot_base + i of the connection's session.
 * The first CREATE_SESSION asks for CONNS x DEPTH slots. A server may
 * grant fewer (nfsd 6.12 grants at most NFSD_MAX_SLOTS_PER_SESSION, 160,
 * and fewer when its reply cache memory runs short): the session then
 * takes as many whole connections as its grant holds, and the lead asks
 * for a further session on the same client ID for the rest, until every
 * connection has one. A grant smaller than DEPTH ends the run.
 *
 * The fore channel asks for no reply cache (ca_maxresponsesize_cached
 * 0): no call sets sa_cachethis, and nfsd charges each slot its cache
 * size against the memory that limits how many slots it grants. There
 * is no back channel: no delegation or layout is ever handed out.
 *
 * This file holds the state and the order of the calls; nfs41.c their
 * wire format. Set-up and teardown calls are one at a time on a
 * connection, outside its slots, with xids below the connection's base.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"

#define FORE_MAX_SIZE	8192		/* ca_maxrequestsize, ca_maxresponsesize */
#define FORE_MAX_OPS	8
#define BACK_MAX_SIZE	4096		/* what nfsd wants of a back channel */
#define BACK_MAX_OPS	2
#define CB_PROGRAM	0x40000000	/* csa_cb_program; never called */

#define CDFS4_FORE	1		/* channel_dir_from_server4 */
#define CDFS4_BOTH	3

struct sess41 {
	uint8_t id[NFS4_SESSIONID_SIZE];
	uint32_t granted;		/* the fore channel's ca_maxrequests */
	uint32_t used;			/* slots handed to connections, DEPTH each */
};

struct client41 {
	struct group *g;
	struct conn *conn;		/* the group's g->conns connections; [0] leads */
	uint8_t verifier[NFS4_VERIFIER_SIZE];
	char owner[NFS4_OWNER_MAX];	/* co_ownerid */
	uint32_t owner_len;
	uint64_t clientid;
	uint32_t cs_seqid;		/* csa_sequence of the next CREATE_SESSION */
	struct sess41 *sess;		/* at most one per connection */
	unsigned int nsess;
	unsigned int placed;		/* connections given a session and slots */
	unsigned int destroyed;		/* teardown: sessions destroyed */
	bool ready;			/* every connection has its session */
	bool done;			/* teardown: over for this client */
};

/*
 * session_init - a client per group; the owner names the group, this
 * process and its start time, so no two groups and no two runs share a
 * client ID.
 */
int session_init(struct run *r)
{
	const struct options *o = r->o;
	struct client41 *cl;
	struct timespec ts;
	unsigned int gi, i, first = 0;
	uint64_t t;
	int n;

	if (o->proc != LOAD_PROC_V41)
		return 0;
	r->clients = calloc(o->ngroups, sizeof(*r->clients));
	if (!r->clients)
		return -ENOMEM;
	clock_gettime(CLOCK_REALTIME, &ts);
	t = (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	for (gi = 0; gi < o->ngroups; gi++) {
		cl = &r->clients[gi];
		cl->g = &o->groups[gi];
		cl->conn = &r->conns[first];
		cl->sess = calloc(cl->g->conns, sizeof(*cl->sess));
		if (!cl->sess)
			return -ENOMEM;
		xdr_put64(cl->verifier, t);
		n = snprintf(cl->owner, sizeof(cl->owner), "nfsfair-load/%d/%llx/%s",
			     (int)getpid(), (unsigned long long)t, cl->g->name);
		cl->owner_len = n < (int)sizeof(cl->owner) ? (uint32_t)n : sizeof(cl->owner) - 1;
		for (i = 0; i < cl->g->conns; i++)
			cl->conn[i].cl = cl;
		first += cl->g->conns;
	}
	return 0;
}

void session_free(struct run *r)
{
	unsigned int gi;

	if (!r->clients)
		return;
	for (gi = 0; gi < r->o->ngroups; gi++)
		free(r->clients[gi].sess);
	free(r->clients);
	r->clients = NULL;
}

/* call_send - send c a set-up or teardown call of operation op. */
static int call_send(struct run *r, struct conn *c, uint32_t op)
{
	const struct nfs41_chan_attrs back = {
		.maxrequestsize = BACK_MAX_SIZE,
		.maxresponsesize = BACK_MAX_SIZE,
		.maxoperations = BACK_MAX_OPS,
		.maxrequests = 1,
	};
	struct nfs41_chan_attrs fore = {
		.maxrequestsize = FORE_MAX_SIZE,
		.maxresponsesize = FORE_MAX_SIZE,
		.maxoperations = FORE_MAX_OPS,
	};
	struct client41 *cl = c->cl;
	uint8_t *buf = conn_out_tail(c);
	uint32_t xid = c->xid_base - 1 - c->ncalls++;
	size_t len = 0;

	if (!buf)
		return conn_fail(r, c, "no room to queue a set-up call", 0);
	switch (op) {
	case OP_EXCHANGE_ID:
		len = nfs41_encode_exchange_id(buf, xid, cl->verifier, cl->owner, cl->owner_len);
		break;
	case OP_CREATE_SESSION:
		fore.maxrequests = (cl->g->conns - cl->placed) * cl->g->depth;
		len = nfs41_encode_create_session(buf, xid, cl->clientid, cl->cs_seqid, &fore,
						  &back, CB_PROGRAM);
		break;
	case OP_BIND_CONN_TO_SESSION:
		len = nfs41_encode_bind_conn(buf, xid, cl->sess[c->sess].id);
		break;
	case OP_DESTROY_SESSION:
		len = nfs41_encode_destroy_session(buf, xid, cl->sess[cl->destroyed].id);
		break;
	case OP_DESTROY_CLIENTID:
		len = nfs41_encode_destroy_clientid(buf, xid, cl->clientid);
		break;
	}
	c->call_pending = true;
	c->call_op = op;
	c->call_xid = xid;
	return conn_queue(r, c, len);
}

/* session_conn_up - c is connected: the lead starts, the others bind. */
int session_conn_up(struct run *r, struct conn *c)
{
	if (c == c->cl->conn)
		return call_send(r, c, OP_EXCHANGE_ID);
	if (c->cl->ready)
		return call_send(r, c, OP_BIND_CONN_TO_SESSION);
	return 0;			/* created() binds it */
}

/* proto_fail - a v4.1 protocol error: report it and end the run. */
static int __attribute__((format(printf, 3, 4))) proto_fail(struct run *r, struct conn *c,
							    const char *fmt, ...)
{
	char what[256];
	va_list ap;
	int n;

	n = snprintf(what, sizeof(what), "v4.1 protocol error: ");
	va_start(ap, fmt);
	vsnprintf(what + n, sizeof(what) - n, fmt, ap);
	va_end(ap);
	return conn_fail(r, c, what, 0);
}

static bool teardown_over(struct run *r)
{
	unsigned int gi;

	for (gi = 0; gi < r->o->ngroups; gi++)
		if (!r->clients[gi].done)
			return false;
	run_done(r);
	return true;
}

/*
 * teardown_step - the lead's next teardown call: each session in turn,
 * then the client ID, whose reply ends it (session_call_reply).
 */
static int teardown_step(struct run *r, struct client41 *cl)
{
	struct conn *lead = cl->conn;

	if (!cl->done && lead->up) {
		if (cl->destroyed < cl->nsess)
			return call_send(r, lead, OP_DESTROY_SESSION);
		return call_send(r, lead, OP_DESTROY_CLIENTID);
	}
	cl->done = true;
	teardown_over(r);
	return 0;
}

/*
 * session_teardown - every call has had its reply: destroy each client's
 * sessions, then its client ID, on its lead connection.
 */
void session_teardown(struct run *r)
{
	unsigned int gi;

	for (gi = 0; gi < r->o->ngroups && r->phase == PH_TEARDOWN; gi++)
		teardown_step(r, &r->clients[gi]);
}

/* exchanged - EXCHANGE_ID succeeded: create the first session. */
static int exchanged(struct run *r, struct conn *c, const struct nfs41_res *res)
{
	c->cl->clientid = res->exid.clientid;
	c->cl->cs_seqid = res->exid.seqid;
	return call_send(r, c, OP_CREATE_SESSION);
}

/*
 * created - CREATE_SESSION succeeded: give the new session as many of the
 * connections still without one as its granted slots hold, DEPTH slots
 * each. Then ask for another session, or, with every connection placed,
 * bind the other connections that are already up and let the lead go.
 */
static int created(struct run *r, struct conn *c, const struct nfs41_res *res)
{
	struct client41 *cl = c->cl;
	struct group *g = cl->g;
	struct sess41 *s = &cl->sess[cl->nsess];
	uint32_t granted = res->cs.fore.maxrequests;
	unsigned int n, i;
	struct conn *o;
	int err;

	if (granted < g->depth)
		return proto_fail(r, c, "CREATE_SESSION granted %u slots, fewer than the %u calls "
				  "a connection keeps outstanding (DEPTH)", granted, g->depth);
	cl->cs_seqid++;
	memcpy(s->id, res->cs.sessionid, NFS4_SESSIONID_SIZE);
	s->granted = granted;
	n = granted / g->depth;
	if (n > g->conns - cl->placed)
		n = g->conns - cl->placed;
	s->used = n * g->depth;
	for (i = 0; i < n; i++) {
		o = &cl->conn[cl->placed + i];
		o->sess = cl->nsess;
		o->slot_base = i * g->depth;
	}
	cl->placed += n;
	cl->nsess++;
	g->sessions = cl->nsess;
	g->slots += granted;
	if (cl->placed < g->conns)
		return call_send(r, c, OP_CREATE_SESSION);

	cl->ready = true;
	for (i = 1; i < g->conns; i++) {
		o = &cl->conn[i];
		if (o->up && !o->call_pending) {
			err = call_send(r, o, OP_BIND_CONN_TO_SESSION);
			if (err)
				return err;
		}
	}
	return conn_ready(r, c);
}

/* bound - BIND_CONN_TO_SESSION succeeded: check what, and go. */
static int bound(struct run *r, struct conn *c, const struct nfs41_res *res)
{
	if (memcmp(res->bind.sessionid, c->cl->sess[c->sess].id, NFS4_SESSIONID_SIZE))
		return proto_fail(r, c, "BIND_CONN_TO_SESSION answered for another session");
	if (res->bind.dir != CDFS4_FORE && res->bind.dir != CDFS4_BOTH)
		return proto_fail(r, c, "BIND_CONN_TO_SESSION bound the connection to channel %u, "
				  "not the fore channel", res->bind.dir);
	return conn_ready(r, c);
}

/*
 * session_call_reply - the reply to c's set-up or teardown call. Set-up
 * failures end the run; a teardown that fails only leaves the client ID
 * to nfsd's lease, so it is reported and the run's status kept.
 */
int session_call_reply(struct run *r, struct conn *c, const struct rpc_reply *rep)
{
	uint32_t op = c->call_op, status;
	struct nfs41_res res;
	char why[64];

	c->call_pending = false;
	if (rep->status != RPC_REPLY_OK) {
		rpc_reply_describe(rep, why, sizeof(why));
	} else if (nfs41_decode_res(rep->body, rep->body_len, &op, 1, &res) ||
		   (!res.nops && res.status == NFS4_OK)) {
		snprintf(why, sizeof(why), "garbled reply");
	} else {
		status = res.nops ? res.op_status[0] : res.status;
		nfs41_status_describe(status, why, sizeof(why));
		if (status == NFS4_OK) {
			switch (op) {
			case OP_EXCHANGE_ID:
				return exchanged(r, c, &res);
			case OP_CREATE_SESSION:
				return created(r, c, &res);
			case OP_BIND_CONN_TO_SESSION:
				return bound(r, c, &res);
			case OP_DESTROY_SESSION:
				c->cl->destroyed++;
				return teardown_step(r, c->cl);
			default:
				c->cl->done = true;
				teardown_over(r);
				return 0;
			}
		}
	}
	if (r->phase != PH_TEARDOWN)
		return proto_fail(r, c, "%s: %s", nfs41_op_name(op), why);
	fprintf(stderr, "%s: %s: %s at the end of the run: %s: nfsd keeps the client ID "
		"until its lease runs out\n", PROG_NAME, c->desc, nfs41_op_name(op), why);
	c->cl->done = true;
	teardown_over(r);
	return 0;
}

/*
 * session_encode_probe - the measured call for c's slot number idx:
 * SEQUENCE with the slot's next seqid, then PUTFH of the hold handle.
 * sa_highest_slotid is the highest slot ID any connection on the session
 * uses.
 */
size_t session_encode_probe(const struct conn *c, unsigned int idx, uint8_t *buf,
			    uint32_t hold_us)
{
	const struct sess41 *s = &c->cl->sess[c->sess];
	struct nfs41_seq seq = {
		.seqid = c->slots[idx].seqid + 1,
		.slotid = c->slot_base + idx,
		.highest_slotid = s->used - 1,
	};

	memcpy(seq.sessionid, s->id, NFS4_SESSIONID_SIZE);
	return nfs41_encode_probe(buf, c->slots[idx].xid, &seq, hold_us);
}

/*
 * session_probe_reply - check the reply to the probe in c's slot idx.
 * A completed probe is SEQUENCE succeeding for the session, slot and
 * seqid sent (the slot then moves on to that seqid) and PUTFH, and so
 * the COMPOUND, failing with the hold's NFS4ERR_STALE. Anything else is
 * a protocol error that ends the run: returns its negative errno then.
 */
int session_probe_reply(struct run *r, struct conn *c, unsigned int idx,
			const struct rpc_reply *rep)
{
	static const uint32_t ops[] = { OP_SEQUENCE, OP_PUTFH };
	const struct sess41 *s = &c->cl->sess[c->sess];
	struct slot *sl = &c->slots[idx];
	uint32_t seqid = sl->seqid + 1, slotid = c->slot_base + idx;
	struct nfs41_res res;
	char st[48];

	if (nfs41_decode_res(rep->body, rep->body_len, ops, ARRAY_SIZE(ops), &res))
		return proto_fail(r, c, "garbled reply to SEQUENCE, PUTFH (xid 0x%08x)", rep->xid);
	if (!res.nops) {
		nfs41_status_describe(res.status, st, sizeof(st));
		return proto_fail(r, c, "COMPOUND failed before SEQUENCE (slot %u seqid %u): %s",
				  slotid, seqid, st);
	}
	if (res.op_status[0] != NFS4_OK) {
		nfs41_status_describe(res.op_status[0], st, sizeof(st));
		return proto_fail(r, c, "SEQUENCE on slot %u seqid %u: %s", slotid, seqid, st);
	}
	if (memcmp(res.seq.sessionid, s->id, NFS4_SESSIONID_SIZE) ||
	    res.seq.slotid != slotid || res.seq.seqid != seqid)
		return proto_fail(r, c, "SEQUENCE answered slot %u seqid %u (or another session) "
				  "to slot %u seqid %u", res.seq.slotid, res.seq.seqid, slotid, seqid);
	sl->seqid = seqid;
	if (res.nops < 2)
		return proto_fail(r, c, "no PUTFH result after SEQUENCE (slot %u seqid %u)",
				  slotid, seqid);
	if (res.op_status[1] != NFS4ERR_STALE || res.status != NFS4ERR_STALE) {
		nfs41_status_describe(res.op_status[1], st, sizeof(st));
		return proto_fail(r, c, "PUTFH of the hold handle: %s, not the hold's "
				  "NFS4ERR_STALE (nfsd without CONFIG_NFSD_TEST_HOLD?)", st);
	}
	return 0;
}
