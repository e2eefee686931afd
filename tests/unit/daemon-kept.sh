#!/bin/bash
# Unit tests of nfsfaird's log of the classes it keeps (daemon/apply.c),
# built natively against the daemon's objects; no kernel.
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
make -s -C "$top/daemon" || { echo "1..0 # daemon/ does not build"; exit 1; }
objs="$top/daemon/apply.o $top/daemon/owned.o"
# shellcheck disable=SC2046,SC2086
cc -Wall -Wextra -Werror -I"$top/netlink-spec/uapi" $(pkg-config --cflags libnl-genl-3.0) \
	-o "$out/kept" "$top/tests/unit/daemon-kept.c" $objs "$top/lib/libnfsfair.a" \
	$(pkg-config --libs libnl-genl-3.0) -lyaml -lresolv ||
	{ echo "1..0 # daemon-kept.c does not build"; exit 1; }
"$out/kept"
