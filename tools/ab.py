#!/usr/bin/env python3
"""ab.py: which of two or more commands takes less CPU time, alternating them.

    python3 tools/ab.py [--drop DIR] N 'CMD A' 'CMD B' ...

Runs each command N times, in turn (A B, then B A, ...), so that each round's
runs see much the same machine, with GOMAXPROCS=1 and stdout and stderr
discarded, and takes each run's CPU time (user and system, of the command
and its children, from getrusage). Prints, per command, the median and the
fastest run in ms and the median of its ratios to the first command's run
in the same round. A command is split on spaces, without a shell; leading
NAME=VALUE words are set in its environment. With --drop DIR, the tables of
DIR (*.ldb, *.sst) are dropped from the page cache before each run
(posix_fadvise POSIX_FADV_DONTNEED, Linux), so that each run reads them
from the disk; it stops if any of their pages stays in the page cache.
docs/performance.md gives the measurements it made.
"""
import ctypes
import glob
import mmap
import os
import resource
import statistics
import subprocess
import sys


def parse(cmd):
    env = dict(os.environ, GOMAXPROCS="1")
    words = cmd.split()
    while words and "=" in words[0] and not words[0].startswith("/"):
        name, value = words.pop(0).split("=", 1)
        env[name] = value
    if not words:
        sys.exit(f"ab.py: no command in {cmd!r}")
    return words, env


def resident_pages(fd, size):
    """How many pages of the file fd's first size bytes are in the page
    cache: mincore(2) over a map of them, through libc."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    addr = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    if addr in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "mmap")
    try:
        vec = ctypes.create_string_buffer((size + mmap.PAGESIZE - 1) // mmap.PAGESIZE)
        if libc.mincore(addr, size, vec) != 0:
            raise OSError(ctypes.get_errno(), "mincore")
        return sum(b & 1 for b in vec.raw)
    finally:
        libc.munmap(addr, size)


def drop(tables):
    """Drops each of tables from the page cache; exits if a page stays."""
    for path in tables:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fdatasync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            size = os.fstat(fd).st_size
            left = resident_pages(fd, size) if size else 0
        finally:
            os.close(fd)
        if left:
            sys.exit(f"ab.py: {left} pages of {path} stay in the page cache")


def main():
    args = sys.argv[1:]
    tables = None
    if len(args) >= 2 and args[0] == "--drop":
        tables = sorted(glob.glob(os.path.join(args[1], "*.ldb")) + glob.glob(os.path.join(args[1], "*.sst")))
        if not tables:
            sys.exit(f"ab.py: no tables in {args[1]}")
        args = args[2:]
    if len(args) < 3 or not args[0].isdigit() or int(args[0]) < 1:
        sys.exit(__doc__.split("\n\n")[1])
    n, cmds = int(args[0]), args[1:]
    parsed = {c: parse(c) for c in cmds}
    times = {c: [] for c in cmds}
    for i in range(n):
        for c in cmds if i % 2 == 0 else reversed(cmds):
            words, env = parsed[c]
            if tables:
                drop(tables)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            r = subprocess.run(words, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if r.returncode != 0:
                sys.exit(f"ab.py: {c!r} exited with {r.returncode}")
            times[c].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    first = times[cmds[0]]
    for c in cmds:
        ratio = statistics.median(a / b for a, b in zip(times[c], first))
        print(f"{statistics.median(times[c]) * 1e3:8.2f} ms median, fastest {min(times[c]) * 1e3:7.2f}, "
              f"ratio to the first {ratio:.3f}  {c}")


if __name__ == "__main__":
    main()
