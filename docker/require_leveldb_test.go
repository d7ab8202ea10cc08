//go:build leveldb

package docker_test

// With -tags leveldb, build-leveldb.sh has put a tarball in the cache: the
// fetch tests must run, not skip.
const requireTarball = true
