/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netns-reap's socket index: shared by bpf/index.bpf.c, which fills it,
 * bpf/reap.bpf.c, whose reap_index reads it, and tools/index.c, which pins
 * it.  Addresses are 16 bytes, IPv4 as ::ffff:a.b.c.d; ports host order.
 *
 * Three hash maps and no lock, since kprobes may not take one:
 *
 *   idx_addrs  per remote address, one 64-bit word {dead, live, base,
 *              next} changed only by compare and exchange: live entries,
 *              and the window of ring positions [base, next) they were
 *              given; the last entry to go marks it dead and deletes it.
 *              The value repeats the address: hash elements are reused
 *              at once, so an exchange that landed on one reused for
 *              another address is seen, and undone
 *   idx_slots  per {address, slot}, the socket's namespace, tuple, bound
 *              device and cookie; slot = position % IDX_RING
 *   idx_socks  per socket cookie, the slot and serial it was given: a
 *              hint, for removal by cookie
 *
 * Ownership: every entry gets a serial, never reused; an entry belongs
 * to whoever exchanges its serial for 0, and only that one deletes it and
 * drops its address's live count, so a close, a lazy prune and a
 * reconnect racing over one socket drop it once.  An exchange through a
 * stale pointer fails even when the element now holds a newer entry of
 * the same socket.  A hook that finds its socket's entry current (a
 * reconnect to the same tuple, a rebind) gives it a new serial, so that
 * a prune decided on a lookup before it fails.  A request socket's entry
 * holds its cookie with IDX_REQ set: its child socket inherits the
 * cookie, and has an entry of its own that the request socket's free must
 * not drop.  A reap of one address scans its window: at most IDX_RING
 * slots, the sockets that address had since it last had none, not the
 * host's other sockets.  What a lost race leaves (a duplicate entry, a hint to a
 * dropped slot) is found by that scan and dropped, never reported twice.
 */
#ifndef NETNS_REAP_INDEX_H
#define NETNS_REAP_INDEX_H

#define IDX_MAX_SOCKS	(1 << 20)	/* indexed sockets, and addresses */
#define IDX_RING	IDX_MAX_SOCKS	/* slots of one address */
#define IDX_POS_BITS	21		/* positions run mod 2 * IDX_RING */
#define IDX_POS_MASK	((1ULL << IDX_POS_BITS) - 1)
#define IDX_LIVE_SHIFT	(2 * IDX_POS_BITS)
#define IDX_DEAD	(1ULL << 63)
#define IDX_TRIES	64		/* compare-and-exchange attempts */
#define IDX_REQ		(1ULL << 63)	/* in a request socket's cookie */
#define IDX_DEV_SET	0xffffffffU	/* a rebind to a device under way */

struct idx_addr {
	__u8	addr[16];
};

struct idx_head {
	__u64	word;			/* idx_word() */
	struct idx_addr addr;		/* its key */
};

struct idx_slot_key {
	struct idx_addr addr;		/* remote */
	__u32	slot;
};

struct idx_entry {
	__u64	netns;			/* namespace cookie */
	__u64	cookie;			/* socket cookie (| IDX_REQ) */
	__u64	serial;			/* its owner's token; 0: dropped */
	__u8	laddr[16];
	__u64	dev;			/* bound device (SO_BINDTODEVICE, VRF,
					 * IPv6 link-local), or IDX_DEV_SET;
					 * 64 bits to exchange */
	__u16	lport;
	__u16	rport;
	__u8	proto;			/* IPPROTO_TCP or IPPROTO_UDP */
	__u8	pad[3];
};

struct idx_sock_val {
	struct idx_addr addr;
	__u32	slot;
	__u32	pad;
	__u64	serial;
};

/* Totals of the index programs, a pinned array of one element. */
struct idx_stats {
	__u64	inserted;
	__u64	removed;
	__u64	missed;		/* not indexed: a map was full, or contention */
	__u64	seeded;		/* entries the start-up walk made */
	__u64	rebinding;	/* rebinds to a device not yet seen to return */
	__u64	serial;		/* the last entry's serial */
	__u64	acked;		/* misses a later walk covered (resync) */
};

/* The fields of an address word. */
static inline __u64 idx_live(__u64 w)
{
	return (w & ~IDX_DEAD) >> IDX_LIVE_SHIFT;
}

static inline __u64 idx_base(__u64 w)
{
	return (w >> IDX_POS_BITS) & IDX_POS_MASK;
}

static inline __u64 idx_next(__u64 w)
{
	return w & IDX_POS_MASK;
}

/* Positions in the window of @w, at most IDX_RING. */
static inline __u64 idx_window(__u64 w)
{
	return (idx_next(w) - idx_base(w)) & IDX_POS_MASK;
}

static inline __u64 idx_word(__u64 live, __u64 base, __u64 next)
{
	return live << IDX_LIVE_SHIFT | (base & IDX_POS_MASK) << IDX_POS_BITS |
	       (next & IDX_POS_MASK);
}

#ifdef __BPF__
/*
 * Each program object that includes this declares the maps; the tool
 * shares them by pinning.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, IDX_MAX_SOCKS);
	__type(key, struct idx_addr);
	__type(value, struct idx_head);
} idx_addrs SEC(".maps");
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, IDX_MAX_SOCKS);
	__type(key, struct idx_slot_key);
	__type(value, struct idx_entry);
} idx_slots SEC(".maps");
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, IDX_MAX_SOCKS);
	__type(key, __u64);
	__type(value, struct idx_sock_val);
} idx_socks SEC(".maps");
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct idx_stats);
} idx_stats SEC(".maps");

/* Add @n to idx_stats' @field. */
#define idx_count(field, n)						\
	do {								\
		__u32 zero_ = 0;					\
		struct idx_stats *st_ =					\
			bpf_map_lookup_elem(&idx_stats, &zero_);	\
									\
		if (st_)						\
			__sync_fetch_and_add(&st_->field, n);		\
	} while (0)

/*
 * One entry of the address of @h goes: live drops by one; the last marks
 * the word dead, so that no insert takes it again, and deletes it.  The
 * caller holds one of its live entries, so @h is still that address's.
 */
static __always_inline void idx_head_put(struct idx_head *h)
{
	struct idx_addr a = h->addr;
	__u64 old, new;
	int i;

	bpf_for(i, 0, IDX_TRIES) {
		old = *(volatile __u64 *)&h->word;
		new = idx_live(old) == 1 ? IDX_DEAD :
		      idx_word(idx_live(old) - 1, idx_base(old), idx_next(old));
		if (__sync_val_compare_and_swap(&h->word, old, new) != old)
			continue;
		if (new == IDX_DEAD)
			bpf_map_delete_elem(&idx_addrs, &a);
		return;
	}
}

static __always_inline void idx_addr_put(const struct idx_addr *a)
{
	struct idx_head *h = bpf_map_lookup_elem(&idx_addrs, a);

	if (h)
		idx_head_put(h);
}

/*
 * Drop the entry at @key if it is still the one of @serial: the exchange
 * of its serial for 0 makes this caller its owner.  True if it was dropped.
 */
static __always_inline bool idx_slot_drop(const struct idx_slot_key *key,
					  __u64 serial)
{
	struct idx_entry *e = bpf_map_lookup_elem(&idx_slots, key);

	if (!e || !serial ||
	    __sync_val_compare_and_swap(&e->serial, serial, 0) != serial)
		return false;
	bpf_map_delete_elem(&idx_slots, key);
	idx_addr_put(&key->addr);
	idx_count(removed, 1);
	return true;
}

/* Socket @cookie is gone: drop its entry and its hint. */
static __always_inline void idx_remove(__u64 cookie)
{
	struct idx_sock_val *v = bpf_map_lookup_elem(&idx_socks, &cookie);
	struct idx_slot_key key = {};

	if (!v)
		return;
	key.addr = v->addr;
	key.slot = v->slot;
	idx_slot_drop(&key, v->serial);
	bpf_map_delete_elem(&idx_socks, &cookie);
}

/* A stale entry @e at @key: drop it, and its hint. */
static __always_inline bool idx_prune(const struct idx_slot_key *key,
				      const struct idx_entry *e)
{
	__u64 cookie = e->cookie;
	struct idx_sock_val *v;

	if (!idx_slot_drop(key, e->serial))
		return false;
	v = bpf_map_lookup_elem(&idx_socks, &cookie);
	if (v && v->serial == e->serial)
		bpf_map_delete_elem(&idx_socks, &cookie);
	return true;
}

/* Whether entries @a at @ka and @b at @kb record one tuple. */
static __always_inline bool idx_same_tuple(const struct idx_addr *ka,
					   const struct idx_entry *a,
					   const struct idx_addr *kb,
					   const struct idx_entry *b)
{
	return !__builtin_memcmp(ka->addr, kb->addr, 16) &&
	       a->lport == b->lport && a->rport == b->rport &&
	       !__builtin_memcmp(a->laddr, b->laddr, 16);
}

/*
 * Entry @e at @key, whose socket a lookup just found by its tuple: true
 * if it is the socket's own entry, the one its hint names (a hint lost in
 * a race, or naming a stale entry of an older tuple, is made again);
 * false for a duplicate of the same tuple, which an insert racing another
 * over the same socket left, and which the caller drops.
 */
static __always_inline bool idx_owns(const struct idx_slot_key *key,
				     const struct idx_entry *e)
{
	struct idx_sock_val val = {
		.addr = key->addr, .slot = key->slot, .serial = e->serial,
	};
	struct idx_slot_key hinted = {};
	__u64 cookie = e->cookie;
	struct idx_sock_val *v;
	struct idx_entry *h;

	v = bpf_map_lookup_elem(&idx_socks, &cookie);
	if (!v) {
		/* Lost in a race; or its socket closed since the lookup. */
		bpf_map_update_elem(&idx_socks, &cookie, &val, BPF_NOEXIST);
		h = bpf_map_lookup_elem(&idx_slots, key);
		if (!h || h->serial != e->serial)
			bpf_map_delete_elem(&idx_socks, &cookie);
		return true;
	}
	/* The same slot: this entry, given a new serial since it was read. */
	if (v->serial == e->serial ||
	    (v->slot == key->slot &&
	     !__builtin_memcmp(v->addr.addr, key->addr.addr, 16)))
		return true;
	hinted.addr = v->addr;
	hinted.slot = v->slot;
	h = bpf_map_lookup_elem(&idx_slots, &hinted);
	if (h && h->serial == v->serial &&
	    idx_same_tuple(&hinted.addr, h, &key->addr, e))
		return false;
	bpf_map_update_elem(&idx_socks, &cookie, &val, BPF_ANY);
	return true;
}
#endif /* __BPF__ */

#endif /* NETNS_REAP_INDEX_H */
