// SPDX-License-Identifier: GPL-2.0-only
/*
 * Whole-host walk of the tcp and udp BPF iterators:
 * union bpf_iter_link_info.sock.flags = BPF_SOCK_ITER_ALL_NETNS walks every
 * socket of every network namespace once, and the program filters by
 * sock_net().  It walks the shared tables (tcp_hashinfo, udp_table) with no
 * namespace filter, every listener included, since listeners always live in
 * the shared listening hash; then the established hash of each namespace
 * with its own TCP table, or the table of each one with its own UDP table,
 * in namespace id order.  Moving to the next table takes RCU for the
 * namespace tree, between buckets, with no bucket lock held.  A namespace
 * created during the walk is walked only if its id is above the last one
 * whose table the walk has started.  A socket of the shared tables whose
 * namespace has started to die (check_net()) when the walk batches it is
 * passed over.  BPF_SOCK_ITER_SKIP_LISTEN, which iter/tcp takes, starts
 * the walk past the listening hash, for programs that only want connected
 * sockets.
 */
#include <linux/bpf.h>
#include <linux/nstree.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>
#include <net/sock_iter_all_netns.h>
#include <net/sock_iter_netns_arg.h>

/**
 * bpf_sock_iter_all_attach_target() - check and keep a link's parameters
 * @prog: the iterator program
 * @linfo: the parameters the link's creator passed
 * @aux: where the link keeps them
 * @walk_flags: the flags the iterator's walk takes besides
 *	BPF_SOCK_ITER_ALL_NETNS
 *
 * A whole-host link shows every namespace: its creator must be one that
 * may reach them all (bpf_netns_scope_init()).
 *
 * Return: 0, -EINVAL for a flag the iterator does not take or a namespace
 * named with BPF_SOCK_ITER_ALL_NETNS, -EPERM, or an error of the netns
 * argument.
 */
int bpf_sock_iter_all_attach_target(struct bpf_prog *prog,
				    union bpf_iter_link_info *linfo,
				    struct bpf_iter_aux_info *aux,
				    u32 walk_flags)
{
	struct bpf_netns_scope scope;
	u32 flags = linfo->sock.flags;

	if (!(flags & BPF_SOCK_ITER_ALL_NETNS))
		return bpf_sock_iter_attach_target(prog, linfo, aux);
	if ((flags & ~(BPF_SOCK_ITER_ALL_NETNS | walk_flags)) ||
	    linfo->sock.netns_fd || linfo->sock.netns_cookie)
		return -EINVAL;
	bpf_netns_scope_init(&scope);
	if (!scope.all)
		return -EPERM;
	aux->sock.flags = flags;
	return 0;
}

void bpf_sock_iter_all_show_fdinfo(const struct bpf_iter_aux_info *aux,
				   struct seq_file *seq)
{
	if (!(aux->sock.flags & BPF_SOCK_ITER_ALL_NETNS)) {
		bpf_sock_iter_show_fdinfo(aux, seq);
		return;
	}
	seq_puts(seq, "netns:\tall\n");
	if (aux->sock.flags & BPF_SOCK_ITER_SKIP_LISTEN)
		seq_puts(seq, "listeners:\tskipped\n");
}

/**
 * bpf_sock_iter_all_init_seq_net() - start a walk at its first namespace
 * @priv_data: iterator state, starting with struct seq_net_private
 * @aux: the link's parameters
 * @it: whole-host state of the iterator
 *
 * Return: 0, -ENOENT if the namespace a netns argument names is dying,
 * -EPERM if the current task may not walk what the link names.
 */
int bpf_sock_iter_all_init_seq_net(void *priv_data,
				   struct bpf_iter_aux_info *aux,
				   struct bpf_sock_iter_netns *it)
{
	struct seq_net_private *p = priv_data;
	struct bpf_netns_scope scope;

	it->all = aux->sock.flags & BPF_SOCK_ITER_ALL_NETNS;
	it->last_id = 0;
	if (!it->all)
		return bpf_sock_iter_init_seq_net(priv_data, aux);
	/* Whoever creates an iterator from the link must reach all too. */
	bpf_netns_scope_init(&scope);
	if (!scope.all)
		return -EPERM;
	p->net = get_net_track(&init_net, &p->ns_tracker, GFP_KERNEL);
	return 0;
}

/**
 * bpf_sock_iter_next_table() - move a whole-host walk to the next own table
 * @p: the iterator's namespace
 * @it: whole-host state of the iterator
 * @own_table: whether a namespace has a table of its own for this protocol
 *
 * Called with no bucket lock held when the current table is exhausted.
 * Swaps the iterator's namespace for the next one, in id order, that has
 * its own table.
 *
 * Return: true if there is such a namespace; the caller restarts its walk
 * at the first bucket.
 */
bool bpf_sock_iter_next_table(struct seq_net_private *p,
			      struct bpf_sock_iter_netns *it,
			      bool (*own_table)(const struct net *net))
{
	struct net *net = NULL;
	struct ns_common *ns;

	if (!it->all)
		return false;

	/* Empty own tables of many namespaces can follow each other. */
	cond_resched();
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
