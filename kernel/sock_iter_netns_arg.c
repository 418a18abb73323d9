// SPDX-License-Identifier: GPL-2.0-only
/*
 * Network namespace parameter of the tcp and udp BPF iterators, and an
 * open-coded iterator over the sockets of one network namespace.
 *
 * Semantics.  union bpf_iter_link_info.sock selects what an iter/tcp or
 * iter/udp link walks:
 *  - nothing set: the network namespace of the task that creates the
 *    iterator (opens the pinned file or calls BPF_ITER_CREATE), as before;
 *  - netns_fd (an nsfs file, or /proc/PID/ns/net) or netns_cookie (the
 *    netns cookie, SO_NETNS_COOKIE): that namespace, whichever task reads;
 *    giving both is -EINVAL, fd 0 means "no fd" as for cgroup_fd;
 *  - flags = BPF_SOCK_ITER_ALL_NETNS: every socket of every namespace, in
 *    one pass (the "whole-host" walk); the program filters by sock_net().
 *    It first walks the shared tables (tcp_hashinfo, udp_table) without a
 *    namespace filter, including every listener, which always lives in
 *    the shared listening hash; then the established hash of each
 *    namespace with its own tcp table (tcp_child_ehash_entries) and the
 *    table of each namespace with its own udp table
 *    (udp_child_hash_entries), in namespace id order.  Each socket is in
 *    exactly one of those tables, so it is visited once.
 *
 * Privilege.  Naming a namespace needs what setns() into it needs:
 * CAP_SYS_ADMIN in the user namespace that owns it and in the caller's own
 * user namespace.  The whole-host walk needs CAP_NET_ADMIN or CAP_SYS_ADMIN
 * in the initial user namespace.  Both are checked when the link is created.
 *
 * Lifetime.  The link holds a passive reference on a named namespace, so a
 * pinned link does not keep a dead pod's namespace and its sockets alive.
 * Creating an iterator from the link takes a full reference, or fails with
 * -ENOENT once the namespace has started to die; so does creating a link
 * with a cookie no live namespace has.  fill_link_info() and show_fdinfo()
 * report the cookie and the flags.
 *
 * Chained walk.  bpf_iter_netns_sock_{new,next,destroy}() is an open-coded
 * iterator over the TCP (listening, established, TIME_WAIT and request
 * sockets, IPv4 and IPv6) or UDP sockets of one namespace, for the
 * struct net an iter/netns program was handed: listeners from the shared
 * listening hash, filtered by namespace, then the namespace's established
 * hash or UDP table, its own table if it has one, else the shared one
 * filtered by namespace.  bpf_iter_netns_sock_abort() destroys the socket
 * the iterator holds, as bpf_sock_destroy() does from iter/tcp.  A TCP walk
 * with BPF_ITER_NETNS_SOCK_SKIP_LISTEN leaves listeners out, and so never
 * scans the shared listening hash, whose size does not depend on the
 * namespace: on a namespace with its own established hash, a walk for
 * connected sockets only, such as socket termination needs, then costs
 * what that table holds and no more.
 *
 * Locking.  Resolving the argument and moving the whole-host walk to the
 * next table take no lock but RCU for the namespace tree; they run between
 * buckets, with no bucket lock held.  Sockets are batched, referenced and
 * locked by the tcp and udp iterators exactly as without the parameter.
 * The chained walk batches one bucket at a time under the bucket lock,
 * taking a reference on each socket, and drops the bucket lock before
 * handing them out.  The socket next() returns is referenced, and locked
 * with lock_sock() if it is a full socket, until the following next() or
 * destroy(); one unhashed meanwhile is skipped, as iter/tcp does.
 * lock_sock() sleeps, so the kfuncs are for sleepable (iter.s/netns)
 * programs only, and only for iterator programs, which run from read() with
 * no lock held.
 *
 * Verifier.  next() is KF_ITER_RET_SCOPED: the verifier invalidates every
 * copy of the socket it returned at the following next() or destroy(), so
 * a program cannot touch a socket the iterator no longer holds.  The
 * destroy path is bpf_iter_netns_sock_abort(), which acts on the iterator
 * and so only ever on the socket it holds locked; bpf_sock_destroy(),
 * which trusts its caller to hold the lock, net/core/filter.c keeps to
 * iter/tcp and iter/udp.  The kfuncs are for sleepable iterator programs
 * only, and the iterator must be destroyed (KF_ITER_NEW/DESTROY).
 *
 * Limits.  A namespace created during a whole-host walk is walked only if
 * its id is above the last namespace whose own table the walk started.  A
 * bucket that cannot be batched for lack of memory ends the walk early.
 */
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/nstree.h>
#include <linux/seq_file.h>
#include <linux/udp.h>
#include <net/inet_hashtables.h>
#include <net/net_namespace.h>
#include <net/sock_iter_netns_arg.h>
#include <net/tcp.h>
#include <net/udp.h>

static struct net *bpf_sock_iter_get_net(u32 fd, u64 cookie)
{
	struct ns_common *ns;
	struct net *net;

	if (fd)
		return get_net_ns_by_fd(fd);

	rcu_read_lock();
	ns = ns_tree_lookup_rcu(cookie, CLONE_NEWNET);
	net = ns ? maybe_get_net(to_net_ns(ns)) : NULL;
	rcu_read_unlock();
	return net ?: ERR_PTR(-ENOENT);
}

int bpf_sock_iter_attach_target(struct bpf_prog *prog,
				union bpf_iter_link_info *linfo,
				struct bpf_iter_aux_info *aux)
{
	u64 cookie = linfo->sock.netns_cookie;
	u32 flags = linfo->sock.flags;
	u32 fd = linfo->sock.netns_fd;
	struct net *net;

	if (flags & ~BPF_SOCK_ITER_ALL_NETNS)
		return -EINVAL;
	if (flags & BPF_SOCK_ITER_ALL_NETNS) {
		if (fd || cookie)
			return -EINVAL;
		if (!capable(CAP_NET_ADMIN) && !capable(CAP_SYS_ADMIN))
			return -EPERM;
		aux->sock.flags = flags;
		return 0;
	}
	if (fd && cookie)
		return -EINVAL;
	if (!fd && !cookie)
		return 0;

	net = bpf_sock_iter_get_net(fd, cookie);
	if (IS_ERR(net))
		return PTR_ERR(net);
	if (!ns_capable(net->user_ns, CAP_SYS_ADMIN) ||
	    !ns_capable(current_user_ns(), CAP_SYS_ADMIN)) {
		put_net(net);
		return -EPERM;
	}
	net_passive_inc(net);
	put_net(net);
	aux->sock.net = net;
	return 0;
}

void bpf_sock_iter_detach_target(struct bpf_iter_aux_info *aux)
{
	if (aux->sock.net)
		net_passive_dec(aux->sock.net);
}

void bpf_sock_iter_show_fdinfo(const struct bpf_iter_aux_info *aux,
			       struct seq_file *seq)
{
	if (aux->sock.flags & BPF_SOCK_ITER_ALL_NETNS)
		seq_puts(seq, "netns:\tall\n");
	else if (aux->sock.net)
		seq_printf(seq, "netns_cookie:\t%llu\n", aux->sock.net->net_cookie);
}

int bpf_sock_iter_fill_link_info(const struct bpf_iter_aux_info *aux,
				 struct bpf_link_info *info)
{
	info->iter.sock.netns_cookie = aux->sock.net ?
				       aux->sock.net->net_cookie : 0;
	info->iter.sock.flags = aux->sock.flags;
	return 0;
}

/**
 * bpf_sock_iter_init_seq_net() - pick the namespace an iterator walks first
 * @priv_data: iterator state, starting with struct seq_net_private
 * @aux: the link's parameters
 * @it: namespace state of the iterator
 *
 * Return: 0, or -ENOENT if the namespace the link names is dying.
 */
int bpf_sock_iter_init_seq_net(void *priv_data, struct bpf_iter_aux_info *aux,
			       struct bpf_sock_iter_netns *it)
{
	struct seq_net_private *p = priv_data;
	struct net *net;

	it->all = aux->sock.flags & BPF_SOCK_ITER_ALL_NETNS;
	it->last_id = 0;
	if (it->all) {
		net = get_net(&init_net);
	} else if (aux->sock.net) {
		net = maybe_get_net(aux->sock.net);
		if (!net)
			return -ENOENT;
	} else {
		net = get_net(current->nsproxy->net_ns);
	}
	p->net = net;
	netns_tracker_alloc(net, &p->ns_tracker, GFP_KERNEL);
	return 0;
}

/**
 * bpf_sock_iter_next_table() - move a whole-host walk to the next own table
 * @seq: the iterator, its private data starting with struct seq_net_private
 * @it: namespace state of the iterator
 * @own_table: whether a namespace has a table of its own for this protocol
 *
 * Called with no bucket lock held when the current table is exhausted.
 * Swaps the iterator's namespace for the next one, in id order, that has
 * its own table.
 *
 * Return: true if there is such a namespace; the caller restarts its walk
 * at the first bucket.
 */
bool bpf_sock_iter_next_table(struct seq_file *seq,
			      struct bpf_sock_iter_netns *it,
			      bool (*own_table)(const struct net *net))
{
	struct seq_net_private *p = seq->private;
	struct net *net = NULL;
	struct ns_common *ns;

	if (!it->all)
		return false;

	rcu_read_lock();
	ns = ns_tree_lookup_after_rcu(it->last_id, CLONE_NEWNET);
	while (!IS_ERR_OR_NULL(ns)) {
		struct net *cand = to_net_ns(ns);

		it->last_id = ns->ns_id;
		if (own_table(cand) && maybe_get_net(cand)) {
			net = cand;
			break;
		}
		ns = ns_tree_adjoined_rcu(cand, false);
	}
	rcu_read_unlock();
	if (!net)
		return false;

	put_net_track(p->net, &p->ns_tracker);
	p->net = net;
	netns_tracker_alloc(net, &p->ns_tracker, GFP_KERNEL);
	return true;
}

/* Flags of bpf_iter_netns_sock_new(). */
enum bpf_iter_netns_sock_flags {
	/* TCP only: skip listeners, and the listening hash with them. */
	BPF_ITER_NETNS_SOCK_SKIP_LISTEN	= (1U << 0),
};

/* Open-coded iterator state, opaque to BPF programs. */
struct bpf_iter_netns_sock {
	__u64 __opaque[1];
} __aligned(8);

enum netns_sock_phase {
	NETNS_SOCK_TCP_LISTEN,
	NETNS_SOCK_TCP_EHASH,
	NETNS_SOCK_UDP,
	NETNS_SOCK_DONE,
};

struct netns_sock_kit {
	struct net *net;
	enum netns_sock_phase phase;
	unsigned int bucket;
	unsigned int cur, end, max;
	bool locked;		/* batch[cur] is held with lock_sock() */
	struct sock **batch;
};

#define NETNS_SOCK_BATCH 16

static int netns_sock_grow(struct netns_sock_kit *kit, unsigned int want)
{
	struct sock **batch;

	batch = kvmalloc_array(want, sizeof(*batch), GFP_KERNEL);
	if (!batch)
		return -ENOMEM;
	kvfree(kit->batch);
	kit->batch = batch;
	kit->max = want;
	return 0;
}

static void netns_sock_put_batch(struct netns_sock_kit *kit)
{
	while (kit->cur < kit->end)
		sock_gen_put(kit->batch[kit->cur++]);
	kit->cur = 0;
	kit->end = 0;
}

/* Take a reference on @sk into the batch; count it either way. */
static void netns_sock_add(struct netns_sock_kit *kit, struct sock *sk,
			   unsigned int *seen)
{
	++*seen;
	if (kit->end < kit->max && refcount_inc_not_zero(&sk->sk_refcnt))
		kit->batch[kit->end++] = sk;
}

/* Batch the namespace's sockets of bucket kit->bucket; return how many. */
static unsigned int netns_sock_fill_bucket(struct netns_sock_kit *kit)
{
	struct net *net = kit->net;
	struct hlist_nulls_node *node;
	unsigned int seen = 0;
	struct sock *sk;

	switch (kit->phase) {
	case NETNS_SOCK_TCP_LISTEN: {
		struct inet_hashinfo *hinfo = net->ipv4.tcp_death_row.hashinfo;
		struct inet_listen_hashbucket *ilb2 = &hinfo->lhash2[kit->bucket];

		if (hlist_nulls_empty(&ilb2->nulls_head))
			return 0;
		spin_lock(&ilb2->lock);
		sk_nulls_for_each(sk, node, &ilb2->nulls_head)
			if (net_eq(sock_net(sk), net))
				netns_sock_add(kit, sk, &seen);
		spin_unlock(&ilb2->lock);
		break;
	}
	case NETNS_SOCK_TCP_EHASH: {
		struct inet_hashinfo *hinfo = net->ipv4.tcp_death_row.hashinfo;
		spinlock_t *lock = inet_ehash_lockp(hinfo, kit->bucket);

		if (hlist_nulls_empty(&hinfo->ehash[kit->bucket].chain))
			return 0;
		spin_lock_bh(lock);
		sk_nulls_for_each(sk, node, &hinfo->ehash[kit->bucket].chain)
			if (net_eq(sock_net(sk), net))
				netns_sock_add(kit, sk, &seen);
		spin_unlock_bh(lock);
		break;
	}
	case NETNS_SOCK_UDP: {
		struct udp_hslot *hslot = &net->ipv4.udp_table->hash2[kit->bucket].hslot;

		if (hlist_empty(&hslot->head))
			return 0;
		spin_lock_bh(&hslot->lock);
		udp_portaddr_for_each_entry(sk, &hslot->head)
			if (net_eq(sock_net(sk), net))
				netns_sock_add(kit, sk, &seen);
		spin_unlock_bh(&hslot->lock);
		break;
	}
	case NETNS_SOCK_DONE:
		break;
	}
	return seen;
}

static unsigned int netns_sock_buckets(const struct netns_sock_kit *kit)
{
	const struct net *net = kit->net;

	switch (kit->phase) {
	case NETNS_SOCK_TCP_LISTEN:
		return net->ipv4.tcp_death_row.hashinfo->lhash2_mask + 1;
	case NETNS_SOCK_TCP_EHASH:
		return net->ipv4.tcp_death_row.hashinfo->ehash_mask + 1;
	case NETNS_SOCK_UDP:
		return net->ipv4.udp_table->mask + 1;
	default:
		return 0;
	}
}

/* Refill the empty batch from the next non-empty bucket. */
static bool netns_sock_refill(struct netns_sock_kit *kit)
{
	unsigned int seen;

	while (kit->phase != NETNS_SOCK_DONE) {
		if (kit->bucket >= netns_sock_buckets(kit)) {
			kit->phase = kit->phase == NETNS_SOCK_TCP_LISTEN ?
				     NETNS_SOCK_TCP_EHASH : NETNS_SOCK_DONE;
			kit->bucket = 0;
			continue;
		}
		if (!(kit->bucket % 256))
			cond_resched();
		seen = netns_sock_fill_bucket(kit);
		if (seen > kit->max) {
			/* The bucket outgrew the batch: grow it and redo. */
			netns_sock_put_batch(kit);
			if (netns_sock_grow(kit, seen * 3 / 2)) {
				kit->phase = NETNS_SOCK_DONE;
				break;
			}
			continue;
		}
		kit->bucket++;
		if (kit->end)
			return true;
	}
	return false;
}

static void netns_sock_release_cur(struct netns_sock_kit *kit)
{
	struct sock *sk = kit->batch[kit->cur++];

	if (kit->locked)
		release_sock(sk);
	kit->locked = false;
	sock_gen_put(sk);
}

__bpf_kfunc_start_defs();

/**
 * bpf_iter_netns_sock_new() - start a walk over one namespace's sockets
 * @it: iterator state
 * @net: the namespace, for example the trusted ctx->net of iter.s/netns
 * @protocol: IPPROTO_TCP or IPPROTO_UDP
 * @flags: 0, or BPF_ITER_NETNS_SOCK_SKIP_LISTEN for IPPROTO_TCP
 *
 * Return: 0, -EINVAL for an unknown protocol or a flag it does not take,
 * -ENOMEM.
 */
__bpf_kfunc int bpf_iter_netns_sock_new(struct bpf_iter_netns_sock *it,
					struct net *net, int protocol,
					unsigned int flags)
{
	enum netns_sock_phase phase;
	struct netns_sock_kit *kit;

	BUILD_BUG_ON(sizeof(struct bpf_iter_netns_sock) != sizeof(void *));
	*(void **)it = NULL;
	switch (protocol) {
	case IPPROTO_TCP:
		if (flags & ~BPF_ITER_NETNS_SOCK_SKIP_LISTEN)
			return -EINVAL;
		phase = flags & BPF_ITER_NETNS_SOCK_SKIP_LISTEN ?
			NETNS_SOCK_TCP_EHASH : NETNS_SOCK_TCP_LISTEN;
		break;
	case IPPROTO_UDP:
		if (flags)
			return -EINVAL;
		phase = NETNS_SOCK_UDP;
		break;
	default:
		return -EINVAL;
	}
	kit = kzalloc_obj(*kit, GFP_KERNEL);
	if (!kit)
		return -ENOMEM;
	if (netns_sock_grow(kit, NETNS_SOCK_BATCH)) {
		kfree(kit);
		return -ENOMEM;
	}
	kit->net = get_net(net);
	kit->phase = phase;
	*(void **)it = kit;
	return 0;
}

/**
 * bpf_iter_netns_sock_next() - the next socket, referenced and locked
 * @it: iterator state
 *
 * Releases the socket the previous call returned.
 *
 * Return: a socket, held until the next call or destroy, or NULL.
 */
__bpf_kfunc struct sock_common *
bpf_iter_netns_sock_next(struct bpf_iter_netns_sock *it)
{
	struct netns_sock_kit *kit = *(void **)it;
	struct sock *sk;

	if (!kit)
		return NULL;
	if (kit->cur < kit->end)
		netns_sock_release_cur(kit);
	for (;;) {
		if (kit->cur == kit->end) {
			kit->cur = 0;
			kit->end = 0;
			if (!netns_sock_refill(kit))
				return NULL;
		}
		sk = kit->batch[kit->cur];
		if (sk_fullsock(sk)) {
			lock_sock(sk);
			kit->locked = true;
		}
		if (!sk_unhashed(sk))
			return (struct sock_common *)sk;
		netns_sock_release_cur(kit);
	}
}

/**
 * bpf_iter_netns_sock_destroy() - end a walk, releasing what it holds
 * @it: iterator state
 */
__bpf_kfunc void bpf_iter_netns_sock_destroy(struct bpf_iter_netns_sock *it)
{
	struct netns_sock_kit *kit = *(void **)it;

	if (!kit)
		return;
	if (kit->cur < kit->end)
		netns_sock_release_cur(kit);
	netns_sock_put_batch(kit);
	put_net(kit->net);
	kvfree(kit->batch);
	kfree(kit);
}

/**
 * bpf_iter_netns_sock_abort() - destroy the socket the iterator holds
 * @it__iter: an active iterator
 *
 * Like bpf_sock_destroy() from iter/tcp: the socket's protocol aborts it
 * with ECONNABORTED under the lock the iterator holds.
 *
 * Return: 0, -ENOENT if the iterator holds no socket, -EOPNOTSUPP.
 */
__bpf_kfunc int bpf_iter_netns_sock_abort(struct bpf_iter_netns_sock *it__iter)
{
	struct netns_sock_kit *kit = *(void **)it__iter;
	struct sock *sk;

	if (!kit || kit->cur >= kit->end)
		return -ENOENT;
	sk = kit->batch[kit->cur];
	if (!sk->sk_prot->diag_destroy)
		return -EOPNOTSUPP;
	return sk->sk_prot->diag_destroy(sk, ECONNABORTED);
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(netns_sock_kfunc_ids)
BTF_ID_FLAGS(func, bpf_iter_netns_sock_new, KF_ITER_NEW | KF_SLEEPABLE)
BTF_ID_FLAGS(func, bpf_iter_netns_sock_next,
	     KF_ITER_NEXT | KF_RET_NULL | KF_ITER_RET_SCOPED | KF_SLEEPABLE)
BTF_ID_FLAGS(func, bpf_iter_netns_sock_destroy, KF_ITER_DESTROY | KF_SLEEPABLE)
BTF_ID_FLAGS(func, bpf_iter_netns_sock_abort, KF_SLEEPABLE)
BTF_KFUNCS_END(netns_sock_kfunc_ids)

/* Only iterator programs: they run from read(), with no socket locked. */
static int netns_sock_kfunc_filter(const struct bpf_prog *prog, u32 kfunc_id)
{
	if (btf_id_set8_contains(&netns_sock_kfunc_ids, kfunc_id) &&
	    prog->expected_attach_type != BPF_TRACE_ITER)
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
