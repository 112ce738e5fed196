#!/bin/sh
# `make install` into a temporary DESTDIR (the debug build, to spare a release build), then the
# installed binary run from another folder: it finds its bundled rules (the installed files,
# not the copy compiled in), replays an example and
# takes a card from a pipe; `man` finds and renders its page without a warning; its completion
# scripts load in bash, and in zsh and fish when they are present, and offer the rules
# subcommands; `make uninstall` then leaves no file behind.
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
  # It reads (and names) the rule files installed with it, not the copy compiled into it.
  files=$(env -i HOME="$home" PATH=/usr/bin:/bin "$bin" rules list --json)
  printf '%s\n' "$files" | grep -q "\"$root/usr/local/bin/../share/cardline/rules/visa.json\"" \
    && ! printf '%s\n' "$files" | grep -q '<bundled>' \
    || { echo "install-check: the installed cardline does not read its installed rules: $files" | head -c 600; exit 1; }
  env -i HOME="$home" PATH=/usr/bin:/bin "$bin" replay "$example" >/dev/null \
    || { echo "install-check: the installed cardline failed to replay $example"; exit 1; }
  printf '4111 1111 1111 1111 12/30 123\n' | env -i HOME="$home" PATH=/usr/bin:/bin "$bin" --today 2026-11 \
    | grep -q 'Success! Visa' || { echo "install-check: the installed cardline did not take a card from a pipe"; exit 1; }
)
# `man -M` looks the page up as `man cardline` does once PREFIX/share/man is on the manual
# path; --warnings makes groff report what it cannot render.
mandir="$root/usr/local/share/man"
[ "$(man -M "$mandir" -w cardline)" = "$mandir/man1/cardline.1" ] \
  || { echo "install-check: man -w cardline does not find the installed page"; exit 1; }
rendered=$(MANWIDTH=80 MANPAGER=cat man --warnings -l "$mandir/man1/cardline.1" 2>"$root/man-warnings")
if [ -s "$root/man-warnings" ]; then echo "install-check: man warns:"; cat "$root/man-warnings"; exit 1; fi
for section in NAME SYNOPSIS DESCRIPTION KEYS "RULE FILES" ENVIRONMENT FILES "EXIT STATUS" "SECURITY CONSIDERATIONS"; do
  printf '%s\n' "$rendered" | grep -qx "$section" || { echo "install-check: the man page has no $section section"; exit 1; }
done
bash -n "$root/usr/local/share/bash-completion/completions/cardline"
bash -c ". '$root/usr/local/share/bash-completion/completions/cardline' && complete -p cardline" >/dev/null
# What bash offers after `cardline rules `: the rules subcommands.
offered=$(bash -c ". '$root/usr/local/share/bash-completion/completions/cardline'
  COMP_WORDS=(cardline rules ''); COMP_CWORD=2; COMP_LINE='cardline rules '; COMP_POINT=15
  _cardline cardline '' rules; printf '%s\n' \"\${COMPREPLY[@]}\"")
printf '%s\n' "$offered" | grep -qx list || { echo "install-check: bash completes \`cardline rules \` with: $offered"; exit 1; }
# zsh: compinit finds _cardline in the installed folder for cardline, and it loads.
if command -v zsh >/dev/null; then
  found=$(zsh -fc "fpath=('$root/usr/local/share/zsh/site-functions' \$fpath); autoload -Uz compinit; compinit -u -D
    autoload +X _cardline && print -r -- \$_comps[cardline]")
  [ "$found" = _cardline ] || { echo "install-check: zsh does not load _cardline for cardline: $found"; exit 1; }
fi
# fish: the script loads, and offers the rules subcommands after `cardline rules `.
if command -v fish >/dev/null; then
  offered=$(fish --no-config -c "source '$root/usr/local/share/fish/vendor_completions.d/cardline.fish'; complete -C 'cardline rules '")
  printf '%s\n' "$offered" | grep -q '^list' || { echo "install-check: fish completes \`cardline rules \` with: $offered"; exit 1; }
fi
make -s uninstall DESTDIR="$root" PREFIX=/usr/local >/dev/null
left=$(find "$root/usr" -type f | wc -l)
[ "$left" -eq 0 ] || { echo "install-check: uninstall left files:"; find "$root/usr" -type f; exit 1; }
echo "install-check: installed, ran from /, man page renders, completions load, uninstalled cleanly"
