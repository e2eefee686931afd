#!/bin/bash
# guest-args: --append kmemleak=on --mem 1G
# Inside the guest: allocation failure at every point (issue 10, item 2).
# With failslab and a task's fail-nth, the N-th slab allocation of one
# syscall fails, for N = 1, 2, ... until the operation runs unhurt:
# table-replace, class-new and the rule edits (the request's sendmsg),
# the class, rule and client dumps (their sendmsg, then each recvmsg),
# and nfsd accepting a connection that makes a per-host or a class
# client (nfsd's thread). Each failure must give an error (ENOMEM or
# ENOBUFS) and leave the table as it was (generation, save, dumps), or
# be got over with a whole result (the new table when only the reply
# was lost; an accept: the call served or the connection closed, bound
# to one client that goes with it); never a warning; and at the end,
# with the table emptied and the connections closed, a kmemleak scan
# must name no nfsfair object. alloc-failure.py does the failing.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/uml/guest-lib.sh"

ctl=$top/cli/nfsfair-ctl
helper=$top/tests/integration/alloc-failure.py
work=/run/alloc-failure
dbg=/sys/kernel/debug
mkdir -p $work

mountpoint -q $dbg || mount -t debugfs debugfs $dbg
if [ ! -d $dbg/failslab ] || [ ! -e /proc/thread-self/fail-nth ]; then
	echo "1..0 # SKIP this kernel has no failslab (CONFIG_FAILSLAB, FAULT_INJECTION_DEBUG_FS)"
	exit 0
fi

# Only tasks with fail-nth set fail (task-filter, probability 0), and
# GFP_KERNEL allocations too (ignore-gfp-wait off). Each failure is
# reported with its stack in the log, none held back by the rate limit:
# the helper reads where it happened there.
echo N > $dbg/failslab/ignore-gfp-wait
echo Y > $dbg/failslab/task-filter
echo 0 > $dbg/failslab/probability
echo 2 > $dbg/failslab/verbose
echo 0 > $dbg/failslab/verbose_ratelimit_interval_ms

# kmemleak takes commands only while it is on. A kernel built without
# it (the KASAN guest's: KASAN checks every access instead) runs the
# failure points and skips the leak scan, saying so.
leakcheck=1
if [ -e $dbg/kmemleak ]; then
	require "kmemleak is on (booted with kmemleak=on)" eval "echo stack=on > $dbg/kmemleak"
else
	leakcheck=
	diag "this kernel has no kmemleak (CONFIG_DEBUG_KMEMLEAK): no leak scan"
fi
require "nfsd starts with one thread (the one whose accepts fail)" nfsd_start 1

# field PATH KEY: a number from the helper's summary line of PATH.
field() { sed -n "s/^path $1 .*\<$2=\([0-9]*\).*/\1/p" $work/all.out; }

# bad PATH CHECKS: the helper's broken checks of PATH among CHECKS (a regex).
bad() { grep -E "^bad $1 [0-9]+ ($2):" $work/all.out; }

# none PATH CHECKS: no broken check of those kinds; show them otherwise.
none() {
	local lines
	lines=$(bad "$1" "$2")
	[ -z "$lines" ] && return 0
	head -5 <<< "$lines" | sed 's/^/# /'
	return 1
}

: > $work/all.out
for group in changes dumps accept; do
	start=$SECONDS
	python3 "$helper" "$ctl" $group > $work/$group.out 2> $work/$group.err
	rc=$?
	check "$group: the helper ran to the end in $((SECONDS - start)) s (exit $rc)" [ $rc = 0 ] ||
		sed 's/^/# /' $work/$group.err | tail -15
	cat $work/$group.out >> $work/all.out
done
grep -E '^(point|bad)' $work/all.out | sed 's/^/# /' > $work/points.diag

paths=$(sed -n 's/^path \([^ ]*\) .*/\1/p' $work/all.out)
for p in table-replace class-new rule-append rule-insert rule-replace rule-del rule-flush \
	class-get-dump rule-get-dump client-get-dump accept-per-host accept-class; do
	grep -qx -- "$p" <<< "$paths" || { check "$p: the helper reported on it" false; continue; }
	points=$(field "$p" points)
	ours=$(field "$p" ours)
	first=$(field "$p" first_ok)
	case $p in
	*-dump) what="its sendmsg and $((first - 1)) recvmsg" ;;
	accept-*) what="nfsd's thread (accept, first call)" ;;
	*) what="the request's sendmsg" ;;
	esac
	check "$p: the fault fired at $points point(s) in $what, then a run went clean" \
		eval '[ "$points" -ge 1 ] && [ "$first" -ge 1 ]'
	check "$p: no WARNING, BUG, leak or Call Trace in the log after any" none "$p" dmesg
	case $p in
	accept-*)
		check "$p: one failed allocation per run" none "$p" syscall
		check "$p: $ours failure point(s) in nfsfair's own allocations" [ "$ours" -ge 1 ]
		check "$p: after each, the call served, or its connection closed or dropped" \
			none "$p" served
		check "$p: after each, the connection in one ${p#accept-} client, gone at close" \
			none "$p" client
		check "$p: the table (save, classes, rules) unchanged by each accept" none "$p" state
		# A peer left uncounted by a failure (N=peer_n), then a second
		# connection from it: the first one's close must not uncount it.
		peer_n=$(field "$p" peer_n)
		if [ "$peer_n" -ge 1 ]; then
			what="a connection left uncounted (N=$peer_n) closing leaves another's peer counted"
		else
			what="no failure left a connection's peer uncounted"
		fi
		check "$p: $what" none "$p" peers
		check "$p: the clean run served the call" none "$p" final ;;
	*)
		check "$p: each failure one allocation, inside the armed syscall" none "$p" syscall
		check "$p: each failure refused with ENOMEM or ENOBUFS, or got over whole" \
			none "$p" errno ;;&
	*-dump)
		check "$p: the table unchanged; each dump ended well whole, and the next one" \
			none "$p" 'state|reference'
		check "$p: the unfired runs dumped every entry" none "$p" final ;;
	table-*|class-*|rule-*)
		check "$p: the old table after each refusal, the new after each success" \
			none "$p" 'state|reference'
		check "$p: $ours failure point(s) in nfsfair's own allocations" [ "$ours" -ge 1 ]
		check "$p: the clean run (N=$first) applied the change" none "$p" final ;;
	esac
done
kinds='syscall|errno|state|reference|dmesg|final|client|served|peers'
known="($(tr '\n' '|' <<< "$paths" | sed 's/|$//')) [0-9]+ ($kinds):"
check "no other broken check" eval '! grep -E "^bad " $work/all.out | grep -vE "^bad $known"' ||
	grep -E "^bad " $work/all.out | grep -vE "^bad $known" | head -5 | sed 's/^/# /'
peer=$(grep -c '^point accept-.* whole:peer-uncounted ' $work/all.out)
[ "$peer" = 0 ] || diag "$peer accept(s) failed in svc_fair_peer_count: connection bound," \
	"its peer uncounted (peers 0, missed by client-get's peer filter)"

# Per failure point: PATH N SYSCALL OUTCOME SITE, for the log.
cat $work/points.diag

# Leaks: with the table empty and every connection closed, nothing of
# nfsfair's may be left. kmemleak reports an object once it has been
# unreferenced for 5 s, so scan, wait, scan again.
check "the table emptied (restore of nothing)" eval '"$ctl" restore < /dev/null'
check "no client left" eval '[ "$(ynl --dump client-get)" = "[]" ]'
if [ -n "$leakcheck" ]; then
	check "kmemleak: still on after the run, first scan" eval "echo scan > $dbg/kmemleak"
	sleep 6
	check "kmemleak: second scan" eval "echo scan > $dbg/kmemleak"
	cat $dbg/kmemleak > $work/kmemleak
	python3 "$helper" leaks $work/kmemleak > $work/leaks
	leaks=$(sed -n 's/^leaks total=\([0-9]*\).*/\1/p' $work/leaks)
	ours_leaks=$(sed -n 's/^leaks .*ours=\([0-9]*\).*/\1/p' $work/leaks)
	check "kmemleak: no leak whose backtrace names svc_fair or nfsfair ($ours_leaks of $leaks)" \
		[ "$ours_leaks" = 0 ] || grep '^ours' $work/leaks | sed 's/^/# /'
	# Other kernel leaks: listed, not failed on.
	[ "${leaks:-0}" -gt 0 ] && diag "other kernel leaks (kmemleak): $((leaks - ours_leaks)), by site:"
	sed -n 's/^other /#   /p' $work/leaks
fi
# The helper checked the log after each failure; this is the rest (the
# failslab reports have a Call Trace each: not a pattern here).
kernel_log > $work/dmesg
pattern='WARNING|\<BUG:|refcount_t|list_add corruption|list_del corruption'
check "dmesg: no WARNING, BUG, refcount_t or list corruption" \
	eval '! grep -qE "$pattern" $work/dmesg' ||
	grep -E -A10 "$pattern" $work/dmesg | head -40 | sed 's/^/# /'

total=0
summary=
for p in $paths; do
	points=$(field "$p" points)
	total=$((total + points))
	summary="$summary; $p $points: $(field "$p" errors) refused, $(field "$p" whole) got over"
	[ "$(field "$p" ack_lost)" = 0 ] || summary="$summary, $(field "$p" ack_lost) ack lost"
	n=$(($(field "$p" closed) + $(field "$p" dropped)))
	[ $n = 0 ] || summary="$summary, $n connection(s) closed or dropped"
	summary="$summary ($(field "$p" ours) in nfsfair, $(field "$p" kmemleak) kmemleak's own)"
done
diag "failure points hit: $total${summary}"
tap_done
