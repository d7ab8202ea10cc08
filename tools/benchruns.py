#!/usr/bin/env python3
"""benchruns.py: `make bench` several times in a row, and its runs side by side.

    python3 tools/benchruns.py N ['BENCHFLAGS']
    python3 tools/benchruns.py --parse FILE...

The first form runs `make bench BENCHFLAGS=...` N times, one after another,
from the repository's top directory (BENCHFLAGS defaults to '-rounds 9 -db
/tmp/benchdb -smalldb /tmp/smalldb', which keeps the two databases between
runs), and keeps each run's output in .cache/bench/runs/NN.txt and its
benchstat file in .cache/bench/runs/NN.bench.txt (both replaced by the next
series). The second reads outputs kept earlier. Either way it prints, in
markdown, what docs/performance.md's results entries hold: the CPU and the
compilers (make bench's first lines), the commit, the load average before
the first run, the command, a table with a line per run (its start, UTC;
go/c++ of each bloom benchmark; verify / upstream scan on each database,
from the disk in brackets; the ns a key of the two KeyMayMatch benchmarks,
go / c++; their fastest samples' go/c++; where the bloom rounds took the
CPUs in turn, go/c++ on the CPU whose rounds the table did not take, with
upstream's ns a present key there), and the range of each column.

It only reads what make bench printed; a run whose output lacks a line it
needs stops it with the file's name.
"""
import os
import re
import shutil
import subprocess
import sys
import time

DEFAULT_FLAGS = "-rounds 9 -db /tmp/benchdb -smalldb /tmp/smalldb"
BLOOM = ["CreateFilter", "KeyMayMatchHit", "KeyMayMatchMiss", "FilterBlockBuilder"]
DBS = ["values", "smallkeys"]


class ParseError(Exception):
    pass


def parse(text, name):
    """The numbers of one make bench output: a dict, or ParseError."""
    lines = text.splitlines()
    run = {}
    for prefix in ("cpu:", "built by:"):
        found = [l for l in lines if l.startswith(prefix)]
        if not found:
            raise ParseError(f"{name}: no line starting {prefix!r}")
        run[prefix] = found[0][len(prefix):].strip()
    header = next((l for l in lines if l.split()[:1] == ["benchmark"]), None)
    if header is None:
        raise ParseError(f"{name}: no table of benchmarks (a line starting 'benchmark')")
    words = header.split()
    impls = [words[i - 1] for i, w in enumerate(words) if w == "ns/key"]
    ratios = [w for w in words if w.endswith("/c++")]
    if "go" not in impls or "c++" not in impls or "go/c++" not in ratios:
        raise ParseError(f"{name}: the table has no go and c++ columns: {header.strip()}")
    for bench in BLOOM:
        row = next((l.split() for l in lines if l.split()[:1] == [bench]), None)
        if row is None or len(row) < 1 + len(impls) + len(ratios):
            raise ParseError(f"{name}: no line for {bench} in the table")
        go, cxx = row[1 + impls.index("go")], row[1 + impls.index("c++")]
        ratio = row[1 + len(impls) + ratios.index("go/c++")]
        run[bench] = (go, cxx, ratio)
    fastest = re.search(r"^fastest samples, go/c\+\+: (.*)$", text, re.M)
    if fastest is None:
        raise ParseError(f"{name}: no line 'fastest samples, go/c++'")
    run["fastest"] = dict(p.rsplit(" ", 1) for p in fastest.group(1).split(", "))
    # Since the bloom rounds take the CPUs in turn: each benchmark's
    # go/c++ and c++ ns a key on the CPU the table did not take.
    run["other"] = {}
    by_cpu = re.search(r"^by CPU, go/c\+\+ \(c\+\+ ns/key\): (.*)$", text, re.M)
    if by_cpu:
        for part in by_cpu.group(1).split("; "):
            bench, rest = part.split(" ", 1)
            others = [m for m in re.findall(r"cpu\d+ ([\d.]+) \(([\d.]+)\)(\*?)", rest) if not m[2]]
            if others:
                run["other"][bench] = others[0][:2]
    for db in DBS:
        line = next((l for l in lines if l.startswith(f"verify, db={db} ")), None)
        if line is None:
            raise ParseError(f"{name}: no line 'verify, db={db}'")
        ratios_found = re.findall(r"verify / upstream scan ([\d.]+) \(median", line)
        if len(ratios_found) != 2:
            raise ParseError(f"{name}: verify, db={db}: expected a ratio in the page cache and one from the disk, found {len(ratios_found)}")
        run[db] = tuple(ratios_found)
    return run


def value_range(values):
    nums = sorted(float(v) for v in values)
    lo, hi = f"{nums[0]:.2f}", f"{nums[-1]:.2f}"
    return lo if lo == hi else f"{lo} to {hi}"


def report(runs, head):
    for line in head:
        print(line)
    for key in ("cpu:", "built by:"):
        seen = sorted({r[key] for _, r in runs})
        print(f"{key} {seen[0]}" if len(seen) == 1 else f"{key} differs between runs: {seen}")
    print()
    other = any(r["other"] for _, r in runs)
    print("| run | start, UTC | CreateFilter | present | absent | FilterBlockBuilder | values | smallkeys | present, ns | absent, ns | fastest present / absent |"
          + (" other CPU: CreateFilter / present / absent (c++ ns, present) |" if other else ""))
    print("| --- " * (12 if other else 11) + "|")
    for i, (start, r) in enumerate(runs, 1):
        hit, miss = r["KeyMayMatchHit"], r["KeyMayMatchMiss"]
        cells = [str(i), start] + [r[b][2] for b in BLOOM]
        cells += [f"{r[db][0]} ({r[db][1]})" for db in DBS]
        cells += [f"{hit[0]} / {hit[1]}", f"{miss[0]} / {miss[1]}"]
        cells.append(f"{r['fastest'].get('KeyMayMatchHit', '-')} / {r['fastest'].get('KeyMayMatchMiss', '-')}")
        if other:
            o = r["other"]
            ratio = lambda b: o[b][0] if b in o else "-"
            ns = o["KeyMayMatchHit"][1] if "KeyMayMatchHit" in o else "-"
            cells.append(f"{ratio('CreateFilter')} / {ratio('KeyMayMatchHit')} / {ratio('KeyMayMatchMiss')} ({ns})")
        print("| " + " | ".join(cells) + " |")
    print()
    parts = [f"{b} {value_range(r[b][2] for _, r in runs)}" for b in BLOOM]
    for db in DBS:
        parts.append(f"{db} {value_range(r[db][0] for _, r in runs)} (from the disk {value_range(r[db][1] for _, r in runs)})")
    parts.append(f"c++ ns a present key {value_range(r['KeyMayMatchHit'][1] for _, r in runs)}, an absent one {value_range(r['KeyMayMatchMiss'][1] for _, r in runs)}")
    print("Ranges over the runs, go/c++ and verify / upstream scan: " + "; ".join(parts) + ".")


def top():
    out = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("benchruns.py: not in a git checkout of ldbcompat")
    return out.stdout.strip()


def commit(root):
    rev = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True).stdout.strip()
    return rev + (" with uncommitted changes" if dirty else "")


def run_series(n, flags):
    root = top()
    outdir = os.path.join(root, ".cache", "bench", "runs")
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    load = open("/proc/loadavg").read().split()[0] if os.path.exists("/proc/loadavg") else "unknown"
    runs = []
    for i in range(1, n + 1):
        start = time.strftime("%H:%M:%S", time.gmtime())
        print(f"benchruns.py: run {i} of {n}, {start} UTC", file=sys.stderr, flush=True)
        out = subprocess.run(["make", "--no-print-directory", "bench", f"BENCHFLAGS={flags}"],
                             cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        path = os.path.join(outdir, f"{i:02d}.txt")
        with open(path, "w") as f:
            f.write(out.stdout)
        if out.returncode != 0:
            sys.exit(f"benchruns.py: make bench failed (exit {out.returncode}); its output: {path}")
        bench = os.path.join(root, ".cache", "bench", "bench.txt")
        if os.path.exists(bench):
            shutil.copyfile(bench, os.path.join(outdir, f"{i:02d}.bench.txt"))
        try:
            runs.append((start, parse(out.stdout, path)))
        except ParseError as e:
            sys.exit(f"benchruns.py: {e}")
    head = [f"commit {commit(root)}; load average {load} before the first run; "
            f"{n} run{'s' if n > 1 else ''} of `make bench BENCHFLAGS='{flags}'`{' in a row' if n > 1 else ''}, "
            f"{runs[0][0]} to {runs[-1][0]} UTC (starts); outputs in .cache/bench/runs/"]
    report(runs, head)


def main(args):
    if args[:1] == ["--parse"]:
        if len(args) < 2:
            sys.exit("benchruns.py: --parse needs at least one file")
        runs = []
        for path in args[1:]:
            try:
                with open(path) as f:
                    runs.append(("-", parse(f.read(), path)))
            except OSError as e:
                sys.exit(f"benchruns.py: {e}")
            except ParseError as e:
                sys.exit(f"benchruns.py: {e}")
        report(runs, [f"{len(runs)} runs of make bench, read from " + " ".join(args[1:])])
        return
    if len(args) not in (1, 2) or not args[0].isdigit() or int(args[0]) < 1:
        sys.exit("usage: python3 tools/benchruns.py N ['BENCHFLAGS'], or python3 tools/benchruns.py --parse FILE...")
    run_series(int(args[0]), args[1] if len(args) == 2 else DEFAULT_FLAGS)


if __name__ == "__main__":
    main(sys.argv[1:])
