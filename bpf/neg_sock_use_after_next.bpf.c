// SPDX-License-Identifier: GPL-2.0
/* Must be rejected: reads the socket the previous next() returned. */
#include "netns_sock.h"

char LICENSE[] SEC("license") = "GPL";

__u64 states;

SEC("iter.s/netns")
int use_after_next(struct bpf_iter__netns *ctx)
{
	struct sock_common *sk, *prev = NULL;
	struct bpf_iter_netns_sock it;
	struct net *net = ctx->net;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	while ((sk = bpf_iter_netns_sock_next(&it))) {
		if (prev)
			states += prev->skc_state;
		prev = sk;
	}
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}
