// SPDX-License-Identifier: GPL-2.0
/*
 * The verifier's rules for iter/netns and the open-coded per-namespace
 * socket iterator: ctx->net is read-only and NULL on the last call; the
 * socket bpf_iter_netns_sock_next() returns is untrusted (KF_RET_UNTRUSTED):
 * the program reads it, before or after the following next(), but neither
 * it nor anything loaded from it is written or passed to a helper or kfunc,
 * so no cast, local storage, dynptr or helper result outlives the walk's
 * hold on the socket, whatever route it takes (stack, callback, global
 * function argument; a kptr_untrusted field gives back an untrusted
 * pointer, and no socket type has the destructor a referenced kptr field
 * needs); the iterator's own kfuncs act on its socket.  The
 * socket kfuncs are for sleepable iter.s/netns programs only.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "bpf_misc.h"

char _license[] SEC("license") = "GPL";

#define IPPROTO_TCP 6
#define UNTRUSTED "type=untrusted_ptr_"

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} sk_stg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u64);
} by_daddr SEC(".maps");

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

/* The socket is the kernel's, and the walk's: read only. */
SEC("?iter.s/netns")
__failure __msg("only read is supported")
int sock_write(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct sock_common *sk;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	while ((sk = bpf_iter_netns_sock_next(&it)))
		sk->skc_state = 7;
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

/* No cast helper takes the socket: a cast would be trusted. */
SEC("?iter.s/netns")
__failure __msg(UNTRUSTED)
int cast_tcp_sock(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct sock_common *sk;
	struct tcp_sock *tp;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	while ((sk = bpf_iter_netns_sock_next(&it))) {
		tp = bpf_skc_to_tcp_sock(sk);
		if (tp)
			sink += tp->snd_cwnd;
	}
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

SEC("?iter.s/netns")
__failure __msg(UNTRUSTED)
int cast_request_sock(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct tcp_request_sock *req;
	struct sock_common *sk;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	while ((sk = bpf_iter_netns_sock_next(&it))) {
		req = bpf_skc_to_tcp_request_sock(sk);
		if (req)
			sink += req->req.req.num_retrans;
	}
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

/*
 * The socket's local storage, which is freed with the socket: neither
 * the value, nor a dynptr over it, nor a slice of that dynptr can be had.
 */
SEC("?iter.s/netns")
__failure __msg(UNTRUSTED)
int sk_storage_dynptr(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct bpf_dynptr ptr;
	struct sock_common *sk;
	__u64 *v, *slice;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	sk = bpf_iter_netns_sock_next(&it);
	if (sk) {
		v = bpf_sk_storage_get(&sk_stg, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
		if (v) {
			bpf_dynptr_from_mem(v, sizeof(*v), 0, &ptr);
			slice = bpf_dynptr_data(&ptr, 0, sizeof(*slice));
			bpf_iter_netns_sock_next(&it);
			if (slice)
				*slice = 1;
		}
	}
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

SEC("?iter.s/netns")
__failure __msg(UNTRUSTED)
int sk_storage_delete(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct sock_common *sk;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	while ((sk = bpf_iter_netns_sock_next(&it)))
		bpf_sk_storage_delete(&sk_stg, sk);
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

/* No helper takes it: the walk gave the socket its cookie to read. */
SEC("?iter.s/netns")
__failure __msg(UNTRUSTED)
int socket_cookie(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct sock_common *sk;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	while ((sk = bpf_iter_netns_sock_next(&it)))
		sink += bpf_get_socket_cookie(sk);
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

/* A pointer loaded from the socket is untrusted too. */
SEC("?iter.s/netns")
__failure __msg("must be referenced or trusted")
int loaded_net_to_kfunc(struct bpf_iter__netns *ctx)
{
	struct bpf_iter_netns_sock it, inner;
	struct net *net = ctx->net;
	struct sock_common *sk;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	sk = bpf_iter_netns_sock_next(&it);
	if (sk) {
		bpf_iter_netns_sock_new(&inner, sk->skc_net.net, IPPROTO_TCP, 0);
		bpf_iter_netns_sock_destroy(&inner);
	}
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

/*
 * A copy spilled to the stack and filled is as untrusted as the register,
 * in assembly so that the spill is certain: bpf_get_socket_cookie() is
 * refused.  ctx->net is at offset 8 of bpf_iter__netns.
 */
SEC("?iter.s/netns")
__failure __msg(UNTRUSTED)
__naked int spill_fill_to_helper(void)
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
	"r1 = *(u64 *)(r10 - 32);"
	"call %[bpf_get_socket_cookie];"
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
	  __imm(bpf_iter_netns_sock_destroy),
	  __imm(bpf_get_socket_cookie)
	: __clobber_all);
}

/*
 * Through a bpf_loop() callback: the socket reaches the callback in its
 * caller's stack, still untrusted.
 */
struct loop_ctx {
	struct sock_common *sk;
};

static int cookie_cb(__u32 i, struct loop_ctx *c)
{
	sink += bpf_get_socket_cookie(c->sk);
	return 1;
}

SEC("?iter.s/netns")
__failure __msg(UNTRUSTED)
int loop_callback_to_helper(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct loop_ctx c;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	while ((c.sk = bpf_iter_netns_sock_next(&it)))
		bpf_loop(1, cookie_cb, &c, 0);
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

/* A global function's trusted argument does not launder it. */
__noinline int sock_state_trusted(struct sock_common *sk __arg_trusted)
{
	return sk ? sk->skc_state : 0;
}

SEC("?iter.s/netns")
__failure __msg(UNTRUSTED)
int global_subprog_trusted_arg(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct sock_common *sk;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	while ((sk = bpf_iter_netns_sock_next(&it)))
		sink += sock_state_trusted(sk);
	bpf_iter_netns_sock_destroy(&it);
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

/*
 * What the rule accepts: reads of the socket, also through a copy kept
 * across next() (a probe read, which faults safely on a socket the walk
 * let go), a cast for reading with bpf_core_cast(), a map keyed by a
 * socket field, and the iterator's own kfuncs.
 */
SEC("?iter.s/netns")
__success
int read_after_next(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct sock_common *sk, *prev = NULL;
	struct bpf_iter_netns_sock it;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	while ((sk = bpf_iter_netns_sock_next(&it))) {
		if (prev)
			sink += prev->skc_state + prev->skc_net.net->net_cookie;
		prev = sk;
	}
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

SEC("?iter.s/netns")
__success
int lookup_by_sock_field(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct sock_common *sk;
	__u64 *v = NULL;
	__u32 daddr;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	while ((sk = bpf_iter_netns_sock_next(&it))) {
		if (v)
			*v += 1;
		daddr = sk->skc_daddr;
		v = bpf_map_lookup_elem(&by_daddr, &daddr);
		if (v && sk->skc_cookie.counter == *v)
			bpf_iter_netns_sock_abort(&it);
	}
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

SEC("?iter.s/netns")
__success
int core_cast_read(struct bpf_iter__netns *ctx)
{
	struct net *net = ctx->net;
	struct bpf_iter_netns_sock it;
	struct sock_common *sk;
	struct tcp_sock *tp;

	if (!net)
		return 0;
	bpf_iter_netns_sock_new(&it, net, IPPROTO_TCP, 0);
	while ((sk = bpf_iter_netns_sock_next(&it))) {
		if (sk->skc_state != 1)
			continue;
		tp = bpf_core_cast(sk, struct tcp_sock);
		sink += tp->snd_cwnd;
		if (tp->snd_cwnd > 100)
			bpf_iter_netns_sock_abort(&it);
	}
	bpf_iter_netns_sock_destroy(&it);
	return 0;
}

/* Nested walks: the inner walk aborts a socket the outer one is at. */
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
