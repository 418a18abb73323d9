// SPDX-License-Identifier: GPL-2.0-only
/*
 * Network namespace argument of the tcp and udp BPF iterators:
 * union bpf_iter_link_info.sock names, by nsfs fd or by netns cookie, the
 * namespace an iter/tcp or iter/udp link walks, for whichever task creates
 * the iterator and may walk it too; with neither, the walk is that of the
 * iterator's creator's namespace, as before.  The link holds a passive
 * reference, so a pinned link does not keep a dead namespace alive: an
 * iterator created from it once the namespace has started to die fails
 * with -ENOENT.  Resolving the argument takes RCU for the namespace tree
 * and no other lock; the walk itself is the tcp and udp iterators'.
 */
#include <linux/bpf.h>
#include <linux/capability.h>
#include <linux/nstree.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>
#include <net/sock_iter_netns_arg.h>

/*
 * Whether the current task may walk @net: it is in its scope
 * (bpf_netns_scope_init()), or the task could setns() into it.
 */
static bool bpf_sock_iter_may_walk(struct net *net)
{
	struct bpf_netns_scope scope;

	bpf_netns_scope_init(&scope);
	return bpf_netns_scope_has(&scope, net) ||
	       (ns_capable(net->user_ns, CAP_SYS_ADMIN) &&
		ns_capable(current_user_ns(), CAP_SYS_ADMIN));
}

/*
 * The namespace a link names, referenced.  By cookie, only one in the
 * caller's scope, and -ENOENT alike for one that does not exist and one
 * that is not the caller's to see.  By nsfs file, which the caller could
 * setns() with, also one it may setns() into.
 */
static struct net *bpf_sock_iter_get_net(u32 fd, u64 cookie)
{
	struct bpf_netns_scope scope;
	struct ns_common *ns;
	struct net *net;

	if (fd) {
		net = get_net_ns_by_fd(fd);
		if (IS_ERR(net) || bpf_sock_iter_may_walk(net))
			return net;
		put_net(net);
		return ERR_PTR(-EPERM);
	}

	bpf_netns_scope_init(&scope);

	rcu_read_lock();
	ns = ns_tree_lookup_rcu(cookie, CLONE_NEWNET);
	net = ns ? to_net_ns(ns) : NULL;
	if (net && !bpf_netns_scope_has(&scope, net))
		net = NULL;
	net = net ? maybe_get_net(net) : NULL;
	rcu_read_unlock();
	return net ?: ERR_PTR(-ENOENT);
}

int bpf_sock_iter_attach_target(struct bpf_prog *prog,
				union bpf_iter_link_info *linfo,
				struct bpf_iter_aux_info *aux)
{
	u64 cookie = linfo->sock.netns_cookie;
	u32 fd = linfo->sock.netns_fd;
	struct net *net;

	if (linfo->sock.flags || (fd && cookie))
		return -EINVAL;
	if (!fd && !cookie)
		return 0;

	net = bpf_sock_iter_get_net(fd, cookie);
	if (IS_ERR(net))
		return PTR_ERR(net);
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
	if (aux->sock.net)
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
 * bpf_sock_iter_init_seq_net() - reference the namespace an iterator walks
 * @priv_data: iterator state, starting with struct seq_net_private
 * @aux: the link's parameters
 *
 * The link's creator was allowed the namespace; so must be the task that
 * creates an iterator from the link, as it would be with setns() and the
 * plain iterator, or a pinned link would hand its namespace to anyone who
 * may open the file.
 *
 * Return: 0, -ENOENT if the namespace the link names is dying, -EPERM if
 * the current task may not walk it.
 */
int bpf_sock_iter_init_seq_net(void *priv_data, struct bpf_iter_aux_info *aux)
{
	struct seq_net_private *p = priv_data;
	struct net *net;

	if (!aux->sock.net)
		return bpf_iter_init_seq_net(priv_data, aux);
	net = maybe_get_net(aux->sock.net);
	if (!net)
		return -ENOENT;
	if (!bpf_sock_iter_may_walk(net)) {
		put_net(net);
		return -EPERM;
	}
	p->net = net;
	netns_tracker_alloc(net, &p->ns_tracker, GFP_KERNEL);
	return 0;
}
