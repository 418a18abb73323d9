# Upstream's verifier and iterator tests (ST_UPSTREAM in tests/selftests.mk)
# on the patched kernel and on the unpatched 7.3 built with the same .config:
#
#   make pristine-kernel   the unpatched bzImage: built in build/pristine
#                          from a git worktree of the tree at its "pristine"
#                          tag, or taken from the cache
#   make upstream-check    run the tests on both kernels in the guest and
#                          fail if a subtest that passes on the unpatched
#                          kernel does not pass on the patched one
#
# The bzImage is cached next to the kernel tarball (NETNS_ITER_CACHE,
# default ~/.cache/netns-iter/pristine-kernel/), keyed by the pristine
# source and the .config, so only the first run on a machine builds it
# (about 10 minutes on 2 cores); see scripts/pristine-kernel.sh.
# make check builds it here and tests/run-all runs tests/upstream-compare.
# Neither target depends on "tree": they use the tree and the .config the
# last build left.  Included from the top-level Makefile.

PRISTINE := $(BUILD)/pristine
PRISTINE_KERNEL := JOBS=$(JOBS) $(TOP)/scripts/pristine-kernel.sh $(SRC) $(KBUILD)/.config $(PRISTINE)

.PHONY: pristine-kernel upstream-check

pristine-kernel:
	@$(PRISTINE_KERNEL) >/dev/null

upstream-check: pristine-kernel selftests-build
	@$(TOP)/tests/upstream-compare -u "$$($(PRISTINE_KERNEL) 2>/dev/null)"
