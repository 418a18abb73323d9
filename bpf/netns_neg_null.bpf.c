// SPDX-License-Identifier: GPL-2.0
/* Must be rejected: ctx->net is NULL on the final call, so it needs a check. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("iter/netns")
int no_null_check(struct bpf_iter__netns *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct net *net = ctx->net;

	BPF_SEQ_PRINTF(seq, "%u\n", net->ns.inum);
	return 0;
}
