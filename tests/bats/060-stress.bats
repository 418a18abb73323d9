#!/usr/bin/env bats
# Everything at once, for STRESS_SECONDS (60 in make check; make stress
# DURATION=N for longer): readers of iter/netns and iter.s/netns, chained
# walks that read every namespace's sockets, whole-host walks, netns-arg
# links on namespaces being deleted, netns-reap kill loops in every mode
# (the socket index's among them, which runs for the whole test),
# TCP and UDP churn over IPv4 and IPv6 with TIME_WAIT and request sockets
# (tests/stress-churn.c), and namespaces created and deleted with shared
# and with child tables.
#
# Afterwards: every run ended as it may under churn; every socket a reap
# destroyed matched its filter as the tool recorded it; no socket outside
# the filter was touched, as the sockets themselves tell (SO_ERROR and
# ECONNABORTED on the churn's accepted sockets, listeners and UDP servers,
# and a sockworld in each namespace); once all is stopped and deleted, the
# namespace count and the allocated TCP sockets return to where they
# started.  tests/vm/run fails the boot on any splat, hung task or kmemleak
# report.

load helpers
bats_require_minimum_version 1.5.0

DURATION=${STRESS_SECONDS:-60}
PORT=9000
MODES="chained global netns-arg setns index"
PERSIST="st-shared-1 st-shared-2 st-child-1 st-child-2"

# Namespaces the kernel's own walk shows, and TCP sockets allocated (all
# namespaces: /proc/net/sockstat's alloc is one global counter).
netns_count() {
	grep -c '^netns ' "$PIN/netns"
}

tcp_alloc() {
	awk '$1 == "TCP:" { for (i = 2; i < NF; i++) if ($i == "alloc") print $(i + 1) }' \
		/proc/net/sockstat
}

netns_back() {
	[ "$(netns_count)" -eq "$(cat "$S/netns0")" ]
}

tcp_back() {
	[ "$(tcp_alloc)" -le "$(cat "$S/alloc0")" ]
}

# every_until END NAME CMD...: run CMD over and over until $SECONDS reaches
# END; $S/NAME gets each run's exit status, NAME.err its errors and
# NAME.out the output of each run (NAME.last only the last one's when
# NAME is not a reap's: the walks' output is not checked).  bats runs
# tests under set -e, which background jobs inherit: every status is
# caught, never left to end the loop.
every_until() {
	local end=$1 name=$2 out rc
	shift 2
	out=$S/$name.last
	[[ $name == reap-* ]] && out=$S/$name.out
	while [ "$SECONDS" -lt "$end" ]; do
		[[ $name == reap-* ]] || : > "$out"
		rc=0
		"$@" >> "$out" 2>> "$S/$name.err" || rc=$?
		echo "$rc" >> "$S/$name"
	done
}

# Create namespaces (child tables every other one), each with a second of
# churn and an anonymous one beside; then delete each while a netns-arg
# link names it by cookie, so that nothing but the bind mount keeps it:
# the link's walk reads it whole or finds it gone.
netns_churn() {
	local end=$1 i=0 ns cookie rc
	while [ "$SECONDS" -lt "$end" ]; do
		i=$((i + 1))
		ns=st-tmp-$i
		make_netns st-tmp "$i" "$i" $((i % 2 ? 256 : 0))
		ip -n "$ns" link set lo up
		echo "$ns" >> "$S/created"
		unshare -n true
		rc=0
		"$BUILD/bin/stress-churn" "$ns" 1 "$PORT" >> "$S/tmp-churn.out" 2>&1 || rc=$?
		[ "$rc" = 0 ] || echo "$ns: stress-churn exited $rc" >> "$S/tmp-churn.out"
		cookie=$(sed -n 's/^netns_cookie=\([0-9]*\) .*/\1/p' "$S/tmp-churn.out" | tail -n 1)
		"$ITERLINK" tcp --cookie "$cookie" --dump > "$S/arg.last" 2>&1 &
		ip netns del "$ns" && echo "$ns" >> "$S/deleted"
		rc=0
		wait $! || rc=$?
		echo "$rc $(tail -n 1 "$S/arg.last")" >> "$S/arg"
	done
}

setup_file() {
	export S=$BATS_FILE_TMPDIR/stress
	mkdir -p "$S"
	pin_iter netns_dump.bpf.o netns
	pin_iter netns_dump_sleepable.bpf.o netns-s
	netns_count > "$S/netns0"
	tcp_alloc > "$S/alloc0"
	"$REAP" index start > /dev/null
	make_netns st-shared 1 2
	make_netns st-child 1 2 256
	for ns in $PERSIST; do ip -n "$ns" link set lo up; done
	# shellcheck disable=SC2086
	world_start "$S/world" $PERSIST
}

teardown_file() {
	local ns
	pkill -f "$BUILD/bin/stress-churn" || true
	world_stop "$S/world"
	for ns in $(ip netns list | awk '/^st-/ { print $1 }'); do ip netns del "$ns"; done
	"$REAP" index stop > /dev/null
	unpin_all
}

@test "walks, reaps and churn at once for ${DURATION}s" {
	local end=$((SECONDS + DURATION)) mode ns pid pids=()

	for ns in $PERSIST; do
		"$BUILD/bin/stress-churn" "$ns" "$DURATION" "$PORT" > "$S/churn-$ns.out" 2>&1 3>&- &
		pids+=($!)
	done
	netns_churn "$end" 3>&- &
	pids+=($!)
	for mode in $MODES; do
		every_until "$end" "reap-$mode" "$REAP" -j kill --mode "$mode" \
			dst "127.0.0.1:$PORT" dst "[::1]:$PORT" 3>&- &
		pids+=($!)
	done
	every_until "$end" netns cat "$PIN/netns" 3>&- &
	pids+=($!)
	every_until "$end" netns-s cat "$PIN/netns-s" 3>&- &
	pids+=($!)
	every_until "$end" chained "$ITERLINK" netns 3>&- &
	pids+=($!)
	every_until "$end" global-tcp "$ITERLINK" tcp --all --dump 3>&- &
	pids+=($!)
	every_until "$end" global-udp "$ITERLINK" udp --all --dump 3>&- &
	pids+=($!)
	# Each job by itself: wait with several pids tells only the last's.
	for pid in "${pids[@]}"; do
		wait "$pid" || fail "a stress job exited $?"
	done

	# Every run ended as it may: walks and readers 0; a kill 0, or 3 when
	# a socket closed before its destroy; a netns-arg link on a namespace
	# being deleted read it, or found it gone (ENOENT).  An index kill
	# may also exit 1 saying the index missed a socket (its kprobe skipped
	# while a bpf() call held the CPU's BPF recursion guard), never
	# silently: index status counts each.
	for f in netns netns-s chained global-tcp global-udp; do
		[ -s "$S/$f" ] || fail "$f never ran: $(ls -l "$S"; tail -n 5 "$S/$f.err" "$S/$f.last" 2>&1)"
		[ -z "$(grep -vx 0 "$S/$f")" ] ||
			fail "$f: exit $(grep -vx 0 "$S/$f" | sort | uniq -c | tr '\n' ' '): $(tail -n 3 "$S/$f.err")"
	done
	for mode in $MODES; do
		[ -s "$S/reap-$mode" ] || fail "reap $mode never ran"
		allowed='0|3'
		if [ "$mode" = index ] && grep -qx 1 "$S/reap-$mode"; then
			jq -se 'all(.[]; .error == null or (.error | startswith("the index missed")))' \
				"$S/reap-$mode.out" > /dev/null ||
				fail "reap index: $(jq -sr '.[].error // empty' "$S/reap-$mode.out" | sort | uniq -c | head -n 3)"
			"$REAP" -j index status | jq -e '.missed + .prog_misses > 0' > /dev/null ||
				fail "reap index exited 1 with no miss counted"
			allowed='0|1|3'
		fi
		[ -z "$(grep -vxE "$allowed" "$S/reap-$mode")" ] ||
			fail "reap $mode: exit $(sort "$S/reap-$mode" | uniq -c | tr '\n' ' '): $(tail -n 3 "$S/reap-$mode.err")"
		# Destroyed only what the filter names; failed only as gone.
		jq -se --arg p "$PORT" '[.[].sockets[] | select(.action == "destroyed") |
			select(.remote != "127.0.0.1:" + $p and .remote != "[::1]:" + $p)] == []' \
			"$S/reap-$mode.out" > /dev/null ||
			fail "reap $mode destroyed a socket outside its filter"
		jq -se '[.[].sockets[] | select(.action == "failed") |
			select(.error != "No such file or directory")] == []' \
			"$S/reap-$mode.out" > /dev/null ||
			fail "reap $mode: a destroy failed for another reason than ENOENT"
	done
	[ -s "$S/arg" ] || fail "no netns-arg link met a dying namespace"
	[ -z "$(grep -vE '^0 read ok|^1 error (attach|create|read) ENOENT$' "$S/arg")" ] ||
		fail "netns-arg on a dying namespace: $(grep -vE '^0 read ok|ENOENT$' "$S/arg" | head -n 3)"

	# No socket outside the filter was touched: the churn's server sides
	# and every sockworld socket.
	for ns in $PERSIST; do
		grep -q ' wrongly_aborted=0$' "$S/churn-$ns.out" ||
			fail "$ns: $(cat "$S/churn-$ns.out")"
	done
	[ -s "$S/tmp-churn.out" ] || fail "no churn in the namespaces that came and went"
	! grep -v ' wrongly_aborted=0$' "$S/tmp-churn.out" | grep -q . ||
		fail "st-tmp: $(grep -v ' wrongly_aborted=0$' "$S/tmp-churn.out" | head -n 3)"
	world_check "$S/world"
	[ -s "$S/world/status" ] || fail "sockworld gave no status"
	[ -z "$(grep -v ' alive$' "$S/world/status")" ] ||
		fail "sockworld sockets touched: $(grep -v ' alive$' "$S/world/status" | head -n 3)"

	# Something was destroyed, in every mode.
	for mode in $MODES; do
		[ "$(jq -s '[.[].summary.destroyed] | add' "$S/reap-$mode.out")" -gt 0 ] ||
			fail "reap $mode destroyed nothing in ${DURATION}s"
	done
	{
		echo "# stress ${DURATION}s:"
		for mode in $MODES; do
			echo "#   reap $mode: $(wc -l < "$S/reap-$mode") kills," \
				"$(jq -s '[.[].summary.destroyed] | add' "$S/reap-$mode.out") destroyed"
		done
		for f in netns netns-s chained global-tcp global-udp; do
			echo "#   $f: $(wc -l < "$S/$f") walks"
		done
		echo "#   namespaces: $(wc -l < "$S/created") created, $(wc -l < "$S/deleted") deleted" \
			"under a netns-arg link ($(grep -c ENOENT "$S/arg") found gone)"
		echo "#   churn: $(cat "$S"/churn-*.out | tr '\n' ' ')"
	} >&3
}

@test "afterwards every namespace is freed, every TCP socket too, and the index holds none" {
	local ns
	pkill -f "$BUILD/bin/stress-churn" || true
	world_stop "$S/world"
	for ns in $(ip netns list | awk '/^st-/ { print $1 }'); do ip netns del "$ns"; done
	wait_until 120 netns_back
	wait_until 120 tcp_back
	# The index keeps nothing of them: a reap of the churn's addresses
	# prunes what a lost race or a skipped kprobe left.
	wait_until 60 index_only_in "$(netns_cookie_of_self)"
}

# index_only_in COOKIE: after a reap of 127.0.0.1 and ::1, every entry of
# the index is of namespace COOKIE.
index_only_in() {
	"$REAP" --mode index list dst 127.0.0.1 dst ::1 > /dev/null 2>&1 || true
	"$BPFTOOL" -j map dump pinned /sys/fs/bpf/netns-reap/idx_slots |
		jq -e --argjson c "$1" 'all(.[]; .formatted.value.netns == $c)' > /dev/null
}
