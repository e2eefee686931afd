#!/bin/bash
# Inside the guest: nfsfaird against the real family, with hostnames from
# a private /etc/hosts and from a DNS server (dnsmasq) on 127.0.0.53,
# both bind-mounted over the guest's view only. Applies, converges with
# no write when nothing changed, leaves hand-made rules alone, refuses a
# bad file without touching the table, keeps the last addresses when DNS
# stops answering, and speaks systemd's notify protocol.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/uml/guest-lib.sh"

nfsfaird=$top/daemon/nfsfaird
dir=/run/nfsfaird-test
mkdir -p "$dir"
log=$dir/daemon.log

gen() { ynl --do table-get | sed 's/[^0-9]//g'; }
rules() { ynl --dump rule-get | sed 's/"hits": [0-9]*//g'; }
has_rule() {	# has_rule ADDR TARGET-JSON ORIGIN
	grep -q "\"addr4\": \"$1\", \"prefix-len\": 32, $2, \"origin\": $3" <<< "$(rules)"
}

require "nfsd starts" nfsd_start 8
for a in 2 3 4 5 6; do add_source_addr 127.0.0.$a; done

# Names: mover-a.test has two addresses in a private /etc/hosts; dns-host.test
# is only in DNS, answered by dnsmasq on loopback.
printf '127.0.0.1 localhost\n127.0.0.4 mover-a.test\n127.0.0.5 mover-a.test\n' > "$dir/hosts"
echo 'nameserver 127.0.0.53' > "$dir/resolv.conf"
mount --bind "$dir/hosts" /etc/hosts
mount --bind "$dir/resolv.conf" /etc/resolv.conf
start_dns() {	# start_dns ADDR: dns-host.test is ADDR, with a TTL of 1 s
	dnsmasq --keep-in-foreground --no-resolv --no-hosts --listen-address=127.0.0.53 \
		--bind-interfaces --port=53 --host-record=dns-host.test,$1 --local-ttl=1 \
		--pid-file="$dir/dnsmasq.pid" 2>> "$dir/dnsmasq.log" &
	dnsmasq_pid=$!
	sleep 0.5
}
start_dns 127.0.0.6
require "dnsmasq answers for dns-host.test" getent hosts dns-host.test

cat > "$dir/nfsfair.yaml" <<'YAML'
classes:
  - name: movers
    weight: 2
    members:
      - mover-a.test
      - dns-host.test
  - name: others
    per-host: 32
    members: [127.0.0.0/8]
YAML
mkdir -p "$dir/conf.d"
run_once() { "$nfsfaird" --once -c "$dir/nfsfair.yaml" -d "$dir/conf.d" >> "$log" 2>&1; }

check "nfsfaird --check prints the table without a kernel write" \
	"$nfsfaird" --check -c "$dir/nfsfair.yaml" -d "$dir/conf.d"
require "nfsfaird --once applies" run_once
check "mover-a.test's first address -> movers" has_rule 127.0.0.4 '"class": "movers"' 10
check "mover-a.test's second address -> movers" has_rule 127.0.0.5 '"class": "movers"' 10
check "dns-host.test (DNS) -> movers" has_rule 127.0.0.6 '"class": "movers"' 10
check "class movers has weight 2" \
	grep -q '"weight": 2' <<< "$(ynl --do class-get --json '{"name": "movers"}')"

# A rule by hand (origin 0) survives the daemon.
quiet() { "$@" > /dev/null; }
require "a hand-made rule (origin 0)" quiet ynl --do rule-insert \
	--json '{"position": 1, "addr4": "7f000003", "prefix-len": 32, "per-host-len": 32}'
g=$(gen)
run_once
check "applying the same file again writes nothing (generation stays $g)" [ "$(gen)" = "$g" ]
check "the hand-made rule is still first" has_rule 127.0.0.3 '"per-host-len": 32' 0
check "the log says nothing was written" grep -q "already in place, nothing written" "$log"

# The daemon proper, with a notify socket listened to by python.
/usr/bin/python3 - "$dir/notify.sock" "$dir/notify.log" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(60)
with open(sys.argv[2], "a", buffering=1) as log:
    while True:
        try:
            log.write(s.recv(4096).decode() + "\n")
        except socket.timeout:
            break
PY
listener=$!
sleep 0.5
# --refresh 3600: only the records' TTL (1 s, so the 10 s floor) can make
# the daemon look names up again within this test.
start_daemon() {
	NOTIFY_SOCKET=$dir/notify.sock "$nfsfaird" --foreground --refresh 3600 \
		-c "$dir/nfsfair.yaml" -d "$dir/conf.d" >> "$log" 2>&1 &
	daemon=$!
}
wait_for() {	# wait_for PATTERN FILE: up to 15 s
	local i
	for i in $(seq 150); do grep -q "$1" "$2" 2>/dev/null && return 0; sleep 0.1; done
	return 1
}
g=$(gen)
start_daemon
check "READY=1 after the first apply" wait_for '^READY=1' "$dir/notify.log"
check "a STATUS line: classes, rules, hosts" \
	wait_for '^STATUS=1 classes, 4 rules, 2/2 hosts resolved' "$dir/notify.log"
check "starting over an applied table writes nothing" [ "$(gen)" = "$g" ]

kill -9 $daemon; wait $daemon 2>/dev/null
check "after kill -9 the table is still there" has_rule 127.0.0.4 '"class": "movers"' 10
start_daemon
sleep 1
check "a restart after kill -9 converges with no write" [ "$(gen)" = "$g" ]

# A broken file on reload: nothing changes, the daemon says so.
cp "$dir/nfsfair.yaml" "$dir/good.yaml"
printf 'classes:\n  - name: movers\n    memebrs: [127.0.0.9]\n' > "$dir/nfsfair.yaml"
before=$(rules)
kill -HUP $daemon
check "a bad file on SIGHUP: the error, with its line" \
	wait_for "nfsfair.yaml:3:5: unknown key 'memebrs'" "$log"
check "RELOADING=1 was announced" grep -q '^RELOADING=1' "$dir/notify.log"
check "the bad file changed nothing" [ "$(rules)" = "$before" ]
check "the status says the reload failed" wait_for 'last error: .*nfsfair.yaml: 2 error' "$dir/notify.log"
cp "$dir/good.yaml" "$dir/nfsfair.yaml"

# DNS changes its answer: the daemon follows when the record expires.
kill $dnsmasq_pid; wait $dnsmasq_pid 2>/dev/null
start_dns 127.0.0.7
wait_rule() {	# wait_rule ADDR: up to 20 s
	local i
	for i in $(seq 100); do has_rule "$1" '"class": "movers"' 10 && return 0; sleep 0.2; done
	return 1
}
check "a new DNS answer (127.0.0.7) reaches the table when its TTL runs out" wait_rule 127.0.0.7
no_rule() { ! grep -q "\"addr4\": \"$1\"" <<< "$(rules)"; }
check "and the old address's rule is gone" no_rule 127.0.0.6

# DNS stops answering: the last addresses stay.
kill $dnsmasq_pid; wait $dnsmasq_pid 2>/dev/null
check "dns-host.test no longer resolves" bash -c '! getent hosts dns-host.test'
check "after a refresh, the daemon keeps dns-host.test's last address" \
	wait_for "dns-host.test: .*keeping its last addresses" "$log"
check "dns-host.test's rule is still there" has_rule 127.0.0.7 '"class": "movers"' 10
check "the status counts one host failing" wait_for '1/2 hosts resolved' "$dir/notify.log"

# And a real client lands in the class.
mkdir -p "$dir/mnt"
require "mount from 127.0.0.4 (mover-a.test)" mount -t nfs -o vers=3 \
	"127.0.0.4:$nfsfair_export" "$dir/mnt"
dd if=/dev/zero of="$dir/mnt/f" bs=64k count=16 conv=fsync status=none
check "the mount's connection is counted in class movers" grep -q '"connections": 1' \
	<<< "$(ynl --do class-get --json '{"name": "movers"}')"
umount "$dir/mnt"

# A big configuration goes in one table-replace too.
{
	printf 'origin: 20\nclasses:\n  - name: bulk\n    members:\n'
	for i in $(seq 0 2999); do echo "      - 10.1.$((i / 256)).$((i % 256))"; done
} > "$dir/big.yaml"
check "--once with 3,000 members (origin 20)" \
	"$nfsfaird" --once -c "$dir/big.yaml" -d "$dir/conf.d"
check "3,000 rules of origin 20 in the table" \
	[ "$(ynl --dump rule-get | grep -o '"origin": 20' | wc -l)" = 3000 ]

kill $daemon; wait $daemon 2>/dev/null
check "SIGTERM: STOPPING=1" wait_for '^STOPPING=1' "$dir/notify.log"
kill $listener 2>/dev/null
diag "$(tail -5 "$log")"
tap_done
