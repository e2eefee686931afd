#!/usr/bin/env python3
"""The control plane's half of tests/integration/stress.sh (inside the
guest, as root): stress-driver.py SECONDS RATE

For SECONDS, RATE table-replaces a second on one netlink socket, the table
flipping between two layouts of the same peers (so every replace moves
live clients between classes), and after every tenth: a class made, given
a rule for the churned connections' /24 and a limit, then its rule and the
class deleted again while connections it took may still be open; a class
and a client dump; now and then counters-zero. Every hundredth replace
empties the table and holds it empty (up to EMPTY_HOLD s) until a client
dump shows no client left: with no table and no client nothing pins
fair dispatch on (svc_fair_active would go off a minute later), every
transport is back on the single queue, and the next replace binds them
all again, under load, as an admin's flush and re-add does on a live
server.
Prints one JSON object: what was sent, what the kernel refused (with
errno and extack), the replaces done in each second, the rate reached,
and how many empty holds saw every client go. Exit 1 on any refusal.

The family's bytes come from netlink-corpus.py's builders.
"""
import importlib.util
import json
import os
import sys
import time

here = os.path.dirname(os.path.realpath(__file__))
spec = importlib.util.spec_from_file_location("corpus", os.path.join(here, "netlink-corpus.py"))
nc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(nc)

ORIGIN = 9
EMPTY_EVERY = 100
EMPTY_HOLD = 0.5


def table(layout):
	"""Two layouts of one address plan: 127.0.0.2 (steady) and 127.0.1.0/24
	(bulk), classes or per-host the other way round."""
	cls = lambda name, w: nc.nest(nc.T_CLASS, nc.string(nc.C_NAME, name), nc.u32(nc.C_WEIGHT, w))
	rule = lambda addr, plen, *t: nc.nest(nc.T_RULE, nc.attr(nc.R_ADDR4, nc.v4(addr)),
					      nc.u32(nc.R_PREFIX_LEN, plen), *t)
	if layout == 0:
		return nc.build(nc.TABLE_REPLACE, nc.u32(nc.T_ORIGIN, ORIGIN),
				cls("steady", 2), cls("bulk", 1),
				rule("127.0.0.2", 32, nc.string(nc.R_CLASS, "steady")),
				rule("127.0.1.0", 24, nc.string(nc.R_CLASS, "bulk")),
				rule("127.0.2.0", 24, nc.u32(nc.R_PER_HOST_LEN, 32)))
	return nc.build(nc.TABLE_REPLACE, nc.u32(nc.T_ORIGIN, ORIGIN),
			cls("steady", 1), cls("bulk", 3),
			rule("127.0.1.0", 24, nc.u32(nc.R_PER_HOST_LEN, 32)),
			rule("127.0.0.2", 32, nc.u32(nc.R_PER_HOST_LEN, 32)),
			rule("127.0.2.0", 24, nc.string(nc.R_CLASS, "bulk")))


def main():
	seconds, rate = float(sys.argv[1]), float(sys.argv[2])
	nl = nc.Nl()
	nc.resolve_family(nl)
	sent = {"table-replace": 0, "class-new": 0, "class-set": 0, "rule-insert": 0,
		"rule-del": 0, "class-del": 0, "class-dump": 0, "client-dump": 0,
		"counters-zero": 0, "table-empty": 0}
	emptied = 0
	refused = []
	per_second = []

	def send(what, m):
		r = nl.request(m)
		sent[what] += 1
		if r.err != 0:
			refused.append("%s: %s %s" % (what, r.errname(), r.msg or ""))
		return r.err == 0

	start = time.monotonic()
	end = start + seconds
	n = 0
	while True:
		now = time.monotonic()
		if now >= end:
			break
		second = int(now - start)
		while len(per_second) <= second:
			per_second.append(0)
		if send("table-replace", table(n % 2)):
			per_second[second] += 1
		n += 1
		if n % 10 == 0:
			name = "churn%d" % (n // 10 % 4)
			send("class-new", nc.build(nc.CLASS_NEW, nc.string(nc.C_NAME, name),
						   nc.u32(nc.C_WEIGHT, 2)))
			send("class-set", nc.build(nc.CLASS_SET, nc.string(nc.C_NAME, name),
						   nc.u32(12, 2)))	# NFSFAIR_A_CLASS_LIMIT
			send("rule-insert", nc.build(nc.RULE_INSERT, nc.u32(nc.R_POSITION, 1),
						     nc.attr(nc.R_ADDR4, nc.v4("127.0.2.0")),
						     nc.u32(nc.R_PREFIX_LEN, 24),
						     nc.string(nc.R_CLASS, name)))
			send("class-dump", nc.build(nc.CLASS_GET, dump=True))
			send("client-dump", nc.build(nc.CLIENT_GET, dump=True))
			send("rule-del", nc.build(nc.RULE_DEL, nc.u32(nc.R_POSITION, 1)))
			send("class-del", nc.build(nc.CLASS_DEL, nc.string(nc.C_NAME, name)))
		if n % EMPTY_EVERY == 5 and send("table-empty", nc.build(
				nc.TABLE_REPLACE, nc.u32(nc.T_ORIGIN, ORIGIN))):
			# Held until the transports, each rebound at its next
			# dispatch, have left every client: then nothing pins
			# fair dispatch on.
			hold = time.monotonic() + EMPTY_HOLD
			while True:
				r = nl.request(nc.build(nc.CLIENT_GET, dump=True))
				sent["client-dump"] += 1
				if r.err == 0 and not r.payloads:
					emptied += 1
					break
				if time.monotonic() >= hold:
					break
				time.sleep(0.01)
		if n % 250 == 0:
			send("counters-zero", nc.build(nc.COUNTERS_ZERO))
		# Pace to RATE replaces a second from the start, catching up
		# after a slow one rather than drifting.
		ahead = start + n / rate - time.monotonic()
		if ahead > 0:
			time.sleep(ahead)
	elapsed = time.monotonic() - start
	print(json.dumps({"seconds": round(elapsed, 2), "target_rate": rate,
			  "rate": round(sent["table-replace"] / elapsed, 1),
			  "sent": sent, "refused": refused[:20], "refusals": len(refused),
			  "emptied": emptied,
			  "replaces_per_second": per_second}))
	return 1 if refused else 0


if __name__ == "__main__":
	sys.exit(main())
