// SPDX-License-Identifier: GPL-2.0
/* iter/netns: one line per network namespace, see netns_dump.h. */
#include "netns_dump.h"

char LICENSE[] SEC("license") = "GPL";

SEC("iter/netns")
int dump_netns(struct bpf_iter__netns *ctx)
{
	return netns_dump(ctx->meta, ctx->net);
}
