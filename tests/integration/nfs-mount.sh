#!/bin/bash
# Inside the guest: the nfsfair kernel runs a real nfsd, and its own NFS
# client mounts the export over loopback with NFSv3 and with NFSv4.1
# nconnect=4, writes a file, and reads back the same bytes.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/uml/guest-lib.sh"

mnt=/run/nfsfair/mnt
data=/run/nfsfair/data
mkdir -p "$mnt"

check "running kernel is the nfsfair build ($(uname -r))" \
	eval 'case $(uname -r) in *-nfsfair | *-nfsfair-debug | *-nfsfair-kasan | *-nfsfair-kcsan) ;; *) false ;; esac'
require "nfsd starts with 8 threads" nfsd_start 8
head -c 1048576 /dev/urandom > "$data"

# roundtrip NAME OPTIONS: mount, write, unmount, remount, read back.
roundtrip() {
	local name=$1 opts=$2 file=$nfsfair_export/$1.bin src

	src=$(nfs_source "${name#v}")
	require "$name: mount $src -o $opts" mount -t nfs -o "$opts" "$src" "$mnt"
	check "$name: write 1 MiB through the mount" cp "$data" "$mnt/$name.bin"
	check "$name: server's file holds the bytes written" cmp -s "$data" "$file"
	check "$name: unmount" umount "$mnt"
	require "$name: mount again" mount -t nfs -o "$opts" "$src" "$mnt"
	check "$name: read back over the wire equals what was written" cmp -s "$data" "$mnt/$name.bin"
}

roundtrip v3 vers=3,proto=tcp
check "v3: unmount" umount "$mnt"

roundtrip v4.1 vers=4.1,nconnect=4
conns=$(peers_of_port 2049 | wc -l)
check "v4.1: nconnect=4 gives nfsd 4 connections (saw $conns)" [ "$conns" -eq 4 ]
check "v4.1: unmount" umount "$mnt"

tap_done
