/* SPDX-License-Identifier: GPL-2.0 */
/* The open-coded per-netns socket iterator, for the negative tests. */
#ifndef NETNS_SOCK_H
#define NETNS_SOCK_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

extern int bpf_iter_netns_sock_new(struct bpf_iter_netns_sock *it,
				   struct net *net, int protocol,
				   unsigned int flags) __ksym;
extern struct sock_common *
bpf_iter_netns_sock_next(struct bpf_iter_netns_sock *it) __ksym;
extern void bpf_iter_netns_sock_destroy(struct bpf_iter_netns_sock *it) __ksym;
extern int bpf_iter_netns_sock_abort(struct bpf_iter_netns_sock *it__iter) __ksym;
extern int bpf_sock_destroy(struct sock_common *sk) __ksym;

#endif /* NETNS_SOCK_H */
