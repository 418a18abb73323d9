/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The socket walks of bpf/reap.bpf.c.  netns-reap runs them whole;
 * netns-bench reads and attaches iterators with reap_iter_drain() and
 * reap_sock_iter_attach(), so it times the tool's code; the link
 * read-back, which checks that the kernel kept the netns argument, runs
 * once per process and kind of argument, outside the timed runs.
 *
 * A walk loads nothing: the caller opens and loads the reap skeleton with
 * its filter, then runs one mode over a list of namespaces (setns,
 * netns-arg) or over what the kernel holds (chained, global), or looks
 * the dst addresses up in the socket index (index).  Errors come
 * back as -errno with a sentence in walk.err, for the caller to print.
 */
#ifndef NETNS_REAP_WALK_H
#define NETNS_REAP_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

struct bpf_link;
struct bpf_program;
struct reap_bpf;

enum reap_mode {
	REAP_MODE_AUTO, REAP_MODE_CHAINED, REAP_MODE_GLOBAL,
	REAP_MODE_NETNS_ARG, REAP_MODE_SETNS, REAP_MODE_INDEX,
};
#define REAP_NR_MODES (REAP_MODE_INDEX + 1)
extern const char *const reap_mode_names[REAP_NR_MODES];

#define REAP_PROTO_TCP	1
#define REAP_PROTO_UDP	2

/*
 * A namespace found before the walk.  No fd is kept: that would keep every
 * namespace alive for the whole walk.  reap_netns_open() reopens it by its
 * path when its turn comes, and one that is gone by then is vanished.
 */
struct reap_netns {
	dev_t dev;
	ino_t ino;
	__u64 cookie;
	char **names;		/* the bind mounts that name it */
	unsigned int n_names;
	char *path;		/* a path that opened it */
};

struct reap_walk {
	/* In: */
	struct reap_bpf *skel;		/* loaded for this mode */
	unsigned int protos;		/* REAP_PROTO_* */
	__u64 netns_cookie;		/* 0: every namespace */
	const struct reap_netns *nss;	/* setns, netns-arg: what to walk */
	size_t n_nss;
	int home_fd;			/* setns: the namespace to return to */
	bool progress;			/* a count on stderr after a second */
	/* Out: */
	unsigned int netns_walked;
	unsigned int netns_vanished;
	double start;
	char err[512];			/* what went wrong, with a -errno */
};

int reap_netns_cookie_of(int fd, int home_fd, __u64 *cookie);
int reap_netns_open_path(const char *path);
int reap_netns_open(const struct reap_netns *ns, int home_fd);

double reap_now(void);
int reap_iter_drain(int link_fd);
struct bpf_link *reap_sock_iter_attach(struct bpf_program *prog, int netns_fd,
				       __u64 cookie, __u32 flags,
				       char *why, size_t len);

void reap_skip_index(struct reap_bpf *skel);

struct bpf_object;

/* Where netns-reap index start pins the index (tools/index.c). */
#define REAP_INDEX_PIN_DIR	"/sys/fs/bpf/netns-reap"
#define REAP_INDEX_NR_MAPS	4
extern const char *const reap_index_maps[REAP_INDEX_NR_MAPS];
int reap_index_reuse_maps(struct bpf_object *obj, char *why, size_t len);
int reap_walk(struct reap_walk *w, enum reap_mode mode);

#endif
