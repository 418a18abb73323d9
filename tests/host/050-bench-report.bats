#!/usr/bin/env bats
# The committed benchmark documents say what the committed CSV says:
# bench/report.sh, run again on docs/bench/ (without redrawing the plots),
# writes docs/BENCHMARKS.md and README's headline exactly as committed,
# and the bound patch 8's message states is the one it computes.
# A figure edited by hand, or a CSV committed without its report, fails.
# The paired comparison behind every verdict is checked on ratios whose
# answer is known.

load ../bats/helpers

setup() {
	dir=$(mktemp -d)
	mkdir -p "$dir/res" "$dir/docs/bench"
	cp "$TOP"/docs/bench/* "$dir/res/"
	cp "$TOP"/docs/bench/*.png "$dir/docs/bench/"
	cp "$TOP/docs/BENCHMARKS.head.md" "$dir/docs/"
	cp "$TOP/README.md" "$dir/README.md"
}

teardown() {
	rm -rf "$dir"
}

@test "docs/BENCHMARKS.md is what report.sh computes from docs/bench/results.csv" {
	run "$TOP/bench/report.sh" --no-plots "$dir/res" "$dir/docs" "$dir/README.md"
	assert_success
	run diff -u "$TOP/docs/BENCHMARKS.md" "$dir/docs/BENCHMARKS.md"
	assert_success
}

@test "README's headline ratios are what report.sh computes from the CSV" {
	run "$TOP/bench/report.sh" --no-plots "$dir/res" "$dir/docs" "$dir/README.md"
	assert_success
	# the block holds ratios that are not zero, so an empty or a
	# vacuous one cannot pass
	run sh -c "sed -n '/bench-headline begin/,/bench-headline end/p' '$dir/README.md' |
		grep -Eo '[0-9]+\.[0-9]+x' | grep -vc '^0\.0*x\$'"
	[ "$output" -ge 4 ] || fail "README's headline has $output ratios that are not zero"
	run diff -u "$TOP/README.md" "$dir/README.md"
	assert_success
}

@test "patch 8 states the longest section that report.sh computes" {
	local said
	run "$TOP/bench/report.sh" --no-plots "$dir/res" "$dir/docs"
	assert_success
	said=$(grep -o "The longest section at N = .*" "$dir/docs/BENCHMARKS.md") ||
		fail "no longest section in BENCHMARKS.md: run make bench-section"
	# the message is wrapped: compare it as one line
	tr '\n' ' ' < "$TOP/kernel/series/08-open-coded.msg" | tr -s ' ' |
		grep -qiF "$said" || fail "kernel/series/08-open-coded.msg does not say: $said"
}

# The paired comparison every verdict rests on (PAIR in bench/report.sh).
pair_awk() {
	eval "$(sed -n "/^PAIR='/,/^'\$/p" "$TOP/bench/report.sh")"
	awk "$PAIR$1" < /dev/null
}

@test "the sign test's interval: which ratios bound the median, with what coverage" {
	# k is the largest with 1 - 2 P(X < k) >= 95%, X binomial(R, 1/2)
	run pair_awk 'BEGIN { for (r = 5; r <= 15; r += 2) printf "%d %d %.1f\n", r, signk(r), 100 * signcov(r) }'
	assert_output "$(printf '5 1 93.8\n7 1 98.4\n9 2 96.1\n11 2 98.8\n13 3 97.8\n15 4 96.5')"
}

@test "a paired verdict: slower or faster only when the whole interval leaves 1" {
	run pair_awk 'BEGIN {
		pair("11;12;13;14;15;16;17", "10;10;10;10;10;10;10"); print pr["v"], pfmt()
		pair("9;9;9;9;9;9;9", "10;11;10;12;10;10;10"); print pr["v"], pfmt()
		pair("9;11;9;9;9;9;9", "10;10;10;10;10;10;10"); print pr["v"], pfmt()
		pair("11;12;13;14;15", "10;10;10;10;10"); print pr["v"], pfmt() }'
	assert_output "$(printf '%s\n' 'slower 1.40x (1.10 to 1.70)' 'faster 0.90x (0.75 to 0.90)' \
		'not told apart 0.90x (0.90 to 1.10)' 'not told apart 1.30x (1.10 to 1.50)')"
}

@test "an unpaired ratio of medians: each median bounded at 97.5%, the ratio at 95%" {
	# 15 trials: the 3rd lowest and highest bound each median (99.3%);
	# the ratio's bounds are A's over B's, crossed
	run pair_awk 'BEGIN {
		uratio("2;4;6;8;10;12;14;16;18;20;22;24;26;28;30", "15;14;13;12;11;10;9;8;7;6;5;4;3;2;1")
		printf "%s %.1f\n", pfmt(), 100 * pr["cov"]
		uratio("3;1;2;5;4;7;6", "1;1;1;1;1;1;1")
		printf "%s %.1f\n", pfmt(), 100 * pr["cov"] }'
	assert_output "$(printf '%s\n' '2.00x (0.46 to 8.67) 98.5' '4.00x (1.00 to 7.00) 96.9')"
}
