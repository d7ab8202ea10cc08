#!/usr/bin/python3
"""Writes the plyvel fixture databases of testdata/other (make fixtures-other).

plyvel (Debian's python3-plyvel) links Debian's C++ LevelDB library, so
these databases are written by upstream's own code, with the options a
Python user passes. Run it with Debian's /usr/bin/python3:

    /usr/bin/python3 tools/other/plyvel_writer.py OUTDIR

OUTDIR must exist; for each database NAME it writes OUTDIR/NAME/ (removing
LOG, LOG.old and LOCK after a clean close) and OUTDIR/NAME.json. The
content comes from the workload shared by every writer in tools/other
(see README.md there): seeded, so a rerun writes the same data.
"""

import hashlib
import json
import os
import subprocess
import sys

import plyvel

# ---------------------------------------------------------------------------
# The shared workload (tools/other/README.md): splitmix64, keys, values, rounds.

MASK64 = (1 << 64) - 1


class SplitMix64:
    """splitmix64 (Steele, Lea, Flood 2014), as in every writer here."""

    def __init__(self, seed):
        self.state = seed & MASK64

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)


class Workload:
    """The shared workload: a model of what the database must hold."""

    def __init__(self, seed, new, overwrite, delete):
        self.rng = SplitMix64(seed)
        self.new, self.overwrite, self.delete = new, overwrite, delete
        self.rounds = 0
        self.keys = []  # distinct keys, in the order first written
        self.seen = set()
        self.live = {}
        self.puts = 0
        self.deletes = 0

    def key(self):
        r = self.rng
        n = 1 + r.next() % 16
        return bytes([r.next() % 255] + [r.next() % 256 for _ in range(n - 1)])

    def value(self, tag):
        r = self.rng
        n = 16 + r.next() % 96
        word = "".join(chr(97 + r.next() % 26) for _ in range(8))
        s = tag + ":"
        s += (word * (n // 8 + 1))[: max(0, n - len(s))]
        return s.encode()

    def round(self, put, delete):
        r, t = self.rng, self.rounds
        for i in range(self.new):
            k = self.key()
            self._put(put, k, self.value("%d.%d" % (t, i)))
        for i in range(self.overwrite):
            k = self.keys[r.next() % len(self.keys)]
            self._put(put, k, self.value("%d.o%d" % (t, i)))
        for i in range(self.delete):
            k = self.keys[r.next() % len(self.keys)]
            delete(k)
            self.deletes += 1
            self.live.pop(k, None)
        self.rounds += 1

    def _put(self, put, k, v):
        put(k, v)
        self.puts += 1
        self.live[k] = v
        if k not in self.seen:
            self.seen.add(k)
            self.keys.append(k)

    def expect(self):
        live = sorted(self.live.items())
        return {
            "live_keys": len(live),
            "deleted_keys": len(self.seen) - len(live),
            "live": [[k.hex(), v.decode()] for k, v in live],
            "deleted": sorted(k.hex() for k in self.seen if k not in self.live),
        }


def files_of(path):
    out = []
    for name in sorted(os.listdir(path)):
        with open(os.path.join(path, name), "rb") as f:
            data = f.read()
        out.append({"name": name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()})
    return out


# ---------------------------------------------------------------------------
# The databases.

DEFAULT_WORKLOAD = {"seed": 1, "new": 60, "overwrite": 20, "delete": 10}
# Tables holding several versions of keys and tombstones: flushed memtables
# keep every version; the compaction keeps what the snapshot still sees.
STEPS = ["round", "flush", "snapshot", "round", "flush", "round", "compact", "round", "flush"]
# Five flushes, no compaction: the first goes to level 2 and the second to
# level 1 (PickLevelForMemTableOutput: nothing overlaps them there), the
# other three to level 0. LevelDB compacts level 0 once it holds 4 tables
# (kL0_CompactionTrigger), so 3 is the most a run that must not compact can
# leave there.
LEVEL0_STEPS = ["round", "flush"] * 5


def options(bits, block_size, compression, **extra):
    o = {
        "create_if_missing": True,
        "error_if_exists": True,
        "paranoid_checks": False,
        "write_buffer_size": 4 << 20,
        "max_open_files": 1000,
        "lru_cache_size": 8 << 20,
        "block_size": block_size,
        "block_restart_interval": 16,
        "max_file_size": 2 << 20,
        "compression": compression,
        "bloom_filter_bits": bits,
    }
    o.update(extra)
    return o


def reverse_bytewise(a, b):
    """The custom comparator: bytewise order, reversed."""
    return (a < b) - (a > b)


DATABASES = [
    {"name": "plyvel-empty", "options": options(10, 4096, "snappy"), "steps": [],
     "about": "created and closed with nothing written"},
    {"name": "plyvel-b0-bs16384-snappy", "options": options(0, 16384, "snappy"), "steps": STEPS,
     "about": "no filter policy (bloom_filter_bits 0), 16 KiB blocks, snappy"},
    {"name": "plyvel-b1-bs256-none", "options": options(1, 256, None), "steps": STEPS,
     "about": "1 bit/key, 256-byte blocks asked (LevelDB raises block_size to 1024), no compression"},
    {"name": "plyvel-b10-bs4096-snappy", "options": options(10, 4096, "snappy"), "steps": STEPS,
     "about": "10 bits/key, 4 KiB blocks, snappy"},
    {"name": "plyvel-b23-bs2048-none", "options": options(23, 2048, None), "steps": STEPS,
     "about": "23 bits/key (k = 15), 2 KiB blocks, no compression"},
    {"name": "plyvel-reverse-comparator", "options": options(10, 1024, "snappy", comparator_name=b"ldbcompat.ReverseBytewise"),
     "comparator": reverse_bytewise, "steps": STEPS,
     "about": "a custom comparator (bytewise reversed, named ldbcompat.ReverseBytewise), 10 bits/key, 1 KiB blocks, snappy"},
    {"name": "plyvel-level0", "options": options(10, 1024, None), "steps": LEVEL0_STEPS,
     "about": "five flushes without a compaction: tables at levels 2, 1, 0, 0, 0; 10 bits/key, 1 KiB blocks, no compression"},
]


def flush_range(spec):
    """A key range holding no key of the workload (whose first byte is
    never 0xff), in the database's order: compact_range over it flushes the
    memtable into a table (DBImpl::CompactRange) and compacts nothing."""
    if "comparator" in spec:
        return b"\xff\xff", b"\xff"
    return b"\xff", b"\xff\xff"


def full_range(spec):
    """A key range holding every key of the workload, in the database's
    order. plyvel's compact_range() without arguments asks LevelDB for the
    range from b"" to b"" (its log says so), which compacts nothing."""
    if "comparator" in spec:
        return b"\xff", b""
    return b"", b"\xff"


def write(outdir, spec):
    path = os.path.join(outdir, spec["name"])
    kw = dict(spec["options"])
    if "comparator" in spec:
        kw["comparator"] = spec["comparator"]
    db = plyvel.DB(path, **kw)
    wl = Workload(**{k: DEFAULT_WORKLOAD[k] for k in ("seed", "new", "overwrite", "delete")})
    snapshots = []
    counts = {"rounds": 0, "snapshots": 0, "flushes": 0, "compactions": 0}
    for step in spec["steps"]:
        if step == "round":
            wl.round(db.put, db.delete)
            counts["rounds"] += 1
        elif step == "flush":
            start, stop = flush_range(spec)
            db.compact_range(start=start, stop=stop)
            counts["flushes"] += 1
        elif step == "snapshot":
            snapshots.append(db.snapshot())
            counts["snapshots"] += 1
        elif step == "compact":
            start, stop = full_range(spec)
            db.compact_range(start=start, stop=stop)
            counts["compactions"] += 1
        else:
            raise ValueError("unknown step " + step)
    for s in snapshots:
        s.close()
    db.close()
    for name in ("LOG", "LOG.old", "LOCK"):
        try:
            os.remove(os.path.join(path, name))
        except FileNotFoundError:
            pass

    opts = dict(spec["options"])
    if isinstance(opts.get("comparator_name"), bytes):
        opts["comparator_name"] = opts["comparator_name"].decode()
    start, stop = flush_range(spec)
    cstart, cstop = full_range(spec)
    record = {
        "name": spec["name"],
        "about": spec["about"],
        "writer": "plyvel",
        "writer_version": plyvel.__version__,
        "leveldb_version": plyvel.__leveldb_version__,
        "package": debian_package("python3-plyvel"),
        "library_package": debian_package("libleveldb1d"),
        "language": "Python %d.%d.%d (/usr/bin/python3)" % sys.version_info[:3],
        "call": "plyvel.DB(path, **options)" + (", comparator=<reverse_bytewise>" if "comparator" in spec else ""),
        "options": opts,
        "summary": {
            "filter": "leveldb::NewBloomFilterPolicy(%d)" % opts["bloom_filter_bits"] if opts["bloom_filter_bits"] > 0
            else "none (bloom_filter_bits 0: plyvel sets no filter policy)",
            "block_size": opts["block_size"],
            "compression": opts["compression"] or "none",
        },
        "workload": DEFAULT_WORKLOAD,
        "steps": spec["steps"],
        "step_meaning": {
            "round": "one workload round: new keys, overwrites, deletions (tools/other/README.md)",
            "flush": "db.compact_range(start=%r, stop=%r): a range with no key, so the memtable is flushed to a table and nothing is compacted" % (start, stop),
            "snapshot": "db.snapshot(), held until the database is closed",
            "compact": "db.compact_range(start=%r, stop=%r): every key" % (cstart, cstop),
        },
        "counts": dict(counts, puts=wl.puts, deletes=wl.deletes),
        "removed_after_close": ["LOG", "LOG.old", "LOCK"],
        "files": files_of(path),
        "expect": wl.expect(),
        "generator": "make fixtures-other (tools/other/plyvel_writer.py)",
    }
    with open(path + ".json", "w") as f:
        json.dump(record, f, indent=1, ensure_ascii=False)
        f.write("\n")


def debian_package(name):
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${Version}", name],
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: plyvel_writer.py OUTDIR")
    outdir = sys.argv[1]
    for spec in DATABASES:
        if os.path.exists(os.path.join(outdir, spec["name"])):
            sys.exit("plyvel_writer: %s already exists" % os.path.join(outdir, spec["name"]))
        write(outdir, spec)
        print("plyvel_writer: wrote", os.path.join(outdir, spec["name"]))


if __name__ == "__main__":
    main()
