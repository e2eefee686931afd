#!/usr/bin/python3
"""Inside the nfsfair guest, real time: the classifier's table-change cost.
   guest-overhead-table.py CTL OUT.json REPEATS

1. 10,000 rules, loaded into an empty table and then replaced by a
   different 10,000 rules, two ways:
   - `nfsfair-ctl restore FILE`, the admin's way: one table-replace of
     origin 0 with every rule (process start and parsing included).
   - one table-replace message with all the rules (one atomic replace),
     encoded beforehand (ynl for the header) and sent on a socket
     whose send buffer is raised (SO_SNDBUFFORCE): the time is the send
     and the kernel's ack only.
2. Time to open 200 TCP connections to nfsd from 127.0.0.2, each carrying
   one NFSv3 NULL call (so nfsd has accepted, and so classified, the
   connection before the reply comes back), then closing them, with
   tables of 1, 1,000 and 100,000 rules (one table-replace message each).
   The non-matching /32s come first and 127.0.0.0/8 per-host last, so the
   connection's rule is the table's last.
   Where the kernel has the function profiler (the x86_64 qemu guest),
   the same loops also time, in the kernel, svc_tcp_accept (the whole
   accept), svc_fair_classify (binding the transport to its client) and
   svc_fair_match (the table lookup): hits and mean time per call.
Each timing REPEATS times. nfsd must be running and 127.0.0.2 a source
address (guest-overhead.sh).
"""
import json, os, socket, struct, subprocess, sys, time

ctl, out, repeats = sys.argv[1], sys.argv[2], int(sys.argv[3])
TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TMP = "/run/overhead-tables"
os.makedirs(TMP, exist_ok=True)
sys.path.insert(0, os.path.join(TOP, "build/linux/tools/net/ynl/pyynl"))  # 7.3
sys.path.insert(1, os.path.join(TOP, "build/linux/tools/net/ynl"))  # 6.12
from lib import YnlFamily  # noqa: E402
from lib.ynl import NlMsgs  # noqa: E402

ynl = YnlFamily(os.path.join(TOP, "netlink-spec/nfsfair.yaml"),
		os.path.join(TOP, "build/linux/Documentation/netlink/genetlink.yaml"))
ynl.sock.setsockopt(socket.SOL_SOCKET, 32, 256 << 20)  # SO_SNDBUFFORCE
OP = ynl.ops["table-replace"]


def addr(base, i):
	# distinct /32s below BASE.0.0.0/8
	return f"{base}.{(i >> 16) & 255}.{(i >> 8) & 255}.{i & 255}"


def rules(n, base, last_per_host):
	nfill = n - 1 if last_per_host else n
	v = [(addr(base, i), 32, "movers") for i in range(nfill)]
	if last_per_host:
		v.append(("127.0.0.0", 8, None))
	return v


def write_file(name, v, per_origin=None):
	path = os.path.join(TMP, name)
	with open(path, "w") as f:
		f.write("-N movers --weight 1\n")
		for i, (a, plen, cls) in enumerate(v):
			o = i // per_origin if per_origin else 0
			tgt = cls or "per-host"
			f.write(f"-A -s {a}/{plen} -j {tgt}" + (f" --origin {o}" if o else "") + "\n")
	return path


def nla(t, payload):
	return struct.pack("HH", 4 + len(payload), t) + payload + b"\0" * (-len(payload) % 4)


def nla_uint(t, v):
	"""A uint attribute: the family takes 4 or 8 bytes, in host order."""
	return nla(t, struct.pack("=I", v))


RA = {k: ynl.attr_sets["rule"][k].value for k in ("addr4", "prefix-len", "class", "per-host-len")}
T_RULE = ynl.attr_sets["table"]["rule"].value | 0x8000  # NLA_F_NESTED


def encode(v, seq):
	"""One table-replace of origin 0 with class movers and the rules V.
	ynl's own encoder concatenates bytes rule by rule (quadratic: minutes
	for 20,000 rules in the guest), so only the head is ynl's."""
	head = ynl._encode_message(OP, {"origin": 0, "class": [{"name": "movers", "weight": 1}]},
				   None, seq)[4:]
	cls = nla(RA["class"], b"movers\0")
	parts = [head]
	for a, plen, c in v:
		body = nla(RA["addr4"], socket.inet_aton(a)) + nla_uint(RA["prefix-len"], plen)
		body += cls if c else nla_uint(RA["per-host-len"], 32)
		parts.append(nla(T_RULE, body))
	msg = b"".join(parts)
	return struct.pack("I", len(msg) + 4) + msg


SEQ = [1000]


def replace_msg(msg):
	"""Send one encoded table-replace, wait for the ack: seconds."""
	t = time.perf_counter()
	ynl.sock.send(msg, 0)
	while True:
		reply = ynl.sock.recv(131072)
		done = False
		for m in NlMsgs(reply):
			if m.error:
				raise SystemExit(f"table-replace: error {m.error} {m.extack}")
			if m.done:
				done = True
		if done:
			break
	return time.perf_counter() - t


def replace(v):
	SEQ[0] += 1
	return replace_msg(encode(v, SEQ[0]))


def restore(path):
	t = time.perf_counter()
	r = subprocess.run([ctl, "restore", path], stdout=subprocess.PIPE,
			   stderr=subprocess.STDOUT, text=True)
	if r.returncode:
		raise SystemExit(f"restore {path} failed: {r.stdout.strip()}")
	return time.perf_counter() - t


def nrules():
	r = subprocess.run([ctl, "-L", "-n", "--json"], stdout=subprocess.PIPE, text=True, check=True)
	return len(json.loads(r.stdout))


def flush():
	subprocess.run([ctl, "restore", "/dev/null"], check=True)


def null_call():
	body = struct.pack(">IIIIII", 0x1234, 0, 2, 100003, 3, 0) + struct.pack(">IIII", 0, 0, 0, 0)
	return struct.pack(">I", 0x80000000 | len(body)) + body


CALL = null_call()


def recv_exact(s, n):
	b = b""
	while len(b) < n:
		c = s.recv(n - len(b))
		if not c:
			raise IOError("nfsd closed the connection")
		b += c
	return b


def accept_loop(n=200):
	t = time.perf_counter()
	for _ in range(n):
		s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
		s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
		s.bind(("127.0.0.2", 0))
		s.connect(("127.0.0.1", 2049))
		s.sendall(CALL)
		mark = struct.unpack(">I", recv_exact(s, 4))[0]
		recv_exact(s, mark & 0x7fffffff)
		s.close()
	return time.perf_counter() - t


TRACING = "/sys/kernel/tracing"
PROFILED = ("svc_tcp_accept", "svc_fair_classify", "svc_fair_match")
UNITS = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}


def tracing(name, value):
	with open(os.path.join(TRACING, name), "w") as f:
		f.write(value)


def profiler():
	"""Whether this kernel has the function profiler; if so, aim it."""
	if not os.path.exists(os.path.join(TRACING, "function_profile_enabled")):
		return False
	tracing("set_ftrace_filter", "\n".join(PROFILED) + "\n")
	return True


def profile(fn):
	"""Run FN with the profiler freshly enabled: {function: [hits, total us]}
	summed over CPUs (trace_stat/functionN, one file per CPU)."""
	tracing("function_profile_enabled", "0")
	tracing("function_profile_enabled", "1")	# enabling resets the counts
	fn()
	tracing("function_profile_enabled", "0")
	got = {f: [0, 0.0] for f in PROFILED}
	stat = os.path.join(TRACING, "trace_stat")
	for name in os.listdir(stat):
		if not name.startswith("function"):
			continue
		with open(os.path.join(stat, name)) as f:
			for line in f:
				v = line.split()
				if len(v) >= 4 and v[0] in got:
					got[v[0]][0] += int(v[1])
					got[v[0]][1] += float(v[2]) * UNITS[v[3]]
	return got


res = {"notes": []}

# 1. 10,000 rules: load into an empty table, then replace by others.
va, vb = rules(10000, 10, False), rules(10000, 11, False)
fa, fb = write_file("t10k-a", va), write_file("t10k-b", vb)
r = {"ctl_load_s": [], "ctl_replace_s": [], "msg_load_s": [], "msg_replace_s": []}
for _ in range(repeats):
	flush()
	r["ctl_load_s"].append(restore(fa))
	r["ctl_replace_s"].append(restore(fb))
	r["ctl_rules_loaded"] = nrules()
	flush()
	ma, mb = encode(va, 1), encode(vb, 2)
	r["msg_bytes"] = len(ma)
	r["msg_load_s"].append(replace_msg(ma))
	r["msg_replace_s"].append(replace_msg(mb))
	r["msg_rules_loaded"] = nrules()
res["restore"] = r
print("restore:", json.dumps(r), flush=True)

# 2. accept cost vs table size
flush()
accept_loop(20)  # warm the path
res["accept"] = {}
for n in (1, 1000, 100000):
	flush()
	dt = replace(rules(n, 12, True))
	got = nrules()
	times = [accept_loop(200) for _ in range(repeats)]
	res["accept"][str(n)] = {"rules_loaded": got, "replace_s": dt, "conns": 200, "s": times}
	print(f"accept: {n} rules ({got} loaded): {times}", flush=True)
	if profiler():
		prof = profile(lambda: accept_loop(200))
		res["accept"][str(n)]["kernel"] = prof
		print(f"accept: {n} rules, in-kernel: {prof}", flush=True)

with open(out + ".tmp", "w") as f:
	json.dump(res, f, indent=1)
os.rename(out + ".tmp", out)
