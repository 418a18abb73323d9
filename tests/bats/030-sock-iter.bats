#!/usr/bin/env bats
# Socket iteration parameterised by network namespace: the netns argument,
# the whole-host walk and the chained walk, against the setns() baseline.
# 32 namespaces, 16 with shared tables and 16 with tables of their own.

load helpers

MODES="chained global netns-arg setns"

setup_file() {
	make_netns nsk 1 16
	make_netns nsk 17 32 256
	NS_LIST=$(seq -f 'nsk-%g' 1 32 | tr '\n' ' ')
	export NS_LIST
	world_start "$BATS_FILE_TMPDIR/w" $NS_LIST
}

teardown_file() {
	local i
	world_stop "$BATS_FILE_TMPDIR/w"
	for i in $(seq 1 32); do ip netns del "nsk-$i" 2>/dev/null; done
	for i in $(ip netns list | sed -n 's/^\(churn-[0-9]*\).*/\1/p'); do
		ip netns del "$i"
	done
	ip netns del nsk-dies 2>/dev/null
	if [ -s "$BATS_FILE_TMPDIR/walker" ]; then
		kill "$(cat "$BATS_FILE_TMPDIR/walker")" 2>/dev/null
		wait "$(cat "$BATS_FILE_TMPDIR/walker")" 2>/dev/null
	fi
	for i in $(seq 1 8); do ip netns del "nsk-dying-$i" 2>/dev/null; done
	kprobes_off
	rm -f "$PIN-netns-gone" "$PIN-dies" "$PIN-pin-bad" "$PIN-pin-conn"
	return 0
}

# ss_cookies: "NETNS COOKIE" for every TCP and UDP socket ss reports in
# the namespaces of NS_LIST.
ss_cookies() {
	ss_each -tuanHe | awk 'match($0, / sk:[0-9a-f]+/) {
			print "/run/netns/" $1, substr($0, RSTART + 4, RLENGTH - 4) }' |
		while read -r ns c; do echo "$ns $((16#$c))"; done | sort
}

# each_mode_like_ss WHAT CMD: CMD MODE prints "NETNS COOKIE" pairs; in every
# mode they are the sockets ss sees, each once.  One ss snapshot closes
# one mode and opens the next.
each_mode_like_ss() {
	local what=$1 cmd=$2 before after m got
	before=$(ss_cookies)
	[ "$(wc -l <<< "$before")" -ge $((32 * 10)) ] || fail "world too small: $before"
	for m in $MODES; do
		got=$("$cmd" "$m")
		after=$(ss_cookies)
		same_sockets "$m$what" "$before" "$got" "$after"
		before=$after
	done
}

# mode_cookies MODE: the same pairs, from netns-reap in MODE.
mode_cookies() {
	"$REAP" -j --mode "$1" --udp-unconnected list state all |
		jq -r '.sockets[] | select(.netns_name != null) |
			select(.netns_name | test("/run/netns/nsk-")) |
			"\(.netns_name) \(.sock_cookie)"' | sort
}

@test "child tables are in place for half the namespaces" {
	run ip netns exec nsk-20 sysctl -n net.ipv4.tcp_ehash_entries
	assert_output "256"
	run ip netns exec nsk-3 sysctl -n net.ipv4.tcp_ehash_entries
	refute_output "256"
}

@test "every mode sees exactly the sockets ss sees, each once" {
	each_mode_like_ss "" mode_cookies
}

@test "the walks cover listening, established, TIME_WAIT, request and UDP sockets, v4 and v6" {
	local ns m
	for ns in nsk-3 nsk-20; do
		for m in $MODES; do
			# TIME_WAIT lasts 60 s, less than the walks of every mode
			# take under KASAN: one made just before each walk.
			make_time_wait "$ns"
			run "$REAP" -j --mode "$m" --udp-unconnected list state all netns "/run/netns/$ns"
			assert_success
			for want in '"tcp" "listening"' '"tcp" "established"' '"tcp" "time-wait"' \
				    '"tcp" "new-syn-recv"' '"udp" "established"' '"udp" "close"'; do
				jq -r '.sockets[] | "\"\(.proto)\" \"\(.state)\""' <<< "$output" |
					grep -qxF "$want" || fail "$m: no $want socket in $ns"
			done
			jq -r '.sockets[].family' <<< "$output" | sort -u | tr '\n' ' ' |
				grep -q "inet inet6" || fail "$m: not both families in $ns"
		done
	done
	# The request socket is the server side of 127.0.0.1:8083, as in ss.
	run ip netns exec nsk-20 ss -tanH state syn-recv sport :8083
	assert_success
	[ "$(wc -l <<< "$output")" -eq 1 ] || fail "ss: $output"
}

# dump_cookies MODE: "NETNS COOKIE" from the programs' own dump, read from
# the iterator one byte at a time, so every socket (every namespace, in
# the chained walk) is a separate read that stops and resumes the walk.
dump_cookies() {
	local m=$1 ns names opt args=()
	names=$("$REAP" -j netns | jq -r '.netns[] | select(.names[0] != null) |
		select(.names[0] | test("^/run/netns/nsk-")) | "\(.cookie) \(.names[0])"')
	case $m in
	chained) "$ITERLINK" netns --dump --bufsize 1 ;;
	global) "$ITERLINK" tcp --all --dump --bufsize 1
		"$ITERLINK" udp --all --dump --bufsize 1 ;;
	netns-arg|setns)
		opt=--fd
		[ "$m" = setns ] && opt=--setns
		for ns in $NS_LIST; do args+=("$opt" "/run/netns/$ns"); done
		"$ITERLINK" tcp "${args[@]}" --dump --bufsize 1
		"$ITERLINK" udp "${args[@]}" --dump --bufsize 1 ;;
	esac | awk -v names="$names" '
		BEGIN { n = split(names, l, "\n")
			for (i = 1; i <= n; i++) { split(l[i], f, " "); name[f[1]] = f[2] } }
		/^error / { print; next }
		/^[0-9]+ [0-9]+ / && ($1 in name) { print name[$1], $2 }' | sort
}

@test "iter/tcp and iter/udp without the argument still walk only the opener's netns" {
	local before got
	before=$(ip netns exec nsk-7 ss -tuanH | awk '$2 != "TIME-WAIT"' | wc -l)
	[ "$before" -gt 0 ] || fail "no sockets in nsk-7"
	run ip netns exec nsk-7 "$ITERLINK" tcp --dump
	assert_success
	got=$(grep -cE '^[0-9]+ [0-9]+ ' <<< "$output")
	run ip netns exec nsk-7 "$ITERLINK" udp --dump
	assert_success
	got=$((got + $(grep -cE '^[0-9]+ [0-9]+ ' <<< "$output")))
	# The walk sees nsk-7's sockets and no other namespace's: every dumped
	# line is nsk-7's, and their count is what ss shows, TIME_WAIT aside.
	run ip netns exec nsk-7 "$ITERLINK" tcp --dump
	[ "$(awk '/^[0-9]+ [0-9]+ / { print $1 }' <<< "$output" | sort -u)" = "$(netns_cookie nsk-7)" ] ||
		fail "a socket of another namespace: $output"
	[ "$got" -ge "$before" ] || fail "walked $got sockets, ss shows $before"
}

@test "read one byte at a time, every mode dumps exactly what ss sees, each once" {
	each_mode_like_ss " dump" dump_cookies
}

# ss_to_x: the sockets ss shows connected to backend X, in every namespace.
ss_to_x() {
	ss_peers '^(127\.0\.0\.1|\[::ffff:127\.0\.0\.1\]):(8080|5353)$'
}

# reap_and_check MODE: kill backend X through MODE in a fresh world, then
# every X socket fails with ECONNABORTED and is gone from ss, and every
# other socket is alive.
reap_and_check() {
	local m=$1 dir=$BATS_TEST_TMPDIR/w bad before after
	world_stop "$BATS_FILE_TMPDIR/w"
	world_start "$dir" $NS_LIST
	before=$(ss_to_x | wc -l)
	run "$REAP" -j --mode "$m" kill dst 127.0.0.1:8080 dst 127.0.0.1:5353
	after=$(ss_to_x)
	world_check "$dir"
	world_stop "$dir"
	[ "$before" -eq $((32 * 4)) ] || fail "ss saw $before sockets to X before the kill"
	[ -z "$after" ] || fail "$m: ss still shows sockets to X: $(head -n 4 <<< "$after")"
	assert_success
	[ "$(jq -r .mode <<< "$output")" = "$m" ] || fail "ran $(jq -r .mode <<< "$output")"
	[ "$(jq .summary.destroyed <<< "$output")" -ge $((32 * 4)) ] ||
		fail "destroyed only $(jq .summary.destroyed <<< "$output")"
	bad=$(grep -E ' (tcp|udp)-x-[a-z0-9]+ ' "$dir/status" | grep -v ' ECONNABORTED$' || true)
	[ -z "$bad" ] || fail "$m left X sockets alive: $(head -n 4 <<< "$bad")"
	bad=$(grep -vE ' (tcp|udp)-x-[a-z0-9]+ ' "$dir/status" | grep -v ' alive$' || true)
	[ -z "$bad" ] || fail "$m hurt other sockets: $(head -n 4 <<< "$bad")"
	[ "$(grep -c ' ECONNABORTED$' "$dir/status")" -eq $((32 * 4)) ]
}

@test "destroy through the chained walk: X fails with ECONNABORTED, the rest lives" {
	reap_and_check chained
}

@test "destroy through the whole-host walk" {
	reap_and_check global
}

@test "destroy through the netns argument" {
	reap_and_check netns-arg
}

@test "destroy through setns() and iter/tcp as in 7.3" {
	reap_and_check setns
}

@test "netns argument by fd and by cookie: the link reports it" {
	local cookie
	cookie=$(netns_cookie nsk-5)
	run "$ITERLINK" tcp --fd /run/netns/nsk-5
	assert_success
	assert_line "link netns_cookie=$cookie flags=0"
	assert_line "fdinfo netns_cookie:	$cookie"
	run "$ITERLINK" udp --cookie "$cookie"
	assert_success
	assert_line "link netns_cookie=$cookie flags=0"
	run "$ITERLINK" tcp --all
	assert_success
	assert_line "link netns_cookie=0 flags=1"
	assert_line "fdinfo netns:	all"
}

# ns_dump: the lines of a dump (on stdin) of the nsk-* namespaces' sockets.
ns_dump() {
	local ns cookies=""
	for ns in $NS_LIST; do cookies+=" $(netns_cookie "$ns")"; done
	awk -v c="$cookies" 'BEGIN { n = split(c, l, " "); for (i = 1; i <= n; i++) ours[l[i]] = 1 }
		/^[0-9]+ [0-9]+ / && ($1 in ours)'
}

@test "whole-host walk with skip_listen: every TCP socket but the listeners" {
	local all conn rc=0 dump
	# A world of its own, as the destroy tests have: they stop the file's.
	world_stop "$BATS_FILE_TMPDIR/w"
	world_start "$BATS_TEST_TMPDIR/w" $NS_LIST
	make_time_wait nsk-3
	make_time_wait nsk-20
	all=$("$ITERLINK" tcp --all --dump) || rc=$?
	dump=$("$ITERLINK" tcp --flags 3 --dump) || rc=$?
	world_stop "$BATS_TEST_TMPDIR/w"
	[ "$rc" -eq 0 ] || fail "iterlink failed: $all $dump"
	run cat <<< "$dump"
	assert_line "link netns_cookie=0 flags=3"
	assert_line "fdinfo listeners:	skipped"
	all=$(ns_dump <<< "$all")
	conn=$(ns_dump <<< "$dump")
	# TCP_LISTEN is 10, TCP_ESTABLISHED 1, TCP_TIME_WAIT 6
	[ "$(awk '$5 == 10' <<< "$all" | wc -l)" -ge 32 ] || fail "fewer listeners than namespaces: $all"
	[ "$(awk '$5 == 1' <<< "$conn" | wc -l)" -ge $((32 * 4)) ] || fail "too few established: $conn"
	[ "$(awk '$5 == 6' <<< "$conn" | wc -l)" -ge 2 ] || fail "no TIME_WAIT: $conn"
	[ -z "$(awk '$5 == 10' <<< "$conn")" ] || fail "a listener with skip_listen: $conn"
	# Every other socket of the walk of all: established sockets stay, and
	# a TIME_WAIT socket can only have gone in between.
	[ "$(awk '$5 == 1 { print $1, $2 }' <<< "$conn" | sort)" = \
	  "$(awk '$5 == 1 { print $1, $2 }' <<< "$all" | sort)" ] ||
		fail "established sockets differ: $(diff <(awk '$5 == 1' <<< "$all" | sort) <(awk '$5 == 1' <<< "$conn" | sort))"
}

@test "bpftool: iter pin takes a netns, link show prints it" {
	local cookie
	cookie=$(netns_cookie nsk-6)
	rm -f "$PIN-pin-fd" "$PIN-pin-fd0" "$PIN-pin-cookie" "$PIN-pin-all" "$PIN-pin-conn"
	run "$BPFTOOL" iter pin "$OBJ/reap.bpf.o" "$PIN-pin-fd" netns /run/netns/nsk-6
	assert_success
	# With stdin closed the namespace opens as fd 0, which names none
	# ("run CMD <&-" would not do: run gives CMD a pipe as stdin).
	run bash -c '"$@" <&-' - "$BPFTOOL" iter pin "$OBJ/reap.bpf.o" "$PIN-pin-fd0" \
		netns /run/netns/nsk-6
	assert_success
	run "$BPFTOOL" iter pin "$OBJ/reap.bpf.o" "$PIN-pin-cookie" netns cookie "$cookie"
	assert_success
	run "$BPFTOOL" iter pin "$OBJ/reap.bpf.o" "$PIN-pin-all" netns all
	assert_success
	run "$BPFTOOL" iter pin "$OBJ/reap.bpf.o" "$PIN-pin-conn" netns all skip_listen
	assert_success
	run "$BPFTOOL" -j link show
	rm -f "$PIN-pin-fd" "$PIN-pin-fd0" "$PIN-pin-cookie" "$PIN-pin-all" "$PIN-pin-conn"
	[ "$(jq '[.[] | select(.target_name == "tcp" and .netns == "all" and .skip_listen == true)] | length' <<< "$output")" -eq 1 ] ||
		fail "link show -j: $output"
	[ "$(jq "[.[] | select(.target_name == \"tcp\" and .netns_cookie == $cookie)] | length" <<< "$output")" -eq 3 ] ||
		fail "link show -j: $output"
	[ "$(jq '[.[] | select(.target_name == "tcp" and .netns == "all")] | length' <<< "$output")" -eq 2 ] ||
		fail "link show -j: $output"
	run "$BPFTOOL" iter pin "$OBJ/reap.bpf.o" "$PIN-pin-bad" netns cookie 12x
	assert_failure
	assert_output --partial "can't parse netns cookie 12x"
	run "$BPFTOOL" iter pin "$OBJ/reap.bpf.o" "$PIN-pin-bad" netns /nonexistent
	assert_failure
	assert_output --partial "can't open netns /nonexistent"
}

@test "bpftool: netns only for tcp and udp, and refused where the kernel ignores it" {
	rm -f "$PIN-pin-bad"
	run "$BPFTOOL" iter pin "$OBJ/netns_dump.bpf.o" "$PIN-pin-bad" netns /run/netns/nsk-6
	assert_failure
	assert_output --partial "netns is for the tcp and udp iterators, not iter/netns"
	run env LD_PRELOAD="$BUILD/bin/old-kernel-link-info.so" \
		"$BPFTOOL" iter pin "$OBJ/reap.bpf.o" "$PIN-pin-bad" netns /run/netns/nsk-6
	assert_failure
	assert_output --partial "the kernel ignored the netns argument"
	[ ! -e "$PIN-pin-bad" ]
}

@test "bpftool: link show prints the netns of a socket iterator link" {
	local cookie
	cookie=$(netns_cookie nsk-6)
	rm -f "$PIN-pin-fd"
	"$BPFTOOL" iter pin "$OBJ/reap.bpf.o" "$PIN-pin-fd" netns /run/netns/nsk-6
	run "$BPFTOOL" link show
	rm -f "$PIN-pin-fd"
	assert_output --regexp "target_name tcp  netns_cookie $cookie"
}

@test "both fd and cookie, unknown flags, skip_listen without all or with udp, all with a netns: EINVAL" {
	run "$ITERLINK" tcp --fd /run/netns/nsk-5 --cookie 1
	assert_output "error attach EINVAL"
	run "$ITERLINK" tcp --flags 4
	assert_output "error attach EINVAL"
	run "$ITERLINK" tcp --flags 2
	assert_output "error attach EINVAL"
	run "$ITERLINK" udp --flags 3
	assert_output "error attach EINVAL"
	run "$ITERLINK" udp --all --cookie 1
	assert_output "error attach EINVAL"
	run "$ITERLINK" tcp --fd /proc/self/ns/user
	assert_output "error attach EINVAL"
}

@test "a stale cookie: ENOENT" {
	local cookie
	ip netns add nsk-gone
	cookie=$(netns_cookie nsk-gone)
	ip netns del nsk-gone
	for _ in $(seq 1 50); do
		run "$ITERLINK" tcp --cookie "$cookie"
		[ "$output" = "error attach ENOENT" ] && break
		sleep 0.1
	done
	assert_output "error attach ENOENT"
}

@test "a namespace that dies under a pinned link: ENOENT, the link does not keep it" {
	local inum
	ip netns add nsk-dies
	inum=$(stat -L -c %i /run/netns/nsk-dies)
	rm -f "$PIN-dies"
	"$BPFTOOL" iter pin "$OBJ/reap.bpf.o" "$PIN-dies" netns /run/netns/nsk-dies
	run cat "$PIN-dies"
	assert_success
	ip netns del nsk-dies
	# The link holds a passive reference only: the namespace goes, and the
	# netns walk stops showing it, while the link still exists.
	wait_until 30 netns_gone "$inum"
	run cat "$PIN-dies"
	rm -f "$PIN-dies"
	assert_failure
	assert_output --partial "No such file or directory"
}


# purge_done: a tcp_twsk_purge() that began after the trace was cleared
# has returned (kprobe events nsit_purge and nsit_purge_ret).
purge_done() {
	grep -v '^#' /sys/kernel/tracing/trace |
		awk '/nsit_purge:/ { b = 1 } /nsit_purge_ret:/ && b { d = 1 } END { exit !d }'
}

# kprobes_off: the kprobe events of the dying-namespace test, gone.
kprobes_off() {
	{
		echo 0 > /sys/kernel/tracing/events/kprobes/enable || :
		echo '-:nsit_purge' >> /sys/kernel/tracing/kprobe_events || :
		echo '-:nsit_purge_ret' >> /sys/kernel/tracing/kprobe_events || :
	} 2>/dev/null
}

@test "the whole-host walk hands out no socket of a dying namespace" {
	local i c cookies="" d=$BATS_TEST_TMPDIR ev=/sys/kernel/tracing/kprobe_events
	# The TIME_WAIT sockets of a namespace whose last reference is gone
	# stay in the shared hash until tcp_twsk_purge(), late in
	# cleanup_net(); the kprobes say when a purge begun after the
	# deletion has ended.  One walker walks the whole host again and
	# again meanwhile, each walk headed with the phase it began in.
	kprobes_off
	echo 'p:nsit_purge tcp_twsk_purge' >> "$ev"
	echo 'r:nsit_purge_ret tcp_twsk_purge' >> "$ev"
	echo 1 > /sys/kernel/tracing/events/kprobes/enable
	for i in $(seq 1 8); do
		ip netns add "nsk-dying-$i"
		ip -n "nsk-dying-$i" link set lo up
		c=$(netns_cookie "nsk-dying-$i")
		[ -n "$c" ] || fail "no cookie for nsk-dying-$i"
		cookies+="${cookies:+ }$c"
	done
	# TIME_WAIT lasts 60 s: made last, just before the walks
	for i in $(seq 1 8); do make_time_wait "nsk-dying-$i"; done
	echo alive > "$d/phase"
	"$ITERLINK" tcp --all --dump --until "$d/stop" --phase "$d/phase" > "$d/walks" 3>&- &
	echo $! > "$BATS_FILE_TMPDIR/walker"
	wait_until 60 grep -q "^walk 2 " "$d/walks"
	echo > /sys/kernel/tracing/trace
	# one ip, so that one cleanup_net() is likely to take all 8
	for i in $(seq 1 8); do echo "netns del nsk-dying-$i"; done | ip -batch -
	echo dying > "$d/phase"
	wait_until 120 purge_done
	echo gone > "$d/phase"
	wait_until 60 grep -q "^walk [0-9]* gone" "$d/walks"
	touch "$d/stop"
	wait "$(cat "$BATS_FILE_TMPDIR/walker")" || fail "iterlink: $(tail -n 1 "$d/walks")"
	rm -f "$BATS_FILE_TMPDIR/walker"
	kprobes_off
	# Walk 1, alive, handed out the TIME_WAIT socket of each of the 8;
	# walks began while they died, and none begun after the deletion
	# handed out any.
	run awk -v cookies="$cookies" '
		BEGIN { split(cookies, c, " "); for (i in c) want[c[i]] = 1 }
		/^walk / { w = $2; phase = $3; if (phase == "dying") dying++; next }
		($1 in want) && w == 1 { first[$1] = 1 }
		($1 in want) && phase != "alive" { print "walk " w " (" phase ") handed out " $0; bad++ }
		END { n = 0; for (k in first) n++
		      print "walk 1 saw " n " of the 8; " dying + 0 " walks began while they died"
		      exit bad || n != 8 || !dying }' "$d/walks"
	echo "# $output" | tail -n 1 >&3
	assert_success
}

@test "churn: the chained walk destroys while namespaces and sockets come and go" {
	local churn end n=0 destroyed=0 out st
	churn=$(churn_netns churn)
	end=$((SECONDS + 12))
	# Three kills at least, however slow the guest: a count, not a rate.
	while [ "$n" -lt 3 ] || [ $SECONDS -lt $end ]; do
		# Exit 3 (some destroys failed) is allowed: a socket its
		# client closes after the walk handed it out is gone (ENOENT).
		st=0
		out=$("$REAP" -j --mode chained kill dst 127.0.0.1:8080 dst 127.0.0.1:5353) || st=$?
		[ "$st" -eq 0 ] || [ "$st" -eq 3 ] ||
			{ churn_stop "$churn" churn; fail "chained kill failed during churn: exit $st: $out"; }
		# Only sockets of the two backends are touched, each reported.
		jq -e '([.sockets[] | select(.remote |
				test("^(127\\.0\\.0\\.1|\\[::ffff:127\\.0\\.0\\.1\\]):(8080|5353)$") | not)] | length) == 0 and
			([.sockets[] | select(.action == "destroyed")] | length) == .summary.destroyed and
			([.sockets[] | select(.action == "failed" and .error != "No such file or directory")] | length) == 0 and
			.summary.destroyed + .summary.failed == .summary.matched' <<< "$out" >/dev/null ||
			{ churn_stop "$churn" churn; fail "kill $n: $(jq -c '.summary, [.sockets[] | select(.action != "destroyed")][:3]' <<< "$out")"; }
		destroyed=$((destroyed + $(jq .summary.destroyed <<< "$out")))
		n=$((n + 1))
	done
	churn_stop "$churn" churn
	echo "# $n chained kills under churn, $destroyed sockets destroyed" >&3
	[ "$destroyed" -gt 0 ] || fail "$n kills under churn destroyed nothing"
}
