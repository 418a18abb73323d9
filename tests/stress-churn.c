// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper: churn TCP and UDP sockets in a network namespace.
 *
 *   stress-churn NETNS SECONDS PORT
 *
 * In /run/netns/NETNS, for SECONDS (or until SIGTERM), one process opens
 * and closes sockets to servers on 127.0.0.1:PORT and [::1]:PORT (TCP and
 * UDP) and a TCP_DEFER_ACCEPT listener on PORT + 1:
 *   - TCP connections over IPv4 and IPv6, accepted and closed client first,
 *     so each leaves a TIME_WAIT socket; a ring of them stays open a while;
 *   - connections to PORT + 1 that send nothing, whose server side stays a
 *     request socket until the client closes;
 *   - connected UDP sockets, a ring of them open at a time;
 * at most 200 rounds of these a second.
 * Another process may destroy the clients (their remote port is PORT):
 * their next send or recv fails with ECONNABORTED, or SO_ERROR says so
 * when they are closed, and they are counted as aborted.  The server side
 * (accepted sockets, listeners, UDP servers: remote port not PORT) must
 * never be: each is checked the same way when it is used and closed, and
 * the listeners and servers once more at the end, and such an ECONNABORTED
 * is counted as "wrongly aborted".  Connections that could not be made are
 * counted as failed.  At the end it prints
 *   netns_cookie=C connects=N failed=N time_wait=N requests=N udp=N
 *   aborted=N wrongly_aborted=N
 * on one line and exits 0, or 1 if the churn could not run at all.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define RING 32

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

static volatile sig_atomic_t stop;
static unsigned long connects, failed, time_wait, requests, udp, aborted, wrongly;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static socklen_t addr_of(struct sockaddr_storage *ss, int family, int port)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *in = (void *)ss;

		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		return sizeof(*in);
	}
	struct sockaddr_in6 *in6 = (void *)ss;

	in6->sin6_family = AF_INET6;
	in6->sin6_port = htons(port);
	in6->sin6_addr = in6addr_loopback;
	return sizeof(*in6);
}

/* A socket of @family and @type with 1 s timeouts, bound to @port if set. */
static int sock(int family, int type, int port)
{
	struct timeval tv = { .tv_sec = 1 };
	struct sockaddr_storage ss;
	int fd, one = 1;

	fd = socket(family, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (!port)
		return fd;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (void *)&ss, addr_of(&ss, family, port)) ||
	    (type == SOCK_STREAM && listen(fd, 128))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* @fd is a client (its peer is the server) or a server-side socket. */
static void note_error(int err, int client)
{
	if (err != ECONNABORTED)
		return;
	if (client)
		aborted++;
	else
		wrongly++;
}

/* What SO_ERROR holds for @fd, counted as note_error() does. */
static void check_error(int fd, int client)
{
	socklen_t len = sizeof(int);
	int err = 0;

	if (!getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len))
		note_error(err, client);
}

static void check_close(int fd, int client)
{
	if (fd < 0)
		return;
	check_error(fd, client);
	close(fd);
}

/* One byte each way on a pair; errors are counted, not fatal. */
static void ping(int client, int server)
{
	char c = 'x';

	if (send(client, &c, 1, MSG_NOSIGNAL) != 1)
		note_error(errno, 1);
	else if (recv(server, &c, 1, 0) != 1)
		note_error(errno, 0);
}

/*
 * A client connected to @port; with a @listener, its accepted peer too.
 * Without one (the TCP_DEFER_ACCEPT port), the connect does not wait: once
 * that listener's queue is full, a SYN is dropped and retried, and a
 * blocking connect would stall the churn.
 */
static int tcp_connect(int family, int port, int listener, int *server)
{
	struct sockaddr_storage ss;
	int c = sock(family, SOCK_STREAM | (listener < 0 ? SOCK_NONBLOCK : 0), 0);

	if (c < 0)
		return -1;
	if (connect(c, (void *)&ss, addr_of(&ss, family, port)) &&
	    !(listener < 0 && errno == EINPROGRESS)) {
		failed++;
		close(c);
		return -1;
	}
	connects++;
	if (listener < 0)
		return c;
	*server = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
	if (*server < 0) {
		failed++;
		check_close(c, 1);
		return -1;
	}
	ping(c, *server);
	return c;
}

int main(int argc, char **argv)
{
	int tcp_ring[RING][2], defer_ring[RING], udp_ring[RING];
	int lst[2], defer, usrv[2], nsfd, i, fam, port, secs, one = 5;
	struct sigaction sa = { .sa_handler = on_term };
	unsigned long long cookie = 0;
	unsigned long n;
	socklen_t len;
	time_t end;
	char path[256];

	if (argc != 4) {
		fprintf(stderr, "usage: stress-churn NETNS SECONDS PORT\n");
		return 1;
	}
	secs = atoi(argv[2]);
	port = atoi(argv[3]);
	snprintf(path, sizeof(path), "/run/netns/%s", argv[1]);
	nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (nsfd < 0 || setns(nsfd, CLONE_NEWNET)) {
		fprintf(stderr, "stress-churn: %s: %s\n", path, strerror(errno));
		return 1;
	}
	close(nsfd);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	lst[0] = sock(AF_INET, SOCK_STREAM, port);
	lst[1] = sock(AF_INET6, SOCK_STREAM, port);
	usrv[0] = sock(AF_INET, SOCK_DGRAM, port);
	usrv[1] = sock(AF_INET6, SOCK_DGRAM, port);
	defer = sock(AF_INET, SOCK_STREAM, port + 1);
	if (lst[0] < 0 || lst[1] < 0 || usrv[0] < 0 || usrv[1] < 0 || defer < 0 ||
	    setsockopt(defer, IPPROTO_TCP, TCP_DEFER_ACCEPT, &one, sizeof(one))) {
		fprintf(stderr, "stress-churn: cannot listen on port %d in %s: %s\n",
			port, argv[1], strerror(errno));
		return 1;
	}
	for (i = 0; i < RING; i++) {
		tcp_ring[i][0] = tcp_ring[i][1] = -1;
		defer_ring[i] = udp_ring[i] = -1;
	}
	end = time(NULL) + secs;
	for (n = 0; !stop && time(NULL) < end; n++) {
		/* At most 200 rounds a second: TIME_WAIT sockets pile up. */
		struct timespec pace = { 0, 5 * 1000 * 1000 };
		struct sockaddr_storage ss;
		int slot = n % RING;

		nanosleep(&pace, NULL);

		fam = n & 1 ? AF_INET6 : AF_INET;
		/* The pair in this slot: one more byte, then client first. */
		if (tcp_ring[slot][0] >= 0) {
			ping(tcp_ring[slot][0], tcp_ring[slot][1]);
			check_close(tcp_ring[slot][0], 1);
			check_close(tcp_ring[slot][1], 0);
			time_wait++;
			tcp_ring[slot][0] = tcp_ring[slot][1] = -1;
		}
		tcp_ring[slot][0] = tcp_connect(fam, port, lst[fam == AF_INET6],
						&tcp_ring[slot][1]);
		check_close(defer_ring[slot], 1);
		defer_ring[slot] = tcp_connect(AF_INET, port + 1, -1, NULL);
		requests += defer_ring[slot] >= 0;
		if (udp_ring[slot] >= 0) {
			if (send(udp_ring[slot], "x", 1, 0) != 1)
				note_error(errno, 1);
			check_close(udp_ring[slot], 1);
		}
		udp_ring[slot] = sock(fam, SOCK_DGRAM, 0);
		if (udp_ring[slot] >= 0 &&
		    connect(udp_ring[slot], (void *)&ss, addr_of(&ss, fam, port))) {
			close(udp_ring[slot]);
			udp_ring[slot] = -1;
		}
		udp += udp_ring[slot] >= 0;
		/* Drain what the UDP servers got; a destroyed server would say so. */
		for (i = 0; i < 2; i++) {
			char buf[64];

			while (recv(usrv[i], buf, sizeof(buf), MSG_DONTWAIT) > 0)
				;
			note_error(errno, 0);
		}
	}
	check_error(lst[0], 0);
	check_error(lst[1], 0);
	check_error(defer, 0);
	check_error(usrv[0], 0);
	check_error(usrv[1], 0);
	len = sizeof(cookie);
	getsockopt(lst[0], SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len);
	printf("netns_cookie=%llu connects=%lu failed=%lu time_wait=%lu requests=%lu udp=%lu aborted=%lu wrongly_aborted=%lu\n",
	       cookie, connects, failed, time_wait, requests, udp, aborted,
	       wrongly);
	return 0;
}
