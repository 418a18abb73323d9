// SPDX-License-Identifier: GPL-2.0
/*
 * What the running kernel and process can do, from the kernel's BTF and
 * the effective capabilities; and the probe verb, which says it per mode.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "netns-reap.h"

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

void probe_features(struct features *f)
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
	f->targeted = btf_has(btf, "bpf_sock_lookup_netns", BTF_KIND_FUNC);
	f->cap_bpf = have_cap(39 /* CAP_BPF */) || have_cap(21 /* CAP_SYS_ADMIN */);
	btf__free(btf);
}

/*
 * CAP_SYS_ADMIN in the initial user namespace, as the kernel judges it
 * (capable()), which is what BPF_PROG_GET_NEXT_ID asks; root in a user
 * namespace has CAP_SYS_ADMIN in CapEff too.
 */
static bool init_sys_admin(void)
{
	__u32 id;

	return bpf_prog_get_next_id(0, &id) != -EPERM;
}

/* Why @m cannot run here, or NULL if it can. */
const char *mode_missing(const struct features *f, enum reap_mode m)
{
	if (!f->btf)
		return "no kernel BTF (/sys/kernel/btf/vmlinux): build the kernel with CONFIG_DEBUG_INFO_BTF=y";
	if (!f->cap_bpf)
		return "missing capability: CAP_BPF (or CAP_SYS_ADMIN) is needed to load BPF programs; run as root";
	if (!f->destroy)
		return "kernel feature: no bpf_sock_destroy() kfunc (Linux 6.5 or later, CONFIG_INET)";
	switch (m) {
	case REAP_MODE_SETNS:
		if (!have_cap(21))
			return "missing capability: setns() into other namespaces needs CAP_SYS_ADMIN";
		return NULL;
	case REAP_MODE_NETNS_ARG:
		return f->netns_arg ? NULL :
		       "kernel feature: iter/tcp and iter/udp take no netns argument (netns-iter patch \"bpf: sock iterator netns argument\")";
	case REAP_MODE_GLOBAL:
		if (!f->global)
			return "kernel feature: no whole-host socket iterator (BPF_SOCK_ITER_ALL_NETNS, netns-iter patches)";
		if (!init_sys_admin())
			return "missing capability: the whole-host walk shows every namespace, so it needs CAP_SYS_ADMIN in the initial user namespace";
		return NULL;
	case REAP_MODE_CHAINED:
		if (!f->iter_netns)
			return "kernel feature: no iter/netns target (netns-iter patch \"bpf: Add netns iterator\")";
		return f->chained ? NULL :
		       "kernel feature: no bpf_iter_netns_sock_* kfuncs (netns-iter open-coded socket iterator patch)";
	case REAP_MODE_INDEX:
		if (!f->targeted)
			return "kernel feature: no bpf_sock_lookup_netns() kfunc (netns-iter patch \"bpf: look up and destroy sockets from syscall programs\")";
		if (!f->chained)
			return "kernel feature: no bpf_iter_netns_sock_* kfuncs, which seed the index with the sockets that exist when it starts";
		if (!init_sys_admin())
			return "missing capability: the index spans every namespace, so it needs CAP_SYS_ADMIN in the initial user namespace";
		return NULL;
	default:
		return NULL;
	}
}

int do_probe(void)
{
	static const enum reap_mode modes[] = {
		REAP_MODE_CHAINED, REAP_MODE_GLOBAL, REAP_MODE_NETNS_ARG,
		REAP_MODE_SETNS, REAP_MODE_INDEX,
	};
	enum reap_mode auto_mode;
	struct features f;
	unsigned int i;

	probe_features(&f);
	if (json_wtr) {
		jsonw_start_object(json_wtr);
		jsonw_name(json_wtr, "modes");
		jsonw_start_object(json_wtr);
	}
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		const char *why = mode_missing(&f, modes[i]);

		if (json_wtr) {
			jsonw_name(json_wtr, reap_mode_names[modes[i]]);
			jsonw_start_object(json_wtr);
			jsonw_bool_field(json_wtr, "supported", !why);
			jsonw_string_field(json_wtr, "reason", why);
			jsonw_end_object(json_wtr);
		} else {
			printf("%-10s %s%s%s\n", reap_mode_names[modes[i]],
			       why ? "no" : "yes", why ? ": " : "", why ?: "");
		}
	}
	auto_mode = mode_missing(&f, REAP_MODE_CHAINED) ? REAP_MODE_SETNS :
							  REAP_MODE_CHAINED;
	if (json_wtr) {
		jsonw_end_object(json_wtr);
		jsonw_string_field(json_wtr, "auto", reap_mode_names[auto_mode]);
		jsonw_end_object(json_wtr);
	} else {
		printf("auto picks: %s\n", reap_mode_names[auto_mode]);
	}
	return EXIT_OK;
}
