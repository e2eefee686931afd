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
# nfsfair-dkms carries both series, each whole, where prepare-source
# looks for them: patches/6.12 (Debian's 6.12 kernels), patches/7.3.
in_dkms() { dpkg-deb -c "${debs[1]}" | grep -c "/usr/src/nfsfair-[^/]*/patches/$1/[^/]*\.patch$"; }
n612=$(in_dkms 6.12) n73=$(in_dkms 7.3)
check "nfsfair-dkms holds the 6.12 backport ($n612 patches) and the 7.3 series ($n73)" \
	[ "$n612" -eq "$(ls "$top"/kernel/backport-6.12/patches/*.patch | wc -l)" -a \
	"$n73" -eq "$(ls "$top"/kernel/patches/*.patch | wc -l)" -a "$n73" -gt 0 ]
before=$(stat -c %Y "${debs[0]}")
echo "# an edit" >> README.md
sleep 1
scripts/build-packages > "$work/c.log" 2>&1
rc_c=$?
check "an edited tree builds them again (exit $rc_c)" \
	eval '[ "$rc_c" -eq 0 ] && ! grep -q reused "$work/c.log" && [ "$(stat -c %Y build/deb/nfsfair-tools_*_amd64.deb)" -gt "$before" ]'
tap_done
