// SPDX-License-Identifier: GPL-2.0
/*
 * Tracepoint counters of the calling thread (see kcount.h).  The events
 * are read in one group, so one read() takes all of them at the same
 * instant.  A read counts its own syscall and the buffer the kernel
 * allocates for it, and a clock read may be a syscall where the vDSO
 * cannot serve it: kcount_open() measures an empty window, read, clock,
 * clock, read, as the driver's timed region has them, and every delta
 * leaves that out.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "kcount.h"

static const char *const kc_events[KC_N] = {
	[KC_SYSCALLS]	 = "raw_syscalls/sys_enter",
	[KC_KMALLOC]	 = "kmem/kmalloc",
	[KC_CACHE_ALLOC] = "kmem/kmem_cache_alloc",
	[KC_PAGES]	 = "kmem/mm_page_alloc",
};

static int fds[KC_N] = { -1, -1, -1, -1 };
static struct kcount self_cost;

/* The tracepoint id of @event ("system/name"), or -errno. */
static long tracepoint_id(const char *event)
{
	static const char *const roots[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char path[256];
	unsigned int i;
	long id = -ENOENT;
	FILE *f;

	for (i = 0; i < sizeof(roots) / sizeof(roots[0]) && id < 0; i++) {
		snprintf(path, sizeof(path), "%s/events/%s/id", roots[i], event);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%ld", &id) != 1)
			id = -EINVAL;
		fclose(f);
	}
	return id;
}

int kcount_open(char *why, size_t len)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.read_format = PERF_FORMAT_GROUP,
	};
	struct kcount k0, k1;
	struct timespec ts;
	unsigned int i;
	int err;
	long id;

	for (i = 0; i < KC_N; i++) {
		id = tracepoint_id(kc_events[i]);
		if (id < 0) {
			snprintf(why, len, "no tracepoint %s in tracefs (CONFIG_TRACEPOINTS, tracefs mounted at /sys/kernel/tracing)",
				 kc_events[i]);
			kcount_close();
			return (int)id;
		}
		attr.config = id;
		/* this thread, any CPU */
		fds[i] = syscall(SYS_perf_event_open, &attr, 0, -1, fds[0],
				 PERF_FLAG_FD_CLOEXEC);
		if (fds[i] < 0) {
			err = -errno;
			snprintf(why, len, "perf_event_open(%s): %s",
				 kc_events[i], strerror(errno));
			kcount_close();
			return err;
		}
	}
	memset(&self_cost, 0, sizeof(self_cost));
	kcount_read(&k0);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	kcount_read(&k1);
	kcount_delta(&k0, &k1, &self_cost);
	return 0;
}

void kcount_close(void)
{
	unsigned int i;

	for (i = 0; i < KC_N; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
}

void kcount_read(struct kcount *c)
{
	struct {
		__u64 nr;
		__u64 v[KC_N];
	} g;

	if (read(fds[0], &g, sizeof(g)) != sizeof(g) || g.nr != KC_N) {
		perror("netns-bench: read the kernel's counters");
		exit(1);
	}
	memcpy(c->v, g.v, sizeof(c->v));
}

void kcount_delta(const struct kcount *start, const struct kcount *end,
		  struct kcount *d)
{
	unsigned int i;

	__u64 v;

	for (i = 0; i < KC_N; i++) {
		v = end->v[i] - start->v[i];
		d->v[i] = v > self_cost.v[i] ? v - self_cost.v[i] : 0;
	}
}
