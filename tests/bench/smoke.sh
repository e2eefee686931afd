#!/usr/bin/env bash
# The fairness smoke test, short enough for make check: 2 connections
# against 8, both backlogged (16 calls outstanding on each connection),
# 16 threads, 10 ms holds jittered by 50%,
# on the baseline kernel (A) and on nfsfair with every address its own
# client (B). Bounds are generous: A should give the 2-connection client
# about 20%, B about 50%. B is judged by the kernel's own dispatch
# counters (client-get), and by the load generator's completions.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
out=$top/build/bench/smoke
load=(--group two:127.0.0.2:2:16 --group eight:127.0.0.3:8:16
      --hold-us 10000 --jitter 50 --warmup 1 --duration 5)

share() {	# share FILE GROUP: the generator's share for GROUP, percent
	/usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["load"]
print(next(g["share_pct"] for g in d["groups"] if g["name"] == sys.argv[2]))' "$1" "$2"
}

kernel_share() {	# kernel_share FILE ADDR: ADDR's share of per-host dispatches
	/usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["clients"]
hosts = {c["addr4"]: c["dispatches"] for c in d if c["kind"] == "per-host"}
print(round(100.0 * hosts.get(sys.argv[2], 0) / max(sum(hosts.values()), 1), 1))' "$1" "$2"
}

ge() { /usr/bin/python3 -c 'import sys; sys.exit(not float(sys.argv[1]) >= float(sys.argv[2]))' "$1" "$2"; }

require "A: scenario runs on the baseline kernel" \
	"$top/tests/bench/run-scenario" baseline 16 none "$out/a.json" -- "${load[@]}"
require "B: scenario runs on the nfsfair kernel" \
	"$top/tests/bench/run-scenario" nfsfair 16 per-host "$out/b.json" -- "${load[@]}"

a=$(share "$out/a.json" two)
b=$(share "$out/b.json" two)
k=$(kernel_share "$out/b.json" 127.0.0.2)
diag "2 connections against 8: A ${a}%, B ${b}% (kernel counters ${k}%)"
check "A: the 2-connection client gets 30% or less (${a}%)" ge 30 "$a"
check "B: the 2-connection client gets 40% or more (${b}%)" ge "$b" 40
check "B: the kernel's dispatch counters agree: 40% or more (${k}%)" ge "$k" 40
tap_done
