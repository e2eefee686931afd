# Shared settings for the kernel scripts: sourced, never run.
# Paths are relative to the repository's top directory.

set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$top"

# Which series: NFSFAIR_KERNEL=7.3 (default), the series for upstream on
# Debian's linux-source-7.3 (trixie-backports, scripts/linux-source-backports),
# in build/linux, what make check boots; or 6.12, its backport on Debian's
# linux-source-6.12, what nfsfair-dkms builds for Debian's own kernels,
# in build/linux-6.12 (kernel/backport-6.12/README.md: how the two differ).
line=${NFSFAIR_KERNEL:-7.3}
configs_dir=kernel/configs
upstream_tag=nfsfair-upstream	# the tarball as it is
base_tag=nfsfair-base		# plus the harness: both kernels start here
case $line in
7.3)
	tarball_default() { scripts/linux-source-backports; }
	series_dir=kernel/patches
	harness_dir=kernel/harness	# what the tests need, not nfsfair itself
	line_fragment=$configs_dir/linux-7.3.config
	tree=build/linux			# git tree: base commit + our series
	baseline_tree=build/linux-baseline	# git worktree of the base commit
	;;
6.12)
	tarball_default() { echo /usr/src/linux-source-6.12.tar.xz; }
	series_dir=kernel/backport-6.12/patches
	harness_dir=kernel/backport-6.12/harness
	line_fragment=kernel/backport-6.12/linux-6.12.config
	tree=build/linux-6.12
	baseline_tree=build/linux-6.12-baseline
	;;
*)
	printf '%s: NFSFAIR_KERNEL=%s: the series are 7.3 and 6.12\n' "${0##*/}" "$line" >&2
	exit 1
	;;
esac
# The tarball is looked up (for 7.3, fetched) only by the scripts that
# read it: source_tarball sets it.
source_tarball() { tarball=${NFSFAIR_KERNEL_TARBALL:-$(tarball_default)}; }
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

# Every checkout of a tree is sparse (kernel/scripts/sparse-checkout):
# half the disk of a full one. sparse_tree DIR applies the patterns to
# DIR, again only when they changed; add_worktree DIR REV makes a sparse
# worktree of $tree at REV without checking out the rest first.
sparse_paths=kernel/scripts/sparse-checkout
sparse_tree() {
	[ "$(git -C "$1" sparse-checkout list 2>/dev/null)" = "$(grep -v -e '^#' -e '^$' "$top/$sparse_paths")" ] ||
		git -C "$1" -c advice.updateSparsePath=false sparse-checkout set --no-cone --stdin < "$top/$sparse_paths"
}
add_worktree() {
	git -C "$tree" worktree prune
	git -C "$tree" worktree add -q --no-checkout --detach "$top/$1" "$2"
	sparse_tree "$1"
	git -C "$1" checkout -q --detach "$2"
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
