/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whole-host walk of the tcp and udp BPF iterators, see
 * net/core/sock_iter_all_netns.c.
 */
#ifndef _NET_SOCK_ITER_ALL_NETNS_H
#define _NET_SOCK_ITER_ALL_NETNS_H

#include <linux/bpf.h>
#include <linux/seq_file_net.h>
#include <net/sock_iter_netns_arg.h>

struct net;

/* Per-iterator state, embedded in the tcp and udp iterator states. */
struct bpf_sock_iter_netns {
	u64	last_id;	/* last namespace whose table began */
	bool	all;		/* BPF_SOCK_ITER_ALL_NETNS */
};

#ifdef CONFIG_NET_NS
int bpf_sock_iter_all_attach_target(struct bpf_prog *prog,
				    union bpf_iter_link_info *linfo,
				    struct bpf_iter_aux_info *aux,
				    u32 walk_flags);
void bpf_sock_iter_all_show_fdinfo(const struct bpf_iter_aux_info *aux,
				   struct seq_file *seq);
int bpf_sock_iter_all_init_seq_net(void *priv_data,
				   struct bpf_iter_aux_info *aux,
				   struct bpf_sock_iter_netns *it);
bool bpf_sock_iter_next_table(struct seq_net_private *p,
			      struct bpf_sock_iter_netns *it,
			      bool (*own_table)(const struct net *net));
#elif defined(CONFIG_BPF_SYSCALL) && defined(CONFIG_PROC_FS)
/* Only init_net exists, and the netns argument refuses the flags. */
static inline int bpf_sock_iter_all_attach_target(struct bpf_prog *prog,
						  union bpf_iter_link_info *linfo,
						  struct bpf_iter_aux_info *aux,
						  u32 walk_flags)
{
	return bpf_sock_iter_attach_target(prog, linfo, aux);
}

#define bpf_sock_iter_all_show_fdinfo	bpf_sock_iter_show_fdinfo

static inline int bpf_sock_iter_all_init_seq_net(void *priv_data,
						 struct bpf_iter_aux_info *aux,
						 struct bpf_sock_iter_netns *it)
{
	it->all = false;
	return bpf_sock_iter_init_seq_net(priv_data, aux);
}

static inline bool bpf_sock_iter_next_table(struct seq_net_private *p,
					    struct bpf_sock_iter_netns *it,
					    bool (*own_table)(const struct net *net))
{
	return false;
}
#endif

#endif /* _NET_SOCK_ITER_ALL_NETNS_H */
