#!/bin/bash
# tests/qemu/console-check against consoles written here: a KCSAN report
# in nfsfair's code (a svc_fair function, or one the series changes)
# fails its suite, one elsewhere in the kernel is listed and passes, a
# warning or KASAN report fails, the sanitizer's liveness line is wanted,
# and a directory without logs fails.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
cc=$top/tests/qemu/console-check
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# race FIRST SECOND [SIZE]: a KCSAN report as the kernel prints it.
race() {
	local size=${3:-8}
	cat <<EOT
[   12.345678] ==================================================================
[   12.345680] BUG: KCSAN: data-race in $1 / $2
[   12.345681]
[   12.345682] write to 0xffff888003a1c0d8 of $size bytes by task 301 on cpu 1:
[   12.345683]  $1+0x1a3/0x2c0
[   12.345684]  svc_recv+0x8c/0x1f0
[   12.345685]
[   12.345686] read to 0xffff888003a1c0d8 of $size bytes by task 302 on cpu 0:
[   12.345687]  $2+0x51/0x90
[   12.345688]  kthread+0xd1/0x100
[   12.345689]
[   12.345690] value changed: 0x0000000000000003 -> 0x0000000000000004
[   12.345691] ==================================================================
EOT
}

# unknown SITE: a KCSAN report of a 4-byte read at SITE whose writer
# went unseen ("race at unknown origin").
unknown() {
	cat <<EOT
[   13.000001] ==================================================================
[   13.000002] BUG: KCSAN: data-race in $1
[   13.000003]
[   13.000004] race at unknown origin, with read to 0xffff888003a1c0d8 of 4 bytes by task 104 on cpu 1:
[   13.000005]  $1
[   13.000006]  nfsd+0x178/0x220
[   13.000007]
[   13.000008] value changed: 0x000e07fc -> 0x000e07fd
[   13.000009] ==================================================================
EOT
}

d=$tmp/smp-kcsan
mkdir -p "$d"
{ echo "# sanitizer: kcsan live: enabled: 1 used_watchpoints: 2 setup_watchpoints: 40 data_races: 3"; echo "ok 1 - x"; } \
	> "$d/integration_stress.sh.log"
race tcp_poll tcp_sendmsg_locked > "$d/integration_elsewhere.sh.log"
race svc_fair_ring_next svc_fair_class_totals > "$d/integration_ours.sh.log"
race svc_xprt_enqueue.isra.0 tcp_poll > "$d/integration_inlined.sh.log"
race svc_recv svc_recv 4 > "$d/integration_netcnt.sh.log"
race svc_recv svc_recv 8 > "$d/integration_recv8.sh.log"
# netcnt.sh's read is at svc_recv+0x51/0x90: the same access unseen-writer.
unknown svc_recv+0x51/0x90 > "$d/integration_unseen.sh.log"
unknown svc_recv+0x77/0x90 > "$d/integration_unseen2.sh.log"
"$cc" "$d" > "$tmp/kcsan.tap"
check "kcsan: the liveness line is read" grep -q '^ok 1 - kcsan is live in the guest: enabled: 1' "$tmp/kcsan.tap"
check "kcsan: a race elsewhere passes its suite" grep -q '^ok [0-9]* - elsewhere.sh: no kernel warning' "$tmp/kcsan.tap"
check "kcsan: ... and is listed with its count" grep -q '^#  *1  data-race in tcp_poll / tcp_sendmsg_locked' "$tmp/kcsan.tap"
check "kcsan: a race in svc_fair code fails its suite" grep -q "^not ok [0-9]* - ours.sh: 1 data race(s) in nfsfair's code" "$tmp/kcsan.tap"
check "kcsan: a race in a function the series changes fails (suffix stripped)" grep -q "^not ok [0-9]* - inlined.sh: 1 data race" "$tmp/kcsan.tap"
check "kcsan: the failing report is shown" grep -q "^# .*svc_fair_ring_next+0x1a3" "$tmp/kcsan.tap"
check "kcsan: upstream's netcnt race in svc_recv (read 4, write 4) is listed, not failed" \
	grep -q '^ok [0-9]* - netcnt.sh: no kernel warning' "$tmp/kcsan.tap"
check "kcsan: another race in svc_recv (8 bytes) still fails" grep -q "^not ok [0-9]* - recv8.sh: 1 data race" "$tmp/kcsan.tap"
check "kcsan: at unknown origin, at an upstream race's access: listed, not failed" \
	grep -q "^ok [0-9]* - unseen.sh: no kernel warning" "$tmp/kcsan.tap"
check "kcsan: ... its line names the upstream race" \
	grep -q "^#  *1  data-race in svc_recv+0x51/0x90 (upstream: svc_handle_xprt's .*; at unknown origin, the same access)" "$tmp/kcsan.tap"
check "kcsan: at unknown origin elsewhere in svc_recv: still fails" \
	grep -q "^not ok [0-9]* - unseen2.sh: 1 data race" "$tmp/kcsan.tap"
check "kcsan: the plan counts every point" grep -qx '1..9' "$tmp/kcsan.tap"

d=$tmp/off/smp-kcsan
mkdir -p "$d"
echo "# sanitizer: kcsan live: enabled: 0 used_watchpoints: 0 setup_watchpoints: 0 data_races: 0" \
	> "$d/integration_stress.sh.log"
"$cc" "$d" > "$tmp/off.tap"
check "kcsan: switched off (enabled: 0, no watchpoints) fails" grep -q '^not ok 1 - kcsan was not watching' "$tmp/off.tap"

d=$tmp/smp-kasan
mkdir -p "$d"
echo "ok 1 - x" > "$d/integration_stress.sh.log"
printf '%s\n' "[ 3.1] BUG: KASAN: slab-use-after-free in svc_fair_client_put+0x20/0x80" > "$d/integration_uaf.sh.log"
printf '%s\n' "[ 4.0] WARNING: CPU: 1 PID: 9 at net/sunrpc/svc_fair.c:120 x+0x1/0x2" > "$d/integration_warn.sh.log"
printf '%s\n' "[ 9.2] Oops: int3: 0000 [#1] SMP" "[ 9.2] RIP: 0010:svc_xprt_received+0x55/0x170" \
	"[ 9.3] Kernel panic - not syncing: Fatal exception in interrupt" > "$d/integration_int3.sh.log"
"$cc" "$d" > "$tmp/kasan.tap"
check "kasan: no liveness line fails" grep -q "^not ok 1 - kasan: no log says" "$tmp/kasan.tap"
check "kasan: a KASAN report fails its suite" grep -q '^not ok [0-9]* - uaf.sh: 1 kernel warning' "$tmp/kasan.tap"
check "kasan: a WARNING fails its suite" grep -q '^not ok [0-9]* - warn.sh: 1 kernel warning' "$tmp/kasan.tap"
check "an oops and its panic fail their suite" grep -q '^not ok [0-9]* - int3.sh: 2 kernel warning' "$tmp/kasan.tap"
check "an int3 oops points at tests/qemu/run's text patching" grep -q "^# an int3 oops .*'Text patching' in tests/qemu/run" "$tmp/kasan.tap"
check "kasan: a quiet console passes" grep -q '^ok [0-9]* - stress.sh: no kernel warning' "$tmp/kasan.tap"

mkdir -p "$tmp/empty"
"$cc" "$tmp/empty" > "$tmp/empty.tap"
check "no logs: fails" grep -q '^not ok 1 - no integration logs' "$tmp/empty.tap"
tap_done
