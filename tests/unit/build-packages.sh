#!/bin/bash
# make deb's script, scripts/build-packages, in a scratch clone of this
# tree: two runs at once (make check-smp-kasan beside check-smp-kcsan)
# take turns, the second reuses the first's packages instead of removing
# them under it, and an edit of the tree builds them again. Real
# dpkg-buildpackage and lintian: about 20 s a build.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
work=$(mktemp -d /tmp/build-packages.XXXXXX)
trap 'rm -rf "$work"' EXIT

require "a scratch clone of the tree" git clone -q "$top" "$work/tree"
cd "$work/tree" || exit 1
scripts/build-packages > "$work/a.log" 2>&1 &
a=$!
scripts/build-packages > "$work/b.log" 2>&1 &
b=$!
wait "$a"
rc_a=$?
wait "$b"
rc_b=$?
check "two runs at once both succeed (exit $rc_a and $rc_b)" [ "$rc_a" -eq 0 -a "$rc_b" -eq 0 ] ||
	diag "$(tail -3 "$work/a.log" "$work/b.log")"
reused=$(cat "$work/a.log" "$work/b.log" | grep -c "reused (the tree is unchanged)")
check "one built the packages, the other waited and reused them ($reused reused)" [ "$reused" -eq 1 ]
valid() { dpkg-deb --info "$1" > /dev/null 2>&1; }
debs=(build/deb/nfsfair-tools_*_amd64.deb build/deb/nfsfair-dkms_*_all.deb)
check "both packages are whole (dpkg-deb --info)" eval 'valid "${debs[0]}" && valid "${debs[1]}"'
before=$(stat -c %Y "${debs[0]}")
echo "# an edit" >> README.md
sleep 1
scripts/build-packages > "$work/c.log" 2>&1
rc_c=$?
check "an edited tree builds them again (exit $rc_c)" \
	eval '[ "$rc_c" -eq 0 ] && ! grep -q reused "$work/c.log" && [ "$(stat -c %Y build/deb/nfsfair-tools_*_amd64.deb)" -gt "$before" ]'
tap_done
