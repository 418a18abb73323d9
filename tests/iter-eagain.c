// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD=iter-eagain.so CMD: every second read() of a BPF iterator fd
 * fails with EAGAIN before it reaches the kernel, as a read that ran into
 * the kernel's MAX_ITER_OBJECTS (a million objects with no output: more
 * sockets than a test guest can hold) fails.  A caller must retry it and
 * lose nothing.  Counts the injected failures in $ITER_EAGAIN_LOG, if set.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int is_bpf_iter(int fd)
{
	char link[64], target[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return 0;
	target[n] = '\0';
	return !strcmp(target, "anon_inode:bpf_iter");
}

ssize_t read(int fd, void *buf, size_t count)
{
	static ssize_t (*real)(int, void *, size_t);
	static unsigned long calls, injected;
	const char *log;
	FILE *f;

	if (!real)
		real = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	if (is_bpf_iter(fd) && calls++ % 2 == 0) {
		log = getenv("ITER_EAGAIN_LOG");
		f = log ? fopen(log, "w") : NULL;
		if (f) {
			fprintf(f, "%lu\n", ++injected);
			fclose(f);
		}
		errno = EAGAIN;
		return -1;
	}
	return real(fd, buf, count);
}
