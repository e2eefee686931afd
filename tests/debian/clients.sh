# Sourced by the stock guest's scripts: two NFS clients of this kernel,
# c1 (192.0.2.18) and c2 (192.0.2.34), each in a network namespace of its
# own, through a veth pair to the server's namespace (192.0.2.17 and .33).

# make_clients: the namespaces, the veth pairs, /mnt/c1 and /mnt/c2.
make_clients() {
	local i
	for i in 1 2; do
		ip netns add c$i
		ip link add s$i type veth peer name c$i netns c$i
		ip addr add 192.0.2.$((i * 16 + 1))/28 dev s$i
		ip link set s$i up
		ip -n c$i addr add 192.0.2.$((i * 16 + 2))/28 dev c$i
		ip -n c$i link set c$i up
		ip -n c$i link set lo up
		mkdir -p /mnt/c$i
	done
}

# client_mount N OPTIONS: client N mounts the export on /mnt/cN, under a
# host name of its own (a UTS namespace): the kernel's NFSv4 client names
# itself by it, and two mounts of one kernel under one name are one NFSv4
# client to nfsd, from two addresses, each one's EXCHANGE_ID sending the
# other into state recovery: seen on Debian's stock modules as one mount
# at 0 WRITEs for 20 s and more, then the other, table or none.
client_mount() {
	nsenter --net=/run/netns/c$1 unshare --uts sh -c \
		"hostname nfsfair-c$1 && mount -t nfs -o $2 192.0.2.$(($1 * 16 + 1)):/srv/nfs /mnt/c$1"
}

# mount_writes MOUNTPOINT: the WRITEs its server answered so far, from
# the mount's own kernel counters.
mount_writes() {
	awk -v m="$1" '$1 == "device" { cur = $5 } cur == m && $1 == "WRITE:" { print $2 }' /proc/self/mountstats
}
