package cuckoo

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestPrintingHidesKey prints keyed filters of every type, by pointer and
// by value (a ConcurrentFilter by value is reached through reflect, since
// go vet flags the copy of its lock), with every verb: no output may show
// a word of the key, in any base.
func TestPrintingHidesKey(t *testing.T) {
	key := [16]byte{0x13, 0x57, 0x9b, 0xdf, 0x24, 0x68, 0xac, 0xe0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88}
	cfg := Config{Capacity: 100, Key: key}
	f := mustNew[string](t, cfg)
	f.Insert("x")
	data, _ := f.MarshalBinary()
	v, err := NewKeyedView[string](data, key)
	if err != nil {
		t.Fatal(err)
	}
	c := mustNewConcurrent[string](t, cfg)
	c.Insert("x")
	var secrets []string
	for _, w := range []uint64{binary.LittleEndian.Uint64(key[:8]), binary.LittleEndian.Uint64(key[8:])} {
		for _, base := range []int{2, 8, 10, 16} {
			secrets = append(secrets, strconv.FormatUint(w, base), strings.ToUpper(strconv.FormatUint(w, 16)))
		}
	}
	secrets = append(secrets, fmt.Sprintf("%x", key[:8]), fmt.Sprintf("%x", key[8:]))
	values := map[string]any{
		"*Filter": f, "Filter": reflect.ValueOf(f).Elem().Interface(),
		"*View": v, "View": reflect.ValueOf(v).Elem().Interface(),
		"*ConcurrentFilter": c, "ConcurrentFilter": reflect.ValueOf(c).Elem().Interface(),
	}
	for name, x := range values {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%d", "%x", "%X", "%o", "%b", "%t", "%p", "%T", "%10.3v"} {
			out := fmt.Sprintf(verb, x)
			for _, s := range secrets {
				if strings.Contains(out, s) {
					t.Fatalf("%s printed with %s shows the key (%s): %s", name, verb, s, out)
				}
			}
		}
	}
}
