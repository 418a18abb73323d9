// SPDX-License-Identifier: GPL-2.0
/*
 * The four ways netns-reap walks sockets (see walk.h and netns-reap(8)):
 *
 *   setns      per namespace: setns() in, read iter/tcp and iter/udp, back
 *   netns-arg  per namespace: iter/tcp and iter/udp links naming it by fd
 *   chained    one iter.s/netns link whose program walks each namespace's
 *              sockets with bpf_iter_netns_sock_*
 *   global     one whole-host iter/tcp and iter/udp walk
 *   index      no walk: one run of a SEC("syscall") program that looks up
 *              the sockets the index (bpf/index.h) holds for each dst
 *
 * A link that names a namespace is read back before it is walked: a kernel
 * older than the netns argument ignores it and would walk the caller's own
 * namespace instead.  The setns walk never leaves the caller in a foreign
 * namespace: if it cannot return, the process exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/magic.h>
#include <linux/nsfs.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "reap.h"
#include "reap.skel.h"
#include "walk.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

const char *const reap_mode_names[REAP_NR_MODES] = {
	[REAP_MODE_AUTO] = "auto", [REAP_MODE_CHAINED] = "chained",
	[REAP_MODE_GLOBAL] = "global", [REAP_MODE_NETNS_ARG] = "netns-arg",
	[REAP_MODE_SETNS] = "setns", [REAP_MODE_INDEX] = "index",
};

double reap_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Back to @home_fd's namespace; never go on in a foreign one. */
static void go_home(int home_fd)
{
	if (!setns(home_fd, CLONE_NEWNET))
		return;
	fprintf(stderr, "Error: cannot return to the original network namespace: %s\n",
		strerror(errno));
	exit(1);
}

/* The cookie of the namespace behind @fd, without staying in it. */
int reap_netns_cookie_of(int fd, int home_fd, __u64 *cookie)
{
	socklen_t len = sizeof(*cookie);
	int err = 0, s;

	if (!ioctl(fd, NS_GET_ID, cookie))
		return 0;
	if (setns(fd, CLONE_NEWNET))
		return -errno;
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0 || getsockopt(s, SOL_SOCKET, SO_NETNS_COOKIE, cookie, &len))
		err = -errno;
	if (s >= 0)
		close(s);
	go_home(home_fd);
	return err;
}

/*
 * Open @path for reading if it is a network namespace file; -errno if not,
 * -EINVAL for a file that is no network namespace.  The path is opened
 * O_PATH and checked first, so that a FIFO, a device or any other file
 * named by mistake is never opened for real.
 */
int reap_netns_open_path(const char *path)
{
	struct statfs sfs;
	char proc[32];
	int pfd, fd;

	pfd = open(path, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	if (fstatfs(pfd, &sfs) || sfs.f_type != NSFS_MAGIC) {
		close(pfd);
		return -EINVAL;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = open(proc, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = -errno;
	close(pfd);
	if (fd >= 0 && ioctl(fd, NS_GET_NSTYPE) != CLONE_NEWNET) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/*
 * @ns again, by the path that found it, or -1 if that path no longer leads
 * to it: the namespace was deleted, or its last process left it.
 */
int reap_netns_open(const struct reap_netns *ns, int home_fd)
{
	struct stat st;
	__u64 cookie;
	int fd;

	fd = reap_netns_open_path(ns->path);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_dev != ns->dev || st.st_ino != ns->ino ||
	    reap_netns_cookie_of(fd, home_fd, &cookie) || cookie != ns->cookie) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Read an iterator to its end; -EAGAIN (MAX_ITER_OBJECTS) just continues. */
int reap_iter_drain(int link_fd)
{
	char buf[4096];
	ssize_t n;
	int fd;

	fd = bpf_iter_create(link_fd);
	if (fd < 0)
		return -errno;
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n > 0 || (n < 0 && errno == EAGAIN))
			continue;
		break;
	}
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

/*
 * Whether the kernel was seen to keep the argument (@flags, or with no
 * flags a netns) of a link; it keeps it for every link or for none, so
 * each is read back once per process.  At most 32 flags values are
 * remembered; others are read back every time.
 */
static bool kept_before(__u32 flags, bool keep)
{
	static __u32 kept[32];
	static unsigned int n_kept;
	unsigned int i;

	for (i = 0; i < n_kept; i++)
		if (kept[i] == flags)
			return true;
	if (keep && n_kept < sizeof(kept) / sizeof(kept[0]))
		kept[n_kept++] = flags;
	return false;
}

/*
 * An iter/tcp or iter/udp link for the namespace of @netns_fd (whose
 * cookie is @cookie), or with @flags; NULL with errno set on failure, and
 * @why filled when the kernel took the link but not its argument (EPROTO).
 * The first link of each kind is read back to see that the kernel kept
 * its argument.
 */
struct bpf_link *reap_sock_iter_attach(struct bpf_program *prog, int netns_fd,
				       __u64 cookie, __u32 flags,
				       char *why, size_t len)
{
	union bpf_iter_link_info linfo = {};
	LIBBPF_OPTS(bpf_iter_attach_opts, aopts);
	struct bpf_link_info info = {};
	__u32 info_len = sizeof(info);
	struct bpf_link *link;
	int err;

	if (netns_fd < 0 && !flags)
		return bpf_program__attach_iter(prog, NULL);
	linfo.sock.netns_fd = netns_fd >= 0 ? netns_fd : 0;
	linfo.sock.flags = flags;
	aopts.link_info = &linfo;
	aopts.link_info_len = sizeof(linfo);
	link = bpf_program__attach_iter(prog, &aopts);
	if (!link || kept_before(flags, false))
		return link;
	if (bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &info_len)) {
		err = errno;
		snprintf(why, len, "cannot read back the %s iterator link: %s",
			 bpf_program__name(prog) + strlen("reap_"), strerror(err));
	} else if (info.iter.sock.netns_cookie != (flags ? 0 : cookie) ||
		   info.iter.sock.flags != flags) {
		err = EPROTO;
		snprintf(why, len,
			 "the kernel ignored the netns argument of the %s iterator (the link holds netns_cookie %llu, flags %#x; asked for %llu, %#x): it predates the netns argument, so the link would walk this process's namespace instead; use --mode setns",
			 bpf_program__name(prog) + strlen("reap_"),
			 (unsigned long long)info.iter.sock.netns_cookie,
			 info.iter.sock.flags,
			 (unsigned long long)(flags ? 0 : cookie), flags);
	} else {
		kept_before(flags, true);
		return link;
	}
	bpf_link__destroy(link);
	errno = err;
	return NULL;
}

static struct bpf_program *proto_prog(struct reap_bpf *skel, unsigned int p)
{
	return p == REAP_PROTO_TCP ? skel->progs.reap_tcp : skel->progs.reap_udp;
}

static const char *proto_name(unsigned int p)
{
	return p == REAP_PROTO_TCP ? "tcp" : "udp";
}

static void progress(struct reap_walk *w, size_t i)
{
	if (w->progress && reap_now() - w->start > 1.0)
		fprintf(stderr, "\rnetns-reap: %zu/%zu namespaces", i + 1, w->n_nss);
}

static bool wanted(const struct reap_walk *w, const struct reap_netns *ns)
{
	return !w->netns_cookie || ns->cookie == w->netns_cookie;
}

static int walk_setns(struct reap_walk *w)
{
	struct bpf_link *links[2] = {};
	unsigned int p;
	int err = 0;
	size_t i;

	for (p = 0; p < 2; p++) {
		if (!(w->protos & (1U << p)))
			continue;
		links[p] = bpf_program__attach_iter(proto_prog(w->skel, 1U << p), NULL);
		if (!links[p]) {
			err = -errno;
			snprintf(w->err, sizeof(w->err), "cannot attach the %s iterator: %s",
				 proto_name(1U << p), strerror(-err));
			goto out;
		}
	}
	for (i = 0; i < w->n_nss; i++) {
		int fd;

		if (!wanted(w, &w->nss[i]))
			continue;
		progress(w, i);
		fd = reap_netns_open(&w->nss[i], w->home_fd);
		if (fd < 0 || setns(fd, CLONE_NEWNET)) {
			if (fd >= 0)
				close(fd);
			w->netns_vanished++;
			continue;
		}
		close(fd);
		for (p = 0; p < 2 && !err; p++) {
			if (links[p])
				err = reap_iter_drain(bpf_link__fd(links[p]));
		}
		go_home(w->home_fd);
		if (err) {
			snprintf(w->err, sizeof(w->err),
				 "reading the socket iterator in netns %llu: %s",
				 (unsigned long long)w->nss[i].cookie, strerror(-err));
			goto out;
		}
		w->netns_walked++;
	}
out:
	bpf_link__destroy(links[0]);
	bpf_link__destroy(links[1]);
	return err;
}

/* One namespace through netns-arg links: 0, 1 if it vanished, or -errno. */
static int walk_one_netns_arg(struct reap_walk *w, const struct reap_netns *ns,
			      int fd)
{
	unsigned int p;
	int err;

	for (p = 1; p <= 2; p++) {
		struct bpf_link *link;

		if (!(w->protos & p))
			continue;
		w->err[0] = '\0';
		link = reap_sock_iter_attach(proto_prog(w->skel, p), fd,
					     ns->cookie, 0, w->err, sizeof(w->err));
		if (!link) {
			err = -errno;
			if (err == -ENOENT)
				return 1;
			if (!w->err[0])
				snprintf(w->err, sizeof(w->err),
					 "cannot attach the %s iterator to netns %llu: %s",
					 proto_name(p), (unsigned long long)ns->cookie,
					 strerror(-err));
			return err;
		}
		err = reap_iter_drain(bpf_link__fd(link));
		bpf_link__destroy(link);
		if (err == -ENOENT)
			return 1;
		if (err) {
			snprintf(w->err, sizeof(w->err),
				 "reading the socket iterator in netns %llu: %s",
				 (unsigned long long)ns->cookie, strerror(-err));
			return err;
		}
	}
	return 0;
}

static int walk_netns_arg(struct reap_walk *w)
{
	int err = 0, fd;
	size_t i;

	for (i = 0; i < w->n_nss && err <= 0; i++) {
		if (!wanted(w, &w->nss[i]))
			continue;
		progress(w, i);
		fd = reap_netns_open(&w->nss[i], w->home_fd);
		if (fd < 0) {
			w->netns_vanished++;
			continue;
		}
		err = walk_one_netns_arg(w, &w->nss[i], fd);
		close(fd);
		if (err > 0)
			w->netns_vanished++;
		else if (!err)
			w->netns_walked++;
	}
	return err < 0 ? err : 0;
}

static int walk_chained(struct reap_walk *w)
{
	struct bpf_link *link;
	int err;

	link = bpf_program__attach_iter(w->skel->progs.reap_chained, NULL);
	if (!link) {
		err = -errno;
		snprintf(w->err, sizeof(w->err),
			 "cannot attach the iter/netns program: %s", strerror(-err));
		return err;
	}
	err = reap_iter_drain(bpf_link__fd(link));
	bpf_link__destroy(link);
	if (err)
		snprintf(w->err, sizeof(w->err), "reading the iter/netns walk: %s",
			 strerror(-err));
	w->netns_walked = w->skel->bss->counts.netns;
	return err;
}

/*
 * Whether the whole-host TCP walk leaves listeners out in the kernel
 * (BPF_SOCK_ITER_SKIP_LISTEN), as the chained walk does in reap.bpf.c:
 * when nothing is dumped and the state filter has no listening (0, the
 * connected states, has none).
 */
static bool tcp_skips_listeners(const struct reap_bpf *skel)
{
	return !skel->rodata->cfg_dump &&
	       !(skel->rodata->cfg_states & (1U << TCP_LISTEN));
}

static int walk_global(struct reap_walk *w)
{
	unsigned int p;
	int err = 0;

	for (p = 1; p <= 2 && !err; p++) {
		__u32 flags = BPF_SOCK_ITER_ALL_NETNS;
		struct bpf_link *link;

		if (!(w->protos & p))
			continue;
		if (p == REAP_PROTO_TCP && tcp_skips_listeners(w->skel))
			flags |= BPF_SOCK_ITER_SKIP_LISTEN;
		link = reap_sock_iter_attach(proto_prog(w->skel, p), -1, 0,
					     flags, w->err, sizeof(w->err));
		if (!link) {
			err = -errno;
			if (!w->err[0])
				snprintf(w->err, sizeof(w->err),
					 "cannot attach the whole-host %s iterator: %s",
					 proto_name(p), strerror(-err));
			break;
		}
		err = reap_iter_drain(bpf_link__fd(link));
		bpf_link__destroy(link);
		if (err)
			snprintf(w->err, sizeof(w->err),
				 "reading the whole-host iterator: %s", strerror(-err));
	}
	w->netns_walked = w->netns_cookie ? 1 : w->n_nss;
	return err;
}

/*
 * Every mode but index: the skeleton @skel, opened and not loaded, leaves
 * the index's lookup program and maps out.
 */
void reap_skip_index(struct reap_bpf *skel)
{
	bpf_program__set_autoload(skel->progs.reap_index, false);
	bpf_map__set_autocreate(skel->maps.idx_addrs, false);
	bpf_map__set_autocreate(skel->maps.idx_slots, false);
	bpf_map__set_autocreate(skel->maps.idx_socks, false);
	bpf_map__set_autocreate(skel->maps.idx_stats, false);
}

/*
 * @obj, opened and not loaded, takes the running index's maps, pinned in
 * REAP_INDEX_PIN_DIR under their own names: 0, or -errno with @why saying
 * what failed and what to do.
 */
const char *const reap_index_maps[REAP_INDEX_NR_MAPS] = {
	"idx_addrs", "idx_slots", "idx_socks", "idx_stats",
};

int reap_index_reuse_maps(struct bpf_object *obj, char *why, size_t len)
{
	const char *const *maps = reap_index_maps;
	char path[256];
	unsigned int i;
	int fd, err;

	for (i = 0; i < REAP_INDEX_NR_MAPS; i++) {
		snprintf(path, sizeof(path), REAP_INDEX_PIN_DIR "/%s", maps[i]);
		fd = bpf_obj_get(path);
		if (fd < 0) {
			err = -errno;
			snprintf(why, len, "cannot open the index map %s: %s; is the index running? start it with 'netns-reap index start'",
				 path, strerror(-err));
			return err;
		}
		err = bpf_map__reuse_fd(bpf_object__find_map_by_name(obj, maps[i]), fd);
		close(fd);
		if (err) {
			snprintf(why, len, "the index map %s does not fit this netns-reap: %s; restart the index with 'netns-reap index stop' and 'netns-reap index start'",
				 path, strerror(-err));
			return err;
		}
	}
	return 0;
}

/* The skeleton was loaded with the index's pinned maps (tools/index.c). */
static int walk_index(struct reap_walk *w)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	int err;

	err = bpf_prog_test_run_opts(bpf_program__fd(w->skel->progs.reap_index),
				     &opts);
	if (err) {
		err = -errno;
		snprintf(w->err, sizeof(w->err),
			 "cannot run the index lookup program: %s", strerror(-err));
	}
	w->netns_walked = 0;
	return err;
}

static int (*const walks[REAP_NR_MODES])(struct reap_walk *w) = {
	[REAP_MODE_SETNS] = walk_setns, [REAP_MODE_NETNS_ARG] = walk_netns_arg,
	[REAP_MODE_CHAINED] = walk_chained, [REAP_MODE_GLOBAL] = walk_global,
	[REAP_MODE_INDEX] = walk_index,
};

/* Run @mode; 0, or -errno with w->err saying what failed. */
int reap_walk(struct reap_walk *w, enum reap_mode mode)
{
	int err;

	w->err[0] = '\0';
	w->start = reap_now();
	if (mode < REAP_NR_MODES && walks[mode]) {
		err = walks[mode](w);
	} else {
		err = -EINVAL;
		snprintf(w->err, sizeof(w->err), "no walk for mode %d", mode);
	}
	if (w->progress && reap_now() - w->start > 1.0)
		fputc('\n', stderr);
	return err;
}
