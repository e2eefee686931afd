#!/usr/bin/env bash
# nfsfaird --metrics-file, natively: the real daemon writes its textfile
# for the node exporter after each load and apply, whole (a new file
# renamed over the old), promtool-clean, and a directory that is not there
# is said once. Each run has a network namespace of its own, so that a
# kernel with the family keeps its table.
#
# This host's kernel has no nfsfair family (its applies fail with
# ENOENT): what is checked is the file of a failed apply (success 0,
# kernel_family 0, no success yet) and of a failed load, and that
# nfsfaird exits 3 with that file written. The file of a successful
# apply (success 1, kernel_family 1, the success timestamp) and of a
# reload that fails while the daemon runs need the family; on such a
# kernel the first part checks the success instead and says so.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
nfsfaird=$top/daemon/nfsfaird
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

require "nfsfaird is built" test -x "$nfsfaird"
ns=()
if unshare -n true 2> /dev/null; then
	ns=(unshare -n)
elif unshare -rn true 2> /dev/null; then
	ns=(unshare -rn)
else
	diag "no network namespace: a kernel with nfsfair would see our table"
fi
printf '%s\n' 'classes:' '  - name: movers' '    members: [192.0.2.1]' > "$tmp/good.yaml"
printf '%s\n' 'classes:' '  - name: movers' '    memebrs: [192.0.2.1]' > "$tmp/bad.yaml"
mkdir "$tmp/prom"
prom=$tmp/prom/nfsfaird.prom

# run NAME CONFIG OPTION...: nfsfaird -c CONFIG OPTION..., its output in
# $tmp/NAME.out, its log in $tmp/NAME.log, its exit status in $rc.
run() {
	local name=$1 conf=$2

	shift 2
	"${ns[@]}" "$nfsfaird" -c "$conf" -d /nonexistent --state-dir "$tmp/state-$name" "$@" \
		> "$tmp/$name.out" 2> "$tmp/$name.log"
	rc=$?
}

# value NAME [FILE]: the value of NAME{namespace=""} in FILE ($prom).
value() { sed -n "s/^$1{namespace=\"\"} //p" "${2:-$prom}"; }
# has VALUE NAME...: each NAME has VALUE in $prom.
has() {
	local v=$1 n

	shift
	for n; do [ "$(value "$n")" = "$v" ] || { diag "$n: '$(value "$n")', not '$v'"; return 1; }; done
}
# valid FILE: promtool check metrics passes FILE with nothing to say.
valid() { local out; out=$(promtool check metrics < "$1" 2>&1) && [ -z "$out" ] || { diag "$out"; false; }; }

# An old file in place, held by a second link: the new one must replace
# it, not be written into it.
echo 'old_metric 1' > "$prom"
ln "$prom" "$tmp/old.prom"
before=$(date +%s)
run once "$tmp/good.yaml" --once --metrics-file "$prom"
after=$(date +%s)
require "--once: the file is written" test -s "$prom"
if [ "$rc" -eq 0 ]; then
	diag "this kernel has the nfsfair family: the apply worked"
	check "--once, applied: last_apply_success 1, kernel_family 1" \
		has 1 nfsfaird_last_apply_success nfsfaird_kernel_family
	check "... last_success_timestamp_seconds is the apply's" \
		[ "$(value nfsfaird_last_success_timestamp_seconds)" = \
		  "$(value nfsfaird_last_apply_timestamp_seconds)" ]
else
	check "--once without the nfsfair family: exit 1, the log says why" \
		eval '[ $rc -eq 1 ] && grep -q "no .nfsfair. netlink family" "$tmp/once.log"' ||
		diag "exit $rc: $(cat "$tmp/once.log")"
	check "... last_apply_success 0, kernel_family 0" \
		has 0 nfsfaird_last_apply_success nfsfaird_kernel_family
	check "... last_success_timestamp_seconds 0: none yet" \
		has 0 nfsfaird_last_success_timestamp_seconds
fi
check "config_load_success 1" has 1 nfsfaird_config_load_success
t=$(value nfsfaird_last_apply_timestamp_seconds)
check "last_apply_timestamp_seconds is the time of the run ($t)" \
	eval "[ -n '$t' ] && [ '$t' -ge $before ] && [ '$t' -le $after ]"
check "promtool check metrics: clean" valid "$prom"
check "it ends with # EOF" [ "$(tail -n 1 "$prom")" = "# EOF" ]
check "mode 0644, for the exporter's user" [ "$(stat -c %a "$prom")" = 644 ]
check "the old file was replaced by a rename, not written into" \
	eval '[ "$(stat -c %i "$prom")" != "$(stat -c %i "$tmp/old.prom")" ] &&
		[ "$(cat "$tmp/old.prom")" = "old_metric 1" ] && ! grep -q old_metric "$prom"'
check "no temporary file left beside it" [ "$(ls "$tmp/prom")" = nfsfaird.prom ]
check "nothing about the metrics in the log when the file is written" \
	eval '! grep -q metrics "$tmp/once.log"' || diag "$(cat "$tmp/once.log")"
once_rc=$rc

# No such directory: said once (a load and an apply tried it), the same exit.
run nodir "$tmp/good.yaml" --once --metrics-file "$tmp/none/nfsfaird.prom"
n=$(grep -c "$tmp/none/nfsfaird.prom: No such file or directory, no metrics written" "$tmp/nodir.log")
check "no such directory: said once in the log ($n times)" [ "$n" -eq 1 ] ||
	diag "$(cat "$tmp/nodir.log")"
check "... and nfsfaird goes on: the apply's own exit ($rc)" [ "$rc" -eq "$once_rc" ]
check "... the rest of its log as without a metrics file" \
	cmp -s <(grep -v 'no metrics written' "$tmp/nodir.log") "$tmp/once.log"
check "... nothing created" [ ! -e "$tmp/none" ]

# "" writes none, and says nothing.
mkdir "$tmp/none-dir"
(cd "$tmp/none-dir" && run empty "$tmp/good.yaml" --once --metrics-file '')
check "--metrics-file '': nothing written, nothing said" \
	eval '[ -z "$(ls -A "$tmp/none-dir")" ] && cmp -s "$tmp/empty.log" "$tmp/once.log"'

# --check writes nothing, even when told where.
run check "$tmp/good.yaml" --check --metrics-file "$tmp/prom/check.prom"
check "--check writes no metrics file" [ ! -e "$tmp/prom/check.prom" ]

# A file with errors: the load's failure, and no apply.
run bad "$tmp/bad.yaml" --once --metrics-file "$tmp/prom/bad.prom"
check "a file with errors: exit 1" [ "$rc" -eq 1 ] || diag "$(cat "$tmp/bad.log")"
check "... config_load_success 0" [ "$(value nfsfaird_config_load_success "$tmp/prom/bad.prom")" = 0 ]
check "... and no apply series, nor the family: nothing was tried" \
	eval '[ "$(grep -c "^nfsfaird_" "$tmp/prom/bad.prom")" = 1 ]' ||
	diag "$(cat "$tmp/prom/bad.prom")"
check "... promtool check metrics: clean" valid "$tmp/prom/bad.prom"

# The daemon, in the foreground: without the family it exits 3, its file
# saying why for the alert (NfsfairKernelFamilyMissing).
if [ "$once_rc" -ne 0 ]; then
	"${ns[@]}" timeout 20 "$nfsfaird" --foreground -c "$tmp/good.yaml" -d /nonexistent \
		--state-dir "$tmp/state-fg" --metrics-file "$tmp/prom/fg.prom" 2> "$tmp/fg.log"
	rc=$?
	check "--foreground without the family: exit 3" [ "$rc" -eq 3 ] ||
		diag "exit $rc: $(cat "$tmp/fg.log")"
	check "... its file written first: kernel_family 0" \
		[ "$(value nfsfaird_kernel_family "$tmp/prom/fg.prom")" = 0 ]
else
	check "--foreground without the family # SKIP this kernel has the family" true
fi

# The default path, and the namespace label with -n: in a mount namespace
# where /run and /var/lib are empty tmpfs (the host's untouched), and a
# network namespace named t1 there.
# labelled FILE NS: FILE's 5 samples, each with the label namespace="NS".
labelled() {
	[ "$(grep -c '^nfsfaird_' "$1")" = 5 ] &&
		[ "$(grep -c "^nfsfaird_[a-z_]*{namespace=\"$2\"} [0-9]*\$" "$1")" = 5 ]
}
if [ "$(id -u)" -eq 0 ] && unshare -mn true 2> /dev/null; then
	mkdir "$tmp/default"
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare -mn sh -c '
		mount -t tmpfs tmpfs /run && mount -t tmpfs tmpfs /var/lib || exit 99
		mkdir -p /var/lib/prometheus/node-exporter
		ip netns add t1 || exit 99
		"$2" --once -c "$1/good.yaml" -d /nonexistent --state-dir "$1/state-ns" 2>> "$1/ns.log"
		"$2" --once -n t1 -c "$1/good.yaml" -d /nonexistent --state-dir "$1/state-ns" \
			2>> "$1/ns.log"
		cp /var/lib/prometheus/node-exporter/* "$1/default/"
		ip netns del t1
	' sh "$tmp" "$nfsfaird"
	check "by default: /var/lib/prometheus/node-exporter/nfsfaird.prom, namespace \"\"" \
		labelled "$tmp/default/nfsfaird.prom" "" || diag "$(cat "$tmp/ns.log")"
	check "with -n t1: nfsfaird.t1.prom there, namespace \"t1\"" \
		labelled "$tmp/default/nfsfaird.t1.prom" t1 || diag "$(cat "$tmp/ns.log")"
	check "... and nothing else there" \
		[ "$(ls "$tmp/default" | tr '\n' ' ')" = "nfsfaird.prom nfsfaird.t1.prom " ]
else
	check "the default path and -n's label # SKIP needs root and a mount namespace" true
fi
tap_done
