#!/usr/bin/env bats
# Who may reach which network namespace, on every path: the iter/netns walk,
# the netns argument by fd and by cookie, the whole-host walk, the chained
# walk and netns-reap's modes, for host root, CAP_NET_ADMIN alone, CAP_BPF
# and CAP_PERFMON alone, root in a user namespace and root in a child PID
# namespace (a node agent without hostPID).  The rule is
# bpf_netns_scope_init()'s: one's own namespace, and all of them for
# CAP_SYS_ADMIN in the initial user namespace, whatever the PID namespace;
# by nsfs file also what setns() allows.  The netns_iter selftest
# (netns_privilege) has host root, CAP_SYS_ADMIN dropped and root in a child
# PID namespace.

load helpers

setup_file() {
	local i
	unpin_all
	for i in 1 2 3 4; do
		ip netns add "npriv-$i"
		ip -n "npriv-$i" link set lo up
	done
	world_start "$BATS_FILE_TMPDIR/w" npriv-1 npriv-2 npriv-3 npriv-4
	pin_iter netns_dump.bpf.o dump
	chmod 0755 "$PIN"
	chmod 0444 "$PIN/dump"
}

teardown_file() {
	local i
	world_stop "$BATS_FILE_TMPDIR/w"
	for i in 1 2 3 4; do
		ip netns del "npriv-$i" 2>/dev/null
	done
	unpin_all
	return 0
}

# The callers, each running CMD... with what it has.
as_net_admin() { setpriv --bounding-set=-all,+net_admin "$@"; }
as_bpf() { setpriv --bounding-set=-all,+bpf,+perfmon "$@"; }
as_userns_root() { unshare -Ur "$@"; }
as_pidns_root() { unshare -pf --mount-proc "$@"; }

# The one netns line and the summary of a dump read by a caller that may see
# only its own namespace, whose inode is INUM.
assert_only_own() {
	local inum=$1
	assert_success
	[ "$(grep -c '^netns ' <<< "$output")" -eq 1 ] ||
		fail "more than its own namespace: $output"
	assert_line --regexp "^netns .* inum=$inum "
	assert_line "summary netns_count=1"
}

@test "iter/netns: host root and root in a child PID namespace see every namespace" {
	local n caller
	n=$(visible_netns_inodes | wc -l)
	for caller in "" as_pidns_root; do
		run $caller cat "$PIN/dump"
		assert_success
		assert_line "summary netns_count=$n"
		assert_line --regexp "^netns .* inum=$(stat -L -c %i /run/netns/npriv-1) "
	done
}

@test "iter/netns: CAP_NET_ADMIN and CAP_BPF see only their own" {
	local own
	own=$(stat -L -c %i /proc/self/ns/net)
	run as_net_admin cat "$PIN/dump"
	assert_only_own "$own"
	run as_bpf cat "$PIN/dump"
	assert_only_own "$own"
}

@test "iter/netns: root in a user namespace sees the namespace it is in, owned or not" {
	local own
	own=$(stat -L -c %i /proc/self/ns/net)
	run as_userns_root cat "$PIN/dump"
	assert_only_own "$own"
	# Two namespaces its user namespace owns: from either, only that one.
	run unshare -Urn sh -c 'stat -L -c %i /proc/self/ns/net; cat "$1"
		unshare -n sh -c "stat -L -c %i /proc/self/ns/net; cat \"$1\""' sh "$PIN/dump"
	assert_success
	[ "$(grep -c '^summary netns_count=1$' <<< "$output")" -eq 2 ] ||
		fail "an owned namespace other than its own was shown: $output"
	for own in $(grep -E '^[0-9]+$' <<< "$output"); do
		assert_line --regexp "^netns .* inum=$own "
	done
}

@test "netns argument by fd: as setns(), CAP_SYS_ADMIN over the namespace" {
	run "$ITERLINK" tcp --fd /run/netns/npriv-1
	assert_success
	assert_line "link netns_cookie=$(netns_cookie npriv-1) flags=0"
	run as_bpf "$ITERLINK" tcp --fd /run/netns/npriv-1
	assert_output "error attach EPERM"
	run as_bpf "$ITERLINK" tcp --fd /proc/self/ns/net
	assert_success
	# setns() works from a child PID namespace: so does the fd.
	run as_pidns_root "$ITERLINK" tcp --fd /run/netns/npriv-1
	assert_success
	assert_line "link netns_cookie=$(netns_cookie npriv-1) flags=0"
}

@test "netns argument by cookie: not the caller's to see and absent are both ENOENT" {
	local cookie own absent
	cookie=$(netns_cookie npriv-2)
	own=$(netns_cookie_of_self)
	absent=$((1 << 62))
	run "$ITERLINK" tcp --cookie "$cookie"
	assert_success
	run as_bpf "$ITERLINK" tcp --cookie "$cookie"
	assert_output "error attach ENOENT"
	run as_bpf "$ITERLINK" tcp --cookie "$absent"
	assert_output "error attach ENOENT"
	run as_bpf "$ITERLINK" tcp --cookie "$own"
	assert_success
	assert_line "link netns_cookie=$own flags=0"
	run as_pidns_root "$ITERLINK" tcp --cookie "$cookie"
	assert_success
	assert_line "link netns_cookie=$cookie flags=0"
	run as_pidns_root "$ITERLINK" tcp --cookie "$absent"
	assert_output "error attach ENOENT"
}

@test "a pinned link is judged again for whoever opens it" {
	rm -f "$PIN/arg" "$PIN/own" "$PIN/all"
	"$BPFTOOL" iter pin "$OBJ/reap.bpf.o" "$PIN/arg" netns /run/netns/npriv-1
	"$BPFTOOL" iter pin "$OBJ/reap.bpf.o" "$PIN/own" netns /proc/self/ns/net
	"$BPFTOOL" iter pin "$OBJ/reap.bpf.o" "$PIN/all" netns all
	chmod 0444 "$PIN/arg" "$PIN/own" "$PIN/all"
	run cat "$PIN/arg"
	assert_success
	run cat "$PIN/all"
	assert_success
	run as_bpf cat "$PIN/arg"
	assert_failure
	assert_output --partial "Operation not permitted"
	run as_bpf cat "$PIN/all"
	assert_failure
	assert_output --partial "Operation not permitted"
	run as_pidns_root cat "$PIN/all"
	assert_success
	run as_bpf cat "$PIN/own"
	assert_success
	rm -f "$PIN/arg" "$PIN/own" "$PIN/all"
}

@test "the whole-host walk needs CAP_SYS_ADMIN in the initial user namespace" {
	run "$ITERLINK" udp --all
	assert_success
	run as_pidns_root "$ITERLINK" udp --all
	assert_success
	run as_bpf "$ITERLINK" udp --all
	assert_output "error attach EPERM"
}

@test "the chained walk reaches only the namespaces its reader may reach" {
	local n
	n=$(visible_netns_inodes | wc -l)
	run "$ITERLINK" netns
	assert_success
	assert_line "walked netns=$n"
	run as_pidns_root "$ITERLINK" netns
	assert_success
	assert_line "walked netns=$n"
	run as_bpf "$ITERLINK" netns
	assert_success
	assert_line "walked netns=1"
}

# reap_found CALLER MODE: the sockets netns-reap MODE lists to [::1]:5354,
# as "NETNS_COOKIE LOCAL REMOTE" lines, sorted.
reap_found() {
	$1 "$REAP" -j --mode "$2" list dst '[::1]:5354' |
		jq -r '.sockets[] | "\(.netns_cookie) \(.local) \(.remote)"' | sort
}

@test "netns-reap: root in a child PID namespace finds what host root finds" {
	local m host pidns
	for m in chained global; do
		host=$(reap_found "" "$m")
		[ "$(wc -l <<< "$host")" -eq 4 ] || fail "$m: host root found: $host"
		pidns=$(reap_found as_pidns_root "$m")
		[ "$pidns" = "$host" ] || fail "$m: host root found $host, pid-namespaced root $pidns"
	done
}

@test "without CAP_BPF no path loads: CAP_NET_ADMIN alone, root in a user namespace" {
	local caller
	for caller in as_net_admin as_userns_root; do
		run $caller "$ITERLINK" tcp --fd /run/netns/npriv-1
		assert_output "error load EPERM"
		run $caller "$ITERLINK" netns
		assert_output "error load EPERM"
	done
}
