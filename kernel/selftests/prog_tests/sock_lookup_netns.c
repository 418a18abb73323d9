// SPDX-License-Identifier: GPL-2.0
#include <net/if.h>
#include <sched.h>
#include <test_progs.h>
#include "cap_helpers.h"
#include "network_helpers.h"
#include "sock_lookup_netns.skel.h"
#include "verifier_sock_lookup_netns.skel.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

#define NS_T "sock_lookup_netns"

static __u64 sock_cookie(int fd, int optname)
{
	socklen_t len = sizeof(__u64);
	__u64 cookie = 0;

	ASSERT_OK(getsockopt(fd, SOL_SOCKET, optname, &cookie, &len),
		  "getsockopt");
	return cookie;
}

static __u64 cookie(int fd)
{
	return sock_cookie(fd, SO_COOKIE);
}

/* Set the tuple of @fd as bpf_sk_lookup_tcp() takes it: saddr the peer. */
static void set_tuple(struct sock_lookup_netns *skel, int fd, int protocol)
{
	struct sockaddr_storage self, peer;
	socklen_t len = sizeof(self);
	struct bpf_sock_tuple *t = &skel->bss->tuple;

	ASSERT_OK(getsockname(fd, (struct sockaddr *)&self, &len), "getsockname");
	len = sizeof(peer);
	ASSERT_OK(getpeername(fd, (struct sockaddr *)&peer, &len), "getpeername");
	memset(t, 0, sizeof(*t));
	skel->bss->protocol = protocol;
	skel->bss->v6 = self.ss_family == AF_INET6;
	if (self.ss_family == AF_INET) {
		struct sockaddr_in *s = (void *)&self, *p = (void *)&peer;

		t->ipv4.saddr = p->sin_addr.s_addr;
		t->ipv4.sport = p->sin_port;
		t->ipv4.daddr = s->sin_addr.s_addr;
		t->ipv4.dport = s->sin_port;
	} else {
		struct sockaddr_in6 *s = (void *)&self, *p = (void *)&peer;

		memcpy(t->ipv6.saddr, &p->sin6_addr, 16);
		t->ipv6.sport = p->sin6_port;
		memcpy(t->ipv6.daddr, &s->sin6_addr, 16);
		t->ipv6.dport = s->sin6_port;
	}
}

/*
 * Run the lookup of @fd's tuple, or with @fd < 0 of the last one; the
 * cookie of the socket found, or 0.
 */
static __u64 run_lookup(struct sock_lookup_netns *skel, int fd, int protocol,
			bool destroy)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);

	if (fd >= 0)
		set_tuple(skel, fd, protocol);
	skel->bss->destroy = destroy;
	if (!ASSERT_OK(bpf_prog_test_run_opts(bpf_program__fd(skel->progs.lookup_destroy),
					      &opts), "test_run"))
		return 0;
	return skel->bss->found_cookie;
}

/*
 * TCP and UDP, IPv4 and IPv6, in a namespace the test is not in: the
 * client and the accepted socket are found by their tuples and
 * destroyed, and the peer of the client sees ECONNABORTED on its next
 * recv(); the unconnected UDP server is not found by the tuple it
 * receives from.
 */
static void test_lookup_destroy(struct sock_lookup_netns *skel, int family,
				int type)
{
	const char *addr = family == AF_INET ? "127.0.0.1" : "::1";
	int protocol = type == SOCK_STREAM ? IPPROTO_TCP : IPPROTO_UDP;
	int srv = -1, cli = -1, acc = -1, home = -1, home_sock;
	struct netns_obj *ns = NULL;
	char buf;

	home_sock = socket(family, type, 0);
	if (!ASSERT_OK_FD(home_sock, "socket in the test's namespace"))
		return;
	home = open("/proc/self/ns/net", O_RDONLY);
	if (!ASSERT_OK_FD(home, "open home netns"))
		goto out;
	ns = netns_new(NS_T, true);
	if (!ASSERT_OK_PTR(ns, "netns_new"))
		goto out;
	srv = start_server(family, type, addr, 0, 0);
	if (!ASSERT_OK_FD(srv, "start_server"))
		goto out;
	cli = connect_to_fd(srv, 0);
	if (!ASSERT_OK_FD(cli, "connect_to_fd"))
		goto out;
	if (type == SOCK_STREAM) {
		acc = accept(srv, NULL, NULL);
		if (!ASSERT_OK_FD(acc, "accept"))
			goto out;
	}
	skel->bss->netns_cookie = sock_cookie(cli, SO_NETNS_COOKIE);
	/* Look up from the namespace the test came from. */
	if (!ASSERT_OK(setns(home, CLONE_NEWNET), "setns home"))
		goto out;

	if (acc >= 0)
		ASSERT_EQ(run_lookup(skel, acc, protocol, false), cookie(acc),
			  "accepted socket found");
	/* The same tuple in the namespace the test runs in: nothing. */
	skel->bss->netns_cookie = sock_cookie(home_sock, SO_NETNS_COOKIE);
	ASSERT_EQ(run_lookup(skel, cli, protocol, false), 0,
		  "not in another namespace");
	skel->bss->netns_cookie = sock_cookie(cli, SO_NETNS_COOKIE);
	ASSERT_EQ(run_lookup(skel, cli, protocol, true), cookie(cli),
		  "client found");
	ASSERT_OK(skel->bss->destroy_err, "destroy");
	ASSERT_EQ(recv(cli, &buf, 1, MSG_DONTWAIT), -1, "recv after destroy");
	ASSERT_EQ(errno, ECONNABORTED, "ECONNABORTED");
	ASSERT_EQ(run_lookup(skel, -1, protocol, false), 0,
		  "a destroyed socket is unhashed or disconnected");
out:
	if (home >= 0)
		setns(home, CLONE_NEWNET);
	close(acc);
	close(cli);
	close(srv);
	netns_free(ns);
	close(home);
	close(home_sock);
}

/*
 * Create and enter a namespace with an IPv4 server of @type and a client
 * connected to it, and name it to the program; NULL on failure.
 */
static struct netns_obj *ns_pair(struct sock_lookup_netns *skel, int type,
				 int *srv, int *cli)
{
	struct netns_obj *ns = netns_new(NS_T, true);

	if (!ASSERT_OK_PTR(ns, "netns_new"))
		return NULL;
	*srv = start_server(AF_INET, type, "127.0.0.1", 0, 0);
	*cli = *srv < 0 ? -1 : connect_to_fd(*srv, 0);
	if (!ASSERT_OK_FD(*srv, "start_server") || !ASSERT_OK_FD(*cli, "connect")) {
		close(*srv);
		netns_free(ns);
		return NULL;
	}
	skel->bss->netns_cookie = sock_cookie(*cli, SO_NETNS_COOKIE);
	return ns;
}

/*
 * A UDP server bound to an address and port, not connected, is not found
 * by the tuple of a datagram it receives: only a connected socket is.
 */
static void test_unconnected_udp(struct sock_lookup_netns *skel)
{
	struct bpf_sock_tuple *t = &skel->bss->tuple;
	int srv = -1, cli = -1;
	struct netns_obj *ns;
	__u32 addr;
	__u16 port;

	ns = ns_pair(skel, SOCK_DGRAM, &srv, &cli);
	if (!ns)
		return;
	ASSERT_EQ(run_lookup(skel, cli, IPPROTO_UDP, false), cookie(cli),
		  "connected client found");
	/* The client's tuple seen from the server. */
	addr = t->ipv4.saddr;
	t->ipv4.saddr = t->ipv4.daddr;
	t->ipv4.daddr = addr;
	port = t->ipv4.sport;
	t->ipv4.sport = t->ipv4.dport;
	t->ipv4.dport = port;
	ASSERT_EQ(run_lookup(skel, -1, IPPROTO_UDP, false), 0,
		  "unconnected server not found");
	close(cli);
	close(srv);
	netns_free(ns);
}

/*
 * A TIME_WAIT socket, which has no lock and does not pin its namespace,
 * is found by the tuple its connection had, and destroyed: descheduled.
 */
static void test_time_wait(struct sock_lookup_netns *skel)
{
	int srv = -1, cli = -1, acc, i;
	struct netns_obj *ns;
	__u64 cli_cookie;

	ns = ns_pair(skel, SOCK_STREAM, &srv, &cli);
	if (!ns)
		return;
	acc = accept(srv, NULL, NULL);
	if (!ASSERT_OK_FD(acc, "accept"))
		goto out;
	cli_cookie = cookie(cli);
	set_tuple(skel, cli, IPPROTO_TCP);
	/* The client closes first, so it is the side left in TIME_WAIT. */
	close(cli);
	cli = -1;
	close(acc);
	for (i = 0; i < 1000; i++) {
		if (run_lookup(skel, -1, IPPROTO_TCP, false) == cli_cookie &&
		    skel->bss->found_state == BPF_TCP_TIME_WAIT)
			break;
		usleep(1000);
	}
	if (!ASSERT_EQ(skel->bss->found_state, BPF_TCP_TIME_WAIT, "TIME_WAIT found"))
		goto out;
	ASSERT_EQ(run_lookup(skel, -1, IPPROTO_TCP, true), cli_cookie, "destroy");
	ASSERT_OK(skel->bss->destroy_err, "destroyed");
	ASSERT_EQ(run_lookup(skel, -1, IPPROTO_TCP, false), 0, "descheduled");
out:
	close(cli);
	close(srv);
	netns_free(ns);
}

/*
 * bpf_netns_scope_init()'s rule, judged for the task that runs the
 * program: without CAP_SYS_ADMIN it reaches its own namespace only; and
 * without CAP_NET_ADMIN over the socket's namespace it destroys nothing.
 */
static void test_privilege(struct sock_lookup_netns *skel)
{
	int srv = -1, cli = -1, home = -1;
	struct netns_obj *ns;
	__u64 old_caps;

	home = open("/proc/self/ns/net", O_RDONLY);
	if (!ASSERT_OK_FD(home, "open home netns"))
		return;
	ns = ns_pair(skel, SOCK_STREAM, &srv, &cli);
	if (!ns)
		goto out;

	if (!ASSERT_OK(cap_disable_effective(1ULL << CAP_SYS_ADMIN |
					     1ULL << CAP_NET_ADMIN, &old_caps),
		       "drop CAP_SYS_ADMIN, CAP_NET_ADMIN"))
		goto out;
	ASSERT_EQ(run_lookup(skel, cli, IPPROTO_TCP, false), cookie(cli),
		  "own namespace reached");
	cap_enable_effective(old_caps, NULL);

	/* setns() itself needs CAP_SYS_ADMIN: drop it once home. */
	if (!ASSERT_OK(setns(home, CLONE_NEWNET), "setns home"))
		goto out;
	ASSERT_EQ(run_lookup(skel, -1, IPPROTO_TCP, false), cookie(cli),
		  "reached with CAP_SYS_ADMIN");
	if (!ASSERT_OK(cap_disable_effective(1ULL << CAP_SYS_ADMIN, &old_caps),
		       "drop CAP_SYS_ADMIN"))
		goto out;
	ASSERT_EQ(run_lookup(skel, -1, IPPROTO_TCP, false), 0,
		  "another namespace out of reach");
	cap_enable_effective(old_caps, NULL);

	if (!ASSERT_OK(cap_disable_effective(1ULL << CAP_NET_ADMIN, &old_caps),
		       "drop CAP_NET_ADMIN"))
		goto out;
	ASSERT_EQ(run_lookup(skel, -1, IPPROTO_TCP, true), cookie(cli),
		  "found without CAP_NET_ADMIN");
	ASSERT_EQ(skel->bss->destroy_err, -EPERM, "not destroyed without it");
	cap_enable_effective(old_caps, NULL);
	ASSERT_EQ(run_lookup(skel, -1, IPPROTO_TCP, false), cookie(cli),
		  "still there");
out:
	setns(home, CLONE_NEWNET);
	close(cli);
	close(srv);
	netns_free(ns);
	close(home);
}

/*
 * A socket bound to a device is found by its tuple and that device's
 * ifindex only, as sock_diag finds it; one bound to none, whatever the
 * ifindex.  A protocol neither TCP nor UDP is refused.
 */
static void test_bound_device(struct sock_lookup_netns *skel)
{
	int srv = -1, cli = -1, acc = -1, lo;
	struct netns_obj *ns;
	char buf;

	ns = ns_pair(skel, SOCK_STREAM, &srv, &cli);
	if (!ns)
		return;
	lo = if_nametoindex("lo");
	if (!ASSERT_GT(lo, 0, "if_nametoindex"))
		goto out;
	acc = accept(srv, NULL, NULL);
	if (!ASSERT_OK_FD(acc, "accept"))
		goto out;
	skel->bss->ifindex = lo;
	ASSERT_EQ(run_lookup(skel, acc, IPPROTO_TCP, false), cookie(acc),
		  "unbound socket found by any ifindex");
	if (!ASSERT_OK(setsockopt(cli, SOL_SOCKET, SO_BINDTODEVICE, "lo", 3),
		       "SO_BINDTODEVICE"))
		goto out;
	skel->bss->ifindex = 0;
	ASSERT_EQ(run_lookup(skel, cli, IPPROTO_TCP, false), 0,
		  "bound socket not found without its ifindex");
	ASSERT_EQ(skel->bss->lookup_err, -ENOENT, "-ENOENT");
	skel->bss->ifindex = lo + 1;
	ASSERT_EQ(run_lookup(skel, -1, IPPROTO_TCP, false), 0,
		  "bound socket not found by another ifindex");
	skel->bss->ifindex = lo;
	ASSERT_EQ(run_lookup(skel, -1, IPPROTO_TCP, true), cookie(cli),
		  "bound socket found by its ifindex");
	ASSERT_OK(skel->bss->destroy_err, "destroy");
	ASSERT_EQ(recv(cli, &buf, 1, MSG_DONTWAIT), -1, "recv after destroy");
	ASSERT_EQ(errno, ECONNABORTED, "ECONNABORTED");

	skel->bss->protocol = IPPROTO_ICMP;
	ASSERT_EQ(run_lookup(skel, -1, IPPROTO_ICMP, false), 0, "ICMP");
	ASSERT_EQ(skel->bss->lookup_err, -EINVAL, "-EINVAL");
out:
	skel->bss->ifindex = 0;
	close(acc);
	close(cli);
	close(srv);
	netns_free(ns);
}

/* A bpf_wq callback runs in a kworker, not as the caller: it finds nothing. */
static void test_async_callback(struct sock_lookup_netns *skel)
{
	int srv = -1, cli = -1, i;
	struct netns_obj *ns;

	ns = ns_pair(skel, SOCK_STREAM, &srv, &cli);
	if (!ns)
		return;
	ASSERT_EQ(run_lookup(skel, cli, IPPROTO_TCP, false),
		  cookie(cli), "found by the program");

	skel->bss->wq_found = 0;
	if (!ASSERT_OK(bpf_prog_test_run_opts(bpf_program__fd(skel->progs.lookup_from_wq),
					      NULL), "test_run wq"))
		goto out;
	for (i = 0; i < 10000 && !READ_ONCE(skel->bss->wq_found); i++)
		usleep(1000);
	ASSERT_EQ(skel->bss->wq_found, 1, "nothing found by the callback");
	ASSERT_EQ(READ_ONCE(skel->bss->wq_err), -EPERM, "-EPERM");
out:
	close(cli);
	close(srv);
	netns_free(ns);
}

void test_sock_lookup_netns(void)
{
	struct sock_lookup_netns *skel;

	skel = sock_lookup_netns__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	if (test__start_subtest("tcp4"))
		test_lookup_destroy(skel, AF_INET, SOCK_STREAM);
	if (test__start_subtest("tcp6"))
		test_lookup_destroy(skel, AF_INET6, SOCK_STREAM);
	if (test__start_subtest("udp4"))
		test_lookup_destroy(skel, AF_INET, SOCK_DGRAM);
	if (test__start_subtest("udp6"))
		test_lookup_destroy(skel, AF_INET6, SOCK_DGRAM);
	if (test__start_subtest("unconnected_udp"))
		test_unconnected_udp(skel);
	if (test__start_subtest("tcp_time_wait"))
		test_time_wait(skel);
	if (test__start_subtest("bound_device"))
		test_bound_device(skel);
	if (test__start_subtest("privilege"))
		test_privilege(skel);
	if (test__start_subtest("async_callback"))
		test_async_callback(skel);
	sock_lookup_netns__destroy(skel);
}

void test_verifier_sock_lookup_netns(void)
{
	RUN_TESTS(verifier_sock_lookup_netns);
}
