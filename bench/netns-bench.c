// SPDX-License-Identifier: GPL-2.0
/*
 * netns-bench: whole-host versus per-netns socket walks, side by side.
 *
 *   netns-bench [--smoke] [--reps N] [--cap SOCKETS] [--cap-child SOCKETS]
 *               [--cap-reap SOCKETS] [--max-m-shared M]
 *               [--tables shared|child] [--proto tcp|udp] [--out DIR]
 *   netns-bench --empty M [--reps N] [--proto tcp|udp] [--out DIR]
 *   netns-bench --fixed M1,M2,... [--reps N] [--proto tcp|udp] [--out DIR]
 *   netns-bench --memory M [--out DIR]
 *   netns-bench --scale N1,N2,... [--reps N] [--tables shared|child]
 *               [--proto tcp|udp] [--out DIR]
 *   netns-bench --section N1,N2,... [--reps N] [--tables shared|child]
 *               [--proto tcp|udp] [--out DIR]
 *   netns-bench --connect K [--reps N] [--out DIR]
 *
 * For each point (tables shared|child, M namespaces, S sockets each) it
 * builds the world once, outside the timed region: M namespaces, each with
 * 10 TCP backends on 127.0.0.1:9000-9009 and S/2 client connections spread
 * over them (S sockets with the accepted peers), and 10 UDP backends on the
 * same ports with S connected UDP clients spread over them.  "child"
 * namespaces get their own TCP established hash and UDP table.  Then it
 * times, on that same world, for TCP and then for UDP, each design:
 *   setns      per netns: setns(), BPF_ITER_CREATE on an iter/tcp link,
 *              read to the end, setns() back
 *   netns-arg  per netns: an iter/tcp link with the netns argument, read
 *   chained    one iter.s/netns link walking each netns's sockets
 *   chained-conn  the same for connected sockets only, as netns-reap's
 *              default filter does: BPF_ITER_NETNS_SOCK_SKIP_LISTEN keeps
 *              the walk out of the shared listening hash
 *   global     one whole-host iter/tcp link; the program filters
 *   global-conn  the same for connected sockets only:
 *              BPF_SOCK_ITER_SKIP_LISTEN keeps it out of the listening hash
 *   sock_diag  per netns: setns(), a SOCK_DIAG dump (what ss does), and
 *              SOCK_DESTROY per matching socket for the reap workloads
 *   index      --scale only: the sockets of the stale backend's address,
 *              found in the index that netns-reap index start keeps
 *              (bpf/index.bpf.c) by one SEC("syscall") program run
 *              (reap_index), each looked up in its namespace and destroyed
 *   diag-tuple --scale only: per socket to destroy, setns() into its
 *              namespace and one SOCK_DESTROY naming its tuple, which the
 *              driver knows: the kernel's lookup and destroy of the same
 *              sockets without BPF, as an agent that kept its own index
 *              in user space would; the index's control
 * (chained-conn and global-conn are TCP only: UDP has no listeners to
 * skip) and each workload: walk (visit and count every socket), reap1
 * (destroy the clients of one backend) and reap10 (of all ten backends,
 * in one pass).
 * Destroyed sockets are rebuilt between repetitions, untimed.
 * Every repetition runs every design once, in a rotating order, after one
 * discarded warm-up repetition; the kernel's counts come from one more
 * run of each, untimed (see measure()).
 *
 * One CSV row per (point, protocol, design, workload) goes to
 * DIR/results.csv with the median, quartiles and interquartile range of
 * the wall time, the median system CPU time, the ratios to the whole-host
 * and chained designs of the same scope ("all" sockets: global and
 * chained; "connected": global-conn and chained-conn), sockets handed to the
 * program, the syscalls and slab allocations the kernel counted for the
 * driver's thread in that counted run (kcount.h), the hash buckets
 * visited, sockets tested, socket locks taken and iterator program runs
 * the kernel counted in the same run (CONFIG_SOCK_WALK_STATS,
 * kernel/bench/: /sys/kernel/debug/sock_walk_stats, switched on for the
 * counted runs only; empty when the kernel lacks it), and every timed
 * repetition's wall time, in repetition order, so that designs can be
 * paired repetition by repetition.
 * With --empty M it builds instead M namespaces with no socket at all and
 * writes DIR/empty.csv: what one hash bucket costs each design (see
 * run_empty()).  --fixed writes DIR/fixed.csv, what an empty namespace
 * costs each design to walk (run_fixed()); --memory DIR/memory.csv, what
 * a namespace costs in memory with and without child tables
 * (run_memory()).  With
 * --scale it reproduces the RFC's table in DIR/scale.csv (run_scale());
 * with --section, DIR/section.csv: how long one namespace's walk holds
 * the chained walk's RCU and migration sections (run_section()); with
 * --connect, DIR/connect.csv: what the index costs each connect
 * (run_connect()).
 * Points of more than --cap sockets (M x S; --cap-child for child tables)
 * are skipped, and shared points of more than --max-m-shared namespaces:
 * there each per-netns walk visits every socket of the host, so a run
 * costs M x M x S.
 */
#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kcount.h"
#include "world.h"
#include "reap.h"
#include "reap.skel.h"
#include "walk.h"

#define NBACKENDS	10
#define BASE_PORT	9000
#define MAX_REPS	15
#define CHILD_EHASH	1024	/* tcp_child_ehash_entries of child namespaces */
#define CHILD_UDP_HASH	1024	/* udp_child_hash_entries of child namespaces */
/* --empty compares child tables of the smallest size the sysctls allow
 * with larger ones, large enough that the buckets added dwarf the noise.
 */
#define MIN_CHILD_EHASH	1
#define MIN_CHILD_UDP_HASH 128
#define BIG_CHILD_EHASH	4096
#define BIG_CHILD_UDP_HASH 65536
/* --scale: the RFC's namespaces, and the clients each trial destroys */
#define SCALE_M		100
#define SCALE_STALE	5
#define SCALE_WALK_CAP	100000	/* sockets: shared tables, per-netns walks */
#define MAX_LIST	16	/* counts in --fixed, --scale and --section */

static int child_ehash = CHILD_EHASH, child_udp_hash = CHILD_UDP_HASH;

/* The index and its control come last: run_scale() times them apart. */
enum design {
	D_SETNS, D_NETNS_ARG, D_CHAINED, D_CHAINED_CONN, D_GLOBAL,
	D_GLOBAL_CONN, D_DIAG, D_INDEX, D_TUPLE, N_DESIGNS
};
static const char *const design_names[] = {
	"setns", "netns-arg", "chained", "chained-conn", "global",
	"global-conn", "sock_diag", "index", "diag-tuple",
};
enum workload { W_WALK, W_REAP1, W_REAP10, N_WORKLOADS };

/* The kernel's walk counters (kernel/bench/), in the order it prints them. */
enum walk_stat { WALK_BUCKETS, WALK_SOCKETS, WALK_LOCKS, WALK_PROG_RUNS, WALK_N };
static const char *const workload_names[] = { "walk", "reap1", "reap10" };

struct pod {
	int nsfd;
	__u64 cookie;
	int lfd[NBACKENDS];
	int nconn;
	int *cfd, *pfd;		/* client and accepted peer of each connection */
	int ufd[NBACKENDS];	/* UDP backends */
	int nudp;
	int *ucfd;		/* connected UDP clients */
};

static struct pod *pods;
static int npods;
/* --calibrate: on any kernel, natively too; no counters, no checks of them */
static bool calibrating;
static int world_listeners, world_udp_bound;	/* per pod */
static int self_ns = -1;
static __u64 self_cookie;

static void die(const char *what)
{
	fprintf(stderr, "netns-bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* DIR/@name, created, with its first line @header written. */
static FILE *create(const char *dir, const char *name, const char *header)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		die(path);
	fputs(header, f);
	return f;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double sys_ms(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3;
}

static void enter(int fd)
{
	if (setns(fd, CLONE_NEWNET))
		die("setns");
}

static void write_sysctl(const char *path, int v)
{
	FILE *f = fopen(path, "w");

	if (!f || fprintf(f, "%d\n", v) < 0 || fclose(f))
		die(path);
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
 * An empty world has namespaces with no socket, not even backends; a scale
 * world (--scale) has only its clients, their peers and the listeners
 * they need.
 */
static bool empty_world, scale_world, section_world;

/*
 * The backend (0 .. NBACKENDS - 1) of client @i of pod @pod: in the
 * matrix, i % NBACKENDS; in a scale world, backend 0 for the first client
 * of each of the first SCALE_STALE pods (the stale backend, whose clients
 * a trial destroys), backend 1 for every other.
 */
static int backend_of(int pod, int i)
{
	if (scale_world)
		return pod < SCALE_STALE && i == 0 ? 0 : 1;
	return i % NBACKENDS;
}

/*
 * The address of @backend: 127.0.0.1, but in a scale world the stale
 * backend's own, 127.0.0.2, as a load balancer's backends have theirs.
 * The index finds sockets by address, so its work follows the sockets of
 * that address; the walks visit every socket whatever its address.
 */
static in_addr_t backend_addr(int backend)
{
	return htonl(scale_world && !backend ? 0x7f000002 : INADDR_LOOPBACK);
}

/*
 * A @type socket connected to @backend, in the current netns.  The
 * section world's UDP clients, up to 100,000 in one namespace, are more
 * than the ephemeral ports of one address: they bind, 16384 to an
 * address, to 127.1.0.0 and up.
 */
static int client_of(int type, int backend)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	static unsigned int n_udp;
	int c;

	c = socket(AF_INET, type, 0);
	if (c >= 0 && section_world && type == SOCK_DGRAM) {
		a.sin_addr.s_addr = htonl(0x7f010000 + n_udp++ / 16384);
		if (bind(c, (void *)&a, sizeof(a)))
			die("bind udp client");
	}
	a.sin_addr.s_addr = backend_addr(backend);
	a.sin_port = htons(BASE_PORT + backend);
	if (c < 0 || connect(c, (void *)&a, sizeof(a)))
		die(type == SOCK_STREAM ? "connect" : "connect udp");
	return c;
}

static void connect_one(struct pod *p, int i)
{
	int b = backend_of(p - pods, i);

	p->cfd[i] = client_of(SOCK_STREAM, b);
	p->pfd[i] = accept(p->lfd[b], NULL, NULL);
	if (p->pfd[i] < 0)
		die("accept");
}

static void udp_connect_one(struct pod *p, int i)
{
	p->ucfd[i] = client_of(SOCK_DGRAM, backend_of(p - pods, i));
}

/*
 * Child tables of @ehash and @udp_hash entries for the namespaces created
 * from now on; 0 and 0: the shared tables.
 */
static void set_child_tables(int ehash, int udp_hash)
{
	write_sysctl("/proc/sys/net/ipv4/tcp_child_ehash_entries", ehash);
	write_sysctl("/proc/sys/net/ipv4/udp_child_hash_entries", udp_hash);
}

/* Enter a new namespace with its loopback up; its fd. */
static int enter_new_netns(void)
{
	int fd;

	if (unshare(CLONE_NEWNET))
		die("unshare");
	fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("open /proc/self/ns/net");
	lo_up();
	return fd;
}

/* Pod @i's share of @total, spread over @m pods as evenly as it goes. */
static int share(long total, int m, int i)
{
	return total / m + (i < total % m);
}

/*
 * @m namespaces holding @nconn TCP connections (a client and its accepted
 * peer each) and @nudp connected UDP clients in all, spread evenly; with
 * @child, each with its own TCP established hash and UDP table.  Matrix
 * and empty namespaces also hold NBACKENDS TCP listeners and unconnected
 * UDP backends (none in an empty world); scale namespaces only the two
 * listeners their TCP clients need.
 */
static void build_world(int m, long nconn, long nudp, bool child)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(__u64);
	int i, j, one = 1, t, nlisten, nubound;

	nlisten = empty_world ? 0 : !scale_world ? NBACKENDS : nconn ? 2 : 0;
	nubound = empty_world || scale_world ? 0 : NBACKENDS;
	world_listeners = nlisten;
	world_udp_bound = nubound;

	set_child_tables(child ? child_ehash : 0, child ? child_udp_hash : 0);
	pods = calloc(m, sizeof(*pods));
	npods = m;
	for (i = 0; i < m; i++) {
		struct pod *p = &pods[i];

		p->nsfd = enter_new_netns();
		for (j = 0; j < NBACKENDS; j++) {
			p->lfd[j] = p->ufd[j] = -1;
			a.sin_addr.s_addr = backend_addr(j);
			a.sin_port = htons(BASE_PORT + j);
			if (j < nlisten) {
				p->lfd[j] = socket(AF_INET, SOCK_STREAM, 0);
				setsockopt(p->lfd[j], SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
				if (bind(p->lfd[j], (void *)&a, sizeof(a)) ||
				    listen(p->lfd[j], 4096))
					die("listen");
			}
			if (j < nubound) {
				p->ufd[j] = socket(AF_INET, SOCK_DGRAM, 0);
				if (p->ufd[j] < 0 || bind(p->ufd[j], (void *)&a, sizeof(a)))
					die("bind udp");
			}
		}
		t = socket(AF_INET, SOCK_DGRAM, 0);
		getsockopt(t, SOL_SOCKET, SO_NETNS_COOKIE, &p->cookie, &len);
		close(t);
		p->nconn = share(nconn, m, i);
		p->cfd = calloc(p->nconn, sizeof(int));
		p->pfd = calloc(p->nconn, sizeof(int));
		for (j = 0; j < p->nconn; j++)
			connect_one(p, j);
		p->nudp = share(nudp, m, i);
		p->ucfd = calloc(p->nudp, sizeof(int));
		for (j = 0; j < p->nudp; j++)
			udp_connect_one(p, j);
		if (setns(self_ns, CLONE_NEWNET))
			die("setns back");
	}
	set_child_tables(0, 0);
}

static void free_world(void)
{
	struct linger lin = { .l_onoff = 1, .l_linger = 0 };
	int i, j;

	for (i = 0; i < npods; i++) {
		for (j = 0; j < pods[i].nconn; j++) {
			/* a reset, not a TIME_WAIT left in the next world's tables */
			setsockopt(pods[i].cfd[j], SOL_SOCKET, SO_LINGER, &lin, sizeof(lin));
			close(pods[i].cfd[j]);
			close(pods[i].pfd[j]);
		}
		for (j = 0; j < pods[i].nudp; j++)
			close(pods[i].ucfd[j]);
		for (j = 0; j < NBACKENDS; j++) {
			if (pods[i].lfd[j] >= 0)
				close(pods[i].lfd[j]);
			if (pods[i].ufd[j] >= 0)
				close(pods[i].ufd[j]);
		}
		close(pods[i].nsfd);
		free(pods[i].cfd);
		free(pods[i].pfd);
		free(pods[i].ucfd);
	}
	free(pods);
	pods = NULL;
}

/* Enter pod @p's namespace once, for the first client to rebuild. */
static void enter_pod(const struct pod *p, bool *entered)
{
	if (*entered)
		return;
	if (setns(p->nsfd, CLONE_NEWNET))
		die("setns");
	*entered = true;
}

/*
 * Whether pod @i's client @j of @proto is dead: a TCP client reads an
 * error or EOF, a UDP client an abort disconnected has no peer.
 */
static bool client_dead(int proto, int i, int j)
{
	struct sockaddr_in peer;
	socklen_t len = sizeof(peer);
	char c;

	if (proto == IPPROTO_UDP)
		return getpeername(pods[i].ucfd[j], (void *)&peer, &len) != 0;
	return recv(pods[i].cfd[j], &c, 1, MSG_DONTWAIT) >= 0 ||
	       errno != EAGAIN;
}

/*
 * Reconnect the clients of the first @nb backends (what a reap destroys)
 * that a reap destroyed, untimed, and return how many.  Only those are
 * looked at: a test of every client of the world would touch each of its
 * sockets before every timed run, and leave the next run the emulator's
 * caches of a world-wide sweep (check_world() looks at the others, once
 * each measure()).  Every UDP client to reconnect is closed first, in
 * every pod, as a TCP client's abort already took it out of the index:
 * the index then drops the stale address once it has no socket left, and
 * each trial finds the same window (bpf/index.h) whatever the trials
 * before it.
 */
static int rebuild(int proto, int nb)
{
	int i, j, n = 0;

	for (i = 0; proto == IPPROTO_UDP && i < npods; i++) {
		for (j = 0; j < pods[i].nudp; j++) {
			if (backend_of(i, j) < nb && client_dead(proto, i, j)) {
				close(pods[i].ucfd[j]);
				pods[i].ucfd[j] = -1;
			}
		}
	}
	for (i = 0; i < npods; i++) {
		struct pod *p = &pods[i];
		bool entered = false;

		for (j = 0; proto == IPPROTO_TCP && j < p->nconn; j++) {
			if (backend_of(i, j) >= nb || !client_dead(proto, i, j))
				continue;
			enter_pod(p, &entered);
			close(p->cfd[j]);
			close(p->pfd[j]);
			connect_one(p, j);
			n++;
		}
		for (j = 0; proto == IPPROTO_UDP && j < p->nudp; j++) {
			if (p->ucfd[j] >= 0)
				continue;
			enter_pod(p, &entered);
			udp_connect_one(p, j);
			n++;
		}
		if (entered && setns(self_ns, CLONE_NEWNET))
			die("setns back");
	}
	return n;
}

/*
 * After the reaps of one measure(): no client of another backend than
 * the first @nb was destroyed.  A reap that kills another is a bug.
 */
static void check_world(int proto, int nb, const char *workload,
			const enum design *designs, int n)
{
	int i, j, nc, d;

	for (i = 0; i < npods; i++) {
		nc = proto == IPPROTO_TCP ? pods[i].nconn : pods[i].nudp;
		for (j = 0; j < nc; j++) {
			if (backend_of(i, j) < nb || !client_dead(proto, i, j))
				continue;
			fprintf(stderr, "netns-bench: a %s %s destroyed client %d of pod %d, of a backend it does not name: a reap that kills another is a bug; one of:",
				proto == IPPROTO_TCP ? "tcp" : "udp", workload, j, i);
			for (d = 0; d < n; d++)
				fprintf(stderr, " %s", design_names[designs[d]]);
			fputc('\n', stderr);
			exit(1);
		}
	}
}

/* The clients of the first @nbackends backends: what a reap destroys. */
static int clients_of(int proto, int nbackends)
{
	int i, j, n = 0;

	for (i = 0; i < npods; i++) {
		int nc = proto == IPPROTO_TCP ? pods[i].nconn : pods[i].nudp;

		for (j = 0; j < nc; j++)
			n += backend_of(i, j) < nbackends;
	}
	return n;
}

/* The walk code netns-reap runs (tools/walk.c). */
static void drain(int link_fd)
{
	int err = reap_iter_drain(link_fd);

	if (err) {
		errno = -err;
		die("read iterator");
	}
}

static struct bpf_link *attach(struct bpf_program *prog, int nsfd,
			       __u64 cookie, __u32 flags)
{
	struct bpf_link *l;
	char why[512] = "";

	l = reap_sock_iter_attach(prog, nsfd, cookie, flags, why, sizeof(why));
	if (!l) {
		if (why[0])
			fprintf(stderr, "netns-bench: %s\n", why);
		die("attach iterator");
	}
	return l;
}

/* A sock_diag request, and one of @type for IPv4 @proto sockets of any state. */
struct diag_req {
	struct nlmsghdr nlh;
	struct inet_diag_req_v2 r;
};

static struct diag_req diag_req(__u16 type, __u16 flags, int proto)
{
	struct diag_req req = {
		.nlh = { .nlmsg_len = sizeof(req), .nlmsg_type = type,
			 .nlmsg_flags = NLM_F_REQUEST | flags },
		.r = { .sdiag_family = AF_INET, .sdiag_protocol = proto,
		       .idiag_states = ~0U },
	};

	return req;
}

/*
 * SOCK_DIAG dump of the current netns's @proto sockets; with @kill,
 * SOCK_DESTROY each connected one to the first @nbackends backends.
 */
static unsigned long diag_netns(int proto, int nbackends, bool kill)
{
	struct diag_req req = diag_req(SOCK_DIAG_BY_FAMILY, NLM_F_DUMP, proto);
	static char buf[65536];
	struct inet_diag_sockid kill_ids[4096];
	unsigned long seen = 0;
	int nkill = 0, fd, i;
	bool done = false;
	ssize_t n;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0 || send(fd, &req, sizeof(req), 0) < 0)
		die("sock_diag");
	while (!done) {
		struct nlmsghdr *h = (void *)buf;

		n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0)
			break;
		for (; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			struct inet_diag_msg *m = NLMSG_DATA(h);
			unsigned int port;

			if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
				done = true;
				break;
			}
			seen++;
			port = ntohs(m->id.idiag_dport);
			if (kill && m->idiag_state == 1 && port >= BASE_PORT &&
			    port < BASE_PORT + (unsigned int)nbackends && nkill < 4096)
				kill_ids[nkill++] = m->id;
		}
	}
	for (i = 0; i < nkill; i++) {
		req.nlh.nlmsg_type = SOCK_DESTROY;
		req.nlh.nlmsg_flags = NLM_F_REQUEST;
		req.r.id = kill_ids[i];
		req.r.idiag_states = ~0U;
		send(fd, &req, sizeof(req), 0);
	}
	close(fd);
	return seen;
}

/*
 * diag-tuple's targets: the pod and the tuple of each client the trial
 * destroys, taken from the driver's own sockets before the timed run.
 */
struct target {
	int pod;
	struct inet_diag_sockid id;
};
static struct target *targets;
static int ntargets;

static void find_targets(int proto, int nbackends)
{
	struct sockaddr_in me;
	socklen_t len;
	int i, j, fd;

	free(targets);
	targets = calloc(clients_of(proto, nbackends) + 1, sizeof(*targets));
	if (!targets)
		die("calloc");
	ntargets = 0;
	for (i = 0; i < npods; i++) {
		int nc = proto == IPPROTO_TCP ? pods[i].nconn : pods[i].nudp;

		for (j = 0; j < nc; j++) {
			struct target *t = &targets[ntargets];
			int b = backend_of(i, j);
			in_addr_t a = backend_addr(b);

			if (b >= nbackends)
				continue;
			fd = proto == IPPROTO_TCP ? pods[i].cfd[j] : pods[i].ucfd[j];
			len = sizeof(me);
			if (getsockname(fd, (void *)&me, &len))
				die("getsockname");
			t->pod = i;
			t->id.idiag_sport = me.sin_port;
			t->id.idiag_src[0] = me.sin_addr.s_addr;
			t->id.idiag_dport = htons(BASE_PORT + b);
			t->id.idiag_dst[0] = a;
			t->id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
			t->id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
			ntargets++;
		}
	}
}

/* SOCK_DESTROY of each target, in its namespace; each must succeed. */
static void destroy_targets(int proto)
{
	struct diag_req req = diag_req(SOCK_DESTROY, NLM_F_ACK, proto);
	struct {
		struct nlmsghdr nlh;
		struct nlmsgerr err;
	} ack;
	int i, fd;

	for (i = 0; i < ntargets; i++) {
		enter(pods[targets[i].pod].nsfd);
		fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
		req.r.id = targets[i].id;
		if (fd < 0 || send(fd, &req, sizeof(req), 0) < 0 ||
		    recv(fd, &ack, sizeof(ack), 0) < (ssize_t)sizeof(ack))
			die("SOCK_DESTROY");
		if (ack.nlh.nlmsg_type != NLMSG_ERROR || ack.err.error) {
			errno = -ack.err.error;
			die("SOCK_DESTROY");
		}
		close(fd);
		enter(self_ns);
	}
}

/* One design's timed run, and what the kernel counted during it. */
struct trial {
	double wall, sys;
	double longest;			/* chained: the longest netns run, ms */
	struct kcount k;
	unsigned long seen;
	unsigned long slots;		/* index: the window's positions read */
	long long walk[WALK_N];		/* -1: no kernel counters */
};

/* What a point reports of one design: quantiles over the repetitions. */
struct result {
	double wall, wall_p25, wall_p75, wall_min, wall_max, sys;
	double longest, longest_max;	/* median and maximum of trial.longest */
	unsigned long seen, slots;
	double calls, allocs, pages;	/* kernel counts, of one run */
	long long walk[WALK_N];		/* -1: no kernel counters */
	double samples[MAX_REPS];	/* wall times, in repetition order */
	int reps;			/* how many */
};

/* A CSV row's last field, @r's wall times to @prec decimals, and its end. */
static void put_samples(FILE *csv, const struct result *r, int prec)
{
	int i;

	for (i = 0; i < r->reps; i++)
		fprintf(csv, "%s%.*f", i ? ";" : "", prec, r->samples[i]);
	fputc('\n', csv);
}

static double iqr(const struct result *r)
{
	return r->wall_p75 - r->wall_p25;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The @q quantile of @n values, interpolated between ranks; sorts @v. */
static double quantile(double *v, int n, double q)
{
	double h = (n - 1) * q;
	int i = (int)h;

	qsort(v, n, sizeof(*v), cmp_double);
	return i + 1 < n ? v[i] + (h - i) * (v[i + 1] - v[i]) : v[i];
}

#define WALK_STATS "/sys/kernel/debug/sock_walk_stats"

/* The kernel's walk counters; false if the kernel does not have them. */
static bool walk_stats(long long v[WALK_N])
{
	FILE *f = fopen(WALK_STATS, "r");
	bool ok;

	if (!f)
		return false;
	ok = fscanf(f, "buckets %lld sockets %lld locks %lld prog_runs %lld",
		    &v[WALK_BUCKETS], &v[WALK_SOCKETS], &v[WALK_LOCKS],
		    &v[WALK_PROG_RUNS]) == WALK_N;
	fclose(f);
	return ok;
}

/*
 * Turn the kernel's walk counters on or off; false if the kernel does
 * not have them.  Off, each counting point is a static branch.
 */
static bool walk_stats_switch(bool on)
{
	FILE *f = fopen(WALK_STATS, "w");
	bool ok;

	if (!f)
		return false;
	ok = fputs(on ? "1" : "0", f) >= 0;
	ok = !fclose(f) && ok;
	if (!ok && on)
		die("switch on " WALK_STATS);
	return ok;
}

/*
 * Whether design @d skips the listeners: the TCP walks of connected
 * sockets, and the index, which holds connected sockets only.
 */
static bool connected_only(enum design d)
{
	return d == D_CHAINED_CONN || d == D_GLOBAL_CONN || d == D_INDEX ||
	       d == D_TUPLE;
}

/*
 * The sockets of @proto a walk of design @d must hand its program, at
 * least (the driver's own namespace, which the per-namespace designs walk
 * too, and the others' dying namespaces may hold more): every
 * socket of every pod (a TCP connection's client and accepted peer, a
 * connected UDP client, a listener or bound UDP backend), or for the walks
 * of connected sockets only, all but the listeners.
 */
static unsigned long world_sockets(int proto, enum design d)
{
	unsigned long n = 0;
	int i;

	for (i = 0; i < npods; i++)
		n += proto == IPPROTO_TCP ? 2UL * pods[i].nconn :
					    (unsigned long)pods[i].nudp;
	if (!connected_only(d))
		n += (unsigned long)npods *
		     (proto == IPPROTO_TCP ? world_listeners : world_udp_bound);
	return n;
}

static struct reap_bpf *load(int proto, enum design d, int nbackends,
			     bool kill, int reps)
{
	bool chained = d == D_CHAINED || d == D_CHAINED_CONN;
	struct reap_addr_filter f = {};
	struct reap_bpf *skel = reap_bpf__open();
	char why[512];
	in_addr_t a;
	__u32 i;

	if (!skel)
		die("open BPF object");
	skel->rodata->cfg_kill = kill;
	/* 0: the connected states; chained-conn's program then skips the
	 * listeners, global-conn's link does (run_once())
	 */
	skel->rodata->cfg_states = connected_only(d) ? 0 : ~0U;
	skel->rodata->cfg_n_dst = kill ? nbackends : 1;
	skel->rodata->cfg_protos = proto == IPPROTO_TCP ? 1 : 2;
	/*
	 * Room for what every repetition matches: a hash map is allocated
	 * whole at load, and a needlessly large one makes every load slow.
	 */
	bpf_map__set_max_entries(skel->maps.recs,
				 1024 + reps * clients_of(proto, nbackends));
	bpf_program__set_autoload(skel->progs.reap_chained, chained);
	bpf_program__set_autoload(skel->progs.reap_tcp,
				  !chained && proto == IPPROTO_TCP);
	bpf_program__set_autoload(skel->progs.reap_udp,
				  !chained && proto == IPPROTO_UDP);
	if (d == D_INDEX) {
		bpf_program__set_autoload(skel->progs.reap_tcp, false);
		bpf_program__set_autoload(skel->progs.reap_udp, false);
		/* the maps netns-reap index start pinned (run_scale()) */
		if (reap_index_reuse_maps(skel->obj, why, sizeof(why))) {
			fprintf(stderr, "netns-bench: %s\n", why);
			exit(1);
		}
	} else {
		reap_skip_index(skel);
	}
	if (reap_bpf__load(skel))
		die("load BPF programs");
	f.addr[10] = f.addr[11] = 0xff;
	f.plen = 128;
	for (i = 0; i < (kill ? (__u32)nbackends : 1); i++) {
		/* walk: a backend nobody talks to, so nothing matches */
		a = kill ? backend_addr(i) : htonl(0xc0000201);
		memcpy(f.addr + 12, &a, sizeof(a));
		f.port = BASE_PORT + i;
		bpf_map_update_elem(bpf_map__fd(skel->maps.dsts), &i, &f, BPF_ANY);
	}
	return skel;
}

/* The namespaces a per-netns design walks: every pod, and the host. */
static int ns_fd(int i)
{
	return i < npods ? pods[i].nsfd : self_ns;
}

static __u64 ns_cookie(int i)
{
	return i < npods ? pods[i].cookie : self_cookie;
}

static void run_once(struct reap_bpf *skel, int proto, enum design d,
		     int nbackends, bool kill, unsigned long *seen)
{
	struct bpf_program *prog = proto == IPPROTO_TCP ? skel->progs.reap_tcp :
							  skel->progs.reap_udp;
	LIBBPF_OPTS(bpf_test_run_opts, run);
	struct bpf_link *l;
	int i;

	switch (d) {
	case D_SETNS:
		l = attach(prog, -1, 0, 0);
		for (i = 0; i <= npods; i++) {
			enter(ns_fd(i));
			drain(bpf_link__fd(l));
			enter(self_ns);
		}
		bpf_link__destroy(l);
		break;
	case D_NETNS_ARG:
		for (i = 0; i <= npods; i++) {
			l = attach(prog, ns_fd(i), ns_cookie(i), 0);
			drain(bpf_link__fd(l));
			bpf_link__destroy(l);
		}
		break;
	case D_CHAINED:
	case D_CHAINED_CONN:
		l = attach(skel->progs.reap_chained, -1, 0, 0);
		drain(bpf_link__fd(l));
		bpf_link__destroy(l);
		break;
	case D_GLOBAL:
	case D_GLOBAL_CONN:
		l = attach(prog, -1, 0, BPF_SOCK_ITER_ALL_NETNS |
			   (d == D_GLOBAL_CONN ? BPF_SOCK_ITER_SKIP_LISTEN : 0));
		drain(bpf_link__fd(l));
		bpf_link__destroy(l);
		break;
	case D_INDEX:
		if (bpf_prog_test_run_opts(bpf_program__fd(skel->progs.reap_index),
					   &run))
			die("run the index lookup program");
		*seen = skel->bss->counts.index_entries;
		return;
	case D_TUPLE:
		destroy_targets(proto);
		*seen = ntargets;
		return;
	case D_DIAG:
		*seen = 0;
		for (i = 0; i <= npods; i++) {
			enter(ns_fd(i));
			*seen += diag_netns(proto, nbackends, kill);
			enter(self_ns);
		}
		return;
	default:
		break;
	}
	*seen = skel->bss->counts.seen;
}

/*
 * The sockets design @d hands its program: "all", or "connected" for
 * chained-conn and global-conn, which skip the listening hash.  A
 * comparison pairs designs of the same scope only.
 */
static const char *design_scope(enum design d)
{
	return connected_only(d) ? "connected" : "all";
}

/*
 * The whole-host and chained designs of @d's scope, its ratios' bases.
 * Every UDP socket of a scale world is connected: the index's UDP base
 * is global.
 */
static enum design global_of(enum design d, int proto)
{
	return connected_only(d) && proto == IPPROTO_TCP ? D_GLOBAL_CONN : D_GLOBAL;
}

static enum design chained_of(enum design d)
{
	return connected_only(d) ? D_CHAINED_CONN : D_CHAINED;
}

/*
 * Whether design @d runs for @proto: UDP has no listeners to skip; the
 * index only where run_scale() started it.
 */
static bool index_on;

static bool runs(int proto, enum design d)
{
	if (d == D_INDEX || d == D_TUPLE)
		return index_on;
	return proto == IPPROTO_TCP || !connected_only(d);
}

/*
 * Trials that start cold (run_scale()): before each, the driver writes
 * COLD_BYTES of its own memory (65536 pages), meant to evict the host's
 * data caches and the emulator's TLB, so that less of what a trial finds
 * cached depends on the trial before it or on how much of the world fits
 * in the cache.  Whether it does is not measured, and it does not evict
 * the emulator's translations of kernel code.
 */
#define COLD_BYTES	(256UL << 20)
static bool cold_trials;

static void go_cold(void)
{
	static unsigned char pass;
	static char *buf;

	if (!buf) {
		buf = malloc(COLD_BYTES);
		if (!buf)
			die("malloc");
	}
	memset(buf, ++pass, COLD_BYTES);
	asm volatile("" : : "r"(buf) : "memory");	/* not elided */
}

/*
 * One run of design @d.  Only run_once() is inside the wall time; with
 * @count, the kernel's counters (open) are read around it.  A reap's
 * victims are rebuilt afterwards, untimed, and counted: a reap that
 * misses a client is a bug (one that kills another, check_world()).
 */
static void run_trial(struct reap_bpf *skel, int proto, enum design d,
		      enum workload w, struct trial *t, bool count)
{
	int nb = w == W_REAP1 ? 1 : NBACKENDS, n_rebuilt;
	bool kill = w != W_WALK, counted = false;
	long long v0[WALK_N], v1[WALK_N];
	struct kcount k0, k1;
	double t0, cpu0;
	int i;

	memset(skel->bss, 0, sizeof(*skel->bss));
	if (d == D_TUPLE)
		find_targets(proto, nb);
	if (cold_trials)
		go_cold();
	if (count)
		counted = walk_stats(v0);
	cpu0 = sys_ms();
	if (count)
		kcount_read(&k0);
	t0 = now();
	run_once(skel, proto, d, nb, kill, &t->seen);
	t->wall = now() - t0;
	t->longest = skel->bss->counts.longest_ns / 1e6;
	t->slots = skel->bss->counts.index_slots;
	if (count) {
		kcount_read(&k1);
		kcount_delta(&k0, &k1, &t->k);
	}
	t->sys = sys_ms() - cpu0;
	for (i = 0; i < WALK_N; i++)
		t->walk[i] = -1;
	if (counted && walk_stats(v1))
		for (i = 0; i < WALK_N; i++)
			t->walk[i] = v1[i] - v0[i];
	if (!kill && d != D_INDEX && d != D_TUPLE &&
	    t->seen < world_sockets(proto, d)) {
		fprintf(stderr, "netns-bench: %s %s walk handed its program %lu sockets, fewer than the world's %lu: a walk that misses a socket is a bug\n",
			proto == IPPROTO_TCP ? "tcp" : "udp", design_names[d],
			t->seen, world_sockets(proto, d));
		exit(1);
	}
	n_rebuilt = kill ? rebuild(proto, nb) : 0;
	if (kill && n_rebuilt != clients_of(proto, nb)) {
		fprintf(stderr, "netns-bench: %s %s %s destroyed the wrong sockets: %d clients had to be rebuilt, %d expected\n",
			proto == IPPROTO_TCP ? "tcp" : "udp", design_names[d],
			workload_names[w], n_rebuilt, clients_of(proto, nb));
		exit(1);
	}
}

/*
 * Measure workload @w of every design in @designs on the current world.
 * Each repetition runs every design once, the order rotated by one from
 * the last, so that over N repetitions of N designs each design runs once
 * in each place and none has all of its runs in one stretch of time; a
 * first repetition is a discarded warm-up.  Then each design runs once
 * more, untimed, with the kernel's counters open and its walk counters
 * switched on: they slow every syscall and walk down, so they stay out of
 * the timed runs; the run counted does the work of the runs timed, on the
 * same world with the same program.
 * Each design is loaded once, before any run: the verifier is not what
 * is timed.
 */
static void measure(int proto, enum workload w, const enum design *designs,
		    int n, int reps, struct result res[N_DESIGNS])
{
	double wall[N_DESIGNS][MAX_REPS], sys[N_DESIGNS][MAX_REPS];
	double longest[N_DESIGNS][MAX_REPS];
	struct reap_bpf *skel[N_DESIGNS] = {};
	int nb = w == W_REAP1 ? 1 : NBACKENDS, i, r;
	enum design d;
	char why[256];
	struct trial t;

	for (i = 0; i < n; i++)
		skel[designs[i]] = load(proto, designs[i], nb, w != W_WALK,
					reps + 2);
	for (r = -1; r < reps; r++) {
		for (i = 0; i < n; i++) {
			d = designs[(i + r + 1) % n];
			run_trial(skel[d], proto, d, w, &t, false);
			if (r < 0)
				continue;
			wall[d][r] = t.wall;
			res[d].samples[r] = t.wall;
			sys[d][r] = t.sys;
			longest[d][r] = t.longest;
			res[d].seen = t.seen;
			res[d].slots = t.slots;
		}
	}
	if (calibrating)
		goto out;
	if (kcount_open(why, sizeof(why))) {
		fprintf(stderr, "netns-bench: the kernel's counters: %s\n", why);
		exit(1);
	}
	walk_stats_switch(true);
	for (i = 0; i < n; i++) {
		d = designs[i];
		run_trial(skel[d], proto, d, w, &t, true);
		res[d].calls = t.k.v[KC_SYSCALLS];
		res[d].allocs = t.k.v[KC_KMALLOC] + t.k.v[KC_CACHE_ALLOC];
		res[d].pages = t.k.v[KC_PAGES];
		memcpy(res[d].walk, t.walk, sizeof(t.walk));
	}
	walk_stats_switch(false);
	kcount_close();
out:
	if (w != W_WALK)
		check_world(proto, nb, workload_names[w], designs, n);
	for (i = 0; i < n; i++) {
		d = designs[i];
		reap_bpf__destroy(skel[d]);
		res[d].reps = reps;
		res[d].wall = quantile(wall[d], reps, 0.5);
		res[d].wall_p25 = quantile(wall[d], reps, 0.25);
		res[d].wall_p75 = quantile(wall[d], reps, 0.75);
		res[d].wall_min = quantile(wall[d], reps, 0);
		res[d].wall_max = quantile(wall[d], reps, 1);
		res[d].sys = quantile(sys[d], reps, 0.5);
		res[d].longest = quantile(longest[d], reps, 0.5);
		res[d].longest_max = quantile(longest[d], reps, 1);
	}
}

/* The CSV rows and the console lines of one point and protocol. */
static void emit(FILE *csv, const char *tables, int m, int s, int proto,
		 struct result r[N_WORKLOADS][N_DESIGNS], int nw, int reps)
{
	const char *pname = proto == IPPROTO_TCP ? "tcp" : "udp";
	int d, w;

	for (w = 0; w < nw; w++) {
		for (d = 0; d < N_DESIGNS; d++) {
			struct result *x = &r[w][d];
			double g = x->wall / r[w][global_of(d, proto)].wall;
			double c = x->wall / r[w][chained_of(d)].wall;
			char k[WALK_N][24] = {};
			int i;

			if (!runs(proto, d))
				continue;
			for (i = 0; i < WALK_N && x->walk[0] >= 0; i++)
				snprintf(k[i], sizeof(k[i]), "%lld", x->walk[i]);
			fprintf(csv, "%s,%d,%d,%s,%s,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%lu,%.0f,%.1f,%s,%s,%s,%.3f,%.3f,%.0f,%.0f,%s,%s,%s,",
				tables, m, s, design_names[d], workload_names[w],
				reps, x->wall, x->wall_p75 - x->wall_p25, x->sys,
				g, c, x->seen, x->calls, x->wall * 1000 / m,
				k[WALK_BUCKETS], k[WALK_SOCKETS], pname,
				x->wall_p25, x->wall_p75, x->allocs, x->pages,
				design_scope(d), k[WALK_LOCKS],
				k[WALK_PROG_RUNS]);
			put_samples(csv, x, 3);
			printf("%-6s %4d %5d %-3s %-12s %-7s %10.3f %8.3f %8.3f %8.2f %8.2f %9lu %8.0f %8.0f %9s %9s\n",
			       tables, m, s, pname, design_names[d],
			       workload_names[w], x->wall,
			       x->wall_p75 - x->wall_p25, x->sys, g, c,
			       x->seen, x->calls, x->allocs,
			       k[WALK_BUCKETS][0] ? k[WALK_BUCKETS] : "-",
			       k[WALK_SOCKETS][0] ? k[WALK_SOCKETS] : "-");
		}
	}
}

static long read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v;

	if (!f || fscanf(f, "%ld", &v) != 1)
		die(path);
	fclose(f);
	return v;
}

/* The walk designs of --empty, and their times on one world. */
static const enum design empty_designs[] = {
	D_SETNS, D_NETNS_ARG, D_CHAINED, D_CHAINED_CONN, D_GLOBAL,
	D_GLOBAL_CONN,
};
#define N_EMPTY (sizeof(empty_designs) / sizeof(empty_designs[0]))

static void empty_point(int m, bool child, int proto, int reps,
			struct result r[N_DESIGNS])
{
	enum design ds[N_EMPTY];
	unsigned int i;
	int n = 0;

	for (i = 0; i < N_EMPTY; i++)
		if (runs(proto, empty_designs[i]))
			ds[n++] = empty_designs[i];
	build_world(m, 0, 0, child);
	measure(proto, W_WALK, ds, n, reps, r);
	free_world();
}

/*
 * --empty: what one hash bucket costs each design, on M namespaces with no
 * socket, where walking buckets is all a walk does.  With shared tables,
 * every per-netns walk covers the host's established hash (TCP) or UDP
 * table, M + 1 times, and the whole-host walk once: the time over those
 * buckets.  With child tables, each design runs twice, on tables of the
 * smallest size the sysctls allow and of BIG_CHILD_*: the difference over
 * the M x (big - smallest) buckets added, so that what a walk costs per
 * namespace or per call, the listening hash (which every TCP walk but
 * chained-conn and global-conn also scans, a bucket costing a few
 * nanoseconds since there is no cond_resched() in that loop) and the
 * host's own namespace cancel out.  The shared UDP table is small
 * (udp_hash_entries), so there the time is mostly what each walk costs
 * per namespace, not per bucket.
 */
static void run_empty(int m, int reps, const char *out, int p_first, int p_last)
{
	int protos[] = { IPPROTO_TCP, IPPROTO_UDP };
	struct result shared[N_DESIGNS], small[N_DESIGNS], big[N_DESIGNS];
	unsigned int i;
	FILE *csv;
	int pi;

	csv = create(out, "empty.csv", "tables,m,proto,design,reps,wall_ms_median,wall_ms_iqr,buckets,ns_per_bucket,ratio_vs_netns_arg\n");
	printf("%-6s %4s %-3s %-12s %10s %8s %10s %10s %8s\n", "tables", "M", "pro",
	       "design", "wall_ms", "iqr", "buckets", "ns/bucket", "x_arg");
	empty_world = true;
	for (pi = p_first; pi <= p_last; pi++) {
		bool tcp = protos[pi] == IPPROTO_TCP;
		long host = read_long(tcp ? "/proc/sys/net/ipv4/tcp_ehash_entries" :
					    "/proc/sys/net/ipv4/udp_hash_entries");
		long added = (long)m * (tcp ? BIG_CHILD_EHASH - MIN_CHILD_EHASH :
					      BIG_CHILD_UDP_HASH - MIN_CHILD_UDP_HASH);
		double arg[2];
		int t;

		empty_point(m, false, protos[pi], reps, shared);
		child_ehash = MIN_CHILD_EHASH;
		child_udp_hash = MIN_CHILD_UDP_HASH;
		empty_point(m, true, protos[pi], reps, small);
		child_ehash = BIG_CHILD_EHASH;
		child_udp_hash = BIG_CHILD_UDP_HASH;
		empty_point(m, true, protos[pi], reps, big);
		child_ehash = CHILD_EHASH;
		child_udp_hash = CHILD_UDP_HASH;

		arg[0] = shared[D_NETNS_ARG].wall * 1e6 / ((m + 1) * host);
		arg[1] = (big[D_NETNS_ARG].wall - small[D_NETNS_ARG].wall) * 1e6 / added;
		for (t = 0; t <= 1; t++) {
			for (i = 0; i < N_EMPTY; i++) {
				enum design d = empty_designs[i];
				long b = t ? added : global_of(d, protos[pi]) == d ? host :
					     (m + 1) * host;
				double wall = t ? big[d].wall - small[d].wall : shared[d].wall;
				/* child: the two IQRs added, a bound on the difference's */
				double spread = t ? iqr(&big[d]) + iqr(&small[d]) :
						    iqr(&shared[d]);
				double nspb = wall * 1e6 / b;

				if (!runs(protos[pi], d))
					continue;
				fprintf(csv, "%s,%d,%s,%s,%d,%.3f,%.3f,%ld,%.1f,%.3f\n",
					t ? "child" : "shared", m, tcp ? "tcp" : "udp",
					design_names[d], reps, wall, spread, b, nspb,
					nspb / arg[t]);
				printf("%-6s %4d %-3s %-12s %10.3f %8.3f %10ld %10.1f %8.2f\n",
				       t ? "child" : "shared", m, tcp ? "tcp" : "udp",
				       design_names[d], wall, spread, b, nspb,
				       nspb / arg[t]);
			}
		}
	}
	fclose(csv);
}

/* Free, slab, vmalloc and per-CPU memory, from /proc/meminfo, in kB. */
struct mem { long free, slab, vmalloc, percpu; };

static void mem_now(struct mem *m)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	long v;

	if (!f)
		die("/proc/meminfo");
	memset(m, 0, sizeof(*m));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "MemFree: %ld", &v) == 1)
			m->free = v;
		else if (sscanf(line, "Slab: %ld", &v) == 1)
			m->slab = v;
		else if (sscanf(line, "VmallocUsed: %ld", &v) == 1)
			m->vmalloc = v;
		else if (sscanf(line, "Percpu: %ld", &v) == 1)
			m->percpu = v;
	}
	fclose(f);
}

/*
 * Create @m namespaces with loopback up and no socket, with child tables
 * of @ehash and @udp_hash entries (0: the shared tables), held by the
 * returned fds; @d gets what they added to the kernel's memory (free:
 * what MemFree lost).
 */
static int *hold_namespaces(int m, int ehash, int udp_hash, struct mem *d)
{
	int *fds = calloc(m, sizeof(*fds)), i;
	struct mem m0, m1;

	if (!fds)
		die("calloc");
	set_child_tables(ehash, udp_hash);
	mem_now(&m0);
	for (i = 0; i < m; i++) {
		fds[i] = enter_new_netns();
		if (setns(self_ns, CLONE_NEWNET))
			die("setns back");
	}
	mem_now(&m1);
	set_child_tables(0, 0);
	d->free = m0.free - m1.free;
	d->slab = m1.slab - m0.slab;
	d->vmalloc = m1.vmalloc - m0.vmalloc;
	d->percpu = m1.percpu - m0.percpu;
	return fds;
}

static void mem_row(FILE *csv, const char *tables, int m, int ehash,
		    int udp_hash, const struct mem *d)
{
	fprintf(csv, "%s,%d,%d,%d,%ld,%ld,%ld,%ld,%.1f\n", tables, m, ehash,
		udp_hash, d->free, d->slab, d->vmalloc, d->percpu,
		(double)d->free / m);
	printf("memory %-6s %d namespaces: MemFree -%ld kB, slab %ld, vmalloc %ld, percpu %ld kB\n",
	       tables, m, d->free, d->slab, d->vmalloc, d->percpu);
}

/*
 * --memory M: what a namespace costs in memory.  M namespaces with child
 * tables of the matrix's sizes (CHILD_EHASH, CHILD_UDP_HASH), then as many
 * on the shared tables, all held at once, in a guest where no namespace
 * has been freed yet (a namespace is freed later, by a kworker, and what
 * it gives back would blur the deltas: make bench-empty boots a guest for
 * this alone).  DIR/memory.csv gets what each set took; the difference
 * per namespace is the price of the child tables.
 */
static void run_memory(int m, const char *out)
{
	struct mem child, shared;
	int *cfds, *sfds, i;
	FILE *csv;

	cfds = hold_namespaces(m, CHILD_EHASH, CHILD_UDP_HASH, &child);
	sfds = hold_namespaces(m, 0, 0, &shared);
	csv = create(out, "memory.csv", "tables,m,ehash_entries,udp_hash_entries,memfree_kb,slab_kb,vmalloc_kb,percpu_kb,kb_per_netns\n");
	mem_row(csv, "child", m, CHILD_EHASH, CHILD_UDP_HASH, &child);
	mem_row(csv, "shared", m, 0, 0, &shared);
	fclose(csv);
	for (i = 0; i < m; i++) {
		close(cfds[i]);
		close(sfds[i]);
	}
	free(cfds);
	free(sfds);
}

/* The designs --fixed times: the per-namespace ones and whole-host. */
static const enum design fixed_designs[] = {
	D_SETNS, D_NETNS_ARG, D_CHAINED, D_CHAINED_CONN, D_GLOBAL,
	D_GLOBAL_CONN,
};
#define N_FIXED (sizeof(fixed_designs) / sizeof(fixed_designs[0]))

/*
 * --fixed M1,M2,...: what a namespace costs each design when it has
 * nothing to walk.  For each M, M empty namespaces with child tables of
 * the smallest size, walked by each design (measure()); DIR/fixed.csv gets
 * the time per namespace (M pods and the host), whose growth with M is
 * what a namespace costs each design by itself: setns(), a link, an
 * iterator, a program run.
 */
static void run_fixed(const long *ms, int nm, int reps, const char *out,
		      int p_first, int p_last)
{
	int protos[] = { IPPROTO_TCP, IPPROTO_UDP }, i, pi, n;
	struct result r[N_DESIGNS];
	enum design ds[N_FIXED];
	unsigned int j;
	FILE *csv;

	csv = create(out, "fixed.csv", "m,proto,design,reps,wall_ms_median,wall_ms_iqr,us_per_netns,syscalls,kernel_allocs\n");
	empty_world = true;
	child_ehash = MIN_CHILD_EHASH;
	child_udp_hash = MIN_CHILD_UDP_HASH;
	for (i = 0; i < nm; i++) {
		build_world(ms[i], 0, 0, true);
		for (pi = p_first; pi <= p_last; pi++) {
			for (n = 0, j = 0; j < N_FIXED; j++)
				if (runs(protos[pi], fixed_designs[j]))
					ds[n++] = fixed_designs[j];
			measure(protos[pi], W_WALK, ds, n, reps, r);
			for (j = 0; j < (unsigned int)n; j++) {
				struct result *x = &r[ds[j]];

				fprintf(csv, "%ld,%s,%s,%d,%.3f,%.3f,%.1f,%.0f,%.0f\n",
					ms[i], protos[pi] == IPPROTO_TCP ? "tcp" : "udp",
					design_names[ds[j]], reps, x->wall, iqr(x),
					x->wall * 1000 / (ms[i] + 1), x->calls, x->allocs);
				printf("fixed %5ld %-3s %-12s %10.3f %8.3f %8.1f us/netns\n",
				       ms[i], protos[pi] == IPPROTO_TCP ? "tcp" : "udp",
				       design_names[ds[j]], x->wall, iqr(x),
				       x->wall * 1000 / (ms[i] + 1));
			}
			fflush(csv);
		}
		free_world();
	}
	child_ehash = CHILD_EHASH;
	child_udp_hash = CHILD_UDP_HASH;
	fclose(csv);
}

/* Whether this runs in the project's guest (tests/vm/run marks its kernel). */
static bool in_guest(void)
{
	char line[4096] = "";
	FILE *f = fopen("/proc/cmdline", "r");

	if (!f)
		die("/proc/cmdline");
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	return strstr(line, "netns_iter.accel=");
}

/*
 * --calibrate runs natively too, where the host's own namespace holds
 * sockets and large shared tables: move to a namespace of our own, with
 * the smallest child tables, and leave the host's sysctls as they were.
 */
static void calibrate_home(void)
{
	const char *e = "/proc/sys/net/ipv4/tcp_child_ehash_entries";
	const char *u = "/proc/sys/net/ipv4/udp_child_hash_entries";
	long e0 = read_long(e), u0 = read_long(u);
	int home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC), fd;

	if (home < 0)
		die("open /proc/self/ns/net");
	calibrating = true;
	set_child_tables(MIN_CHILD_EHASH, MIN_CHILD_UDP_HASH);
	fd = enter_new_netns();
	enter(home);
	write_sysctl(e, e0);
	write_sysctl(u, u0);
	enter(fd);
	close(fd);
	close(home);
}

/* --calibrate: the walks a stock kernel has, and the worlds it times. */
static const enum design cal_designs[] = { D_SETNS, D_DIAG };
#define N_CAL (sizeof(cal_designs) / sizeof(cal_designs[0]))
#define CAL_S1		1000	/* sockets of the one namespace, and */
#define CAL_S2		10000	/* ... of the other world */

/* The worlds --calibrate sets against each other. */
enum cal_world {
	CAL_BIG,	/* M empty namespaces, child tables of BIG_CHILD_* */
	CAL_SMALL,	/* M empty namespaces, the smallest child tables */
	CAL_FEW,	/* M / 4 of those */
	CAL_S2_CHILD,	/* CAL_S2 sockets in one namespace, child tables */
	CAL_S1_CHILD,	/* CAL_S1 of them */
	CAL_S2_SHARED,	/* CAL_S2 sockets in two namespaces, shared tables */
	CAL_S1_SHARED,	/* CAL_S1 of them */
};

static void cal_build(enum cal_world w, int m, int proto)
{
	bool tcp = proto == IPPROTO_TCP, empty = w <= CAL_FEW;
	long s = w == CAL_S2_CHILD || w == CAL_S2_SHARED ? CAL_S2 : CAL_S1;

	empty_world = empty;
	child_ehash = w == CAL_BIG ? BIG_CHILD_EHASH :
		      empty ? MIN_CHILD_EHASH : CHILD_EHASH;
	child_udp_hash = w == CAL_BIG ? BIG_CHILD_UDP_HASH :
			 empty ? MIN_CHILD_UDP_HASH : CHILD_UDP_HASH;
	if (empty)
		build_world(w == CAL_FEW ? m / 4 : m, 0, 0, true);
	else
		build_world(w >= CAL_S2_SHARED ? 2 : 1, tcp ? s / 2 : 0,
			    tcp ? 0 : s, w < CAL_S2_SHARED);
	child_ehash = CHILD_EHASH;
	child_udp_hash = CHILD_UDP_HASH;
}

/*
 * The calibration designs of @proto on worlds @wa and @wb, timed a, b, a,
 * b, each world built afresh, so that neither has all of its runs in one
 * stretch of time (a drift of the machine's speed, or the teardown of the
 * last world still running on another CPU); each world's samples of both
 * rounds pooled into @a and @b.
 */
static void cal_pair(int proto, int m, int reps, enum cal_world wa,
		     enum cal_world wb, struct result a[N_DESIGNS],
		     struct result b[N_DESIGNS])
{
	struct result r[2][2][N_DESIGNS];
	double v[2 * MAX_REPS];
	unsigned int i;
	int round, w, j;

	for (round = 0; round < 2; round++) {
		for (w = 0; w < 2; w++) {
			cal_build(w ? wb : wa, m, proto);
			measure(proto, W_WALK, cal_designs, N_CAL, reps, r[w][round]);
			free_world();
		}
	}
	for (w = 0; w < 2; w++) {
		for (i = 0; i < N_CAL; i++) {
			enum design d = cal_designs[i];
			struct result *x = w ? &b[d] : &a[d];

			for (j = 0; j < 2 * reps; j++)
				v[j] = r[w][j / reps][d].samples[j % reps];
			x->wall = quantile(v, 2 * reps, 0.5);
			x->wall_p25 = quantile(v, 2 * reps, 0.25);
			x->wall_p75 = quantile(v, 2 * reps, 0.75);
		}
	}
}

/* One row of calibration.csv: @cost per unit of design @d, from @a - @b. */
static void cal_row(FILE *csv, const char *where, int proto, enum design d,
		    const char *cost, long units, const struct result *a,
		    const struct result *b, int reps)
{
	double ns = (a->wall - b->wall) * 1e6 / units;
	/* the two IQRs added: a range, not a confidence interval */
	double spread = (iqr(a) + iqr(b)) * 1e6 / units;

	fprintf(csv, "%s,%s,%s,%s,%d,%ld,%.3f,%.3f,%.2f,%.2f\n", where,
		proto == IPPROTO_TCP ? "tcp" : "udp", design_names[d], cost,
		2 * reps, units, a->wall, b->wall, ns, spread);
	printf("%-6s %-3s %-10s %-9s %10ld units %10.2f ns each (spread %.2f)\n",
	       where, proto == IPPROTO_TCP ? "tcp" : "udp", design_names[d],
	       cost, units, ns, spread);
}

/*
 * --calibrate M: what one hash bucket, one socket and one namespace cost
 * the walks a stock kernel has (the setns loop's iter/tcp and iter/udp,
 * and sock_diag), on the kernel this runs on: natively on the host, and in
 * the guest, so that the emulator's factor per cost can be stated.  Each
 * cost is the difference of two worlds (cal_pair()):
 *   bucket:    M empty namespaces with child tables of BIG_CHILD_* and of
 *              the smallest size; over the M x (big - smallest) buckets;
 *   namespace: M and M / 4 empty namespaces with the smallest tables;
 *              over the 3M / 4 namespaces: setns(), a link, a read and
 *              the walk of an empty namespace, which for TCP includes the
 *              shared listening hash (and for sock_diag the shared bind
 *              hash), at the size the running kernel has;
 *   socket:    one namespace of CAL_S2 and of CAL_S1 sockets (TCP: half
 *              clients, half accepted peers; UDP: connected clients),
 *              with child tables of CHILD_*; over the CAL_S2 - CAL_S1
 *              sockets, each handed to the program or dumped;
 *   shared:    the same sockets in two namespaces on the shared tables,
 *              where each namespace's walk also steps over the other's:
 *              a socket handed once and stepped over once.
 * The walks run from a namespace of their own, with the smallest child
 * tables, which the setns loop walks too.  The shared worlds meet the
 * kernel's shared tables and what they hold, the same in both worlds.
 * DIR/calibration.csv gets each cost, with WHERE ("native" or "guest") in
 * its first column.
 */
static void run_calibrate(int m, int reps, const char *out, const char *where)
{
	static const struct { enum cal_world a, b; const char *cost; } costs[] = {
		{ CAL_BIG, CAL_SMALL, "bucket" },
		{ CAL_SMALL, CAL_FEW, "namespace" },
		{ CAL_S2_CHILD, CAL_S1_CHILD, "socket" },
		{ CAL_S2_SHARED, CAL_S1_SHARED, "shared" },
	};
	int protos[] = { IPPROTO_TCP, IPPROTO_UDP }, pi;
	struct result a[N_DESIGNS], b[N_DESIGNS];
	unsigned int c, i;
	FILE *csv;

	csv = create(out, "calibration.csv", "where,proto,design,cost,reps,units,wall_ms_a,wall_ms_b,ns_per_unit,spread_ns\n");
	for (pi = 0; pi < 2; pi++) {
		int proto = protos[pi];
		bool tcp = proto == IPPROTO_TCP;

		for (c = 0; c < sizeof(costs) / sizeof(costs[0]); c++) {
			long units = c == 0 ? (long)m * (tcp ? BIG_CHILD_EHASH - MIN_CHILD_EHASH :
							  BIG_CHILD_UDP_HASH - MIN_CHILD_UDP_HASH) :
				     c == 1 ? m - m / 4 : CAL_S2 - CAL_S1;

			cal_pair(proto, m, reps, costs[c].a, costs[c].b, a, b);
			for (i = 0; i < N_CAL; i++)
				cal_row(csv, where, proto, cal_designs[i],
					costs[c].cost, units, &a[cal_designs[i]],
					&b[cal_designs[i]], reps);
			fflush(csv);
		}
	}
	fclose(csv);
}

/*
 * Whether design @d walks each namespace's share of the tables: on the
 * shared tables, every socket of the host once per namespace.
 */
static bool per_netns(enum design d)
{
	return d != D_GLOBAL && d != D_GLOBAL_CONN && d != D_INDEX &&
	       d != D_TUPLE;
}

/* @cmd: "netns-reap @args", the netns-reap beside this program. */
static void reap_cmd(char *cmd, size_t len, const char *args)
{
	char exe[512], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n < 0)
		die("/proc/self/exe");
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	snprintf(cmd, len, "%s/netns-reap %s", exe, args);
}

static bool index_started;

static void index_stop_at_exit(void)
{
	char cmd[640];

	if (!index_started)
		return;
	reap_cmd(cmd, sizeof(cmd), "index stop >/dev/null");
	if (system(cmd))
		fprintf(stderr, "netns-bench: '%s' failed: the index is still attached\n", cmd);
}

/*
 * netns-reap index @verb: start or stop the index.  One that this run
 * started is stopped at exit, whatever the exit.
 */
static void index_ctl(const char *verb)
{
	char args[64], cmd[640];
	static bool registered;

	snprintf(args, sizeof(args), "index %s >/dev/null", verb);
	reap_cmd(cmd, sizeof(cmd), args);
	if (!registered) {
		atexit(index_stop_at_exit);
		registered = true;
	}
	index_started = !strcmp(verb, "start");
	if (system(cmd)) {
		fprintf(stderr, "netns-bench: '%s' failed\n", cmd);
		exit(1);
	}
}

/* The window positions the index design's runs read, as a CSV field. */
static const char *slots_of(const struct result *x)
{
	static char buf[24];

	snprintf(buf, sizeof(buf), "%lu", x->slots);
	return buf;
}

/* The value of JSON key @key in @buf, or -1. */
static long long json_u64(const char *buf, const char *key)
{
	char pat[64];
	const char *p;
	long long v;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(buf, pat);
	return p && sscanf(p + strlen(pat), "%lld", &v) == 1 ? v : -1;
}

/*
 * The index's entries and its maps' bytes (netns-reap index status),
 * after a world of @n sockets was built: an index that missed a socket,
 * or holds fewer than the world, would time a lookup of what it lacks.
 */
static void index_size(__u64 *entries, __u64 *bytes, long n_world)
{
	long long e, b, missed, skipped;
	char cmd[640], buf[1024];
	size_t n;
	FILE *f;

	reap_cmd(cmd, sizeof(cmd), "-j index status");
	f = popen(cmd, "r");
	if (!f)
		die(cmd);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	e = json_u64(buf, "entries");
	b = json_u64(buf, "map_bytes");
	missed = json_u64(buf, "missed");
	skipped = json_u64(buf, "prog_misses");
	if (pclose(f) || e < 0 || b < 0 || missed < 0 || skipped < 0) {
		fprintf(stderr, "netns-bench: no entries, map_bytes, missed or prog_misses from '%s': %s\n",
			cmd, buf);
		exit(1);
	}
	if (missed || skipped || e < n_world) {
		fprintf(stderr, "netns-bench: the index holds %lld entries for a world of %ld sockets, missed %lld and skipped %lld program runs\n",
			e, n_world, missed, skipped);
		exit(1);
	}
	*entries = e;
	*bytes = b;
}

/*
 * --scale N1,N2,...: the benchmark of Jordan Rife's RFC "bpf: Efficient
 * socket destruction" (2025): SCALE_M namespaces holding N sockets of one
 * protocol in all (UDP: connected clients; TCP: clients and their
 * accepted peers, plus two listeners per namespace), on the shared and on
 * child tables of the matrix's sizes.  A trial destroys the clients of a
 * stale backend, one in each of the first SCALE_STALE namespaces (the RFC
 * destroyed 1 to 5 sockets a trial), with every design; DIR/scale.csv,
 * with the seconds the point took to build its world and to measure, and
 * every trial's wall time.  Every design runs @reps trials in rotation
 * ("warm": each trial finds what the one before it left cached); the
 * index and diag-tuple, which look sockets up and walk nothing, run
 * MAX_REPS more apart, each from a cold start ("cold", go_cold()).
 * The stale backend has an address of its own (backend_addr()).  The
 * index runs for the whole of it (netns-reap index start): its programs
 * fill it as the worlds are built, and the other designs' destroys run
 * its close hooks too.  DIR/index.csv gets its entries and its maps'
 * bytes at each point.  On the shared tables, points over SCALE_WALK_CAP
 * sockets run only the designs that do not walk per namespace: there
 * each per-netns walk visits every socket of the host once per namespace.
 */
static void run_scale(const long *ns, int nn, int reps, const char *out,
		      int t_first, int t_last, int p_first, int p_last)
{
	int protos[] = { IPPROTO_TCP, IPPROTO_UDP }, t, pi, i, n;
	struct result r[N_DESIGNS], rc[N_DESIGNS];
	enum design ds[N_DESIGNS];
	__u64 entries, bytes;
	double t0, t1, t2, tm;
	FILE *csv, *icsv;
	int d;

	csv = create(out, "scale.csv", "tables,proto,m,n,design,start,reps,wall_ms_median,wall_ms_iqr,wall_ms_p25,wall_ms_p75,sys_ms_median,destroyed,sockets_seen,syscalls,kernel_allocs,ratio_vs_global,scope,world_s,measure_s,wall_ms_min,wall_ms_max,index_slots,wall_ms_samples\n");
	icsv = create(out, "index.csv", "tables,proto,m,n,entries,map_bytes,bytes_per_entry\n");
	scale_world = true;
	index_ctl("stop");	/* a fresh index, not one left running */
	index_ctl("start");
	index_on = true;
	for (t = t_first; t <= t_last; t++) {
		for (pi = p_first; pi <= p_last; pi++) {
			bool tcp = protos[pi] == IPPROTO_TCP;

			for (i = 0; i < nn; i++) {
				t0 = now();
				build_world(SCALE_M, tcp ? ns[i] / 2 : 0,
					    tcp ? 0 : ns[i], t);
				t1 = now();
				index_size(&entries, &bytes, ns[i]);
				fprintf(icsv, "%s,%s,%d,%ld,%llu,%llu,%.1f\n",
					t ? "child" : "shared", tcp ? "tcp" : "udp",
					SCALE_M, ns[i], (unsigned long long)entries,
					(unsigned long long)bytes,
					entries ? (double)bytes / entries : 0);
				fflush(icsv);
				tm = now();
				for (n = 0, d = 0; d < N_DESIGNS; d++)
					if (runs(protos[pi], d) &&
					    (t || ns[i] <= SCALE_WALK_CAP ||
					     !per_netns(d)))
						ds[n++] = d;
				/*
				 * Every design in rotation; then the index
				 * and its control (the last two designs)
				 * again, apart and from a cold start each
				 * (go_cold()), MAX_REPS times: a kill of 5
				 * sockets is short, and what it finds cached
				 * decides much of its time.
				 */
				measure(protos[pi], W_REAP1, ds, n, reps, r);
				assert(ds[n - 2] == D_INDEX && ds[n - 1] == D_TUPLE);
				cold_trials = true;
				measure(protos[pi], W_REAP1, ds + n - 2, 2,
					MAX_REPS, rc);
				cold_trials = false;
				t2 = now();
				for (d = 0; d < n + 2; d++) {
					bool cold = d >= n;
					enum design e = ds[cold ? d - 2 : d];
					struct result *x = cold ? &rc[e] : &r[e];
					char ratio[32] = "";

					if (!cold)
						snprintf(ratio, sizeof(ratio), "%.3f",
							 x->wall / r[global_of(e, protos[pi])].wall);
					fprintf(csv, "%s,%s,%d,%ld,%s,%s,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%d,%lu,%.0f,%.0f,%s,%s,%.1f,%.1f,%.4f,%.4f,%s,",
						t ? "child" : "shared", tcp ? "tcp" : "udp",
						SCALE_M, ns[i], design_names[e],
						cold ? "cold" : "warm", x->reps,
						x->wall, iqr(x), x->wall_p25, x->wall_p75,
						x->sys, clients_of(protos[pi], 1), x->seen,
						x->calls, x->allocs, ratio,
						connected_only(e) && !tcp ? "all" : design_scope(e),
						(t1 - t0) / 1e3, (t2 - tm) / 1e3,
						x->wall_min, x->wall_max,
						e == D_INDEX ? slots_of(x) : "");
					put_samples(csv, x, 4);
					printf("scale %-6s %s %8ld %-12s %-4s %10.3f %8.3f %9lu\n",
					       t ? "child" : "shared", tcp ? "tcp" : "udp",
					       ns[i], design_names[e], cold ? "cold" : "warm",
					       x->wall, iqr(x), x->seen);
				}
				printf("# scale %s %s N=%ld: world built in %.1f s, measured in %.1f s\n",
				       t ? "child" : "shared", tcp ? "tcp" : "udp",
				       ns[i], (t1 - t0) / 1e3, (t2 - t1) / 1e3);
				fflush(stdout);
				fflush(csv);
				free_world();
			}
		}
	}
	index_on = false;
	index_ctl("stop");
	scale_world = false;
	fclose(icsv);
	fclose(csv);
}

/*
 * --section N1,N2,...: how long the chained walk holds the tasks-trace RCU
 * read lock and migration disabled.  The iterator core holds both around
 * each run of an iter.s/netns program, and one run is one namespace's
 * whole walk, so the longest section is the longest run: reap_chained()
 * times its own runs (counts.longest_ns).  One namespace holds N TCP
 * sockets (N/2 clients and their accepted peers, beside the NBACKENDS
 * listeners) and N connected UDP clients (client_of() spreads them over
 * source addresses, as one address has too few ports); the chained walk of each
 * protocol runs as a walk (nothing matches) and as a reap of every
 * client (a lock_sock() and an abort per client).  DIR/section.csv has
 * the median and the longest section over the repetitions, the median
 * wall time of the whole walk (every namespace of the guest), and the
 * sockets the program saw.
 */
static void run_section(const long *ns, int nn, int reps, const char *out,
			int t_first, int t_last, int p_first, int p_last)
{
	int protos[] = { IPPROTO_TCP, IPPROTO_UDP }, t, pi, i;
	static const enum workload ws[] = { W_WALK, W_REAP10 };
	enum design chained = D_CHAINED;
	struct result r[N_DESIGNS];
	unsigned int w;
	FILE *csv;

	csv = create(out, "section.csv", "tables,proto,n,workload,reps,section_ms_median,section_ms_max,wall_ms_median,sockets_seen,destroyed\n");
	section_world = true;
	for (t = t_first; t <= t_last; t++) {
		for (i = 0; i < nn; i++) {
			build_world(1, ns[i] / 2, ns[i], t);
			for (pi = p_first; pi <= p_last; pi++) {
				for (w = 0; w < sizeof(ws) / sizeof(ws[0]); w++) {
					int nd = ws[w] == W_WALK ? 0 :
						 clients_of(protos[pi], NBACKENDS);

					measure(protos[pi], ws[w], &chained, 1, reps, r);
					fprintf(csv, "%s,%s,%ld,%s,%d,%.3f,%.3f,%.3f,%lu,%d\n",
						t ? "child" : "shared",
						pi ? "udp" : "tcp", ns[i],
						workload_names[ws[w]], reps,
						r[chained].longest,
						r[chained].longest_max,
						r[chained].wall, r[chained].seen,
						nd);
					printf("section %-6s %s %8ld %-7s %10.3f %10.3f %10.3f %9lu\n",
					       t ? "child" : "shared",
					       pi ? "udp" : "tcp", ns[i],
					       workload_names[ws[w]],
					       r[chained].longest,
					       r[chained].longest_max,
					       r[chained].wall, r[chained].seen);
					fflush(stdout);
					fflush(csv);
				}
			}
			free_world();
		}
	}
	fclose(csv);
}

/*
 * One repetition of --connect: @k connections of @proto in the current
 * namespace to the listener @lfd (TCP) or the port of @a (UDP).  A TCP
 * connection is connect(), accept() and an abortive close of both (no
 * TIME_WAIT left to fill the tables); a UDP one connect() and close().
 * @lat gets each connect()'s microseconds; returns the loop's seconds.
 */
static double connect_loop(int proto, int lfd, const struct sockaddr_in *a,
			   int k, double *lat)
{
	struct linger lin = { .l_onoff = 1, .l_linger = 0 };
	double t0 = now(), t1;
	int i, c, s;

	for (i = 0; i < k; i++) {
		c = socket(AF_INET, proto == IPPROTO_TCP ? SOCK_STREAM : SOCK_DGRAM, 0);
		if (c < 0)
			die("socket");
		t1 = now();
		if (connect(c, (const void *)a, sizeof(*a)))
			die("connect");
		lat[i] = (now() - t1) * 1e3;
		if (proto == IPPROTO_TCP) {
			s = accept(lfd, NULL, NULL);
			if (s < 0)
				die("accept");
			setsockopt(c, SOL_SOCKET, SO_LINGER, &lin, sizeof(lin));
			close(c);
			close(s);
		} else {
			close(c);
		}
	}
	return (now() - t0) / 1e3;
}

/*
 * --connect K: the price the index makes every connect pay, which the
 * walks do not.  In a namespace of its own, each repetition runs K TCP
 * connections and then K UDP ones (connect_loop()) without the index and
 * with it (netns-reap index start: the programs attached to the root
 * cgroup and the kprobes), in the order off-on, then on-off, alternating,
 * after one discarded warm-up pair.  Every state is entered the same way,
 * an index start or stop (each idempotent) and K / 10 connections of each
 * protocol untimed, and one TCP connection and one connected UDP socket
 * to the address stay open throughout: the address's word in the index
 * lives on, as a backend's does, instead of being made and deleted by
 * every connect.  DIR/connect.csv gets one row per repetition, protocol
 * and state: the loop's connections per second and the median and 99th
 * percentile of connect()'s latency, so that the report pairs each "on"
 * with the "off" of its repetition.  One thread: contention on the
 * index's words is not measured.
 */
static void run_connect(int k, int reps, const char *out)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				 .sin_port = htons(BASE_PORT) };
	int protos[] = { IPPROTO_TCP, IPPROTO_UDP }, r, o, pi, lfd, nsfd, one = 1;
	int keep[3];
	double *lat = calloc(k, sizeof(*lat)), secs;
	FILE *csv;

	if (!lat)
		die("calloc");
	csv = create(out, "connect.csv", "rep,proto,index,connects,seconds,connects_per_s,connect_us_p50,connect_us_p99\n");
	nsfd = enter_new_netns();
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (lfd < 0 || bind(lfd, (void *)&a, sizeof(a)) || listen(lfd, 4096))
		die("listen");
	index_ctl("stop");
	index_ctl("start");	/* the resident sockets are indexed */
	keep[0] = client_of(SOCK_STREAM, 0);
	keep[1] = accept(lfd, NULL, NULL);
	keep[2] = client_of(SOCK_DGRAM, 0);
	if (keep[1] < 0)
		die("accept");
	for (r = -1; r < reps; r++) {
		for (o = 0; o < 2; o++) {
			/* off-on in even repetitions, on-off in odd ones */
			bool on = (o + (r & 1)) & 1;

			index_ctl(on ? "start" : "stop");
			for (pi = 0; pi < 2; pi++)
				connect_loop(protos[pi], lfd, &a, k / 10, lat);
			for (pi = 0; pi < 2; pi++) {
				secs = connect_loop(protos[pi], lfd, &a, k, lat);
				if (r < 0)
					continue;
				fprintf(csv, "%d,%s,%s,%d,%.4f,%.1f,%.2f,%.2f\n", r,
					pi ? "udp" : "tcp", on ? "on" : "off", k,
					secs, k / secs, quantile(lat, k, 0.5),
					quantile(lat, k, 0.99));
				printf("connect %2d %s index %-3s %8.1f/s p50 %8.2f us p99 %8.2f us\n",
				       r, pi ? "udp" : "tcp", on ? "on" : "off",
				       k / secs, quantile(lat, k, 0.5),
				       quantile(lat, k, 0.99));
			}
			fflush(stdout);
			fflush(csv);
		}
	}
	index_ctl("stop");
	for (o = 0; o < 3; o++)
		close(keep[o]);
	close(lfd);
	if (setns(self_ns, CLONE_NEWNET))
		die("setns back");
	close(nsfd);
	free(lat);
	fclose(csv);
}

/*
 * "N1,N2,..." of option --@opt: the counts into @v (at most MAX_LIST),
 * each 1 or more; or -1 once the error is said.
 */
static int parse_counts(const char *opt, const char *what, const char *arg,
			long *v)
{
	const char *p = arg;
	char *end;
	int n = 0;

	do {
		errno = 0;
		if (n < MAX_LIST)
			v[n] = strtol(p, &end, 10);
		if (n == MAX_LIST || errno || end == p || v[n] < 1 ||
		    (*end && *end != ',')) {
			fprintf(stderr, "netns-bench: --%s takes up to %d %s counts of 1 or more, separated by commas\n",
				opt, MAX_LIST, what);
			return -1;
		}
		n++;
		p = end + 1;
	} while (*end);
	return n;
}

int main(int argc, char **argv)
{
	/* 110 and 256: Kubernetes' pods per node, by default and at most */
	static const int full_m[] = { 1, 16, 64, 110, 256 }, full_s[] = { 10, 100, 1000 };
	static const int smoke_m[] = { 1, 4 }, smoke_s[] = { 10 };
	const int *ms = full_m, *ss = full_s;
	int nm = 5, ns = 3, reps = 7, cap = 64000, cap_child = -1, max_m_shared = 256;
	int cap_reap = 64000, nw;
	int protos[] = { IPPROTO_TCP, IPPROTO_UDP }, p_first = 0, p_last = 1;
	int mi, si, t, d, w, pi;
	double t0, t1;
	const char *out = "results";
	int t_first = 0, t_last = 1, empty_m = 0, n_fixed = 0, n_scale = 0;
	int memory_m = 0;
	long fixed_m[MAX_LIST], scale_n[MAX_LIST], section_n[MAX_LIST];
	int n_section = 0, connect_k = 0, cal_m = 0;
	struct rlimit rl = { 1 << 20, 1 << 20 };
	char why[256];
	FILE *csv;
	int err;

	for (;;) {
		static const struct option lo[] = {
			{ "smoke", no_argument, NULL, 's' },
			{ "reps", required_argument, NULL, 'r' },
			{ "cap", required_argument, NULL, 'c' },
			{ "cap-child", required_argument, NULL, 'C' },
			{ "cap-reap", required_argument, NULL, 'R' },
			{ "max-m-shared", required_argument, NULL, 'M' },
			{ "out", required_argument, NULL, 'o' },
			{ "tables", required_argument, NULL, 't' },
			{ "proto", required_argument, NULL, 'p' },
			{ "empty", required_argument, NULL, 'e' },
			{ "fixed", required_argument, NULL, 'f' },
			{ "memory", required_argument, NULL, 'm' },
			{ "scale", required_argument, NULL, 'S' },
			{ "section", required_argument, NULL, 'L' },
			{ "connect", required_argument, NULL, 'k' },
			{ "calibrate", required_argument, NULL, 'K' },
			{}
		};
		int c = getopt_long(argc, argv, "", lo, NULL);

		if (c == -1)
			break;
		if (c == 's') {
			ms = smoke_m;
			ss = smoke_s;
			nm = 2;
			ns = 1;
			reps = 2;
		} else if (c == 'r') {
			reps = atoi(optarg);
		} else if (c == 'c') {
			cap = atoi(optarg);
		} else if (c == 'C') {
			cap_child = atoi(optarg);
		} else if (c == 'R') {
			cap_reap = atoi(optarg);
		} else if (c == 'M') {
			max_m_shared = atoi(optarg);
		} else if (c == 'e') {
			empty_m = atoi(optarg);
		} else if (c == 'm') {
			memory_m = atoi(optarg);
			if (memory_m < 1) {
				fprintf(stderr, "netns-bench: --memory takes a namespace count of 1 or more\n");
				return 2;
			}
		} else if (c == 'f') {
			n_fixed = parse_counts("fixed", "namespace", optarg, fixed_m);
			if (n_fixed < 0)
				return 2;
		} else if (c == 'S') {
			n_scale = parse_counts("scale", "socket", optarg, scale_n);
			if (n_scale < 0)
				return 2;
		} else if (c == 'L') {
			n_section = parse_counts("section", "socket", optarg,
						 section_n);
			if (n_section < 0)
				return 2;
		} else if (c == 'k') {
			connect_k = atoi(optarg);
			if (connect_k < 100) {
				fprintf(stderr, "netns-bench: --connect takes a connection count of 100 or more\n");
				return 2;
			}
		} else if (c == 'K') {
			cal_m = atoi(optarg);
			if (cal_m < 4) {
				fprintf(stderr, "netns-bench: --calibrate takes a namespace count of 4 or more\n");
				return 2;
			}
		} else if (c == 'o') {
			out = optarg;
		} else if (c == 't' && !strcmp(optarg, "shared")) {
			t_last = 0;
		} else if (c == 't' && !strcmp(optarg, "child")) {
			t_first = 1;
		} else if (c == 'p' && !strcmp(optarg, "tcp")) {
			p_last = 0;
		} else if (c == 'p' && !strcmp(optarg, "udp")) {
			p_first = 1;
		} else {
			fprintf(stderr, "usage: netns-bench [--smoke] [--reps N] [--cap SOCKETS] [--cap-child SOCKETS] [--cap-reap SOCKETS] [--max-m-shared M] [--tables shared|child] [--proto tcp|udp] [--out DIR]\n       netns-bench --empty M [--reps N] [--proto tcp|udp] [--out DIR]\n       netns-bench --fixed M1,M2,... [--reps N] [--proto tcp|udp] [--out DIR]\n       netns-bench --memory M [--out DIR]\n       netns-bench --scale N1,N2,... [--reps N] [--tables shared|child] [--proto tcp|udp] [--out DIR]\n       netns-bench --section N1,N2,... [--reps N] [--tables shared|child] [--proto tcp|udp] [--out DIR]\n       netns-bench --connect K [--reps N] [--out DIR]\n       netns-bench --calibrate M [--reps N] [--out DIR]\n");
			return 2;
		}
	}
	if (reps < 1 || reps > MAX_REPS) {
		fprintf(stderr, "netns-bench: --reps must be 1..%d\n", MAX_REPS);
		return 2;
	}
	if (cap_child < 0)
		cap_child = cap;
	libbpf_set_print(NULL);
	/* counting left on by a run that died */
	walk_stats_switch(false);
	if (cal_m)
		calibrate_home();
	/* fail before any world is built if the counters cannot open */
	err = cal_m ? 0 : kcount_open(why, sizeof(why));
	if (err) {
		fprintf(stderr, "netns-bench: the kernel's counters: %s\n", why);
		return 1;
	}
	kcount_close();
	/* natively, nr_open may be lower: then as many as the hard limit */
	if (setrlimit(RLIMIT_NOFILE, &rl) &&
	    (getrlimit(RLIMIT_NOFILE, &rl) ||
	     (rl.rlim_cur = rl.rlim_max, setrlimit(RLIMIT_NOFILE, &rl))))
		die("RLIMIT_NOFILE");
	if (cal_m && rl.rlim_cur < CAL_S2 + 1024) {
		fprintf(stderr, "netns-bench: --calibrate holds %d sockets open, but only %llu files may be open (ulimit -Hn); raise the hard limit\n",
			CAL_S2, (unsigned long long)rl.rlim_cur);
		return 1;
	}
	self_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self_ns < 0 || reap_netns_cookie_of(self_ns, self_ns, &self_cookie))
		die("the cookie of this namespace");
	mkdir(out, 0755);
	if (cal_m) {
		run_calibrate(cal_m, reps, out, in_guest() ? "guest" : "native");
		return 0;
	}
	if (empty_m > 0) {
		run_empty(empty_m, reps, out, p_first, p_last);
		return 0;
	}
	if (memory_m) {
		run_memory(memory_m, out);
		return 0;
	}
	if (n_fixed) {
		run_fixed(fixed_m, n_fixed, reps, out, p_first, p_last);
		return 0;
	}
	if (n_section) {
		run_section(section_n, n_section, reps, out, t_first, t_last,
			    p_first, p_last);
		return 0;
	}
	if (connect_k) {
		run_connect(connect_k, reps, out);
		return 0;
	}
	if (n_scale) {
		run_scale(scale_n, n_scale, reps, out, t_first, t_last,
			  p_first, p_last);
		return 0;
	}
	csv = create(out, "world.txt", "");
	fprintf(csv, "backends %d\nchild_ehash_entries %d\nchild_udp_hash_entries %d\n",
		NBACKENDS, CHILD_EHASH, CHILD_UDP_HASH);
	fclose(csv);
	csv = create(out, "results.csv", "tables,m,s,design,workload,reps,wall_ms_median,wall_ms_iqr,sys_ms_median,ratio_vs_global,ratio_vs_chained,sockets_seen,syscalls,per_netns_us,kernel_buckets,kernel_sockets,proto,wall_ms_p25,wall_ms_p75,kernel_allocs,kernel_pages,scope,kernel_locks,kernel_prog_runs,wall_ms_samples\n");
	printf("%-6s %4s %5s %-3s %-12s %-7s %10s %8s %8s %8s %8s %9s %8s %8s %9s %9s\n",
	       "tables", "M", "S", "pro", "design", "work", "wall_ms", "iqr",
	       "sys_ms", "x_global", "x_chain", "sockets", "syscalls",
	       "allocs", "k_buckets", "k_sockets");
	for (t = t_first; t <= t_last; t++) {
		for (mi = 0; mi < nm; mi++) {
			for (si = 0; si < ns; si++) {
				struct result r[2][N_WORKLOADS][N_DESIGNS];
				enum design ds[N_DESIGNS];
				int n;

				if (ms[mi] * ss[si] > (t ? cap_child : cap)) {
					printf("# skip %s M=%d S=%d: %d sockets is over the cap of %d\n",
					       t ? "child" : "shared", ms[mi], ss[si],
					       ms[mi] * ss[si], t ? cap_child : cap);
					continue;
				}
				if (!t && ms[mi] > max_m_shared) {
					printf("# skip shared M=%d S=%d: over --max-m-shared %d\n",
					       ms[mi], ss[si], max_m_shared);
					continue;
				}
				nw = N_WORKLOADS;
				if (ms[mi] * ss[si] > cap_reap) {
					printf("# walk only at %s M=%d S=%d: %d sockets is over the reap cap of %d\n",
					       t ? "child" : "shared", ms[mi], ss[si],
					       ms[mi] * ss[si], cap_reap);
					nw = 1;
				}
				t0 = now();
				build_world(ms[mi], (long)ms[mi] * (ss[si] / 2),
					    (long)ms[mi] * ss[si], t);
				t1 = now();
				for (pi = p_first; pi <= p_last; pi++) {
					for (n = 0, d = 0; d < N_DESIGNS; d++)
						if (runs(protos[pi], d))
							ds[n++] = d;
					for (w = 0; w < nw; w++)
						measure(protos[pi], w, ds, n, reps, r[pi][w]);
				}
				printf("# %s M=%d S=%d: world built in %.1f s, measured in %.1f s\n",
				       t ? "child" : "shared", ms[mi], ss[si],
				       (t1 - t0) / 1e3, (now() - t1) / 1e3);
				for (pi = p_first; pi <= p_last; pi++)
					emit(csv, t ? "child" : "shared", ms[mi], ss[si],
					     protos[pi], r[pi], nw, reps);
				fflush(stdout);
				fflush(csv);
				free_world();
			}
		}
	}
	fclose(csv);
	close(self_ns);
	return 0;
}
