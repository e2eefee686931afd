#!/usr/bin/env bash
# nfsfaird --check on broken and good files, natively (no kernel, no DNS):
# every error as FILE:LINE:COLUMN with the line and a caret, compared
# with the expected text in daemon-config/NAME.expected; drop-ins read in
# name order after the main file.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
nfsfaird=$top/daemon/nfsfaird
dir=$top/tests/unit/daemon-config

require "nfsfaird is built" test -x "$nfsfaird"
cd "$dir" || exit 1
# The preview of live clients depends on the host's kernel: not compared here
# (tests/unit/preview.sh and tests/integration/preview.sh test it).
no_preview() { sed '/^# preview: /d; /^#   /d'; }

for f in *.yaml; do
	name=${f%.yaml}
	got=$({ "$nfsfaird" --check -c "$f" -d /nonexistent 2>&1; echo "exit $?"; } | no_preview)
	check "$name: output as expected" [ "$got" = "$(cat "$name.expected")" ] ||
		diff <(echo "$got") "$name.expected" | sed 's/^/# /'
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/conf.d"
printf 'classes:\n  - name: movers\n    members: [192.0.2.1]\n' > "$tmp/main.yaml"
printf 'classes:\n  - add-to: movers\n    members: [192.0.2.3]\n' > "$tmp/conf.d/20-late.yaml"
printf 'classes:\n  - add-to: movers\n    members: [192.0.2.2]\n' > "$tmp/conf.d/10-early.yaml"
printf 'ignored: [not yaml\n' > "$tmp/conf.d/README"
got=$("$nfsfaird" --check -c "$tmp/main.yaml" -d "$tmp/conf.d" 2>&1 | no_preview)
want=$(printf '%s\n' "-N movers --weight 1" "-A -s 192.0.2.1/32 -j movers --origin 10" \
	"-A -s 192.0.2.2/32 -j movers --origin 10" "-A -s 192.0.2.3/32 -j movers --origin 10" \
	"# $tmp/main.yaml: valid: 1 class, 3 rules of origin 10")
check "drop-ins follow the main file, in name order, *.yaml only" [ "$got" = "$want" ] ||
	diag "$got"

printf 'classes:\n  - add-to: nobody\n    members: [192.0.2.4]\n' > "$tmp/conf.d/30-bad.yaml"
got=$("$nfsfaird" --check -c "$tmp/main.yaml" -d "$tmp/conf.d" 2>&1)
check "an error in a drop-in names the drop-in" \
	grep -q "^$tmp/conf.d/30-bad.yaml:2:13: no class 'nobody' defined before this" <<< "$got"
"$nfsfaird" --check -c "$tmp/missing.yaml" > /dev/null 2>&1
check "a missing main file: exit 1" [ $? -eq 1 ]
"$nfsfaird" --check --once > /dev/null 2>&1
check "--check with --once: usage, exit 2" [ $? -eq 2 ]
"$nfsfaird" --refresh 5 --check > /dev/null 2>&1
check "--refresh 5: usage, exit 2" [ $? -eq 2 ]
# Whole-file failures and the size limits, each compared with
# daemon-config/NAME.expected; run in $work with relative names so the
# text is the same anywhere.
work=$tmp/work
mkdir -m 755 "$work"
chmod 755 "$tmp"
# golden NAME CMD...: CMD's output and exit status are NAME.expected.
golden() {
	local name=$1 got
	shift
	got=$(cd "$work" && { "$@" 2>&1; echo "exit $?"; } | no_preview)
	check "$name: output as expected" [ "$got" = "$(cat "$dir/$name.expected")" ] ||
		diff <(echo "$got") "$dir/$name.expected" | head -20 | sed 's/^/# /'
}
# Root reads anything: the permission cases run as nobody.
as_user() {
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	else
		"$@"
	fi
}
members() {	# members N: a class of N distinct addresses
	echo 'classes:'
	echo '  - name: big'
	echo '    members:'
	seq 0 $(($1 - 1)) | awk '{ printf "      - 10.%d.%d.%d\n", \
		int($1 / 65536) % 256, int($1 / 256) % 256, $1 % 256 }'
}
printf 'classes:\n  - name: movers\n    members: [192.0.2.1]\n' > "$work/main.yaml"
chmod 644 "$work/main.yaml"

mkdir "$work/dir.yaml"
golden file-directory "$nfsfaird" --check -c dir.yaml -d /nonexistent
golden file-missing "$nfsfaird" --check -c missing.yaml -d /nonexistent
cp "$work/main.yaml" "$work/secret.yaml"
chmod 600 "$work/secret.yaml"
mkdir -m 755 "$work/conf.d" "$work/conf.d/10-dir.yaml"
printf 'classes:\n  - add-to: movers\n    members: [192.0.2.2]\n' > "$work/conf.d/20-secret.yaml"
chmod 600 "$work/conf.d/20-secret.yaml"
golden file-unreadable as_user "$nfsfaird" --check -c secret.yaml -d /nonexistent
golden dropin-unreadable as_user "$nfsfaird" --check -c main.yaml -d conf.d
mkdir -m 700 "$work/closed.d"
golden dropin-dir-unreadable as_user "$nfsfaird" --check -c main.yaml -d closed.d
golden dropin-dir-file "$nfsfaird" --check -c main.yaml -d main.yaml

# CFG_FILE_MAX, 4 MiB: the limit itself is read, a byte more is not, from
# a file (measured first) or a pipe (as it comes).
limit=$((4 << 20))
pad() { head -c "$1" /dev/zero | tr '\0' '#'; echo; }
{ cat "$work/main.yaml"; pad $((limit - $(wc -c < "$work/main.yaml") - 1)); } > "$work/4mib.yaml"
check "a file of exactly 4 MiB is read" eval \
	'"$nfsfaird" --check -c "$work/4mib.yaml" -d /nonexistent 2>&1 |
	grep -qx -- "-N movers --weight 1"'
{ cat "$work/main.yaml"; pad $((limit - $(wc -c < "$work/main.yaml"))); } > "$work/big.yaml"
golden file-too-big "$nfsfaird" --check -c big.yaml -d /nonexistent
golden pipe-too-big sh -c 'cat big.yaml | "$1" --check -c /dev/stdin -d /nonexistent' sh \
	"$nfsfaird"

# CFG_MEMBERS_MAX (131072, the kernel's rules) and its classes (1024).
members 131072 > "$work/members-max.yaml"
check "131072 members: 131072 rules" eval \
	'[ "$("$nfsfaird" --check -c "$work/members-max.yaml" -d /nonexistent |
	grep -c "^-A ")" = 131072 ]'
members 131073 > "$work/members.yaml"
golden too-many-members "$nfsfaird" --check -c members.yaml -d /nonexistent
classes() {	# classes N: N classes of one member each
	echo 'classes:'
	seq 0 $(($1 - 1)) | awk '{ printf "  - name: c%d\n    members: [10.0.%d.%d]\n", \
		$1, int($1 / 256), $1 % 256 }'
}
classes 1024 > "$work/classes-max.yaml"
check "1024 classes" eval \
	'[ "$("$nfsfaird" --check -c "$work/classes-max.yaml" -d /nonexistent | grep -c "^-N ")" = 1024 ]'
classes 1025 > "$work/classes.yaml"
golden too-many-classes "$nfsfaird" --check -c classes.yaml -d /nonexistent
# An alias repeats a list without repeating its text: 2,000 members 5,001
# times is reported once at the limit, and quickly, not walked 10 million
# times printing a megabyte line per class.
{
	echo 'classes:'
	echo '  - name: a'
	printf '    members: &m [%s192.0.2.1]\n' "$(printf '192.0.2.1, %.0s' $(seq 1999))"
	for _ in $(seq 5000); do echo '  - {add-to: a, members: *m}'; done
} > "$work/alias.yaml"
golden alias-bomb timeout 20 "$nfsfaird" --check -c alias.yaml -d /nonexistent
# A name's addresses past 131072 rules: a hosts file of our own, in a mount
# namespace, and no network, so nothing asks a real resolver.
{ members 131071; echo '      - multi.test'; } > "$work/rules.yaml"
printf '192.0.2.200 multi.test\n192.0.2.201 multi.test\n' > "$work/hosts"
if unshare -mn true 2> /dev/null; then
	golden too-many-rules unshare -mn sh -c 'mount --bind hosts /etc/hosts &&
		exec "$1" --check -c rules.yaml -d /nonexistent' sh "$nfsfaird"
else
	diag "too-many-rules not run: unshare -mn needs root"
fi
tap_done
