// SPDX-License-Identifier: GPL-2.0
/* Targeted destruction: a syscall program looks a socket up by its tuple
 * in a namespace named by cookie, and destroys it; see
 * prog_tests/sock_lookup_netns.c.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "bpf_experimental.h"

char _license[] SEC("license") = "GPL";

struct sock_common *bpf_sock_lookup_netns(u64 netns_cookie,
					  struct bpf_sock_tuple *tuple,
					  u32 tuple__sz,
					  struct bpf_sock_lookup_opts *opts,
					  u32 opts__sz) __ksym;
void bpf_sock_release(struct sock_common *sock) __ksym;
int bpf_sock_destroy_sleepable(struct sock_common *sock) __ksym;

/* What to look up, set by the test. */
__u64 netns_cookie;
struct bpf_sock_tuple tuple;
bool v6;
int protocol;
__u32 ifindex;
bool destroy;

/*
 * What was found: its cookie (0: nothing), state, the lookup's error and
 * destroy's return.
 */
__u64 found_cookie;
int found_state;
int lookup_err;
int destroy_err;
/* From the bpf_wq callback: 1 nothing found, 2 a socket; its error. */
int wq_found;
int wq_err;

struct wq_elem {
	struct bpf_wq w;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct wq_elem);
} wq_map SEC(".maps");

static struct sock_common *lookup(int *err)
{
	struct bpf_sock_lookup_opts opts = {
		.l4proto = protocol,
		.ifindex = ifindex,
	};
	struct bpf_sock_tuple t = tuple;
	struct sock_common *sk;

	sk = bpf_sock_lookup_netns(netns_cookie, &t,
				   v6 ? sizeof(t.ipv6) : sizeof(t.ipv4),
				   &opts, sizeof(opts));
	*err = opts.error;
	return sk;
}

SEC("syscall")
int lookup_destroy(void *ctx)
{
	struct sock_common *sk = lookup(&lookup_err);

	found_cookie = 0;
	found_state = 0;
	destroy_err = 0;
	if (!sk)
		return 0;
	found_cookie = sk->skc_cookie.counter;
	found_state = sk->skc_state;
	if (destroy)
		destroy_err = bpf_sock_destroy_sleepable(sk);
	bpf_sock_release(sk);
	return 0;
}

/* Runs in a kworker, with no run context and not as the caller. */
static int wq_cb(void *map, int *key, void *value)
{
	struct sock_common *sk = lookup(&wq_err);

	if (sk)
		bpf_sock_release(sk);
	wq_found = sk ? 2 : 1;
	return 0;
}

SEC("syscall")
int lookup_from_wq(void *ctx)
{
	struct wq_elem *e;
	int key = 0;

	e = bpf_map_lookup_elem(&wq_map, &key);
	if (!e || bpf_wq_init(&e->w, &wq_map, 0) ||
	    bpf_wq_set_callback(&e->w, wq_cb, 0) || bpf_wq_start(&e->w, 0))
		return 1;
	return 0;
}
