#!/usr/bin/env python3
"""A stand-in for nfsd, for tests/unit/load-args.sh: it speaks just enough
ONC RPC over TCP to answer nfsfair-load's calls, in ways meant to trip up
its reply handling.

  load-fake-server.py MODE PORTFILE [FIRSTCALL]

Listens on 127.0.0.1 (any free port, written to PORTFILE), answers each
call as MODE says, and appends the first call of each connection, record
mark included, as a line of hex words to FIRSTCALL. Modes:
  plain    one fragment per reply, written at once
  split    every reply in three fragments, written a few bytes at a time
  reorder  the replies to each batch of calls read, in reverse order
  deny     every third call gets MSG_DENIED (AUTH_ERROR)
  badproc  every call gets accept_stat PROC_UNAVAIL
  close    closes each connection after its tenth call
  silent   never answers

and NFSv4.1 (COMPOUND of minor version 1), as nfsd would but stricter:
sessions grant at most 5 slots; a connection must be bound to a session
(created on it, or BIND_CONN_TO_SESSION) before its SEQUENCE; a slot
takes one call at a time with seqid one up from its last; PUTFH of the
hold handle fails with NFS4ERR_STALE. Every set-up and teardown call,
and every error it answers but the hold's, is appended to EVENTS (FIRSTCALL's name with
".events") as a line. Modes:
  v41           the above, replies in the order of the calls
  v41-reorder   the replies to each batch of calls read, in reverse order
  v41-misorder  the 20th SEQUENCE gets NFS4ERR_SEQ_MISORDERED
  v41-notstale  PUTFH succeeds, as on a kernel without the hold hook
  v41-tiny      sessions grant at most 2 slots
"""
import os
import socket
import struct
import sys
import threading
import time

mode, portfile = sys.argv[1], sys.argv[2]
firstcall = sys.argv[3] if len(sys.argv) > 3 else None
first_lock = threading.Lock()
events = firstcall + ".events" if firstcall else None


def reply(xid, proc, n):
    if mode == "deny" and n % 3 == 2:
        return struct.pack(">IIIII", xid, 1, 1, 1, 1)  # MSG_DENIED AUTH_ERROR
    stat = 3 if mode == "badproc" else 0
    body = struct.pack(">IIIII", xid, 1, 0, 0, 0) + struct.pack(">I", stat)
    if stat == 0 and proc == 1:
        body += struct.pack(">I", 70)  # NFS3ERR_STALE
    return body


def frame(body):
    if mode != "split":
        return struct.pack(">I", 0x80000000 | len(body)) + body
    a, b = body[:5], body[5:9]
    return (struct.pack(">I", len(a)) + a + struct.pack(">I", len(b)) + b +
            struct.pack(">I", 0x80000000 | len(body) - 9) + body[9:])


def send(conn, data):
    if mode != "split":
        conn.sendall(data)
        return
    for i in range(0, len(data), 3):
        conn.sendall(data[i:i + 3])
        time.sleep(0.0002)


def serve(conn):
    try:
        answer(conn)
    except OSError:
        pass  # the client went away mid-reply: that is how runs end
    conn.close()


def answer(conn):
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    buf = b""
    n = 0
    while True:
        data = conn.recv(65536)
        if not data:
            break
        buf += data
        out = []
        while len(buf) >= 4:
            (mark,) = struct.unpack(">I", buf[:4])
            size = mark & 0x7FFFFFFF
            if len(buf) < 4 + size:
                break
            call, buf = buf[:4 + size], buf[4 + size:]
            if firstcall and n == 0:
                words = [call[i:i + 4].hex() for i in range(0, len(call), 4)]
                with first_lock, open(firstcall, "a") as f:
                    f.write(" ".join(words) + "\n")
            if mode == "silent":
                continue
            xid, _, _, _, vers, proc = struct.unpack(">6I", call[4:28])
            if vers == 4:
                body, held = v41.call(conn, call[4:])
                out.append((frame(body), held))
            else:
                out.append((frame(reply(xid, proc, n)), None))
            n += 1
            if mode == "close" and n >= 10:
                return
        if mode in ("reorder", "v41-reorder"):
            out.reverse()
        for r, held in out:
            # free the slot before the reply leaves, as nfsd does: the
            # client may reuse it on another connection of the session
            # as soon as it reads the reply
            v41.release(held)
            send(conn, r)


class Xdr:
    """Reads XDR from bytes; a short read raises IndexError."""

    def __init__(self, data):
        self.data, self.off = data, 0

    def u32(self):
        if self.off + 4 > len(self.data):
            raise IndexError("short")
        (v,) = struct.unpack(">I", self.data[self.off:self.off + 4])
        self.off += 4
        return v

    def u64(self):
        return self.u32() << 32 | self.u32()

    def fixed(self, n):
        if self.off + n > len(self.data):
            raise IndexError("short")
        b = self.data[self.off:self.off + n]
        self.off += (n + 3) & ~3
        return b

    def opaque(self):
        return self.fixed(self.u32())


OP_PUTFH, OP_BIND_CONN, OP_EXCHANGE_ID, OP_CREATE_SESSION = 22, 41, 42, 43
OP_DESTROY_SESSION, OP_SEQUENCE, OP_DESTROY_CLIENTID = 44, 53, 57
NFS4_OK, NFS4ERR_STALE, NFS4ERR_DELAY, NFS4ERR_STALE_CLIENTID = 0, 70, 10008, 10022
NFS4ERR_BADXDR, NFS4ERR_OP_ILLEGAL, NFS4ERR_BADSESSION, NFS4ERR_BADSLOT = 10036, 10044, 10052, 10053
NFS4ERR_CONN_NOT_BOUND, NFS4ERR_SEQ_MISORDERED, NFS4ERR_OP_NOT_IN_SESSION = 10055, 10063, 10071
NFS4ERR_CLIENTID_BUSY, NFS4ERR_BAD_HIGH_SLOT, NFS4ERR_NOT_ONLY_OP = 10074, 10077, 10081
NFS4ERR_MINOR_VERS_MISMATCH = 10021
HOLD_MAGIC = b"NFSFAIR\x01"


class V41:
    """The NFSv4.1 server: client IDs, sessions, slots, shared by every
    connection's thread under one lock."""

    def __init__(self):
        self.lock = threading.Lock()
        self.clients = {}   # clientid -> {"seq": next csa_sequence, "sessions": set}
        self.sessions = {}  # sessionid -> {"client", "slots": [[seqid, busy]], "conns": set}
        self.next_id = 1
        self.sequences = 0
        self.max_slots = 2 if mode == "v41-tiny" else 5

    def log(self, line):
        if events:
            with first_lock, open(events, "a") as f:
                f.write(line + "\n")

    def call(self, conn, msg):
        x = Xdr(msg)
        xid = x.u32()
        x.off = 24
        x.u32()
        x.opaque()  # credential
        x.u32()
        x.opaque()  # verifier
        head = struct.pack(">IIIII", xid, 1, 0, 0, 0) + struct.pack(">I", 0)
        with self.lock:
            try:
                body, held = self.compound(conn, x)
            except IndexError:
                self.log("BADXDR")
                body, held = struct.pack(">III", NFS4ERR_BADXDR, 0, 0), None
        return head + body, held

    def release(self, held):
        """The reply to the call holding slot held is about to go out."""
        if held is not None:
            with self.lock:
                held[1] = False

    def compound(self, conn, x):
        """COMPOUND4res, and the slot the call holds until answered."""
        x.opaque()  # tag
        minor = x.u32()
        nops = x.u32()
        if minor != 1:
            return struct.pack(">III", NFS4ERR_MINOR_VERS_MISMATCH, 0, 0), None
        results = []
        status = NFS4_OK
        held = None
        for i in range(nops):
            op = x.u32()
            status, res, held = self.op(conn, x, op, i, nops, held)
            results.append(struct.pack(">II", op, status) + res)
            if status != NFS4_OK:
                if (op, status) != (OP_PUTFH, NFS4ERR_STALE):
                    self.log("%d error %d" % (op, status))
                break
        body = struct.pack(">III", status, 0, len(results)) + b"".join(results)
        return body, held

    def op(self, conn, x, op, i, nops, held):
        none = b""
        if op == OP_EXCHANGE_ID:
            x.fixed(8)
            owner = x.opaque()
            x.u32()  # flags
            if x.u32() != 0 or x.u32() != 0:  # SP4_NONE, no impl id
                return NFS4ERR_BADXDR, none, held
            if nops != 1:
                return NFS4ERR_NOT_ONLY_OP, none, held
            cid = self.next_id
            self.next_id += 1
            self.clients[cid] = {"seq": 7, "sessions": set(), "owner": owner}
            self.log("EXCHANGE_ID %s" % owner.decode())
            res = struct.pack(">QII", cid, 7, 0) + struct.pack(">I", 0)  # SP4_NONE
            res += struct.pack(">QI", 0, 4) + b"fake" + struct.pack(">I", 4) + b"fake"
            res += struct.pack(">I", 0)
            return NFS4_OK, res, held
        if op == OP_CREATE_SESSION:
            cid, seq, flags = x.u64(), x.u32(), x.u32()
            fore = [x.u32() for _ in range(7)]
            back = [x.u32() for _ in range(7)]
            x.u32()  # cb_program
            nsec = x.u32()
            sec = [x.u32() for _ in range(nsec)]
            cl = self.clients.get(cid)
            if cl is None:
                return NFS4ERR_STALE_CLIENTID, none, held
            if seq != cl["seq"]:
                return NFS4ERR_SEQ_MISORDERED, none, held
            if flags != 0 or fore[6] != 0 or back[6] != 0 or sec != [0] or fore[5] == 0:
                return NFS4ERR_BADXDR, none, held
            cl["seq"] += 1
            slots = min(fore[5], self.max_slots)
            sid = struct.pack(">QQ", cid, self.next_id)
            self.next_id += 1
            self.sessions[sid] = {"client": cid, "slots": [[0, False] for _ in range(slots)],
                                  "conns": {conn}}
            cl["sessions"].add(sid)
            self.log("CREATE_SESSION asked %d granted %d" % (fore[5], slots))
            fore[5] = slots
            res = sid + struct.pack(">II", seq, 0)
            res += struct.pack(">7I", *fore) + struct.pack(">7I", *back)
            return NFS4_OK, res, held
        if op == OP_BIND_CONN:
            sid, direction, rdma = x.fixed(16), x.u32(), x.u32()
            if nops != 1:
                return NFS4ERR_NOT_ONLY_OP, none, held
            s = self.sessions.get(sid)
            if s is None:
                return NFS4ERR_BADSESSION, none, held
            s["conns"].add(conn)
            self.log("BIND_CONN_TO_SESSION dir %d" % direction)
            return NFS4_OK, sid + struct.pack(">II", 1, 0), held
        if op == OP_SEQUENCE:
            sid, seqid, slotid, highest, cache = x.fixed(16), x.u32(), x.u32(), x.u32(), x.u32()
            if i != 0:
                return NFS4ERR_OP_ILLEGAL, none, held
            s = self.sessions.get(sid)
            if s is None:
                return NFS4ERR_BADSESSION, none, held
            if conn not in s["conns"]:
                return NFS4ERR_CONN_NOT_BOUND, none, held
            if slotid >= len(s["slots"]):
                return NFS4ERR_BADSLOT, none, held
            if highest >= len(s["slots"]) or highest < slotid:
                return NFS4ERR_BAD_HIGH_SLOT, none, held
            slot = s["slots"][slotid]
            self.sequences += 1
            if slot[1]:
                return NFS4ERR_DELAY, none, held
            if seqid != slot[0] + 1 or (mode == "v41-misorder" and self.sequences == 20):
                return NFS4ERR_SEQ_MISORDERED, none, held
            slot[0], slot[1] = seqid, True
            n = len(s["slots"]) - 1
            return NFS4_OK, sid + struct.pack(">5I", seqid, slotid, n, n, 0), slot
        if op == OP_PUTFH:
            fh = x.opaque()
            if held is None:  # no SEQUENCE before it
                return NFS4ERR_OP_NOT_IN_SESSION, none, held
            if fh[:8] == HOLD_MAGIC and mode != "v41-notstale":
                return NFS4ERR_STALE, none, held
            return NFS4_OK, none, held
        if op == OP_DESTROY_SESSION:
            sid = x.fixed(16)
            s = self.sessions.get(sid)
            if s is None:
                return NFS4ERR_BADSESSION, none, held
            if any(busy for _, busy in s["slots"]):
                return NFS4ERR_DELAY, none, held
            del self.sessions[sid]
            self.clients[s["client"]]["sessions"].discard(sid)
            self.log("DESTROY_SESSION")
            return NFS4_OK, none, held
        if op == OP_DESTROY_CLIENTID:
            cid = x.u64()
            cl = self.clients.get(cid)
            if cl is None:
                return NFS4ERR_STALE_CLIENTID, none, held
            if cl["sessions"]:
                return NFS4ERR_CLIENTID_BUSY, none, held
            del self.clients[cid]
            self.log("DESTROY_CLIENTID")
            return NFS4_OK, none, held
        return NFS4ERR_OP_ILLEGAL, none, held


v41 = V41()


def main():
    lsock = socket.socket()
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(64)
    with open(portfile + ".tmp", "w") as f:
        f.write("%d\n" % lsock.getsockname()[1])
    os.rename(portfile + ".tmp", portfile)
    while True:
        conn, _ = lsock.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


main()
