#!/bin/bash
# Inside the guest: nfsfair-ctl monitor prints what each change did (classes
# and rules, text and --json), and the shadowed-rule marks of -L and the
# warnings of restore --test against a real table.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/uml/guest-lib.sh"

ctl=$top/cli/nfsfair-ctl
work=/run/nfsfair-monitor
mkdir -p $work

require "nfsd starts" nfsd_start 4
require "-L answers on an empty table" eval '"$ctl" -L > /dev/null'

# Shadowed rules: contained, tiled by two halves, and the other family apart.
"$ctl" -N movers
"$ctl" -A -s 10.0.0.0/25 -j movers
"$ctl" -A -s 10.0.0.128/25 -j per-host
"$ctl" -A -s 10.0.0.0/24 -j movers
"$ctl" -A -s 0.0.0.0/0 -j per-host --origin 7
"$ctl" -A -s 2001:db8::/32 -j movers --origin 7
"$ctl" -A -s 192.0.2.1 -j movers --origin 7
"$ctl" -L --line-numbers > $work/list
cat > $work/want <<'LIST'
num  target           source
1    movers           10.0.0.0/25
2    per-host         10.0.0.128/25
3    movers           10.0.0.0/24  [shadowed by earlier rules]
4    per-host         0.0.0.0/0
5    movers           2001:db8::/32
6    movers           192.0.2.1/32  [shadowed by earlier rules]
LIST
check "-L marks the tiled and the contained rule shadowed" diff -u $work/want $work/list ||
	sed 's/^/# /' $work/list
check "-L --json: \"shadowed\" on rules 3 and 6 only" eval \
	'"$ctl" -L --json | python3 -c "import json,sys; r=json.load(sys.stdin); assert [x[\"shadowed\"] for x in r] == [False, False, True, False, False, True]"'
"$ctl" save > $work/saved
"$ctl" restore --test $work/saved > $work/out 2> $work/err
check "restore --test of the saved table exits 0, OK" eval \
	'[ $? = 0 ] && grep -qx "$work/saved: 1 class, 6 rules: OK" $work/out'
check "restore --test warns of the two shadowed rules by line" eval \
	'[ "$(grep -c "warning: .* is shadowed by earlier rules" $work/err)" = 2 ] &&
	 grep -qF "$work/saved:4: warning: '"'"'-s 10.0.0.0/24 -j movers'"'"' is shadowed by earlier rules" $work/err' ||
	sed 's/^/# /' $work/err
printf -- '-N lonely\n' >> $work/saved
check "restore --test warns of a class no rule names" eval \
	'"$ctl" restore --test $work/saved 2>&1 >/dev/null | grep -qF "$work/saved:8: warning: class '"'"'lonely'"'"' is named by no rule"'
check "-F" "$ctl" -F
check "-X movers" "$ctl" -X movers

# monitor: wait for its copy of the table before the changes to watch. A
# probe class's weight goes up until monitor prints it: then it is live.
# Each change waits for its line, so that none folds into the next.
"$ctl" -N probe
n_changes=9
"$ctl" monitor --count $((n_changes + 1)) > $work/monitor &
mon=$!
"$ctl" monitor --json --count 100 > $work/monitor.json &
monj=$!
# seen N: the text monitor has printed N change lines (grouped by generation)
seen() {
	local i
	for i in $(seq 100); do
		[ "$(cut -d' ' -f2 $work/monitor | sort -u | wc -l)" -ge "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
live=0
for w in 2 3 4 5 6 7 8 9 10; do
	"$ctl" -E probe --weight $w
	if seen 1; then
		live=1
		break
	fi
done
require "monitor prints a class weight change once it is live" [ $live = 1 ]
# the JSON monitor joined at the same time; it may have folded the probe
# change, so give it its own (it counts changes it printed)
require "monitor: first line is the probe" grep -q " class-set probe weight [0-9]* (was " $work/monitor
step=1
change() {
	step=$((step + 1))
	"$@" > /dev/null && seen $step
}
check "change: -N web --weight 3" change "$ctl" -N web --weight 3
check "change: -A -s 10.0.0.0/8 -j web" change "$ctl" -A -s 10.0.0.0/8 -j web
check "change: -I 1 -s 192.0.2.0/24 -j per-host/28 --origin 4" \
	change "$ctl" -I 1 -s 192.0.2.0/24 -j per-host/28 --origin 4
check "change: -A -s 2001:db8::/48 -j web --origin 4" change "$ctl" -A -s 2001:db8::/48 -j web --origin 4
check "change: -E web --weight 5" change "$ctl" -E web --weight 5
check "change: -D 2" change "$ctl" -D 2
check "change: -F --origin 4" change "$ctl" -F --origin 4
printf -- '-N probe --weight %s\n-N web --weight 2\n-A -s 198.51.100.0/24 -j web\n' $w \
	> $work/restore
check "change: restore" change "$ctl" restore $work/restore
check "change: -X probe" change "$ctl" -X probe
wait $mon
check "monitor --count: exits after its changes" [ $? = 0 ]
sed 's/^/# /' $work/monitor
# Generations drop out: the rest is what each change did.
cut -d' ' -f3- $work/monitor | tail -n +2 > $work/got
cat > $work/want <<'MON'
class-new web weight 3
rule-new 1 -A -s 10.0.0.0/8 -j web
rule-new 1 -A -s 192.0.2.0/24 -j per-host/28 --origin 4
rule-new 3 -A -s 2001:db8::/48 -j web --origin 4
class-set web weight 5 (was 3)
rule-del 2 -A -s 10.0.0.0/8 -j web
rule-del 1 -A -s 192.0.2.0/24 -j per-host/28 --origin 4
rule-del 2 -A -s 2001:db8::/48 -j web --origin 4
class-set web weight 2 (was 5)
rule-new 1 -A -s 198.51.100.0/24 -j web
class-del probe weight 10
MON
# The probe's weight at the end is whichever one made monitor live.
sed -i "s/^class-del probe weight .*/class-del probe weight $w/" $work/want
check "monitor: each change's lines, in order" diff -u $work/want $work/got
check "monitor: generations one apart, one per change" eval \
	'cut -d" " -f2 $work/monitor | uniq | awk "NR > 1 && \$1 != p + 1 { bad = 1 } { p = \$1 } END { exit bad }"'
json_ok() {
	python3 -c "
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
assert len(objs) >= $n_changes, len(objs)
assert [c[\"name\"] for c in objs[-1][\"classes-removed\"]] == [\"probe\"]
r = objs[-7][\"rules-added\"][0]
assert r[\"position\"] == 1 and r[\"source\"] == \"192.0.2.0/24\" and r[\"target\"] == \"per-host/28\" and r[\"origin\"] == 4, r
" $work/monitor.json 2> /dev/null
}
for _ in $(seq 100); do
	json_ok && break
	sleep 0.1
done
kill $monj
wait $monj 2> /dev/null
sed 's/^/# /' $work/monitor.json
check "monitor --json: one object per change, the last deletes probe" json_ok
tap_done
