// SPDX-License-Identifier: GPL-2.0
/*
 * netns-reap: find and destroy sockets to stale backends across every
 * network namespace.  See netns-reap(8) (tools/netns-reap.8).
 *
 * The entry point: the options, each with the verbs it goes with, and the
 * command table.  Options may come before or after the verb, among the
 * filter words.  The verbs live in sockets.c (list, kill), netns.c,
 * probe.c and index.c; the walks in walk.c, whose iterator code netns-bench shares.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "netns-reap.h"

#ifndef NETNS_REAP_VERSION
#define NETNS_REAP_VERSION "unknown"
#endif

struct opts o = {
	.protos = REAP_PROTO_TCP | REAP_PROTO_UDP,
	.max_socks = REAP_DEFAULT_MAX_SOCKS,
};
json_writer_t *json_wtr;
int self_netns_fd = -1;

void p_err(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (json_wtr) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "error", msg);
		jsonw_end_object(json_wtr);
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

/* ---- commands ----------------------------------------------------- */

enum {
	VERB_LIST	= 1 << 0,
	VERB_KILL	= 1 << 1,
	VERB_NETNS	= 1 << 2,
	VERB_PROBE	= 1 << 3,
	VERB_HELP	= 1 << 4,
	VERB_INDEX	= 1 << 5,
	VERB_ANY	= VERB_LIST | VERB_KILL | VERB_NETNS | VERB_PROBE | VERB_HELP |
			  VERB_INDEX,
};

static int cmd_list(void)
{
	return do_sockets(false);
}

static int cmd_kill(void)
{
	return do_sockets(true);
}

/*
 * The verbs.  Those that take filter words have them parsed before
 * anything runs; help takes anything and prints the usage.
 */
static const struct cmd {
	const char *name;
	int (*fn)(void);
	unsigned int verb;
	bool takes_args;	/* filter words */
	bool takes_sub;		/* one word: index start|stop|status */
} cmds[] = {
	{ "list",	cmd_list,	VERB_LIST,	true,	false },
	{ "kill",	cmd_kill,	VERB_KILL,	true,	false },
	{ "netns",	do_netns,	VERB_NETNS,	false,	false },
	{ "probe",	do_probe,	VERB_PROBE,	false,	false },
	{ "index",	do_index,	VERB_INDEX,	false,	true },
	{ "help",	NULL,		VERB_HELP,	true,	false },
};

/* The options, and the verbs each goes with. */
static const struct opt {
	struct option lopt;
	unsigned int verbs;
} opt_table[] = {
	{ { "json", no_argument, NULL, 'j' },			VERB_ANY },
	{ { "mode", required_argument, NULL, 'm' },		VERB_LIST | VERB_KILL },
	{ { "netns-dir", required_argument, NULL, 'd' },	VERB_LIST | VERB_KILL | VERB_NETNS },
	{ { "udp-unconnected", no_argument, NULL, 'u' },	VERB_LIST | VERB_KILL },
	{ { "max-sockets", required_argument, NULL, 'x' },	VERB_LIST | VERB_KILL },
	{ { "dry-run", no_argument, NULL, 'n' },		VERB_KILL },
	{ { "help", no_argument, NULL, 'h' },			VERB_ANY },
	{ { "version", no_argument, NULL, 'V' },		VERB_ANY },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static void usage(FILE *f)
{
	fputs("Usage: netns-reap [OPTIONS] list [FILTER...]\n"
	      "       netns-reap [OPTIONS] kill [--dry-run] [FILTER...]\n"
	      "       netns-reap [OPTIONS] netns\n"
	      "       netns-reap [OPTIONS] probe\n"
	      "       netns-reap [OPTIONS] index start | stop | status\n"
	      "       netns-reap help | --help | --version\n"
	      "\n"
	      "Find and destroy sockets to stale backends in every network namespace.\n"
	      "\n"
	      "OPTIONS:\n"
	      "  -j, --json            one JSON document on stdout\n"
	      "  --mode MODE           auto, chained, global, netns-arg, setns or index\n"
	      "                        (default auto)\n"
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

/* "list and kill": the verbs in @mask, for an error message. */
static void verbs_of(unsigned int mask, char *buf, size_t len)
{
	unsigned int i, n = 0, total = 0;

	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		total += !!(mask & cmds[i].verb);
	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		if (!(mask & cmds[i].verb))
			continue;
		n++;
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
			 n == 1 ? "" : n == total ? " and " : ", ", cmds[i].name);
	}
}

static int parse_option(int c, const char *arg)
{
	unsigned long v;
	unsigned int i;
	char *end;

	switch (c) {
	case 'j':
		o.json = true;
		break;
	case 'm':
		for (i = 0; i < ARRAY_SIZE(reap_mode_names); i++) {
			if (!strcmp(arg, reap_mode_names[i]))
				break;
		}
		if (i == ARRAY_SIZE(reap_mode_names)) {
			p_err("unknown mode '%s': use auto, chained, global, netns-arg, setns or index",
			      arg);
			return -1;
		}
		o.mode = i;
		break;
	case 'd':
		if (o.n_netns_dirs == MAX_NETNS_DIRS) {
			p_err("at most %d --netns-dir options: bind-mount the namespaces into fewer directories",
			      MAX_NETNS_DIRS);
			return -1;
		}
		o.netns_dirs[o.n_netns_dirs++] = arg;
		break;
	case 'u':
		o.udp_unconnected = true;
		break;
	case 'x':
		errno = 0;
		v = strtoul(arg, &end, 10);
		if (errno || *end || end == arg || !v || v > UINT_MAX) {
			p_err("bad --max-sockets '%s': expected a positive number", arg);
			return -1;
		}
		o.max_socks = v;
		break;
	case 'n':
		o.dry_run = true;
		break;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct option lopts[ARRAY_SIZE(opt_table) + 1] = {};
	unsigned int i, given = 0;
	const struct cmd *cmd = NULL;
	const char *verb;
	char **args;
	int c, idx, ret;
	char verbs[64];

	for (i = 0; i < ARRAY_SIZE(opt_table); i++)
		lopts[i] = opt_table[i].lopt;
	libbpf_set_print(libbpf_quiet);
	opterr = 0;
	/*
	 * A first pass for -j only, so that every error is JSON with it, on
	 * a copy of argv: getopt reorders what it parses.
	 */
	args = calloc(argc + 1, sizeof(*args));
	if (!args) {
		fprintf(stderr, "Error: out of memory\n");
		return EXIT_ERROR;
	}
	memcpy(args, argv, argc * sizeof(*args));
	while ((c = getopt_long(argc, args, ":jh", lopts, &idx)) != -1) {
		if (c == 'j')
			o.json = true;
	}
	free(args);
	if (o.json)
		json_wtr = jsonw_new(stdout);
	optind = 0;
	/* getopt permutes: options come ahead of the verb and its words. */
	while ((c = getopt_long(argc, argv, ":jh", lopts, &idx)) != -1) {
		if (c == 'h') {
			usage(stdout);
			ret = EXIT_OK;
			goto out;
		}
		if (c == 'V') {
			printf("netns-reap %s (libbpf %s)\n", NETNS_REAP_VERSION,
			       libbpf_version_string());
			ret = EXIT_OK;
			goto out;
		}
		if (c == ':') {
			p_err("option '%s' needs a value; run 'netns-reap help'",
			      argv[optind - 1]);
			ret = EXIT_USAGE;
			goto out;
		}
		if (c == '?') {
			if (optopt)
				p_err("unknown option '-%c'; run 'netns-reap help'", optopt);
			else
				p_err("unknown option '%s'; run 'netns-reap help'",
				      argv[optind - 1]);
			ret = EXIT_USAGE;
			goto out;
		}
		for (i = 0; i < ARRAY_SIZE(opt_table); i++) {
			if (opt_table[i].lopt.val == c)
				given |= 1U << i;
		}
		if (parse_option(c, optarg)) {
			ret = EXIT_USAGE;
			goto out;
		}
	}
	if (optind >= argc) {
		p_err("no command given: use list, kill, netns, probe, index or help");
		if (!json_wtr)
			usage(stderr);
		ret = EXIT_USAGE;
		goto out;
	}
	verb = argv[optind++];
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		if (!strcmp(verb, cmds[i].name))
			cmd = &cmds[i];
	}
	if (!cmd) {
		p_err("unknown command '%s': use list, kill, netns, probe, index or help", verb);
		ret = EXIT_USAGE;
		goto out;
	}
	if (cmd->verb == VERB_HELP) {
		usage(stdout);
		ret = EXIT_OK;
		goto out;
	}
	if (cmd->takes_sub) {
		if (optind >= argc) {
			p_err("'%s' needs a command: start, stop or status", verb);
			ret = EXIT_USAGE;
			goto out;
		}
		if (index_parse(argv[optind++])) {
			ret = EXIT_USAGE;
			goto out;
		}
	}
	if (!cmd->takes_args && optind < argc) {
		p_err("'%s' takes no arguments, got '%s'", verb, argv[optind]);
		ret = EXIT_USAGE;
		goto out;
	}
	if (cmd->takes_args && parse_filters(argc - optind, argv + optind)) {
		ret = EXIT_USAGE;
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(opt_table); i++) {
		if ((given & (1U << i)) && !(opt_table[i].verbs & cmd->verb)) {
			verbs_of(opt_table[i].verbs, verbs, sizeof(verbs));
			p_err("--%s only goes with %s", opt_table[i].lopt.name, verbs);
			ret = EXIT_USAGE;
			goto out;
		}
	}

	self_netns_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self_netns_fd < 0) {
		p_err("cannot open /proc/self/ns/net: %s; is /proc mounted?", strerror(errno));
		ret = EXIT_ERROR;
		goto out;
	}
	ret = cmd->fn();
	free_netns();
	close(self_netns_fd);
out:
	jsonw_destroy(&json_wtr);
	return ret;
}
