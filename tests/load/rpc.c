// SPDX-License-Identifier: GPL-2.0
/*
 * ONC RPC for nfsfair-load: the call header every call shares (RFC 5531),
 * XDR encoding of the NFSv3 calls it makes (RFC 1813), one record-marked
 * fragment each, and decoding of the reply records it reads back. NFSv4.1
 * is in nfs41.c: its COMPOUNDs share only the header and the hold handle.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "load.h"

#define RPC_LAST_FRAG	0x80000000u
#define RPC_CALL	0
#define RPC_REPLY	1
#define RPC_VERSION	2
#define MSG_ACCEPTED	0
#define MSG_DENIED	1
#define AUTH_NONE	0
#define AUTH_SYS	1
#define NFS_PROGRAM	100003
#define NFS_V3		3
#define NFSPROC3_NULL	0
#define NFSPROC3_GETATTR 1

static const char machine_name[] = "nfsfair-load";

/* The hold hook's handle: "NFSFAIR", version byte 1, hold in us, zero. */
static const char hold_magic[8] = { 'N', 'F', 'S', 'F', 'A', 'I', 'R', 0x01 };

/*
 * rpc_put_call_header - the call header of an NFS call of version vers,
 * procedure proc, after the 4 bytes buf keeps for the record mark.
 * Credentials are AUTH_SYS uid 0 gid 0 from "nfsfair-load", the verifier
 * AUTH_NONE. Returns where the procedure's arguments go.
 */
uint8_t *rpc_put_call_header(uint8_t *buf, uint32_t xid, uint32_t vers, uint32_t proc)
{
	uint32_t name_len = sizeof(machine_name) - 1;
	uint32_t cred_len = 4 + 4 + ((name_len + 3) & ~3u) + 4 + 4 + 4;
	uint8_t *p = buf + 4;

	p = xdr_put32(p, xid);
	p = xdr_put32(p, RPC_CALL);
	p = xdr_put32(p, RPC_VERSION);
	p = xdr_put32(p, NFS_PROGRAM);
	p = xdr_put32(p, vers);
	p = xdr_put32(p, proc);

	p = xdr_put32(p, AUTH_SYS);
	p = xdr_put32(p, cred_len);
	p = xdr_put32(p, 0);			/* stamp */
	p = xdr_put_opaque(p, machine_name, name_len);
	p = xdr_put32(p, 0);			/* uid */
	p = xdr_put32(p, 0);			/* gid */
	p = xdr_put32(p, 0);			/* no supplementary gids */

	p = xdr_put32(p, AUTH_NONE);		/* verifier */
	return xdr_put32(p, 0);
}

/* rpc_end_call - write the record mark of the call from buf to end. */
size_t rpc_end_call(uint8_t *buf, const uint8_t *end)
{
	xdr_put32(buf, RPC_LAST_FRAG | (uint32_t)(end - buf - 4));
	return end - buf;
}

/* rpc_put_hold_fh - the hold hook's handle asking for hold_us, as an nfs_fh. */
uint8_t *rpc_put_hold_fh(uint8_t *p, uint32_t hold_us)
{
	uint8_t fh[HOLD_FH_LEN];

	memcpy(fh, hold_magic, sizeof(hold_magic));
	xdr_put32(fh + 8, hold_us);
	xdr_put32(fh + 12, 0);
	return xdr_put_opaque(p, fh, sizeof(fh));
}

/*
 * rpc_encode_call - write one NFSv3 call, record mark included, into buf
 * (at least RPC_CALL_MAX bytes) and return its length. GETATTR's argument
 * is the hold hook's 16-byte handle asking for hold_us microseconds.
 */
size_t rpc_encode_call(uint8_t *buf, uint32_t xid, enum load_proc proc, uint32_t hold_us)
{
	uint8_t *p;

	p = rpc_put_call_header(buf, xid, NFS_V3,
				proc == LOAD_PROC_GETATTR ? NFSPROC3_GETATTR : NFSPROC3_NULL);
	if (proc == LOAD_PROC_GETATTR)
		p = rpc_put_hold_fh(p, hold_us);
	return rpc_end_call(buf, p);
}

/*
 * rpc_decode_reply - decode one reply record (fragments already joined).
 * Returns -EBADMSG when the record is too short to hold an xid and a
 * reply header: nothing can be matched to a call then. Otherwise fills r
 * and returns 0; r->status says whether the call succeeded at RPC level.
 */
int rpc_decode_reply(const uint8_t *rec, size_t len, struct rpc_reply *r)
{
	size_t off = 12;
	uint32_t verf_len;

	if (len < 12)
		return -EBADMSG;
	r->xid = xdr_get32(rec);
	r->status = RPC_REPLY_GARBLED;
	r->detail = 0;
	r->nfs_status = -1;
	r->body = NULL;
	r->body_len = 0;
	if (xdr_get32(rec + 4) != RPC_REPLY)
		return 0;

	if (xdr_get32(rec + 8) == MSG_DENIED) {
		r->status = RPC_REPLY_DENIED;
		if (len >= 16)
			r->detail = xdr_get32(rec + 12);
		return 0;
	}
	if (xdr_get32(rec + 8) != MSG_ACCEPTED)
		return 0;

	/* verifier: flavor, opaque body */
	if (len < off + 8)
		return 0;
	verf_len = xdr_get32(rec + off + 4);
	if (verf_len > 400)
		return 0;
	off += 8 + ((verf_len + 3) & ~3u);
	if (len < off + 4)
		return 0;
	r->detail = xdr_get32(rec + off);
	off += 4;
	if (r->detail != 0) {
		r->status = RPC_REPLY_UNACCEPTED;
		return 0;
	}
	r->status = RPC_REPLY_OK;
	r->body = rec + off;
	r->body_len = len - off;
	if (len >= off + 4)
		r->nfs_status = xdr_get32(rec + off);
	return 0;
}

static const char *const accept_stat_names[] = {
	"SUCCESS", "PROG_UNAVAIL", "PROG_MISMATCH", "PROC_UNAVAIL",
	"GARBAGE_ARGS", "SYSTEM_ERR",
};

static const char *const reject_stat_names[] = { "RPC_MISMATCH", "AUTH_ERROR" };

/* rpc_reply_describe - a reply's RPC-level failure, in words. */
void rpc_reply_describe(const struct rpc_reply *r, char *buf, size_t size)
{
	switch (r->status) {
	case RPC_REPLY_OK:
		snprintf(buf, size, "success");
		break;
	case RPC_REPLY_DENIED:
		snprintf(buf, size, "MSG_DENIED %s",
			 r->detail < ARRAY_SIZE(reject_stat_names) ?
				 reject_stat_names[r->detail] : "(unknown reject_stat)");
		break;
	case RPC_REPLY_UNACCEPTED:
		if (r->detail < ARRAY_SIZE(accept_stat_names))
			snprintf(buf, size, "accept_stat %s", accept_stat_names[r->detail]);
		else
			snprintf(buf, size, "accept_stat %u", r->detail);
		break;
	default:
		snprintf(buf, size, "garbled reply");
		break;
	}
}
