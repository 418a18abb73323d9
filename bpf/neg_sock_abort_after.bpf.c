// SPDX-License-Identifier: GPL-2.0
/* Must be rejected: abort after destroy, when nothing is held. */
#include "netns_sock.h"

char LICENSE[] SEC("license") = "GPL";

SEC("iter.s/netns")
int walk_abort_after(struct bpf_iter__netns *ctx)
{
	struct bpf_iter_netns_sock it;
	struct net *net = ctx->net;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	bpf_iter_netns_sock_destroy(&it);
	bpf_iter_netns_sock_abort(&it);
	return 0;
}
