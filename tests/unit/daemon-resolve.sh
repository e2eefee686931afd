#!/usr/bin/env bash
# nfsfaird asks DNS for the TTL of the names DNS answered, and never about
# a name found in /etc/hosts: that has no TTL, and is looked up again at
# the refresh interval. In a mount and network namespace of its own: our
# hosts, nsswitch.conf and resolv.conf bound over /etc's, and a DNS
# stand-in on 127.0.0.1 (daemon-dns.py) writing down every query it gets;
# nothing leaves the namespace.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
nfsfaird=$top/daemon/nfsfaird
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

require "nfsfaird is built" test -x "$nfsfaird"
if ! unshare -mn true 2> /dev/null; then
	diag "not run: unshare -mn needs root"
	tap_done
	exit
fi
printf '%s\n' '# not a name: dns.test' '192.0.2.200	hosts.test  Alias.test # nor dns.test' \
	'192.0.2.201 other.test' > "$tmp/hosts"
printf 'hosts: files dns\n' > "$tmp/nsswitch.conf"
printf 'nameserver 127.0.0.1\noptions attempts:1 timeout:1\n' > "$tmp/resolv.conf"
printf '%s\n' 'classes:' '  - name: movers' '    members: [hosts.test, ALIAS.test, dns.test]' \
	> "$tmp/main.yaml"
# shellcheck disable=SC2016 # expanded by the inner shell
unshare -mn sh -c '
	tmp=$1
	for f in hosts nsswitch.conf resolv.conf; do
		mount --bind "$tmp/$f" "/etc/$f" || exit 99
	done
	ip link set lo up || exit 99
	python3 "$3" "$tmp/queries" "$tmp/ready" dns.test=192.0.2.53 &
	for _ in $(seq 50); do [ -e "$tmp/ready" ] && break; sleep 0.1; done
	"$2" --check -c "$tmp/main.yaml" -d /nonexistent > "$tmp/out" 2>&1
	echo $? > "$tmp/rc"
	kill $!
' sh "$tmp" "$nfsfaird" "$top/tests/unit/daemon-dns.py"
require "the namespace is set up" [ -e "$tmp/ready" ]
check "--check: valid" [ "$(cat "$tmp/rc")" = 0 ] || diag "$(cat "$tmp/out")"
check "hosts.test from the hosts file" grep -qx -- "-A -s 192.0.2.200/32 -j movers --origin 10" \
	"$tmp/out" || diag "$(cat "$tmp/out")"
check "dns.test from the stand-in" grep -qx -- "-A -s 192.0.2.53/32 -j movers --origin 10" \
	"$tmp/out"
# Its address, then its TTL: DNS names still have theirs.
check "the stand-in was asked about dns.test twice" \
	[ "$(grep -cx "dns.test A" "$tmp/queries")" = 2 ] || sed 's/^/# /' "$tmp/queries"
check "DNS was never asked about hosts.test nor alias.test, in the hosts file" \
	eval '! grep -qE "^(hosts|alias)\.test " "$tmp/queries"' || sed 's/^/# /' "$tmp/queries"
tap_done
