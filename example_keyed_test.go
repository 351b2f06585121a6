package cuckoo_test

import (
	"crypto/rand"
	"errors"
	"fmt"
	"log"

	"github.com/seed-a0724874/cuckoo"
)

// Keys an adversary chooses (user names, URLs from the network) need a keyed
// filter: Config.Key is a 16-byte secret under which keys are hashed, so
// nobody without it can aim keys at a bucket. The key is never encoded:
// NewKeyedView and DecodeKeyed reopen the encoding with it, and refuse a
// wrong one.
func ExampleNewKeyedView() {
	var key [16]byte
	if _, err := rand.Read(key[:]); err != nil { // in practice, from a secret store
		log.Fatal(err)
	}
	f, err := cuckoo.New[string](cuckoo.Config{Capacity: 1000, Key: key})
	if err != nil {
		log.Fatal(err)
	}
	if err := f.Insert("https://example.com/login"); err != nil {
		log.Fatal(err)
	}
	data, err := f.MarshalBinary()
	if err != nil {
		log.Fatal(err)
	}

	v, err := cuckoo.NewKeyedView[string](data, key)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(v.Contains("https://example.com/login"), v.Info().Keyed)

	g, err := cuckoo.DecodeKeyed[string](data, key) // a Filter that takes inserts
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(g.Contains("https://example.com/login"), g.Len())

	_, err = cuckoo.NewView[string](data) // without the key
	fmt.Println(errors.Is(err, cuckoo.ErrIncompatible))
	wrong := key
	wrong[0] ^= 1
	_, err = cuckoo.NewKeyedView[string](data, wrong)
	fmt.Println(errors.Is(err, cuckoo.ErrIncompatible))
	// Output:
	// true true
	// true 1
	// true
	// true
}
