#!/usr/bin/env bats
# netns-reap's command line: errors, exit codes and the man page, checked
# on the host; every case here fails while parsing, before any BPF.

load ../bats/helpers
bats_require_minimum_version 1.5.0

MAN=$TOP/tools/netns-reap.8

# The long options in a text: "--word" tokens, sorted, once each.
long_opts() {
	grep -o -- '--[a-z][a-z-]*' | sort -u
}

man_text() {
	sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$MAN"
}

@test "help, --help and --version" {
	run "$REAP" --help
	assert_success
	assert_output --partial "Usage: netns-reap"
	run "$REAP" help
	assert_success
	assert_output --partial "FILTER"
	run "$REAP" --version
	assert_success
	assert_output --regexp "^netns-reap .* \(libbpf v[0-9.]+\)$"
}

@test "the man page and --help name the same options" {
	local help man
	help=$("$REAP" --help | long_opts)
	man=$(man_text | long_opts)
	[ "$help" = "$man" ] ||
		fail "differ: $(diff <(echo "$help") <(echo "$man") | grep '^[<>]' | tr '\n' ' ')"
}

@test "every filter word of --help has an entry in the man page's FILTERS" {
	local w words
	words=$("$REAP" --help | sed -n '/^FILTER/,/^$/s/^  \([a-z]*\) .*/\1/p')
	[ "$(wc -w <<< "$words")" -eq 7 ] || fail "filter words in --help: $words"
	for w in $words; do
		man_text | sed -n '/^\.SH FILTERS/,/^\.SH MODES/p' | grep -Eq "^\.B[IR]? $w( |$)" ||
			fail "man page FILTERS lacks '$w'"
	done
}

@test "the man page is an 8 with the usual sections" {
	run head -n1 "$MAN"
	assert_output --regexp '^\.TH NETNS-REAP 8 '
	for s in NAME SYNOPSIS DESCRIPTION OPTIONS FILTERS MODES "EXIT STATUS"; do
		grep -qx "\.SH $s" "$MAN" || fail "no section $s"
	done
}

@test "no arguments: an error and the usage on stderr, exit 2" {
	run --separate-stderr "$REAP"
	assert_equal "$status" 2
	assert_equal "$output" ""
	[ "${stderr_lines[0]}" = "Error: no command given: use list, kill, netns, probe, index or help" ] ||
		fail "first line: ${stderr_lines[0]}"
	[[ "$stderr" == *"Usage: netns-reap"* ]]
	bad_cli "no command given" --mode chained
}

@test "netns PATH that is no network namespace is refused without opening it" {
	local fifo=$BATS_TEST_TMPDIR/fifo
	mkfifo "$fifo"
	# A FIFO would block an open() for reading; a device could act on it.
	run timeout 10 "$REAP" list netns "$fifo"
	assert_equal "$status" 2
	assert_output --partial "Error: netns '$fifo' is not a network namespace"
	run timeout 10 "$REAP" list netns /proc/self/ns/mnt
	assert_equal "$status" 2
	assert_output --partial "is not a network namespace"
	run timeout 10 "$REAP" kill netns /dev/null
	assert_equal "$status" 2
	assert_output --partial "is not a network namespace"
	bad_cli "netns '/nonexistent': No such file or directory" list netns /nonexistent
}

@test "--netns-dir skips what is no network namespace, FIFOs included" {
	local dir=$BATS_TEST_TMPDIR/names
	mkdir "$dir"
	mkfifo "$dir/fifo"
	touch "$dir/file"
	ln -s /proc/self/ns/mnt "$dir/mnt"
	"$REAP" netns >/dev/null 2>&1 || skip "netns-reap netns needs CAP_SYS_ADMIN here"
	run timeout 20 "$REAP" -j --netns-dir "$dir" netns
	assert_success
	jq -e --arg d "$dir" '[.netns[].names[] | select(startswith($d))] == []' <<< "$output" >/dev/null ||
		fail "named something in $dir: $output"
}

# bad_cli WANT ARGS...: exit 2 and an Error naming the problem, also as JSON.
bad_cli() {
	local want=$1
	shift
	run "$REAP" "$@"
	assert_equal "$status" 2
	assert_output --partial "Error: "
	assert_output --partial "$want"
	run "$REAP" -j "$@"
	assert_equal "$status" 2
	jq -e --arg w "$want" '.error | contains($w)' <<< "$output" >/dev/null ||
		fail "-j $*: $output"
}

@test "unknown verbs, options, modes and filter words" {
	bad_cli "unknown command 'frob'" frob
	bad_cli "unknown filter word 'dest'" list dest 10.0.0.1
	bad_cli "unknown mode 'fast'" --mode fast list
	bad_cli "unknown option" --bogus list
	bad_cli "'dst' needs a value" list dst
	bad_cli "takes no arguments" netns extra
	bad_cli "--dry-run only goes with kill" list --dry-run
	bad_cli "'index' needs a command: start, stop or status" index
	bad_cli "unknown index command 'restart'" index restart
	bad_cli "takes no arguments" index status extra
	bad_cli "--mode only goes with list and kill" index start --mode index
}

@test "bad addresses, ports, protocols and states" {
	bad_cli "bad address '1.2.3'" list dst 1.2.3
	bad_cli "bad address '10.0.0.1:99999'" list dst 10.0.0.1:99999
	bad_cli "bad address '[fd00::1'" list dst '[fd00::1'
	bad_cli "bad address '10.0.0.0/33'" list dst 10.0.0.0/33
	bad_cli "bad address 'fd00::/129'" kill src fd00::/129
	bad_cli "bad port '0'" list dport 0
	bad_cli "bad port 'x'" list sport x
	bad_cli "unknown protocol 'sctp'" list proto sctp
	bad_cli "unknown state 'bogus'" list state bogus
	bad_cli "bad --max-sockets" --max-sockets 0 list
	bad_cli "bad port '70000' after 'dport': expected 1-65535" list dport 70000
	bad_cli "option '--mode' needs a value" list --mode
}

@test "more dst, src or --netns-dir than the tool holds" {
	local dst=() src=() dirs=() i
	for i in $(seq 1 65); do
		dst+=(dst "10.0.0.$i")
		src+=(src "10.1.0.$i")
	done
	for i in $(seq 1 17); do dirs+=(--netns-dir /tmp); done
	bad_cli "at most 64 dst words: cover more backends with a prefix" kill "${dst[@]}"
	bad_cli "at most 64 src words" list "${src[@]}"
	bad_cli "at most 16 --netns-dir options" "${dirs[@]}" list
	# The limits themselves are accepted: the error is a later word's.
	bad_cli "unknown filter word 'x'" list "${dst[@]:0:128}" "${src[@]:0:128}" x
}

@test "options may follow the verb and sit among the filter words; -- ends them" {
	bad_cli "unknown mode 'fast'" list dst 10.0.0.1 --mode fast
	bad_cli "bad port '0'" kill --dry-run dport 0 --udp-unconnected
	run "$REAP" list dport 0 -j
	assert_equal "$status" 2
	jq -e '.error | contains("bad port")' <<< "$output" >/dev/null || fail "-j after the verb: $output"
	bad_cli "unknown filter word '-j'" list -- -j
	bad_cli "--dry-run only goes with kill" list dst 10.0.0.1 --dry-run
}

@test "an option with a verb it does not go with" {
	bad_cli "--mode only goes with list and kill" netns --mode chained
	bad_cli "--max-sockets only goes with list and kill" --max-sockets 5 probe
	bad_cli "--netns-dir only goes with list, kill and netns" probe --netns-dir /tmp
	bad_cli "--udp-unconnected only goes with list and kill" netns --udp-unconnected
}
