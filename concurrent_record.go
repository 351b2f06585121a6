//go:build !cuckoomodel

package cuckoo

// recorder is where the model test (-tags cuckoomodel, which declares the
// recording one) notes a ctable writer's stores; here its calls are empty.
type recorder struct{}

func (recorder) store(s *ctable, i, v uint64) {}
func (recorder) flip(s *ctable, i, d uint64)  {}
func (recorder) publish(s *ctable)            {}
