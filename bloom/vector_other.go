//go:build !amd64 || purego

package bloom

// vectorCreateFaster is false where there is no vector kernel (other
// architectures, or the purego build tag).
var vectorCreateFaster = false

// addHashesVector is addHashesScalar where there is no vector kernel.
func addHashesVector(array []byte, k int, hashes []uint32) {
	addHashesScalar(array, k, hashes)
}
