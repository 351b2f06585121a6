//go:build linux

package cuckoo_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime/debug"
	"syscall"

	"github.com/seed-a0724874/cuckoo"
)

// A block index in a memory-mapped file: filters written back to back,
// opened in place with EncodedLen and NewView, without copying. The mapped
// bytes must not change while the views are used. If the file could be
// truncated under the mapping, a lookup would end the process with SIGBUS;
// debug.SetPanicOnFault makes it a panic the lookup can recover from.
func Example_mmap() {
	dir, err := os.MkdirTemp("", "cuckoo-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "blocks.cuckoo")

	// Write three blocks' filters to the file.
	out, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	for b := range 3 {
		f, err := cuckoo.New[string](cuckoo.Config{Capacity: 1000})
		if err != nil {
			log.Fatal(err)
		}
		for i := range 1000 {
			if err := f.Insert(fmt.Sprintf("block%d/key%d", b, i)); err != nil {
				log.Fatal(err)
			}
		}
		if _, err := f.WriteTo(out); err != nil {
			log.Fatal(err)
		}
	}
	if err := out.Close(); err != nil {
		log.Fatal(err)
	}

	// Map it and open a view per filter.
	in, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer in.Close()
	st, _ := in.Stat()
	data, err := syscall.Mmap(int(in.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		log.Fatal(err)
	}
	defer syscall.Munmap(data)
	var views []*cuckoo.View[string]
	for rest := data; len(rest) > 0; {
		n, err := cuckoo.EncodedLen(rest)
		if err != nil {
			log.Fatal(err)
		}
		v, err := cuckoo.NewView[string](rest[:n])
		if err != nil {
			log.Fatal(err)
		}
		views = append(views, v)
		rest = rest[n:]
	}

	// Look up with the fault guard.
	contains := func(v *cuckoo.View[string], key string) (found bool, err error) {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("filter file unreadable: %v", r)
			}
		}()
		return v.Contains(key), nil
	}
	for b, v := range views {
		found, err := contains(v, "block1/key7")
		fmt.Println(b, found, err)
	}
	// Output:
	// 0 false <nil>
	// 1 true <nil>
	// 2 false <nil>
}
