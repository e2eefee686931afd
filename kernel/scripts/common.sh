# Shared settings for the kernel scripts: sourced, never run.
# Paths are relative to the repository's top directory.

set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$top"

tarball=${NFSFAIR_KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
series_dir=kernel/patches
configs_dir=kernel/configs
tree=build/linux			# git tree: base commit + our series
baseline_tree=build/linux-baseline	# git worktree of the base commit
upstream_tag=nfsfair-upstream	# the tarball as it is
base_tag=nfsfair-base		# plus kernel/harness: both kernels start here
harness_dir=kernel/harness
# The object directory sits directly inside the source tree so that Kbuild
# names sources as "../", relative: ccache then hits across clones and
# between the two trees for every file the series does not touch.
objdir=um

# Object directory per build (um for UML, as above; x86_64 and
# x86_64-debug for the qemu guest), ignored by git in both trees.
arch_objdir() {
	local dir=$1
	[ "$dir" = um ] || grep -qx "/$dir/" "$tree/.git/info/exclude" 2>/dev/null ||
		printf '/%s/\n' "$dir" >> "$tree/.git/info/exclude"
	echo "$dir"
}

die() { printf '%s: %s\n' "${0##*/}" "$*" >&2; exit 1; }
say() { printf '  %-8s %s\n' "$1" "$2"; }

patches() { ls "$1"/*.patch 2>/dev/null | sort || true; }
series() { patches "$series_dir"; }

patches_digest() {
	{ for p in $(patches "$1"); do sha256sum "$p"; done; } | sha256sum | cut -c1-64
}

# What decides the nfsfair tree's content: the base commit and the series.
series_digest() {
	echo "$(git -C "$tree" rev-parse "$base_tag")-$(patches_digest "$series_dir")"
}
