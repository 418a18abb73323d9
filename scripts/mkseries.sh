#!/usr/bin/env bash
# Emit the upstream patch series.
#
#   mkseries.sh TREE OUT
#
# TREE is the kernel tree scripts/prepare-tree.sh keeps (its "pristine" tag
# is the unpatched source).  The patches are built as commits on top of
# pristine, one per line of kernel/series/series, in a private index (the
# work tree is not touched), then written to OUT by git format-patch with
# a cover letter made from kernel/series/cover-letter.txt.  Every patch is
# run through checkpatch.pl --strict: any ERROR, or a WARNING or CHECK that
# kernel/series/checkpatch-checks does not justify, fails the run.
set -euo pipefail

tree=${1:?usage: mkseries.sh TREE OUT}
out=${2:?usage: mkseries.sh TREE OUT}
top=$(cd "$(dirname "$0")/.." && pwd)
sdir=$top/kernel/series
tree=$(cd "$tree" && pwd)
die() { echo "Error: $*" >&2; exit 1; }
# add_cc PATCH LIST: a Cc: header, one address a line, at the end of the
# headers of PATCH; LIST has one address a line.
add_cc() {
	[ -n "$2" ] || return 0
	CC=$2 awk 'BEGIN { n = split(ENVIRON["CC"], a, "\n") }
		!done && $0 == "" {
			for (i = 1; i <= n; i++)
				printf "%s%s%s\n", i == 1 ? "Cc: " : " ", a[i], i < n ? "," : ""
			done = 1
		}
		{ print }
		END { exit !done }' "$1" > "$1.cc" || die "$(basename "$1") has no end of headers"
	mv "$1.cc" "$1"
}

git -C "$tree" rev-parse -q --verify refs/tags/pristine >/dev/null ||
	die "$tree has no pristine tag; run 'make tree' first"
name=$(git -C "$top" config user.name || true)
email=$(git -C "$top" config user.email || true)
[ -n "$name" ] && [ -n "$email" ] ||
	die "git user.name and user.email are not set; the patches need an author and a Signed-off-by (git config user.name 'Your Name'; git config user.email you@example.org)"
# The project's last commit dates the patches, so the output is reproducible.
date=$(git -C "$top" log -1 --format=%aD 2>/dev/null || date -R)
export GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email GIT_AUTHOR_DATE=$date
export GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email GIT_COMMITTER_DATE=$date
git=(git -C "$tree" -c core.autocrlf=false -c gc.auto=0)

declare -A dest used
while read -r src dst; do
	case "$src" in ''|'#'*) continue ;; esac
	dest[$src]=$dst
done < "$top/kernel/FILES"

work=$(mktemp -d /tmp/netns-iter-series.XXXXXX)
trap 'rm -rf "$work"' EXIT
export GIT_INDEX_FILE=$work/index
"${git[@]}" read-tree pristine

add_file() { # SOURCE-IN-kernel/ CONTENT-FILE
	local blob
	blob=$("${git[@]}" hash-object -w "$2")
	"${git[@]}" update-index --add --cacheinfo "100644,$blob,${dest[$1]}"
}

parent=$("${git[@]}" rev-parse pristine^{commit})
n=0
while read -r msg parts; do
	case "$msg" in ''|'#'*) continue ;; esac
	[ -f "$sdir/$msg" ] || die "kernel/series/series: no message file $msg"
	n=$((n + 1))
	for part in $parts; do
		if [ -f "$top/kernel/patches/$part" ]; then
			"${git[@]}" apply --cached --whitespace=nowarn "$top/kernel/patches/$part" ||
				die "kernel/patches/$part does not apply at patch $n ($msg)"
			used[$part]=1
		elif [ -n "${dest[$part]:-}" ]; then
			add_file "$part" "$top/kernel/$part"
			used[$part]=1
		else
			die "kernel/series/series: $part is neither in kernel/patches nor in kernel/FILES"
		fi
	done
	t=$("${git[@]}" write-tree)
	# The Signed-off-by joins a message's closing tags (Fixes:), if any.
	parent=$({ cat "$sdir/$msg"
		   tail -n 1 "$sdir/$msg" | grep -qE '^[A-Z][A-Za-z-]*: ' || echo
		   printf 'Signed-off-by: %s <%s>\n' "$name" "$email"; } |
		"${git[@]}" commit-tree "$t" -p "$parent")
done < "$sdir/series"

# The series must add up to the tree every build uses, less kernel/bench/.
for p in "$top"/kernel/patches/*.patch; do
	[ -n "${used[$(basename "$p")]:-}" ] || die "kernel/patches/$(basename "$p") is in no patch of kernel/series/series"
done
for src in "${!dest[@]}"; do
	[ -n "${used[$src]:-}" ] || die "kernel/$src is in no patch of kernel/series/series"
done
want=$(cat "$tree/.git/netns-iter-series-tree" 2>/dev/null || true)
[ "$("${git[@]}" rev-parse "$parent^{tree}")" = "$want" ] ||
	die "the series does not end at the tree 'make tree' builds, less kernel/bench/; run 'make tree' and check kernel/series/series"
"${git[@]}" update-ref refs/heads/netns-iter-series "$parent"
unset GIT_INDEX_FILE

rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
"${git[@]}" format-patch -q -o "$out" --cover-letter --subject-prefix='RFC PATCH bpf-next' \
	pristine..netns-iter-series

# checkpatch, with the justified WARNINGs and CHECKs taken out.
report=$work/checkpatch
fail=0
for p in "$out"/0*.patch; do
	num=$(basename "$p" | cut -c1-4)
	[ "$num" = 0000 ] && continue
	(cd "$tree" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict --showfile "$p") > "$work/cp" 2>&1 || true
	sum=$(grep -E '^total: ' "$work/cp" | tail -n1)
	printf '%s\t%s\n' "$((10#$num))" "$sum" >> "$report"
	while IFS= read -r line; do
		case "$line" in *': ERROR: '*) ;;
		*': WARNING: '*|*': CHECK: '*)
			ok=0
			while IFS=$'\t' read -r pn text _; do
				case "$pn" in ''|'#'*) continue ;; esac
				[ "$pn" = "$((10#$num))" ] && [[ $line == *"$text"* ]] && ok=1
			done < "$sdir/checkpatch-checks"
			[ $ok = 1 ] && continue ;;
		*) continue ;;
		esac
		echo "$(basename "$p"): $line" >&2
		fail=1
	done < "$work/cp"
done
[ $fail = 0 ] || die "checkpatch.pl --strict: the issues above are not justified in kernel/series/checkpatch-checks"

# Cc: whom scripts/get_maintainer.pl names for each patch from MAINTAINERS
# (not from git history: the tree is a source package) and whom
# kernel/series/extra-cc adds, in a Cc: header of the patch; the cover
# letter goes to all of them.
all_cc=""
for p in "$out"/0*.patch; do
	[ "$(basename "$p" | cut -c1-4)" = 0000 ] && continue
	cc=$(cd "$tree" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
		--no-rolestats --no-tree "$p" 2>/dev/null) ||
		die "scripts/get_maintainer.pl failed on $(basename "$p")"
	num=$((10#$(basename "$p" | cut -c1-4)))
	cc=$(printf '%s\n' "$cc"; awk -F'\t' -v n="$num" '$1 == n { print $2 }' "$sdir/extra-cc")
	cc=$(printf '%s\n' "$cc" | awk 'NF && !seen[$0]++')
	all_cc=$(printf '%s\n%s' "$all_cc" "$cc")
	add_cc "$p" "$cc"
done
add_cc "$out"/0000-cover-letter.patch "$(printf '%s\n' "$all_cc" | awk 'NF && !seen[$0]++')"

# Cover letter: subject and body from cover-letter.txt, with the benchmark
# table (walk, S = 10) that bench/report.sh wrote into docs/BENCHMARKS.md
# and the checkpatch results.
bench=$(awk '/<!-- cover-bench end -->/ { on = 0 }
	on && /^```/ { fence = !fence; next }
	on { print (fence && $0 != "" ? "  " : "") $0 }
	/<!-- cover-bench begin -->/ { on = 1 }' "$top/docs/BENCHMARKS.md")
[ -n "$bench" ] || die "docs/BENCHMARKS.md has no walk table; run 'make bench'"
# The targeted design's index: its kill time against N, and its price.
index=$({ grep -e "the index's kill, started cold, took" -e '^Each socket the index holds adds' "$top/docs/BENCHMARKS.md"
	  sed -n '/<!-- cover-index begin -->/,/<!-- cover-index end -->/p' "$top/docs/BENCHMARKS.md" |
		grep -v '^<!--' || true; } | while IFS= read -r l; do echo "$l" | fmt -w 68 | sed '1s/^/- /; 2,$s/^/  /'; done)
[ -n "$index" ] || die "docs/BENCHMARKS.md has no index section; run 'make bench-scale'"
# The guest that measured it, from what make bench-scale recorded.
index_guest=$(awk '/^netns_iter\.accel=/ { sub(/.*=/, ""); a = toupper($0) }
	/^cpus:/ { c = $2 }
	/^net\.ipv4\.tcp_ehash_entries/ { t = $NF }
	/^net\.ipv4\.udp_hash_entries/ { u = $NF }
	END { if (a == "" || c == "" || t == "" || u == "") exit 1
	      printf "the bench kernel under QEMU with %s on %s vCPUs, shared tables of %s TCP\nand %s UDP slots", a, c, t, u }' \
	"$top/docs/bench/guest-scale.txt") ||
	die "docs/bench/guest-scale.txt does not record the guest's accelerator, CPUs and tables; run 'make bench-scale'"
checks=$(awk -F'\t' '{ printf "  %d/%d: %s\n", $1, total, $2 }' total="$n" "$report"
	 echo
	 while IFS=$'\t' read -r pn text why; do
		case "$pn" in ''|'#'*) continue ;; esac
		printf 'Patch %s, "%s": %s\n' "$pn" "$text" "$why" | fmt -w 70 | sed 's/^/  /'
	 done < "$sdir/checkpatch-checks")
base="$(cat "$tree/.git/netns-iter-source" 2>/dev/null || echo "the pristine tree") (Linux $(make -s -C "$tree" kernelversion 2>/dev/null))"
cover=$(ls "$out"/0000-cover-letter.patch)
subject=$(head -n1 "$sdir/cover-letter.txt")
BENCH=$bench INDEX=$index INDEX_GUEST=$index_guest CHECKPATCH=$checks BASE=$base SUBJECT=$subject \
BODY=$(tail -n +3 "$sdir/cover-letter.txt") awk '
	# put(S, KEY, VALUE): S with every KEY replaced by VALUE.
	function put(s, key, value,    p, out) {
		out = ""
		while ((p = index(s, key))) {
			out = out substr(s, 1, p - 1) value
			s = substr(s, p + length(key))
		}
		return out s
	}
	BEGIN {
		body = ENVIRON["BODY"]
		body = put(body, "@BENCH@", ENVIRON["BENCH"])
		body = put(body, "@INDEX_GUEST@", ENVIRON["INDEX_GUEST"])
		body = put(body, "@INDEX@", ENVIRON["INDEX"])
		body = put(body, "@CHECKPATCH@", ENVIRON["CHECKPATCH"])
		body = put(body, "@BASE@", ENVIRON["BASE"])
	}
	$0 == "*** BLURB HERE ***" { print body; next }
	{ print put($0, "*** SUBJECT HERE ***", ENVIRON["SUBJECT"]) }' "$cover" > "$work/cover"
mv "$work/cover" "$cover"
echo "Series: $n patches and a cover letter in $out"
awk -F'\t' '{ printf "  %d/%d checkpatch --strict: %s\n", $1, n, $2 }' n="$n" "$report"
