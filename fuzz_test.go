package cuckoo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

// FuzzOperations runs an arbitrary sequence of operations against the exact
// model: no false negatives, exact Len, failed inserts change nothing.
// Each 3-byte group of the input is one operation: op, key (2 bytes).
func FuzzOperations(f *testing.F) {
	f.Add(uint8(8), uint8(0), []byte{0, 1, 2, 0, 1, 2, 1, 1, 2, 3, 0, 0})
	f.Add(uint8(4), uint8(1), bytes.Repeat([]byte{0, 7, 7}, 20))
	f.Add(uint8(32), uint8(0), []byte{0, 1, 1, 0, 2, 2, 4, 0, 0, 0, 3, 3})
	f.Add(uint8(28), uint8(58), []byte{0, 1, 1, 0, 2, 2}) // 32-bit fingerprints, growable
	f.Fuzz(func(t *testing.T, bits, layout uint8, ops []byte) {
		capacity, fbits := 1+int(bits)%40, 4+int(bits)%29
		// Growable from layout 4 on; a slot holds at most 32 bits, so
		// fbits+doublings stays within that.
		doublings := min(int(layout)/2%8, maxFingerprintBits-fbits)
		fuzzOperations(t, Config{
			Capacity:        capacity,
			FingerprintBits: fbits,
			Layout:          layouts[int(layout)%len(layouts)],
			Seed:            uint64(bits),
			MaxKicks:        1 + int(layout)%64,
			MaxCapacity:     capacity << doublings,
		}, ops)
	})
}

func fuzzOperations(t *testing.T, cfg Config, ops []byte) {
	f := mustNew[uint16](t, cfg)
	m := model{}
	for len(ops) >= 3 {
		op, key := ops[0], binary.LittleEndian.Uint16(ops[1:3])
		ops = ops[3:]
		h := f.Hash(key)
		switch op % 5 {
		case 0, 1:
			before := bytes.Clone(f.c.t.data)
			err := f.Insert(key)
			switch {
			case err == nil:
				m[h]++
			case errors.Is(err, ErrFull) || errors.Is(err, ErrTooManyDuplicates):
				if !bytes.Equal(before, f.c.t.data) {
					t.Fatalf("failed insert (%v) changed the table", err)
				}
			default:
				t.Fatal(err)
			}
		case 2:
			if m[h] > 0 { // only delete what was inserted
				if !f.Delete(key) {
					t.Fatal("delete of an inserted key failed")
				}
				m[h]--
			}
		case 3:
			if c := f.Count(key); c < m[h] || c > 8 {
				t.Fatalf("Count %d, model %d", c, m[h])
			}
		case 4:
			if op == 4 {
				f.Reset()
				clear(m)
			}
		}
		checkNoFalseNegatives(t, &f.c.reader, m)
	}
}

// FuzzSemiSort is FuzzOperations on the semi-sorted layout alone.
func FuzzSemiSort(f *testing.F) {
	f.Add(uint8(13), []byte{0, 1, 2, 0, 1, 2, 1, 1, 2, 3, 0, 0})
	f.Add(uint8(0), bytes.Repeat([]byte{0, 7, 7}, 20))
	f.Add(uint8(28), []byte{0, 1, 1, 0, 2, 2, 4, 0, 0, 0, 3, 3})
	f.Fuzz(func(t *testing.T, bits uint8, ops []byte) {
		fuzzOperations(t, Config{
			Capacity:        1 + int(bits)%40,
			FingerprintBits: 4 + int(bits)%29,
			Layout:          SemiSorted,
			Seed:            uint64(bits),
			MaxKicks:        1 + int(bits)%64,
		}, ops)
	})
}

// FuzzProbe compares the SWAR probes with a slot-by-slot reference on raw
// bucket bytes, for every width and both layouts, of a plain table and of
// an expiring one (fuzzGens, by bucket's top bits), whose
// probes compare a slot's fingerprint bits alone. The packed reference
// reads slots bit by bit; the semi-sorted one decodes buckets with
// semiSlots and compares whole fingerprints.
func FuzzProbe(f *testing.F) {
	f.Add(uint8(12), uint32(5), uint8(0), []byte{5, 0, 0x50, 0, 0, 0, 0, 0})
	f.Add(uint8(32), uint32(0xffffffff), uint8(3), bytes.Repeat([]byte{0xff}, 64))
	f.Add(uint8(17), uint32(1), uint8(5), []byte{1, 0, 2, 0, 4})
	f.Add(uint8(0x80|9), uint32(77), uint8(1), []byte{0x10, 0x32, 0x54, 0x76, 0x98})
	f.Add(uint8(0x80|13), uint32(0x205), uint8(0x18), []byte{0x21, 0x43, 0x65, 0x87, 0xa9, 0xcb, 0xed, 0x0f})
	f.Fuzz(func(t *testing.T, bits uint8, fp uint32, bucket uint8, raw []byte) {
		layout, width := Layout(bits>>7), 4+uint(bits&0x7f)%29
		gens := fuzzGens[int(bucket>>3)%len(fuzzGens)]
		gb := genBits(gens)
		for _, tb := range []table{
			newTable(8, width, layout),
			tableShape(8, 4+(width-4)%(29-gb), 0, 0, layout, gens),
		} {
			if tb.data == nil {
				tb.data = newTableData(tableBytes(tb.m, tb.bbits))
			}
			copy(tb.data[:len(tb.data)-tablePad], raw)
			fuzzProbe(t, tb, 1+uint32(uint64(fp)%tb.fpRange), uint64(bucket)%tb.m)
		}
	})
}

// fuzzGens are the generations of the fuzzed expiring tables: 1 to 8
// generation bits, every count a power of two or one more.
var fuzzGens = [...]uint{2, 3, 4, 5, 8, 9, 16, 17, 32, 33, 64, 65, 128, 129, 256}

// fuzzProbe is FuzzProbe on table tb: the probes for fingerprint fp in
// bucket i1 and its alternate.
func fuzzProbe(t *testing.T, tb table, fp uint32, i1 uint64) {
	layout := tb.layout
	i2 := tb.alt(i1, fp)
	if !tb.validBucket(i1) || !tb.validBucket(i2) {
		return // a table of this package never holds such buckets
	}
	count := 0
	for _, b := range []uint64{i1, i2} {
		for k := uint(0); k < slotsPerBucket; k++ {
			v := refSlot(&tb, b, k)
			if layout == SemiSorted {
				v = tb.bucketSlots(b)[k]
			}
			if v&uint32(tb.fpMask) == fp {
				count++
			}
		}
	}
	r := &reader{t: tb}
	h := hashFor(&tb, i1, fp)
	if got := r.containsHash(h); got != (count > 0) {
		t.Fatalf("%v f=%d G=%d fp=%d: contains %v, reference count %d", layout, tb.f, tb.gens, fp, got, count)
	}
	if got := r.copies(probeHashed, h, nil); got != count {
		t.Fatalf("%v f=%d G=%d fp=%d: count %d, reference %d", layout, tb.f, tb.gens, fp, got, count)
	}
	for _, p := range implementations() {
		restore := setImpl(p)
		var found [1]bool
		n := containsBatch(&r.t, []uint64{h}, found[:])
		restore()
		if n != min(count, 1) || found[0] != (count > 0) {
			t.Fatalf("%s %v f=%d G=%d fp=%d: batch %d %v, reference count %d", p.name, layout, tb.f, tb.gens, fp, n, found[0], count)
		}
	}
}
