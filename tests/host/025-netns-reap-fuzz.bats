#!/usr/bin/env bats
# netns-reap under bad input: FUZZ_N generated command lines (tests/cli-fuzz.c)
# against the tool built with AddressSanitizer and UBSan.  Each run has
# bpf() and setns() forbidden, so a refusal provably came before anything
# could be destroyed.  FUZZ_SEED picks other lines; a failure prints its
# command line.  make check runs 2,000 lines (about 80 s under ASan);
# make fuzz runs 10,000, or FUZZ_N=N.

load ../bats/helpers
bats_require_minimum_version 1.5.0

FUZZ=$BUILD/bin/cli-fuzz
FUZZ_N=${FUZZ_N:-2000}
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

@test "$FUZZ_N generated command lines: no crash, no hang, no sanitizer report, every refusal an Error before any BPF" {
	local parsed refused
	run "$FUZZ" -j "$(nproc)" -n "$FUZZ_N" -s "${FUZZ_SEED:-1}" -d "$BATS_FILE_TMPDIR" "$ASAN_REAP"
	assert_success
	assert_line --regexp "^$FUZZ_N runs: .* 0 failed\$"
	# Both sides are covered: lines refused, and lines that got past parsing.
	refused=$(sed -n 's/.* \([0-9]*\) refused,.*/\1/p' <<< "${lines[-1]}")
	parsed=$(sed -n 's/.* \([0-9]*\) parsed .*/\1/p' <<< "${lines[-1]}")
	[ "$refused" -ge $((FUZZ_N / 2)) ] && [ "$parsed" -ge $((FUZZ_N / 10)) ] || fail "too one-sided: ${lines[-1]}"
}
