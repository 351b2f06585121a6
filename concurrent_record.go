//go:build !cuckoomodel

package cuckoo

// recorder is where the model test (concurrent_model_test.go, which builds
// only with -tags cuckoomodel and declares the recording one) notes every
// store of a ctable's writer. In every other build it is empty, and its
// calls compile to nothing.
type recorder struct{}

func (recorder) store(s *ctable, version bool, i, v uint64) {}
func (recorder) storeBytes(s *ctable, o uint64)             {}
func (recorder) publish(s *ctable)                          {}
