// SPDX-License-Identifier: GPL-2.0
/*
 * netns-reap: find and destroy sockets to stale backends across every
 * network namespace.  See netns-reap(8) (tools/netns-reap.8).
 *
 * Modes: setns (any kernel with bpf_sock_destroy, 6.5+), netns-arg and
 * global (the netns-iter socket iterator parameter), chained (one iter/netns
 * link walking each namespace's sockets, when the kernel has it).  All modes
 * load the same programs (bpf/reap.bpf.c) and share one matching code path.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/nsfs.h>
#include <netinet/in.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "reap.h"
#include "reap.skel.h"

#ifndef NETNS_REAP_VERSION
#define NETNS_REAP_VERSION "unknown"
#endif
#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

/* Exit codes, as documented in netns-reap(8). */
enum {
	EXIT_OK		= 0,
	EXIT_ERROR	= 1,	/* the kernel, a capability, the system */
	EXIT_USAGE	= 2,	/* the command line */
	EXIT_PARTIAL	= 3,	/* kill: some sockets could not be destroyed */
};

enum mode { MODE_AUTO, MODE_CHAINED, MODE_GLOBAL, MODE_NETNS_ARG, MODE_SETNS };
static const char *const mode_names[] = {
	[MODE_AUTO] = "auto", [MODE_CHAINED] = "chained",
	[MODE_GLOBAL] = "global", [MODE_NETNS_ARG] = "netns-arg",
	[MODE_SETNS] = "setns",
};

#define PROTO_TCP	1
#define PROTO_UDP	2

static const char *const tcp_states[] = {
	[1] = "established", [2] = "syn-sent", [3] = "syn-recv",
	[4] = "fin-wait-1", [5] = "fin-wait-2", [6] = "time-wait",
	[7] = "close", [8] = "close-wait", [9] = "last-ack",
	[10] = "listening", [11] = "closing", [12] = "new-syn-recv",
};

/*
 * A namespace found at start.  No fd is kept open: that would keep every
 * namespace alive for the whole walk.  Each is reopened by its path when
 * its turn comes, and one that is gone by then is counted as vanished.
 */
struct netns {
	dev_t dev;
	ino_t ino;
	__u64 cookie;
	char *names;		/* space-separated bind mounts, or NULL */
	char *path;		/* a path that opened it */
};

struct opts {
	bool json;
	bool dry_run;
	bool udp_unconnected;
	enum mode mode;
	unsigned int protos;
	__u32 states;
	__u16 dport, sport;
	struct reap_addr_filter dst[REAP_MAX_DST], src[REAP_MAX_DST];
	unsigned int n_dst, n_src;
	const char *netns_sel;	/* NULL or "all": every namespace */
	const char *netns_path;	/* netns_sel, when it is a path */
	__u64 netns_cookie;	/* resolved from netns_sel */
	const char *netns_dirs[16];
	unsigned int n_netns_dirs;
	unsigned int max_socks;
};

static struct opts o = {
	.protos = PROTO_TCP | PROTO_UDP,
	.max_socks = REAP_DEFAULT_MAX_SOCKS,
};

static struct netns *nss;
static size_t n_nss;
static int self_netns_fd = -1;

/* ---- output ---------------------------------------------------------- */

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void __attribute__((format(printf, 1, 2))) p_err(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (o.json) {
		fputs("{\"error\": ", stdout);
		json_str(stdout, msg);
		fputs("}\n", stdout);
	} else {
		fprintf(stderr, "Error: %s\n", msg);
	}
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_WARN && getenv("NETNS_REAP_DEBUG"))
		return vfprintf(stderr, fmt, ap);
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- command line ---------------------------------------------------- */

static int parse_port(const char *s, __u16 *port)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 1 || v > 65535)
		return -1;
	*port = v;
	return 0;
}

/* ADDR[/PLEN][:PORT], IPv6 as [ADDR][/PLEN][:PORT] or a bare ADDR[/PLEN]. */
static int parse_addr(const char *word, const char *arg,
		      struct reap_addr_filter *f)
{
	char buf[128], *a = buf, *plen = NULL, *port = NULL, *end;
	bool v6;
	long pl;

	memset(f, 0, sizeof(*f));
	if (strlen(arg) >= sizeof(buf))
		goto bad;
	strcpy(buf, arg);
	if (buf[0] == '[') {
		end = strchr(buf, ']');
		if (!end)
			goto bad;
		*end++ = '\0';
		a = buf + 1;
		if (*end == '/') {
			plen = end + 1;
			end = strchr(plen, ':');
			if (end)
				*end++ = '\0';
			port = end;
		} else if (*end == ':') {
			port = end + 1;
		} else if (*end) {
			goto bad;
		}
	} else if (strchr(buf, ':') && strchr(buf, ':') != strrchr(buf, ':')) {
		/* Bare IPv6: no port possible. */
		plen = strchr(buf, '/');
		if (plen)
			*plen++ = '\0';
	} else {
		port = strchr(buf, ':');
		if (port)
			*port++ = '\0';
		plen = strchr(buf, '/');
		if (plen)
			*plen++ = '\0';
	}
	v6 = strchr(a, ':');
	if (v6) {
		if (inet_pton(AF_INET6, a, f->addr) != 1)
			goto bad;
	} else {
		f->addr[10] = f->addr[11] = 0xff;
		if (inet_pton(AF_INET, a, f->addr + 12) != 1)
			goto bad;
	}
	f->plen = 128;
	if (plen) {
		errno = 0;
		pl = strtol(plen, &end, 10);
		if (errno || *end || end == plen || pl < 0 || pl > (v6 ? 128 : 32))
			goto bad;
		f->plen = v6 ? pl : pl + 96;
	}
	if (port && parse_port(port, &f->port))
		goto bad;
	return 0;
bad:
	p_err("bad address '%s' after '%s': expected ADDR[/PLEN][:PORT], e.g. 10.0.0.7:8080, 10.0.0.0/24 or [fd00::7]:8080",
	      arg, word);
	return -1;
}

static int parse_state(const char *s)
{
	unsigned int i;

	if (!strcmp(s, "all")) {
		o.states = ~0U;
		return 0;
	}
	/* The default: cfg_states 0 means the connected states. */
	if (!strcmp(s, "connected"))
		return 0;
	for (i = 1; i < sizeof(tcp_states) / sizeof(tcp_states[0]); i++) {
		if (!strcmp(s, tcp_states[i]) ||
		    (i == 10 && !strcmp(s, "listen"))) {
			o.states |= 1U << i;
			return 0;
		}
	}
	p_err("unknown state '%s': use established, syn-sent, syn-recv, fin-wait-1, fin-wait-2, time-wait, close, close-wait, last-ack, listening, closing, new-syn-recv, connected or all",
	      s);
	return -1;
}

static int parse_filters(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		const char *w = argv[i], *arg = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(w, "dst") || !strcmp(w, "src") ||
		    !strcmp(w, "dport") || !strcmp(w, "sport") ||
		    !strcmp(w, "proto") || !strcmp(w, "state") ||
		    !strcmp(w, "netns")) {
			if (!arg) {
				p_err("'%s' needs a value; see 'netns-reap help'", w);
				return -1;
			}
			i++;
		} else {
			p_err("unknown filter word '%s': use dst, src, dport, sport, proto, state or netns",
			      w);
			return -1;
		}
		if (!strcmp(w, "dst")) {
			if (o.n_dst == REAP_MAX_DST) {
				p_err("at most %d dst words: cover more backends with a prefix, dst ADDR/PLEN", REAP_MAX_DST);
				return -1;
			}
			if (parse_addr(w, arg, &o.dst[o.n_dst++]))
				return -1;
		} else if (!strcmp(w, "src")) {
			if (o.n_src == REAP_MAX_DST) {
				p_err("at most %d src words: cover more addresses with a prefix, src ADDR/PLEN", REAP_MAX_DST);
				return -1;
			}
			if (parse_addr(w, arg, &o.src[o.n_src++]))
				return -1;
		} else if (!strcmp(w, "dport") || !strcmp(w, "sport")) {
			if (parse_port(arg, w[0] == 'd' ? &o.dport : &o.sport)) {
				p_err("bad port '%s' after '%s': expected 1-65535", arg, w);
				return -1;
			}
		} else if (!strcmp(w, "proto")) {
			if (!strcmp(arg, "tcp")) {
				o.protos = PROTO_TCP;
			} else if (!strcmp(arg, "udp")) {
				o.protos = PROTO_UDP;
			} else if (!strcmp(arg, "all")) {
				o.protos = PROTO_TCP | PROTO_UDP;
			} else {
				p_err("unknown protocol '%s': use tcp, udp or all", arg);
				return -1;
			}
		} else if (!strcmp(w, "state")) {
			if (parse_state(arg))
				return -1;
		} else {
			o.netns_sel = strcmp(arg, "all") ? arg : NULL;
		}
	}
	return 0;
}

/* ---- namespaces ------------------------------------------------------ */

/* Back to the tool's own namespace; never go on in a foreign one. */
static void go_home(void)
{
	if (!setns(self_netns_fd, CLONE_NEWNET))
		return;
	fprintf(stderr, "Error: cannot return to the original network namespace: %s\n",
		strerror(errno));
	exit(EXIT_ERROR);
}

/* The cookie of the namespace behind @fd, without staying in it. */
static int netns_cookie_of(int fd, __u64 *cookie)
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
	go_home();
	return err;
}

static struct netns *netns_add(const char *path, const char *name)
{
	struct netns *ns;
	struct stat st;
	size_t i;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;	/* gone, or not ours to open: skip */
	/*
	 * Not a network namespace: for one, the empty file that "ip netns
	 * del" leaves for a moment between unmounting a name and removing it.
	 */
	if (fstat(fd, &st) || ioctl(fd, NS_GET_NSTYPE) != CLONE_NEWNET) {
		close(fd);
		return NULL;
	}
	for (i = 0; i < n_nss; i++) {
		if (nss[i].dev == st.st_dev && nss[i].ino == st.st_ino)
			break;
	}
	if (i == n_nss) {
		ns = realloc(nss, (n_nss + 1) * sizeof(*nss));
		if (!ns) {
			close(fd);
			return NULL;
		}
		nss = ns;
		ns = &nss[n_nss++];
		memset(ns, 0, sizeof(*ns));
		ns->dev = st.st_dev;
		ns->ino = st.st_ino;
		ns->path = strdup(path);
		if (netns_cookie_of(fd, &ns->cookie))
			ns->cookie = 0;	/* dying: netns_open() will fail */
	} else {
		ns = &nss[i];
	}
	close(fd);
	if (name) {
		size_t len = (ns->names ? strlen(ns->names) + 1 : 0) + strlen(name) + 1;
		char *names = malloc(len);

		if (names) {
			snprintf(names, len, "%s%s%s", ns->names ?: "",
				 ns->names ? " " : "", name);
			free(ns->names);
			ns->names = names;
		}
	}
	return ns;
}

static void scan_dir(const char *dir, bool named)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (named) {
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			netns_add(path, path);
		} else if (de->d_name[0] >= '0' && de->d_name[0] <= '9') {
			snprintf(path, sizeof(path), "/proc/%s/ns/net", de->d_name);
			netns_add(path, NULL);
		}
	}
	closedir(d);
}

static int cmp_netns(const void *a, const void *b)
{
	const struct netns *x = a, *y = b;

	return x->cookie < y->cookie ? -1 : x->cookie > y->cookie;
}

/* Bind mounts, the extra directories, then every process's namespace. */
static int enumerate_netns(void)
{
	unsigned int i;

	netns_add("/proc/self/ns/net", NULL);
	scan_dir("/run/netns", true);
	for (i = 0; i < o.n_netns_dirs; i++)
		scan_dir(o.netns_dirs[i], true);
	if (o.netns_path)
		netns_add(o.netns_path, NULL);
	scan_dir("/proc", false);
	qsort(nss, n_nss, sizeof(*nss), cmp_netns);
	return 0;
}

/*
 * @ns again, by the path that found it, or -1 if that path no longer leads
 * to it: the namespace was deleted, or its last process left it.
 */
static int netns_open(const struct netns *ns)
{
	struct stat st;
	__u64 cookie;
	int fd;

	fd = open(ns->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_dev != ns->dev || st.st_ino != ns->ino ||
	    netns_cookie_of(fd, &cookie) || cookie != ns->cookie) {
		close(fd);
		return -1;
	}
	return fd;
}

static const char *netns_name(__u64 cookie)
{
	size_t i;

	for (i = 0; i < n_nss; i++) {
		if (nss[i].cookie == cookie)
			return nss[i].names;
	}
	return NULL;
}

/* Resolve "netns COOKIE|PATH" to a cookie. */
static int resolve_netns_sel(void)
{
	char *end;
	__u64 c;
	int fd, err;

	if (!o.netns_sel)
		return 0;
	errno = 0;
	c = strtoull(o.netns_sel, &end, 10);
	if (!errno && !*end && end != o.netns_sel && c) {
		o.netns_cookie = c;
		return 0;
	}
	fd = open(o.netns_sel, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		p_err("netns '%s': %s; give all, a netns cookie or a path such as /run/netns/NAME",
		      o.netns_sel, strerror(errno));
		return -1;
	}
	err = netns_cookie_of(fd, &o.netns_cookie);
	close(fd);
	if (err) {
		p_err("netns '%s' is not a network namespace: %s", o.netns_sel,
		      strerror(-err));
		return -1;
	}
	o.netns_path = o.netns_sel;
	return 0;
}

/* After enumerate_netns(): a cookie must name a namespace found. */
static int check_netns_sel(void)
{
	size_t i;

	if (!o.netns_cookie)
		return 0;
	for (i = 0; i < n_nss; i++) {
		if (nss[i].cookie == o.netns_cookie)
			return 0;
	}
	p_err("no network namespace with cookie %llu was found (in /run/netns, the --netns-dir directories or a process); 'netns-reap netns' lists the cookies",
	      (unsigned long long)o.netns_cookie);
	return -1;
}

/* ---- kernel features ------------------------------------------------- */

struct features {
	bool btf, destroy, iter_netns, netns_arg, global, chained;
	bool cap_bpf;
};

static bool btf_has(const struct btf *btf, const char *name, int kind)
{
	return btf && btf__find_by_name_kind(btf, name, kind) > 0;
}

static bool btf_has_member(const struct btf *btf, const char *type, int kind,
			   const char *member)
{
	const struct btf_member *m;
	const struct btf_type *t;
	unsigned int i;
	int id;

	id = btf ? btf__find_by_name_kind(btf, type, kind) : -1;
	if (id <= 0)
		return false;
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		if (!strcmp(btf__name_by_offset(btf, m->name_off), member))
			return true;
	}
	return false;
}

static bool have_cap(int cap)
{
	char line[256];
	unsigned long long eff = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	}
	fclose(f);
	return eff & (1ULL << cap);
}

static void probe_features(struct features *f)
{
	struct btf *btf = btf__load_vmlinux_btf();

	if (libbpf_get_error(btf))
		btf = NULL;
	memset(f, 0, sizeof(*f));
	f->btf = btf;
	f->destroy = btf_has(btf, "bpf_sock_destroy", BTF_KIND_FUNC);
	f->iter_netns = btf_has(btf, "bpf_iter__netns", BTF_KIND_STRUCT);
	f->netns_arg = btf_has_member(btf, "bpf_iter_aux_info", BTF_KIND_STRUCT, "sock");
	f->global = f->netns_arg;
	f->chained = btf_has(btf, "bpf_iter_netns_sock_new", BTF_KIND_FUNC);
	f->cap_bpf = have_cap(39 /* CAP_BPF */) || have_cap(21 /* CAP_SYS_ADMIN */);
	btf__free(btf);
}

/* Why @m cannot run here, or NULL if it can. */
static const char *mode_missing(const struct features *f, enum mode m)
{
	if (!f->btf)
		return "no kernel BTF (/sys/kernel/btf/vmlinux): build the kernel with CONFIG_DEBUG_INFO_BTF=y";
	if (!f->cap_bpf)
		return "missing capability: CAP_BPF (or CAP_SYS_ADMIN) is needed to load BPF programs; run as root";
	if (!f->destroy)
		return "kernel feature: no bpf_sock_destroy() kfunc (Linux 6.5 or later, CONFIG_INET)";
	switch (m) {
	case MODE_SETNS:
		if (!have_cap(21))
			return "missing capability: setns() into other namespaces needs CAP_SYS_ADMIN";
		return NULL;
	case MODE_NETNS_ARG:
		return f->netns_arg ? NULL :
		       "kernel feature: iter/tcp and iter/udp take no netns argument (netns-iter patch \"bpf: sock iterator netns argument\")";
	case MODE_GLOBAL:
		if (!f->global)
			return "kernel feature: no whole-host socket iterator (BPF_SOCK_ITER_ALL_NETNS, netns-iter patches)";
		if (!have_cap(21))
			return "missing capability: the whole-host walk shows every namespace, so it needs what seeing every namespace needs: CAP_SYS_ADMIN, in the initial user and PID namespaces";
		return NULL;
	case MODE_CHAINED:
		if (!f->iter_netns)
			return "kernel feature: no iter/netns target (netns-iter patch \"bpf: Add netns iterator\")";
		return f->chained ? NULL :
		       "kernel feature: no bpf_iter_netns_sock_* kfuncs (netns-iter open-coded socket iterator patch)";
	default:
		return NULL;
	}
}

/* ---- walking --------------------------------------------------------- */

struct walk {
	struct reap_bpf *skel;
	unsigned int netns_walked;
	unsigned int netns_vanished;
	double start;
	bool progress;
	char err[512];		/* -j: what is wrong with the results printed */
};

/*
 * An error that comes with results: on stderr, or with -j as the "error"
 * of the one document printed (the first such error).
 */
static void __attribute__((format(printf, 2, 3)))
w_err(struct walk *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (!o.json) {
		fputs("Error: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	} else if (!w->err[0]) {
		vsnprintf(w->err, sizeof(w->err), fmt, ap);
	}
	va_end(ap);
}

/* Read an iterator to its end; -EAGAIN (MAX_ITER_OBJECTS) just continues. */
static int drain_iter(struct bpf_link *link)
{
	char buf[4096];
	ssize_t n;
	int fd;

	fd = bpf_iter_create(bpf_link__fd(link));
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

static struct bpf_program *proto_prog(struct reap_bpf *skel, unsigned int p)
{
	return p == PROTO_TCP ? skel->progs.reap_tcp : skel->progs.reap_udp;
}

/*
 * An iter/tcp or iter/udp link for the namespace of @netns_fd (whose
 * cookie is @cookie), or with @flags; NULL with errno set on failure.  A
 * kernel older than the netns argument ignores it and walks this
 * process's namespace: the link is read back, and one that does not hold
 * what was asked for is refused (EPROTO), never walked.
 */
static struct bpf_link *attach_sock_iter(struct reap_bpf *skel, unsigned int p,
					 int netns_fd, __u64 cookie, __u32 flags)
{
	union bpf_iter_link_info linfo = {};
	LIBBPF_OPTS(bpf_iter_attach_opts, aopts);
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	struct bpf_link *link;

	if (netns_fd < 0 && !flags)
		return bpf_program__attach_iter(proto_prog(skel, p), NULL);
	linfo.sock.netns_fd = netns_fd >= 0 ? netns_fd : 0;
	linfo.sock.flags = flags;
	aopts.link_info = &linfo;
	aopts.link_info_len = sizeof(linfo);
	link = bpf_program__attach_iter(proto_prog(skel, p), &aopts);
	if (!link)
		return NULL;
	if (bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &len)) {
		p_err("cannot read back the %s iterator link: %s", p == PROTO_TCP ? "tcp" : "udp",
		      strerror(errno));
	} else if (info.iter.sock.netns_cookie != (flags ? 0 : cookie) ||
		   info.iter.sock.flags != flags) {
		p_err("the kernel ignored the netns argument of the %s iterator (the link holds netns_cookie %llu, flags %#x; asked for %llu, %#x): it predates the netns argument, so the link would walk this process's namespace instead; use --mode setns",
		      p == PROTO_TCP ? "tcp" : "udp",
		      (unsigned long long)info.iter.sock.netns_cookie, info.iter.sock.flags,
		      (unsigned long long)(flags ? 0 : cookie), flags);
		errno = EPROTO;
	} else {
		return link;
	}
	bpf_link__destroy(link);
	return NULL;
}

static void progress(struct walk *w, size_t i)
{
	if (w->progress && now() - w->start > 1.0)
		fprintf(stderr, "\rnetns-reap: %zu/%zu namespaces", i + 1, n_nss);
}

static bool wanted(const struct netns *ns)
{
	return !o.netns_cookie || ns->cookie == o.netns_cookie;
}

static int walk_setns(struct walk *w)
{
	struct bpf_link *links[2] = {};
	unsigned int p;
	int err = 0;
	size_t i;

	for (p = 0; p < 2; p++) {
		if (!(o.protos & (1U << p)))
			continue;
		links[p] = attach_sock_iter(w->skel, 1U << p, -1, 0, 0);
		if (!links[p]) {
			err = -errno;
			p_err("cannot attach the %s iterator: %s", p ? "udp" : "tcp",
			      strerror(errno));
			goto out;
		}
	}
	for (i = 0; i < n_nss; i++) {
		int fd;

		if (!wanted(&nss[i]))
			continue;
		progress(w, i);
		fd = netns_open(&nss[i]);
		if (fd < 0 || setns(fd, CLONE_NEWNET)) {
			if (fd >= 0)
				close(fd);
			w->netns_vanished++;
			continue;
		}
		close(fd);
		for (p = 0; p < 2 && !err; p++) {
			if (links[p])
				err = drain_iter(links[p]);
		}
		go_home();
		if (err) {
			p_err("reading the socket iterator in netns %llu: %s",
			      (unsigned long long)nss[i].cookie, strerror(-err));
			goto out;
		}
		w->netns_walked++;
	}
out:
	bpf_link__destroy(links[0]);
	bpf_link__destroy(links[1]);
	return err;
}

static int walk_netns_arg(struct walk *w)
{
	unsigned int p;
	int err = 0;
	size_t i;

	for (i = 0; i < n_nss && !err; i++) {
		bool vanished = false;
		int fd;

		if (!wanted(&nss[i]))
			continue;
		progress(w, i);
		fd = netns_open(&nss[i]);
		if (fd < 0) {
			w->netns_vanished++;
			continue;
		}
		for (p = 0; p < 2 && !err && !vanished; p++) {
			struct bpf_link *link;

			if (!(o.protos & (1U << p)))
				continue;
			link = attach_sock_iter(w->skel, 1U << p, fd,
						nss[i].cookie, 0);
			if (!link) {
				err = -errno;
				if (err == -ENOENT) {
					vanished = true;
					err = 0;
					break;
				}
				if (err != -EPROTO)
					p_err("cannot attach the %s iterator to netns %llu: %s",
					      p ? "udp" : "tcp",
					      (unsigned long long)nss[i].cookie,
					      strerror(-err));
				break;
			}
			err = drain_iter(link);
			bpf_link__destroy(link);
			if (err == -ENOENT) {
				vanished = true;
				err = 0;
			} else if (err) {
				p_err("reading the socket iterator in netns %llu: %s",
				      (unsigned long long)nss[i].cookie,
				      strerror(-err));
			}
		}
		close(fd);
		if (vanished)
			w->netns_vanished++;
		else if (!err)
			w->netns_walked++;
	}
	return err;
}

static int walk_chained(struct walk *w)
{
	struct bpf_link *link;
	int err;

	link = bpf_program__attach_iter(w->skel->progs.reap_chained, NULL);
	if (!link) {
		err = -errno;
		p_err("cannot attach the iter/netns program: %s", strerror(-err));
		return err;
	}
	err = drain_iter(link);
	bpf_link__destroy(link);
	if (err)
		p_err("reading the iter/netns walk: %s", strerror(-err));
	w->netns_walked = w->skel->bss->counts.netns;
	if (!err && w->skel->bss->counts.truncated)
		w_err(w, "%llu socket walks ended early (%s): not every socket of their namespaces was seen, so the results are incomplete",
		      (unsigned long long)w->skel->bss->counts.truncated,
		      strerror(-(int)w->skel->bss->counts.walk_err));
	return err;
}

static int walk_global(struct walk *w)
{
	unsigned int p;
	int err = 0;

	for (p = 0; p < 2 && !err; p++) {
		struct bpf_link *link;

		if (!(o.protos & (1U << p)))
			continue;
		link = attach_sock_iter(w->skel, 1U << p, -1, 0,
					BPF_SOCK_ITER_ALL_NETNS);
		if (!link) {
			err = -errno;
			if (err != -EPROTO)
				p_err("cannot attach the whole-host %s iterator: %s",
				      p ? "udp" : "tcp", strerror(-err));
			break;
		}
		err = drain_iter(link);
		bpf_link__destroy(link);
		if (err)
			p_err("reading the whole-host iterator: %s", strerror(-err));
	}
	w->netns_walked = o.netns_cookie ? 1 : n_nss;
	return err;
}

/* ---- results --------------------------------------------------------- */

static void fmt_addr(char *buf, size_t len, const __u8 *a, __u16 port)
{
	static const __u8 mapped[12] = { [10] = 0xff, [11] = 0xff };
	char ip[INET6_ADDRSTRLEN];

	if (!memcmp(a, mapped, 12)) {
		inet_ntop(AF_INET, a + 12, ip, sizeof(ip));
		snprintf(buf, len, "%s:%u", ip, port);
	} else {
		inet_ntop(AF_INET6, a, ip, sizeof(ip));
		snprintf(buf, len, "[%s]:%u", ip, port);
	}
}

static const char *state_name(__u8 s)
{
	return s < sizeof(tcp_states) / sizeof(tcp_states[0]) && tcp_states[s] ?
	       tcp_states[s] : "unknown";
}

static const char *action_name(const struct reap_rec *r, bool kill)
{
	if (r->action == REAP_ACT_DESTROYED)
		return "destroyed";
	if (r->action == REAP_ACT_FAILED)
		return "failed";
	return kill ? "would-destroy" : "-";
}

/*
 * The records array, mapped: the walk filled its first counts.stored slots
 * in walk order, so reading them costs no syscall per socket.
 */
static const struct reap_rec *collect(struct reap_bpf *skel, size_t *n,
				      size_t *maplen)
{
	void *recs;

	*n = skel->bss->counts.stored;
	*maplen = bpf_map__max_entries(skel->maps.recs) * sizeof(struct reap_rec);
	recs = mmap(NULL, *maplen, PROT_READ, MAP_SHARED,
		    bpf_map__fd(skel->maps.recs), 0);
	return recs == MAP_FAILED ? NULL : recs;
}

static void print_results(struct walk *w, enum mode m, bool kill,
			  const struct reap_rec *recs, size_t n, double elapsed)
{
	const struct reap_counts *c = &w->skel->bss->counts;
	char local[64], remote[64];
	int name_w = 4;		/* strlen("NAME") */
	size_t i;

	if (o.json) {
		printf("{\"mode\": \"%s\", \"verb\": \"%s\", \"dry_run\": %s, \"sockets\": [",
		       mode_names[m], kill ? "kill" : "list",
		       o.dry_run ? "true" : "false");
		for (i = 0; i < n; i++) {
			const struct reap_rec *r = &recs[i];
			const char *name = netns_name(r->netns_cookie);

			fmt_addr(local, sizeof(local), r->saddr, r->sport);
			fmt_addr(remote, sizeof(remote), r->daddr, r->dport);
			printf("%s\n  {\"netns_cookie\": %llu, \"netns_name\": ", i ? "," : "",
			       (unsigned long long)r->netns_cookie);
			if (name)
				json_str(stdout, name);
			else
				fputs("null", stdout);
			printf(", \"proto\": \"%s\", \"family\": \"%s\", \"local\": \"%s\", \"remote\": \"%s\", \"state\": \"%s\", \"sock_cookie\": %llu, \"action\": \"%s\", \"error\": ",
			       r->proto == IPPROTO_TCP ? "tcp" : "udp",
			       r->family == 2 ? "inet" : "inet6", local, remote,
			       state_name(r->state),
			       (unsigned long long)r->sock_cookie,
			       action_name(r, kill));
			if (r->action == REAP_ACT_FAILED)
				json_str(stdout, strerror(-r->err));
			else
				fputs("null", stdout);
			fputc('}', stdout);
		}
		printf("%s], \"summary\": {\"netns_walked\": %u, \"netns_vanished\": %u, \"sockets_seen\": %llu, \"matched\": %llu, \"left_alone\": %llu, \"destroyed\": %llu, \"failed\": %llu, \"elapsed_ms\": %.3f}, \"error\": ",
		       n ? "\n" : "", w->netns_walked, w->netns_vanished,
		       (unsigned long long)c->seen, (unsigned long long)c->matched,
		       (unsigned long long)c->left_alone,
		       (unsigned long long)c->destroyed,
		       (unsigned long long)c->failed, elapsed * 1000);
		if (w->err[0])
			json_str(stdout, w->err);
		else
			fputs("null", stdout);
		fputs("}\n", stdout);
		return;
	}
	for (i = 0; i < n; i++) {
		const char *name = netns_name(recs[i].netns_cookie);

		if (name && (int)strlen(name) > name_w)
			name_w = strlen(name);
	}
	printf("%-8s %-*s %-5s %-24s %-24s %-12s %-10s %s\n", "NETNS",
	       name_w, "NAME", "PROTO", "LOCAL", "REMOTE", "STATE", "COOKIE",
	       "ACTION");
	for (i = 0; i < n; i++) {
		const struct reap_rec *r = &recs[i];
		const char *name = netns_name(r->netns_cookie);

		fmt_addr(local, sizeof(local), r->saddr, r->sport);
		fmt_addr(remote, sizeof(remote), r->daddr, r->dport);
		printf("%-8llu %-*s %-5s %-24s %-24s %-12s %-10llu %s",
		       (unsigned long long)r->netns_cookie, name_w, name ?: "-",
		       r->proto == IPPROTO_TCP ? "tcp" : "udp", local, remote,
		       state_name(r->state), (unsigned long long)r->sock_cookie,
		       action_name(r, kill));
		if (r->action == REAP_ACT_FAILED)
			printf(" (%s)", strerror(-r->err));
		putchar('\n');
	}
	printf("mode %s: %u namespaces walked (%u vanished), %llu sockets seen, %llu matched, %llu destroyed, %llu failed, %.3f s\n",
	       mode_names[m], w->netns_walked, w->netns_vanished,
	       (unsigned long long)c->seen, (unsigned long long)c->matched,
	       (unsigned long long)c->destroyed, (unsigned long long)c->failed,
	       elapsed);
}

static int cmd_sockets(bool kill)
{
	struct walk w = { .progress = isatty(2) };
	const struct reap_rec *recs = NULL;
	const struct reap_counts *c;
	size_t n = 0, maplen = 0;
	struct features f;
	const char *why;
	enum mode m = o.mode;
	int err, ret = EXIT_ERROR;
	__u32 i;

	probe_features(&f);
	if (m == MODE_AUTO)
		m = mode_missing(&f, MODE_CHAINED) ? MODE_SETNS : MODE_CHAINED;
	why = mode_missing(&f, m);
	if (why) {
		p_err("mode %s cannot run: %s%s", mode_names[m], why,
		      m != MODE_SETNS ? "; 'netns-reap probe' lists the modes this kernel has" : "");
		return EXIT_ERROR;
	}
	if (resolve_netns_sel())
		return EXIT_USAGE;
	enumerate_netns();
	if (check_netns_sel())
		return EXIT_USAGE;

	w.skel = reap_bpf__open();
	if (!w.skel) {
		p_err("cannot open the BPF object: %s", strerror(errno));
		return EXIT_ERROR;
	}
	w.skel->rodata->cfg_kill = kill && !o.dry_run;
	w.skel->rodata->cfg_udp_unconnected = o.udp_unconnected;
	w.skel->rodata->cfg_netns = o.netns_cookie;
	w.skel->rodata->cfg_states = o.states;
	w.skel->rodata->cfg_n_dst = o.n_dst;
	w.skel->rodata->cfg_n_src = o.n_src;
	w.skel->rodata->cfg_dport = o.dport;
	w.skel->rodata->cfg_sport = o.sport;
	w.skel->rodata->cfg_protos = o.protos;
	bpf_map__set_max_entries(w.skel->maps.recs, o.max_socks);
	bpf_program__set_autoload(w.skel->progs.reap_chained, m == MODE_CHAINED);
	bpf_program__set_autoload(w.skel->progs.reap_tcp, m != MODE_CHAINED);
	bpf_program__set_autoload(w.skel->progs.reap_udp, m != MODE_CHAINED);
	err = reap_bpf__load(w.skel);
	if (err) {
		p_err("cannot load the BPF programs: %s%s", strerror(-err),
		      err == -EPERM ? " (needs CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN: run as root)" :
		      "; set NETNS_REAP_DEBUG=1 for the verifier log");
		goto out;
	}
	for (i = 0; i < o.n_dst; i++)
		bpf_map_update_elem(bpf_map__fd(w.skel->maps.dsts), &i, &o.dst[i], BPF_ANY);
	for (i = 0; i < o.n_src; i++)
		bpf_map_update_elem(bpf_map__fd(w.skel->maps.srcs), &i, &o.src[i], BPF_ANY);

	w.start = now();
	if (m == MODE_SETNS)
		err = walk_setns(&w);
	else if (m == MODE_NETNS_ARG)
		err = walk_netns_arg(&w);
	else if (m == MODE_CHAINED)
		err = walk_chained(&w);
	else
		err = walk_global(&w);
	if (w.progress && now() - w.start > 1.0)
		fputc('\n', stderr);
	if (err)
		goto out;
	recs = collect(w.skel, &n, &maplen);
	if (!recs) {
		w_err(&w, "cannot map the records array: %s; %s", strerror(errno),
		      kill && !o.dry_run ? "the sockets counted below were destroyed, but cannot be listed" :
		      "nothing was destroyed");
		print_results(&w, m, kill, NULL, 0, now() - w.start);
		goto out;
	}
	c = &w.skel->bss->counts;
	if (c->left_alone)
		w_err(&w, "%llu more matching sockets were left alone: the records array holds only --max-sockets %u; rerun with --max-sockets %llu to %s them too",
		      (unsigned long long)c->left_alone, o.max_socks,
		      (unsigned long long)c->matched,
		      kill && !o.dry_run ? "destroy" : "list");
	print_results(&w, m, kill, recs, n, now() - w.start);
	ret = c->truncated || c->left_alone ? EXIT_ERROR :
	      c->failed ? EXIT_PARTIAL : EXIT_OK;
out:
	if (recs)
		munmap((void *)recs, maplen);
	reap_bpf__destroy(w.skel);
	return ret;
}

/* netns: each namespace with its cookie, inode, names and socket counts. */
static int sockstat(int fd, const char *file, const char *key)
{
	char path[64], line[256];
	int inuse = 0, v;
	FILE *f;

	if (setns(fd, CLONE_NEWNET))
		return -1;
	snprintf(path, sizeof(path), "/proc/self/net/%s", file);
	f = fopen(path, "r");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			if (!strncmp(line, key, strlen(key)) &&
			    sscanf(line + strlen(key), " inuse %d", &v) == 1)
				inuse += v;
		}
		fclose(f);
	}
	go_home();
	return inuse;
}

static int cmd_netns(void)
{
	size_t i, shown = 0;

	if (!have_cap(21)) {
		p_err("missing capability: reading other namespaces needs CAP_SYS_ADMIN; run as root");
		return EXIT_ERROR;
	}
	enumerate_netns();
	if (o.json)
		printf("{\"netns\": [");
	else
		printf("%-8s %-12s %-6s %-6s %s\n", "COOKIE", "INODE", "TCP", "UDP", "NAMES");
	for (i = 0; i < n_nss; i++) {
		int tcp, udp, fd = netns_open(&nss[i]);

		if (fd < 0)
			continue;	/* gone since it was found */
		shown++;
		tcp = sockstat(fd, "sockstat", "TCP:") +
		      sockstat(fd, "sockstat6", "TCP6:");
		udp = sockstat(fd, "sockstat", "UDP:") +
		      sockstat(fd, "sockstat6", "UDP6:");
		close(fd);

		if (o.json) {
			printf("%s\n  {\"cookie\": %llu, \"inode\": %llu, \"tcp\": %d, \"udp\": %d, \"names\": [",
			       shown > 1 ? "," : "", (unsigned long long)nss[i].cookie,
			       (unsigned long long)nss[i].ino, tcp, udp);
			if (nss[i].names) {
				char *s = strdup(nss[i].names), *t, *save = NULL;
				bool first = true;

				for (t = strtok_r(s, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
					if (!first)
						fputs(", ", stdout);
					json_str(stdout, t);
					first = false;
				}
				free(s);
			}
			printf("]}");
		} else {
			printf("%-8llu %-12llu %-6d %-6d %s\n",
			       (unsigned long long)nss[i].cookie,
			       (unsigned long long)nss[i].ino, tcp, udp,
			       nss[i].names ?: "-");
		}
	}
	if (o.json)
		printf("%s]}\n", shown ? "\n" : "");
	return EXIT_OK;
}

static int cmd_probe(void)
{
	static const enum mode modes[] = { MODE_CHAINED, MODE_GLOBAL,
					   MODE_NETNS_ARG, MODE_SETNS };
	enum mode auto_mode;
	struct features f;
	unsigned int i;

	probe_features(&f);
	if (o.json)
		printf("{\"modes\": {");
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		const char *why = mode_missing(&f, modes[i]);

		if (o.json) {
			printf("%s\"%s\": {\"supported\": %s, \"reason\": ", i ? ", " : "",
			       mode_names[modes[i]], why ? "false" : "true");
			if (why)
				json_str(stdout, why);
			else
				fputs("null", stdout);
			putchar('}');
		} else {
			printf("%-10s %s%s%s\n", mode_names[modes[i]],
			       why ? "no" : "yes", why ? ": " : "", why ?: "");
		}
	}
	auto_mode = mode_missing(&f, MODE_CHAINED) ? MODE_SETNS : MODE_CHAINED;
	if (o.json)
		printf("}, \"auto\": \"%s\"}\n", mode_names[auto_mode]);
	else
		printf("auto picks: %s\n", mode_names[auto_mode]);
	return EXIT_OK;
}

static void usage(FILE *f)
{
	fputs("Usage: netns-reap [OPTIONS] list [FILTER...]\n"
	      "       netns-reap [OPTIONS] kill [--dry-run] [FILTER...]\n"
	      "       netns-reap [OPTIONS] netns\n"
	      "       netns-reap [OPTIONS] probe\n"
	      "       netns-reap help | --help | --version\n"
	      "\n"
	      "Find and destroy sockets to stale backends in every network namespace.\n"
	      "\n"
	      "OPTIONS:\n"
	      "  -j, --json            one JSON document on stdout\n"
	      "  --mode MODE           auto, chained, global, netns-arg or setns (default auto)\n"
	      "  --netns-dir DIR       also take the bind mounts in DIR as namespace names\n"
	      "  --udp-unconnected     also match unconnected UDP sockets\n"
	      "  --max-sockets N       room for N matching sockets (default 65536)\n"
	      "  --dry-run             kill: show what would be destroyed\n"
	      "Options may also follow the command; -- ends them.\n"
	      "\n"
	      "FILTER (words combine with AND; repeated dst or src words with OR):\n"
	      "  dst ADDR[/PLEN][:PORT]  remote address; IPv6 in brackets: [fd00::1]:80\n"
	      "  src ADDR[/PLEN][:PORT]  local address\n"
	      "  dport PORT              remote port\n"
	      "  sport PORT              local port\n"
	      "  proto tcp|udp|all       protocol (default all)\n"
	      "  state STATE             a TCP state, connected (default) or all\n"
	      "  netns all|COOKIE|PATH   one namespace, by cookie or nsfs path\n"
	      "\n"
	      "Exit status: 0 success, 1 error, 2 bad command line, 3 some destroys failed.\n",
	      f);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "mode", required_argument, NULL, 'm' },
		{ "netns-dir", required_argument, NULL, 'd' },
		{ "udp-unconnected", no_argument, NULL, 'u' },
		{ "max-sockets", required_argument, NULL, 'x' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	const char *verb;
	unsigned int i;
	int c, ret;
	char *end;

	libbpf_set_print(libbpf_quiet);
	opterr = 0;
	/*
	 * Options may come before or after the verb and among the filter
	 * words (getopt moves them ahead); "--" ends them.
	 */
	while ((c = getopt_long(argc, argv, ":jh", lopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			o.json = true;
			break;
		case 'm':
			for (i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++) {
				if (!strcmp(optarg, mode_names[i]))
					break;
			}
			if (i == sizeof(mode_names) / sizeof(mode_names[0])) {
				p_err("unknown mode '%s': use auto, chained, global, netns-arg or setns",
				      optarg);
				return EXIT_USAGE;
			}
			o.mode = i;
			break;
		case 'd':
			if (o.n_netns_dirs == 16) {
				p_err("at most 16 --netns-dir options: bind-mount the namespaces into fewer directories");
				return EXIT_USAGE;
			}
			o.netns_dirs[o.n_netns_dirs++] = optarg;
			break;
		case 'u':
			o.udp_unconnected = true;
			break;
		case 'n':
			o.dry_run = true;
			break;
		case 'x':
			o.max_socks = strtoul(optarg, &end, 10);
			if (*end || !o.max_socks) {
				p_err("bad --max-sockets '%s': expected a positive number", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("netns-reap %s (libbpf %s)\n", NETNS_REAP_VERSION,
			       libbpf_version_string());
			return EXIT_OK;
		case ':':
			p_err("option '%s' needs a value; run 'netns-reap help'",
			      argv[optind - 1]);
			return EXIT_USAGE;
		default:
			if (optopt)
				p_err("unknown option '-%c'; run 'netns-reap help'", optopt);
			else
				p_err("unknown option '%s'; run 'netns-reap help'",
				      argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	verb = argv[optind++];
	if (!strcmp(verb, "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (strcmp(verb, "list") && strcmp(verb, "kill") &&
	    strcmp(verb, "netns") && strcmp(verb, "probe")) {
		p_err("unknown command '%s': use list, kill, netns, probe or help", verb);
		return EXIT_USAGE;
	}
	if (!strcmp(verb, "netns") || !strcmp(verb, "probe")) {
		if (optind < argc) {
			p_err("'%s' takes no arguments, got '%s'", verb, argv[optind]);
			return EXIT_USAGE;
		}
	} else if (parse_filters(argc - optind, argv + optind)) {
		return EXIT_USAGE;
	}
	if (o.dry_run && strcmp(verb, "kill")) {
		p_err("--dry-run only goes with kill");
		return EXIT_USAGE;
	}

	self_netns_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self_netns_fd < 0) {
		p_err("cannot open /proc/self/ns/net: %s; is /proc mounted?", strerror(errno));
		return EXIT_ERROR;
	}
	if (!strcmp(verb, "probe"))
		ret = cmd_probe();
	else if (!strcmp(verb, "netns"))
		ret = cmd_netns();
	else
		ret = cmd_sockets(!strcmp(verb, "kill"));

	for (i = 0; i < n_nss; i++) {
		free(nss[i].names);
		free(nss[i].path);
	}
	free(nss);
	close(self_netns_fd);
	return ret;
}
