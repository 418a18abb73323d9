# A subset of the kernel's BPF selftests runner, test_progs, built from the
# prepared tree (tools/testing/selftests/bpf) with clang-19, the in-tree
# libbpf and bpftool, and the vmlinux.h of the kernel just built:
#
#   make selftests      build/selftests/test_progs
#
# The whole upstream test_progs is not built here (several tests need
# modules the guest kernel does not have, and the rest would cost time for
# nothing), so this runner holds only the tests in SELFTESTS: upstream's
# test_progs.c and helpers, a tests.h naming just those tests, and only the
# BPF objects and skeletons they include.  Included from the top-level
# Makefile, whose variables it uses.  tests/bats/050-selftests.bats runs
# the project's tests and the socket iterator tests in the guest;
# tests/upstream-compare runs upstream's verifier and iterator tests on the
# patched and on the unpatched kernel (see tests/upstream.mk).

# Upstream's verifier and iterator tests: prog_tests/verifier.c and
# prog_tests/iters.c, every program they include and the BTF objects those
# programs name (__btf_path).  All of them build with clang-19 (11 of the
# programs do not assemble with clang-16), so none is left out.  Some fail
# or skip on any kernel built from this .config, patched or not, which the
# comparison (tests/upstream-compare) allows: it fails only on a subtest
# that passes on the unpatched kernel and not on the patched one.
# - bpf_testmod's kfuncs (the kernel has no module support): arena_kfunc,
#   arena_kfunc_jit, verifier_ctx, verifier_default_trusted_ptr and
#   verifier_zext fail; iters/testmod_seq is skipped and the iters_testmod
#   programs are not run;
# - BPF LSM hooks and kfuncs (no SECURITY, no BPF_LSM): verifier_lsm,
#   verifier_vfs_accept, verifier_vfs_reject, verifier_set_retval,
#   verifier_const, verifier_precision, verifier_ref_tracking,
#   verifier_global_subprogs, verifier_async_cb_context, iters/css_task,
#   iters/iter_css_task_for_each;
# - fentry attachment (no FUNCTION_TRACER): iters/task, iters/css;
# - XDP sockets (no XDP_SOCKETS): verifier_sock, verifier_jeq_infer_not_null;
# - netfilter (no NETFILTER): verifier_netfilter_ctx, verifier_netfilter_retcode;
# - SYN cookies (no SYN_COOKIES): one subtest of verifier_map_lookup_refine;
# - bpf_throw() (the JIT needs the ORC unwinder): verifier_private_stack's
#   exception subtests;
# - the "@unpriv" variants are skipped: test_loader runs them only with CPU
#   mitigations, and CPU_MITIGATIONS is off.
ST_UPSTREAM := verifier iters

SELFTESTS ?= netns_iter sock_lookup_netns sock_iter_batch sock_destroy bpf_iter $(ST_UPSTREAM)

# Newer than the project's clang-16, whose assembler rejects the inline asm
# of 11 of those programs ("invalid operand for instruction").
ST_CLANG ?= clang-19

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
# Objects those programs name as target BTF, __btf_path("X.bpf.o"), which
# test_loader reads from the runner's directory.
ST_BTF_OBJS = $(patsubst %,$(ST_OUT)/%,$(sort $(shell sed -n \
		's/.*__btf_path("\([^"]*\.bpf\.o\)").*/\1/p' \
		$(patsubst %,$(ST_SRC)/progs/%.c,$(ST_SKEL_NAMES)) 2>/dev/null)))

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
ST_CLANG_SYS = $(eval ST_CLANG_SYS := $(shell $(ST_CLANG) -v -E - </dev/null 2>&1 | \
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

selftests-build: $(ST_OUT)/test_progs $(ST_OUT)/upstream-tests

$(ST_OUT)/.dir:
	@mkdir -p $(ST_OUT)/prog_tests && touch $@

# A test is a function "void test_NAME(void)" or "void serial_test_NAME(void)".
ST_TEST_RE := ^void (serial_)?test_([a-zA-Z0-9_]+)\((void)?\).*

# Only the tests of this runner; rewritten only when the list changes.
$(ST_OUT)/prog_tests/tests.h: $(ST_TEST_SRCS) $(TOP)/tests/selftests.mk | $(ST_OUT)/.dir
	@{ echo '/* Generated header, do not edit */'; \
	  sed -n -E 's/$(ST_TEST_RE)/DEFINE_TEST(\2)/p' \
		$(ST_TEST_SRCS) | sort; } > $@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; echo "  GEN     selftests tests.h"; fi

# The tests of ST_UPSTREAM, one name a line, for test_progs -a @FILE:
# tests/upstream-compare runs exactly these.  (-t verifier would miss
# arena_kfunc, arena_kfunc_jit and irq, which verifier.c also defines.)
$(ST_OUT)/upstream-tests: $(patsubst %,$(ST_SRC)/prog_tests/%.c,$(ST_UPSTREAM)) \
			  $(TOP)/tests/selftests.mk | $(ST_OUT)/.dir
	@sed -n -E 's/$(ST_TEST_RE)/\2/p' $(filter %.c,$^) | sort > $@

# test_progs registers a certificate for signed light skeletons at start.
$(ST_OUT)/verification_cert.h: $(ST_SRC)/verify_sig_setup.sh | $(ST_OUT)/.dir
	@$(ST_SRC)/verify_sig_setup.sh genkey $(ST_OUT) >/dev/null
	@{ echo "unsigned char test_progs_verification_cert[] = {"; \
	   od -v -t 'xC' -w12 $(ST_OUT)/signing_key.der | \
		sed 's/ \(\S\+\)/ 0x\1,/g;s/^\S\+/ /;$$d'; \
	   echo "};"; \
	   echo "unsigned int test_progs_verification_cert_len = $$(wc -c < $(ST_OUT)/signing_key.der);"; \
	 } > $@

# Every BPF object is rebuilt when ST_CLANG changes.
$(ST_OUT)/.clang-$(ST_CLANG): | $(ST_OUT)/.dir
	@rm -f $(ST_OUT)/.clang-* && touch $@

$(ST_OUT)/%.bpf.o: $(ST_SRC)/progs/%.c $(VMLINUX_H) $(LIBBPF_A) \
			$(ST_OUT)/.clang-$(ST_CLANG) | $(ST_OUT)/.dir
	@echo "  CLANG   selftests/$(notdir $@)"
	@$(ST_CLANG) $(ST_BPF_CFLAGS) -MMD -MP -c $< -o $@

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

$(ST_OUT)/test_progs: $(ST_TEST_OBJS) $(ST_HELPER_OBJS) $(LIBBPF_A) | $(ST_BPF_OBJS) $(ST_BTF_OBJS)
	@echo "  LD      selftests/test_progs"
	@$(CC) $(ST_CFLAGS) $(ST_TEST_OBJS) $(ST_HELPER_OBJS) $(ST_LDLIBS) -o $@

-include $(wildcard $(ST_OUT)/*.d)
