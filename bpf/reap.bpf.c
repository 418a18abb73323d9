// SPDX-License-Identifier: GPL-2.0
/*
 * netns-reap's socket programs: one per iterator the tool can drive.
 *
 *   reap_tcp, reap_udp   iter/tcp and iter/udp: the setns, netns-arg and
 *                        global modes (the link decides which sockets come)
 *   reap_chained         iter.s/netns: the chained mode, one link walking
 *                        every namespace and, with bpf_iter_netns_sock_*,
 *                        its sockets
 *
 * Every socket handed in is counted; one that matches the filter the tool
 * wrote into .rodata and the dsts map takes the next slot of the recs
 * array, in walk order, and with kill set is then destroyed with
 * bpf_sock_destroy() (iter/tcp and iter/udp hold its lock) or
 * bpf_iter_netns_sock_abort() (which takes it).  A socket is destroyed only
 * once its record is stored: when the array is full, a match is counted in
 * left_alone and not touched.  The tool reads the array through mmap(), so
 * collecting the records costs no syscall per socket.
 *
 * Nothing is written to the seq_file.  With cfg_dump set (tests), every
 * socket handed in also leaves a record, action REAP_ACT_NONE, in the dump
 * ring buffer, whose size the loader sets; one that does not fit is
 * counted in dump_lost.  A ring buffer, not the seq_file, since a read()
 * that fills the seq_file buffer re-runs the object it stopped on, which
 * for the chained walk is a whole namespace.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_tracing.h>
#include "reap.h"
#include "sock.h"
#include "index.h"

#define ENOENT 2

char LICENSE[] SEC("license") = "GPL";

/* Filter, set by the tool before load. */
const volatile bool cfg_kill;
const volatile bool cfg_dump;			/* print every socket seen */
const volatile bool cfg_udp_unconnected;	/* match unconnected UDP too */
const volatile __u64 cfg_netns;			/* 0: any */
const volatile __u32 cfg_states;		/* 1 << TCP_*; 0: connected */
const volatile __u32 cfg_n_dst;
const volatile __u32 cfg_n_src;
const volatile __u16 cfg_dport;
const volatile __u16 cfg_sport;
const volatile __u32 cfg_protos = 3;		/* chained: 1 TCP, 2 UDP */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, REAP_MAX_DST);
	__type(key, __u32);
	__type(value, struct reap_addr_filter);
} dsts SEC(".maps");

/* One page unless the loader asks for more; used only with cfg_dump. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} dump SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, REAP_MAX_DST);
	__type(key, __u32);
	__type(value, struct reap_addr_filter);
} srcs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, REAP_DEFAULT_MAX_SOCKS);
	__type(key, __u32);
	__type(value, struct reap_rec);
} recs SEC(".maps");

struct reap_counts counts;

extern int bpf_sock_destroy(struct sock_common *sk) __ksym;
/* The targeted design's kfuncs, for reap_index. */
extern struct sock_common *
bpf_sock_lookup_netns(__u64 netns_cookie, struct bpf_sock_tuple *tuple,
		      __u32 tuple__sz, struct bpf_sock_lookup_opts *opts,
		      __u32 opts__sz) __ksym __weak;
extern void bpf_sock_release(struct sock_common *sock) __ksym __weak;
extern int bpf_sock_destroy_sleepable(struct sock_common *sock) __ksym __weak;

/*
 * Loops use the bpf_for() numeric iterator: inside the chained walk's
 * iterator loop the verifier widens scalars, and a plain bounded loop there
 * no longer looks bounded to it.
 */
static __always_inline bool prefix_match(const __u8 *a, const __u8 *p,
					 __u32 plen)
{
	int i;

	bpf_for(i, 0, 16) {
		__u32 bits = plen > (__u32)i * 8 ? plen - i * 8 : 0;
		__u8 mask;

		if (!bits)
			break;
		mask = bits >= 8 ? 0xff : (__u8)(0xff << (8 - bits));
		if ((a[i] ^ p[i]) & mask)
			return false;
	}
	return true;
}

/* Any filter of @map matches: the filters of one word are ORed. */
static __always_inline bool addr_match(void *map, __u32 n, const __u8 *addr,
				       __u16 port)
{
	int i;

	bpf_for(i, 0, n < REAP_MAX_DST ? n : REAP_MAX_DST) {
		__u32 key = i;
		struct reap_addr_filter *f = bpf_map_lookup_elem(map, &key);

		if (!f)
			break;
		if ((!f->port || f->port == port) &&
		    prefix_match(addr, f->addr, f->plen))
			return true;
	}
	return false;
}

/*
 * The whole decision for one socket, shared by every mode.  @it is the
 * chained walk's iterator, whose abort takes @skc's lock itself, or NULL in
 * iter/tcp and iter/udp, which hold it locked; @ref is set in reap_index,
 * whose socket is referenced, unlocked and has its cookie.
 */
static __always_inline int reap_one(struct sock_common *skc, __u8 proto,
				    struct bpf_iter_netns_sock *it, bool ref)
{
	struct reap_rec rec = {}, *slot;
	__u64 netns = skc->skc_net.net->net_cookie;
	__u8 state = skc->skc_state;
	__u32 states = cfg_states ?: REAP_CONNECTED_STATES;

	if (cfg_netns && netns != cfg_netns)
		return 0;
	counts.seen++;

	rec.family = sk_family(skc);
	if (rec.family != AF_INET && rec.family != AF_INET6)
		return 0;
	addr_of(rec.saddr, rec.family, skc->skc_rcv_saddr, &skc->skc_v6_rcv_saddr);
	addr_of(rec.daddr, rec.family, skc->skc_daddr, &skc->skc_v6_daddr);
	rec.sport = skc->skc_num;
	rec.dport = bpf_ntohs(skc->skc_dport);
	/* The chained walk's socket is untrusted and has its cookie. */
	rec.sock_cookie = it || ref ? skc->skc_cookie.counter :
				      bpf_get_socket_cookie(skc);
	rec.netns_cookie = netns;
	rec.proto = proto;
	rec.state = state;
	if (cfg_dump && bpf_ringbuf_output(&dump, &rec, sizeof(rec), 0))
		counts.dump_lost++;

	if (proto == IPPROTO_UDP) {
		/* UDP keeps TCP_ESTABLISHED once connected, TCP_CLOSE if not. */
		if (state != TCP_ESTABLISHED && !cfg_udp_unconnected)
			return 0;
		if (state != TCP_ESTABLISHED)
			states |= 1U << TCP_CLOSE;
	}
	if (!(states & (1U << (state & 31))))
		return 0;

	if (cfg_dport && rec.dport != cfg_dport)
		return 0;
	if (cfg_sport && rec.sport != cfg_sport)
		return 0;
	if (cfg_n_dst && !addr_match(&dsts, cfg_n_dst, rec.daddr, rec.dport))
		return 0;
	if (cfg_n_src && !addr_match(&srcs, cfg_n_src, rec.saddr, rec.sport))
		return 0;

	counts.matched++;
	slot = bpf_map_lookup_elem(&recs, &counts.stored);
	if (!slot) {
		counts.left_alone++;
		return 0;
	}
	*slot = rec;
	counts.stored++;
	if (cfg_kill) {
		slot->err = it ? bpf_iter_netns_sock_abort(it) :
			    ref ? bpf_sock_destroy_sleepable(skc) :
				  bpf_sock_destroy(skc);
		slot->action = slot->err ? REAP_ACT_FAILED : REAP_ACT_DESTROYED;
		if (slot->err)
			counts.failed++;
		else
			counts.destroyed++;
	}
	return 0;
}

SEC("iter/tcp")
int reap_tcp(struct bpf_iter__tcp *ctx)
{
	struct sock_common *skc = ctx->sk_common;

	return skc ? reap_one(skc, IPPROTO_TCP, NULL, false) : 0;
}

SEC("iter/udp")
int reap_udp(struct bpf_iter__udp *ctx)
{
	struct udp_sock *udp = ctx->udp_sk;

	return udp ? reap_one(&udp->inet.sk.__sk_common, IPPROTO_UDP,
			      NULL, false) : 0;
}

/*
 * A filter without the listening state cannot match a listener: then the
 * TCP walk leaves listeners out in the kernel, and with them the scan of
 * the host's whole listening hash in every namespace.  A dump shows all.
 */
static __always_inline void reap_netns(struct net *net, int proto)
{
	__u32 states = cfg_states ?: REAP_CONNECTED_STATES;
	struct bpf_iter_netns_sock it;
	struct sock_common *skc;
	unsigned int flags = 0;
	int err;

	if (proto == IPPROTO_TCP && !cfg_dump &&
	    !(states & (1U << TCP_LISTEN)))
		flags = BPF_ITER_NETNS_SOCK_SKIP_LISTEN;
	err = bpf_iter_netns_sock_new(&it, net, proto, flags);
	if (!err) {
		while ((skc = bpf_iter_netns_sock_next(&it)))
			reap_one(skc, proto, &it, false);
		/* NULL also ends a walk that could not batch a bucket. */
		err = bpf_iter_netns_sock_err(&it);
	}
	bpf_iter_netns_sock_destroy(&it);
	if (err) {
		counts.truncated++;
		counts.walk_err = err;
	}
}

/*
 * One run is one namespace's whole walk, and the iterator core holds the
 * tasks-trace RCU read lock and migration disabled around it: longest_ns
 * is the longest such section of the walk (netns-bench --section).
 */
SEC("iter.s/netns")
int reap_chained(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	__u64 t0, t;

	if (!net || (cfg_netns && net->net_cookie != cfg_netns))
		return 0;
	t0 = bpf_ktime_get_ns();
	counts.netns++;
	if (cfg_protos & 1)
		reap_netns(net, IPPROTO_TCP);
	if (cfg_protos & 2)
		reap_netns(net, IPPROTO_UDP);
	t = bpf_ktime_get_ns() - t0;
	if (t > counts.longest_ns)
		counts.longest_ns = t;
	return 0;
}

/*
 * The index mode: no walk.  For each dst address, the entries the index
 * holds for it are looked up one by one in their namespace by tuple, and
 * those still there with the cookie recorded go through reap_one.  An
 * entry whose lookup finds no socket, or a socket with another cookie
 * (its tuple reused), is stale: it is pruned and nothing is destroyed.
 * The lookup names the device the entry records; an entry whose socket
 * is being bound to another (IDX_DEV_SET) is not looked up, and one
 * whose lookup the rebind raced, or that found a socket bound to no
 * device in the tuple of one bound to the entry's, is not pruned: both
 * counted in index_unreachable, kept.  seen counts the sockets found.
 */
/* Entry @e, which the filter may want, could not be settled. */
static __always_inline void unreachable(const struct idx_entry *e)
{
	if ((!cfg_netns || e->netns == cfg_netns) &&
	    (!cfg_dport || e->rport == cfg_dport) &&
	    (!cfg_sport || e->lport == cfg_sport))
		counts.index_unreachable++;
}

/*
 * Whether the socket of @cookie has an entry of its own in the window of
 * @win slots from @base that this reap scans.
 */
static __always_inline bool in_window(__u64 cookie, __u64 base, __u64 win)
{
	struct idx_sock_val *v = bpf_map_lookup_elem(&idx_socks, &cookie);

	return v && (win >= IDX_RING ||
		     ((v->slot - base) & (IDX_RING - 1)) < win);
}

/*
 * A global function: the verifier checks it once, not at every step of
 * reap_index's two loops.
 */
__noinline int reap_entry(const struct idx_slot_key *key, __u64 base,
			  __u64 win)
{
	struct bpf_sock_lookup_opts opts = {};
	struct bpf_sock_tuple t = {};
	struct sock_common *skc;
	struct idx_sock_val *hint;
	struct idx_entry e, *ep;
	__u64 cookie;
	bool unsettled;
	static const __u8 mapped[12] = { [10] = 0xff, [11] = 0xff };
	__u32 sz;

	if (!key)
		return 0;
	ep = bpf_map_lookup_elem(&idx_slots, key);
	if (!ep)
		return 0;
	e = *ep;
	if (!e.serial || !(cfg_protos & (e.proto == IPPROTO_TCP ? 1 : 2)))
		return 0;
	counts.index_entries++;
	if (e.dev == IDX_DEV_SET) {
		unreachable(&e);
		return 0;
	}
	if (!__builtin_memcmp(e.laddr, mapped, 12) &&
	    !__builtin_memcmp(key->addr.addr, mapped, 12)) {
		__builtin_memcpy(&t.ipv4.saddr, key->addr.addr + 12, 4);
		__builtin_memcpy(&t.ipv4.daddr, e.laddr + 12, 4);
		t.ipv4.sport = bpf_htons(e.rport);
		t.ipv4.dport = bpf_htons(e.lport);
		sz = sizeof(t.ipv4);
	} else {
		__builtin_memcpy(t.ipv6.saddr, key->addr.addr, 16);
		__builtin_memcpy(t.ipv6.daddr, e.laddr, 16);
		t.ipv6.sport = bpf_htons(e.rport);
		t.ipv6.dport = bpf_htons(e.lport);
		sz = sizeof(t.ipv6);
	}
	opts.l4proto = e.proto;
	opts.ifindex = e.dev;
	skc = bpf_sock_lookup_netns(e.netns, &t, sz, &opts, sizeof(opts));
	cookie = skc ? skc->skc_cookie.counter : 0;
	/* A request socket's child inherits its cookie: tell them apart. */
	if (skc && cookie == (e.cookie & ~IDX_REQ) &&
	    !(e.cookie & IDX_REQ) == (skc->skc_state != TCP_NEW_SYN_RECV)) {
		if (idx_owns(key, &e))
			reap_one(skc, e.proto, NULL, true);
		else
			idx_slot_drop(key, e.serial);	/* a duplicate */
		bpf_sock_release(skc);
		return 0;
	}
	/*
	 * A request socket that became this child: the child is reaped
	 * through its own entry if this reap scans it, else here; the
	 * request's entry goes when it is freed.
	 */
	if (skc && cookie == (e.cookie & ~IDX_REQ)) {
		if (!in_window(cookie, base, win))
			reap_one(skc, e.proto, NULL, true);
		bpf_sock_release(skc);
		return 0;
	}
	/*
	 * Not pruned, but unsettled: a socket bound to no device that took
	 * the tuple of one bound to e.dev, or a UDP socket connected to the
	 * same tuple as the one recorded, which its hint says is open still:
	 * the lookup returns the newer first.  An entry a rebind or a
	 * reconnect changed meanwhile, and a lookup that failed for another
	 * reason than no socket, too.
	 */
	hint = bpf_map_lookup_elem(&idx_socks, &e.cookie);
	unsettled = skc ? (e.dev && skc->skc_bound_dev_if != e.dev) ||
			  (e.proto == IPPROTO_UDP && hint &&
			   hint->serial == e.serial) :
			  opts.error != -ENOENT;
	if (skc)
		bpf_sock_release(skc);
	if (unsettled || ep->dev != e.dev ||
	    (ep->serial && ep->serial != e.serial)) {
		unreachable(&e);
		return 0;
	}
	if (idx_prune(key, &e))
		counts.index_pruned++;
	return 0;
}

/* Whether dst word @i repeats the address of one before it. */
static __always_inline bool dst_seen(__u32 i, const __u8 *addr)
{
	struct reap_addr_filter *f;
	__u32 j;

	bpf_for(j, 0, i) {
		__u32 key = j;

		f = bpf_map_lookup_elem(&dsts, &key);
		if (f && !__builtin_memcmp(f->addr, addr, 16))
			return true;
	}
	return false;
}

SEC("syscall")
int reap_index(void *ctx)
{
	struct reap_addr_filter *f;
	struct idx_slot_key key;
	struct idx_head *h;
	__u64 word;
	__u32 i;
	int pos;

	bpf_for(i, 0, cfg_n_dst < REAP_MAX_DST ? cfg_n_dst : REAP_MAX_DST) {
		__u32 k = i;

		f = bpf_map_lookup_elem(&dsts, &k);
		if (!f || dst_seen(i, f->addr))
			continue;
		__builtin_memcpy(key.addr.addr, f->addr, 16);
		h = bpf_map_lookup_elem(&idx_addrs, &key.addr);
		if (!h)
			continue;
		word = *(volatile __u64 *)&h->word;
		if ((word & IDX_DEAD) || __builtin_memcmp(h->addr.addr, f->addr, 16))
			continue;
		counts.index_slots += idx_window(word);
		bpf_for(pos, (int)idx_base(word),
			(int)(idx_base(word) + idx_window(word))) {
			key.slot = pos & (IDX_RING - 1);
			reap_entry(&key, idx_base(word), idx_window(word));
		}
	}
	return 0;
}
