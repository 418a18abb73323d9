/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Network namespace parameter of the tcp and udp BPF iterators, see
 * net/core/sock_iter_netns_arg.c.
 */
#ifndef _NET_SOCK_ITER_NETNS_ARG_H
#define _NET_SOCK_ITER_NETNS_ARG_H

#include <linux/bpf.h>
#include <linux/proc_fs.h>
#include <linux/seq_file_net.h>

struct net;

/* Per-iterator state, embedded in the tcp and udp iterator states. */
struct bpf_sock_iter_netns {
	u64	last_id;	/* whole-host: last namespace whose table began */
	bool	all;		/* whole-host: BPF_SOCK_ITER_ALL_NETNS */
};

#ifdef CONFIG_NET_NS
int bpf_sock_iter_attach_target(struct bpf_prog *prog,
				union bpf_iter_link_info *linfo,
				struct bpf_iter_aux_info *aux);
void bpf_sock_iter_detach_target(struct bpf_iter_aux_info *aux);
void bpf_sock_iter_show_fdinfo(const struct bpf_iter_aux_info *aux,
			       struct seq_file *seq);
int bpf_sock_iter_fill_link_info(const struct bpf_iter_aux_info *aux,
				 struct bpf_link_info *info);
int bpf_sock_iter_init_seq_net(void *priv_data, struct bpf_iter_aux_info *aux,
			       struct bpf_sock_iter_netns *it);
bool bpf_sock_iter_next_table(struct seq_file *seq,
			      struct bpf_sock_iter_netns *it,
			      bool (*own_table)(const struct net *net));
#else
/* Only init_net exists: the parameter can name nothing else. */
#define bpf_sock_iter_attach_target	NULL
#define bpf_sock_iter_detach_target	NULL
#define bpf_sock_iter_show_fdinfo	NULL
#define bpf_sock_iter_fill_link_info	NULL

static inline int bpf_sock_iter_init_seq_net(void *priv_data,
					     struct bpf_iter_aux_info *aux,
					     struct bpf_sock_iter_netns *it)
{
	it->all = false;
	return bpf_iter_init_seq_net(priv_data, aux);
}

static inline bool bpf_sock_iter_next_table(struct seq_file *seq,
					    struct bpf_sock_iter_netns *it,
					    bool (*own_table)(const struct net *net))
{
	return false;
}
#endif

#endif /* _NET_SOCK_ITER_NETNS_ARG_H */
