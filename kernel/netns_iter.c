// SPDX-License-Identifier: GPL-2.0-only
/*
 * BPF iterator over network namespaces: the "netns" target (iter/netns,
 * iter.s/netns) and its open-coded twin bpf_iter_netns_{new,next,destroy}.
 *
 * A walk visits the live network namespaces the iterator's creator may
 * reach (bpf_netns_scope_init(), judged when it creates the iterator, or
 * calls the open-coded one from a syscall program) in namespace id order,
 * the order of kernel/nstree.c; a namespace that lives through the walk
 * is seen once, re-runs aside.  The seq_file walk holds a reference on the
 * namespace it hands out and no lock, and resumes by id after a partial
 * read; the open-coded walk is KF_RCU_PROTECTED and takes no reference.
 * As in every BPF iterator, a namespace whose output overflows the
 * seq_file buffer runs again on the next read(), with the same
 * meta->seq_num; one whose output alone overflows it fails one read()
 * with -E2BIG and is passed over.
 */
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/nstree.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>

struct bpf_iter_seq_netns_info {
	struct bpf_netns_scope scope;
	u64 last_id;
};

/*
 * First namespace of @scope at or after @ns in id order.  With @get, take
 * a reference, skipping namespaces whose count already dropped to zero;
 * without, only skip those.  Called under rcu_read_lock().
 */
static struct net *netns_iter_scan(struct ns_common *ns,
				   const struct bpf_netns_scope *scope,
				   bool get)
{
	while (!IS_ERR_OR_NULL(ns)) {
		struct net *net = to_net_ns(ns);

		if (bpf_netns_scope_has(scope, net) &&
		    (get ? !!maybe_get_net(net) : !!ns_ref_read(net)))
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
			      &info->scope, true);
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
	next = netns_iter_scan(ns_tree_adjoined_rcu(net, false), &info->scope,
			       true);
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

static struct bpf_iter_reg netns_reg_info = {
	.target			= "netns",
	.feature		= BPF_ITER_RESCHED,
	.ctx_arg_info_size	= 1,
	.ctx_arg_info		= {
		{ offsetof(struct bpf_iter__netns, net),
		  PTR_TO_BTF_ID_OR_NULL | PTR_TRUSTED },
	},
	.seq_info		= &netns_iter_seq_info,
};

struct bpf_iter_netns {
	__u64 __opaque[3];
} __aligned(8);

/* Non-opaque version of bpf_iter_netns */
struct bpf_iter_netns_kern {
	struct net *pos;
	struct bpf_netns_scope scope;
} __aligned(8);

__bpf_kfunc_start_defs();

/**
 * bpf_iter_netns_new() - start a walk over the network namespaces in scope
 * @it: iterator state
 *
 * Captures the scope of the walk, bpf_netns_scope_init(), from the task
 * running the program, the caller of BPF_PROG_RUN: for a syscall program
 * the call is the walk's creation.
 *
 * Context: an RCU read section, in a syscall program.
 *
 * Return: 0.
 */
__bpf_kfunc int bpf_iter_netns_new(struct bpf_iter_netns *it)
{
	struct bpf_iter_netns_kern *kit = (void *)it;

	BUILD_BUG_ON(sizeof(*kit) > sizeof(*it));
	BUILD_BUG_ON(__alignof__(*kit) != __alignof__(*it));

	kit->pos = NULL;
	bpf_netns_scope_init(&kit->scope);
	return 0;
}

/**
 * bpf_iter_netns_next() - the next visible network namespace
 * @it: iterator state
 *
 * Return: an RCU-protected namespace, or NULL at the end of the walk.
 */
__bpf_kfunc struct net *bpf_iter_netns_next(struct bpf_iter_netns *it)
{
	struct bpf_iter_netns_kern *kit = (void *)it;
	struct ns_common *ns;

	if (kit->pos)
		ns = ns_tree_adjoined_rcu(kit->pos, false);
	else
		ns = list_first_or_null_rcu(&net_ns_tree.ns_list_head,
					    struct ns_common,
					    ns_tree_node.ns_list_entry);
	kit->pos = netns_iter_scan(ns, &kit->scope, false);
	return kit->pos;
}

/**
 * bpf_iter_netns_destroy() - end a walk
 * @it: iterator state
 */
__bpf_kfunc void bpf_iter_netns_destroy(struct bpf_iter_netns *it)
{
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(netns_iter_kfunc_ids)
BTF_ID_FLAGS(func, bpf_iter_netns_new, KF_ITER_NEW | KF_RCU_PROTECTED)
BTF_ID_FLAGS(func, bpf_iter_netns_next, KF_ITER_NEXT | KF_RET_NULL)
BTF_ID_FLAGS(func, bpf_iter_netns_destroy, KF_ITER_DESTROY)
BTF_KFUNCS_END(netns_iter_kfunc_ids)

static const struct btf_kfunc_id_set netns_iter_kfunc_set = {
	.owner	= THIS_MODULE,
	.set	= &netns_iter_kfunc_ids,
};

BTF_ID_LIST_SINGLE(netns_iter_btf_ids, struct, net)

static int __init netns_iter_register(void)
{
	int err;

	netns_reg_info.ctx_arg_info[0].btf_id = netns_iter_btf_ids[0];
	err = bpf_iter_reg_target(&netns_reg_info);
	if (err)
		return err;

	/*
	 * Syscall programs only: current, whose credentials bound the walk,
	 * runs the program when it calls.  A tracing program runs in any
	 * context, and an iterator program for whichever task reads the
	 * iterator; it has iter/netns, whose reach is its creator's.
	 */
	return register_btf_kfunc_id_set(BPF_PROG_TYPE_SYSCALL,
					 &netns_iter_kfunc_set);
}

late_initcall(netns_iter_register);
