/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Network namespace argument of the tcp and udp BPF iterators, see
 * net/core/sock_iter_netns_arg.c.
 */
#ifndef _NET_SOCK_ITER_NETNS_ARG_H
#define _NET_SOCK_ITER_NETNS_ARG_H

#include <linux/bpf.h>
#include <linux/proc_fs.h>
#include <linux/seq_file_net.h>
#include <net/net_namespace.h>

#ifdef CONFIG_NET_NS
int bpf_sock_iter_attach_target(struct bpf_prog *prog,
				union bpf_iter_link_info *linfo,
				struct bpf_iter_aux_info *aux);
void bpf_sock_iter_detach_target(struct bpf_iter_aux_info *aux);
void bpf_sock_iter_show_fdinfo(const struct bpf_iter_aux_info *aux,
			       struct seq_file *seq);
int bpf_sock_iter_fill_link_info(const struct bpf_iter_aux_info *aux,
				 struct bpf_link_info *info);
int bpf_sock_iter_init_seq_net(void *priv_data, struct bpf_iter_aux_info *aux);
#elif defined(CONFIG_BPF_SYSCALL) && defined(CONFIG_PROC_FS)
/*
 * Only init_net exists: the argument can name nothing else.  Refuse one that
 * names anything but init_net rather than ignore it, so that a caller that
 * asked for a namespace never walks another one.
 */
static inline int bpf_sock_iter_attach_target(struct bpf_prog *prog,
					      union bpf_iter_link_info *linfo,
					      struct bpf_iter_aux_info *aux)
{
	u64 cookie = linfo->sock.netns_cookie;

	if (linfo->sock.netns_fd || linfo->sock.flags ||
	    (cookie && cookie != init_net.net_cookie))
		return -EOPNOTSUPP;
	return 0;
}

#define bpf_sock_iter_detach_target	NULL
#define bpf_sock_iter_show_fdinfo	NULL
#define bpf_sock_iter_fill_link_info	NULL

static inline int bpf_sock_iter_init_seq_net(void *priv_data,
					     struct bpf_iter_aux_info *aux)
{
	return bpf_iter_init_seq_net(priv_data, aux);
}
#endif

#endif /* _NET_SOCK_ITER_NETNS_ARG_H */
