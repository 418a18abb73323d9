// SPDX-License-Identifier: GPL-2.0
/*
 * netns-reap's namespaces: found through the bind mounts in /run/netns and
 * the --netns-dir directories, and every process's /proc/PID/ns/net,
 * deduplicated by inode; and the netns verb, which lists them.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "netns-reap.h"

struct reap_netns *nss;
size_t n_nss;

/* 0, also when @path is skipped; -ENOMEM when it could not be recorded. */
static int netns_add(const char *path, const char *name)
{
	struct reap_netns *ns;
	struct stat st;
	size_t i;
	int fd;

	/*
	 * Gone, not ours to open, or not a network namespace: for one, the
	 * empty file that "ip netns del" leaves for a moment between
	 * unmounting a name and removing it.
	 */
	fd = reap_netns_open_path(path);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st)) {
		close(fd);
		return 0;
	}
	for (i = 0; i < n_nss; i++) {
		if (nss[i].dev == st.st_dev && nss[i].ino == st.st_ino)
			break;
	}
	if (i == n_nss) {
		ns = realloc(nss, (n_nss + 1) * sizeof(*nss));
		if (!ns) {
			close(fd);
			return -ENOMEM;
		}
		nss = ns;
		ns = &nss[n_nss++];
		memset(ns, 0, sizeof(*ns));
		ns->dev = st.st_dev;
		ns->ino = st.st_ino;
		ns->path = strdup(path);
		if (!ns->path) {
			n_nss--;
			close(fd);
			return -ENOMEM;
		}
		if (reap_netns_cookie_of(fd, self_netns_fd, &ns->cookie))
			ns->cookie = 0;	/* dying: netns_open() will fail */
	} else {
		ns = &nss[i];
	}
	close(fd);
	if (name) {
		char **names = realloc(ns->names, (ns->n_names + 1) * sizeof(*names));

		if (!names)
			return -ENOMEM;
		ns->names = names;
		names[ns->n_names] = strdup(name);
		if (!names[ns->n_names])
			return -ENOMEM;
		ns->n_names++;
	}
	return 0;
}

static int scan_dir(const char *dir, bool named)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);
	int err = 0;

	if (!d)
		return 0;
	while (!err && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (named) {
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			err = netns_add(path, path);
		} else if (de->d_name[0] >= '0' && de->d_name[0] <= '9') {
			snprintf(path, sizeof(path), "/proc/%s/ns/net", de->d_name);
			err = netns_add(path, NULL);
		}
	}
	closedir(d);
	return err;
}

static int cmp_netns(const void *a, const void *b)
{
	const struct reap_netns *x = a, *y = b;

	return x->cookie < y->cookie ? -1 : x->cookie > y->cookie;
}

/*
 * Bind mounts, the extra directories, then every process's namespace.
 * Out of memory, it says so and fails: a partial list would skip
 * namespaces in silence.
 */
int enumerate_netns(void)
{
	unsigned int i;
	int err;

	err = netns_add("/proc/self/ns/net", NULL) ?:
	      scan_dir("/run/netns", true);
	for (i = 0; !err && i < o.n_netns_dirs; i++)
		err = scan_dir(o.netns_dirs[i], true);
	if (!err && o.netns_path)
		err = netns_add(o.netns_path, NULL);
	if (!err)
		err = scan_dir("/proc", false);
	if (err) {
		p_err("out of memory while listing the network namespaces");
		return err;
	}
	qsort(nss, n_nss, sizeof(*nss), cmp_netns);
	return 0;
}

void free_netns(void)
{
	size_t i;

	for (i = 0; i < n_nss; i++) {
		while (nss[i].n_names)
			free(nss[i].names[--nss[i].n_names]);
		free(nss[i].names);
		free(nss[i].path);
	}
	free(nss);
	nss = NULL;
	n_nss = 0;
}

const char *netns_name(__u64 cookie)
{
	size_t i;

	for (i = 0; i < n_nss; i++) {
		if (nss[i].cookie == cookie)
			return nss[i].n_names ? nss[i].names[0] : NULL;
	}
	return NULL;
}

/* Resolve "netns COOKIE|PATH" to a cookie. */
int resolve_netns_sel(void)
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
	fd = reap_netns_open_path(o.netns_sel);
	if (fd == -EINVAL) {
		p_err("netns '%s' is not a network namespace: give all, a netns cookie or a path such as /run/netns/NAME",
		      o.netns_sel);
		return -1;
	}
	if (fd < 0) {
		p_err("netns '%s': %s; give all, a netns cookie or a path such as /run/netns/NAME",
		      o.netns_sel, strerror(-fd));
		return -1;
	}
	err = reap_netns_cookie_of(fd, self_netns_fd, &o.netns_cookie);
	close(fd);
	if (err) {
		p_err("netns '%s': %s", o.netns_sel, strerror(-err));
		return -1;
	}
	o.netns_path = o.netns_sel;
	return 0;
}

/* After enumerate_netns(): a cookie must name a namespace found. */
int check_netns_sel(void)
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

bool have_cap(int cap)
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

/* Sockets in use in the namespace of @fd, from /proc/net/@file's @key. */
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
	if (setns(self_netns_fd, CLONE_NEWNET)) {
		fprintf(stderr, "Error: cannot return to the original network namespace: %s\n",
			strerror(errno));
		exit(EXIT_ERROR);
	}
	return inuse;
}

int do_netns(void)
{
	size_t i, j;

	if (!have_cap(21)) {
		p_err("missing capability: reading other namespaces needs CAP_SYS_ADMIN; run as root");
		return EXIT_ERROR;
	}
	if (enumerate_netns())
		return EXIT_ERROR;
	if (json_wtr) {
		jsonw_start_object(json_wtr);
		jsonw_name(json_wtr, "netns");
		jsonw_start_array(json_wtr);
	} else {
		printf("%-8s %-12s %-6s %-6s %s\n", "COOKIE", "INODE", "TCP", "UDP", "NAMES");
	}
	for (i = 0; i < n_nss; i++) {
		int tcp, udp, fd = reap_netns_open(&nss[i], self_netns_fd);

		if (fd < 0)
			continue;	/* gone since it was found */
		tcp = sockstat(fd, "sockstat", "TCP:") +
		      sockstat(fd, "sockstat6", "TCP6:");
		udp = sockstat(fd, "sockstat", "UDP:") +
		      sockstat(fd, "sockstat6", "UDP6:");
		close(fd);
		if (json_wtr) {
			jsonw_start_object(json_wtr);
			jsonw_uint_field(json_wtr, "cookie", nss[i].cookie);
			jsonw_uint_field(json_wtr, "inode", nss[i].ino);
			jsonw_int_field(json_wtr, "tcp", tcp);
			jsonw_int_field(json_wtr, "udp", udp);
			jsonw_name(json_wtr, "names");
			jsonw_start_array(json_wtr);
			for (j = 0; j < nss[i].n_names; j++)
				jsonw_string(json_wtr, nss[i].names[j]);
			jsonw_end_array(json_wtr);
			jsonw_end_object(json_wtr);
		} else {
			printf("%-8llu %-12llu %-6d %-6d %s",
			       (unsigned long long)nss[i].cookie,
			       (unsigned long long)nss[i].ino, tcp, udp,
			       nss[i].n_names ? nss[i].names[0] : "-");
			for (j = 1; j < nss[i].n_names; j++)
				printf(", %s", nss[i].names[j]);
			putchar('\n');
		}
	}
	if (json_wtr) {
		jsonw_end_array(json_wtr);
		jsonw_end_object(json_wtr);
	}
	return EXIT_OK;
}
