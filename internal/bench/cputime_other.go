//go:build !linux

package bench

// threadCPU is unknown outside Linux: samples are then taken as they come.
func threadCPU() (int64, bool) { return 0, false }
