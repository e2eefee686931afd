#!/bin/bash
# make install (issue 13): PREFIX=/usr/local puts each file where `make
# help` says, the unit runs the installed nfsfaird with the config it was
# given, the man pages read with man -l, and nothing lands outside
# DESTDIR: make install runs in a mount namespace where the whole tree is
# read-only but DESTDIR and the build directories (it builds first, and
# daemon/ relinks on every make). PREFIX=/usr gives Debian's layout.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest
mkdir -p "$dest" "$tmp/cc"

# The caller's MAKEFLAGS (under make check) must not reach these makes.
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C "$top" "$@"; }
require "make tools builds nfsfair-ctl and nfsfaird" mk -s tools

# sandbox CMD...: CMD in a mount namespace where / (and the usual tmpfs
# mounts) are read-only, save $tmp and the build directories. Root, or a
# user namespace, is needed.
sandbox() {
	local -a ns=(unshare -m)
	[ "$(id -u)" -eq 0 ] || ns=(unshare -rm)
	# shellcheck disable=SC2016 # expanded by the inner shell
	"${ns[@]}" bash -c '
		while [ "$1" != -- ]; do mount --bind "$1" "$1" || exit 99; shift; done
		shift
		for m in / /tmp /var/tmp /dev/shm /run; do
			! mountpoint -q "$m" || mount -o remount,bind,ro "$m" || exit 99
		done
		exec "$@"' sandbox "$tmp" "$top/lib" "$top/cli" "$top/daemon" -- "$@"
}
install_usr_local() {
	"$@" env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL TMPDIR="$tmp/cc" \
		make --no-print-directory -C "$top" install DESTDIR="$dest" PREFIX=/usr/local \
		> "$tmp/install.log" 2>&1 || { sed 's/^/# /' "$tmp/install.log"; return 1; }
}
if sandbox true 2> /dev/null; then
	# shellcheck disable=SC2016 # the inner shell's $1
	check "the sandbox refuses a write outside DESTDIR" \
		sandbox bash -c '! touch "$1" 2> /dev/null' - "$top/.install-probe"
	rm -f "$top/.install-probe"
	require "make install DESTDIR PREFIX=/usr/local writes only under DESTDIR" \
		install_usr_local sandbox
else
	check "nothing outside DESTDIR # SKIP no mount namespace here" true
	require "make install DESTDIR PREFIX=/usr/local" install_usr_local
fi

# Each file where documented, with its mode; and nothing else.
u=/usr/local
installed() {	# installed MODE FILE [SOURCE]: FILE has MODE, and SOURCE's bytes
	[ "$(stat -c %a "$2" 2> /dev/null)" = "$1" ] && { [ -z "${3-}" ] || cmp -s "$3" "$2"; }
}
expect() {	# expect MODE PATH [SOURCE]
	echo "$2" >> "$tmp/expected"
	check "$2 ($1)" installed "$1" "$dest$2" ${3:+"$top/$3"}
}
expect 755 $u/sbin/nfsfair-ctl cli/nfsfair-ctl
expect 755 $u/sbin/nfsfaird daemon/nfsfaird
expect 644 $u/share/man/man8/nfsfair-ctl.8 cli/nfsfair-ctl.8
expect 644 $u/share/man/man8/nfsfaird.8 daemon/nfsfaird.8
expect 644 $u/share/man/man5/nfsfair.yaml.5 daemon/nfsfair.yaml.5
expect 644 $u/share/bash-completion/completions/nfsfair-ctl cli/nfsfair-ctl.bash-completion
expect 644 $u/etc/nfsfair/nfsfair.yaml etc/nfsfair-installed.yaml
expect 644 $u/share/doc/nfsfair-tools/examples/nfsfair.yaml etc/nfsfair.yaml
expect 644 $u/share/nfsfair/prometheus/nfsfair-rules.yml prometheus/nfsfair-rules.yml
for unit in "$top"/systemd/*.service "$top"/systemd/*.timer; do
	[ -e "$unit" ] && expect 644 "$u/lib/systemd/system/${unit##*/}"
done
(cd "$dest" && find . ! -type d | sed 's/^\.//' | sort) > "$tmp/found"
check "nothing else is installed" cmp -s <(sort "$tmp/expected") "$tmp/found" ||
	diag "$(diff <(sort "$tmp/expected") "$tmp/found" | grep '^[<>]' | tr '\n' ' ')"

# The unit runs the installed daemon on the installed config.
unit=$dest$u/lib/systemd/system/nfsfaird.service
want="ExecStart=$u/sbin/nfsfaird --foreground -c $u/etc/nfsfair/nfsfair.yaml -d $u/etc/nfsfair/conf.d"
check "nfsfaird.service: $want" grep -qxF "$want" "$unit" ||
	diag "$(grep '^ExecStart' "$unit")"
check "no installed unit names /usr/sbin/" \
	bash -c '! grep -l /usr/sbin/ "$@"' - "$dest$u"/lib/systemd/system/*
check "nfsfaird.service: otherwise the unit as shipped" \
	cmp -s <(grep -v '^ExecStart=' "$top/systemd/nfsfaird.service") <(grep -v '^ExecStart=' "$unit")
quiet() { "$@" > /dev/null; }
check "the installed nfsfair-ctl runs (--help)" quiet "$dest$u/sbin/nfsfair-ctl" --help

# man -l renders each page: exit 0, its NAME line, and no complaint.
man_reads() {	# man_reads FILE NAME
	LC_ALL=C MANPAGER=cat MANWIDTH=80 man -l "$1" > "$tmp/man.out" 2> "$tmp/man.err" &&
		grep -qE "^ +$2 +- " "$tmp/man.out" && [ ! -s "$tmp/man.err" ]
}
for page in man8/nfsfair-ctl.8:nfsfair-ctl man8/nfsfaird.8:nfsfaird man5/nfsfair.yaml.5:nfsfair.yaml; do
	check "man -l ${page%%:*}: its NAME line, no warnings" \
		man_reads "$dest$u/share/man/${page%%:*}" "${page#*:}" ||
		diag "$(head -c 300 "$tmp/man.err")"
done

# A second install keeps the admin's edits to the config.
echo '# edited' >> "$dest$u/etc/nfsfair/nfsfair.yaml"
mk -s install DESTDIR="$dest" PREFIX=/usr/local > "$tmp/again.log" 2>&1
check "reinstalling keeps the edited config" \
	grep -qx '# edited' "$dest$u/etc/nfsfair/nfsfair.yaml"
check "reinstalling says it kept it" grep -q 'keeping the existing' "$tmp/again.log"

# PREFIX=/usr (the package): config in /etc, the unit exactly as shipped.
deb=$tmp/deb
check "make install PREFIX=/usr SYSTEMDUNITDIR=/lib/systemd/system" \
	quiet mk -s install DESTDIR="$deb" PREFIX=/usr SYSTEMDUNITDIR=/lib/systemd/system
check "PREFIX=/usr: /etc/nfsfair/nfsfair.yaml" cmp -s "$top/etc/nfsfair-installed.yaml" "$deb/etc/nfsfair/nfsfair.yaml"
check "PREFIX=/usr: /usr/sbin/nfsfaird" test -x "$deb/usr/sbin/nfsfaird"
check "PREFIX=/usr: /lib/systemd/system/nfsfaird.service is the unit as shipped" \
	cmp -s "$top/systemd/nfsfaird.service" "$deb/lib/systemd/system/nfsfaird.service"
tap_done
