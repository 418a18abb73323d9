// SPDX-License-Identifier: GPL-2.0
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <test_progs.h>
#include <time.h>
#include "cap_helpers.h"
#include "network_helpers.h"
#include "netns_iter.skel.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

#define NS_A "netns_iter_a"
#define NS_B "netns_iter_b"
#define MAX_RECS 4096
#define NR_SOCKS 6

/* What the programs write per object, see progs/netns_iter.c. */
struct iter_out {
	__u64 netns_cookie;
	__u64 sock_cookie;
};

static struct iter_out recs[MAX_RECS];
static int nr_recs;
static bool keep_recs;

/* A fresh namespace, entered, and the sockets opened in it. */
struct ns_socks {
	struct netns_obj *ns;
	__u64 cookie;
	int fds[NR_SOCKS];
	__u64 sk_cookies[NR_SOCKS];
	int nr;
};

static __u64 sock_cookie(int fd, int optname)
{
	socklen_t len = sizeof(__u64);
	__u64 cookie = 0;

	ASSERT_OK(getsockopt(fd, SOL_SOCKET, optname, &cookie, &len),
		  "getsockopt");
	return cookie;
}

static int add_fd(struct ns_socks *w, int fd)
{
	if (!ASSERT_OK_FD(fd, "socket"))
		return -1;
	w->fds[w->nr] = fd;
	w->sk_cookies[w->nr++] = sock_cookie(fd, SO_COOKIE);
	return 0;
}

/*
 * Create and enter namespace @name, then open per family a TCP listener,
 * a client and the accepted peer, or a UDP server and a connected client.
 */
static int ns_socks_init(struct ns_socks *w, const char *name, int type)
{
	static const struct {
		int family;
		const char *addr;
	} fam[] = {
		{ AF_INET, "127.0.0.1" },
		{ AF_INET6, "::1" },
	};
	int i, srv;

	w->ns = netns_new(name, true);
	if (!ASSERT_OK_PTR(w->ns, "netns_new"))
		return -1;
	for (i = 0; i < ARRAY_SIZE(fam); i++) {
		srv = start_server(fam[i].family, type, fam[i].addr, 0, 0);
		if (add_fd(w, srv) || add_fd(w, connect_to_fd(srv, 0)))
			return -1;
		if (type == SOCK_STREAM && add_fd(w, accept(srv, NULL, NULL)))
			return -1;
	}
	w->cookie = sock_cookie(w->fds[0], SO_NETNS_COOKIE);
	return 0;
}

/* Close the sockets, go back to the namespace @w was entered from. */
static void ns_socks_fini(struct ns_socks *w)
{
	int i;

	for (i = 0; i < w->nr; i++)
		close(w->fds[i]);
	netns_free(w->ns);
}

/* ring_buffer_sample_fn: the next record, while recs[] has room. */
static int add_rec(void *ctx, void *data, size_t size)
{
	if (!keep_recs)
		return 0;
	if (nr_recs == MAX_RECS)
		return -E2BIG;
	memcpy(&recs[nr_recs++], data, sizeof(recs[0]));
	return 0;
}

/*
 * Read the iterator of @link one record per read(), so that every read()
 * stops the walk and the next one resumes it, then take what socket walks
 * recorded in @skel's walk_out ring buffer.  Return the record count.
 */
static int read_recs(struct netns_iter *skel, struct bpf_link *link)
{
	struct ring_buffer *rb;
	int iter_fd, len = -1;

	nr_recs = 0;
	rb = ring_buffer__new(bpf_map__fd(skel->maps.walk_out), add_rec,
			      NULL, NULL);
	if (!ASSERT_OK_PTR(rb, "ring_buffer__new"))
		return 0;
	/* What an earlier test left unread goes. */
	keep_recs = false;
	ring_buffer__consume(rb);
	skel->bss->nr_lost = 0;
	keep_recs = true;

	iter_fd = bpf_iter_create(bpf_link__fd(link));
	if (!ASSERT_OK_FD(iter_fd, "bpf_iter_create"))
		goto out;
	while (nr_recs < MAX_RECS) {
		len = read(iter_fd, &recs[nr_recs], sizeof(recs[0]));
		if (len != sizeof(recs[0]))
			break;
		nr_recs++;
	}
	ASSERT_EQ(len, 0, "read to the end");
	close(iter_fd);
	ASSERT_GE(ring_buffer__consume(rb), 0, "walk records");
	ASSERT_EQ(skel->bss->nr_lost, 0, "walk records lost");
out:
	ring_buffer__free(rb);
	return nr_recs;
}

static int nr_seen(int n, __u64 netns, __u64 sock)
{
	int i, seen = 0;

	for (i = 0; i < n; i++)
		if (recs[i].netns_cookie == netns && recs[i].sock_cookie == sock)
			seen++;
	return seen;
}

static void check_no_dups(int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!ASSERT_EQ(nr_seen(n, recs[i].netns_cookie,
				       recs[i].sock_cookie), 1, "seen once"))
			return;
}

static void check_all_seen(int n, const struct ns_socks *w)
{
	int i;

	for (i = 0; i < w->nr; i++)
		ASSERT_EQ(nr_seen(n, w->cookie, w->sk_cookies[i]), 1,
			  "socket seen once");
}

/* Exactly the sockets of @want, none of @other's. */
static void check_only(int n, const struct ns_socks *want,
		       const struct ns_socks *other)
{
	int i;

	check_no_dups(n);
	check_all_seen(n, want);
	for (i = 0; i < other->nr; i++)
		ASSERT_EQ(nr_seen(n, other->cookie, other->sk_cookies[i]), 0,
			  "other netns socket not seen");
	for (i = 0; i < n; i++)
		if (!ASSERT_EQ(recs[i].netns_cookie, want->cookie, "netns"))
			break;
}

/* TCP sockets of @w but its listeners, each once. */
static void check_all_but_listeners(int n, const struct ns_socks *w)
{
	int i;

	/* Per family: the listener, the client, the accepted peer. */
	for (i = 0; i < w->nr; i++)
		ASSERT_EQ(nr_seen(n, w->cookie, w->sk_cookies[i]), i % 3 ? 1 : 0,
			  i % 3 ? "connected socket seen" : "listener skipped");
}

static void check_link_info(struct bpf_link *link, __u64 netns_cookie,
			    __u32 flags)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);

	if (!ASSERT_OK(bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &len),
		       "bpf_link_get_info_by_fd"))
		return;
	ASSERT_EQ(info.iter.sock.netns_cookie, netns_cookie,
		  "link_info netns_cookie");
	ASSERT_EQ(info.iter.sock.flags, flags, "link_info flags");
}

static struct bpf_link *attach_sock_iter(struct bpf_program *prog, __u32 fd,
					 __u64 cookie, __u32 flags)
{
	DECLARE_LIBBPF_OPTS(bpf_iter_attach_opts, opts);
	union bpf_iter_link_info linfo = {};

	linfo.sock.netns_fd = fd;
	linfo.sock.netns_cookie = cookie;
	linfo.sock.flags = flags;
	opts.link_info = &linfo;
	opts.link_info_len = sizeof(linfo);
	return bpf_program__attach_iter(prog, &opts);
}

static void test_netns(struct netns_iter *skel)
{
	struct ns_socks a = {}, b = {};
	struct bpf_link *link;
	int n;

	if (ns_socks_init(&a, NS_A, SOCK_DGRAM) ||
	    ns_socks_init(&b, NS_B, SOCK_DGRAM))
		goto out;

	link = bpf_program__attach_iter(skel->progs.dump_netns, NULL);
	if (!ASSERT_OK_PTR(link, "attach_iter"))
		goto out;
	n = read_recs(skel, link);
	check_no_dups(n);
	ASSERT_EQ(nr_seen(n, a.cookie, 0), 1, "netns a seen once");
	ASSERT_EQ(nr_seen(n, b.cookie, 0), 1, "own netns seen once");
	bpf_link__destroy(link);
out:
	ns_socks_fini(&b);
	ns_socks_fini(&a);
}

/* How many namespaces an iterator of @link created now lists, or -1. */
static int nr_netns(struct bpf_link *link)
{
	struct iter_out rec;
	int fd, len, n = 0;

	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0)
		return -1;
	while ((len = read(fd, &rec, sizeof(rec))) == sizeof(rec))
		n++;
	close(fd);
	return len ? -1 : n;
}

/*
 * Who reaches which namespace, bpf_netns_scope_init()'s rule, judged when
 * an iterator of one link is created: root reaches every namespace, also
 * from a child PID namespace (a node agent without hostPID); without
 * CAP_SYS_ADMIN, only its own.
 */
static void test_netns_privilege(struct netns_iter *skel)
{
	struct bpf_link *link = NULL;
	struct ns_socks a = {};
	int all, status = -1;
	__u64 old_caps;
	pid_t pid;

	if (ns_socks_init(&a, NS_A, SOCK_DGRAM))
		goto out;
	link = bpf_program__attach_iter(skel->progs.dump_netns, NULL);
	if (!ASSERT_OK_PTR(link, "attach_iter"))
		goto out;
	all = nr_netns(link);
	ASSERT_GE(all, 2, "root reaches more than its own");

	if (!ASSERT_OK(cap_disable_effective(1ULL << CAP_SYS_ADMIN, &old_caps),
		       "drop CAP_SYS_ADMIN"))
		goto out;
	ASSERT_EQ(nr_netns(link), 1, "its own namespace only");
	cap_enable_effective(old_caps, NULL);

	/* A child in a new PID namespace reads it from a grandchild. */
	pid = fork();
	if (!ASSERT_GE(pid, 0, "fork"))
		goto out;
	if (!pid) {
		if (unshare(CLONE_NEWPID))
			_exit(2);
		pid = fork();
		if (pid < 0)
			_exit(3);
		if (!pid)
			_exit(nr_netns(link) != all ? 5 : 0);
		_exit(waitpid(pid, &status, 0) == pid && WIFEXITED(status) ?
		      WEXITSTATUS(status) : 6);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid, "waitpid");
	ASSERT_TRUE(WIFEXITED(status), "exited");
	ASSERT_EQ(WEXITSTATUS(status), 0, "a child PID namespace reaches all");
out:
	bpf_link__destroy(link);
	ns_socks_fini(&a);
}

static void test_sock_netns(struct netns_iter *skel, int type, bool by_cookie)
{
	struct bpf_program *prog = type == SOCK_STREAM ? skel->progs.dump_tcp :
							 skel->progs.dump_udp;
	struct ns_socks a = {}, b = {};
	struct bpf_link *link;
	int ns_fd = -1;

	if (ns_socks_init(&a, NS_A, type) || ns_socks_init(&b, NS_B, type))
		goto out;

	if (by_cookie) {
		link = attach_sock_iter(prog, 0, a.cookie, 0);
	} else {
		ns_fd = open("/var/run/netns/" NS_A, O_RDONLY);
		if (!ASSERT_OK_FD(ns_fd, "open netns"))
			goto out;
		link = attach_sock_iter(prog, ns_fd, 0, 0);
		/* The link holds the namespace, not the fd. */
		close(ns_fd);
	}
	if (!ASSERT_OK_PTR(link, "attach_iter"))
		goto out;
	check_link_info(link, a.cookie, 0);
	check_only(read_recs(skel, link), &a, &b);
	bpf_link__destroy(link);
out:
	ns_socks_fini(&b);
	ns_socks_fini(&a);
}

/*
 * The whole-host walk: every socket of both namespaces, or with
 * BPF_SOCK_ITER_SKIP_LISTEN (TCP) every one but their listeners.
 */
static void test_all_netns(struct netns_iter *skel, int type, __u32 flags)
{
	struct bpf_program *prog = type == SOCK_STREAM ? skel->progs.dump_tcp :
							 skel->progs.dump_udp;
	struct ns_socks a = {}, b = {};
	struct bpf_link *link;
	int n;

	if (ns_socks_init(&a, NS_A, type) || ns_socks_init(&b, NS_B, type))
		goto out;

	flags |= BPF_SOCK_ITER_ALL_NETNS;
	link = attach_sock_iter(prog, 0, 0, flags);
	if (!ASSERT_OK_PTR(link, "attach_iter"))
		goto out;
	check_link_info(link, 0, flags);
	n = read_recs(skel, link);
	check_no_dups(n);
	if (flags & BPF_SOCK_ITER_SKIP_LISTEN) {
		check_all_but_listeners(n, &a);
		check_all_but_listeners(n, &b);
	} else {
		check_all_seen(n, &a);
		check_all_seen(n, &b);
	}
	bpf_link__destroy(link);
out:
	ns_socks_fini(&b);
	ns_socks_fini(&a);
}

static int try_attach(int prog_fd, __u32 fd, __u64 cookie, __u32 flags)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts);
	union bpf_iter_link_info linfo = {};
	int link_fd;

	opts.iter_info = &linfo;
	opts.iter_info_len = sizeof(linfo);
	linfo.sock.netns_fd = fd;
	linfo.sock.netns_cookie = cookie;
	linfo.sock.flags = flags;
	link_fd = bpf_link_create(prog_fd, 0, BPF_TRACE_ITER, &opts);
	if (link_fd < 0)
		return link_fd;
	close(link_fd);
	return 0;
}

static void test_attach_errors(struct netns_iter *skel)
{
	struct bpf_program *progs[] = {
		skel->progs.dump_tcp,
		skel->progs.dump_udp,
	};
	int i, prog_fd, ns_fd = -1, uts_fd = -1, closed_fd;
	struct ns_socks a = {};

	if (ns_socks_init(&a, NS_A, SOCK_DGRAM))
		goto out;
	ns_fd = open("/var/run/netns/" NS_A, O_RDONLY);
	if (!ASSERT_OK_FD(ns_fd, "open netns"))
		goto out;
	uts_fd = open("/proc/self/ns/uts", O_RDONLY);
	if (!ASSERT_OK_FD(uts_fd, "open uts ns"))
		goto out;
	closed_fd = dup(ns_fd);
	if (!ASSERT_OK_FD(closed_fd, "dup"))
		goto out;
	close(closed_fd);

	for (i = 0; i < ARRAY_SIZE(progs); i++) {
		prog_fd = bpf_program__fd(progs[i]);
		ASSERT_EQ(try_attach(prog_fd, ns_fd, a.cookie, 0), -EINVAL,
			  "netns_fd and netns_cookie");
		ASSERT_EQ(try_attach(prog_fd, 0, 0, 1U << 31), -EINVAL,
			  "unknown flag");
		ASSERT_EQ(try_attach(prog_fd, 0, 0,
				     BPF_SOCK_ITER_ALL_NETNS | 1U << 31),
			  -EINVAL, "all netns and an unknown flag");
		ASSERT_EQ(try_attach(prog_fd, 0, 0, BPF_SOCK_ITER_SKIP_LISTEN),
			  -EINVAL, "skip listen without all netns");
		ASSERT_EQ(try_attach(prog_fd, ns_fd, 0, BPF_SOCK_ITER_ALL_NETNS),
			  -EINVAL, "all netns and netns_fd");
		ASSERT_EQ(try_attach(prog_fd, 0, a.cookie, BPF_SOCK_ITER_ALL_NETNS),
			  -EINVAL, "all netns and netns_cookie");
		ASSERT_EQ(try_attach(prog_fd, a.fds[0], 0, 0), -EINVAL,
			  "socket fd");
		ASSERT_EQ(try_attach(prog_fd, uts_fd, 0, 0), -EINVAL,
			  "uts namespace fd");
		ASSERT_EQ(try_attach(prog_fd, closed_fd, 0, 0), -EBADF,
			  "closed fd");
		ASSERT_EQ(try_attach(prog_fd, 0, ~0ULL, 0), -ENOENT,
			  "cookie of no namespace");
		ASSERT_OK(try_attach(prog_fd, ns_fd, 0, 0), "netns_fd");
		ASSERT_OK(try_attach(prog_fd, 0, a.cookie, 0), "netns_cookie");
	}
	ASSERT_EQ(try_attach(bpf_program__fd(skel->progs.dump_udp), 0, 0,
			     BPF_SOCK_ITER_ALL_NETNS | BPF_SOCK_ITER_SKIP_LISTEN),
		  -EINVAL, "skip listen with udp");
	/* iter/netns takes no parameter, and refuses one. */
	prog_fd = bpf_program__fd(skel->progs.dump_netns);
	ASSERT_EQ(try_attach(prog_fd, 0, a.cookie, 0), -EINVAL,
		  "netns target and a cookie");
	ASSERT_EQ(try_attach(prog_fd, 0, 0, BPF_SOCK_ITER_ALL_NETNS), -EINVAL,
		  "netns target and a flag");
	ASSERT_OK(try_attach(prog_fd, 0, 0, 0), "netns target, zeroed");
out:
	if (uts_fd >= 0)
		close(uts_fd);
	if (ns_fd >= 0)
		close(ns_fd);
	ns_socks_fini(&a);
}

/*
 * iter.s/netns with bpf_iter_netns_sock_*: namespace a's sockets, read
 * from namespace b; then abort a TCP client or a UDP server.
 */
static void test_netns_sock(struct netns_iter *skel, int type)
{
	struct ns_socks a = {}, b = {};
	struct bpf_link *link;
	int victim, n;
	char buf[1];

	if (ns_socks_init(&a, NS_A, type) || ns_socks_init(&b, NS_B, type))
		goto out;

	skel->bss->target_netns = a.cookie;
	skel->bss->protocol = type == SOCK_STREAM ? IPPROTO_TCP : IPPROTO_UDP;
	skel->bss->skip_listen = false;
	skel->bss->bad_flags = 0;
	skel->bss->abort_cookie = 0;
	link = bpf_program__attach_iter(skel->progs.dump_netns_socks, NULL);
	if (!ASSERT_OK_PTR(link, "attach_iter"))
		goto out;
	check_only(read_recs(skel, link), &a, &b);

	/* fds[1] is the first TCP client, fds[0] the first UDP server. */
	victim = type == SOCK_STREAM ? 1 : 0;
	skel->bss->abort_cookie = a.sk_cookies[victim];
	skel->bss->nr_aborted = 0;
	skel->bss->abort_err = -1;
	read_recs(skel, link);
	ASSERT_EQ(skel->bss->nr_aborted, 1, "nr_aborted");
	ASSERT_OK(skel->bss->abort_err, "bpf_iter_netns_sock_abort");
	if (type == SOCK_STREAM)
		n = send(a.fds[victim], "t", 1, 0);
	else
		n = recv(a.fds[victim], buf, sizeof(buf), MSG_DONTWAIT);
	if (ASSERT_LT(n, 0, "io on aborted socket"))
		ASSERT_EQ(errno, ECONNABORTED, "error on aborted socket");
	bpf_link__destroy(link);
out:
	ns_socks_fini(&b);
	ns_socks_fini(&a);
}

/*
 * BPF_ITER_NETNS_SOCK_SKIP_LISTEN: namespace a's TCP sockets but its
 * listeners; the flag is refused for UDP, and so is an unknown flag.
 */
static void test_netns_sock_skip_listen(struct netns_iter *skel)
{
	struct ns_socks a = {}, b = {};
	struct bpf_link *link;
	int n;

	if (ns_socks_init(&a, NS_A, SOCK_STREAM) ||
	    ns_socks_init(&b, NS_B, SOCK_STREAM))
		goto out;

	skel->bss->target_netns = a.cookie;
	skel->bss->protocol = IPPROTO_TCP;
	skel->bss->skip_listen = true;
	skel->bss->bad_flags = 0;
	skel->bss->abort_cookie = 0;
	link = bpf_program__attach_iter(skel->progs.dump_netns_socks, NULL);
	if (!ASSERT_OK_PTR(link, "attach_iter"))
		goto out;
	n = read_recs(skel, link);
	ASSERT_OK(skel->bss->new_err, "new with SKIP_LISTEN");
	check_no_dups(n);
	ASSERT_EQ(n, a.nr - 2, "sockets but the two listeners");
	check_all_but_listeners(n, &a);

	skel->bss->protocol = IPPROTO_UDP;
	read_recs(skel, link);
	ASSERT_EQ(skel->bss->new_err, -EINVAL, "SKIP_LISTEN with UDP");

	skel->bss->protocol = IPPROTO_TCP;
	skel->bss->skip_listen = false;
	skel->bss->bad_flags = 1U << 31;
	ASSERT_EQ(read_recs(skel, link), 0, "no socket with an unknown flag");
	ASSERT_EQ(skel->bss->new_err, -EINVAL, "unknown flag");
	bpf_link__destroy(link);
out:
	ns_socks_fini(&b);
	ns_socks_fini(&a);
}

static void nested_reset(struct netns_iter *skel, bool inner_stop,
			 bool inner_abort, int outer_limit)
{
	skel->bss->inner_stop = inner_stop;
	skel->bss->inner_abort = inner_abort;
	skel->bss->outer_limit = outer_limit;
	skel->bss->nr_outer = 0;
	skel->bss->nr_pairs = 0;
	skel->bss->nr_self = 0;
	skel->bss->nr_inner_aborted = 0;
	skel->bss->nr_outer_gone = 0;
	skel->bss->nr_bad_abort = 0;
	skel->bss->walk_err = -1;
}

/*
 * Two walks of namespace a, one inside the other: the inner walk reaches
 * the socket the outer walk is at, which takes no lock between next()
 * calls; every pair is seen, early exits release what they hold, and a
 * socket aborted by the inner walk is found gone by the outer one.
 */
static void test_netns_sock_nested(struct netns_iter *skel, int type)
{
	struct ns_socks a = {}, b = {};
	struct bpf_link *link;
	int i, n;

	if (ns_socks_init(&a, NS_A, type) || ns_socks_init(&b, NS_B, type))
		goto out;

	skel->bss->target_netns = a.cookie;
	skel->bss->protocol = type == SOCK_STREAM ? IPPROTO_TCP : IPPROTO_UDP;
	link = bpf_program__attach_iter(skel->progs.nested_walk, NULL);
	if (!ASSERT_OK_PTR(link, "attach_iter"))
		goto out;

	nested_reset(skel, false, false, 0);
	read_recs(skel, link);
	ASSERT_EQ(skel->bss->nr_outer, a.nr, "outer walk");
	ASSERT_EQ(skel->bss->nr_pairs, a.nr * a.nr, "every pair");
	ASSERT_EQ(skel->bss->nr_self, a.nr, "each socket met by itself");
	ASSERT_OK(skel->bss->walk_err, "complete walk");

	nested_reset(skel, true, false, 1);
	read_recs(skel, link);
	ASSERT_EQ(skel->bss->nr_outer, 1, "outer walk stopped after one");
	ASSERT_EQ(skel->bss->nr_self, 1, "inner walk stopped at it");
	ASSERT_LE(skel->bss->nr_pairs, a.nr, "inner walk stopped early");

	if (type == SOCK_STREAM) {
		nested_reset(skel, true, true, 0);
		read_recs(skel, link);
		ASSERT_OK(skel->bss->nr_bad_abort, "aborts: 0 or -ENOENT");
		ASSERT_GT(skel->bss->nr_inner_aborted, 0, "aborted by the inner walk");
		ASSERT_EQ(skel->bss->nr_outer_gone, skel->bss->nr_outer,
			  "gone for the outer walk");
		/* Per family: the listener, the client, the accepted peer. */
		for (i = 1; i < a.nr; i += 3) {
			n = send(a.fds[i], "t", 1, MSG_NOSIGNAL);
			if (ASSERT_LT(n, 0, "send on a killed client"))
				ASSERT_TRUE(errno == ECONNABORTED || errno == ECONNRESET,
					    "ECONNABORTED or ECONNRESET");
		}
	}
	bpf_link__destroy(link);
out:
	ns_socks_fini(&b);
	ns_socks_fini(&a);
}

struct churn {
	int srv;
	int type;
	bool stop;
	int cycles;
};

/* Connect to the server and close again, until told to stop. */
static void *churn_thread(void *arg)
{
	struct churn *c = arg;
	int fd, peer;

	while (!READ_ONCE(c->stop)) {
		fd = connect_to_fd(c->srv, 1000);
		if (fd < 0)
			continue;
		if (c->type == SOCK_DGRAM) {
			send(fd, "c", 1, MSG_DONTWAIT);
			close(fd);
		} else {
			/* Half the time the peer closes first. */
			peer = accept4(c->srv, NULL, NULL, SOCK_NONBLOCK);
			if (peer >= 0 && c->cycles % 2)
				close(peer);
			close(fd);
			if (peer >= 0 && !(c->cycles % 2))
				close(peer);
			while ((peer = accept4(c->srv, NULL, NULL, SOCK_NONBLOCK)) >= 0)
				close(peer);
		}
		c->cycles++;
	}
	return NULL;
}

#define CHURN_SECS 10

/*
 * Walk namespace a for CHURN_SECS, aborting every socket connected to a
 * server there, while a thread connects to it and closes: sockets die and
 * appear under the walk, and their owners close some of them as they are
 * being aborted.
 */
static void test_netns_sock_churn(struct netns_iter *skel, int type)
{
	struct churn c = { .srv = -1, .type = type };
	struct ns_socks a = {};
	struct bpf_link *link = NULL;
	pthread_t thread;
	char buf[64];
	time_t end;
	int fd;

	if (ns_socks_init(&a, NS_A, type))
		goto out;
	c.srv = start_server(AF_INET, type, "127.0.0.1", 0, 0);
	if (!ASSERT_OK_FD(c.srv, "start_server"))
		goto out;
	if (type == SOCK_STREAM &&
	    !ASSERT_OK(fcntl(c.srv, F_SETFL, O_NONBLOCK), "nonblocking listener"))
		goto out;

	skel->bss->target_netns = a.cookie;
	skel->bss->protocol = type == SOCK_STREAM ? IPPROTO_TCP : IPPROTO_UDP;
	skel->bss->churn_port = ntohs(get_socket_local_port(c.srv));
	skel->bss->nr_walks = 0;
	skel->bss->nr_churn_aborted = 0;
	skel->bss->nr_churn_gone = 0;
	skel->bss->nr_churn_bad = 0;
	skel->bss->walk_err = 0;
	link = bpf_program__attach_iter(skel->progs.abort_churn, NULL);
	if (!ASSERT_OK_PTR(link, "attach_iter"))
		goto out;
	if (!ASSERT_OK(pthread_create(&thread, NULL, churn_thread, &c),
		       "pthread_create"))
		goto out;

	end = time(NULL) + CHURN_SECS;
	while (time(NULL) < end) {
		fd = bpf_iter_create(bpf_link__fd(link));
		if (!ASSERT_OK_FD(fd, "bpf_iter_create"))
			break;
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
	WRITE_ONCE(c.stop, true);
	pthread_join(thread, NULL);

	ASSERT_GT(c.cycles, 0, "churn cycles");
	ASSERT_GT(skel->bss->nr_walks, 0, "walks");
	ASSERT_GT(skel->bss->nr_churn_aborted, 0, "sockets aborted");
	ASSERT_EQ(skel->bss->nr_churn_bad, 0, "aborts other than 0 or -ENOENT");
	ASSERT_OK(skel->bss->churn_bad_err, "bad abort error");
	ASSERT_OK(skel->bss->walk_err, "complete walks");
	printf("%s: %d cycles, %d walks, %d aborted, %d gone before abort\n",
	       __func__, c.cycles, skel->bss->nr_walks,
	       skel->bss->nr_churn_aborted, skel->bss->nr_churn_gone);
out:
	bpf_link__destroy(link);
	if (c.srv >= 0)
		close(c.srv);
	ns_socks_fini(&a);
}

/*
 * A fresh skeleton with @name's program, a "?" one, loaded beside those
 * that always load; NULL on failure.
 */
static struct netns_iter *load_one(const char *name)
{
	struct netns_iter *skel = netns_iter__open();
	struct bpf_program *prog;

	if (!ASSERT_OK_PTR(skel, "netns_iter__open"))
		return NULL;
	prog = bpf_object__find_program_by_name(skel->obj, name);
	if (!ASSERT_OK_PTR(prog, name) ||
	    !ASSERT_OK(bpf_program__set_autoload(prog, true), "set_autoload") ||
	    !ASSERT_OK(netns_iter__load(skel), name)) {
		netns_iter__destroy(skel);
		return NULL;
	}
	return skel;
}

#define SLEEPY_PAGES NR_SOCKS

/*
 * A program that faults in a page of user memory, and sleeps on it, at
 * every socket of a walk: the walk holds no lock or RCU section across it
 * and ends complete.
 */
static void test_netns_sock_sleepy(int type)
{
	struct netns_iter *skel = load_one("sleepy_walk");
	size_t len = SLEEPY_PAGES * 4096;
	struct ns_socks a = {};
	struct bpf_link *link;
	char *pages = MAP_FAILED;
	int n;

	if (!skel || ns_socks_init(&a, NS_A, type))
		goto out;
	/* The program steps 4 KiB at a time: a page each, of any size. */
	pages = mmap(NULL, len, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!ASSERT_NEQ(pages, MAP_FAILED, "mmap"))
		goto out;
	skel->bss->target_netns = a.cookie;
	skel->bss->protocol = type == SOCK_STREAM ? IPPROTO_TCP : IPPROTO_UDP;
	skel->bss->user_ptr = (__u64)(unsigned long)pages;
	skel->bss->user_pages = SLEEPY_PAGES;
	link = bpf_program__attach_iter(skel->progs.sleepy_walk, NULL);
	if (!ASSERT_OK_PTR(link, "attach_iter"))
		goto out;
	ASSERT_OK(madvise(pages, len, MADV_DONTNEED), "madvise");
	n = read_recs(skel, link);
	check_no_dups(n);
	check_all_seen(n, &a);
	ASSERT_EQ(skel->bss->nr_sleeps, a.nr, "a sleep at every socket");
	ASSERT_OK(skel->bss->sleep_err, "bpf_copy_from_user");
	ASSERT_OK(skel->bss->walk_err, "complete walk");
	bpf_link__destroy(link);
out:
	if (pages != MAP_FAILED)
		munmap(pages, len);
	ns_socks_fini(&a);
	netns_iter__destroy(skel);
}

/*
 * More output for one namespace than the seq_file buffer holds, written
 * while a socket walk is open: the read fails with E2BIG and the walk is
 * released; less than the buffer reads whole.
 */
static void test_netns_sock_flood(void)
{
	struct netns_iter *skel = load_one("flood_walk");
	struct ns_socks a = {};
	struct bpf_link *link;
	int fd, len, total, err;
	char buf[4096];

	if (!skel || ns_socks_init(&a, NS_A, SOCK_STREAM))
		goto out;
	skel->bss->target_netns = a.cookie;
	skel->bss->protocol = IPPROTO_TCP;
	link = bpf_program__attach_iter(skel->progs.flood_walk, NULL);
	if (!ASSERT_OK_PTR(link, "attach_iter"))
		goto out;

	/* bpf_iter's seq_file buffer is 8 pages. */
	skel->bss->flood_chunks = 16 * getpagesize() / sizeof(buf);
	fd = bpf_iter_create(bpf_link__fd(link));
	if (ASSERT_OK_FD(fd, "bpf_iter_create")) {
		while ((len = read(fd, buf, sizeof(buf))) > 0)
			;
		err = errno;
		ASSERT_EQ(len, -1, "read of an overflowing namespace");
		ASSERT_EQ(err, E2BIG, "E2BIG");
		close(fd);
	}
	ASSERT_EQ(skel->bss->nr_flood_socks, a.nr, "the walk went on to its end");

	skel->bss->flood_chunks = 2;
	skel->bss->nr_flood_socks = 0;
	total = 0;
	fd = bpf_iter_create(bpf_link__fd(link));
	if (ASSERT_OK_FD(fd, "bpf_iter_create")) {
		while ((len = read(fd, buf, sizeof(buf))) > 0)
			total += len;
		ASSERT_OK(len, "read to the end");
		ASSERT_EQ(total, (int)(2 * sizeof(buf)), "all of it");
		close(fd);
	}
	ASSERT_EQ(skel->bss->nr_flood_socks, a.nr, "walk");
	bpf_link__destroy(link);
out:
	ns_socks_fini(&a);
	netns_iter__destroy(skel);
}

#define NR_RUNS_NS 12

/*
 * Runs of an iter/netns program per namespace, with 3 KiB of output each,
 * so that the 8-page seq_file buffer ends reads in the middle of the walk;
 * namespace a returns 1 from its first run, and this test's own namespace
 * writes 40 KiB, more than an empty buffer holds.  Each namespace runs once
 * plus the re-runs the program can tell by meta->seq_num; the big one fails
 * one read with E2BIG, and the walk goes on to its end.
 */
static void test_netns_runs(void)
{
	struct netns_obj *ns[NR_RUNS_NS] = {};
	struct netns_runs { int runs, reruns; } r;
	int fd = -1, len, i, n = 0, nr_e2big = 0, nr_eagain = 0;
	int nr_reads = 0, nr_reruns = 0, sk = -1;
	struct netns_iter *skel = NULL;
	struct bpf_link *link = NULL;
	struct ns_socks a = {};
	__u64 key, next, own;
	static char buf[65536];
	char name[32];

	for (i = 0; i < NR_RUNS_NS; i++) {
		snprintf(name, sizeof(name), "netns_iter_runs%d", i);
		ns[i] = netns_new(name, false);
		if (!ASSERT_OK_PTR(ns[i], "netns_new"))
			goto out;
	}
	sk = socket(AF_INET, SOCK_DGRAM, 0);
	if (!ASSERT_OK_FD(sk, "socket"))
		goto out;
	own = sock_cookie(sk, SO_NETNS_COOKIE);
	if (ns_socks_init(&a, NS_A, SOCK_DGRAM))
		goto out;
	skel = load_one("count_runs");
	if (!skel)
		goto out;
	skel->bss->run_chunks = 3;
	skel->bss->big_chunks = 40;
	skel->bss->big_netns = own;
	skel->bss->retry_netns = a.cookie;
	link = bpf_program__attach_iter(skel->progs.count_runs, NULL);
	if (!ASSERT_OK_PTR(link, "attach_iter"))
		goto out;
	fd = bpf_iter_create(bpf_link__fd(link));
	if (!ASSERT_OK_FD(fd, "bpf_iter_create"))
		goto out;
	while (nr_reads++ < 1000) {
		len = read(fd, buf, sizeof(buf));
		if (!len)
			break;
		if (len < 0 && errno == E2BIG)
			nr_e2big++;
		else if (len < 0 && errno == EAGAIN)
			nr_eagain++;
		else if (!ASSERT_GT(len, 0, "read"))
			break;
	}
	ASSERT_EQ(len, 0, "read to the end");
	ASSERT_EQ(nr_e2big, 1, "one E2BIG");
	ASSERT_LE(nr_eagain, 1, "at most one EAGAIN");

	key = 0;
	while (!bpf_map_get_next_key(bpf_map__fd(skel->maps.runs),
				     n ? &key : NULL, &next)) {
		key = next;
		n++;
		if (!ASSERT_OK(bpf_map_lookup_elem(bpf_map__fd(skel->maps.runs),
						   &key, &r), "lookup"))
			break;
		ASSERT_EQ(r.runs - r.reruns, 1, "one run and its re-runs");
		nr_reruns += r.reruns;
		if (key == a.cookie)
			ASSERT_EQ(r.reruns, 1, "the retried namespace re-ran");
	}
	ASSERT_GE(n, NR_RUNS_NS + 2, "every namespace ran");
	ASSERT_GE(nr_reruns, 2, "re-runs");
out:
	if (fd >= 0)
		close(fd);
	bpf_link__destroy(link);
	netns_iter__destroy(skel);
	if (a.ns)
		ns_socks_fini(&a);
	if (sk >= 0)
		close(sk);
	for (i = 0; i < NR_RUNS_NS; i++)
		netns_free(ns[i]);
}

/*
 * Walks nested 8 deep, 6^8 (1.7 million) steps for namespace a's six
 * sockets: SIGKILL ends the read at once, and what the walks held is
 * released.
 */
static void test_netns_sock_deep(void)
{
	struct netns_iter *skel = load_one("deep_walk");
	struct ns_socks a = {};
	struct bpf_link *link = NULL;
	int fd, status, i;
	pid_t pid, got = 0;
	char buf[64];

	if (!skel || ns_socks_init(&a, NS_A, SOCK_STREAM))
		goto out;
	skel->bss->target_netns = a.cookie;
	skel->bss->protocol = IPPROTO_TCP;
	link = bpf_program__attach_iter(skel->progs.deep_walk, NULL);
	if (!ASSERT_OK_PTR(link, "attach_iter"))
		goto out;
	pid = fork();
	if (!ASSERT_GE(pid, 0, "fork"))
		goto out;
	if (!pid) {
		fd = bpf_iter_create(bpf_link__fd(link));
		while (fd >= 0 && read(fd, buf, sizeof(buf)) > 0)
			;
		_exit(0);
	}
	/* Well into the walk, then killed: it must be gone within 10 s. */
	for (i = 0; i < 1000 && !skel->bss->nr_deep; i++)
		usleep(10000);
	ASSERT_GT(skel->bss->nr_deep, 0, "the walk runs");
	kill(pid, SIGKILL);
	for (i = 0; i < 1000 && !got; i++) {
		got = waitpid(pid, &status, WNOHANG);
		if (!got)
			usleep(10000);
	}
	if (ASSERT_EQ(got, pid, "killed walk ended within 10 s"))
		ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
			    "by SIGKILL");
	else
		waitpid(pid, &status, 0);
out:
	bpf_link__destroy(link);
	ns_socks_fini(&a);
	netns_iter__destroy(skel);
}

#define NR_READERS 8
#define READS_EACH 20

struct reader {
	struct bpf_link *link;
	int want, bad;
};

/*
 * READS_EACH whole reads of the link, each one record: the namespace's
 * count of sockets, want.
 */
static void *reader_thread(void *arg)
{
	struct reader *r = arg;
	struct iter_out out;
	int i, fd, n, len;

	for (i = 0; i < READS_EACH; i++) {
		fd = bpf_iter_create(bpf_link__fd(r->link));
		if (fd < 0) {
			r->bad++;
			continue;
		}
		n = 0;
		while ((len = read(fd, &out, sizeof(out))) == sizeof(out))
			if (n++ || out.sock_cookie != r->want)
				r->bad++;
		if (len || n != 1)
			r->bad++;
		close(fd);
	}
	return NULL;
}

/* NR_READERS threads walk namespace a through one link at once. */
static void test_netns_sock_readers(struct netns_iter *skel, int type)
{
	struct reader r[NR_READERS] = {};
	pthread_t threads[NR_READERS];
	struct ns_socks a = {};
	struct bpf_link *link;
	int i, started = 0;

	if (ns_socks_init(&a, NS_A, type))
		goto out;
	skel->bss->target_netns = a.cookie;
	skel->bss->protocol = type == SOCK_STREAM ? IPPROTO_TCP : IPPROTO_UDP;
	skel->bss->skip_listen = false;
	skel->bss->bad_flags = 0;
	skel->bss->abort_cookie = 0;
	link = bpf_program__attach_iter(skel->progs.count_netns_socks, NULL);
	if (!ASSERT_OK_PTR(link, "attach_iter"))
		goto out;
	for (i = 0; i < NR_READERS; i++) {
		r[i].link = link;
		r[i].want = a.nr;
		if (!ASSERT_OK(pthread_create(&threads[i], NULL, reader_thread, &r[i]),
			       "pthread_create"))
			break;
		started++;
	}
	for (i = 0; i < started; i++) {
		pthread_join(threads[i], NULL);
		ASSERT_EQ(r[i].bad, 0, "reads short, failed or too long");
	}
	bpf_link__destroy(link);
out:
	ns_socks_fini(&a);
}

void test_netns_iter(void)
{
	struct netns_iter *skel;

	skel = netns_iter__open_and_load();
	if (!ASSERT_OK_PTR(skel, "netns_iter__open_and_load"))
		return;

	if (test__start_subtest("netns"))
		test_netns(skel);
	if (test__start_subtest("netns_privilege"))
		test_netns_privilege(skel);
	if (test__start_subtest("tcp_netns_fd"))
		test_sock_netns(skel, SOCK_STREAM, false);
	if (test__start_subtest("tcp_netns_cookie"))
		test_sock_netns(skel, SOCK_STREAM, true);
	if (test__start_subtest("udp_netns_fd"))
		test_sock_netns(skel, SOCK_DGRAM, false);
	if (test__start_subtest("udp_netns_cookie"))
		test_sock_netns(skel, SOCK_DGRAM, true);
	if (test__start_subtest("tcp_all_netns"))
		test_all_netns(skel, SOCK_STREAM, 0);
	if (test__start_subtest("udp_all_netns"))
		test_all_netns(skel, SOCK_DGRAM, 0);
	if (test__start_subtest("tcp_all_netns_skip_listen"))
		test_all_netns(skel, SOCK_STREAM, BPF_SOCK_ITER_SKIP_LISTEN);
	if (test__start_subtest("attach_errors"))
		test_attach_errors(skel);
	if (test__start_subtest("tcp_netns_sock"))
		test_netns_sock(skel, SOCK_STREAM);
	if (test__start_subtest("udp_netns_sock"))
		test_netns_sock(skel, SOCK_DGRAM);
	if (test__start_subtest("tcp_netns_sock_skip_listen"))
		test_netns_sock_skip_listen(skel);
	if (test__start_subtest("tcp_netns_sock_nested"))
		test_netns_sock_nested(skel, SOCK_STREAM);
	if (test__start_subtest("udp_netns_sock_nested"))
		test_netns_sock_nested(skel, SOCK_DGRAM);
	if (test__start_subtest("tcp_netns_sock_churn"))
		test_netns_sock_churn(skel, SOCK_STREAM);
	if (test__start_subtest("udp_netns_sock_churn"))
		test_netns_sock_churn(skel, SOCK_DGRAM);
	if (test__start_subtest("tcp_netns_sock_sleepy"))
		test_netns_sock_sleepy(SOCK_STREAM);
	if (test__start_subtest("udp_netns_sock_sleepy"))
		test_netns_sock_sleepy(SOCK_DGRAM);
	if (test__start_subtest("netns_sock_flood"))
		test_netns_sock_flood();
	if (test__start_subtest("netns_runs"))
		test_netns_runs();
	if (test__start_subtest("netns_sock_deep"))
		test_netns_sock_deep();
	if (test__start_subtest("tcp_netns_sock_readers"))
		test_netns_sock_readers(skel, SOCK_STREAM);
	if (test__start_subtest("udp_netns_sock_readers"))
		test_netns_sock_readers(skel, SOCK_DGRAM);

	netns_iter__destroy(skel);
}
