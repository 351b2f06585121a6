package cuckoo

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// FuzzAsmProbe compares every probe implementation this CPU runs with the
// generic probe: on raw bucket bytes (any bits, any width, tables of a few
// buckets, fingerprints chosen to hit), and on a whole filter built from the
// input's keys and probed with a batch of stored and absent keys. Each
// input is tried on a plain table and on an expiring one (fuzzGens, by
// buckets' top bits) of the same layout and a slot width near it.
func FuzzAsmProbe(f *testing.F) {
	f.Add(uint8(12), uint16(3), []byte{5, 0, 0x50, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Add(uint8(32), uint16(40), bytes.Repeat([]byte{0xff}, 100))
	f.Add(uint8(17), uint16(7), []byte{1, 0, 2, 0, 4, 9, 9, 9, 9, 9, 9, 9, 9})
	f.Add(uint8(4), uint16(1), []byte{0x11, 0x11, 0x11, 0x11})
	f.Add(uint8(0x80|13), uint16(5), []byte{0x21, 0x43, 0x65, 0x87, 0xa9, 0xcb, 0xed, 0x0f, 1, 2})
	f.Add(uint8(11), uint16(0x205), bytes.Repeat([]byte{0x5a, 0xa5, 0x3c}, 40))
	f.Add(uint8(0x80|20), uint16(0xd10), bytes.Repeat([]byte{0x81, 0x7e}, 60))
	f.Fuzz(func(t *testing.T, bits uint8, buckets uint16, raw []byte) {
		width := 4 + uint(bits&0x7f)%29
		layout := Layout(bits >> 7)
		m := 2 + 2*uint64(buckets%200)
		gens := fuzzGens[int(buckets>>8)%len(fuzzGens)]
		fbits := 4 + (width-4)%(29-genBits(gens)) // slots of at most 32 bits
		exp := tableShape(m, fbits, 0, 0, layout, gens)
		exp.data = newTableData(tableBytes(exp.m, exp.bbits))
		for _, tb := range []table{newTable(m, width, layout), exp} {
			fuzzAsmTable(t, tb, raw)
		}
		cfg := Config{Capacity: 1 + len(raw)/2, FingerprintBits: int(width), Layout: layout, Seed: uint64(buckets)}
		fuzzAsmFilter(t, cfg, raw)
		cfg.FingerprintBits, cfg.Generations = int(fbits), int(gens)
		fuzzAsmFilter(t, cfg, raw)
	})
}

// fuzzAsmTable is FuzzAsmProbe on raw bytes as the buckets of tb.
func fuzzAsmTable(t *testing.T, tb table, raw []byte) {
	copy(tb.data[:len(tb.data)-tablePad], raw)
	// Hashes: each 8 bytes of the input, and for each slot of the table a
	// hash whose fingerprint is that slot's content (its fingerprint bits),
	// so hits happen.
	var hs []uint64
	for r := raw; len(r) >= 8; r = r[8:] {
		hs = append(hs, binary.LittleEndian.Uint64(r))
	}
	for i := uint64(0); i < tb.m && len(hs) < 600; i++ {
		for _, v := range tb.bucketSlots(i) {
			if fp := v & uint32(tb.fpMask); fp != 0 {
				hs = append(hs, hashFor(&tb, i, fp), hashFor(&tb, tb.alt(i, fp), fp))
			}
		}
	}
	want := make([]bool, len(hs))
	wantN := 0
	for i, h := range hs {
		want[i] = containsGeneric(&tb, h)
		if want[i] {
			wantN++
		}
	}
	c := &reader{t: tb}
	for _, p := range implementations() {
		restore := setImpl(p)
		found := make([]bool, len(hs))
		n := containsBatch(&c.t, hs, found)
		restore()
		if n != wantN {
			t.Fatalf("%s %v f=%d G=%d m=%d: batch found %d, generic %d", p.name, tb.layout, tb.f, tb.gens, tb.m, n, wantN)
		}
		for i := range hs {
			if found[i] != want[i] {
				t.Fatalf("%s %v f=%d G=%d m=%d hash %#x: %v, generic %v", p.name, tb.layout, tb.f, tb.gens, tb.m, hs[i], found[i], want[i])
			}
		}
	}
}

// fuzzAsmFilter is FuzzAsmProbe on a whole filter of cfg: the input's
// 2-byte keys inserted (an expiring filter advancing every 16 keys, so
// that its slots hold several generations), then they and their
// neighbours probed with ContainsBatch, which must answer as Contains and
// find every key inserted since the last Advance.
func fuzzAsmFilter(t *testing.T, cfg Config, raw []byte) {
	flt := mustNew[uint64](t, cfg)
	var keys []uint64
	live := 0 // keys[live:] went in after the last Advance
	for r := raw; len(r) >= 2; r = r[2:] {
		if cfg.Generations > 0 && len(keys)%16 == 15 {
			flt.Advance()
			live = len(keys)
		}
		k := uint64(binary.LittleEndian.Uint16(r))
		if flt.Insert(k) == nil {
			keys = append(keys, k)
		}
	}
	stored := len(keys)
	for i := range stored + 5 {
		keys = append(keys, uint64(70000+i))
	}
	for _, p := range implementations() {
		restore := setImpl(p)
		found := make([]bool, len(keys))
		flt.ContainsBatch(keys, found)
		restore()
		for i, k := range keys {
			if found[i] != flt.Contains(k) || (live <= i && i < stored && !found[i]) {
				t.Fatalf("%s %+v: key %d: batch %v, Contains %v, live %v", p.name, cfg, k, found[i], flt.Contains(k), live <= i && i < stored)
			}
		}
	}
}
