#!/usr/bin/env bats
# netns-reap against the patched kernel: modes, filters, dry runs, names,
# privilege errors.  The command-line checks that need no kernel are in
# tests/host/020-netns-reap-cli.bats.

load helpers

# 40 namespaces: 20 with shared tables, 20 with tables of their own.
N=40

setup_file() {
	make_netns nsr 1 $((N / 2))
	make_netns nsr $((N / 2 + 1)) "$N" 128
	NS_LIST=$(seq -f 'nsr-%g' 1 "$N" | tr '\n' ' ')
	export NS_LIST
	world_start "$BATS_FILE_TMPDIR/w" $NS_LIST
}

teardown_file() {
	local i
	world_stop "$BATS_FILE_TMPDIR/w"
	for i in $(seq 1 "$N"); do ip netns del "nsr-$i" 2>/dev/null; done
	for i in $(ip netns list | sed -n 's/^\(vanish-[0-9]*\).*/\1/p'); do
		ip netns del "$i"
	done
	umount "/tmp/nsr-dir/pod one" 2>/dev/null
	rm -rf /tmp/nsr-dir
	return 0
}

# roles MODE FILTER...: "NETNS-NAME PROTO REMOTE" of the matching sockets.
matches() {
	"$REAP" -j "$@" | jq -r '.sockets[] | select(.netns_name != null) |
		select(.netns_name | test("nsr-")) | "\(.proto) \(.remote)"' | sort
}

@test "probe: every mode is there, auto picks chained" {
	run "$REAP" -j probe
	assert_success
	for m in chained global netns-arg setns; do
		[ "$(jq -r ".modes[\"$m\"].supported" <<< "$output")" = true ] || fail "$m: $output"
	done
	[ "$(jq -r .auto <<< "$output")" = chained ]
	run "$REAP" probe
	assert_line "auto picks: chained"
}

@test "auto runs the chained walk and says so" {
	run "$REAP" -j list
	assert_success
	[ "$(jq -r .mode <<< "$output")" = chained ]
	run "$REAP" list
	assert_line --regexp '^mode chained: [0-9]+ namespaces walked'
}

# listing MODE: "NETNS-COOKIE SOCK-COOKIE PROTO STATE LOCAL REMOTE" of every
# socket in the nsr-* namespaces, sorted.
listing() {
	"$REAP" -j --mode "$1" --udp-unconnected list state all |
		jq -r '.sockets[] | select(.netns_name // "" | test("nsr-")) |
			"\(.netns_cookie) \(.sock_cookie) \(.proto) \(.state) \(.local) \(.remote)"' | sort
}

@test "every mode lists the same sockets, in all $N namespaces" {
	local m first got
	first=$(listing chained)
	[ "$(cut -d' ' -f1 <<< "$first" | sort -u | wc -l)" -eq "$N" ] ||
		fail "chained listed sockets in $(cut -d' ' -f1 <<< "$first" | sort -u | wc -l) namespaces"
	for m in global netns-arg setns; do
		got=$(listing "$m")
		# The world holds still, but a TIME_WAIT socket may expire
		# between two listings: those may only go, never come.
		[ "$(grep -v ' time-wait ' <<< "$got")" = "$(grep -v ' time-wait ' <<< "$first")" ] ||
			fail "$m differs from chained: $(diff <(grep -v ' time-wait ' <<< "$first") <(grep -v ' time-wait ' <<< "$got") | grep '^[<>]' | head -n 6 | tr '\n' ';')"
		[ -z "$(comm -13 <(grep ' time-wait ' <<< "$first") <(grep ' time-wait ' <<< "$got"))" ] ||
			fail "$m lists TIME_WAIT sockets chained did not: $(comm -13 <(grep ' time-wait ' <<< "$first") <(grep ' time-wait ' <<< "$got") | head -n 3 | tr '\n' ';')"
	done
}

@test "a read of the iterator that fails with EAGAIN is retried, nothing lost, in every mode" {
	local m want got
	for m in chained global netns-arg setns; do
		want=$(listing "$m" | grep -v ' time-wait ')
		got=$(ITER_EAGAIN_LOG=$BATS_TEST_TMPDIR/eagain LD_PRELOAD=$BUILD/bin/iter-eagain.so \
			listing "$m" | grep -v ' time-wait ')
		[ "$(cat "$BATS_TEST_TMPDIR/eagain")" -ge 1 ] || fail "$m: no EAGAIN injected"
		[ -n "$want" ] && [ "$got" = "$want" ] ||
			fail "$m: $(diff <(echo "$want") <(echo "$got") | grep -c '^[<>]') sockets differ after EAGAIN"
		rm "$BATS_TEST_TMPDIR/eagain"
	done
}

@test "chained and global skip listeners in the kernel unless the state filter wants them" {
	local all conn want got m
	# Listeners are in every namespace (4 per nsr-*) and nothing else can
	# only appear in between: TIME_WAIT sockets can only go away.
	for m in chained global; do
		all=$("$REAP" -j --mode $m list state all | jq .summary.sockets_seen)
		conn=$("$REAP" -j --mode $m list | jq .summary.sockets_seen)
		[ $((all - conn)) -ge $((N * 4)) ] ||
			fail "$m: state all saw $all sockets, the default filter $conn: listeners not skipped"
	done
	# What the default filter matches does not change: netns-arg walks
	# the listeners and filters them out in the program.
	want=$("$REAP" -j --mode netns-arg list | jq -r '.sockets[] |
		select(.netns_name // "" | test("nsr-")) | .sock_cookie' | sort)
	[ -n "$want" ] || fail "netns-arg matched nothing"
	for m in chained global; do
		got=$("$REAP" -j --mode $m list | jq -r '.sockets[] |
			select(.netns_name // "" | test("nsr-")) | .sock_cookie' | sort)
		[ "$got" = "$want" ] ||
			fail "$m and netns-arg differ: $(diff <(echo "$want") <(echo "$got") | grep -c '^[<>]') sockets"
	done
}

@test "dst ADDR:PORT, repeated dst ORed, IPv4 matches IPv4-mapped sockets" {
	local m
	for m in chained global netns-arg setns; do
		run matches --mode "$m" list dst 127.0.0.1:8080
		[ "$(grep -c '^tcp 127.0.0.1:8080$' <<< "$output")" -eq $((N * 2)) ] ||
			fail "$m: dst 127.0.0.1:8080 gave: $output"
		run matches --mode "$m" list dst 127.0.0.1:8080 dst '[::1]:8081'
		[ "$(wc -l <<< "$output")" -eq $((N * 3)) ] || fail "$m: two dsts gave: $output"
	done
}

# tw_to_x: how many TIME_WAIT sockets to port 8080 ss shows.
tw_to_x() {
	ss_each -tanH state time-wait dport = :8080 | grep -c . || true
}

@test "prefixes, ports, proto, state and netns filters combine with AND" {
	local cookie before after local_side
	run matches list dst 127.0.0.0/8
	# Clients of X, of the other backend and of the deferred listener,
	# their peers (one a request socket), and UDP to X.
	[ "$(wc -l <<< "$output")" -eq $((N * 10)) ] || fail "127/8: $output"
	run matches list dport 8082
	assert_output "$(for _ in $(seq 1 "$N"); do echo 'tcp 127.0.0.2:8082'; done)"
	run matches list proto udp dst 127.0.0.1
	[ "$(wc -l <<< "$output")" -eq $((N * 2)) ] || fail "udp to 127.0.0.1: $output"
	run matches list dst '[::1]/128' proto tcp
	# Clients of Y and their peers.
	[ "$(wc -l <<< "$output")" -eq $((N * 2)) ] || fail "[::1]: $output"
	run matches list state listening
	[ "$(wc -l <<< "$output")" -eq $((N * 4)) ] || fail "listening: $output"
	run matches list state new-syn-recv
	[ "$(wc -l <<< "$output")" -eq "$N" ] || fail "request sockets: $output"
	# TIME_WAIT lasts 60 s and the world is older: compare with ss, whose
	# count can only fall meanwhile.
	before=$(tw_to_x)
	run matches list state time-wait dport 8080
	after=$(tw_to_x)
	[ -z "$(grep -v '^tcp 127.0.0.1:8080$' <<< "$output")" ] || fail "time-wait: $output"
	[ "$(grep -c . <<< "$output")" -le "$before" ] &&
		[ "$(grep -c . <<< "$output")" -ge "$after" ] ||
		fail "time-wait: ss saw $before then $after, netns-reap $(grep -c . <<< "$output")"
	run matches list netns /run/netns/nsr-3 dport 8080
	[ "$(wc -l <<< "$output")" -eq 2 ] || fail "netns path: $output"
	cookie=$(netns_cookie nsr-2)
	run matches --mode global list netns "$cookie" dport 8080
	[ "$(wc -l <<< "$output")" -eq 2 ] || fail "netns cookie: $output"
	# The server side of the clients of 127.0.0.2:8082, by local address.
	local_side=$("$REAP" -j list src 127.0.0.2:8082 | jq -r '.sockets[] |
		select(.netns_name // "" | test("nsr-")) | "\(.proto) \(.local)"')
	[ "$local_side" = "$(for _ in $(seq 1 "$N"); do echo 'tcp 127.0.0.2:8082'; done)" ] ||
		fail "src 127.0.0.2:8082: $local_side"
	run "$REAP" list src 127.0.0.2:8083
	assert_line --regexp ' 0 matched, '
}

@test "netns COOKIE that names no namespace: a clear error, exit 2, nothing walked" {
	run "$REAP" list netns 999999999
	assert_equal "$status" 2
	assert_output "Error: no network namespace with cookie 999999999 was found (in /run/netns, the --netns-dir directories or a process); 'netns-reap netns' lists the cookies"
}

@test "no kernel BTF: every mode refused with the reason, exit 1, nothing done" {
	local m
	# In a mount namespace of its own, /sys/kernel/btf/vmlinux is empty.
	for m in auto chained global netns-arg setns; do
		run unshare -m sh -c 'mount --bind /dev/null /sys/kernel/btf/vmlinux &&
			exec "$0" --mode "$1" kill dst 127.0.0.1:8080' "$REAP" "$m"
		assert_equal "$status" 1
		assert_output --regexp "^Error: mode [a-z-]+ cannot run: no kernel BTF \(/sys/kernel/btf/vmlinux\): build the kernel with CONFIG_DEBUG_INFO_BTF=y"
	done
	run unshare -m sh -c 'mount --bind /dev/null /sys/kernel/btf/vmlinux && exec "$0" -j probe' "$REAP"
	assert_success
	jq -e '[.modes[] | select(.supported or (.reason | test("no kernel BTF") | not))] | length == 0' \
		<<< "$output" >/dev/null || fail "probe: $output"
	# Nothing was destroyed: every client of 127.0.0.1:8080 is still there.
	[ "$(ss_peers '^(127\.0\.0\.1|\[::ffff:127\.0\.0\.1\]):8080$' | wc -l)" -eq $((N * 2)) ] ||
		fail "sockets to 127.0.0.1:8080 were touched"
}

@test "UDP: unconnected sockets match only with --udp-unconnected" {
	run matches list proto udp sport 6000
	assert_output ""
	run matches --udp-unconnected list proto udp sport 6000 state all
	[ "$(wc -l <<< "$output")" -eq "$N" ] || fail "$output"
}

@test "netns: cookie, inode, names from /run/netns and --netns-dir, socket counts" {
	local line
	mkdir -p /tmp/nsr-dir
	# A name with a space in it stays one name.
	touch "/tmp/nsr-dir/pod one"
	mount --bind /run/netns/nsr-4 "/tmp/nsr-dir/pod one"
	run "$REAP" -j --netns-dir /tmp/nsr-dir netns
	assert_success
	line=$(jq -c '.netns[] | select(.inode == '"$(stat -L -c %i /run/netns/nsr-4)"')' <<< "$output")
	[ "$(jq -c '.names | sort' <<< "$line")" = '["/run/netns/nsr-4","/tmp/nsr-dir/pod one"]' ] ||
		fail "names: $line"
	# The world is up: nsr-4 has sockets, and the counts are the full
	# sockets ss shows (sockstat's "inuse": no TIME-WAIT or request socket).
	[ "$(jq .tcp <<< "$line")" -gt 0 ] || fail "no TCP sockets counted: $line"
	[ "$(jq .tcp <<< "$line")" -eq \
	  "$(ip netns exec nsr-4 sh -c 'ss -tanH | grep -vcE "TIME-WAIT|SYN-RECV"')" ] ||
		fail "tcp count: $line vs $(ip netns exec nsr-4 ss -tanH)"
	[ "$(jq .udp <<< "$line")" -gt 0 ] || fail "no UDP sockets counted: $line"
	[ "$(jq .udp <<< "$line")" -eq "$(ip netns exec nsr-4 ss -uanH | wc -l)" ] ||
		fail "udp count: $line vs $(ip netns exec nsr-4 ss -uanH)"
	run "$REAP" netns
	assert_line --regexp "^[0-9]+ +$(stat -L -c %i /proc/self/ns/net) +"
}

@test "netns-arg and global modes refuse a kernel that ignores the netns argument" {
	local re='^(127\.0\.0\.1|\[::ffff:127\.0\.0\.1\]):8080$' m
	# old-kernel-link-info.so reads the link back as a kernel older than
	# the argument would: accepted, ignored, not reported.
	for m in netns-arg global; do
		run env LD_PRELOAD="$BUILD/bin/old-kernel-link-info.so" \
			"$REAP" --mode "$m" kill dst 127.0.0.1:8080
		assert_equal "$status" 1
		assert_output --partial "Error: the kernel ignored the netns argument"
		assert_output --partial "use --mode setns"
		[ "$(ss_peers "$re" | wc -l)" -eq $((N * 2)) ] ||
			fail "$m destroyed sockets: $(ss_peers "$re" | wc -l) left"
	done
	# Without the library the same command is fine (a dry run here).
	run "$REAP" --mode netns-arg kill --dry-run dst 127.0.0.1:8080
	assert_success
}

@test "chained mode: one program load, one link, one iterator, no setns, nothing per socket" {
	local seen
	run strace -f -e trace=bpf,setns,read -o "$BATS_TEST_TMPDIR/trace" \
		"$REAP" -j --mode chained list state all
	assert_success
	seen=$(jq .summary.sockets_seen <<< "$output")
	[ "$(grep -c 'BPF_PROG_LOAD.*prog_name="reap_chained"' "$BATS_TEST_TMPDIR/trace")" -eq 1 ] ||
		fail "$(grep -c BPF_PROG_LOAD "$BATS_TEST_TMPDIR/trace") program loads"
	[ "$(grep -c 'BPF_LINK_CREATE' "$BATS_TEST_TMPDIR/trace")" -eq 1 ] || fail "links: $(grep BPF_LINK_CREATE "$BATS_TEST_TMPDIR/trace")"
	[ "$(grep -c 'BPF_ITER_CREATE' "$BATS_TEST_TMPDIR/trace")" -eq 1 ] || fail "iterators"
	[ "$(grep -c 'setns(' "$BATS_TEST_TMPDIR/trace")" -eq 0 ] || fail "setns() in chained mode"
	# Every syscall traced, reads included, is far fewer than the sockets
	# the walk saw: nothing is done per socket from user space.
	[ "$seen" -gt $((N * 10)) ] || fail "saw only $seen sockets"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/trace")" -lt "$((seen / 2))" ] ||
		fail "$(wc -l < "$BATS_TEST_TMPDIR/trace") syscalls for $seen sockets"
}

@test "kill --dry-run shows exactly what kill destroys" {
	local dir=$BATS_TEST_TMPDIR/w dry killed
	world_stop "$BATS_FILE_TMPDIR/w"
	world_start "$dir" $NS_LIST
	dry=$("$REAP" -j kill --dry-run dst 127.0.0.1:5353 dst '[::1]:8081' |
		jq -r '.sockets[] | select(.action == "would-destroy") | .sock_cookie' | sort)
	killed=$("$REAP" -j kill dst 127.0.0.1:5353 dst '[::1]:8081' |
		jq -r '.sockets[] | select(.action == "destroyed") | .sock_cookie' | sort)
	world_check "$dir"
	world_stop "$dir"
	[ -n "$dry" ] || fail "dry run matched nothing"
	assert_equal "$killed" "$dry"
	[ "$(grep -c ' ECONNABORTED$' "$dir/status")" -eq $((N * 3)) ] ||
		fail "$(cat "$dir/status")"
}

@test "kill in every mode destroys exactly what it matched, by effect and by ss" {
	local dir=$BATS_TEST_TMPDIR/w spec m dst re per left
	world_stop "$BATS_FILE_TMPDIR/w"
	world_start "$dir" $NS_LIST
	# MODE DST PEER-REGEX SOCKETS-PER-NETNS: one backend per mode.
	# IPv4 and IPv4-mapped in the netns-arg and setns modes here, and in
	# the chained and whole-host modes in 030; native IPv6 in these two.
	for spec in 'chained [::1]:8081 ^\[::1\]:8081$ 1' \
		    'global [::1]:5354 ^\[::1\]:5354$ 1' \
		    'netns-arg 127.0.0.1:8080 ^(127\.0\.0\.1|\[::ffff:127\.0\.0\.1\]):8080$ 2' \
		    'setns 127.0.0.1:5353 ^(127\.0\.0\.1|\[::ffff:127\.0\.0\.1\]):5353$ 2'; do
		read -r m dst re per <<< "$spec"
		[ "$(ss_peers "$re" | wc -l)" -eq $((N * per)) ] || fail "$m: ss before: $(ss_peers "$re" | head -n 3)"
		run "$REAP" -j --mode "$m" kill dst "$dst"
		assert_success
		[ "$(jq -r .mode <<< "$output")" = "$m" ] || fail "$m: ran $(jq -r .mode <<< "$output")"
		[ "$(jq '[.sockets[] | select(.netns_name // "" | test("nsr-"))] | length' <<< "$output")" -eq $((N * per)) ] ||
			fail "$m: matched $(jq .summary.matched <<< "$output") for dst $dst"
		jq -e '.summary.destroyed == .summary.matched and .summary.failed == 0' <<< "$output" >/dev/null ||
			fail "$m: $(jq -c .summary <<< "$output")"
		left=$(ss_peers "$re")
		[ -z "$left" ] || fail "$m: ss still shows: $(head -n 3 <<< "$left")"
	done
	world_check "$dir"
	world_stop "$dir"
	left=$(grep -E ' (tcp-x-v4|tcp-x-mapped|udp-x-v4|udp-x-mapped|tcp-y-v6|udp-y-v6) ' "$dir/status" |
		grep -v ' ECONNABORTED$' || true)
	[ -z "$left" ] || fail "not destroyed: $(head -n 4 <<< "$left")"
	left=$(grep -E ' (tcp-other|tcp-req|udp-unconnected) ' "$dir/status" | grep -v ' alive$' || true)
	[ -z "$left" ] || fail "hurt: $(head -n 4 <<< "$left")"
	[ "$(grep -c ' ECONNABORTED$' "$dir/status")" -eq $((N * 6)) ]
}

@test "kill destroys TIME_WAIT and request sockets, in every mode" {
	local dir=$BATS_TEST_TMPDIR/w spec m ns
	world_stop "$BATS_FILE_TMPDIR/w"
	world_start "$dir" $NS_LIST
	# One namespace per mode, shared and child tables.
	for spec in 'chained nsr-1' 'global nsr-2' 'netns-arg nsr-21' 'setns nsr-22'; do
		read -r m ns <<< "$spec"
		make_time_wait "$ns"
		[ -n "$(ip netns exec "$ns" ss -tanH state time-wait dport = :8090)" ] ||
			fail "$m: no TIME_WAIT socket in $ns"
		[ -n "$(ip netns exec "$ns" ss -tanH state syn-recv sport = :8083)" ] ||
			fail "$m: no request socket in $ns"
		run "$REAP" -j --mode "$m" kill state time-wait dport 8090 netns "/run/netns/$ns"
		assert_success
		jq -e '.summary.destroyed == 1 and .sockets[0].state == "time-wait"' <<< "$output" >/dev/null ||
			fail "$m: time-wait: $(jq -c '.summary, .sockets' <<< "$output")"
		run "$REAP" -j --mode "$m" kill state new-syn-recv sport 8083 netns "/run/netns/$ns"
		assert_success
		jq -e '.summary.destroyed == 1 and .sockets[0].state == "new-syn-recv"' <<< "$output" >/dev/null ||
			fail "$m: new-syn-recv: $(jq -c '.summary, .sockets' <<< "$output")"
		[ -z "$(ip netns exec "$ns" ss -tanH state time-wait dport = :8090)" ] ||
			fail "$m: the TIME_WAIT socket is still there"
		[ -z "$(ip netns exec "$ns" ss -tanH state syn-recv sport = :8083)" ] ||
			fail "$m: the request socket is still there"
		# The other request sockets live on.
		[ -n "$(ip netns exec nsr-3 ss -tanH state syn-recv sport = :8083)" ] ||
			fail "$m: nsr-3's request socket is gone too"
	done
	world_stop "$dir"
}

@test "records array full: destroy only what is recorded, print it, count the rest, exit 1" {
	local dir=$BATS_TEST_TMPDIR/w re='^(127\.0\.0\.1|\[::ffff:127\.0\.0\.1\]):8080$' m left=$((N * 2)) st
	world_stop "$BATS_FILE_TMPDIR/w"
	world_start "$dir" $NS_LIST
	[ "$(ss_peers "$re" | wc -l)" -eq "$left" ] || fail "ss before: $(ss_peers "$re" | wc -l)"
	for m in chained global; do
		st=0
		"$REAP" -j --mode "$m" kill --max-sockets 10 dst 127.0.0.1:8080 \
			> "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err" || st=$?
		[ "$st" -eq 1 ] || fail "$m: exit $st: $(cat "$BATS_TEST_TMPDIR/err")"
		[ ! -s "$BATS_TEST_TMPDIR/err" ] || fail "$m: stderr: $(cat "$BATS_TEST_TMPDIR/err")"
		jq -e --argjson l "$left" '.error == "\($l - 10) more matching sockets were left alone: the records array holds only --max-sockets 10; rerun with --max-sockets \($l) to destroy them too" and
			.summary.matched == $l and .summary.left_alone == $l - 10 and
			.summary.destroyed == 10 and (.sockets | length) == 10 and
			([.sockets[] | select(.action == "destroyed")] | length) == 10' \
			"$BATS_TEST_TMPDIR/out" >/dev/null || fail "$m: $(jq -c .summary "$BATS_TEST_TMPDIR/out")"
		left=$((left - 10))
		# Exactly the ten recorded sockets are gone, and no other.
		[ "$(ss_peers "$re" | wc -l)" -eq "$left" ] || fail "$m: ss after: $(ss_peers "$re" | wc -l), want $left"
	done
	# Without -j: the records on stdout, the error on stderr.
	st=0
	"$REAP" --mode setns kill --max-sockets 10 dst 127.0.0.1:8080 \
		> "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err" || st=$?
	[ "$st" -eq 1 ] || fail "setns: exit $st"
	grep -qx "Error: $((left - 10)) more matching sockets were left alone: the records array holds only --max-sockets 10; rerun with --max-sockets $left to destroy them too" \
		"$BATS_TEST_TMPDIR/err" || fail "setns: stderr: $(cat "$BATS_TEST_TMPDIR/err")"
	[ "$(grep -c ' destroyed$' "$BATS_TEST_TMPDIR/out")" -eq 10 ] || fail "setns: $(cat "$BATS_TEST_TMPDIR/out")"
	left=$((left - 10))
	[ "$(ss_peers "$re" | wc -l)" -eq "$left" ] || fail "setns: ss after: $(ss_peers "$re" | wc -l), want $left"
	world_check "$dir"
	world_stop "$dir"
	[ "$(grep -c ' ECONNABORTED$' "$dir/status")" -eq 30 ] ||
		fail "$(grep -c ' ECONNABORTED$' "$dir/status") sockets saw ECONNABORTED, want 30"
}

@test "a name that is not a namespace (ip netns del half done) is skipped in every mode" {
	local m
	# Between unmounting a name and removing it, "ip netns del" leaves an
	# empty file behind, which the tool may find.
	mkdir "$BATS_TEST_TMPDIR/names"
	: > "$BATS_TEST_TMPDIR/names/half-deleted"
	for m in chained global netns-arg setns; do
		run "$REAP" -j --mode "$m" --netns-dir "$BATS_TEST_TMPDIR/names" list dst 127.0.0.1:8080
		assert_success
		jq -e '.summary.netns_walked >= '"$N"' and .error == null' <<< "$output" >/dev/null ||
			fail "$m: $output"
	done
}

@test "a namespace deleted while the tool walks is counted as vanished, not walked" {
	local d=$BATS_TEST_TMPDIR m pid st
	for m in setns netns-arg; do
		ip netns add reap-gone
		mkfifo "$d/paused" "$d/resume"
		# Stop the tool as it reopens nsr-1 to walk it, which comes
		# before reap-gone (namespaces are walked by cookie).
		PAUSE_PATH=/run/netns/nsr-1 PAUSE_NTH=2 PAUSE_DIR=$d \
			LD_PRELOAD=$BUILD/bin/pause-at-open.so \
			"$REAP" -j --mode "$m" list > "$d/out" 2>&1 &
		pid=$!
		read -r -t 120 _ <> "$d/paused" || fail "$m: the tool never reached nsr-1: $(cat "$d/out")"
		ip netns del reap-gone
		echo > "$d/resume"
		st=0
		wait "$pid" || st=$?
		rm "$d/paused" "$d/resume"
		[ "$st" -eq 0 ] || fail "$m: exit $st: $(cat "$d/out")"
		jq -e '.summary.netns_vanished == 1 and .summary.netns_walked >= '"$N" "$d/out" >/dev/null ||
			fail "$m: $(jq -c .summary "$d/out")"
	done
}

@test "missing capability: a clear error, exit 1, nothing done" {
	run setpriv --bounding-set=-bpf,-sys_admin,-perfmon,-net_admin "$REAP" list
	assert_equal "$status" 1
	assert_output --partial "missing capability"
	run setpriv --bounding-set=-bpf,-sys_admin,-perfmon,-net_admin "$REAP" -j kill dst 127.0.0.1:8080
	assert_equal "$status" 1
	jq -e '.error | test("capability")' <<< "$output"
}

@test "setns mode: every setns() into a namespace is paired with one back" {
	local own
	own=$(stat -L -c %i /proc/self/ns/net)
	run strace -f -y -e trace=setns -o "$BATS_TEST_TMPDIR/trace" "$REAP" --mode setns list
	assert_success
	# strace -y names each fd: this namespace's as net:[INODE], a pod's by
	# its path or inode.  Every setns() into a pod is followed by one back
	# here before the next pod, and the tool ends at home.
	run awk -v own="<net:[$own]>" '/setns\(/ {
			if (!index($0, own)) { if (inpod) bad++; inpod = 1; pods++ }
			else inpod = 0 }
		END { print pods + 0, bad + 0, inpod + 0 }' "$BATS_TEST_TMPDIR/trace"
	read -r n bad away <<< "$output"
	[ "$n" -ge "$N" ] || fail "only $n setns() calls into a pod: $(head -n 4 "$BATS_TEST_TMPDIR/trace")"
	[ "$bad" -eq 0 ] || fail "$bad times from one pod into another: $(head -n 6 "$BATS_TEST_TMPDIR/trace")"
	[ "$away" -eq 0 ] || fail "the tool ended in a pod's namespace: $(tail -n 2 "$BATS_TEST_TMPDIR/trace")"
}

@test "namespaces that come and go mid-walk are walked or skipped, never fatal" {
	local churn end m n=0 vanished=0
	churn=$(churn_netns vanish)
	end=$((SECONDS + 20))
	while [ $SECONDS -lt $end ]; do
		for m in chained global netns-arg setns; do
			run "$REAP" -j --mode "$m" list dst 127.0.0.1:8080
			if [ "$status" -ne 0 ] || ! jq -e '.summary.netns_walked > 0' <<< "$output" >/dev/null; then
				churn_stop "$churn" vanish
				fail "$m under churn: status $status: $output"
			fi
			vanished=$((vanished + $(jq .summary.netns_vanished <<< "$output")))
			n=$((n + 1))
		done
	done
	churn_stop "$churn" vanish
	echo "# $n walks under churn, $vanished namespaces vanished" >&3
}

@test "make demo's scene runs end to end: DEMO_PODS=10" {
	local pods=10
	run env DEMO_PODS=$pods "$TOP/scripts/demo.sh" 3>&-
	assert_success
	assert_line "clients of 10.0.0.2 that saw ECONNABORTED: $((pods * 2)) of $((pods * 2))"
	assert_line --regexp "^clients of 10.0.0.1 and 10.0.0.3 with an error: 0 of $((pods * 4)); replies they got in the 3 s after the kill: [1-9][0-9]*\$"
	assert_line --regexp "^mode chained: [0-9]+ namespaces walked \(0 vanished\), [0-9]+ sockets seen, $((pods * 2)) matched, $((pods * 2)) destroyed, 0 failed"
}
