#!/usr/bin/env bash
# bench/report.sh [--no-plots] RESULTS DOCS [README]: the plots,
# DOCS/BENCHMARKS.md and README's headline from the CSV that netns-bench
# wrote.  Every figure in the generated text is computed here from the CSV;
# DOCS/BENCHMARKS.head.md, copied first, states none.  With README, the
# block between its "bench-headline" markers is rewritten.  --no-plots
# leaves the plots as they are (tests/host/050-bench-report.bats checks the
# committed documents this way).  Plots need gnuplot (scripts/packages.txt).
set -euo pipefail
plots=1
[ "${1:-}" = --no-plots ] && { plots=0; shift; }
res=$1 docs=$2 readme=${3:-}
csv=$res/results.csv
[ -s "$csv" ] || { echo "Error: no $csv: run make bench" >&2; exit 1; }
for c in tables m s design workload reps wall_ms_median wall_ms_iqr wall_ms_p25 \
	 wall_ms_p75 sys_ms_median ratio_vs_global ratio_vs_chained sockets_seen \
	 syscalls kernel_allocs kernel_pages kernel_buckets kernel_sockets proto scope; do
	head -n1 "$csv" | tr ',' '\n' | grep -qx "$c" ||
		{ echo "Error: $csv has no column $c: it comes from an older netns-bench; run make bench" >&2; exit 1; }
done
mkdir -p "$docs/bench"

# The TCP rows and the UDP rows, each with the header.
all=$csv
split_proto() { # PROTO OUT
	awk -F, -v p="$1" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; print; next }
		$h["proto"] == p' "$all" > "$2"
}
split_proto tcp "$res/tcp.csv"
split_proto udp "$res/udp.csv"
csv=$res/tcp.csv

# Every awk program below starts with this: h[NAME] is the column of NAME.
HDR='NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }'
# count(N): a socket count as 100, 10k or 1M, for the scale section.
COUNT='
function count(n) {
	return n >= 1e6 && n % 1e6 == 0 ? (n / 1e6) "M" : n >= 1000 && n % 1000 == 0 ? (n / 1000) "k" : n
}
'

# col NAME: the column number of NAME in the CSV header.
col() { head -n1 "$csv" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }

designs="setns netns-arg chained chained-conn global global-conn sock_diag"

# plot_walk TABLES FIX VALUE X XLABEL PNG: walk time against column X, one
# line per design, for the points of TABLES whose column FIX is VALUE, from
# $csv; PROTO names the protocol in the title.
plot_walk() {
	local t=$1 fix=$2 val=$3 x=$4 xlabel=$5 png=$6 d dat cmd="" sep=""
	for d in $designs; do
		dat=$res/$t-$fix$val-$d.dat
		awk -F, -v t="$t" -v d="$d" -v v="$val" -v fix="$fix" -v x="$x" "$HDR"'
			$h["tables"] == t && $h["workload"] == "walk" && $h["design"] == d && $h[fix] == v {
				print $h[x], $h["wall_ms_median"], $h["wall_ms_p25"], $h["wall_ms_p75"] }' \
			"$csv" > "$dat"
		[ -s "$dat" ] || continue
		cmd+="$sep'$dat' using 1:2:3:4 with yerrorlines title '$d'"
		sep=", "
	done
	[ -n "$cmd" ] || return 0
	gnuplot <<-GP
		set terminal png size 800,500 noenhanced
		set output '$png'
		set title 'walk, ${PROTO:-tcp}, $t tables, ${fix^^}=$val (median, bars: quartiles)'
		set xlabel '$xlabel'
		set ylabel 'wall time, ms'
		set logscale xy
		set key left top
		plot $cmd
	GP
}

if [ "$plots" = 1 ]; then
	plot_walk shared s 10 m 'namespaces (M)' "$docs/bench/walk-shared-s10.png"
	plot_walk child s 10 m 'namespaces (M)' "$docs/bench/walk-child-s10.png"
	plot_walk shared s 100 m 'namespaces (M)' "$docs/bench/walk-shared-s100.png"
	plot_walk child s 100 m 'namespaces (M)' "$docs/bench/walk-child-s100.png"
	plot_walk shared m 16 s 'sockets per namespace (S)' "$docs/bench/walk-vs-s-shared-m16.png"
	plot_walk child m 16 s 'sockets per namespace (S)' "$docs/bench/walk-vs-s-child-m16.png"
	csv=$res/udp.csv PROTO=udp plot_walk shared s 10 m 'namespaces (M)' "$docs/bench/walk-udp-shared-s10.png"
	csv=$res/udp.csv PROTO=udp plot_walk child s 10 m 'namespaces (M)' "$docs/bench/walk-udp-child-s10.png"
fi

table() { # WORKLOAD: markdown table of every point for WORKLOAD
	awk -F, -v w="$1" "$HDR"'
		$h["workload"] == w {
			printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				$h["tables"], $h["m"], $h["s"], $h["design"],
				$h["wall_ms_median"], $h["wall_ms_iqr"], $h["sys_ms_median"],
				$h["ratio_vs_global"], $h["ratio_vs_chained"], $h["sockets_seen"],
				$h["syscalls"], $h["kernel_allocs"], $h["kernel_pages"],
				$h["kernel_buckets"], $h["kernel_sockets"] }' "$csv"
}

# The guest's table sizes: B (shared established hash), L (shared
# listening hash), b (the child namespaces' established hash).
B=$(awk '/tcp_ehash_entries/ { print $NF }' "$res/guest.txt" 2>/dev/null || true)
L=$(awk '/tcp_listen_portaddr_hash/ { print $NF }' "$res/guest.txt" 2>/dev/null || true)
b=$(awk '/child_ehash_entries/ { print $NF }' "$res/world.txt" 2>/dev/null || true)
# accel GUEST_TXT: the QEMU accelerator a bench guest ran under
# (tests/vm/run puts it on the kernel command line).
accel() {
	local a
	a=$(sed -n 's/^netns_iter\.accel=//p' "$1" 2>/dev/null | tr a-z A-Z || true)
	echo "${a:-QEMU}"
}
accel=$(accel "$res/guest.txt")

# Loads every row of a CSV into wall[], iqr[], calls[], allocs[], seen[] and
# kb[], keyed by tables, m, s, design, workload (SUBSEP); pts[1..npts] are
# the points (tables, m, s) in CSV order.
LOAD="$HDR"'
{
	k = $h["tables"] SUBSEP $h["m"] SUBSEP $h["s"]
	key = k SUBSEP $h["design"] SUBSEP $h["workload"]
	wall[key] = $h["wall_ms_median"]; iqr[key] = $h["wall_ms_iqr"]
	calls[key] = $h["syscalls"]; allocs[key] = $h["kernel_allocs"]
	seen[key] = $h["sockets_seen"]; kb[key] = $h["kernel_buckets"]
	if (!(k in seenpt)) { seenpt[k] = 1; pts[++npts] = k }
	rows[++nrows] = key
}'

# goals: the project's goals, each computed from the TCP rows.
goals() {
	awk -F, "$LOAD"'
	END {
		for (i = 1; i <= npts; i++) {
			split(pts[i], p, SUBSEP)
			if (p[1] == "child" && p[2] > maxm) maxm = p[2]
		}
		print "### Chained against whole-host on child tables, at the largest M (goal: 1.2x)"
		print ""
		print "Both walk every socket. The last column sets the two walks of connected"
		print "sockets only against each other, like for like (see \"Connected sockets"
		print "only\" below)."
		print ""
		print "| workload | M | S | whole-host ms (IQR) | chained ms (IQR) | chained / whole-host | goal | chained-conn / global-conn |"
		print "| --- | --- | --- | --- | --- | --- | --- | --- |"
		for (i = 1; i <= nrows; i++) {
			split(rows[i], x, SUBSEP)
			if (x[1] != "child" || x[2] != maxm || x[4] != "global") continue
			pw = x[1] SUBSEP x[2] SUBSEP x[3]
			g = wall[rows[i]]
			ck = pw SUBSEP "chained" SUBSEP x[5]
			c = wall[ck]
			gc = wall[pw SUBSEP "global-conn" SUBSEP x[5]]
			cc = gc ? sprintf("%.2fx", wall[pw SUBSEP "chained-conn" SUBSEP x[5]] / gc) : "-"
			printf "| %s | %d | %d | %.1f (%.1f) | %.1f (%.1f) | %.2fx | %s | %s |\n",
				x[5], x[2], x[3], g, iqr[rows[i]], c, iqr[ck], c / g,
				c / g <= 1.2 ? "met" : sprintf("missed by %.2fx", c / g / 1.2), cc
		}
		print ""
		print "### Chained against the setns loop, every point and workload (goal: never slower)"
		print ""
		worst = 1e9; best = 0; slower = 0; n = 0
		for (i = 1; i <= nrows; i++) {
			split(rows[i], x, SUBSEP)
			if (x[4] != "chained") continue
			sk = x[1] SUBSEP x[2] SUBSEP x[3] SUBSEP "setns" SUBSEP x[5]
			r = wall[sk] / wall[rows[i]]; n++
			at = x[1] " M=" x[2] " S=" x[3] " " x[5]
			if (r < 1) { slower++; sl[x[1]]++ }
			if (r < worst) { worst = r; where = at }
			if (r > best) { best = r; bwhere = at }
		}
		printf "The chained walk is slower than setns in %d of %d cases (%d on shared tables, %d on child tables). setns / chained ranges from %.2fx (%s) to %.2fx (%s).\n\n",
			slower, n, sl["shared"], sl["child"], worst, where, best, bwhere
		print "Per namespace (M pods and the host), walk: what the chained walk saves,"
		print "with the syscalls and slab allocations the kernel counted."
		print ""
		print "| tables | M | S | setns us/netns | chained us/netns | saved us/netns | setns syscalls/netns | chained syscalls | setns allocs/netns | chained allocs/netns |"
		print "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
		for (i = 1; i <= npts; i++) {
			split(pts[i], p, SUBSEP)
			if (p[3] != 10) continue
			sk = pts[i] SUBSEP "setns" SUBSEP "walk"
			ck = pts[i] SUBSEP "chained" SUBSEP "walk"
			s = wall[sk] * 1000 / (p[2] + 1)
			c = wall[ck] * 1000 / (p[2] + 1)
			printf "| %s | %d | %d | %.0f | %.0f | %.0f | %.1f | %d | %.1f | %.1f |\n", p[1], p[2], p[3], s, c, s - c,
				calls[sk] / (p[2] + 1), calls[ck], allocs[sk] / (p[2] + 1), allocs[ck] / (p[2] + 1)
		}
		print ""
		print "### Shared tables: per-namespace designs against whole-host"
		print ""
		print "Every per-namespace design walks the whole shared table once per"
		print "namespace, M + 1 times in all; the whole-host walk once. The last"
		print "columns divide by M + 1: 1.00 would be a time exactly proportional to"
		print "the walks made."
		print ""
		print "| M | S | setns / global | netns-arg / global | sock_diag / global | chained / global | setns / global / (M+1) | chained / global / (M+1) |"
		print "| --- | --- | --- | --- | --- | --- | --- | --- |"
		lo = 1e9; hi = 0
		for (i = 1; i <= npts; i++) {
			split(pts[i], p, SUBSEP)
			if (p[1] != "shared") continue
			g = wall[pts[i] SUBSEP "global" SUBSEP "walk"]
			s = wall[pts[i] SUBSEP "setns" SUBSEP "walk"] / g
			c = wall[pts[i] SUBSEP "chained" SUBSEP "walk"] / g
			printf "| %d | %d | %.1fx | %.1fx | %.1fx | %.1fx | %.2f | %.2f |\n", p[2], p[3], s,
				wall[pts[i] SUBSEP "netns-arg" SUBSEP "walk"] / g,
				wall[pts[i] SUBSEP "sock_diag" SUBSEP "walk"] / g, c,
				s / (p[2] + 1), c / (p[2] + 1)
			if (p[2] < 16) continue
			if (c / (p[2] + 1) < lo) { lo = c / (p[2] + 1); lw = "M=" p[2] " S=" p[3] }
			if (c / (p[2] + 1) > hi) { hi = c / (p[2] + 1); hw = "M=" p[2] " S=" p[3] }
		}
		if (hi > 0) {
			printf "\nFrom M = 16 on, the chained walk takes %.2f (%s) to %.2f (%s) times M + 1 whole-host walks", lo, lw, hi, hw
			if (hi < 0.8)
				print ": less than the number of walks says, since a per-namespace walk runs the program on its own sockets only and steps over the others."
			else if (lo > 1.25)
				print ": more than the number of walks says."
			else
				print "."
		}
		print ""
		print "### Reaping 10 backends against 1, one pass (goal: at most 1.5x)"
		print ""
		print "Buckets are the kernel counter, chained, reap10 over reap1: 1.00 is one pass for both."
		print "The added ms are reap10 minus reap1: what destroying nine backends more costs."
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

# connected: the two designs that hand in connected TCP sockets only, the
# chained walk with BPF_ITER_NETNS_SOCK_SKIP_LISTEN and the whole-host walk
# with BPF_SOCK_ITER_SKIP_LISTEN, at every point and workload.
connected() {
	awk -F, "$LOAD"'
	END {
		print "| tables | M | S | workload | global-conn ms (IQR) | chained-conn ms (IQR) | chained-conn / global-conn | global-conn / global | chained-conn / chained |"
		print "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
		lo = 1e9; hi = 0
		for (i = 1; i <= nrows; i++) {
			split(rows[i], x, SUBSEP)
			if (x[4] != "chained-conn") continue
			pw = x[1] SUBSEP x[2] SUBSEP x[3]
			gk = pw SUBSEP "global-conn" SUBSEP x[5]
			if (!(gk in wall)) continue
			c = wall[rows[i]]; g = wall[gk]; r = c / g
			printf "| %s | %d | %d | %s | %.1f (%.1f) | %.1f (%.1f) | %.2fx | %.2fx | %.2fx |\n",
				x[1], x[2], x[3], x[5], g, iqr[gk], c, iqr[rows[i]], r,
				g / wall[pw SUBSEP "global" SUBSEP x[5]], c / wall[pw SUBSEP "chained" SUBSEP x[5]]
			n[x[1]]++
			if (r < 1) faster[x[1]]++
			at = x[1] " M=" x[2] " S=" x[3] " " x[5]
			if (r < lo) { lo = r; lw = at }
			if (r > hi) { hi = r; hw = at }
		}
		if (hi > 0)
			printf "\nchained-conn is faster than global-conn in %d of %d cases on shared tables and %d of %d on child tables; chained-conn / global-conn ranges from %.2fx (%s) to %.2fx (%s).\n",
				faster["shared"], n["shared"], faster["child"], n["child"], lo, lw, hi, hw
	}' "$csv"
}

# winners: which design of every socket is fastest where, per protocol,
# tables and workload; and each against whole-host.
winners() {
	awk -F, "$HDR"'
	$h["scope"] == "all" {
		g = $h["tables"] SUBSEP $h["proto"] SUBSEP $h["workload"]
		pt = g SUBSEP $h["m"] SUBSEP $h["s"]
		if (!(g in ng)) { ng[g] = 0; groups[++ngroups] = g }
		if (!(pt in best)) { best[pt] = 1e18; npt[g]++ }
		if ($h["wall_ms_median"] < best[pt]) { best[pt] = $h["wall_ms_median"]; who[pt] = $h["design"] }
		pts[pt] = g
		r = $h["ratio_vs_global"]; d = g SUBSEP $h["design"]
		if (!(d in lo) || r < lo[d]) lo[d] = r
		if (!(d in hi) || r > hi[d]) hi[d] = r
	}
	END {
		for (pt in pts) wins[pts[pt] SUBSEP who[pt]]++
		print "| tables | proto | workload | points | fastest at (points) | setns / whole-host | netns-arg / whole-host | chained / whole-host | sock_diag / whole-host |"
		print "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
		split("global chained setns netns-arg sock_diag", ds, " ")
		for (i = 1; i <= ngroups; i++) {
			g = groups[i]; split(g, x, SUBSEP); f = ""
			for (j = 1; j <= 5; j++)
				if ((g SUBSEP ds[j]) in wins)
					f = f (f == "" ? "" : ", ") ds[j] " " wins[g SUBSEP ds[j]]
			printf "| %s | %s | %s | %d | %s |", x[1], x[2], x[3], npt[g], f
			split("setns netns-arg chained sock_diag", rs, " ")
			for (j = 1; j <= 4; j++)
				printf " %.2fx to %.2fx |", lo[g SUBSEP rs[j]], hi[g SUBSEP rs[j]]
			print ""
		}
	}' "$all"
}

# udp_goals: the UDP walk of every design against whole-host and setns.
udp_goals() {
	awk -F, "$LOAD"'
	END {
		slower = 0; n = 0
		for (i = 1; i <= nrows; i++) {
			split(rows[i], x, SUBSEP)
			if (x[4] != "chained") continue
			sk = x[1] SUBSEP x[2] SUBSEP x[3] SUBSEP "setns" SUBSEP x[5]
			r = wall[sk] / wall[rows[i]]; n++
			if (r >= 1) continue
			slower++; sl[x[1]]++
			list = list sprintf("%s %s M=%d S=%d (%.2fx: setns %.1f ms, IQR %.1f; chained %.1f ms, IQR %.1f); ",
				x[5], x[1], x[2], x[3], r, wall[sk], iqr[sk], wall[rows[i]], iqr[rows[i]])
		}
		printf "Chained against setns, every UDP point and workload (goal: never slower): slower in %d of %d cases (%d on shared tables, %d on child tables)", slower, n, sl["shared"], sl["child"]
		if (slower) printf ": %s", list
		print ""
		print ""
		print "| tables | M | S | setns / whole-host | netns-arg / whole-host | chained / whole-host | sock_diag / whole-host | setns / chained |"
		print "| --- | --- | --- | --- | --- | --- | --- | --- |"
		for (i = 1; i <= npts; i++) {
			split(pts[i], p, SUBSEP)
			g = wall[pts[i] SUBSEP "global" SUBSEP "walk"]
			c = wall[pts[i] SUBSEP "chained" SUBSEP "walk"]
			s = wall[pts[i] SUBSEP "setns" SUBSEP "walk"]
			printf "| %s | %d | %d | %.2fx | %.2fx | %.2fx | %.2fx | %.2fx |\n", p[1], p[2], p[3],
				s / g, wall[pts[i] SUBSEP "netns-arg" SUBSEP "walk"] / g,
				c / g, wall[pts[i] SUBSEP "sock_diag" SUBSEP "walk"] / g, s / c
		}
	}' "$res/udp.csv"
}

# allocations: the slab objects the kernel allocated for the driver's
# thread during one walk, against the sockets handed to the program.
allocations() {
	awk -F, "$HDR"'
	$h["workload"] == "walk" {
		k = $h["proto"] SUBSEP $h["tables"] SUBSEP $h["m"] SUBSEP $h["s"]
		if (!(k in seenpt)) { seenpt[k] = 1; pts[++npts] = k }
		a[k SUBSEP $h["design"]] = $h["kernel_allocs"]
		g = $h["proto"] SUBSEP $h["tables"] SUBSEP $h["m"] SUBSEP $h["design"]
		if (!(g in smin) || $h["s"] < smin[g]) { smin[g] = $h["s"]; amin[g] = $h["kernel_allocs"] }
		if (!(g in smax) || $h["s"] > smax[g]) { smax[g] = $h["s"]; amax[g] = $h["kernel_allocs"] }
	}
	END {
		print "| proto | tables | M | S | setns | netns-arg | chained | chained-conn | global | global-conn | sock_diag |"
		print "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
		split("setns netns-arg chained chained-conn global global-conn sock_diag", ds, " ")
		for (i = 1; i <= 2 * npts; i++) {
			k = pts[(i - 1) % npts + 1]
			split(k, p, SUBSEP)
			if (p[1] != (i <= npts ? "tcp" : "udp")) continue
			printf "| %s | %s | %d | %d |", p[1], p[2], p[3], p[4]
			for (j = 1; j <= 7; j++)
				printf " %s |", ((k SUBSEP ds[j]) in a) ? a[k SUBSEP ds[j]] : "-"
			print ""
		}
		# growth with S at the same protocol, tables, M and design
		for (g in smin) {
			if (smax[g] == smin[g]) continue
			split(g, x, SUBSEP)
			r = amax[g] / (amin[g] ? amin[g] : 1)
			at = sprintf("%s, %s %s M=%d: %d allocations at S=%d, %d at S=%d", x[4], x[1], x[2], x[3],
				amin[g], smin[g], amax[g], smax[g])
			if (x[4] == "sock_diag") { if (r > dr) { dr = r; dw = at } }
			else if (r > br) { br = r; bw = at }
		}
		printf "\nAt the same protocol, tables and M, from the fewest sockets per namespace to the most, a BPF walk'"'"'s allocations grow at most %.2fx (%s); sock_diag'"'"'s, which allocates a netlink message per batch of sockets, up to %.2fx (%s).\n", br, bw, dr, dw
	}' "$all"
}

# counters: the kernel's bucket and socket counts of each walk against the
# cost model's bucket count (M pods and the host, n = M + 1):
#   whole-host      shared: L + B              child: L + B + M b
#   global-conn     shared: B                  child: B + M b
#   chained-conn    shared: n B                child: B + M b
#   every other     shared: n (L + B)          child: n L + B + M b
counters() {
	awk -F, -v B="$B" -v L="$L" -v b="$b" "$HDR"'
	$h["workload"] == "walk" && $h["kernel_buckets"] != "" {
		m = $h["m"]; n = m + 1
		if ($h["design"] == "global")
			model = L + B + ($h["tables"] == "child" ? m * b : 0)
		else if ($h["design"] == "global-conn")
			model = B + ($h["tables"] == "child" ? m * b : 0)
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

# pick NAME: RESULTS/NAME if this run wrote it, else the committed
# DOCS/bench/NAME (a run of one make target keeps the others' results).
pick() {
	if [ -s "$res/$1" ]; then echo "$res/$1"; else echo "$docs/bench/$1"; fi
}

# guest_of NAME: the guest that make bench-* target recorded as NAME, or
# the matrix's if it recorded none.
guest_of() {
	local g
	g=$(pick "$1")
	[ -s "$g" ] || g=$res/guest.txt
	echo "$g"
}

# empty_section: the empty world's cost per bucket (netns-bench --empty),
# with the profile of the TCP walk when it was recorded.
empty_section() {
	local e
	e=$(pick empty.csv)
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
	echo "listening hash cancel out (its IQR is the sum of the two runs'). x arg is"
	echo "the cost against \`iter/tcp\` or \`iter/udp\` with the netns argument."
	echo
	echo "| tables | M | proto | design | ms | IQR | buckets | ns / bucket | x arg |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	awk -F, "$HDR"'
		{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %.2f |\n", $h["tables"], $h["m"],
			$h["proto"], $h["design"], $h["wall_ms_median"],
			("wall_ms_iqr" in h) ? $h["wall_ms_iqr"] : $h["wall_ms_spread"],
			$h["buckets"], $h["ns_per_bucket"], $h["ratio_vs_netns_arg"] }' "$e"
	echo
	echo "Each line compares designs that hand their program the same sockets"
	echo "(chained-conn and global-conn skip the listening hash). A time within its"
	echo "IQR is noise, and then no cost per bucket is stated."
	echo
	awk -F, "$HDR"'
		{ k = $h["tables"] " " $h["proto"] ($h["design"] ~ /-conn$/ ? ", connected only" : ", every socket")
		  v = $h["ns_per_bucket"]
		  q = ("wall_ms_iqr" in h) ? $h["wall_ms_iqr"] : $h["wall_ms_spread"]
		  if ($h["wall_ms_median"] + 0 <= q + 0) { noise[k] = noise[k] " " $h["design"] }
		  nd[k]++
		  if (!(k in lo) || v < lo[k]) { lo[k] = v; ld[k] = $h["design"] }
		  if (!(k in hi) || v > hi[k]) { hi[k] = v; hd[k] = $h["design"] }
		  if (!(k in seen)) { seen[k] = 1; keys[++n] = k } }
		END { for (i = 1; i <= n; i++) { k = keys[i]
			if (nd[k] < 2) {
				printf "- %s: %s only, nothing to compare\n", k, ld[k]
				continue
			}
			if (k in noise) {
				printf "- %s: not resolved, the time is within its IQR for%s\n", k, noise[k]
				continue
			}
			r = hi[k] / lo[k]; goal = ""
			if (index(k, "tcp")) goal = r <= 1.25 ? ": within the 1.25x goal" : ": over the 1.25x goal"
			printf "- %s: from %.1f ns (%s) to %.1f ns (%s) a bucket, %.2fx%s\n", k,
				lo[k], ld[k], hi[k], hd[k], r, goal } }' "$e"
	echo
	echo "The shared UDP table is small (udp_hash_entries), so its rows measure mostly"
	echo "what a walk costs per namespace (setns, link and iterator set-up), not per"
	echo "bucket; the child rows are the difference of two runs, per bucket"
	echo "added. Every design runs the same"
	echo "batching code of \`iter/tcp\` and \`iter/udp\` (the chained walk through"
	echo "\`bpf_tcp_sock_walk_*()\` and \`bpf_udp_sock_walk_*()\`). The profile of the"
	echo "guest during a TCP empty-world run (\`perf record -e cpu-clock -a -g\`,"
	echo "kernel samples of netns-bench: the functions with the most samples of"
	echo "their own, then the walk's functions with their callees' samples):"
	echo
	echo '```'
	cat "$res/profile-empty-tcp.txt" 2>/dev/null || cat "$docs/bench/profile-empty-tcp.txt" 2>/dev/null ||
		echo "(not recorded)"
	echo '```'
	echo
}

# fixed_section: what a namespace costs each design and in memory
# (netns-bench --fixed), when it was measured.
fixed_section() {
	local f m
	f=$(pick fixed.csv) m=$(pick memory.csv)
	[ -s "$f" ] || [ -s "$m" ] || return 0
	echo "## What a namespace costs"
	echo
	echo "\`netns-bench --fixed\` (\`make bench-empty\`): M namespaces with no socket"
	echo "and child tables of the smallest size, walked by every design; the time"
	echo "per namespace (M pods and the host), and what one more namespace costs:"
	echo "the time between the smallest and the largest M, over the namespaces"
	echo "added. That is the fixed cost of the setns() loop, of a link per"
	echo "namespace, and of the chained walk's program run and iterator, with"
	echo "no socket to walk. Per-namespace TCP walks also scan the shared"
	echo "listening hash once per namespace, chained-conn excepted; the"
	echo "whole-host walk scans it once, global-conn not at all."
	echo
	[ -s "$f" ] && awk -F, "$HDR"'
	{
		k = $h["proto"] SUBSEP $h["design"]
		if (!(k in lo) || $h["m"] < lo[k]) { lo[k] = $h["m"]; wl[k] = $h["wall_ms_median"] }
		if (!(k in hi) || $h["m"] > hi[k]) { hi[k] = $h["m"]; wh[k] = $h["wall_ms_median"] }
		if (!(k in seen)) { seen[k] = 1; keys[++n] = k }
		us[k SUBSEP $h["m"]] = $h["us_per_netns"]
		iq[k SUBSEP $h["m"]] = $h["wall_ms_iqr"]
		if (!($h["m"] in ms)) { ms[$h["m"]] = 1; mlist[++nm] = $h["m"] }
	}
	END {
		printf "| proto | design |"
		for (i = 1; i <= nm; i++) printf " us/netns at M = %d (IQR ms) |", mlist[i]
		print " us per namespace added |"
		printf "| --- | --- |"
		for (i = 1; i <= nm; i++) printf " --- |"
		print " --- |"
		for (i = 1; i <= n; i++) {
			k = keys[i]; split(k, x, SUBSEP)
			printf "| %s | %s |", x[1], x[2]
			for (j = 1; j <= nm; j++) printf " %.1f (%.2f) |", us[k SUBSEP mlist[j]], iq[k SUBSEP mlist[j]]
			if (hi[k] > lo[k]) printf " %.1f |\n", (wh[k] - wl[k]) * 1000 / (hi[k] - lo[k])
			else print " - |"
		}
	}' "$f"
	echo
	[ -s "$m" ] || return 0
	echo "Memory (\`netns-bench --memory\`, in a guest of its own): namespaces"
	echo "created with the matrix's child tables and as many on the shared tables,"
	echo "all alive at once, before any namespace was freed; what each set took"
	echo "from MemFree, and what it added to Slab, VmallocUsed and Percpu"
	echo "(\`/proc/meminfo\`). kB per namespace is the MemFree share; the kernel's"
	echo "own share is slab, vmalloc and per-CPU memory together."
	echo
	echo "| tables | M | tcp_child_ehash_entries | udp_child_hash_entries | MemFree kB | slab kB | vmalloc kB | percpu kB | kB per namespace |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	awk -F, "$HDR"'
	{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $h["tables"], $h["m"], $h["ehash_entries"],
		$h["udp_hash_entries"], $h["memfree_kb"], $h["slab_kb"], $h["vmalloc_kb"], $h["percpu_kb"], $h["kb_per_netns"]
	  kb[$h["tables"]] = $h["kb_per_netns"]
	  k[$h["tables"]] = ($h["slab_kb"] + $h["vmalloc_kb"] + $h["percpu_kb"]) / $h["m"]
	  if ($h["tables"] == "child") { e = $h["ehash_entries"]; u = $h["udp_hash_entries"] } }
	END { if ("child" in kb && "shared" in kb) {
		d = kb["child"] - kb["shared"]; dk = k["child"] - k["shared"]
		printf "\nChild tables of %d TCP and %d UDP entries cost %.1f kB per namespace %s than the shared tables from MemFree, %.1f kB %s of slab, vmalloc and per-CPU memory.\n",
			e, u, d < 0 ? -d : d, d < 0 ? "less" : "more", dk < 0 ? -dk : dk, dk < 0 ? "less" : "more" } }' "$m"
	echo
}

# guest_sysctl FILE NAME: the value of sysctl NAME that guest_info recorded
# in FILE, or nothing.
guest_sysctl() {
	sed -n "s/^${2//./\\.} = //p" "$1"
}

# scale_tables FILE: the shared tables the --scale guest booted with, from
# the sysctls guest_info recorded; the sizes of a host of 128 GB or more
# when they are the kernel's caps (alloc_large_system_hash() gives the TCP
# established hash a slot per 128 KB up to 2^19, UDP's one per 2 MB up to
# 2^16).
scale_tables() {
	local t u
	t=$(guest_sysctl "$1" net.ipv4.tcp_ehash_entries)
	u=$(guest_sysctl "$1" net.ipv4.udp_hash_entries)
	[ -n "$t" ] && [ -n "$u" ] || return 0
	printf 'The shared tables had %s TCP established and %s UDP slots' "$t" "$u"
	if [ "$t" = 524288 ] && [ "$u" = 65536 ]; then
		printf ', the sizes a host of 128 GB or more boots with (the guest booted with\n`thash_entries` and `uhash_entries` set to them; its own memory would give\n%s)' "$(awk '/^MemTotal:/ {
			for (t = 1; t < $2 / 128; t *= 2); for (u = 1; u < $2 / 2048; u *= 2);
			printf "%d and %d", t, u }' "$1")"
	fi
	printf '.'
}

# scale_section: the RFC's table (netns-bench --scale, make bench-scale)
# beside the RFC's own numbers (docs/bench/rfc.csv, quoted from the RFC).
scale_section() {
	local sc rfc destroyed slots gs
	sc=$(pick scale.csv) rfc=$(pick rfc.csv)
	[ -s "$sc" ] || return 0
	destroyed=$(awk -F, "$HDR"' { print $h["destroyed"]; exit }' "$sc")
	slots=$(awk -F, "$HDR"' $h["design"] == "index" { v[$h["index_slots"]] = 1 }
		END { for (x in v) s = s (s == "" ? "" : " or ") x; print s }' "$sc")
	gs=$(guest_of guest-scale.txt)
	echo "## The RFC's table, reproduced"
	echo
	echo "Jordan Rife's RFC \"bpf: Efficient socket destruction\" (bpf-next,"
	echo "2025-09-09) timed the per-namespace walk over 100 namespaces on bare"
	echo "metal, destroying 1 to 5 sockets a trial, UDP, for 100 to 1M host"
	echo "sockets, against its proposal, a sockhash bucket of the sockets to"
	echo "destroy (\`docs/bench/rfc.csv\`). \`make bench-scale\` (\`netns-bench"
	echo "--scale\`) builds the same world: 100 namespaces holding N sockets of one"
	echo "protocol in all (TCP: clients and accepted peers, plus two listeners a"
	echo "namespace), on shared and on child tables, and each trial destroys the"
	echo "$destroyed clients of a stale backend, one in each of $destroyed namespaces, with"
	echo "every design. The stale backend has an address of its own (127.0.0.2;"
	echo "every other client talks to 127.0.0.1), as a load balancer's backends"
	echo "have. Ours run under $(accel "$gs"), so compare shapes (each time over its"
	echo "own time at N = 10k) and ratios, not absolute times. $(scale_tables "$gs") The RFC's"
	echo "per-namespace walk is the setns loop. Its sockhash is looked up, not"
	echo "walked; the design here that is like it is the index (\`netns-reap index"
	echo "start\`, \`bpf/index.bpf.c\`): hash maps that BPF programs on the connect"
	echo "and close paths keep, keyed by remote address, and one run of a"
	echo "\`SEC(\"syscall\")\` program (\`reap_index\` in \`bpf/reap.bpf.c\`) that looks"
	echo "each entry of the stale address up by its tuple in its namespace and"
	echo "destroys it. The entries it reads are the window of that address: every"
	echo "position, all ports and both protocols, since the address last had no"
	echo "socket (at most 2^20); the stale backend here had $slots at every point. A"
	echo "backend address that shares its window with many sockets (other ports,"
	echo "churn while one socket stays) costs the index that many lookups. The"
	echo "index is running for the whole run, so every design's destroys pay its"
	echo "hooks (TCP: the \`inet_sock_set_state\` tracepoint; UDP: the"
	echo "\`__udp_disconnect\` kprobe, which \`udp_abort()\` reaches). Only the index"
	echo "reads it. Its time is one program run: no namespace is walked."
	echo "diag-tuple is its control: for each socket to destroy, \`setns()\` into its"
	echo "namespace and one \`SOCK_DESTROY\` naming its tuple, which the driver"
	echo "already knows: the kernel's own lookup and destroy of the same sockets,"
	echo "with no BPF, as an agent keeping its index in user space would do. Both"
	echo "grow with N although neither does more lookups or destroys; how much of that is the"
	echo "lookup and destroy they share, the index's maps (which hold every"
	echo "connected socket of the host) or what touching memory costs a larger"
	echo "guest under $(accel "$gs") is not measured here. \"-\" marks the points"
	echo "where a design did not run: on shared tables above 100k sockets each"
	echo "per-namespace walk would visit every socket of the host once per"
	echo "namespace, so only the whole-host walks, the index and its control run"
	echo "there."
	echo
	awk -F, -v rfc="$rfc" "$COUNT$HDR"'
	BEGIN { while ((getline l < rfc) > 0) { split(l, x, ","); if (x[1] + 0 > 0) { r[x[1]] = x[2]; if (x[3] != "") sh[x[1]] = x[3] } } }
	{
		g = $h["tables"] SUBSEP $h["proto"]
		if (!(g in seen)) { seen[g] = 1; groups[++ng] = g }
		k = g SUBSEP $h["n"]
		if (!(k in seenn)) { seenn[k] = 1; ns[g, ++nn[g]] = $h["n"] }
		if ($h["n"] + 0 > top[g]) top[g] = $h["n"] + 0
		w[k SUBSEP $h["design"]] = $h["wall_ms_median"]
		q[k SUBSEP $h["design"]] = $h["wall_ms_iqr"]
		wmin[k SUBSEP $h["design"]] = $h["wall_ms_min"]
		wmax[k SUBSEP $h["design"]] = $h["wall_ms_max"]
		sl[k SUBSEP $h["design"]] = $h["index_slots"]
		if ($h["design"] == "setns" && $h["n"] + 0 > stop[g]) stop[g] = $h["n"] + 0
		reps = $h["reps"]
	}
	# ms: a time to a tenth of a microsecond below 0.1 ms
	function ms(v) { return v < 0.1 ? sprintf("%.4f", v) : v < 1 ? sprintf("%.3f", v) : v < 10 ? sprintf("%.2f", v) : sprintf("%.1f", v) }
	# cell: design d at point k, its median and IQR; "-" if it did not run
	function cell(k, d) { return (k SUBSEP d) in w ? sprintf("%s (%s)", ms(w[k SUBSEP d]), ms(q[k SUBSEP d])) : "-" }
	# diag-tuple at point k over point b, or why not
	function dt(b, k) { return (b SUBSEP "diag-tuple") in w && (k SUBSEP "diag-tuple") in w ? sprintf("%.2fx", w[k SUBSEP "diag-tuple"] / w[b SUBSEP "diag-tuple"]) : "did not run" }
	function ratio(k, a, b,   v) {
		if (!((k SUBSEP a) in w) || !w[k SUBSEP b]) return "-"
		v = w[k SUBSEP a] / w[k SUBSEP b]
		return v < 0.01 ? sprintf("%.2gx", v) : sprintf("%.2fx", v)
	}
	END {
		for (i = 1; i <= ng; i++) {
			split(groups[i], x, SUBSEP); g = groups[i]
			conn = x[2] == "tcp" ? "global-conn" : "global"
			printf "### %s, %s tables (median of %d trials, ms; IQR in brackets)\n\n", toupper(x[2]), x[1], reps
			printf "| N | RFC per-netns ms | RFC / RFC at 10k | RFC sockhash ms | setns | setns / setns at 10k | netns-arg | chained |"
			if (x[2] == "tcp") printf " chained-conn |"
			printf " global |"
			if (x[2] == "tcp") printf " global-conn |"
			printf " sock_diag | index | diag-tuple | setns / global | chained / global |"
			if (x[2] == "tcp") printf " chained-conn / global-conn |"
			printf " index / %s | index / diag-tuple |", conn
			print ""
			printf "| --- | --- | --- | --- | --- | --- | --- | --- |"
			if (x[2] == "tcp") printf " --- | --- | --- |"
			print " --- | --- | --- | --- | --- | --- | --- | --- |"
			base = w[g SUBSEP 10000 SUBSEP "setns"]
			for (j = 1; j <= nn[g]; j++) {
				n = ns[g, j]; k = g SUBSEP n
				printf "| %d | %s | %s | %s | %s | %s | %s | %s |", n,
					(n in r) ? r[n] : "-", (n in r) ? sprintf("%.2f", r[n] / r[10000]) : "-",
					(n in sh) ? sprintf("%.4f", sh[n] / 1000) : "-",
					cell(k, "setns"),
					base && (k SUBSEP "setns") in w ? sprintf("%.2f", w[k SUBSEP "setns"] / base) : "-",
					cell(k, "netns-arg"), cell(k, "chained")
				if (x[2] == "tcp") printf " %s |", cell(k, "chained-conn")
				printf " %s |", cell(k, "global")
				if (x[2] == "tcp") printf " %s |", cell(k, "global-conn")
				printf " %s | %s | %s | %s | %s |", cell(k, "sock_diag"), cell(k, "index"),
					cell(k, "diag-tuple"), ratio(k, "setns", "global"), ratio(k, "chained", "global")
				if (x[2] == "tcp") printf " %s |", ratio(k, "chained-conn", "global-conn")
				printf " %s | %s |", ratio(k, "index", conn), ratio(k, "index", "diag-tuple")
				print ""
			}
			print ""
			# the shape: from 10k to the largest N the setns loop ran at,
			# beside the RFC
			n = stop[g]; k = g SUBSEP n; b = g SUBSEP 10000
			if (n > 10000 && w[b SUBSEP "setns"] && w[b SUBSEP "chained"] && w[b SUBSEP "global"] &&
			    (k SUBSEP "setns") in w && (n in r) && r[10000])
				printf "From N = 10k to %s the RFC'"'"'s per-namespace walk took %.2fx the time; here the setns loop %.2fx, the chained walk %.2fx and the whole-host walk %.2fx.\n\n",
					count(n), r[n] / r[10000], w[k SUBSEP "setns"] / w[b SUBSEP "setns"],
					w[k SUBSEP "chained"] / w[b SUBSEP "chained"],
					w[k SUBSEP "global"] / w[b SUBSEP "global"]
			# the index from 10k to the largest N: the ratio of medians,
			# and the fastest trial at N over the slowest at 10k to the
			# slowest over the fastest, which holds the ratio of the true
			# medians with probability at least 1 - 4 x 2^-trials (each
			# median lies above its sample'"'"'s fastest and below its
			# slowest, each with 1 - 2^-trials)
			n = top[g]; k = g SUBSEP n
			if (n > 10000 && (b SUBSEP "index") in w && (k SUBSEP "index") in w && w[b SUBSEP conn]) {
				gi = w[k SUBSEP "index"] / w[b SUBSEP "index"]
				blo = wmin[k SUBSEP "index"] / wmax[b SUBSEP "index"]
				bhi = wmax[k SUBSEP "index"] / wmin[b SUBSEP "index"]
				printf "%s, %s tables: from N = 10k to %s the index'"'"'s kill took %.2fx the time, %.2fx to %.2fx (the fastest trial at %s over the slowest at 10k, and the slowest over the fastest: an interval with %.1f%% confidence): %s. It read %d window positions at 10k and %d at %s: its work did not change while N grew %dx. The whole-host walk of the same sockets took %s; diag-tuple, the kernel'"'"'s lookup and destroy of the same sockets by tuple without BPF, %s, and the index took %s of diag-tuple'"'"'s time at 10k and %s at %s.\n\n",
					toupper(x[2]), x[1], count(n), gi, blo, bhi, count(n),
					100 * (1 - 4 * 2 ^ -reps),
					(bhi <= 2 ? "within 2x" : blo > 2 ? "more than 2x" : blo > 1 ? "it grew, and whether by more than 2x is inside the noise" : "whether it grew at all is inside the noise"),
					sl[b SUBSEP "index"], sl[k SUBSEP "index"], count(n), n / 10000,
					(x[2] == "tcp" ? sprintf("%.2fx (global-conn) and %.2fx (global)", w[k SUBSEP conn] / w[b SUBSEP conn], w[k SUBSEP "global"] / w[b SUBSEP "global"]) : sprintf("%.2fx", w[k SUBSEP conn] / w[b SUBSEP conn])),
					dt(b, k), ratio(b, "index", "diag-tuple"), ratio(k, "index", "diag-tuple"), count(n)
			}
		}
		lo = 1e18; hi = 0; nlo = 1e18; nhi = 0
		for (n in sh) {
			if (sh[n] + 0 < lo) lo = sh[n] + 0
			if (sh[n] + 0 > hi) hi = sh[n] + 0
			if (n + 0 < nlo) nlo = n + 0
			if (n + 0 > nhi) nhi = n + 0
		}
		if (hi > 0) {
			printf "The RFC'"'"'s sockhash bucket took between %.1f and %.1f us at every N from %s to %s sockets", lo, hi, count(nlo), count(nhi)
			if (sh[nhi] <= 1.5 * sh[nlo])
				printf ": its cost does not grow with N"
			printf ".\n\n"
		}
	}' "$sc"
	scale_cap "$sc"
}

# index_section: what the index costs that the walks do not: every
# connect and close on the host runs its programs (netns-bench --connect,
# connect.csv: one row per repetition, protocol and state, so each "on" is
# paired with the "off" of its repetition), and every connected socket
# takes room in its maps (index.csv, at each --scale point).  The lines
# between the cover-index markers go into the cover letter
# (scripts/mkseries.sh).
index_section() {
	local c i gs
	c=$(pick connect.csv) i=$(pick index.csv)
	[ -s "$c" ] || return 0
	gs=$(guest_of guest-scale.txt)
	echo "## The index's price"
	echo
	echo "The walks cost nothing until they run. The index costs every connect and"
	echo "close on the host: its programs run on those paths whether or not anything"
	echo "is ever reaped. \`make bench-scale\` measures that after the table above, on"
	echo "the bench kernel under $(accel "$gs"): \`netns-bench --connect K\` makes K TCP"
	echo "connections (\`connect()\`, \`accept()\`, an abortive close of both) and then K"
	echo "UDP ones (\`connect()\`, \`close()\`) in a namespace of their own, without the"
	echo "index and with it (\`netns-reap index start\`), off then on in one"
	echo "repetition and on then off in the next, after a discarded warm-up pair."
	echo "Each repetition's \"on\" is divided by its own \"off\": the paired ratio."
	echo "Each state is entered the same way (an index start or stop, then K / 10"
	echo "untimed connections of each protocol), and one TCP connection and one UDP"
	echo "socket to the address stay open throughout, so the address stays in the"
	echo "index as a live backend's does. With R repetitions, taken as independent,"
	echo "the kth lowest and the kth highest of the R ratios bound their median with"
	echo "probability 1 - 2 P(B < k), B binomial(R, 1/2), whatever their"
	echo "distribution (the sign test's interval); k is the largest that keeps it"
	echo "95% or more, so that a repetition the host disturbed does not set the"
	echo "bound. Where the interval holds 1, the difference is not told apart from"
	echo "the noise. One thread:"
	echo "what contention on the index's maps costs is not measured. The index's"
	echo "programs (\`bpf/index.bpf.c\`) run on the connect path (\`sockops\`: a TCP"
	echo "connect, a passive open and a request socket's hashing;"
	echo "\`cgroup/connect4\` and \`connect6\`, and a kprobe on \`udp_lib_hash4()\`"
	echo "for UDP), on every state change of a TCP socket (the"
	echo "\`inet_sock_set_state\` tracepoint), every close of an inet socket"
	echo "(\`cgroup/sock_release\`), every free of a request socket"
	echo "(\`__reqsk_free\`), every UDP disconnect (\`__udp_disconnect\`) and every"
	echo "bind of a socket to a device (\`sock_bindtoindex_locked\`, a kprobe and a"
	echo "kretprobe); each loop here closes its sockets, so the hooks on close are"
	echo "in its time."
	echo
	awk -F, "$HDR"'
	{
		k = $h["rep"] SUBSEP $h["proto"]
		v[k SUBSEP $h["index"] SUBSEP "cps"] = $h["connects_per_s"]
		v[k SUBSEP $h["index"] SUBSEP "p50"] = $h["connect_us_p50"]
		v[k SUBSEP $h["index"] SUBSEP "p99"] = $h["connect_us_p99"]
		rows[$h["rep"]]++
		kk = $h["connects"]
	}
	function sort(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t } }
	function med(a, n) { sort(a, n); return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	# the median over the repetitions of measure m of proto p with index s
	function mid(p, s, m,   a, j) { for (j = 1; j <= nr; j++) a[j] = v[reps[j], p, s, m]; return med(a, nr) }
	# the paired ratios on / off: median, and the kth lowest and kth
	# highest into r[]
	function paired(p, m,   a, j) {
		for (j = 1; j <= nr; j++) a[j] = v[reps[j], p, "on", m] / v[reps[j], p, "off", m]
		r["med"] = med(a, nr); r["lo"] = a[kth]; r["hi"] = a[nr + 1 - kth]
	}
	# the probability that the kth lowest and kth highest of n ratios hold
	# their median: 1 - 2 P(B <= k - 1), B binomial(n, 1/2)
	function ord(k) { return k == 1 ? "" : (k == 2 ? "2nd" : k == 3 ? "3rd" : k "th") " " }
	function conf(n, k,   c, t, i) {
		c = 1; t = 0
		for (i = 0; i < k; i++) { t += c; c = c * (n - i) / (i + 1) }
		return 1 - 2 * t / 2 ^ n
	}
	function verdict(more_is_better) {
		if (r["lo"] > 1) return more_is_better ? "faster with the index" : "slower with the index"
		if (r["hi"] < 1) return more_is_better ? "slower with the index" : "faster with the index"
		return "not told apart"
	}
	END {
		# the repetitions with all four rows: both protocols, both states
		for (x in rows) if (rows[x] == 4) reps[++nr] = x
		if (!nr) exit
		for (kth = 1; kth < nr / 2 && conf(nr, kth + 1) >= 0.95; kth++);
		printf "%d connections a repetition, %d repetitions: the intervals below, from the %slowest to the %shighest ratio, hold the median ratio with probability %.1f%%.\n\n",
			kk, nr, ord(kth), ord(kth), 100 * conf(nr, kth)
		print "| protocol | measure | without the index (median) | with it (median) | with / without (paired: median, interval) | verdict |"
		print "| --- | --- | --- | --- | --- | --- |"
		split("cps p50 p99", ms, " ")
		split("connections per second|connect() median, us|connect() 99th percentile, us", mn, "|")
		for (pi = 1; pi <= 2; pi++) {
			p = pi == 1 ? "tcp" : "udp"
			for (j = 1; j <= 3; j++) {
				paired(p, ms[j])
				off = mid(p, "off", ms[j]); on = mid(p, "on", ms[j])
				printf "| %s | %s | %.1f | %.1f | %.3f (%.3f to %.3f) | %s |\n", toupper(p), mn[j],
					off, on, r["med"], r["lo"], r["hi"], verdict(ms[j] == "cps")
				# the ratio of the two medians outside the paired interval
				if (off && (on / off < r["lo"] || on / off > r["hi"])) unpaired++
				if (ms[j] == "cps") { cm[p] = r["med"]; cl[p] = r["lo"]; ch[p] = r["hi"] }
				if (ms[j] == "p50") { lm[p] = r["med"]; ll[p] = r["lo"]; lh[p] = r["hi"] }
			}
		}
		print ""
		printf "The first two columns are each state'"'"'s median over the %d repetitions, unpaired. ", nr
		if (unpaired)
			printf "In %d of the 6 rows their ratio lies outside the paired interval, as when the host'"'"'s speed changes during a run and the medians of the two states come from different speeds. Read the paired ratios, which set the two halves of each repetition against each other; a change of speed inside one repetition is what pairing cannot remove, and the interval, which takes the repetitions as independent, does not cover it.\n\n", unpaired
		else
			printf "Their ratio lies inside the paired interval in every row.\n\n"
		print "<!-- cover-index begin -->"
		for (pi = 1; pi <= 2; pi++) {
			p = pi == 1 ? "tcp" : "udp"
			printf "With the index attached, %s connections per second were %.3fx those without it (paired over %d repetitions, %.3fx to %.3fx with %.1f%% confidence), and connect() took %.3fx as long at the median (%.3fx to %.3fx).\n",
				toupper(p), cm[p], nr, cl[p], ch[p], 100 * conf(nr, kth), lm[p], ll[p], lh[p]
		}
		print "<!-- cover-index end -->"
		print ""
	}' "$c"
	[ -s "$i" ] || return 0
	echo "What the index's maps take at each point of the table above, after its"
	echo "world was built, from \`netns-reap index status\`: their \`memlock\`, the"
	echo "kernel's own account of each map (the maps are not preallocated, so it"
	echo "counts the elements there are, at their element size, without what the"
	echo "allocator rounds up); the fixed part is the hash tables' bucket arrays,"
	echo "sized for 2^20 sockets, so bytes per entry falls as entries grow."
	echo
	echo "| tables | protocol | N | entries | map bytes | bytes per entry |"
	echo "| --- | --- | --- | --- | --- | --- |"
	awk -F, "$COUNT$HDR"'
	{
		printf "| %s | %s | %s | %d | %d | %.0f |\n", $h["tables"], toupper($h["proto"]),
			count($h["n"]), $h["entries"], $h["map_bytes"], $h["bytes_per_entry"]
		g = $h["tables"] " " toupper($h["proto"])
		if (!(g in lo) || $h["entries"] + 0 < le[g]) { lo[g] = $h["map_bytes"]; le[g] = $h["entries"] }
		if (!(g in hi) || $h["entries"] + 0 > he[g]) { hi[g] = $h["map_bytes"]; he[g] = $h["entries"] }
		if (!(g in seen)) { seen[g] = 1; gs[++ng] = g }
	}
	END {
		print ""
		printf "Each socket the index holds adds, from the fewest entries to the most:"
		for (j = 1; j <= ng; j++) {
			g = gs[j]
			if (he[g] > le[g])
				printf "%s %.0f bytes (%s)", (j > 1 ? "," : ""), (hi[g] - lo[g]) / (he[g] - le[g]), g
		}
		for (j = 1; j <= ng; j++) if (!fe || le[gs[j]] < fe) { fe = le[gs[j]]; fb = lo[gs[j]] }
		printf ". With %d entries, the fewest of any point, the maps took %.1f MiB.\n\n", fe, fb / 1048576
	}' "$i"
}

# section_section: how long one run of the chained walk's iter.s/netns
# program, one namespace's whole walk, holds the tasks-trace RCU read lock
# and migration disabled (netns-bench --section, make bench-section).  Its
# last sentence, the longest section at the largest N, is the bound
# kernel/series/08-open-coded.msg states; tests/host/050-bench-report.bats
# checks that the two agree.
section_section() {
	local se gs
	se=$(pick section.csv)
	[ -s "$se" ] || return 0
	gs=$(guest_of guest-section.txt)
	echo "## How long the chained walk holds its sections"
	echo
	echo "The iterator core holds the tasks-trace RCU read lock and migration"
	echo "disabled around each run of an iter.s/netns program, and the chained walk"
	echo "walks one namespace's sockets in one run: a section lasts one namespace's"
	echo "walk. \`make bench-section\` (\`netns-bench --section\`) times each run from"
	echo "inside the program (bpf_ktime_get_ns() at its start and its end) on one"
	echo "namespace holding N TCP sockets (N/2 clients and their peers) and N"
	echo "connected UDP clients, as a walk (nothing matches) and as a reap of every"
	echo "client (a lock_sock() and an abort each), under $(accel "$gs"). Median and"
	echo "longest section over the trials, in ms; the walk's wall time covers every"
	echo "namespace of the guest. On shared tables a namespace's walk passes over"
	echo "the host's whole table, so its section grows with the host's sockets, not"
	echo "the namespace's."
	echo
	echo "| tables | proto | N | workload | trials | section ms (median) | section ms (longest) | walk ms | sockets seen | destroyed |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	awk -F, "$COUNT$HDR"'
	{
		printf "| %s | %s | %s | %s | %d | %.1f | %.1f | %.1f | %d | %d |\n",
			$h["tables"], toupper($h["proto"]), count($h["n"]),
			$h["workload"] == "walk" ? "walk" : "reap all", $h["reps"],
			$h["section_ms_median"], $h["section_ms_max"],
			$h["wall_ms_median"], $h["sockets_seen"], $h["destroyed"]
		n = $h["n"] + 0
		if (n > top) { top = n; most = -1 }
		if (n == top && $h["section_ms_max"] + 0 > most) {
			most = $h["section_ms_max"] + 0
			what = sprintf("a %s %s, on %s tables", toupper($h["proto"]),
				       $h["workload"] == "walk" ? "walk" : "reap of every client", $h["tables"])
		}
	}
	END {
		if (top)
			printf "\nThe longest section at N = %s was %.0f ms: %s.\n\n", count(top), most, what
	}' "$se"
}

# scale_cap SCALE_CSV: what the run cost, from the time each point took
# (world_s and measure_s, the same in every design's row of a point) and
# the guest's memory.
scale_cap() {
	local mem
	mem=$(awk '/MemTotal/ { printf "%.1f", $2 / 1048576 }' "$(pick guest-scale.txt)" 2>/dev/null || true)
	awk -F, -v mem="$mem" "$COUNT$HDR"'
	!("world_s" in h) { exit }
	{
		g = $h["tables"] " " $h["proto"]; n = $h["n"] + 0
		if (!((g, n) in t)) { t[g, n] = $h["world_s"] + $h["measure_s"]; all += t[g, n]; wb[g, n] = $h["world_s"] }
		if (!(g in seen)) { seen[g] = 1; groups[++ng] = g }
		if (n > max) max = n
	}
	END {
		if (!max) exit
		for (i = 1; i <= ng; i++) {
			g = groups[i]
			if (!((g, max) in t)) continue
			sum += t[g, max]
			if (t[g, max] > most) { most = t[g, max]; mk = g; mw = wb[g, max] }
		}
		printf "The whole run took %.0f minutes to build its worlds and measure. At N = %s the points took %.0f s, the %s one %.0f s of it (%.0f s to build its world).", all / 60, count(max), sum, mk, most, mw
		if (mem != "") printf " The guest had %s GB of memory (`guest-scale.txt`).", mem
		print "\n"
	}' "$1"
}

# headline: README's summary, every figure from the CSV.
headline() {
	awk -F, "$HDR"'
	$h["scope"] == "all" {
		p = $h["proto"]; t = $h["tables"]; w = $h["workload"]
		pt = p SUBSEP t SUBSEP w SUBSEP $h["m"] SUBSEP $h["s"]
		if (!(pt in best)) { best[pt] = 1e18; n[p SUBSEP t]++ }
		if ($h["wall_ms_median"] < best[pt]) { best[pt] = $h["wall_ms_median"]; who[pt] = $h["design"] }
		key = pt SUBSEP $h["design"]; wall[key] = $h["wall_ms_median"]
		if (t == "child" && $h["m"] > maxm) maxm = $h["m"]
		allpts[pt] = 1
	}
	function fastest(p, t,   j, out, k) {
		out = ""
		for (j = 1; j <= nd; j++) {
			k = p SUBSEP t SUBSEP ds[j]
			if (k in wins) out = out (out == "" ? " " : ", ") (ds[j] == "global" ? "whole-host" : ds[j]) " " wins[k]
		}
		return out
	}
	END {
		for (pt in who) { split(pt, x, SUBSEP); wins[x[1] SUBSEP x[2] SUBSEP who[pt]]++ }
		nd = split("global chained setns netns-arg sock_diag", ds, " ")
		for (pt in allpts) {
			split(pt, x, SUBSEP)
			c = wall[pt SUBSEP "chained"]; s = wall[pt SUBSEP "setns"]; g = wall[pt SUBSEP "global"]
			k = x[1] SUBSEP x[2]
			if (x[2] == "shared" && x[3] == "walk") {
				r = s / g
				if (!(k in slo) || r < slo[k]) slo[k] = r
				if (!(k in shi) || r > shi[k]) shi[k] = r
			}
			if (x[2] == "child" && x[4] == maxm) {
				r = c / g
				if (!(k in clo) || r < clo[k]) clo[k] = r
				if (!(k in chi) || r > chi[k]) chi[k] = r
			}
			ns[x[1]]++
			if (c > s) { slow[x[1]]++; slowt[x[1] SUBSEP x[2]]++ }
		}
		printf "In the committed run (the bench kernel under %s, medians of %s repetitions;\n", accel, reps
		print "ratios are the result, absolute times are not), designs that walk every socket:"
		print ""
		for (pi = 1; pi <= 2; pi++) {
			p = pi == 1 ? "tcp" : "udp"; P = toupper(p)
			printf "- %s, shared tables: fastest of %d points and workloads:%s;\n", P, n[p SUBSEP "shared"], fastest(p, "shared")
			printf "  the setns loop takes %.1fx to %.1fx the time of the whole-host walk to walk.\n", slo[p SUBSEP "shared"], shi[p SUBSEP "shared"]
			printf "- %s, child tables: fastest of %d:%s; at M = %d the chained walk\n", P, n[p SUBSEP "child"], fastest(p, "child"), maxm
			printf "  takes %.2fx to %.2fx the time of the whole-host walk.\n", clo[p SUBSEP "child"], chi[p SUBSEP "child"]
			printf "- %s: the chained walk is slower than the setns loop in %d of %d cases\n", P, slow[p], ns[p]
			printf "  (%d on shared tables, %d on child tables).\n", slowt[p SUBSEP "shared"], slowt[p SUBSEP "child"]
		}
	}' accel="$accel" reps="$(awk -F, "$HDR"' { print $h["reps"]; exit }' "$all")" "$all"
	awk -F, "$HDR"'
	$h["scope"] == "connected" {
		k = $h["tables"] SUBSEP $h["m"] SUBSEP $h["s"] SUBSEP $h["workload"]
		w[k SUBSEP $h["design"]] = $h["wall_ms_median"]; pts[k] = $h["tables"]
	}
	END {
		for (k in pts) {
			if (!((k SUBSEP "global-conn") in w) || !((k SUBSEP "chained-conn") in w)) continue
			n[pts[k]]++
			if (w[k SUBSEP "chained-conn"] < w[k SUBSEP "global-conn"]) f[pts[k]]++
		}
		if (n["shared"] + n["child"] == 0) exit
		print "- TCP, connected sockets only (both walks skip the listeners, like for like):"
		printf "  the chained walk is faster than the whole-host walk at %d of %d points and\n", f["shared"], n["shared"]
		printf "  workloads on shared tables, and at %d of %d on child tables.\n", f["child"], n["child"]
	}' "$all"
	local f m sc
	f=$(pick fixed.csv) m=$(pick memory.csv) sc=$(pick scale.csv)
	if [ -s "$f" ]; then
		awk -F, "$HDR"'
		{ k = $h["proto"] SUBSEP $h["design"]
		  if (!(k in lo) || $h["m"] < lo[k]) { lo[k] = $h["m"]; wl[k] = $h["wall_ms_median"] }
		  if (!(k in hi) || $h["m"] > hi[k]) { hi[k] = $h["m"]; wh[k] = $h["wall_ms_median"] } }
		function us(p, d,   k) { k = p SUBSEP d; return hi[k] > lo[k] ? (wh[k] - wl[k]) * 1000 / (hi[k] - lo[k]) : 0 }
		END {
			printf "- An empty namespace (child tables, no socket) costs the setns loop\n"
			printf "  %.1f us (TCP) and %.1f us (UDP), the chained walk %.1f and %.1f us;\n",
				us("tcp", "setns"), us("udp", "setns"), us("tcp", "chained"), us("udp", "chained")
			printf "  TCP walks that leave the shared listening hash out, chained-conn\n"
			printf "  %.1f us and global-conn %.1f us.\n", us("tcp", "chained-conn"), us("tcp", "global-conn")
		}' "$f"
	fi
	if [ -s "$sc" ]; then
		# the largest N at which the setns loop ran; the shared tables'
		# sizes from the guest that ran it
		local gs
		gs=$(guest_of guest-scale.txt)
		awk -F, -v tslots="$(guest_sysctl "$gs" net.ipv4.tcp_ehash_entries)" \
			-v uslots="$(guest_sysctl "$gs" net.ipv4.udp_hash_entries)" "$HDR"'
		$h["tables"] == "shared" { all[$h["proto"], $h["n"], $h["design"]] = $h["wall_ms_median"]; m = $h["m"]; d = $h["destroyed"]
			if ($h["design"] == "setns" && $h["n"] + 0 > max[$h["proto"]]) max[$h["proto"]] = $h["n"] + 0 }
		END {
			if (!("tcp" in max) || !("udp" in max)) exit
			for (k in all) { split(k, x, SUBSEP); if (x[2] + 0 == max[x[1]]) w[x[1] SUBSEP x[3]] = all[k] }
			printf "- The RFC'"'"'s world (%d namespaces on shared tables", m
			if (tslots != "" && uslots != "")
				printf " of %d TCP and %d UDP slots", tslots, uslots
			printf ", %d sockets destroyed):\n", d
			printf "  the setns loop takes %.1fx the time of the whole-host walk at %d TCP sockets\n",
				w["tcp" SUBSEP "setns"] / w["tcp" SUBSEP "global"], max["tcp"]
			printf "  and %.1fx at %d UDP sockets; the chained walk %.1fx and %.1fx.\n",
				w["udp" SUBSEP "setns"] / w["udp" SUBSEP "global"], max["udp"],
				w["tcp" SUBSEP "chained"] / w["tcp" SUBSEP "global"],
				w["udp" SUBSEP "chained"] / w["udp" SUBSEP "global"]
		}' "$sc"
	fi
	if [ -s "$sc" ] && grep -q ',index,' "$sc"; then
		# the index on shared tables, from 10k to the largest N
		awk -F, "$COUNT$HDR"'
		$h["tables"] == "shared" { w[$h["proto"], $h["n"], $h["design"]] = $h["wall_ms_median"]
			m = $h["m"]; d = $h["destroyed"]
			if ($h["n"] + 0 > max) max = $h["n"] + 0 }
		function g(p, d) { return w[p, max, d] / w[p, 10000, d] }
		END {
			if (!(("tcp", 10000, "index") in w) || !(("udp", max, "index") in w)) exit
			printf "- The socket index (%d sockets among N, %d namespaces, shared tables):\n", d, m
			printf "  from N = 10k to %s its kill took %.2fx the time for TCP and %.2fx for UDP,\n", count(max), g("tcp", "index"), g("udp", "index")
			printf "  SOCK_DESTROY by tuple of the same sockets %.2fx and %.2fx, the whole-host\n", g("tcp", "diag-tuple"), g("udp", "diag-tuple")
			printf "  walk %.1fx and %.1fx (\"The index'"'"'s price\" in docs/BENCHMARKS.md: what it\n", g("tcp", "global-conn"), g("udp", "global")
			printf "  costs every connect).\n"
		}' "$sc"
	fi
	if [ -s "$m" ]; then
		awk -F, "$HDR"'
		{ kb[$h["tables"]] = $h["kb_per_netns"]
		  if ($h["tables"] == "child") { e = $h["ehash_entries"]; u = $h["udp_hash_entries"] } }
		END { if ("child" in kb && "shared" in kb)
			printf "- Child tables of %d TCP and %d UDP entries cost %.1f kB per namespace\n  more than the shared tables (MemFree).\n",
				e, u, kb["child"] - kb["shared"] }' "$m"
	fi
}

{
	cat "$docs/BENCHMARKS.head.md"
	echo
	echo "## Results, computed from this run"
	echo
	echo "### Who wins where"
	echo
	echo "Designs that walk every socket (chained-conn and global-conn walk"
	echo "connected sockets only and are compared with each other below): the"
	echo "design fastest at each point, and each design's time against the"
	echo "whole-host walk's, lowest to highest over the points."
	echo
	winners
	echo
	goals
	echo
	echo "### Connected sockets only: chained-conn against global-conn"
	echo
	echo "The two TCP walks that leave listeners, and the shared listening hash,"
	echo "out: the chained walk with BPF_ITER_NETNS_SOCK_SKIP_LISTEN, as"
	echo "\`netns-reap kill\` runs it, and the whole-host walk with"
	echo "BPF_SOCK_ITER_SKIP_LISTEN. Both hand their program the same sockets."
	echo "The last two columns are each against its walk of every socket."
	echo
	connected
	echo
	echo "### UDP walk: every design against whole-host"
	echo
	echo "The same worlds' connected UDP sockets (S per namespace, plus 10"
	echo "unconnected backends). UDP has no separate listening table: a namespace"
	echo "with its own UDP table keeps all its UDP sockets there, so chained-conn"
	echo "and global-conn have nothing to add and are not run."
	echo
	udp_goals
	echo
	echo "### Kernel allocations per walk"
	echo
	echo "Slab objects (kmalloc and kmem_cache_alloc tracepoints) the kernel"
	echo "allocated for the driver's thread in one walk, counted in a run of its"
	echo "own after the timed ones (the counters slow every syscall down). Counts"
	echo "that do not grow with S are set-up (links, iterators, seq_file buffers,"
	echo "netlink messages), not sockets."
	echo
	allocations
	echo
	scale_section
	index_section
	section_section
	fixed_section
	empty_section
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
	for g in guest-empty.txt:bench-empty guest-scale.txt:bench-scale \
		 guest-section.txt:bench-section; do
		[ -s "$(pick "${g%%:*}")" ] || continue
		echo
		echo "\`make ${g#*:}\`'s guest:"
		echo
		echo '```'
		cat "$(pick "${g%%:*}")"
		echo '```'
	done
	for p in tcp udp; do
		for w in walk reap1 reap10; do
			echo
			echo "## $p $w"
			echo
			echo "| tables | M | S | design | wall ms | IQR | sys ms | x global | x chained | sockets | syscalls | allocs | pages | k buckets | k sockets |"
			echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
			csv=$res/$p.csv table "$w"
		done
	done
	echo
	echo "## Plots"
	echo
	for p in "$docs"/bench/*.png; do
		echo "![$(basename "$p" .png)](bench/$(basename "$p"))"
	done
} > "$docs/BENCHMARKS.md"
if [ -n "$readme" ]; then
	headline > "$res/headline.md"
	awk -v f="$res/headline.md" '
		/<!-- bench-headline end -->/ { skip = 0 }
		!skip { print }
		/<!-- bench-headline begin/ { while ((getline l < f) > 0) print l; skip = 1 }' \
		"$readme" > "$res/README.md"
	[ "$(grep -c -e '<!-- bench-headline begin' -e '<!-- bench-headline end -->' "$readme")" = 2 ] ||
		{ echo "Error: $readme needs one <!-- bench-headline begin ... --> and one <!-- bench-headline end --> line" >&2; exit 1; }
	cat "$res/README.md" > "$readme"
fi
if [ "$(cd "$res" && pwd)" != "$(cd "$docs/bench" && pwd)" ]; then
	cp "$all" "$docs/bench/results.csv"
	for f in empty.csv fixed.csv memory.csv scale.csv section.csv index.csv connect.csv \
		 profile-empty-tcp.txt guest.txt guest-empty.txt guest-scale.txt \
		 guest-section.txt world.txt; do
		if [ -s "$res/$f" ]; then cp "$res/$f" "$docs/bench/"; fi
	done
fi
echo "wrote $docs/BENCHMARKS.md${readme:+ and the headline of $readme}"
