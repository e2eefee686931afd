#!/bin/bash
# Inside the guest: stats --openmetrics against the real kernel, with a
# class for 127.0.0.2, per-host for 127.0.0.0/8 and GETATTR traffic from
# 127.0.0.2 and 127.0.0.3 (nfsfair-load). promtool (the host's) passes
# the output; the class's dispatch and thread-time counters are > 0 and
# agree with stats --json and classes --json, rule hits with -L -v -x; a
# client ID has its thread-time series; the dumps need no capability;
# --netns labels its namespace; and nfsfair-metrics.service's command line
# leaves exactly one complete .prom file, never a half one, and no
# temporary file. Builds nothing: run `make -C tests/load` first.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/uml/guest-lib.sh"

ctl=$top/cli/nfsfair-ctl
load=$top/tests/load/nfsfair-load
work=/run/nfsfair-om
mkdir -p $work

# The guest keeps no AVX state across thread switches (kernel/backport-6.12/harness/0001; 6.12 only):
# keep Go's runtime off AVX, as guest-init keeps glibc.
promtool() { GODEBUG=cpu.avx=off,cpu.avx2=off command promtool "$@"; }

# valid FILE: promtool passes FILE with nothing to say, and it ends with # EOF.
valid() {
	local out
	out=$(promtool check metrics < "$1" 2>&1) && [ -z "$out" ] &&
		[ "$(tail -n 1 "$1")" = "# EOF" ] || { diag "promtool: $out"; false; }
}

# value FILE SERIES: the value of SERIES (name{labels}) in FILE.
value() { awk -v s="$2" '$1 == s { print $2 }' "$1"; }

# json FILE EXPR: print EXPR, Python over the document in FILE as d.
json() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

movers='{namespace="",class="movers"}'
# The loads read "while they run" last until the reads are done (SIGUSR1
# ends them): their --duration is only a bound, as the waits are.
slow=$(guest_slowness)
bound=$((60 * slow))

require "promtool is installed" eval 'command -v promtool > /dev/null'
require "tests/load/nfsfair-load is built" test -x "$load"
require "nfsd starts" nfsd_start 8
add_source_addr 127.0.0.2
add_source_addr 127.0.0.3
require "-N movers" "$ctl" -N movers
check "-N 'q\"uo\\te' is refused: class names are kept to [A-Za-z0-9._-]" \
	eval '! "$ctl" -N '"'"'q"uo\te'"'"' 2> /dev/null'
require "-N v1.2_a-b, a name with every punctuation allowed" "$ctl" -N v1.2_a-b
require "-A -s 127.0.0.2 -j movers" "$ctl" -A -s 127.0.0.2 -j movers
require "-A -s 127.0.0.0/8 -j per-host" "$ctl" -A -s 127.0.0.0/8 -j per-host
"$ctl" stats -w 1 > $work/text
check "stats: the text screen's header, thread-time share first" \
	grep -qx "class             time  calls   disp/s per-call conns queued  wait-avg threads" $work/text

# Under load: two reads around a stats --json of 2 s.
"$load" --group a:127.0.0.2:1:4 --group b:127.0.0.3:4:4 --proc getattr --hold-us 0 \
	--warmup 0.5 --duration $bound --timeout $((bound + 30)) --json \
	> $work/load.json 2> $work/load.err &
pid=$!
# Once movers is dispatching (a busy host starts the load late).
dispatching() {
	"$ctl" stats --openmetrics > $work/om1 &&
		[ "$(value $work/om1 "nfsfair_class_dispatches_total$movers")" -gt 0 ]
}
wait_until $((30 * slow)) dispatching
t0=${EPOCHREALTIME/./}
"$ctl" stats --openmetrics > $work/om1
"$ctl" stats movers -w 2 --json > $work/stats.json
"$ctl" stats --openmetrics > $work/om2
us=$((${EPOCHREALTIME/./} - t0))
kill -USR1 $pid
wait $pid
check "nfsfair-load: exit 0" [ $? = 0 ] || diag "$(cat $work/load.err)"
sed 's/^/# /' $work/om2
check "under load: promtool passes stats --openmetrics" valid $work/om2
one=$(value $work/om1 "nfsfair_class_dispatches_total$movers")
two=$(value $work/om2 "nfsfair_class_dispatches_total$movers")
d=$(json $work/stats.json 'd["classes"][0]["dispatches"]')
diag "dispatches to movers: $one, then $two, $((us / 1000)) ms apart; stats --json counted $d in its 2 s between"
check "under load: movers' dispatch counter is > 0" [ "${one:-0}" -gt 0 ]
check "stats --json's 2 s count is > 0 and within the counter's growth between the reads" \
	eval '[ "$d" -gt 0 ] && [ "$d" -le $((two - one)) ]'
# The reads take time of their own (seconds on a sanitizer's guest): the
# 2 s count is held to half the counter's rate between them, for 2 s.
check "... and at least half the counter's growth over the reads' time, for 2 s" \
	[ $((d * us)) -ge $(((two - one) * 1000000)) ]
# Thread-time, as seconds with nine decimals: in nanoseconds for the shell.
ns() { local v; v=$(value "$@"); [ -n "$v" ] && echo $((10#${v%.*} * 1000000000 + 10#${v#*.})); }
one=$(ns $work/om1 "nfsfair_class_thread_seconds_total$movers")
two=$(ns $work/om2 "nfsfair_class_thread_seconds_total$movers")
t=$(json $work/stats.json 'd["classes"][0]["thread-ns"]')
diag "movers' thread-time: $one ns, then $two ns; stats --json counted $t ns in its 2 s"
check "under load: movers' thread-time counter is > 0, and grows" \
	eval '[ "${one:-0}" -gt 0 ] && [ "${two:-0}" -gt "$one" ]'
check "stats --json's thread-time is > 0 and within the counter's growth between the reads" \
	eval '[ "$t" -gt 0 ] && [ "$t" -le $((two - one)) ]'
check "stats --json: movers the only class with calls: all the thread-time, a time per call" \
	eval '[ "$(json $work/stats.json "d[\"classes\"][0][\"thread-share-pct\"]")" = 100 ] &&
	      [ "$(json $work/stats.json "d[\"classes\"][0][\"thread-ms-per-call\"] > 0")" = True ]'

# Idle: the counters hold still, so they must equal classes --json and -L.
# Still is waited for: two reads a moment apart that agree.
still() {
	"$ctl" stats --openmetrics > $work/om3.a && sleep 0.5 &&
		"$ctl" stats --openmetrics > $work/om3 && cmp -s $work/om3.a $work/om3
}
wait_until 30 still
"$ctl" classes --json > $work/classes.json
"$ctl" -L -v -x --line-numbers > $work/list
sed 's/^/# /' $work/list
check "idle: promtool passes stats --openmetrics" valid $work/om3
want=$(json $work/classes.json '[c["dispatches"] for c in d if c["name"] == "movers"][0]')
check "idle: movers' dispatches equal classes --json's ($want)" \
	[ "$(value $work/om3 "nfsfair_class_dispatches_total$movers")" = "$want" ]
want=$(json $work/classes.json \
	'["%.6f" % (c["qtime-total-us"] / 1e6) for c in d if c["name"] == "movers"][0]')
check "idle: movers' queue wait sum is classes --json's, in seconds ($want)" \
	[ "$(value $work/om3 "nfsfair_class_queue_wait_seconds_total$movers")" = "$want" ]
want=$(json $work/classes.json \
	'["%.6f" % (c["qtime-max-us"] / 1e6) for c in d if c["name"] == "movers"][0]')
check "idle: movers' longest queue wait is classes --json's, in seconds ($want)" \
	[ "$(value $work/om3 "nfsfair_class_queue_wait_max_seconds$movers")" = "$want" ]
want=$(json $work/classes.json \
	'["%d.%09d" % divmod(c["thread-ns"], 10**9) for c in d if c["name"] == "movers"][0]')
check "idle: movers' thread-time is classes --json's, in seconds ($want)" \
	[ "$(value $work/om3 "nfsfair_class_thread_seconds_total$movers")" = "$want" ]
check "the class with punctuation is there: class=\"v1.2_a-b\"" \
	grep -qxF 'nfsfair_class_dispatches_total{namespace="",class="v1.2_a-b"} 0' $work/om3
n=0
while read -r num hits origin target source; do
	[ "$num" = num ] && continue
	n=$((n + 1))
	series="nfsfair_rule_hits_total{namespace=\"\",position=\"$num\",prefix=\"$source\""
	series+=",target=\"$target\",origin=\"$origin\"}"
	check "rule $num: hits $hits, as -L -v -x says" [ "$(value $work/om3 "$series")" = "$hits" ]
done < $work/list
check "two rules, and no other rule series" \
	eval '[ $n = 2 ] && [ "$(grep -c "^nfsfair_rule_hits_total" $work/om3)" = 2 ]'
check "rule 1 hit by 127.0.0.2's connection, rule 2 by 127.0.0.3's four" \
	eval '[ "$(awk "\$1 == 1 { print \$2 }" $work/list)" -ge 1 ] &&
	      [ "$(awk "\$1 == 2 { print \$2 }" $work/list)" -ge 4 ]'
"$ctl" stats movers --openmetrics > $work/movers
check "stats movers --openmetrics: promtool passes" valid $work/movers
# (and one series per pool its live client has, if it still has one)
check "stats movers --openmetrics: movers' 12 series and its rule's, nothing else" \
	eval '[ "$(grep -c "^nfsfair_class_.*$movers " $work/movers)" = 12 ] &&
	      [ "$(grep -v "^#" $work/movers | grep -vc "^nfsfair_class_pool_[a-z_]*_total{")" = 13 ] &&
	      grep -q "^nfsfair_rule_hits_total{.*target=\"movers\"" $work/movers'

# Reading needs CAP_NET_ADMIN, as listing an nftables ruleset does: the
# table and the clients name the server's peers.
install -m 755 "$ctl" $work/nfsfair-ctl
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	--bounding-set=-all -- $work/nfsfair-ctl "$@"; }
check "as nobody with no capability: stats --openmetrics is refused (exit 1)" \
	eval 'nobody stats --openmetrics > $work/nobody 2> $work/nobody.err; [ $? = 1 ]'
check "... saying why: $(head -1 $work/nobody.err)" \
	grep -qi "not permitted" $work/nobody.err
check "... and printing no series" [ ! -s $work/nobody ]

# Another namespace: its own table, and its name in the label.
if ip netns add omtest 2> /dev/null; then
	"$ctl" --netns omtest -N elsewhere
	"$ctl" --netns omtest stats --openmetrics > $work/netns
	check "--netns omtest: promtool passes" valid $work/netns
	check "--netns omtest: its class, labelled namespace=\"omtest\"" \
		grep -qx 'nfsfair_class_dispatches_total{namespace="omtest",class="elsewhere"} 0' \
		$work/netns
	check "--netns omtest: not this namespace's classes" eval '! grep -q movers $work/netns'
	ip netns del omtest
fi

# NFSv4.1 client IDs under a per-client rule: series of their own while
# they live (nfsfair-load's go at the end of its run).
add_source_addr 127.0.0.4
"$ctl" -I 1 -s 127.0.0.4 -j per-client
"$load" --group c:127.0.0.4:2:4 --proc v41 --hold-us 0 --warmup 0.5 --duration $bound \
	--timeout $((bound + 30)) --json > $work/v41.json 2> $work/v41.err &
pid=$!
# Both read while the client ID dispatches, once it does.
client_id_live() {
	"$ctl" stats --openmetrics > $work/om4 && "$ctl" stats --json > $work/stats4.json &&
		grep -q '^nfsfair_client_dispatches_total{namespace="",client_id="[^"]*",owner="[^"]*"} [1-9]' \
			$work/om4 &&
		[ -n "$(json $work/stats4.json 'd["clients"][0]["client-id"] if d["clients"] else ""')" ]
}
wait_until $((30 * slow)) client_id_live
kill -USR1 $pid
wait $pid
check "nfsfair-load --proc v41: exit 0" [ $? = 0 ] || diag "$(cat $work/v41.err)"
grep '^nfsfair_client_dispatches' $work/om4 | sed 's/^/# /'
check "v41 per-client: promtool passes" valid $work/om4
check "v41 per-client: the client ID's thread-time series, > 0" \
	awk '/^nfsfair_client_thread_seconds_total\{namespace="",client_id="/ && $NF + 0 > 0 {
		found = 1 } END { exit !found }' $work/om4
want=$(json $work/stats4.json \
	'" ".join("%s/%s" % (c["client-id"], c["owner"]) for c in d["clients"])')
got=$(sed -n 's/^nfsfair_client_dispatches_total{namespace="",client_id="\([^"]*\)",owner="\([^"]*\)"} [1-9][0-9]*$/\1\/\2/p' \
	$work/om4 | tr '\n' ' ')
check "v41 per-client: one client ID dispatched, as stats --json shows it ($want)" \
	[ "$got" = "$want " ]
"$ctl" -D 1

# The service's command line, with a directory of ours for the exporter's.
dir=$work/textfile
mkdir -p $dir
cmdline=$(sed -n 's/^ExecStart=//p' "$top/systemd/nfsfair-metrics.service")
cmdline=${cmdline//\/var\/lib\/prometheus\/node-exporter/$dir}
cmdline=${cmdline/\/usr\/sbin\/nfsfair-ctl/$ctl}
read -ra argv <<< "$cmdline"
diag "ExecStart here: ${argv[*]}"
check "the service's command line: exit 0, nothing printed" \
	eval '[ -z "$("${argv[@]}" 2>&1)" ]'
check "it leaves exactly one file, nfsfair.prom" [ "$(ls -A $dir)" = nfsfair.prom ]
check "nfsfair.prom is complete: promtool passes, # EOF" valid $dir/nfsfair.prom
check "nfsfair.prom is mode 644, for the exporter's user" \
	[ "$(stat -c %a $dir/nfsfair.prom)" = 644 ]
# 20 runs while a reader looks: never a half file, never a leftover.
( for _ in $(seq 20); do "${argv[@]}"; done ) & writer=$!
half=0 reads=0
while kill -0 $writer 2> /dev/null; do
	[ "$(tail -n 1 $dir/nfsfair.prom)" = "# EOF" ] || half=$((half + 1))
	reads=$((reads + 1))
done
wait $writer
check "20 runs, $reads reads meanwhile: every read a whole file" [ $half = 0 ]
check "after them: still exactly one file" [ "$(ls -A $dir)" = nfsfair.prom ]
"$ctl" stats --openmetrics --output $work/none/x.prom 2> $work/err
check "--output into a missing directory: exit 1" [ $? = 1 ]
check "... saying so" \
	grep -qx "nfsfair-ctl: --output $work/none/x.prom: No such file or directory" $work/err ||
	diag "$(cat $work/err)"
mkdir $dir/busy.prom
"$ctl" stats --openmetrics --output $dir/busy.prom 2> $work/err
check "--output over a directory: exit 1" [ $? = 1 ] || diag "$(cat $work/err)"
check "... and its temporary file removed" [ "$(ls -A $dir | tr "\n" " ")" = "busy.prom nfsfair.prom " ] ||
	diag "$(ls -A $dir)"
tap_done
