//go:build leveldb && (!linux || !(amd64 || arm64))

package bench

// dropCache is Linux's (on amd64 and arm64) only: elsewhere Verify does
// not measure reading from the disk.
func dropCache(string) (int, error) { return 0, errDropUnsupported }
