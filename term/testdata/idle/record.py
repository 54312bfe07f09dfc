#!/usr/bin/env python3
"""Records the idle-release corpus: real programs run in an 80x24 PTY, their
output saved byte for byte (term/park_test.go replays it). Re-run with
`python3 term/testdata/idle/record.py` from the repository root."""
import fcntl, os, pty, select, struct, sys, termios, time

OUT = os.path.dirname(os.path.abspath(__file__))

def record(name, argv, steps, env_extra=None):
    env = dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8", LC_ALL="C.UTF-8", HOME="/tmp", **(env_extra or {}))
    pid, fd = pty.fork()
    if pid == 0:
        os.execvpe(argv[0], argv, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    out = bytearray()
    def pump(secs):
        end = time.time() + secs
        while time.time() < end:
            r, _, _ = select.select([fd], [], [], 0.05)
            if r:
                try:
                    b = os.read(fd, 65536)
                except OSError:
                    return
                if not b:
                    return
                out.extend(b)
    pump(0.8)
    for data, wait in steps:
        os.write(fd, data)
        pump(wait)
    try:
        os.kill(pid, 9)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(out)
    print(name, len(out))

PS1 = r'\[\e[1;32m\]user@host\[\e[0m\]:\[\e[1;34m\]\w\[\e[0m\]\$ '
bash = ["bash", "--norc", "--noprofile", "-i"]
record("bash-prompt.out", bash, [
    (b"cd /usr/share\r", 0.3), (b"ls --color=always | head -40\r", 0.5),
    (b"printf '\\e[7mrev\\e[27m \\e[4;38;5;202mund\\e[0m \\e[48;2;10;20;30mbg\\e[K\\e[0m\\n'\r", 0.3),
    (b"echo partial-input-not-entered", 0.3)], {"PS1": PS1})
record("wide.out", bash, [
    (b"printf '\\u65e5\\u672c\\u8a9e\\u306e\\u30c6\\u30ad\\u30b9\\u30c8 \\U0001F44D\\U0001F3FD e\\u0301 \\U0001F1EF\\U0001F1F5\\n'\r", 0.3),
    (b"printf '%078d\\u65e5\\u672c\\n' 0\r", 0.3),
    (b"printf 'x%.0s' {1..80}; printf '\\e[31m'\r", 0.3)], {"PS1": "$ "})
record("less.out", bash, [(b"less /etc/services\r", 0.6), (b" ", 0.3), (b"/tcp\r", 0.3), (b"q", 0.3)], {"PS1": PS1})
record("less-open.out", bash, [(b"less /etc/services\r", 0.6), (b" ", 0.3)], {"PS1": PS1})
record("vi.out", bash, [(b"vi -u NONE /tmp/idle-corpus.txt\r", 0.6), (b"ihello\x1b", 0.2), (b"ojumping \xe6\x97\xa5 words\x1b", 0.2),
    (b":set number\r", 0.2), (b":q!\r", 0.4)], {"PS1": PS1})
record("htop.out", bash, [(b"htop -d 1\r", 2.5), (b"q", 0.5)], {"PS1": PS1})
