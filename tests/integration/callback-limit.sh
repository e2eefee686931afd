#!/bin/bash
# guest-args: --time-travel
# guest-only: uml: nfsd waits 30 ms for a callback's reply; only in time-travel is that exact
# Inside the guest: NFSv4.1 callback replies under a class's thread limit
# (issue 41's review point). Client A (127.0.0.2) holds a write
# delegation on a file; client B (127.0.0.3, another client ID) stats
# it, and nfsd, in the thread serving B's GETATTR, sends A a CB_GETATTR
# and waits up to 30 ms for the reply, then recalls the delegation. A
# and B are in one class. Limited to 1, the class's only slot is that
# thread's; A's reply comes back on A's fore channel, and when it waited
# for a slot it came after nfsd's wait: nfsd recalled A's delegation
# every time.
#
# Three phases, each on a fresh file: no limit, --limit 1, the limit
# lifted. In each, B's stat gets A's size; nfsd got the CB_GETATTR's
# reply and recalled nothing (its trace); A still holds its delegation.
#
# Time-travel (the guest-args line): the guest's clock moves only while
# it is idle, so with no limit the reply is in before nfsd's 30 ms are
# up however loaded the host is, and under the limit it is late only if
# it waits for the slot.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/uml/guest-lib.sh"

ctl=$top/cli/nfsfair-ctl
trace=/sys/kernel/tracing
a=/run/nfsfair/cb-a b=/run/nfsfair/cb-b

# lockd's grace period (nlm_timeout x 5, 50 s) holds delegations back
# as nfsd's own does: both at 10 s.
echo 10 > /proc/sys/fs/nfs/nlm_grace_period
require "nfsd starts with 4 threads" nfsd_start 4
add_source_addr 127.0.0.2
add_source_addr 127.0.0.3
mkdir -p "$a" "$b"
require "client A mounts over NFSv4.1 from 127.0.0.2" \
	mount -t nfs -o vers=4.1 127.0.0.2:/ "$a"
# B must be another NFSv4.1 client, not A's second mount.
echo callback-limit-b > /sys/module/nfs/parameters/nfs4_unique_id
require "client B mounts over NFSv4.1 from 127.0.0.3 (noac: every stat asks)" \
	mount -t nfs -o vers=4.1,noac 127.0.0.3:/ "$b"
require "the class both are in: shared" "$ctl" -N shared
require "a rule puts 127.0.0.0/8 in it" "$ctl" -A -s 127.0.0.0/8 -j shared

events="nfsd_cb_getattr_done nfsd_cb_recall"
for e in $events; do
	echo 1 > "$trace/events/nfsd/$e/enable" || diag "no trace event nfsd:$e"
done

# has_write_deleg NAME: A holds a write delegation on /NAME now.
has_write_deleg() {
	grep -hs 'type: deleg, access: w' /proc/fs/nfsd/clients/*/states |
		grep -q "filename: \"/$1\""
}

# A opens a file read-write until delegations are granted (the two grace
# periods over), then closes it.
grace_over() {
	local f=grace-$((++grace_tries))
	exec 4<> "$a/$f"
	has_write_deleg "$f"
	local rc=$?
	exec 4>&-
	return $rc
}
grace_tries=0
require "A is granted write delegations once the grace periods are over" wait_until 120 grace_over
diag "A's opens until one was given a delegation: $grace_tries"

# phase NAME: A writes NAME and keeps it open with a write delegation;
# B's stat must then leave the delegation with A.
phase() {
	local name=$1 size
	exec 3<> "$a/$name"
	echo "written by A, not yet flushed" >&3
	check "$name: A holds a write delegation on its file" wait_until 10 has_write_deleg "$name"
	echo > "$trace/trace"
	size=$(stat -c %s "$b/$name")
	check "$name: B's stat gets A's size, 30 (got ${size:-nothing})" [ "${size:-0}" -eq 30 ]
	check "$name: nfsd got A's reply to its CB_GETATTR" \
		grep -q nfsd_cb_getattr_done "$trace/trace"
	check "$name: nfsd recalled no delegation" \
		bash -c '! grep -q nfsd_cb_recall: "$1"' _ "$trace/trace"
	check "$name: A still holds its delegation" has_write_deleg "$name"
	grep -v '^#' "$trace/trace" | sed "s/^ */# $name trace: /" | cut -c1-160
	exec 3>&-
}

phase no-limit
require "shared is limited to 1 thread" "$ctl" -E shared --limit 1
phase limit-1
require "the limit is lifted" "$ctl" -E shared --limit 0
phase lifted
"$ctl" classes -v | sed 's/^/# /'

umount "$b" "$a"
tap_done
