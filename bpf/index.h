/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netns-reap's socket index: shared by bpf/index.bpf.c, which fills it,
 * bpf/reap.bpf.c, whose reap_index reads it, and tools/index.c, which pins
 * it.  Addresses are 16 bytes, IPv4 as ::ffff:a.b.c.d; ports host order.
 *
 * Three hash maps, no lock: per remote address, one 64-bit word
 * {live:32, next:32} that an atomic add turns into a slot number; per
 * {address, slot}, the socket's namespace, tuple and cookie; per socket
 * cookie, its address and slot, for removal.  A reap of one address scans
 * [0, next): the sockets that address had since it last had none, not the
 * host's other sockets.
 */
#ifndef NETNS_REAP_INDEX_H
#define NETNS_REAP_INDEX_H

#define IDX_MAX_SOCKS	(1 << 20)	/* indexed sockets, and addresses */

struct idx_addr {
	__u8	addr[16];
};

struct idx_slot_key {
	struct idx_addr addr;		/* remote */
	__u32	slot;
};

struct idx_entry {
	__u64	netns;			/* namespace cookie */
	__u64	cookie;			/* socket cookie */
	__u8	laddr[16];
	__u16	lport;
	__u16	rport;
	__u8	proto;			/* IPPROTO_TCP or IPPROTO_UDP */
	__u8	pad[3];
};

struct idx_sock_val {
	struct idx_addr addr;
	__u32	slot;
	__u32	pad;
};

/* Totals of the index programs, a pinned array of one element. */
struct idx_stats {
	__u64	inserted;
	__u64	removed;
	__u64	missed;		/* a map was full: the socket is not indexed */
	__u64	seeded;		/* entries the start-up walk made */
};

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
	__type(value, __u64);		/* live << 32 | next */
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

/* One more in idx_stats' @field. */
#define idx_count(field)						\
	do {								\
		__u32 zero_ = 0;					\
		struct idx_stats *st_ =					\
			bpf_map_lookup_elem(&idx_stats, &zero_);	\
									\
		if (st_)						\
			__sync_fetch_and_add(&st_->field, 1);		\
	} while (0)

/*
 * An entry of address word @w goes: live drops by one, and when it was the
 * last, the whole word returns to 0 by a compare and exchange, so that an
 * insert racing the reset keeps its slot.
 */
static __always_inline void idx_addr_put(__u64 *w)
{
	__u64 old = __sync_fetch_and_add(w, -(1ULL << 32));

	if ((old >> 32) == 1)
		__sync_val_compare_and_swap(w, old - (1ULL << 32), 0);
}

/*
 * Drop socket @cookie's entry; with @slot set, only if it is still that
 * entry (a lazy prune racing a reconnect must not drop the new one).
 */
static __always_inline void idx_remove(__u64 cookie, const __u32 *slot)
{
	struct idx_slot_key sk = {};
	struct idx_sock_val *v;
	__u64 *w;

	v = bpf_map_lookup_elem(&idx_socks, &cookie);
	if (!v || (slot && v->slot != *slot))
		return;
	sk.addr = v->addr;
	sk.slot = v->slot;
	if (bpf_map_delete_elem(&idx_socks, &cookie))
		return;		/* another CPU removed it first */
	bpf_map_delete_elem(&idx_slots, &sk);
	idx_count(removed);
	w = bpf_map_lookup_elem(&idx_addrs, &sk.addr);
	if (w)
		idx_addr_put(w);
}
#endif /* __BPF__ */

#endif /* NETNS_REAP_INDEX_H */
