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
cm=$(col m) cs=$(col s) cd=$(col design) cw=$(col workload) ct=$(col tables)
cwall=$(col wall_ms_median)

# series TABLES WORKLOAD DESIGN S: "M wall" rows.
series() {
	awk -F, -v t="$1" -v w="$2" -v d="$3" -v s="$4" \
		-v ct="$ct" -v cw="$cw" -v cd="$cd" -v cs="$cs" -v cm="$cm" -v cv="$cwall" \
		'NR > 1 && $ct == t && $cw == w && $cd == d && $cs == s { print $cm, $cv }' "$csv"
}

designs="setns netns-arg chained global sock_diag"
plot_vs_m() { # TABLES S PNG
	local t=$1 s=$2 png=$3 d cmd="" sep=""
	for d in $designs; do
		series "$t" walk "$d" "$s" > "$res/$t-$s-$d.dat"
		[ -s "$res/$t-$s-$d.dat" ] || continue
		cmd+="$sep'$res/$t-$s-$d.dat' using 1:2 with linespoints title '$d'"
		sep=", "
	done
	[ -n "$cmd" ] || return 0
	gnuplot <<-GP
		set terminal png size 800,500
		set output '$png'
		set title 'walk, $t tables, S=$s sockets per netns'
		set xlabel 'namespaces (M)'
		set ylabel 'wall time, ms (median)'
		set logscale xy
		set key left top
		plot $cmd
	GP
}

plot_vs_s() { # TABLES M PNG
	local t=$1 m=$2 png=$3 d cmd="" sep=""
	for d in $designs; do
		awk -F, -v t="$t" -v d="$d" -v m="$m" -v ct="$ct" -v cw="$cw" -v cd="$cd" \
			-v cs="$cs" -v cm="$cm" -v cv="$cwall" \
			'NR > 1 && $ct == t && $cw == "walk" && $cd == d && $cm == m { print $cs, $cv }' \
			"$csv" > "$res/s-$t-$m-$d.dat"
		[ -s "$res/s-$t-$m-$d.dat" ] || continue
		cmd+="$sep'$res/s-$t-$m-$d.dat' using 1:2 with linespoints title '$d'"
		sep=", "
	done
	[ -n "$cmd" ] || return 0
	gnuplot <<-GP
		set terminal png size 800,500
		set output '$png'
		set title 'walk, $t tables, M=$m namespaces'
		set xlabel 'sockets per namespace (S)'
		set ylabel 'wall time, ms (median)'
		set logscale xy
		set key left top
		plot $cmd
	GP
}

plot_vs_m shared 10 "$docs/bench/walk-shared-s10.png"
plot_vs_m child 10 "$docs/bench/walk-child-s10.png"
plot_vs_m shared 100 "$docs/bench/walk-shared-s100.png"
plot_vs_m child 100 "$docs/bench/walk-child-s100.png"
plot_vs_s shared 16 "$docs/bench/walk-vs-s-shared-m16.png"
plot_vs_s child 16 "$docs/bench/walk-vs-s-child-m16.png"

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
