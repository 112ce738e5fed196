#!/bin/sh
# Prints the Debian Depends of BINARY (`packaging/depends.sh .build/deb/root/usr/bin/cardline`),
# as packaging/build-deb.sh writes it into the control file: dpkg-shlibdeps reads the libraries
# the binary itself links (its NEEDED entries, not those that only come in through another,
# like libbsd0 and libmd0 through libedit2), finds the package of each, and gives the oldest
# upstream version whose symbols it uses (libc6 (>= 2.35)), not the build machine's revision.
set -eu
binary=$(readlink -f "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# dpkg-shlibdeps wants a source package's debian/control, and a DEBIAN folder at the root of
# the tree the binary is in (for its $ORIGIN run path): a stand-in for each.
mkdir -p "$work/debian" "$work/root/DEBIAN" "$work/root/usr/bin"
printf 'Source: cardline\n\nPackage: cardline\nArchitecture: any\n' >"$work/debian/control"
cp "$binary" "$work/root/usr/bin/"
cd "$work"
dpkg-shlibdeps -O "root/usr/bin/$(basename "$binary")" 2>"$work/errors" | sed -n 's/^shlibs:Depends=//p' \
  | grep . || { cat "$work/errors" >&2; exit 1; }
