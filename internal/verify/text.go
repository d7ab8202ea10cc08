package verify

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
)

// hashText says which LevelDB wrote a legacy filter, by its hash.
var hashText = map[string]string{
	filtercheck.LegacySigned:   "signed-char hash: LevelDB v1.17 or older on x86",
	filtercheck.LegacyUnsigned: "unsigned hash: LevelDB v1.17 or older where char is unsigned, such as ARM; or a port that kept the old name, such as goleveldb",
	filtercheck.LegacyEither:   "either hash: no key has a tail byte of 0x80 or more, where they differ",
	filtercheck.LegacyNeither:  "neither hash of LevelDB v1.4 to v1.17 reproduces it",
}

// ignoredText is what LevelDB 1.18 and later do with a legacy filter.
const ignoredText = "LevelDB 1.18 and later ignore it (they look up " + bloom.PolicyName + "): every lookup of an absent key reads a data block"

// Detail describes the report in one line, after its path and verdict.
func (r *TableReport) Detail() string {
	if r.Verdict == BadChecksum || r.Verdict == SilentCorruption {
		var b strings.Builder
		r.damageText(&b)
		if r.Damage.Verdict != "" {
			// What the filter makes of it, as without the damage.
			c := *r
			c.Verdict, c.Damage, c.Other = r.Damage.Verdict, nil, nil
			fmt.Fprintf(&b, "; the filter: %s", c.Detail())
		}
		return b.String() + r.otherText()
	}
	var b strings.Builder
	switch r.Verdict {
	case "":
		return r.Skipped
	case OK, OldFilter, Mismatch:
		f := r.Comparison
		b.WriteString(f.Policy)
		if f.Legacy != "" {
			fmt.Fprintf(&b, " (%s)", hashText[f.Legacy])
		}
		if f.LayoutError == "" && f.Params != nil {
			fmt.Fprintf(&b, ", %s", f.Params)
		}
		fmt.Fprintf(&b, ", %s, %s", plural(f.Filters, "filter"), plural(f.Keys, "key"))
		switch r.Verdict {
		case OK:
			b.WriteString("; upstream uses the filter")
		case OldFilter:
			b.WriteString("; " + ignoredText)
		case Mismatch:
			r.mismatchText(&b)
		}
	case NoFilter:
		fmt.Fprintf(&b, "no filter block, %s, %s; upstream reads the table without a filter", plural(r.DataBlocks, "data block"), plural(r.Keys, "key"))
	case OtherFilter:
		fmt.Fprintf(&b, "filter of another policy, %s (not checked), %s, %s; upstream, with its bloom filter policy, ignores it and reads the table without a filter",
			quoteList(r.OtherFilters), plural(r.DataBlocks, "data block"), plural(r.Keys, "key"))
	case FilterUnusable:
		if r.Policy != "" {
			fmt.Fprintf(&b, "filter %s that upstream cannot read: %v", r.Policy, r.UnusableErr)
		} else {
			fmt.Fprintf(&b, "damaged metaindex block, where upstream finds no filter: %v", r.UnusableErr)
		}
		b.WriteString("; upstream silently reads the table without its filter")
		if r.Policy == bloom.LegacyPolicyName {
			b.WriteString(" (LevelDB 1.18 and later ignore a filter of that name anyway)")
		}
	case Unreadable:
		switch {
		case r.Device:
			// util/env_posix.cc maps up to 1000 tables (64-bit).
			fmt.Fprintf(&b, "the storage cannot read it (%s): upstream, which reads tables through a memory map, is killed by SIGBUS there", r.statusText())
		case r.Undefined:
			b.WriteString("upstream's behaviour is undefined on it (it would read out of bounds or crash)")
		case r.Scan:
			fmt.Fprintf(&b, "upstream opens it, but its full scan fails: %s", r.statusText())
		default:
			fmt.Fprintf(&b, "upstream cannot open it: %s", r.statusText())
		}
		fmt.Fprintf(&b, "; %v", r.Err)
		if s := r.sizeText(); s != "" {
			b.WriteString("; " + s)
		}
	case Missing:
		fmt.Fprintf(&b, "%v; ", r.Err)
		if r.DB != nil && len(r.DB.Missing) > 0 {
			fmt.Fprintf(&b, "upstream cannot open the database (%s)", r.DB.Status)
		} else {
			fmt.Fprintf(&b, "upstream opens the database (another file has the table's number), and fails every read of the table: %s", r.Status)
		}
	case Unchecked:
		fmt.Fprintf(&b, "not checked: %v", r.Err)
	}
	if r.Verdict != Unreadable {
		if s := r.sizeText(); s != "" {
			b.WriteString("; note: " + s)
		}
	}
	if r.Damage != nil {
		b.WriteString("; ")
		r.damageBlocksText(&b)
	}
	return b.String() + r.otherText()
}

// otherText is "; with paranoid checks: unreadable: ..." when the other set differs.
func (r *TableReport) otherText() string {
	if r.Other == nil {
		return ""
	}
	return fmt.Sprintf("; %s: %s: %s", r.Other.Mode, r.Other.verdictName(), r.Other.Detail())
}

// damageBlocksText names the damaged blocks and any flipped bit explaining each.
func (r *TableReport) damageBlocksText(b *strings.Builder) {
	d := r.Damage
	for i, f := range d.Blocks {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(b, "%s %s fails its checksum (stored 0x%08x, computed 0x%08x)", f.What, f.Handle, f.Stored, f.Computed)
		s := f.Site
		if s == nil {
			b.WriteString(", and no single flipped bit explains it")
			continue
		}
		fmt.Fprintf(b, ": one flipped bit explains it, bit %d of the byte at offset %d, in the %s", s.Bit, s.Offset, s.Field)
		switch {
		case s.Entry >= 0:
			fmt.Fprintf(b, " of entry %d (key %s as written)", s.Entry, keyText(userKey(s.Key)))
		case s.Restart >= 0:
			fmt.Fprintf(b, " (restart point %d)", s.Restart)
		}
		b.WriteString(" (a single flipped bit points at memory or storage, not at the writer)")
	}
	if d.Blocks != nil && r.Verdict != BadChecksum && r.Verdict != SilentCorruption {
		fmt.Fprintf(b, "; %s upstream reads %s unchecked", r.Mode, them(len(d.Blocks)))
	}
}

// damageText describes what upstream returns from a damaged table.
func (r *TableReport) damageText(b *strings.Builder) {
	d := r.Damage
	r.damageBlocksText(b)
	fmt.Fprintf(b, "; %s upstream reads %s unchecked: its full scan returns %s", r.Mode, them(len(d.Blocks)), nouns(d.Entries, "entry", "entries"))
	switch {
	case !d.Known:
		fmt.Fprintf(b, ", which cannot be told right or wrong: %s", d.Unknown)
	case !d.Harm():
		fmt.Fprintf(b, ", every one as written, and every lookup finds its key")
	default:
		fmt.Fprintf(b, " of the %d written: %d with a wrong value, %d missing, %d not written; of the lookups of the keys written, %d find no entry and %d a wrong value; first: %s",
			d.Written, d.WrongValues, d.Missing, d.Extra, d.GetsMissing, d.GetsWrong, d.First)
	}
}

// userKey strips an internal key's 8-byte tag, when it has one.
func userKey(k []byte) []byte {
	if len(k) < 8 {
		return k
	}
	return k[:len(k)-8]
}

// TextWriter prints what verify reports as `ldbcompat verify` and `dump`
// print it: database and table lines on Out, path errors and notes on Err,
// every line escaped (Escape), as names and keys come from the data.
type TextWriter struct {
	Out, Err io.Writer
	started  bool  // a database was printed
	err      error // the first write that failed
}

// Stdout returns w.Out, remembering its first write error for WriteErr.
func (w *TextWriter) Stdout() io.Writer { return errWriter{w.Out, &w.err} }

// WriteErr returns the first error writing the text, or nil.
func (w *TextWriter) WriteErr() error { return w.err }

// Line writes s, escaped, and a newline to dst (w.Out or w.Err).
func (w *TextWriter) Line(dst io.Writer, s string) {
	if _, err := io.WriteString(dst, Escape(s)+"\n"); err != nil && w.err == nil {
		w.err = err
	}
}

// Item prints one item of verify; rep is its table's report, for a table.
func (w *TextWriter) Item(it Item, rep *TableReport) {
	switch {
	case it.Database != nil:
		if w.started {
			w.Line(w.Out, "")
		}
		w.started = true
		w.Line(w.Out, it.Database.Dir+": database: "+it.Database.Detail())
		for _, l := range it.Database.Logs {
			w.Line(w.Out, l.Line())
		}
	case it.PathErr != nil:
		w.Line(w.Err, "ldbcompat: "+it.PathErr.Error())
	case it.Note != "":
		w.Line(w.Err, "ldbcompat: "+it.Path+": "+it.Note)
	case rep != nil:
		w.Line(w.Out, rep.Line())
	}
}

// Escape returns s with each byte that could drive a terminal or break a
// line escaped as in a Go string literal, invalid UTF-8 as \xNN, and a
// backslash doubled so that no escape can be forged.
func Escape(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c == '\\' || c >= 0x80 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Cf, r):
			// C1 controls, line separators, format characters (bidi).
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// errWriter remembers the first error of the writes through it.
type errWriter struct {
	w   io.Writer
	err *error
}

func (e errWriter) Write(p []byte) (int, error) {
	n, err := e.w.Write(p)
	if err != nil && *e.err == nil {
		*e.err = err
	}
	return n, err
}

// Dump prints one item of dump; d is its table's dump, for a table.
func (w *TextWriter) Dump(it Item, d *Dump) {
	if d == nil {
		w.Item(it, nil)
		if it.Database != nil {
			w.Line(w.Out, "")
		}
		return
	}
	writeDump(errWriter{w.Out, &w.err}, d)
}

// Line is the table's line: its path, verdict and Detail.
func (r *TableReport) Line() string {
	return fmt.Sprintf("%s: %s: %s%s", r.Path, r.verdictName(), r.Detail(), linkText("", r.Link))
}

// verdictName is the verdict's name, or "skipped".
func (r *TableReport) verdictName() string {
	if r.Verdict == "" {
		return "skipped"
	}
	return string(r.Verdict)
}

// writeDump prints one table's dump.
func writeDump(w io.Writer, d *Dump) {
	fmt.Fprintf(w, "%s\n", Escape(d.Path))
	r := d.Comparison
	if r == nil {
		fmt.Fprintf(w, "  %s: %s\n\n", d.verdictName(), Escape(d.Detail()))
		return
	}
	verdict := string(d.Verdict)
	if r.Diff != nil {
		verdict += " at filter block " + r.Diff.String()
	}
	if r.Legacy != "" {
		verdict += "; " + r.Legacy + " hash"
	}
	fmt.Fprintf(w, "  filter policy    %s (verify: %s)\n", Escape(r.Policy), verdict)
	if r.Params != nil && r.LayoutError == "" {
		fmt.Fprintf(w, "  implies          %s\n", r.Params)
	}
	l := d.layout
	if l == nil {
		fmt.Fprintf(w, "  filter block     %d bytes at offset %d: %s\n\n", r.FilterBlockSize, r.FilterBlockOffset, r.LayoutError)
		return
	}
	fmt.Fprintf(w, "  filter block     %d bytes at offset %d; %d filters (%d empty), one per %d bytes of data-block offsets\n",
		r.FilterBlockSize, r.FilterBlockOffset, len(l.Filters), l.EmptyFilters, uint64(1)<<(uint(l.BaseLg)&63))
	minK, maxK, sum, nonEmpty := -1, 0, 0, 0
	for _, f := range l.Filters {
		if f.Keys == 0 {
			continue
		}
		nonEmpty++
		sum += f.Keys
		if minK < 0 || f.Keys < minK {
			minK = f.Keys
		}
		maxK = max(maxK, f.Keys)
	}
	fmt.Fprintf(w, "  keys             %d in %d data blocks", r.Keys, r.DataBlocks)
	if nonEmpty > 0 {
		fmt.Fprintf(w, "; per filter with keys: min %d, mean %.1f, max %d", minK, float64(sum)/float64(nonEmpty), maxK)
	}
	fmt.Fprintln(w)
	if f := d.fpr; f != nil && f.Samples > 0 {
		expected := "not computed (the filter block is not what its policy writes)"
		if !math.IsNaN(f.Expected) {
			expected = fmt.Sprintf("%.3f%%", 100*f.Expected)
		}
		shortened := ""
		if f.Shortened > 0 {
			shortened = fmt.Sprintf(", %d of them cut to %d bytes, as long stored keys would make them", f.Shortened, filtercheck.MaxSampleKey)
		}
		fmt.Fprintf(w, "  false positives  measured %.3f%% (%d of %d absent keys%s); expected of LevelDB's probe scheme %s (simulated); independent-hash formula %.3f%%\n",
			100*f.Measured, f.FalsePositives, f.Samples, shortened, expected, 100*f.Theoretical)
	}
	if !d.PerFilter {
		fmt.Fprintf(w, "  per filter       %s, listed with --filters\n\n", plural(len(l.Filters), "row"))
		return
	}
	fmt.Fprintf(w, "  %6s  %-23s %6s %6s %3s %8s\n", "filter", "data offsets", "keys", "bytes", "k", "bits/key")
	span := uint64(1) << (uint(l.BaseLg) & 63)
	for _, f := range l.Filters {
		lo := uint64(f.Index) * span
		rng := fmt.Sprintf("%d..%d", lo, lo+span-1)
		k, bpk := "-", "-"
		if f.Bytes > 0 {
			k = fmt.Sprint(f.K)
		}
		if f.Keys > 0 && f.Bytes > 0 {
			bpk = fmt.Sprintf("%.1f", float64((f.Bytes-1)*8)/float64(f.Keys))
		}
		fmt.Fprintf(w, "  %6d  %-23s %6d %6d %3s %8s\n", f.Index, rng, f.Keys, f.Bytes, k, bpk)
	}
	fmt.Fprintln(w)
}

// statusText is upstream's status, or a word that there is none.
func (r *TableReport) statusText() string {
	if r.Status == "" {
		return "(no status)"
	}
	return r.Status
}

// mismatchText describes a mismatch's first difference and false negatives.
func (r *TableReport) mismatchText(b *strings.Builder) {
	f := r.Comparison
	if f.LayoutError != "" {
		fmt.Fprintf(b, "; malformed filter block: %s", f.LayoutError)
	}
	if d := f.Diff; d != nil {
		off, _ := r.DiffFileOffset()
		fmt.Fprintf(b, "; first difference at filter block %s (file offset %d)", d, off)
	}
	legacy := f.Policy == bloom.LegacyPolicyName
	reader := "upstream"
	if legacy {
		b.WriteString("; " + ignoredText)
		reader = "LevelDB v1.17 or older"
	}
	fn := r.FalseNegatives
	if fn == nil {
		return
	}
	with := ""
	if legacy {
		with = fmt.Sprintf(" with the %s hash", r.FNHash)
	}
	if fn.Rejected == 0 {
		fmt.Fprintf(b, "; the stored filter%s rejects none of the table's %s: %s finds every key, but filters otherwise than the policy does", with, plural(fn.Keys, "key"), reader)
		return
	}
	fmt.Fprintf(b, "; the stored filter%s rejects %d of the table's %s (false negatives): %s reports them missing; the first is key %s, in the data block at offset %d",
		with, fn.Rejected, plural(fn.Keys, "key"), reader, keyText(fn.FirstKey), fn.FirstBlock.Offset)
}

// maxKeyText bounds the bytes of a key a line shows: keys may be megabytes.
const maxKeyText = 64

// keyText is a key in hex, cut to maxKeyText bytes with its length.
func keyText(k []byte) string {
	if len(k) <= maxKeyText {
		return fmt.Sprintf("%x", k)
	}
	return fmt.Sprintf("%x... (%d bytes)", k[:maxKeyText], len(k))
}

// sizeText compares a live table's file with its MANIFEST size, "" if equal.
func (r *TableReport) sizeText() string {
	if r.Live == nil || r.FileSize < 0 || uint64(r.FileSize) == r.Live.Size {
		return ""
	}
	s := fmt.Sprintf("the file has %d bytes, but %s records %d for table %d (upstream opens it at %d bytes", r.FileSize, r.DB.manifestName(), r.Live.Size, r.Live.Number, r.Live.Size)
	if uint64(r.FileSize) < r.Live.Size {
		return s + ")"
	}
	return s + fmt.Sprintf(", ignoring the %d after)", uint64(r.FileSize)-r.Live.Size)
}

// Detail describes the database in one line, after its path.
func (d *Database) Detail() string {
	var b strings.Builder
	if d.Kind != "" {
		fmt.Fprintf(&b, "a %s database, not LevelDB's (%s); ", d.Kind, d.KindEvidence)
	}
	switch {
	case d.Opens():
		b.WriteString("upstream opens it")
		if d.DefaultStatus != "" {
			fmt.Fprintf(&b, " with the application's comparator %q, which its MANIFEST records (with LevelDB's default comparator: %s); the tables' filters do not depend on the comparator",
				d.Comparator, d.DefaultStatus)
		}
		if l := d.logFailure(Paranoid); l != nil {
			fmt.Fprintf(&b, " (with paranoid checks it does not: %s, replaying %s)", l.ParanoidStatus(), filepath.Base(l.Path))
		}
	case d.Err == nil:
		l := d.logFailure(d.Mode)
		fmt.Fprintf(&b, "upstream cannot open it %s: %s, replaying %s (with LevelDB's default options it opens it, without the writes the log's damage costs)",
			d.Mode, l.ParanoidStatus(), filepath.Base(l.Path))
	case outside(d.Err):
		fmt.Fprintf(&b, "not checked: %v", d.Err)
	default:
		b.WriteString("upstream cannot open it")
		if d.Status != "" {
			fmt.Fprintf(&b, ": %s", d.Status)
		}
		fmt.Fprintf(&b, " (%v)", d.Err)
	}
	if d.Version != nil {
		fmt.Fprintf(&b, "; %s", d.manifestName())
		switch {
		case d.Comparator == "":
			b.WriteString(", no comparator recorded")
		case d.DefaultStatus == "":
			fmt.Fprintf(&b, ", comparator %s", d.Comparator)
		}
		fmt.Fprintf(&b, ", %s", plural(d.Live, "live table"))
		if len(d.Logs) > 0 {
			fmt.Fprintf(&b, ", %s to replay", plural(len(d.Logs), "log"))
		}
	} else if d.Err != nil {
		b.WriteString("; every table file in it is checked, at its own size")
	}
	b.WriteString(linkText("CURRENT is ", d.CurrentLink))
	if d.ManifestLink != "" {
		b.WriteString(linkText(d.manifestName()+" is ", d.ManifestLink))
	}
	return b.String()
}

// plural formats n and noun, with an s unless n is 1.
func plural(n int, noun string) string { return nouns(n, noun, noun+"s") }

// nouns formats n and the noun's singular or plural.
func nouns(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// quoteList quotes names and joins them with commas.
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
