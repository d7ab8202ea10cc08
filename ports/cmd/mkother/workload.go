package main

import (
	"bytes"
	"encoding/hex"
	"sort"
	"strconv"
)

// splitMix64 is the generator every writer of tools/other uses (Steele,
// Lea and Flood, 2014), so that they all write the same keys and values.
type splitMix64 struct{ state uint64 }

func (r *splitMix64) next() uint64 {
	r.state += 0x9E3779B97F4A7C15
	z := r.state
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

func (r *splitMix64) mod(n int) int { return int(r.next() % uint64(n)) }

// workloadSpec is a workload's parameters, as recorded in the JSON.
type workloadSpec struct {
	Seed      uint64 `json:"seed"`
	New       int    `json:"new"`
	Overwrite int    `json:"overwrite"`
	Delete    int    `json:"delete"`
}

// workload is tools/other/README.md's workload and the model of what the
// database must hold after it.
type workload struct {
	spec          workloadSpec
	rng           splitMix64
	rounds        int
	puts, deletes int
	keys          []string // distinct keys, in the order first written
	seen          map[string]bool
	live          map[string]string
}

func newWorkload(s workloadSpec) *workload {
	return &workload{spec: s, rng: splitMix64{s.Seed}, seen: map[string]bool{}, live: map[string]string{}}
}

func (w *workload) key() []byte {
	n := 1 + w.rng.mod(16)
	b := make([]byte, n)
	b[0] = byte(w.rng.mod(255))
	for i := 1; i < n; i++ {
		b[i] = byte(w.rng.mod(256))
	}
	return b
}

func (w *workload) value(tag string) string {
	n := 16 + w.rng.mod(96)
	var word [8]byte
	for i := range word {
		word[i] = byte(97 + w.rng.mod(26))
	}
	s := []byte(tag + ":")
	for i := 0; len(s) < n; i++ {
		s = append(s, word[i%8])
	}
	return string(s)
}

// round writes one round: new keys, overwrites of earlier keys, deletions.
func (w *workload) round(put func(k, v []byte) error, del func(k []byte) error) error {
	t := strconv.Itoa(w.rounds)
	for i := 0; i < w.spec.New; i++ {
		k := w.key()
		if err := w.put(put, k, w.value(t+"."+strconv.Itoa(i))); err != nil {
			return err
		}
	}
	for i := 0; i < w.spec.Overwrite; i++ {
		k := []byte(w.keys[w.rng.mod(len(w.keys))])
		if err := w.put(put, k, w.value(t+".o"+strconv.Itoa(i))); err != nil {
			return err
		}
	}
	for i := 0; i < w.spec.Delete; i++ {
		k := w.keys[w.rng.mod(len(w.keys))]
		if err := del([]byte(k)); err != nil {
			return err
		}
		w.deletes++
		delete(w.live, k)
	}
	w.rounds++
	return nil
}

func (w *workload) put(put func(k, v []byte) error, k []byte, v string) error {
	if err := put(k, []byte(v)); err != nil {
		return err
	}
	w.puts++
	if !w.seen[string(k)] {
		w.seen[string(k)] = true
		w.keys = append(w.keys, string(k))
	}
	w.live[string(k)] = v
	return nil
}

// expectation is what the database must hold: live keys (hex) with their
// values, and the keys written and then deleted.
type expectation struct {
	LiveKeys    int         `json:"live_keys"`
	DeletedKeys int         `json:"deleted_keys"`
	Live        [][2]string `json:"live"`
	Deleted     []string    `json:"deleted"`
}

func (w *workload) expect() expectation {
	var live, gone []string
	for _, k := range w.keys {
		if _, ok := w.live[k]; ok {
			live = append(live, k)
		} else {
			gone = append(gone, k)
		}
	}
	byBytes := func(s []string) {
		sort.Slice(s, func(i, j int) bool { return bytes.Compare([]byte(s[i]), []byte(s[j])) < 0 })
	}
	byBytes(live)
	byBytes(gone)
	e := expectation{LiveKeys: len(live), DeletedKeys: len(gone), Live: [][2]string{}, Deleted: []string{}}
	for _, k := range live {
		e.Live = append(e.Live, [2]string{hex.EncodeToString([]byte(k)), w.live[k]})
	}
	for _, k := range gone {
		e.Deleted = append(e.Deleted, hex.EncodeToString([]byte(k)))
	}
	return e
}
