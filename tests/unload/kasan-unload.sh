#!/bin/bash
# Inside the KASAN UML guest (make check-unload-kasan: build-kernel
# nfsfair-kasan um, sunrpc, nfsd and the NFS client as modules): unload
# sunrpc with fair dispatch's state live, twice, and load it again.
#
# The review of v2 found that a rule's RCU callback could queue its
# class's, which module exit's one rcu_barrier() does not wait for, so
# the second could run after sunrpc's text was gone. Now a class goes by
# kfree_rcu(). This does not tell the two apart: with v2's chained
# call_rcu() put back it passed too (25 of 25). UML is one CPU, on Tiny
# RCU, where the chained callback runs at the next quiescent state, and
# free_module()'s synchronize_rcu() comes before the text is freed; the
# ordering bug wants Tree RCU's callbacks on another CPU. What it shows
# is an unload with everything live, clean under KASAN, and a reload
# from nothing. Each cycle leaves as much as it can to RCU and to the
# namespaces' exit at the moment of the unload:
#  1. modprobe nfsd, nfsv3, nfsv4 from the build's modroot; nfsd with 8
#     threads; classes gold (weight 4) and bulk (limit 2), rules for
#     127.0.0.2, 127.0.0.3, per-host for 127.0.0.0/8 and per-client for
#     ::1; a second namespace with a table of its own (its exit runs at
#     the unload, sunrpc's pernet ops going);
#  2. an NFSv4.1 mount from 127.0.0.2 and an NFSv3 one from 127.0.0.4
#     writing and reading, nfsfair-load from 127.0.0.3 (8 connections, 4
#     calls deep, each held 20 ms) and over NFSv4.1 from ::1: the
#     classes, a per-host and a client-id client all dispatching;
#  3. then, with no pause: a table replaced 20 times, bulk deleted,
#     gold's weight changed, the load killed, the mounts gone, nfsd
#     stopped, and sunrpc with everything on it unloaded at once, its
#     rules' and classes' frees still queued;
#  4. the guest still runs, sunrpc is gone, and the kernel log has no
#     KASAN report, BUG, warning, oops or refcount report.
# The second cycle loads all of it again into a namespace whose first
# sunrpc left nothing behind: an empty table, no class, nfsd serving.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/uml/guest-lib.sh"

ctl=$top/cli/nfsfair-ctl
load=$top/tests/load/nfsfair-load
out=/run/nfsfair/kasan-unload
mkdir -p "$out"
release=$(uname -r)
modroot=$top/build/linux/um-kasan/modroot
hold_us=20000

if [ ! -f "$modroot/lib/modules/$release/modules.dep" ]; then
	echo "1..0 # SKIP no modules for $release under $modroot: make kernel-kasan-um"
	exit 0
fi
require "tests/load/nfsfair-load and cli/nfsfair-ctl are built" test -x "$load" -a -x "$ctl"

mods() { modprobe -d "$modroot" "$@"; }
loaded() { grep -q "^$1 " /proc/modules; }
# bad_log: the kernel log's lines a clean unload never prints
bad_log() {
	dmesg | grep -E 'BUG:|KASAN|WARNING:|Oops|general protection|refcount_t:|list_(add|del) corruption|unreferenced object|Call Trace'
}

for a in 2 3 4; do add_source_addr 127.0.0.$a; done
ip netns add other

# stop_services: what Debian's nfs-server stop does, and rpcbind's
# registrations with it (rpcbind itself is ours to keep).
stop_services() {
	rpc.nfsd 0
	exportfs -ua
	pkill -x rpc.mountd
	pkill -x rpc.statd
	pkill -x rpcbind
	umount "$nfsfair_export" 2> /dev/null
	umount /proc/fs/nfsd 2> /dev/null
	wait_until 10 eval '! pgrep -x rpc.mountd && ! pgrep -x rpc.statd && ! pgrep -x rpcbind' > /dev/null
}

# unload_all: every module on sunrpc, holders first, then sunrpc; a
# dependency modprobe -r already took with its holder is skipped.
unload_all() {
	local m
	for m in nfsv4 nfsv3 nfs nfsd lockd nfs_acl grace rpcsec_gss_krb5 auth_rpcgss sunrpc; do
		! loaded "$m" || mods -r "$m" || return
	done
}

for cycle in 1 2; do
	c="cycle $cycle"
	require "$c: modprobe nfsd, nfsv3 and nfsv4 from $modroot" mods -a nfsd nfsv3 nfsv4
	check "$c: sunrpc and nfsd are the build's modules" eval 'loaded sunrpc && loaded nfsd'
	require "$c: nfsd starts with 8 threads" nfsd_start 8
	if [ "$cycle" = 2 ]; then
		check "$c: the reloaded sunrpc starts with an empty table and no class (save prints nothing)" \
			eval '"$ctl" save > "$out/save$cycle" && [ -z "$(grep -v "^#" "$out/save$cycle")" ]' ||
			diag "save: $(head -c 600 "$out/save$cycle")"
	fi
	require "$c: classes gold (weight 4) and bulk (limit 2); rules for .2, .3, 127/8, ::1" eval '
		"$ctl" -N gold --weight 4 && "$ctl" -N bulk --limit 2 &&
		"$ctl" -A -s 127.0.0.2 -j gold && "$ctl" -A -s 127.0.0.3 -j bulk &&
		"$ctl" -A -s 127.0.0.0/8 -j per-host && "$ctl" -A -s ::1 -j per-client'
	require "$c: a table in namespace other" eval '
		"$ctl" --netns other -N far && "$ctl" --netns other -A -s 10.0.0.0/8 -j far &&
		"$ctl" --netns other -A -s 0.0.0.0/0 -j per-host'

	mkdir -p /mnt/v41 /mnt/v3
	require "$c: NFSv4.1 mount from 127.0.0.2, NFSv3 from 127.0.0.4" eval '
		mount -t nfs -o vers=4.1 "$(nfs_source 4.1 127.0.0.2)" /mnt/v41 &&
		mount -t nfs -o vers=3,nolock "$(nfs_source 3 127.0.0.4)" /mnt/v3'
	rm -f "$out/stop"
	( while [ ! -e "$out/stop" ]; do
		dd if=/dev/zero of=/mnt/v41/f$cycle bs=64k count=16 conv=fsync status=none
		cat /mnt/v3/f$cycle > /dev/null 2>&1
		ls -l /mnt/v3 /mnt/v41 > /dev/null
	  done ) &
	io=$!
	"$load" --group bulk:127.0.0.3:8:4 --proc getattr --hold-us "$hold_us" --duration 600 \
		--timeout 700 > "$out/load$cycle.json" 2> "$out/load$cycle.err" &
	l3=$!
	"$load" --server ::1 --group v41:::1:2:4 --proc v41 --hold-us "$hold_us" --duration 600 \
		--timeout 700 > "$out/v41-$cycle.json" 2> "$out/v41-$cycle.err" &
	l41=$!
	# every kind of client dispatching: gold, bulk, per-host, per-client
	check "$c: gold, bulk, a per-host and a client-id client all dispatching" wait_until 60 eval '
		ynl --dump client-get > "$out/clients$cycle.json" &&
		python3 -c "import json, sys
c = json.load(open(sys.argv[1]))
busy = {x.get(\"class\") or x[\"kind\"] for x in c if x[\"dispatches\"] > 0}
sys.exit(not {\"gold\", \"bulk\", \"per-host\", \"client-id\"} <= busy)" "$out/clients$cycle.json"' ||
		diag "$c: clients: $(head -c 1500 "$out/clients$cycle.json");" \
			"loads: $(head -c 300 "$out/load$cycle.err") $(head -c 300 "$out/v41-$cycle.err")"
	diag "$c: $(python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))
print(len(c), "clients,", sum(x["connections"] for x in c), "connections,",
      sum(x["dispatches"] for x in c), "dispatches")' "$out/clients$cycle.json")"

	# 3. the unload, with the frees still queued
	for i in $(seq 20); do
		printf -- '-N gold --weight 4\n-N bulk --limit 2\n-A -s 127.0.0.2 -j gold\n-A -s 127.0.0.3 -j bulk\n-A -s 127.0.0.%d -j per-host/32\n-A -s 127.0.0.0/8 -j per-host\n-A -s ::1 -j per-client\n' "$i" |
			"$ctl" restore > /dev/null 2> "$out/restore.err" || break
	done
	check "$c: the table replaced 20 times under the load (restore)" [ "$i" = 20 -a ! -s "$out/restore.err" ] ||
		diag "restore $i: $(cat "$out/restore.err")"
	"$ctl" -F
	check "$c: bulk deleted under the load, gold's weight changed" eval \
		'"$ctl" -X bulk && "$ctl" -E gold --weight 2'
	touch "$out/stop"
	kill "$l3" "$l41" 2> /dev/null
	wait "$l3" "$l41" "$io" 2> /dev/null
	umount -f /mnt/v41 /mnt/v3
	stop_services
	t0=$(date +%s.%N)
	unload_all > "$out/unload$cycle" 2>&1
	rc=$?
	t1=$(date +%s.%N)
	check "$c: nfsd, the NFS client and sunrpc unload with namespace other's table live" \
		eval '[ "$rc" = 0 ] && ! loaded sunrpc && ! loaded nfsd' ||
		diag "$c: modprobe -r exit $rc: $(cat "$out/unload$cycle"); left: $(cut -d' ' -f1,3,4 /proc/modules | tr '\n' ';')"
	diag "$c: the unload took $(python3 -c 'import sys; print("%.2f" % (float(sys.argv[2]) - float(sys.argv[1])))' "$t0" "$t1") s"
	# RCU's callbacks queued before the unload run within a grace period
	# or two of it: give them those, then look.
	sleep 2
	check "$c: no KASAN report, BUG, warning, oops or refcount report in the kernel log" \
		eval '[ -z "$(bad_log)" ]' || bad_log | head -n 40 | sed 's/^/# /'
done
check "the guest still runs: /proc/uptime reads" test -r /proc/uptime
ip netns del other
tap_done
