// SPDX-License-Identifier: GPL-2.0
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "bpf_tracing_net.h"

char _license[] SEC("license") = "GPL";

extern int bpf_iter_netns_sock_new(struct bpf_iter_netns_sock *it,
				   struct net *net, int protocol,
				   unsigned int flags) __ksym;
extern struct sock_common *
bpf_iter_netns_sock_next(struct bpf_iter_netns_sock *it) __ksym;
extern void bpf_iter_netns_sock_destroy(struct bpf_iter_netns_sock *it) __ksym;
extern int bpf_iter_netns_sock_abort(struct bpf_iter_netns_sock *it__iter) __ksym;

/* One record per object: netns cookie, socket cookie (0 for iter/netns). */
struct iter_out {
	__u64 netns_cookie;
	__u64 sock_cookie;
};

/*
 * iter.s/netns: the namespace and protocol to walk, the flags to walk it
 * with and what bpf_iter_netns_sock_new() returned, the socket to abort.
 */
__u64 target_netns;
int protocol;
bool skip_listen;
unsigned int bad_flags;
int new_err;
__u64 abort_cookie;
int abort_err;
int nr_aborted;

static void emit(struct seq_file *seq, __u64 netns, __u64 sock)
{
	struct iter_out out = {
		.netns_cookie = netns,
		.sock_cookie = sock,
	};

	bpf_seq_write(seq, &out, sizeof(out));
}

static void emit_sock(struct seq_file *seq, struct sock_common *skc)
{
	emit(seq, skc->skc_net.net->net_cookie, bpf_get_socket_cookie(skc));
}

SEC("iter/netns")
int dump_netns(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;

	if (net)
		emit(ctx->meta->seq, net->net_cookie, 0);
	return 0;
}

SEC("iter/tcp")
int dump_tcp(struct bpf_iter__tcp *ctx)
{
	struct sock_common *skc = ctx->sk_common;

	if (skc)
		emit_sock(ctx->meta->seq, skc);
	return 0;
}

SEC("iter/udp")
int dump_udp(struct bpf_iter__udp *ctx)
{
	struct udp_sock *udp_sk = ctx->udp_sk;

	if (udp_sk)
		emit_sock(ctx->meta->seq, &udp_sk->inet.sk.__sk_common);
	return 0;
}

SEC("iter.s/netns")
int dump_netns_socks(struct bpf_iter__netns *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct net *net = ctx->net;
	unsigned int flags = bad_flags;
	struct bpf_iter_netns_sock it;
	struct sock_common *skc;

	if (!net || net->net_cookie != target_netns)
		return 0;
	if (skip_listen)
		flags |= BPF_ITER_NETNS_SOCK_SKIP_LISTEN;
	new_err = bpf_iter_netns_sock_new(&it, net, protocol, flags);
	if (!new_err) {
		while ((skc = bpf_iter_netns_sock_next(&it))) {
			emit_sock(seq, skc);
			if (abort_cookie &&
			    bpf_get_socket_cookie(skc) == abort_cookie) {
				abort_err = bpf_iter_netns_sock_abort(&it);
				nr_aborted++;
			}
		}
	}
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}
