/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of netns-reap share: the command line as parsed, the
 * namespaces found, error output and the JSON writer.  One file per verb
 * (sockets.c: list and kill, netns.c: netns, probe.c: probe,
 * index.c: index), the walks in
 * walk.c, the entry point and the command table in netns-reap.c.
 */
#ifndef NETNS_REAP_H
#define NETNS_REAP_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "json_writer.h"
#include "reap.h"
#include "walk.h"

/* Exit codes, as documented in netns-reap(8). */
enum {
	EXIT_OK		= 0,
	EXIT_ERROR	= 1,	/* the kernel, a capability, the system */
	EXIT_USAGE	= 2,	/* the command line */
	EXIT_PARTIAL	= 3,	/* kill: some sockets could not be destroyed */
};

#define MAX_NETNS_DIRS	16

struct opts {
	bool json;
	bool dry_run;
	bool udp_unconnected;
	enum reap_mode mode;
	unsigned int protos;	/* REAP_PROTO_* */
	__u32 states;
	__u16 dport, sport;
	struct reap_addr_filter dst[REAP_MAX_DST], src[REAP_MAX_DST];
	unsigned int n_dst, n_src;
	const char *netns_sel;	/* NULL or "all": every namespace */
	const char *netns_path;	/* netns_sel, when it is a path */
	__u64 netns_cookie;	/* resolved from netns_sel */
	const char *netns_dirs[MAX_NETNS_DIRS];
	unsigned int n_netns_dirs;
	unsigned int max_socks;
};

extern struct opts o;
extern json_writer_t *json_wtr;	/* with -j, stdout's one document */
extern int self_netns_fd;

void p_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* netns.c */
extern struct reap_netns *nss;
extern size_t n_nss;
int enumerate_netns(void);
void free_netns(void);
const char *netns_name(__u64 cookie);
int resolve_netns_sel(void);
int check_netns_sel(void);
bool have_cap(int cap);

/* probe.c */
struct features {
	bool btf, destroy, iter_netns, netns_arg, global, chained, targeted;
	bool cap_bpf;
};
void probe_features(struct features *f);
const char *mode_missing(const struct features *f, enum reap_mode m);

/* index.c */
struct reap_bpf;
bool index_running(void);
const char *index_incomplete(void);
long long index_missed(void);
int index_use_maps(struct reap_bpf *skel);

/* The verbs: argc/argv are the words after the verb. */
int parse_filters(int argc, char **argv);
int do_sockets(bool kill);
int do_netns(void);
int do_probe(void);
int index_parse(const char *sub);
int do_index(void);

#endif
