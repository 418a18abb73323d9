// SPDX-License-Identifier: GPL-2.0-only
/*
 * Network namespace parameter of the tcp and udp BPF iterators.
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
 * Locking.  Resolving the argument and moving the whole-host walk to the
 * next table take no lock but RCU for the namespace tree; they run between
 * buckets, with no bucket lock held.  Sockets are batched, referenced and
 * locked by the tcp and udp iterators exactly as without the parameter.
 *
 * Limits.  A namespace created during a whole-host walk is walked only if
 * its id is above the last namespace whose own table the walk started.
 */
#include <linux/bpf.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/nstree.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>
#include <net/sock_iter_netns_arg.h>

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
