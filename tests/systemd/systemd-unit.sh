#!/bin/bash
# systemd/nfsfaird.service as shipped, started by a real systemd as PID 1
# (issue 13, item 6): run by tests/systemd/run, as nfsfair-test.service.
#
# The unit is installed under /run/systemd/system (the host's /etc stays
# read-only) with one drop-in pointing ExecStart at the daemon built in
# this tree and at a test configuration; nothing else of it changes. Then
# start (Type=notify: start returns once the daemon said READY=1, after
# its first apply), the table and the STATUS= line in systemctl status,
# the sandbox as applied to the process (bounding set CAP_NET_ADMIN alone,
# no new privileges), reload (ExecReload's SIGHUP: same PID, new table,
# new status), stop (the table stays: kernel state outlives the daemon),
# and start again with nothing to write.
#
# sunrpc is built into the UML kernel (CONFIG_SUNRPC=y, no modules), so
# "sunrpc not loaded at start" cannot be set up here: what is checked is
# that the family exists at boot before anything asked for it, and that
# the unit's ProtectKernelModules= and CapabilityBoundingSet= do not keep
# the daemon from it.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"

ctl=$top/cli/nfsfair-ctl
unitdir=/run/systemd/system
conf=/run/nfsfair-test
mkdir -p "$conf/conf.d"

# show PROPERTY: the unit's property, value only.
show() { systemctl show -P "$1" nfsfaird.service; }

# within SECONDS CMD...: CMD succeeds within SECONDS, tried every 0.1 s.
within() {
	local end=$((SECONDS + $1))

	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.1
	done
}

require "PID 1 is systemd" eval '[ "$(readlink /proc/1/exe)" = /usr/lib/systemd/systemd ] ||
	[ "$(readlink /proc/1/exe)" = /lib/systemd/systemd ]'
diag "systemd $(systemctl --version | sed -n 1p), state $(systemctl is-system-running 2>&1)"
# A loadable module has an initstate; a built-in one does not.
diag "sunrpc: $(if [ -e /sys/module/sunrpc/initstate ]; then echo "a module, $(cat /sys/module/sunrpc/initstate)";
	else echo "built in"; fi); modules: $([ -e /proc/modules ] && echo supported || echo "not supported")"
# The controller's dump lists families without loading any (a lookup by name would).
check "the nfsfair family exists at boot, before anything asked for it" \
	eval 'genl ctrl list | grep -q "Name: nfsfair$"'

# The unit as shipped, and a drop-in for this tree's binary and files.
require "install systemd/nfsfaird.service under $unitdir" \
	install -m 644 "$top/systemd/nfsfaird.service" "$unitdir/nfsfaird.service"
mkdir -p "$unitdir/nfsfaird.service.d"
# The daemon built here, copied out of the tree: the unit's PrivateTmp=
# would hide a tree under /tmp or /var/tmp (a fresh clone there) from it.
install -m 755 "$top/daemon/nfsfaird" "$conf/nfsfaird"
cat > "$unitdir/nfsfaird.service.d/test.conf" <<EOF
[Service]
ExecStart=
ExecStart=$conf/nfsfaird --foreground -c $conf/nfsfair.yaml -d $conf/conf.d
EOF
cat > "$conf/nfsfair.yaml" <<'EOF'
classes:
  - name: movers
    members: [192.0.2.7, 198.51.100.0/28]
EOF
check "systemctl daemon-reload" systemctl daemon-reload
# --man=no: the Documentation= pages come with the package, not this host.
check "systemd-analyze verify: no complaint about the unit" \
	eval 'systemd-analyze verify --man=no nfsfaird.service > /tmp/verify 2>&1 && ! grep -q nfsfaird /tmp/verify' ||
	sed 's/^/# /' /tmp/verify
check "the drop-in is in effect" eval 'show ExecStart | grep -qF "$conf/nfsfaird"'

# start
check "systemctl start nfsfaird: returns 0 once READY=1 came" systemctl start nfsfaird
check "is-active: active" eval '[ "$(systemctl is-active nfsfaird)" = active ]'
pid=$(show MainPID)
check "the table: the file's two rules, origin 10" eval '[ "$("$ctl" -S)" = "$(printf "%s\n" \
	"-A -s 192.0.2.7/32 -j movers --origin 10" "-A -s 198.51.100.0/28 -j movers --origin 10")" ]' ||
	diag "$("$ctl" -S 2>&1)"
check "StatusText: 1 classes, 2 rules, last apply ... (changed)" \
	eval 'show StatusText | grep -q "^1 classes, 2 rules, .*last apply [0-9:]* (changed)"' ||
	diag "StatusText: $(show StatusText)"
systemctl status --no-pager nfsfaird > /tmp/status 2>&1
sed 's/^/# /' /tmp/status
check "systemctl status shows the daemon's STATUS line" \
	grep -qE '^ +Status: "1 classes, 2 rules, ' /tmp/status
check "the process: bounding set CAP_NET_ADMIN alone, no new privileges" \
	eval 'grep -qx "CapBnd:	0000000000001000" /proc/$pid/status &&
		grep -qx "NoNewPrivs:	1" /proc/$pid/status' ||
	diag "$(grep -E "^(CapBnd|CapEff|NoNewPrivs)" /proc/$pid/status)"
# The kernel's tunables read-only (the unit's ReadOnlyPaths=, in place of
# ProtectKernelTunables=), on the host's proc instance: either of
# ProtectKernelTunables= and ProtectControlGroups= would give the unit a
# new one (MountAPIVFS=), outside the propagation from the host's /proc;
# systemd 257 copies /proc/fs/nfsd onto it, and nfsd could not be
# unloaded while the daemon ran (issue 42). Here PID 1's /proc is not
# shared, so what is checked is the instance (its device number).
# mntinfo PID MOUNTPOINT: that mount point's last line in PID's mountinfo.
mntinfo() { awk -v m="$2" '$5 == m { l = $0 } END { print l }' "/proc/$1/mountinfo"; }
ro_paths="/proc/sys /proc/fs /proc/sysrq-trigger /sys /sys/fs/cgroup"
all_ro() {
	local m
	for m in $ro_paths; do
		mntinfo "$pid" "$m" | awk '{ exit $6 !~ /^ro(,|$)/ }' || return 1
	done
}
check "the sandbox: $ro_paths read-only" all_ro ||
	diag "$(for m in $ro_paths; do echo "$m: $(mntinfo "$pid" "$m" | cut -d' ' -f3-9)"; done | tr '\n' ';')"
same_proc() { [ "$(mntinfo 1 /proc | cut -d' ' -f3)" = "$(mntinfo "$pid" /proc | cut -d' ' -f3)" ]; }
check "the sandbox: the daemon's /proc is PID 1's proc instance, not a new one" same_proc ||
	diag "PID 1: $(mntinfo 1 /proc | cut -d' ' -f3-9); daemon: $(mntinfo "$pid" /proc | cut -d' ' -f3-9)"

# reload
cat >> "$conf/nfsfair.yaml" <<'EOF'
  - name: build
    weight: 2
    members: [192.0.2.128/25]
EOF
check "systemctl reload nfsfaird: returns 0" systemctl reload nfsfaird
check "the same process (a reload, not a restart)" eval '[ "$(show MainPID)" = "$pid" ]'
check "the table after the reload: three rules, class build weight 2" \
	within 5 eval '"$ctl" -S | grep -qx -- "-A -s 192.0.2.128/25 -j build --origin 10" &&
		"$ctl" classes | grep -qE "^build +2( |$)"' ||
	diag "$("$ctl" -S 2>&1; "$ctl" classes 2>&1)"
check "StatusText after the reload: 2 classes, 3 rules" \
	within 5 eval 'show StatusText | grep -q "^2 classes, 3 rules, "' ||
	diag "StatusText: $(show StatusText)"
systemctl status --no-pager nfsfaird > /tmp/status 2>&1
check "systemctl status shows the new STATUS line" \
	grep -qE '^ +Status: "2 classes, 3 rules, ' /tmp/status || sed 's/^/# /' /tmp/status

# stop
check "systemctl stop nfsfaird" systemctl stop nfsfaird
check "is-active: inactive, the process gone" \
	eval '[ "$(systemctl is-active nfsfaird)" = inactive ] && ! [ -e /proc/$pid ]'
check "the table outlives the daemon: still three rules of origin 10" \
	eval '[ "$("$ctl" -S | grep -c -- "--origin 10$")" = 3 ]'
check "/run/nfsfair kept (RuntimeDirectoryPreserve): the classes it made" \
	eval 'grep -qx movers /run/nfsfair/classes.10 && grep -qx build /run/nfsfair/classes.10' ||
	diag "$(ls -l /run/nfsfair 2>&1)"

# start again: converges without writing
check "start again: active" systemctl start nfsfaird
check "StatusText: the table was already in place (no change)" \
	eval 'show StatusText | grep -q "last apply [0-9:]* (no change)"' ||
	diag "StatusText: $(show StatusText)"
check "stop again" systemctl stop nfsfaird
tap_done
