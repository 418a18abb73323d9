// SPDX-License-Identifier: GPL-2.0
/* Must be rejected: the iterator is never destroyed. */
#include "netns_sock.h"

char LICENSE[] SEC("license") = "GPL";

SEC("iter.s/netns")
int walk_leak(struct bpf_iter__netns *ctx)
{
	struct bpf_iter_netns_sock it;
	struct net *net = ctx->net;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	bpf_iter_netns_sock_next(&it);
	return 0;
}
