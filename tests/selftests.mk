# A subset of the kernel's BPF selftests runner, test_progs, built from the
# prepared tree (tools/testing/selftests/bpf) with clang-16, the in-tree
# libbpf and bpftool, and the vmlinux.h of the kernel just built:
#
#   make selftests      build/selftests/test_progs
#
# The whole upstream test_progs cannot build here (arena programs need
# clang 18, several tests need modules the guest kernel does not have), so
# this runner holds only the tests in SELFTESTS: upstream's test_progs.c
# and helpers, a tests.h naming just those tests, and only the BPF objects
# and skeletons they include.  Included from the top-level Makefile, whose
# variables it uses.  tests/bats/050-selftests.bats runs it in the guest.

SELFTESTS ?= netns_iter sock_iter_batch sock_destroy bpf_iter

ST_SRC := $(SRC)/tools/testing/selftests/bpf
ST_OUT := $(BUILD)/selftests
ST_TEST_SRCS := $(patsubst %,$(ST_SRC)/prog_tests/%.c,$(SELFTESTS))

# Helpers linked into upstream's test_progs, less xsk.c and the usdt
# objects, which only tests left out here use.
ST_HELPERS := test_progs cgroup_helpers trace_helpers network_helpers \
	      testing_helpers btf_helpers cap_helpers unpriv_helpers \
	      sysctl_helpers netlink_helpers jit_disasm_helpers io_helpers \
	      test_loader disasm disasm_helpers json_writer bpftool_helpers
ST_HELPER_OBJS := $(patsubst %,$(ST_OUT)/%.o,$(ST_HELPERS)) $(ST_OUT)/find_bit.o
ST_TEST_OBJS := $(patsubst %,$(ST_OUT)/%.test.o,$(SELFTESTS))

# The skeletons the tests include, read from their sources.
ST_SKEL_NAMES = $(sort $(shell sed -n 's/^\#include "\(.*\)\.skel\.h"/\1/p' \
			$(ST_TEST_SRCS) 2>/dev/null))
ST_SKELS = $(patsubst %,$(ST_OUT)/%.skel.h,$(ST_SKEL_NAMES))
ST_BPF_OBJS = $(patsubst %,$(ST_OUT)/%.bpf.o,$(ST_SKEL_NAMES))

# Upstream's CFLAGS (with lib.mk's -D_GNU_SOURCE=) and BPF_CFLAGS (see
# tools/testing/selftests/bpf/Makefile),
# with $(LIBBPF_PREFIX)/include as INCLUDE_DIR and $(ST_OUT) first, for
# tests.h and the skeletons.
ST_CFLAGS := -g -O0 -rdynamic -std=gnu11 -Wall -Werror -fno-omit-frame-pointer \
	     -Wno-unused-but-set-variable -D_GNU_SOURCE= \
	     -I$(ST_OUT) -I$(ST_SRC) -I$(LIBBPF_PREFIX)/include -I$(SRC)/tools/lib \
	     -I$(SRC)/tools/include -I$(SRC)/tools/arch/x86/include \
	     -I$(SRC)/tools/include/uapi -I$(ST_SRC)/libarena/include
ST_LDLIBS := $(LIBBPF_A) -lelf -lz -lrt -lpthread
# clang's system include directories, as upstream's get_sys_includes; asked
# once, and only when a BPF object is built.
ST_CLANG_SYS = $(eval ST_CLANG_SYS := $(shell $(CLANG) -v -E - </dev/null 2>&1 | \
	sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }'))$(ST_CLANG_SYS)
ST_BPF_CFLAGS = -g -O2 -Wall -Werror -D__TARGET_ARCH_x86 -mlittle-endian \
	--target=bpfel -mcpu=v3 -DENABLE_ATOMICS_TESTS \
	-I$(dir $(VMLINUX_H)) -I$(LIBBPF_PREFIX)/include -I$(ST_SRC) \
	-I$(SRC)/tools/include/uapi -I$(SRC)/tools/include \
	-I$(ST_SRC)/libarena/include -std=gnu11 -fno-strict-aliasing \
	-Wno-microsoft-anon-tag -fms-extensions \
	-Wno-compare-distinct-pointer-types -Wno-initializer-overrides \
	$(ST_CLANG_SYS)

.PHONY: selftests selftests-build
.SECONDARY: $(ST_SKELS) $(ST_BPF_OBJS)

# The tree first, in a make of its own, so that the list of skeletons is
# read from the prepared sources.
selftests: tree
	@$(MAKE) --no-print-directory selftests-build

selftests-build: $(ST_OUT)/test_progs

$(ST_OUT)/.dir:
	@mkdir -p $(ST_OUT)/prog_tests && touch $@

# Only the tests of this runner; rewritten only when the list changes.
$(ST_OUT)/prog_tests/tests.h: $(ST_TEST_SRCS) $(TOP)/tests/selftests.mk | $(ST_OUT)/.dir
	@{ echo '/* Generated header, do not edit */'; \
	  sed -n -E 's/^void (serial_)?test_([a-zA-Z0-9_]+)\((void)?\).*/DEFINE_TEST(\2)/p' \
		$(ST_TEST_SRCS) | sort; } > $@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; echo "  GEN     selftests tests.h"; fi

# test_progs registers a certificate for signed light skeletons at start.
$(ST_OUT)/verification_cert.h: $(ST_SRC)/verify_sig_setup.sh | $(ST_OUT)/.dir
	@$(ST_SRC)/verify_sig_setup.sh genkey $(ST_OUT) >/dev/null
	@{ echo "unsigned char test_progs_verification_cert[] = {"; \
	   od -v -t 'xC' -w12 $(ST_OUT)/signing_key.der | \
		sed 's/ \(\S\+\)/ 0x\1,/g;s/^\S\+/ /;$$d'; \
	   echo "};"; \
	   echo "unsigned int test_progs_verification_cert_len = $$(wc -c < $(ST_OUT)/signing_key.der);"; \
	 } > $@

$(ST_OUT)/%.bpf.o: $(ST_SRC)/progs/%.c $(VMLINUX_H) $(LIBBPF_A) | $(ST_OUT)/.dir
	@echo "  CLANG   selftests/$(notdir $@)"
	@$(CLANG) $(ST_BPF_CFLAGS) -MMD -MP -c $< -o $@

$(ST_OUT)/%.skel.h: $(ST_OUT)/%.bpf.o
	@$(BPFTOOL) gen object $(@:.skel.h=.linked.o) $<
	@$(BPFTOOL) gen skeleton $(@:.skel.h=.linked.o) name $* > $@.tmp && mv $@.tmp $@
	@rm -f $(@:.skel.h=.linked.o)

$(ST_OUT)/%.test.o: $(ST_SRC)/prog_tests/%.c $(ST_SKELS) $(LIBBPF_A) | $(ST_OUT)/.dir
	@echo "  CC      selftests/$(notdir $@)"
	@$(CC) $(ST_CFLAGS) -MMD -MP -c $< -o $@

$(ST_OUT)/%.o: $(ST_SRC)/%.c $(LIBBPF_A) | $(ST_OUT)/.dir
	@echo "  CC      selftests/$(notdir $@)"
	@$(CC) $(ST_CFLAGS) -MMD -MP -c $< -o $@

$(ST_OUT)/test_progs.o: $(ST_OUT)/prog_tests/tests.h $(ST_OUT)/verification_cert.h

$(ST_OUT)/find_bit.o: $(SRC)/tools/lib/find_bit.c | $(ST_OUT)/.dir
	@$(CC) $(ST_CFLAGS) -MMD -MP -c $< -o $@

$(ST_OUT)/test_progs: $(ST_TEST_OBJS) $(ST_HELPER_OBJS) $(LIBBPF_A) | $(ST_BPF_OBJS)
	@echo "  LD      selftests/test_progs"
	@$(CC) $(ST_CFLAGS) $(ST_TEST_OBJS) $(ST_HELPER_OBJS) $(ST_LDLIBS) -o $@

-include $(wildcard $(ST_OUT)/*.d)
