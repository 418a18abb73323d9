#!/usr/bin/env bats
# netns-reap under bad input: 10,000 generated command lines (tests/cli-fuzz.c)
# against the tool built with AddressSanitizer and UBSan.  Each run has
# bpf() and setns() forbidden, so a refusal provably came before anything
# could be destroyed.  FUZZ_SEED picks other lines; a failure prints its
# command line.

load ../bats/helpers
bats_require_minimum_version 1.5.0

FUZZ=$BUILD/bin/cli-fuzz
ASAN_REAP=$BUILD/bin/netns-reap-asan

setup_file() {
	mkfifo "$BATS_FILE_TMPDIR/fifo"
	touch "$BATS_FILE_TMPDIR/file"
}

@test "the sanitizer build runs clean" {
	run --separate-stderr "$ASAN_REAP" --version
	assert_success
	[ -z "$stderr" ] || fail "sanitizer output on --version: $stderr"
}

@test "10,000 generated command lines: no crash, no hang, no sanitizer report, every refusal an Error before any BPF" {
	local parsed refused
	run "$FUZZ" -j "$(nproc)" -n 10000 -s "${FUZZ_SEED:-1}" -d "$BATS_FILE_TMPDIR" "$ASAN_REAP"
	assert_success
	assert_line --regexp '^10000 runs: .* 0 failed$'
	# Both sides are covered: lines refused, and lines that got past parsing.
	refused=$(sed -n 's/.* \([0-9]*\) refused,.*/\1/p' <<< "${lines[-1]}")
	parsed=$(sed -n 's/.* \([0-9]*\) parsed .*/\1/p' <<< "${lines[-1]}")
	[ "$refused" -ge 5000 ] && [ "$parsed" -ge 1000 ] || fail "too one-sided: ${lines[-1]}"
}
