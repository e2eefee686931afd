#!/usr/bin/env python3
"""A DNS stand-in on 127.0.0.1:53 for tests/unit/daemon-resolve.sh, to be
run in a network namespace of its own.

  daemon-dns.py LOG READY NAME=ADDR...

Appends "NAME TYPE" to LOG for every query it gets, answers NAME's A
query with ADDR (TTL 600), any other query of a NAME with no records, and
the rest with NXDOMAIN. Touches READY once it listens.
"""
import socket
import struct
import sys

log, ready = sys.argv[1], sys.argv[2]
names = dict(arg.split("=", 1) for arg in sys.argv[3:])
TYPES = {1: "A", 28: "AAAA"}

sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sock.bind(("127.0.0.1", 53))
open(ready, "w").close()
while True:
    query, peer = sock.recvfrom(4096)
    ident, flags, qdcount = struct.unpack("!HHH", query[:6])
    pos, labels = 12, []
    while query[pos]:
        labels.append(query[pos + 1:pos + 1 + query[pos]].decode())
        pos += 1 + query[pos]
    qtype, = struct.unpack("!H", query[pos + 1:pos + 3])
    question = query[12:pos + 5]
    name = ".".join(labels).lower()
    with open(log, "a") as f:
        f.write("%s %s\n" % (name, TYPES.get(qtype, qtype)))
    answers = b""
    rcode = 0 if name in names else 3
    if name in names and qtype == 1:
        answers = struct.pack("!HHHIH", 0xc00c, 1, 1, 600, 4) + \
            socket.inet_aton(names[name])
    # QR, RD and RA, with the rcode; one question, its answers.
    sock.sendto(struct.pack("!HHHHHH", ident, 0x8180 | rcode, 1,
                            1 if answers else 0, 0, 0) + question + answers, peer)
