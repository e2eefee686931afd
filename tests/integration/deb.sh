#!/bin/bash
# Inside the guest: the nfsfair-tools package `make deb` left in build/deb/
# (built on the host: run it first) installs with dpkg into a scratch root,
# never the guest's / (that is the host's, through hostfs): its files are
# where they belong, the config is a conffile, the unit is enabled the
# Debian way, the binaries are hardened and run, -L answers from the real
# family; remove keeps the edited conffile, purge leaves nothing behind.
# Only -L (and -N) need the guest, for the patched kernel's family; the
# rest would pass natively too, as root (dpkg chroots into the scratch
# root to run the maintainer scripts). One suite, one boot: ~2 s.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"

debs=("$top"/build/deb/nfsfair-tools_*.deb)
deb=${debs[0]}
require "build/deb/nfsfair-tools_*.deb is there (make deb on the host builds it)" \
	test -f "$deb" -a "${#debs[@]}" -eq 1
diag "$(basename "$deb"), built $(date -r "$deb" '+%F %T')"

# The scratch root: an empty dpkg database, and /bin/sh with its libraries
# and /dev/null, so that dpkg can chroot into it to run the maintainer
# scripts. It holds no packages: --force-depends lets the package in
# without libc6, libnl and libyaml; the binaries run from outside the
# chroot, on the guest's own libraries.
work=$(mktemp -d /tmp/deb-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"/var/lib/dpkg/{info,updates,triggers} "$root/bin" "$root/dev"
touch "$root"/var/lib/dpkg/{status,available}
cp -L /bin/dash "$root/bin/sh"
for lib in $(ldd /bin/dash | grep -o '/[^ ]*'); do
	mkdir -p "$root${lib%/*}"
	cp -L "$lib" "$root$lib"
done
mknod -m 666 "$root/dev/null" c 1 3
snapshot() { (cd "$root" && find . -path ./var/lib/dpkg -prune -o -print | sort); }
snapshot > "$work/before"

dpkg_root() { dpkg --root="$root" --force-depends "$@" > "$work/dpkg.log" 2>&1 ||
	{ sed 's/^/# /' "$work/dpkg.log"; return 1; }; }
status() { dpkg-query --root="$root" -W -f='${db:Status-Abbrev}' nfsfair-tools 2> /dev/null; }
require "dpkg --root -i installs it" dpkg_root -i "$deb"
check "dpkg says installed (ii)" [ "$(status)" = "ii " ]

# The files, where make help and debian/rules say.
files=(usr/sbin/nfsfair-ctl usr/sbin/nfsfaird
	usr/share/man/man8/nfsfair-ctl.8.gz usr/share/man/man8/nfsfaird.8.gz
	usr/share/man/man5/nfsfair.yaml.5.gz
	usr/share/bash-completion/completions/nfsfair-ctl
	lib/systemd/system/nfsfaird.service etc/nfsfair/nfsfair.yaml
	usr/share/doc/nfsfair-tools/copyright usr/share/doc/nfsfair-tools/changelog.gz
	usr/share/doc/nfsfair-tools/examples/nfsfair.yaml)
for unit in "$top"/systemd/nfsfair-metrics.*; do
	[ -e "$unit" ] && files+=("lib/systemd/system/${unit##*/}")
done
for f in "${files[@]}"; do
	check "/$f is installed" test -f "$root/$f"
done
check "the unit runs /usr/sbin/nfsfaird" \
	grep -qx 'ExecStart=/usr/sbin/nfsfaird --foreground' "$root/lib/systemd/system/nfsfaird.service"
check "/etc/nfsfair/nfsfair.yaml names no class; the example is in the docs" \
	eval 'cmp -s "$top/etc/nfsfair-installed.yaml" "$root/etc/nfsfair/nfsfair.yaml" &&
	      cmp -s "$top/etc/nfsfair.yaml" "$root/usr/share/doc/nfsfair-tools/examples/nfsfair.yaml"'
check "the installed config is valid: nfsfaird --check" \
	"$root/usr/sbin/nfsfaird" --check -c "$root/etc/nfsfair/nfsfair.yaml" -d "$root/etc/nfsfair/conf.d"
check "/etc/nfsfair/nfsfair.yaml is the package's only conffile" \
	[ "$(cat "$root/var/lib/dpkg/info/nfsfair-tools.conffiles")" = /etc/nfsfair/nfsfair.yaml ]
check "dpkg-deb -I lists the same conffile" \
	[ "$(dpkg-deb -I "$deb" conffiles)" = /etc/nfsfair/nfsfair.yaml ]

# dh_installsystemd's scripts: nfsfaird.service enabled and started, the
# metrics timer (when packaged) only kept in step with what the admin chose.
info=$root/var/lib/dpkg/info
check "postinst enables nfsfaird.service (deb-systemd-helper)" \
	grep -q "deb-systemd-helper enable 'nfsfaird.service'" "$info/nfsfair-tools.postinst"
check "postinst starts nfsfaird.service (deb-systemd-invoke)" \
	grep -q "deb-systemd-invoke \$_dh_action 'nfsfaird.service'" "$info/nfsfair-tools.postinst"
check "postrm purges nfsfaird.service's state" \
	grep -q "deb-systemd-helper purge 'nfsfaird.service'" "$info/nfsfair-tools.postrm"
# Its enable line sits under "if ... was-enabled": only the admin's choice.
timer_opt_in() {
	grep -B2 "deb-systemd-helper enable 'nfsfair-metrics.timer'" "$info/nfsfair-tools.postinst" |
		grep -q "was-enabled 'nfsfair-metrics.timer'"
}
if [ -e "$root/lib/systemd/system/nfsfair-metrics.timer" ]; then
	check "postinst does not enable nfsfair-metrics.timer on its own" timer_opt_in
fi

# dpkg-buildflags reached the compiler and the linker.
hardened() {
	readelf -d "$1" | grep -q 'FLAGS_1.*NOW.*PIE' && readelf -lW "$1" | grep -q GNU_RELRO &&
		nm -D "$1" | grep -q '__[a-z]*_chk@'
}
for b in nfsfair-ctl nfsfaird; do
	check "$b: PIE, full RELRO (BIND_NOW), fortified calls" hardened "$root/usr/sbin/$b"
done

# They run, and nfsfair-ctl talks to this kernel's nfsfair family.
ctl=$root/usr/sbin/nfsfair-ctl
quiet() { "$@" > /dev/null; }
check "nfsfair-ctl --help exits 0" quiet "$ctl" --help
check "nfsfaird --help exits 0" quiet "$root/usr/sbin/nfsfaird" --help
check "nfsfair-ctl -L answers from the kernel" quiet "$ctl" -L
new_class_listed() { "$ctl" -N "$1" && "$ctl" classes | grep -qw "$1"; }
check "nfsfair-ctl -N debpkg, then classes lists it" new_class_listed debpkg
# shellcheck disable=SC2016 # the inner shell's $1
check "the bash completion registers for nfsfair-ctl" \
	bash -c '. "$1" && complete -p nfsfair-ctl > /dev/null' - \
	"$root/usr/share/bash-completion/completions/nfsfair-ctl"

# Remove keeps the admin's edited conffile; purge removes it, and the rest.
echo '# edited by the admin' >> "$root/etc/nfsfair/nfsfair.yaml"
require "dpkg --remove" dpkg_root --remove nfsfair-tools
check "removed: config-files state (rc)" [ "$(status)" = "rc " ]
check "removed: the edited conffile stays" \
	grep -qx '# edited by the admin' "$root/etc/nfsfair/nfsfair.yaml"
check "removed: the binaries are gone" test ! -e "$root/usr/sbin/nfsfaird"
require "dpkg --purge" dpkg_root --purge nfsfair-tools
check "purged: dpkg no longer knows the package" [ -z "$(status)" ]
check "purged: /etc/nfsfair is gone" test ! -e "$root/etc/nfsfair"
check "purged: no nfsfair-tools.* left in the dpkg database" \
	[ -z "$(find "$info" -name 'nfsfair-tools.*')" ]
snapshot > "$work/after"
check "purged: the scratch root is as it was before the install" \
	cmp -s "$work/before" "$work/after" ||
	diag "left: $(comm -13 "$work/before" "$work/after" | tr '\n' ' ')"
tap_done
