#!/usr/bin/python3
"""Helper of alloc-failure.sh, inside the guest: fail each allocation of
an nfsfair operation in turn.

    alloc-failure.py CTL changes|dumps|accept
    alloc-failure.py leaks KMEMLEAK-REPORT

For N = 1, 2, ...: put the table in its starting state, write N to the
fail-nth file of the task that does the work, just before the one
syscall that does it (for an accept, nfsd's thread: the connect and its
first request), and check what came of the failed allocation; stop at
the first N whose run leaves the fault unfired. Output, for the suite:

    point PATH N SYSCALL OUTCOME SITE      one line per failure point
    bad PATH N CHECK: DETAIL               each check that did not hold
    path PATH points=K ... bad=B           a summary per path

OUTCOME: error:E (the operation failed with errno E), whole (the kernel
got over the failure and the result is complete), ack-lost (the change
applied; the socket says ENOBUFS for the reply it could not queue),
closed or dropped (accept: the connection, or its request until the
next connection came). SITE is the failed allocation's call site, from
the kmem tracepoints (which see __GFP_NOWARN failures too), or
kmemleak-metadata when kmemleak's own record of an allocation failed.
failslab's report in the log (verbose 2) gives the stack, which tells
whether the failure was inside the armed syscall.
"""

import errno
import os
import re
import socket
import struct
import subprocess
import sys
import time

NETLINK_GENERIC = 16
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP, NLM_F_ACK_TLVS = 1, 4, 0x300, 0x200
NLMSGERR_ATTR_MSG = 1
NLA_F_NESTED = 0x8000
SOL_NETLINK, NETLINK_CAP_ACK, NETLINK_EXT_ACK = 270, 10, 11
GENL_ID_CTRL, CTRL_CMD_GETFAMILY = 0x10, 3
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 1, 2

# From netlink-spec/uapi/linux/nfsfair_netlink.h
CMD = {"class-new": 1, "class-get": 4, "rule-append": 5, "rule-insert": 6,
       "rule-replace": 7, "rule-del": 8, "rule-flush": 9, "rule-get": 10,
       "client-get": 11, "table-replace": 12, "table-get": 13}
CLASS_NAME, CLASS_WEIGHT, CLASS_RULES = 1, 2, 3
RULE_POSITION, RULE_ADDR4, RULE_ADDR6, RULE_PREFIX_LEN, RULE_CLASS = 1, 2, 3, 4, 5
RULE_PER_HOST_LEN, RULE_ORIGIN, RULE_HITS = 6, 7, 8
CLIENT_KIND, CLIENT_CLASS, CLIENT_ADDR4, CLIENT_PREFIX_LEN = 1, 2, 3, 5
CLIENT_CONNECTIONS, CLIENT_PEERS = 6, 9
KIND_CLASS, KIND_PER_HOST = 1, 2
TABLE_GENERATION, TABLE_ORIGIN, TABLE_CLASS, TABLE_RULE = 1, 2, 3, 4

# The syscall a failure happened in, from its stack.
SENDS = re.compile(r"^(__sys_sendto|__sys_sendmsg|netlink_sendmsg)$")
RECVS = re.compile(r"^(__sys_recvfrom|__sys_recvmsg|netlink_recvmsg)$")

RECV_BUF = 4096   # a dump then spans several skbs, so recvmsg allocates too
TRACE = "/sys/kernel/tracing/instances/alloc-failure"
# Not the failslab reports themselves (FAULT_INJECTION, then a stack).
KCSAN_END = re.compile(r"^=+$")
DMESG_BAD = re.compile(r"WARNING|\bBUG\b|[Ll]eak|Oops|refcount_t|corruption|Call Trace")
# UML's frames carry their address ([<...>] name+0x1/0x2); x86's are
# the bare name+0x1/0x2 between <TASK> and </TASK>.
STACK_LINE = re.compile(r"^\s*(CPU: |Stack:|Call Trace:|Hardware name|\[<|</?TASK>|"
                        r"(\?\s+)?[\w.]+\+0x[0-9a-f]+/0x[0-9a-f]+|([0-9a-f]{8,16}\s*)+$)")
# A "?" marks a frame the unwinder is not sure of (a stale pointer).
FRAME = re.compile(r"(?:\[<[0-9a-f]+>\]\s+|^\s*)(\?\s+)?([\w.]+)\+0x([0-9a-f]+)/")
# Frames of the allocator and of the report, past which a leak's site is.
ALLOCATOR = re.compile(r"^(should_fail|__should_fail|dump_stack|show_stack|um_set_signals|"
                       r"_*k[mvz]?alloc|_*kv[mzc]alloc|_*kcalloc|_*krealloc|_*kmem_cache|"
                       r"slab_|__slab|___slab|kmalloc_reserve|_*alloc_skb|__vmalloc|"
                       r"vmalloc|__get_vm_area|alloc_vmap)")
KMEMLEAK = re.compile(r"^(kmemleak|mem_pool_alloc|__create_object|__alloc_object)")
OURS = re.compile(r"^(svc_fair|nfsfair_)")


def attr(atype, data):
    return struct.pack("=HH", 4 + len(data), atype) + data + b"\0" * (-len(data) % 4)


def u8(atype, v):
    return attr(atype, struct.pack("=B", v))


def u32(atype, v):
    return attr(atype, struct.pack("=I", v))


def u64(atype, v):
    return attr(atype, struct.pack("=Q", v))


def string(atype, s):
    return attr(atype, s.encode() + b"\0")


def nest(atype, *attrs):
    return attr(atype | NLA_F_NESTED, b"".join(attrs))


def addr4(atype, text):
    return attr(atype, socket.inet_pton(socket.AF_INET, text))


def addr6(atype, text):
    return attr(atype, socket.inet_pton(socket.AF_INET6, text))


def parse_attrs(buf):
    out = []
    while len(buf) >= 4:
        alen, atype = struct.unpack_from("=HH", buf)
        if alen < 4:
            break
        out.append((atype & ~NLA_F_NESTED, bytes(buf[4:alen])))
        buf = buf[(alen + 3) & ~3:]
    return out


def uint(data):
    return int.from_bytes(data, sys.byteorder)


def ename(err):
    return errno.errorcode.get(err, str(err))


class Genl:
    """A generic netlink socket talking to one family."""

    def __init__(self, family="nfsfair"):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
        self.sock.bind((0, 0))
        self.sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
        self.seq = 0
        self.family = GENL_ID_CTRL
        self.send(self.message(CTRL_CMD_GETFAMILY, [string(CTRL_ATTR_FAMILY_NAME, family)],
                               NLM_F_ACK))
        err, entries, text, _ = self.finish(False)
        if err:
            raise OSError(err, "family %s: %s" % (family, text))
        self.family = uint(dict(entries[0])[CTRL_ATTR_FAMILY_ID])

    def close(self):
        self.sock.close()

    def message(self, cmd, attrs, flags):
        self.seq += 1
        payload = struct.pack("=BBH", cmd, 1, 0) + b"".join(attrs)
        return struct.pack("=IHHII", 16 + len(payload), self.family,
                           NLM_F_REQUEST | flags, self.seq, 0) + payload

    def send(self, msg):
        """One sendto; an errno, or 0."""
        self.sock.settimeout(None)
        try:
            self.sock.send(msg)
        except OSError as e:
            return e.errno
        return 0

    def recv(self, timeout=5):
        """One recvfrom: a list of (type, flags, payload), or an errno."""
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(RECV_BUF)
        except socket.timeout:
            return errno.ETIMEDOUT
        except OSError as e:
            return e.errno
        msgs = []
        while len(data) >= 16:
            mlen, mtype, mflags, _, _ = struct.unpack_from("=IHHII", data)
            msgs.append((mtype, mflags, data[16:mlen]))
            data = data[(mlen + 3) & ~3:]
        return msgs

    @staticmethod
    def error_of(mflags, payload):
        """errno and extack message of an NLMSG_ERROR or NLMSG_DONE."""
        err = -struct.unpack_from("=i", payload)[0]
        text = ""
        if mflags & NLM_F_ACK_TLVS:
            # With NETLINK_CAP_ACK only the request's header follows.
            for atype, data in parse_attrs(payload[4 + 16:]):
                if atype == NLMSGERR_ATTR_MSG:
                    text = data.rstrip(b"\0").decode(errors="replace")
        return err, text

    def finish(self, dump, first=None):
        """The rest of a request: (errno, entries, extack, socket error?).
        @first is the outcome of a recv already made."""
        entries = []
        while True:
            msgs, first = (first if first is not None else self.recv()), None
            if isinstance(msgs, int):
                return msgs, entries, "", True
            # A do's reply, if any, comes before its ack.
            for mtype, mflags, payload in msgs:
                if mtype == NLMSG_ERROR:
                    err, text = self.error_of(mflags, payload)
                    if err or not dump:
                        return err, entries, text, False
                elif mtype == NLMSG_DONE:
                    return self.error_of(mflags, payload)[0], entries, "", False
                else:
                    entries.append(parse_attrs(payload[4:]))


def request(cmd, *attrs, dump=False):
    """An unarmed request on a fresh socket: its entries; raises on error."""
    g = Genl()
    err = g.send(g.message(CMD[cmd], attrs, NLM_F_DUMP if dump else NLM_F_ACK))
    entries, text = [], "(sendmsg)"
    if not err:
        err, entries, text, _ = g.finish(dump)
    g.close()
    if err:
        raise OSError(err, "%s: %s" % (cmd, text))
    return entries


def generation():
    return uint(dict(request("table-get")[0])[TABLE_GENERATION])


class FailNth:
    """A task's fail-nth, opened once: opening a file allocates."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_RDWR)

    def arm(self, n):
        os.write(self.fd, b"%d" % n)

    def left(self):
        return int(os.pread(self.fd, 32, 0))

    def disarm(self):
        os.write(self.fd, b"0")


class Trace:
    """The call sites of failed slab allocations (kmem tracepoints), which
    see the __GFP_NOWARN failures failslab does not report."""

    HEAD = re.compile(r"^\s*(.*)-(\d+)\s+\[\d+\]\s+\S+\s+[\d.]+:\s+"
                      r"(kmalloc|kmem_cache_alloc): call_site=([\w.]+)")

    def __init__(self):
        if not os.path.isdir(TRACE):
            os.mkdir(TRACE)
        for ev in ("kmalloc", "kmem_cache_alloc"):
            self.write("events/kmem/%s/filter" % ev, "ptr == 0")
            self.write("events/kmem/%s/enable" % ev, "1")

    @staticmethod
    def write(name, text):
        with open("%s/%s" % (TRACE, name), "w") as f:
            f.write(text)

    def clear(self):
        self.write("trace", "")

    def sites(self, pid):
        with open(TRACE + "/trace") as f:
            return [m.group(4) for m in map(self.HEAD.match, f) if m and int(m.group(2)) == pid]


class Kmsg:
    """Kernel log records since the last look: failslab's reports (their
    stacks) apart from the rest."""

    def __init__(self):
        self.fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
        os.lseek(self.fd, 0, os.SEEK_END)

    def records(self):
        out = []
        while True:
            try:
                rec = os.read(self.fd, 8192)
            except BlockingIOError:
                return out
            except BrokenPipeError:    # records overwritten: go on
                continue
            if not rec:
                return out
            out.append(rec.decode(errors="replace").split(";", 1)[-1].split("\n")[0])

    def new(self):
        """(other records, [frames of each failslab report]). KCSAN's
        reports are left out, as kernel_log does: console-check sorts
        them (a race in nfsfair's code fails its suite there)."""
        other, stacks, inside, kcsan = [], [], False, False
        for rec in self.records():
            if kcsan or rec.startswith("BUG: KCSAN:"):
                kcsan = not KCSAN_END.match(rec)
            elif rec.startswith("FAULT_INJECTION: forcing a failure"):
                stacks.append([])
                inside = True
            elif inside and STACK_LINE.match(rec):
                m = FRAME.search(rec)
                # Scanned stacks hold pointers to functions too: +0x0.
                if m and int(m.group(3), 16):
                    stacks[-1].append(("? " if m.group(1) else "") + m.group(2))
            else:
                inside = False
                other.append(rec)
        return other, stacks


class Failure:
    """What one armed run hit: whether the fault fired, the failed
    allocation's call site and, unless it was __GFP_NOWARN, its stack
    (with stale entries: only used to tell the syscall; its sure frames
    tell who called an allocator's wrapper)."""

    def __init__(self, fired, sites, stacks):
        self.fired = fired
        self.site = sites[0] if sites else "?"
        stack = stacks[0] if stacks else []
        self.frames = [f.removeprefix("? ") for f in stack]
        self.sure = [f for f in stack if not f.startswith("? ")]

    def caller(self):
        """Who asked for the memory: the call site, or, where that is an
        allocator's own wrapper, the first frame past the allocator. A
        kernel built without sibling calls (KCSAN's) reports kvmalloc's
        kmalloc at __kvmalloc_node_noprof, not at its caller."""
        if not ALLOCATOR.match(self.site):
            return self.site
        return next((f for f in self.sure if not ALLOCATOR.match(f)), self.site)

    def describe(self):
        if KMEMLEAK.match(self.site):
            return "kmemleak-metadata"
        caller = self.caller()
        return self.site if caller == self.site else "%s<-%s" % (self.site, caller)

    def ours(self):
        """The allocation that failed is one of nfsfair's own."""
        return bool(OURS.match(self.caller()))

    def outside(self, syscall):
        """Its stack shows it was not in @syscall (a regex)."""
        return bool(self.frames) and not any(syscall.match(f) for f in self.frames)


class Path:
    """One path's failure points and broken checks."""

    def __init__(self, name):
        self.name = name
        self.points = {}
        self.ours = 0
        self.kmemleak = 0
        self.bad_count = 0
        self.first_ok = 0
        self.peer_n = 0

    def point(self, n, syscall, outcome, failure):
        key = outcome.split(":")[0]
        self.points[key] = self.points.get(key, 0) + 1
        self.ours += failure.ours()
        self.kmemleak += bool(KMEMLEAK.match(failure.site))
        print("point %s %d %s %s %s" % (self.name, n, syscall, outcome, failure.describe()),
              flush=True)

    def bad(self, n, check, detail):
        self.bad_count += 1
        print("bad %s %d %s: %s" % (self.name, n, check, detail), flush=True)

    def summary(self):
        p = self.points
        print("path %s points=%d errors=%d whole=%d ack_lost=%d closed=%d dropped=%d "
              "ours=%d kmemleak=%d bad=%d first_ok=%d peer_n=%d" %
              (self.name, sum(p.values()), p.get("error", 0), p.get("whole", 0),
               p.get("ack-lost", 0), p.get("closed", 0), p.get("dropped", 0), self.ours,
               self.kmemleak, self.bad_count, self.first_ok, self.peer_n), flush=True)


class Suite:
    def __init__(self, ctl):
        self.ctl = ctl
        self.trace = Trace()
        self.kmsg = Kmsg()
        self.me = FailNth("/proc/thread-self/fail-nth")

    def save(self):
        return subprocess.run([self.ctl, "save"], check=True, capture_output=True,
                              text=True).stdout

    def restore(self, text):
        subprocess.run([self.ctl, "restore"], input=text, check=True, text=True)

    def state(self):
        """What an admin reads back; clients apart (they are live state)."""
        return {"generation": generation(), "save": self.save(),
                "classes": request("class-get", dump=True),
                "rules": request("rule-get", dump=True)}

    @staticmethod
    def differs(a, b):
        return [k for k in a if k != "generation" and a[k] != b[k]]

    def armed(self, fault, n, fn):
        """fn() with allocation N of @fault's task failing: (result, fired)."""
        self.trace.clear()
        fault.arm(n)
        try:
            res = fn()
        finally:
            left = fault.left()
            fault.disarm()
        return res, left == 0

    def failure(self, path, n, fired, pid, syscall=None):
        """What the armed run hit, from the trace and the log; any other
        record of the log that looks like trouble is a broken check."""
        other, stacks = self.kmsg.new()
        for rec in other:
            if DMESG_BAD.search(rec):
                path.bad(n, "dmesg", rec)
        sites = self.trace.sites(pid)
        f = Failure(fired or bool(sites), sites, stacks)
        if len(sites) > 1 or len(stacks) > 1:
            path.bad(n, "syscall", "%d failed allocations in one run: %s" % (len(sites), sites))
        if syscall and f.outside(syscall):
            path.bad(n, "syscall", "the failed allocation (%s) is not in the armed syscall: %s"
                     % (f.site, f.frames[:12]))
        return f

    def change(self, name, base_text, build):
        """A change: one sendmsg does all the work; the reply is read unarmed.
        build() gives the request's attributes (command, [attrs])."""
        path = Path(name)
        self.restore(base_text)
        old = self.state()
        cmd, attrs = build()
        request(cmd, *attrs)
        new = self.state()
        bumps = new["generation"] - old["generation"]
        if not self.differs(old, new) or bumps < 1:
            path.bad(0, "reference", "the change changed nothing")
        n = 0
        while n < 400:
            n += 1
            self.restore(base_text)
            before = self.state()
            cmd, attrs = build()
            g = Genl()
            msg = g.message(CMD[cmd], attrs, NLM_F_ACK)
            send_err, fired = self.armed(self.me, n, lambda: g.send(msg))
            if send_err:
                err, text, sockerr = send_err, "(sendmsg)", False
            else:
                err, _, text, sockerr = g.finish(False)
            g.close()
            after = self.state()
            moved = self.differs(before, after)
            gen = after["generation"] - before["generation"]
            f = self.failure(path, n, fired, os.getpid(), SENDS)
            if not f.fired:
                path.first_ok = n
                if err:
                    path.bad(n, "final", "unfired run failed: %s %s" % (ename(err), text))
                elif self.differs(new, after) or gen != bumps:
                    path.bad(n, "final", "unfired run left %s, generation +%d"
                             % (self.differs(new, after), gen))
                break
            if err == errno.ENOBUFS and sockerr:
                outcome = "ack-lost"
                if self.differs(new, after) or gen != bumps:
                    path.bad(n, "state", "reply lost, but the table is not the new one: %s, "
                             "generation +%d" % (self.differs(new, after), gen))
            elif err:
                outcome = "error:" + ename(err)
                if err not in (errno.ENOMEM, errno.ENOBUFS):
                    path.bad(n, "errno", "%s %s" % (ename(err), text))
                if moved or gen:
                    path.bad(n, "state", "failed with %s, yet changed %s, generation +%d"
                             % (ename(err), moved, gen))
            else:
                outcome = "whole"
                if self.differs(new, after) or gen != bumps:
                    path.bad(n, "state", "succeeded but left %s, generation +%d"
                             % (self.differs(new, after), gen))
            path.point(n, "sendmsg", outcome, f)
        path.summary()

    def dump(self, name, cmd, attrs):
        """A dump: its sendmsg, then each recvmsg, is the armed syscall in
        turn, each N on a fresh socket."""
        path = Path(name)
        base = self.state()
        want = request(cmd, *attrs, dump=True)
        calls = self.dump_calls(cmd, attrs)
        if calls < 3:
            path.bad(0, "reference", "the dump takes %d syscalls: too short" % calls)
        for k in range(calls):
            syscall = "sendmsg" if k == 0 else "recvmsg%d" % k
            for n in range(1, 200):
                err, got, fired = self.dump_once(cmd, attrs, k, n)
                f = self.failure(path, n, fired, os.getpid(), SENDS if k == 0 else RECVS)
                if not f.fired:
                    if err or got != want:
                        path.bad(n, "final", "unfired %s: %s, %d of %d entries"
                                 % (syscall, ename(err) if err else "done", len(got), len(want)))
                    break
                if err:
                    outcome = "error:" + ename(err)
                    if err not in (errno.ENOMEM, errno.ENOBUFS):
                        path.bad(n, "errno", "%s in %s" % (ename(err), syscall))
                else:
                    outcome = "whole"
                    if got != want:
                        path.bad(n, "state", "the dump ended well with %d of %d entries"
                                 % (len(got), len(want)))
                path.point(n, syscall, outcome, f)
                again = request(cmd, *attrs, dump=True)
                if again != want:
                    path.bad(n, "state", "the next dump has %d of %d entries"
                             % (len(again), len(want)))
        after = self.state()
        if self.differs(base, after) or after["generation"] != base["generation"]:
            path.bad(0, "state", "the dumps changed %s" % self.differs(base, after))
        path.first_ok = calls
        path.summary()

    def dump_calls(self, cmd, attrs):
        g = Genl()
        g.send(g.message(CMD[cmd], attrs, NLM_F_DUMP))
        calls = 1
        while True:
            msgs = g.recv()
            calls += 1
            if isinstance(msgs, int) or any(t in (NLMSG_DONE, NLMSG_ERROR) for t, _, _ in msgs):
                break
        g.close()
        return calls

    def dump_once(self, cmd, attrs, k, n):
        """The dump with syscall @k armed: (errno, entries, fired)."""
        g = Genl()
        msg = g.message(CMD[cmd], attrs, NLM_F_DUMP)
        entries, fired, done = [], False, False
        if k == 0:
            err, fired = self.armed(self.me, n, lambda: g.send(msg))
        else:
            err = g.send(msg)
        call = 1
        while not err and not done:
            if call == k:
                msgs, fired = self.armed(self.me, n, g.recv)
            else:
                msgs = g.recv()
            call += 1
            if isinstance(msgs, int):
                err = msgs
                break
            for mtype, mflags, payload in msgs:
                if mtype in (NLMSG_ERROR, NLMSG_DONE):
                    err, done = Genl.error_of(mflags, payload)[0], True
                else:
                    entries.append(parse_attrs(payload[4:]))
        g.close()
        return err, entries, fired

    def accept(self, name, src, base_text, kind):
        """nfsd's thread accepts a connection from @src and serves a NULL
        call, its N-th allocation failing; @kind is the client the table
        gives @src (per-host, or a class)."""
        path = Path(name)
        nfsd = nfsd_thread()
        fault = FailNth("/proc/%d/fail-nth" % nfsd)
        self.restore(base_text)
        base = table_of(self.state())
        xid = 0x4e460000
        n = peer_n = 0
        while n < 400:
            n += 1
            xid += 3
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind((src, 0))
            s.settimeout(5)
            res, fired = self.armed(fault, n, lambda: connect_null(s, xid))
            clients = None
            if res == "reply":
                # One more call: a transport left unbound at accept is
                # bound at the end of its next read.
                if connect_null(s, xid + 1, connect=False) != "reply":
                    path.bad(n, "served", "the second NULL call got no reply")
                clients = clients_of(src, kind)
            s.close()
            if res != "reply":
                # A failed accept leaves the connection in the listener's
                # queue until the next one comes: this probe.
                probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                probe.bind((PROBE, 0))
                probe.settimeout(5)
                if connect_null(probe, xid + 2) != "reply":
                    path.bad(n, "served", "nfsd did not serve a connection after the failure")
                probe.close()
            if not wait_for(lambda: not clients_of(src, kind) and
                            not clients_of(PROBE, "per-host"), 10):
                path.bad(n, "client", "a client still holds %s's closed connection: %s"
                         % (src, clients_of(src, kind)))
            after = table_of(self.state())
            if after != base:
                path.bad(n, "state", "an accept changed the table: %s" % self.differs(base, after))
            f = self.failure(path, n, fired, nfsd)
            outcome = "whole" if res == "reply" else res
            if clients is not None:
                conns = [uint(c[CLIENT_CONNECTIONS]) for c in clients]
                peers = [uint(c[CLIENT_PEERS]) for c in clients]
                if conns != [1]:
                    path.bad(n, "client", "%s's connection is in %d %s client(s) with %s "
                             "connection(s)" % (src, len(clients), kind, conns))
                elif peers != [1] and f.site == "svc_fair_peer_count":
                    # Documented there: a peer may go uncounted, which the
                    # peer count and the dump's peer filter show.
                    outcome = "whole:peer-uncounted"
                    peer_n = n
                elif peers != [1]:
                    path.bad(n, "client", "%s's client counts %s peers" % (src, peers))
            if not f.fired:
                path.first_ok = n
                if res != "reply":
                    path.bad(n, "final", "unfired accept: %s" % res)
                break
            path.point(n, "accept", outcome, f)
        if peer_n:
            self.peer_balance(path, peer_n, src, kind, nfsd, fault)
        path.peer_n = peer_n
        path.summary()

    def peer_balance(self, path, n, src, kind, nfsd, fault):
        """Connection A from @src left uncounted by the failure at N, then
        B from @src: when A closes, B's peer must still be counted."""
        a, b = (socket.socket(socket.AF_INET, socket.SOCK_STREAM) for _ in range(2))
        for s in (a, b):
            s.bind((src, 0))
            s.settimeout(5)
        res, fired = self.armed(fault, n, lambda: connect_null(a, 0x4e470001))
        f = self.failure(path, n, fired, nfsd)
        if res != "reply" or f.site != "svc_fair_peer_count":
            path.bad(n, "peers", "N=%d no longer fails in svc_fair_peer_count (%s, %s)"
                     % (n, f.site, res))
        elif connect_null(b, 0x4e470002) != "reply":
            path.bad(n, "peers", "the second connection got no reply")
        else:
            a.close()
            if not wait_for(lambda: [uint(c[CLIENT_CONNECTIONS])
                                     for c in clients_of(src, kind)] == [1], 10):
                path.bad(n, "peers", "A's close never reached its client")
            peers = [uint(c[CLIENT_PEERS]) for c in clients_of(src, kind)]
            if peers != [1]:
                path.bad(n, "peers", "A (failed in svc_fair_peer_count, uncounted) closed: "
                         "B, open, from the same address, now counts %s peers, not [1]; "
                         "client-get's peer filter misses it" % peers)
        a.close()
        b.close()
        if not wait_for(lambda: not clients_of(src, kind), 10):
            path.bad(n, "client", "a client still holds %s's closed connections" % src)


def table_of(state):
    """A state without its live counters: what an accept may not change."""
    t = dict(state)
    t["classes"] = [[x for x in c if x[0] in (CLASS_NAME, CLASS_WEIGHT, CLASS_RULES)]
                    for c in state["classes"]]
    t["rules"] = [[x for x in r if x[0] != RULE_HITS] for r in state["rules"]]
    return t


def connect_null(s, xid, connect=True):
    """An NFSv3 NULL call over @s (connected first): reply, closed or dropped."""
    call = struct.pack(">IIIIII", xid, 0, 2, 100003, 3, 0) + b"\0" * 16
    try:
        if connect:
            s.connect(("127.0.0.1", 2049))
        s.sendall(struct.pack(">I", 0x80000000 | len(call)) + call)
        data = b""
        while len(data) < 28:
            chunk = s.recv(64)
            if not chunk:
                return "closed"
            data += chunk
    except socket.timeout:
        return "dropped"
    except OSError:
        return "closed"
    rxid, mtype, stat = struct.unpack_from(">III", data, 4)
    accept_stat = struct.unpack_from(">I", data, 24)[0]
    return "reply" if (rxid, mtype, stat, accept_stat) == (xid, 1, 0, 0) else "bad-reply"


PROBE = "127.0.2.200"   # per-host in the base table


def clients_of(src, kind):
    """The clients that @kind (per-host, or a class name) gives @src, as
    dicts, from the whole dump: the peer filter misses uncounted peers."""
    out = []
    for c in request("client-get", dump=True):
        a = dict(c)
        if kind == "per-host":
            if (uint(a[CLIENT_KIND]) == KIND_PER_HOST and
                    a.get(CLIENT_ADDR4) == socket.inet_aton(src) and
                    uint(a.get(CLIENT_PREFIX_LEN, b"\0")) == 32):
                out.append(a)
        elif (uint(a[CLIENT_KIND]) == KIND_CLASS and
              a.get(CLIENT_CLASS, b"").rstrip(b"\0").decode() == kind):
            out.append(a)
    return out


def wait_for(cond, seconds):
    end = time.monotonic() + seconds
    while not cond():
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


def nfsd_thread():
    pids = [int(p) for p in os.listdir("/proc") if p.isdigit() and
            open("/proc/%s/comm" % p).read().strip() == "nfsd"]
    if len(pids) != 1:
        raise SystemExit("want one nfsd thread, have %d" % len(pids))
    return pids[0]


# The starting table of the change and accept paths, as nfsfair-ctl save
# writes it (made with our own requests, read back with save).
def base_table(s):
    s.restore("")
    request("class-new", string(CLASS_NAME, "alpha"))
    request("class-new", string(CLASS_NAME, "beta"), u32(CLASS_WEIGHT, 2))
    rules = [([addr4(RULE_ADDR4, "10.0.0.0"), u32(RULE_PREFIX_LEN, 8),
               string(RULE_CLASS, "alpha")], 0),
             ([addr6(RULE_ADDR6, "2001:db8::"), u32(RULE_PREFIX_LEN, 32),
               u32(RULE_PER_HOST_LEN, 64)], 0),
             ([addr4(RULE_ADDR4, "127.0.2.0"), u32(RULE_PREFIX_LEN, 24),
               u32(RULE_PER_HOST_LEN, 32)], 0),
             ([addr4(RULE_ADDR4, "127.0.4.0"), u32(RULE_PREFIX_LEN, 24),
               string(RULE_CLASS, "beta")], 0),
             ([addr4(RULE_ADDR4, "11.0.0.0"), u32(RULE_PREFIX_LEN, 8),
               string(RULE_CLASS, "beta")], 7),
             ([addr4(RULE_ADDR4, "12.0.0.0"), u32(RULE_PREFIX_LEN, 8),
               u32(RULE_PER_HOST_LEN, 24)], 7)]
    for attrs, origin in rules:
        request("rule-append", *attrs, u32(RULE_ORIGIN, origin))
    return s.save()


CHANGES = {
    "table-replace": lambda: ("table-replace", [
        u64(TABLE_GENERATION, generation()), u32(TABLE_ORIGIN, 7),
        nest(TABLE_CLASS, string(CLASS_NAME, "beta"), u32(CLASS_WEIGHT, 5)),
        nest(TABLE_CLASS, string(CLASS_NAME, "gamma"), u32(CLASS_WEIGHT, 3)),
        nest(TABLE_CLASS, string(CLASS_NAME, "delta")),
        nest(TABLE_RULE, addr4(RULE_ADDR4, "13.0.0.0"), u32(RULE_PREFIX_LEN, 8),
             string(RULE_CLASS, "gamma")),
        nest(TABLE_RULE, addr4(RULE_ADDR4, "14.0.0.0"), u32(RULE_PREFIX_LEN, 8),
             string(RULE_CLASS, "delta")),
        nest(TABLE_RULE, addr4(RULE_ADDR4, "11.0.0.0"), u32(RULE_PREFIX_LEN, 8),
             string(RULE_CLASS, "beta")),
        nest(TABLE_RULE, addr6(RULE_ADDR6, "2001:db8:1::"), u32(RULE_PREFIX_LEN, 48),
             u32(RULE_PER_HOST_LEN, 64))]),
    "class-new": lambda: ("class-new", [string(CLASS_NAME, "epsilon"), u32(CLASS_WEIGHT, 4)]),
    "rule-append": lambda: ("rule-append", [addr4(RULE_ADDR4, "15.0.0.0"),
                                            u32(RULE_PREFIX_LEN, 8), string(RULE_CLASS, "alpha")]),
    "rule-insert": lambda: ("rule-insert", [u32(RULE_POSITION, 2), addr4(RULE_ADDR4, "16.0.0.0"),
                                            u32(RULE_PREFIX_LEN, 8), u32(RULE_PER_HOST_LEN, 32)]),
    "rule-replace": lambda: ("rule-replace", [u32(RULE_POSITION, 1),
                                              addr4(RULE_ADDR4, "10.0.0.0"),
                                              u32(RULE_PREFIX_LEN, 8),
                                              string(RULE_CLASS, "beta")]),
    "rule-del": lambda: ("rule-del", [u32(RULE_POSITION, 2)]),
    "rule-flush": lambda: ("rule-flush", [u32(RULE_ORIGIN, 7)]),
}


def run_changes(s):
    base = base_table(s)
    for name, build in CHANGES.items():
        s.change(name, base, build)


def run_accept(s):
    base = base_table(s)
    s.accept("accept-per-host", "127.0.2.1", base, "per-host")
    s.accept("accept-class", "127.0.4.1", base, "beta")


def run_dumps(s):
    """Dumps long enough to take several recvmsg: 70 classes, 160 rules,
    60 per-host clients (connections from 127.0.3.1-60)."""
    lines = ["-N c%02d --weight %d" % (i, i % 9 + 1) for i in range(70)]
    lines += ["-A -s 127.0.0.0/8 -j per-host"]
    lines += ["-A -s 10.%d.0.0/16 -j c%02d" % (i, i % 70) for i in range(100)]
    lines += ["-A -s 2001:db8:%x::/48 -j per-host/64 --origin 3" % i for i in range(59)]
    s.restore("\n".join(lines) + "\n")
    conns = []
    for i in range(1, 61):
        c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        c.bind(("127.0.3.%d" % i, 0))
        c.connect(("127.0.0.1", 2049))
        conns.append(c)
    if not wait_for(lambda: len(request("client-get", dump=True)) >= 60, 20):
        print("bad dumps 0 setup: %d clients, not 60" % len(request("client-get", dump=True)))
    s.dump("class-get-dump", "class-get", [])
    s.dump("rule-get-dump", "rule-get", [])
    s.dump("client-get-dump", "client-get", [])
    for c in conns:
        c.close()
    if not wait_for(lambda: not request("client-get", dump=True), 20):
        print("bad dumps 0 setup: clients left after the connections closed")


def run_leaks(report):
    """A kmemleak report: how many leaks, how many name nfsfair's code,
    and the others by where they were allocated."""
    text = open(report).read()
    leaks = [b for b in re.split(r"(?m)^(?=unreferenced object)", text)
             if b.startswith("unreferenced object")]
    mine = [b for b in leaks if re.search(r"svc_fair|nfsfair", b)]
    print("leaks total=%d ours=%d" % (len(leaks), len(mine)))
    others = {}
    for b in leaks:
        if b in mine:
            continue
        trace = b.split("backtrace", 1)[-1]
        frames = [line.strip().split("+")[0] for line in trace.splitlines()[1:]]
        comm = re.search(r'comm "([^"]*)"', b)
        site = next((f for f in frames if not ALLOCATOR.match(f) and not KMEMLEAK.match(f)),
                    "?")
        key = "%s (comm %s)" % (site, comm.group(1) if comm else "?")
        others[key] = others.get(key, 0) + 1
    for key, count in sorted(others.items(), key=lambda kv: -kv[1])[:20]:
        print("other %d %s" % (count, key))
    for b in mine[:3]:
        print("ours " + b.rstrip().replace("\n", "\n     "))


def main():
    if sys.argv[1] == "leaks":
        run_leaks(sys.argv[2])
        return
    ctl, what = sys.argv[1], sys.argv[2]
    s = Suite(ctl)
    {"changes": run_changes, "dumps": run_dumps, "accept": run_accept}[what](s)


if __name__ == "__main__":
    main()
