#!/bin/bash
# Unit tests of libnfsfair's parsers (prefixes, targets, rule text round
# trip, the save format), a rule through netlink attributes and back, and
# owner strings escaped; built natively against lib/libnfsfair.a.
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
make -s -C "$top/lib" || { echo "1..0 # lib/ does not build"; exit 1; }
# shellcheck disable=SC2046
cc -Wall -Wextra -Werror -I"$top/netlink-spec/uapi" $(pkg-config --cflags libnl-genl-3.0) \
	-o "$out/lib-parse" "$top/tests/unit/lib-parse.c" "$top/lib/libnfsfair.a" \
	$(pkg-config --libs libnl-genl-3.0) -lm || { echo "1..0 # lib-parse.c does not build"; exit 1; }
exec "$out/lib-parse"
