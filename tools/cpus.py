#!/usr/bin/env python3
"""cpus.py: whether the machine's CPUs are, right now, as fast as each other.

    python3 tools/cpus.py SECONDS 'CMD A' ['CMD B' ...]

For SECONDS, round after round: runs each command three times on each CPU
this process may use, held there by sched_setaffinity(2), which the
command inherits, with GOMAXPROCS=1 and its output discarded, and prints
one line a round: the time (UTC) and, for each command and CPU, the
median CPU time (user and system, from wait4) of its three runs in ms.
A command is split on spaces, without a shell.

A virtual machine's CPUs are threads of a host that other guests share,
and one of them may be slower than the other for a while;
docs/performance.md ("When one CPU slows") gives what this measured and
why `make bench` holds each round's two runs to one CPU. tools/cpuprobe.c
has two small commands to run beside a real one: arithmetic alone, and
reading files through memory maps.
"""
import os
import statistics
import subprocess
import sys
import time


def cpu_ms(words, env):
    p = subprocess.Popen(words, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"cpus.py: {' '.join(words)!r} exited with {os.waitstatus_to_exitcode(status)}")
    return (ru.ru_utime + ru.ru_stime) * 1e3


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__.split("\n\n")[1])
    try:
        seconds = float(args[0])
    except ValueError:
        sys.exit(f"cpus.py: SECONDS must be a number, not {args[0]!r}")
    cmds = [c.split() for c in args[1:]]
    env = dict(os.environ, GOMAXPROCS="1")
    allowed = sorted(os.sched_getaffinity(0))
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            fields = [time.strftime("%H:%M:%S", time.gmtime())]
            for i, words in enumerate(cmds):
                for cpu in allowed:
                    os.sched_setaffinity(0, {cpu})
                    runs = [cpu_ms(words, env) for _ in range(3)]
                    fields.append(f"{i + 1}@cpu{cpu}={statistics.median(runs):.1f}")
                os.sched_setaffinity(0, allowed)
            print(" ".join(fields), flush=True)
    finally:
        os.sched_setaffinity(0, allowed)


if __name__ == "__main__":
    main()
