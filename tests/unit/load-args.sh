#!/bin/bash
# On the host, no guest: nfsfair-load's option parsing refuses bad
# arguments with exit 2 and a message naming them, the calls it encodes
# are byte for byte what RFC 5531, RFC 1813 and RFC 8881 say, and against
# a stand-in server (load-fake-server.py) it copes with replies split into
# fragments and dribbled out a few bytes at a time, replies out of order,
# RPC-level errors, a server that hangs up and one that never answers, and
# --window-ms splits each group's completions over the measured time.
# Per-group holds (issue 40): a group's HOLD, or list of holds cycled call
# by call, reaches the wire, and its completions' holds are its
# thread-time, in the totals and the windows; --hold-switch, --start and
# --pause change a group's calls at their times.
# For NFSv4.1 (--proc v41) the stand-in grants 5 slots a session and
# checks every SEQUENCE's session, binding, slot and seqid: the client
# spreads its connections over as many sessions as it takes, binds the
# others, destroys all at the end, and stops with a clear error on a
# protocol error, a handle that is not stale or too few slots.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"

load=$top/tests/load/nfsfair-load
tmp=$(mktemp -d)
server_pid=
cleanup() {
	[ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

require "nfsfair-load builds (make -C tests/load)" make -s -C "$top/tests/load"

# fails_with DESC NEEDLE ARGS...: exit 2, and stderr names NEEDLE.
fails_with() {
	local desc=$1 needle=$2 rc
	shift 2
	"$load" "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -qF -- "$needle" "$tmp/err"; then
		check "$desc" true
	else
		check "$desc" false
		diag "exit $rc, stderr: $(cat "$tmp/err")"
	fi
}

ok_group=(--group a:127.0.0.2:1:4)

check "--help prints the usage and exits 0" \
	eval '"$load" --help | grep -q -- "--group NAME:SRCADDR:CONNS:DEPTH\[:HOLD\]"'
fails_with "no --group: exit 2 naming --group" "--group"
fails_with "--group with three fields: exit 2 naming it" "--group 'a:127.0.0.2:1'" \
	--group a:127.0.0.2:1
fails_with "--group with a bad source: exit 2 naming it" "SRCADDR 'host.example'" \
	--group a:host.example:1:4
fails_with "--group with 0 connections: exit 2 naming CONNS" "CONNS" --group a:127.0.0.2:0:4
fails_with "--group with depth x: exit 2 naming DEPTH" "DEPTH" --group a:127.0.0.2:1:x
fails_with "--group with an empty name: exit 2" "NAME" --group :127.0.0.2:1:4
fails_with "two groups named a: exit 2" "already is a group 'a'" \
	"${ok_group[@]}" --group a:127.0.0.3:1:4
fails_with "--proc nfs4: exit 2 naming --proc" "--proc: 'nfs4'" "${ok_group[@]}" --proc nfs4
fails_with "--proc v4: exit 2 naming --proc and the choices" \
	"--proc: 'v4' is not null, getattr or v41" "${ok_group[@]}" --proc v4
fails_with "--proc V41 (case matters): exit 2 naming --proc" "--proc: 'V41'" \
	"${ok_group[@]}" --proc V41
fails_with "--proc v41 still needs a --group: exit 2 naming --group" "--group" --proc v41
check "--help documents --proc v41 and its sessions" \
	eval '"$load" --help | grep -q -- "--proc null|getattr|v41" &&
	      "$load" --help | grep -q BIND_CONN_TO_SESSION'
fails_with "--server without its argument: exit 2 naming --server" "'--server'" \
	"${ok_group[@]}" --server
fails_with "--server not an address: exit 2 naming it" "--server: 'nfs.example'" \
	"${ok_group[@]}" --server nfs.example
fails_with "--port 70000: exit 2 naming --port" "--port: '70000'" "${ok_group[@]}" --port 70000
fails_with "--hold-us -1: exit 2 naming --hold-us" "--hold-us: '-1'" \
	"${ok_group[@]}" --hold-us -1
fails_with "--jitter 150: exit 2 naming --jitter" "--jitter: '150'" \
	"${ok_group[@]}" --jitter 150
fails_with "--duration 0: exit 2 naming --duration" "--duration: '0'" \
	"${ok_group[@]}" --duration 0
fails_with "--duration longer than --timeout: exit 2" "--timeout 5" \
	"${ok_group[@]}" --duration 10 --timeout 5
fails_with "an unknown option: exit 2 naming it" "'--frobnicate'" \
	"${ok_group[@]}" --frobnicate
fails_with "a stray argument: exit 2 naming it" "'stray'" "${ok_group[@]}" stray
fails_with "--burst without --burst-group: exit 2" "--burst-group" "${ok_group[@]}" --burst 10
fails_with "--burst-group naming no group: exit 2 naming it" "'zz'" \
	"${ok_group[@]}" --burst 10 --burst-group zz
fails_with "IPv4 source with an IPv6 server: exit 2" "same family" \
	"${ok_group[@]}" --server ::1
fails_with "--window-ms 0: exit 2 naming --window-ms" "--window-ms: '0'" \
	"${ok_group[@]}" --window-ms 0
fails_with "--window-ms x: exit 2 naming --window-ms" "--window-ms: 'x'" \
	"${ok_group[@]}" --window-ms x
fails_with "--window-ms with --burst: exit 2 naming --window-ms" "--window-ms: counts" \
	"${ok_group[@]}" --window-ms 100 --burst 10 --burst-group a
fails_with "--window-ms 1 over an hour: too many windows, exit 2" "--window-ms: 1 ms makes" \
	"${ok_group[@]}" --window-ms 1 --duration 3600 --timeout 4000
check "--help documents --window-ms" eval '"$load" --help | grep -q -- "--window-ms N"'

# Per-group holds and schedules: refusals name the argument and the field.
fails_with "--group with HOLD x: exit 2 naming HOLD" "--group 'a:127.0.0.2:1:4:x': HOLD" \
	--group a:127.0.0.2:1:4:x
fails_with "--group with an empty HOLD: exit 2 naming HOLD" "HOLD '': expected US or US,US" \
	--group a:127.0.0.2:1:4:
fails_with "--group with HOLD 1000,,5: exit 2 naming HOLD" "HOLD '1000,,5'" \
	--group a:127.0.0.2:1:4:1000,,5
fails_with "--group with HOLD -1: exit 2 naming it" "'-1' is not a whole number of us" \
	--group a:127.0.0.2:1:4:-1
fails_with "--group with HOLD 4294967296: exit 2 naming it" "'4294967296' is not a whole" \
	--group a:127.0.0.2:1:4:4294967296
fails_with "--group with 65 holds: exit 2" "more than 64 holds" \
	--group "a:127.0.0.2:1:4:$(seq -s, 65)"
fails_with "--group with six fields: exit 2 naming the form" \
	"'a:127.0.0.2:1:4:1000:5': expected NAME:SRCADDR:CONNS:DEPTH[:HOLD]" \
	--group a:127.0.0.2:1:4:1000:5
fails_with "--group a:fd00::1:2:1:4 could be read two ways: exit 2 asking for brackets" \
	"Put an IPv6 SRCADDR in brackets" --group a:fd00::1:2:1:4 --server ::1
fails_with "--group 'a:[::1:1:4' without its ']': exit 2" "needs its ']'" \
	--group 'a:[::1:1:4' --server ::1
fails_with "--hold-switch naming no group: exit 2 naming it" "--hold-switch 'zz:1:5': no --group" \
	"${ok_group[@]}" --hold-switch zz:1:5
fails_with "--hold-switch before its --group still finds it, past --duration: exit 2" \
	"--hold-switch 'a:20:5': 20 s is past --duration 10 s" --hold-switch a:20:5 "${ok_group[@]}"
fails_with "--hold-switch with SECONDS x: exit 2 naming SECONDS" "--hold-switch 'a:x:5': SECONDS" \
	"${ok_group[@]}" --hold-switch a:x:5
fails_with "--hold-switch without HOLD: exit 2 naming the form" "expected NAME:SECONDS:HOLD" \
	"${ok_group[@]}" --hold-switch a:1
fails_with "--hold-switch with HOLD y: exit 2 naming HOLD" "--hold-switch 'a:1:y': HOLD" \
	"${ok_group[@]}" --hold-switch a:1:y
fails_with "--hold-switch with --burst: exit 2" "--hold-switch: changes a backlogged run" \
	"${ok_group[@]}" --hold-switch a:1:5 --burst 3 --burst-group a
fails_with "--start NAME:S:X: exit 2 naming the form" "--start 'a:1:2': expected NAME:SECONDS" \
	"${ok_group[@]}" --start a:1:2
fails_with "two --start for one group: exit 2 naming both" "already has --start 'a:1'" \
	"${ok_group[@]}" --start a:1 --start a:2
fails_with "--start at --duration: exit 2" "--start 'a:10': 10 s is past --duration 10 s" \
	"${ok_group[@]}" --start a:10
fails_with "--pause 3 to 2: exit 2 naming both" "--pause 'a:3:2': FROM 3 s is not before TO 2 s" \
	"${ok_group[@]}" --pause a:3:2
fails_with "--pause past --duration: exit 2" "--pause 'a:1:20': 20 s is past --duration" \
	"${ok_group[@]}" --pause a:1:20
fails_with "--pause with TO z: exit 2 naming TO" "--pause 'a:1:z': TO" "${ok_group[@]}" --pause a:1:z
check "--help documents HOLD, --hold-switch, --start, --pause and thread-time" \
	eval '"$load" --help | grep -q -- "--hold-switch NAME:SECONDS:HOLD" &&
	      "$load" --help | grep -q -- "--start NAME:SECONDS" &&
	      "$load" --help | grep -q -- "--pause NAME:FROM:TO" &&
	      "$load" --help | grep -q "share of thread-time"'

# The wire format, word by word:
#   record mark (last fragment | 92), xid, CALL, RPC version 2,
#   program 100003, version 3, procedure 1 (GETATTR),
#   AUTH_SYS, 32 bytes: stamp 0, machine name "nfsfair-load" (12 bytes),
#   uid 0, gid 0, no gids; verifier AUTH_NONE, empty;
#   handle: length 16, "NFSFAIR" 0x01, hold (big-endian u32), 0.
auth="00000001 00000020 00000000 0000000c 6e667366 6169722d 6c6f6164"
auth+=" 00000000 00000000 00000000 00000000 00000000"
call="01000000 00000000 00000002 000186a3 00000003"
expect_getattr="8000005c $call 00000001 $auth 00000010 4e465346 41495201 00002710 00000000"
expect_hold="8000005c $call 00000001 $auth 00000010 4e465346 41495201 12345678 00000000"
expect_null="80000048 $call 00000000 $auth"

check "GETATTR with the hold handle (10000 us) encodes as expected" \
	eval '[ "$("$load" --dump-request)" = "$expect_getattr" ]'
check "the hold is big-endian in bytes 8..11 of the handle (--hold-us 305419896)" \
	eval '[ "$("$load" --dump-request --hold-us 305419896)" = "$expect_hold" ]'
check "NULL encodes as expected: no arguments" \
	eval '[ "$("$load" --dump-request --proc null)" = "$expect_null" ]'
check "a group's HOLD is its first call's hold (a:...:4:305419896,7)" \
	eval '[ "$("$load" --dump-request --group a:127.0.0.2:1:4:305419896,7)" = "$expect_hold" ]'
check "an IPv6 group in brackets takes a HOLD too (a:[::1]:1:4:305419896)" \
	eval '[ "$("$load" --dump-request --server ::1 --group "a:[::1]:1:4:305419896")" = "$expect_hold" ]'
check "an IPv6 group without brackets and without HOLD reads as before (a:::1:1:4)" \
	eval '[ "$("$load" --dump-request --server ::1 --group a:::1:1:4)" = "$expect_getattr" ]'

# NFSv4.1, RFC 8881: record mark (last fragment | 144), xid, CALL, RPC 2,
#   program 100003, version 4, procedure 1 (COMPOUND), the same AUTH_SYS;
#   tag empty, minor version 1, 2 operations;
#   SEQUENCE (53): session ID (16 bytes, 0 when dumped), seqid 1, slot 0,
#   highest slot 0, cachethis false;
#   PUTFH (22): the same hold handle as GETATTR's.
call4="01000000 00000000 00000002 000186a3 00000004 00000001"
seq4="00000000 00000001 00000002 00000035 00000000 00000000 00000000 00000000"
seq4+=" 00000001 00000000 00000000 00000000 00000016 00000010 4e465346 41495201"
expect_v41="80000090 $call4 $auth $seq4 00002710 00000000"
expect_v41_hold="80000090 $call4 $auth $seq4 12345678 00000000"
check "v41: COMPOUND { SEQUENCE, PUTFH of the hold handle } encodes as expected" \
	eval '[ "$("$load" --dump-request --proc v41)" = "$expect_v41" ]'
check "v41: the hold is big-endian in the PUTFH handle too (--hold-us 305419896)" \
	eval '[ "$("$load" --dump-request --proc v41 --hold-us 305419896)" = "$expect_v41_hold" ]'

# serve MODE: start the stand-in server; its port lands in $port.
serve() {
	[ -z "$server_pid" ] || { kill "$server_pid"; wait "$server_pid" 2>/dev/null; }
	rm -f "$tmp/port" "$tmp/first" "$tmp/first.events"
	python3 "$top/tests/unit/load-fake-server.py" "$1" "$tmp/port" "$tmp/first" &
	server_pid=$!
	# python starts slowly on a busy host: up to 30 s
	for _ in $(seq 300); do
		[ -s "$tmp/port" ] && break
		sleep 0.1
	done
	port=$(cat "$tmp/port" 2>/dev/null)
	[ -n "$port" ]
}

# run ARGS...: a short two-group run against the stand-in; JSON in
# $tmp/out, stderr in $tmp/err, exit status in $rc.
run() {
	"$load" --port "$port" --group a:127.0.0.1:1:4 --group b:127.0.0.2:2:3 \
		--warmup 0.2 --duration 0.5 --timeout 10 --json "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
}

# json EXPR: EXPR (Python, over the report as r) is true.
json() {
	python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(not eval(sys.argv[2]))' \
		"$tmp/out" "$1"
}

# group_is NAME EXPR: EXPR (Python, over group NAME's report as g) is true.
group_is() {
	json "[g for g in r['groups'] if g['name'] == '$1' and ($2)] != []"
}

ops_ok='all(g["ops"] > 0 and g["errors"] == 0 for g in r["groups"])'
shares='abs(sum(g["share_pct"] for g in r["groups"]) - 100) < 0.5'

require "stand-in server starts (plain)" serve plain
run --hold-us 0
check "plain: exit 0" [ "$rc" -eq 0 ]
check "plain: both groups complete calls, no errors" json "$ops_ok"
check "plain: shares add up to 100" json "$shares"
check "plain: the first call on the wire is the one --dump-request shows, xid and all" \
	grep -qxF -- "$("$load" --dump-request --hold-us 0)" "$tmp/first"
check "plain: without --window-ms, no windows in the report" \
	json '"window_ms" not in r and all("windows" not in g for g in r["groups"])'

# --window-ms: 0.5 s measured in 100 ms windows is 5 of them, in 200 ms
# windows 3 (the last one short); either way each group's windows add up
# to its ops, and the start is a CLOCK_MONOTONIC time.
windows_are() {	# windows_are N: N windows a group, adding up to its ops
	json "all(len(g['windows']) == $1 and sum(g['windows']) == g['ops'] for g in r['groups'])"
}
run --hold-us 0 --window-ms 100
check "--window-ms 100: exit 0" [ "$rc" -eq 0 ]
check "--window-ms 100: 5 windows a group, adding up to its ops" windows_are 5
check "--window-ms 100: window_ms, and start_ns on this machine's CLOCK_MONOTONIC" \
	json '(r["window_ms"] == 100 and
	       0 < __import__("time").monotonic_ns() - r["start_ns"] < 10e9)'
check "--window-ms 100: completions spread over the windows, not all in one" \
	json 'all(sum(1 for w in g["windows"] if w) >= 2 for g in r["groups"])'
run --hold-us 0 --window-ms 200
check "--window-ms 200: 3 windows, the last short, adding up to the ops" windows_are 3
"$load" --port "$port" "${ok_group[@]}" --hold-us 0 --warmup 0.1 --duration 0.3 --timeout 10 \
	--window-ms 100 > "$tmp/out" 2> "$tmp/err"
check "--window-ms in the text report: a line of 3 counts for the group" \
	grep -qE '^a, per 100 ms: [0-9]+ [0-9]+ [0-9]+$' "$tmp/out"

# Per-group holds against the stand-in (it answers at once, so these
# check what the report counts, not how long nfsd held anything): a's
# calls ask 1000 us, b's 3000; thread-time is each group's ops times its
# hold, the shares follow, and the total is the sum.
run --group c:127.0.0.3:1:2:1000 --group d:127.0.0.4:2:2:3000
check "own holds: exit 0" [ "$rc" -eq 0 ]
check "own holds: thread_s is ops x hold, for each group" \
	json 'all(abs(g["thread_s"] - g["ops"] * {"a": 0.01, "b": 0.01, "c": 0.001, "d": 0.003}[g["name"]]) < 1e-6
		  for g in r["groups"])'
check "own holds: thread_pct is each group's thread_s over the total's" \
	json 'all(abs(g["thread_pct"] - 100 * g["thread_s"] / r["total_thread_s"]) < 0.002
		  for g in r["groups"]) and abs(sum(g["thread_s"] for g in r["groups"]) - r["total_thread_s"]) < 1e-5'
check "own holds: each group's hold_us in the report, --hold-us for those without" \
	json '[g["hold_us"] for g in r["groups"]] == [[10000], [10000], [1000], [3000]]'
# One call outstanding cycling 1000 and 3000: completed calls alternate,
# so its thread-time is 2 ms a call, to one call's 1 ms.
"$load" --port "$port" --group m:127.0.0.1:1:1:1000,3000 --warmup 0.2 --duration 0.5 \
	--timeout 10 --json > "$tmp/out" 2> "$tmp/err"
check "a HOLD list is cycled call by call: 2 ms a call, to within one call" \
	json 'r["groups"][0]["ops"] > 10 and abs(r["groups"][0]["thread_s"] - r["groups"][0]["ops"] * 0.002) <= 0.001 + 1e-9'
# b starts 0.3 s in and a is quiet from 0.3 to 0.5 s, in 1 s measured
# by windows of 100 ms; a's hold goes from 1000 to 5000 us at 0.6 s.
# (On a busy host the stand-in may answer late: no window is required
# to hold a reply, and the replies to the calls a pause leaves out may
# fall in either window of the pause.)
"$load" --port "$port" --group a:127.0.0.1:1:4:1000 --group b:127.0.0.2:1:4 --start b:0.3 \
	--pause a:0.3:0.5 --hold-switch a:0.6:5000 --warmup 0.2 --duration 1 --window-ms 100 \
	--timeout 10 --json > "$tmp/out" 2> "$tmp/err"
rc=$?
check "--start, --pause, --hold-switch: exit 0" [ "$rc" -eq 0 ] || diag "stderr: $(cat "$tmp/err")"
check "--start b:0.3: no reply to b in windows 0-2, replies after" \
	group_is b 'g["windows"][:3] == [0, 0, 0] and sum(g["windows"][3:]) > 0'
check "--start b:0.3: start_s and first_ms (its first reply, under a second later)" \
	group_is b 'g["start_s"] == 0.3 and 0 <= g["first_ms"] < 1000'
check "--pause a:0.3:0.5: in windows 3 and 4, no more than the 4 calls it had out" \
	group_is a 'g["windows"][3] + g["windows"][4] <= 4 and sum(g["windows"][5:]) > 0'
check "--pause a:0.3:0.5: in the report" group_is a 'g["pauses"] == [[0.3, 0.5]]'
# thread-ms over replies: 1 ms a call before the switch, 5 after (the
# stand-in replies at once: a window's thread-time may take in a part of
# the holds of calls answered early in the next one)
ratio() {	# ratio FROM TO: a's thread-ms a reply in windows FROM to TO - 1
	echo "sum(g['windows_thread_ms'][$1:$2]) / max(1, sum(g['windows'][$1:$2]))"
}
check "--hold-switch a:0.6:5000: 1 ms a reply in windows 0-2, 5 ms in 7-9 (+-10%)" \
	group_is a "0.9 <= $(ratio 0 3) <= 1.1 and 4.5 <= $(ratio 7 10) <= 5.5" ||
	diag "$(cat "$tmp/out")"
check "--hold-switch: in the report" group_is a 'g["hold_switches"] == [{"at_s": 0.6, "hold_us": [5000]}]'
check "windows_thread_ms: one a window" \
	json 'all(len(g["windows_thread_ms"]) == len(g["windows"]) == 10 for g in r["groups"])'
"$load" --port "$port" --group a:127.0.0.1:1:4:1000,3000 --group b:127.0.0.2:1:4 --start b:0.1 \
	--pause a:0.1:0.2 --warmup 0.1 --duration 0.3 --window-ms 100 --timeout 10 > "$tmp/out" 2> "$tmp/err"
check "text report: a thread% column, each group's holds and schedule, thread-ms windows" \
	eval 'grep -qE "^group +source +conns +depth +ops +ops/s +share% +thread% +p50_ms" "$tmp/out" &&
	      grep -qx "a: hold 1000,3000 us, quiet from 0.1 to 0.2 s" "$tmp/out" &&
	      grep -qE "^b: hold 10000 us, starts at 0.1 s, first reply [0-9.]+ ms later$" "$tmp/out" &&
	      grep -qE "^a, thread-ms per 100 ms: [0-9.]+ [0-9.]+ [0-9.]+$" "$tmp/out"' ||
	diag "$(cat "$tmp/out")"

require "stand-in server starts (split)" serve split
run --proc null
check "split fragments, a few bytes per write: exit 0" [ "$rc" -eq 0 ]
check "split: both groups complete calls, no errors" json "$ops_ok"

require "stand-in server starts (reorder)" serve reorder
run
check "replies out of order: exit 0" [ "$rc" -eq 0 ]
check "reorder: both groups complete calls, no errors" json "$ops_ok"

require "stand-in server starts (burst)" serve plain
run --burst 20 --burst-group b --repeat 3
check "burst mode: exit 0" [ "$rc" -eq 0 ]
check "burst mode: three runs and their median" \
	json 'len(r["burst"]["runs_ms"]) == 3 and r["burst"]["median_ms"] > 0'
check "burst mode: group b completed 3 x 20 calls" \
	json '[g["ops"] for g in r["groups"] if g["name"] == "b"] == [60]'

require "stand-in server starts (deny)" serve deny
run
check "MSG_DENIED replies: exit 1" [ "$rc" -eq 1 ]
check "MSG_DENIED: reported on stderr" grep -q 'MSG_DENIED AUTH_ERROR' "$tmp/err"
check "MSG_DENIED: counted as errors, the rest as completions" \
	json 'all(g["errors"] > 0 and g["ops"] > 0 for g in r["groups"])'

require "stand-in server starts (badproc)" serve badproc
run
check "accept_stat PROC_UNAVAIL: exit 1, reported" \
	eval '[ "$rc" -eq 1 ] && grep -q "accept_stat PROC_UNAVAIL" "$tmp/err"'

require "stand-in server starts (close)" serve close
run
check "server hangs up: exit 1" [ "$rc" -eq 1 ]
check "server hangs up: the error names the connection" \
	grep -qE "127.0.0.1:$port: (the server closed the connection|recv: Connection reset)" \
	"$tmp/err"
check "server hangs up: the report is still printed" json '"groups" in r'

# run41 ARGS...: like run, --proc v41, groups a (1 connection x 4), b
# (3 x 3: 9 slots, more than one of the stand-in's sessions holds) and c
# (2 x 2: two connections sharing one session).
run41() {
	"$load" --port "$port" --proc v41 --group a:127.0.0.1:1:4 --group b:127.0.0.2:3:3 \
		--group c:127.0.0.3:2:2 --warmup 0.2 --duration 0.5 --timeout 10 "$@" \
		> "$tmp/out" 2> "$tmp/err"
	rc=$?
}

# events PATTERN: how many of the stand-in's v4.1 events match PATTERN.
events() {
	grep -cE -- "$1" "$tmp/first.events"
}

# refusals: say which of the stand-in's v4.1 answers were errors, and how often.
refusals() {
	diag "refused: $(grep error "$tmp/first.events" | sort | uniq -c | tr "\n" ";")"
}

require "stand-in server starts (v41)" serve v41
run41 --json
check "v41: exit 0" [ "$rc" -eq 0 ] || diag "stderr: $(cat "$tmp/err")"
check "v41: every group completes calls, no errors" json "$ops_ok"
check "v41: the report names the proc" json 'r["proc"] == "v41"'
check "v41: a (4 slots) fits one session of 4 slots" \
	group_is a 'g["sessions"] == 1 and g["slots"] == 4'
check "v41: b (9 slots) takes 3 sessions of 5, 5 and 3 slots, one connection each" \
	group_is b 'g["sessions"] == 3 and g["slots"] == 13'
check "v41: c's two connections share one session of 4 slots" \
	group_is c 'g["sessions"] == 1 and g["slots"] == 4'
check "v41: one EXCHANGE_ID per group, owners apart" \
	eval '[ "$(grep "^EXCHANGE_ID" "$tmp/first.events" | sort -u | wc -l)" -eq 3 ]'
creates="CREATE_SESSION asked 3 granted 3;CREATE_SESSION asked 4 granted 4;"
creates+="CREATE_SESSION asked 4 granted 4;CREATE_SESSION asked 6 granted 5;"
creates+="CREATE_SESSION asked 9 granted 5;"
check "v41: CREATE_SESSION asks for what is left: 4; 9, 6 and 3; 4" \
	eval '[ "$(grep "^CREATE_SESSION" "$tmp/first.events" | sort | tr "\n" ";")" = "$creates" ]'
check "v41: b's two and c's one other connections bind, to the fore channel" \
	[ "$(events '^BIND_CONN_TO_SESSION dir 1$')" -eq 3 ]
check "v41: no call the stand-in refused (binding, slot, seqid)" [ "$(events error)" -eq 0 ] ||
	refusals
check "v41: at the end, 5 sessions and 3 client IDs destroyed" \
	eval '[ "$(events "^DESTROY_SESSION$")" -eq 5 ] && [ "$(events "^DESTROY_CLIENTID$")" -eq 3 ]'
run41
check "v41: a second run against the same server: exit 0" [ "$rc" -eq 0 ]
check "v41: a second run's client owners are new ones" \
	eval '[ "$(grep "^EXCHANGE_ID" "$tmp/first.events" | sort -u | wc -l)" -eq 6 ]'
check "v41: the text report names v41 and the sessions" \
	eval 'head -1 "$tmp/out" | grep -q " v41 hold 10000 us" &&
	      grep -qx "v4.1 sessions (slots granted): a 1 (4), b 3 (13), c 1 (4)" "$tmp/out"'

require "stand-in server starts (v41, burst)" serve v41
run41 --json --burst 20 --burst-group b --repeat 3
check "v41 burst mode: exit 0" [ "$rc" -eq 0 ] || diag "stderr: $(cat "$tmp/err")"
check "v41 burst mode: group b completed 3 x 20 calls" \
	json '[g["ops"] for g in r["groups"] if g["name"] == "b"] == [60]'
check "v41 burst mode: no call refused" [ "$(events error)" -eq 0 ] ||
	refusals

require "stand-in server starts (v41-reorder)" serve v41-reorder
run41 --json --jitter 50
check "v41, replies out of order: exit 0, no errors" \
	eval '[ "$rc" -eq 0 ] && json "$ops_ok" && [ "$(events error)" -eq 0 ]'

require "stand-in server starts (v41-misorder)" serve v41-misorder
run41 --json
check "v41 SEQUENCE refused (NFS4ERR_SEQ_MISORDERED): exit 1" [ "$rc" -eq 1 ]
check "v41 SEQUENCE refused: stderr names SEQUENCE, the slot and the error" \
	grep -qE 'v4.1 protocol error: SEQUENCE on slot [0-9]+ seqid [0-9]+: NFS4ERR_SEQ_MISORDERED' \
	"$tmp/err"
check "v41 SEQUENCE refused: counted as one error in the report" \
	json 'sum(g["errors"] for g in r["groups"]) == 1'

require "stand-in server starts (v41-notstale)" serve v41-notstale
run41 --json
check "v41 PUTFH succeeding (no hold hook): exit 1, reported" \
	eval '[ "$rc" -eq 1 ] && grep -q "PUTFH of the hold handle: NFS4_OK, not" "$tmp/err"'
check "v41 PUTFH succeeding: no call counted as completed" \
	json 'r["total_ops"] == 0'

require "stand-in server starts (v41-tiny)" serve v41-tiny
run41 --json
tiny="CREATE_SESSION granted 2 slots, fewer than the [34] calls a connection keeps outstanding"
check "v41, 2 slots granted for depth 3 or 4: exit 1 naming the grant and DEPTH" \
	eval '[ "$rc" -eq 1 ] && grep -qE "$tiny \(DEPTH\)" "$tmp/err"'

require "stand-in server starts (silent)" serve silent
"$load" --port "$port" --group a:127.0.0.1:1:4 --warmup 0 --burst 4 --burst-group a \
	--timeout 1 > "$tmp/out" 2> "$tmp/err"
rc=$?
check "a burst the server never answers: exit 1 at --timeout" [ "$rc" -eq 1 ]
check "a burst the server never answers: the timeout is reported" \
	grep -q 'timeout: the run did not finish within --timeout 1 s' "$tmp/err"

tap_done
