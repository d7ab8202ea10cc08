//go:build !linux

package logfile

// seekData is SEEK_DATA where it is known; elsewhere no hole is skipped
// and every block is read.
const seekData = -1
