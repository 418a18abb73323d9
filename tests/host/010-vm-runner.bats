#!/usr/bin/env bats
# The VM runner: its exit status is the guest command's, and a splat in the
# guest's kernel log fails the run.

load ../bats/helpers

RUN=$TOP/tests/vm/run

@test "vm/run passes the guest command's exit status" {
	run "$RUN" -- sh -c 'echo hello from $(uname -n); exit 7'
	assert_equal "$status" 7
	assert_output --partial "hello from netns-iter-guest"
}

@test "vm/run -- false exits non-zero" {
	run "$RUN" -- false
	assert_failure
}

@test "a splat in the guest's kernel log fails the run and is named" {
	run "$RUN" -- sh -c 'echo "WARNING: CPU: 0 PID: 1 at test" > /dev/kmsg'
	assert_failure
	assert_output --partial "has a splat"
	assert_output --partial "WARNING: CPU: 0 PID: 1 at test"
}

@test "vm/run refuses an unknown option with a clear error" {
	run "$RUN" --bogus true
	assert_failure
	assert_output --partial "unknown option '--bogus'"
}
