#!/bin/bash
# Inside the guest, in real time: a real kernel NFS client against a
# backlogged aggressor.
#   guest-real-client.sh TABLE OUT PHASE-TIMEOUT
# TABLE: "none" or "per-host" (127.0.0.0/8, each address its own client,
# set with nfsfair-ctl). nfsd with 16 threads; the kernel client mounts
# the export over NFSv3 from 127.0.0.2 (nconnect=1, noac,
# lookupcache=none), makes 500 files in 20 directories, then times a walk
# (find | xargs stat) and a read (cat of every file, page cache dropped
# first) alone, and again while nfsfair-load keeps 16 connections of
# depth 16 from 127.0.0.3 busy with 10 ms holds. Every phase is bounded
# by PHASE-TIMEOUT seconds; a phase that hits it is reported as null
# with "timeout": true. Writes OUT: one JSON document.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/uml/guest-lib.sh"

table=$1 out=$2 ptimeout=$3
mnt=/run/real-client-mnt
files=/run/real-client-files

nfsd_start 16 > /dev/null
add_source_addr 127.0.0.2
add_source_addr 127.0.0.3
case $table in
none) ;;
per-host) "$top/cli/nfsfair-ctl" -A -s 127.0.0.0/8 -j per-host ;;
*) echo "guest-real-client: unknown table '$table'" >&2; exit 2 ;;
esac

mkdir -p "$mnt"
# The mount's server address is 127.0.0.2, whose local route has src
# 127.0.0.2: the client's connection comes from 127.0.0.2.
mount -t nfs -o vers=3,proto=tcp,nconnect=1,noac,lookupcache=none,nolock \
	"$(nfs_source 3 127.0.0.2)" "$mnt"

# The tree: 20 directories of 25 files of 8 KiB.
for d in $(seq -w 1 20); do
	mkdir "$mnt/d$d"
	for f in $(seq -w 1 25); do
		head -c 8192 /dev/urandom > "$mnt/d$d/f$f"
	done
done
sync
find "$mnt" -type f > "$files"
[ "$(wc -l < "$files")" -eq 500 ]
peers=$(peers_of_port 2049 | sort | uniq -c | tr -s ' ' | tr '\n' ';')

# phase NAME CMD...: run CMD with the page cache dropped, bounded; prints
# "NAME": seconds (or null) and "NAME_timeout": bool as JSON members.
phase() {
	local name=$1 t0 t1 rc
	shift
	sync
	echo 3 > /proc/sys/vm/drop_caches
	t0=$(date +%s.%N)
	rc=0
	timeout "$ptimeout" bash -c "$*" > /dev/null 2>&1 || rc=$?
	t1=$(date +%s.%N)
	if [ $rc -eq 124 ]; then
		printf '"%s": null, "%s_timeout": true' "$name" "$name"
	elif [ $rc -ne 0 ]; then
		echo "guest-real-client: phase $name failed ($rc)" >&2
		exit 1
	else
		printf '"%s": %s, "%s_timeout": false' "$name" \
			"$(python3 -c "print(round($t1 - $t0, 3))")" "$name"
	fi
}

walk="find $mnt -type f | xargs stat"
read="xargs cat < $files"

alone_walk=$(phase alone_walk "$walk")
alone_read=$(phase alone_read "$read")

"$top/tests/load/nfsfair-load" --group aggressor:127.0.0.3:16:16 --proc getattr \
	--hold-us 10000 --warmup 0 --duration 3600 --timeout 3700 --json \
	> /run/aggressor.json 2> /run/aggressor.err &
agg=$!
sleep 2
loaded_walk=$(phase loaded_walk "$walk")
loaded_read=$(phase loaded_read "$read")
kill "$agg" 2>/dev/null || true
wait "$agg" 2>/dev/null || true

clients=null
[ "$table" = none ] || clients=$(ynl --dump client-get)
umount "$mnt"
printf '{"table": "%s", %s, %s, %s, %s, "peers": "%s", "clients": %s}\n' \
	"$table" "$alone_walk" "$alone_read" "$loaded_walk" "$loaded_read" "$peers" \
	"$clients" > "$out"
