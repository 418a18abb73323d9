// SPDX-License-Identifier: GPL-2.0
/*
 * netns-reap's socket index (bpf/index.h), filled for the whole host by
 * programs that `netns-reap index start` attaches once and pins:
 *
 *   idx_sockops    sock_ops on the root cgroup: a TCP socket is recorded
 *                  at TCP_CONNECT_CB (the client, hashed, tuple complete),
 *                  PASSIVE_ESTABLISHED_CB (the accepted child) and, for a
 *                  request socket, TIMEOUT_INIT, as it is hashed
 *   idx_tcp_close  tp_btf/inet_sock_set_state: a full TCP socket is
 *                  dropped when it enters TCP_CLOSE, whoever recorded it
 *                  (a socket the seed found has no sock_ops flags)
 *   idx_reqsk_free kprobe of __reqsk_free(): a request socket is dropped
 *                  when freed, completed, timed out or refused alike
 *   idx_rebind     kprobe of sock_bindtoindex_locked(), through which a
 *   idx_rebound    bind to a device goes (SO_BINDTODEVICE, SO_BINDTOIFINDEX,
 *                  bpf_setsockopt(), the kernel's own), and its
 *                  kretprobe: an indexed socket's entry says IDX_DEV_SET
 *                  while the call runs, then the device it has; a
 *                  reconnect that changes the device (an IPv6 scope) is
 *                  seen by the hooks that record the connect
 *   idx_udp        kprobe of udp_lib_hash4(), which files a connected UDP
 *                  socket under its 4-tuple: recorded when a connect()
 *                  succeeds (no new sock_ops callback: upstream takes
 *                  none, and a kprobe needs no ftrace trampolines)
 *   idx_cookie4/6  cgroup/connect4 and connect6 on the root cgroup: give
 *                  a UDP socket its cookie first, which a kprobe cannot
 *   idx_release    cgroup/sock_release on the root cgroup: a UDP socket is
 *                  dropped when closed
 *   idx_udp_disconnect kprobe of __udp_disconnect(): and when disconnected
 *                  (connect(AF_UNSPEC), or aborted), so that an entry
 *                  whose hint is there is of a connected socket
 *   idx_seed       iter.s/netns with the chained walk, run once after the
 *                  others are attached: every connected socket that existed
 *                  before is recorded, so nothing is missed; run again by
 *                  a start on an index that missed sockets
 *
 * Entries are keyed by socket cookie, so a reconnected UDP socket moves to
 * its new tuple and a reused tuple is another entry.  What no hook sees
 * is pruned lazily, by reap_index (reap.bpf.c), when a lookup finds no
 * socket or one with another cookie: a socket closed while the seed
 * walked it, a UDP socket of the kernel's own closed (no release hook),
 * an event a tracing program missed because another ran on its CPU
 * (counted by the kernel per program).
 * Not indexed: a socket that finds a map full or loses IDX_TRIES
 * exchanges (idx_stats.missed), and a connection made with a SYN cookie
 * before it is accepted (no request socket exists; its child is indexed).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "sock.h"
#include "index.h"

char LICENSE[] SEC("license") = "GPL";

extern void *bpf_cast_to_kern_ctx(void *obj) __ksym;

/*
 * A position of address @a's window and live + 1 for it: the word is
 * made if absent, and the window slides by one once it spans the ring.
 * False if the word kept being dead or contended, or idx_addrs is full.
 */
static __always_inline bool idx_addr_get(const struct idx_addr *a, __u64 *pos)
{
	struct idx_head fresh = { .addr = *a }, *h;
	__u64 old, base;
	int i;

	bpf_for(i, 0, IDX_TRIES) {
		bpf_map_update_elem(&idx_addrs, a, &fresh, BPF_NOEXIST);
		h = bpf_map_lookup_elem(&idx_addrs, a);
		if (!h)
			return false;
		old = *(volatile __u64 *)&h->word;
		if (old & IDX_DEAD)
			continue;		/* its last entry is deleting it */
		base = idx_base(old) + (idx_window(old) == IDX_RING);
		if (__sync_val_compare_and_swap(&h->word, old,
						idx_word(idx_live(old) + 1, base,
							 idx_next(old) + 1)) != old)
			continue;
		if (__builtin_memcmp(h->addr.addr, a->addr, 16)) {
			idx_head_put(h);	/* reused for another address */
			continue;
		}
		*pos = idx_next(old);
		return true;
	}
	return false;
}

/*
 * Entry @e, which hint @v names, was found current by a hook that holds
 * its socket's lock (a reconnect to the same tuple, a rebind): a new
 * serial makes a reap that looked it up before, in the gap, fail to
 * prune it.  False if a prune took it first.
 */
static __always_inline bool idx_reserial(struct idx_entry *e,
					 struct idx_sock_val *v)
{
	__u32 zero = 0;
	struct idx_stats *st = bpf_map_lookup_elem(&idx_stats, &zero);
	__u64 old = v->serial, new;

	if (!st)
		return false;
	new = __sync_fetch_and_add(&st->serial, 1) + 1;
	if (__sync_val_compare_and_swap(&e->serial, old, new) != old)
		return false;
	v->serial = new;
	return true;
}

/*
 * Record socket @e->cookie, remote @raddr, unless it is already as
 * recorded.  A @seed insert leaves any entry the socket has alone and
 * adds its own beside it when the tuples differ: the hooks may have seen
 * a reconnect later than the walk did, or missed one that it sees.  Of
 * the two, the next reap of each address keeps the one whose socket it
 * finds and prunes the other.
 */
static __always_inline void idx_insert(const struct idx_addr *raddr,
				       struct idx_entry *e,
				       const struct sock_common *seed)
{
	struct idx_slot_key sk = {};
	struct idx_sock_val val = { .addr = *raddr };
	struct idx_entry *cur;
	struct idx_sock_val *v;
	__u32 zero = 0;
	struct idx_stats *st;
	bool keep = false;
	__u64 pos, dev;
	int i;

	v = bpf_map_lookup_elem(&idx_socks, &e->cookie);
	if (v) {
		sk.addr = v->addr;
		sk.slot = v->slot;
		cur = bpf_map_lookup_elem(&idx_slots, &sk);
		if (cur && cur->serial == v->serial) {
			/*
			 * The device may have changed without a rebind (an
			 * IPv6 reconnect with another scope), or with one a
			 * kprobe missed.  A seed reads the socket unlocked:
			 * it reads the entry's device first and changes it
			 * only if no rebind changed it since.
			 */
			if (idx_same_tuple(&sk.addr, cur, raddr, e)) {
				if (!seed) {
					cur->dev = e->dev;
					if (idx_reserial(cur, v))
						return;
					/* Pruned meanwhile: recorded anew. */
					goto insert;
				}
				dev = *(volatile __u64 *)&cur->dev;
				st = bpf_map_lookup_elem(&idx_stats, &zero);
				if (dev != IDX_DEV_SET && st && !st->rebinding)
					__sync_val_compare_and_swap(&cur->dev, dev,
						BPF_CORE_READ(seed, skc_bound_dev_if));
				return;
			}
			keep = seed;
		}
		if (!keep)
			idx_slot_drop(&sk, v->serial);	/* reconnected elsewhere */
	}
insert:
	st = bpf_map_lookup_elem(&idx_stats, &zero);
	if (!st)
		return;
	e->serial = __sync_fetch_and_add(&st->serial, 1) + 1;
	val.serial = e->serial;
	sk.addr = *raddr;
	/* A taken slot is a long-lived entry the ring came round to. */
	bpf_for(i, 0, IDX_TRIES) {
		if (!idx_addr_get(raddr, &pos))
			break;
		sk.slot = pos & (IDX_RING - 1);
		if (!bpf_map_update_elem(&idx_slots, &sk, e, BPF_NOEXIST)) {
			val.slot = sk.slot;
			bpf_map_update_elem(&idx_socks, &e->cookie, &val,
					    keep ? BPF_NOEXIST : BPF_ANY);
			idx_count(inserted, 1);
			return;
		}
		idx_addr_put(raddr);
	}
	idx_count(missed, 1);
}

/*
 * @skc: a socket's own fields, or a copy of them, of @family (a request
 * socket's is sk_family()'s).  A request socket's @cookie is tagged.
 * @seed: the socket itself, when the seed's walk found it; NULL from the
 * hooks, which run with it locked.
 */
static __always_inline void idx_insert_sock(const struct sock_common *skc,
					    __u16 family, __u8 proto,
					    __u64 cookie, __u64 netns,
					    const struct sock_common *seed)
{
	struct idx_entry e = { .proto = proto, .cookie = cookie };
	struct idx_addr raddr;

	if (!cookie || (family != AF_INET && family != AF_INET6))
		return;
	if (skc->skc_state == TCP_NEW_SYN_RECV)
		e.cookie |= IDX_REQ;
	e.netns = netns;
	e.dev = skc->skc_bound_dev_if;
	e.lport = skc->skc_num;
	e.rport = bpf_ntohs(skc->skc_dport);
	addr_of(e.laddr, family, skc->skc_rcv_saddr, &skc->skc_v6_rcv_saddr);
	addr_of(raddr.addr, family, skc->skc_daddr, &skc->skc_v6_daddr);
	idx_insert(&raddr, &e, seed);
}

SEC("sockops")
int idx_sockops(struct bpf_sock_ops *skops)
{
	struct bpf_sock_ops_kern *k;
	struct sock_common skc;

	switch (skops->op) {
	case BPF_SOCK_OPS_TIMEOUT_INIT:
		/* A request socket (a server's SYN_RECV), as it is hashed. */
		if (skops->is_fullsock)
			break;
		/* fall through */
	case BPF_SOCK_OPS_TCP_CONNECT_CB:
	case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB:
		k = bpf_cast_to_kern_ctx(skops);
		if (bpf_probe_read_kernel(&skc, sizeof(skc), &k->sk->__sk_common)) {
			idx_count(missed, 1);
			break;
		}
		idx_insert_sock(&skc, sk_family(&k->sk->__sk_common), IPPROTO_TCP,
				bpf_get_socket_cookie(skops),
				bpf_get_netns_cookie(skops), NULL);
		break;
	}
	return 1;
}

SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(idx_tcp_close, const struct sock *sk, int oldstate, int newstate)
{
	if (newstate == TCP_CLOSE && sk->sk_protocol == IPPROTO_TCP)
		idx_remove(sk->__sk_common.skc_cookie.counter);
	return 0;
}

/*
 * A request socket whose listener no longer listens but is still in its
 * reuseport group (only one that may migrate stays: net.ipv4.tcp_migrate_req
 * or a BPF_SK_REUSEPORT_SELECT_OR_MIGRATE program) may have been cloned
 * to another listener of the group, cookie and all, before this free: its
 * entry is left to the lazy prune, which the clone's lookup then keeps.
 */
SEC("kprobe/__reqsk_free")
int BPF_KPROBE(idx_reqsk_free, struct request_sock *req)
{
	__u64 cookie = BPF_CORE_READ(req, __req_common.skc_cookie.counter);
	struct sock *l = BPF_CORE_READ(req, __req_common.skc_listener);

	if (!cookie)
		return 0;
	if (l && BPF_CORE_READ(l, __sk_common.skc_state) != TCP_LISTEN &&
	    BPF_CORE_READ(l, sk_reuseport_cb))
		return 0;
	idx_remove(cookie | IDX_REQ);
	return 0;
}

/*
 * A bind to a device after the socket was indexed: the lookup names the
 * device, so the entry must follow it.  The kprobe marks the entry
 * IDX_DEV_SET, which reap_index neither looks up nor prunes, and counts
 * a rebind; the kretprobe, with the socket still locked, writes the
 * device the socket has then, whether the bind succeeded or not.  A
 * return not seen (the kretprobe ran out of instances, or was skipped)
 * leaves the count up and the entry unreachable: reported, not lost.
 */
struct idx_rebind_val {
	struct sock *sk;
	__u64	cookie;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);			/* the binding task's pid_tgid */
	__type(value, struct idx_rebind_val);
} idx_rebinds SEC(".maps");

/*
 * The entry of indexed socket @cookie, if it still is that socket's; its
 * hint in @vp.
 */
static __always_inline struct idx_entry *
idx_entry_of(__u64 cookie, struct idx_sock_val **vp)
{
	struct idx_sock_val *v = bpf_map_lookup_elem(&idx_socks, &cookie);
	struct idx_slot_key key = {};
	struct idx_entry *e;

	*vp = v;
	if (!v)
		return NULL;
	key.addr = v->addr;
	key.slot = v->slot;
	e = bpf_map_lookup_elem(&idx_slots, &key);
	return e && e->serial == v->serial && e->cookie == cookie ? e : NULL;
}

SEC("kprobe/sock_bindtoindex_locked")
int BPF_KPROBE(idx_rebind, struct sock *sk)
{
	struct idx_rebind_val r = {
		.sk = sk,
		.cookie = BPF_CORE_READ(sk, __sk_common.skc_cookie.counter),
	};
	__u64 id = bpf_get_current_pid_tgid();
	struct idx_sock_val *v;
	struct idx_entry *e = r.cookie ? idx_entry_of(r.cookie, &v) : NULL;

	if (!e)
		return 0;
	/* Taken: a bind from softirq (bpf_setsockopt()) on this task's time. */
	if (bpf_map_update_elem(&idx_rebinds, &id, &r, BPF_NOEXIST)) {
		idx_count(missed, 1);
		return 0;
	}
	idx_count(rebinding, 1);
	e->dev = IDX_DEV_SET;
	return 0;
}

SEC("kretprobe/sock_bindtoindex_locked")
int BPF_KRETPROBE(idx_rebound)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct idx_rebind_val *r = bpf_map_lookup_elem(&idx_rebinds, &id);
	struct idx_sock_val *v;
	struct idx_entry *e;
	struct sock *sk;

	if (!r)
		return 0;
	sk = r->sk;
	e = idx_entry_of(r->cookie, &v);
	/* Pruned since the kprobe marked it: a miss, which a resync covers. */
	if (!e) {
		idx_count(missed, 1);
	} else {
		e->dev = BPF_CORE_READ(sk, __sk_common.skc_bound_dev_if);
		if (!idx_reserial(e, v))
			idx_count(missed, 1);
	}
	bpf_map_delete_elem(&idx_rebinds, &id);
	idx_count(rebinding, -1);
	return 0;
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

	if (bpf_core_read(&skc, sizeof(skc), &sk->__sk_common))
		return 0;
	if (!skc.skc_cookie.counter || skc.skc_state != TCP_ESTABLISHED) {
		idx_count(missed, 1);
		return 0;
	}
	idx_insert_sock(&skc, skc.skc_family, IPPROTO_UDP,
			skc.skc_cookie.counter,
			BPF_CORE_READ(sk, __sk_common.skc_net.net, net_cookie),
			NULL);
	return 0;
}

SEC("kprobe/__udp_disconnect")
int BPF_KPROBE(idx_udp_disconnect, struct sock *sk)
{
	if (BPF_CORE_READ(sk, sk_protocol) == IPPROTO_UDP)
		idx_remove(BPF_CORE_READ(sk, __sk_common.skc_cookie.counter));
	return 0;
}

SEC("cgroup/sock_release")
int idx_release(struct bpf_sock *sk)
{
	if (sk->protocol == IPPROTO_UDP)
		idx_remove(bpf_get_socket_cookie(sk));
	return 1;
}

/*
 * Set by a resync: the misses counted when it began, which it covers once
 * it walked every namespace whole.
 */
__u64 acked_to;
/* A namespace's walk in this seed failed or ended early: a miss. */
bool seed_cut;

static __always_inline void seed_netns(struct net *net, int proto)
{
	struct bpf_iter_netns_sock it;
	struct sock_common *skc;
	__u8 state;

	if (bpf_iter_netns_sock_new(&it, net, proto,
				    proto == IPPROTO_TCP ?
				    BPF_ITER_NETNS_SOCK_SKIP_LISTEN : 0)) {
		bpf_iter_netns_sock_destroy(&it);
		seed_cut = true;
		idx_count(missed, 1);
		return;
	}
	while ((skc = bpf_iter_netns_sock_next(&it))) {
		state = skc->skc_state;
		if (proto == IPPROTO_TCP ? !(REAP_CONNECTED_STATES & (1U << (state & 31))) :
					   state != TCP_ESTABLISHED)
			continue;
		idx_insert_sock(skc, sk_family(skc), proto,
				skc->skc_cookie.counter, net->net_cookie, skc);
		idx_count(seeded, 1);
	}
	/* A walk cut short (-ENOMEM, -EINTR) may have left sockets out. */
	if (bpf_iter_netns_sock_err(&it)) {
		seed_cut = true;
		idx_count(missed, 1);
	}
	bpf_iter_netns_sock_destroy(&it);
}

SEC("iter.s/netns")
int idx_seed(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct idx_stats *st;
	__u32 zero = 0;

	if (!net) {
		/* The walk's end: it covers the misses counted before it. */
		st = acked_to && !seed_cut ? bpf_map_lookup_elem(&idx_stats, &zero) : NULL;
		if (st)
			st->acked = acked_to;
		return 0;
	}
	seed_netns(net, IPPROTO_TCP);
	seed_netns(net, IPPROTO_UDP);
	return 0;
}
