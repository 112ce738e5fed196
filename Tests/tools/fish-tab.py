#!/usr/bin/env python3
"""For Tests/install-check.sh: types `argv[2]` and Tab into an interactive fish on a
pseudo-terminal, after sourcing the completion script argv[1]; exits 0 once the terminal
shows argv[3], 1 after 20 s without (a deadline on reads, not a sleep)."""
import os, pty, select, sys, time
script, typed, wanted = sys.argv[1], sys.argv[2], sys.argv[3].encode()
pid, fd = pty.fork()
if pid == 0:
    os.execvp("fish", ["fish", "--no-config", "-i", "-C", f"source '{script}'; function fish_prompt; echo '> '; end; echo READY"])
seen, sent, deadline = b"", False, time.monotonic() + 20
while time.monotonic() < deadline:
    ready, _, _ = select.select([fd], [], [], deadline - time.monotonic())
    if not ready:
        break
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    seen += chunk
    if not sent and b"READY" in seen:
        os.write(fd, typed.encode() + b"\t")
        sent, seen = True, b""
    elif sent and wanted in seen:
        os.kill(pid, 9)
        sys.exit(0)
os.kill(pid, 9)
sys.stderr.write(seen.decode("utf-8", "replace")[-600:] + "\n")
sys.exit(1)
