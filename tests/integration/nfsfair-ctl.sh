#!/bin/bash
# Inside the guest: nfsfair-ctl against the real nfsfair family. Every
# verb; bad inputs refused with a clear message and the table left as it
# was; save/flush/restore round trip; concurrent restores never mixed;
# hostnames; and stats/explain with real NFS traffic from 127.0.0.2 (a
# class) and 127.0.0.3 (per-host, nconnect=4).
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/uml/guest-lib.sh"

ctl=$top/cli/nfsfair-ctl
work=/run/nfsfair-ctl
mkdir -p $work /run/nfsfair/b /run/nfsfair/c

# state: what an admin reads back, to compare before and after.
state() { "$ctl" -S; "$ctl" classes; }

# refused DESC STATUS MESSAGE ARGS...: nfsfair-ctl ARGS exits STATUS,
# saying MESSAGE, and the table reads back the same.
refused() {
	local desc=$1 want=$2 msg=$3 before after status
	shift 3
	before=$(state)
	"$ctl" "$@" > $work/out 2> $work/err
	status=$?
	check "$desc: exit $want, '$msg'" eval '[ $status = $want ] && grep -qF -- "$msg" $work/err' ||
		diag "status $status: $(cat $work/err)"
	after=$(state)
	check "$desc: table unchanged" [ "$before" = "$after" ]
}

json_len() { python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'; }

require "nfsd starts" nfsd_start 8
add_source_addr 127.0.0.2
add_source_addr 127.0.0.3
require "-L answers on an empty table" eval '"$ctl" -L > /dev/null'

# Classes
check "-N movers --weight 2" "$ctl" -N movers --weight 2
check "-N interactive" "$ctl" -N interactive
check "-N scratch" "$ctl" -N scratch
check "-E scratch --weight 9" "$ctl" -E scratch --weight 9
check "classes shows scratch with weight 9" eval '"$ctl" classes | grep -qE "^scratch +9 +- +0$"'
check "-X scratch" "$ctl" -X scratch
check "classes --json: two classes" eval '[ "$("$ctl" classes --json | json_len)" = 2 ]'

# Rules
check "-A -s 127.0.0.2 -j movers" "$ctl" -A -s 127.0.0.2 -j movers
check "-A -s 127.0.0.0/8 -j per-host" "$ctl" -A -s 127.0.0.0/8 -j per-host
check "-I 1 -s ::1 -j interactive" "$ctl" -I 1 -s ::1 -j interactive
check "-A -s 10.0.0.0/8 -j per-host/24 --origin 7" "$ctl" -A -s 10.0.0.0/8 -j per-host/24 --origin 7
"$ctl" -L -v --line-numbers > $work/list
cat > $work/want <<'LIST'
num      hits origin target           source
1           0 0      interactive      ::1/128
2           0 0      movers           127.0.0.2/32
3           0 0      per-host         127.0.0.0/8
4           0 7      per-host/24      10.0.0.0/8
LIST
check "-L -v --line-numbers: the four rules in order" diff -u $work/want $work/list ||
	sed 's/^/# /' $work/list
check "-L --json: four rules, the second movers" eval \
	'"$ctl" -L --json | python3 -c "import json,sys; r=json.load(sys.stdin); assert len(r) == 4 and r[1][\"class\"] == \"movers\" and r[3][\"per-host-len\"] == 24"'
check "-C finds -s 127.0.0.2 -j movers" "$ctl" -C -s 127.0.0.2 -j movers
check "-C: no -s 127.0.0.9 -j movers, exit 1" eval '"$ctl" -C -s 127.0.0.9 -j movers 2> /dev/null; [ $? = 1 ]'
check "-R 4 -s 10.0.0.0/8 -j movers --origin 7" "$ctl" -R 4 -s 10.0.0.0/8 -j movers --origin 7
check "-S shows the replaced rule" eval '"$ctl" -S | sed -n 4p | grep -qx -- "-A -s 10.0.0.0/8 -j movers --origin 7"'
check "-D -s 10.0.0.0/8 -j movers" "$ctl" -D -s 10.0.0.0/8 -j movers
check "-D 1" "$ctl" -D 1
want='-A -s 127.0.0.2/32 -j movers
-A -s 127.0.0.0/8 -j per-host'
check "-S: two rules left" [ "$("$ctl" -S)" = "$want" ]
check "-S output feeds back: -F then each line" eval \
	'"$ctl" -S > $work/rules && "$ctl" -F && while read -r l; do eval "\"$ctl\" $l" || exit 1; done < $work/rules && [ "$("$ctl" -S)" = "$want" ]'

# Refusals
refused "malformed prefix" 2 "-s '10.0.0': not an IPv4 or IPv6 address" -A -s 10.0.0 -j movers
refused "host bits set" 2 "-s '10.0.0.1/8': host bits set past /8" -A -s 10.0.0.1/8 -j movers
refused "IPv4 /33" 2 "prefix length 33 is past /32" -A -s 10.0.0.0/33 -j movers
refused "IPv6 /129" 2 "prefix length 129 is past /128" -A -s ::/129 -j movers
refused "unknown class" 1 "kernel reports: no class 'nope' (-j nope)" -A -s 10.0.0.0/8 -j nope
refused "position out of range" 1 "kernel reports: position 9 is past the table's 2 rule(s) (-I 9)" \
	-I 9 -s 10.0.0.0/8 -j movers
refused "-D position out of range" 1 "kernel reports:" -D 7
refused "class name too long" 2 "'a-name-too-long-x': a class name is 1 to 15 bytes" \
	-N a-name-too-long-x
refused "class exists" 1 "kernel reports:" -N movers
refused "class in use" 1 "kernel reports: class 'movers' is the target of 1 rule(s) (-X movers)" \
	-X movers
refused "unresolvable host" 1 "-s 'no-such-host.invalid':" -A -s no-such-host.invalid -j movers
refused "usage: -L with -j" 2 "nfsfair-ctl: -L does not take -j TARGET" -L -j movers
check "-A without CAP_NET_ADMIN (as nobody): exit 1, the kernel's EPERM says what it needs" eval \
	'setpriv --reuid=nobody --regid=nogroup --clear-groups "$ctl" -A -s 10.0.0.0/8 -j per-host 2> $work/err
	 [ $? = 1 ] && grep -qF -- "-A needs CAP_NET_ADMIN (root)" $work/err' || diag "$(cat $work/err)"

# Hostnames: localhost from the host's /etc/hosts, each address its own rule.
"$ctl" -A -s localhost -j interactive 2> $work/err
check "-A -s localhost says what it resolved to" grep -q "'localhost' resolved to" $work/err
diag "$(cat $work/err)"
check "-S has a /32 or /128 rule per address of localhost" eval \
	'for a in $(sed "s/.*: //; s/,//g" $work/err); do "$ctl" -S | grep -qE -- "-s $a/(32|128) -j interactive$" || exit 1; done'
check "-C -s localhost -j interactive" "$ctl" -C -s localhost -j interactive 2> /dev/null
check "-D -s localhost -j interactive" "$ctl" -D -s localhost -j interactive 2> /dev/null
check "-S back to two rules" [ "$("$ctl" -S)" = "$want" ]

# save, -F, restore
"$ctl" -A -s 10.9.0.0/16 -j per-host/24 --origin 7
"$ctl" save > $work/saved
check "save: classes, then rules" eval '[ "$(head -c 3 $work/saved)" = "-N " ] && grep -q -- "--origin 7" $work/saved'
check "-F" "$ctl" -F
check "-F leaves no rules" [ -z "$("$ctl" -S)" ]
check "restore gives the table back" "$ctl" restore $work/saved
check "save after restore is identical" diff -u $work/saved <("$ctl" save)
check "-F --origin 7 keeps origin 0" eval '"$ctl" -F --origin 7 && [ "$("$ctl" -S)" = "$want" ]'
check "restore from stdin" eval '"$ctl" restore < $work/saved && diff $work/saved <("$ctl" save)'
sed 's|^-A -s 127.0.0.0/8.*|-A -s 127.0.0.0/8 -j missing|' $work/saved > $work/bad
line=$(grep -n missing $work/bad | cut -d: -f1)
refused "restore naming a missing class" 1 "$work/bad:$line: no class 'missing'" restore $work/bad
sed 's|^-A -s 127.0.0.0/8.*|-A -s 127.0.0.1/8 -j movers|' $work/saved > $work/bad
refused "restore with a bad prefix" 1 "$work/bad:$line: '127.0.0.1/8': host bits set past /8" \
	restore $work/bad
check "restore --test changes nothing" eval \
	'"$ctl" -F --origin 7 && "$ctl" restore --test $work/saved > /dev/null && [ "$("$ctl" -S)" = "$want" ]'
"$ctl" restore $work/saved
printf -- '-N extra --weight 4\n-A -s 198.18.0.0/15 -j extra --origin 9\n' > $work/noflush
check "restore --noflush adds origin 9 and keeps the rest" eval \
	'"$ctl" restore --noflush $work/noflush && diff <(cat $work/saved; sed 1d $work/noflush) <("$ctl" save | grep -v "^-N extra")'
check "restore without --noflush drops origin 9 and class extra" eval \
	'"$ctl" restore $work/saved && diff $work/saved <("$ctl" save)'

# The table is ordered across origins too: a file whose origin-7 rule
# comes before origin 0's comes back in that order, into an empty table
# and over one in another order; one that splits an origin's rules
# (which table-replace cannot rebuild) is refused, naming the line.
printf -- '-N movers --weight 1\n-A -s 10.7.0.0/16 -j per-host --origin 7\n-A -s 127.0.0.2/32 -j movers\n-A -s 127.0.0.0/8 -j per-host\n' \
	> $work/order
"$ctl" -F
check "restore: origin 7's rule first, into an empty table, then save: the same file" eval \
	'"$ctl" restore $work/order && diff -u $work/order <("$ctl" save)'
"$ctl" restore $work/saved
check "restore: the same over a table with origin 0 first" eval \
	'"$ctl" restore $work/order && diff -u $work/order <("$ctl" save)'
printf -- '-N movers --weight 1\n-A -s 127.0.0.2/32 -j movers\n-A -s 10.7.0.0/16 -j per-host --origin 7\n-A -s 127.0.0.0/8 -j per-host\n' \
	> $work/split
refused "restore of a file that splits origin 0 around origin 7" 1 \
	"$work/split:4: origin 0 again, after origin 7's rule on line 3" restore $work/split
check "and the table is as it was" diff -u $work/order <("$ctl" save)
"$ctl" restore $work/saved

# Two restores at once: afterwards the table is one file or the other.
"$ctl" -N bulk --weight 5
"$ctl" -A -s 192.0.2.0/24 -j bulk --origin 3
"$ctl" -R 1 -s 127.0.0.2 -j interactive
"$ctl" save > $work/other
"$ctl" restore $work/saved
check "the two files differ" eval '! cmp -s $work/saved $work/other'
mixed=0
for i in 1 2 3 4 5; do
	"$ctl" restore $work/saved & a=$!
	"$ctl" restore $work/other & b=$!
	wait $a; sa=$?
	wait $b; sb=$?
	"$ctl" save > $work/now
	if [ $sa != 0 ] || [ $sb != 0 ] || ! { cmp -s $work/now $work/saved || cmp -s $work/now $work/other; }; then
		mixed=$((mixed + 1))
		diag "round $i: status $sa $sb"; sed 's/^/# /' $work/now
	fi
done
check "5 rounds of concurrent restores: never a mix" [ $mixed = 0 ]
"$ctl" restore $work/saved
check "restore removes classes the file lacks (bulk)" eval '! "$ctl" classes | grep -q "^bulk "'

# ids-per-host: a per-client rule's, shown only when not the default (4);
# it round-trips through -S and save/restore, is part of the rule for -C
# and -D, and is refused out of 1..4096 or on another target.
"$ctl" -F
check "-A -s 127.0.0.0/8 -j per-client --ids-per-host 2" \
	"$ctl" -A -s 127.0.0.0/8 -j per-client --ids-per-host 2
check "-A -s 10.0.0.0/8 -j per-client/24 (the default ids-per-host)" \
	"$ctl" -A -s 10.0.0.0/8 -j per-client/24
want_ids='-A -s 127.0.0.0/8 -j per-client --ids-per-host 2
-A -s 10.0.0.0/8 -j per-client/24'
check "-S: --ids-per-host 2 shown, the default not" [ "$("$ctl" -S)" = "$want_ids" ] ||
	diag "$("$ctl" -S)"
check "-L --json: ids-per-host 2, and 4 for the rule given none" eval \
	'"$ctl" -L --json | python3 -c "import json,sys; r=json.load(sys.stdin); assert [x[\"ids-per-host\"] for x in r] == [2, 4], r"'
check "-C finds it with --ids-per-host 2, not with the default" eval \
	'"$ctl" -C -s 127.0.0.0/8 -j per-client --ids-per-host 2 &&
	 ! "$ctl" -C -s 127.0.0.0/8 -j per-client 2> /dev/null'
check "-S output feeds back: -F then each line" eval \
	'"$ctl" -S > $work/ids-rules && "$ctl" -F &&
	 while read -r l; do eval "\"$ctl\" $l" || exit 1; done < $work/ids-rules &&
	 [ "$("$ctl" -S)" = "$want_ids" ]'
"$ctl" save > $work/ids-saved
check "save: --ids-per-host 2 written, the default not" eval \
	'grep -qx -- "-A -s 127.0.0.0/8 -j per-client --ids-per-host 2" $work/ids-saved &&
	 grep -qx -- "-A -s 10.0.0.0/8 -j per-client/24" $work/ids-saved'
check "-F, restore: the same table" eval \
	'"$ctl" -F && "$ctl" restore $work/ids-saved && diff -u $work/ids-saved <("$ctl" save)'
refused "--ids-per-host 0" 2 "nfsfair-ctl: --ids-per-host '0': a number from 1 to 4096" \
	-A -s 192.0.2.0/24 -j per-client --ids-per-host 0
refused "--ids-per-host 5000" 2 "nfsfair-ctl: --ids-per-host '5000': a number from 1 to 4096" \
	-A -s 192.0.2.0/24 -j per-client --ids-per-host 5000
refused "--ids-per-host 2 -j per-host" 2 \
	"nfsfair-ctl: -A --ids-per-host 2 needs -j per-client[/N], not -j per-host" \
	-A -s 192.0.2.0/24 --ids-per-host 2 -j per-host
printf -- '-A -s 192.0.2.0/24 -j per-host --ids-per-host 2\n' > $work/ids-bad
refused "restore of --ids-per-host on a per-host rule" 1 \
	"$work/ids-bad:1: --ids-per-host 2 needs -j per-client[/N], not -j per-host" \
	restore $work/ids-bad
refused "-D by spec with the default ids-per-host: not that rule" 1 "kernel reports:" \
	-D -s 127.0.0.0/8 -j per-client
check "-D -s 127.0.0.0/8 -j per-client --ids-per-host 2" \
	"$ctl" -D -s 127.0.0.0/8 -j per-client --ids-per-host 2
check "-S: the rule with the default left" [ "$("$ctl" -S)" = "-A -s 10.0.0.0/8 -j per-client/24" ]
"$ctl" restore $work/saved

# monitor: it joins the group, then copies the table, so a change made
# before its copy prints nothing; and a change made before it has printed
# the previous one may fold into it. So each change waits (bounded) for
# its line, and one that printed nothing is followed by another, until
# --count 2 lines are out: how long that takes depends on the host.
"$ctl" monitor --count 2 > $work/monitor &
mon=$!
lines() { wc -l < $work/monitor; }
more_or_gone() { [ "$(lines)" -gt "$1" ] || ! kill -0 $mon 2> /dev/null; }
for w in $(seq 2 21); do
	kill -0 $mon 2> /dev/null || break
	n=$(lines)
	"$ctl" -E interactive --weight $w
	wait_until 5 more_or_gone "$n"
done
"$ctl" -E interactive --weight 1
kill $mon 2> /dev/null
wait $mon
check "monitor --count 2: two generations, one apart" eval \
	'[ $(wc -l < $work/monitor) = 2 ] && [ $(($(sed -n 2p $work/monitor | cut -d" " -f2) - $(sed -n 1p $work/monitor | cut -d" " -f2))) = 1 ]' ||
	diag "$(cat $work/monitor)"

# --netns: each namespace has a table of its own.
if ip netns add ctltest 2> /dev/null; then
	check "--netns: a class in another namespace" "$ctl" --netns ctltest -N elsewhere
	check "--netns: a rule there" "$ctl" --netns ctltest -A -s 198.51.100.0/24 -j elsewhere
	check "--netns: the rule is listed there" eval \
		'"$ctl" --netns ctltest -S | grep -qx -- "-A -s 198.51.100.0/24 -j elsewhere"'
	check "--netns: and not here" eval '! "$ctl" -S | grep -q 198.51.100'
	ip netns del ctltest
fi
refused "--netns with no such namespace" 1 "network namespace 'nope'" --netns nope -L

# Real traffic: stats and explain
check "-Z" "$ctl" -Z
require "mount vers=3 from 127.0.0.2 (movers)" mount -t nfs -o vers=3 \
	"127.0.0.2:$nfsfair_export" /run/nfsfair/b
require "mount nconnect=4 from 127.0.0.3 (per-host)" mount -t nfs -o vers=3,nconnect=4 \
	"127.0.0.3:$nfsfair_export" /run/nfsfair/c
load() {
	local i
	for i in 1 2 3 4 5 6; do
		dd if=/dev/zero of="$1/f$i" bs=64k count=32 conv=fsync status=none
	done
}
load /run/nfsfair/b & lb=$!
load /run/nfsfair/c & lc=$!
"$ctl" stats -w 1 > $work/stats
wait $lb $lc
sed 's/^/# /' $work/stats
check "stats: movers has dispatches/s > 0 under load" \
	awk '$1 == "movers" && $4 + 0 > 0 { found = 1 } END { exit !found }' $work/stats
check "stats: movers has a share of thread-time, and a time per call with its unit" \
	awk '$1 == "movers" && $2 ~ /^[0-9.]+%$/ && $2 + 0 > 0 && $5 ~ /^[0-9.]+(ns|us|ms|s)$/ {
		found = 1 } END { exit !found }' $work/stats
check "stats: the interval's thread-time in the first line" \
	grep -qE "^every 1s: [0-9]+ dispatches to classes, [0-9.]+(ns|us|ms|s) of thread-time$" $work/stats
check "stats fits 80 columns" eval '[ $(wc -L < $work/stats) -le 80 ]'
check "stats --json: one document, movers dispatched" eval \
	'"$ctl" stats --json | python3 -c "import json,sys; s=json.load(sys.stdin); assert any(c[\"class\"] == \"movers\" for c in s[\"classes\"])"'
check "stats movers -w 1 --count 2: two screens" eval \
	'[ $("$ctl" stats movers -w 1 --count 2 | grep -c "^movers ") = 2 ]'
"$ctl" explain 127.0.0.3 > $work/explain
sed 's/^/# /' $work/explain
check "explain 127.0.0.3: the per-host rule" \
	grep -q "^127.0.0.3: rule 2 (-s 127.0.0.0/8 -j per-host) -> per-host" $work/explain
check "explain 127.0.0.3: its client, 4 connections" \
	grep -q "client per-host 127.0.0.3/32: connections 4 " $work/explain
check "explain 127.0.0.2: movers, 1 connection" eval \
	'"$ctl" explain 127.0.0.2 | grep -q "client class movers: connections 1 "'
check "explain 127.0.0.3: its thread-time, its share of all clients', its cost" \
	grep -qE "client per-host 127.0.0.3/32: .* thread-time [0-9.]+(us|ms|s) \([0-9.]+%\) cost [0-9.]+(ns|us|ms|s);" \
	$work/explain
check "explain --json: movers' thread_ns > 0, a share, a cost" eval \
	'"$ctl" explain 127.0.0.2 --json | python3 -c "import json,sys; c=json.load(sys.stdin)[0][\"clients\"][0]; assert c[\"thread_ns\"] > 0 and 0 < c[\"thread_share_pct\"] <= 100 and c[\"cost_ns\"] > 0, c"'
check "classes --json: movers' thread-ns > 0 after the load" eval \
	'"$ctl" classes --json | python3 -c "import json,sys; assert [c for c in json.load(sys.stdin) if c[\"name\"] == \"movers\"][0][\"thread-ns\"] > 0"'
check "explain 203.0.113.9 --json: no rule, default" eval \
	'"$ctl" explain 203.0.113.9 --json | python3 -c "import json,sys; e=json.load(sys.stdin)[0]; assert e[\"position\"] is None and e[\"target\"] == \"default\""'
"$ctl" -L -v --line-numbers > $work/list
sed 's/^/# /' $work/list
check "-L -v: hits counted on the per-host rule" \
	awk '$1 == 2 && $2 + 0 >= 4 { found = 1 } END { exit !found }' $work/list

# A live edit: the mount's open connections move at their next request,
# and explain says where they are meanwhile.
check "-I 1 -s 127.0.0.3 -j movers under open connections" "$ctl" -I 1 -s 127.0.0.3 -j movers
"$ctl" explain 127.0.0.3 > $work/explain
sed 's/^/# /' $work/explain
check "explain after the edit: the new rule" \
	grep -q "^127.0.0.3: rule 1 (-s 127.0.0.3/32 -j movers) -> movers" $work/explain
check "explain after the edit: idle connections still per-host, moving" \
	grep -q "client per-host 127.0.0.3/32: .*this peer's 4, moving at their next request" $work/explain
load /run/nfsfair/c
"$ctl" explain 127.0.0.3 > $work/explain
sed 's/^/# /' $work/explain
check "explain after traffic: all 4 connections in movers, none elsewhere" eval \
	'grep -q "client class movers: connections 5 .*this peer.s 4$" $work/explain &&
	 [ "$(grep -c "^  client" $work/explain)" = 1 ]'
check "explain --json: one client, movers, not moving" eval \
	'"$ctl" explain 127.0.0.3 --json | python3 -c "import json,sys; c=json.load(sys.stdin)[0][\"clients\"]; assert len(c) == 1 and c[0][\"class\"] == \"movers\" and c[0][\"peer_connections\"] == 4 and not c[0][\"moving\"]"'
check "-D 1: back to per-host" "$ctl" -D 1
load /run/nfsfair/c
check "explain after -D 1 and traffic: per-host again, movers keeps 127.0.0.2" eval \
	'"$ctl" explain 127.0.0.3 | grep -q "client per-host 127.0.0.3/32: connections 4 .*this peer.s 4$" &&
	 "$ctl" explain 127.0.0.2 | grep -q "client class movers: connections 1 "'
umount /run/nfsfair/b /run/nfsfair/c

# A big table goes in one table-replace: 20,000 rules in one origin.
{
	echo "-N big"
	for i in $(seq 0 19999); do
		echo "-A -s 10.$((i / 256)).$((i % 256)).0/24 -j big --origin 5"
	done
} > $work/big.save
check "restore --noflush of 20,000 rules in one origin" "$ctl" restore --noflush $work/big.save
check "all 20,000 are in the table, in order" \
	eval '[ "$("$ctl" -S | grep -c -- "--origin 5$")" = 20000 ] &&
	      "$ctl" -S | grep -- "--origin 5$" | tail -1 | grep -q "^-A -s 10.78.31.0/24 -j big"'
check "flush origin 5" "$ctl" -F --origin 5
tap_done
