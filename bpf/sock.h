/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What bpf/reap.bpf.c and bpf/index.bpf.c share about sockets: the
 * families, the chained walk's kfuncs (absent from stock kernels, so
 * weak), the states netns-reap calls connected, and addresses as 16
 * bytes, IPv4 stored IPv4-mapped (::ffff:a.b.c.d).
 */
#ifndef NETNS_REAP_SOCK_H
#define NETNS_REAP_SOCK_H

#include <bpf/bpf_core_read.h>

#define AF_INET		2
#define AF_INET6	10

extern int bpf_iter_netns_sock_new(struct bpf_iter_netns_sock *it,
				   struct net *net, int protocol,
				   unsigned int flags) __ksym __weak;
extern struct sock_common *
bpf_iter_netns_sock_next(struct bpf_iter_netns_sock *it) __ksym __weak;
extern void bpf_iter_netns_sock_destroy(struct bpf_iter_netns_sock *it) __ksym __weak;
extern int bpf_iter_netns_sock_abort(struct bpf_iter_netns_sock *it__iter) __ksym __weak;
extern int bpf_iter_netns_sock_err(struct bpf_iter_netns_sock *it__iter) __ksym __weak;

/*
 * "connected": what ss calls connected, less TIME_WAIT, which has no
 * socket left to abort; so every state but listening, close and
 * time-wait.  It includes request sockets (TCP_NEW_SYN_RECV, ss: SYN-RECV),
 * the server side of a handshake.
 */
#define REAP_CONNECTED_STATES						\
	((1U << TCP_ESTABLISHED) | (1U << TCP_SYN_SENT) |		\
	 (1U << TCP_SYN_RECV) | (1U << TCP_FIN_WAIT1) |			\
	 (1U << TCP_FIN_WAIT2) | (1U << TCP_CLOSE_WAIT) |		\
	 (1U << TCP_LAST_ACK) | (1U << TCP_CLOSING) |			\
	 (1U << TCP_NEW_SYN_RECV))

/*
 * The family of @skc's addresses.  A request socket has its listener's
 * family, but one made by an IPv4 SYN on an IPv6 listener holds IPv4
 * addresses only; its rsk_ops tell.
 */
static __always_inline __u16 sk_family(const struct sock_common *skc)
{
	if (skc->skc_state == TCP_NEW_SYN_RECV)
		return BPF_CORE_READ((const struct request_sock *)skc, rsk_ops,
				     family);
	return skc->skc_family;
}

static __always_inline void map4(__u8 out[16], __be32 v4)
{
	__builtin_memset(out, 0, 10);
	out[10] = 0xff;
	out[11] = 0xff;
	__builtin_memcpy(out + 12, &v4, 4);
}

static __always_inline void addr_of(__u8 out[16], __u16 family, __be32 v4,
				    const struct in6_addr *v6)
{
	if (family == AF_INET)
		map4(out, v4);
	else
		bpf_probe_read_kernel(out, 16, v6);
}

#endif /* NETNS_REAP_SOCK_H */
