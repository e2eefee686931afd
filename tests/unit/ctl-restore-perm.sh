#!/bin/bash
# nfsfair-ctl restore without CAP_NET_ADMIN, run as nobody (setpriv):
# it says plainly that restore needs CAP_NET_ADMIN (root), exit 1, and
# leaves no lock file of nobody's in root's way; --test still runs; with
# CAP_NET_ADMIN nobody gets past the check, and a lock it cannot open
# comes after the same words, as detail. The lock is in a directory of
# the test's, made like /run/lock (1777), in an nfsfair-ctl built for it.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
if [ "$(id -u)" != 0 ] || ! command -v setpriv > /dev/null; then
	echo "1..0 # SKIP needs root and setpriv, to run nfsfair-ctl as nobody"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
mkdir -m 1777 "$tmp/lock"
lock=$tmp/lock/nfsfair-ctl.lock
make -s -C "$top/lib" || { echo "1..0 # lib/ does not build"; exit 1; }
# shellcheck disable=SC2046
(mkdir "$tmp/obj" && cd "$tmp/obj" && cc -Wall -Wextra -Werror -std=gnu11 \
	-DRESTORE_LOCK_DIR="\"$tmp/lock\"" -I"$top/netlink-spec/uapi" \
	$(pkg-config --cflags libnl-genl-3.0) -c "$top"/cli/*.c &&
	cc -o "$tmp/nfsfair-ctl" ./*.o "$top/lib/libnfsfair.a" \
	$(pkg-config --libs libnl-genl-3.0) -lm) || { echo "1..0 # cli/ does not build"; exit 1; }
printf -- '-N movers\n-A -s 10.0.0.0/8 -j movers\n' > "$tmp/table.save"
chmod 644 "$tmp/table.save"
needs="nfsfair-ctl: restore needs CAP_NET_ADMIN (root), as every edit of the table does"

# as WHO ARGS...: nfsfair-ctl ARGS as nobody, no capabilities (WHO=nobody)
# or CAP_NET_ADMIN alone (WHO=admin); status in $status, stderr in $tmp/err.
as() {
	local caps=()

	[ "$1" = admin ] && caps=(--inh-caps=+net_admin --ambient-caps=+net_admin)
	shift
	setpriv --reuid=nobody --regid=nogroup --clear-groups "${caps[@]}" -- \
		"$tmp/nfsfair-ctl" "$@" > "$tmp/out" 2> "$tmp/err"
	status=$?
}

# A root restore left its lock, root's, 0600.
: > "$lock"
chmod 600 "$lock"
as nobody restore "$tmp/table.save"
check "as nobody, root's lock there: exit 1, '$needs'" eval \
	'[ $status = 1 ] && [ "$(cat "$tmp/err")" = "$needs" ]' ||
	diag "status $status: $(cat "$tmp/err")"

rm -f "$lock"
as nobody restore "$tmp/table.save"
check "as nobody, no lock yet: the same, and no lock file of nobody's left" eval \
	'[ $status = 1 ] && [ "$(cat "$tmp/err")" = "$needs" ] && [ ! -e "$lock" ]' ||
	diag "status $status: $(cat "$tmp/err"); lock: $(ls -l "$lock" 2>&1)"

as nobody restore "$tmp/table.save" --noflush
check "as nobody, --noflush: the same" eval \
	'[ $status = 1 ] && [ "$(cat "$tmp/err")" = "$needs" ]' ||
	diag "status $status: $(cat "$tmp/err")"

as nobody restore --test "$tmp/table.save"
check "as nobody, restore --test still checks the file: exit 0, OK" eval \
	'[ $status = 0 ] && grep -qx "$tmp/table.save: 1 class, 1 rule: OK" "$tmp/out"' ||
	diag "status $status: $(cat "$tmp/err")"

printf -- '-N a b\n' > "$tmp/bad.save"
chmod 644 "$tmp/bad.save"
as nobody restore "$tmp/bad.save"
check "as nobody, a bad file: its line first, exit 1" eval \
	'[ $status = 1 ] && grep -q "^nfsfair-ctl: $tmp/bad.save:1: " "$tmp/err"' ||
	diag "status $status: $(cat "$tmp/err")"

# CAP_NET_ADMIN, not root: the kernel decides; here it has no nfsfair family.
as admin restore "$tmp/table.save"
check "as nobody with CAP_NET_ADMIN: past the check, to the kernel (no nfsfair family here)" eval \
	'[ $status = 1 ] && grep -q "no .nfsfair. netlink family" "$tmp/err" &&
	 ! grep -qF "$needs" "$tmp/err"' ||
	diag "status $status: $(cat "$tmp/err")"
rm -f "$lock"
: > "$lock"
chmod 600 "$lock"
as admin restore "$tmp/table.save"
check "as nobody with CAP_NET_ADMIN, root's lock: the same words, the lock as detail" eval \
	'[ $status = 1 ] && [ "$(cat "$tmp/err")" = "$needs (lock $lock: Permission denied)" ]' ||
	diag "status $status: $(cat "$tmp/err")"
tap_done
