#!/bin/bash
# `make CFLAGS=...` on the command line replaces the optimisation flags
# only: lib/, cli/, daemon/ and tests/load/ still build, with the
# includes and warnings they need and the flags given. In a scratch copy
# of those directories, so that the tree's own objects stay as they are.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
work=$(mktemp -d /tmp/make-cflags.XXXXXX)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/tests"
cp -r "$top/lib" "$top/cli" "$top/daemon" "$top/netlink-spec" "$work/"
cp -r "$top/tests/load" "$work/tests/"
for d in lib cli daemon tests/load; do
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$work/$d" clean > /dev/null 2>&1
done
for d in cli daemon tests/load; do
	check "make -C $d CFLAGS='-O0 -g3' builds" \
		eval 'env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$work/$d" CFLAGS="-O0 -g3" > "$work/out" 2>&1' ||
		diag "$(tail -5 "$work/out")"
	check "  and compiled with -O0 -g3 and the includes" \
		eval 'env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$work/$d" -n -B CFLAGS="-O0 -g3" 2> /dev/null |
			grep -E "^(cc|gcc) " | grep -- "-O0 -g3" | grep -q -- "-Werror"'
done
tap_done
