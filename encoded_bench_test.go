package cuckoo

import (
	"fmt"
	"testing"
)

// benchBlock is the compact encoding of a filter built from n 16-byte keys,
// with its keys and n absent ones.
func benchBlock(b *testing.B, n int, layout Layout, f int) (enc []byte, hits, miss [][]byte) {
	for i := range 2 * n {
		k := []byte(fmt.Sprintf("key:%012d", i))
		if i < n {
			hits = append(hits, k)
		} else {
			miss = append(miss, k)
		}
	}
	fl, err := Build[[]byte](Config{FingerprintBits: f, Layout: layout}, hits)
	if err != nil {
		b.Fatal(err)
	}
	enc, err = fl.AppendCompact(nil)
	if err != nil {
		b.Fatal(err)
	}
	return enc, hits, miss
}

// BenchmarkContainsEncoded probes a filter block of 100,000 keys from its
// bytes, as a storage engine does once per lookup per table, against
// opening a View on the same bytes for every probe.
func BenchmarkContainsEncoded(b *testing.B) {
	for _, layout := range layouts {
		enc, _, miss := benchBlock(b, 100_000, layout, 11)
		b.Run(fmt.Sprintf("%v/f11/ContainsEncoded", layout), func(b *testing.B) {
			n := 0
			for i := 0; b.Loop(); i++ {
				if ok, _ := ContainsEncoded(enc, miss[i%len(miss)]); ok {
					n++
				}
			}
		})
		b.Run(fmt.Sprintf("%v/f11/NewViewUnverified", layout), func(b *testing.B) {
			n := 0
			for i := 0; b.Loop(); i++ {
				v, _ := NewViewUnverified[[]byte](enc)
				if v.Contains(miss[i%len(miss)]) {
					n++
				}
			}
		})
		v, _ := NewViewUnverified[[]byte](enc)
		b.Run(fmt.Sprintf("%v/f11/View.Contains", layout), func(b *testing.B) {
			n := 0
			for i := 0; b.Loop(); i++ {
				if v.Contains(miss[i%len(miss)]) {
					n++
				}
			}
		})
	}
}
