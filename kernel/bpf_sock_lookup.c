// SPDX-License-Identifier: GPL-2.0-only
/*
 * Targeted socket destruction for SEC("syscall") programs: a TCP or UDP
 * socket looked up by its tuple in a network namespace named by cookie,
 * held by reference, and destroyed with its lock taken, which sleeps.
 * The program keeps the tuples it may want to destroy (in a map, a list,
 * an rbtree or an arena) and looks up only those, instead of walking
 * every socket of every namespace.
 *
 * Privilege, judged with the credentials of the task that runs the
 * program through BPF_PROG_RUN: the namespace must be in its reach, the
 * rule of every BPF path that finds a namespace without a handle on it
 * (bpf_netns_scope_init()); the destroy, as sock_diag's SOCK_DESTROY,
 * also needs CAP_NET_ADMIN over the socket's namespace.  A BPF token the
 * program was loaded with is not consulted: it says what a user namespace
 * may load, and each run reaches what its runner may.  BPF_PROG_RUN
 * gives the program a run context; its async callbacks run without one,
 * in another task (bpf_wq, bpf_task_work), and the lookup and the
 * destroy refuse them.  bpf_timer callbacks cannot sleep, so cannot call
 * those two at all.
 *
 * Locking: the lookup takes RCU for the namespace tree and the socket
 * hash tables; the destroy takes the lock of a full socket.  Nothing is
 * held between calls but the references on the socket and its namespace.
 *
 * Limits: a socket bound to a device is found only by its ifindex, as
 * sock_diag finds it; a UDP socket only when connected to exactly that
 * tuple; an IPv4-mapped IPv6 socket by its IPv4 tuple.
 */
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/nstree.h>
#include <linux/sock_diag.h>
#include <net/inet6_hashtables.h>
#include <net/inet_hashtables.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/udp.h>

/* Whether UDP socket @sk is connected to exactly @t. */
static bool udp_sock_has_tuple(const struct sock *sk,
			       const struct bpf_sock_tuple *t, bool v4)
{
	if (sk->sk_state != TCP_ESTABLISHED)
		return false;
	if (v4)
		return sk->sk_daddr == t->ipv4.saddr &&
		       sk->sk_dport == t->ipv4.sport &&
		       sk->sk_rcv_saddr == t->ipv4.daddr &&
		       sk->sk_num == ntohs(t->ipv4.dport);
#if IS_ENABLED(CONFIG_IPV6)
	return sk->sk_family == AF_INET6 && sk->sk_dport == t->ipv6.sport &&
	       sk->sk_num == ntohs(t->ipv6.dport) &&
	       ipv6_addr_equal(&sk->sk_v6_daddr,
			       (const struct in6_addr *)t->ipv6.saddr) &&
	       ipv6_addr_equal(&sk->sk_v6_rcv_saddr,
			       (const struct in6_addr *)t->ipv6.daddr);
#else
	return false;
#endif
}

/**
 * struct bpf_sock_lookup_opts - what bpf_sock_lookup_netns() looks for
 * @error: out: 0 with a socket, else why there is none
 * @ifindex: the device the socket is bound to, 0 for none: passed as the
 *	incoming device, as sock_diag passes idiag_if, so that a socket
 *	bound to no device is found whatever it is, and may be returned
 *	before one bound to @ifindex that has the same tuple
 * @l4proto: IPPROTO_TCP or IPPROTO_UDP
 * @reserved: 0
 */
struct bpf_sock_lookup_opts {
	s32 error;
	u32 ifindex;
	u8 l4proto;
	u8 reserved[3];
};

enum {
	BPF_SOCK_LOOKUP_OPTS_SZ = 12,
};

static_assert(sizeof(struct bpf_sock_lookup_opts) == BPF_SOCK_LOOKUP_OPTS_SZ);

/* The socket of @t in @net, referenced, or NULL.  Under RCU. */
static struct sock *sock_lookup_tuple(struct net *net,
				      const struct bpf_sock_tuple *t, bool v4,
				      const struct bpf_sock_lookup_opts *opts)
{
	int dif = opts->ifindex;
	struct sock *sk;

	if (opts->l4proto == IPPROTO_TCP && v4)
		return __inet_lookup_established(net, t->ipv4.saddr,
						 t->ipv4.sport, t->ipv4.daddr,
						 ntohs(t->ipv4.dport), dif, 0);
	if (v4) {
		sk = __udp4_lib_lookup(net, t->ipv4.saddr, t->ipv4.sport,
				       t->ipv4.daddr, t->ipv4.dport, dif, 0,
				       NULL);
	} else {
#if IS_ENABLED(CONFIG_IPV6)
		const struct in6_addr *saddr = (void *)t->ipv6.saddr;
		const struct in6_addr *daddr = (void *)t->ipv6.daddr;

		if (opts->l4proto == IPPROTO_TCP)
			return __inet6_lookup_established(net, saddr,
							  t->ipv6.sport, daddr,
							  ntohs(t->ipv6.dport),
							  dif, 0);
		sk = __udp6_lib_lookup(net, saddr, t->ipv6.sport, daddr,
				       t->ipv6.dport, dif, 0, NULL);
#else
		return NULL;
#endif
	}
	/*
	 * UDP sockets are freed after a grace period, not referenced.  With
	 * no connected socket of @t, the lookup runs @net's sk_lookup
	 * programs, which may select a socket of another namespace: the
	 * release puts the namespace of the socket, not @net.
	 */
	if (!sk || !udp_sock_has_tuple(sk, t, v4) ||
	    !refcount_inc_not_zero(&sk->sk_refcnt))
		return NULL;
	if (!net_eq(sock_net(sk), net)) {
		sock_put(sk);
		return NULL;
	}
	return sk;
}

__bpf_kfunc_start_defs();

/**
 * bpf_sock_lookup_netns() - a connected TCP or UDP socket by its tuple
 * @netns_cookie: the namespace's cookie (SO_NETNS_COOKIE)
 * @tuple: addresses and ports in network order, as bpf_sk_lookup_tcp()
 *	takes them: saddr and sport the peer's, daddr and dport the socket's
 * @tuple__sz: sizeof(tuple->ipv4) or sizeof(tuple->ipv6)
 * @opts: the protocol and device, and the error out
 * @opts__sz: sizeof(*opts), BPF_SOCK_LOOKUP_OPTS_SZ
 *
 * TCP: a socket of the established hash, in any state but listening and
 * closed, request and TIME_WAIT sockets included.  UDP: a socket
 * connected to exactly @tuple; the namespace's sk_lookup programs run,
 * as for a datagram received, when no connected socket has it.  The
 * socket, and with it its namespace, stays referenced until
 * bpf_sock_release().  It has its cookie, so that the program can read it
 * and tell a socket it recorded from another that reuses the tuple.
 *
 * Return: the socket, or NULL with @opts->error set (unless @opts__sz is
 * wrong): -EINVAL for bad arguments; -EAFNOSUPPORT for an IPv6 tuple
 * without IPv6; -EPERM with no caller (an async callback); -ENOENT for no
 * such socket, or a namespace that does not exist, is dying or is out of
 * the caller's reach (alike, so that a caller cannot probe others'
 * namespaces).
 */
__bpf_kfunc struct sock_common *
bpf_sock_lookup_netns(u64 netns_cookie, struct bpf_sock_tuple *tuple,
		      u32 tuple__sz, struct bpf_sock_lookup_opts *opts,
		      u32 opts__sz)
{
	bool v4 = tuple__sz == sizeof(tuple->ipv4);
	struct bpf_netns_scope scope;
	struct sock *sk = NULL;
	struct ns_common *ns;
	struct net *net;

	if (opts__sz != BPF_SOCK_LOOKUP_OPTS_SZ)
		return NULL;
	if ((!v4 && tuple__sz != sizeof(tuple->ipv6)) || opts->ifindex > INT_MAX ||
	    (opts->l4proto != IPPROTO_TCP && opts->l4proto != IPPROTO_UDP) ||
	    opts->reserved[0] || opts->reserved[1] || opts->reserved[2]) {
		opts->error = -EINVAL;
		return NULL;
	}
	if (!v4 && !ipv6_mod_enabled()) {
		opts->error = -EAFNOSUPPORT;
		return NULL;
	}
	if (!has_current_bpf_ctx()) {
		opts->error = -EPERM;
		return NULL;
	}

	bpf_netns_scope_init(&scope);
	rcu_read_lock();
	ns = ns_tree_lookup_rcu(netns_cookie, CLONE_NEWNET);
	net = ns ? to_net_ns(ns) : NULL;
	if (net && bpf_netns_scope_has(&scope, net) && maybe_get_net(net)) {
		sk = sock_lookup_tuple(net, tuple, v4, opts);
		if (sk)
			sock_gen_cookie(sk);
		else
			put_net(net);
	}
	rcu_read_unlock();
	opts->error = sk ? 0 : -ENOENT;
	return (struct sock_common *)sk;
}

/**
 * bpf_sock_release() - release what bpf_sock_lookup_netns() returned
 * @sock: the socket
 *
 * Drops the namespace reference the lookup took with the socket's: the
 * verifier pairs a release with its acquire by reference only, so no
 * other kfunc that returns a struct sock_common to syscall programs may
 * be KF_ACQUIRE without taking the same two references.
 */
__bpf_kfunc void bpf_sock_release(struct sock_common *sock)
{
	struct sock *sk = (struct sock *)sock;
	struct net *net = sock_net(sk);

	sock_gen_put(sk);
	put_net(net);
}

/**
 * bpf_sock_destroy_sleepable() - destroy a socket, taking its lock
 * @sock: a socket from bpf_sock_lookup_netns()
 *
 * bpf_sock_destroy_unlocked(): the owner sees ECONNABORTED, as with
 * sock_diag's SOCK_DESTROY; a request socket is dropped, a TIME_WAIT one
 * descheduled.  A socket that is no longer a connection once locked (made
 * a listener, a UDP socket disconnected) is left alone.  A socket whose
 * owner disconnected it and connected it elsewhere since the lookup is
 * destroyed all the same, as SOCK_DESTROY, which also looks the socket
 * up first, would destroy it.
 *
 * Context: the program's own run, no socket lock held; sleeps.
 *
 * Return: 0; -EPERM without CAP_NET_ADMIN over the socket's namespace, or
 * with no caller (an async callback); else what
 * bpf_sock_destroy_unlocked() returns.
 */
__bpf_kfunc int bpf_sock_destroy_sleepable(struct sock_common *sock)
{
	struct sock *sk = (struct sock *)sock;

	if (!has_current_bpf_ctx() ||
	    !ns_capable(sock_net(sk)->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	return bpf_sock_destroy_unlocked(sk, true);
}

__bpf_kfunc_end_defs();

/*
 * The lookup does not sleep, but KF_SLEEPABLE keeps it from bpf_timer
 * callbacks: one may interrupt a task in BPF_PROG_RUN, and see its run
 * context and its credentials.
 */
BTF_KFUNCS_START(bpf_sock_lookup_kfunc_ids)
BTF_ID_FLAGS(func, bpf_sock_lookup_netns,
	     KF_ACQUIRE | KF_RET_NULL | KF_SLEEPABLE)
BTF_ID_FLAGS(func, bpf_sock_release, KF_RELEASE)
BTF_ID_FLAGS(func, bpf_sock_destroy_sleepable, KF_SLEEPABLE)
BTF_KFUNCS_END(bpf_sock_lookup_kfunc_ids)

static const struct btf_kfunc_id_set bpf_sock_lookup_kfunc_set = {
	.owner	= THIS_MODULE,
	.set	= &bpf_sock_lookup_kfunc_ids,
};

static int __init bpf_sock_lookup_init(void)
{
	return register_btf_kfunc_id_set(BPF_PROG_TYPE_SYSCALL,
					 &bpf_sock_lookup_kfunc_set);
}
late_initcall(bpf_sock_lookup_init);
