// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper: hold a world of sockets across network namespaces.
 *
 *   sockworld OUTDIR NETNS...
 *   sockworld --time-wait NETNS
 *   sockworld --crowd OUTDIR NETNS N
 *   sockworld --moves OUTDIR NETNS
 *
 * In each named namespace (/run/netns/NAME) it opens, from this one
 * process (setns() into the namespace, back to its own after each):
 *   backend X  = 127.0.0.1:8080 (TCP, dual stack) and [::]:5353 (UDP)
 *   backend Y  = [::1]:8081 (TCP, IPv6 only)
 *   other      = 127.0.0.2:8082 (TCP), which no test destroys
 *   deferred   = 127.0.0.1:8083 (TCP, TCP_DEFER_ACCEPT), which no test
 *                destroys
 *   TCP: clients to X over IPv4 and IPv4-mapped IPv6, to Y and to other,
 *        with their accepted peers; one TIME_WAIT socket; a client of
 *        deferred, whose data-less ACK the listener ignores, so its server
 *        side stays a request socket (TCP_NEW_SYN_RECV, ss: SYN-RECV)
 *   UDP: an unconnected server on X, clients connected to X (IPv4 and
 *        IPv4-mapped IPv6) and to [::1]:5354, one unconnected bound socket
 * It writes OUTDIR/world (one line per client socket: NETNS ROLE FD) and
 * OUTDIR/ready, then on each SIGUSR1 probes every client socket with a
 * non-blocking recv() and writes OUTDIR/status, lines "NETNS ROLE
 * alive|ERRNO-NAME", then OUTDIR/checked.  SIGTERM ends it.
 *
 * With --time-wait it leaves one fresh TIME_WAIT socket in NETNS and exits.
 *
 * With --crowd it holds N TCP listeners and N UDP sockets on 127.0.0.1:7000
 * (SO_REUSEPORT) in NETNS: N sockets in one bucket of each hash, more
 * than an iterator's first batch holds.  It writes OUTDIR/ready and waits
 * for SIGTERM.
 *
 * With --moves it holds, in NETNS, a UDP socket connected to
 * 127.0.0.3:6000 and a TCP connection to 127.0.0.5:6002 whose three
 * sockets are bound to lo (SO_BINDTODEVICE): the listener, so its child
 * too, before, the client once connected.  It writes OUTDIR/cookie,
 * the UDP socket's SO_COOKIE, then OUTDIR/stage "1"; each SIGUSR1 moves
 * the UDP socket on and writes the next stage: 2 reconnected to
 * 127.0.0.4:6001, 3 disconnected (AF_UNSPEC), 4 connected to
 * 127.0.0.3:6000 again, 5 closed.
 *
 * With --migrate it holds, in NETNS, a request socket of a listener on
 * 127.0.0.6:6003 (TCP_DEFER_ACCEPT: the client's ACK brings no data), then
 * a second listener of its SO_REUSEPORT group, and writes OUTDIR/ready;
 * SIGUSR1 closes the first listener, so that with net.ipv4.tcp_migrate_req
 * the request socket moves to the second, and writes OUTDIR/closed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../bench/world.h"

#define MAX_CLIENTS 16

struct client {
	const char *netns;
	const char *role;
	int fd;
};

static struct client *clients;
static int nclients;
static volatile sig_atomic_t check_requested;

static void die(const char *what)
{
	fprintf(stderr, "sockworld: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void enter(int nsfd)
{
	if (setns(nsfd, CLONE_NEWNET))
		die("setns");
}

static int open_netns(const char *name)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(path);
	return fd;
}

/* A sockaddr for ADDR (v4 or v6 text) and PORT. */
static socklen_t sa(struct sockaddr_storage *ss, int family, const char *addr,
		    int port)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *in = (void *)ss;

		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		if (inet_pton(AF_INET, addr, &in->sin_addr) != 1)
			die(addr);
		return sizeof(*in);
	}
	struct sockaddr_in6 *in6 = (void *)ss;

	in6->sin6_family = AF_INET6;
	in6->sin6_port = htons(port);
	if (inet_pton(AF_INET6, addr, &in6->sin6_addr) != 1)
		die(addr);
	return sizeof(*in6);
}

static int sock_bound(int family, int type, const char *addr, int port,
		      bool v6only)
{
	struct sockaddr_storage ss;
	socklen_t len = sa(&ss, family, addr, port);
	int fd = socket(family, type | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (v6only && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)))
		die("IPV6_V6ONLY");
	if (bind(fd, (void *)&ss, len))
		die("bind");
	if (type == SOCK_STREAM && listen(fd, 64))
		die("listen");
	return fd;
}

static int sock_connected(int family, int type, const char *addr, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = sa(&ss, family, addr, port);
	int fd = socket(family, type | SOCK_CLOEXEC, 0);

	if (fd < 0 || connect(fd, (void *)&ss, len))
		die(addr);
	return fd;
}

static void add_client(const char *netns, const char *role, int fd)
{
	if (nclients % MAX_CLIENTS == 0) {
		clients = realloc(clients, (nclients + MAX_CLIENTS) * sizeof(*clients));
		if (!clients)
			die("realloc");
	}
	clients[nclients++] = (struct client){ netns, role, fd };
}

static void lo_up(void)
{
	int err = world_lo_up();

	if (err) {
		errno = -err;
		die("lo up");
	}
}

/*
 * A client of 127.0.0.1:PORT closed before its accepted peer: the client is
 * left in TIME_WAIT.
 */
static void time_wait(int listener, int port)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int c = sock_connected(AF_INET, SOCK_STREAM, "127.0.0.1", port);
	int p = accept4(listener, NULL, NULL, SOCK_CLOEXEC);

	if (p < 0)
		die("accept");
	close(c);
	nanosleep(&ts, NULL);
	close(p);
}

static void build(const char *netns)
{
	/* ROLE, FAMILY, ADDR, PORT, and for TCP the listener (lst[]) */
	static const struct {
		const char *role;
		int family;
		const char *addr;
		int port;
		int listener;
	} tcp[] = {
		{ "tcp-x-v4", AF_INET, "127.0.0.1", 8080, 0 },
		{ "tcp-x-mapped", AF_INET6, "::ffff:127.0.0.1", 8080, 0 },
		{ "tcp-y-v6", AF_INET6, "::1", 8081, 1 },
		{ "tcp-other", AF_INET, "127.0.0.2", 8082, 2 },
	}, udp[] = {
		{ "udp-x-v4", AF_INET, "127.0.0.1", 5353, 0 },
		{ "udp-x-mapped", AF_INET6, "::ffff:127.0.0.1", 5353, 0 },
		{ "udp-y-v6", AF_INET6, "::1", 5354, 0 },
	};
	int lst[4], i, p, defer = 3600;
	char cmd[512];

	lo_up();
	snprintf(cmd, sizeof(cmd), "ip -n %s addr add 127.0.0.2/8 dev lo 2>/dev/null", netns);
	if (system(cmd) < 0)
		die("ip addr add");
	lst[0] = sock_bound(AF_INET6, SOCK_STREAM, "::", 8080, false);
	lst[1] = sock_bound(AF_INET6, SOCK_STREAM, "::1", 8081, true);
	lst[2] = sock_bound(AF_INET, SOCK_STREAM, "127.0.0.2", 8082, false);
	lst[3] = sock_bound(AF_INET, SOCK_STREAM, "127.0.0.1", 8083, false);
	if (setsockopt(lst[3], IPPROTO_TCP, TCP_DEFER_ACCEPT, &defer, sizeof(defer)))
		die("TCP_DEFER_ACCEPT");
	for (i = 0; i < 4; i++) {
		add_client(netns, tcp[i].role,
			   sock_connected(tcp[i].family, SOCK_STREAM, tcp[i].addr, tcp[i].port));
		p = accept4(lst[tcp[i].listener], NULL, NULL, SOCK_CLOEXEC);
		if (p < 0)
			die("accept");
		/* the peer stays open, held by this process */
	}
	time_wait(lst[0], 8080);
	add_client(netns, "tcp-req", sock_connected(AF_INET, SOCK_STREAM, "127.0.0.1", 8083));
	sock_bound(AF_INET6, SOCK_DGRAM, "::", 5353, false);
	for (i = 0; i < 3; i++)
		add_client(netns, udp[i].role,
			   sock_connected(udp[i].family, SOCK_DGRAM, udp[i].addr, udp[i].port));
	add_client(netns, "udp-unconnected",
		   sock_bound(AF_INET, SOCK_DGRAM, "0.0.0.0", 6000, false));
}

/* One more socket of @type on 127.0.0.1:7000, beside the others. */
static void crowd(int type)
{
	struct sockaddr_storage ss;
	socklen_t len = sa(&ss, AF_INET, "127.0.0.1", 7000);
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) ||
	    bind(fd, (void *)&ss, len) || (type == SOCK_STREAM && listen(fd, 8)))
		die("crowd");
}

static const char *probe(int fd)
{
	char c;

	if (recv(fd, &c, 1, MSG_DONTWAIT) >= 0 || errno == EAGAIN)
		return "alive";
	return strerrorname_np(errno) ?: "unknown";
}

static void on_usr1(int sig __attribute__((unused)))
{
	check_requested = 1;
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		die(path);
}

static void bind_lo(int fd)
{
	if (setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, "lo", 3))
		die("SO_BINDTODEVICE");
}

static void moves(const char *dir, sigset_t *wait)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int u, l, c, stage;
	unsigned long long cookie;
	char text[32];

	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 || c < 0)
		die("socket");
	bind_lo(l);
	len = sa(&ss, AF_INET, "127.0.0.5", 6002);
	if (bind(l, (void *)&ss, len) || listen(l, 8) ||
	    connect(c, (void *)&ss, len) || accept4(l, NULL, NULL, SOCK_CLOEXEC) < 0)
		die("bound connection");
	bind_lo(c);	/* once connected: the hash tables keep it unbound */
	u = sock_connected(AF_INET, SOCK_DGRAM, "127.0.0.3", 6000);
	len = sizeof(cookie);
	if (getsockopt(u, SOL_SOCKET, SO_COOKIE, &cookie, &len))
		die("SO_COOKIE");
	snprintf(text, sizeof(text), "%llu\n", cookie);
	write_file(dir, "cookie", text);
	for (stage = 1;; stage++) {
		snprintf(text, sizeof(text), "%d\n", stage);
		write_file(dir, "stage", text);
		do
			sigsuspend(wait);
		while (!check_requested);
		check_requested = 0;
		if (stage == 1) {
			len = sa(&ss, AF_INET, "127.0.0.4", 6001);
		} else if (stage == 2) {
			memset(&ss, 0, sizeof(ss));
			ss.ss_family = AF_UNSPEC;
			len = sizeof(ss);
		} else if (stage == 3) {
			len = sa(&ss, AF_INET, "127.0.0.3", 6000);
		} else {
			close(u);
			continue;
		}
		if (connect(u, (void *)&ss, len))
			die("reconnect");
	}
}

static int reuseport_listener(void)
{
	struct sockaddr_storage ss;
	socklen_t len = sa(&ss, AF_INET, "127.0.0.6", 6003);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	int defer = 30;

	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) ||
	    setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &defer, sizeof(defer)) ||
	    bind(fd, (void *)&ss, len) || listen(fd, 8))
		die("reuseport listener");
	return fd;
}

static void migrate(const char *dir, sigset_t *wait)
{
	int first = reuseport_listener();

	sock_connected(AF_INET, SOCK_STREAM, "127.0.0.6", 6003);
	reuseport_listener();
	write_file(dir, "ready", "");
	do
		sigsuspend(wait);
	while (!check_requested);
	close(first);
	write_file(dir, "closed", "");
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	char path[4096], tmp[4096];
	int self, nsfd, i;
	sigset_t block, old;
	FILE *f;

	if (argc == 3 && !strcmp(argv[1], "--time-wait")) {
		enter(open_netns(argv[2]));
		lo_up();
		time_wait(sock_bound(AF_INET, SOCK_STREAM, "127.0.0.1", 8090, false), 8090);
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "--crowd")) {
		enter(open_netns(argv[3]));
		lo_up();
		for (i = atoi(argv[4]); i > 0; i--) {
			crowd(SOCK_STREAM);
			crowd(SOCK_DGRAM);
		}
		write_file(argv[2], "ready", "");
		for (;;)
			pause();
	}
	if (argc < 3) {
		fprintf(stderr, "usage: sockworld OUTDIR NETNS... | sockworld --time-wait NETNS | sockworld --crowd OUTDIR NETNS N | sockworld --moves OUTDIR NETNS | sockworld --migrate OUTDIR NETNS\n");
		return 2;
	}
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &old);
	signal(SIGUSR1, on_usr1);
	if (argc == 4 && !strcmp(argv[1], "--moves")) {
		enter(open_netns(argv[3]));
		lo_up();
		moves(argv[2], &old);
	}
	if (argc == 4 && !strcmp(argv[1], "--migrate")) {
		enter(open_netns(argv[3]));
		lo_up();
		migrate(argv[2], &old);
	}
	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0)
		die("/proc/self/ns/net");
	for (i = 2; i < argc; i++) {
		nsfd = open_netns(argv[i]);
		enter(nsfd);
		build(argv[i]);
		enter(self);
		close(nsfd);
	}
	snprintf(path, sizeof(path), "%s/world", argv[1]);
	f = fopen(path, "w");
	if (!f)
		die(path);
	for (i = 0; i < nclients; i++)
		fprintf(f, "%s %s %d\n", clients[i].netns, clients[i].role, clients[i].fd);
	if (fclose(f))
		die(path);
	write_file(argv[1], "ready", "");
	for (;;) {
		sigsuspend(&old);
		if (!check_requested)
			continue;
		check_requested = 0;
		snprintf(tmp, sizeof(tmp), "%s/status.tmp", argv[1]);
		f = fopen(tmp, "w");
		if (!f)
			die(tmp);
		for (i = 0; i < nclients; i++)
			fprintf(f, "%s %s %s\n", clients[i].netns, clients[i].role,
				probe(clients[i].fd));
		snprintf(path, sizeof(path), "%s/status", argv[1]);
		if (fclose(f) || rename(tmp, path))
			die(path);
		write_file(argv[1], "checked", "");
	}
}
