#!/bin/bash
# The demo, inside the guest: nfsd with 16 threads; on the nfsfair kernel,
# nfsfaird loads etc/nfsfair.yaml (hostnames from demo/hosts); then a
# greedy mover with 16 connections from its two addresses runs against
# two interactive clients with one connection each. Writes the load
# generator's report to OUT.
#   guest.sh nfsfair|baseline OUT
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/uml/guest-lib.sh"
kernel=$1 out=$2
ctl=$top/cli/nfsfair-ctl

step() { printf '\n== %s\n' "$*"; }

step "$(uname -r): nfsd with 16 threads"
nfsd_start 16 > /dev/null
for a in 2 3 10 11; do add_source_addr 127.0.0.$a; done

if [ "$kernel" = nfsfair ]; then
	mount --bind "$top/demo/hosts" /etc/hosts
	step "nfsfaird -c etc/nfsfair.yaml -d demo/conf.d"
	"$top/daemon/nfsfaird" --foreground -c "$top/etc/nfsfair.yaml" \
		-d "$top/demo/conf.d" 2>&1 | sed 's/^/  /' &
	for i in $(seq 50); do
		"$ctl" -C -s 127.0.0.10 -j movers 2>/dev/null && break
		sleep 0.2
	done
	if ! "$ctl" -C -s 127.0.0.10 -j movers 2>/dev/null; then
		echo "demo: nfsfaird did not put etc/nfsfair.yaml's table in place (its words above)" >&2
		exit 1
	fi
	step "nfsfair-ctl -L -v --line-numbers"
	"$ctl" -L -v --line-numbers | sed 's/^/  /'
fi

step "load: mover1 (16 connections from 127.0.0.10 and .11) against alice and bob"
"$top/tests/load/nfsfair-load" \
	--group mover-nic1:127.0.0.10:8:16 --group mover-nic2:127.0.0.11:8:16 \
	--group alice:127.0.0.2:1:4 --group bob:127.0.0.3:1:4 \
	--hold-us 10000 --jitter 50 --warmup 1 --duration 10 --json > "$out" &
load=$!
if [ "$kernel" = nfsfair ]; then
	sleep 3
	step "nfsfair-ctl stats -w 2, while it runs"
	"$ctl" stats -w 2 | sed 's/^/  /'
	step "nfsfair-ctl explain mover1.example.org"
	"$ctl" explain mover1.example.org | sed 's/^/  /'
fi
wait $load
