#!/bin/bash
# Inside the guest: a corpus of hand-built malformed requests to the
# nfsfair family (tests/integration/netlink-corpus.py, raw netlink, bytes
# ynl would refuse to send): wrong lengths, out-of-range values, family
# mismatches, missing, duplicate and unknown attributes, bad names,
# missing classes, stale generations, the class and rule caps, garbage
# in table-replace's nests, dump filters that do not exist, bad commands
# and headers, requests without CAP_NET_ADMIN. Each is one test point:
# refused with its errno and an extack pointing at the attribute it
# broke, and the generation, rule dump and class dump byte for byte as
# before. The last line sums them. With -v, each point's reply (errno
# and extack) follows it as a comment.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/uml/guest-lib.sh"

corpus=$top/tests/integration/netlink-corpus.py
ctl=$top/cli/nfsfair-ctl
work=/run/nfsfair-corpus
verbose=false
[ "${1:-}" = -v ] && verbose=true
mkdir -p $work

# nfsd runs, so client-get walks a real service; nothing connects, so
# no counter moves while the dumps are compared.
require "nfsd starts" nfsd_start 4
require "baseline loaded through the corpus's own builder" python3 "$corpus" setup
# ynl reads the baseline back: the builder's bytes mean what it thinks.
check "ynl reads back the baseline: 3 classes, 5 rules (4 by hand, 1 of origin 7)" eval \
	'[ "$(ynl --dump class-get | grep -o "\"name\"" | wc -l)" = 3 ] &&
	 [ "$(ynl --dump rule-get | grep -o "\"origin\": 0" | wc -l)" = 4 ] &&
	 [ "$(ynl --dump rule-get | grep -o "\"origin\": 7" | wc -l)" = 1 ]'
require "nfsfair-ctl save before the corpus" eval '"$ctl" save > $work/before'
dmesg -C

total=0
refused=0
unchanged=0
python3 "$corpus" run > $work/results 2> $work/stderr
status=$?
while IFS=$'\t' read -r kind name verdict a b detail; do
	case $kind in
	case)
		total=$((total + 1))
		refused=$((refused + a))
		unchanged=$((unchanged + b))
		if check "$name" [ "$verdict" = ok ]; then
			! $verbose || diag "$detail"
		else
			diag "$detail"
		fi ;;
	control)
		check "control: $name" [ "$verdict" = ok ] || diag "$detail" ;;
	esac
done < $work/results
check "the corpus program ran to its end (exit $status)" [ "$status" = 0 ] ||
	sed 's/^/# /' $work/stderr

check "nfsfair-ctl save after the corpus is the same as before" eval \
	'"$ctl" save > $work/after && diff -u $work/before $work/after' ||
	diff -u $work/before $work/after | sed 's/^/# /'
kernel_log > $work/dmesg
pattern='WARNING|\<BUG:|refcount_t|list_add corruption|list_del corruption|use-after-free in|Call Trace'
check "dmesg: no WARNING, BUG, refcount_t, list corruption, use-after-free or Call Trace" \
	eval '! grep -qE "$pattern" $work/dmesg' ||
	grep -E -B2 -A10 "$pattern" $work/dmesg | head -60 | sed 's/^/# /'
check "at least 60 malformed requests sent ($total)" [ "$total" -ge 60 ]

if [ "$refused" = "$total" ] && [ "$unchanged" = "$total" ]; then
	diag "$total malformed requests refused, state unchanged in all $total"
else
	diag "$refused of $total malformed requests refused, state unchanged in $unchanged of $total"
fi
tap_done
