package cuckoo

import (
	"errors"
	"strings"
	"testing"
)

// TestConfigRoundTrip: New(f.Config()) is Merge-compatible with f for
// every layout, fixed and growable, seeded and keyed (with the key set
// again), and Info reports what the accessors do.
func TestConfigRoundTrip(t *testing.T) {
	key := [16]byte{5}
	forEachLayout(t, func(t *testing.T, layout Layout) {
		for _, cfg := range []Config{
			{Capacity: 1000, Layout: layout},
			{Capacity: 500, MaxCapacity: 8000, FingerprintBits: 11, Layout: layout, Seed: 42, MaxKicks: 900},
			{Capacity: 1000, FalsePositiveRate: 0.0001, Layout: layout, Key: key},
		} {
			f := mustNew[uint64](t, cfg)
			n := uint64(900)
			if cfg.MaxCapacity != 0 {
				n = 1500 // grows
			}
			for k := range n {
				if err := f.Insert(k); err != nil {
					t.Fatal(err)
				}
			}
			got := f.Config()
			if got.Key != ([16]byte{}) {
				t.Fatal("Config returned the key")
			}
			if cfg.Key != ([16]byte{}) {
				if err := f.Merge(mustNew[uint64](t, got)); !errors.Is(err, ErrIncompatible) {
					t.Fatalf("a keyed filter merged an unkeyed one: %v", err)
				}
				got.Key = cfg.Key
			}
			g := mustNew[uint64](t, got)
			g.Insert(99999)
			if err := f.Merge(g); err != nil {
				t.Fatalf("%+v: Merge of New(f.Config()): %v", cfg, err)
			}
			if !f.Contains(99999) {
				t.Fatal("merged key missing")
			}
			i := f.Info()
			if i.Len != f.Len() || i.Slots != f.Slots() || i.Buckets*4 != i.Slots || i.SizeBytes != f.SizeBytes() ||
				i.Capacity != f.Capacity() || i.MaxCapacity != f.MaxCapacity() || i.FingerprintBits != f.FingerprintBits() ||
				i.Layout != f.Layout() || i.LoadFactor != f.LoadFactor() || i.MaxKicks != got.MaxKicks && cfg.MaxKicks != 0 ||
				i.Keyed != (cfg.Key != [16]byte{}) || i.EstimatedFalsePositiveRate != f.EstimatedFalsePositiveRate() {
				t.Fatalf("Info %+v disagrees with the accessors", i)
			}
			if cfg.MaxCapacity != 0 && (i.Doublings == 0 || i.MaxDoublings < i.Doublings) {
				t.Fatalf("a grown filter: Info %+v", i)
			}
			if s := i.String(); !strings.Contains(s, "len=") || strings.Contains(s, "\n") {
				t.Fatalf("Info.String: %q", s)
			}
			data, _ := f.MarshalBinary()
			var v *View[uint64]
			var err error
			if cfg.Key != ([16]byte{}) {
				v, err = NewKeyedView[uint64](data, key)
			} else {
				v, err = NewView[uint64](data)
			}
			if err != nil {
				t.Fatal(err)
			}
			vc := v.Config()
			vc.MaxKicks = got.MaxKicks
			vc.Key = got.Key
			if vc != got {
				t.Fatalf("View.Config %+v, Filter.Config %+v", vc, got)
			}
			c := NewConcurrentFrom(f)
			if cc := c.Config(); cc.Key != ([16]byte{}) || cc.Capacity != got.Capacity || cc.FingerprintBits != got.FingerprintBits {
				t.Fatalf("ConcurrentFilter.Config %+v", cc)
			}
			if ci := c.Info(); ci.Len != i.Len || ci.Buckets != i.Buckets || ci.Keyed != i.Keyed {
				t.Fatalf("ConcurrentFilter.Info %+v, Filter.Info %+v", ci, i)
			}
		}
	})
	var z Filter[uint64]
	if z.Config() != (Config{}) || z.Info() != (Info{}) {
		t.Fatal("zero filter's Config or Info")
	}
}
