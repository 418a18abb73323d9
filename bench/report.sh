#!/usr/bin/env bash
# bench/report.sh RESULTS DOCS: plots and docs/BENCHMARKS.md from the CSV
# that netns-bench wrote.  Needs gnuplot (scripts/packages.txt).
set -euo pipefail
res=$1 docs=$2
csv=$res/results.csv
[ -s "$csv" ] || { echo "Error: no $csv: run make bench" >&2; exit 1; }
mkdir -p "$docs/bench"

# col NAME: the column number of NAME in the CSV header.
col() { head -n1 "$csv" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }
cd=$(col design) cw=$(col workload) ct=$(col tables)
cwall=$(col wall_ms_median)

designs="setns netns-arg chained global sock_diag"

# plot_walk TABLES FIX VALUE X XLABEL PNG: walk time against column X, one
# line per design, for the points of TABLES whose column FIX is VALUE.
plot_walk() {
	local t=$1 fix=$2 val=$3 x=$4 xlabel=$5 png=$6 d dat cmd="" sep=""
	for d in $designs; do
		dat=$res/$t-$fix$val-$d.dat
		awk -F, -v t="$t" -v d="$d" -v v="$val" -v ct="$ct" -v cw="$cw" \
			-v cd="$cd" -v cf="$(col "$fix")" -v cx="$(col "$x")" -v cv="$cwall" \
			'NR > 1 && $ct == t && $cw == "walk" && $cd == d && $cf == v { print $cx, $cv }' \
			"$csv" > "$dat"
		[ -s "$dat" ] || continue
		cmd+="$sep'$dat' using 1:2 with linespoints title '$d'"
		sep=", "
	done
	[ -n "$cmd" ] || return 0
	gnuplot <<-GP
		set terminal png size 800,500 noenhanced
		set output '$png'
		set title 'walk, $t tables, ${fix^^}=$val'
		set xlabel '$xlabel'
		set ylabel 'wall time, ms (median)'
		set logscale xy
		set key left top
		plot $cmd
	GP
}

plot_walk shared s 10 m 'namespaces (M)' "$docs/bench/walk-shared-s10.png"
plot_walk child s 10 m 'namespaces (M)' "$docs/bench/walk-child-s10.png"
plot_walk shared s 100 m 'namespaces (M)' "$docs/bench/walk-shared-s100.png"
plot_walk child s 100 m 'namespaces (M)' "$docs/bench/walk-child-s100.png"
plot_walk shared m 16 s 'sockets per namespace (S)' "$docs/bench/walk-vs-s-shared-m16.png"
plot_walk child m 16 s 'sockets per namespace (S)' "$docs/bench/walk-vs-s-child-m16.png"
table() { # WORKLOAD: markdown table of every point for WORKLOAD
	awk -F, -v w="$1" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$h["workload"] == w {
			printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				$h["tables"], $h["m"], $h["s"], $h["design"],
				$h["wall_ms_median"], $h["wall_ms_spread"], $h["sys_ms_median"],
				$h["ratio_vs_global"], $h["ratio_vs_chained"], $h["sockets_seen"] }' "$csv"
}

{
	cat "$docs/BENCHMARKS.head.md"
	echo
	echo "## Guest"
	echo
	echo '```'
	cat "$res/guest.txt" 2>/dev/null || echo "(not recorded)"
	echo '```'
	for w in walk reap1 reap10; do
		echo
		echo "## $w"
		echo
		echo "| tables | M | S | design | wall ms | spread | sys ms | x global | x chained | sockets |"
		echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
		table "$w"
	done
	echo
	echo "## Plots"
	echo
	for p in "$docs"/bench/*.png; do
		echo "![$(basename "$p" .png)](bench/$(basename "$p"))"
	done
} > "$docs/BENCHMARKS.md"
cp "$csv" "$docs/bench/results.csv"
echo "wrote $docs/BENCHMARKS.md"
