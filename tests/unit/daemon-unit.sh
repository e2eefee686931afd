#!/usr/bin/env bash
# The systemd units pass systemd-analyze verify (with our binary and
# man pages standing in for the installed ones), the man pages render
# with no groff warnings, and a make of daemon/ with nothing changed does
# nothing.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/man/man5" "$tmp/man/man8"
cp "$top/daemon/nfsfaird.8" "$tmp/man/man8/"
cp "$top/daemon/nfsfair.yaml.5" "$tmp/man/man5/"
sed "s|/usr/sbin/nfsfaird|$top/daemon/nfsfaird|" "$top/systemd/nfsfaird.service" \
	> "$tmp/nfsfaird.service"
verify() { MANPATH="$tmp/man" systemd-analyze verify "$tmp/nfsfaird.service" 2>&1; }
out=$(verify)
check "systemd-analyze verify nfsfaird.service: clean" [ -z "$out" ] || diag "$out"
# nfsfair-metrics: the timer and the service it starts, verified together.
cp "$top/cli/nfsfair-ctl.8" "$tmp/man/man8/"
sed "s|/usr/sbin/nfsfair-ctl|$top/cli/nfsfair-ctl|" "$top/systemd/nfsfair-metrics.service" \
	> "$tmp/nfsfair-metrics.service"
cp "$top/systemd/nfsfair-metrics.timer" "$tmp/"
out=$(MANPATH="$tmp/man" systemd-analyze verify "$tmp/nfsfair-metrics.service" \
	"$tmp/nfsfair-metrics.timer" 2>&1)
check "systemd-analyze verify nfsfair-metrics.service and .timer: clean" [ -z "$out" ] ||
	diag "$out"
unit=$top/systemd/nfsfaird.service
check "Type=notify" grep -qx 'Type=notify' "$unit"
check "ExecReload sends SIGHUP" grep -qx 'ExecReload=/bin/kill -HUP $MAINPID' "$unit"
check "ordered before nfs-server.service" \
	grep -qx 'Before=nfs-server.service' "$unit"
check "only CAP_NET_ADMIN" \
	grep -qx 'CapabilityBoundingSet=CAP_NET_ADMIN' "$unit"
# A second make with nothing changed does nothing: nfsfaird is not relinked.
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL LC_ALL=C make -C "$top/daemon" 2>&1; }
out=$(mk)
check "make -C daemon builds" [ $? -eq 0 ] || diag "$out"
before=$(stat -c %y "$top/daemon/nfsfaird")
out=$(mk)
check "make -C daemon again: nfsfaird not relinked" \
	[ "$(stat -c %y "$top/daemon/nfsfaird")" = "$before" ] || diag "$out"
check "... and it says nothing is to be done" \
	grep -qx "make: Nothing to be done for 'all'." <<< "$out" || diag "$out"
for page in daemon/nfsfaird.8 daemon/nfsfair.yaml.5; do
	out=$(groff -man -Tutf8 -ww -z "$top/$page" 2>&1)
	check "$page renders without warnings" [ -z "$out" ] || diag "$out"
done
tap_done
