# Shared by every guest test file.
load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash

TOP=${NETNS_ITER_TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
BUILD=${NETNS_ITER_BUILD:-$TOP/build}
BPFTOOL=${BPFTOOL:-$BUILD/tools/bpftool/bpftool}
OBJ=$BUILD/obj
PIN=/sys/fs/bpf/netns-iter-test

# pin_iter OBJ NAME: load OBJ with the in-tree bpftool and pin its iterator
# at $PIN/NAME.
pin_iter() {
	mkdir -p "$PIN"
	rm -f "$PIN/$2"
	"$BPFTOOL" iter pin "$OBJ/$1" "$PIN/$2"
}

unpin_all() {
	rm -rf "$PIN"
}

# Inodes of every network namespace user space can find: init_net, the
# namespaces of all processes, and the bind mounts under /run/netns.
visible_netns_inodes() {
	{
		stat -L -c %i /proc/1/ns/net
		for f in /proc/[0-9]*/ns/net; do stat -L -c %i "$f" 2>/dev/null; done
		for f in /run/netns/*; do [ -e "$f" ] && stat -L -c %i "$f"; done
	} | sort -un
}

REAP=$BUILD/bin/netns-reap
ITERLINK=$BUILD/bin/iterlink
SOCKWORLD=$BUILD/bin/sockworld

# netns_cookie NAME: the cookie of /run/netns/NAME, as netns-reap reports it.
netns_cookie() {
	"$REAP" -j netns | jq -r --arg p "/run/netns/$1" '.netns[] | select(.names[0] == $p) | .cookie'
}

# wait_until SECS CMD...: poll CMD every 0.1 s; fail the test after SECS.
wait_until() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || { fail "timed out waiting for: $*"; return 1; }
		sleep 0.1
	done
}

# netns_gone INUM: the kernel's own netns walk no longer shows INUM.
netns_gone() {
	local pin=$PIN-netns-gone
	[ -e "$pin" ] || "$BPFTOOL" iter pin "$OBJ/netns_dump.bpf.o" "$pin" >/dev/null ||
		return 1
	! grep -q " inum=$1 " "$pin"
}

# netns_cookie_of_self: the cookie of the caller's network namespace.
netns_cookie_of_self() {
	"$REAP" -j netns | jq -r --argjson i "$(stat -L -c %i /proc/self/ns/net)" \
		'.netns[] | select(.inode == $i) | .cookie'
}

# ss_each ARGS...: "NETNS LINE" for every line ss ARGS prints in each
# namespace of $NS_LIST, from one ip process for them all.
ss_each() {
	ip -all netns exec ss "$@" | awk -v want=" $NS_LIST " '
		/^netns: / { ns = $2; keep = index(want, " " ns " "); next }
		keep && NF { print ns, $0 }'
}

# ss_peers REGEX: the non-TIME_WAIT sockets ss shows, in every namespace of
# $NS_LIST, whose peer address matches REGEX.
ss_peers() {
	ss_each -tuanH | awk -v re="$1" '$3 != "TIME-WAIT" && $7 ~ re'
}

# make_time_wait NETNS: a fresh TIME_WAIT socket in NETNS, for 60 s.
make_time_wait() {
	"$SOCKWORLD" --time-wait "$1"
}

# same_sockets WHAT BEFORE GOT AFTER: GOT, a sorted list of sockets, has
# none twice, every socket of both BEFORE and AFTER (ss, just before and
# just after), and none that is in neither.  A TIME_WAIT socket may time
# out in between: it is then in BEFORE only, and GOT may or may not have it.
same_sockets() {
	local what=$1 before=$2 got=$3 after=$4 stable missing extra
	[ -z "$(uniq -d <<< "$got")" ] ||
		fail "$what: sockets seen twice: $(uniq -d <<< "$got" | head -n 8 | tr '\n' ';')"
	stable=$(comm -12 <(echo "$before") <(echo "$after"))
	missing=$(comm -23 <(echo "$stable") <(echo "$got"))
	[ -z "$missing" ] ||
		fail "$what misses sockets ss sees: $(head -n 8 <<< "$missing" | tr '\n' ';')"
	extra=$(comm -13 <(sort -u <(echo "$before") <(echo "$after")) <(echo "$got"))
	[ -z "$extra" ] ||
		fail "$what has sockets ss does not: $(head -n 8 <<< "$extra" | tr '\n' ';')"
}

# make_netns PREFIX FIRST LAST [CHILD_ENTRIES]: named namespaces with
# shared tables, or with tables of their own when CHILD_ENTRIES is given.
make_netns() {
	local prefix=$1 first=$2 last=$3 child=${4:-0} i
	sysctl -qw net.ipv4.tcp_child_ehash_entries="$child" \
		net.ipv4.udp_child_hash_entries="$child"
	for i in $(seq "$first" "$last"); do
		ip netns add "$prefix-$i"
	done
	sysctl -qw net.ipv4.tcp_child_ehash_entries=0 \
		net.ipv4.udp_child_hash_entries=0
}

# world_start DIR NETNS...: sockworld holds sockets in those namespaces.
world_start() {
	local dir=$1
	shift
	rm -rf "$dir"
	mkdir -p "$dir"
	"$SOCKWORLD" "$dir" "$@" 3>&- &
	echo $! > "$dir/pid"
	for _ in $(seq 1 600); do
		[ -e "$dir/ready" ] && return 0
		kill -0 "$(cat "$dir/pid")" 2>/dev/null || break
		sleep 0.1
	done
	echo "sockworld did not come up" >&2
	return 1
}

# world_check DIR: have the holder probe its sockets; DIR/status has them.
world_check() {
	local dir=$1
	rm -f "$dir/checked"
	kill -USR1 "$(cat "$dir/pid")"
	for _ in $(seq 1 300); do
		[ -e "$dir/checked" ] && return 0
		sleep 0.1
	done
	return 1
}

world_stop() {
	local dir=$1 pid
	[ -f "$dir/pid" ] || return 0
	pid=$(cat "$dir/pid")
	kill "$pid" 2>/dev/null
	while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
	rm -f "$dir/pid"
}

# churn_netns PREFIX: in the background, forever, add namespace PREFIX-N
# with a TCP listener and client on 127.0.0.1:8080, a UDP client to
# 127.0.0.1:5353 and two short-lived anonymous namespaces, then delete
# PREFIX-(N-1).  Prints the loop's pid; stop it with churn_stop PID PREFIX.
churn_netns() {
	local prefix=$1
	(
		i=0
		while :; do
			i=$((i + 1))
			ip netns add "$prefix-$i" || continue
			ip -n "$prefix-$i" link set lo up || true
			ip netns exec "$prefix-$i" socat TCP-LISTEN:8080,bind=127.0.0.1,reuseaddr,fork SYSTEM:'sleep 2' &
			unshare -n sleep 0.4 &
			unshare -n sleep 0.7 &
			sleep 0.2
			ip netns exec "$prefix-$i" socat -u TCP:127.0.0.1:8080 SYSTEM:'sleep 1' &
			ip netns exec "$prefix-$i" socat -u UDP:127.0.0.1:5353 SYSTEM:'sleep 1' &
			sleep 0.3
			ip netns del "$prefix-$((i - 1))" 2>/dev/null || true
		done
	) >/dev/null 2>&1 3>&- &
	echo $!
}

churn_stop() {
	local i
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null || true
	pkill -f 'socat .*127.0.0.1:(8080|5353)' || true
	for i in $(ip netns list | sed -n "s/^\($2-[0-9]*\).*/\1/p"); do
		ip netns del "$i"
	done
	return 0
}
