#!/bin/bash
# nfsfair-ctl stats, explain and classes without a kernel: the real
# main() on counters made up by ctl-stats.c (the dumps wrapped by ld). A
# class's share of thread-time is its growth over all classes', beside its
# share of calls; its time per call is the growth of its thread-time over
# its dispatches'; a class with no dispatch has none (- and null); watch
# mode computes each screen over its own interval; counters that went
# back count from 0. A kernel without thread-time shows "-" and leaves the
# keys out of the JSON, never a 0. explain gives a client's thread-time,
# its share of all live clients' and its cost; classes --json a class's
# thread-time; stats --openmetrics its series. The text is compared whole.
# (lib-parse.c checks the times' formatting.)
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -s -C "$top/lib" > /dev/null || { echo "1..0 # lib/ does not build"; exit 1; }
# nfsfair-ctl's objects with its main() renamed; the test's main() drives it.
# shellcheck disable=SC2046
(cd "$tmp" && cc -Wall -Wextra -Werror -std=gnu11 -Dmain=nfsfair_ctl_main \
	-I"$top/netlink-spec/uapi" $(pkg-config --cflags libnl-genl-3.0) -c "$top"/cli/*.c) ||
	{ echo "1..0 # cli/ does not build"; exit 1; }
wrap=
for f in sleep ctl_nl nfsfair_read_classes_pools nfsfair_read_classes nfsfair_read_clients_pools \
	nfsfair_read_clients nfsfair_read_rules; do
	wrap+=,--wrap=$f
done
# shellcheck disable=SC2046
cc -Wall -Wextra -Werror -std=gnu11 -I"$top/netlink-spec/uapi" \
	$(pkg-config --cflags libnl-genl-3.0) -o "$tmp/ctl" "$top/tests/unit/ctl-stats.c" \
	"$tmp"/*.o "$top/lib/libnfsfair.a" -Wl"$wrap" \
	$(pkg-config --libs libnl-genl-3.0) -lm || { echo "1..0 # ctl-stats.c does not build"; exit 1; }

# json FILE EXPR: EXPR (Python, over the document in FILE as d, with
# k(NAME) the class NAME of stats and i(N) the Nth client ID) is true.
json() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
def k(n):
	return [c for c in d["classes"] if c["class"] == n][0]
def i(n):
	return d["clients"][n]
sys.exit(not eval("(" + sys.argv[2] + ")"))' "$1" "$2" || { diag "$(cat "$1")"; false; }
}

"$tmp/ctl" fair stats -w 5 > "$tmp/fair.txt"
cat > "$tmp/want" <<'EOF'
every 5s: 19420 dispatches to classes, 40.0s of thread-time
class             time  calls   disp/s per-call conns queued  wait-avg threads
bulk             52.5%   2.2%     84.0   50.0ms     1      8 150.000ms     4/4
ls               47.5%  97.8%   3800.0   1.00ms     1      0   0.500ms       4
idle              0.0%   0.0%      0.0        -     0      0         -       0
1000 dispatches to 2 NFSv4.1 client IDs
client-id           share   disp/s conns owner
0x6b0f2c1a00000003  50.0%    100.0     2 "Linux NFSv4.1 03"
0x6b0f2c1a00000004  50.0%    100.0     2 "Linux NFSv4.1 04"
EOF
check "stats: thread-time share beside the share of calls, and the time per call" \
	diff -u "$tmp/want" "$tmp/fair.txt"
check "stats: fits 80 columns" [ "$(wc -L < "$tmp/fair.txt")" -le 80 ]
"$tmp/ctl" fair stats -w 5 --json > "$tmp/fair.json"
check "stats --json: the interval's thread-time, 40 s, beside its dispatches" \
	json "$tmp/fair.json" 'd["thread-ns"] == 40 * 10**9 and d["dispatches"] == 19420'
check "stats --json: bulk 21 of the 40 s, 52.5%; ls 19 s, 47.5%" \
	json "$tmp/fair.json" 'k("bulk")["thread-ns"] == 21 * 10**9 and
			       k("bulk")["thread-share-pct"] == 52.5 and
			       k("ls")["thread-ns"] == 19 * 10**9 and k("ls")["thread-share-pct"] == 47.5'
check "stats --json: the shares of calls as before, 420 and 19000 of 19420" \
	json "$tmp/fair.json" 'abs(k("bulk")["share-pct"] - 100 * 420 / 19420) < 1e-4 and
			       k("ls")["dispatches"] == 19000'
check "stats --json: 50 ms and 1 ms a call, in thread-ms-per-call" \
	json "$tmp/fair.json" 'k("bulk")["thread-ms-per-call"] == 50 and
			       k("ls")["thread-ms-per-call"] == 1'
check "stats --json: idle made no call: its time per call null, its thread-time 0" \
	json "$tmp/fair.json" 'k("idle")["thread-ms-per-call"] is None and k("idle")["thread-ns"] == 0
			       and k("idle")["thread-share-pct"] == 0'
check "stats --json: the thread-time shares add up to 100" \
	json "$tmp/fair.json" 'abs(sum(c["thread-share-pct"] for c in d["classes"]) - 100) < 1e-6'
check "stats --json: peers and wait-max-ms, no longer columns, still keys" \
	json "$tmp/fair.json" 'k("bulk")["peers"] == 1 and k("bulk")["wait-max-ms"] == 120'
check "stats --json: client IDs' thread-time, shares among them: 2.5 s (83.3%), 0.5 s" \
	json "$tmp/fair.json" 'i(0)["thread-ns"] == 2.5 * 10**9 and
			       abs(i(0)["thread-share-pct"] - 250 / 3) < 1e-3 and
			       i(0)["thread-ms-per-call"] == 5 and i(1)["thread-ms-per-call"] == 1'
"$tmp/ctl" fair stats bulk -w 5 > "$tmp/bulk.txt"
check "stats CLASS: its row alone, its shares still of every class's" eval \
	'[ "$(grep -c "%" "$tmp/bulk.txt")" = 1 ] && grep -q "^bulk  *52.5%   2.2% " "$tmp/bulk.txt"'

# Watch mode: each screen is its own interval's (400 calls of 50 ms, 20000 of 1 ms).
"$tmp/ctl" fair stats -w 5 --count 2 > "$tmp/watch.txt"
check "stats --count 2: the second screen is the second interval's: 50.0% each" eval \
	'sed -n "/^$/,\$p" "$tmp/watch.txt" | grep -q "^bulk  *50.0%   2.0%     80.0   50.0ms " &&
	 sed -n "/^$/,\$p" "$tmp/watch.txt" | grep -q "^ls  *50.0%  98.0%   4000.0   1.00ms "'
"$tmp/ctl" fair stats -w 5 --count 2 --json > "$tmp/watch.json"
check "stats --count 2 --json: two documents, 40 s of thread-time each" \
	json "$tmp/watch.json" 'len(d) == 2 and [s["thread-ns"] for s in d] == [40 * 10**9] * 2'

"$tmp/ctl" reset stats -w 5 --json > "$tmp/reset.json"
check "counters that went back (-Z) and a new class count from 0" \
	json "$tmp/reset.json" 'k("bulk")["thread-ns"] == 71 * 10**9 and k("ls")["thread-ns"] == 69 * 10**9
				and d["thread-ns"] == 140 * 10**9'

# A kernel without thread-time.
"$tmp/ctl" old stats -w 5 > "$tmp/old.txt"
cat > "$tmp/want" <<'EOF'
every 5s: 19420 dispatches to classes
class             time  calls   disp/s per-call conns queued  wait-avg threads
bulk                 -   2.2%     84.0        -     1      8 150.000ms     4/4
ls                   -  97.8%   3800.0        -     1      0   0.500ms       4
idle                 -   0.0%      0.0        -     0      0         -       0
1000 dispatches to 2 NFSv4.1 client IDs
client-id           share   disp/s conns owner
0x6b0f2c1a00000003  50.0%    100.0     2 "Linux NFSv4.1 03"
0x6b0f2c1a00000004  50.0%    100.0     2 "Linux NFSv4.1 04"
EOF
check "no thread-time: - under time and per-call, none in the first line" \
	diff -u "$tmp/want" "$tmp/old.txt"
"$tmp/ctl" old stats -w 5 --json > "$tmp/old.json"
check "no thread-time: no thread key anywhere in stats --json, not even null" eval \
	'! grep -q "thread-" "$tmp/old.json" && json "$tmp/old.json" "k(\"bulk\")[\"dispatches\"] == 420"'

# explain: thread-time, share of all live clients' (150 s), cost.
"$tmp/ctl" fair explain 127.0.0.3 > "$tmp/explain.txt"
cat > "$tmp/want" <<'EOF'
127.0.0.3: rule 2 (-s 127.0.0.0/8 -j per-host) -> per-host
  client per-host 127.0.0.3/32: connections 4 dispatches 3000 queued 0 thread-time 6.00s (4.0%) cost 2.00ms; this peer's 4
EOF
check "explain: the client's thread-time, its share, its cost" \
	diff -u "$tmp/want" "$tmp/explain.txt"
"$tmp/ctl" fair explain 127.0.0.2 --json > "$tmp/explain.json"
check "explain --json: thread_ns, thread_share_pct (71 of 150 s), cost_ns" \
	json "$tmp/explain.json" 'd[0]["clients"][0]["thread_ns"] == 71 * 10**9 and
				  abs(d[0]["clients"][0]["thread_share_pct"] - 7100 / 150) < 1e-3 and
				  d[0]["clients"][0]["cost_ns"] == 50200000'
"$tmp/ctl" old explain 127.0.0.2 > "$tmp/explain-old.txt"
check "explain, no thread-time: the line as before" \
	grep -qx "  client class bulk: connections 1 dispatches 1420 queued 0; this peer's 1" \
	"$tmp/explain-old.txt"
"$tmp/ctl" old explain 127.0.0.2 --json > "$tmp/explain-old.json"
check "explain --json, no thread-time: no thread_ns, thread_share_pct or cost_ns" \
	json "$tmp/explain-old.json" 'not {"thread_ns", "thread_share_pct", "cost_ns"} &
				      set(d[0]["clients"][0])'

# classes --json: the class's thread-time since zeroed, when counted.
"$tmp/ctl" fair classes --json > "$tmp/classes.json"
check "classes --json: thread-ns" \
	json "$tmp/classes.json" '[c["thread-ns"] for c in d] == [71 * 10**9, 69 * 10**9, 0]'
"$tmp/ctl" old classes --json > "$tmp/classes-old.json"
check "classes --json, no thread-time: no thread-ns" eval '! grep -q thread-ns "$tmp/classes-old.json"'
"$tmp/ctl" fair classes -v > "$tmp/classes.txt"
check "classes -v: the text as before" \
	grep -qE "^bulk +1 +4 +1 +1420 +1 +8 +4 +0 +0 +0\.0s$" "$tmp/classes.txt"

# stats --openmetrics through the command: samples only when counted.
"$tmp/ctl" fair stats --openmetrics > "$tmp/om"
check "stats --openmetrics: bulk's thread-time, and per pool" eval \
	'grep -qx "nfsfair_class_thread_seconds_total{namespace=\"\",class=\"bulk\"} 50.000000000" "$tmp/om" &&
	 grep -qx "nfsfair_class_pool_thread_seconds_total{namespace=\"\",class=\"bulk\",pool=\"1\"} 1.000000000" "$tmp/om"'
check "stats --openmetrics: a client ID's thread-time" \
	grep -q '^nfsfair_client_thread_seconds_total{namespace="",client_id="0x6b0f2c1a00000003",owner="Linux NFSv4.1 03"} 1.000000000$' \
	"$tmp/om"
"$tmp/ctl" old stats --openmetrics > "$tmp/om-old"
check "stats --openmetrics, no thread-time: no thread sample" \
	eval '! grep -q "^nfsfair_.*thread_seconds_total{" "$tmp/om-old"'

tap_done
