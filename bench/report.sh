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
	 syscalls kernel_allocs kernel_pages kernel_buckets kernel_sockets proto scope \
	 kernel_locks kernel_prog_runs wall_ms_samples; do
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

# pair(A, B): designs A and B of one point, paired repetition by
# repetition (both ran once in each, netns-bench's rotation); A and B are
# their wall_ms_samples.  pr["med"] is the median of the R ratios A / B;
# pr["lo"] and pr["hi"] are their kth lowest and kth highest, which hold
# that median with probability pr["cov"] = 1 - 2 P(X < k), X binomial(R,
# 1/2), whatever the ratios' distribution (the sign test's interval), k
# the largest that keeps it 95% or more (R = 7: k = 1, 98.4%).  pr["v"]
# says A against B: "faster" if the interval is below 1, "slower" if above,
# else "not told apart", which it always is when even k = 1 covers less
# than 95% (R < 6).  pfmt() prints "median (lo to hi)".  signk(R) and
# signcov(R) give k and the coverage, for the text.
PAIR='
function psort(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t } }
function pconf(n, k,   c, t, i) {
	c = 1; t = 0
	for (i = 0; i < k; i++) { t += c; c = c * (n - i) / (i + 1) }
	return 1 - 2 * t / 2 ^ n
}
function pair(A, B,   a, b, n, i, x, k) {
	n = split(A, a, ";")
	if (split(B, b, ";") != n || n < 1) { print "report.sh: unpaired samples" > "/dev/stderr"; exit 1 }
	for (i = 1; i <= n; i++) x[i] = a[i] / b[i]
	psort(x, n)
	k = signk(n)
	pr["med"] = pmed(x, n)
	pr["lo"] = x[k]; pr["hi"] = x[n + 1 - k]; pr["cov"] = pconf(n, k)
	pr["v"] = pr["cov"] < 0.95 ? "not told apart" : pr["hi"] < 1 ? "faster" : pr["lo"] > 1 ? "slower" : "not told apart"
}
# upair(A, B): A and B from different runs, not paired: pr["med"] the ratio
# of their medians, pr["lo"] and pr["hi"] the lowest and highest ratio of
# any run of A to any run of B, a range wider than a paired interval.
function upair(A, B,   a, b, na, nb) {
	na = split(A, a, ";"); nb = split(B, b, ";")
	psort(a, na); psort(b, nb)
	pr["med"] = pmed(a, na) / pmed(b, nb)
	pr["lo"] = a[1] / b[nb]; pr["hi"] = a[na] / b[1]
}
function pmed(x, n) { return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2 }
function signk(n) { return signkc(n, 0.95) }
# signkc(n, c): the k whose kth lowest and highest of n bound the median
# with coverage c or more, the largest such
function signkc(n, c,   k) { for (k = 1; k + 1 <= n / 2 && pconf(n, k + 1) >= c; k++) ; return k }
# uratio(A, B): A and B from different worlds, not paired: pr["med"] the
# ratio of their medians; pr["lo"] and pr["hi"] A'"'"'s median bounds over
# B'"'"'s, each sample'"'"'s median bounded with 97.5% or more (from 7 trials
# up), so that the ratio'"'"'s interval covers with pr["cov"], 95% or more.
function uratio(A, B,   a, b, na, nb, ka, kb) {
	na = split(A, a, ";"); nb = split(B, b, ";")
	psort(a, na); psort(b, nb)
	ka = signkc(na, 0.975); kb = signkc(nb, 0.975)
	pr["med"] = pmed(a, na) / pmed(b, nb)
	pr["lo"] = a[ka] / b[nb + 1 - kb]; pr["hi"] = a[na + 1 - ka] / b[kb]
	pr["cov"] = pconf(na, ka) + pconf(nb, kb) - 1
}
function signcov(n) { return pconf(n, signk(n)) }
# pord(k): "" for the 1st, else "2nd ", "3rd ", "kth ", before "lowest"
function pord(k) { return k == 1 ? "" : (k == 2 ? "2nd" : k == 3 ? "3rd" : k "th") " " }
function pfmt() { return sprintf("%.2fx (%.2f to %.2f)", pr["med"], pr["lo"], pr["hi"]) }
# verdicts(A, B): design A against B at every point and workload of LOAD
# where both ran, printed as how many are faster, not told apart and
# slower on each kind of tables, and which are slower.
function verdicts(A, B,   i, x, n, v, sl, bk) {
	for (i = 1; i <= nrows; i++) {
		split(rows[i], x, SUBSEP)
		bk = x[1] SUBSEP x[2] SUBSEP x[3] SUBSEP B SUBSEP x[5]
		if (x[4] != A || !(bk in smp)) continue
		pair(smp[rows[i]], smp[bk])
		n++; v[x[1] SUBSEP pr["v"]]++
		if (pr["v"] == "slower")
			sl = sl sprintf(" %s M=%d S=%d %s, %s;", x[1], x[2], x[3], x[5], pfmt())
	}
	printf "%s / %s, paired, at %d points and workloads: on shared tables faster at %d, not told apart at %d, slower at %d; on child tables faster at %d, not told apart at %d, slower at %d.",
		A, B, n, v["shared" SUBSEP "faster"], v["shared" SUBSEP "not told apart"], v["shared" SUBSEP "slower"],
		v["child" SUBSEP "faster"], v["child" SUBSEP "not told apart"], v["child" SUBSEP "slower"]
	if (sl != "") printf " Slower:%s", sl
}
'

# What an empty namespace costs each design in the guest, from fixed.csv:
# fixed_row() takes a row, nscost(p, d) is the us a namespace adds to
# design d's walk of protocol p, from the fewest namespaces to the most.
NSCOST='
function fixed_row(   k) {
	k = $h["proto"] SUBSEP $h["design"]
	if (!(k in lo) || $h["m"] < lo[k]) { lo[k] = $h["m"]; wl[k] = $h["wall_ms_median"] }
	if (!(k in hi) || $h["m"] > hi[k]) { hi[k] = $h["m"]; wh[k] = $h["wall_ms_median"] }
}
function nscost(p, d,   k) { k = p SUBSEP d; return hi[k] > lo[k] ? (wh[k] - wl[k]) * 1000 / (hi[k] - lo[k]) : 0 }
'

# sign_text: the matrix's repetitions, and which of their paired ratios
# bound the median with what coverage (see PAIR).
sign_text() {
	awk -F, "$HDR$PAIR"'{ r = $h["reps"]; exit }
	END { k = signk(r)
	      printf "%d repetitions: the %slowest and highest ratios, %.1f%%", r, pord(k), 100 * signcov(r) }' "$all"
}

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
# H: the TCP bind hash, which sock_diag's TCP dump walks for each
# namespace (bound but inactive sockets).
H=$(sed -n 's/.*Hash tables configured (established [0-9]* bind \([0-9]*\)).*/\1/p' "$res/guest.txt" 2>/dev/null || true)
# U and u: the same for UDP, the shared hash and the child namespaces'.
U=$(awk '/udp_hash_entries/ { print $NF }' "$res/guest.txt" 2>/dev/null || true)
u=$(awk '/child_udp_hash_entries/ { print $NF }' "$res/world.txt" 2>/dev/null || true)
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
	smp[key] = $h["wall_ms_samples"]
	if (!(k in seenpt)) { seenpt[k] = 1; pts[++npts] = k }
	rows[++nrows] = key
}'

# goals: the project's goals, each computed from the TCP rows.
goals() {
	awk -F, "$LOAD$PAIR"'
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
		print "Ratios are paired: each repetition'"'"'s chained run over the same"
		print "repetition'"'"'s whole-host run, their median and the sign test'"'"'s"
		print "interval (see \"Reading the ratios\"). The goal is met where the whole"
		print "interval is at or below 1.2x, missed where it is above."
		print ""
		print "| workload | M | S | whole-host ms (IQR) | chained ms (IQR) | chained / whole-host | goal | chained-conn / global-conn |"
		print "| --- | --- | --- | --- | --- | --- | --- | --- |"
		for (i = 1; i <= nrows; i++) {
			split(rows[i], x, SUBSEP)
			if (x[1] != "child" || x[2] != maxm || x[4] != "global") continue
			pw = x[1] SUBSEP x[2] SUBSEP x[3]
			ck = pw SUBSEP "chained" SUBSEP x[5]
			gck = pw SUBSEP "global-conn" SUBSEP x[5]
			cc = "-"
			if (gck in smp) { pair(smp[pw SUBSEP "chained-conn" SUBSEP x[5]], smp[gck]); cc = pfmt() }
			pair(smp[ck], smp[rows[i]])
			printf "| %s | %d | %d | %.1f (%.1f) | %.1f (%.1f) | %s | %s | %s |\n",
				x[5], x[2], x[3], wall[rows[i]], iqr[rows[i]], wall[ck], iqr[ck], pfmt(),
				(pr["hi"] <= 1.2 ? "met" : (pr["lo"] > 1.2 ? sprintf("missed by %.2fx", pr["med"] / 1.2) : "not told apart from 1.2x")), cc
		}
		print ""
		print "### Chained against the setns loop, every point and workload (goal: never slower)"
		print ""
		verdicts("chained", "setns")
		print ""
		print ""
		print "Per namespace (M pods and the host), walk: what the chained walk saves,"
		print "with the syscalls and slab allocations the kernel counted."
		print ""
		print "The saved us are a difference of medians; the paired ratio beside them"
		print "says whether the two walks are told apart at all."
		print ""
		print "| tables | M | S | setns us/netns | chained us/netns | saved us/netns | chained / setns, paired | setns syscalls/netns | chained syscalls | setns allocs/netns | chained allocs/netns |"
		print "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
		for (i = 1; i <= npts; i++) {
			split(pts[i], p, SUBSEP)
			if (p[3] != 10) continue
			sk = pts[i] SUBSEP "setns" SUBSEP "walk"
			ck = pts[i] SUBSEP "chained" SUBSEP "walk"
			s = wall[sk] * 1000 / (p[2] + 1)
			c = wall[ck] * 1000 / (p[2] + 1)
			pair(smp[ck], smp[sk])
			printf "| %s | %d | %d | %.0f | %.0f | %.0f | %s, %s | %.1f | %d | %.1f | %.1f |\n", p[1], p[2], p[3], s, c, s - c,
				pfmt(), pr["v"], calls[sk] / (p[2] + 1), calls[ck], allocs[sk] / (p[2] + 1), allocs[ck] / (p[2] + 1)
		}
		print ""
		print "### Shared tables: per-namespace designs against whole-host"
		print ""
		print "Every per-namespace design walks the whole shared table once per"
		print "namespace, M + 1 times in all; the whole-host walk once. Ratios are"
		print "paired medians (see \"Reading the ratios\"). The last columns divide by"
		print "M + 1: 1.00 would be a time exactly proportional to the walks made."
		print ""
		print "| M | S | setns / global | netns-arg / global | sock_diag / global | chained / global | setns / global / (M+1) | chained / global / (M+1) |"
		print "| --- | --- | --- | --- | --- | --- | --- | --- |"
		lo = 1e9; hi = 0
		for (i = 1; i <= npts; i++) {
			split(pts[i], p, SUBSEP)
			if (p[1] != "shared") continue
			g = smp[pts[i] SUBSEP "global" SUBSEP "walk"]
			pair(smp[pts[i] SUBSEP "setns" SUBSEP "walk"], g); s = pr["med"]
			pair(smp[pts[i] SUBSEP "chained" SUBSEP "walk"], g); c = pr["med"]
			pair(smp[pts[i] SUBSEP "netns-arg" SUBSEP "walk"], g); a = pr["med"]
			pair(smp[pts[i] SUBSEP "sock_diag" SUBSEP "walk"], g)
			printf "| %d | %d | %.1fx | %.1fx | %.1fx | %.1fx | %.2f | %.2f |\n", p[2], p[3], s,
				a, pr["med"], c, s / (p[2] + 1), c / (p[2] + 1)
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
		print "reap1 and reap10 run in separate rotations, so their ratios are not"
		print "paired: the median over the median, and in brackets the lowest to the"
		print "highest ratio of any reap10 run to any reap1 run. Buckets are the kernel counter, chained,"
		print "reap10 over reap1: 1.00 is one pass for both; sockets are those handed to"
		print "the chained walk'"'"'s program, reap10 over reap1: where it is not 1.00,"
		print "the two walks did not do the same work, and their ratio is not the cost"
		print "of destroying more alone."
		print "The added ms are reap10 minus reap1, a difference of unpaired medians"
		print "that holds any drift between the two rotations as well as what"
		print "destroying nine backends more costs. The goal is met where the whole range is at or"
		print "below 1.5x, missed where it is above."
		print ""
		print "| tables | M | S | chained reap10 / reap1 | whole-host reap10 / reap1 | chained added ms | whole-host added ms | buckets reap10 / reap1 | sockets reap10 / reap1 | goal (chained) |"
		print "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
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
			k1 = kb[pts[i] SUBSEP "chained" SUBSEP "reap1"]
			k10 = kb[pts[i] SUBSEP "chained" SUBSEP "reap10"]
			n1 = seen[pts[i] SUBSEP "chained" SUBSEP "reap1"]
			n10 = seen[pts[i] SUBSEP "chained" SUBSEP "reap10"]
			upair(smp[pts[i] SUBSEP "global" SUBSEP "reap10"], smp[pts[i] SUBSEP "global" SUBSEP "reap1"]); g = pfmt()
			upair(smp[pts[i] SUBSEP "chained" SUBSEP "reap10"], smp[pts[i] SUBSEP "chained" SUBSEP "reap1"])
			printf "| %s | %d | %d | %s | %s | %.1f | %.1f | %s | %s | %s |\n", p[1], p[2], p[3], pfmt(), g,
				c10 - c1, g10 - g1,
				(k1 > 0 ? sprintf("%.2f", k10 / k1) : "-"), (n1 > 0 ? sprintf("%.2f", n10 / n1) : "-"),
				(pr["hi"] <= 1.5 ? "met" : (pr["lo"] > 1.5 ? sprintf("missed by %.2fx", pr["med"] / 1.5) : "not told apart from 1.5x"))
		}
		if (walkonly != "")
			printf "\nNot reaped (over the reap cap, walk only):%s\n", walkonly
	}' "$csv"
}

# connected: the two designs that hand in connected TCP sockets only, the
# chained walk with BPF_ITER_NETNS_SOCK_SKIP_LISTEN and the whole-host walk
# with BPF_SOCK_ITER_SKIP_LISTEN, at every point and workload.
connected() {
	awk -F, "$LOAD$PAIR"'
	END {
		print "| tables | M | S | workload | global-conn ms (IQR) | chained-conn ms (IQR) | chained-conn / global-conn | global-conn / global | chained-conn / chained |"
		print "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
		for (i = 1; i <= nrows; i++) {
			split(rows[i], x, SUBSEP)
			if (x[4] != "chained-conn") continue
			pw = x[1] SUBSEP x[2] SUBSEP x[3]
			gk = pw SUBSEP "global-conn" SUBSEP x[5]
			if (!(gk in wall)) continue
			printf "| %s | %d | %d | %s | %.1f (%.1f) | %.1f (%.1f) |",
				x[1], x[2], x[3], x[5], wall[gk], iqr[gk], wall[rows[i]], iqr[rows[i]]
			pair(smp[rows[i]], smp[gk]); printf " %s |", pfmt()
			pair(smp[gk], smp[pw SUBSEP "global" SUBSEP x[5]]); printf " %s |", pfmt()
			pair(smp[rows[i]], smp[pw SUBSEP "chained" SUBSEP x[5]]); printf " %s |\n", pfmt()
		}
		print ""
		verdicts("chained-conn", "global-conn")
		print ""
	}' "$csv"
}

# winners: each design of every socket against whole-host, per protocol,
# tables and workload: at how many points its paired interval is below 1
# (faster), holds 1, or is above (slower), and the range of its paired
# medians.
winners() {
	awk -F, "$HDR$PAIR"'
	$h["scope"] == "all" {
		g = $h["tables"] SUBSEP $h["proto"] SUBSEP $h["workload"]
		pt = g SUBSEP $h["m"] SUBSEP $h["s"]
		if (!(g in ng)) { ng[g] = 0; groups[++ngroups] = g }
		if (!(pt in seenpt)) { seenpt[pt] = 1; npt[g]++; pts[++npts] = pt }
		smp[pt SUBSEP $h["design"]] = $h["wall_ms_samples"]
	}
	END {
		nd = split("setns netns-arg chained sock_diag", ds, " ")
		for (i = 1; i <= npts; i++) {
			split(pts[i], x, SUBSEP); g = x[1] SUBSEP x[2] SUBSEP x[3]
			for (j = 1; j <= nd; j++) {
				d = g SUBSEP ds[j]
				pair(smp[pts[i] SUBSEP ds[j]], smp[pts[i] SUBSEP "global"])
				v[d SUBSEP pr["v"]]++
				if (!(d in lo) || pr["med"] < lo[d]) lo[d] = pr["med"]
				if (!(d in hi) || pr["med"] > hi[d]) hi[d] = pr["med"]
			}
		}
		print "| tables | proto | workload | points | design | paired medians, design / whole-host | faster | not told apart | slower |"
		print "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
		for (i = 1; i <= ngroups; i++) {
			g = groups[i]; split(g, x, SUBSEP)
			for (j = 1; j <= nd; j++) {
				d = g SUBSEP ds[j]
				printf "| %s | %s | %s | %d | %s | %.2fx to %.2fx | %d | %d | %d |\n", x[1], x[2], x[3], npt[g], ds[j],
					lo[d], hi[d], v[d SUBSEP "faster"], v[d SUBSEP "not told apart"], v[d SUBSEP "slower"]
			}
		}
	}' "$all"
}

# udp_goals: the UDP walk of every design against whole-host and setns.
udp_goals() {
	awk -F, "$LOAD$PAIR"'
	END {
		printf "Chained against setns, every UDP point and workload (goal: never slower). "
		verdicts("chained", "setns")
		print ""
		print ""
		print "Walk, paired ratios with their intervals:"
		print ""
		print "| tables | M | S | setns / whole-host | netns-arg / whole-host | chained / whole-host | sock_diag / whole-host | chained / setns |"
		print "| --- | --- | --- | --- | --- | --- | --- | --- |"
		for (i = 1; i <= npts; i++) {
			split(pts[i], p, SUBSEP)
			printf "| %s | %d | %d |", p[1], p[2], p[3]
			g = smp[pts[i] SUBSEP "global" SUBSEP "walk"]
			split("setns netns-arg chained sock_diag", ds, " ")
			for (j = 1; j <= 4; j++) { pair(smp[pts[i] SUBSEP ds[j] SUBSEP "walk"], g); printf " %s |", pfmt() }
			pair(smp[pts[i] SUBSEP "chained" SUBSEP "walk"], smp[pts[i] SUBSEP "setns" SUBSEP "walk"])
			printf " %s |\n", pfmt()
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

# counters: what the kernel counted in each design's counted run of the
# walk workload (CONFIG_SOCK_WALK_STATS): buckets visited, against the cost
# model's count (M pods and the host, n = M + 1):
#   TCP whole-host      shared: L + B              child: L + B + M b
#   TCP global-conn     shared: B                  child: B + M b
#   TCP chained-conn    shared: n B                child: B + M b
#   TCP sock_diag       shared: n (L + B + H)      child: n (L + H) + B + M b
#   TCP every other     shared: n (L + B)          child: n L + B + M b
#   UDP whole-host      shared: U                  child: U + M u
#   UDP every other     shared: n U                child: U + M u
# sockets tested for their namespace, socket locks taken, iterator
# program runs, and the syscalls and slab allocations of the same run.
counters() {
	awk -F, -v B="$B" -v L="$L" -v b="$b" -v U="$U" -v u="$u" -v H="$H" "$HDR"'
	$h["workload"] == "walk" && $h["kernel_buckets"] != "" {
		m = $h["m"]; n = m + 1; d = $h["design"]; c = $h["tables"] == "child"
		if ($h["proto"] == "udp")
			model = c ? U + m * u : (d == "global" ? U : n * U)
		else if (d == "global")
			model = L + B + (c ? m * b : 0)
		else if (d == "global-conn")
			model = B + (c ? m * b : 0)
		else if (d == "chained-conn")
			model = c ? B + m * b : n * B
		else
			model = c ? n * L + B + m * b : n * (L + B)
		if ($h["proto"] == "tcp" && d == "sock_diag")
			model += n * H
		printf "| %s | %s | %d | %d | %s | %d | %d | %.3f | %d | %d | %d | %d | %d | %d |\n",
			$h["proto"], $h["tables"], m, $h["s"], d, $h["kernel_buckets"], model,
			$h["kernel_buckets"] / model, $h["kernel_sockets"], $h["sockets_seen"],
			$h["kernel_locks"], $h["kernel_prog_runs"], $h["syscalls"], $h["kernel_allocs"]
	}' "$all"
}

# cover_bench: the cover letter's numbers (scripts/mkseries.sh takes the
# lines between the cover-bench markers): the guest, then the TCP walk at
# S = 10 of every design against the whole-host walk, paired.
cover_bench() {
	local cpus
	cpus=$(awk '/^cpus:/ { print $2 }' "$res/guest.txt" 2>/dev/null || true)
	echo "<!-- cover-bench begin -->"
	printf 'Under QEMU with %s on %s vCPUs, a guest kernel without lockdep,\n' "$accel" "${cpus:-?}"
	echo "PROVE_RCU or KASAN (docs/bench/guest.txt); shared tables of $B TCP"
	echo "established, $L TCP listening and $U UDP slots, child tables of $b TCP"
	echo "and $u UDP slots. Emulated, an instruction costs what it costs the"
	echo "emulator, so absolute times mean little and even ratios do not carry"
	echo "to hardware unchanged; the exact counts (buckets, sockets, locks,"
	echo "program runs, syscalls) in docs/BENCHMARKS.md do, for the same table"
	echo "sizes. Walk of every TCP"
	echo "socket, S = 10 sockets per namespace plus 10 listeners; the whole-host"
	echo "walk's median ms, and each design's time over it, paired repetition by"
	echo "repetition: median (low to high; $(sign_text))."
	echo
	echo '```'
	awk -F, "$HDR$PAIR"'
	$h["workload"] == "walk" && $h["s"] == 10 {
		k = $h["tables"] SUBSEP $h["m"]
		if (!(k in seenpt)) { seenpt[k] = 1; pts[++npts] = k }
		smp[k SUBSEP $h["design"]] = $h["wall_ms_samples"]; wall[k SUBSEP $h["design"]] = $h["wall_ms_median"]
	}
	function cell(d, g, k) { pair(smp[k SUBSEP d], smp[k SUBSEP g]); return sprintf("%.2f (%.2f-%.2f)", pr["med"], pr["lo"], pr["hi"]) }
	END {
		printf "%-6s %4s %11s %19s %19s %19s %19s\n", "tables", "M", "whole-host", "setns", "netns-arg", "chained", "sock_diag"
		for (i = 1; i <= npts; i++) {
			split(pts[i], x, SUBSEP)
			printf "%-6s %4d %8.1f ms", x[1], x[2], wall[pts[i] SUBSEP "global"]
			split("setns netns-arg chained sock_diag", ds, " ")
			for (j = 1; j <= 4; j++) printf " %19s", cell(ds[j], "global", pts[i])
			print ""
		}
		print ""
		print "Connected sockets only (both walks skip the listeners):"
		printf "%-6s %4s %18s %19s\n", "tables", "M", "whole-host-conn", "chained-conn"
		for (i = 1; i <= npts; i++) {
			split(pts[i], x, SUBSEP)
			printf "%-6s %4d %15.1f ms %19s\n", x[1], x[2], wall[pts[i] SUBSEP "global-conn"], cell("chained-conn", "global-conn", pts[i])
		}
	}' "$csv"
	echo '```'
	echo "<!-- cover-bench end -->"
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
			# shared rows divide a whole run, per-namespace costs
			# included, by the buckets: only the child rows, a
			# difference of two runs, price a bucket alone
			if (index(k, "tcp") && index(k, "child") == 1) goal = r <= 1.25 ? ": within the 1.25x goal" : ": over the 1.25x goal"
			else if (index(k, "shared") == 1) goal = " (a whole run over its buckets: each design'"'"'s cost per namespace is in it, so this is no price of a bucket)"
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
	local sc rfc destroyed slots gs reps ireps
	sc=$(pick scale.csv) rfc=$(pick rfc.csv)
	[ -s "$sc" ] || return 0
	destroyed=$(awk -F, "$HDR"' { print $h["destroyed"]; exit }' "$sc")
	awk -F, "$HDR"' NR == 1 && !("wall_ms_samples" in h && "start" in h) { exit 1 }' "$sc" ||
		{ echo "report.sh: $sc has no wall_ms_samples or start column: rerun make bench-scale" >&2; exit 1; }
	ireps=$(awk -F, "$HDR"' $h["design"] == "index" && $h["start"] == "cold" { print $h["reps"]; exit }' "$sc")
	reps=$(awk -F, "$HDR"' $h["design"] == "setns" { print $h["reps"]; exit }' "$sc")
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
	echo "namespace, a netlink socket, one \`SOCK_DESTROY\` naming its tuple, which"
	echo "the driver already knows, and \`setns()\` back: the kernel's own lookup and"
	echo "destroy of the same sockets, with no BPF, as an agent keeping its index"
	echo "in user space would do. The 5 sockets a trial destroys, and their"
	echo "entries in the index, are made anew before every trial. Every design ran"
	echo "$reps trials in rotation, each finding cached what the trial before it"
	echo "left (\"warm\"); the index and diag-tuple then ran $ireps more, apart from"
	echo "the walks, each after \`netns-bench\` wrote 256 MiB of its own memory"
	echo "(\"cold\"), meant to evict the host's data caches and the emulator's"
	echo "TLB, so that what a trial finds cached depends less on what ran before"
	echo "it and on how much of the world the cache holds; whether it does is not"
	echo "measured. A kill of a few sockets is short enough under $(accel "$gs") that"
	echo "what it finds cached decides much of its time (compare the warm and"
	echo "cold columns), and the ratios to the walks are between warm runs. Cold"
	echo "times at a point can still fall in runs of fast and slow trials: the"
	echo "trials are not independent, and the intervals below, which assume they"
	echo "are, are indicative. What the rest of a kill's growth with N"
	echo "is (the hash chains that lengthen as N sockets fill tables of a fixed"
	echo "size, the index's maps, which hold every connected socket of the host,"
	echo "or what touching memory costs a larger guest under $(accel "$gs")) is not"
	echo "measured here. \"-\" marks the points"
	echo "where a design did not run: on shared tables above 100k sockets each"
	echo "per-namespace walk would visit every socket of the host once per"
	echo "namespace, so only the whole-host walks, the index and its control run"
	echo "there."
	echo
	awk -F, -v rfc="$rfc" "$COUNT$HDR$PAIR"'
	BEGIN { while ((getline l < rfc) > 0) { split(l, x, ","); if (x[1] + 0 > 0) { r[x[1]] = x[2]; if (x[3] != "") sh[x[1]] = x[3] } } }
	{
		g = $h["tables"] SUBSEP $h["proto"]
		if (!(g in seen)) { seen[g] = 1; groups[++ng] = g }
		k = g SUBSEP $h["n"]
		if (!(k in seenn)) { seenn[k] = 1; ns[g, ++nn[g]] = $h["n"] }
		if ($h["n"] + 0 > top[g]) top[g] = $h["n"] + 0
		# a cold run is a design of its own: "index cold"
		d = $h["design"] ($h["start"] == "cold" ? " cold" : "")
		w[k SUBSEP d] = $h["wall_ms_median"]
		q[k SUBSEP d] = $h["wall_ms_iqr"]
		smp[k SUBSEP d] = $h["wall_ms_samples"]
		sl[k SUBSEP d] = $h["index_slots"]
		if (d == "setns" && $h["n"] + 0 > stop[g]) stop[g] = $h["n"] + 0
		if ($h["start"] == "cold") creps = $h["reps"]; else wreps = $h["reps"]
	}
	# ms: a time to a tenth of a microsecond below 0.1 ms
	function ms(v) { return v < 0.1 ? sprintf("%.4f", v) : v < 1 ? sprintf("%.3f", v) : v < 10 ? sprintf("%.2f", v) : sprintf("%.1f", v) }
	# cell: design d at point k, its median and IQR; "-" if it did not run
	function cell(k, d) { return (k SUBSEP d) in w ? sprintf("%s (%s)", ms(w[k SUBSEP d]), ms(q[k SUBSEP d])) : "-" }
	# grew(): what pr[] (uratio()) says of a growth against 2x
	function grew() { return pr["hi"] <= 2 ? "within 2x" : pr["lo"] > 2 ? "more than 2x" : pr["lo"] > 1 ? "it grew, and whether by more than 2x is inside the noise" : "whether it grew at all is inside the noise" }
	function ratio(k, a, b,   v) {
		if (!((k SUBSEP a) in w) || !w[k SUBSEP b]) return "-"
		v = w[k SUBSEP a] / w[k SUBSEP b]
		return v < 0.01 ? sprintf("%.2gx", v) : sprintf("%.2fx", v)
	}
	END {
		for (i = 1; i <= ng; i++) {
			split(groups[i], x, SUBSEP); g = groups[i]
			conn = x[2] == "tcp" ? "global-conn" : "global"
			printf "### %s, %s tables (median of %d trials, cold runs of %d; ms; IQR in brackets)\n\n", toupper(x[2]), x[1], wreps, creps
			printf "| N | RFC per-netns ms | RFC / RFC at 10k | RFC sockhash ms | setns | setns / setns at 10k | netns-arg | chained |"
			if (x[2] == "tcp") printf " chained-conn |"
			printf " global |"
			if (x[2] == "tcp") printf " global-conn |"
			printf " sock_diag | index | diag-tuple | index, cold | diag-tuple, cold | setns / global | chained / global |"
			if (x[2] == "tcp") printf " chained-conn / global-conn |"
			printf " index / %s | index / diag-tuple |", conn
			print ""
			printf "| --- | --- | --- | --- | --- | --- | --- | --- |"
			if (x[2] == "tcp") printf " --- | --- | --- |"
			print " --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
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
				printf " %s | %s | %s | %s | %s | %s | %s |", cell(k, "sock_diag"), cell(k, "index"),
					cell(k, "diag-tuple"), cell(k, "index cold"), cell(k, "diag-tuple cold"),
					ratio(k, "setns", "global"), ratio(k, "chained", "global")
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
			# the index from 10k to the largest N, cold and warm: the
			# ratio of medians and its interval (uratio())
			n = top[g]; k = g SUBSEP n
			if (n > 10000 && (b SUBSEP "index cold") in w && (k SUBSEP "index cold") in w && w[b SUBSEP conn]) {
				uratio(smp[k SUBSEP "index cold"], smp[b SUBSEP "index cold"])
				gi = pfmt(); cov = pr["cov"]
				verdict = grew()
				uratio(smp[k SUBSEP "index"], smp[b SUBSEP "index"]); gw = pfmt(); covw = pr["cov"]; vw = grew()
				uratio(smp[k SUBSEP "diag-tuple cold"], smp[b SUBSEP "diag-tuple cold"]); gd = pfmt()
				printf "%s, %s tables: from N = 10k to %s the index'"'"'s kill, started cold, took %s the time (the ratio of the medians, and an interval that holds the ratio of the true medians with %.1f%% confidence or more; one world was built at each N, so the interval covers the trials'"'"' noise, not a rebuilt world'"'"'s): %s. Run warm, in rotation with the walks, it took %s, an interval of %.1f%% or more: %s. It read %d window positions at 10k and %d at %s: its work did not change while N grew %dx. The whole-host walk of the same sockets took %s; diag-tuple, the kernel'"'"'s lookup and destroy of the same sockets by tuple without BPF, %s started cold, and the index took %s of diag-tuple'"'"'s time at 10k and %s at %s (cold).\n\n",
					toupper(x[2]), x[1], count(n), gi, 100 * cov, verdict, gw, 100 * covw, vw,
					sl[b SUBSEP "index"], sl[k SUBSEP "index"], count(n), n / 10000,
					(x[2] == "tcp" ? sprintf("%.2fx (global-conn) and %.2fx (global)", w[k SUBSEP conn] / w[b SUBSEP conn], w[k SUBSEP "global"] / w[b SUBSEP "global"]) : sprintf("%.2fx", w[k SUBSEP conn] / w[b SUBSEP conn])),
					gd, ratio(b, "index cold", "diag-tuple cold"), ratio(k, "index cold", "diag-tuple cold"), count(n)
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
	awk -F, "$HDR$PAIR"'
	{
		k = $h["rep"] SUBSEP $h["proto"]
		v[k SUBSEP $h["index"] SUBSEP "cps"] = $h["connects_per_s"]
		v[k SUBSEP $h["index"] SUBSEP "p50"] = $h["connect_us_p50"]
		v[k SUBSEP $h["index"] SUBSEP "p99"] = $h["connect_us_p99"]
		rows[$h["rep"]]++
		kk = $h["connects"]
	}
	# the median over the repetitions of measure m of proto p with index s
	function mid(p, s, m,   a, j) { for (j = 1; j <= nr; j++) a[j] = v[reps[j], p, s, m]; psort(a, nr); return pmed(a, nr) }
	# the paired ratios on / off: median, and the kth lowest and kth
	# highest into r[] (the sign test'"'"'s interval, PAIR)
	function paired(p, m,   a, j) {
		for (j = 1; j <= nr; j++) a[j] = v[reps[j], p, "on", m] / v[reps[j], p, "off", m]
		psort(a, nr)
		r["med"] = pmed(a, nr); r["lo"] = a[kth]; r["hi"] = a[nr + 1 - kth]
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
		kth = signk(nr)
		printf "%d connections a repetition, %d repetitions: the intervals below, from the %slowest to the %shighest ratio, hold the median ratio with probability %.1f%%.\n\n",
			kk, nr, pord(kth), pord(kth), 100 * pconf(nr, kth)
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
				toupper(p), cm[p], nr, cl[p], ch[p], 100 * pconf(nr, kth), lm[p], ll[p], lh[p]
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
# calibration_section: the emulator's factor per cost (netns-bench
# --calibrate, make bench-calibrate): each cost natively on the host's own
# kernel and in the guest, on the same worlds.
calibration_section() {
	local c h
	c=$(pick calibration.csv) h=$(pick host.txt)
	[ -s "$c" ] && [ -s "$h" ] || return 0
	echo "## The emulator's factor, per cost"
	echo
	echo "The guest runs under $(accel "$(guest_of guest.txt)"), which does not slow every instruction alike."
	echo "\`make bench-calibrate\` (\`netns-bench --calibrate\`) times the walks a stock kernel"
	echo "has, the setns loop's \`iter/tcp\` and \`iter/udp\` and sock_diag, twice on the"
	echo "same worlds: natively on this machine's own kernel ($(sed -n 1p "$h"), $(sed -n 's/^cpus: //p' "$h") CPUs,"
	echo "$(sed -n 's/^model name[[:space:]]*: //p' "$h")), and in the guest on the bench kernel ($(sed -n 1p "$res/guest.txt")). So the"
	echo "factor below is guest over native: the emulator's, and also the"
	echo "difference between the two kernels and their shared tables' sizes. Each"
	echo "cost is the difference of two worlds: a bucket (empty namespaces with"
	echo "child tables of 4096 TCP or 65536 UDP slots against the smallest), a"
	echo "namespace (M against M / 4 empty namespaces with the smallest child"
	echo "tables: \`setns()\`, a link and a read, or a netlink dump, and the walk"
	echo "of an empty namespace, which for TCP holds the shared listening hash,"
	echo "and for sock_diag the bind hash, each at its kernel's size), a socket"
	echo "(one namespace of 10,000 against 1,000 sockets, child tables, each"
	echo "socket handed to the program or dumped) and \"shared\" (the same sockets"
	echo "in two namespaces on the shared tables, where each namespace's walk"
	echo "also steps over the other's: a socket handed once and stepped over"
	echo "once). The walks run from a namespace of their own. Medians"
	echo "of the repetitions, the two worlds timed in turn twice, each built afresh;"
	echo "the spread is the two worlds' IQRs added, a range, not a confidence"
	echo "interval. Reproduce with \`$(sed -n 's/^command: //p' "$h")\`."
	echo
	awk -F, "$HDR"'
	{ k = $h["proto"] SUBSEP $h["design"] SUBSEP $h["cost"]
	  if (!(k in seen)) { seen[k] = 1; keys[++n] = k }
	  v[k SUBSEP $h["where"]] = $h["ns_per_unit"]; sp[k SUBSEP $h["where"]] = $h["spread_ns"]; m = $h["reps"] }
	END {
		print "| proto | design | cost | native ns (spread) | guest ns (spread) | guest / native |"
		print "| --- | --- | --- | --- | --- | --- |"
		for (i = 1; i <= n; i++) {
			split(keys[i], x, SUBSEP)
			a = v[keys[i] SUBSEP "native"]; g = v[keys[i] SUBSEP "guest"]
			printf "| %s | %s | %s | %.1f (%.1f) | %.1f (%.1f) | %s |\n", x[1], x[2], x[3],
				a, sp[keys[i] SUBSEP "native"], g, sp[keys[i] SUBSEP "guest"],
				(a > 0 && a > sp[keys[i] SUBSEP "native"]) ? sprintf("%.1fx", g / a) : "not told apart from 0 natively"
		}
	}' "$c"
	echo
	awk -F, "$HDR"'
	{ k = $h["proto"] SUBSEP $h["design"] SUBSEP $h["cost"]
	  v[k SUBSEP $h["where"]] = $h["ns_per_unit"]; sp[k SUBSEP $h["where"]] = $h["spread_ns"] }
	END {
		lo = 1e18; hi = 0
		for (k in v) {
			split(k, x, SUBSEP)
			if (x[4] != "guest") continue
			b = x[1] SUBSEP x[2] SUBSEP x[3]
			a = v[b SUBSEP "native"]
			if (!(a > 0 && a > sp[b SUBSEP "native"])) continue
			f = v[k] / a
			# the factor'"'"'s bounds from the two spreads
			fl = (v[k] - sp[k]) / (a + sp[b SUBSEP "native"])
			fh = (v[k] + sp[k]) / (a - sp[b SUBSEP "native"])
			if (f < lo) { lo = f; lw = x[1] " " x[2] " per " x[3]; lofh = fh }
			if (f > hi) { hi = f; hw = x[1] " " x[2] " per " x[3]; hifl = fl }
		}
		if (hi == 0) exit
		printf "The factor runs from %.1fx (%s) to %.1fx (%s). ", lo, lw, hi, hw
		if (hifl > lofh)
			print "Even with each factor taken to the far end of its range (the spreads above), the lowest stays below the highest: these runs do not show one constant factor, so a ratio of two designs in the guest carries to hardware only where both spend their time on the same kind of cost. The exact counts (\"Exact work\") carry; these factors price each counted unit on each side."
		else
			print "With the factors taken to the ends of their ranges, they overlap: these runs do not tell them apart."
	}' "$c"
	echo
	echo "### Native estimates"
	echo
	echo "Each walk of the matrix, as a native time estimated from its exact counts"
	echo "and the native costs above: (buckets - (M + 1) x a namespace's own) x"
	echo "bucket + sockets handed x socket + (socket steps - handed) x (shared -"
	echo "socket) + (M + 1) x namespace. This is a model, not a measurement. The"
	echo "designs this project adds cannot run on the stock kernel, so the iter"
	echo "designs take the setns loop's iter costs (the same batching code runs"
	echo "them) and sock_diag its own; their cost per namespace is the setns"
	echo "loop's native one scaled by the design's guest cost per namespace over"
	echo "setns's (\`fixed.csv\`), \"?\" where that was not measured. A namespace's"
	echo "own buckets are those the namespace cost already holds: for TCP the"
	echo "shared listening hash (L, and for sock_diag the bind hash H), walked"
	echo "once per namespace, and an empty child table of the smallest size. What"
	echo "the model cannot see: the namespace cost holds the listening and bind"
	echo "hashes at the native kernel's size, not the guest's; socket locks and"
	echo "program runs are in the setns loop's socket cost, so the chained walk,"
	echo "which takes no socket lock, is priced as if it took one; socket steps"
	echo "beyond those handed include the batching walk's second test of each"
	echo "bucket's first match, priced as a step over another namespace's socket;"
	echo "the shared cost also holds what a sparse table adds per socket (most"
	echo "sockets alone in their bucket, each batched on its own), so the price of"
	echo "a step is an upper bound; chain lengths and caches differ between these"
	echo "worlds and the calibration's."
	echo "The last three columns are each term's share of the estimate."
	echo
	estimates
}

# estimates: every design's walk at every point of the matrix, as a native
# time estimated from its exact counts and the native costs of
# calibration.csv (a model, not a measurement):
#   buckets x bucket + handed x socket + (tested - handed) x skip
#     + (M + 1) x namespace
# handed: sockets handed to the program; tested: sockets the kernel
# counted; skip = shared - socket, what stepping over another namespace's
# socket adds.  The iter designs take the setns loop's iter costs, which
# run the same batching code; sock_diag its own.  namespace: natively
# measured for setns and sock_diag; for the others, which a stock kernel
# lacks, the setns loop's native cost times the design's guest cost per
# namespace over setns's (fixed.csv).
estimates() {
	local c f
	c=$(pick calibration.csv) f=$(pick fixed.csv)
	awk -F, -v L="$L" -v H="$H" "$NSCOST"'
	FNR == 1 { delete h; for (i = 1; i <= NF; i++) h[$i] = i; next }
	FILENAME == ARGV[1] { cost[$h["where"], $h["proto"], $h["design"], $h["cost"]] = $h["ns_per_unit"]; next }
	FILENAME == ARGV[2] { fixed_row(); next }
	$h["workload"] == "walk" && $h["kernel_buckets"] != "" { rows[++n] = $0 }
	# the buckets of one namespace'"'"'s walk that the namespace cost
	# already holds: its share of the shared listening hash (and for
	# sock_diag the bind hash), and an empty child table of the smallest size
	function nsbuckets(p, d, child) {
		if (p == "udp") return child ? 128 : 0
		return (d == "setns" || d == "netns-arg" || d == "chained" ? L : d == "sock_diag" ? L + H : 0) + (child ? 1 : 0)
	}
	# the model'"'"'s time of row x in ns, priced with where'"'"'s costs; its
	# terms in e[]; e["cn"] < 0 when the namespace cost is unknown
	function model(where, x,   p, d, m, src, cb, cs, skip, cn, hd, t, nb) {
		p = x[h["proto"]]; d = x[h["design"]]; m = x[h["m"]]
		src = d == "sock_diag" ? "sock_diag" : "setns"
		cb = cost[where, p, src, "bucket"]; cs = cost[where, p, src, "socket"]
		skip = cost[where, p, src, "shared"] - cs
		e["neg"] = skip < 0
		if (skip < 0) { skip = 0; negskip[where SUBSEP p SUBSEP src] = 1 }
		cn = cost[where, p, src, "namespace"]
		if (d != "setns" && d != "sock_diag")
			cn = nscost(p, "setns") <= 0 || nscost(p, d) <= 0 ? -1 : cn * nscost(p, d) / nscost(p, "setns")
		hd = x[h["sockets_seen"]]; t = x[h["kernel_sockets"]]
		nb = x[h["kernel_buckets"]] - (m + 1) * nsbuckets(p, d, x[h["tables"]] == "child")
		e["b"] = (nb > 0 ? nb : 0) * cb; e["s"] = hd * cs + (t - hd) * skip
		e["n"] = cn < 0 ? 0 : (m + 1) * cn; e["cn"] = cn
		return e["b"] + e["s"] + e["n"]
	}
	END {
		print "| proto | tables | M | S | design | guest ms | model, guest costs, ms | model / guest | native estimate ms | buckets | sockets | namespaces |"
		print "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
		rlo = 1e18; rhi = 0
		for (i = 1; i <= n; i++) {
			split(rows[i], x, ",")
			g = x[h["wall_ms_median"]]
			r = model("guest", x) / 1e6 / g
			ok = e["cn"] >= 0 && r >= 0.5 && r <= 2
			nok += ok; nwithin += ok
			if (r < rlo) rlo = r
			if (r > rhi) rhi = r
			gm = model("guest", x) / 1e6
			tot = model("native", x)
			if (e["neg"]) { nok -= ok; ok = 0 }
			printf "| %s | %s | %d | %d | %s | %.2f | %.2f%s | %.2f |", x[h["proto"]], x[h["tables"]], x[h["m"]], x[h["s"]], x[h["design"]],
				g, gm, e["cn"] < 0 ? " + ?" : "", r
			if (ok)
				printf " %.3f | %.0f%% | %.0f%% | %.0f%% |\n", tot / 1e6, 100 * e["b"] / tot, 100 * e["s"] / tot, 100 * e["n"] / tot
			else
				printf " not stated | | | |\n"
		}
		print ""
		printf "Priced with the guest'"'"'s own costs, the model lands within 2x of the guest'"'"'s measured time at %d of %d walks (model over measured from %.2f to %.2f), and is off by more elsewhere: it is a rough account of where the time goes, not a predictor. A native estimate is stated only where it lands within 2x and the native costs separate a step from a socket: %d walks.\n\n", nwithin, n, rlo, rhi, nok
		for (k in negskip) {
			split(k, x, SUBSEP)
			printf "For %s %s (%s) the shared cost came out below the socket cost: stepping over a socket is not separated from handling one, so the model cannot price it, and no native estimate of that protocol'"'"'s walks with it is stated.\n\n", x[2], x[3], x[1]
		}
	}' "$c" "$f" "$all"
}

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
	awk -F, "$HDR$PAIR"'
	{
		p = $h["proto"]; t = $h["tables"]; w = $h["workload"]
		pt = p SUBSEP t SUBSEP w SUBSEP $h["m"] SUBSEP $h["s"]
		smp[pt SUBSEP $h["design"]] = $h["wall_ms_samples"]
		if (t == "child" && $h["m"] > maxm) maxm = $h["m"]
		allpts[pt] = 1
	}
	# cmp(A, B, K): A against B, paired, at the point pt, counted under K
	function cmp(A, B, K) {
		if (!((pt SUBSEP A) in smp) || !((pt SUBSEP B) in smp)) return
		pair(smp[pt SUBSEP A], smp[pt SUBSEP B])
		n[K]++; v[K SUBSEP pr["v"]]++
		if (!(K in lo) || pr["med"] < lo[K]) lo[K] = pr["med"]
		if (!(K in hi) || pr["med"] > hi[K]) hi[K] = pr["med"]
	}
	function says(K) {
		return sprintf("faster at %d, not told apart at %d, slower at %d of %d", v[K SUBSEP "faster"], v[K SUBSEP "not told apart"], v[K SUBSEP "slower"], n[K])
	}
	END {
		for (pt in allpts) {
			split(pt, x, SUBSEP)
			if (x[2] == "shared" && x[3] == "walk") cmp("setns", "global", x[1] SUBSEP "setns-shared")
			if (x[2] == "child" && x[4] == maxm) cmp("chained", "global", x[1] SUBSEP "chained-child")
			cmp("chained", "setns", x[1] SUBSEP "chained-setns" SUBSEP x[2])
			cmp("chained-conn", "global-conn", x[1] SUBSEP "conn" SUBSEP x[2])
		}
		printf "In the committed run (the bench kernel under %s, %s repetitions%s; a ratio is\n",
			accel, reps, creps != "" ? ", the index'"'"'s cold runs " creps : ""
		print "paired repetition by repetition, and a design is faster or slower only where"
		print "the ratio'"'"'s 95% interval excludes 1; the index bullet gives ratios of"
		print "medians of different worlds, with intervals of 95% or more; absolute"
		print "times under the emulator are not the result):"
		print ""
		for (pi = 1; pi <= 2; pi++) {
			p = pi == 1 ? "tcp" : "udp"; P = toupper(p)
			k = p SUBSEP "setns-shared"
			printf "- %s, shared tables, walk: the setns loop takes %.1fx to %.1fx the time of\n", P, lo[k], hi[k]
			printf "  the whole-host walk (paired medians), slower at %d of %d points.\n", v[k SUBSEP "slower"], n[k]
			k = p SUBSEP "chained-child"
			printf "- %s, child tables, M = %d: the chained walk takes %.2fx to %.2fx the time of\n", P, maxm, lo[k], hi[k]
			printf "  the whole-host walk; against it, %s points and workloads.\n", says(k)
			printf "- %s, the chained walk against the setns loop: on shared tables %s;\n", P, says(p SUBSEP "chained-setns" SUBSEP "shared")
			printf "  on child tables %s.\n", says(p SUBSEP "chained-setns" SUBSEP "child")
		}
		if (n["tcp" SUBSEP "conn" SUBSEP "shared"] + n["tcp" SUBSEP "conn" SUBSEP "child"] == 0) exit
		print "- TCP, connected sockets only (both walks skip the listeners, like for like):"
		printf "  the chained walk against the whole-host walk, on shared tables %s;\n", says("tcp" SUBSEP "conn" SUBSEP "shared")
		printf "  on child tables %s.\n", says("tcp" SUBSEP "conn" SUBSEP "child")
	}' accel="$accel" reps="$(awk -F, "$HDR"' { print $h["reps"]; exit }' "$all")" \
		creps="$(awk -F, "$HDR"' $h["start"] == "cold" { print $h["reps"]; exit }' "$(pick scale.csv)" 2>/dev/null)" "$all"
	local f m sc
	f=$(pick fixed.csv) m=$(pick memory.csv) sc=$(pick scale.csv)
	if [ -s "$f" ]; then
		awk -F, "$HDR$NSCOST"'
		{ if (mlo == "" || $h["m"] < mlo) mlo = $h["m"]
		  if ($h["m"] > mhi) mhi = $h["m"]
		  fixed_row() }
		END {
			printf "- An empty namespace (child tables, no socket) costs the setns loop, on\n"
			printf "  average from M = %d to %d under TCG (each step of M: \"What a namespace\n", mlo, mhi
			printf "  costs\"), %.1f us (TCP) and %.1f us (UDP), the chained walk %.1f and %.1f us;\n",
				nscost("tcp", "setns"), nscost("udp", "setns"), nscost("tcp", "chained"), nscost("udp", "chained")
			printf "  TCP walks that leave the shared listening hash out, chained-conn\n"
			printf "  %.1f us and global-conn %.1f us.\n", nscost("tcp", "chained-conn"), nscost("tcp", "global-conn")
		}' "$f"
	fi
	if [ -s "$sc" ]; then
		# the largest N at which the setns loop ran; the shared tables'
		# sizes from the guest that ran it
		local gs
		gs=$(guest_of guest-scale.txt)
		awk -F, -v tslots="$(guest_sysctl "$gs" net.ipv4.tcp_ehash_entries)" \
			-v uslots="$(guest_sysctl "$gs" net.ipv4.udp_hash_entries)" "$HDR$PAIR"'
		$h["tables"] == "shared" && $h["start"] == "warm" { all[$h["proto"], $h["n"], $h["design"]] = $h["wall_ms_samples"]; m = $h["m"]; d = $h["destroyed"]
			if ($h["design"] == "setns" && $h["n"] + 0 > max[$h["proto"]]) max[$h["proto"]] = $h["n"] + 0 }
		# design a over the whole-host walk, paired, at the largest N of p
		function rw(p, a) { pair(w[p SUBSEP a], w[p SUBSEP "global"]); return sprintf("%.1fx (%.1f to %.1f)", pr["med"], pr["lo"], pr["hi"]) }
		# (a median of paired ratios: not the table'"'"'s ratio of medians)
		END {
			if (!("tcp" in max) || !("udp" in max)) exit
			for (k in all) { split(k, x, SUBSEP); if (x[2] + 0 == max[x[1]]) w[x[1] SUBSEP x[3]] = all[k] }
			printf "- The RFC'"'"'s world (%d namespaces on shared tables", m
			if (tslots != "" && uslots != "")
				printf " of %d TCP and %d UDP slots", tslots, uslots
			printf ", %d sockets destroyed):\n", d
			printf "  the setns loop takes %s the time of the whole-host walk (paired medians) at %d TCP sockets\n",
				rw("tcp", "setns"), max["tcp"]
			printf "  and %s at %d UDP sockets; the chained walk %s and %s.\n",
				rw("udp", "setns"), max["udp"], rw("tcp", "chained"), rw("udp", "chained")
		}' "$sc"
	fi
	if [ -s "$sc" ] && grep -q ',index,' "$sc"; then
		# the index on shared tables, from 10k to the largest N
		awk -F, "$COUNT$HDR$PAIR"'
		$h["tables"] == "shared" { d = $h["design"] ($h["start"] == "cold" ? " cold" : "")
			w[$h["proto"], $h["n"], d] = $h["wall_ms_median"]
			smp[$h["proto"], $h["n"], d] = $h["wall_ms_samples"]
			m = $h["m"]; nd = $h["destroyed"]
			if ($h["n"] + 0 > max) max = $h["n"] + 0 }
		function g(p, d) { return w[p, max, d] / w[p, 10000, d] }
		# the index'"'"'s growth, with its interval (uratio()), the
		# lowest coverage in cov
		function gi(p) { uratio(smp[p, max, "index cold"], smp[p, 10000, "index cold"]); if (pr["cov"] < cov) cov = pr["cov"]; return pfmt() }
		END {
			if (!(("tcp", 10000, "index cold") in w) || !(("udp", max, "index cold") in w)) exit
			cov = 1; t = gi("tcp"); u = gi("udp")
			printf "- The socket index (%d sockets among N, %d namespaces, shared tables):\n", nd, m
			printf "  from N = 10k to %s its kill took %s the time for TCP and %s for UDP\n", count(max), t, u
			printf "  (trials started cold; intervals of %.1f%% or more),\n", 100 * cov
			printf "  SOCK_DESTROY by tuple of the same sockets %.2fx and %.2fx, the whole-host\n", g("tcp", "diag-tuple cold"), g("udp", "diag-tuple cold")
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
	echo "### Reading the ratios"
	echo
	echo "Every design of a point runs once in each repetition (the order rotated"
	echo "by one each time), so two designs are compared repetition by"
	echo "repetition: the paired ratio of their wall times. With R repetitions,"
	echo "taken as independent, the kth lowest and kth highest of the R paired"
	echo "ratios hold their median with probability 1 - 2 P(X < k), X"
	echo "binomial(R, 1/2), whatever their distribution (the sign test's"
	echo "interval); k is the largest that keeps that 95% or more (here $(sign_text))."
	echo "A ratio is written \"median (low to high)\". A design is faster or"
	echo "slower than another only where that whole interval is below or above 1;"
	echo "otherwise the two are not told apart, whatever the medians say. Each"
	echo "comparison is a test of its own at that coverage: of many comparisons of"
	echo "designs that cost the same, up to a few in a hundred could still come out"
	echo "faster or slower. The repetitions are taken as independent, though the order of"
	echo "the designs in a repetition rotates and the host's speed may drift. The"
	echo "tables give each design's median and IQR over the repetitions beside"
	echo "them, unpaired."
	echo
	echo "### The cover letter's table"
	echo
	cover_bench
	echo
	echo "### Each design against the whole-host walk"
	echo
	echo "Designs that walk every socket (chained-conn and global-conn walk"
	echo "connected sockets only and are compared with each other below): at how"
	echo "many points each is faster than the whole-host walk, not told apart"
	echo "from it, or slower, and its paired medians, lowest to highest."
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
	calibration_section
	fixed_section
	empty_section
	echo "## Exact work: what the kernel counted"
	echo
	if [ -n "$B" ] && [ -n "$L" ] && [ -n "$b" ] && [ -n "$U" ] && [ -n "$u" ] && [ -n "$H" ] &&
	   awk -F, -v c="$(col kernel_buckets)" 'NR > 1 && $c != "" { f = 1 } END { exit !f }' "$all"; then
		echo "Walk workload, each design's untimed counted run (the same world, program"
		echo "and work as its timed runs). These counts do not depend on the machine's"
		echo "speed or the emulator: with the same table sizes (the kernel sizes its"
		echo "shared tables from memory at boot) they carry to real hardware."
		echo "The bench kernel's counters (\`kernel/bench/\`, CONFIG_SOCK_WALK_STATS,"
		echo "switched on for the counted runs only) count every CPU and task, on a"
		echo "guest with nothing else running: hash buckets visited, empty or not,"
		echo "against the cost model's count with this guest's B = $B, L = $L, b = $b,"
		echo "H = $H (the TCP bind hash, which sock_diag walks), U = $U and u = $u (see"
		echo "the comment of counters() in bench/report.sh); socket steps (each test of"
		echo "a socket's namespace, or state in the bind hash, and each socket stepped"
		echo "over to find where a walk left off: a batching walk tests a bucket's"
		echo "first match twice), against the sockets handed to the program; socket"
		echo "locks taken (\`lock_sock()\`, \`lock_sock_fast()\`); BPF iterator program"
		echo "runs; and, for the driver's thread, syscalls and slab allocations."
		echo
		echo "| proto | tables | M | S | design | buckets | model | buckets / model | socket steps | sockets handed | socket locks | program runs | syscalls | allocations |"
		echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
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
		 calibration.csv host.txt \
		 profile-empty-tcp.txt guest.txt guest-empty.txt guest-scale.txt \
		 guest-section.txt world.txt; do
		if [ -s "$res/$f" ]; then cp "$res/$f" "$docs/bench/"; fi
	done
fi
echo "wrote $docs/BENCHMARKS.md${readme:+ and the headline of $readme}"
