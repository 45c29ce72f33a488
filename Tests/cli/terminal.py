#!/usr/bin/env python3
"""terminal.py — runs one command in a pseudo-terminal and checks the bytes
that reach it (standard output and standard error both go to the terminal).

usage: terminal.py [--screen] [--keys DELAY:TEXT]... [--then SECONDS:COMMAND]...
                   [--stop SECONDS] -- COMMAND [ARG...]

--keys DELAY:TEXT   types TEXT (Python escapes, e.g. q or \\r) DELAY seconds
                    after the start.
--then S:COMMAND    runs COMMAND with sh -c, S seconds after the start (to
                    change a domain while `prefs watch` runs).
--stop SECONDS      sends SIGTERM after SECONDS (for commands that never end).
--screen            the command draws a full screen (curses): its own escape
                    sequences are allowed, only the hostile text is looked for.

Exit status: 0 when the bytes are clean, 1 otherwise (with the offending
bytes shown), 2 on bad usage. The command's own exit status is printed as
"status N" on the last line, and the captured bytes are written to the
file named by $TERMINAL_LOG when it is set.

Clean means: no ESC, no C1 control (U+0080..U+009F as UTF-8, or a lone byte
0x80..0x9F outside UTF-8), no DEL, no C0 control but newline, tab and a
carriage return directly before a newline (the terminal's own ONLCR), and no
text-direction mark, override or isolate. With --screen: none of the
hostile payloads (an OSC title sequence, a screen clear right after text, a
C1 control, a direction override) appear.
"""

import os
import pty
import re
import select
import signal
import subprocess
import sys
import time

BIDI = [0x061C, 0x200E, 0x200F] + list(range(0x202A, 0x202F)) + list(range(0x2066, 0x206A))


def run(argv, keys, thens, stop):
    pid, fd = pty.fork()
    if pid == 0:
        os.environ.setdefault("TERM", "xterm")
        try:
            os.execvp(argv[0], argv)
        except OSError as e:
            os.write(2, f"cannot run {argv[0]}: {e}\n".encode())
            os._exit(127)
    start = time.monotonic()
    out = bytearray()
    pending = sorted(keys)
    actions = sorted(thens)
    stopped = False
    status = None
    while True:
        now = time.monotonic() - start
        while pending and pending[0][0] <= now:
            os.write(fd, pending.pop(0)[1])
        while actions and actions[0][0] <= now:
            subprocess.run(actions.pop(0)[1], shell=True, check=False)
        if stop is not None and now >= stop and not stopped:
            os.kill(pid, signal.SIGTERM)
            stopped = True
        if now > 60:
            os.kill(pid, signal.SIGKILL)
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b""
            if not data:
                break
            out += data
        else:
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = st
                # Whatever is still buffered in the terminal.
                while True:
                    r, _, _ = select.select([fd], [], [], 0.1)
                    if not r:
                        break
                    try:
                        data = os.read(fd, 65536)
                    except OSError:
                        break
                    if not data:
                        break
                    out += data
                break
    if status is None:
        _, status = os.waitpid(pid, 0)
    os.close(fd)
    return bytes(out), os.waitstatus_to_exitcode(status)


def problems(data, screen):
    found = []
    if screen:
        for pattern, what in [
            (rb"\x1b\]0;pwned", "an OSC window-title sequence from the data"),
            (rb"\x1b\[2Jfake", "a screen clear from the data"),
            (rb"\r[^\n\x1b]{0,3}fake", "a carriage return from the data"),
            (rb"\xc2[\x80-\x9f]", "a C1 control"),
        ]:
            for m in re.finditer(pattern, data):
                found.append((m.start(), what))
        text = data.decode("utf-8", "replace")
        for i, ch in enumerate(text):
            if ord(ch) in BIDI:
                found.append((i, f"U+{ord(ch):04X}, a text-direction control"))
        return found
    text = data.decode("utf-8", "surrogateescape")
    for i, ch in enumerate(text):
        c = ord(ch)
        if c == 0x0D:
            if i + 1 < len(text) and text[i + 1] == "\n":
                continue
            found.append((i, "a carriage return"))
        elif c == 0x1B:
            found.append((i, "ESC"))
        elif c < 0x20 and ch not in "\n\t":
            found.append((i, f"C0 control 0x{c:02x}"))
        elif c == 0x7F:
            found.append((i, "DEL"))
        elif 0x80 <= c <= 0x9F:
            found.append((i, f"C1 control U+{c:04X}"))
        elif 0xDC80 <= c <= 0xDC9F:
            found.append((i, f"a lone byte 0x{c - 0xDC00:02x} (C1)"))
        elif c in BIDI:
            found.append((i, f"U+{c:04X}, a text-direction control"))
    return found


def main():
    args = sys.argv[1:]
    keys, thens, stop, screen = [], [], None, False
    while args and args[0] != "--":
        opt = args.pop(0)
        if opt == "--screen":
            screen = True
        elif opt in ("--keys", "--then", "--stop") and args:
            value = args.pop(0)
            if opt == "--stop":
                stop = float(value)
                continue
            delay, _, rest = value.partition(":")
            if opt == "--keys":
                keys.append((float(delay), rest.encode().decode("unicode_escape").encode("latin-1")))
            else:
                thens.append((float(delay), rest))
        else:
            print(__doc__, file=sys.stderr)
            return 2
    if not args or len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    data, status = run(args[1:], keys, thens, stop)
    if os.environ.get("TERMINAL_LOG"):
        with open(os.environ["TERMINAL_LOG"], "wb") as f:
            f.write(data)
    found = problems(data, screen)
    for pos, what in found[:5]:
        print(f"byte {pos}: {what}: {data[max(0, pos - 20):pos + 20]!r}")
    print(f"status {status}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
