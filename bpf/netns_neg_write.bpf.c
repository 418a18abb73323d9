// SPDX-License-Identifier: GPL-2.0
/* Must be rejected: iter/netns hands out a read-only struct net. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

SEC("iter/netns")
int write_net(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;

	if (net)
		net->ifindex = 0;
	return 0;
}
