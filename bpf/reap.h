/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by bpf/reap.bpf.c and tools/netns-reap.c: the socket filter the
 * tool loads into the programs, and the record each matching socket leaves.
 *
 * Addresses are 16 bytes; IPv4 is stored IPv4-mapped (::ffff:a.b.c.d), so an
 * IPv4 filter also matches IPv4-mapped IPv6 sockets.  Ports are host order.
 */
#ifndef REAP_H
#define REAP_H

#define REAP_MAX_DST		64
#define REAP_DEFAULT_MAX_SOCKS	65536

/* One "dst ADDR[/PLEN][:PORT]" (or "src ...") filter word. */
struct reap_addr_filter {
	__u8	addr[16];
	__u8	plen;		/* prefix length over the 16 bytes, 0..128 */
	__u8	pad;
	__u16	port;		/* 0: any port */
};

enum reap_action {
	REAP_ACT_NONE		= 0,	/* list, or kill --dry-run */
	REAP_ACT_DESTROYED	= 1,	/* bpf_sock_destroy() returned 0 */
	REAP_ACT_FAILED		= 2,	/* it returned an error, in err */
};

/* One slot of the records array, filled in walk order. */
struct reap_rec {
	__u64	netns_cookie;
	__u64	sock_cookie;
	__u8	saddr[16];
	__u8	daddr[16];
	__u16	sport;
	__u16	dport;
	__u8	proto;		/* IPPROTO_TCP or IPPROTO_UDP */
	__u8	family;		/* AF_INET or AF_INET6 */
	__u8	state;		/* TCP_* (UDP uses ESTABLISHED and CLOSE) */
	__u8	action;		/* enum reap_action */
	__s32	err;
	__u32	pad2;
};

/* Totals, a global of the programs. */
struct reap_counts {
	__u64	netns;		/* namespaces walked (chained mode) */
	__u64	seen;		/* sockets handed to the program */
	__u64	matched;
	__u32	stored;		/* records in the array, its next free slot */
	__u32	pad;
	__u64	left_alone;	/* matched when the array was full: untouched */
	__u64	destroyed;
	__u64	failed;
	__u64	truncated;	/* chained: walks a bucket batch cut short */
	__s64	walk_err;	/* chained: the error that cut the last one */
	__u64	dump_lost;	/* cfg_dump: records the ring buffer refused */
	__u64	longest_ns;	/* chained: the longest run of the program */
	__u64	index_entries;	/* index: entries of the dst addresses read */
	__u64	index_pruned;	/* index: stale entries dropped */
	__u64	index_unreachable; /* index: entries not settled */
	__u64	index_slots;	/* index: slots scanned */
};

#endif /* REAP_H */
