#!/usr/bin/env bats
# iter/netns: every live network namespace exactly once, across partial
# reads and churn, with the visibility rule of kernel/netns_iter.c.

load helpers

NAMED=64
ANON=16

setup_file() {
	local i
	unpin_all
	for i in $(seq 1 $NAMED); do
		ip netns add "nsit-$i"
	done
	mkdir -p "$BATS_FILE_TMPDIR"
	for i in $(seq 1 $ANON); do
		unshare -n sleep 3600 &
		echo $! >> "$BATS_FILE_TMPDIR/anon.pids"
	done
	wait_for_anon
	pin_iter netns_dump.bpf.o dump
	pin_iter netns_dump_sleepable.bpf.o dump_sleepable
}

teardown_file() {
	local i
	[ -f "$BATS_FILE_TMPDIR/anon.pids" ] &&
		xargs -r kill < "$BATS_FILE_TMPDIR/anon.pids" 2>/dev/null
	for i in $(seq 1 $NAMED); do
		ip netns del "nsit-$i" 2>/dev/null
	done
	unpin_all
	return 0
}

# Each background unshare has switched namespace once its ns/net differs
# from ours.
wait_for_anon() {
	local pid tries
	for pid in $(cat "$BATS_FILE_TMPDIR/anon.pids"); do
		for tries in $(seq 1 100); do
			[ "$(stat -L -c %i /proc/$pid/ns/net)" != \
			  "$(stat -L -c %i /proc/self/ns/net)" ] && break
			sleep 0.05
		done
	done
}

# walk_inodes FILE: the inodes in a dump, one per line, in walk order.
walk_inodes() {
	sed -n 's/^netns .* inum=\([0-9]*\) .*/\1/p' "$1"
}

# walk_cookies FILE: the netns cookies in a dump, never reused.
walk_cookies() {
	sed -n 's/^netns cookie=\([0-9]*\) .*/\1/p' "$1"
}

# check_dump FILE: the dump lists exactly the namespaces user space can
# find, each once, and its summary agrees.
check_dump() {
	local dump=$1 want got lines
	want=$(visible_netns_inodes)
	got=$(walk_inodes "$dump" | sort -n)
	lines=$(walk_inodes "$dump" | wc -l)
	[ "$(printf '%s\n' "$got" | uniq -d)" = "" ] ||
		fail "namespaces seen twice: $(printf '%s\n' "$got" | uniq -d | tr '\n' ' ')"
	[ "$got" = "$want" ] ||
		fail "walk and /proc differ: $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | tr '\n' ' ')"
	[ "$lines" -ge $((NAMED + ANON + 1)) ] || fail "only $lines namespaces"
	grep -qx "summary netns_count=$lines" "$dump" ||
		fail "summary disagrees with $lines lines: $(grep summary "$dump")"
	[ "$(tail -n1 "$dump" | cut -d' ' -f1)" = summary ] ||
		fail "summary is not the last line"
}

@test "walk lists exactly the named, anonymous and init namespaces" {
	cat "$PIN/dump" > "$BATS_TEST_TMPDIR/dump"
	check_dump "$BATS_TEST_TMPDIR/dump"
	# Cookies are the walk order and unique.
	run sh -c "sed -n 's/^netns cookie=\([0-9]*\) .*/\1/p' '$BATS_TEST_TMPDIR/dump' | sort -nc"
	assert_success
}

@test "1-byte reads neither skip nor repeat a namespace" {
	dd if="$PIN/dump" of="$BATS_TEST_TMPDIR/dump" bs=1 status=none
	check_dump "$BATS_TEST_TMPDIR/dump"
	cmp "$BATS_TEST_TMPDIR/dump" <(cat "$PIN/dump")
}

@test "iter.s/netns: a sleepable program sees the same set" {
	cat "$PIN/dump_sleepable" > "$BATS_TEST_TMPDIR/dump"
	check_dump "$BATS_TEST_TMPDIR/dump"
}

@test "each line carries cookie, owning user namespace and socket counts" {
	local ns=nsit-1 inum line
	inum=$(stat -L -c %i /run/netns/$ns)
	ip -n $ns link set lo up
	ip netns exec $ns socat -u TCP-LISTEN:7000,bind=127.0.0.1 - &
	ip netns exec $ns socat -u UDP-RECV:7001,bind=127.0.0.1 - &
	ip netns exec $ns socat -u UDP-RECV:7002,bind=127.0.0.1 - &
	for _ in $(seq 1 100); do
		line=$(grep " inum=$inum " "$PIN/dump")
		[[ "$line" == *" tcp=1 udp=2" ]] && break
		sleep 0.1
	done
	kill %1 %2 %3
	[[ "$line" =~ ^netns\ cookie=[0-9]+\ inum=$inum\ userns_inum=$(stat -L -c %i /proc/self/ns/user)\ tcp=1\ udp=2$ ]] ||
		fail "unexpected line: $line"
}

@test "namespaces created and destroyed during walks: no repeat, stable ones all seen" {
	local stable end n=0 churn
	stable=$(visible_netns_inodes)
	(
		i=0
		while :; do
			i=$((i + 1))
			ip netns add "churn-$i" && ip netns del "churn-$i"
			unshare -n true
		done
	) &
	churn=$!
	end=$((SECONDS + 12))
	# Five walks at least, however slow the guest: a count, not a rate.
	while [ "$n" -lt 5 ] || [ $SECONDS -lt $end ]; do
		if [ $((n % 2)) = 0 ]; then
			cat "$PIN/dump" > "$BATS_TEST_TMPDIR/dump"
		else
			dd if="$PIN/dump" of="$BATS_TEST_TMPDIR/dump" bs=7 status=none
		fi
		n=$((n + 1))
		# By cookie: a namespace freed mid-walk may hand its nsfs
		# inode number to one created after it, which the walk can
		# then rightly list too.
		[ -z "$(walk_cookies "$BATS_TEST_TMPDIR/dump" | sort | uniq -d)" ] ||
			{ kill $churn; fail "walk $n repeated a namespace"; }
		comm -23 <(echo "$stable" | sort) \
			<(walk_inodes "$BATS_TEST_TMPDIR/dump" | sort) > "$BATS_TEST_TMPDIR/missed"
		[ ! -s "$BATS_TEST_TMPDIR/missed" ] ||
			{ kill $churn; fail "walk $n missed $(cat "$BATS_TEST_TMPDIR/missed")"; }
	done
	kill $churn
	wait $churn 2>/dev/null || true
	for i in $(ip netns list | sed -n 's/^\(churn-[0-9]*\).*/\1/p'); do ip netns del "$i"; done
	echo "# $n walks under churn" >&3
}

# whole_dump FILE: no namespace twice, and the walk's count is its lines.
whole_dump() {
	local lines
	lines=$(walk_cookies "$1" | wc -l)
	[ -z "$(walk_cookies "$1" | sort | uniq -d)" ] &&
		grep -qx "summary netns_count=$lines" "$1"
}

@test "a namespace deleted with TIME_WAIT sockets: every walk stays whole until it is gone from both" {
	local cookie n=0 seen
	ip netns add nsit-dying
	ip -n nsit-dying link set lo up
	cookie=$(netns_cookie nsit-dying)
	make_time_wait nsit-dying
	# Before: in the netns walk, and its TIME_WAIT socket in the chained
	# socket walk.
	grep -q "^netns cookie=$cookie " "$PIN/dump" || fail "nsit-dying ($cookie) not walked"
	seen=$("$REAP" -j --mode chained list state time-wait netns "$cookie" | jq '.sockets | length')
	[ "$seen" -ge 1 ] || fail "no TIME_WAIT socket of nsit-dying in the chained walk"
	ip netns del nsit-dying
	# While it dies (its TIME_WAIT sockets are purged on the way), each
	# walk is whole; it leaves the netns walk, and its sockets the
	# chained walk, within 60 walks (it takes one or two).
	while :; do
		dd if="$PIN/dump" of="$BATS_TEST_TMPDIR/dump" bs=1 status=none
		whole_dump "$BATS_TEST_TMPDIR/dump" || fail "walk $n: $(tail -n 1 "$BATS_TEST_TMPDIR/dump")"
		run "$REAP" -j --mode chained list state all
		assert_success
		seen=$(jq --argjson c "$cookie" '[.sockets[] | select(.netns_cookie == $c)] | length' <<< "$output")
		n=$((n + 1))
		! grep -q "^netns cookie=$cookie " "$BATS_TEST_TMPDIR/dump" && [ "$seen" -eq 0 ] && break
		[ "$n" -lt 60 ] || fail "nsit-dying still walked after $n walks ($seen sockets)"
	done
	echo "# gone after $n walks" >&3
}

@test "bpftool link show reports the netns target" {
	# "link show pinned PATH" exits 255 after printing in bpftool 7.8
	# (do_show() returns errno != ENOENT), so list all links instead.
	run "$BPFTOOL" -j link show
	assert_success
	[ "$(jq '[.[] | select(.target_name == "netns")] | length' <<< "$output")" -ge 2 ] ||
		fail "no netns iterator links in: $output"
}
