#!/usr/bin/env bats
# The VM runner: its exit status is the guest command's, and a splat in the
# guest's kernel log fails the run.

load ../bats/helpers

# Its boots here run without kmemleak, as tests/run-all boots the guest
# files other than KMEMLEAK_FILES: kmemleak's two 5-second waits and four
# scans add about 33 s to a boot under TCG (17 s against 50 s measured).
RUN=$TOP/tests/vm/run
QUICK=(-a kmemleak=off)

@test "vm/run passes the guest command's exit status" {
	run "$RUN" "${QUICK[@]}" -- sh -c 'echo hello from $(uname -n); exit 7'
	assert_equal "$status" 7
	assert_output --partial "hello from netns-iter-guest"
}

# hidden_cmds: the commands of the host's PATH that the guest must hide.
hidden_cmds() {
	local pat d f
	grep -v '^#' "$TOP/scripts/guest-hidden.txt" | while read -r pat; do
		for d in ${PATH//:/ }; do
			for f in "$d"/$pat; do
				[ -x "$f" ] && basename "$f"
			done
		done
	done | sort -u
}

@test "the guest has no Python: the suite and the demo cannot use it" {
	local cmds
	cmds=$(hidden_cmds | tr '\n' ' ')
	[ -n "$cmds" ] || skip "nothing of scripts/guest-hidden.txt on this host to hide"
	run "$RUN" "${QUICK[@]}" -- sh -c 'for p in '"$cmds"'; do
		command -v $p >/dev/null || continue
		$p -c "print(1)" </dev/null >/dev/null 2>&1 && echo "$p runs"
	done; echo checked'
	assert_success
	assert_line checked
	refute_output --partial "runs"
}

@test "vm/run -a adds to the guest kernel's command line, word by word" {
	# kmemleak=off is no error; a glob stays a word, even one that matches.
	cd "$BATS_TEST_TMPDIR"
	touch netns_iter.probe=x
	run "$RUN" -a 'kmemleak=off netns_iter.probe=*' -- cat /proc/cmdline
	assert_success
	assert_line --regexp ' kmemleak=off netns_iter\.probe=\*$'
}

@test "vm/run -- false exits non-zero" {
	run "$RUN" "${QUICK[@]}" -- false
	assert_failure
}

@test "a splat in the guest's kernel log fails the run and is named" {
	run "$RUN" "${QUICK[@]}" -- sh -c 'echo "WARNING: CPU: 0 PID: 1 at test" > /dev/kmsg'
	assert_failure
	assert_output --partial "has a splat"
	assert_output --partial "WARNING: CPU: 0 PID: 1 at test"
}

@test "vm/run refuses an unknown option with a clear error" {
	run "$RUN" --bogus true
	assert_failure
	assert_output --partial "unknown option '--bogus'"
}

# A guest killed by its timeout mid-line (SeaBIOS leaves the console's
# line open) must still count as a failure in tests/run-all's summary.
@test "run-all counts a guest that dies mid-line outside any test as failed" {
	local out
	out=$(mktemp)
	eval "$(sed -n '/^suite() {/,/^}/p' "$TOP/tests/run-all")"
	echo "# ---- guest fake ----" >> "$out"
	suite "guest fake" bash -c 'printf "Booting from ROM..\033[2J"; exit 124' >/dev/null
	run grep -cE '^not ok - guest fake: exited 124 outside any test$' "$out"
	rm -f "$out"
	assert_output 1
}
