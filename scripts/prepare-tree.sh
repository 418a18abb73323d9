#!/usr/bin/env bash
# Prepare the kernel source tree used for every build.
#
#   prepare-tree.sh [--bench] TREE [KERNEL_SRC]
#
# The first run copies the source (KERNEL_SRC, or Debian's linux-source-7.3
# fetched into the cache) into TREE and records it as the git commit tagged
# "pristine".  Every run then computes the wanted tree, pristine plus
# kernel/patches/*.patch plus the new files listed in kernel/FILES (the
# upstream series), plus with --bench the benchmark counters of
# kernel/bench/*.patch (the bench kernel only), and rewrites only the files
# whose contents differ, so kbuild rebuilds only what changed.
set -euo pipefail

bench=0
[ "${1:-}" = --bench ] && { bench=1; shift; }
tree=${1:?usage: prepare-tree.sh TREE [KERNEL_SRC]}
mkdir -p "$tree"
tree=$(cd "$tree" && pwd)
ksrc=${2:-}
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${NETNS_ITER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/netns-iter}
git=(git -C "$tree" -c user.name=netns-iter -c user.email=netns-iter@localhost
     -c core.autocrlf=false -c gc.auto=0)

if ! git -C "$tree" rev-parse -q --verify refs/tags/pristine >/dev/null 2>&1; then
	find "$tree" -mindepth 1 -delete
	if [ -n "$ksrc" ]; then
		[ -f "$ksrc/Makefile" ] && [ -d "$ksrc/kernel/bpf" ] || {
			echo "Error: KERNEL_SRC=$ksrc is not a kernel source tree" >&2
			exit 1
		}
		echo "Copying kernel source from $ksrc" >&2
		(cd "$ksrc" && git ls-files -z 2>/dev/null || find . -path ./.git -prune -o -type f -print0) |
			(cd "$ksrc" && tar --null -T - -cf -) | tar -C "$tree" -xf -
		desc="KERNEL_SRC $ksrc ($(cd "$ksrc" && git describe --always --dirty 2>/dev/null || echo no git))"
	else
		tarball=$("$top/scripts/fetch-kernel.sh" "$cache")
		echo "Unpacking $(basename "$tarball")" >&2
		tar -C "$tree" --strip-components=1 -xf "$tarball"
		desc=$(cat "$cache/VERSION")
	fi
	"${git[@]}" init -q
	"${git[@]}" add -A -f .
	"${git[@]}" commit -q -m "pristine: $desc"
	"${git[@]}" tag pristine
	echo "$desc" > "$tree/.git/netns-iter-source"
fi

# Build the wanted tree in a private index, then bring the work tree to it.
idx="$tree/.git/netns-iter.index"
rm -f "$idx"
export GIT_INDEX_FILE=$idx
"${git[@]}" read-tree pristine
for p in "$top"/kernel/patches/*.patch; do
	[ -e "$p" ] || continue
	"${git[@]}" apply --cached --whitespace=nowarn "$p" || {
		echo "Error: kernel/patches/$(basename "$p") does not apply to $(cat "$tree/.git/netns-iter-source")" >&2
		exit 1
	}
done
while read -r src dst; do
	case "$src" in ''|'#'*) continue ;; esac
	blob=$("${git[@]}" hash-object -w "$top/kernel/$src")
	"${git[@]}" update-index --add --cacheinfo "100644,$blob,$dst"
done < "$top/kernel/FILES"
# The upstream series ends here (scripts/mkseries.sh checks it does); the
# benchmark instrumentation in kernel/bench/ goes on top in the bench tree.
series=$("${git[@]}" write-tree)
for p in "$top"/kernel/bench/*.patch; do
	[ -e "$p" ] && [ "$bench" = 1 ] || continue
	"${git[@]}" apply --cached --whitespace=nowarn "$p" || {
		echo "Error: kernel/bench/$(basename "$p") does not apply on top of kernel/patches and kernel/FILES" >&2
		exit 1
	}
done
want=$("${git[@]}" write-tree)
unset GIT_INDEX_FILE
rm -f "$idx"

# One-tree merge: entries whose contents match keep their stat data and
# their files; only changed, added or removed files are touched.
before=$("${git[@]}" write-tree)
"${git[@]}" read-tree --reset -u "$want"
if [ "$before" != "$want" ]; then
	echo "Updated kernel tree:" $("${git[@]}" diff-tree -r --name-only "$before" "$want") >&2
fi
echo "$want" > "$tree/.git/netns-iter-wanted"
echo "$series" > "$tree/.git/netns-iter-series-tree"
