#!/bin/bash
# guest-args: --time-travel
# guest-only: uml: its figures are exact only in time-travel; under TCG they are noise
# Inside the guest: a class's thread limit (issue 11), end to end through
# nfsfair-ctl, nfsfaird and the real nfsd.
#
#  1. The limit through the tools: -N/-E --limit, classes (text and JSON),
#     save and restore (a file without --limit clears one), monitor,
#     nfsfaird's `limit:`, the kernel's own bound (8192) through ynl.
#  2. The issue's scenario: 16 nfsd threads; class bulk, limit 4, with 16
#     connections from 127.0.0.2 against two 1-connection clients
#     (127.0.0.3, .4, per-host), all backlogged with GETATTRs the hold hook
#     keeps 10 ms. bulk never has more than 4 threads serving: the
#     kernel's threads-max, the threads it shows while the load runs, and
#     the load's own figure (its ops/s x 10 ms is the mean number of its
#     calls being served) all say so. It gets 4/16 of what nfsd serves,
#     nfsd still serves with all 16, the other two split the rest, and the
#     round passed over bulk (limit-skips, time at limit). stats, stats
#     --pools and --openmetrics show it.
#  3. The hard cap: bulk alone still gets 4 threads' worth (400 ops/s),
#     not 16.
#  4. Raised live under that load (-E bulk --limit 0): bulk takes all 16.
#  5. No debt (issue 20): a 16-connection hog and a 1-connection client,
#     per-host, each half; 3 s in, the hog is put in class bulk, limit 4;
#     3 s later the limit is lifted. Counted in windows of 250 ms: 200
#     calls each before, 100 against 300 while limited, and 200 each
#     again in every window after the lift. A class that came back with
#     the turns its limit held it from would take all 400 a window for
#     seconds and leave the client none.
#
# Time-travel (the guest-args line): only the hold hook's sleeps cost
# guest time, so 16 threads serve exactly 1600 GETATTRs a second and the
# figures repeat run to run. Where a bound is exact it is checked to the
# call; a share within a point or two, for the calls in flight at the
# edges of the measured time. Builds nothing: run `make -C tests/load`
# and `make userspace` on the host first.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/uml/guest-lib.sh"

ctl=$top/cli/nfsfair-ctl
nfsfaird=$top/daemon/nfsfaird
load=$top/tests/load/nfsfair-load
out=/run/nfsfair/class-limit
mkdir -p "$out"

threads=16 limit=4 hold_us=10000
full=$((threads * 1000000 / hold_us))		# ops/s with every thread held
capped=$((limit * 1000000 / hold_us))		# ops/s with 4

# The guest keeps no AVX state across thread switches (kernel/backport-6.12/harness/0001; 6.12 only).
promtool() { GODEBUG=cpu.avx=off,cpu.avx2=off command promtool "$@"; }

# json FILE EXPR: EXPR (Python over the document in FILE as r, with
# g(NAME) the load report's group NAME and k(NAME) the class NAME of a
# classes --json) is true; the document in the log when it is not.
json() {
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
g = lambda n: [x for x in r["load"]["groups"] if x["name"] == n][0] if "load" in r else \
	[x for x in r["groups"] if x["name"] == n][0]
k = lambda n: [x for x in r if x["name"] == n][0]
sys.exit(not eval("(" + sys.argv[2] + ")"))' "$1" "$2" || { diag "$1: $(head -c 3000 "$1")"; false; }
}

# jsonv FILE EXPR: print EXPR over the document in FILE as r.
jsonv() {
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$1" "$2" 2>&1
}

# field CLASS FIELD: FIELD of CLASS in classes -v --json now.
field() {
	"$ctl" classes -v --json | python3 -c 'import json, sys
print([c for c in json.load(sys.stdin) if c["name"] == sys.argv[1]][0][sys.argv[2]])' "$1" "$2"
}
bulk_field() { field bulk "$1"; }

# sample_threads FILE: every 50 ms of guest time until killed, bulk's
# threads serving now, one line each.
sample_threads() {
	while :; do
		bulk_field threads >> "$1" 2> /dev/null
		sleep 0.05
	done
}

# edit_at NS CMD...: at CLOCK_MONOTONIC NS, run the edit CMD; edit_from
# and edit_to bracket it.
edit_at() {
	sleep_until "$1"
	shift
	edit_from=$(mono)
	"$@"
	edit_to=$(mono)
}

# load_ok NAME: wait for the background load $pid, its report in
# $out/NAME.json: it ran with no errors.
load_ok() {
	report=$out/$1
	wait "$pid"
	rc=$?
	check "$1: the load ran, no errors" eval '[ $rc = 0 ] && json "$report.json" "r[\"total_errors\"] == 0"' ||
		diag "$(cat "$report.err")"
}

require "tests/load/nfsfair-load is built" test -x "$load"
require "nfsd starts with $threads threads" nfsd_start $threads
for a in 2 3 4 9; do add_source_addr 127.0.0.$a; done

# 1. The limit through the tools.
if ! "$ctl" -N probe --limit 1 2> "$out/probe.err"; then
	diag "-N probe --limit 1: $(cat "$out/probe.err")"
	check "this kernel takes a class limit" false
	tap_done
	exit 1
fi
"$ctl" -X probe
require "-N bulk --limit 4" "$ctl" -N bulk --limit $limit
check "classes: bulk, weight 1, limit 4, no rule" eval '"$ctl" classes | grep -qE "^bulk +1 +4 +0$"'
"$ctl" classes --json > "$out/classes.json"
check "classes --json: bulk's limit 4" json "$out/classes.json" 'k("bulk")["limit"] == 4'
check "-E bulk --weight 2: the limit stays" eval \
	'"$ctl" -E bulk --weight 2 && [ "$(bulk_field weight) $(bulk_field limit)" = "2 4" ]'
check "-E bulk --limit 0: no limit, the weight stays" eval \
	'"$ctl" -E bulk --limit 0 && [ "$(bulk_field weight) $(bulk_field limit)" = "2 0" ]'
check "classes shows no limit as -" eval '"$ctl" classes | grep -qE "^bulk +2 +- +0$"'
check "-E bulk --limit 4 --weight 1: both" eval \
	'"$ctl" -E bulk --limit 4 --weight 1 && [ "$(bulk_field weight) $(bulk_field limit)" = "1 4" ]'
check "-N free: no limit unless asked" eval '"$ctl" -N free && [ "$(field free limit)" = 0 ]'
check "-E free --limit 8192, the most" eval \
	'"$ctl" -E free --limit 8192 && "$ctl" classes | grep -qE "^free +1 +8192 +0$"'
# The kernel's own bound, past the tool's: ynl sends what it is given.
check "ynl class-set limit 7: taken" eval \
	'ynl --do class-set --json "{\"name\": \"free\", \"limit\": 7}" > /dev/null &&
	 [ "$(field free limit)" = 7 ]'
check "ynl class-set limit 8193: refused, the limit stays 7" eval \
	'! ynl --do class-set --json "{\"name\": \"free\", \"limit\": 8193}" > "$out/ynl.out" 2>&1 &&
	 [ "$(field free limit)" = 7 ]'
diag "ynl limit 8193: $(tail -n 1 "$out/ynl.out")"
require "-A -s 127.0.0.2 -j bulk" "$ctl" -A -s 127.0.0.2 -j bulk
require "-A -s 127.0.0.0/8 -j per-host" "$ctl" -A -s 127.0.0.0/8 -j per-host

"$ctl" save > "$out/saved"
check "save: -N bulk --weight 1 --limit 4; no --limit for a class without one" eval \
	'grep -qx -- "-N bulk --weight 1 --limit 4" "$out/saved" &&
	 "$ctl" -E free --limit 0 && "$ctl" save | grep -qx -- "-N free --weight 1"' ||
	diag "$(cat "$out/saved")"
sed 's/^-N bulk .*/-N bulk --weight 1/' "$out/saved" > "$out/nolimit"
check "restore of a file without bulk's --limit clears it" eval \
	'"$ctl" restore "$out/nolimit" && [ "$(bulk_field limit)" = 0 ]'
check "restore of the saved file sets it again" eval \
	'"$ctl" restore "$out/saved" && [ "$(bulk_field limit)" = 4 ]'
sed 's/^-N bulk .*/-N bulk --weight 1 --limit 7/' "$out/saved" > "$out/seven"
check "restore --noflush -N bulk --limit 7, then the saved file: 7, then 4" eval \
	'"$ctl" restore --noflush "$out/seven" && [ "$(bulk_field limit)" = 7 ] &&
	 "$ctl" restore "$out/saved" && [ "$(bulk_field limit)" = 4 ]'
"$ctl" -X free

# monitor: a limit change is a class-set, with the old limit. The limit
# goes up until monitor prints a line: then it was listening.
"$ctl" monitor --count 1 > "$out/monitor" 2>&1 &
mon=$!
for l in $(seq 5 60); do
	"$ctl" -E bulk --limit "$l"
	[ -s "$out/monitor" ] && break
	sleep 0.1
done
wait "$mon"
check "monitor: class-set bulk weight 1 limit N (was N-1)" \
	grep -qE "^generation [0-9]+ class-set bulk weight 1 limit ([0-9]+) \(was [0-9]+\)$" "$out/monitor" ||
	diag "monitor: $(cat "$out/monitor")"
"$ctl" -E bulk --limit $limit

# nfsfaird: limit: in the file, changed, dropped; its own origin and class.
ydir=$out/yaml
mkdir -p "$ydir/conf.d"
yaml() {	# yaml [LIMIT-LINE]: a class yamlcls for 127.0.0.9, with that line
	printf 'origin: 20\nclasses:\n  - name: yamlcls\n%s    members: [127.0.0.9]\n' \
		"${1:+    $1
}" > "$ydir/nfsfair.yaml"
	"$nfsfaird" --once --state-dir "$ydir/state" -c "$ydir/nfsfair.yaml" -d "$ydir/conf.d" \
		>> "$ydir/log" 2>&1
}
yamlcls() { field yamlcls limit; }
check "nfsfaird: limit: 3 makes yamlcls with limit 3" eval 'yaml "limit: 3" && [ "$(yamlcls)" = 3 ]'
check "nfsfaird: limit: 5 changes it" eval 'yaml "limit: 5" && [ "$(yamlcls)" = 5 ]'
check "nfsfaird: no limit: clears it" eval 'yaml && [ "$(yamlcls)" = 0 ]'
check "nfsfaird: bulk's limit is not its business" eval '[ "$(bulk_field limit)" = 4 ]'
diag "nfsfaird: $(tail -n 3 "$ydir/log" | tr '\n' ' ')"

# 2. Backlogged: bulk 16 connections, one and two 1 each, 16 deep.
backlog=(--group bulk:127.0.0.2:16:16 --group one:127.0.0.3:1:16 --group two:127.0.0.4:1:16
	 --proc getattr --hold-us "$hold_us" --warmup 1 --duration 6 --timeout 120 --json)
"$ctl" -Z
: > "$out/threads.backlog"
"$load" "${backlog[@]}" > "$out/backlog.json" 2> "$out/backlog.err" &
pid=$!
sleep 2
sample_threads "$out/threads.backlog" &
sampler=$!
"$ctl" stats -w 1 --json > "$out/stats.json"
"$ctl" stats -w 1 > "$out/stats.txt"
"$ctl" stats --pools -w 1 --json > "$out/pools.json"
"$ctl" stats --pools -w 1 > "$out/pools.txt"
"$ctl" stats --openmetrics > "$out/om"
wait "$pid"
rc=$?
kill "$sampler"
wait "$sampler" 2> /dev/null
"$ctl" classes -v --json > "$out/after-backlog.json"
"$ctl" classes -v > "$out/after-backlog.txt"
sed 's/^/# /' "$out/after-backlog.txt"
diag "backlog: $(jsonv "$out/backlog.json" '", ".join("%s %d ops %.1f ops/s %.1f%%" % (g["name"],
	g["ops"], g["ops_per_s"], g["share_pct"]) for g in r["groups"]) + ", total %.1f ops/s" % r["total_ops_per_s"]')"
check "backlog: the load ran, no errors" eval \
	'[ $rc = 0 ] && json "$out/backlog.json" "r[\"total_errors\"] == 0"' ||
	diag "$(cat "$out/backlog.err")"
check "backlog: the kernel's threads-max for bulk is 4" \
	json "$out/after-backlog.json" 'k("bulk")["threads-max"] == 4'
n=$(sort -n "$out/threads.backlog" | tail -n 1)
check "backlog: bulk's threads, sampled $(wc -l < "$out/threads.backlog") times, never past 4 (max $n)" \
	eval '[ -s "$out/threads.backlog" ] && [ "$n" -le 4 ]'
check "backlog: ... and at 4 some of the time" [ "${n:-0}" -eq 4 ]
inservice=$(jsonv "$out/backlog.json" "round(r['groups'][0]['ops_per_s'] * $hold_us / 1e6, 3)")
check "backlog: bulk's calls in service, its ops/s x 10 ms, 4 or fewer ($inservice)" \
	json "$out/backlog.json" "g('bulk')['ops'] <= $capped * r['duration_s'] + $limit"
check "backlog: bulk gets 4/16 of nfsd: 23 to 25.5%" \
	json "$out/backlog.json" '23 <= g("bulk")["share_pct"] <= 25.5'
check "backlog: nfsd serves with all 16 threads: 1550 to $((full + 5)) ops/s" \
	json "$out/backlog.json" "1550 <= r['total_ops_per_s'] <= $full + 5"
check "backlog: the other two split the rest, 36 to 39% each, within 2 points" \
	json "$out/backlog.json" 'all(36 <= g(n)["share_pct"] <= 39 for n in ("one", "two")) and
				  abs(g("one")["share_pct"] - g("two")["share_pct"]) <= 2'
check "backlog: the round passed over bulk (limit-skips > 0)" \
	json "$out/after-backlog.json" 'k("bulk")["limit-skips"] > 0'
check "backlog: bulk spent time at its limit (limit-time-us > 1 s)" \
	json "$out/after-backlog.json" 'k("bulk")["limit-time-us"] > 1000000'
check "classes -v: bulk's row has threads-max 4 and its skips" eval \
	'grep -qE "^bulk +1 +4 +1 +[0-9]+[KM]? +[0-9]+ +[0-9]+ +[0-4] +4 +[1-9][0-9]*[KM]? +[0-9.]+s$" "$out/after-backlog.txt"'
check "stats --json: bulk's limit 4, threads-max 4, skips in the second" \
	json "$out/stats.json" '[c for c in r["classes"] if c["class"] == "bulk"][0]["limit"] == 4 and
				[c for c in r["classes"] if c["class"] == "bulk"][0]["threads-max"] == 4 and
				[c for c in r["classes"] if c["class"] == "bulk"][0]["limit-skips"] > 0'
check "stats: bulk's threads as 4/4 (THREADS/LIMIT), in 80 columns" eval \
	'grep -qE "^bulk .* 4/4$" "$out/stats.txt" && [ "$(wc -L < "$out/stats.txt")" -le 80 ]' ||
	diag "$(cat "$out/stats.txt")"
check "stats --pools --json: one pool; bulk 23 to 27% of it, no skew" \
	json "$out/pools.json" 'len(r["pools"]) == 1 and
		[c for c in r["clients"] if c.get("class") == "bulk"][0]["pools"][0]["share-pct"] >= 23 and
		[c for c in r["clients"] if c.get("class") == "bulk"][0]["pools"][0]["share-pct"] <= 27 and
		not any(c["skew"] for c in r["clients"])'
check "stats --pools --json: the pool's shares add up to 100" \
	json "$out/pools.json" 'abs(sum(c["pools"][0]["share-pct"] for c in r["clients"]) - 100) < 0.5'
check "stats --pools: a row for bulk in pool 0, and no skew" eval \
	'grep -qE "^class bulk +0 +2[0-9]\.[0-9]%" "$out/pools.txt" && grep -q "^no skew: " "$out/pools.txt"' ||
	diag "$(cat "$out/pools.txt")"
out_om=$(promtool check metrics < "$out/om" 2>&1)
check "stats --openmetrics under load: promtool passes it" eval \
	'[ -z "$out_om" ] && [ "$(tail -n 1 "$out/om")" = "# EOF" ]' || diag "promtool: $out_om"
bulk='{namespace="",class="bulk"}'
check "openmetrics: nfsfair_class_limit 4, threads_max 4, skips and seconds growing" eval \
	'grep -qx "nfsfair_class_limit$bulk 4" "$out/om" &&
	 grep -qx "nfsfair_class_threads_max$bulk 4" "$out/om" &&
	 grep -qE "^nfsfair_class_limit_skips_total$bulk [1-9]" "$out/om" &&
	 grep -qE "^nfsfair_class_limit_seconds_total$bulk [0-9]+\.[0-9]{6}$" "$out/om"' ||
	diag "$(grep bulk "$out/om")"
check "openmetrics: bulk's dispatches in pool 0" \
	grep -qE '^nfsfair_class_pool_dispatches_total\{namespace="",class="bulk",pool="0"\} [1-9]' "$out/om"

# 3. bulk alone: still 4 threads, 400 ops/s, a quarter of what 16 give.
alone=(--group bulk:127.0.0.2:16:16 --proc getattr --hold-us "$hold_us" --warmup 1 --duration 5
       --timeout 120 --json)
"$ctl" -Z
"$load" "${alone[@]}" > "$out/alone.json" 2> "$out/alone.err"
rc=$?
"$ctl" classes -v --json > "$out/after-alone.json"
diag "alone: $(jsonv "$out/alone.json" '"%d ops, %.1f ops/s" % (r["total_ops"], r["total_ops_per_s"])')"
check "alone: the load ran, no errors" eval \
	'[ $rc = 0 ] && json "$out/alone.json" "r[\"total_errors\"] == 0"' || diag "$(cat "$out/alone.err")"
check "alone: threads-max 4, though 12 threads are idle" \
	json "$out/after-alone.json" 'k("bulk")["threads-max"] == 4'
check "alone: no more than 4 threads' worth ($capped ops/s, to the call)" \
	json "$out/alone.json" "r['total_ops'] <= $capped * r['duration_s'] + $limit"
check "alone: and all of it: 390 ops/s or more, 24 to 25.1% of 16 threads' $full" \
	json "$out/alone.json" "r['total_ops_per_s'] >= 390 and
				24 <= 100.0 * r['total_ops_per_s'] / $full <= 25.1"

# 4. Raised live: the same load, -E bulk --limit 0 three seconds into it.
live=(--group bulk:127.0.0.2:16:16 --proc getattr --hold-us "$hold_us" --warmup 1 --duration 6
      --window-ms 500 --timeout 120 --json)
"$ctl" -Z
t0=$(mono)
"$load" "${live[@]}" > "$out/live.json" 2> "$out/live.err" &
pid=$!
edit_at $((t0 + 4000000000)) "$ctl" -E bulk --limit 0
before=$edit_from after=$edit_to
load_ok live
# windows wholly before the change, and from the first after it
split=$(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
w, t0, t1 = r["window_ms"] * 1e6, int(sys.argv[2]) - r["start_ns"], int(sys.argv[3]) - r["start_ns"]
win = r["groups"][0]["windows"]
pre = [x for i, x in enumerate(win) if (i + 1) * w <= t0]
post = [x for i, x in enumerate(win) if i * w >= t1]
print(max(pre or [0]), min(pre or [0]), min(post or [0]), len(pre), len(post))' "$out/live.json" "$before" "$after")
read -r pre_max pre_min post_min npre npost <<< "$split"
diag "live: windows of 500 ms: $npre before the change, at most $pre_max calls; $npost after, at least $post_min"
check "live: before, 4 threads' worth a window (at most $((capped / 2 + limit)))" \
	eval '[ "$npre" -ge 4 ] && [ "$pre_max" -le $((capped / 2 + limit)) ] && [ "$pre_min" -ge 190 ]'
check "live: after -E bulk --limit 0, 16 threads' worth (700 or more a window)" \
	eval '[ "$npost" -ge 3 ] && [ "$post_min" -ge 700 ]'
check "live: threads-max now past 4 (all 16)" eval '[ "$(bulk_field threads-max)" -gt 4 ]'
check "live: classes shows no limit" eval '"$ctl" classes | grep -qE "^bulk +1 +- +1$"'

# 5. No debt after a lifted limit.
"$ctl" -F
"$ctl" -A -s 127.0.0.0/8 -j per-host
"$ctl" -E bulk --limit $limit
lift=(--group hog:127.0.0.2:16:4 --group one:127.0.0.3:1:16 --proc getattr --hold-us "$hold_us"
      --warmup 1 --duration 9 --window-ms 250 --timeout 120 --json)
t0=$(mono)
"$load" "${lift[@]}" > "$out/lift.json" 2> "$out/lift.err" &
pid=$!
edit_at $((t0 + 4000000000)) "$ctl" -I 1 -s 127.0.0.2 -j bulk
limited=$edit_from limited_done=$edit_to
edit_at $((t0 + 7000000000)) "$ctl" -E bulk --limit 0
lifted=$edit_from lifted_done=$edit_to
load_ok lift
# phase FROM TO [SKIP]: "min max n" of one's windows wholly between FROM
# and TO (CLOCK_MONOTONIC ns; 0: the measured time's end), the first
# SKIP of them left out, then the hog's min and max.
phase() {
	local one hog
	one=$(window_stats "$out/lift.json" one "$1" "$2" "${3:-0}")
	hog=$(window_stats "$out/lift.json" hog "$1" "$2" "${3:-0}")
	echo "$one ${hog% *}"
}
read -r pre_min pre_max npre hpre_min hpre_max <<< "$(phase "$t0" "$limited")"
# The hog's connections move to bulk each at its next read: the first
# window after the edit is a mix.
read -r lim_min lim_max nlim hlim_min hlim_max <<< "$(phase "$limited_done" "$lifted" 1)"
read -r post_min post_max npost hpost_min hpost_max <<< "$(phase "$lifted_done" 0)"
diag "lift: windows of 250 ms, the client's calls (the hog's): before $pre_min-$pre_max ($hpre_min-$hpre_max) in $npre," \
	"limited $lim_min-$lim_max ($hlim_min-$hlim_max) in $nlim, after the lift $post_min-$post_max ($hpost_min-$hpost_max) in $npost"
diag "lift: the client's windows: $(jsonv "$out/lift.json" '" ".join(map(str, r["groups"][1]["windows"]))')"
check "lift: before the limit, half each: 195 to 205 calls a window for the client" \
	eval '[ "$npre" -ge 8 ] && [ "$pre_min" -ge 195 ] && [ "$pre_max" -le 205 ]'
check "lift: limited to 4, the hog gets 100 a window and the client 300 (to 5 calls)" \
	eval '[ "$nlim" -ge 8 ] && [ "$hlim_max" -le 105 ] && [ "$lim_min" -ge 295 ]'
check "lift: in every window after the lift, the client gets its half again (195 to 205)" \
	eval '[ "$npost" -ge 8 ] && [ "$post_min" -ge 195 ] && [ "$post_max" -le 205 ]'
tap_done
