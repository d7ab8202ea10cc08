'use strict'
// writer.js writes the npm fixture databases of testdata/other (make
// fixtures-other): one through classic-level, one through leveldown. Both
// bundle LevelDB 1.20 in a prebuilt binding and give it a 10 bits/key bloom
// filter themselves (NewBloomFilterPolicy(10) in binding.cc): no option
// changes that. The workload is the one every writer in tools/other shares
// (tools/other/README.md).
//
//   NODE_PATH=.cache/npm/node_modules node tools/other/node/writer.js OUTDIR
//
// For each database NAME it writes OUTDIR/NAME/ (LOG, LOG.old and LOCK
// removed after a clean close) and OUTDIR/NAME.json.

const crypto = require('crypto')
const fs = require('fs')
const path = require('path')

const MASK64 = (1n << 64n) - 1n

// splitmix64, as in every writer of tools/other.
class SplitMix64 {
  constructor (seed) { this.state = BigInt(seed) & MASK64 }
  next () {
    this.state = (this.state + 0x9E3779B97F4A7C15n) & MASK64
    let z = this.state
    z = ((z ^ (z >> 30n)) * 0xBF58476D1CE4E5B9n) & MASK64
    z = ((z ^ (z >> 27n)) * 0x94D049BB133111EBn) & MASK64
    return z ^ (z >> 31n)
  }
  mod (n) { return Number(this.next() % BigInt(n)) }
}

// The shared workload, and the model of what the database must hold.
class Workload {
  constructor ({ seed, new: nNew, overwrite, delete: nDelete }) {
    this.rng = new SplitMix64(seed)
    this.nNew = nNew
    this.nOverwrite = overwrite
    this.nDelete = nDelete
    this.rounds = 0
    this.puts = 0
    this.deletes = 0
    this.keys = [] // distinct keys (hex), in the order first written
    this.seen = new Set()
    this.live = new Map() // hex key -> value string
  }

  key () {
    const n = 1 + this.rng.mod(16)
    const b = Buffer.alloc(n)
    b[0] = this.rng.mod(255)
    for (let i = 1; i < n; i++) b[i] = this.rng.mod(256)
    return b
  }

  value (tag) {
    const n = 16 + this.rng.mod(96)
    let word = ''
    for (let i = 0; i < 8; i++) word += String.fromCharCode(97 + this.rng.mod(26))
    let s = tag + ':'
    const fill = Math.max(0, n - s.length)
    for (let i = 0; i < fill; i++) s += word[i % 8]
    return s
  }

  async round (put, del) {
    const t = this.rounds
    for (let i = 0; i < this.nNew; i++) {
      const k = this.key()
      await this.put(put, k, this.value(`${t}.${i}`))
    }
    for (let i = 0; i < this.nOverwrite; i++) {
      const k = Buffer.from(this.keys[this.rng.mod(this.keys.length)], 'hex')
      await this.put(put, k, this.value(`${t}.o${i}`))
    }
    for (let i = 0; i < this.nDelete; i++) {
      const h = this.keys[this.rng.mod(this.keys.length)]
      await del(Buffer.from(h, 'hex'))
      this.deletes++
      this.live.delete(h)
    }
    this.rounds++
  }

  async put (put, k, v) {
    await put(k, Buffer.from(v, 'latin1'))
    this.puts++
    const h = k.toString('hex')
    if (!this.seen.has(h)) {
      this.seen.add(h)
      this.keys.push(h)
    }
    this.live.set(h, v)
  }

  expect () {
    // Sorted by the keys' bytes (their hex strings sort differently).
    const byBytes = (a, b) => Buffer.compare(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'))
    const live = [...this.live.keys()].sort(byBytes)
    const deleted = this.keys.filter(h => !this.live.has(h)).sort(byBytes)
    return {
      live_keys: live.length,
      deleted_keys: deleted.length,
      live: live.map(h => [h, this.live.get(h)]),
      deleted
    }
  }
}

const WORKLOAD = { seed: 1, new: 60, overwrite: 20, delete: 10 }
const STEPS = ['round', 'flush', 'snapshot', 'round', 'flush', 'round', 'compact', 'round', 'flush']
// The workload's keys never start with 0xff: [ff, ff ff] holds none of them,
// and [00, ff] holds them all.
const FLUSH_RANGE = [Buffer.from([0xff]), Buffer.from([0xff, 0xff])]
const FULL_RANGE = [Buffer.from([0x00]), Buffer.from([0xff])]

function nativeOptions (compression, blockSize) {
  return {
    createIfMissing: true,
    errorIfExists: true,
    compression,
    cacheSize: 8 << 20,
    writeBufferSize: 4 << 20,
    blockSize,
    maxOpenFiles: 1000,
    blockRestartInterval: 16,
    maxFileSize: 2 << 20
  }
}

// A writer adapts one package to the steps: open, put, del, snapshot
// (returns something to release), flush/compact (compactRange), close.
const WRITERS = [
  {
    name: 'classic-level',
    pkg: 'classic-level',
    about: 'classic-level 3.0.0 (LevelDB 1.20, 10 bits/key bloom filter set by the binding), snappy, 4 KiB blocks',
    options: Object.assign(nativeOptions(true, 4096), { keyEncoding: 'buffer', valueEncoding: 'buffer' }),
    call: 'new ClassicLevel(dir, options); await db.open()',
    snapshotCall: 'db.snapshot(), an explicit snapshot, closed before the database',
    async open (dir, options) {
      const { ClassicLevel } = require('classic-level')
      const db = new ClassicLevel(dir, options)
      await db.open()
      return {
        put: (k, v) => db.put(k, v),
        del: (k) => db.del(k),
        snapshot: () => { const s = db.snapshot(); return () => s.close() },
        compactRange: (a, b) => db.compactRange(a, b),
        close: () => db.close()
      }
    }
  },
  {
    name: 'leveldown',
    pkg: 'leveldown',
    about: 'leveldown 6.1.1 (LevelDB 1.20, 10 bits/key bloom filter set by the binding), no compression, 2 KiB blocks',
    options: nativeOptions(false, 2048),
    call: 'leveldown(dir).open(options, callback)',
    snapshotCall: 'db.iterator(): an iterator, never advanced, holds an implicit snapshot (binding.cc: NewSnapshot) until it is ended, before the database is closed',
    async open (dir, options) {
      const leveldown = require('leveldown')
      const db = leveldown(dir)
      const p = (fn) => new Promise((resolve, reject) => fn((err, v) => err ? reject(err) : resolve(v)))
      await p(cb => db.open(options, cb))
      return {
        put: (k, v) => p(cb => db.put(k, v, cb)),
        del: (k) => p(cb => db.del(k, cb)),
        snapshot: () => { const it = db.iterator({ keyAsBuffer: true, valueAsBuffer: true }); return () => p(cb => it.end(cb)) },
        compactRange: (a, b) => p(cb => db.compactRange(a, b, cb)),
        close: () => p(cb => db.close(cb))
      }
    }
  }
]

function filesOf (dir) {
  return fs.readdirSync(dir).sort().map(name => {
    const data = fs.readFileSync(path.join(dir, name))
    return { name, size: data.length, sha256: crypto.createHash('sha256').update(data).digest('hex') }
  })
}

// The LevelDB version bundled in the package, from its own db.h.
function bundledLevelDB (pkgDir) {
  const deps = path.join(pkgDir, 'deps', 'leveldb')
  const src = fs.readdirSync(deps).find(n => /^leveldb-/.test(n))
  const h = fs.readFileSync(path.join(deps, src, 'include', 'leveldb', 'db.h'), 'latin1')
  const major = /kMajorVersion = (\d+)/.exec(h)[1]
  const minor = /kMinorVersion = (\d+)/.exec(h)[1]
  return { version: `${major}.${minor}`, source: `deps/leveldb/${src}` }
}

async function write (outdir, w) {
  const dir = path.join(outdir, w.name)
  if (fs.existsSync(dir)) throw new Error(`${dir} already exists`)
  const pkgDir = path.dirname(require.resolve(`${w.pkg}/package.json`))
  const binding = require('node-gyp-build').path(pkgDir)
  const db = await w.open(dir, w.options)
  const wl = new Workload(WORKLOAD)
  const releases = []
  const counts = { rounds: 0, snapshots: 0, flushes: 0, compactions: 0 }
  for (const step of STEPS) {
    switch (step) {
      case 'round': await wl.round(db.put, db.del); counts.rounds++; break
      case 'flush': await db.compactRange(...FLUSH_RANGE); counts.flushes++; break
      case 'snapshot': releases.push(db.snapshot()); counts.snapshots++; break
      case 'compact': await db.compactRange(...FULL_RANGE); counts.compactions++; break
      default: throw new Error('unknown step ' + step)
    }
  }
  for (const release of releases) await release()
  await db.close()
  for (const name of ['LOG', 'LOG.old', 'LOCK']) fs.rmSync(path.join(dir, name), { force: true })

  const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'))
  const bundled = bundledLevelDB(pkgDir)
  const bindingData = fs.readFileSync(binding)
  const options = Object.assign({}, w.options)
  const rec = {
    name: w.name,
    about: w.about,
    writer: w.pkg,
    writer_version: pkg.version,
    leveldb_version: bundled.version,
    leveldb_source: bundled.source,
    binding: {
      file: path.relative(pkgDir, binding),
      sha256: crypto.createHash('sha256').update(bindingData).digest('hex')
    },
    language: `Node.js ${process.version}`,
    call: w.call,
    options,
    summary: {
      filter: 'leveldb::NewBloomFilterPolicy(10), set by the binding (binding.cc), not an option',
      block_size: options.blockSize,
      compression: options.compression ? 'snappy' : 'none'
    },
    workload: WORKLOAD,
    steps: STEPS,
    step_meaning: {
      round: 'one workload round: new keys, overwrites, deletions (tools/other/README.md)',
      flush: 'db.compactRange(<ff>, <ff ff>): a range with no key, so the memtable is flushed to a table and nothing is compacted',
      snapshot: w.snapshotCall,
      compact: 'db.compactRange(<00>, <ff>): every key'
    },
    counts: Object.assign(counts, { puts: wl.puts, deletes: wl.deletes }),
    removed_after_close: ['LOG', 'LOG.old', 'LOCK'],
    files: filesOf(dir),
    expect: wl.expect(),
    generator: 'make fixtures-other (tools/other/node/writer.js)'
  }
  fs.writeFileSync(dir + '.json', JSON.stringify(rec, null, 1) + '\n')
  console.log(`writer.js: wrote ${dir}`)
}

async function main () {
  if (process.argv.length !== 3) {
    console.error('usage: node writer.js OUTDIR')
    process.exit(2)
  }
  for (const w of WRITERS) await write(process.argv[2], w)
}

main().catch(err => { console.error('writer.js:', err); process.exit(1) })
