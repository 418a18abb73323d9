#!/usr/bin/env bash
# bench/report.sh RESULTS DOCS: plots and docs/BENCHMARKS.md from the CSV
# that netns-bench wrote.  Needs gnuplot (scripts/packages.txt).
set -euo pipefail
res=$1 docs=$2
csv=$res/results.csv
[ -s "$csv" ] || { echo "Error: no $csv: run make bench" >&2; exit 1; }
mkdir -p "$docs/bench"

# The TCP rows go to every section as before, the UDP rows to their own
# (a CSV without a proto column is all TCP).
all=$csv
split_proto() { # PROTO OUT
	awk -F, -v p="$1" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; print; next }
		(("proto" in h) ? $h["proto"] : "tcp") == p' "$all" > "$2"
}
split_proto tcp "$res/tcp.csv"
split_proto udp "$res/udp.csv"
csv=$res/tcp.csv

# col NAME: the column number of NAME in the CSV header.
col() { head -n1 "$csv" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }
cd=$(col design) cw=$(col workload) ct=$(col tables)
cwall=$(col wall_ms_median)

designs="setns netns-arg chained chained-conn global sock_diag"

# plot_walk TABLES FIX VALUE X XLABEL PNG: walk time against column X, one
# line per design, for the points of TABLES whose column FIX is VALUE, from
# $csv; PROTO names the protocol in the title.
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
		set title 'walk, ${PROTO:-tcp}, $t tables, ${fix^^}=$val'
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
if [ "$(wc -l < "$res/udp.csv")" -gt 1 ]; then
	csv=$res/udp.csv PROTO=udp plot_walk shared s 10 m 'namespaces (M)' "$docs/bench/walk-udp-shared-s10.png"
	csv=$res/udp.csv PROTO=udp plot_walk child s 10 m 'namespaces (M)' "$docs/bench/walk-udp-child-s10.png"
fi
table() { # WORKLOAD: markdown table of every point for WORKLOAD
	awk -F, -v w="$1" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$h["workload"] == w {
			printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				$h["tables"], $h["m"], $h["s"], $h["design"],
				$h["wall_ms_median"], $h["wall_ms_spread"], $h["sys_ms_median"],
				$h["ratio_vs_global"], $h["ratio_vs_chained"], $h["sockets_seen"],
				$h["syscalls"], $h["kernel_buckets"], $h["kernel_sockets"] }' "$csv"
}

# The guest's table sizes: B (shared established hash), L (shared
# listening hash), b (the child namespaces' established hash).
B=$(awk '/tcp_ehash_entries/ { print $NF }' "$res/guest.txt" 2>/dev/null)
L=$(awk '/tcp_listen_portaddr_hash/ { print $NF }' "$res/guest.txt" 2>/dev/null)
b=$(awk '/child_ehash_entries/ { print $NF }' "$res/world.txt" 2>/dev/null)

# goals: the goals of the issue, computed from the CSV.
goals() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	{
		k = $h["tables"] SUBSEP $h["m"] SUBSEP $h["s"]
		key = k SUBSEP $h["design"] SUBSEP $h["workload"]
		wall[key] = $h["wall_ms_median"]; calls[key] = $h["syscalls"]
		kb[key] = $h["kernel_buckets"]
		if (!(k in seenpt)) { seenpt[k] = 1; pts[++npts] = k }
		if ($h["tables"] == "child" && $h["m"] > maxm) maxm = $h["m"]
		rows[++nrows] = key
	}
	END {
		print "### Chained over child tables against whole-host, at the largest M (goal: 1.2x)"
		print ""
		print "chained walks every socket, listeners included; chained-conn the connected"
		print "sockets only (BPF_ITER_NETNS_SOCK_SKIP_LISTEN), as socket termination does."
		print ""
		print "| workload | M | S | whole-host ms | chained ms | chained / whole-host | goal | chained-conn ms | chained-conn / whole-host | goal |"
		print "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
		for (i = 1; i <= nrows; i++) {
			split(rows[i], x, SUBSEP)
			if (x[1] != "child" || x[2] != maxm || x[4] != "global") continue
			pw = x[1] SUBSEP x[2] SUBSEP x[3]
			g = wall[rows[i]]
			c = wall[pw SUBSEP "chained" SUBSEP x[5]]
			cc = wall[pw SUBSEP "chained-conn" SUBSEP x[5]]
			printf "| %s | %d | %d | %.1f | %.1f | %.2fx | %s | %.1f | %.2fx | %s |\n",
				x[5], x[2], x[3], g, c, c / g,
				c / g <= 1.2 ? "met" : sprintf("missed by %.2fx", c / g / 1.2),
				cc, cc / g,
				cc / g <= 1.2 ? "met" : sprintf("missed by %.2fx", cc / g / 1.2)
		}
		print ""
		print "### Chained against the setns loop, every point and workload (goal: never slower)"
		print ""
		worst = 1e9; slower = 0; n = 0
		for (i = 1; i <= nrows; i++) {
			split(rows[i], x, SUBSEP)
			if (x[4] != "chained" && x[4] != "chained-conn") continue
			sk = x[1] SUBSEP x[2] SUBSEP x[3] SUBSEP "setns" SUBSEP x[5]
			r = wall[sk] / wall[rows[i]]; n++
			at = x[4] ", " x[1] " M=" x[2] " S=" x[3] " " x[5]
			if (r < 1) slower++
			if (r < worst) { worst = r; where = at }
			if (r > best) { best = r; bwhere = at }
		}
		printf "A chained design is slower than setns in %d of %d cases. setns / chained ranges from %.2fx (%s) to %.2fx (%s).\n\n", slower, n, worst, where, best, bwhere
		print "Per namespace (M pods and the host), walk: what the chained walk saves."
		print ""
		print "| tables | M | S | setns us/netns | chained us/netns | saved us/netns | setns syscalls/netns | chained syscalls |"
		print "| --- | --- | --- | --- | --- | --- | --- | --- |"
		for (i = 1; i <= npts; i++) {
			split(pts[i], p, SUBSEP)
			if (p[3] != 10) continue
			s = wall[pts[i] SUBSEP "setns" SUBSEP "walk"] * 1000 / (p[2] + 1)
			c = wall[pts[i] SUBSEP "chained" SUBSEP "walk"] * 1000 / (p[2] + 1)
			printf "| %s | %d | %d | %.0f | %.0f | %.0f | %.1f | %d |\n", p[1], p[2], p[3], s, c, s - c,
				calls[pts[i] SUBSEP "setns" SUBSEP "walk"] / (p[2] + 1),
				calls[pts[i] SUBSEP "chained" SUBSEP "walk"]
		}
		print ""
		print "### Shared tables: per-netns designs against whole-host (expected: about M+1 times)"
		print ""
		print "| M | S | setns / global | netns-arg / global | sock_diag / global | chained / global | chained-conn / global | setns / global / (M+1) |"
		print "| --- | --- | --- | --- | --- | --- | --- | --- |"
		for (i = 1; i <= npts; i++) {
			split(pts[i], p, SUBSEP)
			if (p[1] != "shared") continue
			g = wall[pts[i] SUBSEP "global" SUBSEP "walk"]
			s = wall[pts[i] SUBSEP "setns" SUBSEP "walk"] / g
			printf "| %d | %d | %.1fx | %.1fx | %.1fx | %.1fx | %.1fx | %.2f |\n", p[2], p[3], s,
				wall[pts[i] SUBSEP "netns-arg" SUBSEP "walk"] / g,
				wall[pts[i] SUBSEP "sock_diag" SUBSEP "walk"] / g,
				wall[pts[i] SUBSEP "chained" SUBSEP "walk"] / g,
				wall[pts[i] SUBSEP "chained-conn" SUBSEP "walk"] / g, s / (p[2] + 1)
		}
		print ""
		print "### Reaping 10 backends against 1, one pass (goal: at most 1.5x)"
		print ""
		print "Buckets are the kernel counter, chained, reap10 over reap1: 1.00 is one pass for both."
		print "The added ms are reap10 minus reap1: the cost of destroying nine backends more."
		print ""
		print "| tables | M | S | chained reap10 / reap1 | whole-host reap10 / reap1 | chained added ms | whole-host added ms | buckets reap10 / reap1 | goal (chained) |"
		print "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
		walkonly = ""
		for (i = 1; i <= npts; i++) {
			split(pts[i], p, SUBSEP)
			if (!((pts[i] SUBSEP "chained" SUBSEP "reap1") in wall)) {
				walkonly = walkonly sprintf(" %s M=%d S=%d;", p[1], p[2], p[3])
				continue
			}
			c1 = wall[pts[i] SUBSEP "chained" SUBSEP "reap1"]
			c10 = wall[pts[i] SUBSEP "chained" SUBSEP "reap10"]
			g1 = wall[pts[i] SUBSEP "global" SUBSEP "reap1"]
			g10 = wall[pts[i] SUBSEP "global" SUBSEP "reap10"]
			c = c10 / c1; g = g10 / g1
			k1 = kb[pts[i] SUBSEP "chained" SUBSEP "reap1"]
			k10 = kb[pts[i] SUBSEP "chained" SUBSEP "reap10"]
			printf "| %s | %d | %d | %.2fx | %.2fx | %.1f | %.1f | %s | %s |\n", p[1], p[2], p[3], c, g,
				c10 - c1, g10 - g1,
				(k1 > 0 ? sprintf("%.2f", k10 / k1) : "-"),
				c <= 1.5 ? "met" : sprintf("missed by %.2fx", c / 1.5)
		}
		if (walkonly != "")
			printf "\nNot reaped (over the reap cap, walk only):%s\n", walkonly
	}' "$csv"
}

# udp_goals: the UDP walk of every design against whole-host and setns.
udp_goals() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	{
		k = $h["tables"] SUBSEP $h["m"] SUBSEP $h["s"]
		any[k SUBSEP $h["workload"] SUBSEP $h["design"]] = $h["wall_ms_median"]
		spread[k SUBSEP $h["workload"] SUBSEP $h["design"]] = $h["wall_ms_spread"]
		if ($h["design"] == "chained") rows[++nrows] = k SUBSEP $h["workload"]
	}
	$h["workload"] == "walk" {
		wall[k SUBSEP $h["design"]] = $h["wall_ms_median"]
		if (!(k in seenpt)) { seenpt[k] = 1; pts[++npts] = k }
	}
	END {
		slower = 0; worst = 1e9
		for (i = 1; i <= nrows; i++) {
			r = any[rows[i] SUBSEP "setns"] / any[rows[i] SUBSEP "chained"]
			if (r < worst) { worst = r; wr = rows[i] }
			if (r >= 1) continue
			slower++
			split(rows[i], x, SUBSEP)
			list = list sprintf("%s %s M=%d S=%d (%.2fx: setns %.1f ms, spread %.1f; chained %.1f ms, spread %.1f); ",
				x[4], x[1], x[2], x[3], r, any[rows[i] SUBSEP "setns"], spread[rows[i] SUBSEP "setns"],
				any[rows[i] SUBSEP "chained"], spread[rows[i] SUBSEP "chained"])
		}
		printf "Chained against setns, every UDP point and workload (goal: never slower): slower in %d of %d cases", slower, nrows
		if (slower) printf ": %s", list
		print ""
		print ""

		print "| tables | M | S | setns / whole-host | netns-arg / whole-host | chained / whole-host | sock_diag / whole-host | setns / chained |"
		print "| --- | --- | --- | --- | --- | --- | --- | --- |"
		for (i = 1; i <= npts; i++) {
			split(pts[i], p, SUBSEP)
			g = wall[pts[i] SUBSEP "global"]
			c = wall[pts[i] SUBSEP "chained"]
			printf "| %s | %d | %d | %.2fx | %.2fx | %.2fx | %.2fx | %.2fx |\n", p[1], p[2], p[3],
				wall[pts[i] SUBSEP "setns"] / g, wall[pts[i] SUBSEP "netns-arg"] / g,
				c / g, wall[pts[i] SUBSEP "sock_diag"] / g, wall[pts[i] SUBSEP "setns"] / c
		}
	}' "$res/udp.csv"
}

# counters: the kernel's bucket and socket counts of each walk against the
# cost model's bucket count (M pods and the host, n = M + 1):
#   whole-host      shared: L + B              child: L + B + M b
#   chained-conn    shared: n B                child: B + M b
#   every other     shared: n (L + B)          child: n L + B + M b
counters() {
	awk -F, -v B="$B" -v L="$L" -v b="$b" '
	NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	$h["workload"] == "walk" && $h["kernel_buckets"] != "" {
		m = $h["m"]; n = m + 1
		if ($h["design"] == "global")
			model = L + B + ($h["tables"] == "child" ? m * b : 0)
		else if ($h["design"] == "chained-conn")
			model = $h["tables"] == "shared" ? n * B : B + m * b
		else if ($h["tables"] == "shared")
			model = n * (L + B)
		else
			model = n * L + B + m * b
		printf "| %s | %d | %d | %s | %d | %d | %.3f | %d | %d | %.2f |\n",
			$h["tables"], m, $h["s"], $h["design"], $h["kernel_buckets"], model,
			$h["kernel_buckets"] / model, $h["kernel_sockets"], $h["sockets_seen"],
			$h["kernel_sockets"] / ($h["sockets_seen"] ? $h["sockets_seen"] : 1)
	}' "$csv"
}

# empty_section: the empty world's cost per bucket (netns-bench --empty),
# with the profile of the TCP walk when it was recorded.
empty_section() {
	local e=$res/empty.csv
	[ -s "$e" ] || e=$docs/bench/empty.csv
	[ -s "$e" ] || return 0
	echo "## Empty world: what one hash bucket costs each design"
	echo
	echo "M namespaces with no socket at all, walked by every design"
	echo "(\`netns-bench --empty\`, measured in its own run, $(awk -F, 'NR == 2 { print $5 }' "$e")"
	echo "repetitions, median). Shared tables: the time over the host's"
	echo "established hash (TCP) or UDP table, which each per-namespace walk covers"
	echo "M + 1 times and the whole-host walk once. Child tables: the difference"
	echo "between child tables of the smallest size and of a large one, over the"
	echo "buckets that adds, so that costs per namespace, per call and the"
	echo "listening hash cancel out. x arg is the cost against \`iter/tcp\` or"
	echo "\`iter/udp\` with the netns argument."
	echo
	echo "| tables | M | proto | design | ms | spread | buckets | ns / bucket | x arg |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %.2f |\n", $h["tables"], $h["m"],
			$h["proto"], $h["design"], $h["wall_ms_median"], $h["wall_ms_spread"],
			$h["buckets"], $h["ns_per_bucket"], $h["ratio_vs_netns_arg"] }' "$e"
	echo
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		{ k = $h["tables"] " " $h["proto"]; v = $h["ns_per_bucket"]
		  if (!(k in lo) || v < lo[k]) { lo[k] = v; ld[k] = $h["design"] }
		  if (!(k in hi) || v > hi[k]) { hi[k] = v; hd[k] = $h["design"] }
		  if (!(k in seen)) { seen[k] = 1; keys[++n] = k } }
		END { for (i = 1; i <= n; i++) { k = keys[i]; r = hi[k] / lo[k]; goal = ""
			if (index(k, "tcp")) goal = r <= 1.25 ? ": within the 1.25x goal" : ": over the 1.25x goal"
			printf "- %s: from %.1f ns (%s) to %.1f ns (%s) a bucket, %.2fx%s\n", k,
				lo[k], ld[k], hi[k], hd[k], r, goal } }' "$e"
	echo
	echo "The shared UDP table is small (udp_hash_entries), so its rows measure mostly"
	echo "what a walk costs per namespace (setns, link and iterator set-up), not per"
	echo "bucket; the child rows isolate the bucket."
	echo
	echo "Every design runs the same batching code of \`iter/tcp\` and \`iter/udp\`"
	echo "(the chained walk through \`bpf_tcp_sock_walk_*()\` and \`bpf_udp_sock_walk_*()\`),"
	echo "so a bucket costs them the same. Where a TCP bucket's cost goes: in"
	echo "\`established_get_first()\`, one \`cond_resched()\` per bucket, which on this"
	echo "debug kernel (DEBUG_ATOMIC_SLEEP, lockdep) runs \`__might_resched()\` and"
	echo "\`lock_is_held_type()\`; the listening hash loop and the UDP loop have no"
	echo "\`cond_resched()\` and cost a few nanoseconds a bucket. The profile of the"
	echo "guest during a TCP empty-world run (\`perf record -e cpu-clock -a -g\`,"
	echo "kernel samples of netns-bench: the functions with the most samples of"
	echo "their own, then the walk's functions with their callees' samples):"
	echo
	echo '```'
	cat "$res/profile-empty-tcp.txt" 2>/dev/null || cat "$docs/bench/profile-empty-tcp.txt" 2>/dev/null ||
		echo "(not recorded)"
	echo '```'
	echo
	echo "It is a cost of the debug kernel's checks (without DEBUG_ATOMIC_SLEEP and"
	echo "lockdep, \`cond_resched()\` does no such check), and every design pays it"
	echo "alike, so it stays in the shared code; a kernel without the debug options"
	echo "shows what a bucket costs there."
	echo
}

{
	cat "$docs/BENCHMARKS.head.md"
	echo
	empty_section
	echo "## Goals, computed from this run"
	echo
	goals
	echo
	if [ "$(wc -l < "$res/udp.csv")" -gt 1 ]; then
		echo "### UDP walk: every design against whole-host"
		echo
		echo "The same worlds' connected UDP sockets (S per namespace, plus 10"
		echo "unconnected backends). UDP has no separate listening table: a namespace"
		echo "with its own UDP table keeps all its UDP sockets there, so chained-conn"
		echo "has nothing to add and is not run."
		echo
		udp_goals
		echo
	fi
	echo "## Kernel counters against the cost model"
	echo
	if [ -n "$B" ] && [ -n "$L" ] && [ -n "$b" ] &&
	   awk -F, -v c="$(col kernel_buckets)" 'NR > 1 && $c != "" { f = 1 } END { exit !f }' "$csv"; then
		echo "Walk workload. Buckets and sockets the kernel walked, from"
		echo "CONFIG_SOCK_WALK_STATS, against the model's bucket count, with this"
		echo "guest's B = $B, L = $L and b = $b; and the sockets walked against the"
		echo "sockets handed to the program."
		echo
		echo "| tables | M | S | design | buckets walked | model | walked / model | sockets walked | sockets handed | walked / handed |"
		echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
		counters
	else
		echo "Not measured: the kernel had no CONFIG_SOCK_WALK_STATS, or the table sizes were not recorded."
	fi
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
		echo "| tables | M | S | design | wall ms | spread | sys ms | x global | x chained | sockets | syscalls | k buckets | k sockets |"
		echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
		table "$w"
	done
	if [ "$(wc -l < "$res/udp.csv")" -gt 1 ]; then
		for w in walk reap1 reap10; do
			echo
			echo "## udp $w"
			echo
			echo "| tables | M | S | design | wall ms | spread | sys ms | x global | x chained | sockets | syscalls | k buckets | k sockets |"
			echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
			csv=$res/udp.csv table "$w"
		done
	fi
	echo
	echo "## Plots"
	echo
	for p in "$docs"/bench/*.png; do
		echo "![$(basename "$p" .png)](bench/$(basename "$p"))"
	done
} > "$docs/BENCHMARKS.md"
cp "$all" "$docs/bench/results.csv"
for f in empty.csv profile-empty-tcp.txt; do
	if [ -s "$res/$f" ]; then cp "$res/$f" "$docs/bench/"; fi
done
cp "$res/guest.txt" "$res/world.txt" "$docs/bench/" 2>/dev/null || true
echo "wrote $docs/BENCHMARKS.md"
