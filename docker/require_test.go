//go:build !leveldb

package docker_test

// Without -tags leveldb the cache may be empty (a fresh clone): the fetch
// tests that need a real tarball skip.
const requireTarball = false
