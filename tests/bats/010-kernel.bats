#!/usr/bin/env bats
# The guest runs the kernel that was just built, with BTF and the in-tree
# bpftool.

load helpers

@test "guest runs the freshly built kernel" {
	local kbuild=${NETNS_ITER_KBUILD:-} want_version
	# tests/vm/run names the build directory of the image it booted.
	[ -n "$kbuild" ] || skip "the booted image is not in a kernel build tree (DIR/arch/x86/boot/bzImage)"
	run uname -r
	assert_success
	assert_output "$(cat "$kbuild/include/config/kernel.release")"
	# The build stamp (#N ... date) tells this build from an older one.
	want_version=$(sed -n 's/^#define UTS_VERSION "\(.*\)"$/\1/p' \
		"$kbuild/include/generated/utsversion.h")
	[ -n "$want_version" ] || fail "no UTS_VERSION in the build tree"
	run uname -v
	assert_output "$want_version"
}

@test "/proc/config.gz carries every fragment line" {
	local frag line missing= frags=("$TOP/Kconfig.fragment" "$TOP/tests/vm/vm.config" "$TOP/tests/vm/debug.config")
	# make check-kasan's kernel also carries tests/vm/kasan.config.
	zgrep -qx 'CONFIG_KASAN=y' /proc/config.gz && frags+=("$TOP/tests/vm/kasan.config")
	for frag in "${frags[@]}"; do
		while IFS= read -r line; do
			case "$line" in
			CONFIG_*=*) zgrep -qxF "$line" /proc/config.gz || missing+=" $line" ;;
			esac
		done < "$frag"
	done
	[ -z "$missing" ] || fail "missing from the running kernel's config:$missing"
}

@test "kernel BTF is present" {
	[ -s /sys/kernel/btf/vmlinux ]
	run "$BPFTOOL" btf dump file /sys/kernel/btf/vmlinux format raw
	assert_success
	assert_output --partial "STRUCT 'net'"
}

@test "in-tree bpftool runs and sees the BPF syscall" {
	run "$BPFTOOL" version
	assert_success
	assert_output --partial "libbpf v"
	run "$BPFTOOL" prog show
	assert_success
}

@test "debug options are live: lockdep is running" {
	[ -r /proc/lockdep_stats ] || fail "no /proc/lockdep_stats: PROVE_LOCKING is off"
	run grep -E 'debug_locks:[[:space:]]+1$' /proc/lockdep_stats
	assert_success
}
