// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD=pause-at-open.so PAUSE_PATH=P PAUSE_NTH=N PAUSE_DIR=D CMD:
 * the Nth time CMD opens P, write a line to the FIFO D/paused and wait for
 * a line on the FIFO D/resume before the open goes on.  A test uses it to
 * change the world at an exact point of a walk, with no sleep: netns-reap
 * opens each namespace's path once when it finds it and once when it
 * walks it.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void maybe_pause(const char *path)
{
	const char *want = getenv("PAUSE_PATH"), *dir = getenv("PAUSE_DIR");
	const char *nth = getenv("PAUSE_NTH");
	static int seen;
	char fifo[PATH_MAX], c;
	int fd;

	if (!want || !dir || strcmp(path, want) ||
	    ++seen != (nth ? atoi(nth) : 1))
		return;
	snprintf(fifo, sizeof(fifo), "%s/paused", dir);
	fd = open(fifo, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "\n", 1) != 1)
			perror("pause-at-open: write");
		close(fd);
	}
	snprintf(fifo, sizeof(fifo), "%s/resume", dir);
	fd = open(fifo, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		while (read(fd, &c, 1) == 1 && c != '\n')
			;
		close(fd);
	}
}

int open(const char *path, int flags, ...)
{
	static int (*real)(const char *, int, ...);
	mode_t mode = 0;
	va_list ap;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (!real)
		real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	maybe_pause(path);
	return real(path, flags, mode);
}
