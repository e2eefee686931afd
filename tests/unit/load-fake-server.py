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
            xid, _, _, _, _, proc = struct.unpack(">6I", call[4:28])
            out.append(frame(reply(xid, proc, n)))
            n += 1
            if mode == "close" and n >= 10:
                return
        if mode == "reorder":
            out.reverse()
        for r in out:
            send(conn, r)


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
