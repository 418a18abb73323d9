#!/usr/bin/env bats
# make bench-smoke, inside make check: the benchmark driver runs every
# design and workload on a tiny world, and the designs agree on what they
# walked, so the benchmark cannot rot unnoticed.

load helpers

setup_file() {
	OUT=$BATS_FILE_TMPDIR/bench
	export OUT
	"$BUILD/bin/netns-bench" --smoke --out "$OUT" > "$BATS_FILE_TMPDIR/log" 2>&1 ||
		{ tail -n 5 "$BATS_FILE_TMPDIR/log" >&3; return 1; }
}

@test "bench-smoke writes one CSV row per point, design and workload" {
	[ -s "$OUT/results.csv" ] || fail "no CSV: $(cat "$BATS_FILE_TMPDIR/log")"
	# 2 tables x 2 sizes x (7 TCP + 5 UDP designs) x 3 workloads, plus
	# the header
	run wc -l < "$OUT/results.csv"
	assert_output "145"
	for d in setns netns-arg chained chained-conn global global-conn sock_diag; do
		grep -q ",$d,walk,.*,tcp," "$OUT/results.csv" || fail "no $d TCP walk row"
	done
	for d in setns netns-arg chained global sock_diag; do
		grep -q ",$d,walk,.*,udp," "$OUT/results.csv" || fail "no $d UDP walk row"
	done
}

@test "every design walks the same sockets on the same world" {
	# setns, netns-arg and sock_diag walk the pods and the host: the same
	# sockets.  chained and global walk every namespace, so also what
	# earlier tests left behind (a dying namespace's TIME_WAIT sockets, for
	# the whole-host walk): at least as many.
	run awk -F, 'NR > 1 && $5 == "walk" { k = $17 " " $1 " " $2 " " $3
			if ($4 ~ /-conn$/) next
			if ($4 == "chained" || $4 == "global") { all[k " " $4] = $12; next }
			if (!(k in v)) v[k] = $12; else if (v[k] != $12) print "per-netns differ:", k }
		END { for (x in all) { split(x, f, " "); k = f[1] " " f[2] " " f[3] " " f[4]
			if (all[x] < v[k]) print x, all[x], "<", v[k] } }' "$OUT/results.csv"
	assert_output ""
	# 4 namespaces x (10 sockets and 10 listeners or unconnected UDP
	# backends), for TCP and UDP on both kinds of table
	run awk -F, 'NR > 1 && $2 == 4 && $5 == "walk" && $4 == "netns-arg" { print $12 }' \
		"$OUT/results.csv"
	assert_output "$(printf '80\n80\n80\n80')"
}

@test "chained-conn and global-conn skip the listeners: every pod's ten, at least" {
	run awk -F, 'NR > 1 && $17 == "tcp" && $5 == "walk" {
			k = $1 " M=" $2 " S=" $3; n[k " " $4] = $12; m[k] = $2 }
		END { for (k in m) {
			for (i = 1; i <= 2; i++) {
				d = i == 1 ? "chained" : "global"
				if (n[k " " d] - n[k " " d "-conn"] < 10 * m[k])
					print k ":", d, n[k " " d], d "-conn", n[k " " d "-conn"] }
			# the same connected sockets, and for the whole-host walk
			# also what earlier tests left behind: at least as many
			if (n[k " global-conn"] < n[k " chained-conn"])
				print k ": global-conn", n[k " global-conn"], "<", n[k " chained-conn"] } }' \
		"$OUT/results.csv"
	assert_output ""
}

@test "the kernel counts each design's syscalls and allocations" {
	# setns makes two setns(), an iterator, a read and a close per
	# namespace (M pods and the host); the chained walk a few in all,
	# whatever M; and every walk allocates something (its iterator).
	run awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$h["workload"] != "walk" { next }
		$h["design"] == "setns" && $h["syscalls"] < 5 * ($h["m"] + 1) { print "setns:", $0 }
		$h["design"] == "chained" && $h["syscalls"] > 10 { print "chained:", $0 }
		$h["kernel_allocs"] < 1 { print "no allocation:", $0 }
		!($h["wall_ms_p25"] <= $h["wall_ms_median"] && $h["wall_ms_median"] <= $h["wall_ms_p75"]) {
			print "quartiles:", $0 }' "$OUT/results.csv"
	assert_output ""
}
