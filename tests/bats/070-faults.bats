#!/usr/bin/env bats
# Allocation failures in the walks: every fault-injection point a walk
# passes, from its link's creation to the end of its read, is made to fail
# in turn (iterlink --fail-nth, /proc/thread-self/fail-nth, with failslab
# and fail_page_alloc taking GFP_KERNEL allocations too).  Each failure
# must reach the caller as an error, or leave the walk complete: never a
# walk cut short in silence.  The same for the index's lookup and destroy
# of the sockets of one address (iterlink index).
# The namespace holds 40 TCP listeners and 40 UDP sockets in one bucket
# each, more than a first batch holds, so that batches grow.  After the
# faults, a walk without them is complete; tests/vm/run fails the boot on
# a splat or a kmemleak report.

load helpers
bats_require_minimum_version 1.5.0

MAX_POINTS=400

setup_file() {
	export W=$BATS_FILE_TMPDIR/crowd
	mkdir -p "$W"
	# GFP_KERNEL allocations fail too, slab and pages of order 1 and more
	# (the seq_file buffer, a grown batch); no stack dump per fault, which
	# would read as a splat.
	local f
	for f in failslab fail_page_alloc; do
		echo N > "/sys/kernel/debug/$f/ignore-gfp-wait"
		echo 0 > "/sys/kernel/debug/$f/verbose"
	done
	ip netns add fi-1
	"$SOCKWORLD" --crowd "$W" fi-1 40 3>&- &
	echo $! > "$W/pid"
	wait_until 30 [ -e "$W/ready" ]
}

teardown_file() {
	kill "$(cat "$W/pid")" 2>/dev/null || true
	ip netns del fi-1 2>/dev/null || true
	"$REAP" index stop >/dev/null 2>&1 || true
	local f
	for f in failslab fail_page_alloc; do
		echo Y > "/sys/kernel/debug/$f/ignore-gfp-wait"
		echo 2 > "/sys/kernel/debug/$f/verbose"
	done
}

# sockets_of OUTPUT: N of its "read ok sockets=N" line, or nothing.
sockets_of() {
	sed -n 's/^read ok sockets=\([0-9]*\)$/\1/p' <<< "$1"
}

# fail_each NAME ITERLINK-ARGS...: fail each fault point of the walk in
# turn; every outcome is an error line or a complete walk, and some faults
# hit the walk itself (a read error, or a chained walk that says it was
# cut), not only the link's and the iterator's creation.
fail_each() {
	local name=$1 full out n errors=0 in_walk=0 whole=0 got
	shift
	out=$("$ITERLINK" "$@")
	full=$(sockets_of "$out")
	[ -n "$full" ] && [ "$full" -gt 0 ] || fail "$name without faults: $out"
	for n in $(seq 1 "$MAX_POINTS"); do
		out=$("$ITERLINK" "$@" --fail-nth "$n" || true)
		got=$(sockets_of "$out")
		case "$(tail -n 1 <<< "$out")" in
		"fault not reached")
			[ "$got" = "$full" ] || fail "$name past its fault points: $out"
			echo "# $name: $((n - 1)) fault points, $errors failed with an error ($in_walk in the walk), $whole stayed whole" >&3
			[ "$in_walk" -gt 0 ] || fail "$name: no fault made the walk itself fail"
			out=$("$ITERLINK" "$@")
			[ "$(sockets_of "$out")" = "$full" ] || fail "$name after the faults: $out"
			return 0
			;;
		"fault injected") ;;
		*) fail "$name, fault $n: no fault line: $out" ;;
		esac
		if grep -q '^error read ' <<< "$out"; then
			errors=$((errors + 1)) in_walk=$((in_walk + 1))
		elif grep -q '^error ' <<< "$out"; then
			errors=$((errors + 1))
		elif grep -Eq '^cut short=[1-9][0-9]* walk_err=-12$' <<< "$out"; then
			errors=$((errors + 1)) in_walk=$((in_walk + 1))
		elif [ "$got" = "$full" ]; then
			whole=$((whole + 1))
		else
			fail "$name, fault $n: a walk cut short without an error: $out (complete: $full sockets)"
		fi
	done
	fail "$name: more than $MAX_POINTS fault points"
}

@test "a netns-arg TCP walk: every allocation failure is an error or harmless" {
	fail_each tcp tcp --fd /run/netns/fi-1
}

@test "a netns-arg UDP walk: every allocation failure is an error or harmless" {
	fail_each udp udp --fd /run/netns/fi-1
}

@test "the whole-host TCP walk: every allocation failure is an error or harmless" {
	fail_each global-tcp tcp --all
}

@test "the chained walk: every allocation failure is an error or harmless" {
	fail_each chained netns
}

@test "the index's lookup and destroy: every allocation failure is an error or a complete kill" {
	local out line n d f a of errors=0 whole=0
	"$REAP" index start >/dev/null
	# One load for every fault point: a round each (iterlink index).
	out=$("$ITERLINK" index 4 --netns /run/netns/fi-1 --fail-each "$MAX_POINTS") ||
		fail "iterlink: $out"
	while read -r line; do
		case "$line" in
		"fault "*" not-reached: killed destroyed=8 failed=0 aborted=8 of=8")
			n=$(cut -d' ' -f2 <<< "$line")
			echo "# index: $((n - 1)) fault points, $errors failed with an error, $whole stayed whole" >&3
			"$REAP" index stop >/dev/null
			return 0
			;;
		"fault "*" injected: error "*)
			errors=$((errors + 1))
			continue
			;;
		"fault "*" injected: killed "*) ;;
		*) fail "index: $line" ;;
		esac
		read -r d f a of < <(sed 's/.*destroyed=\([0-9]*\) failed=\([0-9]*\) aborted=\([0-9]*\) of=\([0-9]*\)$/\1 \2 \3 \4/' <<< "$line")
		# What the kill reported destroyed was aborted, whatever else.
		[ "$a" -ge "$d" ] || fail "index: a destroy without effect: $line"
		if [ "$f" -gt 0 ]; then
			errors=$((errors + 1))
		elif [ "$a" = "$of" ] && [ "$d" = "$of" ]; then
			whole=$((whole + 1))
		else
			fail "index: sockets left alive without an error: $line"
		fi
	done <<< "$out"
	fail "index: no round passed every fault point: $out"
}
