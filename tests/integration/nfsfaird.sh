#!/bin/bash
# Inside the guest: nfsfaird against the real family, with hostnames from
# a private /etc/hosts and from a DNS server (dnsmasq) on 127.0.0.53,
# both bind-mounted over the guest's view only. Applies, converges with
# no write when nothing changed, leaves hand-made rules alone, refuses a
# bad file without touching the table, keeps the last addresses when DNS
# stops answering, and speaks systemd's notify protocol. Deletes the
# classes it created once the file drops them, and no others; reports
# each hostname's addresses and last resolution with --status.
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
}
start_dns 127.0.0.6
require "dnsmasq answers for dns-host.test" \
	wait_until 20 eval 'getent hosts dns-host.test > /dev/null'

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
state=$dir/state
run_once() {
	"$nfsfaird" --once --state-dir "$state" -c "$dir/nfsfair.yaml" -d "$dir/conf.d" \
		>> "$log" 2>&1
}

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
	--json '{"position": 1, "addr4": "127.0.0.3", "prefix-len": 32, "per-host-len": 32}'
g=$(gen)
run_once
check "applying the same file again writes nothing (generation stays $g)" [ "$(gen)" = "$g" ]
check "the hand-made rule is still first" has_rule 127.0.0.3 '"per-host-len": 32' 0
check "the log says nothing was written" grep -q "already in place, nothing written" "$log"

# The daemon proper, with a notify socket listened to by python until the
# end (it stopped after 60 s of quiet once: on a KASAN guest, the 3,000
# rules' checks took longer, and SIGTERM's STOPPING=1 found no listener).
/usr/bin/python3 - "$dir/notify.sock" "$dir/notify.log" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a", buffering=1) as log:
    while True:
        log.write(s.recv(4096).decode() + "\n")
PY
listener=$!
# The daemon's READY is lost if it comes before the socket is bound.
require "the notify socket is listening" wait_until 20 test -S "$dir/notify.sock"
# --refresh 3600: only the records' TTL (1 s, so the 10 s floor) can make
# the daemon look names up again within this test.
start_daemon() {
	NOTIFY_SOCKET=$dir/notify.sock "$nfsfaird" --foreground --refresh 3600 \
		--state-dir "$state" -c "$dir/nfsfair.yaml" -d "$dir/conf.d" >> "$log" 2>&1 &
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
# Judged once it has looked at the table, not after a fixed time.
nothing_written() { [ "$(grep -c "already in place, nothing written" "$log")" -gt "$1" ]; }
applies=$(grep -c "already in place, nothing written" "$log")
start_daemon
check "a restart after kill -9 converges with no write" \
	eval 'wait_until 20 nothing_written $applies && [ "$(gen)" = "$g" ]'

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
check "STATUS= gives the oldest resolution's age" \
	grep -q '^STATUS=.*hosts resolved, oldest [0-9]* s ago' "$dir/notify.log"

# nfsfaird --status: per hostname its addresses, its last success, its error.
kill -HUP $daemon
wait_for_count() {	# wait_for_count PATTERN FILE N: up to 15 s for N matching lines
	local i
	for i in $(seq 150); do
		[ "$(grep -c "$1" "$2" 2>/dev/null)" -ge "$3" ] && return 0
		sleep 0.1
	done
	return 1
}
check "the reload with DNS down keeps working" \
	wait_for_count "reloading $dir/nfsfair.yaml" "$log" 2
# The status once that reload is written in it (its lookups fail first).
status_now() {
	status=$("$nfsfaird" --status --state-dir "$state") &&
		grep -q '^host dns-host.test: .*last lookup failed' <<< "$status" &&
		grep -q '^host mover-a.test: ' <<< "$status"
}
wait_until 30 status_now
diag "$status"
recent() {	# recent HOST: its last resolution is an ISO 8601 UTC time in the last minute
	local t
	t=$(sed -n "s/^host $1: .*; resolved \([0-9T:Z-]*\).*/\1/p" <<< "$status")
	[[ $t =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$ ]] &&
		[ $(($(date -u +%s) - $(date -u -d "$t" +%s))) -lt 60 ]
}
check "--status: the daemon is running" grep -q "^pid $daemon, running" <<< "$status"
check "--status: mover-a.test with both addresses" \
	grep -q '^host mover-a.test: 127.0.0.4 127.0.0.5; resolved ' <<< "$status"
check "--status: mover-a.test resolved within the last minute" recent mover-a.test
check "--status: dns-host.test keeps 127.0.0.7 and shows why its lookups fail" \
	grep -q '^host dns-host.test: 127.0.0.7; resolved [0-9T:Z-]*; last lookup failed: .' \
	<<< "$status"
check "--status: mover-a.test has no error" \
	bash -c '! grep "^host mover-a.test" | grep -q failed' <<< "$status"
check "--status: last apply and generation" \
	grep -q "^last apply [0-9T:Z-]* (.*), generation $(gen)\$" <<< "$status"
check "--status with no daemon's file: exit 1" \
	bash -c '! "$1" --status --state-dir /nonexistent 2>/dev/null' - "$nfsfaird"

# Classes: the daemon deletes those it created once the file drops them.
has_class() { grep -q "\"name\": \"$1\"" <<< "$(ynl --dump class-get)"; }
printf 'classes:\n  - name: extra\n    members: [127.0.0.9]\n' > "$dir/conf.d/50-extra.yaml"
kill -HUP $daemon
wait_class() {	# wait_class NAME yes|no: up to 15 s
	local i
	for i in $(seq 75); do
		if has_class "$1"; then [ "$2" = yes ] && return 0
		else [ "$2" = no ] && return 0; fi
		sleep 0.2
	done
	return 1
}
check "SIGHUP with a drop-in naming class extra: extra is made" wait_class extra yes
check "the state file lists extra as the daemon's" grep -qx extra "$state/classes.10"
rm "$dir/conf.d/50-extra.yaml"
kill -HUP $daemon
check "SIGHUP with the drop-in gone: extra is deleted" wait_class extra no
check "the log says so" wait_for "class extra is no longer in the configuration: deleted" "$log"
check "and movers stays" has_class movers

# The same with --once re-runs of another origin, its own state directory.
ctl=$top/cli/nfsfair-ctl
own() {	# own CLASS...: a file of origin 30 naming CLASS..., applied once
	local c i=20
	{
		printf 'origin: 30\nclasses:\n'
		for c; do
			i=$((i + 1))
			printf '  - name: %s\n    members: [192.0.2.%d]\n' "$c" $i
		done
	} > "$dir/own.yaml"
	"$nfsfaird" --once --state-dir "$dir/own" -c "$dir/own.yaml" -d "$dir/none" \
		>> "$dir/own.log" 2>&1
}
check "--once with classes a and b" own a b
check "a exists" has_class a
check "b exists" has_class b
check "--once with b dropped" own a
check "b is deleted" bash -c '! grep -q "\"name\": \"b\"" <<< "$1"' - "$(ynl --dump class-get)"
check "a stays" has_class a

require "class c made by hand" "$ctl" -N c
check "--once with a file naming c too" own a c
check "c has the file's rule" has_rule 192.0.2.22 '"class": "c"' 30
check "--once with c dropped" own a
check "c, made by hand, is not deleted" has_class c
check "--once again" own a
check "c is still there" has_class c
check "c is not in the state file" bash -c '! grep -qx c "$1"' - "$dir/own/classes.30"

check "--once with d" own a d
check "d exists" has_class d
require "a hand rule (origin 0) to d" "$ctl" -A -s 192.0.2.1 -j d
check "--once with d dropped" own a
check "d is kept: a rule of origin 0 names it" has_class d
check "the log says why" grep -q \
	"class d is no longer in the configuration, keeping it: a rule of origin 0 names it" \
	"$dir/own.log"
check "--status says why" grep -qx "classes kept: d (a rule of origin 0 names it)" \
	<<< "$("$nfsfaird" --status --state-dir "$dir/own")"
require "the hand rule deleted" "$ctl" -D -s 192.0.2.1 -j d
check "--once again" own a
check "d is deleted now" bash -c '! grep -q "\"name\": \"d\"" <<< "$1"' - "$(ynl --dump class-get)"
check "--status has no class kept" bash -c '! grep -q "^classes kept" <<< "$1"' - \
	"$("$nfsfaird" --status --state-dir "$dir/own")"
check "a still stays" has_class a
diag "$(tail -4 "$dir/own.log")"

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
