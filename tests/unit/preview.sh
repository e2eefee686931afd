#!/bin/bash
# Unit tests of libnfsfair's preview (nfsfair-ctl restore --test, nfsfaird
# --check): the table a replace leaves, nfsd's peers from socket tables,
# the diff of two tables against peers and their clients, and its text
# and JSON; no kernel. Built natively against lib/libnfsfair.a.
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
make -s -C "$top/lib" || { echo "1..0 # lib/ does not build"; exit 1; }
# shellcheck disable=SC2046
cc -Wall -Wextra -Werror -I"$top/netlink-spec/uapi" $(pkg-config --cflags libnl-genl-3.0) \
	-o "$out/preview" "$top/tests/unit/preview.c" "$top/lib/libnfsfair.a" \
	$(pkg-config --libs libnl-genl-3.0) -lm || { echo "1..0 # preview.c does not build"; exit 1; }
"$out/preview"
