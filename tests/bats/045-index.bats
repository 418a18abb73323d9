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
	world_stop "$BATS_FILE_TMPDIR/moves"
	world_stop "$BATS_FILE_TMPDIR/migrate"
	"$REAP" index stop >/dev/null
	for i in $(seq 1 8); do ip netns del "nsi-$i" 2>/dev/null; done
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
	jq -e '.running and .entries > 0 and .slots == .entries and .rebinding == 0 and
		.missed == 0 and .prog_misses == 0 and .seeded > 0 and .map_bytes > 0' <<< "$output" >/dev/null ||
		fail "$output"
	run "$REAP" -j index start
	assert_success
	jq -e '.running and (.started | not)' <<< "$output" >/dev/null || fail "$output"
	run "$REAP" index start
	assert_success
	assert_output "index already running ($PIN)"
	for p in idx_addrs idx_slots idx_socks idx_stats link_sockops link_cookie4 \
		 link_cookie6 link_udp link_release link_tcp_close link_reqsk_free \
		 link_rebind link_rebound link_udp_disconnect; do
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
	run "$REAP" --mode index list dst 127.0.0.1 state time-wait
	assert_equal "$status" 2
	assert_output --partial "the index records connected sockets only"
	run "$REAP" --mode index list dst 127.0.0.1 --udp-unconnected
	assert_equal "$status" 2
	assert_output --partial "the index records connected UDP sockets only"
}

@test "a user-namespaced root cannot destroy through the index" {
	local before
	before=$(listing index dst 127.0.0.1:8080)
	[ -n "$before" ]
	run unshare -Ur "$REAP" --mode index kill dst 127.0.0.1:8080
	assert_equal "$status" 1
	assert_output --partial "the index spans every namespace, so it needs CAP_SYS_ADMIN in the initial user namespace"
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

# slots_where JQ-CONDITION: idx_slots entries whose value satisfies it.
slots_where() {
	"$BPFTOOL" -j map dump pinned "$PIN/idx_slots" |
		jq -c ".[] | select(.formatted.value | $1)"
}

@test "a reused tuple is left alone: an entry whose socket has another cookie destroys nothing" {
	local ns sock cookie fake port entry key val sval
	ns=$(netns_cookie nsi-4)
	sock=$("$REAP" -j --mode index list dst 127.0.0.2:8082 |
		jq -c --argjson ns "$ns" '[.sockets[] | select(.netns_cookie == $ns)][0]')
	cookie=$(jq -r .sock_cookie <<< "$sock")
	port=$(jq -r '.local | sub(".*:"; "")' <<< "$sock")
	[ "$cookie" != null ] || fail "no tcp-other client in nsi-4"
	# As if the socket recorded had closed unseen and this one had taken
	# its tuple: the entry keeps the tuple, with another cookie (first and
	# last byte 0x7f, a cookie no socket has whatever the byte order),
	# and idx_socks follows it.
	entry=$(slots_where ".cookie == $cookie")
	[ -n "$entry" ] || fail "no entry for cookie $cookie"
	key=$(entry_bytes "$entry" .key)
	read -ra val <<< "$(entry_bytes "$entry" .value)"
	val[8]=0x7f
	val[15]=0x7f
	"$BPFTOOL" map update pinned "$PIN/idx_slots" key $key value "${val[@]}"
	fake=$(slots_where ".netns == $ns and .lport == $port" | jq -r .formatted.value.cookie)
	[ -n "$fake" ] && [ "$fake" != "$cookie" ] || fail "the entry was not rewritten: $fake"
	entry=$("$BPFTOOL" -j map dump pinned "$PIN/idx_socks" |
		jq -c --argjson c "$cookie" '.[] | select(.formatted.key == $c)')
	sval=$(entry_bytes "$entry" .value)
	"$BPFTOOL" map update pinned "$PIN/idx_socks" key "${val[@]:8:8}" value $sval
	"$BPFTOOL" map delete pinned "$PIN/idx_socks" key $(entry_bytes "$entry" .key)

	run "$REAP" -j --mode index kill dst 127.0.0.2:8082 sport "$port" netns /run/netns/nsi-4
	assert_success
	jq -e '.summary.matched == 0 and .summary.destroyed == 0 and
		.summary.index_pruned == 1' <<< "$output" >/dev/null ||
		fail "destroyed through a stale entry: $output"
	# The stale entry and its idx_socks key are pruned; the socket is
	# alive, as the walk shows.
	[ -z "$(slots_where ".cookie == $fake")" ] || fail "entry $fake still there"
	"$BPFTOOL" -j map dump pinned "$PIN/idx_socks" |
		jq -e --argjson c "$fake" 'all(.[]; .formatted.key != $c)' >/dev/null ||
		fail "idx_socks still holds $fake"
	run "$REAP" -j --mode chained list dst 127.0.0.2:8082 sport "$port" netns /run/netns/nsi-4
	[ "$(jq '.sockets | length' <<< "$output")" -eq 1 ] || fail "$output"
	[ "$(jq -r '.sockets[0].sock_cookie' <<< "$output")" = "$cookie" ]
}

@test "a start on an index that missed sockets walks again and finds them" {
	local ns sock cookie entry hint st
	ns=$(netns_cookie nsi-5)
	sock=$("$REAP" -j --mode index list dst 127.0.0.2:8082 |
		jq -c --argjson ns "$ns" '[.sockets[] | select(.netns_cookie == $ns)][0]')
	cookie=$(jq -r .sock_cookie <<< "$sock")
	[ "$cookie" != null ] || fail "no tcp-other client in nsi-5"
	# As if its insert had been lost: its entry and hint go, and missed
	# (the third word of idx_stats) counts, whatever the byte order.
	entry=$(slots_where ".cookie == $cookie")
	"$BPFTOOL" map delete pinned "$PIN/idx_slots" key $(entry_bytes "$entry" .key)
	hint=$("$BPFTOOL" -j map dump pinned "$PIN/idx_socks" |
		jq -c --argjson c "$cookie" '.[] | select(.formatted.key == $c)')
	"$BPFTOOL" map delete pinned "$PIN/idx_socks" key $(entry_bytes "$hint" .key)
	read -ra st <<< "$("$BPFTOOL" -j map dump pinned "$PIN/idx_stats" | jq -r '.[0].value | join(" ")')"
	st[16]=0x01
	st[23]=0x01
	"$BPFTOOL" map update pinned "$PIN/idx_stats" key 0 0 0 0 value "${st[@]}"

	run "$REAP" -j --mode index list dst 127.0.0.2:8082 netns /run/netns/nsi-5
	assert_equal "$status" 1
	assert_output --partial "the index missed"
	jq -e '(.sockets | length) == 0' <<< "$output" >/dev/null || fail "$output"
	run "$REAP" -j list dst 127.0.0.2:8082
	assert_success
	[ "$(jq -r .mode <<< "$output")" = chained ] || fail "auto took an index that missed: $output"

	run "$REAP" -j index start
	assert_success
	jq -e '.running and (.started | not) and .resynced_missed > 0' <<< "$output" >/dev/null ||
		fail "$output"
	run "$REAP" -j --mode index list dst 127.0.0.2:8082 netns /run/netns/nsi-5
	assert_success
	[ "$(jq -r '[.sockets[].sock_cookie] | join(" ")' <<< "$output")" = "$cookie" ] || fail "$output"
	run "$REAP" -j list dst 127.0.0.2:8082
	[ "$(jq -r .mode <<< "$output")" = index ] || fail "$output"
	run "$REAP" index start
	assert_output "index already running ($PIN)"
}

# moves_next: the --moves world's next stage, once it is there.
moves_next() {
	local want=$(($(cat "$BATS_FILE_TMPDIR/moves/stage") + 1))
	kill -USR1 "$(cat "$BATS_FILE_TMPDIR/moves/pid")"
	wait_until 10 grep -qx "$want" "$BATS_FILE_TMPDIR/moves/stage"
}

# index_list DST: "SOCK-COOKIE REMOTE" of --mode index list dst DST.
index_list() {
	"$REAP" -j --mode index list dst "$1" | jq -r '.sockets[] | "\(.sock_cookie) \(.remote)"'
}

@test "a UDP socket that reconnects moves with it, one disconnected or closed is dropped" {
	local dir=$BATS_FILE_TMPDIR/moves cookie val st
	make_netns nsi 7 7
	mkdir -p "$dir"
	"$SOCKWORLD" --moves "$dir" nsi-7 3>&- &
	echo $! > "$dir/pid"
	wait_until 10 test -s "$dir/stage"
	cookie=$(cat "$dir/cookie")
	[ "$(index_list 127.0.0.3)" = "$cookie 127.0.0.3:6000" ] || fail "$(index_list 127.0.0.3)"

	moves_next	# reconnected to 127.0.0.4:6001
	# Its one entry moved, before any reap could prune the old one.
	[ "$(slots_where ".cookie == $cookie and .rport == 6001" | wc -l)" -eq 1 ] &&
		[ "$(slots_where ".cookie == $cookie" | wc -l)" -eq 1 ] ||
		fail "$(slots_where ".cookie == $cookie")"
	[ -z "$(index_list 127.0.0.3)" ] || fail "still under its old address"
	[ "$(index_list 127.0.0.4)" = "$cookie 127.0.0.4:6001" ] || fail "$(index_list 127.0.0.4)"

	# As if the kprobe had missed a reconnect: the entry keeps a tuple the
	# socket left (remote port 0), and missed counts (test 8's words are
	# set; one more byte, whatever the order).  A resync must record the
	# socket where it is, beside the entry the hooks left.
	read -ra val <<< "$(entry_bytes "$(slots_where ".cookie == $cookie")" .value)"
	val[50]=0x00
	val[51]=0x00
	"$BPFTOOL" map update pinned "$PIN/idx_slots" \
		key $(entry_bytes "$(slots_where ".cookie == $cookie")" .key) value "${val[@]}"
	read -ra st <<< "$("$BPFTOOL" -j map dump pinned "$PIN/idx_stats" | jq -r '.[0].value | join(" ")')"
	st[17]=0x01
	"$BPFTOOL" map update pinned "$PIN/idx_stats" key 0 0 0 0 value "${st[@]}"
	run "$REAP" -j index start
	jq -e '.resynced_missed > 0' <<< "$output" >/dev/null || fail "$output"
	[ "$(index_list 127.0.0.4)" = "$cookie 127.0.0.4:6001" ] || fail "not found again: $(index_list 127.0.0.4)"
	[ "$(slots_where ".cookie == $cookie" | wc -l)" -eq 1 ] || fail "$(slots_where ".cookie == $cookie")"

	moves_next	# disconnected: the kprobe of __udp_disconnect drops it
	[ -z "$(slots_where ".cookie == $cookie")" ] || fail "disconnected entry still there"
	run "$REAP" -j --mode index list dst 127.0.0.4
	assert_success
	jq -e '.summary.index_pruned == 0 and (.sockets | length) == 0' <<< "$output" >/dev/null ||
		fail "$output"

	moves_next	# connected to 127.0.0.3:6000 again
	[ "$(index_list 127.0.0.3)" = "$cookie 127.0.0.3:6000" ] || fail "$(index_list 127.0.0.3)"
	moves_next	# closed: cgroup/sock_release drops it, no reap needed
	[ -z "$(slots_where ".cookie == $cookie")" ] || fail "closed socket still indexed"
}

@test "sockets bound to a device, as made or once indexed, are found and killed" {
	local dir=$BATS_FILE_TMPDIR/moves f chained indexed
	[ -e "$dir/pid" ] || fail "needs the --moves world of the test before"
	# The child bound as it was made, the client by setsockopt after: its
	# entry follows it through the rebind's kprobe and kretprobe.
	run "$REAP" -j index status
	jq -e '.rebinding == 0' <<< "$output" >/dev/null || fail "$output"
	for f in "dst 127.0.0.5" "dst 127.0.0.1 sport 6002"; do
		chained=$(listing chained $f)
		indexed=$(listing index $f)
		[ "$(wc -l <<< "$indexed")" -eq 1 ] && [ -n "$indexed" ] || fail "$f: $indexed"
		[ "$chained" = "$indexed" ] || fail "$f: chained $chained, index $indexed"
	done
	run "$REAP" -j --mode index kill dst 127.0.0.5
	assert_success
	jq -e '.summary.destroyed == 1 and .summary.index_unreachable == 0' <<< "$output" >/dev/null ||
		fail "$output"
	# The abort reset the child too: neither is left.
	[ -z "$(listing chained dst 127.0.0.5)" ] || fail "client left"
	wait_until 10 child_gone || fail "child left: $(listing chained dst 127.0.0.1 sport 6002)"
	world_stop "$dir"
}

child_gone() { [ -z "$(listing chained dst 127.0.0.1 sport 6002)" ]; }

# migrated: nsi-8's kernel moved a request socket to another listener.
migrated() {
	ip netns exec nsi-8 awk '/^TcpExt:/ && !n++ { for (i = 2; i <= NF; i++) if ($i == "TCPMigrateReqSuccess") f = i; next }
		/^TcpExt:/ { exit !(f && $f > 0) }' /proc/net/netstat
}

@test "a request socket moved to another listener (tcp_migrate_req) stays indexed" {
	local dir=$BATS_FILE_TMPDIR/migrate f=(dst 127.0.0.1 sport 6003) chained indexed
	make_netns nsi 8 8
	ip netns exec nsi-8 sysctl -qw net.ipv4.tcp_migrate_req=1
	mkdir -p "$dir"
	"$SOCKWORLD" --migrate "$dir" nsi-8 3>&- &
	echo $! > "$dir/pid"
	wait_until 10 test -e "$dir/ready"
	kill -USR1 "$(cat "$dir/pid")"
	wait_until 10 test -e "$dir/closed"
	# The request socket's timer finds its listener closed and clones it,
	# cookie and all, to the other; the original is freed.
	wait_until 30 migrated
	chained=$(listing chained "${f[@]}")
	indexed=$(listing index "${f[@]}")
	grep -q ' tcp new-syn-recv ' <<< "$chained" || fail "no request socket: $chained"
	[ "$chained" = "$indexed" ] || fail "chained: $chained; index: $indexed"
	world_stop "$dir"
}

# no_slots_of COOKIES: no idx_slots entry of those namespaces (a,b,c).
no_slots_of() { [ -z "$(slots_where "[.netns] | inside([$1])")" ]; }

@test "closed sockets leave the index: TCP, request sockets, UDP, seeded or not" {
	local d cookies
	cookies=$(for ns in 1 2 3 4 5 6; do netns_cookie "nsi-$ns"; done | paste -sd, -)
	[ -n "$(slots_where "[.netns] | inside([$cookies])")" ] || fail "nothing indexed"
	for d in before after; do world_stop "$BATS_FILE_TMPDIR/$d"; done
	# Request sockets go when their timer finds the listener closed.
	wait_until 30 no_slots_of "$cookies" ||
		fail "left: $(slots_where "[.netns] | inside([$cookies])" | head -n 4)"
	run "$REAP" -j index status
	# The misses tests 8 and 9 faked are acknowledged; no other.
	jq -e '.slots == .entries and .missed == .acked' <<< "$output" >/dev/null || fail "$output"
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
