// SPDX-License-Identifier: GPL-2.0-only
/*
 * BPF iterator over network namespaces: the "netns" target (iter/netns,
 * iter.s/netns).  It takes no parameter.
 *
 * A walk visits the live network namespaces the iterator's creator may
 * reach (bpf_netns_scope_init(), judged when it creates the iterator) in
 * namespace id order, the order of kernel/nstree.c; a namespace that
 * lives through the walk is listed once.  The walk holds a reference on
 * the namespace it hands out and no lock, and resumes by id after a
 * partial read.  As in every BPF iterator, a namespace whose output
 * overflows the seq_file buffer runs again on the next read(), with the
 * same meta->seq_num; one whose output alone overflows it fails one
 * read() with -E2BIG and is passed over.
 */
#include <linux/bpf.h>
#include <linux/btf_ids.h>
#include <linux/nstree.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>

struct bpf_iter_seq_netns_info {
	struct bpf_netns_scope scope;
	u64 last_id;
};

/*
 * First namespace of @scope at or after @ns in id order, referenced;
 * namespaces whose count already dropped to zero are skipped.  Called
 * under rcu_read_lock().
 */
static struct net *netns_iter_scan(struct ns_common *ns,
				   const struct bpf_netns_scope *scope)
{
	while (!IS_ERR_OR_NULL(ns)) {
		struct net *net = to_net_ns(ns);

		if (bpf_netns_scope_has(scope, net) && maybe_get_net(net))
			return net;
		ns = ns_tree_adjoined_rcu(net, false);
	}
	return NULL;
}

static struct net *netns_iter_get_after(struct bpf_iter_seq_netns_info *info)
{
	struct net *net;

	rcu_read_lock();
	net = netns_iter_scan(ns_tree_lookup_after_rcu(info->last_id,
						       CLONE_NEWNET),
			      &info->scope);
	rcu_read_unlock();
	return net;
}

static void *netns_iter_seq_start(struct seq_file *seq, loff_t *pos)
{
	return netns_iter_get_after(seq->private);
}

/*
 * @v is referenced, so still in the tree: go on from it without a lookup,
 * which would take the namespace tree's lock for every namespace.
 */
static void *netns_iter_seq_next(struct seq_file *seq, void *v, loff_t *pos)
{
	struct bpf_iter_seq_netns_info *info = seq->private;
	struct net *net = v, *next;

	++*pos;
	info->last_id = net->ns.ns_id;
	rcu_read_lock();
	next = netns_iter_scan(ns_tree_adjoined_rcu(net, false), &info->scope);
	rcu_read_unlock();
	put_net(net);
	return next;
}

struct bpf_iter__netns {
	__bpf_md_ptr(struct bpf_iter_meta *, meta);
	__bpf_md_ptr(struct net *, net);
};

DEFINE_BPF_ITER_FUNC(netns, struct bpf_iter_meta *meta, struct net *net)

static int __netns_iter_seq_show(struct seq_file *seq, struct net *net,
				 bool in_stop)
{
	struct bpf_iter_meta meta = { .seq = seq };
	struct bpf_iter__netns ctx = { .meta = &meta, .net = net };
	struct bpf_prog *prog;

	prog = bpf_iter_get_info(&meta, in_stop);
	return prog ? bpf_iter_run_prog(prog, &ctx) : 0;
}

/*
 * A namespace whose output does not fit in an empty buffer fails the read
 * with -E2BIG; resume after it, or every read would fail the same way.
 */
static int netns_iter_seq_show(struct seq_file *seq, void *v)
{
	struct bpf_iter_seq_netns_info *info = seq->private;
	bool first = !seq->count;
	struct net *net = v;
	int err;

	err = __netns_iter_seq_show(seq, net, false);
	if (!err && first && seq_has_overflowed(seq))
		info->last_id = net->ns.ns_id;
	return err;
}

static void netns_iter_seq_stop(struct seq_file *seq, void *v)
{
	if (!v)
		(void)__netns_iter_seq_show(seq, NULL, true);
	else
		put_net(v);
}

static int netns_iter_init(void *priv, struct bpf_iter_aux_info *aux)
{
	struct bpf_iter_seq_netns_info *info = priv;

	bpf_netns_scope_init(&info->scope);
	info->last_id = 0;
	return 0;
}

static const struct seq_operations netns_iter_seq_ops = {
	.start	= netns_iter_seq_start,
	.next	= netns_iter_seq_next,
	.stop	= netns_iter_seq_stop,
	.show	= netns_iter_seq_show,
};

static const struct bpf_iter_seq_info netns_iter_seq_info = {
	.seq_ops		= &netns_iter_seq_ops,
	.init_seq_private	= netns_iter_init,
	.seq_priv_size		= sizeof(struct bpf_iter_seq_netns_info),
};

/*
 * The target takes no parameter: refuse one rather than ignore it, so that
 * a parameter added later fails on a kernel that does not know it.
 */
static int netns_iter_attach_target(struct bpf_prog *prog,
				    union bpf_iter_link_info *linfo,
				    struct bpf_iter_aux_info *aux)
{
	return memchr_inv(linfo, 0, sizeof(*linfo)) ? -EINVAL : 0;
}

static struct bpf_iter_reg netns_reg_info = {
	.target			= "netns",
	.attach_target		= netns_iter_attach_target,
	.feature		= BPF_ITER_RESCHED,
	.ctx_arg_info_size	= 1,
	.ctx_arg_info		= {
		{ offsetof(struct bpf_iter__netns, net),
		  PTR_TO_BTF_ID_OR_NULL | PTR_TRUSTED },
	},
	.seq_info		= &netns_iter_seq_info,
};

BTF_ID_LIST_SINGLE(netns_iter_btf_ids, struct, net)

static int __init netns_iter_register(void)
{
	netns_reg_info.ctx_arg_info[0].btf_id = netns_iter_btf_ids[0];
	return bpf_iter_reg_target(&netns_reg_info);
}

late_initcall(netns_iter_register);
