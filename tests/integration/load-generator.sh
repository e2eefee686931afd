#!/bin/bash
# Inside the guest: nfsfair-load against the real nfsd. Two groups from
# two source addresses keep GETATTRs of the hold hook's handle (held 0 us)
# outstanding for 3 s: both complete calls without RPC errors, their
# shares add up to 100 %, and nfsd sees exactly the connections asked
# for from each address. NULL calls complete too, and a port nobody
# listens on fails the run with exit 1 and an error naming the address.
# Builds nothing: run `make -C tests/load` on the host first.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/uml/guest-lib.sh"

load=$top/tests/load/nfsfair-load
out=/run/nfsfair/load
mkdir -p "$out"

# json FILE EXPR: EXPR (Python, over the report in FILE as r) is true.
json() {
	/usr/bin/python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(not eval(sys.argv[2]))' "$1" "$2"
}

# count_of ADDR LIST: how many lines of LIST are ADDR.
count_of() {
	grep -cxF "$1" <<< "$2"
}

if [ ! -x "$load" ]; then
	diag "$load is missing: run 'make -C tests/load' on the host before booting the guest"
fi
require "tests/load/nfsfair-load is built" test -x "$load"
require "nfsd starts with 8 threads" nfsd_start 8
require "127.0.0.2 is a source address" add_source_addr 127.0.0.2
require "127.0.0.3 is a source address" add_source_addr 127.0.0.3

# GETATTR, two groups, 3 s measured after the default 1 s warm-up; look at
# nfsd's connections while it runs.
"$load" --group a:127.0.0.2:1:4 --group b:127.0.0.3:4:4 --proc getattr --hold-us 0 \
	--duration 3 --timeout 30 --json > "$out/getattr.json" 2> "$out/getattr.err" &
pid=$!
sleep 1
peers=$(peers_of_port 2049)
wait "$pid"
rc=$?
check "getattr: exit 0" [ "$rc" -eq 0 ] || diag "stderr: $(cat "$out/getattr.err")"
check "getattr: the report is JSON with two groups" json "$out/getattr.json" 'len(r["groups"]) == 2'
check "getattr: both groups complete calls" \
	json "$out/getattr.json" 'all(g["ops"] > 0 for g in r["groups"])'
check "getattr: no group has errors" \
	json "$out/getattr.json" 'all(g["errors"] == 0 for g in r["groups"])'
check "getattr: shares add up to 100 (+-0.5)" \
	json "$out/getattr.json" 'abs(sum(g["share_pct"] for g in r["groups"]) - 100) <= 0.5'
check "getattr: total_ops is the groups' sum" \
	json "$out/getattr.json" 'r["total_ops"] == sum(g["ops"] for g in r["groups"])'
check "getattr: measured for about 3 s" \
	json "$out/getattr.json" 'abs(r["duration_s"] - 3) < 0.5'
n=$(count_of 127.0.0.2 "$peers")
check "getattr: nfsd has 1 connection from 127.0.0.2 during the run (saw $n)" [ "$n" -eq 1 ]
n=$(count_of 127.0.0.3 "$peers")
check "getattr: nfsd has 4 connections from 127.0.0.3 during the run (saw $n)" [ "$n" -eq 4 ]
diag "getattr: $(/usr/bin/python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(", ".join("%s %d ops %.1f%% p50 %s ms" % (g["name"], g["ops"], g["share_pct"], g["p50_ms"])
		for g in r["groups"]))' "$out/getattr.json" 2>&1)"

# NULL calls: no handle, no hold.
"$load" --group a:127.0.0.2:1:4 --group b:127.0.0.3:4:4 --proc null --warmup 0.5 \
	--duration 1 --timeout 30 --json > "$out/null.json" 2> "$out/null.err"
rc=$?
check "null: exit 0" [ "$rc" -eq 0 ] || diag "stderr: $(cat "$out/null.err")"
check "null: both groups complete calls, no errors" \
	json "$out/null.json" 'all(g["ops"] > 0 and g["errors"] == 0 for g in r["groups"])'
check "null: shares add up to 100 (+-0.5)" \
	json "$out/null.json" 'abs(sum(g["share_pct"] for g in r["groups"]) - 100) <= 0.5'

# Nothing listens on port 9 in the guest.
"$load" --group a:127.0.0.2:1:1 --port 9 --duration 1 --timeout 10 \
	> "$out/refused.out" 2> "$out/refused.err"
rc=$?
check "no listener: exit 1" [ "$rc" -eq 1 ]
check "no listener: the error names the address" \
	grep -q '127.0.0.2 -> 127.0.0.1:9: connect: Connection refused' "$out/refused.err" ||
	diag "stderr: $(cat "$out/refused.err")"

tap_done
