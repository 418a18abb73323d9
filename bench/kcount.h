/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kernel counts for the benchmark's own thread: syscalls entered
 * and slab objects and pages allocated, from the raw_syscalls and kmem
 * tracepoints through one perf counter group.  The counts are the
 * kernel's, not the driver's: a syscall libbpf makes behind the driver's
 * back, or an allocation a walk makes per socket, shows up.  Work done on
 * the thread's behalf elsewhere (RCU callbacks, softirq, kworkers) does
 * not.  While the counters are open every syscall of every task takes the
 * traced entry path, so the driver opens them for untimed runs only.
 */
#ifndef NETNS_BENCH_KCOUNT_H
#define NETNS_BENCH_KCOUNT_H

#include <stddef.h>
#include <linux/types.h>

enum kcount_event {
	KC_SYSCALLS,	/* raw_syscalls:sys_enter */
	KC_KMALLOC,	/* kmem:kmalloc */
	KC_CACHE_ALLOC,	/* kmem:kmem_cache_alloc */
	KC_PAGES,	/* kmem:mm_page_alloc */
	KC_N
};

struct kcount {
	__u64 v[KC_N];
};

/* Open the counters: 0, or -errno with @why filled (len bytes). */
int kcount_open(char *why, size_t len);
void kcount_close(void);
/* The counts so far. */
void kcount_read(struct kcount *c);
/*
 * @end minus @start, less what reading the counters itself costs: the
 * window kcount_open() measured, two reads around two clock reads.
 */
void kcount_delta(const struct kcount *start, const struct kcount *end,
		  struct kcount *d);

#endif
