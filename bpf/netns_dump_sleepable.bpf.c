// SPDX-License-Identifier: GPL-2.0
/* iter.s/netns: the same dump from a sleepable program. */
#include "netns_dump.h"

char LICENSE[] SEC("license") = "GPL";

SEC("iter.s/netns")
int dump_netns_sleepable(struct bpf_iter__netns *ctx)
{
	return netns_dump(ctx->meta, ctx->net);
}
