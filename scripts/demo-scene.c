// SPDX-License-Identifier: GPL-2.0
/*
 * The moving parts of the demo scene, run by scripts/demo.sh in the guest.
 *
 * demo-scene serve ADDR...
 *	In the current namespace: for every ADDR, a TCP server on port 80 that
 *	answers every line with "pong", and a UDP server on port 53 that
 *	answers every datagram; one process, one poll() loop.
 *
 * demo-scene clients OUTDIR BACKEND... -- NSPATH...
 *	In every namespace NSPATH (setns() in, back out after), a TCP and a
 *	connected UDP client to every BACKEND.  OUTDIR/ready once connected;
 *	then every 0.5 s each live client sends "ping" and counts the replies.
 *	OUTDIR/pod-N-PROTO-B gets a line per reply (N: position of NSPATH from
 *	1, B: position of BACKEND from 1), and OUTDIR/pod-N-PROTO-B.err the
 *	error that ended the client, as strerror() words: "Software caused
 *	connection abort" for a destroyed socket.
 *
 * Under TCG a shell loop per client (fork and exec every half second, times
 * 300 clients) starves the guest, hence one process for each side.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "demo-scene: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void addr_of(struct sockaddr_in *a, const char *addr, int port)
{
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_port = htons(port);
	if (inet_pton(AF_INET, addr, &a->sin_addr) != 1) {
		fprintf(stderr, "demo-scene: not an IPv4 address: %s\n", addr);
		exit(2);
	}
}

/* serve: listeners and UDP sockets first, then accepted connections. */
static void __attribute__((noreturn)) serve(int n, char **addrs)
{
	struct pollfd *fds = calloc(2 * n + 4096, sizeof(*fds));
	int nfds = 0, one = 1, i, fd;
	struct sockaddr_in a, peer;
	socklen_t len;
	char buf[4096];
	ssize_t r;

	if (!fds)
		die("calloc");
	for (i = 0; i < n; i++) {
		addr_of(&a, addrs[i], 80);
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (fd < 0 || bind(fd, (void *)&a, sizeof(a)) || listen(fd, 512))
			die(addrs[i]);
		fds[nfds++] = (struct pollfd){ .fd = fd, .events = POLLIN };
		addr_of(&a, addrs[i], 53);
		fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || bind(fd, (void *)&a, sizeof(a)))
			die(addrs[i]);
		fds[nfds++] = (struct pollfd){ .fd = fd, .events = POLLIN };
	}
	for (;;) {
		if (poll(fds, nfds, -1) < 0 && errno != EINTR)
			die("poll");
		for (i = 0; i < nfds; i++) {
			if (!fds[i].revents)
				continue;
			if (i < 2 * n && i % 2 == 0) {
				fd = accept4(fds[i].fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
				if (fd >= 0 && nfds < 2 * n + 4096)
					fds[nfds++] = (struct pollfd){ .fd = fd, .events = POLLIN };
				else if (fd >= 0)
					close(fd);
			} else if (i < 2 * n) {
				len = sizeof(peer);
				r = recvfrom(fds[i].fd, buf, sizeof(buf), 0, (void *)&peer, &len);
				if (r >= 0)
					sendto(fds[i].fd, "pong\n", 5, 0, (void *)&peer, len);
			} else {
				r = recv(fds[i].fd, buf, sizeof(buf), 0);
				if (r > 0) {
					int lines = 0, k;

					for (k = 0; k < r; k++)
						lines += buf[k] == '\n';
					while (lines--)
						send(fds[i].fd, "pong\n", 5, MSG_NOSIGNAL);
				} else if (r == 0 || errno != EAGAIN) {
					close(fds[i].fd);
					fds[i--] = fds[--nfds];
				}
			}
		}
	}
}

struct client {
	int fd;
	FILE *log;
	char err[4200];
};

static int connect_to(int type, const char *addr, int port)
{
	struct sockaddr_in a;
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);

	addr_of(&a, addr, port);
	if (fd < 0 || connect(fd, (void *)&a, sizeof(a)))
		die(addr);
	if (fcntl(fd, F_SETFL, O_NONBLOCK))
		die("O_NONBLOCK");
	return fd;
}

/* The end of a client: its error in .err, its socket closed. */
static void end(struct client *c, const char *why)
{
	FILE *f = fopen(c->err, "w");

	if (f) {
		fprintf(f, "%s\n", why);
		fclose(f);
	}
	close(c->fd);
	c->fd = -1;
}

static void __attribute__((noreturn))
clients(const char *out, int nb, char **backends, int np, char **paths)
{
	struct client *cl = calloc((size_t)2 * nb * np, sizeof(*cl));
	struct timespec half = { 0, 500 * 1000 * 1000 };
	int self, ns, n, b, p, nc = 0, k;
	char name[4096], buf[4096];
	ssize_t r;

	if (!cl)
		die("calloc");
	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0)
		die("/proc/self/ns/net");
	for (n = 0; n < np; n++) {
		ns = open(paths[n], O_RDONLY | O_CLOEXEC);
		if (ns < 0 || setns(ns, CLONE_NEWNET))
			die(paths[n]);
		for (b = 0; b < nb; b++) {
			for (p = 0; p < 2; p++) {
				struct client *c = &cl[nc++];

				c->fd = connect_to(p ? SOCK_DGRAM : SOCK_STREAM, backends[b],
						   p ? 53 : 80);
				snprintf(name, sizeof(name), "%s/pod-%d-%s-%d", out, n + 1,
					 p ? "udp" : "tcp", b + 1);
				c->log = fopen(name, "a");
				if (!c->log)
					die(name);
				snprintf(c->err, sizeof(c->err), "%s.err", name);
			}
		}
		if (setns(self, CLONE_NEWNET))
			die("setns back");
		close(ns);
	}
	snprintf(name, sizeof(name), "%s/ready", out);
	if (close(open(name, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)))
		die(name);
	for (;;) {
		for (k = 0; k < nc; k++) {
			struct client *c = &cl[k];

			if (c->fd < 0)
				continue;
			while ((r = recv(c->fd, buf, sizeof(buf), 0)) > 0) {
				int lines = 0, i;

				for (i = 0; i < r; i++)
					lines += buf[i] == '\n';
				for (i = 0; i < (lines ?: 1); i++)
					fputs("pong\n", c->log);
			}
			if (r == 0) {
				end(c, "connection closed by the backend");
				continue;
			}
			if (errno != EAGAIN && errno != EHOSTUNREACH &&
			    errno != ENETUNREACH && errno != ECONNREFUSED) {
				end(c, strerror(errno));
				continue;
			}
			/*
			 * ICMP from the backends' side (the removed address is
			 * no longer routed) is a transient error on UDP, not
			 * the end.
			 */
			if (send(c->fd, "ping\n", 5, MSG_NOSIGNAL) < 0 &&
			    errno != EAGAIN && errno != EHOSTUNREACH &&
			    errno != ENETUNREACH && errno != ECONNREFUSED)
				end(c, strerror(errno));
			fflush(c->log);
		}
		nanosleep(&half, NULL);
	}
}

int main(int argc, char **argv)
{
	int i;

	if (argc > 2 && !strcmp(argv[1], "serve"))
		serve(argc - 2, argv + 2);
	for (i = 3; i < argc; i++)
		if (!strcmp(argv[i], "--"))
			break;
	if (argc > 4 && !strcmp(argv[1], "clients") && i > 3 && i < argc - 1)
		clients(argv[2], i - 3, argv + 3, argc - i - 1, argv + i + 1);
	fprintf(stderr, "usage: demo-scene serve ADDR...\n"
			"       demo-scene clients OUTDIR BACKEND... -- NSPATH...\n");
	return 2;
}
