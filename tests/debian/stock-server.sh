#!/bin/bash
# Inside the stock Debian 12 or 13 guest (tests/debian/run), with
# nfsfair-tools and nfsfair-dkms installed by apt when the image was built.
# Three boots:
#   1  the DKMS modules are the ones modprobe finds, the stock files are
#      untouched; the admin's setup: a YAML class, 2 nfsd threads, an
#      export, the metrics timer; the real-client phases' files; reboot
#   2  nfsfaird's table is in place before nfs-server starts (on 13,
#      whose nfs-server starts nfsd with nfsdctl: nfs.conf's threads); the metrics
#      file; shares of an nconnect=16 mount against a 1-connection mount
#      writing to an export on a slow disk
#      (NFSv3, NFSv4.1) with no table, per-host, and after a live edit;
#      real clients on 4 threads, a stat() walker beside 8 random readers
#      waiting on the disk, with no table and per-host (fair in time);
#      unloading nfsd, lockd and sunrpc with a table loaded, autoloading
#      sunrpc from nfsfaird, nfs-server again; on 13, nfsd started by
#      nfsdctl autostart by hand classifies by the table; apt remove nfsfair-dkms;
#      reboot
#   3  the stock modules, an NFS mount, nfsfaird's one line and no loop
# TAP numbering carries across the boots (the plan comes at the end).
top=${NFSFAIR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$top/tests/lib/tap.sh"
. "$top/tests/debian/clients.sh"
state=/var/lib/nfsfair-test/tap.state
[ -f "$state" ] && . "$state"
boot=${NFSFAIR_BOOT:-1}
kver=$(uname -r)
save_tap() { printf 'tap_count=%d\ntap_failures=%d\n' "$tap_count" "$tap_failures" > "$state"; }
# An oops in a process (not in softirq or under a _bh lock) does not
# panic Debian's kernel: the boot goes on. Its taint says so: D (died,
# 128) after an oops or BUG, W (512) after a warning.
kernel_clean() {
	local t
	t=$(cat /proc/sys/kernel/tainted)
	check "boot $boot: the kernel had no oops, BUG or warning (taint $t)" test $((t & 640)) -eq 0 ||
		diag "$(dmesg | grep -E -A14 'WARNING:|BUG:|Oops|general protection' | head -c 3000 | tr '\n' '|')"
}
reboot_next() { kernel_clean; save_tap; touch /run/nfsfair-test-reboot; exit 0; }
diag "boot $boot: $(uname -r), $(cat /proc/cmdline | tr -d '\n')"

# The file modprobe loads for a module, under this kernel's tree.
module_file() { modinfo -k "$kver" -n "$1" 2>/dev/null; }
from_dkms() { case $(module_file "$1") in /lib/modules/$kver/updates/dkms/*) ;; *) return 1 ;; esac; }
from_stock() { case $(module_file "$1") in /lib/modules/$kver/kernel/*) ;; *) return 1 ;; esac; }
# The Debian package that ships the running kernel's stock sunrpc
# (under /usr/lib/modules on 13, /lib/modules on 12).
modules_package() { dpkg -S "*/modules/$kver/kernel/net/sunrpc/sunrpc.ko*" 2>/dev/null | cut -d: -f1 | head -1; }
# Wait (bounded) for a command to succeed: boot order, timers.
wait_for() { local n=$1; shift; while ! "$@" 2>/dev/null; do n=$((n - 1)); [ $n -gt 0 ] || return 1; sleep 1; done; }
active() { [ "$(systemctl is-active "$1")" = active ]; }
# Debian 13: what nfs-server's `nfsdctl autostart || rpc.nfsd` printed
# this boot, and that it was nothing but autostart's lockd step.
check_nfsdctl_start() {
	local out
	out=$(journalctl -b _SYSTEMD_UNIT=nfs-server.service -o cat)
	if [ -z "$out" ]; then
		diag "boot $boot: nfs-server started nfsd with nfsdctl autostart"
	else
		diag "boot $boot: nfs-server's nfsdctl autostart printed '$(tr '\n' '|' <<< "$out")': rpc.nfsd started nfsd"
	fi
	check "boot $boot: nfs-server's start printed nothing but nfsdctl's lockd step (6.12 has no lockd netlink family)" \
		bash -c '[ -z "$(grep -vx "nfsdctl: lockd configuration failure" <<< "$1")" ]' _ "$out"
}
mono() { systemctl show -P "$2" "$1"; }

# Boot 2's real-client phases read big at random, 64 KiB at a time, and
# walk walk/. big has every block written: a hole or an unwritten extent
# (a sparse file, fallocate) would be read without the disk. 2 GiB: a
# phase's reads (about 3,000 of 64 KiB, the disk's 100 a second) touch
# under a tenth of it, so with the caches dropped at each phase's start
# nearly every READ waits on the disk; in the guest's 3 GiB of RAM it
# would stay cached were the caches not dropped. Written with the mount
# async for the while: sync, each small file would cost its own commits
# at 100 I/O a second. The files' content is not what is measured.
make_real_files() {
	mount -o remount,async /srv/nfs &&
		dd if=/dev/zero of=/srv/nfs/big bs=16M count=128 oflag=direct status=none &&
		python3 -c '
import os
for d in range(20):
    os.makedirs("/srv/nfs/walk/d%02d" % d)
    for f in range(100):
        with open("/srv/nfs/walk/d%02d/f%03d" % (d, f), "wb") as fp:
            fp.write(os.urandom(1024))
' &&
		sync && mount -o remount,sync /srv/nfs &&
		[ "$(du -m /srv/nfs/big | cut -f1)" -ge 2048 ]
}

if [ "$boot" = 1 ]; then
	for m in sunrpc lockd nfsd auth_rpcgss nfsv4 rpcrdma; do
		check "modprobe finds the DKMS $m ($(module_file $m))" from_dkms $m
	done
	check "dkms says nfsfair is installed for $kver" \
		bash -c "dkms status -m nfsfair -k $kver | grep -q ': installed'"
	# The package that installed the running kernel's stock modules:
	# linux-image-KVER (or its -unsigned twin when the signed one was not
	# out yet) on 6.12; 7.3's packaging splits them into
	# linux-modules-KVER. dpkg's file lists, not the disk: Debian 13's
	# dkms has moved some of them away.
	image=$(modules_package)
	check "the stock kernel package ($image) is installed" \
		bash -c "[ \"\$(dpkg-query -W -f='\${Status}' '$image')\" = 'install ok installed' ]"
	# Debian 12's dkms (3.0) installs beside the stock modules. Debian
	# 13's (3.2) moves each stock module it replaces into its archive,
	# /var/lib/dkms/nfsfair/original_module/, and moves it back when the
	# package is removed (boot 2 checks that): dpkg --verify then names
	# those files missing. Any other change, or a missing file that is not
	# in the archive byte for byte (dpkg's md5sum), fails.
	stock_kept() {
		local flags path sum kept=/var/lib/dkms/nfsfair/original_module/$kver/x86_64
		while read -r flags path; do
			[ "$flags" = missing ] || { echo "changed: $flags $path"; return 1; }
			sum=$(awk -v p="${path#/}" '$2 == p { print $1 }' "/var/lib/dpkg/info/$image.md5sums")
			[ -n "$sum" ] && [ "$(md5sum < "$kept/${path##*/}" | cut -d' ' -f1)" = "$sum" ] ||
				{ echo "not in dkms's archive as shipped: $path"; return 1; }
		done < <(dpkg --verify "$image")
	}
	moved=$(dpkg --verify "$image" | grep -c '^missing' || true)
	diag "dpkg --verify $image: $moved stock modules moved to dkms's archive"
	check "the stock kernel package's files are untouched, or kept as shipped in dkms's archive ($moved moved)" \
		stock_kept
	check "the initramfs carries the DKMS sunrpc" \
		bash -c "lsinitramfs /boot/initrd.img-$kver | grep -q 'updates/dkms/sunrpc.ko'"

	# The admin's configuration: a class that none of the test's peers
	# match (the share phases set their own rules by hand), two threads.
	# The export on the harness's slow disk (100 I/O a second), mounted
	# sync: every WRITE holds an nfsd thread until the disk has it, sent
	# FILE_SYNC or UNSTABLE (a sync export honours UNSTABLE, which a
	# default mount leaves in the page cache). With a default mount and a
	# dd per 16 writes (direct-writer says why not), the 16-connection
	# client's share with no table ranged from 48 to 95% between runs.
	# The device timeout: on a starved host (TCG beside a sanitizer
	# guest) udev announced vdb after systemd's default 90 s, and boot 3
	# went to emergency mode for want of /srv/nfs.
	mkdir -p /etc/nfsfair /srv/nfs /var/lib/prometheus/node-exporter
	check "the slow disk takes the export" bash -c \
		"mkfs.ext4 -q /dev/vdb && echo '/dev/vdb /srv/nfs ext4 defaults,sync,x-systemd.device-timeout=15min 0 2' >> /etc/fstab && mount /srv/nfs"
	cat > /etc/nfsfair/nfsfair.yaml <<-'EOF'
	origin: 10
	classes:
	  - name: backup
	    limit: 1
	    members:
	      - 203.0.113.0/24
	EOF
	printf '[nfsd]\nthreads=2\n' > /etc/nfs.conf.d/nfsfair-test.conf
	# nfsd's filesystem: mounting it loads nfsd, lockd and sunrpc. On a
	# starved host a 25 s soft lockup in that modprobe held the mount past
	# systemd's 90 s in boot 3, and nfs-server failed for want of it.
	mkdir -p /etc/systemd/system/proc-fs-nfsd.mount.d
	printf '[Mount]\nTimeoutSec=15min\n' > /etc/systemd/system/proc-fs-nfsd.mount.d/nfsfair-test.conf
	echo "/srv/nfs 192.0.2.0/24(rw,sync,no_root_squash,insecure,no_subtree_check) 127.0.0.1(rw,sync,no_root_squash,insecure,no_subtree_check)" > /etc/exports
	# One write each: the mount is sync.
	for i in $(seq 1 16); do dd if=/dev/urandom of=/srv/nfs/f$i bs=1M count=1 iflag=fullblock status=none; done
	t0=$SECONDS
	check "the real-client phases' files: big (2 GiB, written) and walk/ (2000 small files)" make_real_files
	diag "big and walk/ took $((SECONDS - t0)) s"
	check "nfsfaird, nfs-server and the metrics timer enable" \
		systemctl enable -q nfsfaird.service nfs-server.service nfsfair-metrics.timer
	reboot_next
fi

if [ "$boot" = 2 ]; then
	check "nfs-server.service is active after boot" wait_for 120 active nfs-server.service
	check "nfsfaird.service is active after boot" active nfsfaird.service
	ready=$(mono nfsfaird.service ActiveEnterTimestampMonotonic)
	started=$(mono nfs-server.service ExecMainStartTimestampMonotonic)
	diag "nfsfaird ready at ${ready} us, nfs-server started at ${started} us (monotonic)"
	check "nfsfaird had the table in place before nfs-server started" \
		test "$ready" -gt 0 -a "$started" -gt "$ready"
	# Debian 13's nfs-server runs `nfsdctl autostart || rpc.nfsd`: nfsdctl
	# sets nfsd up over nfsd's netlink family from nfs.conf's [nfsd]
	# section. Either way nfsd is started inside nfs-server's ExecStart,
	# after nfsfaird's start (the check above). nfs-utils 2.8.3's
	# autostart first sets lockd's grace time over lockd's netlink family,
	# which 6.12 lacks: it fails ("lockd configuration failure") and
	# rpc.nfsd starts nfsd, from the same nfs.conf. Boot 3 shows the stock
	# modules doing the same. Anything else printed there fails.
	diag "nfs-server starts nfsd with: $(systemctl show -P ExecStart nfs-server.service | sed -n 's/.*argv\[\]=\([^;]*\);.*/\1/p')"
	if command -v nfsdctl >/dev/null; then
		check_nfsdctl_start
		diag "nfsdctl threads: $(nfsdctl threads 2>&1 | tr '\n' '|')"
		check "nfsdctl reads the DKMS nfsd's threads over netlink: nfs.conf's 2" \
			bash -c '[ "$(nfsdctl threads | awk "/pool-threads/ { for (i = 2; i <= NF; i++) s += \$i } END { print s + 0 }")" = 2 ]'
	fi
	check "nfsd runs nfs.conf's 2 threads" test "$(cat /proc/fs/nfsd/threads)" = 2
	status=$(systemctl status nfsfaird.service --no-pager | sed -n 's/^ *Status: //p')
	diag "nfsfaird Status: $status"
	check "systemctl status shows nfsfaird's STATUS line" \
		bash -c "grep -q '1 classes, 1 rules' <<< '$status'"
	check "the YAML's class is in the kernel" bash -c "nfsfair-ctl classes | grep -q backup"
	for m in sunrpc lockd nfsd; do
		check "the loaded $m is out of tree (taint O): the DKMS one" \
			grep -q O /sys/module/$m/taint
	done
	check "the export is the slow disk, mounted sync" \
		bash -c '[ "$(findmnt -no SOURCE /srv/nfs)" = /dev/vdb ] && findmnt -no OPTIONS /srv/nfs | grep -qw sync'
	prom=/var/lib/prometheus/node-exporter/nfsfair.prom
	check "the metrics timer wrote $prom" wait_for 60 grep -q '^nfsfair_' "$prom"

	# Two clients (tests/debian/clients.sh): c1 mounts with nconnect=16,
	# c2 with one connection; every mount's own kernel counters
	# (/proc/self/mountstats) count the WRITEs the server answered.
	make_clients
	mount_both() { client_mount 1 "$1,nconnect=16" && client_mount 2 "$1"; }
	load_pids=()
	start_load() {
		local c i
		for c in 1 2; do
			for i in $(seq 1 16); do
				"$top/tests/debian/direct-writer" /mnt/c$c/w$c-$i &
				load_pids+=($!)
			done
		done
	}
	# The writers, then the mounts must come free: a writer in an O_DIRECT
	# WRITE ends only when its RPC does, which on a busy TCG host can take
	# a while.
	stop_load() {
		kill "${load_pids[@]}" 2>/dev/null
		wait "${load_pids[@]}" 2>/dev/null
		load_pids=()
		wait_for 120 bash -c '! pgrep -f "direct-writer /mnt/c[12]/" >/dev/null' ||
			diag "writers still running: $(pgrep -af 'direct-writer /mnt/c[12]/' | tr '\n' ';')"
	}
	# Both test mounts gone, retried while the last writers' files close.
	umount_both() {
		local m
		for m in /mnt/c1 /mnt/c2; do
			! mountpoint -q $m || umount $m || return
		done
	}
	# c1's share of the WRITEs in a 20 s window, in percent: both mounts'
	# kernel counters read at the same instants, by one process (under
	# TCG a python3 start takes seconds).
	share() {
		python3 - <<-'EOF'
		import time
		def writes():
		    ops, cur = {}, None
		    for line in open('/proc/self/mountstats'):
		        if line.startswith('device '):
		            cur = line.split()[4]
		        elif cur in ('/mnt/c1', '/mnt/c2') and line.strip().startswith('WRITE:'):
		            ops[cur] = int(line.split()[1])
		    return ops
		a = writes()
		time.sleep(20)
		b = writes()
		d1, d2 = b['/mnt/c1'] - a['/mnt/c1'], b['/mnt/c2'] - a['/mnt/c2']
		print('%.1f %d %d' % (100.0 * d1 / max(d1 + d2, 1), d1, d2))
		EOF
	}
	in_range() { python3 -c "import sys; sys.exit(not ($2 <= $1 <= $3))"; }
	for vers in vers=3,nolock vers=4.1; do
		nfsfair-ctl -F
		nfsfair-ctl -X bulk 2>/dev/null
		check "$vers: both clients mount" mount_both "$vers"
		start_load
		sleep 5
		read -r s n1 n2 < <(share)
		diag "$vers no table: nconnect=16 client $s% ($n1 WRITEs), 1-connection client ($n2)"
		check "$vers no table: the 16-connection client takes most WRITEs ($s%)" in_range "$s" 70 100
		nfsfair-ctl -A -s 192.0.2.0/24 -j per-host
		sleep 3
		read -r s n1 n2 < <(share)
		diag "$vers per-host: nconnect=16 client $s% ($n1 WRITEs), 1-connection client ($n2)"
		check "$vers per-host, set live: each client about half ($s%)" in_range "$s" 40 60
		nfsfair-ctl -N bulk --weight 3
		nfsfair-ctl -I 1 -s 192.0.2.18 -j bulk
		sleep 3
		read -r s n1 n2 < <(share)
		diag "$vers live edit, c1 in class bulk of weight 3: $s% ($n1 WRITEs), c2 ($n2)"
		check "$vers live edit under load: weight 3 against 1 gives c1 about 3/4 ($s%)" in_range "$s" 62 88
		stop_load
		check "$vers: both clients unmount" wait_for 60 umount_both ||
			diag "still busy: $(ls -l /proc/[0-9]*/cwd /proc/[0-9]*/fd 2>/dev/null | grep '/mnt/c[12]' | tr '\n' ';')"
	done
	nfsfair-ctl -D -s 192.0.2.18 -j bulk
	nfsfair-ctl -X bulk

	# Fair in thread-time, with real clients (issue 40): calls that cost
	# unequal thread-time. nfsd gets 4 threads for these phases only. c1,
	# one connection, reads big with 8 threads of random 64 KiB O_DIRECT
	# READs (random-reader: O_DIRECT, as no mount option keeps the client,
	# the server's own kernel, from caching, or its readahead from growing
	# a READ); the server's caches dropped at each phase's start, each READ
	# holds a thread while it waits on the slow disk. c2, one connection,
	# noac,lookupcache=none, walks walk/'s 2000 files with stat(): cheap
	# calls, one at a time, answered from the server's cache (walk/ is
	# read back in after each drop: a walker's call that waits on the disk
	# queues behind the readers' reads there, where no dispatch order can
	# help it). NFSv3: no session slots between a client and the threads.
	# Each phase 5 s of warmup, then 20 s measured (client-rates): the
	# walker alone; the readers alone; both, with no table; both, with a
	# plain per-host rule; both, the readers' host limited to 1 thread;
	# the walker alone again. Goal, per-host: beside the readers the
	# walker keeps 75% of its rate alone (the first), the readers 90% of
	# theirs. The rule stays: the unload below wants a table loaded.
	# Helpers in awk: under TCG a python3 start takes seconds.
	t_real=$SECONDS
	real_vers=vers=3,nolock
	nfsfair-ctl -F
	echo 4 > /proc/fs/nfsd/threads
	check "nfsd runs 4 threads for the real-client phases" test "$(cat /proc/fs/nfsd/threads)" = 4
	check "real clients: c1 mounts $real_vers (the readers)" client_mount 1 "$real_vers"
	check "real clients: c2 mounts $real_vers,noac,lookupcache=none (the walker)" \
		client_mount 2 "$real_vers,noac,lookupcache=none"
	# rates [--walk DIR]: one phase, the server's caches dropped first;
	# prints client-rates' line, nothing if it failed. Run in a process
	# substitution: its time goes to a file.
	rates() {
		local t0=$SECONDS
		sync
		echo 3 > /proc/sys/vm/drop_caches
		ls -lR /srv/nfs/walk > /dev/null
		timeout 180 "$top/tests/debian/client-rates" --reads /mnt/c1 "$@"
		echo -n "$((SECONDS - t0)) " >> /run/real-client-times
	}
	rm -f /run/real-client-times
	read -r walk_alone _ _ _ _ cpu_alone < <(rates --walk /mnt/c2/walk)
	diag "real clients: the walker alone: ${walk_alone:-?} stat()s/s, the guest's CPUs ${cpu_alone:-?}% busy"
	"$top/tests/debian/random-reader" /mnt/c1/big 8 &
	reader=$!
	read -r _ reads_alone disk_alone rtt_alone kib_alone cpu < <(rates)
	diag "real clients: the readers alone: ${reads_alone:-?} READs/s of ${kib_alone:-?} KiB" \
		"(${rtt_alone:-?} ms each), the disk ${disk_alone:-?} reads/s, the CPUs ${cpu:-?}% busy"
	read -r walk_none reads_none disk_none rtt_none _ cpu < <(rates --walk /mnt/c2/walk)
	diag "real clients, no table: the walker ${walk_none:-?} stat()s/s beside the readers'" \
		"${reads_none:-?} READs/s (${rtt_none:-?} ms each), the disk ${disk_none:-?} reads/s," \
		"the CPUs ${cpu:-?}% busy"
	nfsfair-ctl -A -s 192.0.2.0/24 -j per-host
	read -r walk_ph reads_ph disk_ph rtt_ph _ cpu < <(rates --walk /mnt/c2/walk)
	diag "real clients, per-host: the walker ${walk_ph:-?} stat()s/s beside the readers'" \
		"${reads_ph:-?} READs/s (${rtt_ph:-?} ms each), the disk ${disk_ph:-?} reads/s," \
		"the CPUs ${cpu:-?}% busy"
	# What fair dispatch charged each client since the rule came.
	for a in 192.0.2.18 192.0.2.34; do
		diag "real clients, per-host: explain $a: $(nfsfair-ctl explain $a 2>&1 | tr -s ' \n' ' ;')"
	done
	# The admin's manual fix, the per-host row's yardstick: the readers'
	# host in a class held to 1 of the 4 threads. What the walker gets
	# then is what it can get beside the readers on this guest's CPUs.
	nfsfair-ctl -N readers --limit 1
	nfsfair-ctl -I 1 -s 192.0.2.18 -j readers
	read -r walk_lim reads_lim disk_lim rtt_lim _ cpu < <(rates --walk /mnt/c2/walk)
	diag "real clients, readers' host limited to 1 thread: the walker ${walk_lim:-?} stat()s/s beside the" \
		"readers' ${reads_lim:-?} READs/s (${rtt_lim:-?} ms each), the disk ${disk_lim:-?} reads/s," \
		"the CPUs ${cpu:-?}% busy"
	nfsfair-ctl -D -s 192.0.2.18 -j readers
	nfsfair-ctl -X readers
	kill "$reader"
	wait "$reader" 2>/dev/null
	# The walker alone again: a slower or faster host (TCG beside other
	# suites) since the first window shows here. Not checked.
	read -r walk_after _ _ _ _ cpu < <(rates --walk /mnt/c2/walk)
	diag "real clients: the walker alone again, after (per-host): ${walk_after:-?} stat()s/s," \
		"the CPUs ${cpu:-?}% busy"
	# pct A B: A in percent of B; ? when either is missing or B is 0.
	pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b + 0 == 0) print "?"; else printf "%.1f\n", 100 * a / b }'; }
	at_least() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "?" && a + 0 >= b) }'; }
	walk_none_pct=$(pct "$walk_none" "$walk_alone") reads_none_pct=$(pct "$reads_none" "$reads_alone")
	walk_ph_pct=$(pct "$walk_ph" "$walk_alone") reads_ph_pct=$(pct "$reads_ph" "$reads_alone")
	diag "real clients | walker stat()s/s | readers READs/s"
	diag "alone        | ${walk_alone:-?} (after: ${walk_after:-?}) | ${reads_alone:-?}"
	diag "no table     | ${walk_none:-?} ($walk_none_pct%) | ${reads_none:-?} ($reads_none_pct%)"
	diag "per-host     | ${walk_ph:-?} ($walk_ph_pct%) | ${reads_ph:-?} ($reads_ph_pct%)"
	diag "limit 1      | ${walk_lim:-?} ($(pct "$walk_lim" "$walk_alone")%) | ${reads_lim:-?} ($(pct "$reads_lim" "$reads_alone")%)"
	# The rows measure thread-time only if the READs wait on the disk:
	# alone, most of them must have been the disk's reads.
	what="the readers' READs wait on the disk (${disk_alone:-?} disk reads/s, ${reads_alone:-?} READs/s)"
	check "real clients: $what" at_least "$(pct "$disk_alone" "$reads_alone")" 80
	# The issue's goal is 75% of the walker's rate alone. On this TCG
	# guest its calls are bound by the guest's CPUs, which the readers'
	# READs share, and the guest's speed drifts between phases with the
	# host's load (this check's runs: alone 77 to 307 stat()s/s, the
	# readers held to 1 thread 103 to 204): no rate ratio across phases
	# is the scheduler's to keep. What dispatch decides is how long the
	# walker's call waits for a thread once all 4 are busy with READs.
	# Fair, it is the next thread freed: on average at most the interval
	# between the readers' READs completing (1/their rate; half of it if
	# they complete evenly). Its extra time per call beside the readers,
	# over its time with the readers held to 1 thread (the admin's
	# manual fix: a thread always free), must stay within that interval;
	# with no table it queues behind several READs and exceeds it
	# (earlier runs: per-host about 0.4, no table 4 to 5 intervals).
	diag "real clients, per-host: the walker kept $walk_ph_pct% of its rate alone (the issue's goal: 75%)," \
		"$(pct "$walk_ph" "$walk_lim")% of its rate with the readers held to 1 thread"
	# waits RATE: the walker's extra ms per call at RATE over the
	# limit-1 row, in the readers' completion intervals at their RATE2.
	waits() { awk -v w="$1" -v l="$walk_lim" -v r="$2" 'BEGIN {
		if (w + 0 == 0 || l + 0 == 0 || r + 0 == 0) { print "?"; exit }
		printf "%.2f %.1f %.1f\n", (1000 / w - 1000 / l) / (1000 / r), 1000 / w - 1000 / l, 1000 / r }'; }
	read -r ph_iv ph_ms ph_gap < <(waits "$walk_ph" "$reads_ph")
	read -r none_iv none_ms none_gap < <(waits "$walk_none" "$reads_none")
	at_most() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "?" && a + 0 <= b) }'; }
	what="per call the walker waits at most one interval between the readers' READs completing"
	check "real clients, per-host: $what (${ph_ms:-?} ms over the limit-1 row, ${ph_iv:-?} of ${ph_gap:-?} ms)" \
		at_most "${ph_iv:-?}" 1
	what="with no table the walker waits longer than that (${none_ms:-?} ms, ${none_iv:-?} of ${none_gap:-?} ms): the check above can fail"
	check "real clients: $what" at_least "${none_iv:-?}" 1.0001
	# Per-host against no table as a rate ratio: a figure, not a check.
	# Two phases apart, it is the guest's speed as much as the dispatch
	# (2.7x in a plain make check whose walker alone went from 185.0 to
	# 56.9 stat()s/s within the run; 5.7x, 3.7x in others): the two wait
	# checks above hold the same claim per call.
	walk_ph_none=$(awk -v a="$walk_ph" -v b="$walk_none" 'BEGIN { if (a == "" || b + 0 == 0) print "?"; else printf "%.1f\n", a / b }')
	diag "real clients, per-host: beside the readers the walker did ${walk_ph_none}x its rate with no table"
	what="beside the walker the readers keep 90% of their rate alone or more ($reads_ph_pct%)"
	check "real clients, per-host: $what" at_least "$reads_ph_pct" 90
	check "real clients: both unmount" wait_for 60 umount_both
	echo 2 > /proc/fs/nfsd/threads
	check "nfsd is back to 2 threads" test "$(cat /proc/fs/nfsd/threads)" = 2
	diag "the real-client phases took $((SECONDS - t_real)) s, the six phases $(cat /run/real-client-times)s"
	rules=$(nfsfair-ctl -S | wc -l)
	diag "table before the unload: $(nfsfair-ctl -S | tr '\n' ';')"

	# Unload with classes and rules loaded. The metrics timer's dumps would
	# hold sunrpc for an instant: stop it for the unload.
	dmesg_before=$(dmesg | wc -l)
	systemctl stop nfsfair-metrics.timer nfs-server.service
	systemctl stop nfs-mountd.service nfs-idmapd.service nfsdcld.service rpc-statd.service \
		rpc-gssd.service rpc-svcgssd.service proc-fs-nfsd.mount run-rpc_pipefs.mount 2>/dev/null
	umount -a -t nfsd,rpc_pipefs 2>/dev/null
	unload() { modprobe -r nfsd nfsv4 nfsv3 nfs lockd rpcsec_gss_krb5 rpcrdma auth_rpcgss nfs_acl sunrpc; }
	# What holds a module that would not go. nfsfaird must not: its
	# mount namespace has a copy of /proc/fs/nfsd when nfsd was up
	# before it started. With ProtectKernelTunables= (or
	# ProtectControlGroups=), systemd 257 put that copy on a new proc
	# instance the umount here does not reach, and nfsd stayed in use
	# ("an nfsd mount in the mount namespace of: ... nfsfaird");
	# nfsfaird.service spells those paths out as ReadOnlyPaths= instead,
	# which keeps its /proc a slave of this one. Then a few tries more,
	# for a holder that is on its way out.
	if ! unload; then
		diag "the unload failed: $(grep -E '^(nfsd|lockd|sunrpc|nfs|nfsv4|nfs_localio|auth_rpcgss) ' /proc/modules | cut -d' ' -f1-4 | tr '\n' ';')" \
			"nfsd mounts: $(findmnt -rn -t nfsd,rpc_pipefs | tr '\n' ';')" \
			"units: $(systemctl list-units --no-legend --state=active 'nfs*' 'rpc*' 'fsidd*' '*nfsd*' | cut -c1-60 | tr -s ' \n' ' ;')" \
			"open: $(for p in /proc/[0-9]*; do ls -l "$p/fd" 2>/dev/null | grep -qE 'nfsd|net/rpc' && echo "${p#/proc/} $(cat "$p/comm")"; done | tr '\n' ';')" \
			"an nfsd mount in the mount namespace of: $(for p in /proc/[0-9]*; do grep -q ' - nfsd ' "$p/mountinfo" 2>/dev/null && echo "${p#/proc/} $(cat "$p/comm")"; done | tr '\n' ';')"
		sleep 5
	fi
	check "nfsd, lockd, the NFS client and sunrpc unload with a table loaded" wait_for 30 unload
	check "sunrpc is gone" test ! -e /sys/module/sunrpc
	new=$(dmesg | tail -n +$((dmesg_before + 1)))
	[ -n "$new" ] && diag "dmesg: $(tr '\n' '|' <<< "$new")"
	check "no warning in dmesg from the unload" \
		bash -c "! grep -qiE 'warning|bug|leak|refcount|underflow' <<< \"\$1\"" _ "$new"
	systemctl restart nfsfaird.service
	check "nfsfaird's start loads sunrpc through the family's alias" test -e /sys/module/sunrpc
	check "and sets its table again" bash -c "nfsfair-ctl classes | grep -q backup"
	check "nfs-server starts again on the DKMS modules" systemctl start nfs-server.service
	check "the reloaded nfsd is the DKMS one" grep -q O /sys/module/nfsd/taint
	mkdir -p /mnt/local
	check "an NFSv4.1 mount works after the reload" \
		bash -c "mount -t nfs -o vers=4.1 127.0.0.1:/srv/nfs /mnt/local && cmp /srv/nfs/f1 /mnt/local/f1 && umount /mnt/local"
	diag "$rules rules were loaded at the unload"
	# Part 3 of issue 42: nfsd started by nfsdctl (Debian 13), by hand as
	# an admin would, classifies by the table nfsfaird set before it: a
	# rule puts c1 in the YAML's class, whose counters must see c1's
	# connection and calls; nfsd runs nfs.conf's threads.
	if command -v nfsdctl >/dev/null; then
		systemctl stop nfs-server.service
		check "nfs-server stops (nfsdctl threads 0)" test "$(cat /proc/fs/nfsd/threads)" = 0
		# Ahead of the per-host rule the real-client phases left: first
		# match wins.
		nfsfair-ctl -I 1 -s 192.0.2.18 -j backup
		# What nfs-server's stop undid: the exports and mountd (bound
		# to nfs-server, it cannot be started without it).
		exportfs -r
		check "rpc.mountd starts for nfsdctl's nfsd" rpc.mountd
		# autostart, as nfs-server runs it; where its lockd step fails
		# (6.12; 7.3 too, with Debian 13's nfs-utils 2.8.3), what it
		# does next, by hand: a listener on 2049 (7.3's nfsd opens no
		# default one when started over netlink: "no listeners
		# configured", EIO), then nfsd's threads over netlink.
		if nfsdctl autostart 2>/run/nfsdctl.err; then
			how="nfsdctl autostart"
		else
			how="nfsdctl listener +tcp::2049, threads 2 (autostart: $(tr '\n' ' ' < /run/nfsdctl.err))"
			nfsdctl listener +tcp::2049 > /dev/null
			nfsdctl threads 2 > /dev/null
		fi
		check "nfsdctl starts nfsd on the DKMS modules with nfs.conf's 2 threads: $how" \
			test "$(cat /proc/fs/nfsd/threads)" = 2
		check "nfsdctl: c1 mounts NFSv4.1 and reads f3" \
			bash -c "$(declare -f client_mount); client_mount 1 vers=4.1 && cmp /srv/nfs/f3 /mnt/c1/f3"
		diag "classes: $(nfsfair-ctl classes -v --json 2>&1)"
		check "nfsdctl: c1's connection and calls are in nfsfaird's class backup" \
			python3 -c '
import json, sys
def find(o):
    if isinstance(o, dict):
        if o.get("name") == "backup":
            return o
        o = list(o.values())
    if isinstance(o, list):
        for v in o:
            r = find(v)
            if r:
                return r
c = find(json.load(sys.stdin)) or {}
sys.exit(not (c.get("connections", 0) >= 1 and c.get("dispatches", 0) >= 1))' < <(nfsfair-ctl classes -v --json)
		check "nfsdctl: c1 unmounts" wait_for 60 umount /mnt/c1
		nfsfair-ctl -D -s 192.0.2.18 -j backup
		nfsdctl threads 0
		kill $(pidof rpc.mountd)
		exportfs -au
		check "nfs-server starts again after nfsdctl's run" systemctl start nfs-server.service
	fi
	t0=$SECONDS
	check "apt removes nfsfair-dkms" \
		bash -c "DEBIAN_FRONTEND=noninteractive apt-get remove -y -q nfsfair-dkms > /var/lib/nfsfair-test/remove.log 2>&1"
	diag "apt remove, its initramfs included, took $((SECONDS - t0)) s"
	check "modprobe finds the stock sunrpc again" from_stock sunrpc
	image=$(modules_package)
	check "the stock kernel package's files are all in place again (dpkg --verify $image)" \
		bash -c "[ -z \"\$(dpkg --verify $image)\" ]"
	check "and the stock nfsd" from_stock nfsd
	check "the initramfs holds no DKMS module" \
		bash -c "! lsinitramfs /boot/initrd.img-$kver | grep -q updates/dkms"
	check "and carries the stock sunrpc" \
		bash -c "lsinitramfs /boot/initrd.img-$kver | grep -q 'kernel/net/sunrpc/sunrpc.ko'"
	reboot_next
fi

if [ "$boot" = 3 ]; then
	check "nfs-server.service is active on the stock modules" wait_for 120 active nfs-server.service
	# Loaded (nfs-server started them), and not out of tree.
	for m in sunrpc nfsd; do
		check "the loaded $m is Debian's (not out of tree)" \
			bash -c "[ -e /sys/module/$m/taint ] && ! grep -q O /sys/module/$m/taint"
	done
	mkdir -p /mnt/local
	check "an NFSv4.1 mount works on the stock modules" \
		bash -c "mount -t nfs -o vers=4.1 127.0.0.1:/srv/nfs /mnt/local && cmp /srv/nfs/f2 /mnt/local/f2 && umount /mnt/local"
	wait_for 60 bash -c '[ "$(systemctl is-active nfsfaird.service)" = failed ]'
	diag "nfsfaird: $(systemctl show -p ActiveState -p ExecMainStatus -p NRestarts nfsfaird.service | tr '\n' ' ')"
	lines=$(journalctl -b -u nfsfaird.service -o cat | grep -c "no 'nfsfair' netlink family")
	diag "$(journalctl -b -u nfsfaird.service -o cat | grep nfsfair | head -3 | tr '\n' '|')"
	check "nfsfaird says once that this kernel has no nfsfair family" test "$lines" -eq 1
	check "nfsfaird exits 3 and is not restarted" \
		bash -c '[ "$(systemctl show -P ExecMainStatus nfsfaird.service)" = 3 ] && [ "$(systemctl show -P NRestarts nfsfaird.service)" = 0 ]'
	! command -v nfsdctl >/dev/null || check_nfsdctl_start
	kernel_clean
	rm -f "$state"
	tap_done
fi
