package table_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/table"
)

// The bit-flip sweep: for tables written by C++ LevelDB (testdata/tables),
// flip one bit of the file at a time and read the damaged copy as `ldbcompat
// verify` does (table.Open, every data block, filtercheck.CompareTable). Each case
// must end in a *base.Error naming the file and an offset inside it, or in
// exactly the undamaged table's answer; never in a panic, a hang or an
// allocation beyond a small multiple of the file's size.
//
// By default the sweep flips every bit of each table's footer, of each
// block's first and last 4 bytes and trailer, and one bit in every 53 bytes
// elsewhere (about 50,000 cases); -short samples the smallest table of each
// compression only, one byte in 127 (about 3,000 cases). With
// LDBCOMPAT_SWEEP=full it flips every bit of the smallest uncompressed and
// the smallest snappy table too (about 400,000 cases, under a minute of
// CPU):
//
//	LDBCOMPAT_SWEEP=full go test -run TestBitFlipSweep -v ./internal/table

// sweepTimeout is how long one case may take before the watchdog declares
// a hang; cases take well under a millisecond.
const sweepTimeout = 20 * time.Second

// sweepAllocBound is the most one case may allocate for a file of size
// bytes. Reading and checking an undamaged fixture takes 2.5 to 4.5 times
// its size; damage must not make it more.
func sweepAllocBound(size int) uint64 { return 4*uint64(size) + 64<<10 }

// sweepOutcome is what checking a table yields: the result of
// filtercheck.CompareTable without the keys, or the error.
type sweepOutcome struct {
	res *filtercheck.Comparison
	err error
}

// checkTable reads the table in data as `ldbcompat verify` does.
func checkTable(name string, data []byte) sweepOutcome {
	tb, err := table.Open(name, bytes.NewReader(data), int64(len(data)))
	return checkOpened(tb, err)
}

// checkOpened is checkTable for a table already opened.
func checkOpened(tb *table.Table, err error) sweepOutcome {
	if err != nil {
		return sweepOutcome{err: err}
	}
	r, err := filtercheck.CompareTable(tb)
	if err != nil {
		return sweepOutcome{err: err}
	}
	if _, contents, ok := tb.FilterBlock(); ok {
		// What `ldbcompat dump` adds: the layout and a few FPR queries.
		if l, err := filtercheck.ParseLayout(contents); err == nil {
			filtercheck.MeasureFPR(contents, l, r.Blocks, bloom.NewPolicy(max(r.Params.BitsPerKey, 0)), 8, 1)
		}
	}
	r.Blocks = nil
	return sweepOutcome{res: r}
}

// watchdog panics, naming the case, when a case runs longer than
// sweepTimeout: a hung read cannot be stopped from the test goroutine.
type watchdog struct {
	timer *time.Timer
	what  atomic.Value // string: the case running
}

func newWatchdog() *watchdog {
	w := &watchdog{}
	w.what.Store("")
	w.timer = time.AfterFunc(time.Hour, func() {
		panic(fmt.Sprintf("bit-flip sweep: %s ran longer than %v: a hang", w.what.Load(), sweepTimeout))
	})
	return w
}

func (w *watchdog) start(what string) {
	w.what.Store(what)
	w.timer.Reset(sweepTimeout)
}

func (w *watchdog) stop() { w.timer.Stop() }

// sweepBits returns the bit positions to flip in f: all of them when full,
// else every bit of the footer and of each block's first and last 4 bytes
// and trailer, and one bit of every stride-th byte elsewhere.
func sweepBits(t *testing.T, f fixtureTable, full bool, stride int) []int {
	if full {
		bits := make([]int, 8*len(f.data))
		for i := range bits {
			bits[i] = i
		}
		return bits
	}
	tb := f.open(t)
	dense := make([]bool, len(f.data))
	mark := func(lo, hi uint64) {
		for i := lo; i < hi && i < uint64(len(dense)); i++ {
			dense[i] = true
		}
	}
	hs := []table.BlockHandle{tb.MetaindexHandle(), tb.IndexHandle()}
	if fh, ok := tb.FilterHandle(); ok {
		hs = append(hs, fh)
	}
	for _, e := range tb.Index() {
		hs = append(hs, e.Handle)
	}
	for _, h := range hs {
		mark(h.Offset, h.Offset+4)
		mark(h.Offset+h.Size-min(h.Size, 4), h.End())
	}
	mark(uint64(len(f.data)-table.FooterSize), uint64(len(f.data)))
	var bits []int
	for i := range f.data {
		switch {
		case dense[i]:
			for b := 0; b < 8; b++ {
				bits = append(bits, 8*i+b)
			}
		case i%stride == 0:
			bits = append(bits, 8*i+(i/stride)%8)
		}
	}
	return bits
}

func TestBitFlipSweep(t *testing.T) {
	fixtures := loadFixtures(t)
	full := os.Getenv("LDBCOMPAT_SWEEP") == "full"
	// The tables swept in full: the smallest of each compression.
	fullSweep := map[string]bool{}
	if full {
		fullSweep[smallest(t, "none").name()] = true
		fullSweep[smallest(t, "snappy").name()] = true
	}
	stride := 53
	if testing.Short() {
		stride = 127
	}
	wd := newWatchdog()
	defer wd.stop()
	total := 0
	for i, f := range fixtures {
		// -short sweeps the smallest table of each compression.
		if testing.Short() && !full && f.name() != smallest(t, "none").name() && f.name() != smallest(t, "snappy").name() {
			continue
		}
		name := f.name()
		undamaged := checkTable(name, f.data)
		if undamaged.err != nil || undamaged.res.Match != filtercheck.MatchOK {
			t.Fatalf("%s undamaged: %+v, %v", name, undamaged.res, undamaged.err)
		}
		data := bytes.Clone(f.data)
		bound := sweepAllocBound(len(data))
		bits := sweepBits(t, f, fullSweep[name], stride)
		counts := map[string]int{}
		var before, after runtime.MemStats
		for _, bit := range bits {
			off, mask := bit/8, byte(1)<<(bit%8)
			what := fmt.Sprintf("%s with bit %d of byte %d flipped (byte %#02x -> %#02x)", name, bit%8, off, f.data[off], f.data[off]^mask)
			data[off] ^= mask
			wd.start(what)
			runtime.ReadMemStats(&before)
			out := checkTable(name, data)
			runtime.ReadMemStats(&after)
			if got := after.TotalAlloc - before.TotalAlloc; got > bound {
				t.Errorf("%s: allocated %d bytes for a %d-byte file; want at most %d", what, got, len(data), bound)
			}
			if out.err == nil && out.res.Match == filtercheck.MatchNoFilter {
				// Upstream reads a table whose metaindex or filter
				// block is damaged without its filter: the keys must
				// be the same, and the filter lookup must say why.
				same := out.res.DataBlocks == undamaged.res.DataBlocks && out.res.Keys == undamaged.res.Keys
				damaged, _ := table.Open(name, bytes.NewReader(data), int64(len(data)))
				fl := damaged.LookupFilter(undamaged.res.Policy)
				var te *base.Error
				why := fl.Use == table.FilterNotFound || (errors.As(fl.Err, &te) && te.File == name && te.Offset >= 0 && te.Offset <= int64(len(data)))
				if !same || fl.Use == table.FilterUsed || !why {
					t.Errorf("%s: read without its filter (%+v), filter %s (%v); the undamaged table answers %+v", what, out.res, fl.Use, fl.Err, undamaged.res)
				}
				counts["read without filter: "+fl.Use.String()]++
				data[off] ^= mask
				continue
			}
			if out.err == nil {
				if diff := quickDiff(undamaged.res, out.res); diff != "" {
					t.Errorf("%s: read without error, but its answer differs from the undamaged table's (-undamaged +got):\n%s", what, diff)
				}
				counts["same answer"]++
				data[off] ^= mask
				continue
			}
			data[off] ^= mask
			var te *base.Error
			if !errors.As(out.err, &te) || te.File != name || te.Offset < 0 || te.Offset > int64(len(data)) {
				t.Errorf("%s: error %q (%T) is not a *base.Error naming the file and an offset in it", what, out.err, out.err)
				continue
			}
			counts[errorKind(te.Msg)]++
		}
		total += len(bits)
		t.Logf("%d/%d %s: %d bits flipped: %v", i+1, len(fixtures), name, len(bits), counts)
	}
	t.Logf("%d cases", total)
}

// errorKind classifies a *base.Error message for the sweep's log.
func errorKind(msg string) string {
	for _, k := range []string{"checksum mismatch", "bad magic", "handle", "compression type", "snappy"} {
		if bytes.Contains([]byte(msg), []byte(k)) {
			return k
		}
	}
	return "other: " + msg
}

// TestOpenBytesAgreesWithOpen reads damaged copies of the fixtures both
// through an io.ReaderAt (Open) and from memory (OpenBytes, as verify reads
// a memory-mapped file): every answer and every error must be the same.
func TestOpenBytesAgreesWithOpen(t *testing.T) {
	stride := 97
	if testing.Short() {
		stride = 389
	}
	cases := 0
	for _, f := range loadFixtures(t) {
		name := f.name()
		data := bytes.Clone(f.data)
		try := func(what string, data []byte, size int64) {
			t.Helper()
			cases++
			viaReader := checkOpened(table.OpenSized(name, bytes.NewReader(data), int64(len(data)), size))
			inMemory := checkOpened(table.OpenBytes(name, data, size))
			if a, b := fmt.Sprintf("%+v %v", viaReader.res, viaReader.err), fmt.Sprintf("%+v %v", inMemory.res, inMemory.err); a != b {
				t.Errorf("%s %s: Open answers\n\t%s\nOpenBytes answers\n\t%s", name, what, a, b)
			}
		}
		n := int64(len(data))
		try("undamaged", data, n)
		for _, size := range []int64{0, 1, 47, 48, n / 2, n - 1, n + 1, n + 4} {
			try(fmt.Sprintf("opened at size %d", size), data, size)
		}
		for _, l := range []int64{1, 48, n / 3, n - 49, n - 1} {
			try(fmt.Sprintf("truncated to %d bytes", l), data[:l], l)
		}
		for off := 0; off < len(data); off += stride {
			data[off] ^= 0x10
			try(fmt.Sprintf("with byte %d flipped", off), data, n)
			data[off] ^= 0x10
		}
	}
	t.Logf("%d cases", cases)
}
