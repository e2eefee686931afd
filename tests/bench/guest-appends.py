#!/usr/bin/python3
"""Inside the guest, in real time: what one rule edit at a time costs, for
tests/bench/single-appends.
  guest-appends.py SPEC OUTFILE COUNT
SPEC is the booted kernel's own nfsfair spec (its tree's
Documentation/netlink/specs/nfsfair.yaml: the uapi differs between
series versions). One netlink socket, YNL's Python library from the
kernel tree; each request waits for its ack. Timed, in order:
  table-get   COUNT reads of the generation: the round trip with no table
              commit, the floor under every edit
  rule-append COUNT single-rule appends (10.A.B.0/24, per-host), each its
              own commit
  rule-flush  one request that deletes them all
Writes OUTFILE (JSON): seconds for each, and the table's generation
before and after (each append must have bumped it once).
"""
import json, os, sys, time

if len(sys.argv) != 4:
	sys.exit("usage: guest-appends.py SPEC OUTFILE COUNT")
spec, outfile, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
# The library lives next to the spec's tree: tools/net/ynl/pyynl (7.3).
tree = os.path.abspath(os.path.join(os.path.dirname(spec), "..", "..", ".."))
sys.path.insert(0, os.path.join(tree, "tools", "net", "ynl", "pyynl"))  # 7.3
sys.path.insert(1, os.path.join(tree, "tools", "net", "ynl"))  # 6.12
from lib import YnlFamily  # noqa: E402

ynl = YnlFamily(spec)


def generation():
	return ynl.do("table-get", {})["generation"]


def timed(fn):
	t = time.monotonic()
	fn()
	return time.monotonic() - t


ynl.do("rule-flush", {})
gen0 = generation()
floor = timed(lambda: [generation() for _ in range(count)])
gen1 = generation()


def appends():
	for i in range(count):
		ynl.do("rule-append", {"addr4": bytes([10, (i >> 8) & 0xff, i & 0xff, 0]),
				       "prefix-len": 24, "per-host-len": 32})


append = timed(appends)
gen2 = generation()
rules = len(ynl.dump("rule-get", {}))
flush = timed(lambda: ynl.do("rule-flush", {}))
with open(outfile, "w") as f:
	json.dump({"release": os.uname().release, "cpus": os.cpu_count(), "count": count,
		   "table_get_s": floor, "append_s": append, "flush_s": flush, "generation": [gen0, gen1, gen2],
		   "rules": rules}, f)
