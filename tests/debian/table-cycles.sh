#!/bin/bash
# Inside the stock Debian guest, one boot, not in make check (15 minutes
# under TCG): the live transitions of stock-server.sh's second boot, over
# and over, on Debian's kernel with the DKMS modules. nfs-server (2
# threads) exports the slow disk; two clients in network namespaces of
# their own, under host names of their own, mount it NFSv4.1 (nconnect=16
# from 192.0.2.18, one connection from 192.0.2.34), 16 O_DIRECT writers
# each; for 15 minutes the table goes empty -> per-host (per-client on
# odd cycles) -> class bulk of weight 3 for 192.0.2.18 inserted ahead ->
# its rule deleted. Checks: every edit accepted, both mounts' WRITEs went
# on in every cycle, no oops or warning (taint D or W). Run from the host,
# once the image is built (make check builds it):
#   tests/debian/run --timeout 2400 tests/debian/table-cycles.sh
top=${NFSFAIR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$top/tests/lib/tap.sh"
. "$top/tests/debian/clients.sh"
seconds=900

mkdir -p /srv/nfs
check "the slow disk takes the export" bash -c "mkfs.ext4 -q /dev/vdb && mount -o sync /dev/vdb /srv/nfs"
printf '[nfsd]\nthreads=2\n' > /etc/nfs.conf.d/nfsfair-test.conf
echo "/srv/nfs 192.0.2.0/24(rw,sync,no_root_squash,insecure,no_subtree_check)" > /etc/exports
check "nfsfaird, nfs-server and the metrics timer start" \
	systemctl start nfsfaird.service nfs-server.service nfsfair-metrics.timer
exportfs -ra
make_clients
check "c1 mounts vers=4.1,nconnect=16" client_mount 1 vers=4.1,nconnect=16
check "c2 mounts vers=4.1" client_mount 2 vers=4.1
[ "$tap_failures" = 0 ] || tap_done
for c in 1 2; do
	for i in $(seq 1 16); do "$top/tests/debian/direct-writer" /mnt/c$c/w$c-$i & done
done

edit_fail=
edit() { nfsfair-ctl "$@" > /dev/null 2>&1 || { [ -n "$edit_fail" ] || edit_fail="$*"; }; }
stalls=()
n=0
p1=$(mount_writes /mnt/c1) p2=$(mount_writes /mnt/c2)
end=$((SECONDS + seconds))
while [ $SECONDS -lt $end ]; do
	edit -F
	sleep 2
	if [ $((n % 2)) = 0 ]; then
		edit -A -s 192.0.2.0/24 -j per-host
	else
		edit -A -s 192.0.2.0/24 -j per-client
	fi
	sleep 3
	edit -N bulk --weight 3
	edit -I 1 -s 192.0.2.18 -j bulk
	sleep 3
	edit -D -s 192.0.2.18 -j bulk
	edit -X bulk
	n=$((n + 1))
	w1=$(mount_writes /mnt/c1) w2=$(mount_writes /mnt/c2)
	[ "$w1" -gt "$p1" ] && [ "$w2" -gt "$p2" ] || stalls+=("cycle $n: c1 $p1->$w1, c2 $p2->$w2")
	p1=$w1 p2=$w2
done
diag "$n cycles in $seconds s; WRITEs answered: c1 $p1, c2 $p2"
check "every edit of $n cycles was accepted${edit_fail:+: not $edit_fail}" test -z "$edit_fail"
check "both mounts' WRITEs went on in every cycle${stalls:+: ${stalls[*]}}" test "${#stalls[@]}" -eq 0
t=$(cat /proc/sys/kernel/tainted)
check "the kernel had no oops, BUG or warning (taint $t)" test $((t & 640)) -eq 0 ||
	diag "$(dmesg | grep -E -A14 'WARNING:|BUG:|Oops' | head -c 3000 | tr '\n' '|')"
tap_done
