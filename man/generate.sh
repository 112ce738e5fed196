#!/bin/sh
# Writes man/cardline.1: argument-parser's GenerateManual plugin writes NAME, SYNOPSIS and
# DESCRIPTION from the command definitions (every subcommand and option, with its help
# text); the hand-written man/sections.mdoc (keys, prompt commands, rule files, environment,
# files, exit status, examples, security) replaces the plugin's generic EXIT STATUS.
#
#   man/generate.sh            # what `make man` does: rewrite man/cardline.1 if it changed
#   man/generate.sh --check    # what `make test` does: fail if man/cardline.1 is out of date
#
# The page keeps its date (.Dd) until its text changes. The plugin builds the package in debug
# mode first (nothing to do after `swift build`) and its own tool once (about 20 s).
set -eu
cd "$(dirname "$0")/.."
check=false
[ "${1:-}" = --check ] && check=true
page=man/cardline.1
work=.build/man
mkdir -p "$work"

# The generator drops every character that is not ASCII from help text (a title example's
# euro sign vanished): refuse such help text rather than ship a page that silently differs.
${SWIFT:-swift} build --product cardline >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
.build/debug/cardline --experimental-dump-help | python3 -c '
import sys
bad = sorted({word for word in sys.stdin.read().split() if not word.isascii()})
if bad:
    sys.exit("man/generate.sh: help text must be ASCII (the man page generator drops other characters): " + " ".join(bad))'

if LC_ALL=C grep -n '[^ -~	]' man/sections.mdoc >&2; then
  echo "man/generate.sh: man/sections.mdoc must be ASCII (write \\(bu, \\(em and the like)" >&2
  exit 1
fi

# $1: the date for .Dd, YYYY-MM-DD. Writes the whole page to $work/cardline.1.
generate() {
  ${SWIFT:-swift} package plugin generate-manual --configuration debug --date "$1" >"$work/plugin.log" 2>&1 \
    || { cat "$work/plugin.log"; exit 1; }
  # Blank lines in help text become paragraph breaks (.Pp: groff warns about empty lines), and
  # the hand-written sections take the place of the generated EXIT STATUS, which says only
  # that the tool exits 0 on success.
  awk -v sections=man/sections.mdoc '
    NR == 1 { print; print ".\\\" Made by man/generate.sh (make man) with man/sections.mdoc: edit the help text in Sources/cardline or that file, not this one."; next }
    /^\.Sh "?EXIT STATUS"?$/ { skipping = 1; next }
    skipping && /^\.Sh / { skipping = 0 }
    skipping { next }
    /^$/ { print ".Pp"; next }
    { print }
    END { while ((getline line < sections) > 0) if (line !~ /^\.\\"/) print line }
  ' .build/plugins/GenerateManual/outputs/cardline/cardline.1 >"$work/cardline.1"
}

committed=$(sed -n 's/^\.Dd //p' "$page" 2>/dev/null || true)
generate "$(date -d "${committed:-today}" +%F)"
if cmp -s "$work/cardline.1" "$page"; then
  echo "man: $page is current"
  exit 0
fi
if $check; then
  echo "man: $page does not match the code and man/sections.mdoc; run \`make man\` and commit it:" >&2
  diff -u "$page" "$work/cardline.1" | head -40 >&2 || true
  exit 1
fi
generate "$(date +%F)"
cp "$work/cardline.1" "$page"
echo "man: wrote $page"
