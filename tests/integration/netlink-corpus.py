#!/usr/bin/env python3
"""Hand-built malformed requests to the nfsfair generic netlink family,
for tests/integration/netlink-corpus.sh (inside the guest, as root).

  netlink-corpus.py setup   load the baseline: 3 classes, 5 rules
  netlink-corpus.py run     send every case, one line each:
      case<TAB>NAME<TAB>ok|fail<TAB>REFUSED<TAB>UNCHANGED<TAB>DETAIL
      control<TAB>NAME<TAB>ok|fail<TAB>DETAIL

The bytes are built here and sent on a raw NETLINK_GENERIC socket, not
through ynl, which refuses to send most of them. A case passes when the
request is refused with the errno it names, its extack says why (a
message, and NLMSGERR_ATTR_OFFS landing on the attribute the case broke;
for a missing attribute NLMSGERR_ATTR_MISS_TYPE naming it), and the
table generation, the rule dump and the class dump read back byte for
byte as before. Refusals by the generic netlink core itself (bad
command, short header, no permission) carry no extack: there only the
errno is checked. A request the kernel wrongly accepts is reported and
the baseline is loaded again, so that one failure does not leak into
the cases after it.
"""

import ast
import errno
import os
import re
import socket
import struct
import sys

NETLINK_GENERIC = 16
SOL_NETLINK = 270
NETLINK_CAP_ACK = 10
NETLINK_EXT_ACK = 11
SO_SNDBUFFORCE = 32

NLMSG_ERROR = 2
NLMSG_DONE = 3
NLM_F_REQUEST = 0x1
NLM_F_ACK = 0x4
NLM_F_ROOT = 0x100
NLM_F_EXCL = 0x200
NLM_F_CREATE = 0x400
NLM_F_DUMP = 0x300
NLM_F_CAPPED = 0x100
NLM_F_ACK_TLVS = 0x200
NLA_F_NESTED = 0x8000

NLMSGERR_ATTR_MSG = 1
NLMSGERR_ATTR_OFFS = 2
NLMSGERR_ATTR_MISS_TYPE = 5

GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2

# netlink-spec/uapi/linux/nfsfair_netlink.h
CLASS_NEW, CLASS_SET, CLASS_DEL, CLASS_GET = 1, 2, 3, 4
RULE_APPEND, RULE_INSERT, RULE_REPLACE, RULE_DEL = 5, 6, 7, 8
RULE_FLUSH, RULE_GET, CLIENT_GET, TABLE_REPLACE = 9, 10, 11, 12
TABLE_GET, COUNTERS_ZERO, CHANGE_NTF = 13, 14, 15

C_NAME, C_WEIGHT, C_RULES, C_LIMIT = 1, 2, 3, 12
R_POSITION, R_ADDR4, R_ADDR6, R_PREFIX_LEN, R_CLASS = 1, 2, 3, 4, 5
R_PER_HOST_LEN, R_ORIGIN, R_HITS, R_PER_CLIENT = 6, 7, 8, 9
CL_KIND, CL_CLASS, CL_PEER_ADDR4, CL_PEER_ADDR6, CL_OWNER = 1, 2, 10, 11, 14
T_GENERATION, T_ORIGIN, T_CLASS, T_RULE = 1, 2, 3, 4

MAX_CLASSES = 1024	# SVC_FAIR_MAX_CLASSES
MAX_RULES = 131072	# SVC_FAIR_MAX_RULES
NOBODY = 65534

FAMILY = None	# the family's id, resolved at start


# Building messages. Every attribute can carry a mark; build() records
# the offset of each marked attribute from the start of the netlink
# header, which is what the kernel's NLMSGERR_ATTR_OFFS counts.

class Attr:
	def __init__(self, atype, data=b"", kids=None, mark=None, nla_len=None, nested=False):
		self.atype, self.data, self.kids = atype, data, kids
		self.mark, self.nla_len, self.nested = mark, nla_len, nested

	def encode(self, off, marks):
		if self.mark:
			marks[self.mark] = off
		if self.kids is None:
			body = self.data
		else:
			body = encode_all(self.kids, off + 4, marks)
		length = 4 + len(body) if self.nla_len is None else self.nla_len
		atype = self.atype | (NLA_F_NESTED if self.nested else 0)
		out = struct.pack("=HH", length, atype) + body
		return out + b"\0" * (-len(out) % 4)


class Raw:
	"""Bytes sent as they are, no header and no padding."""

	def __init__(self, data):
		self.data = data

	def encode(self, off, marks):
		return self.data


def encode_all(attrs, off, marks):
	out = b""
	for a in attrs:
		out += a.encode(off + len(out), marks)
	return out


def attr(t, data=b"", **kw):
	return Attr(t, data, **kw)


def u8(t, v, **kw):
	return Attr(t, struct.pack("=B", v), **kw)


def u16(t, v, **kw):
	return Attr(t, struct.pack("=H", v), **kw)


def u32(t, v, **kw):
	return Attr(t, struct.pack("=I", v), **kw)


def u64(t, v, **kw):
	return Attr(t, struct.pack("=Q", v), **kw)


def string(t, text, nul=True, **kw):
	data = text.encode() if isinstance(text, str) else text
	return Attr(t, data + (b"\0" if nul else b""), **kw)


def flag(t, **kw):
	return Attr(t, b"", **kw)


def nest(t, *kids, mark=None, nested=True, nla_len=None):
	return Attr(t, kids=list(kids), mark=mark, nested=nested, nla_len=nla_len)


def v4(text):
	return socket.inet_pton(socket.AF_INET, text)


def v6(text):
	return socket.inet_pton(socket.AF_INET6, text)


class Msg:
	def __init__(self, data, marks, dump):
		self.data, self.marks, self.dump = bytearray(data), marks, dump


def build(cmd, *attrs, dump=False, flags=None, reserved=0, nlmsg_len=None, genl=True):
	"""A request to the nfsfair family; nlmsg_len and genl=False forge
	the headers."""
	marks = {}
	hdrlen = 16 + (4 if genl else 0)
	body = encode_all(attrs, hdrlen, marks)
	if flags is None:
		flags = NLM_F_REQUEST | (NLM_F_DUMP if dump else NLM_F_ACK)
	genlhdr = struct.pack("=BBH", cmd, 1, reserved) if genl else b""
	length = hdrlen + len(body) if nlmsg_len is None else nlmsg_len
	head = struct.pack("=IHHII", length, FAMILY, flags, 0, 0)
	return Msg(head + genlhdr + body, marks, dump)


def parse_attrs(buf):
	out, off = [], 0
	while off + 4 <= len(buf):
		length, atype = struct.unpack_from("=HH", buf, off)
		if length < 4:
			break
		out.append((atype & 0x3fff, buf[off + 4:off + length]))
		off += (length + 3) & ~3
	return out


# Talking to the kernel

class Reply:
	def __init__(self):
		self.err = None		# 0, a negative errno, or None: no answer
		self.msg = None
		self.offs = None
		self.miss_type = None
		self.payloads = []	# genl header and attributes of each reply

	def errname(self):
		if self.err is None:
			return "no answer"
		if self.err == 0:
			return "accepted (0)"
		return errno.errorcode.get(-self.err, str(self.err))

	def tlvs(self, buf):
		for atype, data in parse_attrs(buf):
			if atype == NLMSGERR_ATTR_MSG:
				self.msg = data.rstrip(b"\0").decode(errors="replace")
			elif atype == NLMSGERR_ATTR_OFFS:
				self.offs = struct.unpack("=I", data[:4])[0]
			elif atype == NLMSGERR_ATTR_MISS_TYPE:
				self.miss_type = struct.unpack("=I", data[:4])[0]


class Nl:
	def __init__(self):
		self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
		self.sock.bind((0, 0))
		self.sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
		# The error echoes only the request's header: the offsets still
		# count from it, and a 3.6 MB request is not sent back.
		self.sock.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
		self.sock.settimeout(30)
		self.seq = 0

	def close(self):
		self.sock.close()

	def request(self, m):
		self.seq += 1
		struct.pack_into("=I", m.data, 8, self.seq)
		self.sock.send(bytes(m.data))
		r = Reply()
		while True:
			try:
				buf = self.sock.recv(1 << 20)
			except socket.timeout:
				return r
			off = 0
			while off + 16 <= len(buf):
				length, mtype, flags, seq, _ = struct.unpack_from("=IHHII", buf, off)
				if length < 16:
					break
				body = buf[off + 16:off + length]
				off += (length + 3) & ~3
				if seq != self.seq:
					continue
				if mtype == NLMSG_ERROR:
					r.err = struct.unpack_from("=i", body)[0]
					if flags & NLM_F_ACK_TLVS:
						# struct nlmsgerr: error, then the request's
						# header (all of it unless capped)
						echo = struct.unpack_from("=I", body, 4)[0]
						skip = 4 + (16 if flags & NLM_F_CAPPED else echo)
						r.tlvs(body[skip:])
					return r
				if mtype == NLMSG_DONE:
					r.err = struct.unpack_from("=i", body)[0] if len(body) >= 4 else 0
					if flags & NLM_F_ACK_TLVS:
						r.tlvs(body[4:])
					return r
				r.payloads.append(body)


def resolve_family(nl):
	global FAMILY
	name = b"nfsfair\0"
	attrs = struct.pack("=HH", 4 + len(name), CTRL_ATTR_FAMILY_NAME) + name
	attrs += b"\0" * (-len(attrs) % 4)
	head = struct.pack("=IHHII", 20 + len(attrs), GENL_ID_CTRL,
			   NLM_F_REQUEST | NLM_F_ACK, 0, 0)
	r = nl.request(Msg(head + struct.pack("=BBH", CTRL_CMD_GETFAMILY, 2, 0) + attrs, {}, False))
	for payload in r.payloads:
		for atype, data in parse_attrs(payload[4:]):
			if atype == CTRL_ATTR_FAMILY_ID:
				FAMILY = struct.unpack("=H", data[:2])[0]
	if r.err or FAMILY is None:
		sys.exit("netlink-corpus: no nfsfair family (%s)" % r.errname())


def ok(nl, m, what):
	r = nl.request(m)
	if r.err != 0:
		raise RuntimeError("%s: %s %s" % (what, r.errname(), r.msg or ""))
	return r


# The state a refused request must leave as it was

class State:
	def __init__(self, nl):
		gen = ok(nl, build(TABLE_GET), "table-get")
		rules = ok(nl, build(RULE_GET, dump=True), "rule-get dump")
		classes = ok(nl, build(CLASS_GET, dump=True), "class-get dump")
		self.raw = (gen.payloads, rules.payloads, classes.payloads)
		self.gen = dict(parse_attrs(gen.payloads[0][4:]))[T_GENERATION]
		self.gen = int.from_bytes(self.gen, sys.byteorder)
		self.nr_rules = len(rules.payloads)
		self.classes = [dict(parse_attrs(p[4:]))[C_NAME].rstrip(b"\0").decode()
				for p in classes.payloads]

	def __eq__(self, other):
		return self.raw == other.raw

	def diff(self, other):
		out = []
		for what, a, b in (("generation", self.gen, other.gen),
				   ("rules", self.nr_rules, other.nr_rules),
				   ("classes", len(self.classes), len(other.classes))):
			if a != b:
				out.append("%s %d -> %d" % (what, a, b))
		return ", ".join(out) or "same counts, different bytes"


BASE_CLASSES = (("movers", 2), ("interactive", 1))


def setup(nl):
	"""The baseline: classes movers (2), interactive, backup (3, made by
	table-replace); four hand-made rules of both families and targets,
	and one rule of origin 7."""
	for name, weight in BASE_CLASSES:
		ok(nl, build(CLASS_NEW, string(C_NAME, name), u32(C_WEIGHT, weight)), "class-new")
	for rule in ((attr(R_ADDR4, v4("127.0.0.2")), u32(R_PREFIX_LEN, 32), string(R_CLASS, "movers")),
		     (attr(R_ADDR6, v6("::1")), u32(R_PREFIX_LEN, 128), string(R_CLASS, "interactive")),
		     (attr(R_ADDR4, v4("127.0.0.0")), u32(R_PREFIX_LEN, 8), u32(R_PER_HOST_LEN, 32)),
		     (attr(R_ADDR6, v6("2001:db8::")), u32(R_PREFIX_LEN, 32), u32(R_PER_HOST_LEN, 64),
		      flag(R_PER_CLIENT))):
		ok(nl, build(RULE_APPEND, *rule), "rule-append")
	ok(nl, build(TABLE_REPLACE, u32(T_ORIGIN, 7),
		     nest(T_CLASS, string(C_NAME, "backup"), u32(C_WEIGHT, 3)),
		     nest(T_RULE, attr(R_ADDR4, v4("10.0.0.0")), u32(R_PREFIX_LEN, 8),
			  string(R_CLASS, "backup"))), "table-replace")


def reset(nl):
	"""Back to the baseline after a request that should have been refused
	was not."""
	ok(nl, build(RULE_FLUSH), "rule-flush")
	for name in State(nl).classes:
		ok(nl, build(CLASS_DEL, string(C_NAME, name)), "class-del")
	setup(nl)


# Preconditions for the caps

def fill_classes(nl):
	have = len(State(nl).classes)
	for i in range(MAX_CLASSES - have):
		ok(nl, build(CLASS_NEW, string(C_NAME, "fill%d" % i)), "class-new fill%d" % i)


def drop_fill(nl):
	for name in State(nl).classes:
		if name.startswith("fill"):
			ok(nl, build(CLASS_DEL, string(C_NAME, name)), "class-del " + name)


def many_rules(count, origin):
	"""table-replace of @count per-host rules 10.x.y.z/32, built in one go."""
	rule = struct.Struct("=HH HH4s HHI HHI")
	blob = bytearray()
	for i in range(count):
		blob += rule.pack(28, T_RULE | NLA_F_NESTED, 8, R_ADDR4,
				  struct.pack(">I", 0x0a000000 + i), 8, R_PREFIX_LEN, 32,
				  8, R_PER_HOST_LEN, 32)
	return build(TABLE_REPLACE, u32(T_ORIGIN, origin), Raw(bytes(blob)))


# The corpus

class Case:
	def __init__(self, name, make, err=None, msg=None, offs=None, miss=None,
		     core=False, pre=None, post=None, unpriv=False):
		self.name, self.make, self.err, self.msg = name, make, err, msg
		self.offs = (offs,) if isinstance(offs, str) else offs
		self.msg = (msg,) if isinstance(msg, str) else msg
		self.miss, self.core, self.pre, self.post = miss, core, pre, post
		self.unpriv = unpriv


def rule4(*extra, addr="10.1.0.0", plen=16, phl=32):
	return (attr(R_ADDR4, v4(addr)), u32(R_PREFIX_LEN, plen), u32(R_PER_HOST_LEN, phl)) + extra


POLICY = "Attribute failed policy validation"
LENGTH = "invalid attribute length"
BINLEN = "binary attribute size out of range"
RANGE = "integer out of range"
UNKNOWN = "Unknown attribute type"
UNSUP = "Unsupported attribute"
# An attribute the op does not take: which of these depends on where its
# number falls against the op's policy, which grows as the spec does.
# An op with no attributes at all says so itself (the core would ignore them).
NONE_TAKEN = "the operation takes no attribute"
NOT_TAKEN = (POLICY, UNKNOWN, UNSUP, NONE_TAKEN)
EINVAL, ERANGE, ENOENT = errno.EINVAL, errno.ERANGE, errno.ENOENT
N16 = "sixteen-bytes-xx"	# one byte past name-len
N15 = "fifteen-bytes-x"


def corpus():
	c = []

	def case(name, make, **kw):
		c.append(Case(name, make, **kw))

	# Wrong attribute lengths
	case("class-new: weight of 2 bytes",
	     lambda s: build(CLASS_NEW, string(C_NAME, "w"), u16(C_WEIGHT, 2, mark="w")),
	     err=EINVAL, msg=LENGTH, offs="w")
	case("class-new: weight of 3 bytes",
	     lambda s: build(CLASS_NEW, string(C_NAME, "w"), attr(C_WEIGHT, b"\2\0\0", mark="w")),
	     err=EINVAL, msg=LENGTH, offs="w")
	case("rule-append: prefix-len sent as a u8",
	     lambda s: build(RULE_APPEND, attr(R_ADDR4, v4("10.1.0.0")),
			     u8(R_PREFIX_LEN, 16, mark="p"), u32(R_PER_HOST_LEN, 32)),
	     err=EINVAL, msg=LENGTH, offs="p")
	case("rule-append: per-host-len of 0 bytes",
	     lambda s: build(RULE_APPEND, attr(R_ADDR4, v4("10.1.0.0")), u32(R_PREFIX_LEN, 16),
			     attr(R_PER_HOST_LEN, mark="h")),
	     err=EINVAL, msg=LENGTH, offs="h")
	case("rule-append: addr4 of 3 bytes",
	     lambda s: build(RULE_APPEND, attr(R_ADDR4, b"\x0a\x01\x00", mark="a"),
			     u32(R_PREFIX_LEN, 16), u32(R_PER_HOST_LEN, 32)),
	     err=ERANGE, msg=BINLEN, offs="a")
	case("rule-append: addr4 of 16 bytes (an IPv6 address)",
	     lambda s: build(RULE_APPEND, attr(R_ADDR4, v6("2001:db8::"), mark="a"),
			     u32(R_PREFIX_LEN, 32), u32(R_PER_HOST_LEN, 64)),
	     err=ERANGE, msg=BINLEN, offs="a")
	case("rule-append: addr6 of 4 bytes (an IPv4 address)",
	     lambda s: build(RULE_APPEND, attr(R_ADDR6, v4("10.1.0.0"), mark="a"),
			     u32(R_PREFIX_LEN, 16), u32(R_PER_HOST_LEN, 32)),
	     err=ERANGE, msg=BINLEN, offs="a")
	case("rule-append: addr6 of 15 bytes",
	     lambda s: build(RULE_APPEND, attr(R_ADDR6, v6("2001:db8::")[:15], mark="a"),
			     u32(R_PREFIX_LEN, 32), u32(R_PER_HOST_LEN, 64)),
	     err=ERANGE, msg=BINLEN, offs="a")
	case("rule-insert: position of 2 bytes",
	     lambda s: build(RULE_INSERT, u16(R_POSITION, 1, mark="p"), *rule4()),
	     err=EINVAL, msg=LENGTH, offs="p")
	case("table-replace: generation of 2 bytes",
	     lambda s: build(TABLE_REPLACE, u16(T_GENERATION, s.gen, mark="g"), u32(T_ORIGIN, 7)),
	     err=EINVAL, msg=LENGTH, offs="g")
	case("table-replace: origin of 2 bytes",
	     lambda s: build(TABLE_REPLACE, u16(T_ORIGIN, 7, mark="o")),
	     err=EINVAL, msg=LENGTH, offs="o")
	case("rule-flush: origin of 2 bytes (not a flush of everything)",
	     lambda s: build(RULE_FLUSH, u16(R_ORIGIN, 7, mark="o")),
	     err=EINVAL, msg=LENGTH, offs="o")
	case("client-get dump: peer-addr4 of 3 bytes",
	     lambda s: build(CLIENT_GET, attr(CL_PEER_ADDR4, b"\x7f\0\0", mark="a"), dump=True),
	     err=ERANGE, msg=BINLEN, offs="a")
	case("rule-append: per-client flag with a payload",
	     lambda s: build(RULE_APPEND, *rule4(u32(R_PER_CLIENT, 1, mark="f"))),
	     err=ERANGE, msg=POLICY, offs="f")
	case("class-new: attribute length past the end of the message",
	     lambda s: build(CLASS_NEW, string(C_NAME, "x"), Raw(struct.pack("=HH", 40, C_WEIGHT))),
	     err=EINVAL, msg="bytes leftover")
	case("class-new: attribute header with nla_len 2",
	     lambda s: build(CLASS_NEW, string(C_NAME, "x"), Raw(struct.pack("=HH", 2, C_WEIGHT))),
	     err=EINVAL, msg="bytes leftover")
	case("class-new: 2 stray bytes after the last attribute",
	     lambda s: build(CLASS_NEW, string(C_NAME, "x"), Raw(b"\1\0")),
	     err=EINVAL, msg="bytes leftover")

	# Out-of-range values
	case("rule-append: IPv4 prefix-len 33",
	     lambda s: build(RULE_APPEND, attr(R_ADDR4, v4("10.1.0.0")),
			     u32(R_PREFIX_LEN, 33, mark="p"), string(R_CLASS, "movers")),
	     err=EINVAL, msg="prefix-len 33 is past /32", offs="p")
	case("rule-append: IPv6 prefix-len 129",
	     lambda s: build(RULE_APPEND, attr(R_ADDR6, v6("2001:db8::")),
			     u32(R_PREFIX_LEN, 129, mark="p"), string(R_CLASS, "movers")),
	     err=ERANGE, msg=RANGE, offs="p")
	case("rule-append: IPv6 prefix-len 255",
	     lambda s: build(RULE_APPEND, attr(R_ADDR6, v6("2001:db8::")),
			     u32(R_PREFIX_LEN, 255, mark="p"), string(R_CLASS, "movers")),
	     err=ERANGE, msg=RANGE, offs="p")
	case("rule-append: IPv4 per-host-len 33",
	     lambda s: build(RULE_APPEND, attr(R_ADDR4, v4("10.1.0.0")), u32(R_PREFIX_LEN, 16),
			     u32(R_PER_HOST_LEN, 33, mark="h")),
	     err=EINVAL, msg="per-host-len 33 is past /32", offs="h")
	case("rule-append: IPv6 per-host-len 129",
	     lambda s: build(RULE_APPEND, attr(R_ADDR6, v6("2001:db8::")), u32(R_PREFIX_LEN, 32),
			     u32(R_PER_HOST_LEN, 129, mark="h")),
	     err=ERANGE, msg=RANGE, offs="h")
	case("rule-append: per-host-len shorter than prefix-len",
	     lambda s: build(RULE_APPEND, attr(R_ADDR4, v4("10.1.0.0")), u32(R_PREFIX_LEN, 16),
			     u32(R_PER_HOST_LEN, 8, mark="h")),
	     err=EINVAL, msg="shorter than prefix-len", offs="h")
	case("class-new: weight 0",
	     lambda s: build(CLASS_NEW, string(C_NAME, "w0"), u32(C_WEIGHT, 0, mark="w")),
	     err=ERANGE, msg=RANGE, offs="w")
	case("class-new: weight 1001",
	     lambda s: build(CLASS_NEW, string(C_NAME, "w1001"), u32(C_WEIGHT, 1001, mark="w")),
	     err=ERANGE, msg=RANGE, offs="w")
	case("class-new: weight 2^32-1",
	     lambda s: build(CLASS_NEW, string(C_NAME, "wmax"), u32(C_WEIGHT, 0xffffffff, mark="w")),
	     err=ERANGE, msg=RANGE, offs="w")
	case("class-new: weight 1001 in 8 bytes (a uint, so a range error)",
	     lambda s: build(CLASS_NEW, string(C_NAME, "w8"), u64(C_WEIGHT, 1001, mark="w")),
	     err=ERANGE, msg=RANGE, offs="w")
	case("class-new: weight 2^32+1, which a u32 would have taken for 1",
	     lambda s: build(CLASS_NEW, string(C_NAME, "w8"), u64(C_WEIGHT, (1 << 32) + 1, mark="w")),
	     err=ERANGE, msg=RANGE, offs="w")
	case("class-new: limit 2^32",
	     lambda s: build(CLASS_NEW, string(C_NAME, "l8"), u64(C_LIMIT, 1 << 32, mark="l")),
	     err=ERANGE, msg=RANGE, offs="l")
	case("rule-append: prefix-len 2^32+16",
	     lambda s: build(RULE_APPEND, attr(R_ADDR4, v4("10.1.0.0")),
			     u64(R_PREFIX_LEN, (1 << 32) + 16, mark="p"), u32(R_PER_HOST_LEN, 32)),
	     err=ERANGE, msg=RANGE, offs="p")
	case("rule-append: origin 256, past a byte",
	     lambda s: build(RULE_APPEND, *rule4(u32(R_ORIGIN, 256, mark="o"))),
	     err=ERANGE, msg=RANGE, offs="o")
	case("rule-flush: origin 2^32+7",
	     lambda s: build(RULE_FLUSH, u64(R_ORIGIN, (1 << 32) + 7, mark="o")),
	     err=ERANGE, msg=RANGE, offs="o")
	case("table-replace: origin 263",
	     lambda s: build(TABLE_REPLACE, u32(T_ORIGIN, 263, mark="o")),
	     err=ERANGE, msg=RANGE, offs="o")
	case("rule-del: position 2^32+1, which a u32 would have taken for 1",
	     lambda s: build(RULE_DEL, u64(R_POSITION, (1 << 32) + 1, mark="p")),
	     err=ERANGE, msg=RANGE, offs="p")
	case("class-set: weight 0",
	     lambda s: build(CLASS_SET, string(C_NAME, "movers"), u32(C_WEIGHT, 0, mark="w")),
	     err=ERANGE, msg=RANGE, offs="w")
	case("class-set: weight 1001",
	     lambda s: build(CLASS_SET, string(C_NAME, "movers"), u32(C_WEIGHT, 1001, mark="w")),
	     err=ERANGE, msg=RANGE, offs="w")
	case("table-replace: class nest with weight 1001",
	     lambda s: build(TABLE_REPLACE, u32(T_ORIGIN, 7),
			     nest(T_CLASS, string(C_NAME, "backup"), u32(C_WEIGHT, 1001, mark="w"))),
	     err=ERANGE, msg=RANGE, offs="w")
	case("rule-insert: position 0",
	     lambda s: build(RULE_INSERT, u32(R_POSITION, 0, mark="p"), *rule4()),
	     err=ERANGE, msg=RANGE, offs="p")
	case("rule-insert: position two past the end",
	     lambda s: build(RULE_INSERT, u32(R_POSITION, s.nr_rules + 2, mark="p"), *rule4()),
	     err=ERANGE, msg="is past the table's", offs="p")
	case("rule-replace: position one past the end",
	     lambda s: build(RULE_REPLACE, u32(R_POSITION, s.nr_rules + 1, mark="p"), *rule4()),
	     err=ERANGE, msg="is past the table's", offs="p")
	case("rule-del: position 2^32-1",
	     lambda s: build(RULE_DEL, u32(R_POSITION, 0xffffffff, mark="p")),
	     err=ERANGE, msg="is past the table's", offs="p")
	case("rule-append: IPv4 host bits set past the prefix",
	     lambda s: build(RULE_APPEND, attr(R_ADDR4, v4("10.1.0.1"), mark="a"),
			     u32(R_PREFIX_LEN, 16), u32(R_PER_HOST_LEN, 32)),
	     err=EINVAL, msg="host bits set past /16", offs="a")
	case("rule-append: IPv6 host bits set past the prefix",
	     lambda s: build(RULE_APPEND, attr(R_ADDR6, v6("2001:db8::1"), mark="a"),
			     u32(R_PREFIX_LEN, 64), string(R_CLASS, "movers")),
	     err=EINVAL, msg="host bits set past /64", offs="a")

	# Family and address mismatches
	case("rule-append: addr4 with an IPv6 prefix-len (64)",
	     lambda s: build(RULE_APPEND, attr(R_ADDR4, v4("10.1.0.0")),
			     u32(R_PREFIX_LEN, 64, mark="p"), string(R_CLASS, "movers")),
	     err=EINVAL, msg="prefix-len 64 is past /32", offs="p")
	case("rule-append: addr4 with an IPv6 per-host-len (64)",
	     lambda s: build(RULE_APPEND, attr(R_ADDR4, v4("10.1.0.0")), u32(R_PREFIX_LEN, 16),
			     u32(R_PER_HOST_LEN, 64, mark="h")),
	     err=EINVAL, msg="per-host-len 64 is past /32", offs="h")
	case("rule-append: addr4 and addr6 both",
	     lambda s: build(RULE_APPEND, attr(R_ADDR4, v4("10.1.0.0")),
			     attr(R_ADDR6, v6("2001:db8::"), mark="a6"), u32(R_PREFIX_LEN, 16),
			     string(R_CLASS, "movers")),
	     err=EINVAL, msg="addr4 or addr6, not both", offs="a6")
	case("table-replace: rule nest with addr4 and addr6 both",
	     lambda s: build(TABLE_REPLACE, u32(T_ORIGIN, 7),
			     nest(T_RULE, attr(R_ADDR4, v4("10.0.0.0")),
				  attr(R_ADDR6, v6("2001:db8::"), mark="a6"),
				  u32(R_PREFIX_LEN, 8), string(R_CLASS, "backup"))),
	     err=EINVAL, msg="addr4 or addr6, not both", offs="a6")
	case("client-get dump: peer-addr4 and peer-addr6 both",
	     lambda s: build(CLIENT_GET, attr(CL_PEER_ADDR4, v4("127.0.0.1")),
			     attr(CL_PEER_ADDR6, v6("::1"), mark="a6"), dump=True),
	     err=EINVAL, msg="peer-addr4 or peer-addr6, not both", offs="a6")
	case("client-get dump: peer-addr6 of 4 bytes (an IPv4 address)",
	     lambda s: build(CLIENT_GET, attr(CL_PEER_ADDR6, v4("127.0.0.1"), mark="a"), dump=True),
	     err=ERANGE, msg=BINLEN, offs="a")

	# Missing required attributes
	case("class-new: no name",
	     lambda s: build(CLASS_NEW, u32(C_WEIGHT, 2)), err=EINVAL, miss=C_NAME)
	case("class-set: neither weight nor limit",
	     lambda s: build(CLASS_SET, string(C_NAME, "movers")), err=EINVAL,
	     msg="give weight, limit or both")
	case("class-set: no name",
	     lambda s: build(CLASS_SET, u32(C_WEIGHT, 2)), err=EINVAL, miss=C_NAME)
	case("class-del: no name",
	     lambda s: build(CLASS_DEL), err=EINVAL, miss=C_NAME)
	case("class-get: no name",
	     lambda s: build(CLASS_GET), err=EINVAL, miss=C_NAME)
	case("rule-append: no address",
	     lambda s: build(RULE_APPEND, u32(R_PREFIX_LEN, 16), string(R_CLASS, "movers")),
	     err=EINVAL, msg="a rule needs addr4 or addr6")
	case("rule-append: no prefix-len",
	     lambda s: build(RULE_APPEND, attr(R_ADDR4, v4("10.1.0.0")), string(R_CLASS, "movers")),
	     err=EINVAL, msg="a rule needs prefix-len")
	case("rule-append: no target",
	     lambda s: build(RULE_APPEND, attr(R_ADDR4, v4("10.1.0.0")), u32(R_PREFIX_LEN, 16)),
	     err=EINVAL, msg="a rule needs one target")
	case("rule-append: per-client without per-host-len",
	     lambda s: build(RULE_APPEND, attr(R_ADDR4, v4("10.1.0.0")), u32(R_PREFIX_LEN, 16),
			     string(R_CLASS, "movers"), flag(R_PER_CLIENT, mark="f")),
	     err=EINVAL, msg="per-client needs per-host-len", offs="f")
	case("rule-insert: no position",
	     lambda s: build(RULE_INSERT, *rule4()), err=EINVAL, miss=R_POSITION)
	case("rule-replace: no position",
	     lambda s: build(RULE_REPLACE, *rule4()), err=EINVAL, miss=R_POSITION)
	case("table-replace: no origin",
	     lambda s: build(TABLE_REPLACE, u64(T_GENERATION, s.gen)), err=EINVAL, miss=T_ORIGIN)
	case("table-replace: class nest without a name",
	     lambda s: build(TABLE_REPLACE, u32(T_ORIGIN, 7),
			     nest(T_CLASS, u32(C_WEIGHT, 2), mark="n")),
	     err=EINVAL, msg="a class needs a name", offs="n")
	case("table-replace: empty rule nest",
	     lambda s: build(TABLE_REPLACE, u32(T_ORIGIN, 7), nest(T_RULE, mark="n")),
	     err=EINVAL, msg="a rule needs addr4 or addr6", offs="n")
	case("table-replace: rule nest without prefix-len",
	     lambda s: build(TABLE_REPLACE, u32(T_ORIGIN, 7),
			     nest(T_RULE, attr(R_ADDR4, v4("10.0.0.0")), string(R_CLASS, "backup"),
				  mark="n")),
	     err=EINVAL, msg="a rule needs prefix-len", offs="n")

	# Duplicate attributes
	case("table-replace: a new class named twice",
	     lambda s: build(TABLE_REPLACE, u32(T_ORIGIN, 7), nest(T_CLASS, string(C_NAME, "twice")),
			     nest(T_CLASS, string(C_NAME, "twice"), mark="n2")),
	     err=EINVAL, msg="class named twice", offs="n2")
	case("class-new: name twice, the second of 16 bytes",
	     lambda s: build(CLASS_NEW, string(C_NAME, "ok"), string(C_NAME, N16, mark="n2")),
	     err=EINVAL, msg=POLICY, offs="n2")
	case("rule-append: prefix-len twice, the second 129",
	     lambda s: build(RULE_APPEND, attr(R_ADDR6, v6("2001:db8::")), u32(R_PREFIX_LEN, 32),
			     u32(R_PREFIX_LEN, 129, mark="p2"), string(R_CLASS, "movers")),
	     err=ERANGE, msg=RANGE, offs="p2")
	# Both copies valid: which one counts is the kernel's guess.
	case("class-new: two different names",
	     lambda s: build(CLASS_NEW, string(C_NAME, "first"), string(C_NAME, "second", mark="n2")),
	     offs="n2")
	case("rule-append: two addr4, two prefixes in one rule",
	     lambda s: build(RULE_APPEND, attr(R_ADDR4, v4("10.1.0.0")),
			     attr(R_ADDR4, v4("10.2.0.0"), mark="a2"), u32(R_PREFIX_LEN, 16),
			     string(R_CLASS, "movers")),
	     offs="a2")
	case("table-replace: origin twice (7 and 0)",
	     lambda s: build(TABLE_REPLACE, u32(T_ORIGIN, 7), u32(T_ORIGIN, 0, mark="o2"),
			     nest(T_RULE, attr(R_ADDR4, v4("10.0.0.0")), u32(R_PREFIX_LEN, 8),
				  string(R_CLASS, "backup"))),
	     offs="o2")

	# Unknown and unexpected attributes: the family validates strictly
	case("class-new: attribute type 0",
	     lambda s: build(CLASS_NEW, string(C_NAME, "x"), u32(0, 1, mark="u")),
	     err=EINVAL, msg=UNKNOWN, offs="u")
	case("class-new: read-only attribute rules (type 3)",
	     lambda s: build(CLASS_NEW, string(C_NAME, "x"), u64(C_RULES, 1, mark="u")),
	     err=EINVAL, msg=NOT_TAKEN, offs="u")
	case("class-new: attribute type 300",
	     lambda s: build(CLASS_NEW, string(C_NAME, "x"), u32(300, 1, mark="u")),
	     err=EINVAL, msg=UNKNOWN, offs="u")
	case("rule-append: position (rule-insert's attribute)",
	     lambda s: build(RULE_APPEND, u32(R_POSITION, 1, mark="u"), *rule4()),
	     err=EINVAL, msg=UNSUP, offs="u")
	case("rule-append: read-only attribute hits",
	     lambda s: build(RULE_APPEND, *rule4(u64(R_HITS, 5, mark="u"))),
	     err=EINVAL, msg=UNSUP, offs="u")
	case("rule-flush: a class attribute (not a flush of everything)",
	     lambda s: build(RULE_FLUSH, string(R_CLASS, "movers", mark="u")),
	     err=EINVAL, msg=UNSUP, offs="u")
	case("class-new: name sent with NLA_F_NESTED",
	     lambda s: build(CLASS_NEW, nest(C_NAME, Raw(b"abc\0"), mark="n")),
	     err=EINVAL, msg="NLA_F_NESTED not expected", offs="n")
	case("counters-zero: an attribute",
	     lambda s: build(COUNTERS_ZERO, u8(1, 0, mark="u")),
	     err=EINVAL, msg=NOT_TAKEN, offs="u")
	case("table-get: an attribute",
	     lambda s: build(TABLE_GET, u64(T_GENERATION, 1, mark="u")),
	     err=EINVAL, msg=NOT_TAKEN, offs="u")

	# Names
	case("class-new: name of 0 bytes",
	     lambda s: build(CLASS_NEW, attr(C_NAME, mark="n")),
	     err=EINVAL, msg=POLICY, offs="n")
	case("class-new: empty name (one NUL)",
	     lambda s: build(CLASS_NEW, string(C_NAME, "", mark="n")),
	     err=EINVAL, offs="n")
	case("class-new: name of 16 bytes",
	     lambda s: build(CLASS_NEW, string(C_NAME, N16, mark="n")),
	     err=EINVAL, msg=POLICY, offs="n")
	case("class-new: name of 64 bytes",
	     lambda s: build(CLASS_NEW, string(C_NAME, "n" * 64, mark="n")),
	     err=EINVAL, msg=POLICY, offs="n")
	case("class-new: name without a NUL",
	     lambda s: build(CLASS_NEW, string(C_NAME, "abc", nul=False, mark="n")),
	     err=EINVAL, msg=POLICY, offs="n")
	case("class-new: 15-byte name without a NUL",
	     lambda s: build(CLASS_NEW, string(C_NAME, N15, nul=False, mark="n")),
	     err=EINVAL, msg=POLICY, offs="n")
	case("class-new: 15-byte name, NUL, 4 bytes of garbage",
	     lambda s: build(CLASS_NEW, attr(C_NAME, N15.encode() + b"\0junk", mark="n")),
	     err=ERANGE, msg=POLICY, offs="n")
	case("rule-append: class name of 16 bytes",
	     lambda s: build(RULE_APPEND, attr(R_ADDR4, v4("10.1.0.0")), u32(R_PREFIX_LEN, 16),
			     string(R_CLASS, N16, mark="n")),
	     err=EINVAL, msg=POLICY, offs="n")
	case("rule-append: class name without a NUL",
	     lambda s: build(RULE_APPEND, attr(R_ADDR4, v4("10.1.0.0")), u32(R_PREFIX_LEN, 16),
			     string(R_CLASS, "movers", nul=False, mark="n")),
	     err=EINVAL, msg=POLICY, offs="n")
	case("table-replace: class nest with a 16-byte name",
	     lambda s: build(TABLE_REPLACE, u32(T_ORIGIN, 7),
			     nest(T_CLASS, string(C_NAME, N16, mark="n"))),
	     err=EINVAL, msg=POLICY, offs="n")
	case("table-replace: class nest with an empty name",
	     lambda s: build(TABLE_REPLACE, u32(T_ORIGIN, 7),
			     nest(T_CLASS, string(C_NAME, "", mark="n"), mark="nest")),
	     err=EINVAL, offs=("n", "nest"))

	# Rules naming missing classes, and other references to nothing
	case("rule-append: class that does not exist",
	     lambda s: build(RULE_APPEND, attr(R_ADDR4, v4("10.1.0.0")), u32(R_PREFIX_LEN, 16),
			     string(R_CLASS, "nope", mark="c")),
	     err=ENOENT, msg="no class 'nope'", offs="c")
	case("rule-append: class of an empty name",
	     lambda s: build(RULE_APPEND, attr(R_ADDR4, v4("10.1.0.0")), u32(R_PREFIX_LEN, 16),
			     string(R_CLASS, "", mark="c")),
	     err=ENOENT, msg="no class ''", offs="c")
	case("rule-insert at 1: class that does not exist",
	     lambda s: build(RULE_INSERT, u32(R_POSITION, 1), attr(R_ADDR4, v4("10.1.0.0")),
			     u32(R_PREFIX_LEN, 16), string(R_CLASS, "nope", mark="c")),
	     err=ENOENT, msg="no class 'nope'", offs="c")
	case("rule-replace at 1: class that does not exist",
	     lambda s: build(RULE_REPLACE, u32(R_POSITION, 1), attr(R_ADDR4, v4("10.1.0.0")),
			     u32(R_PREFIX_LEN, 16), string(R_CLASS, "nope", mark="c")),
	     err=ENOENT, msg="no class 'nope'", offs="c")
	case("table-replace: rule naming a class neither there nor sent",
	     lambda s: build(TABLE_REPLACE, u32(T_ORIGIN, 7), nest(T_CLASS, string(C_NAME, "fresh")),
			     nest(T_RULE, attr(R_ADDR4, v4("10.0.0.0")), u32(R_PREFIX_LEN, 8),
				  string(R_CLASS, "fresh")),
			     nest(T_RULE, attr(R_ADDR4, v4("11.0.0.0")), u32(R_PREFIX_LEN, 8),
				  string(R_CLASS, "missing", mark="c"))),
	     err=ENOENT, msg="no class 'missing'", offs="c")
	case("class-set: class that does not exist",
	     lambda s: build(CLASS_SET, string(C_NAME, "nope", mark="n"), u32(C_WEIGHT, 2)),
	     err=ENOENT, msg="no class 'nope'", offs="n")
	case("class-del: class that does not exist",
	     lambda s: build(CLASS_DEL, string(C_NAME, "nope", mark="n")),
	     err=ENOENT, msg="no class 'nope'", offs="n")
	case("class-del: class a rule names",
	     lambda s: build(CLASS_DEL, string(C_NAME, "movers", mark="n")),
	     err=errno.EBUSY, msg="target of 1 rule", offs="n")
	case("class-new: class that exists",
	     lambda s: build(CLASS_NEW, string(C_NAME, "movers", mark="n")),
	     err=errno.EEXIST, msg="class 'movers' exists", offs="n")
	case("rule-del by match: no such rule",
	     lambda s: build(RULE_DEL, *rule4()),
	     err=ENOENT, msg="no such rule")

	# Stale generations
	for name, gen in (("one behind", lambda g: g - 1), ("one ahead", lambda g: g + 1),
			  ("0", lambda g: 0), ("2^64-1", lambda g: 2**64 - 1)):
		case("table-replace: generation %s" % name,
		     lambda s, gen=gen: build(TABLE_REPLACE, u64(T_GENERATION, gen(s.gen), mark="g"),
					      u32(T_ORIGIN, 7), nest(T_RULE, *rule4())),
		     err=errno.ESTALE, msg="the table changed", offs="g")

	# Over the caps
	case("class-new: class %d (with %d there)" % (MAX_CLASSES + 1, MAX_CLASSES),
	     lambda s: build(CLASS_NEW, string(C_NAME, "one-too-many", mark="n")),
	     err=errno.ENOSPC, msg="at most %d classes" % MAX_CLASSES, offs="n",
	     pre=fill_classes, post=drop_fill)
	case("table-replace: a new class past %d" % MAX_CLASSES,
	     lambda s: build(TABLE_REPLACE, u32(T_ORIGIN, 7), nest(T_CLASS, string(C_NAME, "backup")),
			     nest(T_CLASS, string(C_NAME, "one-too-many"), mark="n")),
	     err=errno.ENOSPC, msg="at most %d classes" % MAX_CLASSES, offs="n",
	     pre=fill_classes, post=drop_fill)
	case("table-replace: %d rules in one message" % (MAX_RULES + 1),
	     lambda s: many_rules(MAX_RULES + 1, 9),
	     err=errno.ENOSPC, msg="at most %d rules" % MAX_RULES)
	case("table-replace: new rules that fit alone, the table past %d" % MAX_RULES,
	     lambda s: many_rules(MAX_RULES + 1 - s.nr_rules, 9),
	     err=errno.ENOSPC, msg="at most %d rules" % MAX_RULES)

	# Garbage inside table-replace's nests
	case("table-replace: class nest holding rules (type 3)",
	     lambda s: build(TABLE_REPLACE, u32(T_ORIGIN, 7),
			     nest(T_CLASS, string(C_NAME, "backup"), u64(C_RULES, 1, mark="u"))),
	     err=EINVAL, msg=NOT_TAKEN, offs="u")
	case("table-replace: class nest holding type 0",
	     lambda s: build(TABLE_REPLACE, u32(T_ORIGIN, 7),
			     nest(T_CLASS, u32(0, 0, mark="u"), string(C_NAME, "backup"))),
	     err=EINVAL, msg=UNKNOWN, offs="u")
	case("table-replace: rule nest holding position",
	     lambda s: build(TABLE_REPLACE, u32(T_ORIGIN, 7),
			     nest(T_RULE, u32(R_POSITION, 1, mark="u"), *rule4())),
	     err=EINVAL, msg=UNSUP, offs="u")
	case("table-replace: rule nest holding origin",
	     lambda s: build(TABLE_REPLACE, u32(T_ORIGIN, 7),
			     nest(T_RULE, *rule4(u32(R_ORIGIN, 0, mark="u")))),
	     err=EINVAL, msg=UNSUP, offs="u")
	case("table-replace: rule nest of 2 bytes",
	     lambda s: build(TABLE_REPLACE, u32(T_ORIGIN, 7),
			     nest(T_RULE, Raw(b"\xff\xff"), mark="n")),
	     err=ERANGE, msg=POLICY, offs="n")
	case("table-replace: rule nest whose attribute runs past it",
	     lambda s: build(TABLE_REPLACE, u32(T_ORIGIN, 7),
			     nest(T_RULE, Raw(struct.pack("=HH", 64, R_ADDR4) + v4("10.0.0.0")))),
	     err=EINVAL, msg="bytes leftover")
	case("table-replace: class nest without NLA_F_NESTED",
	     lambda s: build(TABLE_REPLACE, u32(T_ORIGIN, 7),
			     nest(T_CLASS, string(C_NAME, "backup"), nested=False, mark="n")),
	     err=EINVAL, msg="NLA_F_NESTED is missing", offs="n")
	case("table-replace: rule nest holding a nest (addr4)",
	     lambda s: build(TABLE_REPLACE, u32(T_ORIGIN, 7),
			     nest(T_RULE, nest(R_ADDR4, Raw(v4("10.0.0.0")), mark="u"),
				  u32(R_PREFIX_LEN, 8), string(R_CLASS, "backup"))),
	     err=EINVAL, msg="NLA_F_NESTED not expected", offs="u")
	case("table-replace: rule nest with both targets",
	     lambda s: build(TABLE_REPLACE, u32(T_ORIGIN, 7),
			     nest(T_RULE, *rule4(string(R_CLASS, "backup", mark="c")))),
	     err=EINVAL, msg="one target", offs="c")
	case("table-replace: a good rule, then host bits set: nothing applied",
	     lambda s: build(TABLE_REPLACE, u32(T_ORIGIN, 7), nest(T_RULE, *rule4()),
			     nest(T_RULE, attr(R_ADDR4, v4("10.2.0.1"), mark="a"),
				  u32(R_PREFIX_LEN, 16), u32(R_PER_HOST_LEN, 32))),
	     err=EINVAL, msg="host bits set", offs="a")

	# Dumps with filters that do not exist
	case("class-get dump: a name filter",
	     lambda s: build(CLASS_GET, string(C_NAME, "movers", mark="u"), dump=True),
	     err=EINVAL, msg=NOT_TAKEN, offs="u")
	case("class-get dump: a weight filter",
	     lambda s: build(CLASS_GET, u32(C_WEIGHT, 2, mark="u"), dump=True),
	     err=EINVAL, msg=NOT_TAKEN, offs="u")
	case("rule-get dump: an addr4 filter",
	     lambda s: build(RULE_GET, attr(R_ADDR4, v4("127.0.0.2"), mark="u"), dump=True),
	     err=EINVAL, msg=NOT_TAKEN, offs="u")
	case("rule-get dump: an origin filter",
	     lambda s: build(RULE_GET, u32(R_ORIGIN, 7, mark="u"), dump=True),
	     err=EINVAL, msg=NOT_TAKEN, offs="u")
	case("client-get dump: a kind filter",
	     lambda s: build(CLIENT_GET, u32(CL_KIND, 1, mark="u"), dump=True),
	     err=EINVAL, msg=NOT_TAKEN, offs="u")
	case("client-get dump: a class filter",
	     lambda s: build(CLIENT_GET, string(CL_CLASS, "movers", mark="u"), dump=True),
	     err=EINVAL, msg=NOT_TAKEN, offs="u")
	case("client-get dump: an owner filter (type 14)",
	     lambda s: build(CLIENT_GET, attr(CL_OWNER, b"linux", mark="u"), dump=True),
	     err=EINVAL, msg=NOT_TAKEN, offs="u")

	# Bad commands and headers
	case("genl header: reserved field not 0",
	     lambda s: build(CLASS_NEW, string(C_NAME, "x"), reserved=1),
	     err=EINVAL, msg="reserved field is not 0")
	case("nlmsg_flags: NLM_F_ROOT alone on a do",
	     lambda s: build(CLASS_NEW, string(C_NAME, "x"),
			     flags=NLM_F_REQUEST | NLM_F_ACK | NLM_F_ROOT),
	     err=EINVAL, msg="reserved bits set in nlmsg_flags")
	case("nlmsg_flags: NLM_F_CREATE|NLM_F_EXCL on class-new",
	     lambda s: build(CLASS_NEW, string(C_NAME, "x"),
			     flags=NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL),
	     err=EINVAL, msg="reserved bits set in nlmsg_flags")
	for name, cmd, dump in (("command 0", 0, False), ("command 99", 99, False),
				("change-ntf (an event) as a request", CHANGE_NTF, False),
				("rule-get as a do (it only dumps)", RULE_GET, False),
				("table-replace as a dump (it only does)", TABLE_REPLACE, True)):
		case(name + " (genetlink core)",
		     lambda s, cmd=cmd, dump=dump: build(cmd, u32(T_ORIGIN, 7), dump=dump),
		     err=errno.EOPNOTSUPP, core=True)
	case("message 2 bytes into the genl header (genetlink core)",
	     lambda s: build(CLASS_NEW, Raw(b"\x01\x01"), genl=False),
	     err=EINVAL, core=True)
	case("message with no genl header (genetlink core)",
	     lambda s: build(CLASS_NEW, genl=False),
	     err=EINVAL, core=True)

	# Permissions: changes and (the lead's rule) dumps need CAP_NET_ADMIN
	for name, make in (("class-new", lambda s: build(CLASS_NEW, string(C_NAME, "x"))),
			   ("table-replace", lambda s: build(TABLE_REPLACE, u32(T_ORIGIN, 7))),
			   ("class-get dump", lambda s: build(CLASS_GET, dump=True)),
			   ("rule-get dump", lambda s: build(RULE_GET, dump=True)),
			   ("client-get dump", lambda s: build(CLIENT_GET, dump=True))):
		case("%s without CAP_NET_ADMIN (uid %d)" % (name, NOBODY), make,
		     err=errno.EPERM, core=True, unpriv=True)

	# Names restore cannot read or -j cannot name (the lead's rule):
	# [A-Za-z0-9][A-Za-z0-9._-]{0,14}, not a target keyword
	for text, name in (("a b", "with a space"), ("x\n-F", "with a newline"),
			   ("a\tb", "with a tab"), ("-x", "with a leading -"),
			   (".x", "with a leading ."), ("_x", "with a leading _"),
			   ("a/b", "with a /"), ("a:b", "with a :"), ("caf\u00e9", "in UTF-8"),
			   ("per-host", "per-host (a target)"), ("per-client", "per-client (a target)"),
			   ("default", "default (a client kind)"),
			   ("overflow", "overflow (a client kind)")):
		case("class-new: name " + name,
		     lambda s, text=text: build(CLASS_NEW, string(C_NAME, text, mark="n")),
		     offs="n")
	for text in ("per-host", "a b"):
		case("table-replace: class nest named %r" % text,
		     lambda s, text=text: build(TABLE_REPLACE, u32(T_ORIGIN, 7),
						nest(T_CLASS, string(C_NAME, text, mark="n"), mark="nest")),
		     offs=("n", "nest"))
	return c


def as_nobody(m):
	"""Send @m from a child that dropped to uid/gid 65534 with no
	capabilities, on a socket it opened itself; return its Reply."""
	rfd, wfd = os.pipe()
	pid = os.fork()
	if pid == 0:
		try:
			os.close(rfd)
			os.setgroups([])
			os.setresgid(NOBODY, NOBODY, NOBODY)
			os.setresuid(NOBODY, NOBODY, NOBODY)
			nl = Nl()
			r = nl.request(m)
			os.write(wfd, repr((r.err, r.msg, r.offs, r.miss_type,
					    len(r.payloads))).encode())
		finally:
			os._exit(0)
	os.close(wfd)
	data = b""
	while True:
		chunk = os.read(rfd, 4096)
		if not chunk:
			break
		data += chunk
	os.close(rfd)
	os.waitpid(pid, 0)
	r = Reply()
	if data:
		r.err, r.msg, r.offs, r.miss_type, n = ast.literal_eval(data.decode())
		r.payloads = [b""] * n
	return r


def judge(cs, m, r):
	"""What is wrong with reply @r to case @cs; [] when nothing."""
	where = {off: mark for mark, off in m.marks.items()}
	bad = []
	if r.err is None:
		return ["no answer within 30 s"]
	if r.err >= 0:
		return ["accepted (0)"]
	if cs.err and r.err != -cs.err:
		bad.append("%s, not %s" % (r.errname(), errno.errorcode[cs.err]))
	if cs.core:
		return bad
	if cs.miss:
		if r.miss_type != cs.miss:
			bad.append("miss-type %s, not %d" % (r.miss_type, cs.miss))
		return bad
	if not r.msg:
		bad.append("no extack message")
	elif cs.msg and not any(w in r.msg for w in cs.msg):
		bad.append("extack %r does not say %s" % (r.msg, " or ".join(map(repr, cs.msg))))
	if cs.offs:
		want = [m.marks[k] for k in cs.offs]
		if r.offs not in want:
			got = "none" if r.offs is None else "%d (%s)" % (r.offs, where.get(r.offs, "?"))
			bad.append("extack offset %s, not %s at %s" %
				   (got, "/".join(cs.offs), "/".join(map(str, want))))
	return bad


def describe(m, r):
	"""A refusal as the kernel gave it: errno, message, what it points at."""
	where = {off: mark for mark, off in m.marks.items()}
	out = [r.errname()]
	if r.msg:
		out.append("extack %r" % r.msg)
	if r.offs is not None:
		atype = struct.unpack_from("=HH", m.data, r.offs)[1] & 0x3fff \
			if r.offs + 4 <= len(m.data) else None
		out.append("offset %d: attribute type %s, %s" %
			   (r.offs, atype, "the one broken" if r.offs in where else "not marked"))
	if r.miss_type is not None:
		out.append("miss-type %d" % r.miss_type)
	if len(out) == 1:
		out.append("no extack")
	return ", ".join(out)


def control(name, good, detail):
	out("control", name, "ok" if good else "fail", "-", "-", detail)


def out(*fields):
	print("\t".join(str(f).replace("\t", " ").replace("\n", " ") for f in fields), flush=True)


def run(nl):
	for cs in corpus():
		try:
			if cs.pre:
				nr_classes = len(State(nl).classes)
				cs.pre(nl)
			before = State(nl)
			m = cs.make(before)
			r = as_nobody(m) if cs.unpriv else nl.request(m)
			after = State(nl)
		except (RuntimeError, OSError) as e:
			out("case", cs.name, "fail", 0, 0, "could not run: %s" % e)
			reset(nl)
			continue
		bad = judge(cs, m, r)
		refused = r.err is not None and r.err < 0
		unchanged = before == after
		if not unchanged:
			bad.append("state changed: %s" % before.diff(after))
		if cs.post:
			cs.post(nl)
		if not unchanged:
			reset(nl)
		detail = "; ".join(bad) if bad else describe(m, r)
		out("case", cs.name, "fail" if bad else "ok", int(refused), int(unchanged), detail)
		if cs.pre is fill_classes:
			n = len(State(nl).classes)
			control("%d classes made for '%s', then deleted" %
				(len(before.classes) - nr_classes, cs.name),
				n == nr_classes and len(before.classes) == MAX_CLASSES,
				"%d before, %d at the cap, %d after" %
				(nr_classes, len(before.classes), n))
	controls(nl)


def controls(nl):
	"""The same builder, well-formed: accepted. Run last; each undoes
	itself, so the suite's save after the corpus matches the one before."""
	def try_ok(name, m, undo):
		r = nl.request(m)
		good = r.err == 0
		control(name, good, "%s %s" % (r.errname(), r.msg or ""))
		if good and undo:
			ok(nl, undo, "undo of " + name)

	try_ok("well-formed class-new through the same builder is accepted",
	       build(CLASS_NEW, string(C_NAME, "control"), u32(C_WEIGHT, 1000)),
	       build(CLASS_DEL, string(C_NAME, "control")))
	try_ok("a 15-byte name of letters, digits, '.', '_', '-' is accepted",
	       build(CLASS_NEW, string(C_NAME, "Ab9._-xyz012345")),
	       build(CLASS_DEL, string(C_NAME, "Ab9._-xyz012345")))
	try_ok("well-formed rule-insert at the end through the same builder is accepted",
	       build(RULE_INSERT, u32(R_POSITION, State(nl).nr_rules + 1), *rule4()),
	       build(RULE_DEL, *rule4()))
	s = State(nl)
	r = nl.request(build(TABLE_REPLACE, u64(T_GENERATION, s.gen), u32(T_ORIGIN, 7),
			     nest(T_CLASS, string(C_NAME, "backup"), u32(C_WEIGHT, 3)),
			     nest(T_RULE, attr(R_ADDR4, v4("10.0.0.0")), u32(R_PREFIX_LEN, 8),
				  string(R_CLASS, "backup"))))
	after = State(nl)
	control("table-replace with the current generation is accepted",
		r.err == 0 and after.gen == s.gen + 1,
		"%s, generation %d -> %d" % (r.errname(), s.gen, after.gen))
	r = as_nobody(build(TABLE_GET))
	control("table-get without CAP_NET_ADMIN (uid %d) answers" % NOBODY,
		r.err == 0 and len(r.payloads) == 1, "%s %s" % (r.errname(), r.msg or ""))


def main():
	if len(sys.argv) != 2 or sys.argv[1] not in ("setup", "run"):
		sys.exit("usage: netlink-corpus.py setup|run")
	nl = Nl()
	resolve_family(nl)
	if sys.argv[1] == "setup":
		setup(nl)
		return
	nl.sock.setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, 16 << 20)
	run(nl)


if __name__ == "__main__":
	main()
