// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD=old-kernel-link-info.so CMD: run CMD as if on a kernel older
 * than the netns argument of iter/tcp and iter/udp.  Such a kernel accepts
 * union bpf_iter_link_info.sock, ignores it, and knows nothing of
 * bpf_link_info.iter.sock; this library zeroes that part of what
 * BPF_OBJ_GET_INFO_BY_FD returns for an iterator link, which is all a
 * careful caller can tell the two kernels apart by.
 *
 * libbpf enters the kernel through syscall(2), so wrapping syscall() is
 * enough for a program linked with it.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>
#include <linux/bpf.h>

long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	long a[5], ret;
	union bpf_attr *attr;
	struct bpf_link_info *info;
	va_list ap;
	int i;

	va_start(ap, nr);
	for (i = 0; i < 5; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	ret = real(nr, a[0], a[1], a[2], a[3], a[4]);
	if (nr != __NR_bpf || a[0] != BPF_OBJ_GET_INFO_BY_FD || ret)
		return ret;
	attr = (union bpf_attr *)a[1];
	info = (struct bpf_link_info *)(unsigned long)attr->info.info;
	if (attr->info.info_len >= offsetof(struct bpf_link_info, iter.sock) +
				   sizeof(info->iter.sock) &&
	    info->type == BPF_LINK_TYPE_ITER)
		memset(&info->iter.sock, 0, sizeof(info->iter.sock));
	return ret;
}
