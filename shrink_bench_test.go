package cuckoo

import (
	"math"
	"testing"
	"time"
)

// BenchmarkAdvanceBurst times the calls of Advance of the burst journey
// (TestBurstJourney: an hour's window ticking every minute, 1,000 keys a
// tick, a 5-tick burst of 10,000 a tick, 240 ticks, growable to 16 times
// Capacity), with the halvings that give the burst's memory back and with
// none: ns/op is a journey's Advance calls, the inserts untimed.
func BenchmarkAdvanceBurst(b *testing.B) {
	cfg, err := WindowConfig(1_000, time.Hour, time.Minute)
	if err != nil {
		b.Fatal(err)
	}
	cfg.MaxCapacity = 16 * cfg.Capacity
	for _, layout := range layouts {
		for _, halving := range []bool{true, false} {
			name := layout.String() + "/halving"
			if !halving {
				name = layout.String() + "/none"
			}
			b.Run(name, func(b *testing.B) {
				cfg.Layout = layout
				bytes := 0
				for range b.N {
					b.StopTimer()
					f := mustNew[uint64](b, cfg)
					key := 0
					for tick := range 240 {
						if tick > 0 {
							if !halving {
								f.c.wait = math.MaxInt32
							}
							b.StartTimer()
							f.Advance()
							b.StopTimer()
						}
						n := 1_000
						if tick >= 60 && tick < 65 {
							n = 10_000
						}
						for range n {
							if _, err := f.InsertUnique(intKey(key)); err != nil {
								b.Fatal(err)
							}
							key++
						}
					}
					bytes = f.SizeBytes()
				}
				b.ReportMetric(float64(bytes), "bytes-at-end")
			})
		}
	}
}

// BenchmarkHalveVsDouble halves a table of its second stage holding a
// quarter of its slots, and doubles the same table: the design wants a
// halving no slower than a doubling.
func BenchmarkHalveVsDouble(b *testing.B) {
	for _, layout := range layouts {
		cfg := Config{Capacity: 1 << 18, MaxCapacity: 1 << 20, Layout: layout}
		f := mustNew[uint64](b, cfg)
		i := 0
		for ; f.Info().Doublings < 1; i++ {
			mustInsert(b, f.Insert(intKey(i)))
		}
		for j := 0; f.Len() > f.Slots()/4; j++ {
			f.Delete(intKey(j))
		}
		b.Run(layout.String()+"/halve", func(b *testing.B) {
			for range b.N {
				c := f.c // halve writes only its new table, and c's fields
				if !c.halve() {
					b.Fatal("no halving")
				}
			}
		})
		b.Run(layout.String()+"/double", func(b *testing.B) {
			for range b.N {
				_ = f.c.t.double()
			}
		})
	}
}
