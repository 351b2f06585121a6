package cuckoo

// Structure checks for decoded tables. Decoding calls validBucket for every
// bucket and counts the occupied slots with bucketSlots, so that a table whose
// bytes pass the checksum but could not have been written by this package is
// rejected. The SemiSorted layout extends both methods: its buckets hold a
// 12-bit code that must name one of the sorted prefix multisets, and its slots
// must be decoded from that code.

// validBucket reports whether bucket i holds a valid encoding. Every bit
// pattern of a Packed bucket is valid.
func (t *table) validBucket(i uint64) bool { return true }

// bucketSlots returns the four fingerprints of bucket i, 0 for an empty slot.
func (t *table) bucketSlots(i uint64) [slotsPerBucket]uint32 {
	var s [slotsPerBucket]uint32
	for k := range s {
		s[k] = t.slot(i, uint(k))
	}
	return s
}
