// SPDX-License-Identifier: GPL-2.0
/*
 * NFSv4.1 for nfsfair-load: XDR of the few COMPOUNDs it sends (RFC 8881
 * section 16 and 18) and decoding of their replies.
 *
 * Kept apart from rpc.c's NFSv3: a v4.1 call is a COMPOUND whose first
 * operation names a session and a slot, so encoding one needs state that
 * session.c keeps, and its reply carries a status per operation. The two
 * share only the RPC call header and the hold hook's handle.
 *
 * Every COMPOUND has an empty tag and minor version 1. Replies are read
 * only as far as the results used: after the last of those, the rest of
 * the record is ignored.
 */
#include <errno.h>
#include <stdio.h>

#include "load.h"

#define NFS_V4			4
#define NFSPROC4_COMPOUND	1
#define NFS41_MINOR		1

#define SP4_NONE		0
#define CDFC4_FORE		1	/* channel_dir_from_client4 */

/* compound_begin - call header, then COMPOUND4args up to the first op. */
static uint8_t *compound_begin(uint8_t *buf, uint32_t xid, uint32_t nops)
{
	uint8_t *p = rpc_put_call_header(buf, xid, NFS_V4, NFSPROC4_COMPOUND);

	p = xdr_put32(p, 0);			/* tag: empty */
	p = xdr_put32(p, NFS41_MINOR);
	return xdr_put32(p, nops);
}

/*
 * nfs41_encode_exchange_id - COMPOUND { EXCHANGE_ID }: a new client ID for
 * the owner (co_verifier, co_ownerid), no flags, no state protection
 * (SP4_NONE) and no implementation ID.
 */
size_t nfs41_encode_exchange_id(uint8_t *buf, uint32_t xid,
				const uint8_t verifier[NFS4_VERIFIER_SIZE],
				const void *owner, uint32_t owner_len)
{
	uint8_t *p = compound_begin(buf, xid, 1);

	p = xdr_put32(p, OP_EXCHANGE_ID);
	p = xdr_put_fixed(p, verifier, NFS4_VERIFIER_SIZE);
	p = xdr_put_opaque(p, owner, owner_len);
	p = xdr_put32(p, 0);			/* eia_flags */
	p = xdr_put32(p, SP4_NONE);		/* eia_state_protect */
	p = xdr_put32(p, 0);			/* eia_client_impl_id<1>: none */
	return rpc_end_call(buf, p);
}

static uint8_t *put_chan_attrs(uint8_t *p, const struct nfs41_chan_attrs *ca)
{
	p = xdr_put32(p, ca->headerpadsize);
	p = xdr_put32(p, ca->maxrequestsize);
	p = xdr_put32(p, ca->maxresponsesize);
	p = xdr_put32(p, ca->maxresponsesize_cached);
	p = xdr_put32(p, ca->maxoperations);
	p = xdr_put32(p, ca->maxrequests);
	return xdr_put32(p, 0);			/* ca_rdma_ird<1>: none */
}

/*
 * nfs41_encode_create_session - COMPOUND { CREATE_SESSION }: csa_flags 0
 * (no back channel on this connection, nothing persistent), and one
 * callback security flavour, AUTH_NONE, since no callback is ever made.
 */
size_t nfs41_encode_create_session(uint8_t *buf, uint32_t xid, uint64_t clientid, uint32_t seqid,
				   const struct nfs41_chan_attrs *fore,
				   const struct nfs41_chan_attrs *back, uint32_t cb_program)
{
	uint8_t *p = compound_begin(buf, xid, 1);

	p = xdr_put32(p, OP_CREATE_SESSION);
	p = xdr_put64(p, clientid);
	p = xdr_put32(p, seqid);
	p = xdr_put32(p, 0);			/* csa_flags */
	p = put_chan_attrs(p, fore);
	p = put_chan_attrs(p, back);
	p = xdr_put32(p, cb_program);
	p = xdr_put32(p, 1);			/* csa_sec_parms<>: one */
	p = xdr_put32(p, 0);			/* AUTH_NONE, void */
	return rpc_end_call(buf, p);
}

/*
 * nfs41_encode_bind_conn - COMPOUND { BIND_CONN_TO_SESSION }: this
 * connection carries the session's fore channel, not in RDMA mode.
 */
size_t nfs41_encode_bind_conn(uint8_t *buf, uint32_t xid,
			      const uint8_t sessionid[NFS4_SESSIONID_SIZE])
{
	uint8_t *p = compound_begin(buf, xid, 1);

	p = xdr_put32(p, OP_BIND_CONN_TO_SESSION);
	p = xdr_put_fixed(p, sessionid, NFS4_SESSIONID_SIZE);
	p = xdr_put32(p, CDFC4_FORE);
	p = xdr_put32(p, 0);			/* bctsa_use_conn_in_rdma_mode */
	return rpc_end_call(buf, p);
}

size_t nfs41_encode_destroy_session(uint8_t *buf, uint32_t xid,
				    const uint8_t sessionid[NFS4_SESSIONID_SIZE])
{
	uint8_t *p = compound_begin(buf, xid, 1);

	p = xdr_put32(p, OP_DESTROY_SESSION);
	p = xdr_put_fixed(p, sessionid, NFS4_SESSIONID_SIZE);
	return rpc_end_call(buf, p);
}

size_t nfs41_encode_destroy_clientid(uint8_t *buf, uint32_t xid, uint64_t clientid)
{
	uint8_t *p = compound_begin(buf, xid, 1);

	p = xdr_put32(p, OP_DESTROY_CLIENTID);
	p = xdr_put64(p, clientid);
	return rpc_end_call(buf, p);
}

/*
 * nfs41_encode_probe - the measured call, COMPOUND { SEQUENCE, PUTFH }:
 * SEQUENCE on seq's session, slot and seqid, sa_cachethis false; PUTFH
 * of the hold hook's handle asking for hold_us microseconds.
 */
size_t nfs41_encode_probe(uint8_t *buf, uint32_t xid, const struct nfs41_seq *seq,
			  uint32_t hold_us)
{
	uint8_t *p = compound_begin(buf, xid, 2);

	p = xdr_put32(p, OP_SEQUENCE);
	p = xdr_put_fixed(p, seq->sessionid, NFS4_SESSIONID_SIZE);
	p = xdr_put32(p, seq->seqid);
	p = xdr_put32(p, seq->slotid);
	p = xdr_put32(p, seq->highest_slotid);
	p = xdr_put32(p, 0);			/* sa_cachethis */

	p = xdr_put32(p, OP_PUTFH);
	p = rpc_put_hold_fh(p, hold_us);
	return rpc_end_call(buf, p);
}

/* A reader over a reply's bytes: once it runs short, every read gives 0. */
struct xdr_in {
	const uint8_t *p, *end;
	bool short_read;
};

static const uint8_t *take(struct xdr_in *x, size_t n)
{
	const uint8_t *p = x->p;

	if (x->short_read || (size_t)(x->end - x->p) < n) {
		x->short_read = true;
		return NULL;
	}
	x->p += n;
	return p;
}

static uint32_t get32(struct xdr_in *x)
{
	const uint8_t *p = take(x, 4);

	return p ? xdr_get32(p) : 0;
}

static uint64_t get64(struct xdr_in *x)
{
	uint64_t hi = get32(x);

	return hi << 32 | get32(x);
}

static void get_fixed(struct xdr_in *x, uint8_t *dst, size_t n)
{
	const uint8_t *p = take(x, n);

	if (p)
		memcpy(dst, p, n);
	else
		memset(dst, 0, n);
}

static void skip_opaque(struct xdr_in *x)
{
	uint32_t len = get32(x);

	take(x, ((size_t)len + 3) & ~(size_t)3);
}

static void get_chan_attrs(struct xdr_in *x, struct nfs41_chan_attrs *ca)
{
	ca->headerpadsize = get32(x);
	ca->maxrequestsize = get32(x);
	ca->maxresponsesize = get32(x);
	ca->maxresponsesize_cached = get32(x);
	ca->maxoperations = get32(x);
	ca->maxrequests = get32(x);
	if (get32(x))				/* ca_rdma_ird<1> */
		get32(x);
}

/* decode_resok - the part of one operation's resok that we use. */
static void decode_resok(struct xdr_in *x, uint32_t op, struct nfs41_res *res)
{
	switch (op) {
	case OP_EXCHANGE_ID:
		/* the rest (state protection, server owner, scope, impl id) unused */
		res->exid.clientid = get64(x);
		res->exid.seqid = get32(x);
		res->exid.flags = get32(x);
		break;
	case OP_CREATE_SESSION:
		/* the back channel's attributes unused */
		get_fixed(x, res->cs.sessionid, NFS4_SESSIONID_SIZE);
		res->cs.seqid = get32(x);
		res->cs.flags = get32(x);
		get_chan_attrs(x, &res->cs.fore);
		break;
	case OP_BIND_CONN_TO_SESSION:
		get_fixed(x, res->bind.sessionid, NFS4_SESSIONID_SIZE);
		res->bind.dir = get32(x);
		get32(x);				/* bctsr_use_conn_in_rdma_mode */
		break;
	case OP_SEQUENCE:
		get_fixed(x, res->seq.sessionid, NFS4_SESSIONID_SIZE);
		res->seq.seqid = get32(x);
		res->seq.slotid = get32(x);
		res->seq.highest_slotid = get32(x);
		res->seq.target_highest_slotid = get32(x);
		res->seq.status_flags = get32(x);
		break;
	default:
		/* PUTFH, DESTROY_SESSION, DESTROY_CLIENTID: a status only */
		break;
	}
}

/*
 * nfs41_decode_res - decode a COMPOUND4res (p: the RPC reply's results)
 * to a call of the nops operations ops. A COMPOUND stops at its first
 * failing operation, so res->nops may be fewer. Returns -EBADMSG when
 * the reply is cut short, holds more results than operations were sent,
 * or names another operation than the one sent in its place.
 */
int nfs41_decode_res(const uint8_t *p, size_t len, const uint32_t *ops, unsigned int nops,
		     struct nfs41_res *res)
{
	struct xdr_in x = { .p = p, .end = p + len };
	uint32_t n, i;

	memset(res, 0, sizeof(*res));
	res->status = get32(&x);
	skip_opaque(&x);			/* tag */
	n = get32(&x);
	if (x.short_read || n > nops || nops > NFS41_OPS_MAX)
		return -EBADMSG;
	for (i = 0; i < n; i++) {
		res->op[i] = get32(&x);
		res->op_status[i] = get32(&x);
		if (x.short_read || res->op[i] != ops[i])
			return -EBADMSG;
		if (res->op_status[i] == NFS4_OK)
			decode_resok(&x, ops[i], res);
		if (x.short_read)
			return -EBADMSG;
		res->nops++;
		if (res->op_status[i] != NFS4_OK)
			break;
	}
	return 0;
}

const char *nfs41_op_name(uint32_t op)
{
	switch (op) {
	case OP_PUTFH:			return "PUTFH";
	case OP_BIND_CONN_TO_SESSION:	return "BIND_CONN_TO_SESSION";
	case OP_EXCHANGE_ID:		return "EXCHANGE_ID";
	case OP_CREATE_SESSION:		return "CREATE_SESSION";
	case OP_DESTROY_SESSION:	return "DESTROY_SESSION";
	case OP_SEQUENCE:		return "SEQUENCE";
	case OP_DESTROY_CLIENTID:	return "DESTROY_CLIENTID";
	default:			return "?";
	}
}

/* The nfsstat4 values (RFC 8881 section 15.1) worth a name in a report. */
static const struct {
	uint32_t status;
	const char *name;
} status_names[] = {
	{ 0, "NFS4_OK" },
	{ 1, "NFS4ERR_PERM" },
	{ 2, "NFS4ERR_NOENT" },
	{ 5, "NFS4ERR_IO" },
	{ 13, "NFS4ERR_ACCESS" },
	{ 22, "NFS4ERR_INVAL" },
	{ 70, "NFS4ERR_STALE" },
	{ 10001, "NFS4ERR_BADHANDLE" },
	{ 10004, "NFS4ERR_NOTSUPP" },
	{ 10005, "NFS4ERR_TOOSMALL" },
	{ 10006, "NFS4ERR_SERVERFAULT" },
	{ 10008, "NFS4ERR_DELAY" },
	{ 10011, "NFS4ERR_EXPIRED" },
	{ 10013, "NFS4ERR_GRACE" },
	{ 10014, "NFS4ERR_FHEXPIRED" },
	{ 10016, "NFS4ERR_WRONGSEC" },
	{ 10017, "NFS4ERR_CLID_INUSE" },
	{ 10018, "NFS4ERR_RESOURCE" },
	{ 10019, "NFS4ERR_MOVED" },
	{ 10020, "NFS4ERR_NOFILEHANDLE" },
	{ 10021, "NFS4ERR_MINOR_VERS_MISMATCH" },
	{ 10022, "NFS4ERR_STALE_CLIENTID" },
	{ 10036, "NFS4ERR_BADXDR" },
	{ 10044, "NFS4ERR_OP_ILLEGAL" },
	{ 10052, "NFS4ERR_BADSESSION" },
	{ 10053, "NFS4ERR_BADSLOT" },
	{ 10055, "NFS4ERR_CONN_NOT_BOUND_TO_SESSION" },
	{ 10057, "NFS4ERR_BACK_CHAN_BUSY" },
	{ 10063, "NFS4ERR_SEQ_MISORDERED" },
	{ 10064, "NFS4ERR_SEQUENCE_POS" },
	{ 10065, "NFS4ERR_REQ_TOO_BIG" },
	{ 10066, "NFS4ERR_REP_TOO_BIG" },
	{ 10067, "NFS4ERR_REP_TOO_BIG_TO_CACHE" },
	{ 10068, "NFS4ERR_RETRY_UNCACHED_REP" },
	{ 10070, "NFS4ERR_TOO_MANY_OPS" },
	{ 10071, "NFS4ERR_OP_NOT_IN_SESSION" },
	{ 10074, "NFS4ERR_CLIENTID_BUSY" },
	{ 10076, "NFS4ERR_SEQ_FALSE_RETRY" },
	{ 10077, "NFS4ERR_BAD_HIGH_SLOT" },
	{ 10078, "NFS4ERR_DEADSESSION" },
	{ 10079, "NFS4ERR_ENCR_ALG_UNSUPP" },
	{ 10081, "NFS4ERR_NOT_ONLY_OP" },
	{ 10082, "NFS4ERR_WRONG_CRED" },
};

/* nfs41_status_describe - an nfsstat4 by name, or by number if unnamed. */
void nfs41_status_describe(uint32_t status, char *buf, size_t size)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(status_names); i++) {
		if (status_names[i].status == status) {
			snprintf(buf, size, "%s", status_names[i].name);
			return;
		}
	}
	snprintf(buf, size, "nfsstat4 %u", status);
}
