#!/bin/bash
# Inside the guest, in real time: svc_xprt_enqueue() calls per RPC, for
# tests/bench/enqueues-per-rpc.
#   guest-enqueues.sh CONFIG OUTFILE DURATION CONNS DEPTH THREADS
#       nfsd with THREADS threads and a 1 MB maximum payload; CONFIG
#       "none" (empty table, or a kernel without nfsfair) or "per-host"
#       (nfsfair-ctl -A -s 127.0.0.0/8 -j per-host). Three workloads of
#       DURATION seconds each: nfsfair-load --proc null and --proc getattr
#       (hold 0) from 127.0.0.2 with CONNS connections of depth DEPTH, then
#       1 MB WRITEs through a kernel NFSv3 mount (wsize=1M, dd bs=1M
#       oflag=direct in a loop). Writes OUTFILE (JSON): for each workload,
#       the counters before and after.
#
# Counting, from tracefs: in 6.12 the sunrpc:svc_xprt_enqueue tracepoint
# fires in svc_xprt_ready(), on every svc_xprt_enqueue() call and before
# any decision, with the transport's xpt_flags. One tracing instance per
# question, each with the event and a filter on those flags, so that the
# kernel does the counting (entries + overrun + read events of each
# instance's ring buffer: every event committed, kept or overwritten);
# nothing reads the events. The transports that were actually queued are
# nfsd's own count, sockets-enqueued in /proc/fs/nfsd/pool_stats; the
# RPCs, the rpc line of /proc/net/rpc/nfsd.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/uml/guest-lib.sh"
ctl=$top/cli/nfsfair-ctl
load=$top/tests/load/nfsfair-load

[ $# -eq 6 ] || { echo "usage: guest-enqueues.sh CONFIG OUTFILE DURATION CONNS DEPTH THREADS" >&2; exit 2; }
config=$1 outfile=$2 duration=$3 conns=$4 depth=$5 threads=$6
work=$(mktemp -d /tmp/enqueues.XXXXXX)
mnt=/run/nfsfair/mnt
tr=/sys/kernel/tracing

die() { echo "guest-enqueues: $*" >&2; exit 1; }

mountpoint -q "$tr" || mount -t tracefs tracefs "$tr" || die "cannot mount tracefs at $tr"
ev=$tr/events/sunrpc/svc_xprt_enqueue
[ -d "$ev" ] || die "no sunrpc:svc_xprt_enqueue tracepoint in $(uname -r) (CONFIG_FTRACE / event tracing off?)"
[ -d "$tr/events/sunrpc/svc_xprt_no_write_space" ] ||
	die "no sunrpc:svc_xprt_no_write_space tracepoint in $(uname -r)"
grep -q 'field:unsigned long flags;' "$ev/format" || die "svc_xprt_enqueue has no 'unsigned long flags' field: $(cat "$ev/format")"

# The XPT_* bit numbers as this kernel prints them: from the event's own
# print format, { ((((1UL))) << (N)), "NAME" }, never from a header that may differ.
bits=$(python3 - "$ev/format" <<'EOF'
import re, sys
fmt = open(sys.argv[1]).read()
pairs = re.findall(r'\{[\s(]*1UL[\s)]*<<[\s(]*(\d+)[\s)]*,\s*"(\w+)"\s*\}', fmt)
for nr, name in pairs:
    print(f"{name}={1 << int(nr)}")
EOF
)
bit() { sed -n "s/^$1=//p" <<< "$bits"; }
for f in BUSY CONN CLOSE HANDSHAKE DATA DEFERRED; do
	[ -n "$(bit $f)" ] || die "no XPT_$f in svc_xprt_enqueue's print format: $(grep '^print fmt' "$ev/format")"
done
busy=$(bit BUSY)
# What svc_xprt_ready() acts on when XPT_BUSY is clear: CONN, CLOSE or
# HANDSHAKE make it ready; DATA or DEFERRED make it ready if there is
# write space and a free slot (else svc_xprt_no_write_space fires).
work_mask=$(( $(bit CONN) | $(bit CLOSE) | $(bit HANDSHAKE) | $(bit DATA) | $(bit DEFERRED) ))

# instance NAME EVENT [FILTER]: a tracing instance counting EVENT, those
# passing FILTER only; a small overwriting buffer, since only its
# counters are read.
instance() {
	local d=$tr/instances/enq_$1
	mkdir "$d" || die "cannot create tracing instance $d"
	echo 64 > "$d/buffer_size_kb"
	[ -z "${3:-}" ] || echo "$3" > "$d/events/sunrpc/$2/filter" ||
		die "filter '$3' refused on $2"
	echo 1 > "$d/events/sunrpc/$2/enable"
	echo 1 > "$d/tracing_on"
}
instance all svc_xprt_enqueue
instance busy svc_xprt_enqueue "flags & $busy"
instance work svc_xprt_enqueue "flags & $work_mask"
instance busywork svc_xprt_enqueue "(flags & $busy) && (flags & $work_mask)"
instance nospace svc_xprt_no_write_space

# snap NAME: every counter, as JSON, in $work/NAME.json.
snap() {
	python3 - "$tr" "$work/$1.json" <<'EOF'
import glob, json, os, sys
tr, out = sys.argv[1:]
s = {}
for name in ("all", "busy", "work", "busywork", "nospace"):
    tot = {"events": 0, "commit_overrun": 0, "dropped": 0}
    for f in glob.glob(f"{tr}/instances/enq_{name}/per_cpu/cpu*/stats"):
        v = {}
        for line in open(f):
            k, _, x = line.partition(":")
            try:
                v[k.strip()] = int(x.strip())
            except ValueError:
                pass
        tot["events"] += v["entries"] + v["overrun"] + v["read events"]
        tot["commit_overrun"] += v.get("commit overrun", 0)
        tot["dropped"] += v.get("dropped events", 0)
    s[name] = tot
q = 0
for line in open("/proc/fs/nfsd/pool_stats"):
    if not line.startswith("#"):
        q += int(line.split()[2])
s["queued"] = q
for line in open("/proc/net/rpc/nfsd"):
    w = line.split()
    if w[0] == "rpc":
        s["rpc"] = int(w[1])
    elif w[0] == "proc3":
        s["proc3"] = [int(x) for x in w[2:]]
json.dump(s, open(out, "w"))
EOF
}

# nfsd, with 1 MB WRITEs allowed: max_block_size before any thread starts
# (the default is 1/4096 of the guest's memory, 128 KB here).
mkdir -p "$mnt"
mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd
echo 1048576 > /proc/fs/nfsd/max_block_size
nfsd_start "$threads" > /dev/null || die "nfsd did not start with $threads threads"
add_source_addr 127.0.0.2

nfsfair=false
"$ctl" -L > /dev/null 2>&1 && nfsfair=true
case $config in
none) ;;
per-host)
	$nfsfair || die "per-host asked on $(uname -r), which has no nfsfair family"
	"$ctl" -A -s 127.0.0.0/8 -j per-host
	;;
*) die "unknown config '$config'" ;;
esac
"$ctl" -L > "$work/table.txt" 2>&1 || true

# A self-check of the counting: a filter that matches nothing counts 0.
instance none svc_xprt_enqueue "flags & 0"
"$load" --group probe:127.0.0.2:1:1 --proc null --warmup 0 --duration 0.2 > /dev/null ||
	die "nfsfair-load could not reach nfsd"

for wl in null getattr; do
	hold=()
	[ $wl = getattr ] && hold=(--hold-us 0)
	snap "$wl-before"
	"$load" --group load:127.0.0.2:"$conns":"$depth" --proc $wl "${hold[@]}" \
		--warmup 0 --duration "$duration" --json > "$work/$wl-load.json" ||
		die "nfsfair-load --proc $wl failed: $(cat "$work/$wl-load.json")"
	snap "$wl-after"
done

mount -t nfs -o vers=3,proto=tcp,wsize=1048576,rsize=1048576 "$(nfs_source 3)" "$mnt" ||
	die "NFSv3 mount of $(nfs_source 3) failed"
wsize=$(awk -v m="$mnt" '$2 == m { n = split($4, o, ","); for (i = 1; i <= n; i++) if (o[i] ~ /^wsize=/) print substr(o[i], 7) }' /proc/mounts)
# The file is made before counting; the loop rewrites its 16 MB in place.
dd if=/dev/zero of="$mnt/write.bin" bs=1M count=16 oflag=direct status=none
snap write-before
end=$(( ${EPOCHREALTIME/./} + duration * 1000000 ))
mb=0
while [ "${EPOCHREALTIME/./}" -lt "$end" ]; do
	dd if=/dev/zero of="$mnt/write.bin" bs=1M count=16 oflag=direct conv=notrunc status=none ||
		die "dd to the NFS mount failed"
	mb=$((mb + 16))
done
snap write-after
umount "$mnt"

python3 - "$work" "$outfile" "$config" "$nfsfair" "$wsize" "$mb" "$bits" <<'EOF'
import json, os, platform, sys
work, out, config, nfsfair, wsize, mb, bits = sys.argv[1:]
r = {"config": config, "nfsfair": nfsfair == "true", "release": platform.release(),
     "version": platform.version(), "wsize": int(wsize or 0),
     "xpt_bits": dict(b.split("=") for b in bits.split()),
     "table": open(os.path.join(work, "table.txt")).read(), "workloads": {}}
for wl in ("null", "getattr", "write"):
    b = json.load(open(os.path.join(work, f"{wl}-before.json")))
    a = json.load(open(os.path.join(work, f"{wl}-after.json")))
    d = {"rpcs": a["rpc"] - b["rpc"], "queued": a["queued"] - b["queued"],
         "proc3": [x - y for x, y in zip(a["proc3"], b["proc3"])]}
    for k in ("all", "busy", "work", "busywork", "nospace"):
        for f in ("events", "commit_overrun", "dropped"):
            d[f"{k}_{f}"] = a[k][f] - b[k][f]
    if wl == "write":
        d["mb_written"] = int(mb)
    else:
        lr = json.load(open(os.path.join(work, f"{wl}-load.json")))
        d["load_ops"] = sum(g["ops"] for g in lr["groups"])
        d["load_errors"] = sum(g["errors"] for g in lr["groups"])
        d["load_duration_s"] = lr["duration_s"]
    r["workloads"][wl] = d
r["selfcheck_none"] = sum(
    int(l.split(":")[1]) for f in __import__("glob").glob(
        "/sys/kernel/tracing/instances/enq_none/per_cpu/cpu*/stats")
    for l in open(f) if l.split(":")[0] in ("entries", "overrun", "read events"))
with open(out + ".tmp", "w") as f:
    json.dump(r, f, indent=1)
os.rename(out + ".tmp", out)
EOF
echo "guest-enqueues: $config on $(uname -r): wrote $outfile"
