#!/usr/bin/env python3
"""Runs the README's CardPrompt program (argv[1]) on a new pseudo-terminal, in the folder
argv[2], with only HOME (argv[3]), PATH and TERM set: waits until the prompt has switched the
terminal out of canonical mode, types a Visa card field by field (each after the screen shows
that field's label), and expects the program to print "charging Visa <masked number>" and
exit 0. Synchronised on terminal state and screen text, never on sleeps; gives up after 60 s."""
import os, pty, re, select, signal, sys, termios, time

program, folder, home = sys.argv[1:4]
pid, master = pty.fork()  # the child gets its own session, the pty as controlling terminal
if pid == 0:
    os.chdir(folder)
    os.execve(program, [program], {"HOME": home, "PATH": "/usr/bin:/bin", "TERM": "xterm", "LANG": "C.UTF-8"})

deadline = time.monotonic() + 60
screen = b""

reaped = False

def fail(why):
    if not reaped:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    text = re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", screen).decode("utf-8", "replace")
    sys.exit(f"library-check: {why}; the program's terminal showed:\n{text[-2000:]}")

def read_some():
    global screen
    ready, _, _ = select.select([master], [], [], max(0, deadline - time.monotonic()))
    if not ready:
        return False
    try:
        chunk = os.read(master, 4096)
    except OSError:  # EIO: the program closed the terminal
        return False
    screen += chunk
    return bool(chunk)

def plain():
    return re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", screen)

def wait_for(condition, what):
    while not condition():
        if time.monotonic() > deadline or not read_some():
            fail(f"no {what}")

def raw_mode():
    return not termios.tcgetattr(master)[3] & termios.ICANON

wait_for(lambda: b"Card number" in plain() and raw_mode(), "card number prompt in raw mode")
os.write(master, b"4111111111111111")
wait_for(lambda: b"Expiry" in plain(), "expiry field after the number")
os.write(master, b"1230")
wait_for(lambda: b"CVV" in plain(), "CVV field after the expiry")
os.write(master, b"123\r")
while time.monotonic() < deadline and read_some():
    pass
if time.monotonic() >= deadline:
    fail("end of the program within 60 s")
_, status = os.waitpid(pid, 0)
reaped = True
if not re.search(rb"charging Visa 411111\S*1111", plain()):
    fail("\"charging Visa 411111...1111\" from the program")
if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
    fail(f"exit 0 (wait status {status})")
