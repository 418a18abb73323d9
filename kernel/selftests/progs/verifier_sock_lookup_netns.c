// SPDX-License-Identifier: GPL-2.0
/* What the verifier refuses of bpf_sock_lookup_netns(), bpf_sock_release()
 * and bpf_sock_destroy_sleepable(): a reference leaked or used after its
 * release, a destroy where the program cannot sleep, and the kfuncs in a
 * program that is not a syscall program.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "bpf_misc.h"

char _license[] SEC("license") = "GPL";

struct sock_common *bpf_sock_lookup_netns(u64 netns_cookie,
					  struct bpf_sock_tuple *tuple,
					  u32 tuple__sz,
					  struct bpf_sock_lookup_opts *opts,
					  u32 opts__sz) __ksym;
void bpf_sock_release(struct sock_common *sock) __ksym;
int bpf_sock_destroy_sleepable(struct sock_common *sock) __ksym;

__u64 netns_cookie;

static struct sock_common *lookup(struct bpf_sock_tuple *t)
{
	struct bpf_sock_lookup_opts opts = { .l4proto = IPPROTO_TCP };

	return bpf_sock_lookup_netns(netns_cookie, t, sizeof(t->ipv4), &opts,
				     sizeof(opts));
}

SEC("syscall")
__success
int lookup_release(void *ctx)
{
	struct bpf_sock_tuple t = {};
	struct sock_common *sk = lookup(&t);

	if (sk) {
		bpf_sock_destroy_sleepable(sk);
		bpf_sock_release(sk);
	}
	return 0;
}

SEC("syscall")
__failure __msg("Unreleased reference")
int lookup_leak(void *ctx)
{
	struct bpf_sock_tuple t = {};

	lookup(&t);
	return 0;
}

SEC("syscall")
__failure __msg("R1 is scalar expected STRUCT sock_common")
int destroy_after_release(void *ctx)
{
	struct bpf_sock_tuple t = {};
	struct sock_common *sk = lookup(&t);

	if (!sk)
		return 0;
	bpf_sock_release(sk);
	return bpf_sock_destroy_sleepable(sk);
}

SEC("syscall")
__failure __msg("Possibly NULL pointer passed to trusted R1")
int destroy_unchecked(void *ctx)
{
	struct bpf_sock_tuple t = {};
	struct sock_common *sk = lookup(&t);
	int err;

	err = bpf_sock_destroy_sleepable(sk);
	if (sk)
		bpf_sock_release(sk);
	return err;
}

SEC("syscall")
__failure __msg("sleepable within rcu_read_lock region")
int destroy_in_rcu(void *ctx)
{
	struct bpf_sock_tuple t = {};
	struct sock_common *sk = lookup(&t);
	int err;

	if (!sk)
		return 0;
	bpf_rcu_read_lock();
	err = bpf_sock_destroy_sleepable(sk);
	bpf_rcu_read_unlock();
	bpf_sock_release(sk);
	return err;
}

SEC("tc")
__failure __msg("calling kernel function bpf_sock_lookup_netns is not allowed")
int lookup_from_tc(struct __sk_buff *skb)
{
	struct bpf_sock_tuple t = {};
	struct sock_common *sk = lookup(&t);

	if (sk)
		bpf_sock_release(sk);
	return 0;
}
