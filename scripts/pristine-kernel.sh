#!/usr/bin/env bash
# Build the unpatched kernel with the patched kernel's configuration, or take
# it from the cache, and print the path of its bzImage.
#
#   pristine-kernel.sh TREE CONFIG WORK
#
# TREE is the kernel tree whose tag "pristine" is the unpatched source
# (build/src), CONFIG the patched build's .config (build/kbuild/.config),
# WORK a directory kept between runs (build/pristine): a git worktree of
# TREE at "pristine" in WORK/src and the O= build directory WORK/kbuild.
# CONFIG goes through olddefconfig there; the options that only exist with
# the patches drop out, and the script names them.
#
# The bzImage is cached in the same directory as the kernel tarball
# (NETNS_ITER_CACHE, default ~/.cache/netns-iter), under pristine-kernel/KEY,
# where KEY hashes the pristine source tree's git tree id (a hash of its
# contents, the same in every clone made from the same tarball) and CONFIG
# (which names the compiler and pahole versions).  A cache hit builds
# nothing and needs no worktree.  Only stdout carries the path.
set -euo pipefail

usage="usage: pristine-kernel.sh TREE CONFIG WORK"
tree=${1:?$usage}
config=${2:?$usage}
work=${3:?$usage}
jobs=${JOBS:-$(nproc)}
# Compile through ccache when the Makefile set it up (CCACHE_DIR).
if [ -n "${CCACHE_DIR:-}" ] && [ -d /usr/lib/ccache ]; then
	PATH=/usr/lib/ccache:$PATH
fi
cache=${NETNS_ITER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/netns-iter}
die() { echo "Error: $*" >&2; exit 1; }

[ -f "$config" ] || die "no kernel config at $config; run 'make config' first"
# One snapshot of CONFIG for the key, the build and the cache entry, even if
# CONFIG is rewritten meanwhile.
snap=$(mktemp /tmp/netns-iter-config.XXXXXX)
trap 'rm -f "$snap"' EXIT
cp "$config" "$snap"
src_tree=$(git -C "$tree" rev-parse -q --verify 'refs/tags/pristine^{tree}' 2>/dev/null) ||
	die "$tree has no 'pristine' tag; run 'make tree' first"
key=$({ echo "pristine-kernel 1"; echo "source $src_tree"; cat "$snap"; } |
	sha256sum | cut -c1-16)
entry=$cache/pristine-kernel/$key
if [ -f "$entry/bzImage" ]; then
	echo "Unpatched kernel: cached $(cat "$entry/release" 2>/dev/null) ($entry)" >&2
	echo "$entry/bzImage"
	exit 0
fi

mkdir -p "$work"
tree=$(cd "$tree" && pwd) work=$(cd "$work" && pwd)
config=$(cd "$(dirname "$config")" && pwd)/$(basename "$config")
wt=$work/src kbuild=$work/kbuild
exec 9>"$work/.lock"
flock 9

# A worktree of its own: the tree itself carries the patches.
if [ ! -e "$wt/.git" ]; then
	rm -rf "$wt"
	git -C "$tree" worktree prune
	echo "Checking out the pristine source into $wt" >&2
	git -C "$tree" worktree add -q --detach "$wt" pristine
fi
git -C "$wt" checkout -q -f --detach pristine
git -C "$wt" clean -q -fdx

mkdir -p "$kbuild"
kmake=(make -s -C "$wt" O="$kbuild" ARCH=x86_64 -j"$jobs")
cmp -s "$snap" "$kbuild/.config" || cp "$snap" "$kbuild/.config"
"${kmake[@]}" olddefconfig

# Options CONFIG sets that the unpatched source does not have or sets
# otherwise (a "# ... is not set" line counts as unset).
dropped=$(grep -E '^CONFIG_[A-Za-z0-9_]+=' "$snap" | sort |
	comm -23 - <(grep -E '^CONFIG_[A-Za-z0-9_]+=' "$kbuild/.config" | sort) |
	tr '\n' ' ' || true)
dropped=${dropped% }
if [ -n "$dropped" ]; then
	echo "Options of $config that olddefconfig drops or changes in the unpatched source:" \
		"$dropped" >&2
fi

start=$(date +%s)
echo "Building the unpatched kernel in $kbuild" >&2
"${kmake[@]}" bzImage || die "the unpatched kernel does not build; see the output above"
release=$(cat "$kbuild/include/config/kernel.release")
echo "Unpatched kernel $release built in $(( $(date +%s) - start ))s" >&2

# Into the cache in one rename, so that a half-written entry is never used.
mkdir -p "$cache/pristine-kernel"
tmp=$(mktemp -d "$cache/pristine-kernel/.new.XXXXXX")
chmod 755 "$tmp"
cp "$kbuild/arch/x86/boot/bzImage" "$tmp/bzImage"
cp "$kbuild/.config" "$tmp/config"
echo "$release" > "$tmp/release"
{
	echo "source: $(cat "$tree/.git/netns-iter-source" 2>/dev/null || echo unknown)"
	echo "source tree: $src_tree"
	echo "config: $config (sha256 $(sha256sum < "$snap" | cut -d' ' -f1))"
	echo "dropped: $dropped"
} > "$tmp/info"
if ! mv -T "$tmp" "$entry" 2>/dev/null; then
	rm -rf "$tmp"	# another run cached the same key first
fi
echo "$entry/bzImage"
