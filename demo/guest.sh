#!/bin/bash
# The demo, inside the guest: nfsd on the nfsfair kernel, one client with
# one connection and one with four, and the connections each one holds.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/uml/guest-lib.sh"

step() { printf '\n== %s\n' "$*"; }

step "kernel $(uname -r), starting nfsd with 8 threads"
nfsd_start 8
add_source_addr 127.0.0.2
add_source_addr 127.0.0.3

step "mounting: 127.0.0.2 with one connection, 127.0.0.3 with nconnect=4"
mkdir -p /run/demo/a /run/demo/b
mount -t nfs -o vers=3,nconnect=1,clientaddr=127.0.0.2 127.0.0.2:"$nfsfair_export" /run/demo/a
mount -t nfs -o vers=3,nconnect=4 127.0.0.3:"$nfsfair_export" /run/demo/b
dd if=/dev/zero of=/run/demo/a/one bs=1M count=4 status=none
dd if=/dev/zero of=/run/demo/b/four bs=1M count=4 status=none

step "connections to nfsd (port 2049) by peer address"
peers_of_port 2049 | sort | uniq -c | awk '{ printf "  %-12s %d connection(s)\n", $2, $1 }'
echo
echo "Today's nfsd gives each connection a turn, so 127.0.0.3 gets four turns"
echo "to 127.0.0.2's one. nfsfair makes the admin's table decide who is one client."
umount /run/demo/a /run/demo/b
