#!/bin/bash
# stats --openmetrics without a kernel: known counters through its printer
# (openmetrics-print.c) give exactly the lines expected, class names and
# the namespace escaped, thread-time in seconds to the nanosecond, and
# promtool check metrics passes them with no lint problem; broken copies
# fail, so the check can. Counters from a kernel without thread-time give
# its families no sample, and nothing else changes. Then the option
# matrix (exit 2) and the settings of the service and timer pair.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -s -C "$top/cli" > /dev/null || { echo "1..0 # cli/ does not build"; exit 1; }
# shellcheck disable=SC2046
cc -Wall -Wextra -Werror -I"$top/netlink-spec/uapi" $(pkg-config --cflags libnl-genl-3.0) \
	-o "$tmp/print" "$top/tests/unit/openmetrics-print.c" "$top/cli/openmetrics.c" \
	"$top/lib/libnfsfair.a" $(pkg-config --libs libnl-genl-3.0) -lm ||
	{ echo "1..0 # openmetrics-print.c does not build"; exit 1; }

# valid FILE: promtool passes FILE with nothing to say, and FILE ends
# with # EOF, which promtool (reading the Prometheus text format) does
# not ask for.
valid() {
	local out
	out=$(promtool check metrics < "$1" 2>&1) && [ -z "$out" ] &&
		[ "$(tail -n 1 "$1")" = "# EOF" ]
}

# promtool_says FILE STATUS TEXT: promtool check metrics exits STATUS on
# FILE, saying TEXT.
promtool_says() {
	local status
	promtool check metrics < "$1" > "$tmp/lint" 2>&1
	status=$?
	if [ "$status" != "$2" ] || ! grep -qF -- "$3" "$tmp/lint"; then
		diag "exit $status: $(cat "$tmp/lint")"
		return 1
	fi
}

require "promtool is installed" eval 'command -v promtool > /dev/null'
"$tmp/print" > "$tmp/good"
cat > "$tmp/want" <<'EOF'
# HELP nfsfair_class_dispatches_total Requests dispatched to threads from the class's connections.
# TYPE nfsfair_class_dispatches_total counter
nfsfair_class_dispatches_total{namespace="lab \"b\"\\2",class="movers"} 12345
nfsfair_class_dispatches_total{namespace="lab \"b\"\\2",class="q\"uo\\te"} 0
nfsfair_class_dispatches_total{namespace="lab \"b\"\\2",class="line\nbreak"} 0
nfsfair_class_dispatches_total{namespace="lab \"b\"\\2",class="caf\\xc3\\xa9"} 1
# HELP nfsfair_class_thread_seconds_total Time the class's calls held an nfsd thread, dequeue to reply, for calls that ended.
# TYPE nfsfair_class_thread_seconds_total counter
nfsfair_class_thread_seconds_total{namespace="lab \"b\"\\2",class="movers"} 61.500000123
nfsfair_class_thread_seconds_total{namespace="lab \"b\"\\2",class="q\"uo\\te"} 0.000000000
nfsfair_class_thread_seconds_total{namespace="lab \"b\"\\2",class="caf\\xc3\\xa9"} 0.999999999
# HELP nfsfair_class_connections Connections in the class now.
# TYPE nfsfair_class_connections gauge
nfsfair_class_connections{namespace="lab \"b\"\\2",class="movers"} 3
nfsfair_class_connections{namespace="lab \"b\"\\2",class="q\"uo\\te"} 0
nfsfair_class_connections{namespace="lab \"b\"\\2",class="line\nbreak"} 0
nfsfair_class_connections{namespace="lab \"b\"\\2",class="caf\\xc3\\xa9"} 0
# HELP nfsfair_class_peers Distinct peer addresses with connections in the class now.
# TYPE nfsfair_class_peers gauge
nfsfair_class_peers{namespace="lab \"b\"\\2",class="movers"} 2
nfsfair_class_peers{namespace="lab \"b\"\\2",class="q\"uo\\te"} 0
nfsfair_class_peers{namespace="lab \"b\"\\2",class="line\nbreak"} 0
nfsfair_class_peers{namespace="lab \"b\"\\2",class="caf\\xc3\\xa9"} 0
# HELP nfsfair_class_queued_connections Connections of the class waiting for a thread now.
# TYPE nfsfair_class_queued_connections gauge
nfsfair_class_queued_connections{namespace="lab \"b\"\\2",class="movers"} 1
nfsfair_class_queued_connections{namespace="lab \"b\"\\2",class="q\"uo\\te"} 0
nfsfair_class_queued_connections{namespace="lab \"b\"\\2",class="line\nbreak"} 0
nfsfair_class_queued_connections{namespace="lab \"b\"\\2",class="caf\\xc3\\xa9"} 0
# HELP nfsfair_class_queue_wait_seconds_total Time the class's connections waited from ready to dequeued.
# TYPE nfsfair_class_queue_wait_seconds_total counter
nfsfair_class_queue_wait_seconds_total{namespace="lab \"b\"\\2",class="movers"} 1.500000
nfsfair_class_queue_wait_seconds_total{namespace="lab \"b\"\\2",class="q\"uo\\te"} 0.000000
nfsfair_class_queue_wait_seconds_total{namespace="lab \"b\"\\2",class="line\nbreak"} 0.000007
nfsfair_class_queue_wait_seconds_total{namespace="lab \"b\"\\2",class="caf\\xc3\\xa9"} 0.000000
# HELP nfsfair_class_queue_wait_max_seconds Longest wait from ready to dequeued since the counters were zeroed.
# TYPE nfsfair_class_queue_wait_max_seconds gauge
nfsfair_class_queue_wait_max_seconds{namespace="lab \"b\"\\2",class="movers"} 0.002500
nfsfair_class_queue_wait_max_seconds{namespace="lab \"b\"\\2",class="q\"uo\\te"} 0.000000
nfsfair_class_queue_wait_max_seconds{namespace="lab \"b\"\\2",class="line\nbreak"} 0.000000
nfsfair_class_queue_wait_max_seconds{namespace="lab \"b\"\\2",class="caf\\xc3\\xa9"} 0.000000
# HELP nfsfair_class_threads Threads serving the class's connections now.
# TYPE nfsfair_class_threads gauge
nfsfair_class_threads{namespace="lab \"b\"\\2",class="movers"} 2
nfsfair_class_threads{namespace="lab \"b\"\\2",class="q\"uo\\te"} 0
nfsfair_class_threads{namespace="lab \"b\"\\2",class="line\nbreak"} 0
nfsfair_class_threads{namespace="lab \"b\"\\2",class="caf\\xc3\\xa9"} 0
# HELP nfsfair_class_limit Most threads that may serve the class's connections at once; 0 for no limit.
# TYPE nfsfair_class_limit gauge
nfsfair_class_limit{namespace="lab \"b\"\\2",class="movers"} 4
nfsfair_class_limit{namespace="lab \"b\"\\2",class="q\"uo\\te"} 0
nfsfair_class_limit{namespace="lab \"b\"\\2",class="line\nbreak"} 0
nfsfair_class_limit{namespace="lab \"b\"\\2",class="caf\\xc3\\xa9"} 0
# HELP nfsfair_class_limit_skips_total Times dispatch passed over the class because it was at its limit.
# TYPE nfsfair_class_limit_skips_total counter
nfsfair_class_limit_skips_total{namespace="lab \"b\"\\2",class="movers"} 17
nfsfair_class_limit_skips_total{namespace="lab \"b\"\\2",class="q\"uo\\te"} 0
nfsfair_class_limit_skips_total{namespace="lab \"b\"\\2",class="line\nbreak"} 0
nfsfair_class_limit_skips_total{namespace="lab \"b\"\\2",class="caf\\xc3\\xa9"} 0
# HELP nfsfair_class_limit_seconds_total Time the class spent at its limit with connections waiting.
# TYPE nfsfair_class_limit_seconds_total counter
nfsfair_class_limit_seconds_total{namespace="lab \"b\"\\2",class="movers"} 2.000001
nfsfair_class_limit_seconds_total{namespace="lab \"b\"\\2",class="q\"uo\\te"} 0.000000
nfsfair_class_limit_seconds_total{namespace="lab \"b\"\\2",class="line\nbreak"} 0.000000
nfsfair_class_limit_seconds_total{namespace="lab \"b\"\\2",class="caf\\xc3\\xa9"} 0.000000
# HELP nfsfair_class_threads_max Most threads that served the class at once.
# TYPE nfsfair_class_threads_max gauge
nfsfair_class_threads_max{namespace="lab \"b\"\\2",class="movers"} 4
nfsfair_class_threads_max{namespace="lab \"b\"\\2",class="q\"uo\\te"} 0
nfsfair_class_threads_max{namespace="lab \"b\"\\2",class="line\nbreak"} 0
nfsfair_class_threads_max{namespace="lab \"b\"\\2",class="caf\\xc3\\xa9"} 0
# HELP nfsfair_class_pool_dispatches_total Requests dispatched from the class's connections by one pool's threads.
# TYPE nfsfair_class_pool_dispatches_total counter
nfsfair_class_pool_dispatches_total{namespace="lab \"b\"\\2",class="movers",pool="0"} 12000
nfsfair_class_pool_dispatches_total{namespace="lab \"b\"\\2",class="movers",pool="1"} 345
# HELP nfsfair_class_pool_thread_seconds_total Time the class's calls held one pool's threads, for calls that ended.
# TYPE nfsfair_class_pool_thread_seconds_total counter
nfsfair_class_pool_thread_seconds_total{namespace="lab \"b\"\\2",class="movers",pool="0"} 60.000000123
nfsfair_class_pool_thread_seconds_total{namespace="lab \"b\"\\2",class="movers",pool="1"} 1.500000000
# HELP nfsfair_rule_hits_total Connections the rule classified, at accept and after a table change.
# TYPE nfsfair_rule_hits_total counter
nfsfair_rule_hits_total{namespace="lab \"b\"\\2",position="1",prefix="127.0.0.2/32",target="movers",origin="0"} 7
nfsfair_rule_hits_total{namespace="lab \"b\"\\2",position="2",prefix="127.0.0.0/8",target="per-host",origin="0"} 4
nfsfair_rule_hits_total{namespace="lab \"b\"\\2",position="3",prefix="2001:db8::/32",target="per-client/64",origin="7"} 18446744073709551615
# HELP nfsfair_client_dispatches_total Requests dispatched from the connections of an NFSv4.1 client ID.
# TYPE nfsfair_client_dispatches_total counter
nfsfair_client_dispatches_total{namespace="lab \"b\"\\2",client_id="0x6b0f2c1a00000003",owner="Linux \\x22host\\x22\\x01\\xff tail"} 99
# HELP nfsfair_client_thread_seconds_total Time the calls of an NFSv4.1 client ID held an nfsd thread, for calls that ended.
# TYPE nfsfair_client_thread_seconds_total counter
nfsfair_client_thread_seconds_total{namespace="lab \"b\"\\2",client_id="0x6b0f2c1a00000003",owner="Linux \\x22host\\x22\\x01\\xff tail"} 0.002500000
# HELP nfsfair_client_connections Connections bound to the NFSv4.1 client ID now.
# TYPE nfsfair_client_connections gauge
nfsfair_client_connections{namespace="lab \"b\"\\2",client_id="0x6b0f2c1a00000003",owner="Linux \\x22host\\x22\\x01\\xff tail"} 2
# HELP nfsfair_client_peers Distinct peer addresses with connections bound to the NFSv4.1 client ID now.
# TYPE nfsfair_client_peers gauge
nfsfair_client_peers{namespace="lab \"b\"\\2",client_id="0x6b0f2c1a00000003",owner="Linux \\x22host\\x22\\x01\\xff tail"} 1
# HELP nfsfair_client_queued_connections Connections of the NFSv4.1 client ID waiting for a thread now.
# TYPE nfsfair_client_queued_connections gauge
nfsfair_client_queued_connections{namespace="lab \"b\"\\2",client_id="0x6b0f2c1a00000003",owner="Linux \\x22host\\x22\\x01\\xff tail"} 0
# HELP nfsfair_client_pool_dispatches_total Requests dispatched from an NFSv4.1 client ID's connections by one pool's threads.
# TYPE nfsfair_client_pool_dispatches_total counter
nfsfair_client_pool_dispatches_total{namespace="lab \"b\"\\2",client_id="0x6b0f2c1a00000003",owner="Linux \\x22host\\x22\\x01\\xff tail",pool="3"} 99
# HELP nfsfair_client_pool_thread_seconds_total Time the calls of an NFSv4.1 client ID held one pool's threads, for calls that ended.
# TYPE nfsfair_client_pool_thread_seconds_total counter
nfsfair_client_pool_thread_seconds_total{namespace="lab \"b\"\\2",client_id="0x6b0f2c1a00000003",owner="Linux \\x22host\\x22\\x01\\xff tail",pool="3"} 0.002500000
# EOF
EOF
check "the printer prints exactly the lines expected" diff -u "$tmp/want" "$tmp/good"
out=$(promtool check metrics < "$tmp/good" 2>&1)
status=$?
check "promtool check metrics: exit 0, no lint problem" eval '[ $status = 0 ] && [ -z "$out" ]' ||
	diag "exit $status: $out"
check "the output ends with # EOF" valid "$tmp/good"
check "every sample follows a HELP and a TYPE of its name; counters end in _total" \
	awk '/^# HELP / { help[$3] = 1; next }
	     /^# TYPE / { type[$3] = $4; if ($4 == "counter" && $3 !~ /_total$/) bad = 1; next }
	     /^# EOF$/ { next }
	     { n = $0; sub(/[{ ].*/, "", n); if (!help[n] || !type[n]) bad = 1 }
	     END { exit bad }' "$tmp/good"

# A kernel without thread-time: its four families keep their HELP and
# TYPE, with no sample (not a 0), and every other line is as above.
"$tmp/print" old > "$tmp/old"
check "no thread-time: promtool passes, # EOF" valid "$tmp/old"
check "no thread-time: no sample of a thread_seconds family" \
	eval '! grep -q "^nfsfair_[a-z_]*thread_seconds_total{" "$tmp/old"'
check "no thread-time: the families' HELP and TYPE still there" eval \
	'[ "$(grep -c "^# TYPE nfsfair_[a-z_]*thread_seconds_total counter$" "$tmp/old")" = 4 ]'
check "no thread-time: the rest exactly as with it" \
	diff -u <(grep -v "^nfsfair_[a-z_]*thread_seconds_total{" "$tmp/good") "$tmp/old"

# Broken copies: each fails the check.
sed 's/nfsfair_rule_hits_total/nfsfair_rule_hits/' "$tmp/good" > "$tmp/no-total"
check "broken, a counter without _total: promtool exits 3 saying so" \
	promtool_says "$tmp/no-total" 3 'nfsfair_rule_hits counter metrics should have "_total" suffix'
check "broken, a counter without _total: not valid" eval '! valid "$tmp/no-total"'
sed '3s/lab \\"b\\"/lab "b"/' "$tmp/good" > "$tmp/quote"
check "broken, a quote not escaped: promtool exits 1 at line 3" \
	promtool_says "$tmp/quote" 1 "parsing error in line 3"
sed 's/class="line\\nbreak"/class="line\nbreak"/' "$tmp/good" > "$tmp/newline"
check "broken, a newline not escaped: promtool exits 1" \
	promtool_says "$tmp/newline" 1 "contains unescaped new-line"
sed 's/caf\\\\xc3\\\\xa9/caf\xe9/' "$tmp/good" > "$tmp/latin1"
check "broken, a byte that is not UTF-8 (why they read \\\\xNN): promtool exits 1" \
	promtool_says "$tmp/latin1" 1 'invalid label value "caf\xe9"'
sed '$d' "$tmp/good" > "$tmp/no-eof"
check "broken, no # EOF: not valid (promtool alone passes it)" eval '! valid "$tmp/no-eof"'

# Its usage errors are checked with the others in ctl-usage.sh.
check "refused usage writes no file" [ ! -e "$tmp/x.prom" ]

# The units: the settings the man page describes.
service=$top/systemd/nfsfair-metrics.service
timer=$top/systemd/nfsfair-metrics.timer
check "service: Type=oneshot" grep -qx 'Type=oneshot' "$service"
check "service: writes nfsfair.prom in Debian's textfile directory with --output" grep -qx \
	'ExecStart=/usr/sbin/nfsfair-ctl stats --openmetrics --output /var/lib/prometheus/node-exporter/nfsfair.prom' \
	"$service"
check "service: CAP_NET_ADMIN only, which reading the counters needs" grep -qx 'CapabilityBoundingSet=CAP_NET_ADMIN' "$service"
check "service: writes only the textfile directory" eval \
	'grep -qx "ProtectSystem=strict" "$service" && grep -qx "ReadWritePaths=-/var/lib/prometheus/node-exporter" "$service"'
check "service: no network namespace of its own" eval '! grep -q "^PrivateNetwork=" "$service"'
check "timer: every 15 s from boot, to the second" eval \
	'grep -qx "OnBootSec=15s" "$timer" && grep -qx "OnUnitActiveSec=15s" "$timer" && grep -qx "AccuracySec=1s" "$timer"'
check "timer: WantedBy=timers.target" grep -qx 'WantedBy=timers.target' "$timer"
out=$(groff -man -Tutf8 -ww -z "$top/cli/nfsfair-ctl.8" 2>&1)
check "cli/nfsfair-ctl.8 renders without warnings" [ -z "$out" ] || diag "$out"
sed 's/\\//g' "$top/cli/nfsfair-ctl.8" > "$tmp/page"
for w in nfsfair-metrics.service nfsfair-metrics.timer /var/lib/prometheus/node-exporter/nfsfair.prom \
	--openmetrics --output nfsfair_class_limit nfsfair_class_limit_skips_total \
	nfsfair_class_limit_seconds_total nfsfair_class_threads_max \
	nfsfair_class_pool_dispatches_total nfsfair_client_pool_dispatches_total \
	nfsfair_class_thread_seconds_total nfsfair_class_pool_thread_seconds_total \
	nfsfair_client_thread_seconds_total nfsfair_client_pool_thread_seconds_total; do
	check "cli/nfsfair-ctl.8 names $w" grep -qF -- "$w" "$tmp/page"
done
tap_done
