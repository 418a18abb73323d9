#!/usr/bin/env bats
# tests/upstream-compare's comparison, on made-up test_progs output (-c:
# no guest): a subtest that passes on the unpatched kernel must pass on the
# patched one; what fails on both is no regression.

load ../bats/helpers

setup() {
	dir=$(mktemp -d)
}

teardown() {
	rm -rf "$dir"
}

# run_log NAME: DIR/NAME.log and NAME.json from stdin, as one guest run
# of test_progs leaves them, and a clean guest exit status.
run_log() {
	cat > "$dir/$1.log"
	echo 0 > "$dir/$1.status"
	echo '{"success":0,"success_subtest":0,"skipped":0,"failed":1,"failed_subtest":1,"results":[
	  {"name":"verifier_and","number":1,"message":"","failed":true,"subtests":[
	    {"name":"invalid and: ok","number":2,"message":"run_subtest:FAIL:load unexpected error: -22\n","failed":true}]}]}' \
		> "$dir/$1.json"
}

unpatched() {
	run_log unpatched <<'EOF'
#1/1     verifier_and/invalid and: ok:OK
#1/2     verifier_and/invalid and: ok:OK
#1/3     verifier_and/needs testmod:FAIL
#1       verifier_and:FAIL
#2/1     iters/num:OK
#2/2     iters/testmod_seq:SKIP
#2       iters:OK (SKIP: 1/2)
#3       irq:OK
Summary: 2/3 PASSED, 1 SKIPPED, 1/1 FAILED

All error logs:
#1/3     verifier_and/needs testmod:FAIL
EOF
}

@test "same results on both kernels: no regression, counts of each" {
	unpatched
	cp "$dir/unpatched.log" "$dir/patched.log"
	echo 0 > "$dir/patched.status"
	run "$TOP/tests/upstream-compare" -c -o "$dir"
	assert_success
	assert_line "1..3"
	assert_line "ok 1 - upstream tests on the unpatched kernel: 5 subtests run, 3 passed, 1 failed, 1 skipped (?s)"
	assert_line --partial "ok 2 - upstream tests on the patched kernel: 5 subtests run, 3 passed"
	assert_line "ok 3 - no upstream subtest that passes on the unpatched kernel fails on the patched one"
}

@test "a subtest that fails or is gone on the patched kernel is a regression, with its log" {
	unpatched
	run_log patched <<'EOF'
#1/1     verifier_and/invalid and: ok:OK
#1/2     verifier_and/invalid and: ok:FAIL
#1/3     verifier_and/needs testmod:FAIL
#1       verifier_and:FAIL
#2       iters:FAIL
#3       irq:FAIL
Summary: 0/1 PASSED, 0 SKIPPED, 3/2 FAILED
EOF
	run "$TOP/tests/upstream-compare" -c -o "$dir"
	assert_failure
	assert_line "ok 2 - upstream tests on the patched kernel: 3 subtests run, 1 passed, 2 failed, 0 skipped (?s)"
	assert_line "not ok 3 - 3 upstream subtests pass on the unpatched kernel and not on the patched one"
	# The second subtest of that name, the one that failed.
	assert_line "# regression: verifier_and/invalid and: ok (2): FAIL"
	assert_line "# regression: iters/num: not run"
	assert_line "# regression: irq: FAIL"
	refute_line --partial "needs testmod"
	refute_line --partial "regression: iters: "
}

@test "a regression's log comes from the patched run's JSON summary" {
	unpatched
	sed 's/^#1\/1 .*/#1\/1     verifier_and\/invalid and: ok:FAIL/; /^#1\/2 /d' \
		"$dir/unpatched.log" > "$dir/patched.log"
	echo 0 > "$dir/patched.status"
	cp "$dir/unpatched.json" "$dir/patched.json"
	run "$TOP/tests/upstream-compare" -c -o "$dir"
	assert_failure
	assert_line "# regression: verifier_and/invalid and: ok: FAIL"
	assert_line "#   run_subtest:FAIL:load unexpected error: -22"
}

@test "a patched run that did not finish fails" {
	unpatched
	printf '#1/1     verifier_and/invalid and: ok:OK\n' > "$dir/patched.log"
	echo 125 > "$dir/patched.status"
	echo "Error: the guest stopped before the command finished" > "$dir/patched.vm"
	run "$TOP/tests/upstream-compare" -c -o "$dir"
	assert_failure
	assert_line --partial "not ok 2 - upstream tests on the patched kernel: no results (guest exit status 125"
	assert_line "#   Error: the guest stopped before the command finished"
	assert_line "not ok 3 - no comparison: a run gave no results"
}

@test "a splat fails the patched kernel's run, and is only noted on the unpatched one" {
	unpatched
	cp "$dir/unpatched.log" "$dir/patched.log"
	echo 126 > "$dir/patched.status"
	echo 126 > "$dir/unpatched.status"
	echo "Error: the guest's kernel log has a splat:" | tee "$dir/patched.vm" > "$dir/unpatched.vm"
	run "$TOP/tests/upstream-compare" -c -o "$dir"
	assert_failure
	assert_line --regexp "^ok 1 - .* \(the unpatched kernel's log has a splat\)$"
	assert_line --regexp "^not ok 2 - .*; the guest's kernel log has a splat$"
	assert_line "ok 3 - no upstream subtest that passes on the unpatched kernel fails on the patched one"
}

@test "upstream-compare refuses an unknown option with a clear error" {
	run "$TOP/tests/upstream-compare" --bogus
	assert_failure
	assert_output --partial "unknown argument '--bogus'"
}

# fake_build: a build directory (NETNS_ITER_BUILD) with what the baseline's
# key hashes, and no unpatched run in DIR.
fake_build() {
	mkdir -p "$dir/build/kbuild" "$dir/build/selftests"
	echo "CONFIG_NET_NS=y" > "$dir/build/kbuild/.config"
	echo "verifier_and" > "$dir/build/selftests/upstream-tests"
	touch "$dir/build/selftests/.clang-clang-19"
	export NETNS_ITER_BUILD=$dir/build
}

@test "the committed baseline stands in for the unpatched run while its key matches" {
	local key
	unpatched
	cp "$dir/unpatched.log" "$dir/patched.log"
	echo 0 > "$dir/patched.status"
	run "$TOP/tests/upstream-compare" -c -o "$dir"
	assert_success
	{ echo "# made up"; echo "# key 0000000000000000"; cat "$dir/unpatched.results"; } > "$dir/baseline"
	rm -f "$dir"/unpatched.*
	fake_build
	# A key that is not the tree's: the baseline does not apply.
	run "$TOP/tests/upstream-compare" -c -o "$dir" -b "$dir/baseline"
	assert_failure
	assert_output --regexp "the baseline's key is 0000000000000000, the tree's [0-9a-f]{16}: its results do not apply"
	assert_output --partial "no unpatched run in $dir and no baseline that applies"
	key=$(sed -n "s/.*the tree's \([0-9a-f]*\):.*/\1/p" <<< "$output")
	sed -i "s/^# key .*/# key $key/" "$dir/baseline"
	run "$TOP/tests/upstream-compare" -c -o "$dir" -b "$dir/baseline"
	assert_success
	assert_line "ok 1 - upstream tests on the unpatched kernel: 5 subtests run, 3 passed, 1 failed, 1 skipped (baseline $key)"
	assert_line "ok 3 - no upstream subtest that passes on the unpatched kernel fails on the patched one"
	# The baseline's results are compared: a subtest OK there and failed
	# on the patched kernel is a regression.
	sed -i 's/^#2\/1 .*/#2\/1     iters\/num:FAIL/' "$dir/patched.log"
	run "$TOP/tests/upstream-compare" -c -o "$dir" -b "$dir/baseline"
	assert_failure
	assert_line "# regression: iters/num: FAIL"
	# A baseline with no passing subtest is no baseline.
	sed -i 's/\tOK$/\tFAIL/' "$dir/baseline"
	rm -f "$dir"/unpatched.*
	run "$TOP/tests/upstream-compare" -c -o "$dir" -b "$dir/baseline"
	assert_failure
	assert_output --partial "has no passing subtest"
	# Another .config is another key.
	rm -f "$dir"/unpatched.*
	echo "CONFIG_NET_NS=n" > "$dir/build/kbuild/.config"
	run "$TOP/tests/upstream-compare" -c -o "$dir" -b "$dir/baseline"
	assert_failure
	assert_output --partial "the baseline's key is $key, the tree's"
}
