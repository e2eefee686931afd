#!/bin/bash
# Inside the guest: nfsfaird under faults. (0) First, the instrument:
# nfsfair-ctl -S never gives half of each of two tables that a dump
# spans. Then (a) the kernel refuses its replace (over the class cap,
# then stale generations while nfsfair-ctl edits beside it); (b) DNS
# answers that flip every second; (c) the drop-in directory swapped while
# reloads run; (d) SIGHUP storms of 100 in one second, at start and
# running; (e) a full disk under its state.
# Each time: the daemon stays up, every sample of the kernel's rules
# (nfsfair-ctl -S, taken continuously meanwhile) is the old or the new
# table and never a mix, the table ends where the file says, and the log
# and nfsfaird --status say what happened.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/uml/guest-lib.sh"

nfsfaird=$top/daemon/nfsfaird
ctl=$top/cli/nfsfair-ctl
dir=/run/daemon-faults
mkdir -p "$dir"
daemon=
all_samples=0 all_other=0 faults=0

require "nfsd starts" nfsd_start 4

# The daemon's rules (origin 10, the default) as one line: "RULE;RULE;",
# the rules of a class named pad* as their count. A dump that fails is
# "ERROR ..." (the binary may be being rebuilt beside the guest).
table_now() {
	local out

	out=$("$ctl" -S 2>&1) || { echo "ERROR ${out//$'\n'/ }"; return; }
	awk '/ --origin 10$/ { if ($5 ~ /^pad/) pad[$5]++; else printf "%s;", $0 }
	     END { for (p in pad) printf "%s x%d;", p, pad[p]; print "" }' <<< "$out"
}
# table PREFIX:TARGET...: the line table_now prints for those rules.
table() {
	local r acc=

	for r; do acc+="-A -s ${r%%:*} -j ${r#*:} --origin 10;"; done
	echo "$acc"
}
is_table() { [ "$(table_now)" = "$1" ]; }

# Samples of table_now, one a line, for as long as the fault lasts.
sampler_start() {
	rm -f "$dir/stop-sampler"
	while [ ! -e "$dir/stop-sampler" ]; do table_now; done > "$dir/samples" &
	sampler=$!
}
# sampler_stop OLD NEW: stop; every sample is OLD or NEW. Sets n_old, n_new.
# Failed dumps are not samples, and are counted apart.
sampler_stop() {
	local s n=0 other=0 failed=0 first=

	wait_until 20 eval '[ "$(wc -l < "$dir/samples")" -ge 10 ]'
	touch "$dir/stop-sampler"
	wait "$sampler"
	n_old=0 n_new=0
	while IFS= read -r s; do
		if [[ $s == ERROR* ]]; then
			failed=$((failed + 1))
			diag "a dump failed: $s"
			continue
		fi
		n=$((n + 1))
		if [ "$s" = "$1" ]; then n_old=$((n_old + 1))
		elif [ "$s" = "$2" ]; then n_new=$((n_new + 1))
		else other=$((other + 1)); first=${first:-$s}
		fi
	done < "$dir/samples"
	diag "$n samples: $n_old old, $n_new new, $other neither; $failed dumps failed"
	all_samples=$((all_samples + n)) all_other=$((all_other + other)) faults=$((faults + 1))
	[ -z "$first" ] || diag "first of neither: $first"
	[ "$n" -ge 10 ] && [ "$other" -eq 0 ]
}

# start_daemon NAME ARGS...: nfsfaird in the foreground, its log in
# $dir/NAME.log; refreshing names only when their records expire.
start_daemon() {
	log=$dir/$1.log
	shift
	"$nfsfaird" --foreground --refresh 3600 "$@" >> "$log" 2>&1 &
	daemon=$!
}
stop_daemon() {
	kill "$daemon" 2>/dev/null
	wait "$daemon" 2>/dev/null
}
alive() { kill -0 "$daemon" 2>/dev/null; }
logged() { grep -q -- "$1" "$log"; }
# count_logged PATTERN: lines of the log that match.
count_logged() { grep -c -- "$1" "$log"; }
# put FILE: stdin into FILE by rename, so that no reader sees half of it.
put() { cat > "$1.new" && mv -f "$1.new" "$1"; }
status_has() { "$nfsfaird" --status --state-dir "$1" 2> /dev/null | grep -q -- "$2"; }
nr_classes() { "$ctl" save | grep -c '^-N '; }

# First the sampler itself: with a table of 2,000 rules, a dump takes
# several netlink messages; one that the table changed under in between
# (two restores flipping origin 10) must be read again, not give half of
# each table.
for v in 1 2; do
	{
		echo "-N pad"
		echo "-A -s 10.7.$v.0/24 -j per-host --origin 10"
		for i in $(seq 0 1999); do echo "-A -s 10.8.$((i / 250)).$((i % 250)) -j pad --origin 10"; done
		echo "-A -s 10.7.$((v + 2)).0/24 -j per-host --origin 10"
	} > "$dir/flip$v.save"
done
one="$(table 10.7.1.0/24:per-host 10.7.3.0/24:per-host)pad x2000;"
two="$(table 10.7.2.0/24:per-host 10.7.4.0/24:per-host)pad x2000;"
require "(0) a table of 2,000 rules" "$ctl" restore --noflush "$dir/flip1.save"
sampler_start
SECONDS=0
n=0
while [ "$SECONDS" -lt 8 ]; do
	"$ctl" restore --noflush "$dir/flip2.save" && "$ctl" restore --noflush "$dir/flip1.save" &&
		n=$((n + 2))
done
diag "(0) $n restores in 8 s"
check "(0) nfsfair-ctl -S during the restores: every sample is one table or the other" \
	sampler_stop "$one" "$two"
check "(0) and both were seen ($n_old and $n_new samples)" [ "$n_old" -gt 0 -a "$n_new" -gt 0 ]
"$ctl" -F --origin 10 && "$ctl" -X pad

# (a) The kernel refuses the replace: the reload would pass the cap on
# classes because of classes made by hand. The old table stays; once
# the hand-made classes go, the refused table goes in without a SIGHUP.
conf=$dir/a.yaml
cat > "$conf" <<'YAML'
classes:
  - name: fa
    members: [10.1.1.0/24]
  - name: fb
    weight: 2
    members: [10.1.2.0/24]
YAML
old=$(table 10.1.1.0/24:fa 10.1.2.0/24:fb)
new=$(table 10.1.5.0/24:fa 10.1.2.0/24:fb 10.1.3.0/24:fc 10.1.4.0/24:fd)
start_daemon a -c "$conf" -d "$dir/none" --state-dir "$dir/state-a"
require "(a) the daemon applies the first table" wait_until 20 is_table "$old"
# Hand-made classes up to one short of the cap, carried by one rule of origin 99.
cap=$(awk '/define SVC_FAIR_MAX_CLASSES/ { print $3 }' \
	"$top/build/linux/net/sunrpc/svc_fair_internal.h")
require "(a) the kernel's class cap, from its source: $cap" [ -n "$cap" ]
fill=$((cap - $(nr_classes) - 1))
{
	for i in $(seq "$fill"); do echo "-N h$i"; done
	echo "-A -s 192.0.2.99/32 -j h1 --origin 99"
} > "$dir/hand.save"
require "(a) $fill classes by hand: $((cap - 1)) of $cap" \
	"$ctl" restore --noflush "$dir/hand.save"
cat > "$conf.new" <<'YAML'
classes:
  - name: fa
    members: [10.1.5.0/24]
  - name: fb
    weight: 2
    members: [10.1.2.0/24]
  - name: fc
    members: [10.1.3.0/24]
  - name: fd
    members: [10.1.4.0/24]
YAML
mv "$conf.new" "$conf"
sampler_start
kill -HUP "$daemon"
check "(a) the refusal is logged with the kernel's reason" \
	wait_until 20 logged "applying the table failed: kernel reports: .*at most $cap classes"
check "(a) --status gives the kernel's reason as the last error" \
	status_has "$dir/state-a" "^last error: kernel reports: .*at most $cap classes"
check "(a) the old table is still in place" is_table "$old"
check "(a) no class of the refused table was made" \
	bash -c '! "$1" save | grep -qE "^-N f[cd] "' - "$ctl"
for i in $(seq $((fill - 4)) "$fill"); do "$ctl" -X "h$i"; done
check "(a) with 5 classes by hand deleted, the new table goes in, no SIGHUP" \
	wait_until 30 is_table "$new"
check "(a) every sample meanwhile is the old or the new table" sampler_stop "$old" "$new"
check "(a) --status: no error once it went in" \
	wait_until 10 status_has "$dir/state-a" "^last error: none"
check "(a) the daemon is up" alive
"$ctl" save | grep -v -e '^-N h[0-9]' -e '--origin 99$' > "$dir/unhand.save"
require "(a) the classes by hand deleted" "$ctl" restore "$dir/unhand.save"

# (a) continued: nfsfair-ctl edits the table (origin 0) as fast as it can
# while the daemon reloads between two files: its replaces race the
# edits' generations. One retry is allowed; a refused apply is retried.
cp "$conf" "$dir/a-new.yaml"
sed 's/10\.1\.5\.0/10.1.6.0/' "$conf" > "$dir/a-old.yaml"
old=$(table 10.1.6.0/24:fa 10.1.2.0/24:fb 10.1.3.0/24:fc 10.1.4.0/24:fd)
rm -f "$dir/stop-editor"
while [ ! -e "$dir/stop-editor" ]; do
	"$ctl" -A -s 192.0.2.7 -j per-host && "$ctl" -D -s 192.0.2.7 -j per-host
done 2> "$dir/editor.err" &
editor=$!
sampler_start
for i in $(seq 40); do
	if [ $((i % 2)) = 1 ]; then src=$dir/a-old.yaml; else src=$dir/a-new.yaml; fi
	put "$conf" < "$src"
	kill -HUP "$daemon"
	sleep 0.2
done
touch "$dir/stop-editor"
wait "$editor"
check "(a) stale generations: the last file's table is in place once the edits stop" \
	wait_until 30 is_table "$new"
check "(a) stale generations: every sample is one file's table or the other's" \
	sampler_stop "$old" "$new"
check "(a) stale generations: the daemon is up" alive
diag "(a) stale generations: $(count_logged 'reloading') reloads, $(count_logged 'generation is') refused twice in a row"
stop_daemon

# (b) DNS answers that flip every second between two sets of addresses,
# from a resolver on 127.0.0.53 that reads its answers from a file at
# each query (TTL 1 s), with reloads every 0.3 s to look them up often.
cat > "$dir/dns.py" <<'PY'
import socketserver, struct, sys, threading, time

zone_file, log_file = sys.argv[2], sys.argv[3]
log_lock = threading.Lock()

def answer(query):
    qid, flags = struct.unpack(">HH", query[:4])
    i, labels = 12, []
    while query[i]:
        labels.append(query[i + 1:i + 1 + query[i]].decode())
        i += 1 + query[i]
    qtype = struct.unpack(">H", query[i + 1:i + 3])[0]
    name, question = ".".join(labels).lower(), query[12:i + 5]
    addrs, delay, known = [], 0.0, False
    for line in open(zone_file):
        f = line.split()
        if len(f) == 3 and f[0] == name:
            known = True
            if f[1] == "A" and qtype == 1:
                addrs.append(bytes(int(x) for x in f[2].split(".")))
            elif f[1] == "DELAY":
                delay = float(f[2])
    with log_lock, open(log_file, "a") as log:
        log.write("%s %d\n" % (name, qtype))
    time.sleep(delay)
    rr = b"".join(struct.pack(">HHHIH", 0xc00c, 1, 1, 1, 4) + a for a in addrs)
    head = struct.pack(">HHHHHH", qid, 0x8480 | (flags & 0x0100) | (0 if known else 3),
                       1, len(addrs), 0, 0)
    return head + question + rr

class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        data, sock = self.request
        sock.sendto(answer(data), self.client_address)

socketserver.ThreadingUDPServer.allow_reuse_address = True
socketserver.ThreadingUDPServer((sys.argv[1], 53), Handler).serve_forever()
PY
: > "$dir/zone"
python3 "$dir/dns.py" 127.0.0.53 "$dir/zone" "$dir/dns.log" 2> "$dir/dns.err" &
dns=$!
printf 'nameserver 127.0.0.53\noptions timeout:5 attempts:1\n' > "$dir/resolv.conf"
mount --bind "$dir/resolv.conf" /etc/resolv.conf
zone() {	# zone LINE...: the resolver's answers from now on
	printf '%s\n' "$@" | put "$dir/zone"
}
zone "flip.test A 10.2.0.1" "flip.test A 10.2.0.2"
require "(b) the test's resolver answers" wait_until 10 eval 'getent hosts flip.test > /dev/null'
conf=$dir/b.yaml
printf 'classes:\n  - name: fl\n    members: [flip.test]\n' > "$conf"
one=$(table 10.2.0.1/32:fl 10.2.0.2/32:fl)
two=$(table 10.2.0.3/32:fl 10.2.0.4/32:fl)
start_daemon b -c "$conf" -d "$dir/none" --state-dir "$dir/state-b"
require "(b) the daemon applies flip.test's two addresses" wait_until 20 is_table "$one"
rm -f "$dir/stop-flipper"
while [ ! -e "$dir/stop-flipper" ]; do
	zone "flip.test A 10.2.0.3" "flip.test A 10.2.0.4"
	sleep 1
	zone "flip.test A 10.2.0.1" "flip.test A 10.2.0.2"
	sleep 1
done &
flipper=$!
sampler_start
for i in $(seq 40); do kill -HUP "$daemon"; sleep 0.3; done
touch "$dir/stop-flipper"
wait "$flipper"
check "(b) every sample is one answer's table or the other's" sampler_stop "$one" "$two"
check "(b) the table followed the answers both ways ($n_old and $n_new samples)" \
	[ "$n_old" -gt 0 -a "$n_new" -gt 0 ]
check "(b) the daemon is up" alive
kill -HUP "$daemon"
check "(b) after the flips, the table is the last answer's" wait_until 20 is_table "$one"
check "(b) --status: flip.test with the last answer, resolved" \
	wait_until 10 status_has "$dir/state-b" '^host flip.test: 10.2.0.1 10.2.0.2; resolved [0-9]'
# The resolver goes silent: the last addresses stay, and the status says why.
kill "$dns"
wait "$dns" 2>/dev/null
kill -HUP "$daemon"
check "(b) DNS silent: the log says the last addresses are kept" \
	wait_until 20 logged "flip.test: .*keeping its last addresses"
check "(b) DNS silent: --status says the lookup failed" \
	wait_until 10 status_has "$dir/state-b" "^host flip.test: 10.2.0.1 10.2.0.2; .*last lookup failed"
check "(b) DNS silent: the table stays" is_table "$one"
check "(b) DNS silent: the daemon is up" alive
stop_daemon

# (c) The drop-in directory is a symlink swapped between two complete
# versions (as configuration tools deploy a directory) as fast as python
# can, while reloads run: each reload reads one version, never half of
# each. A long file between the two that differ widens the window.
mkdir -p "$dir/c-a" "$dir/c-b"
printf 'classes: []\n' > "$dir/c.yaml"
for v in a b; do
	if [ $v = a ]; then x=10.3.1.0/24 y=10.3.2.0/24; else x=10.3.3.0/24 y=10.3.4.0/24; fi
	printf 'classes:\n  - name: cx\n    members: [%s]\n' $x > "$dir/c-$v/10-x.yaml"
	{
		printf 'classes:\n  - name: pad\n    members:\n'
		for i in $(seq 0 1999); do echo "      - 10.4.$((i / 250)).$((i % 250))"; done
	} > "$dir/c-$v/15-pad.yaml"
	printf 'classes:\n  - name: cy\n    members: [%s]\n' $y > "$dir/c-$v/20-y.yaml"
done
ta="$(table 10.3.1.0/24:cx 10.3.2.0/24:cy)pad x2000;"
tb="$(table 10.3.3.0/24:cx 10.3.4.0/24:cy)pad x2000;"
ln -sfn c-a "$dir/c.d"
start_daemon c -c "$dir/c.yaml" -d "$dir/c.d" --state-dir "$dir/state-c"
require "(c) the daemon applies version a" wait_until 20 is_table "$ta"
python3 -c 'import os, sys, time
d, stop = sys.argv[1], sys.argv[2]
while not os.path.exists(stop):
    for v in ("c-b", "c-a"):
        os.symlink(v, d + "/c.d.new")
        os.replace(d + "/c.d.new", d + "/c.d")
        time.sleep(0.0005)' "$dir" "$dir/stop-swapper" &
swapper=$!
sampler_start
for i in $(seq 100); do kill -HUP "$daemon"; sleep 0.05; done
# The same loader without the kernel: nfsfaird --check prints what it read.
mixed=0
for i in $(seq 50); do
	out=$("$nfsfaird" --check -c "$dir/c.yaml" -d "$dir/c.d" 2>&1 | grep '^-A ' | grep -o '10\.3\.[1-4]\.0' | tr -d '\n')
	case $out in 10.3.1.010.3.2.0 | 10.3.3.010.3.4.0) ;; *) mixed=$((mixed + 1)); diag "--check read: $out" ;; esac
done
touch "$dir/stop-swapper"
wait "$swapper"
ln -sfn c-b "$dir/c.d"
kill -HUP "$daemon"
check "(c) after the swaps, the table is version b's" wait_until 20 is_table "$tb"
check "(c) every sample is version a's table or b's" sampler_stop "$ta" "$tb"
check "(c) nfsfaird --check during the swaps: each of 50 read one version ($mixed did not)" \
	[ "$mixed" -eq 0 ]
check "(c) the daemon is up" alive
check "(c) no reload failed" [ "$(count_logged 'error(s)')" -eq 0 ]
diag "(c) $(count_logged 'reloading') reloads, $(count_logged ': applied$') applies"
stop_daemon

# (d) SIGHUP storms: 100 in one second while the daemon is still loading
# its file (a name whose lookups take 2 s each), then 100 in one second while
# the file flips between two versions.
: > "$dir/dns.log"
python3 "$dir/dns.py" 127.0.0.53 "$dir/zone" "$dir/dns.log" 2>> "$dir/dns.err" &
dns=$!
zone "ready.test A 10.5.9.9" "slow.test A 10.5.0.1" "slow.test DELAY 2"
require "(d) the test's resolver answers" wait_until 20 eval 'getent hosts ready.test > /dev/null'
conf=$dir/d.yaml
printf 'classes:\n  - name: dl\n    members: [slow.test, 10.5.1.0/24]\n' > "$conf"
one=$(table 10.5.0.1/32:dl 10.5.1.0/24:dl)
two=$(table 10.5.0.1/32:dl 10.5.2.0/24:dl)
start_daemon d -c "$conf" -d "$dir/none" --state-dir "$dir/state-d"
check "(d) the daemon is looking slow.test up" wait_until 20 grep -qs '^slow.test 1$' "$dir/dns.log"
storm() {	# 100 SIGHUPs, 10 ms apart
	python3 -c 'import os, sys, time
t = time.monotonic()
for i in range(100):
    os.kill(int(sys.argv[1]), 1)
    time.sleep(0.01)
print("%.2f" % (time.monotonic() - t))' "$daemon" 2>&1
}
took=$(storm)
diag "(d) 100 SIGHUPs sent in $took s"
check "(d) the storm ended before the first apply: it came while the daemon loaded" \
	bash -c '! grep -q "applied\|already in place" "$1"' - "$log"
check "(d) a storm while it loads: the daemon is up" alive
check "(d) and applies its table" wait_until 30 is_table "$one"
zone "slow.test A 10.5.0.1"
check "(d) the storm's SIGHUPs give a reload once the table is in" \
	wait_until 20 logged "reloading $conf"
sampler_start
(
	for i in $(seq 20); do
		printf 'classes:\n  - name: dl\n    members: [slow.test, 10.5.%d.0/24]\n' \
			$((2 - i % 2)) | put "$conf"
		sleep 0.05
	done
) &
flips=$!
before=$(count_logged 'reloading')
took=$(storm)
diag "(d) 100 SIGHUPs sent in $took s"
wait "$flips"
kill -HUP "$daemon"
check "(d) after a storm, the table is the file's last version" wait_until 20 is_table "$two"
check "(d) every sample is one version's table or the other's" sampler_stop "$one" "$two"
check "(d) the daemon is up" alive
n=$(($(count_logged 'reloading') - before))
check "(d) it reloaded, and not more often than it was told to ($n times)" \
	[ "$n" -ge 1 -a "$n" -le 101 ]
check "(d) --status: running, no error" \
	wait_until 10 eval 'status_has "$dir/state-d" "^pid $daemon, running" &&
		status_has "$dir/state-d" "^last error: none"'
stop_daemon
kill "$dns"
wait "$dns" 2>/dev/null

# (e) The disk under the state directory fills up: the classes the daemon
# made and its status cannot be written. The table still changes, the log
# says what could not be saved, and it is saved once there is room again.
state=$dir/state-e
mkdir -p "$state"
mount -t tmpfs -o size=64k state-e "$state"
conf=$dir/e.yaml
printf 'classes:\n  - name: ea\n    members: [10.6.1.0/24]\n' > "$conf"
one=$(table 10.6.1.0/24:ea)
two=$(table 10.6.1.0/24:ea 10.6.2.0/24:eb)
start_daemon e -c "$conf" -d "$dir/none" --state-dir "$state"
require "(e) the daemon applies the first table" wait_until 20 is_table "$one"
check "(e) its state is written" wait_until 10 status_has "$state" "^origin 10: 1 classes"
dd if=/dev/zero of="$state/fill" bs=4k 2> /dev/null
check "(e) the state's file system is full" \
	bash -c '! echo x 2>/dev/null > "$1/probe"' - "$state"
printf 'classes:\n  - name: ea\n    members: [10.6.1.0/24]\n  - name: eb\n    members: [10.6.2.0/24]\n' |
	put "$conf"
sampler_start
kill -HUP "$daemon"
check "(e) the new table goes in" wait_until 20 is_table "$two"
check "(e) every sample is the old or the new table" sampler_stop "$one" "$two"
check "(e) the log says the classes it made could not be saved" \
	wait_until 10 logged "$state/classes.10: No space left on device"
check "(e) --status during the full disk: the new table's apply" \
	wait_until 10 status_has "$state" "^origin 10: 2 classes"
check "(e) --status: the classes the daemon made are not saved, and why" \
	status_has "$state" "^classes not saved: $state/classes.10: No space left on device"
check "(e) the daemon is up" alive
rm "$state/fill"
kill -HUP "$daemon"
check "(e) with room again, the state says class eb is the daemon's" \
	wait_until 20 grep -qx eb "$state/classes.10"
check "(e) and --status no longer says they are not saved" \
	wait_until 10 eval '! status_has "$state" "^classes not saved"'
stop_daemon

diag "daemon-faults: $faults faults sampled, $all_samples samples of the table," \
	"$all_other neither the old nor the new; $tap_failures of $tap_count checks failed"
tap_done
