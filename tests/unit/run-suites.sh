#!/bin/bash
# tests/run-suites' sums, against suites written here: a suite's own
# "# suite NAME: N passed, N failed, T s" line counts what the total
# counts, including the one failure charged to a suite that stopped
# without a plan or exited non-zero with no failing point.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# suite NAME RC LINE...: an executable suite printing LINEs, exiting RC.
suite() {
	local name=$1 rc=$2
	shift 2
	{
		echo '#!/bin/sh'
		printf "echo '%s'\n" "$@"
		echo "exit $rc"
	} > "$tmp/$name"
	chmod +x "$tmp/$name"
}

suite good 0 'ok 1 - a' 'ok 2 - b' '1..2'
suite failing 1 'ok 1 - a' 'not ok 2 - b' '1..2'
suite no-plan 1 'ok 1 - a'
suite bad-exit 3 'ok 1 - a' '1..1'

out=$(NFSFAIR_TEST_LOGS=$tmp/logs "$top/tests/run-suites" \
	"$tmp/good" "$tmp/failing" "$tmp/no-plan" "$tmp/bad-exit")
rc=$?
line() { grep -qxF "$1" <<< "$out"; }
# suite_line NAME COUNTS: that suite's line, whatever its time.
suite_line() { grep -qxE "# suite $tmp/$1: $2, [0-9]+ s" <<< "$out"; }

check "a passing suite: 2 passed, 0 failed" suite_line good "2 passed, 0 failed"
check "a failing point counts once" suite_line failing "1 passed, 1 failed"
check "no plan: the suite's line says the failure it is charged" \
	suite_line no-plan "1 passed, 1 failed"
check "a non-zero exit without a failing point: one failure" \
	suite_line bad-exit "1 passed, 1 failed"
check "the total sums the suites' lines" line "5 passed, 3 failed"
check "run-suites exits non-zero when anything failed" test "$rc" -ne 0
check "each suite's TAP is logged" test -s "$tmp/logs/${tmp//\//_}_good.log"

suite slow 0 'ok 1 - a' '1..1'
sed -i 's/^exit/sleep 2; exit/' "$tmp/slow"
out=$(NFSFAIR_TEST_LOGS=$tmp/logs "$top/tests/run-suites" --before 'sleep 1' "$tmp/slow")
check "a suite's line says how long it ran" grep -qxE "# suite $tmp/slow: 1 passed, 0 failed, [2-9] s" <<< "$out"
check "the --before command's time is said" grep -qxE "# run-suites: 'sleep 1' took [1-9] s" <<< "$out"

suite_ok=$(NFSFAIR_TEST_LOGS=$tmp/logs "$top/tests/run-suites" "$tmp/good")
check "all passing: exit 0 and one total line" \
	test "$?" -eq 0 -a "$(tail -n 1 <<< "$suite_ok")" = "2 passed, 0 failed"
tap_done
