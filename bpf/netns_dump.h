/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One line per network namespace from an iter/netns walk, then a summary.
 *
 *   netns cookie=C inum=I userns_inum=U tcp=T udp=D
 *   summary netns_count=N
 *
 * tcp and udp are the sockets in use in that namespace (IPv4 plus IPv6),
 * the counters behind /proc/net/sockstat{,6}.  netns_count is the number of
 * namespaces the walk handed to the program: meta->seq_num is the index of
 * the last one at the final call, and a walk is never empty because the
 * opener's own namespace is always visible.  Counting in a global instead
 * would be wrong twice: a partial read reruns the object that did not fit,
 * and two readers of one pinned iterator share the globals.
 */
#ifndef NETNS_DUMP_H
#define NETNS_DUMP_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#define NETNS_DUMP_MAX_CPUS 256
#define PROTO_INUSE_NR (sizeof(((struct prot_inuse *)0)->val) / sizeof(int))

extern const void tcp_prot __ksym;
extern const void tcpv6_prot __ksym __weak;
extern const void udp_prot __ksym;
extern const void udpv6_prot __ksym __weak;
/* Not in BTF, so typeless: only their addresses are used. */
extern const void nr_cpu_ids __ksym;
extern const void __per_cpu_offset __ksym;

static __always_inline int proto_inuse_idx(const void *prot)
{
	unsigned int idx = 0;

	if (!prot ||
	    bpf_probe_read_kernel(&idx, sizeof(idx),
				  prot + bpf_core_field_offset(struct proto,
							       inuse_idx)))
		return -1;
	return idx < PROTO_INUSE_NR ? (int)idx : -1;
}

/*
 * sock_prot_inuse_get() for up to two protocols, summed over CPUs.  A kernel
 * built by gcc has no "percpu" BTF type tags, so bpf_per_cpu_ptr() cannot be
 * used on net->core.prot_inuse; add __per_cpu_offset[cpu] by hand instead.
 */
static __always_inline int netns_inuse(struct net *net, const void *p4,
				       const void *p6)
{
	int i4 = proto_inuse_idx(p4), i6 = proto_inuse_idx(p6);
	unsigned long base = 0, val_off;
	unsigned int ncpus = 0;
	int sum = 0, cpu;

	/* Read the pointer as a plain number: it is offset by hand below. */
	bpf_probe_read_kernel(&base, sizeof(base), &net->core.prot_inuse);
	bpf_probe_read_kernel(&ncpus, sizeof(ncpus), &nr_cpu_ids);
	val_off = bpf_core_field_offset(struct prot_inuse, val);
	for (cpu = 0; cpu < NETNS_DUMP_MAX_CPUS && cpu < ncpus; cpu++) {
		unsigned long off;
		int v;

		if (bpf_probe_read_kernel(&off, sizeof(off),
					  (const unsigned long *)&__per_cpu_offset + cpu))
			break;
		off += base + val_off;
		if (i4 >= 0 &&
		    !bpf_probe_read_kernel(&v, sizeof(v),
					   (void *)(off + i4 * sizeof(int))))
			sum += v;
		if (i6 >= 0 &&
		    !bpf_probe_read_kernel(&v, sizeof(v),
					   (void *)(off + i6 * sizeof(int))))
			sum += v;
	}
	return sum;
}

static __always_inline int netns_dump(struct bpf_iter_meta *meta,
				      struct net *net)
{
	struct seq_file *seq = meta->seq;

	if (!net) {
		BPF_SEQ_PRINTF(seq, "summary netns_count=%llu\n", meta->seq_num + 1);
		return 0;
	}

	BPF_SEQ_PRINTF(seq, "netns cookie=%llu inum=%u userns_inum=%u tcp=%d udp=%d\n",
		       net->net_cookie, net->ns.inum, net->user_ns->ns.inum,
		       netns_inuse(net, &tcp_prot, &tcpv6_prot),
		       netns_inuse(net, &udp_prot, &udpv6_prot));
	return 0;
}

#endif /* NETNS_DUMP_H */
