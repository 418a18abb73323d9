// SPDX-License-Identifier: GPL-2.0
/* Must be rejected: reads a socket after the iterator is destroyed. */
#include "netns_sock.h"

char LICENSE[] SEC("license") = "GPL";

__u64 states;

SEC("iter.s/netns")
int use_after_destroy(struct bpf_iter__netns *ctx)
{
	struct bpf_iter_netns_sock it;
	struct net *net = ctx->net;
	struct sock_common *sk;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	sk = bpf_iter_netns_sock_next(&it);
	bpf_iter_netns_sock_destroy(&it);
	if (sk)
		states += sk->skc_state;
	return 0;
}
