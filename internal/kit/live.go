//go:build leveldb

package kit

// Live reports whether this build of the kit asks upstream LevelDB itself,
// through cgo, besides the golden vectors: whether it was built with the
// leveldb tag.
const Live = true
