#!/usr/bin/env bats
# The targeted design through netns-reap: the socket index (index start,
# stop, status) and --mode index, against the chained walk on one world.

load helpers

PIN=/sys/fs/bpf/netns-reap
N=6

setup_file() {
	"$REAP" index stop >/dev/null
	# nsi-1..3 hold sockets from before the index starts, nsi-4..6 after;
	# nsi-2 and nsi-5 have tables of their own.
	make_netns nsi 1 1
	make_netns nsi 2 2 128
	make_netns nsi 3 4
	make_netns nsi 5 5 128
	make_netns nsi 6 6
	world_start "$BATS_FILE_TMPDIR/before" nsi-1 nsi-2 nsi-3
	"$REAP" index start >/dev/null
	world_start "$BATS_FILE_TMPDIR/after" nsi-4 nsi-5 nsi-6
}

teardown_file() {
	local i
	world_stop "$BATS_FILE_TMPDIR/before"
	world_stop "$BATS_FILE_TMPDIR/after"
	"$REAP" index stop >/dev/null
	for i in $(seq 1 "$N"); do ip netns del "nsi-$i" 2>/dev/null; done
	return 0
}

# listing MODE FILTER...: "NETNS-COOKIE SOCK-COOKIE PROTO STATE LOCAL
# REMOTE" of the matching sockets in the nsi-* namespaces, sorted.
listing() {
	local m=$1
	shift
	"$REAP" -j --mode "$m" list "$@" |
		jq -r '.sockets[] | select(.netns_name // "" | test("nsi-")) |
			"\(.netns_cookie) \(.sock_cookie) \(.proto) \(.state) \(.local) \(.remote)"' |
		sort
}

@test "index start, status and stop: idempotent, with JSON" {
	run "$REAP" -j index status
	assert_success
	jq -e '.running and .entries > 0 and .missed == 0 and .seeded > 0 and .map_bytes > 0' <<< "$output" >/dev/null ||
		fail "$output"
	run "$REAP" -j index start
	assert_success
	jq -e '.running and (.started | not)' <<< "$output" >/dev/null || fail "$output"
	run "$REAP" index start
	assert_success
	assert_output "index already running ($PIN)"
	for p in idx_addrs idx_slots idx_socks idx_stats link_sockops link_cookie4 \
		 link_cookie6 link_udp link_release; do
		[ -e "$PIN/$p" ] || fail "$PIN/$p is not pinned"
	done
}

@test "the index lists exactly what the chained walk lists, sockets from before start included" {
	local filter=(dst 127.0.0.1 dst ::1) chained indexed
	chained=$(listing chained "${filter[@]}")
	indexed=$(listing index "${filter[@]}")
	# Per namespace: clients and servers of 8080, 8081, 8082 and 8083
	# (one a request socket), UDP clients of 5353 and 5354.
	[ "$(wc -l <<< "$chained")" -ge $((N * 10)) ] || fail "chained: $chained"
	grep -q ' tcp new-syn-recv ' <<< "$indexed" || fail "no request socket: $indexed"
	for ns in 1 4; do
		c=$(netns_cookie "nsi-$ns")
		grep -q "^$c " <<< "$indexed" || fail "nothing of nsi-$ns: $indexed"
	done
	[ "$chained" = "$indexed" ] ||
		fail "$(diff <(echo "$chained") <(echo "$indexed") | head -n 8)"
	for proto in tcp udp; do
		[ "$(listing chained "${filter[@]}" proto $proto)" = \
		  "$(listing index "${filter[@]}" proto $proto)" ] || fail "proto $proto differs"
	done
}

@test "auto uses the index when it runs and the filter has whole addresses" {
	run "$REAP" -j list dst 127.0.0.1:8080
	assert_success
	[ "$(jq -r .mode <<< "$output")" = index ] || fail "$output"
	run "$REAP" -j list dst 127.0.0.0/8
	assert_success
	[ "$(jq -r .mode <<< "$output")" = chained ] || fail "$output"
}

@test "bad input to the index is refused with a reason" {
	run "$REAP" --mode index list
	assert_equal "$status" 2
	assert_output --partial "give one or more 'dst ADDR[:PORT]' words"
	run "$REAP" --mode index kill dst 127.0.0.0/8
	assert_equal "$status" 2
	assert_output --partial "a dst word with a /PLEN prefix needs a walk"
	run "$REAP" index
	assert_equal "$status" 2
	assert_output --partial "'index' needs a command: start, stop or status"
	run "$REAP" index restart
	assert_equal "$status" 2
	assert_output --partial "unknown index command 'restart'"
	run "$REAP" index status extra
	assert_equal "$status" 2
}

@test "a user-namespaced root cannot destroy through the index" {
	local before
	before=$(listing index dst 127.0.0.1:8080)
	[ -n "$before" ]
	run unshare -Ur "$REAP" --mode index kill dst 127.0.0.1:8080
	assert_equal "$status" 1
	assert_output --partial "Error:"
	[ "$(listing index dst 127.0.0.1:8080)" = "$before" ]
}

@test "kill --mode index destroys what the chained walk would, and nothing else" {
	local filter=(dst 127.0.0.1:8080 dst 127.0.0.1:5353 dst [::1]:8081 dst [::1]:5354)
	local want got d
	want=$(listing chained "${filter[@]}" | awk '{ print $1, $2 }')
	run "$REAP" -j --mode index kill "${filter[@]}"
	assert_success
	got=$(jq -r '.sockets[] | select(.netns_name // "" | test("nsi-")) |
		select(.action == "destroyed") | "\(.netns_cookie) \(.sock_cookie)"' <<< "$output" | sort)
	[ "$want" = "$got" ] || fail "$(diff <(echo "$want") <(echo "$got") | head -n 8)"
	[ -z "$(listing chained "${filter[@]}")" ] || fail "the walk still finds some"
	for d in before after; do
		world_check "$BATS_FILE_TMPDIR/$d"
		left=$(grep -E ' (tcp-x-v4|tcp-x-mapped|udp-x-v4|udp-x-mapped|tcp-y-v6|udp-y-v6) ' \
			"$BATS_FILE_TMPDIR/$d/status" | grep -v ' ECONNABORTED$' || true)
		[ -z "$left" ] || fail "$d: not destroyed: $(head -n 4 <<< "$left")"
		left=$(grep -E ' (tcp-other|tcp-req|udp-unconnected) ' "$BATS_FILE_TMPDIR/$d/status" |
			grep -v ' alive$' || true)
		[ -z "$left" ] || fail "$d: hurt: $(head -n 4 <<< "$left")"
	done
}

# The bytes of a pinned map's entry, from bpftool's JSON dump.
entry_bytes() { jq -r "$2 | join(\" \")" <<< "$1"; }

@test "a reused tuple is left alone: an entry whose socket has another cookie destroys nothing" {
	local ns sock cookie port dump entry key val newkey sval before
	ns=$(netns_cookie nsi-4)
	sock=$("$REAP" -j --mode index list dst 127.0.0.2:8082 |
		jq -c --argjson ns "$ns" '[.sockets[] | select(.netns_cookie == $ns)][0]')
	cookie=$(jq -r .sock_cookie <<< "$sock")
	port=$(jq -r '.local | sub(".*:"; "")' <<< "$sock")
	[ "$cookie" != null ] || fail "no tcp-other client in nsi-4"
	# As if the socket recorded had closed unseen and this one had taken
	# its tuple: the entry keeps the tuple, with another cookie (top byte
	# 0x7f), and idx_socks follows it.
	dump=$("$BPFTOOL" -j map dump pinned "$PIN/idx_slots")
	entry=$(jq -c --argjson c "$cookie" '.[] | select(.formatted.value.cookie == $c)' <<< "$dump")
	[ -n "$entry" ] || fail "no entry for cookie $cookie"
	key=$(entry_bytes "$entry" .key)
	read -ra val <<< "$(entry_bytes "$entry" .value)"
	val[15]=0x7f
	newkey="${val[*]:8:8}"
	"$BPFTOOL" map update pinned "$PIN/idx_slots" key $key value "${val[@]}"
	dump=$("$BPFTOOL" -j map dump pinned "$PIN/idx_socks")
	entry=$(jq -c --argjson c "$cookie" '.[] | select(.formatted.key == $c)' <<< "$dump")
	sval=$(entry_bytes "$entry" .value)
	"$BPFTOOL" map update pinned "$PIN/idx_socks" key $newkey value $sval
	"$BPFTOOL" map delete pinned "$PIN/idx_socks" key $(entry_bytes "$entry" .key)
	before=$("$REAP" -j index status | jq .entries)

	run "$REAP" -j --mode index kill dst 127.0.0.2:8082 sport "$port" netns /run/netns/nsi-4
	assert_success
	jq -e '.summary.matched == 0 and .summary.destroyed == 0' <<< "$output" >/dev/null ||
		fail "destroyed through a stale entry: $output"
	# The stale entry is pruned; the socket is alive, as the walk shows.
	[ "$("$REAP" -j index status | jq .entries)" -eq $((before - 1)) ]
	run "$REAP" -j --mode chained list dst 127.0.0.2:8082 sport "$port" netns /run/netns/nsi-4
	[ "$(jq '.sockets | length' <<< "$output")" -eq 1 ] || fail "$output"
	[ "$(jq -r '.sockets[0].sock_cookie' <<< "$output")" = "$cookie" ]
}

@test "index stop unpins everything and is idempotent" {
	run "$REAP" -j index stop
	assert_success
	jq -e '.was_running and (.running | not)' <<< "$output" >/dev/null || fail "$output"
	[ ! -e "$PIN" ] || fail "$(ls "$PIN")"
	run "$REAP" index stop
	assert_success
	assert_output "index not running"
	run "$REAP" --mode index list dst 127.0.0.1
	assert_equal "$status" 1
	assert_output --partial "the index is not running: start it with 'netns-reap index start'"
}
