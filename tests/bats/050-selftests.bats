#!/usr/bin/env bats
# The kernel's own BPF selftests, test_progs from tools/testing/selftests/bpf,
# built by tests/selftests.mk with just these tests: the new netns_iter,
# sock_lookup_netns and their verifier tests, and the upstream socket
# iterator tests the series must not break.

load helpers

TEST_PROGS=$BUILD/selftests/test_progs

setup_file() {
	[ -x "$TEST_PROGS" ] || {
		echo "no $TEST_PROGS: run 'make selftests' on the host" >&2
		return 1
	}
}

# test_progs NAME...: run the runner from its directory, where the BPF
# objects are, on exactly the tests (or test/subtest) NAME (-a, not -t,
# which matches substrings: netns_iter would also pick verifier_netns_iter).
test_progs() {
	local args=() t
	for t in "$@"; do args+=(-a "$t"); done
	cd "$BUILD/selftests" && "$TEST_PROGS" "${args[@]}"
}

# assert_summary PASSED_TESTS: test_progs ran PASSED_TESTS tests, at least
# one subtest each, and nothing failed or was skipped.
assert_summary() {
	assert_success
	assert_line --regexp "^Summary: $1/[1-9][0-9]* PASSED, 0 SKIPPED, 0/0 FAILED\$"
}

@test "selftest netns_iter: iter/netns, its re-runs, privilege, netns argument, whole host, open-coded walks, hostile programs" {
	local t
	run test_progs netns_iter
	assert_summary 1
	for t in netns netns_privilege tcp_netns_fd tcp_netns_cookie udp_netns_fd udp_netns_cookie \
		 tcp_all_netns udp_all_netns tcp_all_netns_skip_listen attach_errors \
		 tcp_netns_sock udp_netns_sock \
		 tcp_netns_sock_skip_listen tcp_netns_sock_nested udp_netns_sock_nested \
		 tcp_netns_sock_churn udp_netns_sock_churn tcp_netns_sock_sleepy \
		 udp_netns_sock_sleepy netns_sock_flood netns_runs netns_sock_deep \
		 tcp_netns_sock_readers udp_netns_sock_readers; do
		assert_line --regexp "^#[0-9]+/[0-9]+ +netns_iter/$t:OK\$"
	done
}

@test "selftest verifier_netns_iter: what the verifier refuses and accepts" {
	local t
	run test_progs verifier_netns_iter
	assert_summary 1
	for t in $(sed -n -E 's/^(__naked )?int (BPF_PROG\()?([a-z0-9_]+)[(,].*/\3/p' \
		   "$NETNS_ITER_TOP/kernel/selftests/progs/verifier_netns_iter.c"); do
		assert_line --regexp "^#[0-9]+/[0-9]+ +verifier_netns_iter/$t:OK\$"
	done
}

@test "selftest sock_lookup_netns: lookup by tuple and sleepable destroy from syscall programs" {
	local t
	run test_progs sock_lookup_netns
	assert_summary 1
	for t in tcp4 tcp6 udp4 udp6 unconnected_udp tcp_time_wait privilege async_callback; do
		assert_line --regexp "^#[0-9]+/[0-9]+ +sock_lookup_netns/$t:OK\$"
	done
}

@test "selftest verifier_sock_lookup_netns: what the verifier refuses and accepts" {
	local t
	run test_progs verifier_sock_lookup_netns
	assert_summary 1
	for t in $(sed -n -E 's/^int ([a-z0-9_]+)\((void \*ctx|struct __sk_buff \*skb)\)$/\1/p' \
		   "$NETNS_ITER_TOP/kernel/selftests/progs/verifier_sock_lookup_netns.c"); do
		assert_line --regexp "^#[0-9]+/[0-9]+ +verifier_sock_lookup_netns/$t:OK\$"
	done
}

@test "selftest sock_iter_batch (upstream)" {
	run test_progs sock_iter_batch
	assert_summary 1
}

@test "selftest sock_destroy (upstream)" {
	run test_progs sock_destroy
	assert_summary 1
}

@test "selftest bpf_iter tcp4, tcp6, udp4, udp6 (upstream)" {
	local t
	run test_progs bpf_iter/tcp4 bpf_iter/tcp6 bpf_iter/udp4 bpf_iter/udp6
	assert_success
	assert_line --regexp '^Summary: 1/4 PASSED, 0 SKIPPED, 0/0 FAILED$'
	for t in tcp4 tcp6 udp4 udp6; do
		assert_line --regexp "^#[0-9]+/[0-9]+ +bpf_iter/$t:OK\$"
	done
}
