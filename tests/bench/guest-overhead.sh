#!/bin/bash
# Inside the guest, in real time (no time-travel): the overhead bench.
#   guest-overhead.sh dispatch CONFIG OUTDIR DURATION WARMUP
#       nfsd with 8 threads; CONFIG "none" (empty table, or a kernel
#       without nfsfair) or "class" (class movers for 127.0.0.2/32, then
#       127.0.0.0/8 per-host); nfsfair-load --proc null from 127.0.0.2 with
#       1 and with 8 connections of depth 16; writes OUTDIR/conns1.json and
#       OUTDIR/conns8.json (the generator's reports).
#   guest-overhead.sh table OUTDIR REPEATS
#       the classifier's table-change cost on the nfsfair kernel; writes
#       OUTDIR/table.json.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/uml/guest-lib.sh"
ctl=$top/cli/nfsfair-ctl
load=$top/tests/load/nfsfair-load

mode=$1
shift

case $mode in
dispatch)
	config=$1 outdir=$2 duration=$3 warmup=$4
	mkdir -p "$outdir"
	nfsd_start 8 > /dev/null
	add_source_addr 127.0.0.2
	case $config in
	none) ;;
	class)
		"$ctl" -N movers
		"$ctl" -A -s 127.0.0.2/32 -j movers
		"$ctl" -A -s 127.0.0.0/8 -j per-host
		;;
	*) echo "guest-overhead: unknown config '$config'" >&2; exit 2 ;;
	esac
	for conns in 1 8; do
		"$load" --group load:127.0.0.2:$conns:16 --proc null \
			--warmup "$warmup" --duration "$duration" --json \
			> "$outdir/conns$conns.json.tmp"
		mv "$outdir/conns$conns.json.tmp" "$outdir/conns$conns.json"
	done
	;;
table)
	outdir=$1 repeats=$2
	mkdir -p "$outdir"
	nfsd_start 8 > /dev/null
	add_source_addr 127.0.0.2
	exec python3 "$top/tests/bench/guest-overhead-table.py" "$ctl" "$outdir/table.json" "$repeats"
	;;
*) echo "guest-overhead: unknown mode '$mode'" >&2; exit 2 ;;
esac
