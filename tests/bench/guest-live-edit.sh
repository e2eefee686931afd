#!/bin/bash
# Inside the guest: the admin sets the table while the load runs (issue 12,
# live edits reach connections that are already open).
#   guest-live-edit.sh THREADS KERNEL OUT AT -- LOAD-ARGS... [-- LATE-ARGS...]
# Starts nfsd with THREADS threads and no table, gives the guest the
# 127.0.0.x source addresses the arguments name, starts
# tests/load/nfsfair-load LOAD-ARGS --json, and AT seconds after starting
# it runs `nfsfair-ctl -A -s 127.0.0.0/8 -j per-host`. With LATE-ARGS, a
# second nfsfair-load LATE-ARGS --json starts as soon as that returns: a
# client that connects after the table exists.
#
# KERNEL: "nfsfair", or "baseline", where nfsfair-ctl finds no nfsfair
# family: that failure, and only that one, counts as "no table on this
# kernel" ("table": false) instead of failing the run.
#
# Writes OUT: {"load": <first report>, "late": <second report or null>,
# "change": {"before_ns", "after_ns", "table"}, "clients": <client-get
# dump, or null>}. before_ns and after_ns are CLOCK_MONOTONIC just before
# nfsfair-ctl starts and just after it returns: the clock nfsfair-load's
# start_ns and --window-ms windows count from, so the change is placed
# among the windows to the nanosecond (under time-travel the call takes
# about 0.1 ms of guest time: its window is known, before or after).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/uml/guest-lib.sh"

threads=$1 kernel=$2 out=$3 at=$4
shift 4
[ "${1:-}" = -- ] && shift
first=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	first+=("$1")
	shift
done
[ $# -gt 0 ] && shift
late=("$@")

nfsd_start "$threads" > /dev/null
for src in $(printf '%s\n' "${first[@]}" "${late[@]}" | grep -o '127\.0\.0\.[0-9]*' | sort -u); do
	add_source_addr "$src"
done

# mono and sleep_until: tests/uml/guest-lib.sh.
load=$top/tests/load/nfsfair-load
t0=$(mono)
"$load" "${first[@]}" --json > /run/load.json &
first_pid=$!
sleep_until $((t0 + $(python3 -c "print(round($at * 1e9))")))

table=true
before=$(mono)
if ! "$top/cli/nfsfair-ctl" -A -s 127.0.0.0/8 -j per-host 2> /run/ctl.err; then
	# the baseline has no nfsfair family: nothing else may fail here
	if [ "$kernel" = baseline ] && grep -q "no 'nfsfair' netlink family" /run/ctl.err; then
		table=false
	else
		cat /run/ctl.err >&2
		exit 1
	fi
fi
after=$(mono)

late_pid=
if [ ${#late[@]} -gt 0 ]; then
	"$load" "${late[@]}" --json > /run/late.json &
	late_pid=$!
fi
wait "$first_pid"
late_json=null
if [ -n "$late_pid" ]; then
	wait "$late_pid"
	late_json=$(cat /run/late.json)
fi

clients=null
if [ $table = true ]; then
	clients=$(ynl --dump client-get 2> /dev/null) || clients=null
fi
printf '{"load": %s, "late": %s, "change": {"before_ns": %s, "after_ns": %s, "table": %s}, "clients": %s}\n' \
	"$(cat /run/load.json)" "$late_json" "$before" "$after" "$table" "$clients" > "$out"
