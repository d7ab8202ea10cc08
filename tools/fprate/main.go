// Command fprate measures the false-positive rate and size of package
// bloom's filters for 1 to 20 bits per key against theory, (1-e^(-kn/m))^k
// and m/8+1 bytes, and plots both (`make fprate`: docs/fprate.*). It is a
// module of its own to keep the plotting library out of ldbcompat's.
package main

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"image/color"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"text/tabwriter"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/ldbcompat/ldbcompat/bloom"
)

func main() {
	n := flag.Int("n", 10000, "keys per filter")
	filters := flag.Int("filters", 10, "filters per bits/key")
	queries := flag.Int("q", 400000, "absent keys asked of each filter")
	maxBits := flag.Int("bits", 20, "largest bits/key")
	out := flag.String("out", "docs/fprate", "output path without extension (.png and .svg are written)")
	flag.Parse()

	rows := measure(*n, *filters, *queries, *maxBits)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "bits/key\tk\tfalse positives\tmeasured FPR\ttheory FPR\tmeasured/theory\tbytes/key\ttheory bytes/key\t\n")
	for _, r := range rows {
		fmt.Fprintf(tw, "%d\t%d\t%d\t%.3e\t%.3e\t%.3f\t%.4f\t%.4f\t\n",
			r.bits, r.k, r.fp, r.fpr, r.theory, r.fpr/r.theory, r.bytesPerKey, r.theoryBytes)
	}
	tw.Flush()
	fmt.Printf("%d filters of %d random 16-byte keys per bits/key, %d absent keys asked of each\n", *filters, *n, *queries)
	if err := draw2(rows, *n, *out); err != nil {
		fmt.Fprintln(os.Stderr, "fprate:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %s.png and %s.svg\n", *out, *out)
}

type row struct {
	bits, k     int
	fp          int
	fpr, theory float64
	bytesPerKey float64 // measured: len(filter)/n
	theoryBytes float64 // b/8 + 1/n, before rounding up to whole bytes
}

// keys returns n random 16-byte keys: a collision is negligible.
func keys(rng *rand.Rand, n int) [][]byte {
	flat := make([]byte, 16*n)
	for i := 0; i < len(flat); i += 8 {
		binary.LittleEndian.PutUint64(flat[i:], rng.Uint64())
	}
	ks := make([][]byte, n)
	for i := range ks {
		ks[i] = flat[16*i : 16*i+16 : 16*i+16]
	}
	return ks
}

func measure(n, filters, queries, maxBits int) []row {
	var rows []row
	for b := 1; b <= maxBits; b++ {
		p := bloom.NewPolicy(b)
		rng := rand.New(rand.NewPCG(uint64(b), 0x66707261746521))
		r := row{bits: b}
		var size int
		for f := 0; f < filters; f++ {
			filter := p.CreateFilter(keys(rng, n), nil)
			size = len(filter)
			r.k = int(filter[len(filter)-1])
			for _, q := range keys(rng, queries) {
				if p.KeyMayMatch(q, filter) {
					r.fp++
				}
			}
		}
		m := float64(8 * (size - 1))
		r.fpr = float64(r.fp) / float64(filters*queries)
		r.theory = math.Pow(1-math.Exp(-float64(r.k)*float64(n)/m), float64(r.k))
		r.bytesPerKey = float64(size) / float64(n)
		r.theoryBytes = float64(b)/8 + 1/float64(n)
		rows = append(rows, r)
	}
	return rows
}

// draw2 draws two panels, false-positive rate (log scale) and size, and
// writes them as PNG and SVG.
func draw2(rows []row, n int, out string) error {
	fpr := newPlot(fmt.Sprintf("leveldb.BuiltinBloomFilter2: false-positive rate (%d keys per filter)", n), "false-positive rate")
	fpr.Y.Scale = plot.LogScale{}
	fpr.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	var measured, theory, size, theorySize plotter.XYs
	for _, r := range rows {
		if r.fpr > 0 {
			measured = append(measured, plotter.XY{X: float64(r.bits), Y: r.fpr})
		}
		theory = append(theory, plotter.XY{X: float64(r.bits), Y: r.theory})
		size = append(size, plotter.XY{X: float64(r.bits), Y: r.bytesPerKey})
		theorySize = append(theorySize, plotter.XY{X: float64(r.bits), Y: r.theoryBytes})
	}
	blue := color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	orange := color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}
	if err := addSeries(fpr, "theory (1-e^(-kn/m))^k", theory, orange, "measured", measured, blue); err != nil {
		return err
	}

	sz := newPlot("filter size", "bytes per key")
	if err := addSeries(sz, "theory: bits/8 + 1/n", theorySize, orange, "measured: len(filter)/n", size, blue); err != nil {
		return err
	}
	sz.Legend.Left = true

	const w, h = 8 * vg.Inch, 9 * vg.Inch
	plots := [][]*plot.Plot{{fpr}, {sz}}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	for _, c := range []struct {
		ext string
		vg.CanvasWriterTo
	}{
		{".png", vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(96))}},
		{".svg", vgsvg.New(w, h)},
	} {
		tiles := draw.Tiles{Rows: 2, Cols: 1, PadY: vg.Centimeter, PadTop: vg.Millimeter * 3,
			PadBottom: vg.Millimeter * 3, PadLeft: vg.Millimeter * 3, PadRight: vg.Millimeter * 5}
		canvases := plot.Align(plots, tiles, draw.New(c))
		for i := range plots {
			plots[i][0].Draw(canvases[i][0])
		}
		var b bytes.Buffer
		if _, err := c.WriteTo(&b); err != nil {
			return err
		}
		if err := os.WriteFile(out+c.ext, b.Bytes(), 0o666); err != nil {
			return err
		}
	}
	return nil
}

// newPlot returns a plot over bits per key, with a grid.
func newPlot(title, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "bits per key"
	p.Y.Label.Text = y
	p.X.Tick.Marker = bitTicks{}
	p.Add(plotter.NewGrid())
	return p
}

func addSeries(p *plot.Plot, name1 string, xy1 plotter.XYs, c1 color.Color, name2 string, xy2 plotter.XYs, c2 color.Color) error {
	l1, err := plotter.NewLine(xy1)
	if err != nil {
		return err
	}
	l1.Color = c1
	l1.Width = vg.Points(2)
	l2, s2, err := plotter.NewLinePoints(xy2)
	if err != nil {
		return err
	}
	l2.Color, s2.Color = c2, c2
	l2.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	s2.Shape = draw.CircleGlyph{}
	p.Add(l1, l2, s2)
	p.Legend.Add(name1, l1)
	p.Legend.Add(name2, l2, s2)
	p.Legend.Top = true
	return nil
}

// bitTicks labels every bits/key value from 1 to 20.
type bitTicks struct{}

func (bitTicks) Ticks(min, max float64) []plot.Tick {
	var ts []plot.Tick
	for b := math.Ceil(min); b <= max; b++ {
		label := ""
		if int(b)%2 == 0 || b == 1 {
			label = fmt.Sprint(b)
		}
		ts = append(ts, plot.Tick{Value: b, Label: label})
	}
	return ts
}
