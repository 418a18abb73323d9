// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper: create an iter/tcp or iter/udp link with a given
 * union bpf_iter_link_info.sock, or the chained iter.s/netns link, report
 * what the kernel says, and read it.
 *
 *   iterlink tcp|udp [--fd PATH]... [--setns PATH]... [--cookie N] [--all]
 *                    [--flags N] [--dump] [--bufsize N] [--fail-nth N]
 *                    [--until PATH [--phase PATH]]
 *   iterlink netns [--dump] [--bufsize N] [--fail-nth N]
 *                  [--until PATH [--phase PATH]]
 *   iterlink index N [--netns PATH] [--fail-each MAX]
 *
 * Prints "link netns_cookie=N flags=N" and the link's fdinfo lines from
 * the parameter (tcp and udp), reads the walk --bufsize bytes at a time
 * (default 256), with --dump printing after each read() a line for every
 * socket the program recorded in its dump ring buffer,
 *   NETNS_COOKIE SOCK_COOKIE PROTO FAMILY STATE SADDR SPORT DADDR DPORT
 * numbers in decimal, addresses as 16 bytes (IPv4 mapped) in eight groups
 * of four hex digits, as the kernel's %pI6 prints them; then for the
 * chained link "walked netns=N" (the namespaces the walk was handed) and
 * "cut short=T walk_err=E" (the socket walks that ended early, and the
 * last one's error), then "read ok sockets=N" (N = sockets the reap
 * program saw), or "error STAGE ERRNO-NAME" and exits 1.
 *
 * --fd and --setns may be repeated: the program is loaded once and each
 * namespace gets a link of its own (--fd PATH, the netns argument) or is
 * entered with setns() before a link without the argument is read (--setns
 * PATH, the walk as in 7.3), in turn; the sockets count is their sum.  One
 * process for many namespaces keeps the suite's time off program loads.
 *
 * --until PATH walks again and again, one program load for them all, until
 * PATH exists, heading each walk with "walk N PHASE": PHASE is the first
 * word of the file --phase names when the walk begins ("-" if there is
 * none), so that a test can tell which walks began after an event.
 *
 * --fail-nth N makes the Nth fault-injection point this thread passes from
 * the link's creation on fail (/proc/thread-self/fail-nth: every
 * should_fail() of failslab and fail_page_alloc, as their debugfs settings
 * allow), and prints "fault injected" or "fault not reached" last.  The
 * link's fdinfo is then left out.
 *
 * index N: the targeted design.  With the running index's pinned maps
 * (netns-reap index start) opened and reap_index loaded once, in the
 * namespace of --netns PATH (the mount namespace stays, and with it
 * bpffs), rounds: N TCP and N UDP clients connect to 127.0.0.7, which the
 * index records; one BPF_PROG_RUN of reap_index kills every socket of
 * that address; each client is asked whether it was aborted (recv()
 * fails with ECONNABORTED); all are closed.  One round without faults,
 * or with --fail-each MAX one per fault point, the Nth failing in round
 * N, until a round passes them all.  A line per round:
 *   fault N none|injected|not-reached: killed destroyed=D failed=F
 *	aborted=A of=2N
 * or "...: error run ERRNO-NAME".
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "reap.h"
#include "reap.skel.h"
#include "walk.h"

#define MAX_NETNS 256
#define BUF_SIZE 256
#define DUMP_BYTES (8 << 20)	/* 100k records of struct reap_rec */

static const char *errname(int e)
{
	return strerrorname_np(e) ?: strerror(e);
}

static int fail(const char *stage, int e)
{
	printf("error %s %s\n", stage, errname(e));
	return 1;
}

/*
 * Arm fault point @nth for this thread: the fd to read it back through
 * fault_injected(), or -1 with errno set.
 */
static int arm_fault(const char *nth)
{
	int fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);

	if (fd >= 0 && write(fd, nth, strlen(nth)) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/*
 * Whether the fault armed through @fd was injected (the count reads back
 * 0); disarms it either way.
 */
static bool fault_injected(int fd)
{
	char v[32] = "";

	if (pread(fd, v, sizeof(v) - 1, 0) < 0)
		v[0] = '\0';
	if (pwrite(fd, "0", 1, 0) != 1)
		perror("iterlink: disarm fail-nth");
	return !strcmp(v, "0") || !strcmp(v, "0\n");
}

static void print_addr(const __u8 *a)
{
	int i;

	for (i = 0; i < 16; i += 2)
		printf("%s%02x%02x", i ? ":" : "", a[i], a[i + 1]);
}

/* ring_buffer_sample_fn: one dump record, one line. */
static int print_rec(void *ctx __attribute__((unused)), void *data,
		     size_t size __attribute__((unused)))
{
	const struct reap_rec *r = data;

	printf("%llu %llu %u %u %u ", (unsigned long long)r->netns_cookie,
	       (unsigned long long)r->sock_cookie, r->proto, r->family,
	       r->state);
	print_addr(r->saddr);
	printf(" %u ", r->sport);
	print_addr(r->daddr);
	printf(" %u\n", r->dport);
	return 0;
}

/*
 * Attach @prog with @aopts, print what the link reports if @report, and
 * read the walk @bufsize bytes at a time, copying it to stdout and
 * printing what @dump, if any, holds after each read().
 */
static int walk(struct bpf_program *prog, struct bpf_iter_attach_opts *aopts,
		bool report, size_t bufsize, struct ring_buffer *dump)
{
	struct bpf_link_info info = {};
	__u32 info_len = sizeof(info);
	struct bpf_link *link;
	char buf[BUF_SIZE], path[64];
	int iter = -1, ret = 1;
	ssize_t n;
	FILE *f;

	link = bpf_program__attach_iter(prog, aopts);
	if (!link)
		return fail("attach", errno);
	if (report) {
		if (bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &info_len)) {
			ret = fail("info", errno);
			goto out;
		}
		printf("link netns_cookie=%llu flags=%u\n",
		       (unsigned long long)info.iter.sock.netns_cookie,
		       info.iter.sock.flags);
		snprintf(path, sizeof(path), "/proc/self/fdinfo/%d",
			 bpf_link__fd(link));
		f = fopen(path, "r");
		while (f && fgets(buf, sizeof(buf), f)) {
			if (!strncmp(buf, "netns", 5) ||
			    !strncmp(buf, "listeners", 9))
				printf("fdinfo %s", buf);
		}
		if (f)
			fclose(f);
	}
	iter = bpf_iter_create(bpf_link__fd(link));
	if (iter < 0) {
		ret = fail("create", errno);
		goto out;
	}
	while ((n = read(iter, buf, bufsize)) > 0 || (n < 0 && errno == EAGAIN)) {
		if (n > 0)
			fwrite(buf, 1, n, stdout);
		if (dump && ring_buffer__consume(dump) < 0) {
			ret = fail("dump", errno);
			goto out;
		}
	}
	/* The last read(), 0 or an error, may have run the program too. */
	if (dump && ring_buffer__consume(dump) < 0) {
		ret = fail("dump", errno);
		goto out;
	}
	if (n < 0) {
		ret = fail("read", errno);
		goto out;
	}
	ret = 0;
out:
	if (iter >= 0)
		close(iter);
	bpf_link__destroy(link);
	return ret;
}

#define STALE "127.0.0.7"
#define MAX_CLIENTS 64

/* The sockets of one round of index: clients first, and what they need. */
struct stale {
	int fd[4 * MAX_CLIENTS + 2];
	int n;
};

/*
 * A server of @type on STALE and @n clients of it, into @w: 0, or -1 with
 * errno set.
 */
static int stale_clients(struct stale *w, int type, int n)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int srv, i, fd;

	inet_pton(AF_INET, STALE, &sa.sin_addr);
	srv = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	if (srv < 0)
		return -1;
	w->fd[4 * MAX_CLIENTS + (type == SOCK_DGRAM)] = srv;
	if (bind(srv, (void *)&sa, len) ||
	    (type == SOCK_STREAM && listen(srv, n)) ||
	    getsockname(srv, (void *)&sa, &len))
		return -1;
	for (i = 0; i < n; i++) {
		fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -1;
		w->fd[w->n++] = fd;
		if (connect(fd, (void *)&sa, len))
			return -1;
	}
	for (i = 0; type == SOCK_STREAM && i < n; i++) {
		fd = accept4(srv, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			return -1;
		w->fd[2 * MAX_CLIENTS + i] = fd;
	}
	return 0;
}

static void stale_close(struct stale *w)
{
	unsigned int i;

	for (i = 0; i < sizeof(w->fd) / sizeof(w->fd[0]); i++)
		if (w->fd[i] >= 0)
			close(w->fd[i]);
}

/*
 * One round: @n TCP and @n UDP clients of STALE, then one run of
 * reap_index with fault point @nth armed (0: none), then the clients
 * asked; one line.  Returns 1 once @nth is past the run's fault points,
 * -1 if the round could not be set up.
 */
static int index_round(struct reap_bpf *skel, int n, int nth)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	struct stale w = { .n = 0 };
	const struct reap_counts *c = &skel->bss->counts;
	bool injected = false;
	int nth_fd = -1, aborted = 0, ret = 0, err, i;
	char buf[16];

	memset(w.fd, -1, sizeof(w.fd));
	memset(&skel->bss->counts, 0, sizeof(skel->bss->counts));
	if (stale_clients(&w, SOCK_STREAM, n) || stale_clients(&w, SOCK_DGRAM, n)) {
		ret = -fail("clients", errno);
		goto out;
	}
	snprintf(buf, sizeof(buf), "%d", nth);
	if (nth && (nth_fd = arm_fault(buf)) < 0) {
		ret = -fail("fail-nth", errno);
		goto out;
	}
	err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.reap_index), &opts) ?
	      errno : 0;
	if (nth_fd >= 0)
		injected = fault_injected(nth_fd);
	printf("fault %d %s: ", nth, !nth ? "none" : injected ? "injected" : "not-reached");
	if (err) {
		fail("run", err);
	} else {
		for (i = 0; i < w.n; i++)
			aborted += recv(w.fd[i], buf, 1, MSG_DONTWAIT) < 0 &&
				   errno == ECONNABORTED;
		printf("killed destroyed=%llu failed=%llu aborted=%d of=%d\n",
		       (unsigned long long)c->destroyed,
		       (unsigned long long)c->failed, aborted, w.n);
	}
	ret = nth && !injected;
out:
	if (nth_fd >= 0)
		close(nth_fd);
	stale_close(&w);
	fflush(stdout);
	return ret;
}

static int index_main(int n, const char *netns, int fail_each)
{
	struct reap_addr_filter dst = { .plen = 128 };
	struct reap_bpf *skel;
	int ret = 1, i, nth;
	char why[512];

	if (n < 1 || n > MAX_CLIENTS || fail_each < 0) {
		fprintf(stderr, "iterlink: index takes 1 to %d clients\n", MAX_CLIENTS);
		return 2;
	}
	skel = reap_bpf__open();
	if (!skel)
		return fail("open", errno);
	bpf_program__set_autoload(skel->progs.reap_chained, false);
	bpf_program__set_autoload(skel->progs.reap_tcp, false);
	bpf_program__set_autoload(skel->progs.reap_udp, false);
	skel->rodata->cfg_kill = true;
	skel->rodata->cfg_n_dst = 1;
	if (reap_index_reuse_maps(skel->obj, why, sizeof(why))) {
		fprintf(stderr, "iterlink: %s\n", why);
		ret = fail("index", ENOENT);
		goto out;
	}
	if (reap_bpf__load(skel)) {
		ret = fail("load", errno);
		goto out;
	}
	if (netns) {
		i = open(netns, O_RDONLY | O_CLOEXEC);
		if (i < 0 || setns(i, CLONE_NEWNET)) {
			ret = fail("setns", errno);
			goto out;
		}
		close(i);
	}
	dst.addr[10] = dst.addr[11] = 0xff;
	inet_pton(AF_INET, STALE, dst.addr + 12);
	i = 0;
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.dsts), &i, &dst, BPF_ANY)) {
		ret = fail("dst", errno);
		goto out;
	}
	/* A page fault of the tool's own must not meet the fault meant for the run. */
	if (fail_each && mlockall(MCL_CURRENT | MCL_FUTURE)) {
		ret = fail("mlockall", errno);
		goto out;
	}
	for (nth = fail_each ? 1 : 0; nth <= fail_each; nth++) {
		i = index_round(skel, n, nth);
		if (i)
			break;
	}
	ret = i < 0;
	if (!i && fail_each)
		printf("more than %d fault points\n", fail_each);
out:
	reap_bpf__destroy(skel);
	return ret;
}

int main(int argc, char **argv)
{
	union bpf_iter_link_info linfo = {};
	LIBBPF_OPTS(bpf_iter_attach_opts, aopts);
	int ns_fd[MAX_NETNS];
	bool ns_enter[MAX_NETNS];
	struct reap_bpf *skel = NULL;
	struct ring_buffer *dump_rb = NULL;
	struct bpf_program *prog;
	int nth_fd = -1, ret = 1, n_ns = 0, i;
	const char *fail_nth = NULL, *until = NULL, *phase = NULL;
	unsigned long nwalk = 0;
	bool chained, dump = false;
	size_t bufsize = 256;

	if (argc >= 3 && !strcmp(argv[1], "index")) {
		const char *netns = NULL;
		int fail_each = 0;

		for (i = 3; i + 1 < argc; i += 2) {
			if (!strcmp(argv[i], "--netns"))
				netns = argv[i + 1];
			else if (!strcmp(argv[i], "--fail-each"))
				fail_each = atoi(argv[i + 1]);
			else
				break;
		}
		if (i != argc) {
			fprintf(stderr, "iterlink: index N [--netns PATH] [--fail-each MAX]\n");
			return 2;
		}
		return index_main(atoi(argv[2]), netns, fail_each);
	}
	if (argc < 2 || (strcmp(argv[1], "tcp") && strcmp(argv[1], "udp") &&
			 strcmp(argv[1], "netns"))) {
		fprintf(stderr, "usage: iterlink tcp|udp|netns [--fd PATH]... [--setns PATH]... [--cookie N] [--all] [--flags N] [--dump] [--bufsize N] [--fail-nth N] [--until PATH [--phase PATH]] | iterlink index N [--netns PATH] [--fail-each MAX]\n");
		return 2;
	}
	chained = !strcmp(argv[1], "netns");
	for (i = 2; i < argc; i++) {
		if ((!strcmp(argv[i], "--fd") || !strcmp(argv[i], "--setns")) &&
		    i + 1 < argc) {
			if (n_ns == MAX_NETNS) {
				fprintf(stderr, "iterlink: at most %d namespaces\n",
					MAX_NETNS);
				ret = 2;
				goto out;
			}
			/* Opened now: an armed fault is for the links only. */
			ns_enter[n_ns] = !strcmp(argv[i], "--setns");
			ns_fd[n_ns] = open(argv[++i], O_RDONLY | O_CLOEXEC);
			if (ns_fd[n_ns] < 0) {
				ret = fail("open", errno);
				goto out;
			}
			n_ns++;
		} else if (!strcmp(argv[i], "--cookie") && i + 1 < argc) {
			linfo.sock.netns_cookie = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--all")) {
			linfo.sock.flags |= BPF_SOCK_ITER_ALL_NETNS;
		} else if (!strcmp(argv[i], "--flags") && i + 1 < argc) {
			linfo.sock.flags = strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--fail-nth") && i + 1 < argc) {
			fail_nth = argv[++i];
		} else if (!strcmp(argv[i], "--until") && i + 1 < argc) {
			until = argv[++i];
		} else if (!strcmp(argv[i], "--phase") && i + 1 < argc) {
			phase = argv[++i];
		} else if (!strcmp(argv[i], "--dump")) {
			dump = true;
		} else if (!strcmp(argv[i], "--bufsize") && i + 1 < argc) {
			bufsize = strtoul(argv[++i], NULL, 0);
			if (!bufsize || bufsize > BUF_SIZE) {
				fprintf(stderr, "iterlink: --bufsize takes 1 to %d\n",
					BUF_SIZE);
				ret = 2;
				goto out;
			}
		} else {
			fprintf(stderr, "iterlink: unknown argument '%s'\n", argv[i]);
			ret = 2;
			goto out;
		}
	}
	if (chained && n_ns) {
		fprintf(stderr, "iterlink: --fd and --setns are for tcp and udp\n");
		ret = 2;
		goto out;
	}
	if ((phase && !until) || (until && fail_nth)) {
		fprintf(stderr, "iterlink: --phase goes with --until, and --until not with --fail-nth\n");
		ret = 2;
		goto out;
	}
	if (fail_nth && memchr(ns_enter, true, n_ns)) {
		fprintf(stderr, "iterlink: --fail-nth would fail setns(), not the walk; use --fd\n");
		ret = 2;
		goto out;
	}
	libbpf_set_print(NULL);
	if (!chained) {
		aopts.link_info = &linfo;
		aopts.link_info_len = sizeof(linfo);
	}

	skel = reap_bpf__open();
	if (!skel) {
		ret = fail("open", errno);
		goto out;
	}
	bpf_program__set_autoload(skel->progs.reap_chained, chained);
	bpf_program__set_autoload(skel->progs.reap_tcp, !chained);
	bpf_program__set_autoload(skel->progs.reap_udp, !chained);
	reap_skip_index(skel);
	skel->rodata->cfg_states = ~0U;
	skel->rodata->cfg_udp_unconnected = true;
	skel->rodata->cfg_dump = dump;
	if (dump && bpf_map__set_max_entries(skel->maps.dump, DUMP_BYTES)) {
		ret = fail("dump", errno);
		goto out;
	}
	if (reap_bpf__load(skel)) {
		ret = fail("load", errno);
		goto out;
	}
	if (dump) {
		dump_rb = ring_buffer__new(bpf_map__fd(skel->maps.dump),
					   print_rec, NULL, NULL);
		if (!dump_rb) {
			ret = fail("dump", errno);
			goto out;
		}
	}
	prog = chained ? skel->progs.reap_chained :
	       strcmp(argv[1], "tcp") ? skel->progs.reap_udp :
	       skel->progs.reap_tcp;
	if (fail_nth) {
		/*
		 * Every page in, now and from here on: a page fault of the
		 * tool's own must not meet the fault meant for the walk.
		 */
		if (mlockall(MCL_CURRENT | MCL_FUTURE)) {
			ret = fail("mlockall", errno);
			goto out;
		}
		nth_fd = arm_fault(fail_nth);
		if (nth_fd < 0) {
			ret = fail("fail-nth", errno);
			goto out;
		}
	}
again:
	if (until) {
		char word[32] = "-";
		FILE *f = phase ? fopen(phase, "r") : NULL;

		if (f && fscanf(f, "%31s", word) != 1)
			strcpy(word, "-");
		if (f)
			fclose(f);
		printf("walk %lu %s\n", ++nwalk, word);
	}
	for (i = 0; i < (n_ns ?: 1); i++) {
		if (n_ns) {
			if (ns_enter[i] && setns(ns_fd[i], CLONE_NEWNET)) {
				ret = fail("setns", errno);
				goto out;
			}
			linfo.sock.netns_fd = ns_enter[i] ? 0 : ns_fd[i];
		}
		if (walk(prog, &aopts, !chained && !fail_nth && !until, bufsize,
			 dump_rb))
			goto out;
	}
	if (until) {
		fflush(stdout);
		if (access(until, F_OK))
			goto again;
	}
	if (skel->bss->counts.dump_lost) {
		printf("error dump lost=%llu\n",
		       (unsigned long long)skel->bss->counts.dump_lost);
		goto out;
	}
	if (chained) {
		printf("walked netns=%llu\n", (unsigned long long)skel->bss->counts.netns);
		printf("cut short=%llu walk_err=%d\n",
		       (unsigned long long)skel->bss->counts.truncated,
		       (int)skel->bss->counts.walk_err);
	}
	printf("read ok sockets=%llu\n", (unsigned long long)skel->bss->counts.seen);
	ret = 0;
out:
	if (nth_fd >= 0) {
		printf("fault %s\n", fault_injected(nth_fd) ? "injected" : "not reached");
		close(nth_fd);
	}
	ring_buffer__free(dump_rb);
	reap_bpf__destroy(skel);
	while (n_ns--)
		close(ns_fd[n_ns]);
	return ret;
}
