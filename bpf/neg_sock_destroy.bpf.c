// SPDX-License-Identifier: GPL-2.0
/*
 * Must be rejected: bpf_sock_destroy() takes a pointer the verifier cannot
 * tie to the lock; the chained walk destroys through its iterator instead.
 */
#include "netns_sock.h"

char LICENSE[] SEC("license") = "GPL";

SEC("iter.s/netns")
int walk_sock_destroy(struct bpf_iter__netns *ctx)
{
	struct bpf_iter_netns_sock it;
	struct net *net = ctx->net;
	struct sock_common *sk;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	sk = bpf_iter_netns_sock_next(&it);
	if (sk)
		bpf_sock_destroy(sk);
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}
