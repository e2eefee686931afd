# Helpers for scripts running inside the UML guest: sourced, never run.

nfsfair_export=/run/nfsfair/export

# nfsd_start [THREADS]: rpcbind, mountd, statd and nfsd exporting a fresh
# tmpfs at $nfsfair_export to 127.0.0.0/8 and ::1, with the shortest NFSv4
# grace period the kernel accepts so tests do not wait 90 s to open files.
# The export is also the NFSv4 root (fsid=0): hostfs above it has no
# filesystem id to build a pseudo-root from. Mount it with nfs_source.
nfsd_start() {
	local threads=${1:-8}

	mkdir -p "$nfsfair_export"
	mount -t tmpfs -o mode=1777 nfsfair-export "$nfsfair_export" || return
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd || return
	echo 10 > /proc/fs/nfsd/nfsv4leasetime
	echo 10 > /proc/fs/nfsd/nfsv4gracetime
	touch /var/lib/nfs/etab /var/lib/nfs/rmtab
	rpcbind -w || return
	rpc.statd --no-notify 2>/dev/null || return
	exportfs -i -o rw,insecure,no_root_squash,no_subtree_check,fsid=0 \
		"127.0.0.0/8:$nfsfair_export" || return
	exportfs -i -o rw,insecure,no_root_squash,no_subtree_check,fsid=0 \
		"[::1]:$nfsfair_export" || return
	rpc.mountd || return
	rpc.nfsd "$threads" || return
	[ "$(cat /proc/fs/nfsd/threads)" -eq "$threads" ]
}

# nfs_source VERS [SERVER]: what to mount for NFS version VERS.
nfs_source() {
	case $1 in
	4*) echo "${2:-127.0.0.1}:/" ;;
	*) echo "${2:-127.0.0.1}:$nfsfair_export" ;;
	esac
}

# add_source_addr ADDR: give the guest's loopback a 127.x address that is
# also the source of connections made to it. Without the /32 local route
# with its own src, every 127.x connection leaves from 127.0.0.1.
add_source_addr() {
	ip route replace local "$1/32" dev lo src "$1" table local
}

# peers_of_port PORT: remote addresses of established TCP connections to
# local PORT, one line each, from /proc/net/tcp (IPv4).
peers_of_port() {
	local want sl laddr raddr st rest h
	want=$(printf '%04X' "$1")
	while read -r sl laddr raddr st rest; do
		[ "$st" = 01 ] && [ "${laddr#*:}" = "$want" ] || continue
		h=${raddr%:*}
		echo "$((16#${h:6:2})).$((16#${h:4:2})).$((16#${h:2:2})).$((16#${h:0:2}))"
	done < <(tail -n +2 /proc/net/tcp)
}

# wait_until SECONDS CMD...: run CMD every 0.1 s until it succeeds or
# SECONDS of wall time have passed; its status. A check of state that
# shows up "during a run" waits for it: on a loaded host it comes late,
# and a fixed sleep before looking then fails.
wait_until() {
	local end=$((${EPOCHREALTIME/./} + $1 * 1000000))

	shift
	until "$@"; do
		[ "${EPOCHREALTIME/./}" -lt "$end" ] || return 1
		sleep 0.1
	done
}

# sanitizer_kernel: the guest runs a KASAN or KCSAN build (by its release).
sanitizer_kernel() {
	case $(uname -r) in *-kasan | *-kcsan) return 0 ;; esac
	return 1
}

# guest_slowness: how many times longer than under UML a bounded wait or
# a load's bound should be here: 20 in a qemu TCG guest, and 3 times that
# on a sanitizer's kernel (KASAN's ynl call takes tens of seconds).
guest_slowness() {
	local n=1

	[ "${NFSFAIR_GUEST:-uml}" = qemu ] && n=20
	! sanitizer_kernel || n=$((n * 3))
	echo "$n"
}

# ynl_paths: sets ynl_lib, ynl_spec and ynl_schema, the kernel tree's ynl
# library and CLI's directory, our family's spec and genetlink's schema.
ynl_paths() {
	local top
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	# 7.3's (build/linux), for both kernels' families (the same uapi):
	# it takes and prints addresses as text, by the spec's display hints.
	ynl_lib=$top/build/linux/tools/net/ynl/pyynl
	ynl_spec=$top/netlink-spec/nfsfair.yaml
	ynl_schema=$top/build/linux/Documentation/netlink/genetlink.yaml
}

# ynl ARGS...: the kernel tree's own netlink CLI, driving the nfsfair
# family from its spec; no code of ours in between.
ynl() {
	local ynl_lib ynl_spec ynl_schema
	ynl_paths
	python3 "$ynl_lib/cli.py" --spec "$ynl_spec" --schema "$ynl_schema" \
		--output-json "$@"
}

# ynl_ntf GROUP SECONDS: what the kernel's ynl library receives on the
# nfsfair family's GROUP, printed as `ynl --subscribe GROUP` prints it,
# once a first notification has come or SECONDS have passed: cli.py's
# --sleep waits out all of its time (12 minutes on a sanitizer's guest).
ynl_ntf() {
	local ynl_lib ynl_spec ynl_schema
	ynl_paths
	python3 - "$ynl_lib" "$ynl_spec" "$ynl_schema" "$@" <<'EOF'
import json
import sys
import time
sys.path.insert(0, sys.argv[1])
from lib import YnlFamily

ynl = YnlFamily(sys.argv[2], sys.argv[3])
ynl.ntf_subscribe(sys.argv[4])
end = time.monotonic() + int(sys.argv[5])
msgs = []
while True:
    ynl.check_ntf()
    # 7.3's library queues them (queue.Queue), 6.12's listed them.
    q = ynl.async_msg_queue
    while q and (isinstance(q, list) or not q.empty()):
        msgs.append(q.pop(0) if isinstance(q, list) else q.get_nowait())
    if msgs or time.monotonic() >= end:
        break
    time.sleep(0.1)
print(json.dumps(msgs))
EOF
}

# slab_traces [GLOB]: sets slab_args to "cache=NAME size=OBJECT_SIZE FILE"
# triples, one per readable alloc_traces of the caches GLOB names
# (default: all), for one awk over them all: a fork per cache took 45 s a
# count under a 5000-connection flood (UML forks are slow), one awk takes
# a few. Each cache is shrunk first: under KASAN a freed object waits in
# the quarantine, still allocated in the slab's eyes and in alloc_traces,
# until its cache is shrunk (ipv6-flood's count on the KASAN guest had
# 471 such objects more than the flood holds).
slab_traces() {
	local d name size
	slab_args=()
	for d in /sys/kernel/debug/slab/${1:-*}/; do
		name=${d%/}
		name=${name##*/}
		[ -r "$d/alloc_traces" ] || continue
		read -r size 2> /dev/null < "/sys/kernel/slab/$name/object_size" || continue
		echo 1 2> /dev/null > "/sys/kernel/slab/$name/shrink"
		slab_args+=("cache=$name" "size=$size" "$d/alloc_traces")
	done
}

# nfsfair_objects: "COUNT BYTES" of nfsfair's live slab objects, counted
# by allocating function (svc_fair*, nfsfair*) in every cache's
# alloc_traces (UML records no stack); empty without slub_debug=U. A
# cache that goes between the listing and the read fails awk: listed again.
nfsfair_objects() {
	local try
	[ -d /sys/kernel/debug/slab ] || return 0
	for try in 1 2 3; do
		slab_traces
		[ ${#slab_args[@]} -gt 0 ] || { echo "0 0"; return 0; }
		awk '$2 ~ /^(svc_fair|nfsfair)/ { n += $1; b += $1 * size }
			END { printf "%d %d\n", n, b }' "${slab_args[@]}" 2> /dev/null && return 0
	done
	return 1
}

# kernel_log: dmesg without KCSAN's data-race reports, which
# tests/qemu/console-check sorts into nfsfair's (a failure) and the rest
# of the kernel's; on any other kernel, dmesg as it is.
kernel_log() {
	dmesg | awk '/BUG: KCSAN:/ { skip = 1 } !skip { print } skip && /====================/ { skip = 0 }'
}

# mono: CLOCK_MONOTONIC in ns; sleep_until NS: sleep until it reads NS.
mono() { python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC))'; }
sleep_until() {
	python3 -c 'import sys, time
time.sleep(max(0, int(sys.argv[1]) - time.clock_gettime_ns(time.CLOCK_MONOTONIC)) / 1e9)' "$1"
}

# window_stats REPORT GROUP FROM TO SKIP: "min max n" of GROUP's windows
# in an nfsfair-load --window-ms REPORT that lie wholly between FROM and
# TO (CLOCK_MONOTONIC ns; TO 0: the measured time's end), the first SKIP
# of them left out (a window just after an edit is a mix), and the last,
# short one never counted.
window_stats() {
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
w = r["window_ms"] * 1e6
a, b = int(sys.argv[3]) - r["start_ns"], int(sys.argv[4]) - r["start_ns"]
if int(sys.argv[4]) == 0:
    b = 1e30
win = [x for x in r["groups"] if x["name"] == sys.argv[2]][0]["windows"]
v = [win[i] for i in range(len(win) - 1) if i * w >= a and (i + 1) * w <= b][int(sys.argv[5]):]
print(min(v or [0]), max(v or [0]), len(v))' "$@"
}
