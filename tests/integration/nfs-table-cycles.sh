#!/bin/bash
# Inside the guest: the kernel's own NFS client writing through two
# mounts (NFSv4.1 nconnect=16 from 127.0.0.7, NFSv3 on one connection
# from 127.0.0.8: two NFSv4.1 mounts of one kernel would be one client
# to nfsd, and the guests have no UTS namespaces) while the table goes
# round the cycle an admin's edits make on a live server, CYCLES times
# (default 3: about 10 s each in UML, minutes on the KASAN guest):
#
#   empty (flushed, until every client is gone: every transport back
#   on the single queue) -> per-host, or per-client on odd cycles (every
#   connection rebound at its next dispatch, the session's client ID
#   named by SEQUENCE) -> a class of weight 3 and limit 1 for
#   127.0.0.7 inserted ahead -> its limit lifted -> the class's rule and
#   the class deleted
#
# the transitions the stock Debian server suite makes once per version
# (tests/debian/stock-server.sh), many times over, under the writers'
# load. Checks: both mounts' WRITEs went on in every cycle, every edit
# was accepted, the table emptied to no client at least once (every
# transport unbound, then bound again), both mounts unmount, no client
# is left at rest, and the kernel logged no warning.
# tests/integration/nfs-table-cycles.sh [CYCLES]. Builds nothing: run
# `make userspace` on the host first.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/uml/guest-lib.sh"

ctl=$top/cli/nfsfair-ctl
want=${1:-3}
base=/run/nfsfair/cycles
mkdir -p "$base"

require "nfsd starts with 2 threads" nfsd_start 2
add_source_addr 127.0.0.7
add_source_addr 127.0.0.8

mkdir -p "$base/c1" "$base/c2"
require "c1: mount 127.0.0.7 vers=4.1,nconnect=16" \
	mount -t nfs -o vers=4.1,nconnect=16 "$(nfs_source 4.1 127.0.0.7)" "$base/c1"
require "c2: mount 127.0.0.8 vers=3,nolock" \
	mount -t nfs -o vers=3,nolock "$(nfs_source 3 127.0.0.8)" "$base/c2"

# A mount's WRITEs answered so far, from its own counters.
writes() {
	awk -v m="$1" '$1 == "device" { cur = $5 } cur == m && $1 == "WRITE:" { print $2 }' /proc/self/mountstats
}

writers=()
for c in c1 c2; do
	for i in $(seq 1 4); do
		"$top/tests/debian/direct-writer" "$base/$c/w$i" &
		writers+=($!)
	done
done

# The cycle's edits; each must be accepted. EDIT_FAIL names the first that was not.
edit_fail=
edit() { "$ctl" "$@" > /dev/null 2> "$base/edit.err" || { [ -n "$edit_fail" ] || edit_fail="$* ($(head -c 300 "$base/edit.err"))"; }; }
no_client() {
	[ "$(ynl --dump client-get 2> /dev/null | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))' 2> /dev/null)" = 0 ]
}
# Both writing before the first cycle: the v4.1 writers' OPENs wait out
# nfsd's grace period (10 s here) after it starts.
writing() {
	local w1 w2
	w1=$(writes "$base/c1") w2=$(writes "$base/c2")
	[ "${w1:-0}" -gt 0 ] && [ "${w2:-0}" -gt 0 ]
}
check "both mounts' writers are writing" wait_until 60 writing
stalls=()
cycles=0 emptied=0
prev1=$(writes "$base/c1") prev2=$(writes "$base/c2")
start=$SECONDS
while [ "$cycles" -lt "$want" ]; do
	edit -F
	wait_until 10 no_client && emptied=$((emptied + 1))
	if [ $((cycles % 2)) -eq 0 ]; then
		edit -A -s 127.0.0.0/8 -j per-host
	else
		edit -A -s 127.0.0.0/8 -j per-client
	fi
	sleep 1
	edit -N bulk --weight 3 --limit 1
	edit -I 1 -s 127.0.0.7 -j bulk
	sleep 1
	edit -E bulk --limit 0
	sleep 1
	edit -D -s 127.0.0.7 -j bulk
	edit -X bulk
	cycles=$((cycles + 1))
	w1=$(writes "$base/c1") w2=$(writes "$base/c2")
	[ "${w1:-0}" -gt "${prev1:-0}" ] && [ "${w2:-0}" -gt "${prev2:-0}" ] ||
		stalls+=("cycle $cycles: c1 $prev1->$w1, c2 $prev2->$w2")
	prev1=$w1 prev2=$w2
done
kill "${writers[@]}" 2> /dev/null
wait "${writers[@]}" 2> /dev/null

diag "$cycles cycles in $((SECONDS - start)) s; WRITEs answered: c1 $prev1, c2 $prev2"
check "every edit of $cycles cycles was accepted${edit_fail:+: not $edit_fail}" test -z "$edit_fail"
check "both mounts' WRITEs went on in every cycle${stalls:+: ${stalls[*]}}" \
	test "${#stalls[@]}" -eq 0
check "the flushed table emptied to no client in $emptied of $cycles cycles (every transport unbound, then bound again)" \
	test "$emptied" -ge 1
umount_both() { umount "$base/c1" && umount "$base/c2"; }
check "both mounts unmount" wait_until 60 umount_both
"$ctl" -F > /dev/null 2>&1
check "at rest: no client left" wait_until 30 no_client
warnings=$(kernel_log | grep -cE 'WARNING:|BUG:|refcount_t:|list_(add|del) corruption|possible circular locking|suspicious RCU usage')
check "the kernel logged no warning, BUG or lock report${warnings/#0/}" test "$warnings" -eq 0 ||
	diag "$(dmesg | grep -E -A12 'WARNING:|BUG:' | head -c 2000)"
tap_done
