// SPDX-License-Identifier: GPL-2.0
/*
 * ONC RPC for nfsfair-load: XDR encoding of the NFSv3 calls it makes
 * (RFC 5531, RFC 1813), one record-marked fragment each, and decoding of
 * the reply records it reads back.
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
#define HOLD_FH_LEN 16

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
	return p + 4;
}

static uint8_t *put_opaque(uint8_t *p, const void *data, uint32_t len)
{
	uint32_t pad = (4 - (len & 3)) & 3;

	p = put32(p, len);
	memcpy(p, data, len);
	memset(p + len, 0, pad);
	return p + len + pad;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * rpc_encode_call - write one call, record mark included, into buf (at
 * least RPC_CALL_MAX bytes) and return its length. Credentials are
 * AUTH_SYS uid 0 gid 0 from "nfsfair-load"; GETATTR's argument is the
 * hold hook's 16-byte handle asking for hold_us microseconds.
 */
size_t rpc_encode_call(uint8_t *buf, uint32_t xid, enum load_proc proc, uint32_t hold_us)
{
	uint32_t name_len = sizeof(machine_name) - 1;
	uint32_t cred_len = 4 + 4 + ((name_len + 3) & ~3u) + 4 + 4 + 4;
	uint8_t fh[HOLD_FH_LEN];
	uint8_t *p = buf + 4;

	p = put32(p, xid);
	p = put32(p, RPC_CALL);
	p = put32(p, RPC_VERSION);
	p = put32(p, NFS_PROGRAM);
	p = put32(p, NFS_V3);
	p = put32(p, proc == LOAD_PROC_GETATTR ? NFSPROC3_GETATTR : NFSPROC3_NULL);

	p = put32(p, AUTH_SYS);
	p = put32(p, cred_len);
	p = put32(p, 0);			/* stamp */
	p = put_opaque(p, machine_name, name_len);
	p = put32(p, 0);			/* uid */
	p = put32(p, 0);			/* gid */
	p = put32(p, 0);			/* no supplementary gids */

	p = put32(p, AUTH_NONE);		/* verifier */
	p = put32(p, 0);

	if (proc == LOAD_PROC_GETATTR) {
		memcpy(fh, hold_magic, sizeof(hold_magic));
		put32(fh + 8, hold_us);
		put32(fh + 12, 0);
		p = put_opaque(p, fh, sizeof(fh));
	}

	put32(buf, RPC_LAST_FRAG | (uint32_t)(p - buf - 4));
	return p - buf;
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
	r->xid = get32(rec);
	r->status = RPC_REPLY_GARBLED;
	r->detail = 0;
	r->nfs_status = -1;
	if (get32(rec + 4) != RPC_REPLY)
		return 0;

	if (get32(rec + 8) == MSG_DENIED) {
		r->status = RPC_REPLY_DENIED;
		if (len >= 16)
			r->detail = get32(rec + 12);
		return 0;
	}
	if (get32(rec + 8) != MSG_ACCEPTED)
		return 0;

	/* verifier: flavor, opaque body */
	if (len < off + 8)
		return 0;
	verf_len = get32(rec + off + 4);
	if (verf_len > 400)
		return 0;
	off += 8 + ((verf_len + 3) & ~3u);
	if (len < off + 4)
		return 0;
	r->detail = get32(rec + off);
	off += 4;
	if (r->detail != 0) {
		r->status = RPC_REPLY_UNACCEPTED;
		return 0;
	}
	r->status = RPC_REPLY_OK;
	if (len >= off + 4)
		r->nfs_status = get32(rec + off);
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
