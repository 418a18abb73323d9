/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the benchmark's worlds and the tests' socket world (tests/sockworld.c)
 * both need to set up a namespace.
 */
#ifndef NETNS_ITER_WORLD_H
#define NETNS_ITER_WORLD_H

#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

/* Bring up the loopback of the current namespace: 0 or -errno. */
static inline int world_lo_up(void)
{
	struct ifreq ifr = {};
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), err = 0;

	if (s < 0)
		return -errno;
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr))
		err = -errno;
	ifr.ifr_flags |= IFF_UP;
	if (!err && ioctl(s, SIOCSIFFLAGS, &ifr))
		err = -errno;
	close(s);
	return err;
}

#endif
