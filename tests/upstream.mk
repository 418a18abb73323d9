# Upstream's verifier and iterator tests (ST_UPSTREAM in tests/selftests.mk)
# on the patched kernel and on the unpatched 7.3 built with the same .config:
#
#   make pristine-kernel   the unpatched bzImage: built in build/pristine
#                          from a git worktree of the tree at its "pristine"
#                          tag, or taken from the cache
#   make upstream-check    run the tests on the patched kernel in the guest
#                          and fail if a subtest that passes on the
#                          unpatched kernel does not pass on it
#   make upstream-baseline run them on the unpatched kernel too, and write
#                          its results to tests/upstream-baseline
#
# upstream-check takes the unpatched kernel's results from the committed
# baseline while its key (the pristine source, the .config, the tests and
# what builds and runs them) matches, and otherwise builds and runs the
# unpatched kernel itself; make check runs it through tests/run-all.  The
# bzImage is cached next to the kernel tarball (NETNS_ITER_CACHE, default
# ~/.cache/netns-iter/pristine-kernel/), keyed by the pristine source and
# the .config (16 minutes to build on 2 cores); see
# scripts/pristine-kernel.sh.  No target here depends on "tree": they use
# the tree and the .config the last build left.  Included from the
# top-level Makefile.

PRISTINE := $(BUILD)/pristine
PRISTINE_KERNEL := JOBS=$(JOBS) $(TOP)/scripts/pristine-kernel.sh $(SRC) $(KBUILD)/.config $(PRISTINE)

.PHONY: pristine-kernel upstream-check upstream-baseline

pristine-kernel:
	@$(PRISTINE_KERNEL) >/dev/null

upstream-check: selftests-build
	@$(TOP)/tests/upstream-compare

upstream-baseline: selftests-build
	@$(TOP)/tests/upstream-compare -w
