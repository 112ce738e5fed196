#!/bin/sh
# The README's library example, built the way anyone would use the library: a separate package
# (its Package.swift and Sources/desk/main.swift are the README's two code blocks, copied from
# README.md as they stand) depending on cardline by path, as `../cardline` beside it. The
# program is then copied to a temporary folder and run from another one, with a clean environment (a temporary HOME, no
# CARDLINE_RULES or XDG_CONFIG_HOME), on a pseudo-terminal driven by Tests/tools/drive-desk.py:
# it must show its prompt, take a Visa card and print "charging Visa ..." -- which it can only
# do if the bundled rules reached it without cardline's source tree.
#
#   Tests/library-check.sh [CARDLINE_DIR]   # default: this checkout (`make test` runs it)
#
# The package lives in .build/library-check (desk/, and cardline, a link to CARDLINE_DIR),
# rewritten from the README on every run but kept with its build folder, so that only the
# first run compiles cardline's targets for it (2 to 4 minutes on 2 cores); later runs rebuild
# what changed (seconds when nothing did). SwiftPM reads the package through the link, so its
# paths, and so its build, stay the same whatever the checkout is called.
set -eu
cd "$(dirname "$0")/.."
here=$PWD
cardline=$(cd "${1:-.}" && pwd)
work=$here/.build/library-check
run=$(mktemp -d)
trap 'rm -rf "$run"' EXIT
start=$(date +%s)
mkdir -p "$work/desk/Sources/desk" "$run/elsewhere" "$run/home"
# Another checkout behind the link: its build starts afresh (SwiftPM's plan names files).
if [ "$(readlink "$work/cardline" 2>/dev/null)" != "$cardline" ]; then
  rm -rf "$work/desk/.build"
  ln -sfn "$cardline" "$work/cardline"
fi
# So does a source file added to or removed from cardline: SwiftPM does not plan a path
# dependency's targets again when their files change, and the build would miss a new file.
(cd "$cardline" && find Sources Package.swift -type f | LC_ALL=C sort) >"$run/files"
if ! cmp -s "$run/files" "$work/files" 2>/dev/null; then
  rm -rf "$work/desk/.build"
  cp "$run/files" "$work/files"
fi
python3 - "$here/README.md" "$work/desk" <<'PY'
import re, sys
readme = open(sys.argv[1], encoding="utf-8").read()
blocks = re.findall(r"^```swift\n(.*?)^```", readme, re.S | re.M)
manifest = [b for b in blocks if b.startswith("// swift-tools-version") and 'name: "desk"' in b]
program = [b for b in blocks if b.startswith("import CardPrompt\n") and "askForCard()" in b]
if len(manifest) != 1 or len(program) != 1:
    sys.exit(f"library-check: README.md should show one desk Package.swift and one CardPrompt program; found {len(manifest)} and {len(program)}")
def write(path, text):  # only when it changed, so that an unchanged program is not rebuilt
    try:
        if open(path, encoding="utf-8").read() == text:
            return
    except FileNotFoundError:
        pass
    open(path, "w", encoding="utf-8").write(text)
write(sys.argv[2] + "/Package.swift", manifest[0])
write(sys.argv[2] + "/Sources/desk/main.swift", program[0])
PY
${SWIFT:-swift} build --package-path "$work/desk" >"$run/build.log" 2>&1 \
  || { cat "$run/build.log"; echo "library-check: the README's package does not build against $cardline"; exit 1; }
built=$(date +%s)
# The program runs from a copy outside this source tree (a program that looked for rules/ in
# the folders above it would find this checkout's from .build).
cp "$work/desk/.build/debug/desk" "$run/desk"
python3 Tests/tools/drive-desk.py "$run/desk" "$run/elsewhere" "$run/home"
echo "library-check: the README's package built against $cardline in $((built - start)) s; its program, run from another folder, took a card"
