#!/bin/bash
# Inside the guest: drive the nfsfair family with the kernel's own ynl CLI
# and its spec, no code of ours. Classes and rules go in and come back
# out in order; real NFS connections from 127.0.0.2 and 127.0.0.3 land in
# the clients the rules name; bad requests are refused with an extack
# message naming the attribute, and leave the table as it was.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/uml/guest-lib.sh"

log=/run/nfsfair/ynl.log
mkdir -p /run/nfsfair /run/nfsfair/a /run/nfsfair/b /run/nfsfair/c

quiet() { "$@" > /dev/null; }

# field JSON KEY: a top-level field of a ynl JSON reply.
field() { python3 -c 'import json,sys; print(json.loads(sys.argv[1]).get(sys.argv[2]))' "$1" "$2"; }

# state: everything an admin can read back, to compare before and after;
# not what the mounts' connections move (an NFS client closes a connection
# idle for 5 minutes, and on a KASAN guest this suite takes 14): the
# counters, and a class's split by pool, there only while it has a client.
state() {
	ynl --dump class-get | sed -e 's/, *"pool": \[[^]]*\]//g' \
		-e 's/"\(dispatches\|qtime-[a-z-]*\|threads\|queued\|connections\|peers\)": [0-9]*, *//g'
	ynl --dump rule-get | sed 's/"hits": [0-9]*//g'
}

# ynl_bytes OP JSON: OP through the kernel tree's ynl library, with hex
# addr4/addr6 values sent as raw bytes: its CLI takes an address only as
# text, so a wrong length cannot be said there.
ynl_bytes() {
	local ynl_lib ynl_spec ynl_schema
	ynl_paths
	python3 - "$ynl_lib" "$ynl_spec" "$ynl_schema" "$@" <<'EOF'
import json
import sys
sys.path.insert(0, sys.argv[1])
from lib import YnlFamily, NlError

attrs = json.loads(sys.argv[5])
for k in ("addr4", "addr6"):
    if k in attrs:
        attrs[k] = bytes.fromhex(attrs[k])
try:
    print(json.dumps(YnlFamily(sys.argv[2], sys.argv[3]).do(sys.argv[4], attrs)))
except NlError as e:
    print(e)
    sys.exit(1)
EOF
}

# refused DESC MESSAGE [ynl_bytes] ARGS...: ynl ARGS (or ynl_bytes ARGS)
# fails, extack says MESSAGE, and the table reads back the same.
refused() {
	local desc=$1 msg=$2 before after cmd=ynl
	shift 2
	[ "$1" = ynl_bytes ] && { cmd=ynl_bytes; shift; }
	before=$(state)
	if "$cmd" "$@" > "$log" 2>&1; then
		check "$desc: refused" false
		return
	fi
	check "$desc: refused with '$msg'" grep -q -- "$msg" "$log" || sed 's/^/# /' "$log"
	after=$(state)
	check "$desc: table unchanged" [ "$before" = "$after" ] ||
		diag "before: $before" "after: $after"
}

# fair_events_during CMD...: svc_fair_dequeue events while CMD runs (the
# trace kept in /run/nfsfair/trace).
fair_events_during() {
	local t=/sys/kernel/tracing
	echo > $t/trace
	echo 1 > $t/events/sunrpc/svc_fair_dequeue/enable
	"$@" > /dev/null
	echo 0 > $t/events/sunrpc/svc_fair_dequeue/enable
	cp $t/trace /run/nfsfair/trace
	grep -c svc_fair_dequeue /run/nfsfair/trace
}

require "nfsd starts" nfsd_start 8
add_source_addr 127.0.0.2
add_source_addr 127.0.0.3
require "the family answers table-get" quiet ynl --do table-get

# Unconfigured: the unchanged single queue, no clients, no fair dequeues.
require "mount from 127.0.0.2 with no table" mount -t nfs -o vers=3 \
	"127.0.0.2:$nfsfair_export" /run/nfsfair/a
events=$(fair_events_during dd if=/dev/zero of=/run/nfsfair/a/before bs=64k count=64 conv=fsync status=none)
check "no table: no fair dequeue while writing (saw $events)" [ "$events" -eq 0 ]
check "no table: no clients" [ "$(ynl --dump client-get)" = "[]" ]
# The NFS client shares one connection per server address: close it, so
# the next mount of 127.0.0.2 connects anew, after the rules.
check "unmount" umount /run/nfsfair/a

# Classes and rules
check "class-new movers weight 2" quiet ynl --do class-new --json '{"name": "movers", "weight": 2}'
check "class-new interactive" quiet ynl --do class-new --json '{"name": "interactive"}'
reply=$(ynl --do class-get --json '{"name": "movers"}')
check "class-get movers: weight 2" [ "$(field "$reply" weight)" = 2 ]
check "rule-append 127.0.0.2/32 -> movers" quiet ynl --do rule-append \
	--json '{"addr4": "127.0.0.2", "prefix-len": 32, "class": "movers"}'
check "rule-append 127.0.0.0/8 -> per-host/32" quiet ynl --do rule-append \
	--json '{"addr4": "127.0.0.0", "prefix-len": 8, "per-host-len": 32}'
check "rule-insert at 1: ::1/128 -> interactive" quiet ynl --do rule-insert \
	--json '{"position": 1, "addr6": "::1", "prefix-len": 128, "class": "interactive"}'
rules=$(ynl --dump rule-get)
want='[{"position": 1, "addr6": "::1", "prefix-len": 128, "class": "interactive", "origin": 0, "hits": 0}, {"position": 2, "addr4": "127.0.0.2", "prefix-len": 32, "class": "movers", "origin": 0, "hits": 0}, {"position": 3, "addr4": "127.0.0.0", "prefix-len": 8, "per-host-len": 32, "origin": 0, "hits": 0}]'
check "rule-get dumps the three rules in order" [ "$rules" = "$want" ] || diag "$rules"

# Real connections land where the rules say.
require "mount from 127.0.0.2 (movers)" mount -t nfs -o vers=3 \
	"127.0.0.2:$nfsfair_export" /run/nfsfair/b
require "mount from 127.0.0.3 with nconnect=4 (per-host)" mount -t nfs -o vers=3,nconnect=4 \
	"127.0.0.3:$nfsfair_export" /run/nfsfair/c
dd if=/dev/zero of=/run/nfsfair/b/m bs=64k count=64 conv=fsync status=none
dd if=/dev/zero of=/run/nfsfair/c/p bs=64k count=64 conv=fsync status=none
reply=$(ynl --do class-get --json '{"name": "movers"}')
check "movers: one connection (from the mount made after the rule)" \
	[ "$(field "$reply" connections)" = 1 ]
check "movers: dispatches counted ($(field "$reply" dispatches))" \
	[ "$(field "$reply" dispatches)" -gt 10 ]
check "movers: one peer address" [ "$(field "$reply" peers)" = 1 ]
clients=$(ynl --dump client-get)
diag "clients: $clients"
check "client-get: 127.0.0.3/32 is one per-host client with 4 connections, 1 peer" \
	grep -q '"kind": "per-host", "addr4": "127.0.0.3", "prefix-len": 32, "connections": 4, "dispatches": [0-9]*, "queued": [0-9]*, "peers": 1, "threads": [0-9]*, "thread-ns": [0-9]*, "cost-ns": [0-9]*, "pool": \[{"id": 0, "dispatches": [0-9]*, ' <<< "$clients"
check "client-get: the movers class is one client" \
	grep -q '"kind": "class", "class": "movers", "connections": 1' <<< "$clients"
events=$(fair_events_during sh -c 'ls -l /run/nfsfair/c &&
	dd if=/dev/zero of=/run/nfsfair/b/t bs=4k count=1 conv=fsync status=none')
check "with a table: reads from 127.0.0.3 go through fair dequeue ($events)" [ "$events" -gt 0 ]
# The events record the client raw and format it when read.
check "svc_fair_dequeue names the per-host client: kind, prefix, no class or ID" \
	grep -q 'fair=host class= prefix=127\.0\.0\.3/32 id=0x0 qtime-us=' /run/nfsfair/trace ||
	diag "$(grep -m3 svc_fair_dequeue /run/nfsfair/trace)"
check "svc_fair_dequeue names the movers class" \
	grep -q 'fair=class class=movers prefix=0\.0\.0\.0/0 id=0x0 qtime-us=' /run/nfsfair/trace
# The thread-time each dispatch charges: the client's running mean, or
# the pool's guess before its first call ended; never nothing.
check "svc_fair_dequeue carries the charge of each dispatch" \
	bash -c '! grep svc_fair_dequeue /run/nfsfair/trace | grep -qv " charge-ns=[1-9][0-9]*$"' ||
	diag "$(grep svc_fair_dequeue /run/nfsfair/trace | grep -v ' charge-ns=[1-9]' | head -3)"
check "hits counted on the per-host rule" \
	grep -q '"position": 3, .*"hits": [1-9]' <<< "$(ynl --dump rule-get)"

# A class's weight is read where it is used: class-set counts as a change
# (the generation moves, for table-replace's check) but looks no
# connection up again; a commit of rules does, even of a rule that
# matches none of them. Each lookup counts a hit on the rule it finds.
hits() { ynl --dump rule-get | grep -o '"hits": [0-9]*' | awk '{ n += $2 } END { print n + 0 }'; }
writes() {
	dd if=/dev/zero of=/run/nfsfair/b/w bs=4k count=1 conv=fsync status=none &&
	dd if=/dev/zero of=/run/nfsfair/c/w bs=4k count=1 conv=fsync status=none
}
writes
before=$(hits) gen=$(field "$(ynl --do table-get)" generation)
check "class-set movers weight 3" quiet ynl --do class-set --json '{"name": "movers", "weight": 3}'
writes
after=$(hits)
check "class-set is a change: generation $gen -> $((gen + 1))" \
	[ "$(field "$(ynl --do table-get)" generation)" = $((gen + 1)) ]
check "class-set looks no connection up again (hits $before -> $after)" [ "$after" = "$before" ]
check "rule-append 10.0.0.0/8 -> movers" quiet ynl --do rule-append \
	--json '{"addr4": "10.0.0.0", "prefix-len": 8, "class": "movers"}'
writes
check "a commit of rules does (hits $after -> $(hits))" [ "$(hits)" -gt "$after" ]
check "rule-del 10.0.0.0/8" quiet ynl --do rule-del --json '{"position": 4}'

# Refusals, each naming the attribute, each changing nothing
refused "host bits set" "host bits set past /8" --do rule-append \
	--json '{"addr4": "127.0.0.1", "prefix-len": 8, "class": "movers"}'
refused "IPv4 /33" "prefix-len 33 is past /32" --do rule-append \
	--json '{"addr4": "127.0.0.0", "prefix-len": 33, "class": "movers"}'
refused "IPv6 /129" "'bad-attr': '.prefix-len'" --do rule-append \
	--json '{"addr6": "::", "prefix-len": 129, "class": "movers"}'
refused "unknown class" "no class 'nope'" --do rule-append \
	--json '{"addr4": "10.0.0.0", "prefix-len": 8, "class": "nope"}'
refused "position out of range" "position 9 is past the table's 3 rule(s)" --do rule-insert \
	--json '{"position": 9, "addr4": "10.0.0.0", "prefix-len": 8, "class": "movers"}'
refused "class name too long" "'bad-attr': '.name'" --do class-new \
	--json '{"name": "a-name-too-long-x"}'
refused "two targets" "one target" --do rule-append \
	--json '{"addr4": "10.0.0.0", "prefix-len": 8, "class": "movers", "per-host-len": 32}'
refused "deleting a class in use" "is the target of 1 rule" --do class-del \
	--json '{"name": "movers"}'
refused "address of the wrong length" "'bad-attr': '.addr4'" ynl_bytes rule-append \
	'{"addr4": "7f0000", "prefix-len": 8, "class": "movers"}'
gen=$(field "$(ynl --do table-get)" generation)
refused "table-replace with a stale generation" "generation is $gen, not 1" --do table-replace \
	--json '{"origin": 7, "generation": 1, "rule": [{"addr4": "10.0.0.0", "prefix-len": 8, "per-host-len": 32}]}'
refused "table-replace with one bad rule: nothing applied" "no class 'missing'" --do table-replace \
	--json '{"origin": 7, "class": [{"name": "fresh"}], "rule": [{"addr4": "10.0.0.0", "prefix-len": 8, "class": "fresh"}, {"addr4": "11.0.0.0", "prefix-len": 8, "class": "missing"}]}'

# table-replace: one origin's rules swapped, all at once; others stay.
check "table-replace origin 7: a new class and two rules" quiet ynl --do table-replace \
	--json "{\"origin\": 7, \"generation\": $gen, \"class\": [{\"name\": \"backup\", \"weight\": 3}], \"rule\": [{\"addr4\": \"10.0.0.0\", \"prefix-len\": 8, \"class\": \"backup\"}, {\"addr4\": \"11.0.0.0\", \"prefix-len\": 8, \"per-host-len\": 24}]}"
rules=$(ynl --dump rule-get)
check "origin 7's rules follow the hand-made ones" \
	grep -q '"position": 4, "addr4": "10.0.0.0", "prefix-len": 8, "class": "backup", "origin": 7.*"position": 5, "addr4": "11.0.0.0"' <<< "$rules"
check "table-replace origin 7 again: one rule replaces two" quiet ynl --do table-replace \
	--json '{"origin": 7, "rule": [{"addr4": "12.0.0.0", "prefix-len": 8, "class": "backup"}]}'
rules=$(ynl --dump rule-get)
check "the table has 4 rules, origin 7's in place of its old ones" \
	[ "$(grep -o '"position"' <<< "$rules" | wc -l)" = 4 ]
reply=$(ynl --do class-get --json '{"name": "backup"}')
check "class backup created with weight 3" [ "$(field "$reply" weight)" = 3 ]

check "rule-del by match" quiet ynl --do rule-del \
	--json '{"addr6": "::1", "prefix-len": 128, "class": "interactive"}'
check "rule-del at position 1" quiet ynl --do rule-del --json '{"position": 1}'
check "rule-flush origin 7" quiet ynl --do rule-flush --json '{"origin": 7}'
rules=$(ynl --dump rule-get)
check "one rule left: 127.0.0.0/8 per-host" \
	grep -q '^\[{"position": 1, "addr4": "127.0.0.0", "prefix-len": 8, "per-host-len": 32' <<< "$rules"
check "class-set interactive weight 5" quiet ynl --do class-set --json '{"name": "interactive", "weight": 5}'
check "class-del interactive, no longer named" quiet ynl --do class-del --json '{"name": "interactive"}'
# A call on the movers mount first: its connection, idle since the dd,
# would otherwise be closed by the client 5 minutes on, and a thread
# taking that close is a dispatch. On a KCSAN guest those 5 minutes end
# about here, and once they ended between the zeroing and the read.
touch /run/nfsfair/b/m
check "counters-zero" quiet ynl --do counters-zero
reply=$(ynl --do class-get --json '{"name": "movers"}')
check "movers' dispatches zeroed" [ "$(field "$reply" dispatches)" = 0 ] ||
	diag "movers: $reply"

# The listener's start takes seconds on a slow guest: change the table
# only once a generic netlink socket has joined a group (/proc/net/netlink
# lists the first 32 as a mask). It must wait out the one ynl call that
# makes the change, seconds on a busy host, tens of seconds on a
# sanitizer's guest (12 s there got nothing), and stops at the first
# notification: nothing else runs between the join and the change.
gen=$(field "$(ynl --do table-get)" generation)
ynl_ntf changes $((12 * $(guest_slowness))) > /run/nfsfair/ntf 2>&1 &
joined() { awk '$2 == 16 && $4 != "00000000" { found = 1 } END { exit !found }' /proc/net/netlink; }
wait_until 60 joined
quiet ynl --do class-set --json '{"name": "movers", "weight": 4}'
wait
check "the changes group announces the change with generation $((gen + 1))" \
	grep -qF "{\"name\": \"change-ntf\", \"msg\": {\"generation\": $((gen + 1))}}" /run/nfsfair/ntf ||
	diag "$(cat /run/nfsfair/ntf)"

# A call on each mount first: their connections may have idled out.
touch /run/nfsfair/b/m /run/nfsfair/c/p
check "rule-flush (all)" quiet ynl --do rule-flush
check "client-get still lists live clients after a flush" [ "$(ynl --dump client-get)" != "[]" ]
umount /run/nfsfair/b /run/nfsfair/c
tap_done
