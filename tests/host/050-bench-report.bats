#!/usr/bin/env bats
# The committed benchmark documents say what the committed CSV says:
# bench/report.sh, run again on docs/bench/ (without redrawing the plots),
# writes docs/BENCHMARKS.md and README's headline exactly as committed,
# and the bound patch 8's message states is the one it computes.
# A figure edited by hand, or a CSV committed without its report, fails.

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
