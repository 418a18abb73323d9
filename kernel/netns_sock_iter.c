// SPDX-License-Identifier: GPL-2.0-only
/*
 * Open-coded iterator over the TCP or UDP sockets of one network namespace,
 * for iter.s/netns programs: bpf_iter_netns_sock_{new,next,destroy}(), and
 * bpf_iter_netns_sock_abort() to destroy the socket it is at.
 *
 * The walk is that of iter/tcp and iter/udp (net/ipv4/tcp_ipv4.c, udp.c):
 * a bucket at a time, batched under the bucket lock with a reference on
 * each socket.  A socket hashed for the whole walk is seen once.  No lock
 * is held between two calls, so walks nest and programs may sleep.
 *
 * The socket next() returns is held only until the following call, so the
 * program gets it untrusted (KF_RET_UNTRUSTED): it may read it, and pass it
 * to no helper or kfunc that takes a trusted pointer.  The iterator acts on
 * its current socket itself.
 */
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/filter.h>
#include <linux/sched/signal.h>
#include <linux/sock_diag.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <net/udp.h>

/* Flags of bpf_iter_netns_sock_new(). */
enum bpf_iter_netns_sock_flags {
	/* TCP only: skip listeners, and the listening hash with them. */
	BPF_ITER_NETNS_SOCK_SKIP_LISTEN	= (1U << 0),
};

struct bpf_iter_netns_sock {
	__u64 __opaque[3];
} __aligned(8);

/* Non-opaque version of bpf_iter_netns_sock */
struct bpf_iter_netns_sock_kern {
	union {
		struct bpf_tcp_sock_walk *tcp;
		struct bpf_udp_sock_walk *udp;
		void *walk;
	};
	struct sock *sk;
	int protocol;
	int err;
} __aligned(8);

static void netns_sock_walk_end(struct bpf_iter_netns_sock_kern *kit)
{
	if (!kit->walk)
		return;
	if (kit->protocol == IPPROTO_TCP)
		bpf_tcp_sock_walk_destroy(kit->tcp);
	else
		bpf_udp_sock_walk_destroy(kit->udp);
	kit->walk = NULL;
	kit->sk = NULL;
}

__bpf_kfunc_start_defs();

/**
 * bpf_iter_netns_sock_new() - start a walk over one namespace's sockets
 * @it: iterator state
 * @net: the namespace, the trusted ctx->net of an iter.s/netns program
 * @protocol: IPPROTO_TCP or IPPROTO_UDP
 * @flags: 0, or BPF_ITER_NETNS_SOCK_SKIP_LISTEN for IPPROTO_TCP
 *
 * Return: 0, -EINVAL for an unknown protocol or a flag it does not take,
 * -ENOMEM; the same as bpf_iter_netns_sock_err() then returns.
 */
__bpf_kfunc int bpf_iter_netns_sock_new(struct bpf_iter_netns_sock *it,
					struct net *net, int protocol,
					unsigned int flags)
{
	struct bpf_iter_netns_sock_kern *kit = (void *)it;
	unsigned int bad_flags;

	BUILD_BUG_ON(sizeof(*kit) > sizeof(*it));
	BUILD_BUG_ON(__alignof__(*kit) != __alignof__(*it));
	BTF_TYPE_EMIT_ENUM(BPF_ITER_NETNS_SOCK_SKIP_LISTEN);

	memset(kit, 0, sizeof(*kit));
	kit->protocol = protocol;
	if (protocol == IPPROTO_TCP)
		bad_flags = flags & ~BPF_ITER_NETNS_SOCK_SKIP_LISTEN;
	else if (protocol == IPPROTO_UDP)
		bad_flags = flags;
	else
		bad_flags = ~0U;
	if (bad_flags)
		kit->err = -EINVAL;
	else if (protocol == IPPROTO_TCP)
		kit->tcp = bpf_tcp_sock_walk_new(net, flags);
	else
		kit->udp = bpf_udp_sock_walk_new(net);
	if (!kit->err && !kit->walk)
		kit->err = -ENOMEM;
	return kit->err;
}

/**
 * bpf_iter_netns_sock_next() - the next socket of the walk
 * @it: iterator state
 *
 * Releases the socket the previous call returned.  The socket it returns
 * is held, unlocked, until the following call or destroy, and is untrusted
 * for the program: read-only, and never a trusted argument.
 * It has its cookie, so that the program can read it.  A socket unhashed
 * before the walk reaches it is skipped.
 *
 * Context: a sleepable program with no lock held; takes and drops one
 * bucket lock at a time.
 *
 * Return: a referenced socket, or NULL at the end of the walk or when a
 * bucket could not be batched; bpf_iter_netns_sock_err() tells which.
 */
__bpf_kfunc struct sock_common *
bpf_iter_netns_sock_next(struct bpf_iter_netns_sock *it)
{
	struct bpf_iter_netns_sock_kern *kit = (void *)it;
	struct sock *sk;

	if (!kit->walk)
		return NULL;
	/* A walk in a program's loop is one read(): let it be killed. */
	if (fatal_signal_pending(current)) {
		kit->err = -EINTR;
		netns_sock_walk_end(kit);
		return NULL;
	}
	do {
		cond_resched();
		if (kit->protocol == IPPROTO_TCP)
			sk = bpf_tcp_sock_walk_next(kit->tcp);
		else
			sk = bpf_udp_sock_walk_next(kit->udp);
	} while (!IS_ERR_OR_NULL(sk) && sk_unhashed(sk));

	if (IS_ERR_OR_NULL(sk)) {
		kit->err = PTR_ERR_OR_ZERO(sk);
		netns_sock_walk_end(kit);
		return NULL;
	}
	sock_gen_cookie(sk);
	kit->sk = sk;
	return (struct sock_common *)sk;
}

/**
 * bpf_iter_netns_sock_destroy() - end a walk, releasing what it holds
 * @it: iterator state
 */
__bpf_kfunc void bpf_iter_netns_sock_destroy(struct bpf_iter_netns_sock *it)
{
	netns_sock_walk_end((void *)it);
}

/**
 * bpf_iter_netns_sock_err() - why a walk ended
 * @it__iter: an iterator whose next() returned NULL
 *
 * Return: 0 if the walk saw every socket of the namespace, else the error
 * that ended it early (-ENOMEM: a bucket could not be batched; -EINTR: the
 * task was killed), so that a program can tell a truncated walk from a
 * complete one.
 */
__bpf_kfunc int bpf_iter_netns_sock_err(struct bpf_iter_netns_sock *it__iter)
{
	struct bpf_iter_netns_sock_kern *kit = (void *)it__iter;

	return kit->err;
}

/**
 * bpf_iter_netns_sock_abort() - destroy the socket the walk is at
 * @it__iter: an active iterator
 *
 * bpf_sock_destroy_unlocked() on the socket the last
 * bpf_iter_netns_sock_next() returned: TCP and UDP only, and the owner
 * sees ECONNABORTED, as with sock_diag's SOCK_DESTROY.
 *
 * Context: a sleepable program with no socket lock held; sleeps.
 *
 * Return: 0; -ENOENT if the walk is at no socket, or its socket was
 * unhashed meanwhile; else what bpf_sock_destroy_unlocked() returns.
 */
__bpf_kfunc int bpf_iter_netns_sock_abort(struct bpf_iter_netns_sock *it__iter)
{
	struct bpf_iter_netns_sock_kern *kit = (void *)it__iter;

	if (!kit->sk)
		return -ENOENT;
	return bpf_sock_destroy_unlocked(kit->sk, false);
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(netns_sock_kfunc_ids)
BTF_ID_FLAGS(func, bpf_iter_netns_sock_new, KF_ITER_NEW | KF_SLEEPABLE)
BTF_ID_FLAGS(func, bpf_iter_netns_sock_next,
	     KF_ITER_NEXT | KF_RET_NULL | KF_RET_UNTRUSTED | KF_SLEEPABLE)
BTF_ID_FLAGS(func, bpf_iter_netns_sock_destroy, KF_ITER_DESTROY | KF_SLEEPABLE)
BTF_ID_FLAGS(func, bpf_iter_netns_sock_err)
BTF_ID_FLAGS(func, bpf_iter_netns_sock_abort, KF_SLEEPABLE)
BTF_KFUNCS_END(netns_sock_kfunc_ids)

BTF_ID_LIST_SINGLE(bpf_iter_netns_btf_ids, func, bpf_iter_netns)

/*
 * Only iter.s/netns programs: they run from read() with no lock held and
 * are handed the trusted namespace to walk.  Other sleepable iterators
 * run with locks held (iter.s/task_vma holds mmap_lock, which ranks below
 * the socket lock that bpf_iter_netns_sock_abort() takes).
 */
static int netns_sock_kfunc_filter(const struct bpf_prog *prog, u32 kfunc_id)
{
	if (btf_id_set8_contains(&netns_sock_kfunc_ids, kfunc_id) &&
	    !bpf_prog_is_iter_of(prog, bpf_iter_netns_btf_ids[0]))
		return -EACCES;
	return 0;
}

static const struct btf_kfunc_id_set netns_sock_kfunc_set = {
	.owner	= THIS_MODULE,
	.set	= &netns_sock_kfunc_ids,
	.filter	= netns_sock_kfunc_filter,
};

static int __init netns_sock_iter_init(void)
{
	return register_btf_kfunc_id_set(BPF_PROG_TYPE_TRACING,
					 &netns_sock_kfunc_set);
}
late_initcall(netns_sock_iter_init);
