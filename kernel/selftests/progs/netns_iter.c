// SPDX-License-Identifier: GPL-2.0
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "bpf_tracing_net.h"

#define ENOENT 2

char _license[] SEC("license") = "GPL";

/* One record per object: netns cookie, socket cookie (0 for iter/netns). */
struct iter_out {
	__u64 netns_cookie;
	__u64 sock_cookie;
};

/*
 * The records of iter.s/netns socket walks: a ring buffer, not the
 * seq_file, whose output a read() that stops in a namespace has that
 * namespace's walk write again.  nr_lost counts what did not fit.
 */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} walk_out SEC(".maps");
int nr_lost;

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

/*
 * A socket of bpf_iter_netns_sock_next() is untrusted: no helper takes it,
 * but next() gave it its cookie.
 */
static __u64 walk_cookie(struct sock_common *skc)
{
	return skc->skc_cookie.counter;
}

static void emit_walk_sock(struct sock_common *skc)
{
	struct iter_out out = {
		.netns_cookie = skc->skc_net.net->net_cookie,
		.sock_cookie = walk_cookie(skc),
	};

	if (bpf_ringbuf_output(&walk_out, &out, sizeof(out), 0))
		nr_lost++;
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
			emit_walk_sock(skc);
			if (abort_cookie && walk_cookie(skc) == abort_cookie) {
				abort_err = bpf_iter_netns_sock_abort(&it);
				nr_aborted++;
			}
		}
	}
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

/* iter.s/netns: one record for the target namespace, its socket count. */
SEC("iter.s/netns")
int count_netns_socks(struct bpf_iter__netns *ctx)
{
	struct bpf_iter_netns_sock it;
	struct net *net = ctx->net;
	__u64 n = 0;

	if (!net || net->net_cookie != target_netns)
		return 0;
	bpf_iter_netns_sock_new(&it, net, protocol, 0);
	while (bpf_iter_netns_sock_next(&it))
		n++;
	bpf_iter_netns_sock_destroy(&it);
	emit(ctx->meta->seq, net->net_cookie, n);
	return 0;
}

/*
 * iter.s/netns: for each socket of the target namespace, a second walk of
 * the same namespace; with inner_stop, the inner walk stops at the outer
 * walk's socket, and with inner_abort aborts it there, after which the
 * outer walk's own abort of it must find it gone.  outer_limit ends the
 * outer walk early.
 */
bool inner_stop;
bool inner_abort;
int outer_limit;
int nr_outer, nr_pairs, nr_self, nr_inner_aborted, nr_outer_gone;
int nr_bad_abort, walk_err;

SEC("iter.s/netns")
int nested_walk(struct bpf_iter__netns *ctx)
{
	struct bpf_iter_netns_sock outer, inner;
	struct net *net = ctx->net;
	struct sock_common *o, *i;
	__u64 cookie;
	int err;

	if (!net || net->net_cookie != target_netns)
		return 0;
	bpf_iter_netns_sock_new(&outer, net, protocol, 0);
	while ((o = bpf_iter_netns_sock_next(&outer))) {
		cookie = walk_cookie(o);
		nr_outer++;
		bpf_iter_netns_sock_new(&inner, net, protocol, 0);
		while ((i = bpf_iter_netns_sock_next(&inner))) {
			nr_pairs++;
			if (walk_cookie(i) != cookie)
				continue;
			nr_self++;
			if (inner_abort) {
				err = bpf_iter_netns_sock_abort(&inner);
				if (!err)
					nr_inner_aborted++;
				else if (err != -ENOENT)
					nr_bad_abort++;
			}
			if (inner_stop)
				break;
		}
		bpf_iter_netns_sock_destroy(&inner);
		if (inner_abort) {
			/* The inner walk aborted it, or it died of a peer's. */
			if (bpf_iter_netns_sock_abort(&outer) == -ENOENT)
				nr_outer_gone++;
			else
				nr_bad_abort++;
		}
		if (outer_limit && nr_outer >= outer_limit)
			break;
	}
	walk_err = bpf_iter_netns_sock_err(&outer);
	bpf_iter_netns_sock_destroy(&outer);
	return 0;
}

/*
 * iter.s/netns: abort every socket of the target namespace connected to
 * port churn_port, while another thread connects and closes such sockets.
 */
__u16 churn_port;
int nr_walks, nr_churn_aborted, nr_churn_gone, nr_churn_bad, churn_bad_err;

SEC("iter.s/netns")
int abort_churn(struct bpf_iter__netns *ctx)
{
	struct bpf_iter_netns_sock it;
	struct net *net = ctx->net;
	struct sock_common *skc;
	int err;

	if (!net || net->net_cookie != target_netns)
		return 0;
	nr_walks++;
	bpf_iter_netns_sock_new(&it, net, protocol, 0);
	while ((skc = bpf_iter_netns_sock_next(&it))) {
		if (skc->skc_dport != bpf_htons(churn_port))
			continue;
		err = bpf_iter_netns_sock_abort(&it);
		if (!err) {
			nr_churn_aborted++;
		} else if (err == -ENOENT) {
			nr_churn_gone++;
		} else {
			nr_churn_bad++;
			churn_bad_err = err;
		}
	}
	err = bpf_iter_netns_sock_err(&it);
	if (err)
		walk_err = err;
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

/*
 * Hostile programs, loaded one at a time (the "?" sections), each of which
 * must stay bounded at run time.
 *
 * sleepy_walk: at every socket of the target namespace's walk, a copy from
 * a page of user memory not yet faulted in (the first user_pages, one per
 * socket), which sleeps on the fault.
 */
__u64 user_ptr;
unsigned int user_pages, nr_sleeps;
int sleep_err;

SEC("?iter.s/netns")
int sleepy_walk(struct bpf_iter__netns *ctx)
{
	struct bpf_iter_netns_sock it;
	struct net *net = ctx->net;
	struct sock_common *skc;
	char c;
	int err;

	if (!net || net->net_cookie != target_netns || !user_pages)
		return 0;
	bpf_iter_netns_sock_new(&it, net, protocol, 0);
	while ((skc = bpf_iter_netns_sock_next(&it))) {
		err = bpf_copy_from_user(&c, sizeof(c),
					 (void *)(user_ptr +
						  (nr_sleeps % user_pages) * 4096));
		if (err)
			sleep_err = err;
		else
			nr_sleeps++;
		/* The socket is still the walk's after a sleep. */
		emit_walk_sock(skc);
	}
	walk_err = bpf_iter_netns_sock_err(&it);
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

/*
 * flood_walk: flood_chunks times 4 KiB of output for the target namespace,
 * written while a socket walk of it is open, then the walk to its end.
 */
int flood_chunks, nr_flood_socks;
char flood_buf[4096];

SEC("?iter.s/netns")
int flood_walk(struct bpf_iter__netns *ctx)
{
	struct bpf_iter_netns_sock it;
	struct net *net = ctx->net;
	int i;

	if (!net || net->net_cookie != target_netns)
		return 0;
	bpf_iter_netns_sock_new(&it, net, protocol, 0);
	bpf_for(i, 0, flood_chunks)
		bpf_seq_write(ctx->meta->seq, flood_buf, sizeof(flood_buf));
	while (bpf_iter_netns_sock_next(&it))
		nr_flood_socks++;
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

/*
 * deep_walk: walks of the target namespace nested eight deep, about
 * nr_socks^8 steps: run time that only a fatal signal bounds.
 */
long nr_deep;

SEC("?iter.s/netns")
int deep_walk(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct sock_common *skc;

	if (!net || net->net_cookie != target_netns)
		return 0;
	/* One statement: each loop's iterator is destroyed as it ends. */
	bpf_for_each(netns_sock, skc, net, protocol, 0)
	bpf_for_each(netns_sock, skc, net, protocol, 0)
	bpf_for_each(netns_sock, skc, net, protocol, 0)
	bpf_for_each(netns_sock, skc, net, protocol, 0)
	bpf_for_each(netns_sock, skc, net, protocol, 0)
	bpf_for_each(netns_sock, skc, net, protocol, 0)
	bpf_for_each(netns_sock, skc, net, protocol, 0)
	bpf_for_each(netns_sock, skc, net, protocol, 0)
		nr_deep++;
	return 0;
}

/*
 * count_runs: its runs per namespace, and the re-runs among them, which a
 * program tells by a meta->seq_num and a namespace equal to the previous
 * run's.  run_chunks KiB of output per namespace, big_chunks KiB for
 * big_netns, and 1 returned from retry_netns's first run.
 */
struct netns_runs {
	int runs;
	int reruns;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, struct netns_runs);
} runs SEC(".maps");

int run_chunks, big_chunks;
__u64 big_netns, retry_netns;
__u64 last_netns, last_seq_num;
char run_buf[1024];

SEC("?iter/netns")
int count_runs(struct bpf_iter__netns *ctx)
{
	struct netns_runs zero = {}, *r;
	struct net *net = ctx->net;
	__u64 cookie;
	int i, chunks;

	if (!net)
		return 0;
	cookie = net->net_cookie;
	bpf_map_update_elem(&runs, &cookie, &zero, BPF_NOEXIST);
	r = bpf_map_lookup_elem(&runs, &cookie);
	if (!r)
		return 0;
	r->runs++;
	if (cookie == last_netns && ctx->meta->seq_num == last_seq_num)
		r->reruns++;
	last_netns = cookie;
	last_seq_num = ctx->meta->seq_num;
	chunks = cookie == big_netns ? big_chunks : run_chunks;
	bpf_for(i, 0, chunks)
		bpf_seq_write(ctx->meta->seq, run_buf, sizeof(run_buf));
	return cookie == retry_netns && r->runs == 1;
}
