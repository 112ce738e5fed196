#!/usr/bin/env python3
"""ptyfuzz.py: fuzzes the real cardline binary on a pseudo-terminal (issue 36, item 2).

Each session starts cardline on a pty of its own, in a session of its own (setsid, the pty its
controlling terminal, as a real prompt is), with a temporary HOME and XDG folders and a clean
environment (nothing from the caller: no CARDLINE_*, no SWIFT_BACKTRACE). A seed decides
everything: the mode (default, --accessible, --name --postal-code US, --cvv-only, --print
--once with stdout a pipe), the language (LANG or --locale), TERM, the first window size and
a timeline of what is sent and when: random byte bursts, escape sequences (arrows, function
keys, CSI with odd parameters, OSC, bracketed pastes, unterminated ones too), card swipes,
Ctrl keys, ':' commands, resizes (TIOCSWINSZ on the master, then SIGWINCH), signals (WINCH,
TSTP then CONT, STOP then CONT, INT, TERM, QUIT) and waits for raw mode (so that both the
start-up and the prompt itself are hit). The pacing of bursts is time-based (it is part of
the random input); nothing that is asserted waits a fixed time: the exit is watched through
a pidfd, the terminal's state through tcgetattr, all with deadlines.

A session ends with a finale: the pty closed (hang-up), SIGTERM, or keys (Ctrl-C Ctrl-D,
then :quit; SIGTERM if they do not end it). Findings:
  crash  exit by SIGSEGV/SIGBUS/SIGILL/SIGABRT/SIGTRAP/SIGFPE, or output holding
         'Program crashed', 'Backtrac', 'Thread 0' or 'Press space' (the Swift runtime's
         backtracer ran);
  hang   still running --exit-timeout seconds after SIGTERM (or the pty's close);
  tty    the terminal left in a bad state after an exit the program handled (termios
         ICANON/ECHO/ISIG/IXON/ICRNL/OPOST not as before, bracketed paste left on).
Each finding is written to .build/pty-fuzz/<kind>-<seed>.json with the seed, argv,
environment, window size, the exact timeline of what was sent and when (seconds since the
spawn), the exit status, the kernel's lines about the process (/dev/kmsg: 'overflowed
sigaltstack', segfaults), the output's tail and, for a hang, each thread's kernel stack and
gdb's backtrace of every thread (PTY_FUZZ_GDB=0 leaves gdb out). The records may hold the fake test card
numbers the fuzzer sent; nothing printed on stdout holds card digits.

Usage:
  ptyfuzz.py --binary .build/debug/cardline --sessions 40          (make test's smoke run)
  ptyfuzz.py --binary .build/debug/cardline --seconds 3600 --jobs 2  (make fuzz)
  ptyfuzz.py --binary ... --seed 12345          one session, planned again from its seed
  ptyfuzz.py --binary ... --replay FILE         one recorded session, its timeline replayed
  (--repeat N with either: a finding that hangs on timing, such as a key during start-up,
  does not come back every time)
Options --mode/--lang/--term pin one choice; --base-seed makes a whole run repeatable.
The last line says "pty-fuzz: N sessions, C crashes, H hangs, T terminal states"; the exit
status is 1 when anything was found.
"""

import argparse
import errno
import fcntl
import json
import os
import random
import re
import select
import shutil
import signal
import struct
import sys
import tempfile
import termios
import threading
import time

S = signal.Signals
CRASH_SIGNALS = {S.SIGSEGV, S.SIGBUS, S.SIGILL, S.SIGABRT, S.SIGTRAP, S.SIGFPE}
CRASH_TEXTS = [b"Program crashed", b"Backtrac", b"Thread 0", b"Press space"]

MODES = {
    "default": [],
    "accessible": ["--accessible"],
    "name-postal": ["--name", "--postal-code", "US"],
    "cvv-only": ["--cvv-only", "--network", "visa"],
    "print-once": ["--print", "--once"],
    # `--record` (issue 41): the session written as a script under the session's own HOME.
    "record": ["--record", "{home}/recorded.session"],
}
LANGS = ["en_US.UTF-8", "fr_FR.UTF-8", "de_DE.UTF-8", "es_ES.UTF-8", "C"]
TERMS = ["xterm-256color", "vt100", "dumb", "tmux-256color", "screen"]
SIZES = [(200, 60), (140, 40), (80, 24), (40, 12), (20, 5), (10, 3), (1, 1)]

SWIPE = b"%B4111111111111111^DOE/JANE^3012101000000000000000?;4111111111111111=30121010000000000000?\r"
CARDS = [b"4111111111111111", b"5555555555554444", b"378282246310005", b"6011111111111117",
         b"4111 1111 1111 1111", b"3530111333300000", b"4000056655665556"]
CTRL = {"C-c": b"\x03", "C-d": b"\x04", "C-z": b"\x1a", "C-\\": b"\x1c", "C-u": b"\x15", "C-n": b"\x0e",
        "BS": b"\x7f", "C-h": b"\x08", "C-l": b"\x0c", "C-s": b"\x13", "C-q": b"\x11", "Tab": b"\t",
        "Enter": b"\r", "LF": b"\n", "Esc": b"\x1b", "C-w": b"\x17", "C-a": b"\x01", "C-e": b"\x05",
        "NUL": b"\x00", "C-_": b"\x1f", "C-^": b"\x1e"}
KEYS = [b"\x1b[A", b"\x1b[B", b"\x1b[C", b"\x1b[D", b"\x1bOA", b"\x1bOD", b"\x1b[H", b"\x1b[F", b"\x1b[1~",
        b"\x1b[4~", b"\x1b[3~", b"\x1b[2~", b"\x1b[5~", b"\x1b[6~", b"\x1bOP", b"\x1bOQ", b"\x1bOR", b"\x1bOS",
        b"\x1b[15~", b"\x1b[17~", b"\x1b[24~", b"\x1b[1;5C", b"\x1b[1;3D", b"\x1b[3;5~", b"\x1b[Z", b"\x1bb",
        b"\x1bf", b"\x1b\x7f", b"\x1b\x1b", b"\x1b[13;40R", b"\x1b[?1;2c", b"\x1b[I", b"\x1b[O"]
COMMANDS = [b":help\r", b":rules\r", b":network visa\r", b":network mastercard\r", b":clear\r", b":\r",
            b":nosuch\r", b":quit\r", b":network \xff\r", b":" + b"x" * 300 + b"\r"]


def hexs(data):
    return data.hex()


# ---------------------------------------------------------------- the plan, from a seed

def csi_odd(r):
    """A CSI sequence with odd parameters: huge numbers, many fields, private markers,
    intermediates, a random final byte, or none."""
    parts = []
    for _ in range(r.randint(0, 12)):
        parts.append(r.choice([b"", b"0", b"1", b"65535", b"4294967296", b"9" * r.randint(10, 60),
                               b"-1", b"?", b">", b"=", b":", str(r.randint(0, 999)).encode()]))
    body = b";".join(parts)
    inter = r.choice([b"", b"", b" ", b"$", b"!", b"\"", b"\x7f", b"\x18"])
    final = bytes([r.randint(0x40, 0x7e)]) if r.random() < 0.9 else b""
    intro = r.choice([b"\x1b[", b"\x1b[?", b"\x1b[>", b"\x9b", b"\x1bO", b"\x1b]", b"\x1bP"])
    return intro + body + inter + final


def paste(r, payload=None):
    if payload is None:
        payload = r.choice([r.choice(CARDS), SWIPE, bytes(r.getrandbits(8) for _ in range(r.randint(0, 200))),
                            b"4111 1111\r1111 1111", b"\x1b[200~nested", b"12/30\t123\r",
                            ("é€𝄞中文" * r.randint(1, 40)).encode(), b"1" * r.randint(100, 5000)])
    end = r.random()
    tail = b"\x1b[201~" if end < 0.7 else (b"\x1b[201" if end < 0.8 else b"")
    return b"\x1b[200~" + payload + tail


def swipe(r):
    s = SWIPE
    k = r.random()
    if k < 0.4:
        return s
    if k < 0.6:
        return s[: r.randint(1, len(s) - 1)]
    if k < 0.8:
        b = bytearray(s)
        for _ in range(r.randint(1, 8)):
            b[r.randrange(len(b))] = r.getrandbits(8)
        return bytes(b)
    return b";4111111111111111=3012101?\r"


def burst(r):
    """One write's worth of input."""
    k = r.choices(["random", "digits", "card", "key", "csi", "paste", "swipe", "ctrl", "command",
                   "utf8", "mixed"], [8, 10, 8, 10, 8, 6, 6, 12, 4, 3, 8])[0]
    if k == "random":
        return bytes(r.getrandbits(8) for _ in range(r.choice([1, 2, 3, 8, 32, 200, 1000])))
    if k == "digits":
        return bytes(r.choice(b"0123456789") for _ in range(r.randint(1, 20)))
    if k == "card":
        return r.choice(CARDS) + r.choice([b"", b"\r", b"1230", b"12/30\r123\r", b"\t", b"1230123\rJANE DOE\r10001\r"])
    if k == "key":
        return r.choice(KEYS) * r.choice([1, 1, 2, 5])
    if k == "csi":
        return csi_odd(r)
    if k == "paste":
        return paste(r)
    if k == "swipe":
        return swipe(r)
    if k == "ctrl":
        return r.choice(list(CTRL.values())) * r.choice([1, 1, 1, 2, 3])
    if k == "command":
        return r.choice(COMMANDS)
    if k == "utf8":
        return r.choice(["é", "ß", "中", "😀", "\u0301", "\u202e", "ｆ"]).encode() * r.randint(1, 5) + \
            r.choice([b"", b"\xc3", b"\xff", b"\xe2\x82"])
    return b"".join(burst(r) for _ in range(r.randint(2, 6)))


def make_plan(seed, pins, duration):
    r = random.Random(seed)
    mode = pins.get("mode") or r.choice(list(MODES))
    lang = pins.get("lang") or r.choice(LANGS)
    term = pins.get("term") or r.choice(TERMS)
    cols, rows = r.choice(SIZES[:4]) if r.random() < 0.8 else r.choice(SIZES)
    args = list(MODES[mode])
    env = {"TERM": term}
    if r.random() < 0.5:
        env["LANG"] = lang
    else:
        env["LANG"] = "C.UTF-8"
        args += ["--locale", lang]
    if r.random() < 0.3:
        args.append("--no-color")
    if r.random() < 0.3:
        args.append("--no-history")
    if r.random() < 0.1:
        args += ["--timeout", str(r.choice([0.2, 1, 2]))]
    steps = []
    # Half the sessions wait for the prompt first; the others hit the start-up too.
    if r.random() < 0.5:
        steps.append({"after": 0.0, "op": "sync_raw"})
    t_budget = duration * r.uniform(0.3, 1.0)
    t = 0.0
    while t < t_budget:
        gap = min(r.expovariate(1 / 0.04), 0.5) if r.random() < 0.9 else 0.0
        t += gap
        weights = {"mixed": [70, 12, 10, 4], "bytes": [100, 0, 0, 0], "bytes-resize": [80, 20, 0, 0]}[pins.get("profile") or "mixed"]
        k = r.choices(["bytes", "resize", "signal", "sync_raw"], weights)[0]
        if k == "bytes":
            data = burst(r) if (pins.get("profile") or "mixed") == "mixed" else \
                bytes(r.getrandbits(8) for _ in range(r.choice([1, 4, 16, 64, 256])))
            # Sometimes a burst goes out in pieces (a slow link, a swipe's reader).
            if len(data) > 1 and r.random() < 0.2:
                cut = r.randint(1, len(data) - 1)
                steps.append({"after": gap, "op": "write", "hex": hexs(data[:cut])})
                steps.append({"after": r.choice([0.0, 0.01, 0.05, 0.12, 0.3]), "op": "write", "hex": hexs(data[cut:])})
            else:
                steps.append({"after": gap, "op": "write", "hex": hexs(data)})
        elif k == "resize":
            c, rw = (r.randint(1, 200), r.randint(1, 60)) if r.random() < 0.5 else r.choice(SIZES)
            steps.append({"after": gap, "op": "resize", "cols": c, "rows": rw})
            if r.random() < 0.3:  # a storm of resizes, down to 1x1
                for c2 in r.sample([200, 120, 80, 40, 20, 5, 2, 1], r.randint(2, 8)):
                    steps.append({"after": r.choice([0.0, 0.001, 0.01]), "op": "resize", "cols": c2, "rows": max(1, c2 * 60 // 200)})
        elif k == "signal":
            sig = r.choices(["WINCH", "TSTP", "STOP", "INT", "TERM", "QUIT"], [30, 20, 20, 5, 3, 5])[0]
            steps.append({"after": gap, "op": "signal", "sig": sig})
            if sig in ("TSTP", "STOP"):
                if r.random() < 0.3:  # keys typed while it is stopped
                    steps.append({"after": 0.01, "op": "write", "hex": hexs(burst(r))})
                steps.append({"after": r.choice([0.0, 0.005, 0.05, 0.2]), "op": "signal", "sig": "CONT"})
        else:
            steps.append({"after": gap, "op": "sync_raw"})
    finale = r.choice(["close", "term", "keys"])
    return {"seed": seed, "profile": pins.get("profile") or "mixed", "mode": mode, "args": args, "env": env, "cols": cols, "rows": rows,
            "steps": steps, "finale": finale}


# ---------------------------------------------------------------- the kernel's log

class KernelLog:
    """Lines of /dev/kmsg written while the fuzzer runs, by the pid they name."""

    def __init__(self):
        self.lock = threading.Lock()
        self.fd = None
        self.lines = []
        try:
            self.fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
            os.lseek(self.fd, 0, os.SEEK_END)
        except OSError:
            self.fd = None

    def about(self, pid):
        if self.fd is None:
            return []
        with self.lock:
            while True:
                try:
                    rec = os.read(self.fd, 8192)
                except BlockingIOError:
                    break
                except OSError as e:
                    if e.errno == errno.EPIPE:  # overwritten records: go on
                        continue
                    break
                if not rec:
                    break
                text = rec.decode("utf-8", "replace")
                self.lines.append(text.split(";", 1)[-1].strip())
            self.lines = self.lines[-2000:]
            tag = "[%d]" % pid
            return [line for line in self.lines if tag in line]


KMSG = None


# ---------------------------------------------------------------- one session

class Session:
    def __init__(self, binary, plan, exit_timeout, replay_log=None):
        self.binary = binary
        self.plan = plan
        self.exit_timeout = exit_timeout
        self.replay_log = replay_log
        self.log = []
        self.out = bytearray()
        self.piped = bytearray()
        self.status = None
        self.findings = []

    def _now(self):
        return time.monotonic() - self.t0

    def _note(self, op, **fields):
        entry = {"t": round(self._now(), 4), "op": op}
        entry.update(fields)
        self.log.append(entry)

    def _spawn(self):
        self.home = tempfile.mkdtemp(prefix="cardline-ptyfuzz-")
        for sub in ("config", "state", "data", "cache", "runtime"):
            os.makedirs(os.path.join(self.home, sub), mode=0o700)
        env = {"HOME": self.home, "PATH": "/usr/bin:/bin",
               "XDG_CONFIG_HOME": self.home + "/config", "XDG_STATE_HOME": self.home + "/state",
               "XDG_DATA_HOME": self.home + "/data", "XDG_CACHE_HOME": self.home + "/cache",
               "XDG_RUNTIME_DIR": self.home + "/runtime"}
        env.update(self.plan["env"])
        self.env = env
        self.master, self.slave = os.openpty()
        fcntl.ioctl(self.master, termios.TIOCSWINSZ, struct.pack("HHHH", self.plan["rows"], self.plan["cols"], 0, 0))
        self.initial = termios.tcgetattr(self.slave)
        os.set_blocking(self.master, False)
        slave_path = os.ttyname(self.slave)
        actions = [(os.POSIX_SPAWN_OPEN, 0, slave_path, os.O_RDWR, 0)]
        self.pipe_r = None
        if self.plan["mode"] == "print-once":
            self.pipe_r, pipe_w = os.pipe()
            actions.append((os.POSIX_SPAWN_DUP2, pipe_w, 1))
        else:
            actions.append((os.POSIX_SPAWN_DUP2, 0, 1))
        actions.append((os.POSIX_SPAWN_DUP2, 0, 2))
        # A wrapper that execs the binary in place (same pid), e.g. setpriv to drop a
        # capability from the bounding set as a container does.
        wrap = self.plan.get("wrap") or []
        argv = wrap + [self.binary] + [arg.replace("{home}", self.home) for arg in self.plan["args"]]
        every = set(signal.valid_signals()) - {signal.SIGKILL, signal.SIGSTOP}
        self.t0 = time.monotonic()
        # setsid first, then the slave opened as fd 0: it becomes the controlling terminal.
        self.pid = os.posix_spawn(argv[0], argv, env, file_actions=actions, setsid=True,
                                  setsigmask=[], setsigdef=every)
        if self.pipe_r is not None:
            os.close(pipe_w)
            os.set_blocking(self.pipe_r, False)
        self.pidfd = os.pidfd_open(self.pid)
        self.pending = bytearray()  # bytes not yet taken by the pty (it was full)

    def _drain(self, timeout):
        """Reads what is there (waiting up to `timeout`), keeps writing pending input; True once
        the child has exited (and is reaped)."""
        if self.status is not None:
            return True
        fds = [self.pidfd]
        if self.master is not None:
            fds.append(self.master)
        if self.pipe_r is not None:
            fds.append(self.pipe_r)
        wfds = [self.master] if self.pending and self.master is not None else []
        readable, writable, _ = select.select(fds, wfds, [], max(0.0, timeout))
        if self.master is not None and self.master in readable:
            try:
                self.out += os.read(self.master, 65536)
            except OSError:
                pass
        if self.pipe_r is not None and self.pipe_r in readable:
            try:
                data = os.read(self.pipe_r, 65536)
                if data:
                    self.piped += data
                else:
                    os.close(self.pipe_r)
                    self.pipe_r = None
            except OSError:
                pass
        if writable and self.pending:
            self._push()
        if self.pidfd in readable:
            _, status = os.waitpid(self.pid, 0)
            self.status = status
            self._note("exited", status=self._describe_status())
            self._drain_rest(0.25)
            return True
        return False

    def _drain_rest(self, quiet):
        """What the child wrote before it ended and the pty has not passed on yet (a pty hands
        output over through a kernel worker, after the write): read until nothing more comes
        for `quiet` seconds (at most 40 such waits)."""
        for _ in range(40):
            fds = [fd for fd in (self.master, self.pipe_r) if fd is not None]
            if not fds:
                return
            readable, _, _ = select.select(fds, [], [], quiet)
            if not readable:
                return
            for fd in readable:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    data = b""
                if fd == self.master:
                    self.out += data
                elif data:
                    self.piped += data
                else:
                    os.close(self.pipe_r)
                    self.pipe_r = None

    def _push(self):
        try:
            n = os.write(self.master, self.pending)
        except BlockingIOError:
            return
        except OSError:
            self.pending.clear()
            return
        if n:
            self._note("written", hex=hexs(bytes(self.pending[:n])))
            del self.pending[:n]

    def _wait(self, seconds):
        end = time.monotonic() + seconds
        while True:
            left = end - time.monotonic()
            if self._drain(max(0.0, min(left, 0.05))):
                return True
            if left <= 0:
                return False

    def _raw(self):
        try:
            return not (termios.tcgetattr(self.slave)[3] & termios.ICANON)
        except termios.error:
            return False

    def _sync_raw(self, limit=8.0):
        end = time.monotonic() + limit
        while not self._raw():
            if self._drain(0.005) or time.monotonic() > end:
                self._note("sync_raw", reached=False)
                return
        self._note("sync_raw", reached=True)

    def _do(self, step):
        op = step["op"]
        if op in ("write", "written"):
            data = bytes.fromhex(step["hex"])
            self.pending += data
            self._push()
        elif op == "resize":
            fcntl.ioctl(self.master, termios.TIOCSWINSZ, struct.pack("HHHH", step["rows"], step["cols"], 0, 0))
            os.kill(self.pid, signal.SIGWINCH)
            self._note("resize", cols=step["cols"], rows=step["rows"])
        elif op == "signal":
            os.kill(self.pid, getattr(signal, "SIG" + step["sig"]))
            self._note("signal", sig=step["sig"])
        elif op == "sync_raw":
            self._sync_raw()
        elif op == "close":
            self._close_master()
        elif op == "term":
            os.kill(self.pid, signal.SIGTERM)
            self._note("signal", sig="TERM")

    def _close_master(self):
        if self.master is not None:
            os.close(self.master)
            self.master = None
            self.pending.clear()
            self._note("close")

    def _describe_status(self):
        st = self.status
        if os.WIFSIGNALED(st):
            return "signal %s" % signal.Signals(os.WTERMSIG(st)).name
        if os.WIFEXITED(st):
            return "exit %d" % os.WEXITSTATUS(st)
        return "status %d" % st

    def run(self):
        self._spawn()
        try:
            self._run_steps()
            self._finale()
            self._judge()
        finally:
            self._cleanup()
        return self

    def _run_steps(self):
        if self.replay_log is not None:
            # The recorded timeline: each operation at its recorded distance from the one before
            # (a wait for raw mode waits again, and the rest shifts with it).
            steps, last = [], 0.0
            for entry in self.replay_log:
                if entry["op"] in ("exited",):
                    continue
                after = 0.0 if entry["op"] == "sync_raw" else max(0.0, entry["t"] - last)
                steps.append(dict(entry, after=after))
                last = entry["t"]
            self.plan = dict(self.plan, finale="none")
        else:
            steps = self.plan["steps"]
        for step in steps:
            if step.get("after", 0.0) > 0 and self._wait(step["after"]):
                return
            if self._drain(0.0):
                return
            if step["op"] == "sync_raw" and self.replay_log is not None:
                self._sync_raw()
                continue
            self._do(step)

    def _finale(self):
        finale = self.plan["finale"]
        if self.status is not None:
            return
        if finale == "none":  # a replay: its own log held the finale; then SIGTERM, as any
            if self._wait(2.0):
                return
            finale = "term"
        if finale == "keys":
            # Any paste or swipe ended, the card cancelled, end of input; then :quit.
            self.pending += b"\x1b[201~\r"
            self._push()
            if self._wait(0.3):
                return
            self.pending += b"\x03\x15\x04"
            self._push()
            if self._wait(1.5):
                return
            self.pending += b"\x15:quit\r"
            self._push()
            if self._wait(3.5):
                return
            finale = "term"  # not a finding by itself
        if finale == "close":
            self._close_master()
        else:
            os.kill(self.pid, signal.SIGTERM)
            self._note("signal", sig="TERM")
        if self._wait(self.exit_timeout):
            return
        self.findings.append(("hang", "still running %.1fs after the %s" % (self.exit_timeout, finale)))
        self.hang_info = self._hang_info()
        os.kill(self.pid, signal.SIGKILL)
        self._note("kill")
        self._wait(5.0)

    def _hang_info(self):
        info = {}
        try:
            with open("/proc/%d/stat" % self.pid) as f:
                info["stat"] = f.read().strip()
            tasks = os.listdir("/proc/%d/task" % self.pid)
            info["threads"] = {}
            for tid in tasks:
                entry = {}
                for name in ("wchan", "stat", "stack"):
                    try:
                        with open("/proc/%d/task/%s/%s" % (self.pid, tid, name)) as f:
                            entry[name] = f.read().strip()[-2000:]
                    except OSError:
                        pass
                info["threads"][tid] = entry
        except OSError:
            pass
        if shutil.which("gdb") and os.environ.get("PTY_FUZZ_GDB", "1") != "0":
            import subprocess
            try:
                bt = subprocess.run(["gdb", "-q", "-batch", "-p", str(self.pid), "-ex", "thread apply all bt 30"],
                                    capture_output=True, timeout=60, text=True)
                info["gdb"] = bt.stdout[-12000:]
            except Exception as e:  # noqa: BLE001 (diagnostics only)
                info["gdb"] = "gdb failed: %s" % e
        return info

    def _judge(self):
        everything = bytes(self.out) + bytes(self.piped)
        texts = [t.decode() for t in CRASH_TEXTS if t in everything]
        st = self.status
        if st is not None and os.WIFSIGNALED(st) and os.WTERMSIG(st) in CRASH_SIGNALS:
            self.findings.append(("crash", "ended by %s" % signal.Signals(os.WTERMSIG(st)).name))
        elif texts:
            self.findings.append(("crash", "the Swift backtracer ran: " + ", ".join(texts)))
        handled = st is not None and not any(k == "hang" for k, _ in self.findings) and \
            not any(e["op"] == "close" for e in self.log) and \
            not (os.WIFSIGNALED(st) and os.WTERMSIG(st) in CRASH_SIGNALS | {signal.SIGKILL})
        if handled:
            try:
                now = termios.tcgetattr(self.slave)
            except termios.error:
                now = None
            if now is not None:
                bad = []
                for index, name, mask in ((3, "lflag", termios.ICANON | termios.ECHO | termios.ISIG | termios.IEXTEN | termios.ECHONL),
                                          (0, "iflag", termios.IXON | termios.ICRNL),
                                          (1, "oflag", termios.OPOST)):
                    if (now[index] & mask) != (self.initial[index] & mask):
                        bad.append("%s %#o, was %#o" % (name, now[index] & mask, self.initial[index] & mask))
                on, off = self.out.rfind(b"\x1b[?2004h"), self.out.rfind(b"\x1b[?2004l")
                if on > off:  # once more, with time for a busy machine's pty to pass it on
                    self._drain_rest(1.0)
                    on, off = self.out.rfind(b"\x1b[?2004h"), self.out.rfind(b"\x1b[?2004l")
                if on > off:
                    bad.append("bracketed paste left on")
                if bad:
                    self.findings.append(("tty", "; ".join(bad)))
        self.kernel = KMSG.about(self.pid) if KMSG else []

    def _cleanup(self):
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except OSError:
                pass
        for fd in (self.master, self.slave, self.pipe_r, self.pidfd):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        shutil.rmtree(self.home, ignore_errors=True)

    def record(self, out_dir):
        kind = self.findings[0][0]
        os.makedirs(out_dir, exist_ok=True)
        path = os.path.join(out_dir, "%s-%d.json" % (kind, self.plan["seed"]))
        tail = bytes(self.out[-6000:])
        crash_at = max((bytes(self.out).find(t) for t in CRASH_TEXTS), default=-1)
        record = {
            "seed": self.plan["seed"], "findings": self.findings, "binary": self.binary,
            "argv": [self.binary] + self.plan["args"], "env": {k: v for k, v in self.env.items() if k not in ("HOME",) and not k.startswith("XDG_")},
            "mode": self.plan["mode"], "cols": self.plan["cols"], "rows": self.plan["rows"],
            "finale": self.plan["finale"], "status": self._describe_status() if self.status is not None else None,
            "kernel": getattr(self, "kernel", []),
            "timeline": self.log,
            "output_tail": tail.decode("utf-8", "backslashreplace"),
            "crash_text": bytes(self.out[max(0, crash_at - 200): crash_at + 3000]).decode("utf-8", "backslashreplace") if crash_at >= 0 else None,
            "piped_tail": bytes(self.piped[-2000:]).decode("utf-8", "backslashreplace"),
            "hang": getattr(self, "hang_info", None),
            "plan": self.plan,
        }
        with open(path, "w") as f:
            json.dump(record, f, indent=1)
        return path


# ---------------------------------------------------------------- the run

def main():
    global KMSG
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description="Fuzz cardline on a pty (see the header of this file).")
    ap.add_argument("--binary", default=os.path.join(here, "..", "..", ".build", "debug", "cardline"))
    ap.add_argument("--sessions", type=int, help="run this many sessions")
    ap.add_argument("--seconds", type=float, help="run sessions for this long")
    ap.add_argument("--seed", type=int, help="run the one session planned from this seed")
    ap.add_argument("--replay", help="replay a recorded session's timeline")
    ap.add_argument("--repeat", type=int, default=1, help="with --seed or --replay: run it this many times "
                    "(a finding that hangs on timing, like a key during start-up, does not come every time)")
    ap.add_argument("--base-seed", type=int, help="the seed the sessions' seeds are drawn from")
    ap.add_argument("--jobs", type=int, default=1, help="sessions at once")
    ap.add_argument("--duration", type=float, default=1.5, help="the longest a session's input runs, seconds")
    ap.add_argument("--exit-timeout", type=float, default=5.0, help="seconds to exit after SIGTERM or the pty's close")
    ap.add_argument("--out", default=os.path.join(here, "..", "..", ".build", "pty-fuzz"))
    ap.add_argument("--profile", choices=["mixed", "bytes", "bytes-resize"], default="mixed",
                    help="what a session sends: everything (mixed), only random byte bursts, or those and resizes")
    ap.add_argument("--wrap", default="", help="a command that execs the binary in place, as in "
                    "--wrap 'setpriv --bounding-set=-sys_ptrace' (cardline in a container without CAP_SYS_PTRACE)")
    ap.add_argument("--mode", choices=list(MODES))
    ap.add_argument("--lang", choices=LANGS)
    ap.add_argument("--term", choices=TERMS)
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--verbose", action="store_true", help="a line for every session")
    a = ap.parse_args()
    binary = os.path.abspath(a.binary)
    if not os.access(binary, os.X_OK):
        print("pty-fuzz: no binary at %s (swift build --product cardline)" % binary, file=sys.stderr)
        return 2
    out_dir = os.path.abspath(a.out)
    KMSG = KernelLog()
    pins = {"mode": a.mode, "lang": a.lang, "term": a.term, "profile": a.profile}
    wrap = [w if i else (shutil.which(w) or w) for i, w in enumerate(a.wrap.split())]
    counts = {"sessions": 0, "crash": 0, "hang": 0, "tty": 0}
    lock = threading.Lock()
    found = []

    def one(plan, replay_log=None):
        if wrap:
            plan["wrap"] = wrap
        s = Session(binary, plan, a.exit_timeout, replay_log).run()
        with lock:
            counts["sessions"] += 1
            if s.findings:
                path = s.record(out_dir)
                for kind, _ in s.findings[:1]:
                    counts[kind] += 1
                found.append(path)
                print("pty-fuzz: seed %d (%s, TERM=%s, %s): %s -> %s" % (
                    plan["seed"], plan["mode"], plan["env"].get("TERM"), s._describe_status() if s.status is not None else "?",
                    "; ".join("%s: %s" % f for f in s.findings), os.path.relpath(path)), flush=True)
            elif a.verbose or (not a.quiet and (a.seed is not None or a.replay)):
                print("pty-fuzz: seed %d (%s, TERM=%s, finale %s, %d steps): %s, nothing found" % (
                    plan["seed"], plan["mode"], plan["env"].get("TERM"), plan["finale"], len(s.log), s._describe_status()), flush=True)
        return s

    if a.replay:
        with open(a.replay) as f:
            rec = json.load(f)
        plan = rec["plan"]
        plan["args"] = rec["argv"][len(plan.get("wrap") or []) + 1:]
        for _ in range(a.repeat):
            one(dict(plan), [e for e in rec["timeline"] if e["op"] != "kill"])
    elif a.seed is not None:
        for _ in range(a.repeat):
            one(make_plan(a.seed, pins, a.duration))
    else:
        base = a.base_seed if a.base_seed is not None else int.from_bytes(os.urandom(4), "little")
        master = random.Random(base)
        print("pty-fuzz: base seed %d (--base-seed %d repeats this run)" % (base, base), flush=True)
        deadline = time.monotonic() + a.seconds if a.seconds else None
        limit = a.sessions if a.sessions else (None if deadline else 40)
        issued = [0]

        def next_plan():
            with lock:
                if limit is not None and issued[0] >= limit:
                    return None
                if deadline is not None and time.monotonic() >= deadline:
                    return None
                issued[0] += 1
                return make_plan(master.getrandbits(31), pins, a.duration)

        def worker():
            while True:
                plan = next_plan()
                if plan is None:
                    return
                one(plan)
                if not a.quiet and counts["sessions"] % 100 == 0:
                    print("pty-fuzz: ... %d sessions, %d crashes, %d hangs, %d terminal states" % (
                        counts["sessions"], counts["crash"], counts["hang"], counts["tty"]), flush=True)

        threads = [threading.Thread(target=worker) for _ in range(max(1, a.jobs))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    print("pty-fuzz: %d sessions, %d crashes, %d hangs, %d terminal states" % (
        counts["sessions"], counts["crash"], counts["hang"], counts["tty"]), flush=True)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
