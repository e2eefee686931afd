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

# --resume KEY: a list cut short (run-suites killed in its third suite)
# continues with the suites it had not finished; the finished ones, the
# failing one too, are counted from their kept results, not run again.
suite failing2 1 'not ok 1 - a' '1..1'
printf '#!/bin/sh\necho run >> "%s"\necho "ok 1 - a"; echo "1..1"\n' \
	"$tmp/counted.runs" > "$tmp/counted"
# The first time, the session ends here: run-suites dies mid-suite.
printf '#!/bin/sh\n[ -e "%s" ] || { touch "%s"; kill -KILL $PPID; sleep 1; exit 1; }\necho "ok 1 - a"; echo "1..1"\n' \
	"$tmp/cut.once" "$tmp/cut.once" > "$tmp/cut"
chmod +x "$tmp/counted" "$tmp/cut"
list=("$tmp/counted" "$tmp/failing2" "$tmp/cut" "$tmp/good")
rl=$tmp/resume-logs
(NFSFAIR_TEST_LOGS=$rl setsid "$top/tests/run-suites" --resume K1 "${list[@]}" > "$tmp/first" 2>&1 || :) 2> /dev/null
check "the first run was cut in its third suite" \
	test "$(grep -c '^# suite .*passed' "$tmp/first")" -eq 2 -a -e "$tmp/cut.once"
check "the cut suite keeps no result" test ! -e "$rl/${tmp//\//_}_cut.result"
out=$(NFSFAIR_TEST_LOGS=$rl "$top/tests/run-suites" --resume K1 "${list[@]}")
rc=$?
check "resumed: a finished suite is not run again" \
	test "$(wc -l < "$tmp/counted.runs")" -eq 1
check "resumed: its line says it was kept from the earlier run" \
	grep -qE "^# suite $tmp/counted: finished at [0-9T:-]+Z under this key, not run again$" <<< "$out"
check "resumed: a kept failure still counts" suite_line failing2 "0 passed, 1 failed"
check "resumed: the cut suite and the one after it run" \
	grep -qxF "# suite $tmp/good" <<< "$out"
check "resumed: the total sums the kept and the new" line "4 passed, 1 failed"
check "resumed: a kept failure fails the list" test "$rc" -ne 0
NFSFAIR_TEST_LOGS=$rl "$top/tests/run-suites" --resume K2 "$tmp/counted" > /dev/null
check "another key (another kernel or tree): the suite runs again" \
	test "$(wc -l < "$tmp/counted.runs")" -eq 2
NFSFAIR_TEST_LOGS=$tmp/plain-logs "$top/tests/run-suites" "$tmp/good" > /dev/null
check "without --resume no result is kept" \
	test -z "$(find "$tmp/plain-logs" -name '*.result')"

# tests/qemu/list-key in a repository of its own: the key follows the
# kernel image and the tracked files, edits included, but not Markdown.
repo=$tmp/repo
mkdir -p "$repo/tests/qemu"
cp "$top/tests/qemu/list-key" "$repo/tests/qemu/"
echo code > "$repo/code.c"
echo text > "$repo/NOTES.md"
echo k1 > "$tmp/bzImage"
git -C "$repo" init -q && git -C "$repo" add . &&
	git -C "$repo" -c user.name=t -c user.email=t@t commit -qm t
key() { "$repo/tests/qemu/list-key" "$tmp/bzImage"; }
k0=$(key)
check "list-key prints a key" grep -qxE 'kernel-[0-9a-f]{16}-tree-[0-9a-f]{16}' <<< "$k0"
check "list-key: the same kernel and tree, the same key" test "$(key)" = "$k0"
echo more >> "$repo/NOTES.md"
check "list-key: a Markdown edit keeps the key" test "$(key)" = "$k0"
echo more >> "$repo/code.c"
k1=$(key)
check "list-key: an uncommitted code edit changes it" test "$k1" != "$k0"
git -C "$repo" -c user.name=t -c user.email=t@t commit -qam edit
check "list-key: committing the edit keeps its key" test "$(key)" = "$k1"
git -C "$repo" rm -q code.c
check "list-key: a tracked file deleted changes it" test "$(key)" != "$k1"
git -C "$repo" checkout -qf HEAD~1
check "list-key: back at the first tree, the first key" test "$(key)" = "$k0"
echo k2 > "$tmp/bzImage"
check "list-key: another kernel image changes it" test "$(key)" != "$k0"
err=$("$repo/tests/qemu/list-key" "$tmp/none" 2>&1)
check "list-key: an unreadable kernel is refused, naming it" \
	test "$?" -ne 0 -a -z "${err##*"'$tmp/none'"*}"
tap_done
