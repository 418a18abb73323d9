#!/usr/bin/env bash
# The built-in demo scenario, run inside the guest by "make demo".
#
# A small cluster-like scene: a "backends" namespace serves three backend
# addresses, 10.0.0.1-3, on TCP port 80 and UDP port 53; 50 pod namespaces,
# each joined to it by a veth pair (half with per-netns socket tables, one
# in ten anonymous, held only by a process), hold a TCP and a connected UDP
# client to every backend.  Backend 10.0.0.2 is removed, and
#   netns-reap kill dst 10.0.0.2
# destroys every socket to it, in every pod, in one in-kernel walk.  The
# clients of 10.0.0.2 see ECONNABORTED; the others keep working.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${NETNS_ITER_BUILD:-$top/build}
reap=$build/bin/netns-reap
pods=${DEMO_PODS:-50}
work=$(mktemp -d /tmp/netns-iter-demo.XXXXXX)
pids=()

# Every process of the scene runs in one of its namespaces; socat's forked
# children outlive their parents, so kill by namespace, not by pid.
cleanup() {
	local p ino
	exec 2>/dev/null	# no "Killed" notices for the scene's processes
	for p in /proc/[0-9]*; do
		ino=$(stat -L -c %i "$p/ns/net" 2>/dev/null) || continue
		grep -qx "$ino" "$work/inodes" 2>/dev/null && kill -9 "${p#/proc/}" 2>/dev/null
	done
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	for p in $(ip netns list | sed -n 's/^\(demo-[a-z0-9]*\).*/\1/p'); do
		ip netns del "$p" 2>/dev/null || true
	done
	sysctl -qw net.ipv4.tcp_child_ehash_entries=0 net.ipv4.udp_child_hash_entries=0 || true
	rm -rf "$work"
}
trap cleanup EXIT

bg() { "$@" & pids+=($!); }

# Backends: three addresses on the backends namespace's loopback, served
# by one process: a TCP server on port 80 that answers every line, and a
# UDP responder on port 53.
ip netns add demo-backends
stat -L -c %i /run/netns/demo-backends >> "$work/inodes"
ip -n demo-backends link set lo up
for b in 1 2 3; do
	ip -n demo-backends addr add "10.0.0.$b/32" dev lo
done
bg ip netns exec demo-backends "$build/bin/demo-scene" serve 10.0.0.1 10.0.0.2 10.0.0.3

# Pods: a namespace each, with a veth pair to the backends.  One process
# then holds, in every pod, a TCP and a UDP client per backend, which send
# a line every 0.5 s and log the replies in $work/pod-N-PROTO-B, and the
# error that ended them in ...err.
echo "== building the scene: $pods pods, 3 backends"
paths=()
for n in $(seq 1 "$pods"); do
	ns=demo-pod$n
	if [ $((n % 10)) = 0 ]; then
		unshare -n sleep 3600 & holder=$!
		pids+=($holder)
		while [ "$(stat -L -c %i /proc/$holder/ns/net)" = "$(stat -L -c %i /proc/self/ns/net)" ]; do
			sleep 0.05
		done
		run=(nsenter -t "$holder" -n)
		stat -L -c %i "/proc/$holder/ns/net" >> "$work/inodes"
		paths+=("/proc/$holder/ns/net")
	else
		child=0
		[ $((n % 2)) = 0 ] && child=256
		sysctl -qw net.ipv4.tcp_child_ehash_entries=$child net.ipv4.udp_child_hash_entries=$child
		ip netns add "$ns"
		stat -L -c %i "/run/netns/$ns" >> "$work/inodes"
		run=(ip netns exec "$ns")
		paths+=("/run/netns/$ns")
	fi
	"${run[@]}" ip link set lo up
	"${run[@]}" ip link add eth0 type veth peer name "p$n"
	"${run[@]}" ip link set "p$n" netns demo-backends
	"${run[@]}" ip addr add "10.1.$n.2/24" dev eth0
	"${run[@]}" ip link set eth0 up
	"${run[@]}" ip route add 10.0.0.0/24 via "10.1.$n.1"
	ip -n demo-backends addr add "10.1.$n.1/24" dev "p$n"
	ip -n demo-backends link set "p$n" up
done
for _ in $(seq 1 100); do
	[ "$(ip netns exec demo-backends ss -tlnH 'sport = :80' | wc -l)" = 3 ] && break
	sleep 0.1
done
bg "$build/bin/demo-scene" clients "$work" 10.0.0.1 10.0.0.2 10.0.0.3 -- "${paths[@]}"
for _ in $(seq 1 600); do
	[ -e "$work/ready" ] && break
	kill -0 "${pids[-1]}" 2>/dev/null || { echo "Error: the demo's clients did not start" >&2; exit 1; }
	sleep 0.1
done
[ -e "$work/ready" ] || { echo "Error: the demo's clients did not connect in 60 s" >&2; exit 1; }
sysctl -qw net.ipv4.tcp_child_ehash_entries=0 net.ipv4.udp_child_hash_entries=0
sleep 3

echo; echo "== netns-reap probe"
"$reap" probe
echo; echo "== netns-reap netns (first lines)"
"$reap" netns | sed -n 1,8p
echo "   ... $("$reap" -j netns | jq '.netns | length') namespaces"

echo; echo "== before: netns-reap list dst 10.0.0.2 (first lines)"
"$reap" list dst 10.0.0.2 | sed -n 1,6p
"$reap" list dst 10.0.0.2 | tail -n 1

replies() { # the reply lines of every client of backends 1 and 3
	cat "$work"/pod-*-tcp-[13] "$work"/pod-*-udp-[13] 2>/dev/null | wc -l || true
}

echo; echo "== backend 10.0.0.2 is removed: netns-reap kill dst 10.0.0.2"
ip -n demo-backends addr del 10.0.0.2/32 dev lo
"$reap" kill dst 10.0.0.2 > "$work/kill.txt"
head -n 4 "$work/kill.txt"
echo "   ..."
tail -n 1 "$work/kill.txt"
before=$(replies)
sleep 3

echo; echo "== after: netns-reap list dst 10.0.0.2"
"$reap" list dst 10.0.0.2

echo; echo "== proof"
aborted=$(grep -l 'Software caused connection abort' "$work"/pod-*-2.err | wc -l || true)
broken=$(find "$work" -name 'pod-*-[13].err' -size +0 | wc -l)
after=$(replies)
echo "clients of 10.0.0.2 that saw ECONNABORTED: $aborted of $((pods * 2))"
echo "clients of 10.0.0.1 and 10.0.0.3 with an error: $broken of $((pods * 4));" \
     "replies they got in the 3 s after the kill: $((after - before))"
for f in $(find "$work" -name 'pod-*-[13].err' -size +0); do
	echo "unexpected error, $(basename "$f" .err): $(head -n 2 "$f")"
done
[ "$aborted" -eq $((pods * 2)) ] && [ "$broken" -eq 0 ] && [ "$after" -gt "$before" ]
