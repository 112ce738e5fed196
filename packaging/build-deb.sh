#!/bin/sh
# Builds .build/cardline_VERSION_ARCH.deb with dpkg-deb alone (`make deb`): the files of
# `make install PREFIX=/usr` (the man pages gzipped, as Debian ships man pages), and a control
# file whose Depends names the Debian package of each shared library the binary links, at the
# oldest upstream version whose symbols it uses (packaging/depends.sh).
set -eu
cd "$(dirname "$0")/.."
version=$(sed -n 's/^ *version: "\(.*\)",$/\1/p' Sources/cardline/Cardline.swift)
arch=$(dpkg --print-architecture)
[ -n "$version" ] || { echo "build-deb: no version found in Sources/cardline/Cardline.swift" >&2; exit 1; }
root=.build/deb/root
rm -rf .build/deb
make --no-print-directory install DESTDIR="$PWD/$root" PREFIX=/usr
gzip -9n "$root"/usr/share/man/man1/cardline.1 "$root"/usr/share/man/man5/cardline-*.5

# The packages of the libraries the binary links, at the oldest upstream version it can use.
control=$(packaging/depends.sh "$root/usr/bin/cardline")

mkdir -p "$root/DEBIAN"
cat >"$root/DEBIAN/control" <<CONTROL
Package: cardline
Version: $version
Architecture: $arch
Maintainer: cardline maintainers <cardline@example.invalid>
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $control
Section: utils
Priority: optional
Description: enter payment cards at a terminal, every keystroke checked
 cardline walks a person through entering a payment card (number, expiry,
 security code) at a terminal prompt, checking every keystroke against
 card-network rules kept as JSON files, and hands the card to the calling
 script. Also: bulk validation of card records, replay of scripted sessions,
 and tools for rule authors. Manual pages: cardline(1), cardline-rules(5),
 cardline-session(5).
CONTROL
deb=.build/cardline_${version}_${arch}.deb
dpkg-deb --root-owner-group --build "$root" "$deb" >/dev/null
echo "build-deb: $deb"
dpkg-deb --field "$deb" Depends
