// Package blockop names the calls on a filter block builder and reader
// (table/filter_block.h), so a sequence replays on bloom, a port or
// upstream through cgo/upstream. It imports nothing, so all can import it.
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
