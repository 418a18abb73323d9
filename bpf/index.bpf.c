// SPDX-License-Identifier: GPL-2.0
/*
 * netns-reap's socket index (bpf/index.h), filled for the whole host by
 * programs that `netns-reap index start` attaches once and pins:
 *
 *   idx_sockops    sock_ops on the root cgroup: a TCP socket is recorded
 *                  at TCP_CONNECT_CB (the client, hashed, tuple complete),
 *                  PASSIVE_ESTABLISHED_CB (the accepted child) and, for a
 *                  request socket, TIMEOUT_INIT; a full one is dropped at
 *                  its STATE_CB to CLOSE
 *   idx_udp        kprobe of udp_lib_hash4(), which files a connected UDP
 *                  socket under its 4-tuple: recorded when a connect()
 *                  succeeds (no new sock_ops callback: upstream takes
 *                  none, and a kprobe needs no ftrace trampolines)
 *   idx_cookie4/6  cgroup/connect4 and connect6 on the root cgroup: give
 *                  a UDP socket its cookie first, which a kprobe cannot
 *   idx_release    cgroup/sock_release on the root cgroup: a UDP socket is
 *                  dropped when closed
 *   idx_seed       iter.s/netns with the chained walk, run once after the
 *                  others are attached: every connected socket that existed
 *                  before is recorded, so nothing is missed
 *
 * Entries are keyed by socket cookie, so a reconnected UDP socket moves to
 * its new tuple and a reused tuple is another entry.  What no hook sees
 * is pruned lazily, by reap_index (reap.bpf.c), when a lookup finds no
 * socket or one with another cookie: a UDP socket disconnected, a request
 * socket that completed or timed out, a seeded TCP socket closed (it has
 * no STATE_CB), a socket closed while the seed walked it.  Not indexed: a
 * socket that finds a map full (counted in idx_stats.missed), and a
 * connection made with a SYN cookie before it is accepted (no request
 * socket exists; its child is indexed).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "sock.h"
#include "index.h"

char LICENSE[] SEC("license") = "GPL";

/* Record socket @cookie, remote @raddr, unless it is already as recorded. */
static __always_inline void idx_insert(const struct idx_addr *raddr,
				       struct idx_entry *e)
{
	struct idx_slot_key sk = { .addr = *raddr };
	struct idx_sock_val val = { .addr = *raddr };
	struct idx_entry *cur;
	struct idx_sock_val *v;
	__u64 zero = 0, *w;

	v = bpf_map_lookup_elem(&idx_socks, &e->cookie);
	if (v) {
		sk.addr = v->addr;
		sk.slot = v->slot;
		cur = bpf_map_lookup_elem(&idx_slots, &sk);
		if (cur && !__builtin_memcmp(sk.addr.addr, raddr->addr, 16) &&
		    cur->lport == e->lport && cur->rport == e->rport &&
		    !__builtin_memcmp(cur->laddr, e->laddr, 16))
			return;
		idx_remove(e->cookie, NULL);	/* reconnected elsewhere */
		sk.addr = *raddr;
	}
	bpf_map_update_elem(&idx_addrs, raddr, &zero, BPF_NOEXIST);
	w = bpf_map_lookup_elem(&idx_addrs, raddr);
	if (!w)
		goto missed;
	sk.slot = (__u32)__sync_fetch_and_add(w, (1ULL << 32) | 1);
	val.slot = sk.slot;
	if (bpf_map_update_elem(&idx_slots, &sk, e, BPF_ANY))
		goto undo;
	if (bpf_map_update_elem(&idx_socks, &e->cookie, &val, BPF_ANY)) {
		bpf_map_delete_elem(&idx_slots, &sk);
		goto undo;
	}
	idx_count(inserted);
	return;
undo:
	idx_addr_put(w);
missed:
	idx_count(missed);
}

SEC("sockops")
int idx_sockops(struct bpf_sock_ops *skops)
{
	struct idx_entry e = { .proto = IPPROTO_TCP };
	struct idx_addr raddr;

	switch (skops->op) {
	case BPF_SOCK_OPS_TIMEOUT_INIT:
		/* A request socket (a server's SYN_RECV), before its hashing. */
		if (skops->is_fullsock)
			break;
		goto insert;
	case BPF_SOCK_OPS_TCP_CONNECT_CB:
	case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB:
		bpf_sock_ops_cb_flags_set(skops, skops->bpf_sock_ops_cb_flags |
					  BPF_SOCK_OPS_STATE_CB_FLAG);
insert:
		e.netns = bpf_get_netns_cookie(skops);
		e.cookie = bpf_get_socket_cookie(skops);
		e.lport = skops->local_port;
		e.rport = bpf_ntohl(skops->remote_port);
		if (skops->family == AF_INET) {
			map4(e.laddr, skops->local_ip4);
			map4(raddr.addr, skops->remote_ip4);
		} else {
			__u32 l[4] = { skops->local_ip6[0], skops->local_ip6[1],
				       skops->local_ip6[2], skops->local_ip6[3] };
			__u32 r[4] = { skops->remote_ip6[0], skops->remote_ip6[1],
				       skops->remote_ip6[2], skops->remote_ip6[3] };

			__builtin_memcpy(e.laddr, l, 16);
			__builtin_memcpy(raddr.addr, r, 16);
		}
		idx_insert(&raddr, &e);
		break;
	case BPF_SOCK_OPS_STATE_CB:
		if (skops->args[1] == BPF_TCP_CLOSE)
			idx_remove(bpf_get_socket_cookie(skops), NULL);
		break;
	}
	return 1;
}

/* @skc: the chained walk's socket, or a kprobe's copy of one. */
static __always_inline void idx_insert_fields(const struct sock_common *skc,
					      __u8 proto, __u64 cookie,
					      __u64 netns)
{
	struct idx_entry e = { .proto = proto, .cookie = cookie };
	struct idx_addr raddr;

	e.netns = netns;
	e.lport = skc->skc_num;
	e.rport = bpf_ntohs(skc->skc_dport);
	if (skc->skc_family != AF_INET && skc->skc_family != AF_INET6)
		return;
	addr_of(e.laddr, skc->skc_family, skc->skc_rcv_saddr,
		&skc->skc_v6_rcv_saddr);
	addr_of(raddr.addr, skc->skc_family, skc->skc_daddr, &skc->skc_v6_daddr);
	idx_insert(&raddr, &e);
}

/*
 * UDP.  udp_lib_hash4() files a socket under its connected 4-tuple, from
 * udp_connect() and udpv6_connect() once the connect succeeded, and again
 * when it reconnects: the tuple is complete there.  A kprobe cannot
 * generate the socket's cookie, so the connect hooks, which run first on
 * the same socket, generate it.
 */
SEC("cgroup/connect4")
int idx_cookie4(struct bpf_sock_addr *ctx)
{
	if (ctx->protocol == IPPROTO_UDP)
		bpf_get_socket_cookie(ctx);
	return 1;
}

SEC("cgroup/connect6")
int idx_cookie6(struct bpf_sock_addr *ctx)
{
	if (ctx->protocol == IPPROTO_UDP)
		bpf_get_socket_cookie(ctx);
	return 1;
}

SEC("kprobe/udp_lib_hash4")
int BPF_KPROBE(idx_udp, struct sock *sk)
{
	struct sock_common skc;
	__u64 cookie;

	if (bpf_core_read(&skc, sizeof(skc), &sk->__sk_common))
		return 0;
	cookie = skc.skc_cookie.counter;
	if (!cookie || skc.skc_state != TCP_ESTABLISHED) {
		idx_count(missed);
		return 0;
	}
	idx_insert_fields(&skc, IPPROTO_UDP, cookie,
			  BPF_CORE_READ(sk, __sk_common.skc_net.net, net_cookie));
	return 0;
}

SEC("cgroup/sock_release")
int idx_release(struct bpf_sock *sk)
{
	if (sk->protocol == IPPROTO_UDP)
		idx_remove(bpf_get_socket_cookie(sk), NULL);
	return 1;
}

static __always_inline void seed_netns(struct net *net, int proto)
{
	struct bpf_iter_netns_sock it;
	struct sock_common *skc;
	__u8 state;

	if (bpf_iter_netns_sock_new(&it, net, proto,
				    proto == IPPROTO_TCP ?
				    BPF_ITER_NETNS_SOCK_SKIP_LISTEN : 0)) {
		bpf_iter_netns_sock_destroy(&it);
		return;
	}
	while ((skc = bpf_iter_netns_sock_next(&it))) {
		state = skc->skc_state;
		if (proto == IPPROTO_TCP ? !(REAP_CONNECTED_STATES & (1U << (state & 31))) :
					   state != TCP_ESTABLISHED)
			continue;
		idx_insert_fields(skc, proto, skc->skc_cookie.counter,
				  net->net_cookie);
		idx_count(seeded);
	}
	bpf_iter_netns_sock_destroy(&it);
}

SEC("iter.s/netns")
int idx_seed(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;

	if (!net)
		return 0;
	seed_netns(net, IPPROTO_TCP);
	seed_netns(net, IPPROTO_UDP);
	return 0;
}
