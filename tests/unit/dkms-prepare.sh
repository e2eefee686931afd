#!/bin/bash
# dkms/prepare-source's refusals, natively against the host's Debian
# headers and linux-source-6.12 tarball: each names what is wrong, exits
# non-zero and leaves no half-prepared tree that a build could pick up.
# The good path is make modules and the stock-server suite.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
kver=$("$top/kernel/scripts/debian-kernel-release")
work=$(mktemp -d /tmp/dkms-prepare.XXXXXX)
trap 'rm -rf "$work"' EXIT

# A DKMS build directory as dkms lays it out: the series and our files.
layout() {
	rm -rf "$work/b"
	mkdir -p "$work/b/patches/6.12" "$work/b/patches/7.3"
	cp "$top"/dkms/* "$work/b/"
	cp "$top"/kernel/backport-6.12/patches/*.patch "$work/b/patches/6.12/"
	cp "$top"/kernel/patches/*.patch "$work/b/patches/7.3/"
}
refuses() {	# refuses WANT ARGS...: non-zero, WANT on stderr, no overlay
	local want=$1 out
	shift
	out=$("$work/b/prepare-source" "$@" 2>&1 >/dev/null) && return 1
	grep -qF -- "$want" <<< "$out" || { diag "said: $out"; return 1; }
	[ ! -d "$work/b/overlay" ]
}

layout
check "a kernel without headers is named" refuses "no headers for kernel 6.12.1-nosuch" 6.12.1-nosuch "$work/b"
check "a missing source is named" refuses "no kernel source at /nonexistent.tar.xz" "$kver" "$work/b" /nonexistent.tar.xz
# A kernel of a version the package has no series for, before anything
# else is looked at (its headers, its source).
check "a kernel of another Linux version is refused, naming both versions" \
	refuses "kernel 7.4.1+deb13-amd64 is Linux 7.4: this nfsfair-dkms carries the series for Linux 6.12 and 7.3 only" \
	7.4.1+deb13-amd64 "$work/b"
check "so is Debian 12's 6.1, older than both" \
	refuses "kernel 6.1.0-28-amd64 is Linux 6.1: this nfsfair-dkms carries the series for Linux 6.12 and 7.3 only" \
	6.1.0-28-amd64 "$work/b"
rm -rf "$work/b/patches/7.3"
check "with the 6.12 series alone, it names that one" \
	refuses "kernel 7.3.4+deb13-amd64 is Linux 7.3: this nfsfair-dkms carries the series for Linux 6.12 only" \
	7.3.4+deb13-amd64 "$work/b"
check "a release that names no version is refused" refuses "cannot tell the Linux version of kernel 'custom'" custom "$work/b"
rm -rf "$work/b/patches"
check "a build directory without the series is refused" refuses "no series in $work/b/patches" "$kver" "$work/b"

# Another Debian version of linux-source-6.12 than the kernel's: dpkg's
# answer for that one package is replaced, the rest is the host's.
layout
mkdir -p "$work/bin"
cat > "$work/bin/dpkg-query" <<'SH'
#!/bin/sh
case "$*" in *linux-source-6.12*) echo 6.12.99-1~deb12u1 ;; *) exec /usr/bin/dpkg-query "$@" ;; esac
SH
chmod +x "$work/bin/dpkg-query"
hdr=$(dpkg-query -W -f='${Version}' "linux-headers-$kver")
check "source of another version is refused, naming both versions" \
	env PATH="$work/bin:$PATH" bash -c "$(declare -f refuses); work=$work; \
	refuses 'linux-source-6.12 is 6.12.99-1~deb12u1 but kernel $kver is $hdr' $kver $work/b"

# A patch that does not apply to the source is named.
layout
printf 'Subject: [PATCH] broken\n---\n--- a/net/sunrpc/svc.c\n+++ b/net/sunrpc/svc.c\n@@ -1,1 +1,1 @@\n-no such line\n+nor this\n' \
	> "$work/b/patches/6.12/0099-broken.patch"
check "a patch that does not apply is named" refuses "0099-broken.patch does not apply" "$kver" "$work/b"
tap_done
