# netns-iter: build a patched Linux 7.3, its libbpf and bpftool, the BPF
# programs and netns-reap, and test them in a QEMU guest.
#
#   make demo      boot the guest and run the built-in scenario
#   make check     host tests, the bats suite inside the guest, upstream-check
#   make stress    the stress test for DURATION seconds (default 600)
#   make fuzz      netns-reap under ASan on 10,000 generated command lines
#   make check-kasan  the kernel-facing guest tests on a KASAN kernel
#   make bench     the benchmark matrix on a kernel without debugging
#                  (build/kbuild-bench): results/, docs/BENCHMARKS.md
#   make bench-scale  the RFC's table: 100 namespaces, 100 to 1M sockets, and the index's price
#   make bench-section  how long the chained walk holds its RCU section
#   make bench-calibrate  the emulator's factor per cost, against this machine's kernel
#   make patches   the upstream series and cover letter in build/patches
#   make patches-check  apply the series one patch at a time and build it
#   make upstream-check  upstream's verifier and iterator tests, patched
#                  kernel against the unpatched one (make check runs it)
#   make upstream-baseline  run them on the unpatched kernel and commit its
#                  results (tests/upstream-baseline) for upstream-check
#   make kernel    only (re)build the patched kernel
#   make help      everything else
#
# KERNEL_SRC=DIR builds another 7.3 tree instead of Debian's linux-source-7.3.
# make check-kasan runs the kernel-facing guest files on the debug kernel
# with inline KASAN added, built in its own directory (build/kbuild-kasan).

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD ?= $(TOP)/build
KERNEL_SRC ?=
JOBS ?= $(shell nproc)

SRC := $(BUILD)/src
KBUILD := $(BUILD)/kbuild
KASAN_KBUILD := $(BUILD)/kbuild-kasan
BENCH_KBUILD := $(BUILD)/kbuild-bench
BENCH_BZIMAGE := $(BENCH_KBUILD)/arch/x86/boot/bzImage
TOOLS := $(BUILD)/tools
LIBBPF_OUT := $(TOOLS)/libbpf
LIBBPF_PREFIX := $(TOOLS)/libbpf-install
LIBBPF_A := $(LIBBPF_PREFIX)/lib/libbpf.a
BPFTOOL_OUT := $(TOOLS)/bpftool
BPFTOOL := $(BPFTOOL_OUT)/bpftool
OBJ := $(BUILD)/obj
BIN := $(BUILD)/bin
VMLINUX_H := $(OBJ)/vmlinux.h
BZIMAGE := $(KBUILD)/arch/x86/boot/bzImage

CLANG ?= clang-16
LLVM_STRIP ?= llvm-strip-16
CC ?= cc

FRAGMENTS := $(TOP)/Kconfig.fragment $(TOP)/tests/vm/vm.config \
	     $(TOP)/tests/vm/debug.config
KASAN_FRAGMENTS := $(FRAGMENTS) $(TOP)/tests/vm/kasan.config
BENCH_FRAGMENTS := $(TOP)/Kconfig.fragment $(TOP)/tests/vm/vm.config \
		   $(TOP)/tests/vm/bench.config

# Kernel builds compile through ccache (scripts/packages.txt), with its
# cache beside the kernel tarball's: the same object built again, in this
# or any other clone's build directory, is a hit.  A clean clone on a
# machine that built the kernel before builds it in minutes, not 18.
# KENV puts ccache's gcc first in PATH for kbuild and patches-check.sh;
# pristine-kernel.sh, which tests/upstream-compare also runs, does the same
# itself when CCACHE_DIR is set.  The base directory is the build directory's
# physical path, as kbuild resolves the tree's.
CACHE := $(or $(NETNS_ITER_CACHE),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/netns-iter)
export CCACHE_DIR := $(CACHE)/ccache
export CCACHE_BASEDIR := $(shell cd $(BUILD) 2>/dev/null && pwd -P || echo $(BUILD))
export CCACHE_NOHASHDIR := 1
export CCACHE_MAXSIZE := 12G
KENV := PATH=/usr/lib/ccache:$$PATH

# $(call kmake,O) runs kbuild with its objects in O.
kmake = $(KENV) $(MAKE) -C $(SRC) O=$(1) ARCH=x86_64 -j$(JOBS)
KMAKE := $(call kmake,$(KBUILD))

# $(call kconfig,O,FRAGMENTS...): tinyconfig plus the fragments in O, or fail
# naming the options a fragment asks for and the .config lacks.
define kconfig
	@mkdir -p $(1)
	@$(call kmake,$(1)) -s tinyconfig >/dev/null
	@cd $(SRC) && ./scripts/kconfig/merge_config.sh -m -O $(1) $(1)/.config $(2) >/dev/null
	@$(call kmake,$(1)) -s olddefconfig
	@$(TOP)/scripts/check-config.sh $(1)/.config $(2) || { rm -f $(1)/.config; exit 1; }
endef
TOOLMAKE := $(MAKE) -j$(JOBS) CLANG=$(CLANG) LLVM_STRIP=$(LLVM_STRIP)

BPF_SRCS := $(wildcard $(TOP)/bpf/*.bpf.c)
BPF_OBJS := $(patsubst $(TOP)/bpf/%.bpf.c,$(OBJ)/%.bpf.o,$(BPF_SRCS))
BPF_SKELS := $(patsubst $(TOP)/bpf/%.bpf.c,$(OBJ)/%.skel.h,$(BPF_SRCS))
BPF_CFLAGS := -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_x86 \
	      -fms-extensions -Wno-microsoft-anon-tag \
	      -I$(OBJ) -I$(LIBBPF_PREFIX)/include -I$(TOP)/bpf

USER_CFLAGS := -O2 -g -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE \
	       -I$(OBJ) -I$(LIBBPF_PREFIX)/include -I$(TOP)/tools -I$(TOP)/bpf \
	       -I$(SRC)/tools/include/uapi
USER_LDLIBS := $(LIBBPF_A) -lelf -lz

VERSION := $(shell git -C $(TOP) describe --always --dirty 2>/dev/null || echo unknown)

.PHONY: all help deps tree bench-tree config kernel bench-kernel tools progs demo check check-kasan fuzz stress bench bench-empty bench-scale bench-section bench-calibrate bench-smoke \
	patches patches-check clean distclean

# Each stage is a make of its own, so that later stages see what the earlier
# ones produced; kbuild, libbpf and bpftool rebuild only what changed.
all:
	@$(MAKE) --no-print-directory kernel
	@$(MAKE) --no-print-directory tools
	@$(MAKE) --no-print-directory progs
	@$(MAKE) --no-print-directory selftests

help:
	@sed -n '2,/^[^#]/s/^# \{0,1\}//p' $(TOP)/Makefile

deps:
	@$(TOP)/scripts/install-deps.sh

# The tree is brought to pristine + kernel/patches + kernel/FILES on every
# build; only files whose contents change are rewritten.
tree: deps
	@$(TOP)/scripts/prepare-tree.sh $(SRC) $(KERNEL_SRC)
	@echo "Kernel source: $$(cat $(SRC)/.git/netns-iter-source)"

$(KBUILD)/.config: $(FRAGMENTS) $(TOP)/scripts/check-config.sh | tree
	$(call kconfig,$(KBUILD),$(FRAGMENTS))

$(KASAN_KBUILD)/.config: $(KASAN_FRAGMENTS) $(TOP)/scripts/check-config.sh | tree
	$(call kconfig,$(KASAN_KBUILD),$(KASAN_FRAGMENTS))

# The benchmarks' kernel: the same tree without the debug options, in its
# own build directory, rebuilt incrementally like the test kernel, and
# with kernel/bench/ on top: the counters of the work socket walks do
# (CONFIG_SOCK_WALK_STATS), off but for netns-bench's counted runs.  The
# tree goes back to the series at the next make tree; the files the bench
# patch touches then recompile in each kernel once per switch.
bench-tree: deps
	@$(TOP)/scripts/prepare-tree.sh --bench $(SRC) $(KERNEL_SRC)

$(BENCH_KBUILD)/.config: $(BENCH_FRAGMENTS) $(TOP)/scripts/check-config.sh | bench-tree
	$(call kconfig,$(BENCH_KBUILD),$(BENCH_FRAGMENTS))

bench-kernel: bench-tree $(BENCH_KBUILD)/.config
	@$(call kmake,$(BENCH_KBUILD)) -s bzImage
	@echo "Bench kernel: $$(cat $(BENCH_KBUILD)/include/config/kernel.release) ($(BENCH_BZIMAGE))"

config: tree $(KBUILD)/.config

kernel: config
	@$(KMAKE) -s bzImage
	@echo "Kernel: $$(cat $(KBUILD)/include/config/kernel.release) ($(BZIMAGE))"

# libbpf and bpftool from the same tree.  install -C leaves unchanged
# headers alone, so nothing downstream rebuilds for nothing.
tools:
	@mkdir -p $(LIBBPF_OUT) $(BPFTOOL_OUT)
	@$(TOOLMAKE) -s -C $(SRC)/tools/lib/bpf OUTPUT=$(LIBBPF_OUT)/ \
		DESTDIR=$(LIBBPF_PREFIX) prefix= libdir_relative=lib INSTALL='install -C' \
		install_headers install_lib >/dev/null
	@$(TOOLMAKE) -s -C $(SRC)/tools/bpf/bpftool OUTPUT=$(BPFTOOL_OUT)/ \
		VMLINUX_BTF=$(KBUILD)/vmlinux SKIP_LLVM=1 SKIP_LIBBFD=1 >/dev/null
	@echo "bpftool: $$($(BPFTOOL) version | head -n1)"

# vmlinux.h comes from the vmlinux just built, never from the host's BTF.
$(VMLINUX_H): $(KBUILD)/vmlinux
	@mkdir -p $(OBJ)
	@$(BPFTOOL) btf dump file $(KBUILD)/vmlinux format c > $@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; echo "  GEN     vmlinux.h"; fi

$(OBJ)/%.bpf.o: $(TOP)/bpf/%.bpf.c $(VMLINUX_H) $(wildcard $(TOP)/bpf/*.h) $(LIBBPF_A)
	@echo "  CLANG   $(notdir $@)"
	@$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OBJ)/%.skel.h: $(OBJ)/%.bpf.o
	@$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

# netns-reap, one file per verb; walk.c is also linked into netns-bench, so
# the benchmark reads and attaches iterators with the tool's code.
REAP_SRCS := $(addprefix $(TOP)/tools/,netns-reap.c sockets.c netns.c probe.c \
	       index.c walk.c json_writer.c)
REAP_DEPS := $(wildcard $(TOP)/tools/*.h) $(TOP)/bpf/reap.h $(TOP)/bpf/index.h \
	     $(OBJ)/reap.skel.h $(OBJ)/index.skel.h $(LIBBPF_A)

$(BIN)/netns-reap: $(REAP_SRCS) $(REAP_DEPS)
	@mkdir -p $(BIN)
	@echo "  CC      $(notdir $@)"
	@$(CC) $(USER_CFLAGS) -I$(TOP)/tools -DNETNS_REAP_VERSION='"$(VERSION)"' \
		$(REAP_SRCS) -o $@ $(USER_LDLIBS)

# The same tool with AddressSanitizer and UBSan, for tests/cli-fuzz.
$(BIN)/netns-reap-asan: $(REAP_SRCS) $(REAP_DEPS)
	@mkdir -p $(BIN)
	@echo "  CC      $(notdir $@)"
	@$(CC) $(USER_CFLAGS) -I$(TOP)/tools -DNETNS_REAP_VERSION='"$(VERSION)"' \
		-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
		$(REAP_SRCS) -o $@ $(USER_LDLIBS)

# Test helper: runs a program on generated command lines (the system's
# seccomp.h, not the tree's tools/include copy).
$(BIN)/cli-fuzz: $(TOP)/tests/cli-fuzz.c
	@mkdir -p $(BIN)
	@echo "  CC      $(notdir $@)"
	@$(CC) -O2 -g -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE $< -o $@

# Test helper: raw links and dumps, to see what the kernel itself does.
$(BIN)/iterlink: $(TOP)/tests/iterlink.c $(TOP)/tools/walk.c $(REAP_DEPS)
	@mkdir -p $(BIN)
	@echo "  CC      $(notdir $@)"
	@$(CC) $(USER_CFLAGS) -I$(TOP)/tools $< $(TOP)/tools/walk.c -o $@ $(USER_LDLIBS)

$(BIN)/netns-bench: $(addprefix $(TOP)/bench/,netns-bench.c kcount.c kcount.h world.h) $(TOP)/tools/walk.c $(REAP_DEPS)
	@mkdir -p $(BIN)
	@echo "  CC      $(notdir $@)"
	@$(CC) $(USER_CFLAGS) -I$(TOP)/tools $< $(TOP)/bench/kcount.c $(TOP)/tools/walk.c -o $@ $(USER_LDLIBS)

# The demo's servers and clients, one process each.
$(BIN)/demo-scene: $(TOP)/scripts/demo-scene.c
	@mkdir -p $(BIN)
	@echo "  CC      $(notdir $@)"
	@$(CC) $(USER_CFLAGS) $< -o $@

# Test helper: holds a world of sockets across namespaces.
$(BIN)/sockworld: $(TOP)/tests/sockworld.c $(TOP)/bench/world.h
	@mkdir -p $(BIN)
	@echo "  CC      $(notdir $@)"
	@$(CC) $(USER_CFLAGS) $< -o $@

# Test helper: TCP and UDP churn in a namespace, for the stress test.
$(BIN)/stress-churn: $(TOP)/tests/stress-churn.c
	@mkdir -p $(BIN)
	@echo "  CC      $(notdir $@)"
	@$(CC) $(USER_CFLAGS) $< -o $@

# A kernel older than the netns argument, as a careful caller sees it.
$(BIN)/old-kernel-link-info.so: $(TOP)/tests/old-kernel-link-info.c
	@mkdir -p $(BIN)
	@echo "  CC      $(notdir $@)"
	@$(CC) $(USER_CFLAGS) -fPIC -shared $< -o $@ -ldl

# Stops a command at the Nth open() of a path until the test lets it go.
$(BIN)/pause-at-open.so: $(TOP)/tests/pause-at-open.c
	@mkdir -p $(BIN)
	@echo "  CC      $(notdir $@)"
	@$(CC) $(USER_CFLAGS) -fPIC -shared $< -o $@ -ldl

# Fails reads of BPF iterators with EAGAIN, as MAX_ITER_OBJECTS does.
$(BIN)/iter-eagain.so: $(TOP)/tests/iter-eagain.c
	@mkdir -p $(BIN)
	@echo "  CC      $(notdir $@)"
	@$(CC) $(USER_CFLAGS) -fPIC -shared $< -o $@ -ldl

progs: $(BPF_OBJS) $(BPF_SKELS) $(BIN)/netns-reap $(BIN)/iterlink $(BIN)/netns-bench \
       $(BIN)/old-kernel-link-info.so $(BIN)/pause-at-open.so $(BIN)/iter-eagain.so \
       $(BIN)/sockworld $(BIN)/demo-scene $(BIN)/netns-reap-asan $(BIN)/cli-fuzz \
       $(BIN)/stress-churn

# Environment the tests and the guest see.
export NETNS_ITER_TOP := $(TOP)
export NETNS_ITER_BUILD := $(BUILD)
export BPFTOOL
export BZIMAGE

# Pods in the demo's scene.
DEMO_PODS ?= 50
demo: all
	$(TOP)/tests/vm/run -- env DEMO_PODS=$(DEMO_PODS) $(TOP)/scripts/demo.sh

# tests/upstream-compare builds the unpatched kernel only when the
# committed baseline does not apply (tests/upstream.mk).
check: all patches-check
	@$(TOP)/tests/run-all

# The upstream series: git format-patch against the pristine tree, one
# patch per line of kernel/series/series, checked with checkpatch.pl.
PATCHES ?= $(BUILD)/patches
patches: tree
	@$(TOP)/scripts/mkseries.sh $(SRC) $(PATCHES)

# Each patch applied in turn to a worktree of the pristine tree, the
# objects it touches compiled, the whole kernel built at the end.
patches-check: patches config
	@$(KENV) $(TOP)/scripts/patches-check.sh $(SRC) $(PATCHES) $(BUILD)/patches-check $(KBUILD)/.config

# The full matrix in the guest, then CSV, plots and docs/BENCHMARKS.md.
RESULTS ?= $(TOP)/results
# The socket cap keeps a TCG run under 30 minutes; see docs/BENCHMARKS.md.
BENCH_ARGS ?= --cap 16000 --cap-child 25600 --cap-reap 6400 --max-m-shared 256
# What the guest was, into the results: kernel, QEMU accelerator, CPUs,
# memory, the debug options that must be off (bench.config) and the table
# sizes.  guest_config goes first in the guest: a bench kernel without
# /proc/config.gz stops the run before it starts, rather than being
# recorded with every option "not set".
BENCH_OFF := LOCKDEP PROVE_LOCKING PROVE_RCU KASAN DEBUG_ATOMIC_SLEEP DEBUG_KMEMLEAK \
	     SLUB_TINY CC_OPTIMIZE_FOR_SIZE BASE_SMALL
guest_config = { [ -r /proc/config.gz ] || \
	  { echo "Error: the bench kernel has no /proc/config.gz (CONFIG_IKCONFIG_PROC)" >&2; exit 1; }; }
guest_info = { uname -r; grep -o "netns_iter.accel=[a-z]*" /proc/cmdline || true; \
	  echo "cpus: $$(nproc)"; grep MemTotal /proc/meminfo; \
	  for o in $(BENCH_OFF); do zgrep -E "^(\# )?CONFIG_$$o[= ]" /proc/config.gz || \
		echo "\# CONFIG_$$o is not set"; done; \
	  sysctl net.ipv4.tcp_ehash_entries net.ipv4.udp_hash_entries; \
	  dmesg | grep -o -e "tcp_listen_portaddr_hash hash table entries: [0-9]*" \
		-e "Hash tables configured (established [0-9]* bind [0-9]*)" || true; } > $(1)
bench: all
	@$(MAKE) --no-print-directory bench-kernel
	@rm -rf $(RESULTS) && mkdir -p $(RESULTS)
	$(TOP)/tests/vm/run -k $(BENCH_BZIMAGE) -m 6G -t 3600 -- sh -c '$(guest_config) && \
		$(BIN)/netns-bench $(BENCH_ARGS) --out $(RESULTS) && \
		$(call guest_info,$(RESULTS)/guest.txt)'
	$(TOP)/bench/report.sh $(RESULTS) $(TOP)/docs $(TOP)/README.md

# Namespaces with no socket: what a namespace costs in memory (netns-bench
# --memory, in a guest of its own: no namespace freed yet) and to each
# design (--fixed), what one hash bucket costs each design (--empty), and a
# profile of the TCP walk; refreshes those sections of docs/BENCHMARKS.md
# from the committed matrix.
EMPTY_M ?= 64
FIXED_M ?= 16,64,256,1024
MEMORY_M ?= 1024
bench-empty: all
	@$(MAKE) --no-print-directory bench-kernel
	@rm -rf $(RESULTS) && mkdir -p $(RESULTS)
	@cp $(TOP)/docs/bench/results.csv $(TOP)/docs/bench/guest.txt $(TOP)/docs/bench/world.txt $(RESULTS)/
	$(TOP)/tests/vm/run -k $(BENCH_BZIMAGE) -m 6G -- $(BIN)/netns-bench --memory $(MEMORY_M) --out $(RESULTS)
	$(TOP)/tests/vm/run -k $(BENCH_BZIMAGE) -m 6G -- $(BIN)/netns-bench --fixed $(FIXED_M) --out $(RESULTS)
	$(TOP)/tests/vm/run -k $(BENCH_BZIMAGE) -m 6G -- sh -c '$(guest_config) && \
		$(BIN)/netns-bench --empty $(EMPTY_M) --reps 9 --out $(RESULTS) && \
		$(call guest_info,$(RESULTS)/guest-empty.txt) && \
		perf record -q -e cpu-clock -a -g -o /tmp/empty.perf -- \
			$(BIN)/netns-bench --empty 16 --reps 3 --proto tcp --out /tmp/empty-profile >/dev/null && \
		{ perf report -i /tmp/empty.perf --no-children --comm netns-bench --sort sym \
			-g none --stdio 2>/dev/null | grep "%.*\[k\]" | head -n 8; echo; \
		  perf report -i /tmp/empty.perf --children --comm netns-bench --sort sym \
			-g none --stdio 2>/dev/null | grep -E "%.*\] (bpf_iter_tcp_batch|established_get_first|listening_get_first|bpf_iter_netns_sock_next|bpf_iter_tcp_seq_next) *$$"; \
		} > $(RESULTS)/profile-empty-tcp.txt'
	$(TOP)/bench/report.sh $(RESULTS) $(TOP)/docs $(TOP)/README.md

# The RFC's table (netns-bench --scale): 100 namespaces holding SCALE_N
# sockets in all, UDP and TCP, shared and child tables, every design with
# the index; then what the index costs a connect (netns-bench --connect,
# CONNECT_K connections a repetition); refreshes those sections of
# docs/BENCHMARKS.md from the committed matrix.  SCALE_MEM is the guest's
# memory: 1M TCP sockets and the index need about N GB.  SCALE_TABLES
# boots the guest with the shared tables a host of 128 GB or more gets by
# default (the TCP established hash is capped at 2^19 slots, UDP's at
# 2^16), as production nodes have, not the guest's 12 GB worth
# (2^17 and 2^13): every per-namespace walk visits all of them.
SCALE_N ?= 100,1000,10000,100000,1000000
SCALE_MEM ?= 12G
SCALE_TABLES ?= thash_entries=524288 uhash_entries=65536
SCALE_REPS ?= 7
CONNECT_K ?= 2000
CONNECT_REPS ?= 15
bench-scale: all
	@$(MAKE) --no-print-directory bench-kernel
	@rm -rf $(RESULTS) && mkdir -p $(RESULTS)
	@cp $(TOP)/docs/bench/results.csv $(TOP)/docs/bench/guest.txt $(TOP)/docs/bench/world.txt $(RESULTS)/
	$(TOP)/tests/vm/run -k $(BENCH_BZIMAGE) -m $(SCALE_MEM) -t 7200 -a "$(SCALE_TABLES)" -- sh -c \
		'$(guest_config) && $(BIN)/netns-bench --scale $(SCALE_N) --reps $(SCALE_REPS) --out $(RESULTS) && \
		$(BIN)/netns-bench --connect $(CONNECT_K) --reps $(CONNECT_REPS) --out $(RESULTS) && \
		$(call guest_info,$(RESULTS)/guest-scale.txt)'
	$(TOP)/bench/report.sh $(RESULTS) $(TOP)/docs $(TOP)/README.md

# The emulator's factor per cost (netns-bench --calibrate CAL_M): what a
# hash bucket, a socket and a namespace cost the setns loop's iter/tcp and
# iter/udp and sock_diag, natively on this machine's own kernel (which
# has them) and in the guest on the bench kernel, on the same worlds;
# host.txt records the native kernel and CPU.  Refreshes that section of
# docs/BENCHMARKS.md from the committed matrix.
CAL_M ?= 64
CAL_REPS ?= 9
bench-calibrate: all
	@$(MAKE) --no-print-directory bench-kernel
	@rm -rf $(RESULTS) && mkdir -p $(RESULTS)/native
	@cp $(TOP)/docs/bench/results.csv $(TOP)/docs/bench/guest.txt $(TOP)/docs/bench/world.txt $(RESULTS)/
	$(BIN)/netns-bench --calibrate $(CAL_M) --reps $(CAL_REPS) --out $(RESULTS)/native
	{ uname -r; echo "cpus: $$(nproc)"; grep -m1 'model name' /proc/cpuinfo; \
	  echo "command: make bench-calibrate CAL_M=$(CAL_M) CAL_REPS=$(CAL_REPS)"; } > $(RESULTS)/host.txt
	$(TOP)/tests/vm/run -k $(BENCH_BZIMAGE) -m 6G -t 3600 -- \
		$(BIN)/netns-bench --calibrate $(CAL_M) --reps $(CAL_REPS) --out $(RESULTS)
	tail -n +2 $(RESULTS)/native/calibration.csv >> $(RESULTS)/calibration.csv
	$(TOP)/bench/report.sh $(RESULTS) $(TOP)/docs $(TOP)/README.md

# How long the chained walk holds the tasks-trace RCU read lock and
# migration disabled: one namespace of SECTION_N sockets (netns-bench
# --section); refreshes that section of docs/BENCHMARKS.md from the
# committed matrix.
SECTION_N ?= 1000,10000,100000
SECTION_REPS ?= 7
bench-section: all
	@$(MAKE) --no-print-directory bench-kernel
	@rm -rf $(RESULTS) && mkdir -p $(RESULTS)
	@cp $(TOP)/docs/bench/results.csv $(TOP)/docs/bench/guest.txt $(TOP)/docs/bench/world.txt $(RESULTS)/
	$(TOP)/tests/vm/run -k $(BENCH_BZIMAGE) -m 6G -t 3600 -- sh -c \
		'$(guest_config) && $(BIN)/netns-bench --section $(SECTION_N) --reps $(SECTION_REPS) --out $(RESULTS) && \
		$(call guest_info,$(RESULTS)/guest-section.txt)'
	$(TOP)/bench/report.sh $(RESULTS) $(TOP)/docs $(TOP)/README.md

# The kernel-facing guest files (the netns and socket iterators, the
# selftests, stress and faults) on the KASAN kernel, with three times the
# guest timeouts; the rest of make check does not change with KASAN.
# make check-kasan KASAN_FILES="$(cd tests/bats && echo [0-9]*.bats |
# sed 's/\.bats//g')" runs every guest file.  The KASAN kernel boots with
# kmemleak=off (VM_APPEND adds to that): make check runs kmemleak on the
# same code, and kmemleak alone makes a guest file about twice as slow.
KASAN_FILES ?= 020-netns-iter 030-sock-iter 050-selftests 060-stress 070-faults
check-kasan: all
	@$(MAKE) --no-print-directory $(KASAN_KBUILD)/.config
	@$(call kmake,$(KASAN_KBUILD)) -s bzImage
	@echo "KASAN kernel: $(KASAN_KBUILD)/arch/x86/boot/bzImage"
	BZIMAGE=$(KASAN_KBUILD)/arch/x86/boot/bzImage GUEST_FILES="$(KASAN_FILES)" \
		VM_APPEND="kmemleak=off $(VM_APPEND)" GUEST_TIMEOUT_SCALE=3 $(TOP)/tests/run-all --guest-only

# netns-reap under ASan on FUZZ_N generated command lines; make check runs
# 2,000 of them, this the 10,000 the fuzzer was tuned on (about 7 minutes).
FUZZ_N ?= 10000
fuzz: tools $(BIN)/netns-reap-asan $(BIN)/cli-fuzz
	FUZZ_N=$(FUZZ_N) bats $(TOP)/tests/host/025-netns-reap-fuzz.bats

# The stress test (tests/bats/060-stress.bats) for DURATION seconds; make
# check runs it for 60.
DURATION ?= 600
stress: all
	STRESS_SECONDS=$(DURATION) $(TOP)/tests/vm/run -t $$(($(DURATION) * 2 + 300)) -- \
		bats --tap $(TOP)/tests/bats/060-stress.bats

bench-smoke: all
	$(TOP)/tests/vm/run -- $(BIN)/netns-bench --smoke --out /tmp/bench-smoke

clean:
	rm -rf $(OBJ) $(BIN) $(TOOLS)
	-$(KMAKE) -s clean

distclean:
	rm -rf $(BUILD)

include $(TOP)/tests/selftests.mk
include $(TOP)/tests/upstream.mk
