#!/bin/sh
# `make install` into a temporary DESTDIR (the debug build, to spare a release build), then the
# installed binary run from another folder: it finds its bundled rules (the installed files,
# not the copy compiled in), replays an example and
# takes a card from a pipe; `man` finds and renders its three pages (cardline(1),
# cardline-session(5), cardline-rules(5)) without a warning; its completion scripts load in
# bash, and in zsh and fish when they are present, and offer the rules subcommands and the
# network ids after --networks (zsh and fish driven interactively on a pseudo-terminal; bash
# also through bash-completion's loader, finding the script under a custom prefix through
# XDG_DATA_DIRS, as the README says); `make uninstall` then leaves no file behind.
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
  # The JSON Schemas of its output are installed beside the manuals' data (issue 38).
  [ -f "$root/usr/local/share/cardline/schema/card.schema.json" ] && [ -f "$root/usr/local/share/cardline/schema/check.schema.json" ] \
    && [ -f "$root/usr/local/share/cardline/schema/replay.schema.json" ] \
    || { echo "install-check: make install did not install the JSON Schemas"; exit 1; }
  # Its message catalogs are installed beside the rules, read from there, and lint clean.
  [ -f "$root/usr/local/share/cardline/messages/fr.json" ] \
    || { echo "install-check: make install did not install the message catalogs"; exit 1; }
  env -i HOME="$home" PATH=/usr/bin:/bin "$bin" messages lint "$root/usr/local/share/cardline/messages/"*.json >/dev/null \
    || { echo "install-check: the installed message catalogs do not lint clean"; exit 1; }
  printf '4111 1111 1111 1111 12/30 123\n' | env -i HOME="$home" PATH=/usr/bin:/bin LANG=fr_FR.UTF-8 "$bin" --today 2026-11 \
    | grep -q 'Carte acceptée' || { echo "install-check: the installed cardline did not speak French under LANG=fr_FR.UTF-8"; exit 1; }
)
# `man -M` looks each page up as `man cardline` does once PREFIX/share/man is on the manual
# path; --warnings makes groff report what it cannot render.
mandir="$root/usr/local/share/man"
for page in 1:cardline 5:cardline-session 5:cardline-rules; do
  section=${page%%:*} name=${page#*:}
  [ "$(man -M "$mandir" -w "$section" "$name")" = "$mandir/man$section/$name.$section" ] \
    || { echo "install-check: man -w $section $name does not find the installed page"; exit 1; }
  rendered=$(MANWIDTH=80 MANPAGER=cat man --warnings -l "$mandir/man$section/$name.$section" 2>"$root/man-warnings")
  if [ -s "$root/man-warnings" ]; then echo "install-check: man warns about $name($section):"; cat "$root/man-warnings"; exit 1; fi
  case $name in
    cardline) sections='NAME SYNOPSIS DESCRIPTION KEYS|PROMPT COMMANDS|PIPED INPUT|CHECK RECORDS|COMMANDS AND OPTIONS|ENVIRONMENT|FILES|EXIT STATUS|EXAMPLES|SEE ALSO|SECURITY CONSIDERATIONS' ;;
    cardline-session) sections='NAME SYNOPSIS DESCRIPTION OUTPUT|EXIT STATUS|EXAMPLES|SEE ALSO' ;;
    *) sections='NAME SYNOPSIS DESCRIPTION COMMANDS|FILES|EXAMPLES|SEE ALSO' ;;
  esac
  # Section names are separated by | (some hold spaces), the first three by spaces.
  printf '%s\n' "$sections" | tr ' |' '\n\n' | sed -n '1,3p' >"$root/sections"
  printf '%s\n' "${sections#* * * }" | tr '|' '\n' >>"$root/sections"
  while IFS= read -r heading; do
    printf '%s\n' "$rendered" | grep -qx "$heading" || { echo "install-check: $name($section) has no $heading section"; exit 1; }
  done <"$root/sections"
done
bash -n "$root/usr/local/share/bash-completion/completions/cardline"
bash -c ". '$root/usr/local/share/bash-completion/completions/cardline' && complete -p cardline" >/dev/null
# What bash offers after `cardline rules `: the rules subcommands.
offered=$(bash -c ". '$root/usr/local/share/bash-completion/completions/cardline'
  COMP_WORDS=(cardline rules ''); COMP_CWORD=2; COMP_LINE='cardline rules '; COMP_POINT=15
  _cardline cardline '' rules; printf '%s\n' \"\${COMPREPLY[@]}\"")
printf '%s\n' "$offered" | grep -qx list || { echo "install-check: bash completes \`cardline rules \` with: $offered"; exit 1; }
# What bash offers for $1 (the words after cardline, the last one being completed): the
# installed script run as bash-completion runs it, the binary called by its path as typed.
bash_offers() {
  env -i HOME="$home" PATH=/usr/bin:/bin bash -c '. "$1"; shift
    function=$(complete -p cardline | sed -n "s/.* -F \([^ ]*\) .*/\1/p")
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
    "$function" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"; printf "%s\n" "${COMPREPLY[@]}"' \
    bash "$root/usr/local/share/bash-completion/completions/cardline" "$bin" "$@"
}
# Network ids after --networks, before and after a subcommand, in a list, and for rules show.
for words in "--networks vi" "check --networks vi" "--once --networks mastercard,vi"; do
  # shellcheck disable=SC2086
  offered=$(bash_offers $words)
  expected="${words##* }"; expected="${expected%vi}visa"
  printf '%s\n' "$offered" | grep -qx "$expected" && ! printf '%s\n' "$offered" | grep -qx "${expected%visa}mastercard" \
    || { echo "install-check: bash completes \`cardline $words\` with: $offered"; exit 1; }
done
# Countries after --postal-code (issue 39), before and after enter.
for words in "--postal-code G" "enter --postal-code G"; do
  # shellcheck disable=SC2086
  offered=$(bash_offers $words)
  [ "$offered" = GB ] || { echo "install-check: bash completes \`cardline $words\` with: $offered"; exit 1; }
done
# --record offers .session files (and folders), before and after enter (issue 41).
mkdir -p "$root/recordings/older"
: >"$root/recordings/bug.session"
: >"$root/recordings/bug.txt"
for words in "--record $root/recordings/b" "enter --record $root/recordings/b"; do
  # shellcheck disable=SC2086
  offered=$(bash_offers $words)
  [ "$offered" = "$root/recordings/bug.session" ] || { echo "install-check: bash completes \`cardline $words\` with: $offered"; exit 1; }
done
offered=$(bash_offers rules show american-)
[ "$offered" = american-express ] || { echo "install-check: bash completes \`cardline rules show american-\` with: $offered"; exit 1; }
# A network from a rule folder on the command line is offered too.
mkdir -p "$root/acme"
printf '{"id": "acme-pay", "name": "Acme Pay", "ranges": [["880000", "880999"]], "lengths": [16], "cvv": {"name": "CVV", "length": 3}}\n' >"$root/acme/acme-pay.json"
offered=$(bash_offers --rules "$root/acme" --networks acme)
[ "$offered" = acme-pay ] || { echo "install-check: bash completes \`--rules DIR --networks acme\` with: $offered"; exit 1; }
# The answer every shell's script gets from cardline for `cardline --networks mastercard,vi`.
offered=$(cd / && env -i HOME="$home" PATH=/usr/bin:/bin "$bin" ---completion enter -- --networks 2 13 "$bin" --networks mastercard,vi)
[ "$offered" = "$(printf 'mastercard,visa\nmastercard,visa-electron')" ] \
  || { echo "install-check: cardline ---completion for --networks mastercard,vi answers: $offered"; exit 1; }
# bash-completion's loader finds the script under a prefix that is not its own once
# PREFIX/share is in XDG_DATA_DIRS (README, "Install").
if [ -f /usr/share/bash-completion/bash_completion ]; then
  found=$(env -i HOME="$home" PATH=/usr/bin:/bin XDG_DATA_DIRS="$root/usr/local/share:/usr/share" bash -c \
    '. /usr/share/bash-completion/bash_completion; __load_completion cardline && complete -p cardline')
  printf '%s\n' "$found" | grep -q -- '-F _cardline' || { echo "install-check: bash-completion does not load cardline's script through XDG_DATA_DIRS: $found"; exit 1; }
fi
# zsh: compinit finds _cardline in the installed folder for cardline, and it loads.
if command -v zsh >/dev/null; then
  found=$(zsh -fc "fpath=('$root/usr/local/share/zsh/site-functions' \$fpath); autoload -Uz compinit; compinit -u -D
    autoload +X _cardline && print -r -- \$_comps[cardline]")
  [ "$found" = _cardline ] || { echo "install-check: zsh does not load _cardline for cardline: $found"; exit 1; }
  # An interactive zsh on a pseudo-terminal (zsh's zpty), sent `cardline --networks
  # mastercard,vi` and Tab: the line must grow to `mastercard,visa` (zsh inserts what visa
  # and visa-electron share). zpty -r waits for that text; timeout ends a zsh that never sees it.
  cat >"$root/zsh-tab.zsh" <<'ZSH'
zmodload zsh/zpty
zpty z env -i HOME="$HOME" PATH="$PATH" TERM=dumb zsh -f -i
zpty -w z "fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -D; PS1='> '; unsetopt beep; print READY"
zpty -r z line '*READY*'
zpty -w -n z $'cardline --networks mastercard,vi\t'
zpty -r z line '*mastercard,visa*' && print -r -- completed
zpty -d z
ZSH
  completed=$(cd / && HOME="$home" PATH="$root/usr/local/bin:/usr/bin:/bin" timeout 20 zsh -f "$root/zsh-tab.zsh" "$root/usr/local/share/zsh/site-functions" 2>&1 | tail -1)
  [ "$completed" = completed ] || { echo "install-check: zsh does not complete \`cardline --networks mastercard,vi\` to mastercard,visa: $completed"; exit 1; }
fi
# fish: the script loads, and offers the rules subcommands after `cardline rules `.
if command -v fish >/dev/null; then
  offered=$(fish --no-config -c "source '$root/usr/local/share/fish/vendor_completions.d/cardline.fish'; complete -C 'cardline rules '")
  printf '%s\n' "$offered" | grep -q '^list' || { echo "install-check: fish completes \`cardline rules \` with: $offered"; exit 1; }
  # Options before any subcommand complete as enter's (packaging/completions/default-command.fish).
  offered=$(cd / && env -i HOME="$home" PATH="$root/usr/local/bin:/usr/bin:/bin" fish --no-config -c "source '$root/usr/local/share/fish/vendor_completions.d/cardline.fish'; complete -C 'cardline --pr'")
  printf '%s\n' "$offered" | grep -q '^--print	' || { echo "install-check: fish completes \`cardline --pr\` with: $offered"; exit 1; }
  # --networks asks cardline itself, which only an interactive fish can (fish 3 refuses the
  # generated script's `commandline -C` otherwise): one on a pseudo-terminal, sent the words
  # and Tab, must show the line grown to mastercard,visa (Tests/tools/fish-tab.py).
  fish_script="$root/usr/local/share/fish/vendor_completions.d/cardline.fish" fish_tab="$PWD/Tests/tools/fish-tab.py"
  for words in "cardline --networks mastercard,vi" "cardline check --networks mastercard,vi"; do
    (cd / && env -i HOME="$home" PATH="$root/usr/local/bin:/usr/bin:/bin" TERM=dumb python3 "$fish_tab" "$fish_script" "$words" mastercard,visa) \
      || { echo "install-check: fish does not complete \`$words\` to mastercard,visa"; exit 1; }
  done
fi
make -s uninstall DESTDIR="$root" PREFIX=/usr/local >/dev/null
left=$(find "$root/usr" -type f | wc -l)
[ "$left" -eq 0 ] || { echo "install-check: uninstall left files:"; find "$root/usr" -type f; exit 1; }
echo "install-check: installed, ran from /, man pages render, completions load and offer network ids, uninstalled cleanly"
