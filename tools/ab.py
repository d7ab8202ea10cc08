#!/usr/bin/env python3
"""ab.py: which of two or more commands takes less CPU time, alternating them.

    python3 tools/ab.py N 'CMD A' 'CMD B' ...

Runs each command N times, in turn (A B, then B A, ...), so that each round's
runs see much the same machine, with GOMAXPROCS=1 and stdout and stderr
discarded, and takes each run's CPU time (user and system, of the command
and its children, from getrusage). Prints, per command, the median and the
fastest run in ms and the median of its ratios to the first command's run
in the same round. A command is split on spaces, without a shell; leading
NAME=VALUE words are set in its environment. docs/performance.md gives the
measurements it made.
"""
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


def main():
    if len(sys.argv) < 4 or not sys.argv[1].isdigit() or int(sys.argv[1]) < 1:
        sys.exit(__doc__.split("\n\n")[1])
    n, cmds = int(sys.argv[1]), sys.argv[2:]
    parsed = {c: parse(c) for c in cmds}
    times = {c: [] for c in cmds}
    for i in range(n):
        for c in cmds if i % 2 == 0 else reversed(cmds):
            words, env = parsed[c]
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
