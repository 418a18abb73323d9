#!/usr/bin/env bats
# netns-reap on this machine's stock kernel, no VM: the setns mode, which
# needs nothing but bpf_sock_destroy() (6.5+), lists and kills in
# namespaces the test creates, and auto falls back to it.

load ../bats/helpers

setup_file() {
	local i
	mkdir -p "$BATS_FILE_TMPDIR/log"
	for i in 1 2 3; do
		ip netns add "nrh-$i"
		ip -n "nrh-$i" link set lo up
		ip netns exec "nrh-$i" socat TCP-LISTEN:8080,bind=127.0.0.1,fork,reuseaddr SYSTEM:'sleep 600' 3>&- &
		ip netns exec "nrh-$i" socat TCP-LISTEN:9090,bind=127.0.0.1,fork,reuseaddr SYSTEM:'sleep 600' 3>&- &
	done
	for i in 1 2 3; do
		wait_until 10 listening "nrh-$i" 8080
		wait_until 10 listening "nrh-$i" 9090
	done
	for i in 1 2 3; do
		ip netns exec "nrh-$i" socat -u TCP:127.0.0.1:8080 SYSTEM:'sleep 600' \
			2>"$BATS_FILE_TMPDIR/log/x-$i" 3>&- &
		ip netns exec "nrh-$i" socat -u TCP:127.0.0.1:9090 SYSTEM:'sleep 600' \
			2>"$BATS_FILE_TMPDIR/log/y-$i" 3>&- &
	done
	for i in 1 2 3; do
		wait_until 10 connected "nrh-$i" 8080
		wait_until 10 connected "nrh-$i" 9090
	done
}

# listening NETNS PORT, connected NETNS PORT: ss shows the listener, or an
# established client of it.
listening() { ip netns exec "$1" ss -tlnH "sport = :$2" | grep -q .; }
connected() { ip netns exec "$1" ss -tnH state established "dport = :$2" | grep -q .; }

# aborted I: the client of 8080 in nrh-I has printed its error.
aborted() { grep -q 'Software caused connection abort' "$BATS_FILE_TMPDIR/log/x-$1"; }

teardown_file() {
	local i
	for i in 1 2 3; do
		ip netns pids "nrh-$i" 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del "nrh-$i" 2>/dev/null
	done
	return 0
}

@test "probe on the stock kernel: setns only, and why not the others" {
	run "$REAP" -j probe
	assert_success
	[ "$(jq -r .auto <<< "$output")" = setns ]
	[ "$(jq -r '.modes.setns.supported' <<< "$output")" = true ]
	[ "$(jq -r '.modes.chained.reason' <<< "$output")" != null ]
}

@test "the chained mode on a stock kernel: a clear error, exit 1" {
	run "$REAP" --mode chained list
	assert_equal "$status" 1
	assert_output --partial "Error: mode chained cannot run: kernel feature"
}

@test "the index on a stock kernel: a clear error, exit 1, nothing pinned" {
	run "$REAP" --mode index list dst 10.0.0.1
	assert_equal "$status" 1
	assert_output --partial "Error: mode index cannot run: kernel feature: no bpf_sock_lookup_netns() kfunc"
	run "$REAP" index start
	assert_equal "$status" 1
	assert_output --partial "Error: cannot start the index: kernel feature: no bpf_sock_lookup_netns() kfunc"
	[ ! -e /sys/fs/bpf/netns-reap ]
}

@test "setns mode lists the sockets to a backend in every namespace" {
	run "$REAP" -j list dst 127.0.0.1:8080
	assert_success
	[ "$(jq -r .mode <<< "$output")" = setns ]
	run sh -c "jq -r '.sockets[] | select(.netns_name != null) | select(.netns_name | test(\"nrh-\")) | .netns_name' | sort" <<< "$output"
	assert_output "$(printf '/run/netns/nrh-%s\n' 1 2 3)"
}

@test "setns mode kills them: ECONNABORTED for those, the others live" {
	local i
	run "$REAP" -j kill dst 127.0.0.1:8080
	assert_success
	[ "$(jq '[.sockets[] | select(.netns_name != null) | select(.netns_name | test("nrh-")) | select(.action == "destroyed")] | length' <<< "$output")" -eq 3 ]
	for i in 1 2 3; do
		wait_until 10 aborted "$i" ||
			fail "client of 8080 in nrh-$i: $(cat "$BATS_FILE_TMPDIR/log/x-$i")"
		[ ! -s "$BATS_FILE_TMPDIR/log/y-$i" ] || fail "client of 9090 in nrh-$i hurt"
		ip netns exec "nrh-$i" ss -tnH state established dport = :9090 | grep -q . ||
			fail "no 9090 connection left in nrh-$i"
		run sh -c "ip netns exec nrh-$i ss -tnH state established dport = :8080"
		assert_output ""
	done
}
