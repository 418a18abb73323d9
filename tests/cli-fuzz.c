// SPDX-License-Identifier: GPL-2.0
/*
 * cli-fuzz: run a program (netns-reap, built with sanitizers) on generated
 * command lines and report every run that breaks its contract.
 *
 *   cli-fuzz [-v] [-j JOBS] [-n COUNT] [-s SEED] [-d DIR] PROG
 *
 * Command lines are drawn from netns-reap's grammar (options, verbs,
 * filter words and their values) mixed with wrong values, empty and long
 * words and odd bytes; SEED makes a run repeatable.  DIR is a directory the
 * words may name (holding a FIFO and a plain file).  JOBS runs go at once.
 *
 * Each run has bpf() and setns() forbidden by a seccomp filter that kills
 * the process at its first call: a command line that gets past parsing
 * dies there by SIGSYS, so one that is refused (exit 2) provably refused it
 * before it could touch a socket or enter a namespace.  A run fails when it
 *   - dies by any other signal, or runs for more than 10 s;
 *   - prints a sanitizer report (AddressSanitizer, LeakSanitizer, UBSan);
 *   - exits 1 or 2 without an error: a first stderr line "Error: ..." or,
 *     when it was asked for JSON (-j may hide anywhere), an "error" key on
 *     stdout;
 *   - exits with anything but 0, 1 or 2.
 * Each failure is printed with its command line, shell-quoted; the last
 * line counts the runs by outcome (-v prints every run).  Exit status: 0
 * if no run failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#define MAX_WORDS	200
#define RUN_SECONDS	10

static unsigned long long rng;

static unsigned int rnd(unsigned int n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

/* Words of one kind: the first @ok are right, the rest wrong. */
struct pool {
	const char *const *w;
	unsigned int n, ok;
};

#define POOL(name, n_ok, ...)						\
	static const char *const name##_w[] = { __VA_ARGS__ };		\
	static const struct pool name = {				\
		name##_w, sizeof(name##_w) / sizeof(name##_w[0]), n_ok	\
	}

POOL(verbs, 5, "list", "kill", "netns", "probe", "help",
     "lists", "KILL", "", "-");
POOL(flags, 4, "-j", "--json", "--udp-unconnected", "--dry-run",
     "--", "-x", "--mod", "--json=1", "--mode=chained", "-jj", "-h", "--help",
     "--version", "--max-sockets=3", "--netns-dir=", "--dry-run=1");
POOL(valued, 3, "--mode", "--netns-dir", "--max-sockets");
POOL(filter_words, 7, "dst", "src", "dport", "sport", "proto", "state",
     "netns");
POOL(modes, 5, "auto", "chained", "global", "netns-arg", "setns",
     "fast", "", "CHAINED", "setns ");
POOL(counts, 4, "1", "65536", "4294967295", "100",
     "0", "-1", "4294967296", "x", "", "18446744073709551616", "1e3", " 5");
POOL(addrs, 10, "10.0.0.1", "10.0.0.0/24", "10.0.0.1:80", "[fd00::1]:80",
     "fd00::/64", "::", "0.0.0.0/0", "255.255.255.255:65535", "::ffff:10.0.0.1",
     "[fd00::1]/64:80",
     "1.2.3", "10.0.0.0/33", "[fd00::1", "[::1]:0", "1.2.3.4:", ":80", "/",
     "[]", "[:::]:1", "fd00::1:80", "10.0.0.1/-1", "10.0.0.1:80:80",
     "[10.0.0.1]:80", "10.0.0.1/", "[fd00::1]:", "fd00::/129",
     "1.2.3.4/32:65536");
POOL(ports, 3, "1", "65535", "8080",
     "0", "65536", "70000", "-1", "0x10", "", "+80", "80 ", "4294967377");
POOL(protos, 3, "tcp", "udp", "all", "sctp", "TCP", "");
POOL(states, 6, "established", "time-wait", "all", "connected", "listening",
     "new-syn-recv", "bogus", "", "ESTABLISHED");
POOL(netns_sels, 3, "all", "/proc/self/ns/net", "/proc/1/ns/net",
     "1", "18446744073709551615", "0", "18446744073709551616", "/proc/self/ns/mnt", "/nonexistent",
     "/dev/null", "-1", "abc", "@DIR@/fifo", "@DIR@/file", "@DIR@");
POOL(dirs, 3, "@DIR@", "/run/netns", "/nonexistent",
     "", "/proc/self/ns", "@DIR@/file");

static const char *dir = "/tmp";
static bool clean;	/* this line: only right words */

/* A word of odd bytes, a long word, or a format string. */
static char *odd_word(void)
{
	static const char *const fmts[] = { "%s%n%x", "%999999d", "\\", "'\"", "\n" };
	size_t len, i;
	char *w;

	switch (rnd(4)) {
	case 0:
		return strdup(fmts[rnd(5)]);
	case 1:
		len = rnd(2) ? 4096 : 100000;	/* below MAX_ARG_STRLEN */
		w = malloc(len + 1);
		if (!w)
			return NULL;
		memset(w, rnd(2) ? 'A' : '9', len);
		w[len] = '\0';
		if (rnd(2))
			memcpy(w, "10.0.0.1/", 9);
		return w;
	default:
		len = 1 + rnd(16);
		w = malloc(len + 1);
		if (!w)
			return NULL;
		for (i = 0; i < len; i++)
			w[i] = 1 + rnd(255);
		w[len] = '\0';
		return w;
	}
}

/* A word of @p, a right one on a clean line; @DIR@ becomes the directory. */
static char *pick(const struct pool *p)
{
	const char *w = p->w[rnd(clean ? p->ok : p->n)], *at = strstr(w, "@DIR@");
	char *out;

	if (!at)
		return strdup(w);
	if (asprintf(&out, "%.*s%s%s", (int)(at - w), w, dir, at + 5) < 0)
		return NULL;
	return out;
}

/* The value that goes with @w. */
static char *value_of(const char *w)
{
	if (!clean && rnd(8) == 0)
		return odd_word();
	if (!strcmp(w, "dst") || !strcmp(w, "src"))
		return pick(&addrs);
	if (!strcmp(w, "dport") || !strcmp(w, "sport"))
		return pick(&ports);
	if (!strcmp(w, "proto"))
		return pick(&protos);
	if (!strcmp(w, "state"))
		return pick(&states);
	if (!strcmp(w, "netns"))
		return pick(&netns_sels);
	if (!strcmp(w, "--mode"))
		return pick(&modes);
	if (!strcmp(w, "--max-sockets"))
		return pick(&counts);
	return pick(&dirs);
}

/* An option at argv[*n], with its value if it takes one. */
static void gen_option(char **argv, int *n)
{
	const char *w;

	if (rnd(3)) {
		argv[(*n)++] = pick(&flags);
		return;
	}
	w = valued.w[rnd(valued.n)];
	argv[(*n)++] = strdup(w);
	if (clean || rnd(10))
		argv[(*n)++] = value_of(w);
}

/* A filter word at argv[*n], with its value; @only, if set, every time. */
static const char *only;

static void gen_filter(char **argv, int *n)
{
	const char *w = only ?: filter_words.w[rnd(filter_words.n)];

	argv[(*n)++] = strdup(w);
	if (clean || rnd(12))
		argv[(*n)++] = value_of(w);
}

/*
 * argv[0..]: half the lines are options, a verb, then filter words and
 * options, all of them right, and half of those get one word replaced;
 * the other half have wrong words and odd bytes anywhere.
 */
static int gen(char **argv)
{
	int n = 0, want = rnd(24), i;
	char *old;

	clean = rnd(2);
	/* Now and then up to and past the limits: 64 dst, 64 src, 16 dirs. */
	only = NULL;
	if (!rnd(8)) {
		static const char *const many[] = { "dst", "src", "--netns-dir" };

		only = many[rnd(3)];
		clean = true;
		/* Words up to the verb, then pairs: the limit, one more, two. */
		want = rnd(2) ? 3 + 2 * ((only[0] == '-' ? 16 : 64) + rnd(3)) :
				rnd(MAX_WORDS - 4);
	}
	if (clean) {
		for (i = rnd(3); i > 0; i--)
			gen_option(argv, &n);
		argv[n++] = rnd(4) ? strdup(verbs.w[rnd(2)]) : pick(&verbs);
		while (n < want) {
			if (only || rnd(5))
				gen_filter(argv, &n);
			else
				gen_option(argv, &n);
		}
		if (rnd(2)) {
			i = rnd(n);
			old = argv[i];
			clean = false;
			argv[i] = rnd(2) ? odd_word() : value_of(old);
			free(old);
		}
	} else {
		while (n < want) {
			switch (rnd(6)) {
			case 0:
				argv[n++] = pick(&verbs);
				break;
			case 1:
				argv[n++] = odd_word();
				break;
			case 2:
				gen_option(argv, &n);
				break;
			default:
				gen_filter(argv, &n);
				break;
			}
		}
	}
	argv[n] = NULL;
	return n;
}

/* Kill the process at its first bpf() or setns(). */
static int forbid_bpf_and_setns(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_bpf, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_setns, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

/* @s shell-quoted, a long one cut short with its length. */
static void quote(FILE *f, const char *s)
{
	size_t len = strlen(s);
	const char *end = s + (len > 64 ? 64 : len);

	fputc('\'', f);
	for (; s < end; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			fprintf(f, "'$'\\x%02x''", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
	if (len > 64)
		fprintf(f, "...(%zu bytes)", len);
}

/* The first line of the memfd @fd, NUL-terminated, in @buf. */
static void first_line(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);
	char *nl;

	buf[n > 0 ? n : 0] = '\0';
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
}

static int contains(int fd, const char *needle)
{
	static char buf[1 << 20];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
	return strstr(buf, needle) != NULL;
}

enum { PARSED, REFUSED, ERRORED, DONE, FAILED, NR_OUTCOMES };
static const char *const outcome_names[] = {
	"parsed", "refused", "error", "done", "failed",
};

/* One run: an outcome, and on failure @why says what went wrong. */
static int run(const char *prog, char **argv, const char **why)
{
	char err_line[256];
	int out, err, status;
	pid_t pid;

	out = memfd_create("out", MFD_CLOEXEC);
	err = memfd_create("err", MFD_CLOEXEC);
	if (out < 0 || err < 0) {
		perror("memfd_create");
		exit(2);
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (!pid) {
		dup2(out, 1);
		dup2(err, 2);
		alarm(RUN_SECONDS);
		if (forbid_bpf_and_setns()) {
			perror("seccomp");
			_exit(127);
		}
		argv[0] = (char *)prog;
		execv(prog, argv);
		dprintf(2, "cli-fuzz: cannot run %s: %s\n", prog, strerror(errno));
		_exit(127);
	}
	waitpid(pid, &status, 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		first_line(err, err_line, sizeof(err_line));
		fprintf(stderr, "%s\n", err_line);
		exit(2);
	}
	first_line(err, err_line, sizeof(err_line));
	if (contains(err, "Sanitizer") || contains(err, "runtime error:"))
		*why = "a sanitizer report";
	else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS)
		*why = NULL;
	else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		*why = "ran for more than 10 s";
	else if (WIFSIGNALED(status))
		*why = strsignal(WTERMSIG(status));
	else if (WEXITSTATUS(status) > 2)
		*why = "an exit status other than 0, 1 or 2";
	else if (WEXITSTATUS(status) && strncmp(err_line, "Error: ", 7) &&
		 !contains(out, "\"error\":"))
		*why = "a failure without an 'Error: ' line or a JSON \"error\" key";
	else
		*why = NULL;
	close(out);
	close(err);
	if (*why)
		return FAILED;
	if (WIFSIGNALED(status))
		return PARSED;
	return WEXITSTATUS(status) == 2 ? REFUSED :
	       WEXITSTATUS(status) == 1 ? ERRORED : DONE;
}

/* Runs @first, @first + @step, ... below @count; outcomes counted in @out. */
static void worker(const char *prog, unsigned long seed, unsigned long first,
		   unsigned long step, unsigned long count, bool verbose,
		   unsigned long *out)
{
	char *args[MAX_WORDS + 2];
	const char *why;
	unsigned long i;
	int n, j, o;

	for (i = first; i < count; i += step) {
		/* Each run from its own seed: the same lines for any -j. */
		rng = (seed * 0x9e3779b97f4a7c15ULL) ^ (i * 0xbf58476d1ce4e5b9ULL) ^ 1;
		for (j = 0; j < 4; j++)
			rnd(2);
		n = gen(args + 1);
		o = run(prog, args, &why);
		__atomic_fetch_add(&out[o], 1, __ATOMIC_RELAXED);
		if (o == FAILED || verbose) {
			flockfile(stdout);
			printf("run %lu: %s:", i, why ?: outcome_names[o]);
			for (j = 1; j <= n; j++) {
				putchar(' ');
				quote(stdout, args[j]);
			}
			putchar('\n');
			fflush(stdout);
			funlockfile(stdout);
		}
		for (j = 1; j <= n; j++)
			free(args[j]);
	}
}

int main(int argc, char **argv)
{
	const char *usage = "usage: cli-fuzz [-v] [-j JOBS] [-n COUNT] [-s SEED] [-d DIR] PROG\n";
	unsigned long count = 10000, seed = 1, jobs = 1, k, *out;
	bool verbose = false;
	int c, status;

	while ((c = getopt(argc, argv, "n:s:d:j:v")) != -1) {
		switch (c) {
		case 'v':
			verbose = true;
			break;
		case 'j':
			jobs = strtoul(optarg, NULL, 10);
			break;
		case 'n':
			count = strtoul(optarg, NULL, 10);
			break;
		case 's':
			seed = strtoul(optarg, NULL, 10);
			break;
		case 'd':
			dir = optarg;
			break;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind != argc - 1 || !jobs || jobs > 64) {
		fputs(usage, stderr);
		return 2;
	}
	out = mmap(NULL, NR_OUTCOMES * sizeof(*out), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (out == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	memset(out, 0, NR_OUTCOMES * sizeof(*out));
	fflush(stdout);
	for (k = 0; k < jobs; k++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 2;
		}
		if (!pid) {
			worker(argv[optind], seed, k, jobs, count, verbose, out);
			_exit(0);
		}
	}
	for (k = 0; k < jobs; k++) {
		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			return 2;
	}
	printf("%lu runs: %lu refused, %lu parsed (stopped at bpf or setns), %lu errors, %lu done, %lu failed\n",
	       count, out[REFUSED], out[PARSED], out[ERRORED], out[DONE],
	       out[FAILED]);
	return out[FAILED] ? 1 : 0;
}
