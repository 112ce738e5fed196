#!/bin/sh
# Writes man/cardline.1: the hand-written man/sections.mdoc (NAME, SYNOPSIS, DESCRIPTION, keys,
# prompt commands, environment, files, exit status, examples, security) with, where its line
# `.\" @COMMANDS@` stands, the list of every subcommand and option with its help text that
# argument-parser's GenerateManual plugin writes from the command definitions (the plugin's
# own NAME, SYNOPSIS, description paragraphs and EXIT STATUS are left out). The two file
# formats' pages, man/cardline-session.5 and man/cardline-rules.5, are written by hand.
# Every page must render without a warning from `groff -ww`.
#
#   man/generate.sh            # what `make man` does: rewrite man/cardline.1 if it changed
#   man/generate.sh --check    # what `make test` does: fail if man/cardline.1 is out of date
#                              # or a page renders with a warning
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

if LC_ALL=C grep -n '[^ -~	]' man/sections.mdoc man/*.5 >&2; then
  echo "man/generate.sh: man/sections.mdoc and man/*.5 must be ASCII (write \\(bu, \\(em and the like)" >&2
  exit 1
fi
grep -qx '\.\\" @COMMANDS@' man/sections.mdoc \
  || { echo 'man/generate.sh: man/sections.mdoc has no line .\" @COMMANDS@ for the command list' >&2; exit 1; }

# $1: a page. Fails when groff warns about it (every warning on: -ww).
render() {
  warnings=$(groff -ww -mandoc -Tutf8 -z "$1" 2>&1) || true
  [ -z "$warnings" ] || { printf 'man/generate.sh: groff -ww warns about %s:\n%s\n' "$1" "$warnings" >&2; exit 1; }
}

# $1: the date for .Dd, YYYY-MM-DD. Writes the whole page to $work/cardline.1.
generate() {
  ${SWIFT:-swift} package plugin generate-manual --configuration debug --date "$1" >"$work/plugin.log" 2>&1 \
    || { cat "$work/plugin.log"; exit 1; }
  # From the plugin's page: its first lines (.Dd, .Dt, .Os) and the list of commands and
  # options that follows its DESCRIPTION's paragraphs (blank lines in help text become
  # paragraph breaks, .Pp: groff warns about empty lines); the rest comes from sections.mdoc.
  awk -v sections=man/sections.mdoc '
    NR == 1 { print; print ".\\\" Made by man/generate.sh (make man) from man/sections.mdoc and the command definitions: edit the help text in Sources/cardline or that file, not this one."; next }
    !started && /^\.Sh / { started = 1 }
    !started { print; next }
    /^\.Sh / { inDescription = ($0 ~ /^\.Sh "?DESCRIPTION"?$/) }
    inDescription && /^\.Bl / { listing = 1 }
    listing && /^\.Sh / { listing = 0 }
    listing { list = list ($0 == "" ? ".Pp" : $0) "\n" }
    END {
      while ((getline line < sections) > 0) {
        if (line == ".\\\" @COMMANDS@") printf "%s", list
        else if (line !~ /^\.\\"/) print line
      }
    }
  ' .build/plugins/GenerateManual/outputs/cardline/cardline.1 >"$work/cardline.1"
}

committed=$(sed -n 's/^\.Dd //p' "$page" 2>/dev/null || true)
generate "$(date -d "${committed:-today}" +%F)"
render "$work/cardline.1"
for format in man/*.5; do render "$format"; done
if cmp -s "$work/cardline.1" "$page"; then
  echo "man: $page is current; every page renders without a warning"
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
