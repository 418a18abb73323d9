// SPDX-License-Identifier: GPL-2.0
/*
 * The verifier's rules for iter/netns and the open-coded per-namespace
 * socket iterator: ctx->net is read-only and NULL on the last call; the
 * socket bpf_iter_netns_sock_next() returns, and every pointer derived from
 * it, is invalid after the iterator's following next() or destroy(); the
 * socket kfuncs are for sleepable iter.s/netns programs only.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "bpf_misc.h"

char _license[] SEC("license") = "GPL";

#define IPPROTO_TCP 6
#define INVALIDATED "the iterator's next call invalidated this pointer"

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} sk_stg SEC(".maps");

__u64 sink;

/* ctx->net is NULL on the call that ends the walk. */
SEC("?iter/netns")
__failure __msg("invalid mem access 'trusted_ptr_or_null_'")
int net_without_null_check(struct bpf_iter__netns *ctx)
{
	sink += ctx->net->ns.inum;
	return 0;
}

/* The namespace is the kernel's: read only. */
SEC("?iter/netns")
__failure __msg("only read is supported")
int net_write(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;

	if (net)
		net->ifindex = 0;
	return 0;
}

/* Aborting through a destroyed iterator. */
SEC("?iter.s/netns")
__failure __msg("expected an initialized iter_netns_sock")
int abort_after_destroy(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	bpf_iter_netns_sock_destroy(&it);
	bpf_iter_netns_sock_abort(&it);
	return 0;
}

/* A copy of the socket kept in a register across next(). */
SEC("?iter.s/netns")
__failure __msg("invalid mem access 'scalar'") __msg(INVALIDATED)
int use_after_next(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct sock_common *sk, *prev = NULL;
	struct bpf_iter_netns_sock it;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	while ((sk = bpf_iter_netns_sock_next(&it))) {
		if (prev)
			sink += prev->skc_state;
		prev = sk;
	}
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

/*
 * A copy spilled to the stack and filled after next(), in assembly so that
 * the spill is certain.  ctx->net is at offset 8 of bpf_iter__netns,
 * skc_state at offset 18 of sock_common.
 */
SEC("?iter.s/netns")
__failure __msg("R0 invalid mem access 'scalar'")
__naked int spill_fill_after_next(void)
{
	asm volatile ("r6 = *(u64 *)(r1 + 8);"
	"if r6 == 0 goto 1f;"
	"r1 = r10;"
	"r1 += -24;"
	"r2 = r6;"
	"r3 = 6;"
	"r4 = 0;"
	"call %[bpf_iter_netns_sock_new];"
	"r1 = r10;"
	"r1 += -24;"
	"call %[bpf_iter_netns_sock_next];"
	"if r0 == 0 goto 2f;"
	"*(u64 *)(r10 - 32) = r0;"
	"r1 = r10;"
	"r1 += -24;"
	"call %[bpf_iter_netns_sock_next];"
	"r0 = *(u64 *)(r10 - 32);"
	"r0 = *(u8 *)(r0 + 18);"
"2:\n"
	"r1 = r10;"
	"r1 += -24;"
	"call %[bpf_iter_netns_sock_destroy];"
"1:\n"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_iter_netns_sock_new),
	  __imm(bpf_iter_netns_sock_next),
	  __imm(bpf_iter_netns_sock_destroy)
	: __clobber_all);
}

/* The socket used after the iterator is destroyed, on an early exit. */
SEC("?iter.s/netns")
__failure __msg("invalid mem access 'scalar'")
__msg("resource release invalidated this pointer")
int use_after_destroy(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct sock_common *sk;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	while ((sk = bpf_iter_netns_sock_next(&it)))
		if (sk->skc_state == 10)
			break;
	bpf_iter_netns_sock_destroy(&it);
	if (sk)
		sink += sk->skc_state;
	return 0;
}

/* bpf_skc_to_tcp_sock() of the socket, used after next(). */
SEC("?iter.s/netns")
__failure __msg("invalid mem access 'scalar'") __msg(INVALIDATED)
int cast_tcp_sock_after_next(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct sock_common *sk;
	struct tcp_sock *tp;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	sk = bpf_iter_netns_sock_next(&it);
	if (sk) {
		tp = bpf_skc_to_tcp_sock(sk);
		bpf_iter_netns_sock_next(&it);
		if (tp)
			sink += tp->snd_cwnd;
	}
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

/* bpf_skc_to_tcp6_sock(), used after next(). */
SEC("?iter.s/netns")
__failure __msg("invalid mem access 'scalar'") __msg(INVALIDATED)
int cast_tcp6_sock_after_next(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct sock_common *sk;
	struct tcp6_sock *tp6;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	sk = bpf_iter_netns_sock_next(&it);
	if (sk) {
		tp6 = bpf_skc_to_tcp6_sock(sk);
		bpf_iter_netns_sock_next(&it);
		if (tp6)
			sink += tp6->tcp.snd_cwnd;
	}
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

/* bpf_skc_to_udp6_sock(), used after next(). */
SEC("?iter.s/netns")
__failure __msg("invalid mem access 'scalar'") __msg(INVALIDATED)
int cast_udp6_sock_after_next(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct sock_common *sk;
	struct udp6_sock *up6;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, 17, 0);
	sk = bpf_iter_netns_sock_next(&it);
	if (sk) {
		up6 = bpf_skc_to_udp6_sock(sk);
		bpf_iter_netns_sock_next(&it);
		if (up6)
			sink += up6->udp.pending;
	}
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

/* bpf_skc_to_tcp_timewait_sock(), used after next(). */
SEC("?iter.s/netns")
__failure __msg("invalid mem access 'scalar'") __msg(INVALIDATED)
int cast_timewait_after_next(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct tcp_timewait_sock *tw;
	struct bpf_iter_netns_sock it;
	struct sock_common *sk;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	sk = bpf_iter_netns_sock_next(&it);
	if (sk) {
		tw = bpf_skc_to_tcp_timewait_sock(sk);
		bpf_iter_netns_sock_next(&it);
		if (tw)
			sink += tw->tw_rcv_wnd;
	}
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

/* bpf_skc_to_tcp_request_sock(), used after next(). */
SEC("?iter.s/netns")
__failure __msg("invalid mem access 'scalar'") __msg(INVALIDATED)
int cast_request_after_next(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct tcp_request_sock *req;
	struct sock_common *sk;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	sk = bpf_iter_netns_sock_next(&it);
	if (sk) {
		req = bpf_skc_to_tcp_request_sock(sk);
		bpf_iter_netns_sock_next(&it);
		if (req)
			sink += req->rcv_isn;
	}
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

/* A cast of a cast: still the socket's scope. */
SEC("?iter.s/netns")
__failure __msg("invalid mem access 'scalar'")
int cast_of_cast_after_next(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct sock_common *sk;
	struct tcp6_sock *tp6;
	struct tcp_sock *tp;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	sk = bpf_iter_netns_sock_next(&it);
	if (sk) {
		tp = bpf_skc_to_tcp_sock(sk);
		if (tp) {
			tp6 = bpf_skc_to_tcp6_sock(tp);
			bpf_iter_netns_sock_next(&it);
			if (tp6)
				sink += tp6->tcp.snd_cwnd;
		}
	}
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

/* A cast passed to bpf_sk_storage_get() after next(). */
SEC("?iter.s/netns")
__failure __msg("R2 type=scalar expected=")
int sk_storage_get_after_next(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct sock_common *sk;
	struct tcp_sock *tp;
	__u64 *v;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	sk = bpf_iter_netns_sock_next(&it);
	if (sk) {
		tp = bpf_skc_to_tcp_sock(sk);
		bpf_iter_netns_sock_next(&it);
		if (tp) {
			v = bpf_sk_storage_get(&sk_stg, tp, 0,
					       BPF_SK_STORAGE_GET_F_CREATE);
			if (v)
				*v = 1;
		}
	}
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

/*
 * The socket's local storage, kept across next(): it is freed with the
 * socket, which next() may have just released.
 */
SEC("?iter.s/netns")
__failure __msg("invalid mem access 'scalar'")
int sk_storage_value_after_next(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct sock_common *sk;
	__u64 *v = NULL;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	sk = bpf_iter_netns_sock_next(&it);
	if (sk)
		v = bpf_sk_storage_get(&sk_stg, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	bpf_iter_netns_sock_next(&it);
	if (v)
		*v = 1;
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, __u64);
	__type(value, __u64);
} per_backend SEC(".maps");

/*
 * A map value looked up with a key read from the socket's storage is the
 * map's, not the socket's: it outlives next().
 */
SEC("?iter.s/netns")
__success
int lookup_by_storage_key(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct sock_common *sk;
	__u64 *v, *w = NULL;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	sk = bpf_iter_netns_sock_next(&it);
	if (sk) {
		v = bpf_sk_storage_get(&sk_stg, sk, 0, 0);
		if (v)
			w = bpf_map_lookup_elem(&per_backend, v);
	}
	bpf_iter_netns_sock_next(&it);
	if (w)
		*w += 1;
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

/* A cast passed to bpf_sk_storage_delete() after next(). */
SEC("?iter.s/netns")
__failure __msg("R2 type=scalar expected=")
int sk_storage_delete_after_next(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct sock_common *sk;
	struct tcp_sock *tp;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	sk = bpf_iter_netns_sock_next(&it);
	if (sk) {
		tp = bpf_skc_to_tcp_sock(sk);
		bpf_iter_netns_sock_next(&it);
		if (tp)
			bpf_sk_storage_delete(&sk_stg, tp);
	}
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

/* bpf_get_socket_cookie(), which writes sk_cookie, on a cast after next(). */
SEC("?iter.s/netns")
__failure __msg("R1 type=scalar expected=")
int socket_cookie_after_next(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct sock_common *sk;
	struct tcp_sock *tp;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	sk = bpf_iter_netns_sock_next(&it);
	if (sk) {
		tp = bpf_skc_to_tcp_sock(sk);
		bpf_iter_netns_sock_next(&it);
		if (tp)
			sink += bpf_get_socket_cookie(tp);
	}
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

/* A pointer loaded from the socket, in an RCU section, used after next(). */
SEC("?iter.s/netns")
__failure __msg("invalid mem access 'scalar'") __msg(INVALIDATED)
int loaded_pointer_after_next(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct sock_common *sk;
	struct socket *so = NULL;
	struct tcp_sock *tp;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	sk = bpf_iter_netns_sock_next(&it);
	if (sk) {
		tp = bpf_skc_to_tcp_sock(sk);
		bpf_rcu_read_lock();
		if (tp)
			so = tp->inet_conn.icsk_inet.sk.sk_socket;
		bpf_rcu_read_unlock();
		bpf_iter_netns_sock_next(&it);
		if (so)
			sink += so->state;
	}
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

static __noinline void step(struct bpf_iter_netns_sock *it)
{
	bpf_iter_netns_sock_next(it);
}

/* next() called in a static subprog, the socket used by its caller. */
SEC("?iter.s/netns")
__failure __msg("invalid mem access 'scalar'") __msg(INVALIDATED)
int next_in_subprog(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct sock_common *sk;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	sk = bpf_iter_netns_sock_next(&it);
	if (sk) {
		step(&it);
		sink += sk->skc_state;
	}
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

static __noinline __u64 step_and_read(struct bpf_iter_netns_sock *it,
				      struct sock_common *sk)
{
	bpf_iter_netns_sock_next(it);
	return sk->skc_state;
}

/* The socket passed to a static subprog that calls next() first. */
SEC("?iter.s/netns")
__failure __msg("invalid mem access 'scalar'") __msg(INVALIDATED)
int subprog_arg_after_next(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct sock_common *sk;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	sk = bpf_iter_netns_sock_next(&it);
	if (sk)
		sink += step_and_read(&it, sk);
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

struct loop_ctx {
	struct bpf_iter_netns_sock *it;
	struct sock_common *sk;
};

static int loop_step(__u32 i, struct loop_ctx *c)
{
	bpf_iter_netns_sock_next(c->it);
	return 1;
}

/* next() called in a bpf_loop() callback, the socket used after it. */
SEC("?iter.s/netns")
__failure __msg("invalid mem access 'scalar'")
int next_in_loop_callback(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct loop_ctx c = { .it = &it };

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	c.sk = bpf_iter_netns_sock_next(&it);
	if (c.sk) {
		bpf_loop(1, loop_step, &c, 0);
		sink += c.sk->skc_state;
	}
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

/* Nested walks: the inner walk's socket used after the outer's next(). */
SEC("?iter.s/netns")
__failure __msg("invalid mem access 'scalar'")
int inner_sock_after_inner_destroy(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock outer, inner;
	struct sock_common *o, *i, *kept = NULL;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&outer, net, IPPROTO_TCP, 0);
	while ((o = bpf_iter_netns_sock_next(&outer))) {
		if (kept)
			sink += kept->skc_state;
		bpf_iter_netns_sock_new(&inner, net, IPPROTO_TCP, 0);
		i = bpf_iter_netns_sock_next(&inner);
		if (i)
			kept = i;
		bpf_iter_netns_sock_destroy(&inner);
	}
	bpf_iter_netns_sock_destroy(&outer);
	return 0;
}

/* bpf_sock_destroy() takes a socket its caller has locked: not here. */
SEC("?iter.s/netns")
__failure __msg("calling kernel function bpf_sock_destroy is not allowed")
int sock_destroy_in_netns_walk(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct sock_common *sk;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	while ((sk = bpf_iter_netns_sock_next(&it)))
		bpf_sock_destroy(sk);
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

/* The kfuncs take locks and sleep: not in a non-sleepable program. */
SEC("?iter/netns")
__failure __msg("program must be sleepable to call sleepable kfunc bpf_iter_netns_sock_new")
int walk_not_sleepable(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct sock_common *sk;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	while ((sk = bpf_iter_netns_sock_next(&it)))
		sink++;
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

/* Only iter.s/netns: another iterator target is refused. */
SEC("?iter.s/task")
__failure __msg("calling kernel function bpf_iter_netns_sock_new is not allowed")
int walk_from_task_iter(struct bpf_iter__task *ctx)
{
	struct bpf_iter_netns_sock it;
	struct task_struct *task = ctx->task;

	if (!task)
		return 0;
	bpf_iter_netns_sock_new(&it, task->nsproxy->net_ns, IPPROTO_TCP, 0);
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

/*
 * The netns iterator is for process context: a tracepoint program, which
 * may run anywhere (in hardirq, under an LSM's lock), may not walk.
 */
SEC("?tp_btf/tcp_destroy_sock")
__failure __msg("calling kernel function bpf_iter_netns_new is not allowed")
int BPF_PROG(netns_walk_from_tracepoint, struct sock *sk)
{
	struct bpf_iter_netns it;
	struct net *net;

	bpf_iter_netns_new(&it);
	while ((net = bpf_iter_netns_next(&it)))
		sink += net->net_cookie;
	bpf_iter_netns_destroy(&it);
	return 0;
}

/* A syscall program runs from BPF_PROG_RUN, in process context: it may. */
SEC("?syscall")
__success
int netns_walk_from_syscall(void *ctx)
{
	struct bpf_iter_netns it;
	struct net *net;

	bpf_rcu_read_lock();
	bpf_iter_netns_new(&it);
	while ((net = bpf_iter_netns_next(&it)))
		sink += net->net_cookie;
	bpf_iter_netns_destroy(&it);
	bpf_rcu_read_unlock();
	return 0;
}

/* An iterator that is never destroyed. */
SEC("?iter.s/netns")
__failure __msg("Unreleased reference")
int walk_leaked(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	return 0;
}

/* Copies, casts and helpers on the current socket, before next(). */
SEC("?iter.s/netns")
__success
int use_before_next(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct sock_common *sk;
	struct tcp_sock *tp;
	__u64 *v;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	while ((sk = bpf_iter_netns_sock_next(&it))) {
		sink += bpf_get_socket_cookie(sk);
		tp = bpf_skc_to_tcp_sock(sk);
		if (!tp)
			continue;
		sink += tp->snd_cwnd;
		v = bpf_sk_storage_get(&sk_stg, tp, 0,
				       BPF_SK_STORAGE_GET_F_CREATE);
		if (v)
			*v += 1;
		bpf_sk_storage_delete(&sk_stg, tp);
		if (tp->snd_cwnd > 100)
			bpf_iter_netns_sock_abort(&it);
	}
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

/* Nested walks: the outer socket stays valid across the inner walk. */
SEC("?iter.s/netns")
__success
int nested_walks(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock outer, inner;
	struct sock_common *o, *i;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&outer, net, IPPROTO_TCP, 0);
	while ((o = bpf_iter_netns_sock_next(&outer))) {
		bpf_iter_netns_sock_new(&inner, net, IPPROTO_TCP, 0);
		while ((i = bpf_iter_netns_sock_next(&inner))) {
			if (i->skc_num == o->skc_num)
				bpf_iter_netns_sock_abort(&inner);
		}
		bpf_iter_netns_sock_destroy(&inner);
		sink += o->skc_state;
	}
	bpf_iter_netns_sock_destroy(&outer);
	return 0;
}

/* An early exit from the walk, with the iterator destroyed. */
SEC("?iter.s/netns")
__success
int early_exit(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct sock_common *sk;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	while ((sk = bpf_iter_netns_sock_next(&it))) {
		if (sk->skc_state == 10) {
			sink += sk->skc_num;
			break;
		}
	}
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

/* The twins of spill_fill_after_next, cast_of_cast_after_next and
 * next_in_loop_callback without the offending next(): they load, so what
 * the verifier refuses there is the use after next().
 */
SEC("?iter.s/netns")
__success
__naked int spill_fill_before_next(void)
{
	asm volatile ("r6 = *(u64 *)(r1 + 8);"
	"if r6 == 0 goto 1f;"
	"r1 = r10;"
	"r1 += -24;"
	"r2 = r6;"
	"r3 = 6;"
	"r4 = 0;"
	"call %[bpf_iter_netns_sock_new];"
	"r1 = r10;"
	"r1 += -24;"
	"call %[bpf_iter_netns_sock_next];"
	"if r0 == 0 goto 2f;"
	"*(u64 *)(r10 - 32) = r0;"
	"r0 = *(u64 *)(r10 - 32);"
	"r0 = *(u8 *)(r0 + 18);"
"2:\n"
	"r1 = r10;"
	"r1 += -24;"
	"call %[bpf_iter_netns_sock_destroy];"
"1:\n"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_iter_netns_sock_new),
	  __imm(bpf_iter_netns_sock_next),
	  __imm(bpf_iter_netns_sock_destroy)
	: __clobber_all);
}

SEC("?iter.s/netns")
__success
int cast_of_cast_before_next(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct sock_common *sk;
	struct tcp6_sock *tp6;
	struct tcp_sock *tp;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	sk = bpf_iter_netns_sock_next(&it);
	if (sk) {
		tp = bpf_skc_to_tcp_sock(sk);
		if (tp) {
			tp6 = bpf_skc_to_tcp6_sock(tp);
			if (tp6)
				sink += tp6->tcp.snd_cwnd;
		}
	}
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

static int loop_nop(__u32 i, struct loop_ctx *c)
{
	return 1;
}

SEC("?iter.s/netns")
__success
int loop_callback_without_next(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct loop_ctx c = { .it = &it };

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	c.sk = bpf_iter_netns_sock_next(&it);
	if (c.sk) {
		bpf_loop(1, loop_nop, &c, 0);
		sink += c.sk->skc_state;
	}
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}
