// JavaWriter writes the libleveldb-java fixture databases of testdata/other
// (make fixtures-other) through the iq80 pure-Java LevelDB port, Debian's
// libleveldb-java, with the workload every writer in tools/other shares
// (tools/other/README.md).
//
//	javac -cp /usr/share/java/leveldb.jar:/usr/share/java/leveldb-api.jar -d OUT JavaWriter.java
//	java --add-opens java.base/sun.nio.ch=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED \
//	    -cp OUT:/usr/share/java/leveldb.jar:/usr/share/java/leveldb-api.jar:/usr/share/java/guava.jar \
//	    JavaWriter OUTDIR
//
// For each database NAME it writes OUTDIR/NAME/ (LOG and LOCK removed after
// a clean close, as the other writers do) and OUTDIR/NAME.json.
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import org.iq80.leveldb.CompressionType;
import org.iq80.leveldb.DB;
import org.iq80.leveldb.Options;
import org.iq80.leveldb.Snapshot;
import org.iq80.leveldb.impl.Iq80DBFactory;
import org.iq80.leveldb.impl.VersionSet;

public final class JavaWriter {
    /** splitmix64, as in every writer of tools/other. */
    static final class SplitMix64 {
        long state;

        SplitMix64(long seed) {
            state = seed;
        }

        long next() {
            state += 0x9E3779B97F4A7C15L;
            long z = state;
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            return z ^ (z >>> 31);
        }

        /** next() % n, with next() read as unsigned. */
        int mod(int n) {
            return (int) Long.remainderUnsigned(next(), n);
        }
    }

    /** Keys compare as unsigned bytes, LevelDB's bytewise order. */
    static final class Key implements Comparable<Key> {
        final byte[] b;

        Key(byte[] b) {
            this.b = b;
        }

        @Override
        public int compareTo(Key o) {
            return Arrays.compareUnsigned(b, o.b);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key && Arrays.equals(b, ((Key) o).b);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(b);
        }

        String hex() {
            StringBuilder sb = new StringBuilder();
            for (byte x : b) {
                sb.append(String.format("%02x", x & 0xff));
            }
            return sb.toString();
        }
    }

    /** The shared workload, and the model of what the database must hold. */
    static final class Workload {
        final SplitMix64 rng;
        final int nNew, nOverwrite, nDelete;
        int rounds, puts, deletes;
        final List<Key> keys = new ArrayList<>();
        final Map<Key, Boolean> seen = new HashMap<>();
        final TreeMap<Key, String> live = new TreeMap<>();

        Workload(long seed, int nNew, int nOverwrite, int nDelete) {
            rng = new SplitMix64(seed);
            this.nNew = nNew;
            this.nOverwrite = nOverwrite;
            this.nDelete = nDelete;
        }

        Key key() {
            int n = 1 + rng.mod(16);
            byte[] b = new byte[n];
            b[0] = (byte) rng.mod(255);
            for (int i = 1; i < n; i++) {
                b[i] = (byte) rng.mod(256);
            }
            return new Key(b);
        }

        String value(String tag) {
            int n = 16 + rng.mod(96);
            StringBuilder word = new StringBuilder();
            for (int i = 0; i < 8; i++) {
                word.append((char) (97 + rng.mod(26)));
            }
            StringBuilder s = new StringBuilder(tag).append(':');
            int fill = Math.max(0, n - s.length());
            for (int i = 0; i < fill; i++) {
                s.append(word.charAt(i % 8));
            }
            return s.toString();
        }

        void round(DB db) {
            int t = rounds;
            for (int i = 0; i < nNew; i++) {
                Key k = key();
                put(db, k, value(t + "." + i));
            }
            for (int i = 0; i < nOverwrite; i++) {
                Key k = keys.get(rng.mod(keys.size()));
                put(db, k, value(t + ".o" + i));
            }
            for (int i = 0; i < nDelete; i++) {
                Key k = keys.get(rng.mod(keys.size()));
                db.delete(k.b);
                deletes++;
                live.remove(k);
            }
            rounds++;
        }

        void put(DB db, Key k, String v) {
            db.put(k.b, v.getBytes(StandardCharsets.US_ASCII));
            puts++;
            live.put(k, v);
            if (seen.put(k, true) == null) {
                keys.add(k);
            }
        }

        Map<String, Object> expect() {
            List<Object> l = new ArrayList<>();
            for (Map.Entry<Key, String> e : live.entrySet()) {
                l.add(List.of(e.getKey().hex(), e.getValue()));
            }
            List<Key> gone = new ArrayList<>();
            for (Key k : keys) {
                if (!live.containsKey(k)) {
                    gone.add(k);
                }
            }
            gone.sort(null);
            List<Object> d = new ArrayList<>();
            for (Key k : gone) {
                d.add(k.hex());
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("live_keys", live.size());
            m.put("deleted_keys", gone.size());
            m.put("live", l);
            m.put("deleted", d);
            return m;
        }
    }

    static final Map<String, Object> WORKLOAD = new LinkedHashMap<>();

    static {
        WORKLOAD.put("seed", 1);
        WORKLOAD.put("new", 60);
        WORKLOAD.put("overwrite", 20);
        WORKLOAD.put("delete", 10);
    }

    /** One database: its name, options and steps. */
    static final class Spec {
        final String name, about;
        final int writeBufferSize;
        final List<String> steps;
        final boolean mustCompact;

        Spec(String name, String about, int writeBufferSize, List<String> steps, boolean mustCompact) {
            this.name = name;
            this.about = about;
            this.writeBufferSize = writeBufferSize;
            this.steps = steps;
            this.mustCompact = mustCompact;
        }

        Options options() {
            return new Options()
                    .createIfMissing(true)
                    .errorIfExists(true)
                    .paranoidChecks(false)
                    .writeBufferSize(writeBufferSize)
                    .maxOpenFiles(1000)
                    .blockSize(1024)
                    .blockRestartInterval(16)
                    .compressionType(CompressionType.NONE)
                    .verifyChecksums(true);
        }

        Map<String, Object> optionsRecord() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("createIfMissing", true);
            m.put("errorIfExists", true);
            m.put("paranoidChecks", false);
            m.put("writeBufferSize", writeBufferSize);
            m.put("maxOpenFiles", 1000);
            m.put("blockSize", 1024);
            m.put("blockRestartInterval", 16);
            m.put("compressionType", "NONE");
            m.put("verifyChecksums", true);
            m.put("filterPolicy", "none: iq80 0.7 has no filter policy");
            m.put("comparator", "default (leveldb.BytewiseComparator)");
            return m;
        }
    }

    static final List<Spec> DATABASES = List.of(
            // Each reopen replays the log into a level-0 table (recovery),
            // so three reopens leave three level-0 tables: below iq80's
            // level-0 compaction trigger of 4, nothing is compacted.
            new Spec("java-flush", "three flushes (the log replayed into a level-0 table at each reopen), no compaction",
                    4 << 20, List.of("round", "reopen", "round", "reopen", "round", "reopen"), false),
            // A 4 KiB write buffer: each round fills it a few times, so
            // memtables are flushed in the background, and once level 0
            // holds 4 tables the background compaction merges them. DB.close
            // abandons a compaction under way ("DB shutdown during
            // compaction"), leaving its output behind, so each round is
            // followed by a wait for the background work to end.
            new Spec("java-compacted", "a 4 KiB write buffer: background flushes, and background compactions of level 0",
                    4 << 10, List.of("round", "wait", "snapshot", "round", "wait", "round", "wait", "round", "wait",
                            "round", "wait", "round", "wait", "reopen", "wait"), true));

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: JavaWriter OUTDIR");
            System.exit(2);
        }
        File out = new File(args[0]);
        for (Spec s : DATABASES) {
            File dir = new File(out, s.name);
            if (dir.exists()) {
                throw new IOException(dir + " already exists");
            }
            write(out, s);
            System.out.println("JavaWriter: wrote " + dir);
        }
    }

    static void write(File out, Spec s) throws Exception {
        File dir = new File(out, s.name);
        Workload wl = new Workload(1, 60, 20, 10);
        DB db = Iq80DBFactory.factory.open(dir, s.options());
        List<Snapshot> snapshots = new ArrayList<>();
        Map<String, Object> counts = new LinkedHashMap<>();
        int rounds = 0, reopens = 0, nsnap = 0;
        TreeSet<String> seen = new TreeSet<>();
        for (String step : s.steps) {
            switch (step) {
                case "round":
                    wl.round(db);
                    rounds++;
                    break;
                case "snapshot":
                    snapshots.add(db.getSnapshot());
                    nsnap++;
                    break;
                case "reopen":
                    for (Snapshot snap : snapshots) {
                        snap.close();
                    }
                    snapshots.clear();
                    waitIdle(db);
                    db.close();
                    db = Iq80DBFactory.factory.open(dir, s.options().errorIfExists(false));
                    reopens++;
                    break;
                case "wait":
                    waitIdle(db);
                    seen.addAll(tables(dir));
                    break;
                default:
                    throw new IllegalArgumentException("unknown step " + step);
            }
        }
        for (Snapshot snap : snapshots) {
            snap.close();
        }
        db.close();
        // Only a compaction deletes a table: a table seen after one wait
        // and gone at the end was the input of a compaction that completed.
        TreeSet<String> gone = new TreeSet<>(seen);
        gone.removeAll(tables(dir));
        if (s.mustCompact && gone.isEmpty()) {
            throw new IllegalStateException(s.name + ": no compaction completed: every table seen is still there: " + seen);
        }
        if (!s.mustCompact && !gone.isEmpty()) {
            throw new IllegalStateException(s.name + ": tables were compacted away: " + gone);
        }
        for (String name : new String[] {"LOG", "LOG.old", "LOCK"}) {
            Files.deleteIfExists(new File(dir, name).toPath());
        }
        counts.put("rounds", rounds);
        counts.put("snapshots", nsnap);
        counts.put("reopens", reopens);
        counts.put("waits", Collections.frequency(s.steps, "wait"));
        counts.put("puts", wl.puts);
        counts.put("deletes", wl.deletes);

        Map<String, Object> meaning = new LinkedHashMap<>();
        meaning.put("round", "one workload round: new keys, overwrites, deletions (tools/other/README.md)");
        meaning.put("snapshot", "db.getSnapshot(), held until the database is closed");
        meaning.put("reopen", "db.close() and Iq80DBFactory.factory.open(dir, options) again: recovery writes the log's entries into a level-0 table");
        meaning.put("wait", "poll (every 20 ms, through reflection on DbImpl's private fields) until no background flush or compaction runs or is needed");

        Map<String, Object> rec = new LinkedHashMap<>();
        rec.put("name", s.name);
        rec.put("about", s.about);
        rec.put("writer", "iq80 leveldb (libleveldb-java)");
        rec.put("writer_version", Iq80DBFactory.VERSION);
        rec.put("leveldb_version", "none: iq80 is a pure-Java port of LevelDB");
        rec.put("jar_version", jarVersion());
        rec.put("package", System.getProperty("ldbcompat.package", ""));
        rec.put("language", "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")");
        rec.put("mmap", Iq80DBFactory.USE_MMAP);
        rec.put("call", "Iq80DBFactory.factory.open(dir, options)");
        rec.put("options", s.optionsRecord());
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("filter", "none (iq80 0.7 has no filter policy)");
        summary.put("block_size", 1024);
        summary.put("compression", "none");
        rec.put("summary", summary);
        rec.put("workload", WORKLOAD);
        rec.put("steps", s.steps);
        rec.put("step_meaning", meaning);
        rec.put("counts", counts);
        rec.put("removed_after_close", List.of("LOG", "LOG.old", "LOCK"));
        rec.put("tables_seen_after_waits", new ArrayList<>(seen));
        rec.put("tables_deleted_by_compactions", new ArrayList<>(gone));
        rec.put("files", filesOf(dir));
        rec.put("expect", wl.expect());
        rec.put("generator", "make fixtures-other (tools/other/java/JavaWriter.java)");
        StringBuilder sb = new StringBuilder();
        json(sb, rec, 0);
        sb.append('\n');
        Files.write(new File(out, s.name + ".json").toPath(), sb.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** The table files in dir. */
    static TreeSet<String> tables(File dir) {
        TreeSet<String> t = new TreeSet<>();
        for (String n : dir.list()) {
            if (n.endsWith(".sst") || n.endsWith(".ldb")) {
                t.add(n);
            }
        }
        return t;
    }

    /**
     * Waits until the database runs no background flush or compaction and
     * needs none. iq80 has no public call for it: its private fields say.
     */
    static void waitIdle(DB db) throws Exception {
        Class<?> c = db.getClass();
        Field bg = c.getDeclaredField("backgroundCompaction");
        Field imm = c.getDeclaredField("immutableMemTable");
        Field vs = c.getDeclaredField("versions");
        bg.setAccessible(true);
        imm.setAccessible(true);
        vs.setAccessible(true);
        VersionSet versions = (VersionSet) vs.get(db);
        for (int i = 0; i < 3000; i++) {
            if (bg.get(db) == null && imm.get(db) == null && !versions.needsCompaction()) {
                return;
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("background work still running after 60 s");
    }

    /** The version in the jar's Maven metadata. */
    static String jarVersion() throws IOException {
        try (InputStream in = Iq80DBFactory.class.getResourceAsStream("/META-INF/maven/org.iq80.leveldb/leveldb/pom.properties")) {
            if (in == null) {
                return "";
            }
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.startsWith("version=")) {
                    return line.substring("version=".length()).trim();
                }
            }
        }
        return "";
    }

    static List<Object> filesOf(File dir) throws IOException, NoSuchAlgorithmException {
        String[] names = dir.list();
        Arrays.sort(names);
        List<Object> out = new ArrayList<>();
        for (String n : names) {
            byte[] data = Files.readAllBytes(new File(dir, n).toPath());
            byte[] sum = MessageDigest.getInstance("SHA-256").digest(data);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", n);
            m.put("size", data.length);
            m.put("sha256", new Key(sum).hex());
            out.add(m);
        }
        return out;
    }

    /** A small JSON writer: maps, lists, strings, numbers, booleans. */
    static void json(StringBuilder sb, Object v, int indent) {
        if (v instanceof Map) {
            Map<?, ?> m = (Map<?, ?>) v;
            if (m.isEmpty()) {
                sb.append("{}");
                return;
            }
            sb.append("{\n");
            int i = 0;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                sb.append(" ".repeat(indent + 1));
                str(sb, e.getKey().toString());
                sb.append(": ");
                json(sb, e.getValue(), indent + 1);
                sb.append(++i < m.size() ? ",\n" : "\n");
            }
            sb.append(" ".repeat(indent)).append('}');
        } else if (v instanceof List) {
            List<?> l = (List<?>) v;
            if (l.isEmpty()) {
                sb.append("[]");
                return;
            }
            sb.append("[\n");
            for (int i = 0; i < l.size(); i++) {
                sb.append(" ".repeat(indent + 1));
                json(sb, l.get(i), indent + 1);
                sb.append(i + 1 < l.size() ? ",\n" : "\n");
            }
            sb.append(" ".repeat(indent)).append(']');
        } else if (v instanceof String) {
            str(sb, (String) v);
        } else {
            sb.append(v);
        }
    }

    static void str(StringBuilder sb, String s) {
        sb.append('"');
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        sb.append('"');
    }
}
