# Shared by every guest test file.
load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash

TOP=${NETNS_ITER_TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
BUILD=${NETNS_ITER_BUILD:-$TOP/build}
BPFTOOL=${BPFTOOL:-$BUILD/tools/bpftool/bpftool}
OBJ=$BUILD/obj
PIN=/sys/fs/bpf/netns-iter-test

# pin_iter OBJ NAME: load OBJ with the in-tree bpftool and pin its iterator
# at $PIN/NAME.
pin_iter() {
	mkdir -p "$PIN"
	rm -f "$PIN/$2"
	"$BPFTOOL" iter pin "$OBJ/$1" "$PIN/$2"
}

unpin_all() {
	rm -rf "$PIN"
}

# Inodes of every network namespace user space can find: init_net, the
# namespaces of all processes, and the bind mounts under /run/netns.
visible_netns_inodes() {
	{
		stat -L -c %i /proc/1/ns/net
		for f in /proc/[0-9]*/ns/net; do stat -L -c %i "$f" 2>/dev/null; done
		for f in /run/netns/*; do [ -e "$f" ] && stat -L -c %i "$f"; done
	} | sort -un
}
