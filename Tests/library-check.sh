#!/bin/sh
# The README's library example, built the way anyone would use the library: a separate package
# in a temporary folder (its Package.swift and Sources/desk/main.swift are the README's two
# code blocks, copied from README.md as they stand) depending on cardline by path, as
# `../cardline` beside it. The program then runs from yet another folder, with a clean
# environment, on a pseudo-terminal driven by Tests/tools/drive-desk.py: it must show its
# prompt, take a Visa card and print "charging Visa …" — which it can only do if the bundled
# rules reached it without cardline's source tree.
#
#   Tests/library-check.sh [CARDLINE_DIR]   # default: this checkout (`make test` runs it)
#
# The build keeps its scratch folder in .build/library-check, so only the first run compiles
# cardline's targets again (about 2 minutes on 2 cores); later runs rebuild what changed.
set -eu
cd "$(dirname "$0")/.."
here=$PWD
cardline=$(cd "${1:-.}" && pwd)
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
start=$(date +%s)
ln -s "$cardline" "$root/cardline"
mkdir -p "$root/desk/Sources/desk" "$root/elsewhere" "$root/home"
python3 - "$here/README.md" "$root/desk" <<'PY'
import re, sys
readme = open(sys.argv[1], encoding="utf-8").read()
blocks = re.findall(r"^```swift\n(.*?)^```", readme, re.S | re.M)
manifest = [b for b in blocks if b.startswith("// swift-tools-version") and 'name: "desk"' in b]
program = [b for b in blocks if b.startswith("import CardPrompt\n") and "askForCard()" in b]
if len(manifest) != 1 or len(program) != 1:
    sys.exit(f"library-check: README.md should show one desk Package.swift and one CardPrompt program; found {len(manifest)} and {len(program)}")
open(sys.argv[2] + "/Package.swift", "w", encoding="utf-8").write(manifest[0])
open(sys.argv[2] + "/Sources/desk/main.swift", "w", encoding="utf-8").write(program[0])
PY
# Package.resolved pins swift-argument-parser as this checkout does (no new resolution).
[ -f "$cardline/Package.resolved" ] && cp "$cardline/Package.resolved" "$root/desk/"
${SWIFT:-swift} build --package-path "$root/desk" --scratch-path "$here/.build/library-check" >"$root/build.log" 2>&1 \
  || { cat "$root/build.log"; echo "library-check: the README's package does not build against $cardline"; exit 1; }
built=$(date +%s)
bin=$(${SWIFT:-swift} build --package-path "$root/desk" --scratch-path "$here/.build/library-check" --show-bin-path)/desk
python3 Tests/tools/drive-desk.py "$bin" "$root/elsewhere" "$root/home"
echo "library-check: the README's package built against $cardline in $((built - start)) s, its program took a card from $root/elsewhere"
