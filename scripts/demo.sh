#!/usr/bin/env bash
# The built-in demo scenario, run inside the guest by "make demo": three pod
# namespaces (one anonymous, one with its own socket tables) talk to two
# load-balancer backends; backend 127.0.0.1:8080 goes away, and netns-reap
# finds and destroys every socket to it, in every namespace, with one
# in-kernel walk.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${NETNS_ITER_BUILD:-$top/build}
reap=$build/bin/netns-reap
pids=()
log=$(mktemp /tmp/netns-iter-demo.XXXXXX)

cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in pod-a pod-b; do ip netns del "$p" 2>/dev/null || true; done
	sysctl -qw net.ipv4.tcp_child_ehash_entries=0 || true
	rm -f "$log"
}
trap cleanup EXIT

# bg CMD...: run CMD in the background, its errors into the log.
bg() { "$@" 2>>"$log" & pids+=($!); }

# pod_sockets NETNS-EXEC...: backends on 8080 and 9090, clients of both.
pod_sockets() {
	bg "$@" socat TCP-LISTEN:8080,bind=127.0.0.1,fork,reuseaddr SYSTEM:'sleep 600'
	bg "$@" socat TCP-LISTEN:9090,bind=127.0.0.1,fork,reuseaddr SYSTEM:'sleep 600'
	sleep 0.5
	bg "$@" socat -u TCP:127.0.0.1:8080 SYSTEM:'sleep 600'
	bg "$@" socat -u TCP:127.0.0.1:8080 SYSTEM:'sleep 600'
	bg "$@" socat -u TCP:127.0.0.1:9090 SYSTEM:'sleep 600'
	bg "$@" socat -u UDP:127.0.0.1:8080 SYSTEM:'sleep 600'
}

echo "== scenario: pod-a (shared tables), pod-b (own tables), one anonymous pod"
ip netns add pod-a
sysctl -qw net.ipv4.tcp_child_ehash_entries=1024
ip netns add pod-b
sysctl -qw net.ipv4.tcp_child_ehash_entries=0
ip -n pod-a link set lo up
ip -n pod-b link set lo up
pod_sockets ip netns exec pod-a
pod_sockets ip netns exec pod-b
bg unshare -n sh -c 'ip link set lo up; exec sleep 600'
sleep 1
pod_sockets nsenter -t "${pids[-1]}" -n
sleep 1

echo; echo "== netns-reap probe"
"$reap" probe
echo; echo "== netns-reap netns"
"$reap" netns
echo; echo "== netns-reap list dst 127.0.0.1:8080"
"$reap" list dst 127.0.0.1:8080
echo; echo "== netns-reap kill --dry-run dst 127.0.0.1:8080"
"$reap" kill --dry-run dst 127.0.0.1:8080
echo; echo "== netns-reap kill dst 127.0.0.1:8080"
"$reap" kill dst 127.0.0.1:8080
sleep 0.5
echo "clients that saw ECONNABORTED (\"Software caused connection abort\"): $(grep -c 'connection abort' "$log")"
echo; echo "== afterwards, nothing is left connected to 127.0.0.1:8080"
"$reap" list dst 127.0.0.1:8080
echo; echo "== and the sockets to 127.0.0.1:9090 live on"
"$reap" list dst 127.0.0.1:9090
