#!/bin/bash
# Unit tests of libnfsfair's shadowed-rule check: hand cases, random tables
# against a naive reference, and a 20,000-rule table; built natively
# against lib/libnfsfair.a.
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
make -s -C "$top/lib" || { echo "1..0 # lib/ does not build"; exit 1; }
# shellcheck disable=SC2046
cc -Wall -Wextra -Werror -I"$top/netlink-spec/uapi" $(pkg-config --cflags libnl-genl-3.0) \
	-o "$out/shadow" "$top/tests/unit/shadow.c" "$top/lib/libnfsfair.a" \
	$(pkg-config --libs libnl-genl-3.0) -lm || { echo "1..0 # shadow.c does not build"; exit 1; }
"$out/shadow"
