#!/bin/sh
# `make install` into a temporary DESTDIR (the debug build, to spare a release build), then the
# installed binary run from another folder: it finds its bundled rules, replays an example,
# and its completion scripts load in each shell that is present; `make uninstall` then leaves
# no file behind.
set -eu
cd "$(dirname "$0")/.."
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
make -s install DESTDIR="$root" PREFIX=/usr/local CONFIG=debug >/dev/null
bin="$root/usr/local/bin/cardline"
home="$root/home"
mkdir -p "$home"
example="$PWD/examples/auto-advance.session"
(
  cd /
  networks=$(env -i HOME="$home" PATH=/usr/bin:/bin "$bin" rules list | grep -c .)
  [ "$networks" -ge 20 ] || { echo "install-check: the installed cardline lists $networks networks"; exit 1; }
  env -i HOME="$home" PATH=/usr/bin:/bin "$bin" replay "$example" >/dev/null \
    || { echo "install-check: the installed cardline failed to replay $example"; exit 1; }
)
bash -n "$root/usr/local/share/bash-completion/completions/cardline"
bash -c ". '$root/usr/local/share/bash-completion/completions/cardline' && complete -p cardline" >/dev/null
if command -v zsh >/dev/null; then zsh -n "$root/usr/local/share/zsh/site-functions/_cardline"; fi
if command -v fish >/dev/null; then fish -n "$root/usr/local/share/fish/vendor_completions.d/cardline.fish"; fi
make -s uninstall DESTDIR="$root" PREFIX=/usr/local >/dev/null
left=$(find "$root/usr" -type f | wc -l)
[ "$left" -eq 0 ] || { echo "install-check: uninstall left files:"; find "$root/usr" -type f; exit 1; }
echo "install-check: installed, ran from /, completions load, uninstalled cleanly"
