// SPDX-License-Identifier: GPL-2.0
/*
 * The socket index (bpf/index.bpf.c, bpf/index.h) and the index verb:
 *
 *   index start    load the index programs, attach them to the host (the
 *                  root cgroup and a kprobe), seed the index with one
 *                  chained walk, and pin programs' links and maps in bpffs
 *                  so that the index outlives the tool
 *   index stop     unpin them: the kernel detaches the programs and frees
 *                  the maps when the last reference goes
 *   index status   whether it runs, its entries and its counters
 *
 * start and stop are idempotent; start on an index that missed sockets
 * walks once more to find them (index_resync()).  start pins into a directory of its own
 * and renames it into place, so the index is either running whole or not
 * at all; stop also clears what a start killed half-way left behind.
 * list and kill --mode index reuse the pinned maps (index_use_maps()).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "netns-reap.h"
#include "index.h"
#include "index.skel.h"
#include "reap.skel.h"

#define BPFFS		"/sys/fs/bpf"
#define PIN_DIR		REAP_INDEX_PIN_DIR
#define PIN_TMP_PREFIX	"netns-reap-starting-"

static const char *const link_pins[] = {
	"link_sockops", "link_cookie4", "link_cookie6", "link_udp",
	"link_release", "link_tcp_close", "link_reqsk_free", "link_rebind",
	"link_rebound", "link_udp_disconnect",
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static bool pinned(const char *dir, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !access(path, F_OK);
}

bool index_running(void)
{
	unsigned int i;

	for (i = 0; i < REAP_INDEX_NR_MAPS; i++) {
		if (!pinned(PIN_DIR, reap_index_maps[i]))
			return false;
	}
	for (i = 0; i < ARRAY_SIZE(link_pins); i++) {
		if (!pinned(PIN_DIR, link_pins[i]))
			return false;
	}
	return true;
}

/* The running index's counters. */
static int read_idx_stats(struct idx_stats *st)
{
	__u32 zero = 0;
	int fd, err = 0;

	fd = bpf_obj_get(PIN_DIR "/idx_stats");
	if (fd < 0)
		return -errno;
	if (bpf_map_lookup_elem(fd, &zero, st))
		err = -errno;
	close(fd);
	return err;
}

/*
 * Runs of the program of pinned link @name that the kernel skipped because
 * another tracing program ran on the CPU (bpf_prog_info.recursion_misses).
 */
static __u64 link_misses(const char *name)
{
	struct bpf_link_info link = {};
	struct bpf_prog_info prog = {};
	__u32 len = sizeof(link);
	char path[256];
	__u64 misses = 0;
	int fd, pfd;

	snprintf(path, sizeof(path), PIN_DIR "/%s", name);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return 0;
	if (!bpf_link_get_info_by_fd(fd, &link, &len)) {
		if (link.type == BPF_LINK_TYPE_PERF_EVENT &&
		    link.perf_event.type == BPF_PERF_EVENT_KPROBE)
			misses += link.perf_event.kprobe.missed;
		pfd = bpf_prog_get_fd_by_id(link.prog_id);
		len = sizeof(prog);
		if (pfd >= 0 && !bpf_prog_get_info_by_fd(pfd, &prog, &len))
			misses += prog.recursion_misses;
		if (pfd >= 0)
			close(pfd);
	}
	close(fd);
	return misses;
}

/* Every socket the index failed to record since it started. */
static __u64 missed_total(const struct idx_stats *st)
{
	return st->missed + link_misses("link_udp") + link_misses("link_rebind") +
	       link_misses("link_rebound");
}

/*
 * Sockets the running index failed to record and no walk has found since
 * (index_resync()), or -1 if it cannot tell.
 */
long long index_missed(void)
{
	struct idx_stats st;
	__u64 total;

	if (read_idx_stats(&st))
		return -1;
	total = missed_total(&st);
	return total > st.acked ? (long long)(total - st.acked) : 0;
}

/*
 * Why the running index may lack a socket that exists, or NULL: a map
 * was full, or a kprobe was skipped (the UDP connect's, or a rebind's,
 * which leaves an entry naming a device its socket no longer has), or a
 * rebind is under way (or its return was missed).  auto then walks
 * instead.
 */

const char *index_incomplete(void)
{
	struct idx_stats st;

	if (read_idx_stats(&st))
		return "its counters cannot be read";
	if (index_missed())
		return "it missed sockets (see 'netns-reap index status')";
	if (st.rebinding)
		return "a socket it holds is being bound to a device";
	return NULL;
}

/* Unpin everything in @dir and remove it; 0 if it was not there. */
static int unpin_dir(const char *dir)
{
	char path[512];
	struct dirent *d;
	DIR *dh;
	int err = 0;

	dh = opendir(dir);
	if (!dh)
		return errno == ENOENT ? 0 : -errno;
	while ((d = readdir(dh))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (unlink(path) && errno != ENOENT)
			err = -errno;
	}
	closedir(dh);
	if (rmdir(dir) && errno != ENOENT && !err)
		err = -errno;
	return err ?: 1;
}

/* What a start killed between pinning and renaming left in bpffs. */
static int unpin_leftovers(void)
{
	char path[512];
	struct dirent *d;
	DIR *dh;
	int err = 0, r;

	dh = opendir(BPFFS);
	if (!dh)
		return -errno;
	while ((d = readdir(dh))) {
		if (strncmp(d->d_name, PIN_TMP_PREFIX, strlen(PIN_TMP_PREFIX)))
			continue;
		snprintf(path, sizeof(path), BPFFS "/%s", d->d_name);
		r = unpin_dir(path);
		if (r < 0)
			err = r;
	}
	closedir(dh);
	return err;
}

static const char *bpffs_missing(void)
{
	struct statfs st;

	if (statfs(BPFFS, &st) || st.f_type != BPF_FS_MAGIC)
		return "no bpffs at " BPFFS ": mount it with 'mount -t bpf bpffs " BPFFS "'";
	return NULL;
}

/* The root of the cgroup2 hierarchy, from /proc/self/mountinfo. */
static int cgroup_root(char *buf, size_t len)
{
	char line[4096], root[1024], mnt[1024], *sep;
	FILE *f = fopen("/proc/self/mountinfo", "r");
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		sep = strstr(line, " - ");
		if (!sep || strncmp(sep, " - cgroup2 ", 11))
			continue;
		if (sscanf(line, "%*s %*s %*s %1023s %1023s", root, mnt) != 2 ||
		    strcmp(root, "/"))
			continue;
		snprintf(buf, len, "%s", mnt);
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

/* @obj, opened and not loaded, takes the running index's maps. */
static int reuse_maps(struct bpf_object *obj)
{
	char why[512];
	int err;

	err = reap_index_reuse_maps(obj, why, sizeof(why));
	if (err)
		p_err("%s", why);
	return err;
}

/*
 * For list and kill --mode index: the reap skeleton @skel, opened and not
 * loaded, takes the running index's maps (reap_skip_index() for the
 * other modes).
 */
int index_use_maps(struct reap_bpf *skel)
{
	return reuse_maps(skel->obj);
}

/* Keys of map @fd, whose keys are @size bytes, at most 64. */
static __u64 count_keys(int fd, size_t size)
{
	char key[64], next[64];
	void *prev = NULL;
	__u64 n = 0;

	while (size <= sizeof(key) && !bpf_map_get_next_key(fd, prev, next)) {
		n++;
		memcpy(key, next, size);
		prev = key;
	}
	return n;
}

struct idx_status {
	struct idx_stats st;
	__u64	entries;	/* idx_socks: indexed sockets */
	__u64	addrs;		/* idx_addrs: remote addresses */
	__u64	slots;		/* idx_slots: entries, duplicates included */
	__u64	prog_misses;	/* tracing programs' skipped runs */
	__u64	mem;		/* the maps' bytes */
};

/* The counters, the entries and the bytes of the maps of the index. */
static int read_stats(struct idx_status *s)
{
	static const size_t key_size[] = {
		sizeof(struct idx_addr), sizeof(struct idx_slot_key),
		sizeof(__u64), 0,
	};
	__u64 *count[] = { &s->addrs, &s->slots, &s->entries, NULL };
	char path[256], line[256];
	unsigned int i;
	int fd;

	for (i = 0; i < ARRAY_SIZE(link_pins); i++)
		s->prog_misses += link_misses(link_pins[i]);
	for (i = 0; i < REAP_INDEX_NR_MAPS; i++) {
		FILE *f;

		snprintf(path, sizeof(path), PIN_DIR "/%s", reap_index_maps[i]);
		fd = bpf_obj_get(path);
		if (fd < 0)
			return -errno;
		snprintf(line, sizeof(line), "/proc/self/fdinfo/%d", fd);
		f = fopen(line, "r");
		while (f && fgets(line, sizeof(line), f)) {
			unsigned long long v;

			if (sscanf(line, "memlock: %llu", &v) == 1)
				s->mem += v;
		}
		if (f)
			fclose(f);
		if (count[i])
			*count[i] = count_keys(fd, key_size[i]);
		close(fd);
	}
	return read_idx_stats(&s->st);
}

static int index_status(void)
{
	struct idx_status s = {};
	bool running = index_running();
	int err;

	if (running) {
		err = read_stats(&s);
		if (err) {
			p_err("cannot read the index in %s: %s", PIN_DIR, strerror(-err));
			return EXIT_ERROR;
		}
	}
	if (json_wtr) {
		jsonw_start_object(json_wtr);
		jsonw_bool_field(json_wtr, "running", running);
		jsonw_string_field(json_wtr, "pin_dir", PIN_DIR);
		if (running) {
			jsonw_uint_field(json_wtr, "entries", s.entries);
			jsonw_uint_field(json_wtr, "slots", s.slots);
			jsonw_uint_field(json_wtr, "addresses", s.addrs);
			jsonw_uint_field(json_wtr, "rebinding", s.st.rebinding);
			jsonw_uint_field(json_wtr, "inserted", s.st.inserted);
			jsonw_uint_field(json_wtr, "removed", s.st.removed);
			jsonw_uint_field(json_wtr, "seeded", s.st.seeded);
			jsonw_uint_field(json_wtr, "missed", s.st.missed);
			jsonw_uint_field(json_wtr, "acked", s.st.acked);
			jsonw_uint_field(json_wtr, "prog_misses", s.prog_misses);
			jsonw_uint_field(json_wtr, "map_bytes", s.mem);
		}
		jsonw_end_object(json_wtr);
	} else if (running) {
		printf("index running (%s): %llu entries (%llu slots, %llu addresses, %llu being bound to a device); %llu inserted, %llu removed, %llu seeded, %llu missed, %llu program runs skipped; maps %llu bytes\n",
		       PIN_DIR, (unsigned long long)s.entries,
		       (unsigned long long)s.slots, (unsigned long long)s.addrs,
		       (unsigned long long)s.st.rebinding,
		       (unsigned long long)s.st.inserted,
		       (unsigned long long)s.st.removed,
		       (unsigned long long)s.st.seeded,
		       (unsigned long long)s.st.missed,
		       (unsigned long long)s.prog_misses,
		       (unsigned long long)s.mem);
	} else {
		printf("index not running\n");
	}
	return EXIT_OK;
}

static int index_stop(void)
{
	int err, was;

	was = unpin_dir(PIN_DIR);
	err = unpin_leftovers();
	if (was < 0 || err < 0) {
		p_err("cannot unpin the index in %s: %s", PIN_DIR,
		      strerror(-(was < 0 ? was : err)));
		return EXIT_ERROR;
	}
	if (json_wtr) {
		jsonw_start_object(json_wtr);
		jsonw_bool_field(json_wtr, "running", false);
		jsonw_bool_field(json_wtr, "was_running", was > 0);
		jsonw_end_object(json_wtr);
	} else {
		printf(was > 0 ? "index stopped\n" : "index not running\n");
	}
	return EXIT_OK;
}

/*
 * Whether the UDP kprobe sees a connect of @family on this kernel, and
 * with @rebind whether the rebind kprobes see that socket bound to lo and
 * the disconnect kprobe its disconnect: a compiler may inline
 * udp_lib_hash4(), sock_bindtoindex_locked() or __udp_disconnect() into a
 * caller, where no kprobe fires.  -1 if no connect could be made here to
 * tell.
 */
static int hooks_fire(struct index_bpf *skel, int family, bool rebind)
{
	struct idx_slot_key key = {};
	struct idx_entry e;
	int lo = 1;	/* LOOPBACK_IFINDEX */
	struct sockaddr_storage ss = { .ss_family = family };
	struct sockaddr_in *in = (void *)&ss;
	struct sockaddr_in6 *in6 = (void *)&ss;
	struct idx_sock_val v;
	__u64 cookie;
	socklen_t len = sizeof(cookie);
	int fd, found;

	if (family == AF_INET) {
		in->sin_port = htons(9);
		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	} else {
		in6->sin6_port = htons(9);
		in6->sin6_addr = in6addr_loopback;
	}
	fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (void *)&ss, family == AF_INET ? sizeof(*in) : sizeof(*in6)) ||
	    getsockopt(fd, SOL_SOCKET, SO_COOKIE, &cookie, &len)) {
		close(fd);
		return -1;
	}
	found = !bpf_map_lookup_elem(bpf_map__fd(skel->maps.idx_socks), &cookie, &v);
	if (found && rebind) {
		memcpy(&key.addr, &v.addr, sizeof(key.addr));
		key.slot = v.slot;
		found = !setsockopt(fd, SOL_SOCKET, SO_BINDTOIFINDEX, &lo, sizeof(lo)) &&
			!bpf_map_lookup_elem(bpf_map__fd(skel->maps.idx_slots), &key, &e) &&
			e.dev == (__u32)lo;
		/* And that a disconnect drops it. */
		ss.ss_family = AF_UNSPEC;
		found = found && !connect(fd, (void *)&ss, sizeof(ss)) &&
			bpf_map_lookup_elem(bpf_map__fd(skel->maps.idx_socks), &cookie, &v);
	}
	close(fd);
	return found;
}

/* One chained walk that records every connected socket not yet indexed. */
static int run_seed(struct index_bpf *skel)
{
	struct bpf_link *seed;
	int err;

	seed = bpf_program__attach_iter(skel->progs.idx_seed, NULL);
	if (!seed) {
		err = -errno;
		p_err("cannot attach the seeding walk: %s", strerror(-err));
		return err;
	}
	err = reap_iter_drain(bpf_link__fd(seed));
	if (err)
		p_err("the seeding walk failed: %s", strerror(-err));
	bpf_link__destroy(seed);
	return err;
}

/* Attach, seed and pin into @tmp; the caller renames or removes it. */
static int index_attach(struct index_bpf *skel, int cg_fd, const char *tmp)
{
	struct bpf_link *links[ARRAY_SIZE(link_pins)] = {};
	char path[512];
	unsigned int i;
	int err = 0;

	links[0] = bpf_program__attach_cgroup(skel->progs.idx_sockops, cg_fd);
	links[1] = bpf_program__attach_cgroup(skel->progs.idx_cookie4, cg_fd);
	links[2] = bpf_program__attach_cgroup(skel->progs.idx_cookie6, cg_fd);
	links[3] = bpf_program__attach(skel->progs.idx_udp);
	links[4] = bpf_program__attach_cgroup(skel->progs.idx_release, cg_fd);
	links[5] = bpf_program__attach(skel->progs.idx_tcp_close);
	links[6] = bpf_program__attach(skel->progs.idx_reqsk_free);
	/* The return's probe first, so that no entry is left marked. */
	links[8] = bpf_program__attach(skel->progs.idx_rebound);
	links[7] = bpf_program__attach(skel->progs.idx_rebind);
	links[9] = bpf_program__attach(skel->progs.idx_udp_disconnect);
	for (i = 0; i < ARRAY_SIZE(links); i++) {
		if (!links[i]) {
			err = -errno;
			p_err("cannot attach the index program for %s: %s",
			      link_pins[i] + 5, strerror(-err));
			goto out;
		}
	}
	if (!hooks_fire(skel, AF_INET, false) || !hooks_fire(skel, AF_INET6, false)) {
		err = -ENOTSUP;
		p_err("the index's kprobe on udp_lib_hash4() did not see a UDP connect on loopback: this kernel inlines it somewhere, so the index would miss UDP sockets");
		goto out;
	}
	if (!hooks_fire(skel, AF_INET, true)) {
		err = -ENOTSUP;
		p_err("the index's kprobes on sock_bindtoindex_locked() and __udp_disconnect() did not see a UDP socket on loopback bound to lo, then disconnected: this kernel inlines one of them somewhere, so the index would lose sockets bound to a device once indexed, or keep disconnected ones");
		goto out;
	}
	/* The hooks run already: the seed misses nothing between. */
	err = run_seed(skel);
	if (err)
		goto out;
	for (i = 0; i < REAP_INDEX_NR_MAPS; i++) {
		snprintf(path, sizeof(path), "%s/%s", tmp, reap_index_maps[i]);
		err = bpf_map__pin(bpf_object__find_map_by_name(skel->obj, reap_index_maps[i]),
				   path);
		if (err) {
			p_err("cannot pin %s: %s", path, strerror(-err));
			goto out;
		}
	}
	for (i = 0; i < ARRAY_SIZE(links); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmp, link_pins[i]);
		err = bpf_link__pin(links[i], path);
		if (err) {
			p_err("cannot pin %s: %s", path, strerror(-err));
			goto out;
		}
	}
out:
	for (i = 0; i < ARRAY_SIZE(links); i++)
		bpf_link__destroy(links[i]);
	return err;
}

/*
 * The running index missed @missed sockets: one more walk, with the
 * pinned maps, records those that still exist.  Its last step, once
 * every namespace was walked whole, marks every miss counted before it
 * began as covered (idx_stats.acked): a miss during the walk, or a walk
 * cut short, still counts.
 */
static int index_resync(long long missed)
{
	struct index_bpf *skel;
	struct bpf_program *prog;
	struct idx_stats st;
	int err;

	skel = index_bpf__open();
	if (!skel || read_idx_stats(&st)) {
		p_err("cannot open the index to walk it again: %s", strerror(errno));
		index_bpf__destroy(skel);
		return EXIT_ERROR;
	}
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, prog == skel->progs.idx_seed);
	skel->bss->acked_to = missed_total(&st);
	err = reuse_maps(skel->obj);
	if (!err) {
		err = index_bpf__load(skel);
		if (err)
			p_err("cannot load the seeding walk: %s", strerror(-err));
	}
	if (!err)
		err = run_seed(skel);
	index_bpf__destroy(skel);
	if (err)
		return EXIT_ERROR;
	if (json_wtr) {
		jsonw_start_object(json_wtr);
		jsonw_bool_field(json_wtr, "running", true);
		jsonw_bool_field(json_wtr, "started", false);
		jsonw_uint_field(json_wtr, "resynced_missed", missed);
		jsonw_end_object(json_wtr);
	} else {
		printf("index already running (%s); walked again for the %lld sockets it missed\n",
		       PIN_DIR, missed);
	}
	return EXIT_OK;
}

/* @started: by this start, or by one before. */
static void report_start(bool started)
{
	if (json_wtr) {
		jsonw_start_object(json_wtr);
		jsonw_bool_field(json_wtr, "running", true);
		jsonw_bool_field(json_wtr, "started", started);
		jsonw_end_object(json_wtr);
	} else {
		printf(started ? "index started (%s)\n" :
				 "index already running (%s)\n", PIN_DIR);
	}
}

static int index_start(void)
{
	struct index_bpf *skel = NULL;
	char cg[1024], tmp[256];
	struct features f;
	const char *why;
	long long missed;
	int cg_fd = -1, err, ret = EXIT_ERROR;

	probe_features(&f);
	why = mode_missing(&f, REAP_MODE_INDEX);
	if (!why)
		why = bpffs_missing();
	if (why) {
		p_err("cannot start the index: %s", why);
		return EXIT_ERROR;
	}
	if (index_running()) {
		missed = index_missed();
		if (missed)
			return index_resync(missed);
		report_start(false);
		return EXIT_OK;
	}
	err = cgroup_root(cg, sizeof(cg));
	if (err) {
		p_err("no cgroup2 mount of the root cgroup: mount one with 'mount -t cgroup2 none /sys/fs/cgroup' (in a container, the host's)");
		return EXIT_ERROR;
	}
	cg_fd = open(cg, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg_fd < 0) {
		p_err("cannot open the root cgroup %s: %s", cg, strerror(errno));
		return EXIT_ERROR;
	}
	/* Every cgroup has cgroup.type but the root. */
	if (!faccessat(cg_fd, "cgroup.type", F_OK, 0)) {
		p_err("the cgroup2 mount %s is not the host's root cgroup (a cgroup namespace's?): the index would miss the sockets of the cgroups outside it; run from the host's cgroup namespace",
		      cg);
		goto out;
	}
	skel = index_bpf__open_and_load();
	if (!skel) {
		err = -errno;
		p_err("cannot load the index programs: %s; set NETNS_REAP_DEBUG=1 for the verifier log",
		      strerror(-err));
		goto out;
	}
	snprintf(tmp, sizeof(tmp), BPFFS "/" PIN_TMP_PREFIX "%d", getpid());
	if (mkdir(tmp, 0700)) {
		p_err("cannot create %s: %s", tmp, strerror(errno));
		goto out;
	}
	err = index_attach(skel, cg_fd, tmp);
	if (!err && rename(tmp, PIN_DIR)) {
		err = -errno;
		/* Another start renamed its own first: this one stands down. */
		if (err != -ENOTEMPTY && err != -EEXIST)
			p_err("cannot rename %s to %s: %s", tmp, PIN_DIR, strerror(-err));
	}
	if (err) {
		unpin_dir(tmp);
		if ((err == -ENOTEMPTY || err == -EEXIST) && index_running()) {
			ret = EXIT_OK;
			report_start(false);
		} else if (err == -ENOTEMPTY || err == -EEXIST) {
			p_err("%s holds something else than a running index (an older netns-reap's?): remove it with 'netns-reap index stop'",
			      PIN_DIR);
		}
		goto out;
	}
	ret = EXIT_OK;
	report_start(true);
out:
	index_bpf__destroy(skel);
	close(cg_fd);
	return ret;
}

static const struct {
	const char *name;
	int (*fn)(void);
} index_cmds[] = {
	{ "start", index_start }, { "stop", index_stop }, { "status", index_status },
};
static int (*index_cmd)(void);

/* The word after "index"; -1, said, if it is none of index_cmds. */
int index_parse(const char *sub)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(index_cmds); i++) {
		if (!strcmp(sub, index_cmds[i].name)) {
			index_cmd = index_cmds[i].fn;
			return 0;
		}
	}
	p_err("unknown index command '%s': use start, stop or status", sub);
	return -1;
}

int do_index(void)
{
	return index_cmd();
}
