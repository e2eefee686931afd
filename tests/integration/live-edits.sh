#!/bin/bash
# Inside the guest: edits of the table reach connections that are already
# open (issue 12). Each open transport moves to the client the new table
# gives it at the end of its next read; transports accepted before any
# table existed are bound the same way; with no table left they go back
# to the single queue, which takes turns with the clients instead of
# being served strictly first.
#
#  1. The issue's scenario: 16 connections from 127.0.0.2 open while no
#     table exists, then -A -s 127.0.0.0/8 -j per-host, then a 1-connection
#     client from 127.0.0.3: the late client is served.
#  2. A class and a rule for 127.0.0.4 inserted under its 16-connection
#     load: the connections move to the class within 2 s.
#  3. The rule and the class deleted under the same load: they move to the
#     client the table gives them now (per-host), and the kernel's client
#     counts add up to nfsd's established connections.
#  4. A flush under load: no client left, every connection on the single
#     queue, the load still saturates nfsd.
#  5. 100 table replaces a second for 10 s under load (127.0.0.5 in a
#     class, then per-host, the class deleted and made again): no error,
#     the counts still add up, no client left once the load is gone.
#  6. A kernel NFSv4.1 mount with nconnect=16 from 127.0.0.7, walked in a
#     loop while its address is put in a class, made per-host, and the
#     table flushed: every walk succeeds and the connections follow.
# Last, the console: no warning, BUG, refcount or list corruption report.
#
# Real time, not time-travel: tests/run-suites boots tests/uml/run without
# --time-travel, so every rate below is wall-clock on a uniprocessor guest
# sharing a 2-core host. The GETATTR load asks the hold hook for 10 ms, so
# 8 threads serve at most 800 ops/s; a saturated run here measures 700
# to 780. The late client of 1 must get 40% of what nfsd serves: with the
# change it is one of two clients and gets about half (350 to 390 ops/s
# seen, 44 to 48% of 800); before it, it got nothing (its connection waits
# behind 16 unbound ones served first), and on a kernel without nfsfair
# 1/17 (5.9%). A loaded host lowers what nfsd serves in all, not the
# half, so shares and rates relative to the same load's are checked,
# never a fraction of 800 ops/s. Builds nothing: run `make -C tests/load`
# and `make -C cli` on the host first.
#
# On the lockdep qemu guest (make check-smp-debug, NFSFAIR_GUEST=qemu)
# every step is several times slower: loads run and polls wait $slow
# times longer there, and the replace rate and the saturated rate after
# the flush are only reported (neither the python
# generator nor nfsd keeps its UML pace there).
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/uml/guest-lib.sh"

ctl=$top/cli/nfsfair-ctl
load=$top/tests/load/nfsfair-load
out=/run/nfsfair/live-edits
mnt=/run/nfsfair/live-mnt
mkdir -p "$out" "$mnt"

# How much longer loads run and polls wait: 1 on UML, 20 on the debug
# qemu guest, where translated code with lockdep is slower still for the
# tools (a ynl call takes seconds there) than for nfsd.
slow=1
[ "${NFSFAIR_GUEST:-uml}" = qemu ] && slow=20

# The saturated rate and its bounds (see above): threads / hold.
threads=8
hold_us=10000
full=$((threads * 1000000 / hold_us))

# json FILE EXPR: EXPR (Python, over the JSON document in FILE as r, and
# free to span lines) is true.
json() {
	/usr/bin/python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(not eval("(" + sys.argv[2] + ")"))' "$1" "$2"
}

# jsonv FILE EXPR: print EXPR over the document in FILE as r.
jsonv() {
	/usr/bin/python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$1" "$2" 2>&1
}

# now_ms: monotonic enough for polls.
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# poll MS CMD...: run CMD until it succeeds, at most MS milliseconds;
# waited_ms says how long it took.
poll() {
	local limit=$(($1 * slow)) start
	shift
	start=$(now_ms)
	while :; do
		if "$@"; then
			waited_ms=$(($(now_ms) - start))
			return 0
		fi
		waited_ms=$(($(now_ms) - start))
		[ "$waited_ms" -lt "$limit" ] || return 1
		sleep 0.1
	done
}

# getattrs: GETATTRs nfsd has served since it started.
getattrs() { awk '$1 == "proc3" { print $4 }' /proc/net/rpc/nfsd; }

# conns_from ADDR: nfsd's established connections from ADDR.
conns_from() { peers_of_port 2049 | grep -cxF "$1"; }
has_conns() { [ "$(conns_from "$1")" -ge "$2" ]; }

# explain ADDR EXPR: nfsfair-ctl explain ADDR --json, saved as
# $out/explain.json, and EXPR over its entry for ADDR (r) is true.
explain() {
	"$ctl" explain "$1" --json > "$out/explain.json" 2>&1 &&
		json "$out/explain.json" "(lambda r: $2)(r[0])"
}
explain_diag() { diag "explain $1: $("$ctl" explain "$1" 2>&1 | tr '\n' ' ')"; }

# clients_ok FILE EXPR [PEER]: the kernel's client dump (ynl, only the
# clients holding PEER's connections if given), saved in FILE, with EXPR
# over it (r, a list) true.
clients_ok() {
	local file=$1 expr=$2 peer=${3:-}
	if [ -n "$peer" ]; then
		ynl --dump client-get --json "{\"peer-addr4\": \"$peer\"}"
	else
		ynl --dump client-get
	fi > "$file" 2>&1 && json "$file" "$expr"
}
clients_diag() { diag "client-get${2:+ for $2}: $(tr -d '\n' < "$1")"; }

# counts_add_up: the kernel's clients hold as many connections as nfsd
# has established from its peers, and that is at least $1.
counts_add_up() {
	local tcp
	tcp=$(peers_of_port 2049 | grep -c .)
	clients_ok "$out/sum.json" 'True' || return 1
	dump_total=$(jsonv "$out/sum.json" 'sum(c.get("connections", 0) for c in r)')
	tcp_total=$tcp
	[ "$tcp" -ge "$1" ] && [ "$dump_total" = "$tcp" ]
}

# load_start NAME GROUP... [-- OPTIONS]: GETATTRs of the hold hook's handle,
# held 10 ms each, in the background; report in $out/NAME.json.
load_start() {
	local name=$1 args=()
	shift
	# Durations stretch with $slow: the checks below run while loads do.
	while [ $# -gt 0 ]; do
		if [ "$1" = --duration ]; then
			args+=(--duration "$(($2 * slow))")
			shift 2
		else
			args+=("$1")
			shift
		fi
	done
	"$load" "${args[@]}" --proc getattr --hold-us "$hold_us" --timeout $((90 * slow)) --json \
		> "$out/$name.json" 2> "$out/$name.err" &
	load_pid=$!
}

# A load the checks sample while it runs is started with this long a
# --duration and ended with load_stop once they are done: it outlasts
# them however slow the host, and ends as soon as it is not needed.
long=60

# load_stop NAME PID DESC: end a load started with --duration $long now
# (nfsfair-load's SIGUSR1); its report covers the time until then.
load_stop() {
	check "$3: the load was still running when its checks ended" kill -USR1 "$2"
	load_done "$1" "$2" "$3"
	check "$3: load_stop ended it before its $long s" \
		json "$out/$1.json" "r['duration_s'] < $((long * slow))"
}

# load_done NAME PID DESC: wait for the load; exit 0 and no RPC errors.
load_done() {
	local name=$1 rc
	wait "$2"
	rc=$?
	check "$3: the load exits 0 with no RPC errors" \
		eval '[ $rc -eq 0 ] && json "$out/$name.json" "r[\"total_errors\"] == 0"' ||
		diag "exit $rc; stderr: $(cat "$out/$name.err")"
	diag "$name: $(jsonv "$out/$name.json" '", ".join("%s %d conns %.1f ops/s %.1f%% errors %d" % (g["source"], g["conns"], g["ops_per_s"], g["share_pct"], g["errors"]) for g in r["groups"]) + ", total %.1f ops/s" % r["total_ops_per_s"]')"
}

if [ ! -x "$load" ]; then
	diag "$load is missing: run 'make -C tests/load' on the host before booting the guest"
fi
require "tests/load/nfsfair-load is built" test -x "$load"
require "nfsd starts with $threads threads" nfsd_start $threads
for a in 2 3 4 5 6 7; do
	require "127.0.0.$a is a source address" add_source_addr 127.0.0.$a
done
require "the nfsfair family answers, and no table exists" \
	eval '"$ctl" -L > /dev/null && [ -z "$("$ctl" -S)" ]'

# 1. The issue: a greedy client connects before any table exists.
# (A load sampled while it runs is ended by load_stop once the checks
# are done, however long a busy host makes them take; step 4's is held
# 8 s measured at least, its saturated rate after the flush.)
load_start early --group early:127.0.0.2:16:4 --warmup 0.5 --duration $long
early=$load_pid
check "1: 16 connections from 127.0.0.2 open with no table" poll 3000 has_conns 127.0.0.2 16 ||
	diag "saw $(conns_from 127.0.0.2)"
check "1: -A -s 127.0.0.0/8 -j per-host under them" "$ctl" -A -s 127.0.0.0/8 -j per-host
load_start late --group late:127.0.0.3:1:16 --warmup 1 --duration 4
late=$load_pid
late_t0=$(now_ms) late_n0=$(getattrs)
check "1: the 16 early connections are bound to per-host 127.0.0.2 within 2 s" \
	poll 2000 explain 127.0.0.2 'len(r["clients"]) == 1 and r["clients"][0]["kind"] == "per-host"
		and r["clients"][0]["peer_connections"] == 16 and not r["clients"][0]["moving"]'
diag "per-host 127.0.0.2 held the 16 after $waited_ms ms"
explain_diag 127.0.0.2
load_done late "$late" "1: late 127.0.0.3"
check "1: the early 16 were still loading nfsd when the late client's run ended" kill -0 "$early"
late_ms=$(($(now_ms) - late_t0)) late_n=$(($(getattrs) - late_n0))
ops=$(jsonv "$out/late.json" 'round(r["total_ops_per_s"], 1)')
share=$(jsonv "$out/late.json" "round(100.0 * r['total_ops_per_s'] * $late_ms / 1000 / $late_n, 1)")
# Judged by its share of what nfsd served, not of 800 ops/s: a busy host
# (or the debug guest) lowers what nfsd serves in all, not the half.
check "1: the late 1-connection client gets $share% >= 40% of what nfsd served ($ops ops/s)" \
	eval '[ "${share%.*}" -ge 40 ]'
diag "late client: $ops ops/s, $(jsonv "$out/late.json" "round(100.0 * r['total_ops_per_s'] / $full, 1)")% of threads/hold; nfsd served $((late_n * 1000 / late_ms)) GETATTRs/s in all while it ran (its warm-up too), so its share was about $(jsonv "$out/late.json" "round(100.0 * r['total_ops_per_s'] * $late_ms / 1000 / $late_n, 1)")%"
load_stop early "$early" "1: early 127.0.0.2"

# 2. A class for a busy peer, inserted under its load.
load_start mid --group mid:127.0.0.4:16:4 --warmup 0.5 --duration $long
mid=$load_pid
check "2: 16 connections from 127.0.0.4" poll 3000 has_conns 127.0.0.4 16
check "2: before the edit, they are per-host 127.0.0.4" \
	explain 127.0.0.4 'len(r["clients"]) == 1 and r["clients"][0]["kind"] == "per-host"
		and r["clients"][0]["peer_connections"] == 16' || explain_diag 127.0.0.4
check "2: -N late" "$ctl" -N late
check "2: -I 1 -s 127.0.0.4 -j late" "$ctl" -I 1 -s 127.0.0.4 -j late
class_conns() {
	"$ctl" classes -v --json > "$out/classes.json" 2>&1 &&
		json "$out/classes.json" "[c['connections'] for c in r if c['name'] == '$1'] == [$2]"
}
check "2: class late shows 16 connections within 2 s" poll 2000 class_conns late 16
diag "after $waited_ms ms: classes $(tr -d '\n' < "$out/classes.json")"
check "2: client-get: a class client late with 16 connections, no per-host client for 127.0.0.4" \
	clients_ok "$out/c2.json" '[c["connections"] for c in r if c["kind"] == "class" and c["class"] == "late"] == [16]
		and not any(c["kind"] == "per-host" and c.get("addr4") == "127.0.0.4" for c in r)'
clients_diag "$out/c2.json"
check "2: client-get for peer 127.0.0.4: only class late holds its connections, all 16" \
	clients_ok "$out/c2p.json" 'len(r) == 1 and r[0]["kind"] == "class" and r[0]["class"] == "late"
		and r[0]["peer-connections"] == 16' 127.0.0.4
clients_diag "$out/c2p.json" 127.0.0.4

# 3. Rule and class deleted under the same load: back to per-host.
check "3: -D -s 127.0.0.4 -j late" "$ctl" -D -s 127.0.0.4 -j late
check "3: -X late" "$ctl" -X late
check "3: class late is gone" eval '! "$ctl" classes | grep -q "^late "'
check "3: the 16 connections are on per-host 127.0.0.4/32 within 2 s" \
	poll 2000 explain 127.0.0.4 'r["target"] == "per-host" and len(r["clients"]) == 1
		and r["clients"][0]["kind"] == "per-host" and r["clients"][0]["prefix"] == "127.0.0.4/32"
		and r["clients"][0]["peer_connections"] == 16 and not r["clients"][0]["moving"]'
diag "after $waited_ms ms"
explain_diag 127.0.0.4
check "3: client-get for peer 127.0.0.4: only per-host 127.0.0.4 holds its connections" \
	clients_ok "$out/c3p.json" 'len(r) == 1 and r[0]["kind"] == "per-host"
		and r[0]["addr4"] == "127.0.0.4" and r[0]["peer-connections"] == 16' 127.0.0.4
clients_diag "$out/c3p.json" 127.0.0.4
check "3: the clients hold as many connections as nfsd has established, within 3 s" \
	eval 'kill -0 $mid && poll 3000 counts_add_up 16'
diag "client-get total $dump_total, established $tcp_total, after $waited_ms ms"
load_stop mid "$mid" "2, 3: 127.0.0.4 through the edits"

# 4. Flush under load: every connection back on the single queue.
# The load runs until the checks are done, and 8 s measured at least: a
# fixed 8 s ended before them once on a busy host (the poll's ynl runs
# took 6 s).
flush_t0=$(mono)
load_start flush --group flush:127.0.0.4:16:4 --warmup 1.5 --duration $long
flush=$load_pid
check "4: 16 connections from 127.0.0.4, bound to per-host 127.0.0.4" \
	poll 3000 explain 127.0.0.4 'len(r["clients"]) == 1 and r["clients"][0]["peer_connections"] == 16'
check "4: -F" "$ctl" -F
check "4: the table is empty: no rule of any origin" eval '[ -z "$("$ctl" -S)" ] &&
	[ "$("$ctl" -L --json | python3 -c "import json,sys; print(len(json.load(sys.stdin)))")" = 0 ]'
check "4: explain 127.0.0.4: no table, the single queue" \
	explain 127.0.0.4 'r["position"] is None and r["target"] == "single queue"'
# no_client ADDR FILE: the client dump is empty while ADDR's 16 are open.
no_client() { has_conns "$1" 16 && clients_ok "$2" 'r == []' && has_conns "$1" 16; }
check "4: client-get has no client at all within 2 s, the 16 connections open" \
	poll 2000 no_client 127.0.0.4 "$out/c4.json"
diag "after $waited_ms ms: $(conns_from 127.0.0.4) connections from 127.0.0.4"
clients_diag "$out/c4.json"
sleep_until $((flush_t0 + 9500000000))
load_stop flush "$flush" "4: 127.0.0.4 through the flush"
# The measured 8 s or more start 1.5 s after the load, after the flush (made
# about 0.5 s in) and its moves: nfsd as saturated as under the same load
# in step 2 (what a busy host leaves of 800 ops/s is not the point): 80%
# of that or more, and at most threads/hold (the 5 ops/s over 800 are the
# calls already held when measuring starts).
ops=$(jsonv "$out/flush.json" 'round(r["total_ops_per_s"], 1)')
mid_ops=$(jsonv "$out/mid.json" 'round(r["total_ops_per_s"], 1)')
if [ "$slow" -eq 1 ]; then
	check "4: after the flush nfsd stays saturated: $ops ops/s, 80% of step 2's $mid_ops or more, at most $((full + 5))" \
		json "$out/flush.json" "0.8 * $mid_ops <= r['total_ops_per_s'] <= $((full + 5))"
else
	diag "4: not checked on this slow guest: $ops ops/s after the flush"
fi

# 5. 100 table replaces a second for 10 s under load, one Python process
# driving the family through the tree's ynl library (nfsfair-ctl restore
# costs about 13 ms a run in this guest, too slow for 100 a second). The
# 1st, 3rd, ... put 127.0.0.5 in class churn (made by the replace), the
# 2nd, 4th, ... make it per-host and delete the class, so the class goes
# while its client still holds connections and comes back as a new class
# of the same name. 127.0.0.6 got 36 to 38% here rather than half,
# likely because 127.0.0.5's transports are split between its old and
# new client much of the time (each moves only at its next read): shown,
# not asserted.
load_start churn --group churn:127.0.0.5:16:4 --group one:127.0.0.6:1:16 --warmup 0.5 --duration $long
churn=$load_pid
check "5: 16 connections from 127.0.0.5 and 1 from 127.0.0.6" \
	poll 3000 eval 'has_conns 127.0.0.5 16 && has_conns 127.0.0.6 1'
ynl_paths	# guest-lib.sh: the tree's ynl library, our spec, genetlink's schema
/usr/bin/python3 - "$ynl_lib" "$ynl_spec" "$ynl_schema" > "$out/replaces.json" 2> "$out/replaces.err" <<'PY'
import json, sys, time
sys.path.insert(0, sys.argv[1])
from lib import YnlFamily
y = YnlFamily(sys.argv[2], sys.argv[3])
everyone = {"addr4": "127.0.0.0", "prefix-len": 8, "per-host-len": 32}
in_class = {"origin": 0, "class": [{"name": "churn", "weight": 1}],
            "rule": [{"addr4": "127.0.0.5", "prefix-len": 32, "class": "churn"}, everyone]}
per_host = {"origin": 0,
            "rule": [{"addr4": "127.0.0.5", "prefix-len": 32, "per-host-len": 32}, everyone]}
n, errors, worst, first = 1000, [], 0.0, None
start = time.monotonic()
for i in range(n):
    delay = start + i / 100.0 - time.monotonic()
    if delay > 0:
        time.sleep(delay)
    t = time.monotonic()
    try:
        if i % 2 == 0:
            y.do("table-replace", in_class)
        else:
            y.do("table-replace", per_host)
            y.do("class-del", {"name": "churn"})
    except Exception as e:
        errors.append(i)
        first = first or "%d: %s" % (i, e)
    worst = max(worst, time.monotonic() - t)
print(json.dumps({"replaces": n, "errors": len(errors), "first_error": first,
                  "elapsed_s": round(time.monotonic() - start, 3),
                  "worst_ms": round(worst * 1000, 1)}))
PY
check "5: 1000 table replaces, every one accepted" json "$out/replaces.json" 'r["errors"] == 0' ||
	diag "$(cat "$out/replaces.json" "$out/replaces.err")"
rate=$(jsonv "$out/replaces.json" 'round(r["replaces"] / r["elapsed_s"], 1)')
diag "replaces: $(cat "$out/replaces.json"), $rate/s"
if [ "$slow" -eq 1 ]; then
	check "5: at 100 a second, give or take 10% ($rate/s)" \
		json "$out/replaces.json" 'r["replaces"] / r["elapsed_s"] >= 90'
else
	diag "5: the rate is not checked on this slow guest: $rate/s"
fi
check "5: the load was still running when the replaces ended" kill -0 "$churn"
check "5: after the last (per-host), 127.0.0.5's 16 connections are on per-host 127.0.0.5/32" \
	poll 2000 explain 127.0.0.5 'len(r["clients"]) == 1 and r["clients"][0]["kind"] == "per-host"
		and r["clients"][0]["peer_connections"] == 16 and not r["clients"][0]["moving"]' ||
	explain_diag 127.0.0.5
check "5: class churn is gone" eval '! "$ctl" classes | grep -q "^churn "'
check "5: the clients hold as many connections as nfsd has established, within 3 s" \
	eval 'kill -0 $churn && poll 3000 counts_add_up 17'
diag "client-get total $dump_total, established $tcp_total, after $waited_ms ms"
load_stop churn "$churn" "5: 127.0.0.5 and 127.0.0.6 through the replaces"
check "5: once the load is gone, no client is left within 3 s" \
	poll 3000 clients_ok "$out/c5.json" 'r == []'
clients_diag "$out/c5.json"

# 6. A real client: NFSv4.1, nconnect=16, from 127.0.0.7, walking a tree
# of 300 small files (caches dropped first, so every walk goes to nfsd)
# while the table changes under it.
tree=$nfsfair_export/tree
for d in $(seq -w 0 19); do
	mkdir -p "$tree/d$d"
	for f in $(seq -w 0 14); do echo "file $d/$f" > "$tree/d$d/f$f"; done
done
want=$(cd "$tree" && find . -type f | sort | xargs cat | md5sum)
require "6: mount 127.0.0.7:/ vers=4.1,nconnect=16" \
	mount -t nfs -o vers=4.1,nconnect=16 "$(nfs_source 4.1 127.0.0.7)" "$mnt"
walk() {
	local got
	echo 2 > /proc/sys/vm/drop_caches
	got=$(set -o pipefail; cd "$mnt/tree" && find . -type f | sort | xargs cat | md5sum) &&
		[ "$got" = "$want" ] &&
		[ "$(find "$mnt/tree" -type f | wc -l)" -eq 300 ]
}
require "6: a first walk reads the 300 files back" walk
rm -f "$out/walks"
(
	while [ ! -e "$out/stop" ]; do
		if walk; then echo ok; else echo failed; fi >> "$out/walks"
	done
) &
walker=$!
walks() {
	local n
	n=$(grep -c "^${1:-}" "$out/walks" 2> /dev/null)
	echo "${n:-0}"
}
check "6: nfsd has 16 connections from 127.0.0.7" poll 5000 has_conns 127.0.0.7 16 ||
	diag "saw $(conns_from 127.0.0.7)"
explain_diag 127.0.0.7
check "6: -N walkers" "$ctl" -N walkers
check "6: change 1: -I 1 -s 127.0.0.7 -j walkers" "$ctl" -I 1 -s 127.0.0.7 -j walkers
check "6: the mount's 16 connections move to class walkers within 5 s" \
	poll 5000 explain 127.0.0.7 'len(r["clients"]) == 1 and r["clients"][0]["kind"] == "class"
		and r["clients"][0]["class"] == "walkers" and r["clients"][0]["peer_connections"] == 16'
diag "after $waited_ms ms"
explain_diag 127.0.0.7
check "6: client-get for peer 127.0.0.7: class walkers holds the 16" \
	clients_ok "$out/c6.json" 'len(r) == 1 and r[0]["kind"] == "class" and r[0]["class"] == "walkers"
		and r[0]["peer-connections"] == 16' 127.0.0.7
clients_diag "$out/c6.json" 127.0.0.7
check "6: change 2: -R 1 -s 127.0.0.7 -j per-host" "$ctl" -R 1 -s 127.0.0.7 -j per-host
check "6: they move to per-host 127.0.0.7/32 within 5 s" \
	poll 5000 explain 127.0.0.7 'len(r["clients"]) == 1 and r["clients"][0]["kind"] == "per-host"
		and r["clients"][0]["prefix"] == "127.0.0.7/32" and r["clients"][0]["peer_connections"] == 16'
diag "after $waited_ms ms"
explain_diag 127.0.0.7
check "6: change 3: -F" "$ctl" -F
check "6: -X walkers" "$ctl" -X walkers
check "6: client-get has no client at all within 5 s, the mount's 16 connections open" \
	poll 5000 no_client 127.0.0.7 "$out/c6f.json"
diag "after $waited_ms ms"
clients_diag "$out/c6f.json"
before=$(walks)
check "6: two more walks complete after the flush" poll 30000 eval '[ $(walks) -ge $((before + 2)) ]'
touch "$out/stop"
wait "$walker"
diag "walks: $(walks ok) ok, $(walks failed) failed"
check "6: every walk succeeded ($(walks) walks)" eval '[ $(walks failed) -eq 0 ] && [ $(walks ok) -ge 3 ]'
check "6: the mount is still mounted" mountpoint -q "$mnt"
check "6: unmount" umount "$mnt"

# The console, after all of the above.
kernel_log > "$out/dmesg"
# "use-after-free in" and "BUG:", not the debug kernel's banner that says
# its RCU "double-/use-after-free debug is enabled".
pattern='WARNING|\<BUG:|refcount_t|list_add corruption|list_del corruption|use-after-free in|Call Trace'
check "dmesg: no WARNING, BUG, refcount_t, list corruption, use-after-free or Call Trace" \
	eval '! grep -qE "$pattern" "$out/dmesg"' ||
	grep -E -B2 -A10 "$pattern" "$out/dmesg" | head -60 | sed 's/^/# /'
tap_done
