# TAP output for shell test suites: sourced, never run.
#   check DESC CMD...   runs CMD; "ok N - DESC" when it succeeds
#   tap_done            prints the plan; exits 1 if anything failed
# A suite that dies before tap_done has no plan and counts as failed.

tap_count=0
tap_failures=0

check() {
	local desc=$1
	shift
	tap_count=$((tap_count + 1))
	if "$@"; then
		echo "ok $tap_count - $desc"
	else
		echo "not ok $tap_count - $desc"
		tap_failures=$((tap_failures + 1))
		return 1
	fi
}

# Like check, but the command's failure ends the suite: later checks need it.
require() {
	check "$@" || { tap_done; exit 1; }
}

diag() {
	printf '# %s\n' "$*"
}

tap_done() {
	echo "1..$tap_count"
	[ "$tap_failures" -eq 0 ]
}
