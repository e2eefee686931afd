#!/usr/bin/env bash
# nfsfaird and a SIGHUP at start, natively: the main file is a FIFO, so
# the first load waits on this test, which sends SIGHUP meanwhile (before
# the daemon detaches, or with --foreground before it applies anything).
# The daemon must read the file again, opening the FIFO a second time,
# before its first apply. Without the kernel's nfsfair family it then
# exits 3; each run has a network namespace of its own, so that a kernel
# with the family keeps its table.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
nfsfaird=$top/daemon/nfsfaird
tmp=$(mktemp -d)
cleanup() {
	local pid

	# A kernel with the family keeps the daemon running: ours, by its status.
	pid=$(sed -n 's/^pid //p' "$tmp"/state*/status 2> /dev/null)
	for p in $pid; do
		[ "$(cat /proc/"$p"/comm 2> /dev/null)" != nfsfaird ] || kill "$p"
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

require "nfsfaird is built" test -x "$nfsfaird"
ns=()
if unshare -n true 2> /dev/null; then
	ns=(unshare -n)
elif unshare -rn true 2> /dev/null; then
	ns=(unshare -rn)
else
	diag "no network namespace: a kernel with nfsfair would see our table"
fi
conf=$'classes:\n  - name: movers\n    members: [192.0.2.1]\n'
# feed FIFO: give FIFO the configuration once nfsfaird opens it, within 10 s.
feed() { timeout 10 sh -c 'printf %s "$1" > "$2"' sh "$conf" "$1"; }
# before_apply LOG: its first line about the table is the reload.
before_apply() {
	grep -m1 -E 'reloading|applying the table|rules of origin|nfsfair family' "$1" |
		grep -q reloading
}

# has_open PID FILE: PID has FILE open.
has_open() { [ -n "$(find /proc/"$1"/fd -lname "$2" 2> /dev/null)" ]; }

# start NAME OPTION...: nfsfaird on FIFO $tmp/NAME.yaml, SIGHUP in its first load.
start() {
	local name=$1 fifo=$tmp/$1.yaml

	shift
	mkfifo "$fifo"
	"${ns[@]}" "$nfsfaird" "$@" -c "$fifo" -d /nonexistent --state-dir "$tmp/state-$name" \
		--metrics-file "$tmp/$name.prom" 2> "$tmp/$name.log" &
	pid=$!
	# Read-write, so that neither side waits for the other to open it.
	exec 3<> "$fifo"
	# Once nfsfaird has the FIFO open it is in its first load.
	for _ in $(seq 100); do
		! has_open "$pid" "$fifo" || break
		sleep 0.1
	done
	kill -HUP "$pid"
	printf %s "$conf" >&3
	exec 3>&-
	# Until that read is over: a writer opening the FIFO sooner would add to it.
	for _ in $(seq 100); do
		has_open "$pid" "$fifo" || break
		sleep 0.1
	done
}

start detach
wait "$pid"
check "without --foreground: the first load works, the parent exits 0" [ $? -eq 0 ] ||
	diag "$(cat "$tmp/detach.log")"
check "a SIGHUP before it detached reads the file again" feed "$tmp/detach.yaml"
check "... said in the log, before the first apply" before_apply "$tmp/detach.log" ||
	diag "$(cat "$tmp/detach.log")"

start fg --foreground
check "--foreground: a SIGHUP during the first load reads the file again" feed "$tmp/fg.yaml"
check "... said in the log, before the first apply" before_apply "$tmp/fg.log" ||
	diag "$(cat "$tmp/fg.log")"
if timeout 10 tail --pid="$pid" -f /dev/null; then
	wait "$pid"
	rc=$?
	check "... then, with no nfsfair family, exit 3" [ $rc -eq 3 ] ||
		diag "exit $rc: $(cat "$tmp/fg.log")"
else
	diag "the kernel has the nfsfair family: nfsfaird runs on"
fi
tap_done
