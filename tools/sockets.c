// SPDX-License-Identifier: GPL-2.0
/*
 * The list and kill verbs: the filter words, loading bpf/reap.bpf.c with
 * them, one walk (walk.c), and the records it left, printed as a table or
 * as one JSON document.  A record is stored before its socket is destroyed,
 * so what kill destroyed is always printed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "netns-reap.h"
#include "reap.skel.h"

static const char *const tcp_states[] = {
	[1] = "established", [2] = "syn-sent", [3] = "syn-recv",
	[4] = "fin-wait-1", [5] = "fin-wait-2", [6] = "time-wait",
	[7] = "close", [8] = "close-wait", [9] = "last-ack",
	[10] = "listening", [11] = "closing", [12] = "new-syn-recv",
};

/* ---- filters ---------------------------------------------------------- */

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

int parse_filters(int argc, char **argv)
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
				o.protos = REAP_PROTO_TCP;
			} else if (!strcmp(arg, "udp")) {
				o.protos = REAP_PROTO_UDP;
			} else if (!strcmp(arg, "all")) {
				o.protos = REAP_PROTO_TCP | REAP_PROTO_UDP;
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

/* ---- results ---------------------------------------------------------- */

/* An error that comes with results: with -j, the "error" of the document. */
static char results_err[512];

static void __attribute__((format(printf, 1, 2))) r_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (!json_wtr) {
		fputs("Error: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	} else if (!results_err[0]) {
		vsnprintf(results_err, sizeof(results_err), fmt, ap);
	}
	va_end(ap);
}

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

static void print_json(const struct reap_walk *w, enum reap_mode m, bool kill,
		       const struct reap_rec *recs, size_t n, double elapsed)
{
	const struct reap_counts *c = &w->skel->bss->counts;
	char local[64], remote[64];
	size_t i;

	jsonw_start_object(json_wtr);
	jsonw_string_field(json_wtr, "mode", reap_mode_names[m]);
	jsonw_string_field(json_wtr, "verb", kill ? "kill" : "list");
	jsonw_bool_field(json_wtr, "dry_run", o.dry_run);
	jsonw_name(json_wtr, "sockets");
	jsonw_start_array(json_wtr);
	for (i = 0; i < n; i++) {
		const struct reap_rec *r = &recs[i];

		fmt_addr(local, sizeof(local), r->saddr, r->sport);
		fmt_addr(remote, sizeof(remote), r->daddr, r->dport);
		jsonw_start_object(json_wtr);
		jsonw_uint_field(json_wtr, "netns_cookie", r->netns_cookie);
		jsonw_string_field(json_wtr, "netns_name", netns_name(r->netns_cookie));
		jsonw_string_field(json_wtr, "proto", r->proto == IPPROTO_TCP ? "tcp" : "udp");
		jsonw_string_field(json_wtr, "family", r->family == AF_INET ? "inet" : "inet6");
		jsonw_string_field(json_wtr, "local", local);
		jsonw_string_field(json_wtr, "remote", remote);
		jsonw_string_field(json_wtr, "state", state_name(r->state));
		jsonw_uint_field(json_wtr, "sock_cookie", r->sock_cookie);
		jsonw_string_field(json_wtr, "action", action_name(r, kill));
		jsonw_string_field(json_wtr, "error", r->action == REAP_ACT_FAILED ?
				   strerror(-r->err) : NULL);
		jsonw_end_object(json_wtr);
	}
	jsonw_end_array(json_wtr);
	jsonw_name(json_wtr, "summary");
	jsonw_start_object(json_wtr);
	jsonw_uint_field(json_wtr, "netns_walked", w->netns_walked);
	jsonw_uint_field(json_wtr, "netns_vanished", w->netns_vanished);
	jsonw_uint_field(json_wtr, "sockets_seen", c->seen);
	jsonw_uint_field(json_wtr, "matched", c->matched);
	jsonw_uint_field(json_wtr, "left_alone", c->left_alone);
	jsonw_uint_field(json_wtr, "destroyed", c->destroyed);
	jsonw_uint_field(json_wtr, "failed", c->failed);
	if (m == REAP_MODE_INDEX) {
		jsonw_uint_field(json_wtr, "index_slots", c->index_slots);
		jsonw_uint_field(json_wtr, "index_entries", c->index_entries);
		jsonw_uint_field(json_wtr, "index_pruned", c->index_pruned);
		jsonw_uint_field(json_wtr, "index_unreachable", c->index_unreachable);
	}
	jsonw_float_field(json_wtr, "elapsed_ms", elapsed * 1000);
	jsonw_end_object(json_wtr);
	jsonw_string_field(json_wtr, "error", results_err[0] ? results_err : NULL);
	jsonw_end_object(json_wtr);
}

static void print_table(const struct reap_walk *w, enum reap_mode m, bool kill,
			const struct reap_rec *recs, size_t n, double elapsed)
{
	const struct reap_counts *c = &w->skel->bss->counts;
	char local[64], remote[64];
	int name_w = 4;		/* strlen("NAME") */
	size_t i;

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
	       reap_mode_names[m], w->netns_walked, w->netns_vanished,
	       (unsigned long long)c->seen, (unsigned long long)c->matched,
	       (unsigned long long)c->destroyed, (unsigned long long)c->failed,
	       elapsed);
	if (m == REAP_MODE_INDEX)
		printf("index: %llu slots scanned, %llu entries read, %llu pruned, %llu unsettled (a device rebind, or a shadowing socket)\n",
		       (unsigned long long)c->index_slots,
		       (unsigned long long)c->index_entries,
		       (unsigned long long)c->index_pruned,
		       (unsigned long long)c->index_unreachable);
}

static void print_results(const struct reap_walk *w, enum reap_mode m,
			  bool kill, const struct reap_rec *recs, size_t n,
			  double elapsed)
{
	if (json_wtr)
		print_json(w, m, kill, recs, n, elapsed);
	else
		print_table(w, m, kill, recs, n, elapsed);
}

/*
 * Why the filter cannot go through the index, or NULL: the index finds
 * sockets by remote address, so every dst word must name one, whole.
 */
static const char *index_unfit(void)
{
	unsigned int i;

	if (!o.n_dst)
		return "the index finds sockets by remote address: give one or more 'dst ADDR[:PORT]' words";
	for (i = 0; i < o.n_dst; i++) {
		if (o.dst[i].plen != 128)
			return "the index finds sockets by whole remote address: a dst word with a /PLEN prefix needs a walk (--mode chained)";
	}
	if (o.states & (1U << TCP_TIME_WAIT | 1U << TCP_CLOSE | 1U << TCP_LISTEN))
		return "the index records connected sockets only: the states time-wait, close and listening need a walk (--mode chained)";
	if (o.udp_unconnected)
		return "the index records connected UDP sockets only: --udp-unconnected needs a walk (--mode chained)";
	return NULL;
}

/*
 * auto: the index when it runs, can answer the filter and holds every
 * socket (index_incomplete()), else the chained walk, else setns.
 */
static enum reap_mode auto_mode(const struct features *f)
{
	if (!mode_missing(f, REAP_MODE_INDEX) && !index_unfit() &&
	    index_running() && !index_incomplete())
		return REAP_MODE_INDEX;
	return mode_missing(f, REAP_MODE_CHAINED) ? REAP_MODE_SETNS :
						    REAP_MODE_CHAINED;
}

/* The reap programs, loaded for mode @m with the command line's filter. */
static struct reap_bpf *load(enum reap_mode m, bool kill)
{
	struct reap_bpf *skel;
	__u32 i;
	int err;

	skel = reap_bpf__open();
	if (!skel) {
		p_err("cannot open the BPF object: %s", strerror(errno));
		return NULL;
	}
	skel->rodata->cfg_kill = kill && !o.dry_run;
	skel->rodata->cfg_udp_unconnected = o.udp_unconnected;
	skel->rodata->cfg_netns = o.netns_cookie;
	skel->rodata->cfg_states = o.states;
	skel->rodata->cfg_n_dst = o.n_dst;
	skel->rodata->cfg_n_src = o.n_src;
	skel->rodata->cfg_dport = o.dport;
	skel->rodata->cfg_sport = o.sport;
	skel->rodata->cfg_protos = o.protos;
	bpf_map__set_max_entries(skel->maps.recs, o.max_socks);
	bpf_program__set_autoload(skel->progs.reap_chained, m == REAP_MODE_CHAINED);
	bpf_program__set_autoload(skel->progs.reap_tcp, m != REAP_MODE_CHAINED &&
				  m != REAP_MODE_INDEX);
	bpf_program__set_autoload(skel->progs.reap_udp, m != REAP_MODE_CHAINED &&
				  m != REAP_MODE_INDEX);
	if (m != REAP_MODE_INDEX) {
		reap_skip_index(skel);
	} else if (index_use_maps(skel)) {
		reap_bpf__destroy(skel);
		return NULL;
	}
	err = reap_bpf__load(skel);
	if (err) {
		p_err("cannot load the BPF programs: %s%s", strerror(-err),
		      err == -EPERM ? " (needs CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN: run as root)" :
		      "; set NETNS_REAP_DEBUG=1 for the verifier log");
		reap_bpf__destroy(skel);
		return NULL;
	}
	for (i = 0; i < o.n_dst; i++)
		bpf_map_update_elem(bpf_map__fd(skel->maps.dsts), &i, &o.dst[i], BPF_ANY);
	for (i = 0; i < o.n_src; i++)
		bpf_map_update_elem(bpf_map__fd(skel->maps.srcs), &i, &o.src[i], BPF_ANY);
	return skel;
}

int do_sockets(bool kill)
{
	struct reap_walk w = {
		.protos = o.protos, .netns_cookie = o.netns_cookie,
		.home_fd = self_netns_fd, .progress = isatty(2),
	};
	const struct reap_rec *recs = NULL;
	const struct reap_counts *c;
	size_t n = 0, maplen = 0;
	enum reap_mode m = o.mode;
	struct features f;
	const char *why, *unfit;
	long long missed;
	int ret = EXIT_ERROR;

	probe_features(&f);
	if (m == REAP_MODE_AUTO)
		m = auto_mode(&f);
	why = mode_missing(&f, m);
	unfit = m == REAP_MODE_INDEX ? index_unfit() : NULL;
	if (!why && unfit) {
		p_err("mode index cannot run this filter: %s", unfit);
		return EXIT_USAGE;
	}
	if (!why && m == REAP_MODE_INDEX && !index_running())
		why = "the index is not running: start it with 'netns-reap index start'";
	if (why) {
		p_err("mode %s cannot run: %s%s", reap_mode_names[m], why,
		      m != REAP_MODE_SETNS ? "; 'netns-reap probe' lists the modes this kernel has" : "");
		return EXIT_ERROR;
	}
	if (resolve_netns_sel())
		return EXIT_USAGE;
	if (enumerate_netns())
		return EXIT_ERROR;
	if (check_netns_sel())
		return EXIT_USAGE;
	w.nss = nss;
	w.n_nss = n_nss;

	w.skel = load(m, kill);
	if (!w.skel)
		return EXIT_ERROR;
	if (reap_walk(&w, m)) {
		p_err("%s", w.err);
		goto out;
	}
	c = &w.skel->bss->counts;
	if (c->truncated)
		r_err("%llu socket walks ended early (%s): not every socket of their namespaces was seen, so the results are incomplete",
		      (unsigned long long)c->truncated, strerror(-(int)c->walk_err));
	missed = m == REAP_MODE_INDEX ? index_missed() : 0;
	if (missed < 0)
		r_err("cannot read the index's counters: whether it missed sockets is unknown, so the results may be incomplete");
	else if (missed)
		r_err("the index missed %lld sockets since it started (see 'netns-reap index status'): the results may be incomplete; --mode chained sees every socket, and 'netns-reap index stop' then 'start' rebuilds the index",
		      missed);
	if (c->index_unreachable)
		r_err("%llu indexed sockets could not be settled (being bound to a device or reconnected as the run read them, or sharing their tuple with a newer socket): the results may be incomplete; --mode chained sees them",
		      (unsigned long long)c->index_unreachable);
	recs = collect(w.skel, &n, &maplen);
	if (!recs)
		r_err("cannot map the records array: %s; %s", strerror(errno),
		      kill && !o.dry_run ? "the sockets counted below were destroyed, but cannot be listed" :
		      "nothing was destroyed");
	else if (c->left_alone)
		r_err("%llu more matching sockets were left alone: the records array holds only --max-sockets %u; rerun with --max-sockets %llu to %s them too",
		      (unsigned long long)c->left_alone, o.max_socks,
		      (unsigned long long)c->matched,
		      kill && !o.dry_run ? "destroy" : "list");
	print_results(&w, m, kill, recs, recs ? n : 0, reap_now() - w.start);
	ret = !recs || c->truncated || c->left_alone || c->index_unreachable || missed ?
	      EXIT_ERROR :
	      c->failed ? EXIT_PARTIAL : EXIT_OK;
out:
	if (recs)
		munmap((void *)recs, maplen);
	reap_bpf__destroy(w.skel);
	return ret;
}
