package cases

// SyncedCase is an input of the recovery check: distinct keys, in the
// order a port puts them, each with sync, into a database it leaves
// without flushing its memtable, so that every write is in its log.
type SyncedCase struct {
	Name string
	KVs  [][2][]byte
}

// SyncedCases returns the inputs of the recovery check: a handful of
// keys (an empty value among them); a thousand small writes, whose log
// spans several 32 KiB blocks so that records are cut into fragments at
// block ends; and values from 10 KiB to 100 KiB, single records longer
// than a block. None fills upstream's default 4 MiB write buffer, so a
// port with LevelDB's defaults keeps every write in its log.
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
