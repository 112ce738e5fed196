#!/usr/bin/env python3
"""Counts the unsafe-pointer uses in Sources/**/*.swift and checks each has a reason.

A use is a line of code (comments stripped) that names an unsafe API, however many times: `Unsafe…Pointer`,
`withUnsafe…`, `unsafeBitCast`, `unsafeUninitializedCapacity`, `.baseAddress` and so on
(any identifier starting with `unsafe`/`Unsafe`/`withUnsafe`, or `.baseAddress`). Its reason
is a `//` comment on the same line or on the comment line(s) just above it (a `// unsafe:`
comment above a block covers the block's uses up to the next blank line).

The wide mode also counts the lines that reach memory through a pointer without naming
`Unsafe…`: a pointer handed to a closure (`withUTF8`, `withUTF8Buffer`,
`withContiguous(Mutable)StorageIfAvailable`, `withCString`, `withMemoryRebound`), `Unmanaged`,
`.pointee`, `storeBytes`, `loadUnaligned`/`load(fromByteOffset:`, `assumingMemoryBound`,
`bindMemory`. It reports; it is not held to the limit.

    Tests/tools/unsafe-uses.py            per-file counts and the total
    Tests/tools/unsafe-uses.py --check 70 exits 1 above 70 uses or when a use has no reason
    Tests/tools/unsafe-uses.py --wide     the wide count per file, and each wide use with no reason
    Tests/tools/unsafe-uses.py --root DIR ...  counts DIR/Sources instead (the tool's own test)
    Tests/tools/unsafe-uses.py --wide --reasons-in PATH...
                                          also exits 1 when a wide use in one of the PATHs
                                          (folders or .swift files, from the repository's root)
                                          has no reason
"""
import pathlib
import re
import sys

USE = re.compile(r"\b(?:with)?[Uu]nsafe\w*|\.baseAddress\b")
WIDE = re.compile(USE.pattern + r"|\b(?:withUTF8(?:Buffer)?|withContiguous(?:Mutable)?StorageIfAvailable|withCString"
                  r"|withMemoryRebound|Unmanaged|storeBytes|loadUnaligned|assumingMemoryBound|bindMemory)\b"
                  r"|\.pointee\b|\.load\(fromByteOffset:")


def code_and_comment(line):
    """Splits a line into code and its `//` comment, ignoring `//` inside string literals."""
    in_string = False
    i = 0
    while i < len(line):
        c = line[i]
        if c == "\\" and in_string:
            i += 2
            continue
        if c == '"':
            in_string = not in_string
        elif not in_string and line.startswith("//", i):
            return line[:i], line[i:]
        i += 1
    return line, ""


def scan(path, use=USE):
    uses, unexplained = 0, []
    block_reason = False
    previous_comment = False
    in_block_comment = False
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw
        if in_block_comment:
            if "*/" in line:
                in_block_comment = False
                line = line.split("*/", 1)[1]
            else:
                continue
        if "/*" in line and "*/" not in line and not line.strip().startswith("//"):
            line, in_block_comment = line.split("/*", 1)[0], True
        code, comment = code_and_comment(line)
        if not code.strip():
            if comment:
                previous_comment = True
                if re.match(r"//\s*unsafe:", comment.strip(), re.I):
                    block_reason = True
            else:
                previous_comment = False
                block_reason = False
            continue
        if use.search(code):
            uses += 1
            if not (comment or previous_comment or block_reason):
                unexplained.append(f"{path}:{number}: {raw.strip()}")
        previous_comment = False
    return uses, unexplained


def main():
    arguments = sys.argv[1:]
    wide = "--wide" in arguments
    limit, reasons_in = None, []
    if "--check" in arguments and not wide:
        limit = int(arguments[arguments.index("--check") + 1])
    root = pathlib.Path(__file__).resolve().parents[2]
    if "--root" in arguments:  # another tree (the tool's own test)
        root = pathlib.Path(arguments[arguments.index("--root") + 1]).resolve()
        del arguments[arguments.index("--root"):arguments.index("--root") + 2]
    if "--reasons-in" in arguments:
        reasons_in = [path if path.endswith(".swift") else path.rstrip("/") + "/" for path in arguments[arguments.index("--reasons-in") + 1:]]
    total, missing, rows = 0, [], []
    for path in sorted((root / "Sources").rglob("*.swift")):
        uses, unexplained = scan(path, WIDE if wide else USE)
        if uses:
            rows.append((uses, path.relative_to(root)))
        total += uses
        missing += [u.replace(str(root) + "/", "") for u in unexplained]
    for uses, path in sorted(rows, reverse=True):
        print(f"{uses:4d}  {path}")
    if wide:
        for line in missing:
            print(f"no reason: {line}")
        print(f"{total:4d}  pointer uses in Sources, wide count ({len(missing)} without a reason comment; reported, not held to a limit)")
        unexplained = [line for line in missing if any(line.startswith(path + ':' if path.endswith('.swift') else path) for path in reasons_in)]
        for line in unexplained:
            print(f"no reason (one is required there): {line}", file=sys.stderr)
        return 1 if unexplained else 0
    print(f"{total:4d}  unsafe-pointer uses in Sources ({len(missing)} without a reason comment)")
    if limit is not None:
        for line in missing:
            print(f"no reason: {line}", file=sys.stderr)
        if total > limit or missing:
            print(f"unsafe-uses: {total} uses (at most {limit}), {len(missing)} without a reason", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
