#!/usr/bin/env bash
# The built-in demo scenario, run inside the guest by "make demo": a few pod
# namespaces, named and anonymous, with sockets in them, then one in-kernel
# walk over every network namespace with the iter/netns iterator.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${NETNS_ITER_BUILD:-$top/build}
bpftool=${BPFTOOL:-$build/tools/bpftool/bpftool}
pin=/sys/fs/bpf/netns-iter-demo
pids=()

cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in pod-a pod-b pod-c; do ip netns del "$p" 2>/dev/null || true; done
	rm -rf "$pin"
}
trap cleanup EXIT

# pod NAME TCP UDP: a named namespace with TCP pairs and connected UDP sockets.
pod() {
	local ns=$1 tcp=$2 udp=$3 i
	ip netns add "$ns"
	ip -n "$ns" link set lo up
	ip netns exec "$ns" socat TCP-LISTEN:8080,bind=127.0.0.1,fork,reuseaddr \
		SYSTEM:'sleep 600' & pids+=($!)
	sleep 0.3
	for i in $(seq 1 "$tcp"); do
		ip netns exec "$ns" socat -u TCP:127.0.0.1:8080 SYSTEM:'sleep 600' &
		pids+=($!)
	done
	for i in $(seq 1 "$udp"); do
		ip netns exec "$ns" socat -u UDP:127.0.0.1:$((9000 + i)) SYSTEM:'sleep 600' &
		pids+=($!)
	done
}

echo "== scenario: pods a, b, c (named) and two anonymous namespaces"
pod pod-a 3 1
pod pod-b 1 2
pod pod-c 0 0
unshare -n sleep 600 & pids+=($!)
unshare -n sleep 600 & pids+=($!)
sleep 1

echo "== one iter/netns walk over every network namespace"
mkdir -p "$pin"
"$bpftool" iter pin "$build/obj/netns_dump.bpf.o" "$pin/netns"
cat "$pin/netns"

echo "== names for those inodes, as user space sees them"
for f in /run/netns/*; do
	echo "$(stat -L -c %i "$f") $f"
done
