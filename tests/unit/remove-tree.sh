#!/bin/bash
# scripts/remove-tree (make distclean, tests/debian/build-image) against
# real bind mounts: a tree with another file system bound inside it, as
# a stopped chroot install leaves the host's /dev under build/debian/root,
# is removed without touching what was bound there. In a mount namespace
# of its own: whatever happens, no mount outlives the suite.
top=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${NFSFAIR_REMOVE_TREE_NS:-}" ]; then
	NFSFAIR_REMOVE_TREE_NS=1 exec unshare -m --propagation private "$0" "$@"
fi
. "$top/tests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf --one-file-system "$tmp"' EXIT
remove_tree=$top/scripts/remove-tree

# The "host": two directories with files that must survive.
mkdir -p "$tmp/host-dev/pts" "$tmp/host-pts" "$tmp/host-proc"
echo keep > "$tmp/host-dev/null-node"
echo keep > "$tmp/host-pts/0"
echo keep > "$tmp/host-proc/version"
# The tree: the image's root with them bound at dev, dev/pts and proc.
root=$tmp/build/debian/root
mkdir -p "$root/dev" "$root/proc" "$root/etc"
echo x > "$root/etc/hostname"
mount --bind "$tmp/host-dev" "$root/dev"
mount --bind "$tmp/host-pts" "$root/dev/pts"
mount --bind "$tmp/host-proc" "$root/proc"
mounted_below() { findmnt -rn -o TARGET | grep -qF "$1/"; }
require "three file systems are bound in the tree" mounted_below "$tmp/build"

check "remove-tree exits 0" "$remove_tree" "$tmp/build"
check "the tree is gone" test ! -e "$tmp/build"
check "nothing stays mounted below it" eval '! mounted_below "$tmp/build"'
check "what was bound at dev is untouched" test -s "$tmp/host-dev/null-node"
check "what was bound at dev/pts is untouched" test -s "$tmp/host-pts/0"
check "what was bound at proc is untouched" test -s "$tmp/host-proc/version"

# A tree whose name is a prefix of a mounted one's is not its parent.
mkdir -p "$tmp/b" "$tmp/bb/dev"
mount --bind "$tmp/host-dev" "$tmp/bb/dev"
check "remove-tree DIR leaves DIRx's mounts alone" "$remove_tree" "$tmp/b"
check "... which stay mounted" mounted_below "$tmp/bb"
umount "$tmp/bb/dev"

check "a missing directory is not an error" "$remove_tree" "$tmp/never-made"
# The Makefile's distclean goes through it (make -n: nothing runs).
check "make distclean removes build/ with remove-tree" \
	grep -qx 'scripts/remove-tree build' <(make -s -n -C "$top" distclean)
tap_done
