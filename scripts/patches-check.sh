#!/usr/bin/env bash
# Apply the series to the pristine tree one patch at a time and build it.
#
#   patches-check.sh TREE PATCHES WORK CONFIG
#
# TREE is the kernel tree with the "pristine" tag, PATCHES the output of
# mkseries.sh, WORK a directory kept between runs (a git worktree of TREE
# and an O= build directory, so a rerun rebuilds only what changed),
# CONFIG the .config to build with.  After each patch is applied with
# git am, the kernel objects of the C files it touches are compiled, and
# bpftool if it touches bpftool; reStructuredText it touches is parsed;
# MAINTAINERS patterns are checked.  After the last patch the worktree must
# hold the very tree that 'make kernel' builds, which is how the whole
# kernel at the end of the series is known to build, and every kernel
# object the series touches is compiled for ARCH=i386 as well.  Last, the
# series is applied without each design of kernel/series/designs, and what
# the rest touches is built.
#
# A series that passed is remembered in the cache beside the kernel
# tarball's (NETNS_ITER_CACHE, default ~/.cache/netns-iter), under
# patches-check/KEY, where KEY hashes this script, CONFIG,
# kernel/series/designs, the pristine source, the series' commits (each
# one's tree, from which the patches are made), gcc's and clang's versions
# and docutils': the same check of the same inputs is not run twice.
set -euo pipefail

tree=${1:?usage: patches-check.sh TREE PATCHES WORK CONFIG}
patches=${2:?usage: patches-check.sh TREE PATCHES WORK CONFIG}
work=${3:?usage: patches-check.sh TREE PATCHES WORK CONFIG}
config=${4:?usage: patches-check.sh TREE PATCHES WORK CONFIG}
jobs=${JOBS:-$(nproc)}
die() { echo "Error: $*" >&2; exit 1; }

ls "$patches"/0*.patch >/dev/null 2>&1 || die "no patches in $patches; run 'make patches' first"
[ -f "$config" ] || die "no kernel config at $config; run 'make config' first"
mkdir -p "$work"
tree=$(cd "$tree" && pwd) patches=$(cd "$patches" && pwd) work=$(cd "$work" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${NETNS_ITER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/netns-iter}
key=$({
	echo "patches-check 2"
	cat "$0" "$config" "$top/kernel/series/designs"
	git -C "$tree" rev-parse -q --verify 'refs/tags/pristine^{tree}' || true
	git -C "$tree" log --format='%T %s' pristine..netns-iter-series
	gcc --version | head -n 1
	"${CLANG:-clang-16}" --version | head -n 1
	dpkg-query -W python3-docutils 2>/dev/null || true
} 2>/dev/null | sha256sum | cut -c1-16)
stamp=$cache/patches-check/$key
if [ -f "$stamp" ]; then
	echo "  the series passed this check on $(cat "$stamp") with the same patches, .config and compiler ($stamp)"
	exit 0
fi
wt=$work/src kbuild=$work/kbuild
git=(git -C "$wt" -c user.name=netns-iter -c user.email=netns-iter@localhost -c gc.auto=0)

if [ ! -e "$wt/.git" ]; then
	git -C "$tree" worktree prune
	git -C "$tree" worktree add -q --detach "$wt" pristine
fi
"${git[@]}" am --abort >/dev/null 2>&1 || true
"${git[@]}" checkout -q -f --detach pristine
"${git[@]}" clean -q -fdx
mkdir -p "$kbuild"
cmp -s "$config" "$kbuild/.config" || cp "$config" "$kbuild/.config"
kmake=(make -s -C "$wt" O="$kbuild" ARCH=x86_64 -j"$jobs")
"${kmake[@]}" olddefconfig

rst_check() { # FILE
	/usr/bin/python3 - "$1" <<'EOF'
import sys, io, docutils.core, docutils.utils
err = io.StringIO()
src = open(sys.argv[1]).read()
docutils.core.publish_doctree(src, source_path=sys.argv[1], settings_overrides={
    'report_level': 2, 'halt_level': 5, 'warning_stream': err})
bad = [l for l in err.getvalue().splitlines()
       if ('(WARNING/' in l or '(ERROR/' in l or '(SEVERE/' in l)
       and 'Unknown interpreted text role' not in l
       and 'Unknown directive type' not in l]
if bad:
    print('\n'.join(bad))
    sys.exit(1)
EOF
}

n=0
total=$(ls "$patches"/0*.patch | grep -vc '/0000-')
for p in "$patches"/0*.patch; do
	case "$(basename "$p")" in 0000-*) continue ;; esac
	n=$((n + 1))
	"${git[@]}" am -q --keep-cr "$p" || die "patch $n/$total ($(basename "$p")) does not apply"
	subject=$("${git[@]}" log -1 --format=%s)
	objs=() bpftool=0 what=()
	while read -r f; do
		[ -e "$wt/$f" ] || continue
		case "$f" in
		tools/bpf/bpftool/*.c) bpftool=1 ;;
		tools/*) ;;
		*.c) objs+=("${f%.c}.o") ;;
		*.rst)
			rst_check "$wt/$f" || die "patch $n/$total ($subject): $f does not parse"
			what+=("$f parsed") ;;
		MAINTAINERS)
			(cd "$wt" && PATH=/usr/bin:$PATH perl scripts/get_maintainer.pl --self-test=patterns) >"$work/maint" 2>&1 || true
			if grep -q 'netns_iter\|sock_iter_netns\|netns_sock_iter' "$work/maint"; then
				cat "$work/maint" >&2
				die "patch $n/$total ($subject): a MAINTAINERS pattern it adds matches no file"
			fi
			what+=("MAINTAINERS patterns match") ;;
		esac
	done < <("${git[@]}" diff --name-only HEAD~1 HEAD)
	if [ ${#objs[@]} -gt 0 ]; then
		"${kmake[@]}" "${objs[@]}" || die "patch $n/$total ($subject): ${objs[*]} do not build"
		what+=("${objs[@]}")
	fi
	if [ $bpftool = 1 ]; then
		mkdir -p "$work/bpftool"
		make -s -C "$wt/tools/bpf/bpftool" OUTPUT="$work/bpftool/" -j"$jobs" \
			SKIP_LLVM=1 SKIP_LIBBFD=1 CLANG="${CLANG:-clang-16}" >"$work/bpftool.log" 2>&1 || {
			cat "$work/bpftool.log" >&2
			die "patch $n/$total ($subject): bpftool does not build"
		}
		what+=("bpftool")
	fi
	echo "  $n/$total $subject: ${what[*]:-nothing to compile}"
done
# The whole kernel at the end of the series is the one 'make kernel' built
# from TREE: the same source, so compare the trees instead of building it
# a second time.
want=$(cat "$tree/.git/netns-iter-series-tree" 2>/dev/null) ||
	die "$tree has no series tree; run 'make tree' first"
[ "$("${git[@]}" rev-parse HEAD^{tree})" = "$want" ] ||
	die "the series does not end at the tree 'make kernel' builds; run 'make patches' again"
echo "  $n/$total: the series ends at the tree 'make kernel' builds"

# 32 bits: the same configuration less CONFIG_64BIT, for ARCH=i386, and
# every kernel object the series touches compiled there at its end, so
# that what only breaks where pointers are 4 bytes (a size check on an
# iterator's state, say) is caught.
kbuild32=$work/kbuild-i386
mkdir -p "$kbuild32"
sed 's/^CONFIG_64BIT=y$/# CONFIG_64BIT is not set/' "$config" > "$work/config-i386"
cmp -s "$work/config-i386" "$kbuild32/.config.in" || {
	cp "$work/config-i386" "$kbuild32/.config"
	cp "$work/config-i386" "$kbuild32/.config.in"
}
kmake32=(make -s -C "$wt" O="$kbuild32" ARCH=i386 -j"$jobs")
"${kmake32[@]}" olddefconfig
for opt in CONFIG_NET_NS CONFIG_PROC_FS CONFIG_BPF_SYSCALL CONFIG_INET; do
	grep -q "^$opt=y" "$kbuild32/.config" || die "the i386 configuration lost $opt"
done
objs=()
while read -r f; do
	case "$f" in tools/*) ;; *.c) objs+=("${f%.c}.o") ;; esac
done < <("${git[@]}" diff --name-only pristine HEAD)
"${kmake32[@]}" "${objs[@]}" || die "the series does not build for ARCH=i386: ${objs[*]}"
echo "  i386: ${objs[*]}"

# Either design left out (kernel/series/designs): the rest of the series
# applies, and its kernel objects and bpftool build.
while read -r design nums; do
	case "$design" in ''|'#'*) continue ;; esac
	"${git[@]}" checkout -q -f --detach pristine
	"${git[@]}" clean -q -fdx
	for p in "$patches"/0*.patch; do
		num=$((10#$(basename "$p" | cut -c1-4)))
		[ "$num" = 0 ] && continue
		[[ " $nums " == *" $num "* ]] && continue
		"${git[@]}" am -q -3 --keep-cr "$p" ||
			die "without the $design design (patches $nums), patch $num does not apply"
	done
	objs=() bpftool=0
	while read -r f; do
		case "$f" in tools/bpf/bpftool/*.c) bpftool=1 ;; tools/*) ;; *.c) objs+=("${f%.c}.o") ;; esac
	done < <("${git[@]}" diff --name-only pristine HEAD)
	"${kmake[@]}" "${objs[@]}" || die "without the $design design, ${objs[*]} do not build"
	if [ $bpftool = 1 ]; then
		make -s -C "$wt/tools/bpf/bpftool" OUTPUT="$work/bpftool/" -j"$jobs" \
			SKIP_LLVM=1 SKIP_LIBBFD=1 CLANG="${CLANG:-clang-16}" >"$work/bpftool.log" 2>&1 || {
			cat "$work/bpftool.log" >&2
			die "without the $design design, bpftool does not build"
		}
	fi
	echo "  without $design (patches $nums): ${objs[*]}$([ $bpftool = 1 ] && echo " bpftool")"
done < "$top/kernel/series/designs"
mkdir -p "$cache/patches-check"
date -u '+%Y-%m-%d %H:%M UTC' > "$stamp"
