package cases

// SyncedCase is an input of the recovery check: distinct keys, in the
// order a port puts them, each with sync, into a database it leaves
// without flushing its memtable, so that every write is in its log.
type SyncedCase struct {
	Name string
	KVs  [][2][]byte
}

// SyncedCases returns the inputs of the recovery check: a few keys, a
// thousand small writes (a log of several 32 KiB blocks) and values of 10
// to 100 KiB (records longer than a block). None fills the default 4 MiB
// write buffer, so every write stays in the log.
func SyncedCases() []SyncedCase {
	g := NewGen(23)
	small := func(n int) [][2][]byte {
		keys := g.Keys(n, 1, 40)
		kvs := make([][2][]byte, n)
		for i, k := range keys {
			kvs[i] = [2][]byte{k, g.Bytes(g.R.IntN(101))}
		}
		return kvs
	}
	few := small(5)
	few[2][1] = []byte{}
	many := small(1000)
	var large [][2][]byte
	for _, k := range g.Keys(8, 1, 40) {
		large = append(large, [2][]byte{k, g.Bytes(10<<10 + g.R.IntN(90<<10))})
	}
	return []SyncedCase{
		{Name: "synced/n5", KVs: few},
		{Name: "synced/n1000", KVs: many},
		{Name: "synced/large", KVs: large},
	}
}
