// Package crc computes the checksums LevelDB stores beside table blocks and
// log records: CRC-32C (Castagnoli), masked before it is stored
// (util/crc32c.h).
package crc

import "hash/crc32"

// maskDelta is the constant util/crc32c.h's Mask adds after rotating.
const maskDelta = 0xa282ead8

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Value returns the CRC-32C of data (util/crc32c.h Value).
func Value(data []byte) uint32 {
	return crc32.Checksum(data, castagnoli)
}

// Extend returns the CRC-32C of the bytes whose CRC-32C is crc followed by
// data (util/crc32c.h Extend).
func Extend(crc uint32, data []byte) uint32 {
	return crc32.Update(crc, castagnoli, data)
}

// Mask masks crc as LevelDB does before storing it (util/crc32c.h Mask):
// rotate right by 15 bits and add 0xa282ead8, so that the CRC of a string
// holding CRCs is not the CRC of an easier string.
func Mask(crc uint32) uint32 {
	return (crc>>15 | crc<<17) + maskDelta
}
