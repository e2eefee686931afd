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
for f in *.yaml; do
	name=${f%.yaml}
	got=$({ "$nfsfaird" --check -c "$f" -d /nonexistent 2>&1; echo "exit $?"; })
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
got=$("$nfsfaird" --check -c "$tmp/main.yaml" -d "$tmp/conf.d" 2>&1)
want=$(printf '%s\n' "-N movers --weight 1" "-A -s 192.0.2.1/32 -j movers --origin 10" \
	"-A -s 192.0.2.2/32 -j movers --origin 10" "-A -s 192.0.2.3/32 -j movers --origin 10")
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
tap_done
