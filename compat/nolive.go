//go:build !leveldb

package compat

// Live reports whether this build of the suite can ask upstream LevelDB
// directly (it was built with the leveldb tag).
const Live = false
