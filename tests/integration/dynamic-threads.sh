#!/bin/bash
# guest-args: --time-travel
# guest-only: uml: its figures are exact only in time-travel; under TCG they are noise
# Inside the guest: nfsd's thread count changed under load, and 7.3's
# dynamic threads, against fair shares and class limits. Two clients,
# per host: many, 16 connections from 127.0.0.2, and one, 1 connection
# from 127.0.0.3, both backlogged with GETATTRs the hold hook keeps 10 ms,
# so a thread serves 100 calls a second. Each load is counted in windows
# of --window-ms; a stretch's windows are those from 500 ms (settling)
# after the edit that began it to the next edit.
#
#  1. The static count changed live: 16 threads, then 4 (echo 4 >
#     /proc/fs/nfsd/threads), 2 (nfsd's netlink threads-set), 16 again
#     (/proc). In every window of every stretch each client has 45 to 55%
#     of the calls, and nfsd serves threads/hold: 1600, 400, 200, 1600
#     ops/s (97 to 101%).
#  2. A class limit across the changes: many in class bulk, limit 4. At
#     16 threads bulk's threads-max is 4 and it gets 4 threads' worth
#     (25%); at 2 it gets its fair share, a thread's worth, and one
#     the other (45 to 55% a window, so one is not starved); back at 16
#     the limit still holds (threads-max 4, 25%); then -E bulk --limit 0
#     under the load, and bulk takes its half again. Each stretch's
#     threads-max is read from a -Z once it settled to just before the
#     next edit.
#     At 2 threads it is printed, not checked: bulk's limit is above the
#     pool, so only the shares bind, and they are over time. Dispatch
#     keeps a client from the pool's last thread only while another
#     client was dispatched within one of its calls (svc_fair_hogs(),
#     the call's mean cost, 10 ms at least); here every call takes 10
#     ms, so the two are equal and a freed thread looking a hair late
#     gives bulk both threads for a call. It read 1 in every run here
#     and 2 once in CI, with 50% in every window both times.
#  3. Dynamic threads: threads-set threads 16, min-threads 2 through
#     nfsd's own netlink family, with the kernel tree's ynl CLI. The
#     pool's sp_nrthreads is what counts: the nfsd_dynthread_start and
#     _kill trace events give it at each change (on the mono clock), and
#     nfsd's kthreads are counted in /proc beside (one pool in this
#     guest); /proc/fs/nfsd/threads and threads-get give the max. Idle,
#     the pool shrinks to 2; the two clients grow it to 16 (svc_recv()
#     returns -EBUSY when it dequeued work and no thread was idle, and
#     nfsd() starts one, up to sp_nrthrmax) with each client at half;
#     after the load none leaves before 5 s idle (-ETIMEDOUT) and all
#     but 2 have left by 7 s.
#     Then a class limited to 1 thread, solo, 16 connections from
#     127.0.0.5 four calls deep, is the only load for 60 s: one thread
#     serves it (100 ops/s), and the pool should stay at 2. A class parked
#     at its limit is not more work than threads: svc_fair_tree_next()
#     takes its queue out of the tree and dequeues nothing, so a thread
#     that looks gets no transport, svc_recv() returns 0, not -EBUSY, and
#     svc_fair_pool_busy() does not count it, so the threads sleep. Its
#     connections are set up 7 s before its first call, so that a thread
#     their setup started (control events, which a limit never holds)
#     has timed out by then.
#     It did not before 0009 had svc_recv() ask svc_fair_wants_thread()
#     (the two checks of the pool under solo failed): 38.5 s into solo's
#     calls the pool went to 3 and stayed there until 5 s after the
#     load. The thread that ends solo's call wakes an idle one (the
#     unpark: svc_fair_class_release(), svc_fair_class_resume(),
#     svc_pool_wake_idle_thread()); when the woken one preempted it and
#     took solo's next call, no thread was on sp_idle_threads, so
#     svc_recv() returned -EBUSY and nfsd() started a thread solo could
#     not use. Now a dispatch that leaves its class at its limit asks
#     for no thread. (Such a thread never timed out while solo had work:
#     only the head of sp_idle_threads leaves it, llist_del_first_this(),
#     and the head is woken at the end of every call.)
#  4. Nothing in the kernel's log: no WARNING, BUG, lockdep or RCU report.
#
# Time-travel (the guest-args line): only the hold hook's sleeps and idle
# waits cost guest time, so the figures repeat run to run. Builds
# nothing: run `make -C tests/load` and `make userspace` on the host first.
# A python3 costs half a second of wall time in the guest: the edits of a
# load are run by one (schedule), and its figures read by another.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/uml/guest-lib.sh"

ctl=$top/cli/nfsfair-ctl
load=$top/tests/load/nfsfair-load
out=/run/nfsfair/dynamic-threads
tracing=/sys/kernel/tracing
mkdir -p "$out"
mountpoint -q $tracing || mount -t tracefs tracefs $tracing
# 6.12 (make check-6.12) has no dynamic threads: nothing here to run.
if [ ! -d $tracing/events/nfsd/nfsd_dynthread_start ]; then
	echo "1..0 # SKIP this kernel's nfsd has no dynamic threads (nfsd_dynthread_start): 7.3's"
	exit 0
fi

hold_us=10000 settle_ms=500
per_thread=$((1000000 / hold_us))		# ops/s one thread serves

# nfsd_ynl ARGS...: the kernel tree's ynl CLI on nfsd's own family.
ynl_paths
nfsd_cli=(python3 "$ynl_lib/cli.py" --spec "${ynl_schema%/*}/specs/nfsd.yaml" --schema "$ynl_schema"
	  --output-json)
nfsd_ynl() { "${nfsd_cli[@]}" "$@"; }
# As a command line for schedule: threads-set with THREADS alone.
nl_threads() { printf '%q ' "${nfsd_cli[@]}" --do threads-set --json "{\"threads\": [$1]}"; }

# nfsd_threads: nfsd's threads running now (its kthreads).
nfsd_threads() {
	grep -lx nfsd /proc/[0-9]*/comm 2> /dev/null | wc -l
}
count_cmd='grep -lx nfsd /proc/[0-9]*/comm | wc -l'

# schedule FILE: run each line "SECONDS COMMAND" of stdin with bash,
# SECONDS after now; FILE gets "from-ns to-ns status output" for each
# (CLOCK_MONOTONIC, the output on one line).
schedule() {
	python3 -c 'import subprocess, sys, time
now = lambda: time.clock_gettime_ns(time.CLOCK_MONOTONIC)
t0 = now()
with open(sys.argv[1], "w") as f:
    for line in sys.stdin.read().splitlines():
        off, cmd = line.split(None, 1)
        time.sleep(max(0, t0 + int(float(off) * 1e9) - now()) / 1e9)
        a = now()
        p = subprocess.run(["bash", "-c", cmd], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        print(a, now(), p.returncode, " ".join(p.stdout.split()) or "-", file=f, flush=True)' "$1"
}

# sampler FILE PERIOD: every PERIOD s of guest time until sampler_stop,
# "CLOCK_MONOTONIC-ns threads" in FILE, one line each.
sampler() {
	python3 -c 'import os, sys, time
while True:
    n = 0
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/" + d + "/comm") as f:
                    n += f.read() == "nfsd\n"
            except OSError:
                pass
    print(time.clock_gettime_ns(time.CLOCK_MONOTONIC), n, flush=True)
    time.sleep(float(sys.argv[1]))' "$2" > "$1" &
	sampler_pid=$!
}
sampler_stop() {
	kill "$sampler_pid"
	wait "$sampler_pid" 2> /dev/null
}

# threads SAMPLES NAME FROM TO [NAME FROM TO]...: the pool's threads from
# FROM to TO (CLOCK_MONOTONIC ns; TO 0: no end), as shell assignments,
# each NAME_: s_min, s_max: the least and most SAMPLES counted; starts,
# kills: nfsd_dynthread_start and _kill events in the trace; first,
# last: the first and last event's ms from FROM; top: the most threads
# an event left; line: each change, "ms:before->after", events within a
# ms of each other as one.
threads() {
	python3 -c 'import re, sys
ev = []
for l in open(sys.argv[1]):
    m = re.search(r" (\d+)\.(\d+): nfsd_dynthread_(start|kill): pool=\d+ nrthreads=(\d+)", l)
    if m:
        n = int(m.group(4))
        ev.append((int(m.group(1)) * 10**9 + int(m.group(2).ljust(9, "0")), n,
                   n + 1 if m.group(3) == "start" else n - 1, m.group(3)))
sm = [tuple(map(int, l.split())) for l in open(sys.argv[2]) if len(l.split()) == 2]
a = sys.argv[3:]
for name, lo, hi in zip(a[0::3], a[1::3], a[2::3]):
    lo, hi = int(lo), int(hi) or 1 << 62
    e = [x for x in ev if lo <= x[0] <= hi]
    s = [n for t, n in sm if lo <= t <= hi]
    line = []
    for t, before, after, kind in e:
        ms = (t - lo) / 1e6
        if line and ms - line[-1][0] < 1:
            line[-1][2] = after
        else:
            line.append([ms, before, after])
    v = dict(s_min=min(s or [-1]), s_max=max(s or [-1]), n_samples=len(s),
             starts=sum(x[3] == "start" for x in e), kills=sum(x[3] == "kill" for x in e),
             first="%.1f" % ((e[0][0] - lo) / 1e6) if e else "-",
             last="%.1f" % ((e[-1][0] - lo) / 1e6) if e else "-",
             top=max([x[2] for x in e] or [-1]),
             line=" ".join("%.1fms:%d->%d" % tuple(x) for x in line) or "none")
    for k in v:
        print("%s_%s=\x27%s\x27" % (name, k, v[k]))' "$out/trace" "$@"
}
trace_read() { cat "$tracing/trace" > "$out/trace"; }

# phases REPORT GROUP FROM TO [FROM TO]...: for each stretch (CLOCK_MONOTONIC
# ns; TO 0: the measured time's end), over REPORT's windows wholly in it
# from settle_ms after FROM (the last, short one never counted): "n min
# max rate gmax shares": GROUP's least and most % of a window's calls,
# every group's calls a second, GROUP's most calls in a window, and its %
# in each window. One line a stretch.
phases() {
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
w = r["window_ms"] * 1e6
settle = int(sys.argv[3]) * 1e6
G = {g["name"]: g["windows"] for g in r["groups"]}
n = len(G[sys.argv[2]]) - 1
args = list(map(int, sys.argv[4:]))
for a, b in zip(args[0::2], args[1::2]):
    a = a + settle - r["start_ns"]
    b = b - r["start_ns"] if b else 1e30
    idx = [i for i in range(n) if i * w >= a and (i + 1) * w <= b]
    tot = [sum(g[i] for g in G.values()) for i in idx]
    sh = [100.0 * G[sys.argv[2]][i] / t if t else 0.0 for i, t in zip(idx, tot)]
    rate = sum(tot) / (len(idx) * w / 1e9) if idx else 0.0
    print(len(idx), "%.1f" % min(sh or [0]), "%.1f" % max(sh or [0]), "%.1f" % rate,
          max([G[sys.argv[2]][i] for i in idx] or [0]), ",".join("%.0f" % s for s in sh) or "-")
' "$1" "$2" "$settle_ms" "${@:3}"
}

# in_range LO X HI: LO <= X <= HI, decimals allowed.
in_range() { awk -v a="$1" -v x="$2" -v b="$3" 'BEGIN { exit !(a <= x && x <= b) }'; }

# report_ok NAME: the report $out/NAME.json says no errors.
report_ok() { grep -qE '"total_errors": 0(,|$)' "$out/$1.json"; }
# start_ns NAME: the measured time's start in report NAME.
start_ns() { sed -n 's/.*"start_ns": \([0-9]*\).*/\1/p' "$out/$1.json"; }
# thr_max CLASS FILE: CLASS's thr-max in FILE, a classes -v.
thr_max() { awk -v c="$1" '$1 == c { print $9 }' "$2"; }

# load_ok NAME RC: the load NAME exited RC: 0, and its report has no errors.
load_ok() {
	local name=$1 rc=$2
	check "$name: the load ran, no errors" eval '[ "$rc" = 0 ] && report_ok "$name"' ||
		diag "$name: exit $rc: $(head -c 2000 "$out/$name.err")"
}

trace_on() {
	local e
	echo mono > "$tracing/trace_clock" || return
	for e in start kill trylock_fail; do
		echo 1 > "$tracing/events/nfsd/nfsd_dynthread_$e/enable" || return
	done
}

require "tests/load/nfsfair-load is built" test -x "$load"
require "nfsd starts with 16 threads" nfsd_start 16
for a in 2 3 5; do add_source_addr 127.0.0.$a; done
require "-A -s 127.0.0.0/8 -j per-host" "$ctl" -A -s 127.0.0.0/8 -j per-host
nfsd_ynl --do threads-get > "$out/threads-get.0" 2>&1
check "nfsd netlink threads-get: threads [16], min-threads 0 (static); 16 running" eval \
	'grep -qE "\"min-threads\": 0,.*\"threads\": \[16\]" "$out/threads-get.0" && [ "$(nfsd_threads)" = 16 ]' ||
	diag "threads-get: $(cat "$out/threads-get.0"); running $(nfsd_threads)"
check "the nfsd_dynthread trace events are on, on the mono clock" trace_on

two=(--group many:127.0.0.2:16:4 --group one:127.0.0.3:1:16 --proc getattr --hold-us "$hold_us"
     --timeout 120 --json)

# 1. The static count changed under the load, 3 s a stretch.
"$load" "${two[@]}" --warmup 1 --duration 12 --window-ms 500 > "$out/static.json" 2> "$out/static.err" &
pid=$!
schedule "$out/static.sched" <<EOF
4 echo 4 > /proc/fs/nfsd/threads && $count_cmd
7 $(nl_threads 2) > /dev/null && $count_cmd
10 echo 16 > /proc/fs/nfsd/threads && $count_cmd
EOF
wait "$pid"
load_ok static $?
mapfile -t e < "$out/static.sched"
read -r e1_from e1_to e1_rc e1_n <<< "${e[0]}"
read -r e2_from e2_to e2_rc e2_n <<< "${e[1]}"
read -r e3_from e3_to e3_rc e3_n <<< "${e[2]}"
check "static: the edits took: 4, 2 and 16 running after them ($e1_n, $e2_n, $e3_n)" \
	eval '[ "$e1_rc$e2_rc$e3_rc" = 000 ] && [ "$e1_n $e2_n $e3_n" = "4 2 16" ]' ||
	diag "static edits: $(cat "$out/static.sched")"
mapfile -t st < <(phases "$out/static.json" one "$(start_ns static)" "$e1_from" \
	"$e1_to" "$e2_from" "$e2_to" "$e3_from" "$e3_to" 0)
i=0
for n in 16 4 2 16; do
	read -r nw lo hi rate gmax shares <<< "${st[i]}"
	want=$((n * per_thread))
	diag "static, $n threads: $nw windows of 500 ms, one's share $shares%; $rate ops/s (threads/hold: $want)"
	check "static, stretch $((i + 1)), $n threads: each client 45 to 55% in every window (one $lo to $hi%)" \
		eval '[ "$nw" -ge 3 ] && in_range 45 "$lo" 55 && in_range 45 "$hi" 55'
	check "static, stretch $((i + 1)), $n threads: $want ops/s, 97 to 101% ($rate)" \
		in_range $((want * 97 / 100)) "$rate" $((want * 101 / 100))
	i=$((i + 1))
done

# 2. Class bulk, limit 4, under the same changes; then the limit lifted.
require "-N bulk --limit 4; -I 1 -s 127.0.0.2 -j bulk" eval \
	'"$ctl" -N bulk --limit 4 && "$ctl" -I 1 -s 127.0.0.2 -j bulk'
"$load" "${two[@]}" --warmup 1 --duration 12 --window-ms 500 > "$out/limit.json" 2> "$out/limit.err" &
pid=$!
schedule "$out/limit.sched" <<EOF
1.5 $ctl -Z
3.95 $ctl classes -v > $out/limit.cls1
4 echo 2 > /proc/fs/nfsd/threads && $count_cmd
4.5 $ctl -Z
6.95 $ctl classes -v > $out/limit.cls2
7 $(nl_threads 16) > /dev/null && $count_cmd
7.5 $ctl -Z
9.95 $ctl classes -v > $out/limit.cls3
10 $ctl -E bulk --limit 0
10.5 $ctl -Z
EOF
wait "$pid"
load_ok limit $?
"$ctl" classes -v > "$out/limit.cls4"
mapfile -t e < "$out/limit.sched"
read -r l1_from l1_to l1_rc l1_n <<< "${e[2]}"
read -r l2_from l2_to l2_rc l2_n <<< "${e[5]}"
read -r l3_from l3_to l3_rc l3_n <<< "${e[8]}"
check "limit: the edits took: 2, then 16 running; bulk's limit lifted" \
	eval '[ "$(cut -d " " -f 3 "$out/limit.sched" | tr -d "\n")" = 0000000000 ] &&
	      [ "$l1_n $l2_n" = "2 16" ] && "$ctl" classes | grep -qE "^bulk +1 +- +1$"' ||
	diag "limit edits: $(cat "$out/limit.sched")"
mapfile -t st < <(phases "$out/limit.json" many "$(start_ns limit)" "$l1_from" \
	"$l1_to" "$l2_from" "$l2_to" "$l3_from" "$l3_to" 0)
tm=()
for k in 1 2 3 4; do tm+=("$(thr_max bulk "$out/limit.cls$k")"); done
what=("16 threads, limit 4" "2 threads, limit 4" "16 threads again, limit 4" "16 threads, limit lifted")
for i in 0 1 2 3; do
	read -r nw lo hi rate gmax shares <<< "${st[i]}"
	diag "limit, ${what[i]}: $nw windows of 500 ms, bulk's share $shares%, at most $gmax calls a window;" \
		"$rate ops/s; bulk's threads-max ${tm[i]}"
done
read -r nw lo hi rate gmax shares <<< "${st[0]}"
check "limit, 16 threads: bulk's threads-max 4 (${tm[0]})" [ "${tm[0]}" = 4 ]
check "limit, 16 threads: bulk 23 to 27% in every window ($lo to $hi%), at most 204 calls, 4 threads' worth ($gmax)" \
	eval '[ "$nw" -ge 3 ] && in_range 23 "$lo" 27 && in_range 23 "$hi" 27 && [ "$gmax" -le 204 ]'
check "limit, 16 threads: nfsd serves with all 16, 1552 to 1616 ops/s ($rate)" in_range 1552 "$rate" 1616
read -r nw lo hi rate gmax shares <<< "${st[1]}"
check "limit, 2 threads: bulk 45 to 55% in every window, one not starved ($lo to $hi%)" \
	eval '[ "$nw" -ge 3 ] && in_range 45 "$lo" 55 && in_range 45 "$hi" 55'
check "limit, 2 threads: nfsd at 194 to 202 ops/s ($rate)" in_range 194 "$rate" 202
read -r nw lo hi rate gmax shares <<< "${st[2]}"
check "limit, 16 threads again: bulk's threads-max 4 (${tm[2]})" [ "${tm[2]}" = 4 ]
check "limit, 16 threads again: bulk 23 to 27% in every window ($lo to $hi%), at most 204 calls ($gmax)" \
	eval '[ "$nw" -ge 3 ] && in_range 23 "$lo" 27 && in_range 23 "$hi" 27 && [ "$gmax" -le 204 ]'
read -r nw lo hi rate gmax shares <<< "${st[3]}"
check "limit lifted: bulk 45 to 55% in every window ($lo to $hi%), threads-max past 4 (${tm[3]})" \
	eval '[ "$nw" -ge 3 ] && in_range 45 "$lo" 55 && in_range 45 "$hi" 55 && [ "${tm[3]}" -gt 4 ]'

# 3. Dynamic threads: at most 16, at least 2.
"$ctl" -F
"$ctl" -A -s 127.0.0.0/8 -j per-host
require "-N solo --limit 1; -I 1 -s 127.0.0.5 -j solo" eval \
	'"$ctl" -N solo --limit 1 && "$ctl" -I 1 -s 127.0.0.5 -j solo'
set_at=$(mono)
nfsd_ynl --do threads-set --json '{"threads": [16], "min-threads": 2}' > "$out/threads-set" 2>&1
rc=$?
nfsd_ynl --do threads-get > "$out/threads-get.1" 2>&1
check "dynamic: threads-set threads [16] min-threads 2; threads-get and /proc/fs/nfsd/threads say 16, 16 running" \
	eval '[ $rc = 0 ] && grep -qE "\"min-threads\": 2,.*\"threads\": \[16\]" "$out/threads-get.1" &&
	      [ "$(cat /proc/fs/nfsd/threads)" = 16 ] && [ "$(nfsd_threads)" = 16 ]' ||
	diag "threads-set: $(cat "$out/threads-set"); threads-get: $(cat "$out/threads-get.1")"
sleep 7
idle_n=$(nfsd_threads)
trace_read
: > "$out/none.samples"
eval "$(threads "$out/none.samples" idle "$set_at" 0)"
diag "dynamic, idle: threads (ms from threads-set:before->after) $idle_line; $idle_n running 7 s after"
check "dynamic, idle: the pool shrinks from 16 to 2 by its idle timeouts ($idle_kills kills, to $idle_n running)" \
	eval '[ "$idle_kills" = 14 ] && [ "$idle_starts" = 0 ] && [ "$idle_n" = 2 ]'
check "dynamic, idle: /proc/fs/nfsd/threads still says the max, 16 ($(cat /proc/fs/nfsd/threads))" \
	[ "$(cat /proc/fs/nfsd/threads)" = 16 ]

# Grows under the two clients, shrinks after them.
pre=$(nfsd_threads)
sampler "$out/grow.samples" 0.25
from=$(mono)
"$load" "${two[@]}" --warmup 0 --duration 4 --window-ms 250 > "$out/grow.json" 2> "$out/grow.err"
rc=$?
ended=$(mono)
load_ok grow $rc
sleep 9
sampler_stop
trace_read
eval "$(threads "$out/grow.samples" grow "$from" "$ended" after "$ended" 0)"
diag "dynamic, grow: threads (ms from the load's start:before->after) $grow_line; sampled $grow_s_min to $grow_s_max"
check "dynamic, grow: 2 before the load, 16 under it, never more ($pre; $grow_starts starts, to $grow_top; sampled at most $grow_s_max)" \
	eval '[ "$pre" = 2 ] && [ "$grow_starts" = 14 ] && [ "$grow_top" = 16 ] && [ "$grow_s_max" = 16 ]'
check "dynamic, grow: all 16 within 500 ms of the load's start (the last start at $grow_last ms)" \
	eval '[ "$grow_starts" = 14 ] && in_range 0 "$grow_last" 500'
read -r nw lo hi rate gmax shares <<< "$(phases "$out/grow.json" one "$(start_ns grow)" 0)"
diag "dynamic, grow: windows of 250 ms from 500 ms: one's share $shares%; $rate ops/s"
check "dynamic, grow: from 500 ms, each client 45 to 55% in every window ($lo to $hi%)" \
	eval '[ "$nw" -ge 8 ] && in_range 45 "$lo" 55 && in_range 45 "$hi" 55'
check "dynamic, grow: from 500 ms, 16 threads' 1600 ops/s, 97 to 101% ($rate)" in_range 1552 "$rate" 1616
diag "dynamic, after the load: threads (ms from its end:before->after) $after_line; sampled $after_s_min to $after_s_max"
check "dynamic, after the load: none leaves before 5 s idle, 14 by 7 s ($after_kills kills, $after_first to $after_last ms)" \
	eval '[ "$after_kills" = 14 ] && in_range 4900 "$after_first" 7000 && in_range 4900 "$after_last" 7000'
check "dynamic, after the load: back at min, 2, and no lower (sampled $after_s_min; $(nfsd_threads) now)" \
	eval '[ "$after_s_min" = 2 ] && [ "$(nfsd_threads)" = 2 ]'

# The parked class alone: its connections at 0 s, its calls from 7 s to 67 s.
sampler "$out/parked.samples" 0.5
"$load" --group solo:127.0.0.5:16:4 --proc getattr --hold-us "$hold_us" --warmup 0 --start solo:7 \
	--duration 67 --window-ms 1000 --timeout 300 --json > "$out/parked.json" 2> "$out/parked.err"
rc=$?
ended=$(mono)
load_ok parked $rc
sleep 8
sampler_stop
trace_read
"$ctl" classes -v > "$out/parked.cls"
start=$(start_ns parked)
first=$((start + 7000000000))
eval "$(threads "$out/parked.samples" conn "$start" "$first" calls "$first" "$ended" after "$ended" 0)"
woken=$(awk '$1 == 0 { print $4 }' /proc/fs/nfsd/pool_stats)
windows=$(sed -n '/"windows": \[/{s/.*"windows": \[\([0-9, ]*\)\].*/\1/p;q}' "$out/parked.json" | tr -d ' ')
diag "parked: connecting (ms from the load's start) $conn_line; sampled $conn_s_min to $conn_s_max"
diag "parked: from its first call (ms:before->after) $calls_line; sampled $calls_s_min to $calls_s_max" \
	"in $calls_n_samples samples"
diag "parked: after the load (ms from its end) $after_line; sampled $after_s_min to $after_s_max"
awk -v a="$first" -v b="$ended" '/nfsd_dynthread/ { t = $4 * 1e9 } /nfsd_dynthread/ && t >= a && t <= b' \
	"$out/trace" | sed 's/^ */# parked: trace: /'
diag "parked: solo's calls in windows of 1 s: $windows; threads-max $(thr_max solo "$out/parked.cls");" \
	"pool 0's threads-woken since boot: $woken"
check "parked: one thread serves solo, 98 to 101 calls in each second from 8 s on; threads-max 1" \
	eval 'echo "$windows" | tr , "\n" | sed -n "9,66p" | awk "\$1 < 98 || \$1 > 101 { bad = 1 } END { exit bad || NR < 50 }" &&
	      [ "$(thr_max solo "$out/parked.cls")" = 1 ]'
check "parked: the pool at min, 2, when its first call came (sampled $conn_s_min to $conn_s_max; changes: $conn_line)" \
	eval '[ "$conn_s_max" -le 2 ] && [ "$conn_top" -le 2 ]'
check "parked: no thread started for the parked class's work in 60 s ($calls_starts starts, at $calls_first to $calls_last ms)" \
	[ "$calls_starts" = 0 ]
check "parked: the pool stays at min, 2, while only the parked class has work (sampled $calls_s_min to $calls_s_max)" \
	eval '[ "$calls_s_min" = 2 ] && [ "$calls_s_max" = 2 ]'
check "parked: back at 2 after the load ($(nfsd_threads))" [ "$(nfsd_threads)" = 2 ]

# 4. The kernel's log, over all of it.
kernel_log > "$out/dmesg"
pattern='WARNING:|\<BUG:|possible circular locking|inconsistent lock state|suspicious RCU usage|sleeping function called from invalid context|list_(add|del) corruption|ODEBUG:|refcount_t:|Oops|Kernel panic|Call Trace'
check "dmesg: no WARNING, BUG, lockdep or RCU report, list corruption, refcount_t or Call Trace" \
	eval '! grep -qE "$pattern" "$out/dmesg"' ||
	grep -E -B2 -A10 "$pattern" "$out/dmesg" | head -60 | sed 's/^/# /'
tap_done
