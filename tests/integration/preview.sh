#!/bin/bash
# Inside the guest: nfsfair-ctl restore --test and nfsfaird --check
# preview what a new table would do to the peers connected now (issue 13),
# and the kernel then does what they said.
#
#  1. Before nfsd, and with nfsd but no peer: one line each, and "OK".
#  2. Live peers: nfsfair-load from 127.0.0.2 (16 connections), 127.0.0.3
#     (4) and 127.0.0.4 (1), from ::1 (2), and a kernel NFSv4.1 mount
#     (nconnect=4, noac, stat in a loop) from 127.0.0.5, under
#       -N movers; -A -s 127.0.0.2 -j movers; -A -s 127.0.0.0/8 -j per-host
#     Once explain shows them settled, restore --test of a file that
#     drops 127.0.0.2's rule, puts 127.0.0.3 and 127.0.0.5 in new classes
#     and ::/0 per-host/64: the text lines and the JSON name exactly those
#     four moves with their connection counts (against /proc/net/tcp{,6}),
#     and 127.0.0.4 as unchanged.
#  3. nfsfaird --check of a YAML putting 127.0.0.4 and ::1 in a class:
#     the daemon's origin-10 rules go after the hand-made 127.0.0.0/8
#     rule, so only ::1 moves; --once applies it and the kernel agrees.
#  4. restore of the file: every peer's connections end where the preview
#     said (explain and the kernel's client-get), with as many
#     connections; a second restore --test then moves nothing.
# Builds nothing: run `make userspace` on the host first.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/uml/guest-lib.sh"

ctl=$top/cli/nfsfair-ctl
nfsfaird=$top/daemon/nfsfaird
load=$top/tests/load/nfsfair-load
out=/run/nfsfair/preview
mnt=/run/nfsfair/preview-mnt
mkdir -p "$out" "$mnt"

# within SECONDS CMD...: CMD succeeds within SECONDS, tried every 0.1 s.
within() {
	local end=$((SECONDS + $1))

	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.1
	done
}

# json FILE EXPR: EXPR (Python, over the JSON document in FILE as r) is true.
json() {
	/usr/bin/python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(not eval("(" + sys.argv[2] + ")"))' "$1" "$2"
}

# conns_from ADDR: nfsd's established connections from ADDR (IPv4, an
# IPv4-mapped IPv6 counted as IPv4, or ::1), read here in bash, apart
# from the library's parser.
conns_from() {
	local sl laddr raddr st rest h a n=0
	while read -r sl laddr raddr st rest; do
		[ "$st" = 01 ] && [ "${laddr#*:}" = 0801 ] || continue
		h=${raddr%:*}
		case ${#h} in
		8) ;;
		32) [ "${h:0:24}" = 0000000000000000FFFF0000 ] && h=${h:24} ;;
		esac
		if [ ${#h} = 8 ]; then
			a=$((16#${h:6:2})).$((16#${h:4:2})).$((16#${h:2:2})).$((16#${h:0:2}))
		elif [ "$h" = 00000000000000000000000001000000 ]; then
			a=::1
		else
			a=$h
		fi
		[ "$a" = "$1" ] && n=$((n + 1))
	done < <(tail -q -n +2 /proc/net/tcp /proc/net/tcp6)
	echo $n
}
has_conns() { [ "$(conns_from "$1")" -ge "$2" ]; }

# explain ADDR EXPR: EXPR over explain ADDR --json's entry (r) is true.
explain() {
	"$ctl" explain "$1" --json > "$out/explain.json" 2>&1 &&
		json "$out/explain.json" "(lambda r: $2)(r[0])"
}
explain_diag() { diag "explain $1: $("$ctl" explain "$1" 2>&1 | tr '\n' ' ')"; }

# settled ADDR KIND WHAT N: ADDR's N connections all in one client of KIND
# (a class name, or a per-host prefix), none moving.
settled() {
	local key=class
	[ "$2" = per-host ] && key=prefix
	explain "$1" "len(r['clients']) == 1 and r['clients'][0]['kind'] == '$2'
		and r['clients'][0].get('$key') == '$3' and r['clients'][0]['peer_connections'] == $4
		and not r['clients'][0]['moving']"
}

# The preview's moves, one "PEER FROM -> TO N" line each, sorted.
moves_of() {
	/usr/bin/python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
def place(p):
    return p["kind"] + ("" if len(p) == 1 else " " + [v for k, v in p.items() if k != "kind"][0])
for m in r["preview"]["moves"]:
    print("%s %s -> %s %d%s" % (m["peer"], place(m["from"]), place(m["to"]), m["connections"],
                               " already" if m["already"] else ""))' "$1" | sort
}

require "nfsfair-ctl, nfsfaird and nfsfair-load are built" \
	test -x "$ctl" -a -x "$nfsfaird" -a -x "$load"

# 1. Nothing to compare yet.
printf -- '-N movers\n-A -s 127.0.0.2 -j movers\n-A -s 127.0.0.0/8 -j per-host\n' > "$out/now"
"$ctl" restore --test "$out/now" > "$out/t1" 2>&1
check "1: no nfsd: restore --test says OK and, in one line, that nothing listens on port 2049" \
	eval '[ $? = 0 ] && [ "$(cat "$out/t1")" = "$out/now: 1 class, 2 rules: OK
preview: nothing listens on TCP port 2049 (no nfsd): no live clients to compare" ]' ||
	diag "$(cat "$out/t1")"
"$ctl" restore --test --json "$out/now" > "$out/t1.json" 2>&1
check "1: --json: valid, preview state no-nfsd" \
	json "$out/t1.json" 'r["valid"] and r["rules"] == 2 and r["preview"]["state"] == "no-nfsd"' ||
	diag "$(cat "$out/t1.json")"
require "nfsd starts with 8 threads" nfsd_start 8
"$ctl" restore --test "$out/now" > "$out/t1b" 2>&1
check "1: nfsd, no peer: 'no connections to nfsd now: nothing would move'" \
	eval '[ "$(sed -n 2p "$out/t1b")" = "preview: no connections to nfsd now: nothing would move" ]' ||
	diag "$(cat "$out/t1b")"
for a in 2 3 4 5; do
	require "127.0.0.$a is a source address" add_source_addr 127.0.0.$a
done

# 2. Live peers under the table now. They must outlast step 4, which
# the end kills them after: their duration is only a bound (120 s was
# not enough beside a KASAN guest and two benches, and step 4 found
# every load connection gone).
require "restore the table now" "$ctl" restore "$out/now"
"$load" --group a:127.0.0.2:16:2 --group b:127.0.0.3:4:2 --group c:127.0.0.4:1:2 \
	--proc getattr --hold-us 10000 --warmup 0 --duration 1200 --timeout 1230 \
	> "$out/load4.json" 2> "$out/load4.err" &
load4=$!
"$load" --server ::1 --group v6:::1:2:2 --proc getattr --hold-us 10000 --warmup 0 \
	--duration 1200 --timeout 1230 > "$out/load6.json" 2> "$out/load6.err" &
load6=$!
echo data > "$nfsfair_export/f"
require "mount 127.0.0.5:/ vers=4.1,nconnect=4,noac" \
	mount -t nfs -o vers=4.1,nconnect=4,noac "$(nfs_source 4.1 127.0.0.5)" "$mnt"
( while [ ! -e "$out/stop" ]; do stat "$mnt/f" > /dev/null || exit 1; sleep 0.05; done ) &
walker=$!
check "2: the peers' connections are open: 16, 4, 1 from 127.0.0.2-4, 2 from ::1, 4 from 127.0.0.5" \
	within 10 eval 'has_conns 127.0.0.2 16 && has_conns 127.0.0.3 4 && has_conns 127.0.0.4 1 &&
		has_conns ::1 2 && has_conns 127.0.0.5 4' ||
	diag "$(for a in 127.0.0.2 127.0.0.3 127.0.0.4 ::1 127.0.0.5; do echo -n "$a $(conns_from $a) "; done)"
check "2: settled: class movers, per-host 127.0.0.3/32, 127.0.0.4/32, 127.0.0.5/32, default" \
	within 10 eval 'settled 127.0.0.2 class movers 16 && settled 127.0.0.3 per-host 127.0.0.3/32 4 &&
		settled 127.0.0.4 per-host 127.0.0.4/32 1 && settled 127.0.0.5 per-host 127.0.0.5/32 4 &&
		explain ::1 "[c[\"kind\"] for c in r[\"clients\"]] == [\"default\"]"' ||
	for a in 127.0.0.2 127.0.0.3 127.0.0.4 127.0.0.5 ::1; do explain_diag $a; done

cat > "$out/next" <<'EOF'
# 127.0.0.2 leaves movers for per-host; 127.0.0.3 to bulk, 127.0.0.5 to
# movers; IPv6 per /64.
-N movers
-N bulk --weight 2
-A -s 127.0.0.3 -j bulk
-A -s 127.0.0.5 -j movers
-A -s 127.0.0.0/8 -j per-host
-A -s ::/0 -j per-host/64
EOF
n2=$(conns_from 127.0.0.2) n3=$(conns_from 127.0.0.3) n4=$(conns_from 127.0.0.4)
n5=$(conns_from 127.0.0.5) n6=$(conns_from ::1)
"$ctl" restore --test "$out/next" > "$out/t2" 2> "$out/t2.err"
rc=$?
sed 's/^/# /' "$out/t2"
check "2: restore --test: exit 0, OK, no warning" \
	eval '[ $rc = 0 ] && [ "$(head -1 "$out/t2")" = "$out/next: 2 classes, 4 rules: OK" ] && [ ! -s "$out/t2.err" ]' ||
	diag "$(cat "$out/t2.err")"
check "2: the summary: 5 peers, $((n2 + n3 + n4 + n5 + n6)) connections, 4 would move, 1 unchanged" \
	grep -qx "preview: 5 peers with $((n2 + n3 + n4 + n5 + n6)) connections to nfsd now: 4 would move, 1 unchanged" "$out/t2"
check "2: 127.0.0.2: class movers -> per-host 127.0.0.2/32 ($n2 connections)" \
	grep -qxF "  127.0.0.2: class movers -> per-host 127.0.0.2/32 ($n2 connections)" "$out/t2"
check "2: 127.0.0.3: per-host 127.0.0.3/32 -> class bulk ($n3 connections)" \
	grep -qxF "  127.0.0.3: per-host 127.0.0.3/32 -> class bulk ($n3 connections)" "$out/t2"
check "2: 127.0.0.5 (the kernel mount): per-host 127.0.0.5/32 -> class movers ($n5 connections)" \
	grep -qxF "  127.0.0.5: per-host 127.0.0.5/32 -> class movers ($n5 connections)" "$out/t2"
check "2: ::1: default -> per-host ::/64 ($n6 connections)" \
	grep -qxF "  ::1: default -> per-host ::/64 ($n6 connections)" "$out/t2"
check "2: 127.0.0.4 is not listed, and nothing is 'moving already'" \
	eval '! grep -q "127.0.0.4\|already" "$out/t2"'
"$ctl" restore --test --json "$out/next" > "$out/t2.json" 2>&1
check "2: --json: the same four moves, 127.0.0.4's one connection unchanged" \
	eval '[ "$(moves_of "$out/t2.json")" = "$(printf "%s\n" "127.0.0.2 class movers -> per-host 127.0.0.2/32 $n2" \
		"127.0.0.3 per-host 127.0.0.3/32 -> class bulk $n3" "127.0.0.5 per-host 127.0.0.5/32 -> class movers $n5" \
		"::1 default -> per-host ::/64 $n6" | sort)" ] &&
	json "$out/t2.json" "r[\"valid\"] and r[\"preview\"][\"state\"] == \"ok\" and r[\"preview\"][\"unchanged\"] == 1
		and r[\"preview\"][\"unchanged_connections\"] == $n4 and r[\"preview\"][\"moving\"] == 4"' ||
	diag "$(cat "$out/t2.json")"
check "2: restore --test changed nothing: the table is still the one restored" \
	eval '[ "$("$ctl" -S)" = "$(printf "%s\n" "-A -s 127.0.0.2/32 -j movers" "-A -s 127.0.0.0/8 -j per-host")" ] &&
		! "$ctl" classes | grep -q "^bulk "'

# 3. nfsfaird --check: its origin's rules go after the hand-made ones.
cat > "$out/nfsfair.yaml" <<'EOF'
classes:
  - name: late
    members: [127.0.0.4, "::1"]
EOF
"$nfsfaird" --check -c "$out/nfsfair.yaml" -d /nonexistent > "$out/t3" 2> "$out/t3.err"
rc=$?
sed 's/^/# /' "$out/t3"
check "3: nfsfaird --check: exit 0, the table, valid, and ::1 alone moves" \
	eval '[ $rc = 0 ] && grep -qx -- "-A -s 127.0.0.4/32 -j late --origin 10" "$out/t3" &&
		grep -qx "# $out/nfsfair.yaml: valid: 1 class, 2 rules of origin 10" "$out/t3" &&
		grep -qx "# preview: 5 peers with [0-9]* connections to nfsd now: 1 would move, 4 unchanged" "$out/t3" &&
		grep -qxF "#   ::1: default -> class late ($n6 connections)" "$out/t3"' ||
	diag "$(cat "$out/t3.err")"
check "3: its output restores: restore --test reads it" \
	eval '"$ctl" restore --test "$out/t3" | head -1 | grep -qx "$out/t3: 1 class, 2 rules: OK"'
"$nfsfaird" --check --json -c "$out/nfsfair.yaml" -d /nonexistent > "$out/t3.json" 2>&1
check "3: --check --json: one document, the same move" \
	eval 'json "$out/t3.json" "r[\"valid\"] and r[\"origin\"] == 10 and len(r[\"table\"]) == 3" &&
		[ "$(moves_of "$out/t3.json")" = "::1 default -> class late $n6" ]' ||
	diag "$(cat "$out/t3.json")"
check "3: nfsfaird --once applies it" \
	"$nfsfaird" --once -c "$out/nfsfair.yaml" -d /nonexistent --state-dir "$out/state"
check "3: the kernel agrees: ::1 in class late, 127.0.0.4 still per-host" \
	within 10 eval 'settled ::1 class late $n6 && settled 127.0.0.4 per-host 127.0.0.4/32 1' ||
	{ explain_diag ::1; explain_diag 127.0.0.4; }

# 4. Apply the file (it replaces origin 10 too: ::1 goes per-host/64) and
# compare where the kernel puts every peer with the preview made now.
"$ctl" restore --test --json "$out/next" > "$out/t4.json" 2>&1
moves_of "$out/t4.json" | sed 's/^/# /'
check "4: the preview now: ::1 from class late, the rest as in 2" \
	eval 'moves_of "$out/t4.json" | grep -qx "::1 class late -> per-host ::/64 $n6" &&
		[ "$(moves_of "$out/t4.json" | grep -c .)" = 4 ]'
check "4: restore the file" "$ctl" restore "$out/next"
# agree FILE: every move's peer is now all in the move's "to" client, with
# the move's connections; every other peer where it was.
agree() {
	/usr/bin/python3 - "$1" "$ctl" <<'PY'
import json, subprocess, sys
r = json.load(open(sys.argv[1]))
bad = []
for m in r["preview"]["moves"]:
    e = json.loads(subprocess.run([sys.argv[2], "explain", m["peer"], "--json"],
                                  capture_output=True, text=True).stdout)[0]
    to = m["to"]
    want = [(to["kind"], to.get("class"), to.get("prefix"), m["connections"], False)]
    got = [(c["kind"], c.get("class"), c.get("prefix"), c["peer_connections"], c["moving"])
           for c in e["clients"]]
    if got != want:
        bad.append("%s: want %s, got %s" % (m["peer"], want, got))
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
}
check "4: every peer's connections are where the preview said, within 10 s" \
	within 10 eval 'agree "$out/t4.json" > "$out/agree"' || diag "$(cat "$out/agree")"
check "4: 127.0.0.4, unchanged, is still per-host 127.0.0.4/32 with its connection" \
	settled 127.0.0.4 per-host 127.0.0.4/32 1
check "4: client-get: class bulk holds $n3, class movers $n5, no client of class late" \
	eval 'ynl --dump client-get > "$out/clients.json" && json "$out/clients.json" \
		"sorted((c[\"class\"], c[\"connections\"]) for c in r if c[\"kind\"] == \"class\") ==
		 sorted([(\"bulk\", $n3), (\"movers\", $n5)])"' || diag "$(tr -d '\n' < "$out/clients.json")"
"$ctl" restore --test "$out/next" > "$out/t5" 2>&1
check "4: restore --test again: 5 peers, none would move" \
	grep -qx "preview: 5 peers with [0-9]* connections to nfsd now: 0 would move, 5 unchanged" "$out/t5" ||
	diag "$(cat "$out/t5")"

touch "$out/stop"
wait "$walker"
check "the mount's stat loop never failed" [ $? = 0 ]
kill "$load4" "$load6" 2> /dev/null
wait "$load4" "$load6" 2> /dev/null
check "unmount" umount "$mnt"
check "once every peer is gone: no connections, nothing would move" \
	within 10 eval '"$ctl" restore --test "$out/next" 2>&1 |
		grep -qx "preview: no connections to nfsd now: nothing would move"'
tap_done
