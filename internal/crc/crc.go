// Package crc computes LevelDB's masked CRC-32C checksums (util/crc32c.h).
package crc

import "hash/crc32"

// maskDelta is the constant util/crc32c.h's Mask adds after rotating.
const maskDelta = 0xa282ead8

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Value returns the CRC-32C of data (util/crc32c.h Value).
func Value(data []byte) uint32 {
	return crc32.Checksum(data, castagnoli)
}

// Extend extends crc with data (util/crc32c.h Extend).
func Extend(crc uint32, data []byte) uint32 {
	return crc32.Update(crc, castagnoli, data)
}

// Mask is util/crc32c.h Mask: rotate right 15 and add 0xa282ead8, so a CRC
// of data holding CRCs is not an easy one.
func Mask(crc uint32) uint32 {
	return (crc>>15 | crc<<17) + maskDelta
}
