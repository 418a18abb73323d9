#!/usr/bin/env bash
# Fetch Debian's newest linux-source-7.3 from trixie-backports through a
# private apt configuration (own sources file, lists and cache), so the
# machine's apt setup is never touched.  The mirror is taken from the
# machine's own apt sources.  Prints the path of the cached tarball.
#
# Usage: fetch-kernel.sh CACHE_DIR
set -euo pipefail

cache=${1:?usage: fetch-kernel.sh CACHE_DIR}
suite=trixie-backports
pkg=linux-source-7.3
mkdir -p "$cache/apt/lists/partial" "$cache/apt/cache/archives/partial" "$cache/deb"

mirror_uri() {
	local f uri
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		uri=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) { print $i; exit } }' "$f")
		[ -n "$uri" ] && { echo "${uri%/}"; return; }
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		uri=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^https?:\/\/.*\/debian\/?$/) { print $i; exit } }' "$f")
		[ -n "$uri" ] && { echo "${uri%/}"; return; }
	done
	return 1
}

uri=$(mirror_uri) || {
	echo "Error: no Debian mirror found in /etc/apt/sources*; set KERNEL_SRC=/path/to/linux-7.3 instead" >&2
	exit 1
}

cat > "$cache/apt/sources.list" <<SRC
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $suite main
SRC

apt_opts=(
	-o "Dir::Etc::SourceList=$cache/apt/sources.list"
	-o "Dir::Etc::SourceParts=/dev/null"
	-o "Dir::State::Lists=$cache/apt/lists"
	-o "Dir::Cache=$cache/apt/cache"
	-o "Debug::NoLocking=1"
	-o "APT::Get::List-Cleanup=0"
	-o "APT::Sandbox::User=root"
)

apt-get "${apt_opts[@]}" -qq update >&2
ver=$(apt-cache "${apt_opts[@]}" policy "$pkg" | awk '/Candidate:/ { print $2 }')
if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
	echo "Error: $pkg not found in $suite at $uri" >&2
	exit 1
fi
tarball="$cache/linux-source-$ver.tar.xz"
if [ ! -s "$tarball" ]; then
	(cd "$cache/deb" && rm -f ./*.deb && apt-get "${apt_opts[@]}" -qq download "$pkg=$ver" >&2)
	deb=$(ls "$cache"/deb/*.deb)
	tmp=$(mktemp -d "$cache/x.XXXXXX")
	dpkg-deb -x "$deb" "$tmp"
	src=$(find "$tmp/usr/src" -name 'linux-source-*.tar.*' | head -n1)
	[ -n "$src" ] || { echo "Error: no tarball inside $deb" >&2; exit 1; }
	mv "$src" "$tarball.part" && mv "$tarball.part" "$tarball"
	rm -rf "$tmp" "$deb"
fi
echo "$pkg $ver" > "$cache/VERSION"
echo "$tarball"
