// Package blockop names the calls on a LevelDB filter block builder and
// reader (leveldb::FilterBlockBuilder and leveldb::FilterBlockReader,
// table/filter_block.h), so that a sequence of them can be replayed on any
// implementation: package bloom, a Go port, or upstream C++ through
// cgo/upstream. It is the one definition of these calls in the module; it
// imports nothing, so that every package that replays them can import it.
package blockop

// Kind is the kind of a call on a filter block builder. Its values are
// part of the golden vectors' case fingerprints: do not renumber them.
type Kind uint8

// The calls of a filter block builder.
const (
	StartBlock Kind = iota // StartBlock(Op.Offset)
	AddKey                 // AddKey(Op.Key)
	Finish                 // Finish()
)

// Op is one call on a filter block builder. Offset is used only by
// StartBlock and Key only by AddKey.
type Op struct {
	Kind   Kind
	Offset uint64
	Key    []byte
}

// Query is one KeyMayMatch(Offset, Key) call on a filter block reader.
type Query struct {
	Offset uint64
	Key    []byte
}
